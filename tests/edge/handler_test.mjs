// The edge handler under Deno, with a stand-in for Netlify: `fetch` and rewrites are served from
// the built fixture's files with the headers of its `_headers` file, as the CDN serves static
// files; a handler that returns nothing hands the request to the static rules. Every vector the
// Rust router answered (tests/it/edge_vectors.rs, which runs this file with EDGE_FIXTURE set) must
// come out with the same status, headers and bytes.
import { etagOf, notModified } from "../../netlify/edge-functions/lib/query.mjs";

const fixture = Deno.env.get("EDGE_FIXTURE");
if (!fixture) throw new Error("EDGE_FIXTURE must name the fixture directory");
const vectors = JSON.parse(await Deno.readTextFile(`${fixture}/vectors.json`));
const SITES = { data: `${fixture}/site`, unavailable: `${fixture}/site-unavailable`, edge: `${fixture}/site-edge` };
const ORIGIN = "https://model-demand.example";
const handlerUrl = new URL("../../netlify/edge-functions/models.mjs", import.meta.url);

function assertEquals(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** A fresh instance of the handler module (its routing-table cache starts empty), as a new isolate. */
async function freshModule(tag) {
  return await import(`${handlerUrl}?isolate=${tag}`);
}

/** `_headers` as [pattern, [[name, value]]] rules. */
function parseHeaders(text) {
  const rules = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    if (!/^\s/.test(line)) {
      rules.push([line.trim(), []]);
    } else {
      const at = line.indexOf(":");
      rules.at(-1)[1].push([line.slice(0, at).trim(), line.slice(at + 1).trim()]);
    }
  }
  return rules;
}

/** Netlify's side: static files of one built site, with `_headers`, ETags and 304s. */
class StandIn {
  constructor(dir) {
    this.dir = dir;
    this.rules = parseHeaders(Deno.readTextFileSync(`${dir}/_headers`));
    this.fetched = [];
    this.missing = new Set();
  }

  headersFor(path) {
    const headers = new Headers();
    for (const [pattern, values] of this.rules) {
      const matches = pattern.endsWith("*") ? path.startsWith(pattern.slice(0, -1)) : path === pattern;
      if (matches) for (const [name, value] of values) headers.set(name, value);
    }
    return headers;
  }

  /** A static file by decoded path; Netlify's HTML 404 when there is none. */
  async serveStatic(pathname, method = "GET", ifNoneMatch = null) {
    const path = decodeURIComponent(pathname);
    let bytes;
    try {
      if (path.split("/").includes("..") || this.missing.has(path)) throw new Error("no such file");
      bytes = await Deno.readFile(`${this.dir}${path}`);
    } catch {
      return new Response("<html>Page not found</html>", { status: 404, headers: { "Content-Type": "text/html" } });
    }
    const headers = this.headersFor(path);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", bytes));
    headers.set("ETag", `"${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}-netlify"`);
    if (notModified(ifNoneMatch, headers.get("ETag"))) return new Response(null, { status: 304, headers });
    return new Response(method === "HEAD" ? null : bytes, { status: 200, headers });
  }

  /** The global `fetch` the handler sees: subrequests to its own site. */
  fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.origin !== ORIGIN) throw new Error(`the handler fetched another site: ${url}`);
    this.fetched.push(url.pathname);
    return await this.serveStatic(url.pathname, request.method, request.headers.get("if-none-match"));
  };

  /** Runs the handler as Netlify does: a Response is sent, a URL is a rewrite, nothing is a bypass. */
  async invoke(handler, request) {
    const context = {
      next() {
        throw new Error("the handler does not call context.next()");
      },
      rewrite() {
        throw new Error("the handler does not use the deprecated context.rewrite()");
      },
    };
    globalThis.fetch = this.fetch;
    const result = await handler(request, context);
    if (result === undefined) return { via: "bypass" };
    if (result instanceof URL) {
      if (result.origin !== ORIGIN || result.search !== "") throw new Error(`a rewrite to ${result}`);
      const response = await this.serveStatic(result.pathname, request.method, request.headers.get("if-none-match"));
      return { via: "rewrite", target: result.pathname, response };
    }
    if (!(result instanceof Response)) throw new Error(`the handler returned ${result}`);
    return { via: "response", response: result };
  }
}

const standIns = Object.fromEntries(Object.entries(SITES).map(([name, dir]) => [name, new StandIn(dir)]));
const handlers = {};
for (const name of Object.keys(SITES)) handlers[name] = (await freshModule(name)).default;

function requestOf(v) {
  const headers = v.if_none_match ? { "If-None-Match": v.if_none_match } : {};
  return new Request(`${ORIGIN}/api/v1/models?${v.query}`, { method: v.method, headers });
}

for (const v of vectors) {
  const name = `${v.site} ${v.class} ${v.method} ?${v.query.slice(0, 120)}${v.if_none_match ? ` If-None-Match: ${v.if_none_match}` : ""}`;
  Deno.test(name, async () => {
    const standIn = standIns[v.site];
    const { via, target, response } = await standIn.invoke(handlers[v.site], requestOf(v));
    assertEquals(response.status, v.status, "status");
    const noBody = v.method === "HEAD" || v.status === 304;
    if (v.file !== null) {
      assertEquals(via, "rewrite", "answered by");
      assertEquals(target, `/${v.file}`, "rewrite target");
      const expected = noBody ? "" : await Deno.readTextFile(`${standIn.dir}/${v.file}`);
      assertEquals(await response.text(), expected, "body");
    } else {
      assertEquals(via, "response", "answered by");
      assertEquals(await response.text(), noBody ? "" : v.body, "body");
      const names = [...response.headers.keys()].sort().join(", ");
      assertEquals(names, v.headers.map(([n]) => n.toLowerCase()).sort().join(", "), "header names");
    }
    for (const [header, value] of v.headers) assertEquals(response.headers.get(header), value, header);
  });
}

// The `edge` layout (DESIGN §8.1): the same data without list files. Every vector of the data
// site gets the same status and bytes; a list page is assembled by the handler (so it answers
// it, with the JSON headers and the SHA-256 ETag `serve` gives the full layout's file), exact
// lookups stay rewrites to the same files, and everything else is byte for byte the vector.
const listPrefix = (() => {
  const table = JSON.parse(Deno.readTextFileSync(`${SITES.data}/_api/routes.json`));
  return table.list_file.slice(0, table.list_file.indexOf("{"));
})();
for (const v of vectors.filter((x) => x.site === "data")) {
  const name = `edge ${v.class} ${v.method} ?${v.query.slice(0, 120)}${v.if_none_match ? ` If-None-Match: ${v.if_none_match}` : ""}`;
  Deno.test(name, async () => {
    const { via, target, response } = await standIns.edge.invoke(handlers.edge, requestOf(v));
    assertEquals(response.status, v.status, "status");
    const noBody = v.method === "HEAD" || v.status === 304;
    const text = await response.text();
    if (v.file !== null && !v.file.startsWith(listPrefix)) {
      assertEquals(via, "rewrite", "answered by");
      assertEquals(target, `/${v.file}`, "rewrite target");
      return;
    }
    assertEquals(via, "response", "answered by");
    const expected = v.file === null ? v.body : await Deno.readTextFile(`${SITES.data}/${v.file}`);
    assertEquals(text, noBody ? "" : expected, "body");
    if (v.file === null) {
      for (const [header, value] of v.headers) assertEquals(response.headers.get(header), value, header);
    } else {
      assertEquals(response.headers.get("ETag"), await etagOf(expected), "ETag");
      for (const [header, value] of Object.entries((await freshModule("headers-edge")).HEADERS)) {
        if (v.status !== 304 || header !== "Content-Type") assertEquals(response.headers.get(header), value, header);
      }
    }
  });
}

Deno.test("an edge site's parts are fetched once per isolate", () => {
  const parts = standIns.edge.fetched.filter((p) => p.startsWith("/_api/edge/"));
  assertEquals(parts.length, new Set(parts).size, "each part once");
  if (parts.length === 0) throw new Error("no part was fetched");
});

Deno.test("an edge site whose parts cannot be read is left to the static rules (a JSON 503)", async () => {
  const handler = (await freshModule("edge-broken")).default;
  const standIn = new StandIn(SITES.edge);
  const table = JSON.parse(await Deno.readTextFile(`${SITES.edge}/_api/routes.json`));
  standIn.missing.add("/" + table.edge.orderings["tokens_30d/desc"].file);
  const error = console.error;
  console.error = () => {};
  try {
    assertEquals((await standIn.invoke(handler, new Request(`${ORIGIN}/api/v1/models`))).via, "bypass", "answered by");
  } finally {
    console.error = error;
  }
  const rules = await Deno.readTextFile(`${SITES.edge}/_redirects`);
  if (!rules.includes(`/api/v1/models  /${table.errors.data_unavailable}  503`)) {
    throw new Error("the edge layout's rules do not answer a list request with the JSON 503");
  }
});

Deno.test("the routing table is fetched once per isolate", () => {
  for (const [name, standIn] of Object.entries(standIns)) {
    assertEquals(standIn.fetched.filter((p) => p === "/_api/routes.json").length, 1, name);
  }
});

Deno.test("the handler's headers are those _headers gives every JSON path", async () => {
  const { HEADERS } = await freshModule("headers");
  const fromFile = standIns.data.headersFor("/api/v1/models");
  for (const [name, value] of Object.entries(HEADERS)) assertEquals(fromFile.get(name), value, name);
  assertEquals([...fromFile.keys()].length, Object.keys(HEADERS).length, "header count");
});

Deno.test("without a routing table the function steps aside, and recovers", async () => {
  const handler = (await freshModule("no-table")).default;
  const standIn = new StandIn(SITES.data);
  standIn.missing.add("/_api/routes.json");
  const request = () => new Request(`${ORIGIN}/api/v1/models?foo=1`);
  const error = console.error;
  console.error = () => {};
  try {
    assertEquals((await standIn.invoke(handler, request())).via, "bypass", "without the table");
  } finally {
    console.error = error;
  }
  standIn.missing.clear();
  const { via, response } = await standIn.invoke(handler, request());
  assertEquals(via, "response", "with the table");
  assertEquals(response.status, 400, "status");
});

Deno.test("a broken site (no page at offset N) is left to the static rules", async () => {
  const handler = (await freshModule("broken")).default;
  const standIn = new StandIn(SITES.data);
  const table = JSON.parse(await Deno.readTextFile(`${SITES.data}/_api/routes.json`));
  const last = "/" + table.list_file.replace("{sort}", "tokens_30d").replace("{order}", "desc").replace("{limit}", "25").replace("{offset}", String(table.total));
  standIn.missing.add(last);
  const error = console.error;
  console.error = () => {};
  try {
    assertEquals((await standIn.invoke(handler, new Request(`${ORIGIN}/api/v1/models?offset=1000`))).via, "bypass", "answered by");
  } finally {
    console.error = error;
  }
});

Deno.test("the ETag of a made page is the SHA-256 of its bytes", async () => {
  const v = vectors.find((x) => x.class === "far_offset");
  const { response } = await standIns.data.invoke(handlers.data, requestOf(v));
  assertEquals(response.headers.get("ETag"), await etagOf(v.body), "ETag");
});

Deno.test("the function is declared in netlify.toml, and bypassed on error", async () => {
  const module = await freshModule("config");
  assertEquals(module.config.onError, "bypass", "onError");
  assertEquals(module.config.path, undefined, "the path is declared once, in netlify.toml");
  const toml = await Deno.readTextFile(new URL("../../netlify.toml", import.meta.url));
  const declaration = '[[edge_functions]]\n  path = "/api/v1/models"\n  function = "models"\n';
  if (!toml.includes(declaration)) throw new Error(`netlify.toml lacks ${JSON.stringify(declaration)}`);
});
