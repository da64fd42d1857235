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
// request's own text by `parseJsonFaithfully`, which keeps member order, each number's source
// text and strings as JSON.parse decodes them.

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

const WHITESPACE = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9A-Fa-f]{4}))*"/y;

/**
 * Parses JSON text into plain values, except objects ([`JsonObject`]) and numbers
 * ([`JsonNumber`]). Throws a SyntaxError on text JSON.parse would refuse.
 */
export function parseJsonFaithfully(text) {
  let at = 0;
  const skip = () => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.exec(text);
    at = WHITESPACE.lastIndex;
  };
  const fail = () => {
    throw new SyntaxError(`invalid JSON at ${at}`);
  };
  const token = (pattern) => {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (match === null) fail();
    at = pattern.lastIndex;
    return match[0];
  };
  const literal = (word, value) => {
    if (!text.startsWith(word, at)) fail();
    at += word.length;
    return value;
  };
  // Depth is bounded by the request size limit (64 KiB), so recursion cannot run away.
  const value = () => {
    skip();
    const c = text[at];
    if (c === "{") {
      at += 1;
      const object = new JsonObject();
      skip();
      if (text[at] === "}") {
        at += 1;
        return object;
      }
      for (;;) {
        skip();
        const name = JSON.parse(token(STRING));
        skip();
        if (text[at] !== ":") fail();
        at += 1;
        object.set(name, value());
        skip();
        if (text[at] === ",") at += 1;
        else if (text[at] === "}") {
          at += 1;
          return object;
        } else fail();
      }
    }
    if (c === "[") {
      at += 1;
      const items = [];
      skip();
      if (text[at] === "]") {
        at += 1;
        return items;
      }
      for (;;) {
        items.push(value());
        skip();
        if (text[at] === ",") at += 1;
        else if (text[at] === "]") {
          at += 1;
          return items;
        } else fail();
      }
    }
    if (c === '"') return JSON.parse(token(STRING));
    if (c === "t") return literal("true", true);
    if (c === "f") return literal("false", false);
    if (c === "n") return literal("null", null);
    return new JsonNumber(token(NUMBER));
  };
  const result = value();
  skip();
  if (at !== text.length) fail();
  return result;
}

const U64_MAX = 18446744073709551615n;
const I64_MIN = -9223372036854775808n;
const TWO_POW_53 = 9007199254740992;

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

/** An argument's text in the query (`text` in src/mcp/tools.rs). */
export function argumentText(value) {
  if (typeof value === "string") return value;
  if (value instanceof JsonNumber) {
    const n = serdeNumber(value.source);
    if (n.integer !== undefined) return n.integer.toString();
    if (Number.isInteger(n.float) && Math.abs(n.float) < TWO_POW_53) return String(n.float === 0 ? 0 : n.float);
    return formatFloat(n.float);
  }
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
