// What the edge functions read of the deployed site, in one place: a file's text, the routing
// table the build writes, and the body of a routing decision that is not a plain file. The
// decisions themselves are lib/query.mjs's; models.mjs and mcp.mjs only do I/O around them.
import { assembleList, pastEndBody } from "./query.mjs";

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

// The `edge` layout's parts, fetched once per routing table (a table is read once per isolate,
// and one deploy's parts never change): table -> (site path -> Promise<Uint8Array>).
const partsByTable = new WeakMap();

/** The bytes of a part of this deploy, fetched once for `table`; a failed fetch is forgotten. */
function partBytes(request, table, path) {
  if (!partsByTable.has(table)) partsByTable.set(table, new Map());
  const parts = partsByTable.get(table);
  if (!parts.has(path)) {
    const loading = fetch(new URL("/" + path, request.url)).then(async (response) => {
      if (!response.ok) throw new Error(`/${path}: HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    });
    loading.catch(() => parts.delete(path));
    parts.set(path, loading);
  }
  return parts.get(path);
}

/** An `edge` site's list page for `query`, assembled from the parts `table.edge` names. */
export async function assembledBody(request, table, query) {
  const ordering = table.edge.orderings[`${query.sort}/${query.order}`];
  if (!ordering) throw new Error(`${ROUTES}: no edge ordering ${query.sort}/${query.order}`);
  const [head, records] = await Promise.all([partBytes(request, table, table.edge.head), partBytes(request, table, ordering.file)]);
  const last = ordering.offsets[ordering.offsets.length - 1];
  if (ordering.offsets.length !== table.total + 1 || last !== records.length + 1) {
    throw new Error(`/${ordering.file}: offsets disagree with its ${records.length} bytes`);
  }
  return assembleList(head, records, ordering.offsets, query);
}

/**
 * The body of a decision of `route` (lib/query.mjs) that is answered here rather than by a
 * rewrite: a precomputed error file, a page past the end of the list, an `edge` site's list
 * page (bytes), or a body it made.
 */
export async function decisionBody(request, decision, table) {
  if (decision.assemble) return assembledBody(request, table, decision.assemble);
  if (decision.errorFile) return siteText(request, decision.errorFile);
  if (decision.pastEnd) {
    const { file, query, total } = decision.pastEnd;
    return pastEndBody(await siteText(request, file), query, total);
  }
  return decision.body;
}
