// The HTTP rules of `/mcp` that are checked before a request reaches the MCP SDK's transport
// (docs/decisions.md, "/mcp on the CDN"), as the preview server checks them (src/serve/mcp.rs):
// the transport is stateless with JSON responses, so it offers POST only; a body is read at
// most 64 KiB; a JSON-RPC batch, which the 2025-06-18 protocol removed, is an Invalid Request;
// protocol versions are the set rmcp accepts, not the SDK's longer list; `Accept` needs
// `application/json` only (or a range holding it), since no answer is ever an event stream.
// Each message is then read by the rule every transport shares (lib/message.mjs). A plain ES
// module with web standards only, so node's test runner and Deno run it alike.

import { INVALID_REQUEST, PARSE_ERROR, readMessage } from "./message.mjs";

/** Largest request body read, in bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The `MCP-Protocol-Version` values accepted, newest first (rmcp 3.11's versions with an initialize handshake). */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/** The version `initialize` answers when the client asks for one not in [`PROTOCOL_VERSIONS`]. */
export const LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[0];

/** The headers of every answer of `/mcp` (as the preview server's): any page may read it (browser-based MCP clients), nothing caches it. */
export const ANSWER_HEADERS = {
  "Cache-Control": "no-store",
  "Access-Control-Allow-Origin": "*",
  "X-Content-Type-Options": "nosniff",
};

/** The answer to a CORS preflight (`OPTIONS /mcp`): POST, with the headers MCP clients send. */
export const PREFLIGHT_HEADERS = {
  ...ANSWER_HEADERS,
  "Access-Control-Allow-Methods": "POST",
  "Access-Control-Allow-Headers": "Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID, Authorization",
  "Access-Control-Max-Age": "86400",
};

/** A JSON-RPC error as an HTTP answer (`id` null: the request's is not known or not read). */
export function jsonRpcError(status, code, message, id = null, headers = {}) {
  const body = JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
  return new Response(body, { status, headers: { "Content-Type": "application/json", ...ANSWER_HEADERS, ...headers } });
}

/** `application/json`, with any parameters, in any case. */
export function isJsonMediaType(value) {
  return (value ?? "").split(";", 1)[0].trim().toLowerCase() === "application/json";
}

/** True when an `Accept` value admits `application/json` (also as `application/*` or `*\/*`) with a weight above zero. */
export function acceptsJson(value) {
  return value.split(",").some((range) => {
    const [essence, ...parameters] = range.split(";");
    const refused = parameters.some((p) => {
      const q = p.trim().match(/^q=(.*)$/);
      return q !== null && Number.parseFloat(q[1].trim()) <= 0;
    });
    return !refused && ["application/json", "application/*", "*/*"].includes(essence.trim().toLowerCase());
  });
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
  // Text that is not UTF-8 (or starts with a byte-order mark) is no JSON, as src/mcp/message.rs reads it.
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return { text: "\ufeff" };
  }
}

/**
 * Checks a request to `/mcp` before the transport sees it, in the preview server's order
 * (src/serve/mcp.rs) and with its messages. Returns `{response}` when the request is answered
 * here, else `{message, args}`: the one JSON-RPC message it carries, as the SDK reads it, and
 * a tool call's arguments as written (lib/message.mjs).
 */
export async function screen(request) {
  if (request.method === "OPTIONS") return { response: new Response(null, { status: 204, headers: PREFLIGHT_HEADERS }) };
  if (request.method !== "POST") {
    const message = "Method Not Allowed: this server is stateless and offers no stream; POST JSON-RPC messages";
    const response = jsonRpcError(405, -32000, message, null, { Allow: "POST" });
    return { response: request.method === "HEAD" ? new Response(null, { status: 405, headers: response.headers }) : response };
  }
  if (!isJsonMediaType(request.headers.get("content-type"))) {
    return { response: jsonRpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json") };
  }
  const accept = request.headers.get("accept");
  if (accept !== null && !acceptsJson(accept)) {
    return { response: jsonRpcError(406, -32000, "Not Acceptable: the client must accept application/json") };
  }
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !PROTOCOL_VERSIONS.includes(version.trim())) {
    const supported = [...PROTOCOL_VERSIONS].reverse().join(", ");
    return { response: jsonRpcError(400, -32000, `Bad Request: unsupported MCP-Protocol-Version; supported: ${supported}`) };
  }
  const body = await readBounded(request);
  if (body.tooLarge) {
    return { response: jsonRpcError(413, -32000, `Payload Too Large: the body exceeds ${MAX_BODY_BYTES} bytes`) };
  }
  // The one rule of every transport (lib/message.mjs, as src/mcp/message.rs): a refusal carries the
  // request's id whenever it can be read; a message that is no request this server takes is HTTP 400.
  const read = readMessage(body.text);
  if (read.nothing) return { response: new Response(null, { status: 202, headers: ANSWER_HEADERS }) };
  if (read.refused) {
    const { id, code, message } = read.refused;
    const status = code === PARSE_ERROR || code === INVALID_REQUEST ? 400 : 200;
    return { response: jsonRpcError(status, code, message, id) };
  }
  return { message: read.message, args: read.args };
}

/** The version `initialize` answers: the client's when accepted, else the latest. */
export function negotiatedVersion(requested) {
  return PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}
