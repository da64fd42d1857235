//! What a tool call sends and gets: the raw query string its arguments become, and the tool
//! result an answer of the site becomes, cut to the `fields` asked (`crate::projection`) and
//! refused when it would pass the size limit. What the tools are (names, schemas, defaults) is
//! the catalogue's (`crate::catalogue`).
//!
//! The arguments are taken as any JSON: the published schema states the enums and bounds, but a
//! value outside them is sent on as a client would send it, so the site's router refuses it with
//! the API's own `400 invalid_query` body instead of the SDK refusing it with a protocol error.

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::Value;

use super::source::Reply;
use crate::catalogue::{query_text, Call, RecordFields, Shape};
use crate::projection::{self, Fields};
use crate::query::percent_encode;

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
    for (name, value) in &call.defaults {
        if arguments.get(name).is_none_or(Value::is_null) {
            arguments.insert(name.clone(), Value::String(value.clone()));
        }
    }
    Ok((raw_query(&arguments, call.first.as_deref()), asked))
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

/// The refusal of a served model whose history file the site lacks (a site built before
/// `get_demand_history`).
pub(super) const NO_HISTORY: &str =
    "this site serves the model but has no demand history for it: it was built by an older version of model-demand";

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

/// The tool result of an answer: its body (cut as `asked` when it is a 200) as the text and
/// parsed as the structured content; any status but 200 is an error result. An answer that is
/// not the API's JSON (a CDN's error page), or whose result would pass `max_bytes` as sent, is
/// an error result saying so.
pub(super) fn tool_result(
    reply: std::result::Result<Reply, String>,
    shape: Shape,
    asked: &Asked,
    max_bytes: usize,
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
        (200, Asked::Contract(names)) => projection::project_contract(body, names.as_deref()),
        _ => Ok(body.to_string()),
    };
    let Ok(text) = cut else {
        return not_json();
    };
    let Some(structured) = serde_json::from_str::<Value>(&text)
        .ok()
        .filter(Value::is_object)
    else {
        return not_json();
    };
    let bytes = projection::received_bytes(&text, true);
    if bytes > max_bytes {
        return refusal(projection::too_large(
            bytes,
            max_bytes,
            how_to_ask_less(shape),
        ));
    }
    let mut result = if reply.status == 200 {
        CallToolResult::success(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::error(vec![ContentBlock::text(text)])
    };
    result.structured_content = Some(structured);
    result
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
