// The edge function's CPU per list answer (DESIGN §8.1: at most 5 ms at N = 100, against
// Netlify's 50 ms), under Deno as Netlify runs it. For an `edge` site on disk: a cold isolate
// (parse the routing table, take the parts' bytes, answer the first request) and warm answers
// (route + assembleList + the SHA-256 ETag, as models.mjs does per request), over every
// (sort, order) at limits 25 and 100 and offsets across the list. Network time is not CPU time:
// the parts are read from disk before the clock starts, as a fetch's bytes would arrive.
// Usage: deno run --allow-read benches/edge_cpu.mjs SITE_DIR
import { assembleList, etagOf, route } from "../netlify/edge-functions/lib/query.mjs";

const site = Deno.args[0];
const tableText = await Deno.readTextFile(`${site}/_api/routes.json`);
const bytesOf = async (path) => new Uint8Array(await Deno.readFile(`${site}/${path}`));
const preTable = JSON.parse(tableText);
const parts = new Map();
parts.set(preTable.edge.head, await bytesOf(preTable.edge.head));
for (const o of Object.values(preTable.edge.orderings)) parts.set(o.file, await bytesOf(o.file));

async function answer(table, raw) {
  const decision = route(raw, table, "GET");
  const q = decision.assemble;
  const ordering = table.edge.orderings[`${q.sort}/${q.order}`];
  const body = assembleList(parts.get(table.edge.head), parts.get(ordering.file), ordering.offsets, q);
  return [body.length, await etagOf(body)];
}

const t0 = performance.now();
const table = JSON.parse(tableText);
await answer(table, "sort=tokens_30d&order=desc&limit=100&offset=0");
const cold = performance.now() - t0;

const queries = [];
for (const sort of table.sorts) for (const order of table.orders) for (const limit of [25, 100]) {
  for (let offset = 0; offset <= table.total; offset += Math.max(1, Math.floor(table.total / 7))) {
    queries.push(`sort=${sort}&order=${order}&limit=${limit}&offset=${offset}`);
  }
}
const times = [];
let bytes = 0;
for (let round = 0; round < 5; round += 1) {
  for (const raw of queries) {
    const start = performance.now();
    const [length] = await answer(table, raw);
    times.push(performance.now() - start);
    bytes += length;
  }
}
times.sort((a, b) => a - b);
const at = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(3);
console.log(`N=${table.total} cold=${cold.toFixed(2)}ms warm: median=${at(0.5)}ms p99=${at(0.99)}ms max=${at(1)}ms over ${times.length} answers (${(bytes / times.length / 1000).toFixed(1)} kB each)`);
