// The edge handler under Deno, with a stand-in for Netlify: fetch serves the built fixture's
// files, as the CDN would. Run by tests/edge_vectors.rs with EDGE_FIXTURE set.
import models, { HEADERS } from "../../netlify/edge-functions/models.mjs";

const fixture = Deno.env.get("EDGE_FIXTURE");
const site = `${fixture}/site`;
const vectors = JSON.parse(await Deno.readTextFile(`${fixture}/vectors.json`));
const decoder = new TextDecoder();

globalThis.fetch = async (input) => {
  const url = new URL(input instanceof Request ? input.url : input);
  try {
    const bytes = await Deno.readFile(`${site}${decodeURIComponent(url.pathname)}`);
    return new Response(bytes, { status: 200, headers: { etag: '"stand-in"' } });
  } catch {
    return new Response("<html>not found</html>", { status: 404 });
  }
};

function assertEquals(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

// A sample of the vectors: every class, a few of each.
const perClass = new Map();
const sample = vectors.filter((v) => {
  const n = perClass.get(v.class) ?? 0;
  perClass.set(v.class, n + 1);
  return n < 3;
});

for (const v of sample) {
  Deno.test(`${v.class}: ?${v.query}`, async () => {
    const response = await models(new Request(`https://model-demand.example/api/v1/models?${v.query}`));
    assertEquals(response.status, v.status, "status");
    for (const [name, value] of Object.entries(HEADERS)) assertEquals(response.headers.get(name), value, name);
    const expected = v.body ?? decoder.decode(await Deno.readFile(`${site}/${v.file}`));
    assertEquals(await response.text(), expected, "body");
  });
}

Deno.test("other methods are 405 with Allow", async () => {
  const response = await models(new Request("https://model-demand.example/api/v1/models", { method: "POST" }));
  assertEquals(response.status, 405, "status");
  assertEquals(response.headers.get("Allow"), "GET, HEAD", "Allow");
  assertEquals(JSON.parse(await response.text()).error, "method_not_allowed", "error");
});

Deno.test("HEAD answers the status and headers without a body", async () => {
  const response = await models(new Request("https://model-demand.example/api/v1/models?limit=1", { method: "HEAD" }));
  assertEquals(response.status, 200, "status");
  assertEquals(await response.text(), "", "body");
});
