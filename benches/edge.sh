#!/usr/bin/env bash
# The `edge` layout (DESIGN §8.1, issue 32): for N = 56, 100 and 500 served models (synthetic
# exports from benches/scale_export.py), builds the edge layout and prints its files and bytes
# (what a nightly deploy publishes), then the edge function's CPU per list answer under Deno
# (benches/edge_cpu.mjs: a cold isolate and warm answers). Target: at most 1,000 files and 64 MB
# at N = 100; at most 5 ms per answer (Netlify allows 50 ms of CPU per request).
# Light (sites of a few MB): `benches/edge.sh [WORKDIR]` (NS="56 100" to choose N). Uses
# target/release/model-demand (built if missing) and the Deno the tests install
# (target/deno-cache, npm package deno 2.9.6; `cargo test --test it edge_vectors` installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
ns=${NS:-56 100 500}
bin=${BIN:-target/release/model-demand}
[ -x "$bin" ] || cargo build --release --locked
deno=target/deno-cache/node_modules/.bin/deno
if [ ! -x "$deno" ]; then
  npm install --silent --no-audit --no-fund --prefix target/deno-cache deno@2.9.6
fi
for n in $ns; do
  now=$(python3 benches/scale_export.py "$n" "$work/in$n")
  rm -rf "$work/edge$n"
  "$bin" build --layout edge --export "$work/in$n/export.json" --supply "$work/in$n/supply.json" \
    --now "$now" --out "$work/edge$n" 2>/dev/null
  files=$(find "$work/edge$n" -type f | wc -l)
  bytes=$(du -sb --apparent-size "$work/edge$n" | cut -f1)
  echo "edge layout N=$n: $files files, $bytes bytes"
  DENO_DIR=target/deno-cache/dir DENO_NO_UPDATE_CHECK=1 "$deno" run --quiet --no-check --allow-read \
    benches/edge_cpu.mjs "$work/edge$n"
  rm -rf "$work/edge$n" "$work/in$n"
done
