#!/usr/bin/env bash
# The preview server's own CPU time per request (user and system, from /proc/PID/stat) under
# wrk, for comparing two builds where requests a second are too noisy to tell them apart: on 2
# cores the client takes one, and a run's rate moves by ±10% (docs/benchmarks.md, "The preview
# server against nginx"). Warms up 2 s, then counts an 8 s run of 32 connections.
# Usage: benches/serve_cpu.sh BINARY SITE_DIR QUERY   (e.g. target/release/model-demand
#        /dev/shm/small limit=25; SITE_DIR as `model-demand build` writes it). Linux only.
set -euo pipefail
bin=$1 site=$2 query=$3
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve --dir "$site" --bind "127.0.0.1:$port" 2>/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
until curl -fs -o /dev/null "http://127.0.0.1:$port/api/v1/about"; do sleep 0.1; done
url="http://127.0.0.1:$port/api/v1/models?$query"
wrk -t2 -c32 -d2s "$url" >/dev/null
read -r user0 sys0 < <(awk '{print $14, $15}' "/proc/$pid/stat")
out=$(wrk -t2 -c32 -d8s "$url")
read -r user1 sys1 < <(awk '{print $14, $15}' "/proc/$pid/stat")
requests=$(echo "$out" | awk '/requests in/ {print $1}')
rate=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
ticks=$(getconf CLK_TCK)
python3 - "$user0" "$user1" "$sys0" "$sys1" "$requests" "$ticks" "$rate" <<'PY'
import sys
u0, u1, s0, s1, n, hz = map(int, sys.argv[1:7])
us = lambda ticks: ticks / hz * 1e6 / n
print(f"{us(u1 - u0):.2f} us user and {us(s1 - s0):.2f} us system per request, "
      f"{n} requests, {sys.argv[7]} requests/s")
PY
