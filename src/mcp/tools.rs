//! What a tool call sends and gets: the raw query string its arguments become, and the tool
//! result an answer of the site becomes. What the tools are (names, schemas) is the catalogue's
//! (`crate::catalogue`).
//!
//! The arguments are taken as any JSON: the published schema states the enums and bounds, but a
//! value outside them is sent on as a client would send it, so the site's router refuses it with
//! the API's own `400 invalid_query` body instead of the SDK refusing it with a protocol error.

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::Value;

use super::source::Reply;
use crate::catalogue::query_text;
use crate::query::percent_encode;

/// The raw query string of a tool call: every argument as `name=value`, percent-encoded, in the
/// order given; a null argument is left out as an absent one. `first` (`model_id` for
/// `get_model`) comes first and is sent empty when absent, so the router refuses it as empty.
pub fn raw_query(arguments: &JsonObject, first: Option<&str>) -> String {
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

/// The tool result of an answer: its body as the text, byte for byte, and parsed as the
/// structured content; any status but 200 is an error result. An answer that is not the API's
/// JSON (a CDN's error page) is an error result naming the status.
pub fn tool_result(reply: std::result::Result<Reply, String>) -> CallToolResult {
    let reply = match reply {
        Ok(reply) => reply,
        Err(why) => return CallToolResult::error(vec![ContentBlock::text(why)]),
    };
    let parsed = serde_json::from_slice::<Value>(&reply.body)
        .ok()
        .filter(Value::is_object);
    let (Ok(text), Some(structured)) = (String::from_utf8(reply.body), parsed) else {
        return CallToolResult::error(vec![ContentBlock::text(format!(
            "the site answered {} with a body that is not the API's JSON",
            reply.status
        ))]);
    };
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
