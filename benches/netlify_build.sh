#!/usr/bin/env bash
# Measures Netlify's build of the site as it runs on Netlify: `netlify build --offline` (npm
# netlify-cli, deno from npm as in tests/it/netlify_dev.rs) over a checkout of the committed files
# with full-size inputs in data/live/ (the bundled sample stands in for a night's accepted
# export and supply feed), cargo building from a warm target directory (Netlify restores
# target/ and ~/.cargo/registry from its cache; a fresh checkout recompiles this crate only).
# Prints each stage of scripts/netlify/build.sh and the totals, against Netlify's default build
# time limit of 15 minutes.
# Usage: benches/netlify_build.sh   (run from anywhere; needs npm, about 6 GB free in TMPDIR)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
cli_version=27.10.2
deno_version=2.9.6
install() { # name version → node_modules path
  local cache=$repo/target/$1-cache
  if [ ! -f "$cache/node_modules/$1/package.json" ]; then
    npm install --silent --no-audit --no-fund --prefix "$cache" "$1@$2" >&2
  fi
  echo "$cache/node_modules"
}
cli=$(install netlify-cli $cli_version)
deno=$(install deno $deno_version)/.bin

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
checkout=$work/checkout
mkdir -p "$checkout/data/live" "$work/home"
git archive HEAD | tar -x -C "$checkout"
# A fresh clone's files are newer than Netlify's cached target/: cargo recompiles this crate.
find "$checkout" -type f -exec touch {} +
cp data/sample/export.json data/sample/supply.json "$checkout/data/live/"
# The one remote module the edge config extractor imports (types only), as in the tests.
types=/bootstrap/globals/types.ts
mkdir -p "$work/deno/remote/https/edge.netlify.com"
printf '%s\n\n// denoCacheMetadata={"headers":{"content-type":"application/typescript"},"url":"https://edge.netlify.com%s"}' \
  'export type NetlifyGlobal = { readonly context: unknown; readonly env: unknown };' "$types" \
  > "$work/deno/remote/https/edge.netlify.com/$(printf '%s' "$types" | sha256sum | cut -d' ' -f1)"

# Netlify's dependency step: the edge functions' npm packages (package.json, package-lock.json),
# which Netlify installs before the build command and keeps in its cache.
(cd "$checkout" && npm ci --silent --no-audit --no-fund)
cargo build --release --quiet # warm the shared target directory first, as Netlify's cache is
started=$(date +%s.%N)
(
  cd "$checkout"
  # A home of its own for netlify-cli; rustup and cargo keep theirs (Netlify restores them).
  RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup} CARGO_HOME=${CARGO_HOME:-$HOME/.cargo} \
    PATH=$deno:$PATH HOME=$work/home DENO_DIR=$work/deno DENO_NO_UPDATE_CHECK=1 \
    NETLIFY_EDGE_BOOTSTRAP="file://$cli/@netlify/edge-functions-dev/dist/deno/bootstrap.mjs" \
    NETLIFY_TELEMETRY_DISABLED=1 NO_COLOR=1 CI=1 CARGO_TARGET_DIR=$repo/target \
    "$cli/.bin/netlify" build --offline > "$work/build.log" 2>&1
) || { grep -v "^ " "$work/build.log" | tail -40; exit 1; }
ended=$(date +%s.%N)
grep -E '^netlify-build:|^built |^verified |completed in' "$work/build.log"
files=$(find "$checkout/out" -type f | wc -l)
size=$(du -sm "$checkout/out" | cut -f1)
busiest=$(find "$checkout/out" -type f -printf '%h\n' | sort | uniq -c | sort -n | tail -1)
awk -v s="$started" -v e="$ended" -v f="$files" -v m="$size" -v b="$busiest" 'BEGIN {
  printf "netlify build --offline: %.1f s in all (Netlify default limit: 900 s), %d files, %d MB;\n", e - s, f, m
  printf "most files in one directory: %s (Netlify limit: 54,000)\n", b
}'
