//! The official MCP Python SDK (`tests/clients/mcp_client.py`, pinned in tests/requirements.txt,
//! installed in the tests' tool cache) as the client of any MCP server of the API: `model-demand mcp`
//! on stdio or a Streamable HTTP endpoint (the preview server's or the edge function's `/mcp`).
//! The tool calls every server must answer (every class of request) and the check that each
//! result is the preview server's answer to the same GET, byte for byte.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{json, Value};

use super::oracle::{exchange, ORDERS, SORTS};

/// Largest offset (2^53 − 1), from the spec.
pub const OFFSET_MAX: u64 = 9_007_199_254_740_991;

/// One tool call and the request a client of the API would send for it.
pub struct Case {
    /// The tool called.
    pub tool: &'static str,
    /// Its arguments.
    pub arguments: Value,
    /// The API request a client would send for it.
    pub target: String,
}

pub fn case(tool: &'static str, arguments: Value, target: impl Into<String>) -> Case {
    Case {
        tool,
        arguments,
        target: target.into(),
    }
}

/// A `list_models` call asking the API's whole body (`fields: ["*"]`), and the GET it is: the
/// tool's own page size (10) when the call gives none.
fn whole(mut arguments: Value, target: String) -> Case {
    arguments["fields"] = json!(["*"]);
    let target = if target.contains("limit=") {
        target
    } else if target.contains('?') {
        format!("{target}&limit=10")
    } else {
        format!("{target}?limit=10")
    };
    case("list_models", arguments, target)
}

/// Every class of request: defaults, each sort and order, edge limits and offsets, pages past
/// the end, each served ID (with `/` and `:`), unknown IDs and refused arguments. Every
/// `list_models` call asks `fields: ["*"]`, whose result is the API's body byte for byte.
pub fn cases(ids: &[String]) -> Vec<Case> {
    let n = ids.len() as u64;
    let models = "/api/v1/models";
    let mut all = vec![
        case("get_contract", json!({}), "/api/v1/about"),
        whole(json!({}), models.to_string()),
    ];
    for sort in SORTS {
        all.push(whole(
            json!({"sort": sort}),
            format!("{models}?sort={sort}"),
        ));
        for order in ORDERS {
            all.push(whole(
                json!({"sort": sort, "order": order, "limit": 100}),
                format!("{models}?sort={sort}&order={order}&limit=100"),
            ));
        }
    }
    for order in ORDERS {
        all.push(whole(
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
        all.push(whole(
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
        all.push(whole(arguments, format!("{models}?{query}")));
    }
    all.push(case(
        "get_model",
        json!({"model_id": "nobody/unknown-model:free"}),
        format!("{models}?model_id=nobody/unknown-model:free"),
    ));
    all.push(case("get_model", json!({}), format!("{models}?model_id=")));
    // A history is its precomputed file; an ID not served, the API's 404 body.
    all.push(case(
        "get_demand_history",
        json!({"model_id": ids[0]}),
        format!("/{}", model_demand::answers::history::history_file(&ids[0])),
    ));
    all.push(case(
        "get_demand_history",
        json!({"model_id": "nobody/unknown-model:free"}),
        format!("{models}?model_id=nobody/unknown-model:free"),
    ));
    // Who serves it is its precomputed file too (issue 50); an ID not served, the API's 404.
    all.push(case(
        "get_providers",
        json!({"model_id": ids[0]}),
        format!(
            "/{}",
            model_demand::answers::providers::providers_file(&ids[0])
        ),
    ));
    all.push(case(
        "get_providers",
        json!({"model_id": "nobody/unknown-model:free"}),
        format!("{models}?model_id=nobody/unknown-model:free"),
    ));
    all.push(case(
        "get_model",
        json!({"model_id": ids[0], "sort": "tokens_30d"}),
        format!("{models}?model_id={}&sort=tokens_30d", ids[0]),
    ));
    all
}

/// The resources every MCP client can read, and the site path each one is.
pub const RESOURCES: [(&str, &str); 3] = [
    ("model-demand:///api/v1/about", "/api/v1/about"),
    ("model-demand:///api/openapi.json", "/api/openapi.json"),
    ("model-demand:///llms.txt", "/llms.txt"),
];

/// How the client reaches a server: `model-demand mcp ARGS` on stdio, or a server's `/mcp` URL.
pub enum Mode {
    /// `model-demand` with these arguments.
    Stdio(Vec<String>),
    /// A Streamable HTTP endpoint.
    Url(String),
}

/// Runs the Python client against a server with these calls; what it saw.
pub fn run_client(dir: &Path, mode: &Mode, cases: &[Case]) -> Value {
    let python = super::pins::MCP_PY.python();
    let mut plan = json!({
        "calls": cases.iter().map(|c| json!({"tool": c.tool, "arguments": c.arguments})).collect::<Vec<_>>(),
        "resources": RESOURCES.iter().map(|(uri, _)| *uri).collect::<Vec<_>>(),
    });
    match mode {
        Mode::Stdio(args) => {
            plan["command"] = json!(env!("CARGO_BIN_EXE_model-demand"));
            plan["args"] = json!(args);
        }
        Mode::Url(url) => plan["url"] = json!(url),
    }
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let plan_path = dir.join(format!(
        "plan-{}.json",
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&plan_path, plan.to_string()).expect("write plan");
    let out = Command::new(python)
        .arg(super::crate_path("tests/clients/mcp_client.py"))
        .arg(&plan_path)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "the MCP client failed: {}",
        super::output_text(&out)
    );
    serde_json::from_slice(&out.stdout).expect("the client prints JSON")
}

/// Every result equals the preview server's answer to the same request, byte for byte.
pub fn assert_same_as_preview(seen: &Value, cases: &[Case], preview: &str) {
    let results = seen["results"].as_array().expect("results");
    assert_eq!(results.len(), cases.len());
    for (result, case) in results.iter().zip(cases) {
        let reply = exchange(preview, "GET", &case.target);
        let mut body = String::from_utf8(reply.body).expect("UTF-8 body");
        if case.tool == "get_contract" && case.arguments.get("fields").is_none() {
            // By default the contract comes without its field definitions (issue 34).
            let mut about: serde_json::Map<String, Value> =
                serde_json::from_str(&body).expect("JSON contract");
            assert!(about.shift_remove("field_definitions").is_some());
            body = serde_json::to_string(&about).expect("JSON");
        }
        let what = format!("{} {} ({})", case.tool, case.arguments, case.target);
        assert_eq!(result["texts"], json!([body]), "{what}: text");
        assert_eq!(result["is_error"], reply.status != 200, "{what}: isError");
        // The JSON is sent once, as text (issue 41).
        assert_eq!(
            result["structured"],
            Value::Null,
            "{what}: no structuredContent"
        );
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
    // The contract's agent instructions (the tools and tables in place of its line on the
    // feeds, which no tool reads: issue 50), then what the MCP servers add for their tools.
    let lines: Vec<&str> = lines
        .into_iter()
        .map(|line| {
            if line == model_demand::answers::contract::FEEDS_INSTRUCTION {
                model_demand::answers::catalogue::HISTORIES_INSTRUCTION
            } else {
                line
            }
        })
        .collect();
    assert!(
        lines.contains(&model_demand::answers::catalogue::HISTORIES_INSTRUCTION),
        "the contract's line on the feeds was not replaced"
    );
    let mut expected = lines.join("\n");
    for line in model_demand::answers::catalogue::MCP_INSTRUCTIONS {
        expected.push('\n');
        expected.push_str(line);
    }
    assert_eq!(seen["instructions"], json!(expected), "instructions");
}

/// The MCP Inspector's CLI (pinned, `super::pins::INSPECTOR`) against `server` (a command and its
/// arguments, or a URL with `--transport http`), run with `args`: its JSON output.
pub fn inspector(home: &Path, server: &[&std::ffi::OsStr], args: &[&str]) -> Value {
    let modules = super::pins::INSPECTOR.install();
    let out = Command::new(modules.join(".bin/mcp-inspector"))
        .arg("--cli")
        .args(server)
        .args(args)
        .env("HOME", home)
        .env("MCP_CATALOG_PATH", home.join("mcp.json"))
        .output()
        .expect("the inspector runs (Node.js and npm are needed)");
    assert!(out.status.success(), "{}", super::output_text(&out));
    serde_json::from_slice(&out.stdout).expect("the inspector prints JSON")
}

/// What the Inspector must see of any server of the small site (`site`): the five tools, and
/// a `get_model` call of an ID holding `:` answered with the preview server's body.
pub fn inspector_lists_and_calls(home: &Path, server: &[&std::ffi::OsStr], site: &Path) {
    let listed = inspector(home, server, &["--method", "tools/list"]);
    let mut names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "get_contract",
            "get_demand_history",
            "get_model",
            "get_providers",
            "list_models"
        ]
    );
    let ids = super::oracle::Inputs::fixture("tests/fixtures/small", super::SMALL_NOW)
        .order("tokens_30d", "desc");
    let id = ids
        .iter()
        .find(|id| id.contains(':'))
        .expect("an ID with :");
    let argument = format!("model_id={id}");
    let called = inspector(
        home,
        server,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "get_model",
            "--tool-arg",
            &argument,
        ],
    );
    let preview = super::serve_on_loopback(site);
    let body = exchange(&preview, "GET", &format!("/api/v1/models?model_id={id}")).body;
    assert_eq!(
        called["content"][0]["text"],
        json!(String::from_utf8(body).expect("UTF-8"))
    );
    assert_ne!(called["isError"], true);
}
