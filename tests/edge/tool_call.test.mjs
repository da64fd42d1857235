// The edge function's tool calls (lib/tool_call.mjs: callTool, readCall, toolResult) against the results
// the Rust server gave through the preview server's /mcp. tests/it/agents.rs builds the small site,
// writes tool_vectors.json beside it and runs this file with EDGE_FIXTURE naming that directory.
// The site's answers are read as the edge function reads them: the routing table's decision
// (lib/query.mjs) and the file it names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pastEndBody, route } from "../../netlify/edge-functions/lib/query.mjs";
import { readJson } from "../../netlify/edge-functions/lib/message.mjs";
import { callTool, parseKeepingNumbers } from "../../netlify/edge-functions/lib/tool_call.mjs";

const fixture = process.env.EDGE_FIXTURE;
assert.ok(fixture, "EDGE_FIXTURE must name the fixture directory");
const { about_file: aboutFile, vectors } = JSON.parse(readFileSync(join(fixture, "tool_vectors.json"), "utf8"));
const site = join(fixture, "site");
const read = (path) => readFileSync(join(site, path.replace(/^\//, "")), "utf8");
const table = JSON.parse(read("_api/routes.json"));
const catalogue = parseKeepingNumbers(read("_api/mcp.json"));

/** Status and body of GET path?query on the built site, as the edge function answers it. */
function answer(path, query) {
  if (path === "/api/v1/about") return { status: 200, body: read(aboutFile) };
  if (path !== "/api/v1/models") {
    // Any other path is a static file, or the CDN's 404.
    const file = join(site, path.replace(/^\//, ""));
    return existsSync(file) ? { status: 200, body: readFileSync(file, "utf8") } : { status: 404, body: "Not Found" };
  }
  const decision = route(query, table, "GET");
  if (decision.file) return { status: decision.status, body: read(decision.file) };
  if (decision.errorFile) return { status: decision.status, body: read(decision.errorFile) };
  if (decision.pastEnd) {
    const { file, query: q, total } = decision.pastEnd;
    return { status: decision.status, body: pastEndBody(read(file), q, total) };
  }
  return { status: decision.status, body: decision.body };
}

for (const v of vectors) {
  test(`${v.tool} ${v.arguments}`, async () => {
    const call = catalogue.calls[v.tool];
    const { value: args, problem } = readJson(v.arguments);
    assert.equal(problem, undefined, "a vector's arguments are plain JSON");
    const result = await callTool(call, catalogue, args, async (path, query) => answer(path, query));
    assert.equal(result.content[0].text, v.result.content[0].text);
    assert.equal(result.isError, v.result.isError);
    assert.equal(result.structuredContent !== undefined, v.result.structuredContent !== undefined);
    if (result.structuredContent !== undefined) {
      assert.equal(JSON.stringify(result.structuredContent), JSON.stringify(v.result.structuredContent));
    }
  });
}
