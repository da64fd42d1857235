#!/usr/bin/env bash
# Runs schemathesis against the preview server serving the small fixture's site.
# Every check runs except positive_data_acceptance: it sends schema-valid combinations such as
# model_id together with sort, which the contract refuses with 400 (model_id excludes the list
# parameters) and OpenAPI 3.1 cannot express per-parameter exclusion.
set -euo pipefail
cd "$(dirname "$0")/../.."
port=${PORT:-18095}
# schemathesis, pinned by tests/requirements.txt, in its own environment under target/pyenv/
# (the Rust tests keep theirs in their tool cache, tests/it/common/tool_cache.rs).
venv=target/pyenv/schemathesis
command -v curl >/dev/null || { echo "schemathesis.sh needs curl: apt-get install curl" >&2; exit 1; }
command -v python3 >/dev/null || { echo "schemathesis.sh needs python3: apt-get install python3 python3-venv" >&2; exit 1; }
pin=$(grep -E '^schemathesis==' tests/requirements.txt)
if [ "$(cat "$venv/.model-demand-requirements" 2>/dev/null)" != "$pin" ] || [ ! -x "$venv/bin/schemathesis" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" || { echo "python3 -m venv failed: apt-get install python3 python3-venv" >&2; exit 1; }
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "$pin"
  [ -x "$venv/bin/schemathesis" ] || { echo "$pin installed no schemathesis command" >&2; exit 1; }
  echo "$pin" >"$venv/.model-demand-requirements"
fi
work=$(mktemp -d)
cargo build --quiet
bin=target/debug/model-demand
"$bin" build --export tests/fixtures/small/export.json --supply tests/fixtures/small/supply.json \
  --now 2026-04-01T12:00:00Z --out "$work/site" 2>/dev/null
"$bin" serve --dir "$work/site" --bind "127.0.0.1:$port" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/api/v1/about" && break; sleep 0.2; done
"$venv/bin/schemathesis" run "http://127.0.0.1:$port/api/openapi.json" --url "http://127.0.0.1:$port" \
  --checks all --exclude-checks positive_data_acceptance --max-examples "${EXAMPLES:-200}" --seed 1
