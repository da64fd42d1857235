//! Agents within their budgets (issue 34), through the preview server's `/mcp` (rmcp, the same
//! handler as `model-demand mcp`): `tools/list` within 8 kB, each call with its default
//! arguments within 30 kB and every answer within 75 kB as the client receives it (the
//! serialized `result`: the text block, the JSON sent once since issue 41), measured on the small fixture and
//! on the bundled sample (56 models); the cut records keep the API's bytes; and the edge
//! function's module (`netlify/edge-functions/lib/tool_call.mjs`) gives the same results, byte
//! for byte, as the Rust server, under node (`tests/edge/tool_call.test.mjs`).

use crate::common;

use std::path::Path;

use common::oracle::{exchange, send};
use model_demand::answers::catalogue::{DEFAULT_CALL_BUDGET, MAX_RESULT_BYTES, TOOLS_LIST_BUDGET};
use model_demand::query::projection::received_bytes;
use serde_json::{json, Value};

/// The `result` of one JSON-RPC request to `/mcp`, and its bytes as sent (rmcp writes compact
/// JSON with serde_json, so the result re-serialized is the bytes the client received).
fn rpc(preview: &str, method: &str, params: Value) -> (Value, usize) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let reply = send(
        preview,
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
            ("MCP-Protocol-Version", "2025-06-18"),
        ],
        Some(body.as_bytes()),
    );
    assert_eq!(reply.status, 200, "{method} {params}");
    let mut answer: Value = serde_json::from_slice(&reply.body).expect("JSON-RPC answer");
    let result = answer["result"].take();
    assert!(result.is_object(), "{method} {params}: {answer}");
    let bytes = serde_json::to_vec(&result).expect("JSON").len();
    (result, bytes)
}

fn call(preview: &str, tool: &str, arguments: Value) -> (Value, usize) {
    rpc(
        preview,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    )
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().expect("a text block")
}

/// Measures and checks the budgets of the site served at `preview`; returns the figures.
fn budgets(preview: &str, model_id: &str) -> Vec<(String, usize)> {
    let mut figures = Vec::new();
    let (_, listed) = rpc(preview, "tools/list", json!({}));
    assert!(listed <= TOOLS_LIST_BUDGET, "tools/list: {listed} bytes");
    figures.push(("tools/list".to_string(), listed));
    for (tool, arguments) in [
        ("get_contract", json!({})),
        ("list_models", json!({})),
        ("get_model", json!({"model_id": model_id})),
        ("get_demand_history", json!({"model_id": model_id})),
        ("get_providers", json!({"model_id": model_id})),
    ] {
        let (result, bytes) = call(preview, tool, arguments);
        assert_eq!(result["isError"], false, "{tool}: {result}");
        assert!(bytes <= DEFAULT_CALL_BUDGET, "{tool}: {bytes} bytes");
        // The size the servers judge by is the size sent.
        assert_eq!(received_bytes(&[text(&result)]), bytes, "{tool}");
        figures.push((tool.to_string(), bytes));
    }
    figures
}

#[test]
fn default_calls_stay_within_budget_on_the_small_site_and_the_sample() {
    let dir = common::tempdir().expect("temp dir");
    let small = dir.path().join("small");
    common::build_small(&small);
    let preview = common::serve_on_loopback(&small);
    let small_figures = budgets(&preview, "acme/alpha-70b");

    let sample = dir.path().join("sample");
    let (inputs, catalog) = common::sample();
    assert_eq!(catalog.records.len(), 56);
    // The edge layout: the preview server answers it with the full layout's bytes
    // (edge_vectors), from 142 files instead of 68,000.
    common::build_into(
        &inputs,
        &catalog,
        &sample,
        model_demand::site::edge::Layout::Edge,
    );
    let preview = common::serve_on_loopback(&sample);
    let first: Value =
        serde_json::from_slice(&exchange(&preview, "GET", "/api/v1/models?limit=1").body)
            .expect("JSON");
    let id = first["models"][0]["model_id"].as_str().expect("an ID");
    let sample_figures = budgets(&preview, id);
    // Every model's providers within the default budget (issue 50): the largest, printed.
    let all: Value =
        serde_json::from_slice(&exchange(&preview, "GET", "/api/v1/models?limit=100").body)
            .expect("JSON");
    let largest = all["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|record| {
            let id = record["model_id"].as_str().expect("an ID");
            let (result, bytes) = call(&preview, "get_providers", json!({"model_id": id}));
            assert_eq!(result["isError"], false, "{id}: {result}");
            assert!(bytes <= DEFAULT_CALL_BUDGET, "{id}: {bytes} bytes");
            (bytes, id.to_string())
        })
        .max()
        .expect("models");
    eprintln!("largest get_providers of the sample: {largest:?}");
    eprintln!("bytes as sent, small fixture: {small_figures:?}");
    eprintln!("bytes as sent, bundled sample: {sample_figures:?}");

    // Counted once (issue 41): the top 50 with the default fields fits, and the whole contract.
    let mut sizes = Vec::new();
    for (tool, arguments) in [
        ("list_models", json!({"limit": 50})),
        ("list_models", json!({"limit": 100})),
        ("list_models", json!({"fields": ["*"], "limit": 10})),
        ("get_contract", json!({"fields": ["*"]})),
    ] {
        let (result, bytes) = call(&preview, tool, arguments.clone());
        sizes.push((
            format!("{tool} {arguments}"),
            bytes,
            result["isError"] == true,
        ));
        if arguments == json!({"limit": 50}) {
            assert_eq!(result["isError"], false, "the top 50: {bytes} bytes");
            assert_eq!(received_bytes(&[text(&result)]), bytes);
        }
    }
    // The largest pages that pass, by fields.
    for fields in [json!(null), json!(["*"])] {
        let largest = (1..=100)
            .rev()
            .find(|limit| {
                let (result, _) = call(
                    &preview,
                    "list_models",
                    json!({"fields": fields, "limit": limit}),
                );
                result["isError"] == false
            })
            .unwrap_or(0);
        sizes.push((
            format!("largest limit with fields {fields}"),
            largest,
            false,
        ));
    }
    eprintln!("bytes as sent, once (issue 41), bundled sample: {sizes:?}");

    // Past the limit: refused, saying the size and how to ask for less, never cut.
    {
        let (tool, arguments) = ("list_models", json!({"fields": ["*"], "limit": 100}));
        let (result, bytes) = call(&preview, tool, arguments.clone());
        assert_eq!(result["isError"], true, "{tool} {arguments}");
        assert!(result.get("structuredContent").is_none());
        let says = text(&result);
        assert!(says.starts_with("This answer would be "), "{says}");
        assert!(says.contains("ask for less: "), "{says}");
        let size: usize = says["This answer would be ".len()..]
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a size");
        assert!(size > MAX_RESULT_BYTES, "{size}");
        assert!(bytes < 2_000, "{bytes}");
    }
    // What fits is answered: the whole body of a small page, equal to the GET.
    let (result, bytes) = call(
        &preview,
        "list_models",
        json!({"fields": ["*"], "limit": 4}),
    );
    assert!(bytes <= MAX_RESULT_BYTES);
    let body = exchange(&preview, "GET", "/api/v1/models?limit=4").body;
    assert_eq!(text(&result).as_bytes(), body.as_slice());
}

/// The cut records keep the API's values byte for byte: every record of the default page is
/// the GET's record with only the default members, each member's text as the API wrote it.
#[test]
fn cut_records_keep_the_api_bytes() {
    let dir = common::tempdir().expect("temp dir");
    let small = dir.path().join("small");
    common::build_small(&small);
    let preview = common::serve_on_loopback(&small);
    let (result, _) = call(&preview, "list_models", json!({}));
    let cut: Value = serde_json::from_str(text(&result)).expect("JSON");
    let whole: Value =
        serde_json::from_slice(&exchange(&preview, "GET", "/api/v1/models?limit=10").body)
            .expect("JSON");
    for member in [
        "schema_version",
        "generated_at",
        "evaluation_cutoff",
        "freshness",
        "window",
        "source",
        "query",
        "pagination",
    ] {
        assert_eq!(cut[member], whole[member], "{member}");
    }
    assert_eq!(
        cut["fields"],
        json!(model_demand::answers::catalogue::DEFAULT_RECORD_FIELDS)
    );
    let records = whole["models"].as_array().expect("models");
    assert_eq!(cut["models"].as_array().map(Vec::len), Some(records.len()));
    for (cut, whole) in cut["models"]
        .as_array()
        .expect("models")
        .iter()
        .zip(records)
    {
        let expected = json!({
            "model_id": whole["model_id"],
            "latest_rank": whole["latest_rank"],
            "tokens_30d": whole["tokens_30d"],
            "share_30d": whole["share_30d"],
            "trend": whole["trend"],
            "facts": {
                "total_parameters": whole["facts"]["total_parameters"],
                "active_parameters": whole["facts"]["active_parameters"],
            },
            "supply": {"state": whole["supply"]["state"]},
        });
        assert_eq!(cut, &expected);
        // Byte for byte: each value's text occurs in the API's body as written.
        let body = String::from_utf8(exchange(&preview, "GET", "/api/v1/models?limit=10").body)
            .expect("UTF-8");
        for member in ["latest_rank", "tokens_30d", "trend"] {
            let written = serde_json::to_string(&whole[member]).expect("JSON");
            assert!(body.contains(&written), "{member}");
            assert!(text(&result).contains(&written), "{member}");
        }
    }
}

/// Tool calls whose results the edge module must reproduce: fields of every form, bad input,
/// the contract's definitions, and answers the API refuses.
fn cases() -> Vec<(&'static str, &'static str)> {
    vec![
        ("list_models", r#"{}"#),
        ("list_models", r#"{"fields":["*"],"limit":3}"#),
        ("list_models", r#"{"fields":["*"]}"#),
        (
            "list_models",
            r#"{"fields":["supply.summary.route_id","model_id","facts.total_parameters","tokens_7d"]}"#,
        ),
        (
            "list_models",
            r#"{"sort":"latest_rank","order":"asc","fields":["latest_rank","supply"]}"#,
        ),
        (
            "list_models",
            r#"{"fields":["facts"],"limit":2,"offset":1}"#,
        ),
        ("list_models", r#"{"limit":null,"fields":null,"offset":0}"#),
        ("list_models", r#"{"offset":1000}"#),
        ("list_models", r#"{"fields":["model_id"],"limit":100}"#),
        (
            "list_models",
            r#"{"fields":["supply.summary.listed_providers","supply.summary.quantizations"]}"#,
        ),
        ("list_models", r#"{"fields":["tokens_30d.value"]}"#),
        ("list_models", r#"{"fields":["trend.direction"]}"#),
        ("list_models", r#"{"fields":["bogus"]}"#),
        ("list_models", r#"{"fields":[]}"#),
        ("list_models", r#"{"fields":"model_id"}"#),
        ("list_models", r#"{"fields":{}}"#),
        ("list_models", r#"{"fields":["model_id","model_id"]}"#),
        ("list_models", r#"{"fields":["model_id",1]}"#),
        ("list_models", r#"{"fields":["*","model_id"]}"#),
        (
            "list_models",
            r#"{"fields":["facts","facts.total_parameters"]}"#,
        ),
        ("list_models", r#"{"limit":0,"fields":["model_id"]}"#),
        ("list_models", r#"{"colour":"red"}"#),
        ("get_contract", r#"{}"#),
        ("get_contract", r#"{"fields":["tokens_30d","freshness"]}"#),
        (
            "get_contract",
            r#"{"fields":["facts.total_parameters","pagination.has_next_page","models[].supply.state"]}"#,
        ),
        ("get_contract", r#"{"fields":["*"]}"#),
        ("get_contract", r#"{"fields":["nope"]}"#),
        ("get_contract", r#"{"fields":[true]}"#),
        ("get_model", r#"{"model_id":"acme/alpha-70b"}"#),
        ("get_model", r#"{"model_id":"nobody/none"}"#),
        (
            "get_model",
            r#"{"model_id":"acme/alpha-70b","fields":["model_id"]}"#,
        ),
        ("get_providers", r#"{"model_id":"acme/alpha-70b"}"#),
        ("get_providers", r#"{"model_id":"nobody/none"}"#),
        ("get_providers", r#"{}"#),
        (
            "get_providers",
            r#"{"model_id":"acme/alpha-70b","limit":2}"#,
        ),
        ("get_providers", r#"{"model_id":"acme%2Falpha-70b"}"#),
    ]
}

#[test]
fn the_edge_module_cuts_and_refuses_like_the_rust_server_under_node() {
    let dir = common::tempdir().expect("temp dir");
    let small = dir.path().join("site");
    common::build_small(&small);
    let preview = common::serve_on_loopback(&small);
    let vectors: Vec<Value> = cases()
        .into_iter()
        .map(|(tool, arguments)| {
            let parsed: Value = serde_json::from_str(arguments).expect("JSON arguments");
            let (result, bytes) = call(&preview, tool, parsed);
            assert!(bytes <= MAX_RESULT_BYTES, "{tool} {arguments}: {bytes}");
            json!({"tool": tool, "arguments": arguments, "result": result})
        })
        .collect();
    let refused = vectors
        .iter()
        .filter(|v| v["result"]["isError"] == true)
        .count();
    assert!(refused >= 12, "{refused}");
    write_and_run(dir.path(), &vectors);
}

/// Writes the vectors beside the site and runs the node test on them.
fn write_and_run(dir: &Path, vectors: &[Value]) {
    let file = json!({"about_file": model_demand::site::netlify::ABOUT_FILE, "vectors": vectors});
    std::fs::write(dir.join("tool_vectors.json"), file.to_string()).expect("write vectors");
    let out = common::tools::command("node")
        .arg("--test")
        .arg(common::crate_path("tests/edge/tool_call.test.mjs"))
        .env("EDGE_FIXTURE", dir)
        .output()
        .expect("node runs");
    let text = common::output_text(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("# fail 0"), "{text}");
    assert!(
        text.contains(&format!("# pass {}", vectors.len())),
        "{text}"
    );
}

/// `get_demand_history` against the fixture's export read here: every date of the window, the
/// model's rank (tokens descending, ties by ID) and tokens on each delivered date with a row, a
/// date without a row or not delivered said as such (never zero); the window, freshness and
/// source of the model response; the supply of the latest collection equal to the record's.
#[test]
fn the_demand_history_is_the_exports_rows_of_the_window() {
    let dir = common::tempdir().expect("temp dir");
    let small = dir.path().join("small");
    common::build_small(&small);
    let preview = common::serve_on_loopback(&small);
    let export: Value = serde_json::from_slice(
        &std::fs::read(common::crate_path("tests/fixtures/small/export.json")).expect("export"),
    )
    .expect("JSON");
    let page: Value =
        serde_json::from_slice(&exchange(&preview, "GET", "/api/v1/models?limit=100").body)
            .expect("JSON");
    let mut unknown_days = 0;
    for record in page["models"].as_array().expect("models") {
        let id = record["model_id"].as_str().expect("ID");
        let (result, bytes) = call(&preview, "get_demand_history", json!({"model_id": id}));
        assert_eq!(result["isError"], false, "{id}: {result}");
        assert!(bytes <= DEFAULT_CALL_BUDGET, "{id}: {bytes}");
        let history: Value = serde_json::from_str(text(&result)).expect("JSON");
        assert_eq!(history["model_id"], id);
        for member in [
            "generated_at",
            "evaluation_cutoff",
            "freshness",
            "window",
            "source",
        ] {
            assert_eq!(history[member], page[member], "{member}");
        }
        let days = history["demand"]["days"].as_array().expect("days");
        assert_eq!(days.len(), 30);
        assert_eq!(days[0]["date"], page["window"]["start_date"]);
        assert_eq!(days[29]["date"], page["window"]["end_date"]);
        for day in days {
            let date = day["date"].as_str().expect("date");
            let delivered = export["days"]
                .as_array()
                .expect("days")
                .iter()
                .find(|d| d["date"] == date);
            let rows = delivered.map(|d| d["rows"].as_array().expect("rows"));
            let row = rows.and_then(|rows| rows.iter().find(|r| r["model_id"] == id));
            match (rows, row) {
                (None, _) => {
                    assert_eq!(day["reason"], "source_day_missing", "{id} {date}");
                    assert_eq!((&day["rank"], &day["tokens"]), (&Value::Null, &Value::Null));
                    unknown_days += 1;
                }
                (Some(_), None) => {
                    assert_eq!(day["reason"], "outside_top_50_on_this_day", "{id} {date}");
                    assert_eq!((&day["rank"], &day["tokens"]), (&Value::Null, &Value::Null));
                    assert_eq!(day["state"], "unavailable");
                    unknown_days += 1;
                }
                (Some(rows), Some(row)) => {
                    let tokens = |r: &Value| {
                        r["total_tokens"]
                            .as_str()
                            .and_then(|t| t.parse::<u128>().ok())
                            .expect("tokens")
                    };
                    let mine = tokens(row);
                    let ahead = rows
                        .iter()
                        .filter(|r| {
                            tokens(r) > mine
                                || (tokens(r) == mine
                                    && r["model_id"].as_str().expect("ID").as_bytes()
                                        < id.as_bytes())
                        })
                        .count();
                    assert_eq!(day["rank"], json!(ahead + 1), "{id} {date}");
                    assert_eq!(day["tokens"], row["total_tokens"], "{id} {date}");
                    assert_eq!(day["state"], "available");
                }
            }
        }
        let collections = history["supply"]["collections"].as_array().expect("list");
        let latest = collections.last().expect("a collection");
        assert_eq!(latest["state"], record["supply"]["state"], "{id}");
        assert_eq!(latest["reason"], record["supply"]["reason"], "{id}");
    }
    assert!(unknown_days > 0, "the fixture has unknown days");
}

/// Issue 50: `get_providers` against the fixture's supply feed read here: every model's
/// endpoints of its current route in the latest collection, each as the feed lists it, the
/// cheapest first (input price, then output price, unknown last); a model without a route to
/// read has none, with the record's own supply state and reason; never a zero for a value the
/// provider did not report.
#[test]
fn get_providers_lists_the_feeds_endpoints_cheapest_first() {
    let dir = common::tempdir().expect("temp dir");
    let small = dir.path().join("small");
    common::build_small(&small);
    let preview = common::serve_on_loopback(&small);
    let latest = &common::small_latest_collection();
    let page: Value =
        serde_json::from_slice(&exchange(&preview, "GET", "/api/v1/models?limit=100").body)
            .expect("JSON");
    let (mut listed, mut without) = (0, 0);
    for record in page["models"].as_array().expect("models") {
        let id = record["model_id"].as_str().expect("ID");
        let (result, bytes) = call(&preview, "get_providers", json!({"model_id": id}));
        assert_eq!(result["isError"], false, "{id}: {result}");
        assert!(bytes <= DEFAULT_CALL_BUDGET, "{id}: {bytes}");
        let answer: Value = serde_json::from_str(text(&result)).expect("JSON");
        assert_eq!(answer["schema_version"], "model-demand.providers.v1");
        assert_eq!(answer["model_id"], id);
        for member in ["generated_at", "evaluation_cutoff", "freshness"] {
            assert_eq!(answer[member], page[member], "{member}");
        }
        assert_eq!(answer["supply"]["state"], record["supply"]["state"], "{id}");
        assert_eq!(
            answer["supply"]["reason"], record["supply"]["reason"],
            "{id}"
        );
        let endpoints = answer["endpoints"].as_array().expect("endpoints");
        if record["supply"]["state"] != "available" {
            assert!(endpoints.is_empty(), "{id}");
            assert_eq!(answer["supply"]["route_id"], Value::Null);
            without += 1;
            continue;
        }
        let route_id = &record["supply"]["summary"]["route_id"];
        assert_eq!(&answer["supply"]["route_id"], route_id);
        let route = latest["routes"]
            .as_array()
            .expect("routes")
            .iter()
            .find(|r| &r["route_id"] == route_id)
            .expect("the record's route is in the feed");
        let mut fed: Vec<String> = route["endpoints"]
            .as_array()
            .expect("endpoints")
            .iter()
            .map(Value::to_string)
            .collect();
        let mut given: Vec<String> = endpoints.iter().map(Value::to_string).collect();
        fed.sort();
        given.sort();
        assert_eq!(given, fed, "{id}: the feed's endpoints, each as listed");
        assert_eq!(
            answer["supply"]["listed_providers"],
            record["supply"]["summary"]["listed_providers"]["value"]
        );
        let price = |e: &Value, member: &str| {
            e[member]
                .as_str()
                .map(|p| p.parse::<f64>().expect("a decimal"))
        };
        for pair in endpoints.windows(2) {
            let key = |e: &Value| {
                (
                    price(e, "input_price_per_million").unwrap_or(f64::INFINITY),
                    price(e, "output_price_per_million").unwrap_or(f64::INFINITY),
                )
            };
            assert!(key(&pair[0]) <= key(&pair[1]), "{id}: {pair:?}");
        }
        listed += 1;
    }
    assert!(
        listed > 0 && without > 0,
        "{listed} listed, {without} without"
    );
}
