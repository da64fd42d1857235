#!/usr/bin/env bash
# Builds the bundled sample site with a release binary and, in the same run, copies the built
# tree with `cp -r`; prints files, bytes, seconds, MB/s and peak RSS of both.
# Targets (issue 3): build time at most 1.5x the copy time, build peak RSS under 512 MB.
# Usage: benches/site.sh [WORKDIR]   (WORKDIR needs about 2 x 6 GB free; default a temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
trap 'rm -rf "$work/site" "$work/copy"' EXIT
cargo build --release --quiet
bin=target/release/model-demand
rm -rf "$work/site" "$work/copy"

measure() { # label, command...
  local label=$1; shift
  local stats; stats=$(mktemp)
  local start end
  sync
  start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$stats" "$@" >/dev/null 2>&1
  end=$(date +%s.%N)
  local seconds; seconds=$(echo "$end - $start" | bc -l)
  local rss_kb; rss_kb=$(tail -n 1 "$stats")
  rm -f "$stats"
  echo "$label $seconds $rss_kb"
}

read -r _ build_s build_rss < <(measure build "$bin" build --now 2026-11-21T12:00:00Z --out "$work/site")
files=$(find "$work/site" -type f | wc -l)
bytes=$(du -sb "$work/site" | cut -f1)
read -r _ copy_s copy_rss < <(measure copy cp -r "$work/site" "$work/copy")

mb=$(echo "$bytes / 1000000" | bc -l)
printf '%-6s %8s %12s %9s %9s %10s\n' what files bytes seconds MB/s peak_RSS
printf '%-6s %8d %12d %9.2f %9.0f %7.0f MB\n' build "$files" "$bytes" "$build_s" "$(echo "$mb / $build_s" | bc -l)" "$(echo "$build_rss / 1024" | bc -l)"
printf '%-6s %8d %12d %9.2f %9.0f %7.0f MB\n' cp "$files" "$bytes" "$copy_s" "$(echo "$mb / $copy_s" | bc -l)" "$(echo "$copy_rss / 1024" | bc -l)"
ratio=$(echo "$build_s / $copy_s" | bc -l)
printf 'build/copy time ratio: %.2f (target <= 1.5); build peak RSS %.0f MB (target < 512)\n' "$ratio" "$(echo "$build_rss / 1024" | bc -l)"
