//! Tool results of a built site, serialized once and sent as bytes: the store, the placeholder
//! a tool hands rmcp in their place, and the line the transport writes for a response that
//! carries one.
//!
//! Why: a default page's result is about 212 kB (the body escaped as text plus the same body
//! as `structuredContent`). rmcp takes results by value and serializes each whole message, so
//! answering from a cache of `CallToolResult`s spent most of each answer cloning a `Value` tree
//! and escaping the same text again (docs/agents.md has the profile). A built site does not
//! change while it is served, so its results are serialized once, with rmcp's own types and
//! serde_json, and every later answer copies those bytes into the JSON-RPC envelope. rmcp still
//! decides everything about the protocol: which request is answered, with which result type,
//! under which id; only the encoding of a result already encoded is reused.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{CallToolResult, JsonRpcMessage, MetaObject, RequestId, ServerResult};
use rmcp::service::TxJsonRpcMessage;
use rmcp::RoleServer;
use serde_json::Value;

/// The `_meta` key of a placeholder: its value is the request target whose result is stored.
const PLACEHOLDER_KEY: &str = "model-demand/prepared";
/// Bytes of serialized results kept (a default page's result is about 212 kB; the site does
/// not change while it is served, so nothing is ever evicted: a target stored stays stored).
pub const PREPARED_BYTES: usize = 128 * 1024 * 1024;

/// Serialized tool results by request target, within [`PREPARED_BYTES`].
#[derive(Default)]
pub struct PreparedResults {
    inner: Mutex<Store>,
}

#[derive(Default)]
struct Store {
    /// Each result serialized without its `resultType` (the legacy shape): the typed shape is
    /// the same object with `"resultType"` first, spliced in when a peer negotiated it.
    results: HashMap<String, Arc<[u8]>>,
    bytes: usize,
}

/// One line of standard output: `head`, then `body[from..]` when there is a body, then `tail`.
pub struct Line {
    /// The line's start (or all of it, newline included, when there is no body).
    pub head: Vec<u8>,
    /// A stored result and where in it the line continues.
    pub body: Option<(Arc<[u8]>, usize)>,
    /// The line's end.
    pub tail: &'static [u8],
}

impl Line {
    /// A line of bytes already whole (a message serialized here or by rmcp's reader).
    pub fn whole(head: Vec<u8>) -> Line {
        Line {
            head,
            body: None,
            tail: b"",
        }
    }

    /// The line's parts in order.
    pub fn parts(&self) -> [&[u8]; 3] {
        let body = self.body.as_ref().map_or(&[][..], |(b, from)| &b[*from..]);
        [&self.head, body, self.tail]
    }
}

impl PreparedResults {
    /// The placeholder for `target` when its result is stored.
    pub fn stored(&self, target: &str) -> Option<CallToolResult> {
        let stored = self
            .inner
            .lock()
            .is_ok_and(|store| store.results.contains_key(target));
        stored.then(|| placeholder(target))
    }

    /// Stores `result` for `target` when it fits, and gives the placeholder that stands for it.
    pub fn store(&self, target: &str, result: &CallToolResult) -> Option<CallToolResult> {
        self.insert(target, result).then(|| placeholder(target))
    }

    /// Whether the result of `target` is stored now (placeholders are made only then, and a
    /// stored result is never removed, so a placeholder always finds its bytes).
    fn insert(&self, target: &str, result: &CallToolResult) -> bool {
        let mut plain = result.clone();
        plain.result_type = None;
        let Ok(bytes) = serde_json::to_vec(&plain) else {
            return false;
        };
        // The splice in `line` needs an object with at least one member after `{`.
        if !(bytes.starts_with(b"{\"") && bytes.ends_with(b"}")) {
            return false;
        }
        let Ok(mut store) = self.inner.lock() else {
            return false;
        };
        if store.results.contains_key(target) {
            return true;
        }
        if store.bytes + bytes.len() > PREPARED_BYTES {
            return false;
        }
        store.bytes += bytes.len();
        store.results.insert(target.to_string(), bytes.into());
        true
    }

    /// The line for `message`: a response carrying a placeholder becomes the stored result in
    /// the JSON-RPC envelope rmcp writes (`{"jsonrpc":"2.0","id":…,"result":…}`); any other
    /// message is serialized as rmcp's codec does (serde_json, then a newline).
    pub fn line(&self, message: &TxJsonRpcMessage<RoleServer>) -> serde_json::Result<Line> {
        if let JsonRpcMessage::Response(response) = message {
            if let ServerResult::CallToolResult(result) = &response.result {
                if let Some(line) = self.spliced(&response.id, result)? {
                    return Ok(line);
                }
            }
        }
        let mut head = serde_json::to_vec(message)?;
        head.push(b'\n');
        Ok(Line::whole(head))
    }

    fn spliced(&self, id: &RequestId, result: &CallToolResult) -> serde_json::Result<Option<Line>> {
        let Some(target) = result
            .meta
            .as_ref()
            .and_then(|meta| meta.0.get(PLACEHOLDER_KEY))
            .and_then(Value::as_str)
        else {
            return Ok(None);
        };
        let Some(stored) = self
            .inner
            .lock()
            .ok()
            .and_then(|store| store.results.get(target).cloned())
        else {
            return Ok(None);
        };
        let mut head = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
        serde_json::to_writer(&mut head, id)?;
        head.extend_from_slice(b",\"result\":");
        let from = match &result.result_type {
            None => 0,
            Some(result_type) => {
                head.extend_from_slice(b"{\"resultType\":");
                serde_json::to_writer(&mut head, result_type)?;
                head.push(b',');
                1
            }
        };
        Ok(Some(Line {
            head,
            body: Some((stored, from)),
            tail: b"}\n",
        }))
    }
}

/// The result a tool hands rmcp for a stored `target`: nothing but a `_meta` naming it, with
/// the result type rmcp's constructors give (rmcp clears it for older peers).
fn placeholder(target: &str) -> CallToolResult {
    let mut result = CallToolResult::success(vec![]);
    result.is_error = None;
    let mut meta = serde_json::Map::new();
    meta.insert(PLACEHOLDER_KEY.into(), Value::String(target.to_string()));
    result.meta = Some(MetaObject(meta));
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ContentBlock, NumberOrString};

    fn real(text: &str, error: bool) -> CallToolResult {
        let mut result = if error {
            CallToolResult::error(vec![ContentBlock::text(text)])
        } else {
            CallToolResult::success(vec![ContentBlock::text(text)])
        };
        result.structured_content = serde_json::from_str(text).ok();
        result
    }

    fn bytes(line: &Line) -> Vec<u8> {
        line.parts().concat()
    }

    /// The spliced line equals what rmcp's codec writes for the real result, for both result
    /// shapes and both id kinds.
    #[test]
    fn a_placeholder_becomes_the_line_rmcp_would_write() {
        let store = PreparedResults::default();
        let body = r#"{"models":[{"model_id":"a/b:free","tokens":null,"note":"q\"\n\u2028"}]}"#;
        for error in [false, true] {
            let result = real(body, error);
            let target = format!("/api/v1/models?e={error}");
            assert!(store.insert(&target, &result));
            for legacy in [false, true] {
                for id in [
                    NumberOrString::Number(7),
                    NumberOrString::String("x\"y".into()),
                ] {
                    let (mut expected, mut stand_in) = (result.clone(), placeholder(&target));
                    if legacy {
                        expected.result_type = None;
                        stand_in.result_type = None;
                    }
                    let message = |r: CallToolResult| {
                        TxJsonRpcMessage::<RoleServer>::response(
                            ServerResult::CallToolResult(r),
                            id.clone(),
                        )
                    };
                    let mut want = serde_json::to_vec(&message(expected)).expect("serializes");
                    want.push(b'\n');
                    let got = store.line(&message(stand_in)).expect("line");
                    assert!(got.body.is_some(), "spliced");
                    assert_eq!(
                        String::from_utf8(bytes(&got)).expect("utf-8"),
                        String::from_utf8(want).expect("utf-8")
                    );
                }
            }
        }
    }

    #[test]
    fn other_messages_are_serialized_as_they_are() {
        let store = PreparedResults::default();
        let result = real(r#"{"a":1}"#, false);
        let message = TxJsonRpcMessage::<RoleServer>::response(
            ServerResult::CallToolResult(result),
            NumberOrString::Number(1),
        );
        let line = store.line(&message).expect("line");
        assert!(line.body.is_none());
        let mut want = serde_json::to_vec(&message).expect("serializes");
        want.push(b'\n');
        assert_eq!(bytes(&line), want);
        // A placeholder whose target was never stored is sent as it is, never as another's.
        let unknown = TxJsonRpcMessage::<RoleServer>::response(
            ServerResult::CallToolResult(placeholder("/nowhere")),
            NumberOrString::Number(2),
        );
        assert!(store.line(&unknown).expect("line").body.is_none());
    }

    #[test]
    fn the_store_keeps_within_its_bound_and_never_replaces() {
        let store = PreparedResults::default();
        let big = "x".repeat(PREPARED_BYTES / 2);
        let result = |s: &str| CallToolResult::success(vec![ContentBlock::text(s)]);
        assert!(store.insert("/a", &result(&big)));
        assert!(!store.insert("/b", &result(&big)), "over the bound");
        assert!(store.stored("/a").is_some() && store.stored("/b").is_none());
        assert!(
            store.store("/a", &result("other")).is_some(),
            "already stored"
        );
        let line = store
            .line(&TxJsonRpcMessage::<RoleServer>::response(
                ServerResult::CallToolResult(placeholder("/a")),
                NumberOrString::Number(1),
            ))
            .expect("line");
        assert!(
            bytes(&line).len() > PREPARED_BYTES / 2,
            "the first result stays"
        );
    }
}
