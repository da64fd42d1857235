#!/usr/bin/env bash
# The newcomer's first answer (issue 26): a fresh clone of REV (default HEAD) in a temporary
# directory, then the README's `cargo run --release -- serve`, timed until the docs page
# answers. Prints the compile time (cargo's own figure, from `cargo build --release --timings`,
# whose HTML report is kept), the time `serve` takes to write the sample site and answer, and
# the sum. Crates already in ~/.cargo/registry are not downloaded again: the figure is
# compile and write, not download (about 25 MB of crates on a first machine).
#
# Run: benches/first_answer.sh [REV]   (2 cores: one build at a time)
set -euo pipefail
rev=${1:-HEAD}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
cd "$work/clone"
git checkout -q "$rev"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

start=$(date +%s.%N)
cargo build --release --timings 2>"$work/build.log"
built=$(date +%s.%N)
grep -E "^ *Finished" "$work/build.log" || true
mkdir -p "$repo/target/first-answer"
cp target/cargo-timings/cargo-timing.html "$repo/target/first-answer/cargo-timing-$(git rev-parse --short HEAD).html"

cargo run -q --release -- serve --bind "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
server=$!
until curl -fsS -o /dev/null "http://127.0.0.1:$port/docs/" 2>/dev/null; do
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.log"; exit 1; }
  sleep 0.1
done
answered=$(date +%s.%N)
python3 - "$start" "$built" "$answered" "$(git rev-parse --short HEAD)" <<'PY'
import sys
start, built, answered = map(float, sys.argv[1:4])
print(f"first answer of a fresh clone at {sys.argv[4]}: compile {built - start:.1f} s, "
      f"serve writes the sample and answers {answered - built:.1f} s, in all {answered - start:.1f} s (target <= 90 s)")
PY
