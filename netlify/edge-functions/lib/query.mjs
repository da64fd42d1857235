// The query rules of DESIGN §5 for the edge: a plain ES module with no Netlify or Deno API
// (only web standards: TextDecoder, Web Crypto), so node's test runner and Deno run it alike.
// It mirrors src/query.rs (the one definition: parse and route) and src/render.rs (error bodies,
// the page past the end) byte for byte; the vectors that tests/it/edge_vectors.rs generates from
// the Rust router are the contract between the two.

export const ERROR_SCHEMA_VERSION = "model-demand.agent-api-error.v1";

/** Error body exactly as the Rust side writes it (serde_json and JSON.stringify agree). */
export function errorBody(code, message) {
  return JSON.stringify({ schema_version: ERROR_SCHEMA_VERSION, error: code, message });
}

/** A request value for a message: its first `max` characters as JSON, then "..." if longer. */
export function quoteValue(text, max) {
  const chars = Array.from(text);
  const short = chars.slice(0, max).join("");
  return JSON.stringify(short) + (chars.length > max ? "..." : "");
}

const quoted = (text) => quoteValue(text, 64);
const HEX = /^[0-9A-Fa-f]$/;
const encoder = new TextEncoder();

/** Percent-decodes as UTF-8 (`+` is a space in queries); returns {value} or {why}. */
export function percentDecode(text, plusIsSpace = true) {
  const bytes = [];
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i += 1) {
    const c = chars[i];
    if (c === "+" && plusIsSpace) {
      bytes.push(0x20);
    } else if (c === "%") {
      const high = chars[i + 1];
      const low = chars[i + 2];
      if (high === undefined || low === undefined || !HEX.test(high) || !HEX.test(low)) {
        return { why: "has an invalid percent escape" };
      }
      bytes.push(parseInt(high + low, 16));
      i += 2;
    } else {
      bytes.push(...encoder.encode(c));
    }
  }
  try {
    return { value: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(new Uint8Array(bytes)) };
  } catch {
    return { why: "is not valid UTF-8 after percent-decoding" };
  }
}

/** A canonical decimal integer within bounds, or an error message. */
function boundedInteger(name, text, min, max) {
  const refuse = { error: `${name} must be a whole number from ${min} to ${max} written in plain digits, got ${quoted(text)}` };
  const canonical = /^[0-9]+$/.test(text) && (text === "0" || !text.startsWith("0"));
  if (!canonical) return refuse;
  const n = BigInt(text);
  if (n < BigInt(min) || n > BigInt(max)) return refuse;
  return { value: Number(n) };
}

/**
 * Parses a raw query string (without `?`) by the rules of DESIGN §5, given the routing table's
 * names, values and bounds. Returns {kind: "list", sort, order, limit, offset},
 * {kind: "exact", modelId} or {kind: "error", message}.
 */
export function parseQuery(raw, table) {
  const names = table.parameters;
  const seen = new Map();
  for (const segment of raw.split("&")) {
    if (segment === "") continue;
    const eq = segment.indexOf("=");
    const rawName = eq < 0 ? segment : segment.slice(0, eq);
    const rawValue = eq < 0 ? "" : segment.slice(eq + 1);
    const name = percentDecode(rawName);
    if (name.why) return { kind: "error", message: `parameter name ${name.why}` };
    const value = percentDecode(rawValue);
    if (value.why) return { kind: "error", message: `value of parameter ${quoted(name.value)} ${value.why}` };
    if (!names.includes(name.value)) {
      return { kind: "error", message: `unknown parameter ${quoted(name.value)}; allowed parameters are ${names.join(", ")}` };
    }
    if (seen.has(name.value)) {
      return { kind: "error", message: `parameter ${name.value} is given more than once; each parameter may appear at most once` };
    }
    if (value.value === "") return { kind: "error", message: `parameter ${name.value} has an empty value` };
    seen.set(name.value, value.value);
  }
  if (seen.has("model_id")) {
    if (seen.size > 1) {
      return { kind: "error", message: "model_id selects one model and cannot be combined with sort, order, limit or offset" };
    }
    return { kind: "exact", modelId: seen.get("model_id") };
  }
  const query = { kind: "list", sort: table.default_sort, order: table.default_order, limit: table.limit_default, offset: 0 };
  if (seen.has("sort")) {
    const sort = seen.get("sort");
    if (!table.sorts.includes(sort)) {
      return { kind: "error", message: `sort ${quoted(sort)} is not allowed; allowed values are ${table.sorts.join(", ")}` };
    }
    query.sort = sort;
  }
  if (seen.has("order")) {
    const order = seen.get("order");
    if (!table.orders.includes(order)) {
      return { kind: "error", message: `order ${quoted(order)} is not allowed; allowed values are ${table.orders.join(", ")}` };
    }
    query.order = order;
  }
  if (seen.has("limit")) {
    const limit = boundedInteger("limit", seen.get("limit"), table.limit_min, table.limit_max);
    if (limit.error) return { kind: "error", message: limit.error };
    query.limit = limit.value;
  }
  if (seen.has("offset")) {
    const offset = boundedInteger("offset", seen.get("offset"), 0, table.offset_max);
    if (offset.error) return { kind: "error", message: offset.error };
    query.offset = offset.value;
  }
  return query;
}

/** Site path of a list page, from the routing table's pattern. */
export function listFile(table, q) {
  return "/" + table.list_file
    .replace("{sort}", q.sort)
    .replace("{order}", q.order)
    .replace("{limit}", String(q.limit))
    .replace("{offset}", String(q.offset));
}

/**
 * Decides the answer of `{method} /api/v1/models?{raw}`, as `query::route` does (the method, the
 * data, the query rules, then the answer):
 *   {status, file}                          rewrite to this site file (always 200)
 *   {status, body}                          answer this JSON body
 *   {status, errorFile, allow?}             answer the precomputed error body with this status
 *   {status: 200, pastEnd: {file, query, total}}  the page at offset N with this query echoed
 *                                           (see pastEndBody)
 *   {status: 200, assemble: query}          an `edge` site's list page (see assembleList)
 */
export function route(raw, table, method = "GET") {
  if (method !== "GET" && method !== "HEAD") {
    return { status: 405, errorFile: "/" + table.errors.method_not_allowed, allow: "GET, HEAD" };
  }
  if (!table.has_data) return { status: 503, errorFile: "/" + table.errors.data_unavailable };
  const q = parseQuery(raw, table);
  if (q.kind === "error") return { status: 400, body: errorBody("invalid_query", q.message) };
  if (q.kind === "exact") {
    const file = Object.hasOwn(table.models, q.modelId) ? table.models[q.modelId] : undefined;
    if (file === undefined) {
      const message = `no model with ID ${quoteValue(q.modelId, 200)} is served by the accepted export (the window's top-50 models); list them with /api/v1/models`;
      return { status: 404, body: errorBody("model_not_found", message) };
    }
    return { status: 200, file: "/" + file };
  }
  // An `edge` site keeps list answers as parts (DESIGN §8.1): every page, past the end too, is
  // assembled from them (assembleList); a `full` site has a file for each.
  if (table.edge) return { status: 200, assemble: q };
  if (q.offset > table.total) {
    return { status: 200, pastEnd: { file: listFile(table, { ...q, offset: table.total }), query: q, total: table.total } };
  }
  return { status: 200, file: listFile(table, q) };
}

/** The `query` and `pagination` members of a list page, as `query::list_echo` writes them. */
function listEcho(query, total) {
  const start = Math.min(query.offset, total);
  const end = Math.min(start + query.limit, total);
  const echo = { mode: "list", model_id: null, sort: query.sort, order: query.order, limit: query.limit, offset: query.offset };
  const pagination = {
    total_matching_models: total, offset: query.offset, limit: query.limit,
    returned_count: end - start, has_next_page: query.offset + (end - start) < total,
  };
  return { echo, pagination, start, end };
}

/**
 * A list page of an `edge` site, assembled as `edge::assemble` does (one definition of the
 * layout, `render::assemble_page`): the head, the echo and pagination, and the slice of the
 * ordering's comma-joined records between two offsets. No record is parsed. `head` and
 * `records` are the parts' bytes (Uint8Array), `offsets` the ordering's N + 1 offsets.
 */
export function assembleList(head, records, offsets, query) {
  const total = offsets.length - 1;
  const { echo, pagination, start, end } = listEcho(query, total);
  const middle = encoder.encode(`,"query":${JSON.stringify(echo)},"pagination":${JSON.stringify(pagination)},"models":[`);
  const slice = end > start ? records.subarray(offsets[start], offsets[end] - 1) : new Uint8Array(0);
  const tail = encoder.encode("]}");
  const body = new Uint8Array(head.length + middle.length + slice.length + tail.length);
  body.set(head, 0);
  body.set(middle, head.length);
  body.set(slice, head.length + middle.length);
  body.set(tail, head.length + middle.length + slice.length);
  return body;
}

/** The raw query string of a request URL, without the `?` (empty when there is none). */
export function rawQuery(url) {
  return new URL(url).search.replace(/^\?/, "");
}

/** The strong validator of a body made while answering: `"<hex SHA-256>"`, as the preview server gives. */
export async function etagOf(body) {
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return `"${Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")}"`;
}

/** True when `If-None-Match` names `etag` (or `*`), weak or strong, as `serve::not_modified` decides. */
export function notModified(ifNoneMatch, etag) {
  if (ifNoneMatch === null || ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(",").map((c) => c.trim()).some((c) => c === "*" || (c.startsWith("W/") ? c.slice(2) : c) === etag);
}

/**
 * The empty page past the end, made from its parts as `render::past_end_page` makes it: the head
 * members of the page at offset N (in their order), then this query's echo and pagination and
 * no models.
 */
export function pastEndBody(lastPage, query, total) {
  const { query: _query, pagination: _pagination, models, ...head } = JSON.parse(lastPage);
  if (_query === undefined || _pagination === undefined || models === undefined) {
    throw new Error("the page at offset N is not a list page");
  }
  const { echo, pagination } = listEcho(query, total);
  return JSON.stringify({ ...head, query: echo, pagination, models: [] });
}
