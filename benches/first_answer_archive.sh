#!/usr/bin/env bash
# The first answer of a release archive in an empty directory (issue 43): the host's archive
# as scripts/release/package.sh packs it (after `cargo build --release`), unpacked into an
# empty temporary directory, then `model-demand serve` started there, timed from the unpacking
# until GET /api/v1/models answers 200 and until /docs/ does. What a person without Rust meets
# after the download (the download itself is not counted). TMPDIR points into the directory, so
# the compact site `serve` answers from meanwhile goes with it; the server is stopped at its
# first answers, before the full sample is written. Goal: at most 10 s on the 2-core machine.
#
# Run: benches/first_answer_archive.sh   (2 cores: one build at a time)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
work=$(mktemp -d)
trap 'kill "${server:-0}" 2>/dev/null || true; wait 2>/dev/null; rm -rf "$work"' EXIT
cargo build --release --locked 2>"$work/build.log" || { cat "$work/build.log"; exit 1; }
target=$(rustc -vV | sed -n 's/^host: //p')
version="v$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
archive=$(scripts/release/package.sh "$version" "$target" target/release "$work/dist")
bytes=$(wc -c <"$archive")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir "$work/empty" "$work/empty/tmp"
cd "$work/empty"

start=$(date +%s.%N)
tar -xzf "$archive"
TMPDIR="$work/empty/tmp" "./model-demand-$version-$target/model-demand" serve \
  --bind "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
server=$!
until curl -fsS -o /dev/null "http://127.0.0.1:$port/api/v1/models?limit=1" 2>/dev/null; do
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.log"; exit 1; }
  sleep 0.05
done
api=$(date +%s.%N)
curl -fsS -o /dev/null "http://127.0.0.1:$port/docs/"
docs=$(date +%s.%N)
python3 - "$start" "$api" "$docs" "$bytes" "$target" <<'PY'
import sys
start, api, docs = (float(x) for x in sys.argv[1:4])
size, target = int(sys.argv[4]), sys.argv[5]
print(f"archive {target}: {size / 1e6:.1f} MB")
print(f"first answer from the archive in an empty directory: /api/v1/models {api - start:.2f} s, /docs/ {docs - start:.2f} s (goal: at most 10 s)")
PY
head -1 "$work/serve.log"
