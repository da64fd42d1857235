// Runs Netlify's own redirect engine (npm package netlify-redirector, the matcher `netlify dev`
// uses) over a _redirects file. Input on stdin: {"rules": "<_redirects text>", "requests":
// [{"path": "/api/v1/models", "query": "sort=x"}]}. Output: one {to, status, force} or null per
// request, as a JSON array. Usage: node match.mjs NODE_MODULES_DIR
import { createRequire } from "node:module";
import { resolve } from "node:path";

const require = createRequire(`${resolve(process.argv[2])}/`);
const redirector = require("netlify-redirector");
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { rules, requests } = JSON.parse(input);
const matcher = await redirector.parsePlain(rules, {
  jwtSecret: "unused",
  jwtRoleClaim: "app_metadata.authorization.roles",
});
const results = requests.map(({ path, query }) => {
  const rule = matcher.match({
    scheme: "https",
    host: "model-demand.example",
    path,
    query,
    getHeader: () => "",
    getCookie: () => "",
  });
  return rule ? { to: rule.to, status: rule.status, force: Boolean(rule.force) } : null;
});
process.stdout.write(JSON.stringify(results));
