// What the edge functions read of the deployed site, in one place: a file's text, the routing
// table the build writes, and the body of a routing decision that is not a plain file. The
// decisions themselves are lib/query.mjs's; models.mjs and mcp.mjs only do I/O around them.
import { pastEndBody } from "./query.mjs";

/** Where the build writes the routing table (src/site.rs, ROUTES). */
export const ROUTES = "/_api/routes.json";

/** The text of a file of this deploy, fetched from the CDN; throws unless it answers 2xx. */
export async function siteText(request, path) {
  const response = await fetch(new URL(path, request.url));
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.text();
}

/** Checks a routing table parsed from ROUTES is of the schema lib/query.mjs reads. */
export function checkRoutes(table) {
  if (table.schema_version !== "model-demand.routes.v1") {
    throw new Error(`${ROUTES}: unknown schema ${table.schema_version}`);
  }
  return table;
}

/** The routing table of this deploy. */
export async function loadRoutes(request) {
  return checkRoutes(JSON.parse(await siteText(request, ROUTES)));
}

/**
 * The body of a decision of `route` (lib/query.mjs) that is answered here rather than by a
 * rewrite: a precomputed error file, a page past the end of the list, or a body it made.
 */
export async function decisionBody(request, decision) {
  if (decision.errorFile) return siteText(request, decision.errorFile);
  if (decision.pastEnd) {
    const { file, query, total } = decision.pastEnd;
    return pastEndBody(await siteText(request, file), query, total);
  }
  return decision.body;
}
