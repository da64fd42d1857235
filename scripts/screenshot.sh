#!/usr/bin/env bash
# Takes screenshots of the built docs page in headless Chromium (Debian's chromium package),
# at desktop and phone widths, so the page can be looked at.
# Usage: scripts/screenshot.sh [OUTDIR]   (default target/screenshots)
#   EXPORT=path SUPPLY=path NOW=rfc3339 choose the inputs (default: the small fixture).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/screenshots}
mkdir -p "$out"
if ! command -v chromium >/dev/null; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
cargo build --quiet
work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null; rm -rf "$work"' EXIT
target/debug/model-demand build --export "${EXPORT:-tests/fixtures/small/export.json}" \
  --supply "${SUPPLY:-tests/fixtures/small/supply.json}" --now "${NOW:-2026-04-01T12:00:00Z}" \
  --out "$work/site" 2>/dev/null
target/debug/model-demand serve --dir "$work/site" --bind 127.0.0.1:18099 2>/dev/null &
server=$!
for _ in $(seq 50); do curl -sf -o /dev/null http://127.0.0.1:18099/docs/ && break; sleep 0.2; done
shot() { # name width height
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile-$1" --hide-scrollbars --window-size="$2,$3" \
    --screenshot="$out/docs-$1.png" http://127.0.0.1:18099/docs/ >/dev/null 2>&1
  echo "$out/docs-$1.png"
}
shot desktop 1280 1800
shot phone 390 1600
