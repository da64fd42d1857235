//! The preview server's `/mcp` tool results, kept serialized: a site does not change while it is
//! served, so a tool called again with the same arguments under the same protocol version has
//! the same result, and only the request's `id` differs. The first call is answered by the MCP
//! handler (rmcp deciding everything); its result is kept only when splicing it behind the
//! request's id reproduces the handler's answer byte for byte, so a kept result can never
//! answer differently from the handler. Memory stays bounded: at most [`MAX_BYTES`] of results,
//! all dropped when a new one would pass it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::mcp::{ClientJsonRpcMessage, ProtocolVersion, ServerJsonRpcMessage};

/// The most bytes of results kept (the sample's largest page is about 200 kB a result).
pub const MAX_BYTES: usize = 64 * 1024 * 1024;

/// A response as the bytes before a kept result, the result, and the bytes after it.
pub type Spliced = (Vec<u8>, Arc<[u8]>, &'static [u8]);

/// Kept results by call.
#[derive(Default)]
pub struct Results {
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    by_call: HashMap<String, Arc<[u8]>>,
    bytes: usize,
}

/// A `tools/call` request as the cache knows it: the key of its result and its id's JSON text.
pub struct Call {
    key: String,
    id: String,
}

impl Call {
    /// The call a message is, when it is a `tools/call` request whose id is a string or an
    /// integer (what JSON-RPC ids are; anything else goes to the handler to judge). `value` is
    /// the message as sent, `message` as rmcp parsed it, so only what rmcp accepts is kept.
    pub fn of(
        value: &Value,
        message: &ClientJsonRpcMessage,
        version: &ProtocolVersion,
    ) -> Option<Call> {
        let ClientJsonRpcMessage::Request(request) = message else {
            return None;
        };
        if !matches!(
            request.request,
            rmcp::model::ClientRequest::CallToolRequest(_)
        ) {
            return None;
        }
        let id = &value["id"];
        if !(id.is_string() || id.is_i64() || id.is_u64()) {
            return None;
        }
        // Arguments in the order sent (serde_json keeps it): the order is part of the query.
        let key = format!("{}\n{}", version.as_str(), value.get("params")?);
        Some(Call {
            key,
            id: id.to_string(),
        })
    }
}

impl Results {
    /// The answer to `call` from a kept result, when there is one: the response's bytes before
    /// the result, the result, and after it (a [`Body::Around`](super::router::Body::Around)).
    pub fn answer(&self, call: &Call) -> Option<Spliced> {
        let result = self.lock().by_call.get(&call.key).cloned()?;
        Some((head(&call.id), result, TAIL))
    }

    /// Keeps the result of `answer`, the handler's answer to `call` serialized as `bytes`, when
    /// the splice reproduces those bytes exactly.
    pub fn keep(&self, call: &Call, answer: &ServerJsonRpcMessage, bytes: &[u8]) {
        let ServerJsonRpcMessage::Response(response) = answer else {
            return;
        };
        let Ok(result) = serde_json::to_vec(&response.result) else {
            return;
        };
        if envelope(&call.id, &result) != bytes {
            return;
        }
        let mut kept = self.lock();
        if kept.bytes + result.len() > MAX_BYTES {
            kept.by_call.clear();
            kept.bytes = 0;
        }
        if result.len() <= MAX_BYTES {
            kept.bytes += result.len();
            if let Some(old) = kept.by_call.insert(call.key.clone(), result.into()) {
                kept.bytes -= old.len();
            }
        }
    }

    /// Bytes of results kept now.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What follows the result in a response.
const TAIL: &[u8] = b"}";

/// What precedes the result in a JSON-RPC response as rmcp writes one:
/// `{"jsonrpc":"2.0","id":ID,"result":RESULT}`.
fn head(id: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"#).into_bytes()
}

/// A whole response around `result`.
fn envelope(id: &str, result: &[u8]) -> Vec<u8> {
    [head(id).as_slice(), result, TAIL].concat()
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CallToolResult, ContentBlock, RequestId, ServerResult};
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    fn call(id: Value, arguments: Value) -> (Value, ClientJsonRpcMessage) {
        let value = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "list_models", "arguments": arguments}});
        let message = ClientJsonRpcMessage::deserialize(&value).expect("a request");
        (value, message)
    }

    /// rmcp's own answer to a request with `id`: a tool result holding `text`.
    fn rmcp_answer(id: &Value, text: &str) -> (ServerJsonRpcMessage, Vec<u8>) {
        let id: RequestId = serde_json::from_value(id.clone()).expect("an id");
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = serde_json::from_str(text).ok();
        let answer = ServerJsonRpcMessage::response(ServerResult::CallToolResult(result), id);
        let bytes = serde_json::to_vec(&answer).expect("serializes");
        (answer, bytes)
    }

    fn joined((head, kept, tail): Spliced) -> Vec<u8> {
        [head.as_slice(), &kept, tail].concat()
    }

    #[test]
    fn a_kept_result_answers_any_id_byte_for_byte_as_rmcp_does() {
        let results = Results::default();
        let version = ProtocolVersion::V_2025_06_18;
        let text = "{\"a\":\"q\\\"uote\\nline \u{2028} \u{e9}\",\"n\":[1,2.5]}";
        let (value, message) = call(json!(1), json!({"limit": 3}));
        let first = Call::of(&value, &message, &version).expect("a tools/call");
        assert!(results.answer(&first).is_none());
        let (answer, bytes) = rmcp_answer(&json!(1), text);
        results.keep(&first, &answer, &bytes);
        assert!(results.bytes() > 0);
        for id in [json!(7), json!("a\"b\\c"), json!(i64::MAX), json!(-3)] {
            let (value, message) = call(id.clone(), json!({"limit": 3}));
            let again = Call::of(&value, &message, &version).expect("a tools/call");
            let (_, expected) = rmcp_answer(&id, text);
            let body = results.answer(&again).expect("kept");
            assert_eq!(joined(body), expected, "id {id}");
        }
        // Other arguments, their order, or another version: another call.
        for (arguments, version) in [
            (json!({"limit": 4}), ProtocolVersion::V_2025_06_18),
            (
                json!({"limit": 3, "offset": 0}),
                ProtocolVersion::V_2025_06_18,
            ),
            (json!({"limit": 3}), ProtocolVersion::V_2025_03_26),
        ] {
            let (value, message) = call(json!(2), arguments);
            let other = Call::of(&value, &message, &version).expect("a tools/call");
            assert!(results.answer(&other).is_none());
        }
    }

    #[test]
    fn only_tool_calls_with_plain_ids_are_kept_and_memory_is_bounded() {
        let version = ProtocolVersion::V_2025_06_18;
        let listing = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let message = ClientJsonRpcMessage::deserialize(&listing).expect("a request");
        assert!(Call::of(&listing, &message, &version).is_none());
        let results = Results::default();
        let big = format!("\"{}\"", "x".repeat(MAX_BYTES / 3));
        for n in 0..10 {
            let (value, message) = call(json!(n), json!({"offset": n}));
            let call = Call::of(&value, &message, &version).expect("a tools/call");
            let (answer, bytes) = rmcp_answer(&json!(n), &big);
            results.keep(&call, &answer, &bytes);
            assert!(
                results.bytes() <= MAX_BYTES,
                "{} after {n}",
                results.bytes()
            );
        }
        // An answer the splice would not reproduce (another id) is never kept.
        let (value, message) = call(json!(1), json!({}));
        let call = Call::of(&value, &message, &version).expect("a tools/call");
        let (answer, bytes) = rmcp_answer(&json!(2), "{}");
        let results = Results::default();
        results.keep(&call, &answer, &bytes);
        assert_eq!(results.bytes(), 0);
    }
}
