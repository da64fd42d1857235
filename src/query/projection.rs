//! What an agent's tool call may ask less of, cut from the API's own bytes: the `fields` of
//! `list_models` (record members, dotted paths, or `["*"]`), the `fields` of `get_contract`
//! (which field definitions), and the size a result has as a client receives it.
//!
//! Every cut is made by slicing the body the site answered, never by re-serializing it, so each
//! kept value (a value object with its state, reason, unit and `source_url`) is the API's byte
//! for byte, and an unknown stays unknown. The edge function does the same in
//! `netlify/edge-functions/lib/tool_call.mjs`; the vectors of `tests/it/agents.rs` hold the two to
//! the same bytes and the same refusals, so any rule here is written there too.

use serde_json::Value;

/// The one member of a `fields` list that asks for everything.
pub const ALL: &str = "*";

/// The end of the JSON value whose text starts at byte `start` (a string, an object or array
/// with everything in it, or a scalar up to the next delimiter).
fn value_end(text: &str, start: usize) -> Result<usize, String> {
    let bytes = text.as_bytes();
    let bad = || format!("the site's answer is not JSON at byte {start}");
    match bytes.get(start) {
        None => return Err(bad()),
        Some(b'"' | b'{' | b'[') => {}
        Some(_) => {
            let mut at = start;
            while at < bytes.len()
                && !matches!(bytes[at], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                at += 1;
            }
            return Ok(at);
        }
    }
    let mut at = start;
    let mut depth = 0usize;
    let mut in_string = false;
    while at < bytes.len() {
        let b = bytes[at];
        at += 1;
        if in_string {
            match b {
                b'\\' => at += 1,
                b'"' => {
                    in_string = false;
                    if depth == 0 {
                        return Ok(at);
                    }
                }
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1).ok_or_else(bad)?;
                if depth == 0 {
                    return Ok(at);
                }
            }
            _ => {}
        }
    }
    Err(bad())
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\n' | b'\r') {
        at += 1;
    }
    at
}

/// The members of a JSON object's text, in order: each name as written between its quotes (the
/// API's names need no escapes) and its value's text.
pub fn members(object: &str) -> Result<Vec<(&str, &str)>, String> {
    let bytes = object.as_bytes();
    let bad = |at: usize| format!("the site's answer is not a JSON object at byte {at}");
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return Err(bad(at));
    }
    at = skip_space(bytes, at + 1);
    let mut found = Vec::new();
    if bytes.get(at) == Some(&b'}') {
        return Ok(found);
    }
    loop {
        if bytes.get(at) != Some(&b'"') {
            return Err(bad(at));
        }
        let name_end = value_end(object, at)?;
        let name = &object[at + 1..name_end - 1];
        at = skip_space(bytes, name_end);
        if bytes.get(at) != Some(&b':') {
            return Err(bad(at));
        }
        let start = skip_space(bytes, at + 1);
        let end = value_end(object, start)?;
        found.push((name, &object[start..end]));
        at = skip_space(bytes, end);
        match bytes.get(at) {
            Some(b',') => at = skip_space(bytes, at + 1),
            Some(b'}') => return Ok(found),
            _ => return Err(bad(at)),
        }
    }
}

/// The items of a JSON array's text, in order.
pub fn items(array: &str) -> Result<Vec<&str>, String> {
    let bytes = array.as_bytes();
    let bad = |at: usize| format!("the site's answer is not a JSON array at byte {at}");
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'[') {
        return Err(bad(at));
    }
    at = skip_space(bytes, at + 1);
    let mut found = Vec::new();
    if bytes.get(at) == Some(&b']') {
        return Ok(found);
    }
    loop {
        let end = value_end(array, at)?;
        found.push(&array[at..end]);
        at = skip_space(bytes, end);
        match bytes.get(at) {
            Some(b',') => at = skip_space(bytes, at + 1),
            Some(b']') => return Ok(found),
            _ => return Err(bad(at)),
        }
    }
}

/// The names a `fields` argument gives: every member (`["*"]`), or these names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fields {
    /// `["*"]`: the API's whole body.
    All,
    /// These names, in the order given.
    Some(Vec<String>),
}

/// The most characters of a name given by the client that a message quotes back: a refusal
/// never echoes unbounded input (the router quotes its values at the same length).
pub const QUOTED_CHARS: usize = 64;

/// JSON text of a name, for messages (as JSON.stringify writes it), cut to its first
/// [`QUOTED_CHARS`] characters and `...` when longer (`quoteValue` in the edge module).
fn quoted(name: &str) -> String {
    crate::query::quote_value(name, QUOTED_CHARS)
}

/// Reads a `fields` argument's shape: an array of distinct strings, or `["*"]` alone. `hint`
/// ends every refusal (the allowed names). An absent or null argument is `None`.
pub fn read_fields(argument: Option<&Value>, hint: &str) -> Result<Option<Fields>, String> {
    let Some(value) = argument.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let refuse = |what: String| Err(format!("{what}; {hint}"));
    let Some(list) = value.as_array() else {
        return refuse(
            "fields must be an array of field names, or [\"*\"] for every member".into(),
        );
    };
    if list.is_empty() {
        return refuse(
            "fields is empty: name at least one field, or [\"*\"] for every member".into(),
        );
    }
    let mut names: Vec<String> = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let Some(name) = item.as_str() else {
            return refuse(format!("fields[{i}] is not a string"));
        };
        if names.iter().any(|n| n == name) {
            return refuse(format!("fields names {} more than once", quoted(name)));
        }
        names.push(name.to_string());
    }
    if names.iter().any(|n| n == ALL) {
        if names.len() > 1 {
            return refuse("\"*\" stands alone: [\"*\"] asks for every member".into());
        }
        return Ok(Some(Fields::All));
    }
    Ok(Some(Fields::Some(names)))
}

/// The hint of `list_models` refusals: the allowed names.
pub fn record_hint(allowed: &[String]) -> String {
    format!(
        "allowed names: {}; or [\"*\"] for every member",
        allowed.join(", ")
    )
}

/// Checks `list_models` names against the allowed ones (record members and dotted paths, none
/// inside a value object, which is kept whole), and that no name lies inside another.
pub fn check_record_fields(names: &[String], allowed: &[String]) -> Result<(), String> {
    let hint = record_hint(allowed);
    for name in names {
        if allowed.iter().any(|a| a == name) {
            continue;
        }
        // A path below an allowed name none of whose own paths is allowed: a value object's
        // member (`tokens_30d.value`). Below `facts`, whose members may be named, a name not
        // allowed is simply unknown.
        let kept_whole = |a: &&String| {
            let below = format!("{a}.");
            name.starts_with(&below) && !allowed.iter().any(|other| other.starts_with(&below))
        };
        if let Some(whole) = allowed.iter().find(kept_whole) {
            return Err(format!(
                "{} is inside {}, which is kept whole (its value with its unit, state, reason and source) so that an unknown stays unknown: ask for {}; {hint}",
                quoted(name),
                quoted(whole),
                quoted(whole)
            ));
        }
        return Err(format!("unknown field {}; {hint}", quoted(name)));
    }
    for name in names {
        if let Some(outer) = names.iter().find(|o| name.starts_with(&format!("{o}."))) {
            return Err(format!(
                "{} is already inside {}: name one of them; {hint}",
                quoted(name),
                quoted(outer)
            ));
        }
    }
    Ok(())
}

/// A selection of an object's members: each wanted member whole, or some of its own members.
#[derive(Debug, Default)]
struct Selection {
    members: Vec<(String, Option<Selection>)>,
}

impl Selection {
    fn of(names: &[String]) -> Selection {
        let mut root = Selection::default();
        for name in names {
            let mut at = &mut root;
            let parts: Vec<&str> = name.split('.').collect();
            for (i, part) in parts.iter().enumerate() {
                let last = i + 1 == parts.len();
                let index = match at.members.iter().position(|(n, _)| n == part) {
                    Some(index) => index,
                    None => {
                        let sub = (!last).then(Selection::default);
                        at.members.push((part.to_string(), sub));
                        at.members.len() - 1
                    }
                };
                match &mut at.members[index].1 {
                    Some(sub) if !last => at = sub,
                    _ => break,
                }
            }
        }
        root
    }

    /// The object `text` with only the selected members, in the API's order.
    fn cut(&self, text: &str, out: &mut String) -> Result<(), String> {
        out.push('{');
        let mut first = true;
        for (name, value) in members(text)? {
            let Some((_, sub)) = self.members.iter().find(|(n, _)| n == name) else {
                continue;
            };
            if !first {
                out.push(',');
            }
            first = false;
            out.push('"');
            out.push_str(name);
            out.push_str("\":");
            match sub {
                Some(sub) if value.starts_with('{') => sub.cut(value, out)?,
                // A whole member, or a null parent (its members are unknown with it).
                _ => out.push_str(value),
            }
        }
        out.push('}');
        Ok(())
    }
}

/// The API's model response `body` with each record cut to `names` (already checked): every
/// top-level member as the API wrote it, then `fields` (the names given) before `models`.
pub fn project_records(body: &str, names: &[String]) -> Result<String, String> {
    let selection = Selection::of(names);
    let mut out = String::with_capacity(body.len() / 2);
    out.push('{');
    for (i, (name, value)) in members(body)?.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if name == "models" {
            let names_json = serde_json::to_string(names).unwrap_or_default();
            out.push_str("\"fields\":");
            out.push_str(&names_json);
            out.push_str(",\"models\":[");
            for (j, record) in items(value)?.into_iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                selection.cut(record, &mut out)?;
            }
            out.push(']');
        } else {
            out.push('"');
            out.push_str(name);
            out.push_str("\":");
            out.push_str(value);
        }
    }
    out.push('}');
    Ok(out)
}

/// The contract's member that holds the field definitions.
pub const DEFINITIONS: &str = "field_definitions";
/// The prefix of a record field's path in the definitions.
const RECORD_PREFIX: &str = "models[].";

/// A definition's path as `fields` names it: a record field's without `models[].`.
fn named_path(path: &str) -> &str {
    path.strip_prefix(RECORD_PREFIX).unwrap_or(path)
}

/// True when the definition at `path` is asked by `name` (the field itself or one of its
/// members).
fn asks(name: &str, path: &str) -> bool {
    [path, named_path(path)].iter().any(|p| {
        *p == name || p.starts_with(&format!("{name}.")) || p.starts_with(&format!("{name}[]"))
    })
}

/// Why a contract could not be cut: a name asks no definition (the client's error, said to it),
/// or the site's answer is not the contract's JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContractCut {
    /// A name with no definition: the refusal's text.
    Refused(String),
    /// The body is not a JSON object with an array of definitions.
    Malformed(String),
}

/// The contract `body` without its field definitions (`names` absent), or with only the
/// definitions of `names` (each must ask at least one), every other member as written.
pub fn project_contract(body: &str, names: Option<&[String]>) -> Result<String, ContractCut> {
    let mut out = String::with_capacity(body.len() / 4);
    out.push('{');
    let mut first = true;
    for (name, value) in members(body).map_err(ContractCut::Malformed)? {
        let kept = if name != DEFINITIONS {
            value.to_string()
        } else if let Some(names) = names {
            definitions_of(value, names)?
        } else {
            continue;
        };
        if !first {
            out.push(',');
        }
        first = false;
        out.push('"');
        out.push_str(name);
        out.push_str("\":");
        out.push_str(&kept);
    }
    out.push('}');
    Ok(out)
}

/// The definitions (an array's text) whose path `names` ask, in the document's order.
fn definitions_of(array: &str, names: &[String]) -> Result<String, ContractCut> {
    let mut paths = Vec::new();
    for item in items(array).map_err(ContractCut::Malformed)? {
        let path = members(item)
            .map_err(ContractCut::Malformed)?
            .into_iter()
            .find(|(n, _)| *n == "path")
            .and_then(|(_, v)| serde_json::from_str::<String>(v).ok())
            .unwrap_or_default();
        paths.push((path, item));
    }
    for name in names {
        if !paths.iter().any(|(path, _)| asks(name, path)) {
            let mut tops: Vec<&str> = Vec::new();
            for (path, _) in &paths {
                let top = named_path(path).split(['.', '[']).next().unwrap_or("");
                if !tops.contains(&top) {
                    tops.push(top);
                }
            }
            return Err(ContractCut::Refused(format!(
                "no field definition for {}; name fields as list_models does (tokens_30d, facts.total_parameters) or as the contract's paths (freshness.state), starting with one of: {}; or [\"*\"] for the whole contract",
                quoted(name),
                tops.join(", ")
            )));
        }
    }
    let kept: Vec<&str> = paths
        .iter()
        .filter(|(path, _)| names.iter().any(|n| asks(n, path)))
        .map(|(_, item)| *item)
        .collect();
    Ok(format!("[{}]", kept.join(",")))
}

/// The bytes of a text as a JSON string's contents (escapes counted, quotes not), as
/// serde_json and `JSON.stringify` write it.
fn escaped_len(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf8(),
        })
        .sum()
}

/// The bytes of a tool result as a client receives it: each of `blocks` once, in a text block
/// (as a JSON string, escapes counted), with the result's own members around them. A result
/// carries its JSON once, as text: no `structuredContent` (docs/decisions.md, issue 41).
pub fn received_bytes(blocks: &[&str]) -> usize {
    // {"content":[{"type":"text","text":"…"},…],"isError":false}
    let blocks_bytes: usize = blocks.iter().map(|b| 25 + escaped_len(b)).sum();
    12 + blocks_bytes + blocks.len().saturating_sub(1) + 18
}

/// The refusal of a result of `bytes` over `limit`, saying how to ask for less.
pub fn too_large(bytes: usize, limit: usize, how: &str) -> String {
    format!("This answer would be {bytes} bytes as sent, over this server's limit of {limit} bytes, so it is refused rather than cut; ask for less: {how}.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn members_and_items_are_the_written_slices() {
        let text = r#"{"a":{"b":[1,"x]}"],"c":null},"d":"q\"uo,te","e":-1.5e3}"#;
        let found = members(text).expect("object");
        assert_eq!(
            found,
            vec![
                ("a", r#"{"b":[1,"x]}"],"c":null}"#),
                ("d", r#""q\"uo,te""#),
                ("e", "-1.5e3")
            ]
        );
        assert_eq!(
            items(r#"[ {"a":1} , 2,"3"]"#).expect("array"),
            vec![r#"{"a":1}"#, "2", r#""3""#]
        );
        assert!(members("[1]").is_err());
        assert!(members(r#"{"a":1"#).is_err());
    }

    #[test]
    fn records_keep_the_api_bytes_of_what_is_asked() {
        let body = r#"{"schema_version":"v","window":{"days":30},"models":[{"model_id":"a/b","tokens_30d":{"value":null,"unit":"tokens","state":"unavailable","reason":"r"},"facts":{"x":{"value":"1"},"y":{"value":"2"}},"supply":{"state":"s","reason":null,"summary":null}}]}"#;
        let cut = project_records(
            body,
            &names(&[
                "supply.summary.route_id",
                "tokens_30d",
                "facts.y",
                "model_id",
            ]),
        )
        .expect("cut");
        assert_eq!(
            cut,
            r#"{"schema_version":"v","window":{"days":30},"fields":["supply.summary.route_id","tokens_30d","facts.y","model_id"],"models":[{"model_id":"a/b","tokens_30d":{"value":null,"unit":"tokens","state":"unavailable","reason":"r"},"facts":{"y":{"value":"2"}},"supply":{"summary":null}}]}"#
        );
    }

    #[test]
    fn bad_field_lists_are_refused_with_the_allowed_names() {
        let allowed = names(&["model_id", "tokens_30d", "facts", "facts.x"]);
        let hint = record_hint(&allowed);
        let read = |v: Value| read_fields(Some(&v), &hint);
        assert_eq!(read(json!(null)), Ok(None));
        assert_eq!(read(json!(["*"])), Ok(Some(Fields::All)));
        for bad in [
            json!("model_id"),
            json!([]),
            json!([1]),
            json!(["a", "a"]),
            json!(["*", "a"]),
        ] {
            let why = read(bad.clone()).expect_err("refused");
            assert!(why.ends_with(&hint), "{bad}: {why}");
        }
        let check = |list: &[&str]| check_record_fields(&names(list), &allowed);
        assert_eq!(check(&["facts.x", "model_id"]), Ok(()));
        assert!(check(&["colour"])
            .expect_err("unknown")
            .starts_with("unknown field \"colour\""));
        assert!(check(&["tokens_30d.value"])
            .expect_err("inside")
            .contains("kept whole"));
        assert!(check(&["facts", "facts.x"])
            .expect_err("overlap")
            .contains("already inside"));
    }

    #[test]
    fn the_contract_drops_or_filters_its_definitions() {
        let body = r#"{"v":1,"field_definitions":[{"path":"freshness.state","t":1},{"path":"models[].tokens_30d","t":2},{"path":"models[].tokens_30d.value","t":3},{"path":"models[].tokens_7d","t":4}],"links":{}}"#;
        assert_eq!(
            project_contract(body, None).expect("cut"),
            r#"{"v":1,"links":{}}"#
        );
        assert_eq!(
            project_contract(body, Some(&names(&["tokens_30d", "freshness"]))).expect("cut"),
            r#"{"v":1,"field_definitions":[{"path":"freshness.state","t":1},{"path":"models[].tokens_30d","t":2},{"path":"models[].tokens_30d.value","t":3}],"links":{}}"#
        );
        let Err(ContractCut::Refused(why)) = project_contract(body, Some(&names(&["tokens"])))
        else {
            panic!("a name without a definition is the client's error");
        };
        assert!(
            why.contains("one of: freshness, tokens_30d, tokens_7d;"),
            "{why}"
        );
    }

    #[test]
    fn received_bytes_are_the_serialized_result() {
        for blocks in [
            vec![r#"{"a":"b\"c\\d\ne\u0001 é"}"#],
            vec!["{}"],
            vec!["{}", "a hint \u{1}"],
        ] {
            let content: Vec<Value> = blocks
                .iter()
                .map(|t| json!({"type": "text", "text": t}))
                .collect();
            let result = json!({"content": content, "isError": false});
            assert_eq!(
                received_bytes(&blocks),
                result.to_string().len(),
                "{blocks:?}"
            );
        }
    }

    #[test]
    fn refusals_quote_no_more_than_a_bounded_part_of_a_name() {
        let allowed = names(&["model_id", "facts", "facts.x", "tokens_30d"]);
        let long = "\"".repeat(30_000);
        let why = check_record_fields(std::slice::from_ref(&long), &allowed).expect_err("unknown");
        assert!(why.len() < 1_000, "{}", why.len());
        let why = read_fields(Some(&json!([long, long])), "hint").expect_err("repeated");
        assert!(why.len() < 1_000, "{}", why.len());
        // Below a member whose own members may be named, a name is unknown, not "kept whole".
        let why = check_record_fields(&names(&["facts.foo"]), &allowed).expect_err("unknown");
        assert!(why.starts_with("unknown field \"facts.foo\""), "{why}");
        let why = check_record_fields(&names(&["tokens_30d.value"]), &allowed).expect_err("whole");
        assert!(why.contains("kept whole"), "{why}");
    }
}
