//! The preview server's `/mcp` (Streamable HTTP, stateless, JSON responses) against every vector
//! of `tests/fixtures/mcp_http_vectors.json` (the edge function runs the same file), on a site
//! with data and on the no-data site; the rest of the site answering as before around it; and
//! real clients nobody here wrote: the official conformance suite and the MCP Inspector's CLI
//! with its HTTP transport. (The Python SDK's Streamable HTTP client is in tests/it/mcp.rs.)

use crate::common;

use common::mcp_http::check_vectors;
use common::oracle::{exchange, send};
use model_demand::site::{self, BuildOptions, SiteData};
use serde_json::{json, Value};

#[test]
fn every_vector_gets_its_status_and_error_on_the_preview_server() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let preview = common::serve_on_loopback(&out);
    check_vectors(&preview, true, &out);
}

#[test]
fn the_no_data_site_serves_the_same_endpoint() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    site::build(&SiteData::Unavailable, &BuildOptions::new(&out)).expect("no-data site builds");
    let preview = common::serve_on_loopback(&out);
    check_vectors(&preview, true, &out);
}

#[test]
fn other_paths_answer_as_before() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let preview = common::serve_on_loopback(&out);
    // Only the exact path is the endpoint: its neighbours are the site's 404s and 405s.
    for path in ["/mcp/", "/mcp/x", "/MCP", "/mcpx", "/api/mcp"] {
        let reply = exchange(&preview, "GET", path);
        assert_eq!(reply.status, 404, "{path}");
        assert_eq!(
            reply.header("content-type"),
            Some("application/json"),
            "{path}"
        );
    }
    let post = send(
        &preview,
        "POST",
        "/api/v1/about",
        &[("Content-Type", "application/json")],
        Some(b"{}"),
    );
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
    // A non-loopback Host still gets the site's pages: the rebinding rule is the endpoint's.
    let page = send(
        &preview,
        "GET",
        "/api/v1/about",
        &[("Host", "evil.example")],
        None,
    );
    assert_eq!(page.status, 200);
    let catalogue = exchange(&preview, "GET", "/_api/mcp.json");
    assert_eq!(catalogue.status, 200);
    assert_eq!(catalogue.header("content-type"), Some("application/json"));
}

#[test]
fn the_conformance_suite_passes_every_check() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let preview = common::serve_on_loopback(&out);
    // The suite's rebinding scenario sends its own Host; the others reach the server by name.
    let url = format!("{}/mcp", preview.replace("127.0.0.1", "localhost"));
    common::conformance::check_scenarios(
        &url,
        &[
            "server-initialize",
            "ping",
            "tools-list",
            "dns-rebinding-protection",
        ],
    );
}

#[test]
fn the_mcp_inspector_lists_the_tools_and_calls_one_over_http() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let preview = common::serve_on_loopback(&out);
    let url = format!("{preview}/mcp");
    let server = [url.as_ref(), "--transport".as_ref(), "http".as_ref()];
    common::mcp_client::inspector_lists_and_calls(dir.path(), &server, &out);
}

/// The preview server keeps a tool's result after its first call (`src/preview/results.rs`): the
/// same call again, under any id, is answered exactly as the handler answers it, as stdio does.
#[test]
fn a_tool_called_again_is_answered_as_the_first_time_whatever_its_id() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let preview = common::serve_on_loopback(&out);
    let calls = [
        json!({"name": "list_models", "arguments": {}}),
        json!({"name": "list_models", "arguments": {"sort": "latest_rank", "limit": 2}}),
        json!({"name": "list_models", "arguments": {"limit": 2, "sort": "latest_rank"}}),
        json!({"name": "get_model", "arguments": {"model_id": "acme/alpha-70b"}}),
        json!({"name": "get_model", "arguments": {"model_id": "no/such-model"}}),
        json!({"name": "list_models", "arguments": {"limit": 0}}),
    ];
    let ids = [json!(1), json!("twice \"quoted\""), json!(-9)];
    let mut messages = Vec::new();
    for (n, params) in calls.iter().enumerate() {
        for (k, id) in ids.iter().enumerate() {
            // Ids unique in the stdio session, of each kind.
            let id = match id {
                Value::Number(i) => json!(i.as_i64().expect("integer") * 100 - (n * 10 + k) as i64),
                Value::String(s) => json!(format!("{s} {n}")),
                other => other.clone(),
            };
            messages.push(
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}),
            );
        }
    }
    let stdio = common::mcp_http::stdio_answers(&out, &messages);
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let mut first: Option<(String, Vec<u8>)> = None;
    for (i, (message, expected)) in messages.iter().zip(&stdio).enumerate() {
        let body = message.to_string();
        let reply = send(&preview, "POST", "/mcp", &headers, Some(body.as_bytes()));
        assert_eq!(reply.status, 200, "{message}");
        let answer: Value = serde_json::from_slice(&reply.body).expect("JSON");
        assert_eq!(&answer, expected, "{message}");
        // Byte for byte: a kept answer is the handler's first one with the id in place.
        let id = message["id"].to_string();
        if i % ids.len() == 0 {
            first = Some((id, reply.body));
        } else if let Some((first_id, first_bytes)) = &first {
            let text = String::from_utf8(first_bytes.clone()).expect("UTF-8");
            let head = format!(r#"{{"jsonrpc":"2.0","id":{first_id},"#);
            let rest = text.strip_prefix(&head).expect("rmcp's envelope");
            let expected = format!(r#"{{"jsonrpc":"2.0","id":{id},{rest}"#);
            assert_eq!(String::from_utf8_lossy(&reply.body), expected, "{message}");
        }
    }
}
