// The edge module against the shared vectors that the Rust router answered (tests/edge_vectors.rs
// writes them and runs this file with EDGE_FIXTURE pointing at the built fixture).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pastEndBody, route } from "../../netlify/edge-functions/lib/query.mjs";

const fixture = process.env.EDGE_FIXTURE;
assert.ok(fixture, "EDGE_FIXTURE must name the fixture directory");
const site = join(fixture, "site");
const vectors = JSON.parse(readFileSync(join(fixture, "vectors.json"), "utf8"));
const table = JSON.parse(readFileSync(join(site, "_api/routes.json"), "utf8"));
const read = (path) => readFileSync(join(site, path.replace(/^\//, "")), "utf8");

/** The body the edge function would send for a routing decision. */
function bodyOf(decision) {
  if (decision.file) return read(decision.file);
  if (decision.errorFile) return read(decision.errorFile);
  if (decision.pastEnd) return pastEndBody(read(decision.pastEnd.file), decision.pastEnd.query, decision.pastEnd.total);
  return decision.body;
}

test("the vectors cover every class of DESIGN §5", () => {
  const classes = new Set(vectors.map((v) => v.class));
  for (const c of ["valid", "default", "order_of_parameters", "repeated", "unknown", "encoded_name", "empty_segments",
    "trailing_ampersand", "plus", "bad_escape", "invalid_utf8", "non_canonical_integer", "bounds", "far_offset",
    "exact_raw", "exact_encoded", "unknown_model", "combined", "empty_value"]) {
    assert.ok(classes.has(c), `no vector of class ${c}`);
  }
});

for (const v of vectors) {
  test(`${v.class}: ?${v.query}`, () => {
    const decision = route(v.query, table);
    assert.equal(decision.status, v.status);
    if (v.file !== null) assert.equal(decision.file, `/${v.file}`);
    assert.equal(bodyOf(decision), v.body ?? read(v.file));
  });
}

test("a site without data answers 503 whatever the query", () => {
  const empty = { ...table, has_data: false, models: {}, total: 0 };
  for (const q of ["", "sort=bogus&sort=x", "model_id=acme%2Falpha-70b"]) {
    const decision = route(q, empty);
    assert.equal(decision.status, 503);
    assert.equal(decision.errorFile, `/${table.errors.data_unavailable}`);
  }
});
