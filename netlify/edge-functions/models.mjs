// Netlify Edge Function for /api/v1/models (declared in netlify.toml, which
// `model-demand netlify-toml` generates, so the route is written once). It applies the query
// rules Netlify's redirect rules cannot (unknown, repeated and encoded parameters, trailing `&`,
// bad escapes, non-canonical integers, offsets past the data) so that the CDN answers every
// request with the same status and body as the preview server. The decisions live in
// lib/query.mjs; this file only does I/O:
//   - a precomputed answer is a rewrite (a returned URL): the CDN serves the static file, with
//     the `_headers` of its path (declared for /_api/*), its ETag and its 304s;
//   - an error or a page past the end is answered here, with the `_headers` headers set by
//     hand (Netlify does not apply `_headers` to edge responses) and, for a 200, the preview
//     server's ETag;
//   - if anything fails (the routing table cannot be read, a fetch fails), the function steps
//     aside and the static rules answer, which are exact for every plain request.
import { etagOf, notModified, pastEndBody, rawQuery, route } from "./lib/query.mjs";

/** The headers `_headers` gives every JSON path (src/netlify.rs, JSON_HEADERS). */
export const HEADERS = {
  "Content-Type": "application/json",
  "Access-Control-Allow-Origin": "*",
  "Cache-Control": "public, max-age=0, must-revalidate",
};

/** Where the build writes the routing table (src/site.rs, ROUTES). */
export const ROUTES = "/_api/routes.json";

// The routing table, fetched once per isolate (an isolate serves one deploy).
let table;

async function siteText(request, path) {
  const response = await fetch(new URL(path, request.url));
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.text();
}

async function loadTable(request) {
  const routes = JSON.parse(await siteText(request, ROUTES));
  if (routes.schema_version !== "model-demand.routes.v1") {
    throw new Error(`${ROUTES}: unknown schema ${routes.schema_version}`);
  }
  return routes;
}

export default async function models(request, _context) {
  try {
    table ??= loadTable(request);
    const decision = route(rawQuery(request.url), await table, request.method);
    if (decision.file) return new URL(decision.file, request.url);
    let body;
    if (decision.errorFile) {
      body = await siteText(request, decision.errorFile);
    } else if (decision.pastEnd) {
      const { file, query, total } = decision.pastEnd;
      body = pastEndBody(await siteText(request, file), query, total);
    } else {
      body = decision.body;
    }
    const headers = { ...HEADERS };
    if (decision.allow) headers.Allow = decision.allow;
    if (decision.status === 200) {
      headers.ETag = await etagOf(body);
      if (notModified(request.headers.get("if-none-match"), headers.ETag)) {
        delete headers["Content-Type"];
        return new Response(null, { status: 304, headers });
      }
    }
    return new Response(request.method === "HEAD" ? null : body, { status: decision.status, headers });
  } catch (error) {
    table = undefined;
    console.error(`models edge function steps aside: ${error}`);
    return undefined;
  }
}

// If the function itself fails to load or throws, Netlify passes the request on (to the static
// rules) instead of answering its generic error page. The path is declared in netlify.toml.
export const config = { onError: "bypass" };
