// Every list answer of an `edge` site, assembled by the edge function's own module: for each
// sort, order, limit (1-100) and offset (0 to N + 1), the raw query goes through `route` and the
// decision through `assembleList`, exactly as netlify/edge-functions/lib/site.mjs does with the
// parts it fetched. Prints one line per answer, `sort order limit offset status sha256 bytes`, for
// tests/it/edge_vectors.rs to compare with the bytes the `full` layout writes (run as
// `node tests/edge/assemble_all.mjs SITE_DIR`). Kept outside netlify/edge-functions/.
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { assembleList, route } from "../../netlify/edge-functions/lib/query.mjs";

const site = process.argv[2];
if (!site) throw new Error("usage: node assemble_all.mjs SITE_DIR");
const table = JSON.parse(readFileSync(join(site, "_api/routes.json"), "utf8"));
if (!table.edge) throw new Error(`${site} is not an edge site`);
const read = (path) => new Uint8Array(readFileSync(join(site, path)));
const head = read(table.edge.head);
const records = new Map(Object.values(table.edge.orderings).map((o) => [o.file, read(o.file)]));

const lines = [];
for (const sort of table.sorts) {
  for (const order of table.orders) {
    for (let limit = table.limit_min; limit <= table.limit_max; limit += 1) {
      for (let offset = 0; offset <= table.total + 1; offset += 1) {
        const decision = route(`sort=${sort}&order=${order}&limit=${limit}&offset=${offset}`, table, "GET");
        if (!decision.assemble) throw new Error(`${sort} ${order} ${limit} ${offset}: ${JSON.stringify(decision)}`);
        const q = decision.assemble;
        const ordering = table.edge.orderings[`${q.sort}/${q.order}`];
        const body = assembleList(head, records.get(ordering.file), ordering.offsets, q);
        const digest = createHash("sha256").update(body).digest("hex");
        lines.push(`${sort} ${order} ${limit} ${offset} ${decision.status} ${digest} ${body.length}`);
      }
    }
  }
}
process.stdout.write(lines.join("\n") + "\n");
