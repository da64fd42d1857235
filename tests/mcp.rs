//! `model-demand mcp` driven by the official MCP Python SDK (`tests/clients/mcp_client.py`,
//! pinned in tests/requirements.txt, installed by the test under target/pyenv), in both modes:
//! `--dir` on the small fixture's built site and `--base-url` against the preview server on a
//! loopback port, and on the no-data site. Every tool result must be the preview server's answer
//! to the same request byte for byte (and, for the models route, agree with the independent
//! oracle); the schemas must state the spec's sorts, orders and bounds; the instructions must be
//! the served contract's agent instructions.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::oracle::{exchange, Inputs, ORDERS, SORTS};
use model_demand::site::{self, BuildOptions, SiteData};
use serde_json::{json, Value};

/// Largest offset (2^53 − 1), from the spec.
const OFFSET_MAX: u64 = 9_007_199_254_740_991;

/// One tool call and the request a client of the API would send for it.
struct Case {
    tool: &'static str,
    arguments: Value,
    target: String,
}

fn case(tool: &'static str, arguments: Value, target: impl Into<String>) -> Case {
    Case {
        tool,
        arguments,
        target: target.into(),
    }
}

/// Every class of request: defaults, each sort and order, edge limits and offsets, pages past
/// the end, each served ID (with `/` and `:`), unknown IDs and refused arguments.
fn cases(ids: &[String]) -> Vec<Case> {
    let n = ids.len() as u64;
    let models = "/api/v1/models";
    let mut all = vec![
        case("get_contract", json!({}), "/api/v1/about"),
        case("list_models", json!({}), models),
    ];
    for sort in SORTS {
        all.push(case(
            "list_models",
            json!({"sort": sort}),
            format!("{models}?sort={sort}"),
        ));
        for order in ORDERS {
            all.push(case(
                "list_models",
                json!({"sort": sort, "order": order, "limit": 100}),
                format!("{models}?sort={sort}&order={order}&limit=100"),
            ));
        }
    }
    for order in ORDERS {
        all.push(case(
            "list_models",
            json!({"order": order}),
            format!("{models}?order={order}"),
        ));
    }
    for (limit, offset) in [
        (1, 0),
        (100, 0),
        (2, n - 1),
        (2, n),
        (2, n + 1),
        (3, n + 5),
        (1, OFFSET_MAX),
    ] {
        all.push(case(
            "list_models",
            json!({"limit": limit, "offset": offset}),
            format!("{models}?limit={limit}&offset={offset}"),
        ));
    }
    for id in ids {
        all.push(case(
            "get_model",
            json!({"model_id": id}),
            format!("{models}?model_id={id}"),
        ));
    }
    let combined = format!("model_id={}&limit=1", ids[0]);
    let refused = [
        (json!({"limit": 0}), "limit=0"),
        (json!({"limit": 101}), "limit=101"),
        (json!({"limit": -1}), "limit=-1"),
        (json!({"limit": 1.5}), "limit=1.5"),
        (json!({"limit": "abc"}), "limit=abc"),
        (json!({"offset": OFFSET_MAX + 1}), "offset=9007199254740992"),
        (json!({"sort": "bogus"}), "sort=bogus"),
        (json!({"sort": ""}), "sort="),
        (json!({"order": "up"}), "order=up"),
        (json!({"colour": "red"}), "colour=red"),
        (json!({"model_id": ids[0], "limit": 1}), combined.as_str()),
    ];
    for (arguments, query) in refused {
        all.push(case("list_models", arguments, format!("{models}?{query}")));
    }
    all.push(case(
        "get_model",
        json!({"model_id": "nobody/unknown-model:free"}),
        format!("{models}?model_id=nobody/unknown-model:free"),
    ));
    all.push(case("get_model", json!({}), format!("{models}?model_id=")));
    all.push(case(
        "get_model",
        json!({"model_id": ids[0], "sort": "tokens_30d"}),
        format!("{models}?model_id={}&sort=tokens_30d", ids[0]),
    ));
    all
}

/// The resources every MCP client can read, and the site path each one is.
const RESOURCES: [(&str, &str); 3] = [
    ("model-demand:///api/v1/about", "/api/v1/about"),
    ("model-demand:///api/openapi.json", "/api/openapi.json"),
    ("model-demand:///llms.txt", "/llms.txt"),
];

/// Runs the Python client against `model-demand mcp ARGS` with these calls; what it saw.
fn run_client(dir: &Path, server_args: &[String], cases: &[Case]) -> Value {
    let python = common::pyenv::python_env("mcp", &common::pyenv::pinned(&["mcp"]));
    let plan = json!({
        "command": env!("CARGO_BIN_EXE_model-demand"),
        "args": server_args,
        "calls": cases.iter().map(|c| json!({"tool": c.tool, "arguments": c.arguments})).collect::<Vec<_>>(),
        "resources": RESOURCES.iter().map(|(uri, _)| *uri).collect::<Vec<_>>(),
    });
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let plan_path = dir.join(format!(
        "plan-{}.json",
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&plan_path, plan.to_string()).expect("write plan");
    let out = Command::new(python)
        .arg(common::crate_path("tests/clients/mcp_client.py"))
        .arg(&plan_path)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "the MCP client failed: {}",
        common::output_text(&out)
    );
    serde_json::from_slice(&out.stdout).expect("the client prints JSON")
}

/// Every result equals the preview server's answer to the same request, byte for byte.
fn assert_same_as_preview(seen: &Value, cases: &[Case], preview: &str) {
    let results = seen["results"].as_array().expect("results");
    assert_eq!(results.len(), cases.len());
    for (result, case) in results.iter().zip(cases) {
        let reply = exchange(preview, "GET", &case.target);
        let body = String::from_utf8(reply.body).expect("UTF-8 body");
        let what = format!("{} {} ({})", case.tool, case.arguments, case.target);
        assert_eq!(result["texts"], json!([body]), "{what}: text");
        assert_eq!(result["is_error"], reply.status != 200, "{what}: isError");
        let parsed: Value = serde_json::from_str(&body).expect("JSON body");
        assert_eq!(result["structured"], parsed, "{what}: structuredContent");
    }
    for ((uri, path), read) in RESOURCES.iter().zip(seen["read"].as_array().expect("read")) {
        let reply = exchange(preview, "GET", path);
        assert_eq!(read["uri"], *uri);
        assert_eq!(
            read["text"],
            json!(String::from_utf8(reply.body).expect("UTF-8"))
        );
    }
    let about: Value =
        serde_json::from_slice(&exchange(preview, "GET", "/api/v1/about").body).expect("about");
    let lines: Vec<&str> = about["agent_instructions"]
        .as_array()
        .expect("agent instructions")
        .iter()
        .map(|l| l.as_str().expect("text"))
        .collect();
    assert_eq!(
        seen["instructions"],
        json!(lines.join("\n")),
        "instructions"
    );
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
    let names: Vec<&str> = model_demand::catalogue::TOOLS
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
        assert_eq!(t["outputSchema"]["type"], "object", "{name}");
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
        if answer["status"] == 200 {
            assert_eq!(result["structured"], answer["body"], "?{query}");
        } else {
            assert_eq!(result["structured"]["error"], answer["error"], "?{query}");
        }
    }
}

#[test]
fn the_python_sdk_sees_the_preview_servers_answers_in_both_modes() {
    let dir = tempfile::tempdir().expect("temp dir");
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
    let modes = [
        vec![
            "mcp".to_string(),
            "--dir".to_string(),
            out.display().to_string(),
        ],
        vec!["mcp".to_string(), "--base-url".to_string(), preview.clone()],
    ];
    for args in modes {
        let seen = run_client(dir.path(), &args, &cases);
        assert_schemas(&seen);
        assert_catalogue(&seen, &preview);
        assert_same_as_preview(&seen, &cases, &preview);
        assert_same_as_oracle(&seen, &cases);
    }
}

#[test]
fn the_no_data_site_answers_503_through_the_tools() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    site::build(&SiteData::Unavailable, &BuildOptions::new(&out)).expect("no-data site builds");
    let preview = common::serve_on_loopback(&out);
    let models = "/api/v1/models";
    let cases = vec![
        case("get_contract", json!({}), "/api/v1/about"),
        case("list_models", json!({}), models),
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
    for args in [
        vec![
            "mcp".to_string(),
            "--dir".to_string(),
            out.display().to_string(),
        ],
        vec!["mcp".to_string(), "--base-url".to_string(), preview.clone()],
    ] {
        let seen = run_client(dir.path(), &args, &cases);
        assert_catalogue(&seen, &preview);
        assert_same_as_preview(&seen, &cases, &preview);
        for result in &seen["results"].as_array().expect("results")[1..] {
            assert_eq!(result["structured"]["error"], "data_unavailable");
        }
    }
}
