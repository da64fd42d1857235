// Reading one JSON-RPC message by the one rule of every transport (issue 41; docs/agents.md,
// "One answer per call"): this module mirrors src/mcp/message.rs, which stdio and the preview
// server's /mcp apply before rmcp, so the edge function answers every message as they do
// (tests/it/mcp_alike.rs holds the three to the same answers). A plain ES module with web
// standards only, so node's test runner and Deno run it alike.
//
// The text is read by a strict reader that keeps each number's text as written and refuses,
// with the request's id whenever it can be read, what JSON readers take differently: a member
// name given twice in one object, a lone surrogate escape, a number past the range of a double
// and nesting deeper than MAX_DEPTH. Then the envelope and the params of the methods served are
// checked, and a null `params`, `_meta` or `arguments` is absent.
import { quoteValue } from "./query.mjs";
import { JsonNumber, JsonObject } from "./tool_call.mjs";

/** The deepest nesting of arrays and objects read (`MAX_DEPTH`). */
export const MAX_DEPTH = 128;
/** The largest magnitude of a numeric id (`MAX_ID`): 2^53 - 1. */
export const MAX_ID = 9007199254740991n;
/** The methods served (`METHODS`). */
export const METHODS = ["initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/read"];
const QUOTED = 64;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** Thrown when the text is not JSON. */
class NotJson extends Error {}

/** The sentence of an unreadable thing (`Unreadable::sentence`). */
function sentence(problem) {
  if (problem.kind === "duplicate") return `Invalid Request: the member ${quoteValue(problem.name, QUOTED)} is given twice in one object`;
  if (problem.kind === "surrogate") {
    return "Invalid Request: a string holds a lone surrogate escape (\\ud800-\\udfff without its pair), which is no Unicode text";
  }
  if (problem.kind === "huge") return `Invalid Request: the number ${quoteValue(problem.text, QUOTED)} is past the range of a double`;
  return `Invalid Request: arrays and objects are nested deeper than ${MAX_DEPTH} levels`;
}

/** Reads `text` as one JSON value: {value, problem} (the first unreadable thing), or throws NotJson. */
export function readJson(text) {
  let at = 0;
  let problem;
  // Reading the value of the message's own `id` member, and whether it held a lone surrogate.
  let inId = false;
  let idLone = false;
  const note = (p) => {
    problem ??= p;
  };
  const fail = () => {
    throw new NotJson(`invalid JSON at ${at}`);
  };
  const skip = () => {
    while (at < text.length && " \t\n\r".includes(text[at])) at += 1;
  };
  const eat = (c) => {
    if (text[at] !== c) fail();
    at += 1;
  };
  const literal = (word, value) => {
    if (!text.startsWith(word, at)) fail();
    at += word.length;
    return value;
  };
  const number = () => {
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text);
    if (match === null) fail();
    at = NUMBER.lastIndex;
    return match[0];
  };
  const hex4 = () => {
    const hex = text.slice(at, at + 4);
    if (!/^[0-9A-Fa-f]{4}$/.test(hex)) fail();
    at += 4;
    return parseInt(hex, 16);
  };
  const string = () => {
    eat('"');
    let out = "";
    for (;;) {
      const start = at;
      while (at < text.length && text[at] !== '"' && text[at] !== "\\" && text.charCodeAt(at) >= 0x20) at += 1;
      out += text.slice(start, at);
      if (at >= text.length) fail();
      if (text[at] === '"') {
        at += 1;
        return out;
      }
      if (text[at] !== "\\") fail();
      at += 1;
      const escape = text[at];
      at += 1;
      const simple = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
      if (escape !== undefined && Object.hasOwn(simple, escape)) out += simple[escape];
      else if (escape === "u") {
        const unit = hex4();
        if (unit >= 0xd800 && unit <= 0xdbff) {
          let paired = false;
          if (text.startsWith("\\u", at)) {
            const back = at;
            at += 2;
            const low = hex4();
            if (low >= 0xdc00 && low <= 0xdfff) {
              out += String.fromCharCode(unit, low);
              paired = true;
            } else at = back;
          }
          if (!paired) {
            note({ kind: "surrogate" });
            idLone ||= inId;
            out += "\ufffd";
          }
        } else if (unit >= 0xdc00 && unit <= 0xdfff) {
          note({ kind: "surrogate" });
          idLone ||= inId;
          out += "\ufffd";
        } else out += String.fromCharCode(unit);
      } else fail();
    }
  };
  // An array or object past MAX_DEPTH, checked as JSON without recursion and not kept (`skip_nested`).
  const skipNested = () => {
    const open = [];
    for (;;) {
      skip();
      const c = text[at];
      let descended = false;
      if (c === "{") {
        at += 1;
        open.push(true);
        skip();
        if (text[at] === "}") {
          at += 1;
          open.pop();
        } else {
          string();
          skip();
          eat(":");
          descended = true;
        }
      } else if (c === "[") {
        at += 1;
        open.push(false);
        skip();
        if (text[at] === "]") {
          at += 1;
          open.pop();
        } else descended = true;
      } else if (c === '"') string();
      else if (c === "t") literal("true");
      else if (c === "f") literal("false");
      else if (c === "n") literal("null");
      else if (c === "-" || (c >= "0" && c <= "9")) number();
      else fail();
      if (descended) continue;
      for (;;) {
        if (open.length === 0) return;
        const object = open[open.length - 1];
        skip();
        if (text[at] === ",") {
          at += 1;
          if (object) {
            skip();
            string();
            skip();
            eat(":");
          }
          break;
        } else if (text[at] === "}" && object) {
          at += 1;
          open.pop();
        } else if (text[at] === "]" && !object) {
          at += 1;
          open.pop();
        } else fail();
      }
    }
  };
  const value = (depth) => {
    skip();
    const c = text[at];
    if ((c === "{" || c === "[") && depth > MAX_DEPTH) {
      note({ kind: "deep" });
      skipNested();
      return null;
    }
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
        const name = string();
        skip();
        eat(":");
        inId = depth === 1 && name === "id";
        const v = value(depth + 1);
        inId = false;
        if (object.entries.some(([n]) => n === name)) note({ kind: "duplicate", name });
        else object.entries.push([name, v]);
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
        items.push(value(depth + 1));
        skip();
        if (text[at] === ",") at += 1;
        else if (text[at] === "]") {
          at += 1;
          return items;
        } else fail();
      }
    }
    if (c === '"') return string();
    if (c === "t") return literal("true", true);
    if (c === "f") return literal("false", false);
    if (c === "n") return literal("null", null);
    if (c === "-" || (c >= "0" && c <= "9")) {
      const source = number();
      if (!Number.isFinite(Number(source))) note({ kind: "huge", text: source });
      return new JsonNumber(source);
    }
    return fail();
  };
  const result = value(1);
  skip();
  if (at !== text.length) fail();
  return { value: result, problem, idLone };
}

const kind = (v) => {
  if (v === null) return "null";
  if (typeof v === "boolean") return "a boolean";
  if (v instanceof JsonNumber) return "a number";
  if (typeof v === "string") return "a string";
  if (Array.isArray(v)) return "an array";
  return "an object";
};

/** The id when it can be read (`read_id`). */
function readId(id) {
  if (typeof id === "string") return id;
  if (id instanceof JsonNumber && /^-?[0-9]+$/.test(id.source)) {
    const n = BigInt(id.source);
    if (n <= MAX_ID && n >= -MAX_ID) return Number(n);
  }
  return undefined;
}

/** A read value as plain JavaScript for the SDK (numbers as JSON.parse reads them). */
export function plain(v) {
  if (v instanceof JsonNumber) return Number(v.source);
  if (v instanceof JsonObject) return Object.fromEntries(v.entries.map(([n, x]) => [n, plain(x)]));
  if (Array.isArray(v)) return v.map(plain);
  return v;
}

/**
 * Reads one message (`read` in src/mcp/message.rs). Returns {refused: {id, code, message}},
 * {nothing: true}, or {message, args}: the message as plain JavaScript for the SDK, and a tool
 * call's arguments as read (a JsonObject, numbers as written) or undefined.
 */
export function readMessage(text) {
  const refuse = (id, code, message) => ({ refused: { id: id ?? null, code, message } });
  let json;
  let problem;
  let idLone;
  try {
    ({ value: json, problem, idLone } = readJson(text));
  } catch (error) {
    if (error instanceof NotJson) return refuse(null, PARSE_ERROR, "Parse error: the message is not JSON");
    throw error;
  }
  if (Array.isArray(json)) return refuse(null, INVALID_REQUEST, "Invalid Request: JSON-RPC batches are not supported");
  if (!(json instanceof JsonObject)) return refuse(null, INVALID_REQUEST, `Invalid Request: a JSON-RPC message is an object, not ${kind(json)}`);
  const has = (name) => json.entries.some(([n]) => n === name);
  const idGiven = json.get("id");
  if (idGiven === undefined && has("method")) return { nothing: true };
  if (idGiven !== undefined && !has("method") && (has("result") || has("error"))) return { nothing: true };
  // An id holding a lone surrogate is not read.
  let id = idGiven === undefined || idLone ? undefined : readId(idGiven);
  if (problem !== undefined) {
    // An id given twice is not read.
    if (problem.kind === "duplicate" && problem.name === "id") id = undefined;
    return refuse(id, INVALID_REQUEST, sentence(problem));
  }
  if (id === undefined) {
    if (idGiven === undefined) return refuse(null, INVALID_REQUEST, "Invalid Request: a request needs an id and a method");
    const what = idGiven instanceof JsonNumber ? "that number" : kind(idGiven);
    return refuse(null, INVALID_REQUEST, `Invalid Request: the id must be a string or an integer of at most 2^53 - 1 in magnitude, not ${what}`);
  }
  const bad = (message) => refuse(id, INVALID_REQUEST, message);
  if (json.get("jsonrpc") !== "2.0") return bad('Invalid Request: jsonrpc must be "2.0"');
  const method = json.get("method");
  if (method === undefined) return bad("Invalid Request: a request needs an id and a method");
  if (typeof method !== "string") return bad(`Invalid Request: the method must be a string, not ${kind(method)}`);
  const given = json.get("params");
  let params;
  if (given === undefined || given === null) params = [];
  else if (given instanceof JsonObject) params = given.entries.slice();
  else return bad(`Invalid Request: params must be an object, not ${kind(given)}`);
  const invalid = (message) => refuse(id, INVALID_PARAMS, message);
  if (!METHODS.includes(method)) return refuse(id, METHOD_NOT_FOUND, `Method not found: ${quoteValue(method, QUOTED)}`);
  // A null member of params (`_meta`, `arguments`, `cursor`...) is absent.
  params = params.filter(([, v]) => v !== null);
  const param = (name) => params.find(([n]) => n === name)?.[1];
  const meta = param("_meta");
  if (meta !== undefined && !(meta instanceof JsonObject)) return invalid(`Invalid params: params._meta must be an object, not ${kind(meta)}`);
  // A progress token is a string or an integer, as an id is (the SDKs' own readers differ).
  const token = meta?.get("progressToken");
  if (token !== undefined && typeof token !== "string" && readId(token) === undefined) {
    return invalid("Invalid params: params._meta.progressToken must be a string or an integer of at most 2^53 - 1 in magnitude");
  }
  const needString = (name) => {
    const v = param(name);
    if (typeof v === "string") return undefined;
    if (v !== undefined) return invalid(`Invalid params: params.${name} of ${method} must be a string, not ${kind(v)}`);
    return invalid(`Invalid params: ${method} needs params.${name}, a string`);
  };
  let checked;
  if (method === "tools/call") {
    checked = needString("name");
    const args = param("arguments");
    if (checked === undefined && args !== undefined && !(args instanceof JsonObject)) {
      checked = invalid(`Invalid params: params.arguments of tools/call must be an object, not ${kind(args)}`);
    }
  } else if (method === "resources/read") checked = needString("uri");
  else if (method === "tools/list" || method === "resources/list") {
    const cursor = param("cursor");
    if (cursor !== undefined && typeof cursor !== "string") {
      checked = invalid(`Invalid params: params.cursor of ${method} must be a string, not ${kind(cursor)}`);
    }
  } else if (method === "initialize") {
    checked = needString("protocolVersion");
    if (checked === undefined && !(param("capabilities") instanceof JsonObject)) {
      checked = invalid("Invalid params: initialize needs params.capabilities, an object");
    }
    const info = param("clientInfo");
    if (checked === undefined && !(info instanceof JsonObject && typeof info.get("name") === "string" && typeof info.get("version") === "string")) {
      checked = invalid("Invalid params: initialize needs params.clientInfo, an object with a name and a version, both strings");
    }
  }
  if (checked !== undefined) return checked;
  const message = { jsonrpc: "2.0", id, method };
  if (params.length > 0 || method === "tools/call") message.params = Object.fromEntries(params.map(([n, v]) => [n, plain(v)]));
  const args = method === "tools/call" ? param("arguments") : undefined;
  return { message, args };
}
