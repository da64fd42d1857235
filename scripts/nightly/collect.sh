#!/usr/bin/env bash
# Nightly, step 1: produce the inputs to publish, or nothing. Writes ACCEPTED/export.json (and
# ACCEPTED/supply.json) only when `check` accepts them; otherwise leaves ACCEPTED empty and says
# why. Nothing is built here: Netlify builds the site from what step 2 commits.
#
#   OPENROUTER_API_KEY set → collect from the sources; the published inputs (PUBLISHED, a copy of
#                            the data branch's data/live/) are passed as the previous files when
#                            `check` accepts them
#   otherwise, or failed   → the newest export at EXPORT_URL, when `check` accepts it, with the
#                            newest supply feed at SUPPLY_URL, else the published one, else none
#
# Environment: OPENROUTER_API_KEY (never printed), HF_TOKEN (optional), CACHE_DIR (the Hugging
# Face file cache kept between runs), COLLECT_ARGS (extra collect options), EXPORT_URL,
# SUPPLY_URL, PUBLISHED (directory), BIN (model-demand binary), WORK, ACCEPTED, REPORT (where
# collect writes its run report; default $WORK/collect-report.json).
# Writes `accepted=yes|no` and `why=...` to $GITHUB_OUTPUT when set, and the run report as
# Markdown to $GITHUB_STEP_SUMMARY when set (the night's health, readable without the logs).
set -euo pipefail
bin=${BIN:-target/release/model-demand}
work=${WORK:-$(mktemp -d)}
accepted_dir=${ACCEPTED:-$work/accepted}
run_report=${REPORT:-$work/collect-report.json}
published=${PUBLISHED:-}
mkdir -p "$work" "$accepted_dir"
if [ -n "$(ls -A "$accepted_dir")" ]; then
  echo "nightly: $accepted_dir is not empty; refusing to mix runs" >&2
  exit 2
fi

fetch() { # url file: succeeds only for a 2xx answer
  [ -n "$1" ] && curl -fsSL --retry 3 --retry-delay 5 --max-time 300 -o "$2" "$1"
}
accepts() { # export [supply]
  if [ $# -eq 2 ]; then "$bin" check --export "$1" --supply "$2"; else "$bin" check --export "$1" --no-supply; fi
}
accept() { # export [supply]: copies the pair into ACCEPTED
  cp "$1" "$accepted_dir/export.json"
  if [ $# -eq 2 ]; then cp "$2" "$accepted_dir/supply.json"; fi
}
report() { # accepted why
  echo "nightly: accepted=$1: $2"
  if [ -n "${GITHUB_OUTPUT:-}" ]; then printf 'accepted=%s\nwhy=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"; fi
  if [ "$1" = yes ]; then deploy_size; fi
}
deploy_size() { # what Netlify will publish from the accepted pair: the edge layout's files and bytes
  local site=$work/edge-site supply_args=(--no-supply) line
  [ -f "$accepted_dir/supply.json" ] && supply_args=(--supply "$accepted_dir/supply.json")
  if line=$("$bin" build --layout edge --export "$accepted_dir/export.json" "${supply_args[@]}" --out "$site" 2>&1 | tail -n 1); then
    echo "nightly: Netlify will publish (edge layout): ${line#built "$site": }"
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
      printf '\n**Deploy size (edge layout):** %s\n' "${line#built "$site": }" >> "$GITHUB_STEP_SUMMARY"
    fi
  fi
}

published_export=
published_supply=
if [ -n "$published" ] && [ -f "$published/export.json" ]; then
  if accepts "$published/export.json" >/dev/null; then
    published_export=$published/export.json
    if [ -f "$published/supply.json" ] && accepts "$published_export" "$published/supply.json" >/dev/null; then
      published_supply=$published/supply.json
    fi
  else
    echo "nightly: the published export is refused by this version (see above); not carried forward"
  fi
fi

why=
if [ -n "${OPENROUTER_API_KEY:-}" ]; then
  previous=()
  [ -n "$published_export" ] && previous+=(--previous-export "$published_export")
  [ -n "$published_supply" ] && previous+=(--previous-supply "$published_supply")
  cache_args=()
  [ -n "${CACHE_DIR:-}" ] && cache_args=(--cache "$CACHE_DIR")
  summarize() { # the run report, when written, into the CI run's summary
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$run_report" ]; then
      "$bin" collect-report "$run_report" >>"$GITHUB_STEP_SUMMARY" || true
    fi
  }
  # shellcheck disable=SC2086 # COLLECT_ARGS is a list of options, split on purpose
  if "$bin" collect --out "$work/collected" --report "$run_report" "${previous[@]}" "${cache_args[@]}" ${COLLECT_ARGS:-}; then
    summarize
    accept "$work/collected/export.json" "$work/collected/supply.json"
    report yes "collected a new export and supply feed from the sources"
    exit 0
  fi
  summarize
  why="collecting failed (see above)"
  echo "nightly: $why; trying EXPORT_URL"
else
  why="no OPENROUTER_API_KEY"
fi

if [ -z "${EXPORT_URL:-}" ]; then
  report no "$why; no EXPORT_URL"
elif ! fetch "$EXPORT_URL" "$work/new-export.json"; then
  report no "$why; the export at EXPORT_URL could not be fetched"
elif ! accepts "$work/new-export.json"; then
  report no "$why; the export at EXPORT_URL is refused (see above)"
else
  new=$work/new-export.json
  if fetch "${SUPPLY_URL:-}" "$work/new-supply.json" && accepts "$new" "$work/new-supply.json"; then
    accept "$new" "$work/new-supply.json"
    report yes "the export and supply feed at EXPORT_URL and SUPPLY_URL are accepted"
  elif [ -n "$published_supply" ] && accepts "$new" "$published_supply"; then
    accept "$new" "$published_supply"
    report yes "the export at EXPORT_URL is accepted; the published supply feed is kept"
  else
    accept "$new"
    report yes "the export at EXPORT_URL is accepted; no accepted supply feed: supply is not_collected"
  fi
fi
