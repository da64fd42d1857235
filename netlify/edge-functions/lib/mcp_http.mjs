// The HTTP rules of `/mcp` that are checked before a request reaches the MCP SDK's transport
// (docs/decisions.md, "/mcp on the CDN"): the transport is stateless with JSON responses, so it
// offers POST only; a body is read at most 64 KiB; a JSON-RPC batch, which the 2025-06-18
// protocol removed, is an Invalid Request; protocol versions are the set the Rust side (rmcp)
// accepts, not the SDK's longer list; `Accept` needs `application/json` only, since no answer
// is ever an event stream. A plain ES module with web standards only, so node's test runner
// and Deno run it alike.

/** Largest request body read, in bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The `MCP-Protocol-Version` values accepted, newest first (rmcp 3.11's versions with an initialize handshake). */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/** The version `initialize` answers when the client asks for one not in [`PROTOCOL_VERSIONS`]. */
export const LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[0];

/** Every answer of `/mcp` may be read by a page of any origin (browser-based MCP clients). */
export const CORS_HEADERS = { "Access-Control-Allow-Origin": "*" };

/** The answer to a CORS preflight (`OPTIONS /mcp`): POST, with the headers MCP clients send. */
export const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  "Access-Control-Allow-Methods": "POST",
  "Access-Control-Allow-Headers": "Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID, Authorization",
  "Access-Control-Max-Age": "86400",
};

/** A JSON-RPC error as an HTTP answer (the SDK transport's own shape: `id` null unless known). */
export function jsonRpcError(status, code, message, id = null, headers = {}) {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id });
  return new Response(body, { status, headers: { "Content-Type": "application/json", ...CORS_HEADERS, ...headers } });
}

/** The media type of a `Content-Type` value, lower-cased, without parameters. */
function mediaType(value) {
  return (value ?? "").split(";", 1)[0].trim().toLowerCase();
}

/** Reads a request body as UTF-8 text, stopping as soon as more than `max` bytes arrived. */
export async function readBounded(request, max = MAX_BODY_BYTES) {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > max) return { tooLarge: true };
  if (request.body === null) return { text: "" };
  const reader = request.body.getReader();
  const chunks = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > max) {
      await reader.cancel().catch(() => {});
      return { tooLarge: true };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { text: new TextDecoder().decode(bytes) };
}

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The params rmcp refuses for the methods this server has, answered as `model-demand mcp` does
 * (JSON-RPC -32601 with the method as the message, from its request decoding): the SDK would
 * give -32602 with a validation report instead.
 */
function refusedParams(message) {
  const params = message.params;
  if (message.method === "tools/call") {
    const args = isObject(params) ? params.arguments : undefined;
    return !isObject(params) || typeof params.name !== "string" || !(args === undefined || args === null || isObject(args));
  }
  if (message.method === "resources/read") return !isObject(params) || typeof params.uri !== "string";
  return false;
}

/**
 * Checks a request to `/mcp` before the transport sees it. Returns `{response}` when the
 * request is answered here, else `{message, text}`: the one JSON-RPC message it carries, parsed,
 * and the body's text (for the tool arguments, read as written).
 */
export async function screen(request) {
  if (request.method === "OPTIONS") return { response: new Response(null, { status: 204, headers: PREFLIGHT_HEADERS }) };
  if (request.method !== "POST") {
    const response = jsonRpcError(405, -32000, "Method not allowed: this server is stateless and answers POST only", null, { Allow: "POST" });
    return { response: request.method === "HEAD" ? new Response(null, { status: 405, headers: response.headers }) : response };
  }
  const accept = (request.headers.get("accept") ?? "").toLowerCase();
  if (!accept.includes("application/json")) {
    return { response: jsonRpcError(406, -32000, "Not Acceptable: Accept must include application/json") };
  }
  if (mediaType(request.headers.get("content-type")) !== "application/json") {
    return { response: jsonRpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json") };
  }
  const body = await readBounded(request);
  if (body.tooLarge) {
    return { response: jsonRpcError(413, -32000, `Payload Too Large: the request body must not exceed ${MAX_BODY_BYTES} bytes`) };
  }
  let message;
  try {
    message = JSON.parse(body.text);
  } catch {
    return { response: jsonRpcError(400, -32700, "Parse error: Invalid JSON") };
  }
  if (Array.isArray(message)) {
    return { response: jsonRpcError(400, -32600, "Invalid Request: JSON-RPC batches are not supported; send one message per request") };
  }
  const initialize = isObject(message) && message.method === "initialize";
  const version = request.headers.get("mcp-protocol-version");
  if (!initialize && version !== null && !PROTOCOL_VERSIONS.includes(version)) {
    const supported = PROTOCOL_VERSIONS.join(", ");
    return { response: jsonRpcError(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${supported})`) };
  }
  if (isObject(message) && "id" in message && typeof message.method === "string" && refusedParams(message)) {
    return { response: jsonRpcError(200, -32601, message.method, message.id) };
  }
  return { message, text: body.text };
}

/** The version `initialize` answers: the client's when accepted, else the latest. */
export function negotiatedVersion(requested) {
  return PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}
