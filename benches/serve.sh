#!/usr/bin/env bash
# Load-tests the preview server against nginx serving the same files, on loopback, with wrk:
# requests/s and p99 latency of three pages for both, one row each:
#   small  GET /api/v1/models?limit=25            the small fixture's page (6 records, ~25 KB)
#   25     GET /api/v1/models?limit=25            the edge fixture's page (25 records, ~100 KB)
#   100    GET /api/v1/models?limit=100           the edge fixture's page (54 records, ~210 KB)
# nginx is configured as it is deployed: sendfile, tcp_nopush, open_file_cache, 2 workers.
# Goal (issue 14): the preview server reaches at least 0.8 of nginx's requests/s on every row.
# Usage: benches/serve.sh  (builds both fixtures into a temp dir: ~5.6 GB, removed at the end)
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
for fixture in small edge; do
  "$bin" build --export "tests/fixtures/$fixture/export.json" --supply "tests/fixtures/$fixture/supply.json" \
    --now 2026-04-01T12:00:00Z --out "$work/$fixture" 2>/dev/null
done

# name  site  query  file
rows=(
  "small small limit=25 _api/models/list/tokens_30d/desc/25/0.json"
  "25 edge limit=25 _api/models/list/tokens_30d/desc/25/0.json"
  "100 edge limit=100 _api/models/list/tokens_30d/desc/100/0.json"
)

"$bin" serve --dir "$work/small" --bind 127.0.0.1:18080 2>"$work/serve-small.log" &
small=$!
"$bin" serve --dir "$work/edge" --bind 127.0.0.1:18082 2>"$work/serve-edge.log" &
edge=$!
locations=""
for row in "${rows[@]}"; do
  read -r name site _ file <<<"$row"
  locations+="    location = /$name { alias $work/$site/$file; }"$'\n'
done
cat > "$work/nginx.conf" <<CONF
worker_processes 2;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  open_file_cache max=1000 inactive=60s;
  open_file_cache_valid 60s;
  open_file_cache_min_uses 1;
  open_file_cache_errors on;
  default_type application/json;
  server {
    listen 127.0.0.1:18081;
    add_header Access-Control-Allow-Origin *;
$locations  }
}
CONF
nginx -c "$work/nginx.conf" &
nginx_pid=$!
trap 'kill $small $edge $nginx_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
port_of() { [ "$1" = small ] && echo 18080 || echo 18082; }
for _ in $(seq 100); do
  curl -sf -o /dev/null "http://127.0.0.1:18080/api/v1/about" && curl -sf -o /dev/null "http://127.0.0.1:18082/api/v1/about" \
    && curl -sf -o /dev/null "http://127.0.0.1:18081/small" && break
  sleep 0.2
done

measure() { # url → "rps p99"
  local out; out=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency "$1")
  echo "$(echo "$out" | awk '/Requests\/sec/ {print $2}') $(echo "$out" | awk '$1 == "99%" {print $2}')"
}
echo "wrk -t$threads -c$connections -d$duration, 2 cores shared by client and servers; nginx: sendfile, tcp_nopush, open_file_cache"
printf '%-6s %9s | %12s %9s | %12s %9s | %6s\n' row bytes preview p99 nginx p99 ratio
status=0
for row in "${rows[@]}"; do
  read -r name site query file <<<"$row"
  preview_url="http://127.0.0.1:$(port_of "$site")/api/v1/models?$query"
  nginx_url="http://127.0.0.1:18081/$name"
  curl -sf "$preview_url" | cmp - "$work/$site/$file"
  curl -sf "$nginx_url" | cmp - "$work/$site/$file"
  read -r p_rps p_p99 <<<"$(measure "$preview_url")"
  read -r n_rps n_p99 <<<"$(measure "$nginx_url")"
  ratio=$(echo "$p_rps / $n_rps" | bc -l)
  printf '%-6s %9s | %12s %9s | %12s %9s | %6.2f\n' "$name" "$(stat -c %s "$work/$site/$file")" "$p_rps" "$p_p99" "$n_rps" "$n_p99" "$ratio"
  if [ "$(echo "$ratio < 0.8" | bc -l)" = 1 ]; then status=1; fi
done
[ $status = 0 ] && echo "every row at least 0.8 of nginx" || echo "some row below 0.8 of nginx"
