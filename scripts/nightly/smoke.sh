#!/usr/bin/env bash
# Smoke-tests a deployed (draft) site against the built tree it was deployed from.
# Usage: smoke.sh URL SITE_DIR
set -euo pipefail
url=${1%/}
site=$2
fail() { echo "smoke: $*" >&2; exit 1; }
status() { curl -s -o "$tmp/body" -w '%{http_code}' "$url$1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ "$(status /api/v1/about)" = 200 ] || fail "/api/v1/about is not 200"
cmp -s "$tmp/body" "$site/api/v1/about.json" || fail "/api/v1/about differs from the built file"
[ "$(status /api/openapi.json)" = 200 ] || fail "/api/openapi.json is not 200"
# The page SORT ORDER LIMIT 0 as built: the `full` layout's file, or the `edge` layout's parts
# assembled as the edge function assembles them (DESIGN §8.1).
page() {
  python3 - "$site" "$1" "$2" "$3" > "$tmp/expected" <<'PY'
import json, sys
site, sort, order, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
table = json.load(open(f"{site}/_api/routes.json"))
out = sys.stdout.buffer
if "edge" not in table:
    out.write(open(f"{site}/_api/models/list/{sort}/{order}/{limit}/0.json", "rb").read())
    sys.exit()
parts = table["edge"]
ordering = parts["orderings"][f"{sort}/{order}"]
records = open(f"{site}/{ordering['file']}", "rb").read()
total, offsets = table["total"], ordering["offsets"]
end = min(limit, total)
echo = {"mode": "list", "model_id": None, "sort": sort, "order": order, "limit": limit, "offset": 0}
pagination = {"total_matching_models": total, "offset": 0, "limit": limit,
              "returned_count": end, "has_next_page": end < total}
compact = lambda v: json.dumps(v, separators=(",", ":"))
out.write(open(f"{site}/{parts['head']}", "rb").read())
out.write(f',"query":{compact(echo)},"pagination":{compact(pagination)},"models":['.encode())
out.write(records[offsets[0]:offsets[end] - 1] if end else b"")
out.write(b"]}")
PY
}
if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["has_data"] else 1)' "$site/_api/routes.json"; then
  [ "$(status '/api/v1/models?limit=25')" = 200 ] || fail "the default list is not 200"
  page tokens_30d desc 25
  cmp -s "$tmp/body" "$tmp/expected" || fail "the default list differs"
  [ "$(status '/api/v1/models?sort=latest_rank&order=asc&limit=3')" = 200 ] || fail "a sorted page is not 200"
  page latest_rank asc 3
  cmp -s "$tmp/body" "$tmp/expected" || fail "a sorted page differs"
  [ "$(status '/api/v1/models?sort=bogus')" = 400 ] || fail "an invalid sort is not 400"
  [ "$(status '/api/v1/models?model_id=no%2Fsuch-model')" = 404 ] || fail "an unknown model is not 404"
  [ "$(status /api/export)" = 200 ] || fail "/api/export is not 200"
else
  [ "$(status /api/v1/models)" = 503 ] || fail "a site without data must answer 503"
fi
echo "smoke: $url answers as built"
