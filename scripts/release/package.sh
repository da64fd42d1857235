#!/usr/bin/env bash
# Packs a built model-demand into its release archive, as ripgrep and zola ship theirs: a
# directory model-demand-VERSION-TARGET holding the binary and README.md, as .tar.gz (.zip for
# a Windows target), with its SHA-256 beside it in ARCHIVE.sha256 (`sha256sum` format). The
# release workflow (.github/workflows/release.yml) and benches/first_answer_archive.sh both
# call it, so the archive measured is the archive shipped.
#
# Run: scripts/release/package.sh VERSION TARGET BIN_DIR OUT_DIR
#   VERSION  the tag, e.g. v0.1.0;  TARGET  a Rust target triple;  BIN_DIR  where cargo put
#   the binary (target/TARGET/release);  OUT_DIR  where the archive and its .sha256 go.
# Prints the archive's path.
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 VERSION TARGET BIN_DIR OUT_DIR" >&2
  exit 2
fi
version=$1 target=$2 bin_dir=$3 out=$4
repo=$(cd "$(dirname "$0")/../.." && pwd)
name="model-demand-$version-$target"
exe=model-demand
case "$target" in *windows*) exe=model-demand.exe ;; esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage="$out/$name"
rm -rf "$stage"
mkdir "$stage"
cp "$bin_dir/$exe" "$stage/"
cp "$repo/README.md" "$stage/"
cd "$out"
case "$target" in
  *windows*)
    archive="$name.zip"
    rm -f "$archive"
    7z a -bso0 "$archive" "$name" ;;
  *)
    archive="$name.tar.gz"
    tar -czf "$archive" "$name" ;;
esac
rm -rf "$stage"
if command -v sha256sum >/dev/null; then
  sha256sum "$archive" >"$archive.sha256"
else
  shasum -a 256 "$archive" >"$archive.sha256"
fi
echo "$out/$archive"
