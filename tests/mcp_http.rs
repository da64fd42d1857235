//! The preview server's `/mcp` (Streamable HTTP, stateless, JSON responses) against every vector
//! of `tests/fixtures/mcp_http_vectors.json` (the edge function runs the same file), on a site
//! with data and on the no-data site; and the rest of the site answering as before around it.

mod common;

use common::mcp_http::check_vectors;
use common::oracle::{exchange, send};
use model_demand::site::{self, BuildOptions, SiteData};

#[test]
fn every_vector_gets_its_status_and_error_on_the_preview_server() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let preview = common::serve_on_loopback(&out);
    check_vectors(&preview, true, &out);
}

#[test]
fn the_no_data_site_serves_the_same_endpoint() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    site::build(&SiteData::Unavailable, &BuildOptions::new(&out)).expect("no-data site builds");
    let preview = common::serve_on_loopback(&out);
    check_vectors(&preview, true, &out);
}

#[test]
fn other_paths_answer_as_before() {
    let dir = tempfile::tempdir().expect("temp dir");
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
