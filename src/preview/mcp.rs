//! The preview server's `/mcp`: the MCP Streamable HTTP transport's HTTP rules, stateless (no
//! session; every POST stands alone) with JSON responses only (never an SSE stream), on
//! tiny_http. Each POSTed message is handed to the MCP handler (`crate::agents`, rmcp deciding the
//! protocol) and its answer sent back; everything refused here is refused before the handler
//! sees it, with a JSON-RPC error body. The rules, in the order they apply, are the vectors of
//! `tests/fixtures/mcp_http_vectors.json` (the edge function answers the same file).
//!
//! SECURITY: the body is read to at most [`MAX_BODY_BYTES`] (a longer one is refused with 413,
//! unread past the limit); the server listens on loopback, so a request whose `Host` or
//! `Origin` names another host (a page that rebound its DNS name to 127.0.0.1) is refused with
//! 403, whatever address the server binds. Response headers are static text and lengths only.

use std::io::Read;

use serde_json::json;

use crate::agents::{self, ApiServer, ProtocolVersion};
use crate::site::{Answer, Body};

/// The public path of the endpoint.
pub(super) use crate::answers::catalogue::MCP_PATH;
/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// The request headers a browser client may send (CORS).
pub const ALLOWED_HEADERS: &str =
    "Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID, Authorization";

/// The JSON-RPC error code of the transport's own refusals (the official TypeScript SDK's
/// transport uses -32000 for these too); a message's refusals are `agents::read_message`'s.
const TRANSPORT_ERROR: i64 = -32000;

/// True when a request-target names the endpoint (its path, with or without a query).
pub(super) fn is_mcp(target: &str) -> bool {
    target.split('?').next() == Some(MCP_PATH)
}

/// Answers one request to `/mcp`.
pub(super) fn answer(server: &ApiServer, request: &mut tiny_http::Request) -> Answer {
    let header = |name: &'static str| header(request, name);
    let host_ok = header("Host").is_some_and(|host| is_loopback_authority(&host));
    let origin_ok = header("Origin").is_none_or(|origin| is_loopback_origin(&origin));
    if !host_ok || !origin_ok {
        return refusal(
            403,
            TRANSPORT_ERROR,
            "Forbidden: /mcp of the preview server answers only requests addressed to localhost, 127.0.0.1 or [::1] (Host and Origin)",
        );
    }
    match request.method() {
        tiny_http::Method::Options => return preflight(),
        tiny_http::Method::Post => {}
        _ => {
            let mut answer = refusal(
                405,
                TRANSPORT_ERROR,
                "Method Not Allowed: this server is stateless and offers no stream; POST JSON-RPC messages",
            );
            answer.headers.push(("Allow", "POST".to_string()));
            return answer;
        }
    }
    if !header("Content-Type").is_some_and(|value| is_json_media_type(&value)) {
        return refusal(
            415,
            TRANSPORT_ERROR,
            "Unsupported Media Type: Content-Type must be application/json",
        );
    }
    if !header("Accept").is_none_or(|value| accepts_json(&value)) {
        return refusal(
            406,
            TRANSPORT_ERROR,
            "Not Acceptable: the client must accept application/json",
        );
    }
    let version = match header("Mcp-Protocol-Version") {
        None => ProtocolVersion::V_2025_03_26,
        Some(value) => match supported_version(&value) {
            Some(version) => version,
            None => {
                return refusal(
                    400,
                    TRANSPORT_ERROR,
                    &format!(
                        "Bad Request: unsupported MCP-Protocol-Version; supported: {}",
                        supported_versions_text()
                    ),
                )
            }
        },
    };
    let Some(body) = read_body(request) else {
        return refusal(
            413,
            TRANSPORT_ERROR,
            &format!("Payload Too Large: the body exceeds {MAX_BODY_BYTES} bytes"),
        );
    };
    // The one rule of every transport (src/agents/message.rs): a refusal carries the request's id
    // whenever it can be read; a message that is no request this server takes is HTTP 400.
    let message = match agents::read_message(&body) {
        agents::Read::Message(message) => *message,
        agents::Read::Nothing => return accepted(),
        agents::Read::Refused(refused) => {
            let status = if refused.is_bad_message() { 400 } else { 200 };
            return json_answer(status, refused.answer());
        }
    };
    match agents::answer_one(server, message, version) {
        None => accepted(),
        Some(answer) => match serde_json::to_vec(&answer) {
            Ok(bytes) => json_answer(200, bytes),
            Err(_) => refusal(500, -32603, "Internal error"),
        },
    }
}

/// The value of the request header `name` (the first, when it is repeated).
fn header(request: &tiny_http::Request, name: &'static str) -> Option<String> {
    request
        .headers()
        .iter()
        .find(|h| h.field.equiv(name))
        .map(|h| h.value.as_str().to_string())
}

/// The body, or `None` when it is longer than [`MAX_BODY_BYTES`] (read no further than that).
fn read_body(request: &mut tiny_http::Request) -> Option<Vec<u8>> {
    if request.body_length().is_some_and(|n| n > MAX_BODY_BYTES) {
        return None;
    }
    let mut body = Vec::new();
    let limit = MAX_BODY_BYTES as u64 + 1;
    request
        .as_reader()
        .take(limit)
        .read_to_end(&mut body)
        .ok()?;
    (body.len() <= MAX_BODY_BYTES).then_some(body)
}

/// The headers of every answer of the endpoint.
fn headers(content_type: bool) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("Cache-Control", "no-store".to_string()),
        ("Access-Control-Allow-Origin", "*".to_string()),
        ("X-Content-Type-Options", "nosniff".to_string()),
    ];
    if content_type {
        headers.insert(0, ("Content-Type", "application/json".to_string()));
    }
    headers
}

fn json_answer(status: u16, body: Vec<u8>) -> Answer {
    Answer {
        status,
        headers: headers(true),
        length: body.len() as u64,
        body: Body::Bytes(body),
    }
}

/// A refusal: `status` with a JSON-RPC error (no id: the request's is not known or not read).
fn refusal(status: u16, code: i64, message: &str) -> Answer {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    json_answer(status, body.to_string().into_bytes())
}

/// 202 with no body: a notification or a client's response was taken.
fn accepted() -> Answer {
    Answer {
        status: 202,
        headers: headers(false),
        body: Body::Bytes(Vec::new()),
        length: 0,
    }
}

/// The CORS preflight's answer.
fn preflight() -> Answer {
    let mut headers = headers(false);
    headers.extend([
        ("Access-Control-Allow-Methods", "POST".to_string()),
        ("Access-Control-Allow-Headers", ALLOWED_HEADERS.to_string()),
        ("Access-Control-Max-Age", "86400".to_string()),
    ]);
    Answer {
        status: 204,
        headers,
        body: Body::Bytes(Vec::new()),
        length: 0,
    }
}

/// The protocol version a header names, when it is one the server supports.
fn supported_version(value: &str) -> Option<ProtocolVersion> {
    agents::supported_protocol_versions()
        .iter()
        .find(|v| v.as_str() == value.trim())
        .cloned()
}

fn supported_versions_text() -> String {
    agents::supported_protocol_versions()
        .iter()
        .map(ProtocolVersion::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `application/json`, with any parameters (`; charset=utf-8`), in any case.
fn is_json_media_type(value: &str) -> bool {
    let essence = value.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/json")
}

/// True when an `Accept` header admits `application/json` (also through `application/*` or
/// `*/*`) with a weight above zero.
fn accepts_json(value: &str) -> bool {
    value.split(',').any(|range| {
        let mut parts = range.split(';');
        let essence = parts.next().unwrap_or("").trim();
        let refused = parts.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        !refused
            && ["application/json", "application/*", "*/*"]
                .iter()
                .any(|accepted| essence.eq_ignore_ascii_case(accepted))
    })
}

/// True for `localhost`, `127.0.0.1` or `[::1]`, with or without a port.
fn is_loopback_authority(authority: &str) -> bool {
    let authority = authority.trim();
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        match rest.split_once(']') {
            Some((host, port)) => (format!("[{host}]"), port),
            None => return false,
        }
    } else {
        let at = authority.find(':').unwrap_or(authority.len());
        (authority[..at].to_string(), &authority[at..])
    };
    let port_ok = port.is_empty()
        || port.strip_prefix(':').is_some_and(|p| {
            !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
        });
    port_ok
        && ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .any(|loopback| host.eq_ignore_ascii_case(loopback))
}

/// True for an `Origin` of `http` or `https` on a loopback authority.
fn is_loopback_origin(origin: &str) -> bool {
    let origin = origin.trim();
    ["http://", "https://"].iter().any(|scheme| {
        origin
            .get(..scheme.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(scheme))
            && is_loopback_authority(&origin[scheme.len()..])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_names_pass_the_rebinding_check() {
        for good in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1:1",
            "[::1]",
            "[::1]:443",
        ] {
            assert!(is_loopback_authority(good), "{good}");
        }
        for bad in [
            "evil.test",
            "localhost.evil.test",
            "127.0.0.1.evil.test",
            "127.0.0.2",
            "[::2]",
            "localhost:",
            "localhost:80x",
            "localhost:8080@evil.test",
            "",
            "[::1",
        ] {
            assert!(!is_loopback_authority(bad), "{bad}");
        }
        assert!(is_loopback_origin("http://localhost:6274"));
        assert!(is_loopback_origin("https://127.0.0.1"));
        for bad in [
            "null",
            "http://evil.test",
            "file://",
            "localhost",
            "ftp://localhost",
        ] {
            assert!(!is_loopback_origin(bad), "{bad}");
        }
    }

    #[test]
    fn media_types_and_accept_ranges() {
        assert!(is_json_media_type("application/json"));
        assert!(is_json_media_type("Application/JSON; charset=utf-8"));
        assert!(!is_json_media_type("text/plain"));
        assert!(!is_json_media_type("application/jsonx"));
        assert!(accepts_json("application/json, text/event-stream"));
        assert!(accepts_json("text/event-stream, */*"));
        assert!(accepts_json("application/*;q=0.5"));
        assert!(!accepts_json("text/event-stream"));
        assert!(!accepts_json("application/json;q=0"));
        assert!(!accepts_json("text/html"));
    }

    #[test]
    fn only_handshake_versions_are_supported() {
        assert!(supported_version("2025-06-18").is_some());
        assert!(supported_version("2025-11-25").is_some());
        assert!(supported_version("2026-07-28").is_none());
        assert!(supported_version("1999-01-01").is_none());
    }
}
