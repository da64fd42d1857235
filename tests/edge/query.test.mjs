// The edge module against the shared vectors the Rust router answered. tests/it/edge_vectors.rs
// builds the sites, writes vectors.json beside them and runs this file with EDGE_FIXTURE naming
// that directory. Kept outside netlify/edge-functions/, where Netlify would deploy any *.mjs
// file as an edge function of its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { etagOf, notModified, parseQuery, pastEndBody, percentDecode, quoteValue, rawQuery, route } from "../../netlify/edge-functions/lib/query.mjs";

const fixture = process.env.EDGE_FIXTURE;
assert.ok(fixture, "EDGE_FIXTURE must name the fixture directory");
const vectors = JSON.parse(readFileSync(join(fixture, "vectors.json"), "utf8"));
const sites = { data: join(fixture, "site"), unavailable: join(fixture, "site-unavailable") };
const read = (site, path) => readFileSync(join(sites[site], path.replace(/^\//, "")), "utf8");
const tables = Object.fromEntries(Object.keys(sites).map((s) => [s, JSON.parse(read(s, "_api/routes.json"))]));

/** The body the edge function sends for a routing decision, as the handler makes it. */
function bodyOf(site, decision) {
  if (decision.file) return read(site, decision.file);
  if (decision.errorFile) return read(site, decision.errorFile);
  if (decision.pastEnd) return pastEndBody(read(site, decision.pastEnd.file), decision.pastEnd.query, decision.pastEnd.total);
  return decision.body;
}

const header = (v, name) => (v.headers.find(([n]) => n === name) ?? [])[1];

test("the vectors cover every class", () => {
  const classes = new Set(vectors.map((v) => v.class));
  for (const c of ["default", "valid", "order_of_parameters", "repeated", "unknown", "encoded_name", "empty_segments",
    "trailing_ampersand", "plus", "bad_escape", "invalid_utf8", "escape_forms", "non_canonical_integer", "bounds",
    "far_offset", "exact_raw", "exact_encoded", "unknown_model", "combined", "empty_value", "invalid_value", "method",
    "head", "conditional", "no_data"]) {
    assert.ok(classes.has(c), `no vector of class ${c}`);
  }
});

for (const v of vectors) {
  test(`${v.site} ${v.class} ${v.method} ?${v.query}${v.if_none_match ? ` If-None-Match: ${v.if_none_match}` : ""}`, async () => {
    const decision = route(v.query, tables[v.site], v.method);
    assert.equal(decision.allow, header(v, "Allow"));
    if (v.file !== null) {
      assert.equal(decision.status, v.status);
      assert.equal(decision.file, `/${v.file}`, "a precomputed answer is a rewrite to its file");
      return;
    }
    assert.equal(decision.file, undefined, "a made answer is not a rewrite");
    const body = bodyOf(v.site, decision);
    if (decision.status === 200) {
      const etag = await etagOf(body);
      if (notModified(v.if_none_match, etag)) {
        assert.equal(v.status, 304);
        assert.equal(header(v, "ETag"), etag);
        return;
      }
      assert.equal(etag, header(v, "ETag"));
    } else {
      assert.equal(header(v, "ETag"), undefined);
    }
    assert.equal(decision.status, v.status);
    assert.equal(body, v.body);
  });
}

test("the query string is everything after the first ?", () => {
  assert.equal(rawQuery("https://h.example/api/v1/models"), "");
  assert.equal(rawQuery("https://h.example/api/v1/models?"), "");
  assert.equal(rawQuery("https://h.example/api/v1/models??a=1"), "?a=1");
  assert.equal(rawQuery("https://h.example/api/v1/models?a=%ZZ&b"), "a=%ZZ&b");
});

test("percent-decoding keeps a byte-order mark and refuses what Rust refuses", () => {
  assert.deepEqual(percentDecode("%EF%BB%BFx"), { value: "\uFEFFx" });
  assert.deepEqual(percentDecode("a+b"), { value: "a b" });
  assert.deepEqual(percentDecode("a+b", false), { value: "a+b" });
  assert.deepEqual(percentDecode("é%C3%A9"), { value: "éé" });
  for (const bad of ["%", "%4", "%4G", "%é9"]) assert.deepEqual(percentDecode(bad), { why: "has an invalid percent escape" });
  for (const bad of ["%80", "%C3", "%F4%90%80%80"]) assert.deepEqual(percentDecode(bad), { why: "is not valid UTF-8 after percent-decoding" });
});

test("values are quoted by characters, not UTF-16 units", () => {
  assert.equal(quoteValue("😀😀😀", 2), '"😀😀"...');
  assert.equal(quoteValue("😀😀", 2), '"😀😀"');
  assert.equal(quoteValue("\u0000\u001f\"\\", 10), '"\\u0000\\u001f\\"\\\\"');
});

test("offsets keep their exact value up to 2^53 - 1", () => {
  const table = tables.data;
  assert.equal(parseQuery("offset=9007199254740991", table).offset, 9007199254740991);
  assert.equal(parseQuery("offset=9007199254740992", table).kind, "error");
});

test("If-None-Match is read as the preview server reads it", () => {
  assert.equal(notModified(null, '"a"'), false);
  assert.equal(notModified('"a"', '"a"'), true);
  assert.equal(notModified('W/"a"', '"a"'), true);
  assert.equal(notModified(' "b" , "a" ', '"a"'), true);
  assert.equal(notModified("*", '"a"'), true);
  assert.equal(notModified('"b"', '"a"'), false);
});
