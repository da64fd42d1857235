#!/usr/bin/env bash
# `cargo test` of a fresh clone, compile and run apart (issue 33: within 6 minutes on 2 cores):
# clones the repository at REV (default HEAD) into a temporary directory with an empty target/,
# times `cargo test --no-run` (the compile), then `cargo test` (the run: the suites, their npm
# and Python installs included; npm's and pip's own download caches are whatever this machine
# has; the tests' tool cache, tests/it/common/tool_cache.rs, is the machine's own unless
# COLD_TOOLS=1, which gives the run an empty one, as on a machine that never ran the suite).
# Prints both, and the slowest tests with their own times (libtest's --report-time, which needs
# RUSTC_BOOTSTRAP=1 on stable; set for the compile too, so the run does not rebuild). FULL=1 runs
# what CI runs (MODEL_DEMAND_TEST_FULL=1: the heavy generated cases too).
# Run it on an otherwise idle machine: `[COLD_TOOLS=1] [FULL=1] benches/test_time.sh [REV]`.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-HEAD}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-hardlinks . "$work/clone"
git -C "$work/clone" checkout --quiet "$rev"
cd "$work/clone"
export CARGO_TARGET_DIR="$work/clone/target"
tools="the machine's tool cache"
if [ "${COLD_TOOLS:-}" = 1 ]; then
  export MODEL_DEMAND_TEST_TOOLS="$work/tools"
  tools="an empty tool cache"
fi
export RUSTC_BOOTSTRAP=1
if [ "${FULL:-}" = 1 ]; then
  export MODEL_DEMAND_TEST_FULL=1
fi
start=$(date +%s)
cargo test --no-run --quiet >/dev/null 2>&1
compiled=$(date +%s)
cargo test -- -Z unstable-options --report-time >"$work/test.log" 2>&1 || { grep -E "^---- |panicked at" "$work/test.log"; tail -5 "$work/test.log"; exit 1; }
ran=$(date +%s)
echo "test_time $rev ($tools): compile $((compiled - start)) s, run $((ran - compiled)) s, in all $((ran - start)) s"
echo "slowest tests (seconds):"
sed -nE 's/^test (.*) \.\.\. ok <([0-9.]+)s>$/\2 \1/p' "$work/test.log" | sort -rn | head -"${TOP:-20}"
