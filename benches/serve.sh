#!/usr/bin/env bash
# Load-tests the preview server against nginx serving the same file, on loopback, with wrk:
# requests/s and p99 latency of GET /api/v1/models?limit=25 for both.
# Goal (issue 4): the preview server reaches at least half of nginx's requests/s.
# Usage: benches/serve.sh [SITE_DIR]  (default: builds the small fixture into a temp dir)
# Installs wrk and nginx from Debian's packages when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${DURATION:-10s}
connections=${CONNECTIONS:-32}
threads=${THREADS:-2}
if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
  apt-get update -qq && apt-get install -y -qq wrk nginx-light >/dev/null
fi
cargo build --release --quiet
bin=$PWD/target/release/model-demand
work=$(mktemp -d)
chmod 755 "$work"  # nginx workers run as an unprivileged user
site=${1:-$work/site}
if [ ! -f "$site/manifest.json" ]; then
  "$bin" build --export tests/fixtures/small/export.json --supply tests/fixtures/small/supply.json \
    --now 2026-04-01T12:00:00Z --out "$site" 2>/dev/null
fi
file=_api/models/list/tokens_30d/desc/25/0.json

"$bin" serve --dir "$site" --bind 127.0.0.1:18080 2>"$work/serve.log" &
server=$!
cat > "$work/nginx.conf" <<CONF
worker_processes 2;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  server {
    listen 127.0.0.1:18081;
    location = /api/v1/models {
      default_type application/json;
      add_header Access-Control-Allow-Origin *;
      alias $site/$file;
    }
  }
}
CONF
nginx -c "$work/nginx.conf" &
nginx_pid=$!
trap 'kill $server $nginx_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do
  curl -sf -o /dev/null "http://127.0.0.1:18080/api/v1/about" && curl -sf -o /dev/null "http://127.0.0.1:18081/api/v1/models" && break
  sleep 0.2
done
curl -sf "http://127.0.0.1:18080/api/v1/models?limit=25" | cmp - "$site/$file"
curl -sf "http://127.0.0.1:18081/api/v1/models?limit=25" | cmp - "$site/$file"

run() { # name port
  local out; out=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency "http://127.0.0.1:$2/api/v1/models?limit=25")
  local rps; rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  local p99; p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
  printf '%-14s %12s req/s   p99 %s\n' "$1" "$rps" "$p99"
  echo "$rps" > "$work/$1.rps"
}
echo "GET /api/v1/models?limit=25 ($(stat -c %s "$site/$file") bytes), wrk -t$threads -c$connections -d$duration, 2 cores shared by client and server"
run model-demand 18080
run nginx 18081
ratio=$(echo "$(cat "$work/model-demand.rps") / $(cat "$work/nginx.rps")" | bc -l)
printf 'preview/nginx requests/s ratio: %.2f (goal >= 0.5)\n' "$ratio"
