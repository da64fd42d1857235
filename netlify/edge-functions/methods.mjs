// Netlify Edge Function: the JSON 405 of DESIGN §5 on every path for the methods the site does
// not answer. Netlify answers such a request to a static file with its own plain-text 405 and
// no `Allow` header; this function runs only for those methods (declared below), so GET and
// HEAD never invoke it. The body is the site's precomputed error file, the same bytes the
// preview server and the models function answer. If anything fails, it steps aside and
// Netlify's own 405 stands.

/** The precomputed body (src/netlify.rs, `error_file(ErrorCode::MethodNotAllowed)`). */
export const ERROR_FILE = "/_api/errors/method_not_allowed.json";

/** The headers `_headers` gives every JSON path, and the methods the site answers. */
export const HEADERS = {
  "Content-Type": "application/json",
  "Access-Control-Allow-Origin": "*",
  "Cache-Control": "public, max-age=0, must-revalidate",
  "X-Content-Type-Options": "nosniff",
  Allow: "GET, HEAD",
};

let body;

export default async function methods(request, _context) {
  // The declaration below keeps GET and HEAD away, but a function runs again on the path another
  // function rewrote to (netlify dev passes the declared paths without their methods), so the
  // method is checked here too: GET and HEAD go on to the CDN untouched.
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  if (new URL(request.url).pathname === "/mcp") return undefined;
  try {
    body ??= fetch(new URL(ERROR_FILE, request.url)).then((response) => {
      if (!response.ok) throw new Error(`${ERROR_FILE}: HTTP ${response.status}`);
      return response.text();
    });
    return new Response(await body, { status: 405, headers: HEADERS });
  } catch (error) {
    body = undefined;
    console.error(`methods edge function steps aside: ${error}`);
    return undefined;
  }
}

// Netlify's edge declarations accept these methods (GET and HEAD are served by the CDN itself);
// any other method gets Netlify's own answer.
export const config = {
  path: "/*",
  method: ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  // The MCP endpoint answers its own methods (mcp.mjs): POST, and OPTIONS for CORS.
  excludedPath: ["/mcp"],
  onError: "bypass",
};
