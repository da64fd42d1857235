//! `/llms.txt` on the preview server, on a site with data and on the no-data site: present,
//! plain text, Markdown (a `# ` title, a `> ` summary, `## ` sections), naming every route of
//! the served contract and every parameter, with the contract's agent instructions and links,
//! and the same bytes on every build of the same inputs.

use crate::common;

use common::oracle::exchange;
use model_demand::site::{self, BuildOptions, SiteData};
use serde_json::Value;

fn check_guide(preview: &str) {
    let reply = exchange(preview, "GET", "/llms.txt");
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    let guide = String::from_utf8(reply.body).expect("UTF-8");
    let about: Value =
        serde_json::from_slice(&exchange(preview, "GET", "/api/v1/about").body).expect("about");
    let mut lines = guide.lines();
    assert!(lines.next().is_some_and(|l| l.starts_with("# ")), "title");
    assert_eq!(lines.next(), Some(""));
    assert!(lines.next().is_some_and(|l| l.starts_with("> ")), "summary");
    for section in [
        "## Routes",
        "## Agent instructions",
        "## Links",
        "## MCP server",
    ] {
        assert!(guide.lines().any(|l| l == section), "{section} missing");
    }
    for route in about["routes"].as_array().expect("routes") {
        let path = route["path"].as_str().expect("path");
        assert!(guide.contains(&format!("`GET {path}`")), "{path} missing");
    }
    for path in [
        "/api/openapi.json",
        "/api/export",
        "/api/supply",
        "/llms.txt",
    ] {
        assert!(guide.contains(&format!("`GET {path}`")), "{path} missing");
    }
    for parameter in about["query_parameters"].as_array().expect("parameters") {
        let name = parameter["name"].as_str().expect("name");
        assert!(guide.contains(&format!("- `{name}` (")), "{name} missing");
    }
    for line in about["agent_instructions"]
        .as_array()
        .expect("instructions")
    {
        assert!(guide.contains(line.as_str().expect("text")), "{line}");
    }
    for link in ["documentation", "openapi", "full_export"] {
        let url = about["links"][link].as_str().expect("link");
        assert!(guide.contains(&format!("]({url})")), "{link} link missing");
    }
    assert!(
        guide.contains("\"mcp\", \"--base-url\""),
        "MCP client entry"
    );
    let base = about["links"]["openapi"]
        .as_str()
        .and_then(|u| u.strip_suffix("/api/openapi.json"))
        .expect("the site's base URL");
    assert!(
        guide.contains(&format!("\"url\": \"{base}/mcp\"")),
        "the MCP entry by URL"
    );
    assert!(
        guide.find("\"type\": \"http\"") < guide.find("\"command\": \"model-demand\""),
        "the URL entry comes first"
    );
}

#[test]
fn the_agent_docs_give_the_entries_the_program_writes() {
    use model_demand::answers::catalogue::{client_config, Connection};
    let base = model_demand::site::DEFAULT_BASE_URL;
    let agents = std::fs::read_to_string(common::crate_path("docs/agents.md")).expect("agents.md");
    let by_url = client_config(base, Connection::Url);
    let stdio = client_config(base, Connection::Stdio);
    assert!(agents.contains(&by_url), "docs/agents.md: {by_url}");
    assert!(agents.contains(&stdio), "docs/agents.md: {stdio}");
    assert!(agents.find(&by_url) < agents.find(&stdio), "URL first");
}

#[test]
fn the_guide_is_served_as_text_on_both_kinds_of_site() {
    let dir = common::tempdir().expect("temp dir");
    let with_data = dir.path().join("data");
    common::build_small(&with_data);
    check_guide(&common::serve_on_loopback(&with_data));

    let without = dir.path().join("none");
    site::build(&SiteData::Unavailable, &BuildOptions::new(&without)).expect("no-data site");
    check_guide(&common::serve_on_loopback(&without));

    // Same inputs, same bytes; the docs page links the guide.
    let again = dir.path().join("again");
    common::build_small(&again);
    let read = |root: &std::path::Path| std::fs::read(root.join("llms.txt")).expect("llms.txt");
    assert_eq!(read(&with_data), read(&again));
    assert_eq!(
        read(&with_data),
        read(&without),
        "the guide loads no model data"
    );
    let docs = std::fs::read_to_string(with_data.join("docs/index.html")).expect("docs");
    assert!(docs.contains("href=\"/llms.txt\""));
}
