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
if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["has_data"] else 1)' "$site/_api/routes.json"; then
  [ "$(status '/api/v1/models?limit=25')" = 200 ] || fail "the default list is not 200"
  cmp -s "$tmp/body" "$site/_api/models/list/tokens_30d/desc/25/0.json" || fail "the default list differs"
  [ "$(status '/api/v1/models?sort=latest_rank&order=asc&limit=3')" = 200 ] || fail "a sorted page is not 200"
  cmp -s "$tmp/body" "$site/_api/models/list/latest_rank/asc/3/0.json" || fail "a sorted page differs"
  [ "$(status '/api/v1/models?sort=bogus')" = 400 ] || fail "an invalid sort is not 400"
  [ "$(status '/api/v1/models?model_id=no%2Fsuch-model')" = 404 ] || fail "an unknown model is not 404"
  [ "$(status /api/export)" = 200 ] || fail "/api/export is not 200"
else
  [ "$(status /api/v1/models)" = 503 ] || fail "a site without data must answer 503"
fi
echo "smoke: $url answers as built"
