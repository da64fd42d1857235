// A tool call's arguments as the raw query string a client of the API would send, exactly as
// `model-demand mcp` makes it (src/mcp/tools.rs, `raw_query` and `text`): every argument as
// `name=value` in the order the client wrote them, a null one left out, `first` (get_model's
// model_id) first and empty when absent, strings as they are, integers in plain digits (also
// 25.0), anything else as serde_json would write it, percent-encoded as
// `crate::query::percent_encode` does. A plain ES module with web standards only (no SDK, no
// Netlify or Deno API), so node's test runner and Deno run it alike.
//
// JSON.parse cannot give what the Rust side sees: it reorders integer-like keys, rounds
// integers past 2^53 and forgets how a number was written. So the arguments are read from the
// request's own text by the one strict reader of every message (`readJson` in message.mjs),
// which keeps member order, each number's source text and strings as JSON.parse decodes them,
// into the JsonObject and JsonNumber defined here.

import { percentDecode, quoteValue } from "./query.mjs";

/** A JSON number as written in the request, kept as its source text. */
export class JsonNumber {
  constructor(source) {
    this.source = source;
  }
}

/** A JSON object with its members in the order written (a repeated name keeps its first place and its last value, as serde_json's ordered map does). */
export class JsonObject {
  constructor() {
    this.entries = [];
  }

  set(name, value) {
    const at = this.entries.findIndex(([n]) => n === name);
    if (at < 0) this.entries.push([name, value]);
    else this.entries[at][1] = value;
  }

  get(name) {
    const entry = this.entries.find(([n]) => n === name);
    return entry === undefined ? undefined : entry[1];
  }
}

const U64_MAX = 18446744073709551615n;
const I64_MIN = -9223372036854775808n;

/** A number as serde_json holds it: an exact u64 or i64 when written as one in range, else an f64. */
function serdeNumber(source) {
  if (/^-?[0-9]+$/.test(source)) {
    const n = BigInt(source);
    if (n >= I64_MIN && n <= U64_MAX) return { integer: n };
  }
  return { float: Number(source) };
}

/**
 * An f64 as serde_json writes it (zmij): the shortest digits that read back as the same f64,
 * in plain notation when the decimal exponent is from -5 to 15 (a whole number with ".0"), else
 * as `d.ddde+X` / `d.ddde-X`.
 */
export function formatFloat(f) {
  if (!Number.isFinite(f)) return String(f);
  if (Object.is(f, -0)) return "-0.0";
  const [mantissa, exponentText] = f.toExponential().split("e");
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = negative ? "-" : "";
  if (exponent >= -5 && exponent <= 15) {
    if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
    const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
    const fraction = digits.slice(exponent + 1);
    return `${sign}${whole}.${fraction === "" ? "0" : fraction}`;
  }
  const head = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  return `${sign}${head}e${exponent < 0 ? "-" : "+"}${Math.abs(exponent)}`;
}

/** A parsed value as serde_json writes it, compact. */
export function serdeJsonText(value) {
  if (value instanceof JsonNumber) {
    const n = serdeNumber(value.source);
    return n.integer !== undefined ? n.integer.toString() : formatFloat(n.float);
  }
  if (value instanceof JsonObject) {
    return `{${value.entries.map(([name, v]) => `${JSON.stringify(name)}:${serdeJsonText(v)}`).join(",")}}`;
  }
  if (Array.isArray(value)) return `[${value.map(serdeJsonText).join(",")}]`;
  return JSON.stringify(value);
}

/**
 * The integer a number's text denotes exactly, as plain digits, or undefined when its written
 * value has a fraction (`exact_integer`).
 */
export function exactInteger(text) {
  const negative = text.startsWith("-");
  const unsigned = negative ? text.slice(1) : text;
  const e = unsigned.search(/[eE]/);
  const mantissa = e < 0 ? unsigned : unsigned.slice(0, e);
  const exponentText = e < 0 ? "0" : unsigned.slice(e + 1);
  const [whole, fraction = ""] = mantissa.split(".");
  const digits = `${whole}${fraction}`.replace(/^0+/, "");
  if (digits === "") return "0";
  const significant = digits.replace(/0+$/, "");
  const trailing = digits.length - significant.length;
  const parsed = Number(exponentText.replace(/^\+/, ""));
  const exponent = Math.min(Math.max(Number.isFinite(parsed) ? parsed : exponentText.startsWith("-") ? -100000 : 100000, -100000), 100000);
  const scale = exponent - fraction.length + trailing;
  if (scale < 0) return undefined;
  return `${negative ? "-" : ""}${significant}${"0".repeat(scale)}`;
}

/** An argument's text in the query (`text` in src/mcp/tools.rs). */
export function argumentText(value) {
  if (typeof value === "string") return value;
  // A number as written: the integer it denotes exactly, else its text (src/mcp/message.rs).
  if (value instanceof JsonNumber) return exactInteger(value.source) ?? value.source;
  return serdeJsonText(value);
}

const encoder = new TextEncoder();
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** Percent-encodes as `crate::query::percent_encode`: unreserved ASCII kept, every other byte as %XX. */
export function percentEncode(text) {
  let out = "";
  for (const byte of encoder.encode(text)) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && UNRESERVED.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * The raw query string of a tool call (`raw_query` in src/mcp/tools.rs): `args` is a
 * [`JsonObject`] (or undefined/null for no arguments), `first` the name sent first.
 */
export function toolQuery(args, first) {
  const entries = args instanceof JsonObject ? args.entries : [];
  const pairs = [];
  if (first) {
    const value = args instanceof JsonObject ? args.get(first) : undefined;
    const text = value === undefined || value === null ? "" : argumentText(value);
    pairs.push(`${percentEncode(first)}=${percentEncode(text)}`);
  }
  for (const [name, value] of entries) {
    if (value === null || name === first) continue;
    pairs.push(`${percentEncode(name)}=${percentEncode(argumentText(value))}`);
  }
  return pairs.join("&");
}

/**
 * JSON.parse, except that a number JSON.stringify would write differently from its source text
 * (an integer past 2^53, `1.0`, `1e400`) is kept as that text (JSON.rawJSON), so the catalogue's
 * schemas and the API's bodies go out in the MCP answers as the files write them. Where the
 * runtime lacks JSON.rawJSON (node before 21), the numbers are JSON.parse's.
 */
export function parseKeepingNumbers(text) {
  if (typeof JSON.rawJSON !== "function") return JSON.parse(text);
  return JSON.parse(text, (_key, value, context) =>
    typeof value === "number" && context?.source !== undefined && String(value) !== context.source
      ? JSON.rawJSON(context.source)
      : value
  );
}

// ---------------------------------------------------------------------------------------------
// What a call may ask less of, cut from the API's own bytes: src/projection.rs and
// src/mcp/tools.rs (`read_call`, `tool_result`), rule for rule and message for message; the
// vectors of tests/it/agents.rs hold the two to the same bytes.

/** The one member of a `fields` list that asks for everything. */
export const ALL = "*";
/** The argument that shapes an answer instead of going into the query. */
export const FIELDS = "fields";

const SPACE = new Set([" ", "\t", "\n", "\r"]);

function skipSpace(text, at) {
  while (at < text.length && SPACE.has(text[at])) at += 1;
  return at;
}

/** The end of the JSON value whose text starts at `start` (`value_end` in src/projection.rs). */
function valueEnd(text, start) {
  const bad = () => new Error(`the site's answer is not JSON at byte ${start}`);
  const c = text[start];
  if (c === undefined) throw bad();
  if (c !== '"' && c !== "{" && c !== "[") {
    let at = start;
    while (at < text.length && !",}] \t\n\r".includes(text[at])) at += 1;
    return at;
  }
  let at = start;
  let depth = 0;
  let inString = false;
  while (at < text.length) {
    const b = text[at];
    at += 1;
    if (inString) {
      if (b === "\\") at += 1;
      else if (b === '"') {
        inString = false;
        if (depth === 0) return at;
      }
      continue;
    }
    if (b === '"') inString = true;
    else if (b === "{" || b === "[") depth += 1;
    else if (b === "}" || b === "]") {
      depth -= 1;
      if (depth < 0) throw bad();
      if (depth === 0) return at;
    }
  }
  throw bad();
}

/** The members of a JSON object's text: [name as written, value's text], in order. */
export function members(object) {
  let at = skipSpace(object, 0);
  const bad = () => new Error(`the site's answer is not a JSON object at byte ${at}`);
  if (object[at] !== "{") throw bad();
  at = skipSpace(object, at + 1);
  const found = [];
  if (object[at] === "}") return found;
  for (;;) {
    if (object[at] !== '"') throw bad();
    const nameEnd = valueEnd(object, at);
    const name = object.slice(at + 1, nameEnd - 1);
    at = skipSpace(object, nameEnd);
    if (object[at] !== ":") throw bad();
    const start = skipSpace(object, at + 1);
    const end = valueEnd(object, start);
    found.push([name, object.slice(start, end)]);
    at = skipSpace(object, end);
    if (object[at] === ",") at = skipSpace(object, at + 1);
    else if (object[at] === "}") return found;
    else throw bad();
  }
}

/** The items of a JSON array's text, in order. */
export function items(array) {
  let at = skipSpace(array, 0);
  const bad = () => new Error(`the site's answer is not a JSON array at byte ${at}`);
  if (array[at] !== "[") throw bad();
  at = skipSpace(array, at + 1);
  const found = [];
  if (array[at] === "]") return found;
  for (;;) {
    const end = valueEnd(array, at);
    found.push(array.slice(at, end));
    at = skipSpace(array, end);
    if (array[at] === ",") at = skipSpace(array, at + 1);
    else if (array[at] === "]") return found;
    else throw bad();
  }
}

/** A refusal of the arguments: its text is the tool error's. */
class Refused extends Error {}

/** The most characters of a client's name a message quotes back (`QUOTED_CHARS` in src/projection.rs). */
export const QUOTED_CHARS = 64;

/** A client's name quoted for a message, cut to QUOTED_CHARS characters (`quoted` in src/projection.rs). */
const quoted = (name) => quoteValue(name, QUOTED_CHARS);

/** Reads a `fields` argument (`read_fields`): undefined when absent or null, "*" for ["*"], else the names. */
export function readFields(argument, hint) {
  if (argument === undefined || argument === null) return undefined;
  const refuse = (what) => {
    throw new Refused(`${what}; ${hint}`);
  };
  if (!Array.isArray(argument)) refuse('fields must be an array of field names, or ["*"] for every member');
  if (argument.length === 0) refuse('fields is empty: name at least one field, or ["*"] for every member');
  const names = [];
  argument.forEach((item, i) => {
    if (typeof item !== "string") refuse(`fields[${i}] is not a string`);
    if (names.includes(item)) refuse(`fields names ${quoted(item)} more than once`);
    names.push(item);
  });
  if (names.includes(ALL)) {
    if (names.length > 1) refuse('"*" stands alone: ["*"] asks for every member');
    return ALL;
  }
  return names;
}

/** The hint of `list_models` refusals: the allowed names. */
export function recordHint(allowed) {
  return `allowed names: ${allowed.join(", ")}; or ["*"] for every member`;
}

/** Checks `list_models` names (`check_record_fields`). */
export function checkRecordFields(names, allowed) {
  const hint = recordHint(allowed);
  const q = quoted;
  for (const name of names) {
    if (allowed.includes(name)) continue;
    // Kept whole: a value object, none of whose own paths is allowed; below `facts` a name not allowed is unknown.
    const whole = allowed.find((a) => name.startsWith(`${a}.`) && !allowed.some((other) => other.startsWith(`${a}.`)));
    if (whole !== undefined) {
      throw new Refused(
        `${q(name)} is inside ${q(whole)}, which is kept whole (its value with its unit, state, reason and source) so that an unknown stays unknown: ask for ${q(whole)}; ${hint}`
      );
    }
    throw new Refused(`unknown field ${q(name)}; ${hint}`);
  }
  for (const name of names) {
    const outer = names.find((o) => name.startsWith(`${o}.`));
    if (outer !== undefined) throw new Refused(`${q(name)} is already inside ${q(outer)}: name one of them; ${hint}`);
  }
}

/** A selection tree of names: Map of member name to null (whole) or a sub-selection. */
function selectionOf(names) {
  const root = new Map();
  for (const name of names) {
    let at = root;
    const parts = name.split(".");
    for (let i = 0; i < parts.length; i += 1) {
      const last = i + 1 === parts.length;
      if (!at.has(parts[i])) at.set(parts[i], last ? null : new Map());
      const sub = at.get(parts[i]);
      if (sub === null || last) break;
      at = sub;
    }
  }
  return root;
}

function cut(selection, text) {
  const kept = [];
  for (const [name, value] of members(text)) {
    if (!selection.has(name)) continue;
    const sub = selection.get(name);
    kept.push(`"${name}":${sub !== null && value.startsWith("{") ? cut(sub, value) : value}`);
  }
  return `{${kept.join(",")}}`;
}

/** The model response `body` with each record cut to `names` (`project_records`). */
export function projectRecords(body, names) {
  const selection = selectionOf(names);
  const out = members(body).map(([name, value]) =>
    name === "models"
      ? `"fields":${JSON.stringify(names)},"models":[${items(value).map((r) => cut(selection, r)).join(",")}]`
      : `"${name}":${value}`
  );
  return `{${out.join(",")}}`;
}

const DEFINITIONS = "field_definitions";
const RECORD_PREFIX = "models[].";

const namedPath = (path) => (path.startsWith(RECORD_PREFIX) ? path.slice(RECORD_PREFIX.length) : path);
const asks = (name, path) =>
  [path, namedPath(path)].some((p) => p === name || p.startsWith(`${name}.`) || p.startsWith(`${name}[]`));

function definitionsOf(array, names) {
  const paths = items(array).map((item) => {
    const member = members(item).find(([n]) => n === "path");
    let path = "";
    try {
      path = member === undefined ? "" : JSON.parse(member[1]);
    } catch {
      path = "";
    }
    return [typeof path === "string" ? path : "", item];
  });
  for (const name of names) {
    if (!paths.some(([path]) => asks(name, path))) {
      const tops = [];
      for (const [path] of paths) {
        const top = namedPath(path).split(/[.[]/)[0];
        if (!tops.includes(top)) tops.push(top);
      }
      throw new Refused(
        `no field definition for ${quoted(name)}; name fields as list_models does (tokens_30d, facts.total_parameters) or as the contract's paths (freshness.state), starting with one of: ${tops.join(", ")}; or ["*"] for the whole contract`
      );
    }
  }
  return `[${paths.filter(([path]) => names.some((n) => asks(n, path))).map(([, item]) => item).join(",")}]`;
}

/** The contract without its definitions (`names` undefined) or with those of `names` (`project_contract`). */
export function projectContract(body, names) {
  const out = [];
  for (const [name, value] of members(body)) {
    if (name !== DEFINITIONS) out.push(`"${name}":${value}`);
    else if (names !== undefined) out.push(`"${name}":${definitionsOf(value, names)}`);
  }
  return `{${out.join(",")}}`;
}

/** The bytes of a text as a JSON string's contents, escapes counted (`escaped_len`). */
function escapedLength(text) {
  let escaped = 0;
  for (const c of text) {
    const code = c.codePointAt(0);
    if ('"\\\b\f\n\r\t'.includes(c)) escaped += 2;
    else if (code < 0x20) escaped += 6;
    else escaped += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return escaped;
}

/** The bytes of a tool result as sent, each text block once (`received_bytes`). */
export function receivedBytes(blocks) {
  const inner = blocks.reduce((sum, b) => sum + 25 + escapedLength(b), 0);
  return 12 + inner + Math.max(blocks.length - 1, 0) + 18;
}

/** How to ask a tool for a smaller answer (`how_to_ask_less`). */
export function howToAskLess(shape) {
  if (shape === "records") return 'a smaller limit, or fewer fields (not ["*"])';
  if (shape === "contract") return "fewer fields; the whole contract is the resource model-demand:///api/v1/about";
  return "nothing smaller exists for this call";
}

/** The refusal of a result over the limit (`too_large`). */
export function tooLarge(bytes, limit, how) {
  return `This answer would be ${bytes} bytes as sent, over this server's limit of ${limit} bytes, so it is refused rather than cut; ask for less: ${how}.`;
}

/** A tool error with this text and no structured content. */
export function refusal(text) {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * The query string and what is asked of the answer (`read_call`): `args` a JsonObject (or
 * undefined), `call` the catalogue's call, `recordFields` the catalogue's. Returns {query, asked}
 * or {refused: text}. `asked` is {kind: "body"}, {kind: "records", names} or {kind: "contract", names}.
 */
export function readCall(call, recordFields, args) {
  const entries = args instanceof JsonObject ? args.entries.map(([n, v]) => [n, v]) : [];
  const given = new JsonObject();
  for (const [name, value] of entries) given.set(name, value);
  let fields;
  if (call.shape === "records" || call.shape === "contract") {
    fields = given.get(FIELDS);
    given.entries = given.entries.filter(([n]) => n !== FIELDS);
  }
  let asked;
  try {
    if (call.shape === "records") {
      const read = readFields(fields, recordHint(recordFields.allowed));
      if (read === ALL) asked = { kind: "body" };
      else if (read === undefined) asked = { kind: "records", names: recordFields.default };
      else {
        checkRecordFields(read, recordFields.allowed);
        asked = { kind: "records", names: read };
      }
    } else if (call.shape === "contract") {
      const read = readFields(fields, 'or ["*"] for the whole contract');
      asked = read === ALL ? { kind: "body" } : { kind: "contract", names: read };
    } else asked = { kind: "body" };
  } catch (error) {
    if (error instanceof Refused) return { refused: error.message };
    throw error;
  }
  // An array or object has no text of its own in a query: refused, naming the argument (`nested_argument`).
  const nested = given.entries.find(([, v]) => Array.isArray(v) || v instanceof JsonObject);
  if (nested !== undefined) {
    const [name, v] = nested;
    const except = call.shape === "records" || call.shape === "contract" ? " (and fields, a list of names)" : "";
    return {
      refused: `the argument ${quoted(name)} is ${Array.isArray(v) ? "an array" : "an object"}: this tool's arguments are strings or numbers${except}`,
    };
  }
  for (const [name, value] of Object.entries(call.defaults ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const present = given.get(name);
    if (present === undefined || present === null) given.set(name, value);
  }
  return { query: toolQuery(given, call.first), asked };
}

/** The hint of a percent-encoded model_id not found (`percent_hint` in src/mcp/tools.rs), or undefined. */
export function percentHint(call, args) {
  const first = call.first;
  if (!first || !(args instanceof JsonObject)) return undefined;
  const id = args.get(first);
  if (typeof id !== "string" || !/%[0-9A-Fa-f]{2}/.test(id)) return undefined;
  const decoded = percentDecode(id, false);
  const here = decoded.value !== undefined && decoded.value !== id ? ` (here ${quoted(decoded.value)})` : "";
  return `${first} ${quoted(id)} looks percent-encoded: tool arguments take the ID as written${here}, not percent-encoded as in a URL`;
}

/** The tool result of an answer `{status, body}` (`tool_result` in src/mcp/tools.rs): the JSON once, as text. */
export function toolResult({ status, body }, shape, asked, maxBytes, hint) {
  const notJson = () => refusal(`the site answered ${status} with a body that is not the API's JSON`);
  let text = body;
  try {
    if (status === 200 && asked.kind === "records") text = projectRecords(body, asked.names);
    else if (status === 200 && asked.kind === "contract") text = projectContract(body, asked.names);
  } catch (error) {
    if (error instanceof Refused) return refusal(error.message);
    return notJson();
  }
  let parsed;
  try {
    parsed = parseKeepingNumbers(text);
  } catch {
    return notJson();
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return notJson();
  const blocks = status === 404 && hint !== undefined ? [text, hint] : [text];
  const bytes = receivedBytes(blocks);
  if (bytes > maxBytes) return refusal(tooLarge(bytes, maxBytes, howToAskLess(shape)));
  return { content: blocks.map((t) => ({ type: "text", text: t })), isError: status !== 200 };
}

/** The refusal of a served model whose precomputed file the site lacks (`NO_HISTORY`). */
export const NO_HISTORY =
  "this site serves the model but has no precomputed answer of this tool for it: it was built by an older version of model-demand";

/** Lower-case hex SHA-256 of a text's UTF-8 bytes (`crate::query::model_key`). */
async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The precomputed file a history call reads (`history_target`), or undefined. */
export async function historyTarget(call, args) {
  if (call.shape !== "history" || !call.file_dir || !call.first) return undefined;
  if (!(args instanceof JsonObject) || args.entries.length !== 1) return undefined;
  const id = args.get(call.first);
  if (typeof id !== "string" || id === "") return undefined;
  return `${call.file_dir}${await sha256Hex(id)}.json`;
}

/**
 * A whole tool call (`call_tool` in src/mcp/server.rs): `args` as message.mjs's readJson read
 * them, `get(path, query)` the site's `{status, body}` for a path (and query).
 */
export async function callTool(call, catalogue, given, get) {
  // A null argument counts as absent, for every rule below (issue 41).
  const args = new JsonObject();
  if (given instanceof JsonObject) for (const [name, value] of given.entries) if (value !== null) args.set(name, value);
  const read = readCall(call, catalogue.record_fields, args);
  if (read.refused !== undefined) return refusal(read.refused);
  const max = catalogue.max_result_bytes;
  const file = await historyTarget(call, args);
  if (file !== undefined) {
    const answered = await get(file, "");
    if (answered.status === 200) return toolResult(answered, call.shape, read.asked, max);
  }
  const answered = await get(call.path, read.query);
  if (call.shape === "history" && answered.status === 200) return refusal(NO_HISTORY);
  return toolResult(answered, call.shape, read.asked, max, percentHint(call, args));
}
