// The edge function's /mcp (netlify/edge-functions/mcp.mjs, on the official TypeScript SDK) under
// node, for the differential test of the three MCP transports (tests/it/mcp_alike.rs). That test
// lays out the edge functions as Netlify builds them in EDGE_PROJECT (node_modules linked) and
// writes EDGE_FIXTURE/alike.json: {about_file, sites: {name: directory}, messages: [text]}. Each
// message is POSTed to the handler once per site, with Netlify's side played by a `fetch` that
// serves the site's files; the answers ({status, body} per message) go to
// EDGE_FIXTURE/edge_answers.json as {name: [answers]}.
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const fixture = process.env.EDGE_FIXTURE;
const project = process.env.EDGE_PROJECT;
if (!fixture || !project) throw new Error("EDGE_FIXTURE and EDGE_PROJECT must be set");
const { about_file: aboutFile, sites, messages } = JSON.parse(readFileSync(join(fixture, "alike.json"), "utf8"));
const ORIGIN = "https://model-demand.example";
const handlerUrl = pathToFileURL(join(project, "netlify/edge-functions/mcp.mjs")).href;

/** Netlify's side: a site's static files by decoded path, the contract at its rewrite, else a 404. */
function standIn(dir) {
  return async (input) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    let path = decodeURIComponent(url.pathname);
    if (path === "/api/v1/about") path = `/${aboutFile}`;
    const file = join(dir, path);
    if (!path.includes("..") && existsSync(file) && statSync(file).isFile()) {
      return new Response(readFileSync(file), { status: 200 });
    }
    return new Response("Not Found", { status: 404 });
  };
}

const answers = {};
for (const [name, dir] of Object.entries(sites)) {
  globalThis.fetch = standIn(dir);
  // A fresh module: its catalogue and routing table are read from this site.
  const { default: handler } = await import(`${handlerUrl}?site=${name}`);
  const seen = [];
  for (const body of messages) {
    const request = new Request(`${ORIGIN}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body,
    });
    const response = await handler(request, {});
    seen.push({ status: response.status, body: await response.text() });
  }
  answers[name] = seen;
}
writeFileSync(join(fixture, "edge_answers.json"), JSON.stringify(answers));
