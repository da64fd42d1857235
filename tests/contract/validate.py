#!/usr/bin/env python3
"""Validates a built site against its own OpenAPI document.

1. The document is OpenAPI 3.1 valid (openapi-spec-validator).
2. Every body the site serves validates against the schema the document gives for it: every
   list and exact file (200 ModelResponse), every error file (Error, with the code its status
   allows), the about document (About).

Usage: validate.py SITE_DIR. Exits 1 listing every failure. Needs: pip install jsonschema
openapi-spec-validator (tests/requirements.txt).
"""
import json
import os
import sys

from jsonschema import Draft202012Validator
from openapi_spec_validator import validate as validate_spec


def main() -> int:
    site = sys.argv[1]
    with open(os.path.join(site, "api/openapi.json"), encoding="utf-8") as f:
        doc = json.load(f)
    validate_spec(doc)

    def validator(ref_name):
        schema = {"$ref": f"#/components/schemas/{ref_name}", "components": doc["components"]}
        return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)

    def error_validator(status):
        op = doc["paths"]["/api/v1/models"]["get"]
        schema = dict(op["responses"][str(status)]["content"]["application/json"]["schema"])
        schema["components"] = doc["components"]
        return Draft202012Validator(schema)

    model_response, about, error = validator("ModelResponse"), validator("About"), validator("Error")
    record = Draft202012Validator(
        {**doc["components"]["schemas"]["ModelResponse"]["properties"]["models"]["items"],
         "components": doc["components"]})
    failures, checked = [], 0
    seen_records = {}

    def report(rel, errors):
        for err in errors:
            failures.append(f"{rel}: {'/'.join(map(str, err.absolute_path))}: {err.message[:300]}")

    def check(v, rel):
        nonlocal checked
        with open(os.path.join(site, rel), encoding="utf-8") as f:
            body = json.load(f)
        if v is model_response and isinstance(body, dict) and isinstance(body.get("models"), list):
            # Array items are validated independently of each other and of the envelope, so
            # checking the envelope with no items plus each distinct record once is the same
            # check as validating the whole body, at a fraction of the cost.
            models = body["models"]
            report(rel, v.iter_errors({**body, "models": []}))
            if len(models) > 100:
                failures.append(f"{rel}: models: more than 100 items")
            for item in models:
                key = json.dumps(item, sort_keys=True)
                if key not in seen_records:
                    seen_records[key] = list(record.iter_errors(item))
                report(rel, seen_records[key])
        else:
            report(rel, v.iter_errors(body))
        checked += 1

    check(about, "api/v1/about.json")
    statuses = {"invalid_query": 400, "model_not_found": 404, "data_unavailable": 503}
    for name in sorted(os.listdir(os.path.join(site, "_api/errors"))):
        code = name.removesuffix(".json")
        check(error, f"_api/errors/{name}")
        if code in statuses:
            check(error_validator(statuses[code]), f"_api/errors/{name}")
    # An optional second argument limits the model answers walked to one folder of them (a
    # test that broke one page needs only that page's folder walked again).
    answers = os.path.join(site, sys.argv[2] if len(sys.argv) > 2 else "_api/models")
    if os.path.isdir(answers):
        for root, _, files in os.walk(answers):
            for name in sorted(files):
                check(model_response, os.path.relpath(os.path.join(root, name), site))
    for failure in failures[:50]:
        print(failure)
    print(f"{checked - len(set(f.split(':')[0] for f in failures))} passed, "
          f"{len(set(f.split(':')[0] for f in failures))} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
