#!/usr/bin/env bash
# The site at real scale: for N = 56, 80, 100 and 150 served models (synthetic exports from
# benches/scale_export.py), builds the site with the release binary and prints files, bytes,
# the largest directory, build time, build + sync against `cp -r` + sync of the same tree, the
# build's peak RSS and CPU time, `verify` time, the preview server's first answer, and how many
# files the next night's build changes (manifests compared).
# Targets (issue 21): build + sync at most 0.9x cp + sync; peak RSS under 128 MB at N = 150.
# Heavy (sites of 5-26 GB, one at a time, each deleted after it is measured): not part of
# `cargo test` or .ci/run. Run it niced on a shared machine:
#   nice -n 19 benches/scale.sh [WORKDIR]      (NS="56 80" to choose N)
#
# Each N is measured on a fresh ext4 filesystem (journal on, mkfs.ext4's defaults, as on
# Netlify's build image and most machines) in a sparse image on a loop device doing direct I/O,
# when run as root with mkfs.ext4 and losetup (Debian: e2fsprogs, mount); FRESH_FS=0, or no
# root, measures in WORKDIR as it is. Why: on a disk that just deleted a site, times measure the filesystem's past, not the
# program. This machine's ext4 has no journal, and such an ext4 skips inodes deleted in the last
# minute or more when it allocates new ones (`recently_deleted` in fs/ext4/ialloc.c): a build
# right after `rm -rf` of a 68,000-file site took 17-30 s, 28-54 s of kernel time, in
# find_inode_bit and recently_deleted; the same build on a fresh filesystem 6 s.
# cp -r needs the tree twice; it runs when the disk has room for it (and says so when not).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
ns=${NS:-56 80 100 150}
port=${PORT:-18190}
fresh=${FRESH_FS:-1}
if [ "$fresh" = 1 ] && { [ "$(id -u)" != 0 ] || ! command -v mkfs.ext4 >/dev/null; }; then
  echo "scale.sh: not root or no mkfs.ext4 (Debian: e2fsprogs): measuring in $work as it is" >&2
  fresh=0
fi
mnt=$work/mnt
# Unmounts the image and detaches its loop device, if any.
release_fs() {
  if mountpoint -q "$mnt" 2>/dev/null; then umount "$mnt"; fi
  [ -f "$work/fs.img" ] && losetup -j "$work/fs.img" | cut -d: -f1 | while read -r dev; do losetup -d "$dev"; done
  rm -f "$work/fs.img"
}
cleanup() {
  [ -n "${server:-}" ] && kill "$server" 2>/dev/null
  if [ "$fresh" = 1 ]; then release_fs; fi
  rm -rf "$work/site" "$work/copy" "$work/next"
}
trap cleanup EXIT

# Sets `dir`, where the sites of one N are written: a fresh filesystem, or WORKDIR. The loop
# device does direct I/O on the image, so pages are cached once, as on a disk (buffered, every
# page written would sit in the cache twice, the filesystem's and the image file's, and the
# cache would fill at half the size).
fresh_dir() {
  if [ "$fresh" = 1 ]; then
    release_fs
    mkdir -p "$mnt"
    truncate -s 80G "$work/fs.img"   # sparse: takes only what is written
    mkfs.ext4 -q -F "$work/fs.img"
    mount "$(losetup -f --show --direct-io=on "$work/fs.img")" "$mnt"
    dir=$mnt
  else
    dir=$work
  fi
}
# Removes a tree; on the image, hands its blocks back to the disk (else the sparse image keeps
# every block it ever held, and the next build of N = 150 can fill the disk).
remove() {
  rm -rf "$1"
  if [ "$fresh" = 1 ]; then fstrim "$mnt" >/dev/null 2>&1 || true; fi
}
# Bytes free where `dir` is, and in WORKDIR's disk when the filesystem is an image in it.
free_bytes() { df -B1 --output=avail "$1" | tail -1; }
cargo build --release --quiet
bin=target/release/model-demand

now_s() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }

printf '%4s %7s %7s %7s %7s %8s %8s %6s %7s %7s %7s %7s %8s %9s\n' \
  N files GB maxdir build_s build+sy cp+sync ratio RSS_MB cpu_s sys_s verify serve_ms changed
for n in $ns; do
  in=$work/in-$n
  now=$(python3 benches/scale_export.py "$n" "$in")
  next_now=$(python3 benches/scale_export.py "$n" "$in-next" --shift 1)
  fresh_dir

  # Build, then sync: the time until the tree is on disk.
  sync
  stats=$work/time-$n
  t0=$(now_s)
  /usr/bin/time -f '%M %U %S' -o "$stats" "$bin" build --export "$in/export.json" \
    --supply "$in/supply.json" --now "$now" --out "$dir/site" >"$work/build-$n.log" 2>&1
  t1=$(now_s)
  sync
  t2=$(now_s)
  read -r rss_kb user sys <"$stats"
  build_s=$(secs "$t0" "$t1")
  build_sync=$(secs "$t0" "$t2")
  files=$(find "$dir/site" -type f | wc -l)
  bytes=$(du -sb "$dir/site" | cut -f1)
  # (awk, not head: head closing the pipe early would fail it under pipefail)
  maxdir=$(find "$dir/site" -type f -printf '%h\n' | sort | uniq -c | awk '$1 > m { m = $1 } END { print m }')

  # cp -r of the same tree, then sync: before verify and serve, as the build was, so both
  # find the page cache as the build left it.
  if [ "$(free_bytes "$dir")" -gt $((bytes + bytes / 10)) ] && [ "$(free_bytes "$work")" -gt $((bytes + bytes / 10)) ]; then
    sync
    t0=$(now_s)
    cp -r "$dir/site" "$dir/copy"
    sync
    copy_sync=$(secs "$t0" "$(now_s)")
    remove "$dir/copy"
    ratio=$(printf '%.2f' "$(echo "$build_sync / $copy_sync" | bc -l)")
    copy_sync=$(printf '%.1f' "$copy_sync")
  else
    copy_sync=no-room ratio=-
  fi

  # verify reads and hashes every file.
  t0=$(now_s)
  "$bin" verify --dir "$dir/site" >"$work/verify-$n.log" 2>&1
  verify_s=$(secs "$t0" "$(now_s)")

  # serve: from start to the first 200 of the default list.
  t0=$(now_s)
  "$bin" serve --dir "$dir/site" --bind "127.0.0.1:$port" >/dev/null 2>&1 &
  server=$!
  until curl -sf -o /dev/null "http://127.0.0.1:$port/api/v1/models?limit=25"; do
    kill -0 "$server" 2>/dev/null || { echo "serve exited before answering" >&2; exit 1; }
    sleep 0.01
  done
  serve_ms=$(echo "($(now_s) - $t0) * 1000" | bc -l)
  kill "$server"; wait "$server" 2>/dev/null || true; server=

  # The next night's build: how many files a deploy would upload (a changed SHA-256 or new).
  cp "$dir/site/manifest.json" "$work/manifest-$n.json"
  remove "$dir/site"
  "$bin" build --export "$in-next/export.json" --supply "$in-next/supply.json" --now "$next_now" \
    --out "$dir/next" >/dev/null 2>&1
  changed=$(python3 - "$work/manifest-$n.json" "$dir/next/manifest.json" <<'PY'
import json, sys
old = {f["path"]: f["sha256"] for f in json.load(open(sys.argv[1]))["files"]}
new = {f["path"]: f["sha256"] for f in json.load(open(sys.argv[2]))["files"]}
print(sum(1 for p, s in new.items() if old.get(p) != s))
PY
)
  remove "$dir/next"

  printf '%4d %7d %7.2f %7d %7.1f %8.1f %8s %6s %7.0f %7.1f %7.1f %7.1f %8.0f %9d\n' \
    "$n" "$files" "$(echo "$bytes / 1000000000" | bc -l)" "$maxdir" "$build_s" "$build_sync" \
    "$copy_sync" "$ratio" "$(echo "$rss_kb / 1024" | bc -l)" "$(echo "$user + $sys" | bc -l)" \
    "$sys" "$verify_s" "$serve_ms" "$changed"
done
