#!/usr/bin/env bash
# Nightly: collect (or fetch) the newest export and supply feed, decide what to publish, build
# and verify it.
#
#   collected from the sources   → build it with the supply feed collected with it (only when
#                                  OPENROUTER_API_KEY is set; the live /api/export and
#                                  /api/supply are passed as the previous files)
#   new export accepted          → build it (with the newest accepted supply feed)
#   new export refused/missing   → rebuild the last accepted export, which is the live site's own
#                                  /api/export, so freshness turns stale honestly
#   no accepted export at all    → build the no-data site (contract served, 503 elsewhere)
#
# The supply feed falls back the same way (newest, then the live /api/supply, then none).
# Environment: OPENROUTER_API_KEY (collect; never printed), HF_TOKEN (optional), CACHE_DIR (the
# Hugging Face file cache kept between runs), COLLECT_ARGS (extra collect options, such as
# --days or --openrouter-url), EXPORT_URL, SUPPLY_URL (newest inputs when not collecting),
# SITE_URL (production), BASE_URL (links, defaults to SITE_URL), DOCS_URL (optional),
# BIN (model-demand binary), OUT (site dir), WORK.
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
supply_file=
if [ -n "${OPENROUTER_API_KEY:-}" ]; then
  previous=()
  if [ -n "$site_url" ] && fetch "$site_url/api/export" "$work/live-export.json" \
     && accepted "$work/live-export.json"; then
    previous+=(--previous-export "$work/live-export.json")
    # The live feed is carried only when it is a supply feed (not the not_collected document).
    if fetch "$site_url/api/supply" "$work/live-supply.json" \
       && accepted "$work/live-export.json" "$work/live-supply.json" >/dev/null 2>&1; then
      previous+=(--previous-supply "$work/live-supply.json")
    fi
  fi
  cache_args=()
  [ -n "${CACHE_DIR:-}" ] && cache_args=(--cache "$CACHE_DIR")
  # shellcheck disable=SC2086 # COLLECT_ARGS is a list of options, split on purpose
  if "$bin" collect --out "$work/collected" "${previous[@]}" "${cache_args[@]}" ${COLLECT_ARGS:-}; then
    mode=new; export_file=$work/collected/export.json; supply_file=$work/collected/supply.json
    echo "nightly: collected a new export from the sources"
  else
    echo "nightly: collecting failed (see above); falling back to the newest published inputs"
  fi
fi
if [ "$mode" = new ]; then
  :
elif fetch "${EXPORT_URL:-}" "$work/new-export.json" && accepted "$work/new-export.json"; then
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
  if [ -n "$supply_file" ]; then
    supply_args=(--supply "$supply_file")
  elif fetch "${SUPPLY_URL:-}" "$work/new-supply.json" && accepted "$export_file" "$work/new-supply.json"; then
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
