//! What a tool call sends and gets: the raw query string its arguments become, and the tool
//! result an answer of the site becomes, cut to the `fields` asked (`crate::query::projection`) and
//! refused when it would pass the size limit. What the tools are (names, schemas, defaults) is
//! the catalogue's (`crate::answers::catalogue`).
//!
//! The arguments are taken as any JSON: the published schema states the enums and bounds, but a
//! value outside them is sent on as a client would send it, so the site's router refuses it with
//! the API's own `400 invalid_query` body instead of the SDK refusing it with a protocol error.

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::Value;

use super::source::Reply;
use crate::answers::catalogue::{query_text, Call, RecordFields, Shape};
use crate::query::percent_encode;
use crate::query::projection::{self, ContractCut, Fields};

/// The argument that shapes an answer instead of going into the query.
pub(super) const FIELDS: &str = "fields";

/// What a call asks of the answer, once its `fields` are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Asked {
    /// The answer as sent.
    Body,
    /// Records cut to these names.
    Records(Vec<String>),
    /// The contract with the definitions of these names (none when `None`).
    Contract(Option<Vec<String>>),
}

/// The raw query string and what is asked of the answer, or the refusal of the `fields`.
pub(super) fn read_call(
    call: &Call,
    record_fields: &RecordFields,
    arguments: &JsonObject,
) -> Result<(String, Asked), String> {
    let mut arguments = arguments.clone();
    let fields = match call.shape {
        Shape::Body | Shape::History => None,
        // shift_remove keeps the other arguments in the order given (the query's order).
        Shape::Records | Shape::Contract => arguments.shift_remove(FIELDS),
    };
    let asked = match call.shape {
        Shape::Body | Shape::History => Asked::Body,
        Shape::Records => {
            let hint = projection::record_hint(&record_fields.allowed);
            match projection::read_fields(fields.as_ref(), &hint)? {
                Some(Fields::All) => Asked::Body,
                Some(Fields::Some(names)) => {
                    projection::check_record_fields(&names, &record_fields.allowed)?;
                    Asked::Records(names)
                }
                None => Asked::Records(record_fields.default.clone()),
            }
        }
        Shape::Contract => {
            let hint = "or [\"*\"] for the whole contract";
            match projection::read_fields(fields.as_ref(), hint)? {
                Some(Fields::All) => Asked::Body,
                Some(Fields::Some(names)) => Asked::Contract(Some(names)),
                None => Asked::Contract(None),
            }
        }
    };
    // An array or object has no text of its own in a query: refused, naming the argument.
    if let Some((name, value)) = arguments
        .iter()
        .find(|(_, v)| v.is_array() || v.is_object())
    {
        return Err(nested_argument(name, value, call.shape));
    }
    for (name, value) in &call.defaults {
        if arguments.get(name).is_none_or(Value::is_null) {
            arguments.insert(name.clone(), Value::String(value.clone()));
        }
    }
    Ok((raw_query(&arguments, call.first.as_deref()), asked))
}

/// The refusal of an argument that is an array or an object (`fields` of the calls that cut
/// excepted).
fn nested_argument(name: &str, value: &Value, shape: Shape) -> String {
    let kind = if value.is_array() {
        "an array"
    } else {
        "an object"
    };
    let except = match shape {
        Shape::Records | Shape::Contract => " (and fields, a list of names)",
        Shape::Body | Shape::History => "",
    };
    format!(
        "the argument {} is {kind}: this tool's arguments are strings or numbers{except}",
        crate::query::quote_value(name, projection::QUOTED_CHARS)
    )
}

/// The precomputed file a [`Shape::History`] call reads: when `model_id` is its only argument
/// and a non-empty string, the file of `call.file_dir` named by the ID's SHA-256.
pub(super) fn history_target(call: &Call, arguments: &JsonObject) -> Option<String> {
    let dir = call.file_dir.as_deref()?;
    let first = call.first.as_deref()?;
    let id = arguments.get(first)?.as_str().filter(|id| !id.is_empty())?;
    (call.shape == Shape::History && arguments.len() == 1)
        .then(|| format!("{dir}{}.json", crate::query::model_key(id)))
}

/// The refusal of a served model whose precomputed file the site lacks (a site built before
/// the tool: `get_demand_history`, `get_providers`).
pub(super) const NO_HISTORY: &str =
    "this site serves the model but has no precomputed answer of this tool for it: it was built by an older version of model-demand";

/// The raw query string of a tool call: every argument as `name=value`, percent-encoded, in the
/// order given; a null argument is left out as an absent one. `first` (`model_id` for
/// `get_model`) comes first and is sent empty when absent, so the router refuses it as empty.
pub(crate) fn raw_query(arguments: &JsonObject, first: Option<&str>) -> String {
    let mut pairs = Vec::with_capacity(arguments.len() + 1);
    if let Some(name) = first {
        let value = arguments.get(name).filter(|v| !v.is_null());
        pairs.push(format!(
            "{}={}",
            percent_encode(name),
            percent_encode(&value.map(query_text).unwrap_or_default())
        ));
    }
    for (name, value) in arguments {
        if value.is_null() || Some(name.as_str()) == first {
            continue;
        }
        pairs.push(format!(
            "{}={}",
            percent_encode(name),
            percent_encode(&query_text(value))
        ));
    }
    pairs.join("&")
}

/// How to ask a tool for a smaller answer.
pub(super) fn how_to_ask_less(shape: Shape) -> &'static str {
    match shape {
        Shape::Records => "a smaller limit, or fewer fields (not [\"*\"])",
        Shape::Contract => {
            "fewer fields; the whole contract is the resource model-demand:///api/v1/about"
        }
        Shape::Body | Shape::History => "nothing smaller exists for this call",
    }
}

/// A tool error with this text and no structured content.
pub(super) fn refusal(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The hint a `model_id` written percent-encoded (`google%2Fgemma-3-27b-it`) gets when the
/// model is not found: tool arguments take the ID as written, URLs take it encoded. `None`
/// when the call has no such argument, or it holds no `%XX` escape.
pub(crate) fn percent_hint(call: &Call, arguments: &JsonObject) -> Option<String> {
    let first = call.first.as_deref()?;
    let id = arguments.get(first)?.as_str()?;
    let bytes = id.as_bytes();
    let escaped = bytes
        .windows(3)
        .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit());
    if !escaped {
        return None;
    }
    let quote = |text: &str| crate::query::quote_value(text, projection::QUOTED_CHARS);
    let decoded = crate::query::percent_decode_path(id)
        .ok()
        .filter(|decoded| decoded != id)
        .map(|decoded| format!(" (here {})", quote(&decoded)))
        .unwrap_or_default();
    Some(format!(
        "{first} {} looks percent-encoded: tool arguments take the ID as written{decoded}, not percent-encoded as in a URL",
        quote(id)
    ))
}

/// The tool result of an answer: its body (cut as `asked` when it is a 200) as the text, once
/// (no `structuredContent`: docs/decisions.md, issue 41); any status but 200 is an error
/// result, and a 404 carries `hint` (see [`percent_hint`]) as a second text block. An answer
/// that is not the API's JSON (a CDN's error page), or whose result would pass `max_bytes` as
/// sent, is an error result saying so.
pub(super) fn tool_result(
    reply: std::result::Result<Reply, String>,
    shape: Shape,
    asked: &Asked,
    max_bytes: usize,
    hint: Option<String>,
) -> CallToolResult {
    let reply = match reply {
        Ok(reply) => reply,
        Err(why) => return refusal(why),
    };
    let not_json = || {
        refusal(format!(
            "the site answered {} with a body that is not the API's JSON",
            reply.status
        ))
    };
    let Ok(body) = std::str::from_utf8(&reply.body) else {
        return not_json();
    };
    let cut = match (reply.status, asked) {
        (200, Asked::Records(names)) => projection::project_records(body, names),
        (200, Asked::Contract(names)) => {
            match projection::project_contract(body, names.as_deref()) {
                Ok(text) => Ok(text),
                Err(ContractCut::Refused(why)) => return refusal(why),
                Err(ContractCut::Malformed(why)) => Err(why),
            }
        }
        _ => Ok(body.to_string()),
    };
    let Ok(text) = cut else {
        return not_json();
    };
    if !serde_json::from_str::<Value>(&text).is_ok_and(|v| v.is_object()) {
        return not_json();
    }
    let hint = hint.filter(|_| reply.status == 404);
    let mut blocks = vec![text];
    blocks.extend(hint);
    let bytes = projection::received_bytes(&blocks.iter().map(String::as_str).collect::<Vec<_>>());
    if bytes > max_bytes {
        return refusal(projection::too_large(
            bytes,
            max_bytes,
            how_to_ask_less(shape),
        ));
    }
    let content = blocks.into_iter().map(ContentBlock::text).collect();
    if reply.status == 200 {
        CallToolResult::success(content)
    } else {
        CallToolResult::error(content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Value) -> JsonObject {
        value.as_object().cloned().expect("object")
    }

    #[test]
    fn arguments_become_the_query_a_client_sends() {
        assert_eq!(raw_query(&JsonObject::new(), None), "");
        assert_eq!(
            raw_query(
                &args(json!({"sort": "latest_rank", "limit": 3, "offset": null})),
                None
            ),
            "sort=latest_rank&limit=3"
        );
        assert_eq!(
            raw_query(&args(json!({"limit": 25.0, "offset": -1})), None),
            "limit=25&offset=-1"
        );
        assert_eq!(
            raw_query(&args(json!({"limit": 1.5, "sort": ""})), None),
            "limit=1.5&sort="
        );
        assert_eq!(
            raw_query(&args(json!({"model_id": "a/b:free"})), Some("model_id")),
            "model_id=a%2Fb%3Afree"
        );
        assert_eq!(
            raw_query(&args(json!({"limit": 2})), Some("model_id")),
            "model_id=&limit=2"
        );
    }
}
