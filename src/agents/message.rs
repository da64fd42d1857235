//! Reading one JSON-RPC message, by one rule for every transport (issue 41; docs/agents.md,
//! "One answer per call"): stdio and the preview server's `/mcp` read each line or body here
//! before rmcp sees it, and the edge function reads its bodies by the same rule
//! (`netlify/edge-functions/lib/message.mjs`, which mirrors this file; the differential test
//! `tests/it/mcp_alike.rs` holds the three to the same answers).
//!
//! The text is read by a strict JSON reader of its own, which keeps each number's text as
//! written and refuses, with the request's id whenever it can be read, what JSON readers take
//! differently: a member name given twice in one object, a lone surrogate escape, a number past
//! the range of a double (`1e400`) and nesting deeper than [`MAX_DEPTH`]. Then the message's
//! envelope and the params of the methods served are checked, a null `params`, `_meta` or
//! `arguments` is taken as absent, and each number among a tool call's arguments becomes what
//! it was written as: an integer when its written value is one exactly (`25`, `25.0`, `2.5e1`),
//! else its text as written (`13.000000000000001`), which the API then refuses as a client's.
//! A message passing all of it is handed on; rmcp decides the rest.

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, RequestId};
use serde_json::{Map, Number, Value};

use crate::query::quote_value;

/// The deepest nesting of arrays and objects read (the message's own object is level 1).
pub(crate) const MAX_DEPTH: usize = 128;
/// The largest magnitude of an id given as a number: 2^53 − 1, what every JSON reader (and
/// JavaScript) holds exactly.
pub(crate) const MAX_ID: i64 = 9_007_199_254_740_991;
/// The methods served; any other is answered `-32601`.
pub(crate) const METHODS: [&str; 6] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
];
/// How many characters of the client's text a message quotes back, at most.
const QUOTED: usize = 64;

const PARSE_ERROR: i32 = -32700;
pub(crate) const INVALID_REQUEST: i32 = -32600;
const METHOD_NOT_FOUND: i32 = -32601;
const INVALID_PARAMS: i32 = -32602;

/// What a message read comes to.
#[derive(Debug)]
pub(crate) enum Read {
    /// A request or notification for rmcp, as the rule leaves it.
    Message(Box<ClientJsonRpcMessage>),
    /// A notification or a client's response this server does not answer.
    Nothing,
    /// A JSON-RPC error: the request's id when it can be read, the code and a sentence naming
    /// what was wrong.
    Refused(Refusal),
}

/// The error answer of a message refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub id: Option<RequestId>,
    pub code: i32,
    pub message: String,
}

impl Refusal {
    /// True for the refusals of a message that is not a request this server can take (parse
    /// error, invalid request): `/mcp` answers them with HTTP 400, the others with 200.
    pub(crate) fn is_bad_message(&self) -> bool {
        self.code == PARSE_ERROR || self.code == INVALID_REQUEST
    }

    /// The JSON-RPC error message's bytes, with `"id": null` when the id cannot be read (JSON-RPC
    /// 2.0 asks for the member; rmcp's own error message leaves it out).
    pub(crate) fn answer(&self) -> Vec<u8> {
        let id = match &self.id {
            Some(RequestId::Number(n)) => Value::from(*n),
            Some(RequestId::String(s)) => Value::from(s.to_string()),
            None => Value::Null,
        };
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": self.code, "message": self.message},
        })
        .to_string()
        .into_bytes()
    }
}

/// A JSON value as read: numbers keep their text, objects their members in order.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, name: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }
}

/// The first thing read that this server does not take, though the text is JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Unreadable {
    Duplicate(String),
    LoneSurrogate,
    HugeNumber(String),
    TooDeep,
}

impl Unreadable {
    fn sentence(&self) -> String {
        match self {
            Unreadable::Duplicate(name) => format!(
                "Invalid Request: the member {} is given twice in one object",
                quote_value(name, QUOTED)
            ),
            Unreadable::LoneSurrogate => {
                "Invalid Request: a string holds a lone surrogate escape (\\ud800-\\udfff without its pair), which is no Unicode text".to_string()
            }
            Unreadable::HugeNumber(text) => format!(
                "Invalid Request: the number {} is past the range of a double",
                quote_value(text, QUOTED)
            ),
            Unreadable::TooDeep => {
                format!("Invalid Request: arrays and objects are nested deeper than {MAX_DEPTH} levels")
            }
        }
    }
}

/// The strict reader: the text as [`Json`], the first [`Unreadable`] thing met (reading goes on
/// past it, so the id can still be read), or `Err` when the text is not JSON.
struct Reader<'a> {
    text: &'a [u8],
    at: usize,
    problem: Option<Unreadable>,
    /// Reading the value of the message's own `id` member, and whether it held a lone surrogate.
    in_id: bool,
    id_lone: bool,
}

type Parsed<T> = std::result::Result<T, ()>;

impl<'a> Reader<'a> {
    fn note(&mut self, problem: Unreadable) {
        if self.problem.is_none() {
            self.problem = Some(problem);
        }
    }

    fn skip_space(&mut self) {
        while matches!(self.text.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> Parsed<()> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(())
        }
    }

    fn literal(&mut self, word: &[u8]) -> Parsed<()> {
        if self.text[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(())
        }
    }

    /// A value at `depth` (the depth it would open, were it an array or object).
    fn value(&mut self, depth: usize) -> Parsed<Json> {
        self.skip_space();
        match self.peek() {
            Some(b'{' | b'[') if depth > MAX_DEPTH => {
                self.note(Unreadable::TooDeep);
                self.skip_nested()?;
                Ok(Json::Null)
            }
            Some(b'{') => {
                self.at += 1;
                let mut members: Vec<(String, Json)> = Vec::new();
                self.skip_space();
                if self.peek() == Some(b'}') {
                    self.at += 1;
                    return Ok(Json::Object(members));
                }
                loop {
                    self.skip_space();
                    let name = self.string()?;
                    self.skip_space();
                    self.eat(b':')?;
                    self.in_id = depth == 1 && name == "id";
                    let value = self.value(depth + 1)?;
                    self.in_id = false;
                    if members.iter().any(|(n, _)| *n == name) {
                        self.note(Unreadable::Duplicate(name));
                    } else {
                        members.push((name, value));
                    }
                    self.skip_space();
                    match self.peek() {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Json::Object(members));
                        }
                        _ => return Err(()),
                    }
                }
            }
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                self.skip_space();
                if self.peek() == Some(b']') {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.skip_space();
                    match self.peek() {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Json::Array(items));
                        }
                        _ => return Err(()),
                    }
                }
            }
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b't') => self.literal(b"true").map(|_| Json::Bool(true)),
            Some(b'f') => self.literal(b"false").map(|_| Json::Bool(false)),
            Some(b'n') => self.literal(b"null").map(|_| Json::Null),
            Some(b'-' | b'0'..=b'9') => {
                let text = self.number()?;
                if text.parse::<f64>().map_or(true, f64::is_infinite) {
                    self.note(Unreadable::HugeNumber(text.clone()));
                }
                Ok(Json::Number(text))
            }
            _ => Err(()),
        }
    }

    /// An array or object past [`MAX_DEPTH`], checked as JSON without recursion and not kept.
    fn skip_nested(&mut self) -> Parsed<()> {
        // The brackets open, innermost last; `true` for an object.
        let mut open: Vec<bool> = Vec::new();
        loop {
            self.skip_space();
            // A value, or the close of an empty container.
            match self.peek() {
                Some(b'{') => {
                    self.at += 1;
                    open.push(true);
                    self.skip_space();
                    if self.peek() == Some(b'}') {
                        self.at += 1;
                        open.pop();
                    } else {
                        self.string()?;
                        self.skip_space();
                        self.eat(b':')?;
                        continue;
                    }
                }
                Some(b'[') => {
                    self.at += 1;
                    open.push(false);
                    self.skip_space();
                    if self.peek() == Some(b']') {
                        self.at += 1;
                        open.pop();
                    } else {
                        continue;
                    }
                }
                Some(b'"') => {
                    self.string()?;
                }
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                Some(b'-' | b'0'..=b'9') => {
                    self.number()?;
                }
                _ => return Err(()),
            }
            // After a value: a comma, or closes.
            loop {
                let Some(&object) = open.last() else {
                    return Ok(());
                };
                self.skip_space();
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        if object {
                            self.skip_space();
                            self.string()?;
                            self.skip_space();
                            self.eat(b':')?;
                        }
                        break;
                    }
                    Some(b'}') if object => {
                        self.at += 1;
                        open.pop();
                    }
                    Some(b']') if !object => {
                        self.at += 1;
                        open.pop();
                    }
                    _ => return Err(()),
                }
            }
        }
    }

    /// A number's text: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    fn number(&mut self) -> Parsed<String> {
        let from = self.at;
        let digits = |reader: &mut Reader| {
            let start = reader.at;
            while matches!(reader.peek(), Some(b'0'..=b'9')) {
                reader.at += 1;
            }
            reader.at > start
        };
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(()),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !digits(self) {
                return Err(());
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !digits(self) {
                return Err(());
            }
        }
        // The bytes are ASCII digits and signs.
        Ok(String::from_utf8_lossy(&self.text[from..self.at]).into_owned())
    }

    /// A string, decoded; a lone surrogate escape is noted and read as U+FFFD.
    fn string(&mut self) -> Parsed<String> {
        self.eat(b'"')?;
        let mut out = String::new();
        loop {
            let start = self.at;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // The text is UTF-8 (checked before reading), and these bounds are ASCII bytes.
            out.push_str(std::str::from_utf8(&self.text[start..self.at]).map_err(|_| ())?);
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let escape = self.peek().ok_or(())?;
                    self.at += 1;
                    match escape {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let unit = self.hex4()?;
                            out.push(self.code_point(unit)?);
                        }
                        _ => return Err(()),
                    }
                }
                _ => return Err(()),
            }
        }
    }

    fn hex4(&mut self) -> Parsed<u32> {
        let hex = self.text.get(self.at..self.at + 4).ok_or(())?;
        let text = std::str::from_utf8(hex).map_err(|_| ())?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(());
        }
        self.at += 4;
        u32::from_str_radix(text, 16).map_err(|_| ())
    }

    /// The character of a `\u` escape whose unit is read; a high surrogate takes the low one
    /// that must follow it.
    fn code_point(&mut self, unit: u32) -> Parsed<char> {
        let lone = |reader: &mut Reader| {
            reader.note(Unreadable::LoneSurrogate);
            reader.id_lone |= reader.in_id;
            Ok('\u{fffd}')
        };
        match unit {
            0xD800..=0xDBFF => {
                if self.text[self.at..].starts_with(b"\\u") {
                    let back = self.at;
                    self.at += 2;
                    let low = self.hex4()?;
                    if (0xDC00..=0xDFFF).contains(&low) {
                        let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        return char::from_u32(c).ok_or(());
                    }
                    // Not its pair: the next escape is read on its own.
                    self.at = back;
                }
                lone(self)
            }
            0xDC00..=0xDFFF => lone(self),
            _ => char::from_u32(unit).ok_or(()),
        }
    }
}

/// Reads `text` as one JSON value: the value and the first unreadable thing, or `Err` when it
/// is not JSON.
/// What [`read_json`] read: the value, the first unreadable thing, and whether the message's
/// own `id` held a lone surrogate (then it is not read).
struct ReadJson {
    value: Json,
    problem: Option<Unreadable>,
    id_lone: bool,
}

fn read_json(text: &[u8]) -> Parsed<ReadJson> {
    std::str::from_utf8(text).map_err(|_| ())?;
    let mut reader = Reader {
        text,
        at: 0,
        problem: None,
        in_id: false,
        id_lone: false,
    };
    let value = reader.value(1)?;
    reader.skip_space();
    if reader.at != text.len() {
        return Err(());
    }
    Ok(ReadJson {
        value,
        problem: reader.problem,
        id_lone: reader.id_lone,
    })
}

/// The id of a message, when it can be read: a string, or an integer written in plain digits
/// of at most [`MAX_ID`] in magnitude.
fn read_id(id: &Json) -> Option<RequestId> {
    match id {
        Json::String(s) => Some(RequestId::String(s.as_str().into())),
        Json::Number(text) => {
            let plain = text
                .strip_prefix('-')
                .unwrap_or(text)
                .bytes()
                .all(|b| b.is_ascii_digit());
            let n = text
                .parse::<i64>()
                .ok()
                .filter(|n| plain && n.abs() <= MAX_ID)?;
            Some(RequestId::Number(n))
        }
        _ => None,
    }
}

/// The integer a number's text denotes exactly, as plain digits (`-` first when below zero),
/// or `None` when its written value has a fraction (`13.000000000000001`, `1e-400`). Expects a
/// number whose value is within a double's range (a huge one is refused before).
pub(crate) fn exact_integer(text: &str) -> Option<String> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], &unsigned[at + 1..]),
        None => (unsigned, "0"),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Some("0".to_string());
    }
    let significant = digits.trim_end_matches('0');
    let trailing = digits.len() - significant.len();
    // Clamped: a number within a double's range has an exponent of a few hundred at most.
    let exponent = exponent
        .trim_start_matches('+')
        .parse::<i64>()
        .unwrap_or(if exponent.starts_with('-') {
            -100_000
        } else {
            100_000
        })
        .clamp(-100_000, 100_000);
    let scale = exponent - fraction.len() as i64 + trailing as i64;
    if scale < 0 {
        return None;
    }
    let zeros = usize::try_from(scale).ok()?;
    let sign = if negative { "-" } else { "" };
    Some(format!("{sign}{significant}{}", "0".repeat(zeros)))
}

/// A value as serde_json holds it: integers in plain digits that fit as themselves, any other
/// number as the nearest double (finite: huge ones are refused before).
fn to_value(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(text) => text
            .parse::<i64>()
            .map(Number::from)
            .or_else(|_| text.parse::<u64>().map(Number::from))
            .ok()
            .or_else(|| text.parse::<f64>().ok().and_then(Number::from_f64))
            .map_or(Value::Null, Value::Number),
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => Value::Array(items.iter().map(to_value).collect()),
        Json::Object(members) => Value::Object(
            members
                .iter()
                .map(|(name, value)| (name.clone(), to_value(value)))
                .collect(),
        ),
    }
}

/// A tool call's argument as it is handed on: a number becomes the integer it denotes exactly
/// (its digits as a string when no integer type holds them), else its text as written.
fn argument_value(json: &Json) -> Value {
    match json {
        Json::Number(text) => match exact_integer(text) {
            Some(digits) => digits
                .parse::<i64>()
                .map(Number::from)
                .or_else(|_| digits.parse::<u64>().map(Number::from))
                .map_or(Value::String(digits), Value::Number),
            None => Value::String(text.clone()),
        },
        other => to_value(other),
    }
}

/// Reads one message (a stdio line or an HTTP body) by the rule of this module.
pub(crate) fn read(text: &[u8]) -> Read {
    let refuse = |id: Option<RequestId>, code: i32, message: String| {
        Read::Refused(Refusal { id, code, message })
    };
    let Ok(ReadJson {
        value: json,
        problem,
        id_lone,
    }) = read_json(text)
    else {
        return refuse(
            None,
            PARSE_ERROR,
            "Parse error: the message is not JSON".into(),
        );
    };
    let members = match &json {
        Json::Object(members) => members,
        Json::Array(_) => {
            return refuse(
                None,
                INVALID_REQUEST,
                "Invalid Request: JSON-RPC batches are not supported".into(),
            )
        }
        other => {
            return refuse(
                None,
                INVALID_REQUEST,
                format!(
                    "Invalid Request: a JSON-RPC message is an object, not {}",
                    other.kind()
                ),
            )
        }
    };
    let has = |name: &str| members.iter().any(|(n, _)| n == name);
    let id_given = json.get("id");
    // A notification (a method, no id) or a client's response (an id, a result or an error,
    // no method) gets no answer, whatever else it holds.
    if id_given.is_none() && has("method") {
        return Read::Nothing;
    }
    if id_given.is_some() && !has("method") && (has("result") || has("error")) {
        return Read::Nothing;
    }
    // An id holding a lone surrogate is not read.
    let id = id_given.and_then(read_id).filter(|_| !id_lone);
    if let Some(problem) = problem {
        // An id given twice is not read.
        let id = match &problem {
            Unreadable::Duplicate(name) if name == "id" => None,
            _ => id,
        };
        return refuse(id, INVALID_REQUEST, problem.sentence());
    }
    let Some(id) = id else {
        let why = match id_given {
            None => "Invalid Request: a request needs an id and a method".to_string(),
            Some(given) => format!(
                "Invalid Request: the id must be a string or an integer of at most 2^53 - 1 in magnitude, not {}",
                match given {
                    Json::Number(_) => "that number",
                    other => other.kind(),
                }
            ),
        };
        return refuse(None, INVALID_REQUEST, why);
    };
    let bad = |message: String| refuse(Some(id.clone()), INVALID_REQUEST, message);
    if json.get("jsonrpc") != Some(&Json::String("2.0".into())) {
        return bad("Invalid Request: jsonrpc must be \"2.0\"".into());
    }
    let method = match json.get("method") {
        Some(Json::String(method)) => method.clone(),
        Some(other) => {
            return bad(format!(
                "Invalid Request: the method must be a string, not {}",
                other.kind()
            ))
        }
        None => return bad("Invalid Request: a request needs an id and a method".into()),
    };
    let mut params = match json.get("params") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Object(params)) => params.clone(),
        Some(other) => {
            return bad(format!(
                "Invalid Request: params must be an object, not {}",
                other.kind()
            ))
        }
    };
    let invalid = |message: String| refuse(Some(id.clone()), INVALID_PARAMS, message);
    if !METHODS.contains(&method.as_str()) {
        return refuse(
            Some(id.clone()),
            METHOD_NOT_FOUND,
            format!("Method not found: {}", quote_value(&method, QUOTED)),
        );
    }
    // A null member of params (`_meta`, `arguments`, `cursor`...) is absent.
    params.retain(|(_, value)| *value != Json::Null);
    let param = |name: &str| params.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    if let Some(meta) = param("_meta") {
        if !matches!(meta, Json::Object(_)) {
            return invalid(format!(
                "Invalid params: params._meta must be an object, not {}",
                meta.kind()
            ));
        }
        // A progress token is a string or an integer, as an id is (the SDKs' own readers differ).
        if let Some(token) = meta.get("progressToken") {
            if !matches!(token, Json::String(_)) && read_id(token).is_none() {
                return invalid(
                    "Invalid params: params._meta.progressToken must be a string or an integer of at most 2^53 - 1 in magnitude".into(),
                );
            }
        }
    }
    let need_string = |name: &str| -> Option<Read> {
        match param(name) {
            Some(Json::String(_)) => None,
            Some(other) => Some(invalid(format!(
                "Invalid params: params.{name} of {method} must be a string, not {}",
                other.kind()
            ))),
            None => Some(invalid(format!(
                "Invalid params: {method} needs params.{name}, a string"
            ))),
        }
    };
    let checked = match method.as_str() {
        "tools/call" => need_string("name").or_else(|| match param("arguments") {
            None | Some(Json::Object(_)) => None,
            Some(other) => Some(invalid(format!(
                "Invalid params: params.arguments of tools/call must be an object, not {}",
                other.kind()
            ))),
        }),
        "resources/read" => need_string("uri"),
        "tools/list" | "resources/list" => match param("cursor") {
            None | Some(Json::String(_)) => None,
            Some(other) => Some(invalid(format!(
                "Invalid params: params.cursor of {method} must be a string, not {}",
                other.kind()
            ))),
        },
        "initialize" => need_string("protocolVersion")
            .or_else(|| match param("capabilities") {
                Some(Json::Object(_)) => None,
                _ => Some(invalid(
                    "Invalid params: initialize needs params.capabilities, an object".into(),
                )),
            })
            .or_else(|| match param("clientInfo") {
                Some(info @ Json::Object(_))
                    if matches!(info.get("name"), Some(Json::String(_)))
                        && matches!(info.get("version"), Some(Json::String(_))) =>
                {
                    None
                }
                _ => Some(invalid(
                    "Invalid params: initialize needs params.clientInfo, an object with a name and a version, both strings".into(),
                )),
            }),
        _ => None,
    };
    if let Some(refused) = checked {
        return refused;
    }
    let mut message = Map::new();
    message.insert("jsonrpc".into(), Value::String("2.0".into()));
    message.insert(
        "id".into(),
        match &id {
            RequestId::Number(n) => Value::Number((*n).into()),
            RequestId::String(s) => Value::String(s.to_string()),
        },
    );
    message.insert("method".into(), Value::String(method.clone()));
    if !params.is_empty() || method == "tools/call" {
        let mut handed = Map::new();
        for (name, value) in &params {
            let value = match (name.as_str(), value) {
                ("arguments", Json::Object(arguments)) if method == "tools/call" => Value::Object(
                    arguments
                        .iter()
                        .map(|(n, v)| (n.clone(), argument_value(v)))
                        .collect(),
                ),
                _ => to_value(value),
            };
            handed.insert(name.clone(), value);
        }
        message.insert("params".into(), Value::Object(handed));
    }
    let shape = || {
        refuse(
            Some(id.clone()),
            INVALID_PARAMS,
            format!("Invalid params: the params of {method} are not of the shape the method takes"),
        )
    };
    match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(message)) {
        // rmcp reads params it cannot decode as a request of its own method (a custom one).
        Ok(ClientJsonRpcMessage::Request(request))
            if matches!(request.request, ClientRequest::CustomRequest(_)) =>
        {
            shape()
        }
        Ok(message) => Read::Message(Box::new(message)),
        Err(_) => shape(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> Refusal {
        match read(text.as_bytes()) {
            Read::Refused(refusal) => refusal,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn numbers_are_integers_only_when_written_as_exactly_one() {
        for (text, integer) in [
            ("25", Some("25")),
            ("25.0", Some("25")),
            ("2.5e1", Some("25")),
            ("-0", Some("0")),
            ("0e999999999999999999999", Some("0")),
            ("100000e-5", Some("1")),
            ("1e3", Some("1000")),
            ("-12.50e1", Some("-125")),
            ("13.000000000000001", None),
            ("99.99999999999999", None),
            ("1e-400", None),
            ("1.5", None),
        ] {
            assert_eq!(exact_integer(text).as_deref(), integer, "{text}");
        }
    }

    #[test]
    fn what_readers_take_differently_is_refused_with_the_id() {
        for (text, says) in [
            (
                r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":1,"a":2}}"#,
                "twice",
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":"\ud800"}}"#,
                "surrogate",
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":1e400}}"#,
                "double",
            ),
            (
                &format!(
                    r#"{{"jsonrpc":"2.0","params":{{"a":{}{}}},"id":3,"method":"ping"}}"#,
                    "[".repeat(20_000),
                    "]".repeat(20_000)
                ),
                "nested",
            ),
        ] {
            let refusal = refused(text);
            assert_eq!(refusal.id, Some(RequestId::Number(3)), "{says}");
            assert_eq!(refusal.code, INVALID_REQUEST, "{says}");
            assert!(refusal.message.contains(says), "{}", refusal.message);
        }
        // A surrogate pair is text.
        assert!(matches!(
            read(br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":"\ud83d\ude00"}}"#),
            Read::Message(_)
        ));
        assert_eq!(refused(r#"{"id":1,"#).code, PARSE_ERROR);
        // An id holding a lone surrogate is not read; one holding U+FFFD itself is.
        let text = r#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#;
        assert_eq!(refused(text).id, None);
        let text = r#"{"jsonrpc":"2.0","id":"\ufffd","method":"ping","params":{"a":"\udc00"}}"#;
        assert_eq!(refused(text).id, Some(RequestId::String("\u{fffd}".into())));
        assert_eq!(
            refused(r#"{"id":1,"id":2,"method":"ping","jsonrpc":"2.0"}"#).id,
            None
        );
    }

    #[test]
    fn the_id_is_answered_whenever_it_can_be_read() {
        let refusal = refused(r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":[]}"#);
        assert_eq!(refusal.id, Some(RequestId::String("x".into())));
        assert_eq!(refusal.code, INVALID_REQUEST);
        let refusal = refused(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","_meta":[]}}"#,
        );
        assert_eq!(
            (refusal.id, refusal.code),
            (Some(RequestId::Number(7)), INVALID_PARAMS)
        );
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#).id,
            None
        );
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}"#).id,
            None
        );
        let long = "x".repeat(60_000);
        let refusal = refused(&format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{long}"}}"#));
        assert!(refusal.message.len() < 200, "{}", refusal.message);
        assert!(matches!(
            read(br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}"#),
            Read::Nothing
        ));
    }

    #[test]
    fn null_meta_and_arguments_are_absent_and_numbers_are_as_written() {
        let Read::Message(message) = read(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_models","_meta":null,"arguments":{"limit":13.000000000000001,"offset":2.0,"x":1e2}}}"#,
        ) else {
            panic!("read");
        };
        let value = serde_json::to_value(&*message).expect("JSON");
        assert_eq!(
            value["params"]["arguments"],
            serde_json::json!({"limit": "13.000000000000001", "offset": 2, "x": 100})
        );
        assert!(value["params"].get("_meta").is_none());
        let Read::Message(message) = read(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_models","arguments":null}}"#,
        ) else {
            panic!("read");
        };
        let value = serde_json::to_value(&*message).expect("JSON");
        assert!(value["params"].get("arguments").is_none());
    }
}
