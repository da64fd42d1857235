#!/usr/bin/env python3
"""Uses the Python client openapi-python-client generated from /api/openapi.json, and nothing
else, against a running server: fetches the about document, pages through every model (limit 7,
then limit 2), looks one model up by an ID holding "/" and ":", and asks for an unknown one.

Usage: use_client.py CLIENT_DIR BASE_URL MODEL_ID. CLIENT_DIR holds the generated package
model_demand_client. Prints one JSON object of what the client returned; tests/it/openapi_tools.rs
checks it against the fixture. Exits non-zero on any failure.
"""
import json
import sys

sys.path.insert(0, sys.argv[1])
base_url, wanted = sys.argv[2], sys.argv[3]

from model_demand_client import Client  # noqa: E402
from model_demand_client.api.contract import get_about  # noqa: E402
from model_demand_client.api.models import get_models  # noqa: E402
from model_demand_client.models import About, ModelResponse  # noqa: E402

sent = []  # every request target the client sent, to show which parameters it sends


def record(request):
    sent.append(request.url.raw_path.decode("ascii"))


client = Client(
    base_url=base_url,
    raise_on_unexpected_status=True,
    httpx_args={"event_hooks": {"request": [record]}},
)

about = get_about.sync(client=client)
assert isinstance(about, About), about


def page_through(limit):
    ids, pages, offset, total = [], 0, 0, None
    while True:
        page = get_models.sync(client=client, limit=limit, offset=offset)
        assert isinstance(page, ModelResponse), page
        assert page.query.mode == "list" and page.query.limit == limit, page.query
        assert page.pagination.offset == offset, page.pagination
        total = page.pagination.total_matching_models
        ids += [m.model_id for m in page.models]
        pages += 1
        if not page.pagination.has_next_page:
            break
        offset += page.pagination.returned_count
        assert pages < 1000, "paging does not end"
    return {"ids": ids, "pages": pages, "total": total}


seven, two = page_through(7), page_through(2)

found = get_models.sync_detailed(client=client, model_id=wanted)
assert found.status_code == 200, found
assert isinstance(found.parsed, ModelResponse), found.parsed
lookup_target = sent[-1]

missing = get_models.sync_detailed(client=client, model_id="nobody/none:free")
assert missing.status_code == 404, missing
# The 404 body, parsed by the class the generator made of its schema (Error narrowed by allOf).
assert missing.parsed.schema_version == "model-demand.agent-api-error.v1", missing.parsed

print(json.dumps({
    "about": {
        "schema_version": about.schema_version,
        "api_schema_version": about.api_schema_version,
        "query_parameters": [p.name for p in about.query_parameters],
        "openapi": about.links.openapi,
    },
    "limit_7": seven,
    "limit_2": two,
    "lookup": {
        "target": lookup_target,
        "mode": found.parsed.query.mode,
        "model_ids": [m.model_id for m in found.parsed.models],
    },
    "missing": {"error": str(missing.parsed.error), "target": sent[-1]},
    "requests": len(sent),
}, indent=1))
