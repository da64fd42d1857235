// Netlify Edge Function for /api/v1/models (declared in netlify.toml, which
// `model-demand netlify-toml` generates, so the route is written once). It applies the query
// rules Netlify's redirect rules cannot (unknown, repeated and encoded parameters, trailing `&`,
// bad escapes, non-canonical integers, offsets past the data) so that the CDN answers every
// request with the same status and body as the preview server. The decisions live in
// lib/query.mjs; this file only does I/O:
//   - a precomputed answer is a rewrite (a returned URL): the CDN serves the static file, with
//     the `_headers` of its path (declared for /_api/*), its ETag and its 304s;
//   - an error, a page past the end, and every list page of an `edge` site (assembled from its
//     parts, DESIGN §8.1) are answered here, with the `_headers` headers set by hand (Netlify
//     does not apply `_headers` to edge responses) and, for a 200, the preview server's ETag;
//   - if anything fails (the routing table cannot be read, a fetch fails), the function steps
//     aside and the static rules answer, which are exact for every plain request.
import { etagOf, notModified, rawQuery, route } from "./lib/query.mjs";
import { decisionBody, loadRoutes } from "./lib/site.mjs";

export { ROUTES } from "./lib/site.mjs";

/** The headers `_headers` gives every JSON path (src/netlify.rs, JSON_HEADERS). */
export const HEADERS = {
  "Content-Type": "application/json",
  "Access-Control-Allow-Origin": "*",
  "Cache-Control": "public, max-age=0, must-revalidate",
  "X-Content-Type-Options": "nosniff",
};

/** How long Netlify's CDN may keep an assembled list answer (never longer than a deploy). */
export const CDN_CACHE = "public, max-age=3600, must-revalidate";

// The routing table, fetched once per isolate (an isolate serves one deploy).
let table;

export default async function models(request, _context) {
  try {
    table ??= loadRoutes(request);
    const routes = await table;
    const decision = route(rawQuery(request.url), routes, request.method);
    if (decision.file) return new URL(decision.file, request.url);
    const body = await decisionBody(request, decision, routes);
    const headers = { ...HEADERS };
    if (decision.allow) headers.Allow = decision.allow;
    if (decision.status === 200) {
      headers.ETag = await etagOf(body);
      // An assembled list answer changes only with a deploy: Netlify's CDN may keep it (the
      // function is declared with `cache = "manual"`); a deploy invalidates what it kept, and
      // the hour bounds it should one not (docs/decisions.md). Netlify strips this header
      // before the response leaves its CDN.
      if (decision.assemble) headers["Netlify-CDN-Cache-Control"] = CDN_CACHE;
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
