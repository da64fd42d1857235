// Netlify Edge Function for /mcp (declared in netlify.toml, which `model-demand netlify-toml`
// generates): the API's MCP tools over the Streamable HTTP transport, stateless (no
// session, every POST stands alone) with JSON answers, on the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in package.json; Netlify bundles it from node_modules).
//
// Nothing about the tools is written here: the tool objects, the instructions, the server's
// name and version, the resources and the API path each tool asks come from the site's MCP
// catalogue (/_api/mcp.json, written by `build`), and a tool call is answered with the bytes
// the API answers, through the same decision models.mjs makes (lib/query.mjs: the arguments
// become the raw query string a client would send, lib/tool_call.mjs, and `route` chooses the
// file), cut to the fields asked and held to the size limit as src/mcp/tools.rs does. The HTTP rules the SDK's transport does not apply as this API wants (methods, CORS,
// the body limit, batches, the protocol versions) are checked first (lib/mcp_http.mjs).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { ANSWER_HEADERS, jsonRpcError, negotiatedVersion, screen } from "./lib/mcp_http.mjs";
import { ROUTES, checkRoutes, decisionBody, siteText } from "./lib/site.mjs";
import { quoteValue, route } from "./lib/query.mjs";
import { QUOTED_CHARS, callTool, parseKeepingNumbers } from "./lib/tool_call.mjs";

/** Where the build writes the MCP catalogue (src/catalogue.rs, CATALOGUE_PATH). */
export const CATALOGUE = "/_api/mcp.json";
/** The API path the routing table decides (src/netlify.rs, MODELS_PATH; models.mjs's declared path). */
export const MODELS_PATH = "/api/v1/models";

const CAPABILITIES = { tools: {}, resources: {} };

// The catalogue and the routing table, fetched once per isolate (an isolate serves one deploy).
let site;

async function loadSite(request) {
  const [catalogueText, tableText] = await Promise.all([CATALOGUE, ROUTES].map((path) => siteText(request, path)));
  // The tool objects go out as the file writes them (an i64 bound in a schema included).
  const catalogue = parseKeepingNumbers(catalogueText);
  const table = checkRoutes(JSON.parse(tableText));
  if (catalogue.schema_version !== "model-demand.mcp-catalogue.v1") {
    throw new Error(`${CATALOGUE}: unknown schema ${catalogue.schema_version}`);
  }
  return { catalogue, table };
}

/** A JSON-RPC error the SDK sends as it is (its own McpError prefixes the message). */
function rpcError(code, message) {
  return Object.assign(new Error(message), { code });
}

/** Status and body of `GET path?query` on this site: the models route decided by `route`, any other path fetched. */
async function answer(request, table, path, query) {
  if (path !== MODELS_PATH) {
    const response = await fetch(new URL(path, request.url));
    return { status: response.status, body: await response.text() };
  }
  const decision = route(query, table, "GET");
  const body = decision.file ? await siteText(request, decision.file) : await decisionBody(request, decision, table);
  // An `edge` site's list page comes as bytes; the tool result carries its text.
  return { status: decision.status, body: typeof body === "string" ? body : new TextDecoder().decode(body) };
}

/** An SDK server for one request, answering from the catalogue and the routing table. */
function mcpServer(request, { catalogue, table }, args) {
  const server = new Server(catalogue.server_info, { capabilities: CAPABILITIES, instructions: catalogue.instructions });
  // Unknown methods get rmcp's answer (the method as the message), not the SDK's "Method not found".
  server.fallbackRequestHandler = async (message) => {
    throw rpcError(-32601, message.method);
  };
  server.setRequestHandler(InitializeRequestSchema, (message) => ({
    protocolVersion: negotiatedVersion(message.params.protocolVersion),
    capabilities: CAPABILITIES,
    serverInfo: catalogue.server_info,
    instructions: catalogue.instructions,
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalogue.tools }));
  server.setRequestHandler(CallToolRequestSchema, async (message) => {
    const call = Object.hasOwn(catalogue.calls, message.params.name) ? catalogue.calls[message.params.name] : undefined;
    if (call === undefined) throw rpcError(-32602, "tool not found");
    // `args`: the arguments as written in the request (member order, numbers' text), read by lib/message.mjs.
    try {
      // The fields asked, the query sent and the cut answer, as src/mcp/server.rs makes them.
      return await callTool(call, catalogue, args, (path, query) => answer(request, table, path, query));
    } catch (error) {
      // Bounded, whatever the error quotes (a refusal never echoes unbounded input).
      return { content: [{ type: "text", text: String(error).slice(0, 300) }], isError: true };
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: catalogue.resources.map(({ path: _path, ...resource }) => resource),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (message) => {
    const { uri } = message.params;
    const resource = catalogue.resources.find((r) => r.uri === uri);
    if (resource === undefined) throw rpcError(-32002, `no resource ${quoteValue(uri, QUOTED_CHARS)}; see resources/list`);
    const response = await fetch(new URL(resource.path, request.url));
    const text = await response.text();
    if (response.status !== 200) throw rpcError(-32603, `the site answered ${resource.path} with ${response.status}`);
    return { contents: [{ uri, mimeType: resource.mimeType, text }] };
  });
  return server;
}

/** The SDK's schema of each method served (lib/message.mjs METHODS). */
const REQUEST_SCHEMAS = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
  "resources/list": ListResourcesRequestSchema,
  "resources/read": ReadResourceRequestSchema,
};

export default async function mcp(request, _context) {
  const screened = await screen(request);
  if (screened.response) return screened.response;
  // Params the SDK cannot read as its method's are refused as src/mcp/message.rs refuses the ones
  // rmcp cannot decode, not with the SDK's validation report.
  const { id, method } = screened.message;
  if (!REQUEST_SCHEMAS[method].safeParse(screened.message).success) {
    return jsonRpcError(200, -32602, `Invalid params: the params of ${method} are not of the shape the method takes`, id);
  }
  try {
    site ??= loadSite(request);
    const server = mcpServer(request, await site, screened.args);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    // The SDK wants both media types in Accept; this server never streams, so application/json
    // (checked above) is enough, and the request is handed on with both.
    const headers = new Headers(request.headers);
    headers.set("accept", "application/json, text/event-stream");
    headers.delete("content-length");
    const forwarded = new Request(request.url, { method: "POST", headers });
    const response = await transport.handleRequest(forwarded, { parsedBody: screened.message });
    await server.close();
    const answered = new Headers(response.headers);
    for (const [name, value] of Object.entries(ANSWER_HEADERS)) answered.set(name, value);
    return new Response(response.body, { status: response.status, headers: answered });
  } catch (error) {
    site = undefined;
    console.error(`mcp edge function: ${error}`);
    return jsonRpcError(500, -32603, "Internal error: the MCP server cannot answer now");
  }
}

export const config = { onError: "bypass" };
