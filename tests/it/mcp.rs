//! The MCP servers driven by the official MCP Python SDK (`tests/clients/mcp_client.py`, pinned
//! in tests/requirements.txt, installed by the test in its tool cache), three ways: `model-demand
//! mcp --dir` on the small fixture's built site and `--base-url` against the preview server on
//! a loopback port (stdio), and the preview server's `/mcp` with the SDK's Streamable HTTP
//! client; on a site with data and on the no-data site. Every tool result must be the preview server's answer
//! to the same request byte for byte (and, for the models route, agree with the independent
//! oracle); the schemas must state the spec's sorts, orders and bounds; the instructions must be
//! the served contract's agent instructions.

use crate::common;

use std::path::Path;

use common::mcp_client::{
    assert_same_as_preview, case, cases, run_client, Case, Mode, OFFSET_MAX, RESOURCES,
};
use common::oracle::{exchange, Inputs, ORDERS, SORTS};
use model_demand::site::{self, BuildOptions, SiteData};
use serde_json::{json, Value};

/// The three ways to the tools of the site at `out` served by the preview server at `preview`:
/// stdio on the site on disk, stdio on the published site, and the preview server's `/mcp`.
fn modes(out: &Path, preview: &str) -> [Mode; 3] {
    [
        Mode::Stdio(vec![
            "mcp".to_string(),
            "--dir".to_string(),
            out.display().to_string(),
        ]),
        Mode::Stdio(vec![
            "mcp".to_string(),
            "--base-url".to_string(),
            preview.to_string(),
        ]),
        Mode::Url(format!("{preview}/mcp")),
    ]
}

/// The tool list states the spec's query space (written here from the spec, not the code).
fn assert_schemas(seen: &Value) {
    let tools = seen["tools"].as_array().expect("tools");
    let tool = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no tool {name}"))
    };
    let names: Vec<&str> = model_demand::answers::catalogue::TOOLS
        .iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(tools.len(), names.len());
    let list = &tool("list_models")["inputSchema"]["properties"];
    assert_eq!(list["sort"]["enum"], json!(SORTS));
    assert_eq!(list["order"]["enum"], json!(ORDERS));
    assert_eq!(
        (&list["limit"]["minimum"], &list["limit"]["maximum"]),
        (&json!(1), &json!(100))
    );
    assert_eq!(
        (&list["offset"]["minimum"], &list["offset"]["maximum"]),
        (&json!(0), &json!(OFFSET_MAX))
    );
    assert_eq!(
        tool("get_model")["inputSchema"]["required"],
        json!(["model_id"])
    );
    for name in names {
        let t = tool(name);
        assert_eq!(t["inputSchema"]["type"], "object", "{name}");
        // No output schemas: they took 53 kB each in every tools/list (issue 34).
        assert!(t.get("outputSchema").is_none(), "{name}");
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{name}");
        assert!(
            t["description"].as_str().is_some_and(|d| d.len() > 40),
            "{name}"
        );
    }
    let uris: Vec<&str> = seen["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| r["uri"].as_str().expect("uri"))
        .collect();
    assert_eq!(uris, RESOURCES.iter().map(|(u, _)| *u).collect::<Vec<_>>());
    assert_eq!(seen["server_name"], "model-demand");
}

/// The tools and instructions are the site's catalogue (`/_api/mcp.json`), as served.
fn assert_catalogue(seen: &Value, preview: &str) {
    let reply = exchange(preview, "GET", "/_api/mcp.json");
    assert_eq!(reply.status, 200, "the catalogue is served");
    let catalogue: Value = serde_json::from_slice(&reply.body).expect("catalogue JSON");
    assert_eq!(catalogue["schema_version"], "model-demand.mcp-catalogue.v1");
    assert_eq!(
        seen["tools"], catalogue["tools"],
        "tools/list is the catalogue"
    );
    assert_eq!(seen["instructions"], catalogue["instructions"]);
}

/// The models-route results agree with the independent oracle: status class and error code,
/// and the whole body of every 200.
fn assert_same_as_oracle(seen: &Value, cases: &[Case]) {
    let inputs = Inputs::fixture("tests/fixtures/small", common::SMALL_NOW);
    let routed: Vec<(usize, String)> = cases
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            Some((
                i,
                c.target
                    .strip_prefix("/api/v1/models")?
                    .trim_start_matches('?')
                    .to_string(),
            ))
        })
        .collect();
    let queries: Vec<String> = routed.iter().map(|(_, q)| q.clone()).collect();
    for ((i, query), answer) in routed.iter().zip(inputs.run(&[], &queries)) {
        let result = &seen["results"][i];
        assert_eq!(result["is_error"], answer["status"] != 200, "?{query}");
        // The JSON comes once, as text (issue 41).
        let parsed: Value = result["texts"][0]
            .as_str()
            .and_then(|t| serde_json::from_str(t).ok())
            .expect("the text is JSON");
        if answer["status"] == 200 {
            assert_eq!(parsed, answer["body"], "?{query}");
        } else {
            assert_eq!(parsed["error"], answer["error"], "?{query}");
        }
    }
}

#[test]
fn the_python_sdk_sees_the_preview_servers_answers_in_every_mode() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let preview = common::serve_on_loopback(&out);
    let ids =
        Inputs::fixture("tests/fixtures/small", common::SMALL_NOW).order("tokens_30d", "desc");
    assert!(
        ids.iter().any(|id| id.contains('/') && id.contains(':')),
        "an ID with / and :"
    );
    let cases = cases(&ids);
    let mut seen_by_mode = Vec::new();
    for mode in modes(&out, &preview) {
        let seen = run_client(dir.path(), &mode, &cases);
        assert_schemas(&seen);
        assert_catalogue(&seen, &preview);
        assert_same_as_preview(&seen, &cases, &preview);
        assert_same_as_oracle(&seen, &cases);
        seen_by_mode.push(seen);
    }
    // The same results, byte for byte, whichever way the client came.
    for seen in &seen_by_mode[1..] {
        assert_eq!(seen["results"], seen_by_mode[0]["results"]);
        assert_eq!(seen["tools"], seen_by_mode[0]["tools"]);
        assert_eq!(seen["read"], seen_by_mode[0]["read"]);
    }
}

#[test]
fn the_no_data_site_answers_503_through_the_tools() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    site::build(&SiteData::Unavailable, &BuildOptions::new(&out)).expect("no-data site builds");
    let preview = common::serve_on_loopback(&out);
    let models = "/api/v1/models";
    let cases = vec![
        case("get_contract", json!({}), "/api/v1/about"),
        case(
            "list_models",
            json!({"fields": ["*"]}),
            format!("{models}?limit=10"),
        ),
        case(
            "list_models",
            json!({"limit": 0}),
            format!("{models}?limit=0"),
        ),
        case(
            "get_model",
            json!({"model_id": "a/b:free"}),
            format!("{models}?model_id=a/b:free"),
        ),
    ];
    for mode in modes(&out, &preview) {
        let seen = run_client(dir.path(), &mode, &cases);
        assert_catalogue(&seen, &preview);
        assert_same_as_preview(&seen, &cases, &preview);
        for result in &seen["results"].as_array().expect("results")[1..] {
            let parsed: Value = result["texts"][0]
                .as_str()
                .and_then(|t| serde_json::from_str(t).ok())
                .expect("the text is JSON");
            assert_eq!(parsed["error"], "data_unavailable");
        }
    }
}
