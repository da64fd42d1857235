#!/usr/bin/env bash
# Nightly: fetch the newest export and supply feed, decide what to publish, build and verify it.
#
#   new export accepted          → build it (with the newest accepted supply feed)
#   new export refused/missing   → rebuild the last accepted export, which is the live site's own
#                                  /api/export, so freshness turns stale honestly
#   no accepted export at all    → build the no-data site (contract served, 503 elsewhere)
#
# The supply feed falls back the same way (newest, then the live /api/supply, then none).
# Environment: EXPORT_URL, SUPPLY_URL (newest inputs), SITE_URL (production), BASE_URL (links,
# defaults to SITE_URL), DOCS_URL (optional), BIN (model-demand binary), OUT (site dir), WORK.
# Prints the decision and writes `mode=new|last|unavailable` to $GITHUB_OUTPUT when set.
set -euo pipefail
bin=${BIN:-target/release/model-demand}
out=${OUT:-out}
work=${WORK:-$(mktemp -d)}
site_url=${SITE_URL:-}
base_url=${BASE_URL:-${site_url:-https://model-demand.netlify.app}}
mkdir -p "$work"

fetch() { # url file: succeeds only for a 2xx answer
  [ -n "$1" ] && curl -fsSL --retry 3 --retry-delay 5 --max-time 300 -o "$2" "$1"
}
accepted() { # export [supply]
  if [ $# -eq 2 ]; then "$bin" check --export "$1" --supply "$2"; else "$bin" check --export "$1" --no-supply; fi
}

mode=unavailable
export_file=
if fetch "${EXPORT_URL:-}" "$work/new-export.json" && accepted "$work/new-export.json"; then
  mode=new; export_file=$work/new-export.json
  echo "nightly: the newest export is accepted"
else
  echo "nightly: the newest export is missing or refused; trying the last accepted one (live /api/export)"
  if [ -n "$site_url" ] && fetch "$site_url/api/export" "$work/last-export.json" && accepted "$work/last-export.json"; then
    mode=last; export_file=$work/last-export.json
  fi
fi

build_args=(--out "$out" --base-url "$base_url")
[ -n "${DOCS_URL:-}" ] && build_args+=(--docs-url "$DOCS_URL")
if [ "$mode" = unavailable ]; then
  echo "nightly: no accepted export: building the no-data site"
  "$bin" build --unavailable "${build_args[@]}"
else
  supply_args=(--no-supply)
  if fetch "${SUPPLY_URL:-}" "$work/new-supply.json" && accepted "$export_file" "$work/new-supply.json"; then
    supply_args=(--supply "$work/new-supply.json")
  elif [ -n "$site_url" ] && fetch "$site_url/api/supply" "$work/last-supply.json" \
       && accepted "$export_file" "$work/last-supply.json"; then
    echo "nightly: the newest supply feed is missing or refused; keeping the live one"
    supply_args=(--supply "$work/last-supply.json")
  else
    echo "nightly: no accepted supply feed: supply is not_collected"
  fi
  "$bin" build --export "$export_file" "${supply_args[@]}" "${build_args[@]}"
fi
"$bin" verify --dir "$out"
echo "nightly: publishing mode=$mode"
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "mode=$mode" >> "$GITHUB_OUTPUT"; fi
