//! An agent's session through the official MCP Python SDK (`tests/clients/mcp_agent.py`), on
//! stdio and over the preview server's `/mcp`, on the small fixture: it plays the contract's
//! instructions in order (read the contract, list, look each model up, read a history) and every
//! step stays within its budget (issue 34; the whole contract within the limit since results
//! carry their JSON once, issue 41; refusals past the limit are `agents.rs`'s), and every unknown it reads stays unknown: each value object of a cut record is the API's
//! (compared with the GET of that model), a null is never a number, and a day without data in a
//! history has no rank and no tokens.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::mcp_client::Mode;
use common::oracle::exchange;
use model_demand::answers::catalogue::{DEFAULT_CALL_BUDGET, MAX_RESULT_BYTES, TOOLS_LIST_BUDGET};
use serde_json::{json, Value};

/// Runs the agent against `mode`; what it saw.
fn play(dir: &Path, mode: &Mode, n: usize) -> Value {
    let python = common::pins::MCP_PY.python();
    let plan = match mode {
        Mode::Stdio(args) => json!({"command": env!("CARGO_BIN_EXE_model-demand"), "args": args}),
        Mode::Url(url) => json!({"url": url}),
    };
    let path = dir.join(format!("agent-{n}.json"));
    std::fs::write(&path, plan.to_string()).expect("write plan");
    let out = Command::new(python)
        .arg(common::crate_path("tests/clients/mcp_agent.py"))
        .arg(&path)
        .output()
        .expect("python runs");
    assert!(out.status.success(), "{}", common::output_text(&out));
    serde_json::from_slice(&out.stdout).expect("the agent prints JSON")
}

/// Every object with a `state` inside `cut` equals the object at the same place in `whole`,
/// and an unknown one holds no number: `value` (when it has one) is null.
fn unknowns_stay_unknown(cut: &Value, whole: &Value, at: &str) -> usize {
    let mut seen = 0;
    if let Some(members) = cut.as_object() {
        // A value object is kept whole; `supply` (whose summary holds objects) may be cut.
        if whole.get("state").is_some() && whole.get("summary").is_none() {
            assert_eq!(cut, whole, "{at}: the API's value object");
            if members["state"] != "available" {
                assert!(cut.get("value").is_none_or(Value::is_null), "{at}: {cut}");
                return 1;
            }
            return 0;
        }
        for (name, value) in members {
            seen += unknowns_stay_unknown(value, &whole[name], &format!("{at}.{name}"));
        }
    }
    seen
}

fn check(seen: &Value, preview: &str) {
    assert!(seen["tools_bytes"].as_u64().expect("bytes") as usize <= TOOLS_LIST_BUDGET);
    // The server's instructions open with the contract's, in order, the tools and tables in
    // place of its line on the feeds, which no tool reads (issue 50).
    let contract: Vec<&str> = seen["contract_instructions"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l.as_str().expect("text"))
        .map(|line| {
            if line == model_demand::answers::contract::FEEDS_INSTRUCTION {
                model_demand::answers::catalogue::HISTORIES_INSTRUCTION
            } else {
                line
            }
        })
        .collect();
    assert!(contract[0].starts_with("Read this contract"));
    let instructions = seen["instructions"].as_str().expect("instructions");
    assert!(instructions.starts_with(&contract.join("\n")));
    assert!(instructions.contains("not a rank"));
    let steps = seen["steps"].as_array().expect("steps");
    let mut unknowns = 0;
    let last = steps.len() - 1;
    for (i, step) in steps.iter().enumerate() {
        let tool = step["tool"].as_str().expect("tool");
        let bytes = step["bytes"].as_u64().expect("bytes") as usize;
        let what = format!("{tool} {}", step["arguments"]);
        assert!(bytes <= MAX_RESULT_BYTES, "{what}: {bytes}");
        let text = step["text"].as_str().expect("text");
        if i == last {
            // The whole contract, sent once (issue 41), is within the limit.
            assert_eq!(step["is_error"], false, "{what}: {text}");
            let contract: Value = serde_json::from_str(text).expect("JSON");
            assert!(contract["field_definitions"].is_array(), "{what}");
            assert_eq!(step["structured"], false, "{what}: sent once, as text");
            continue;
        }
        assert_eq!(step["is_error"], false, "{what}: {text}");
        // Calls with their default arguments (nothing but the model ID) within 30 kB.
        let arguments = step["arguments"].as_object().expect("arguments");
        if arguments.keys().all(|k| k == "model_id") {
            assert!(bytes <= DEFAULT_CALL_BUDGET, "{what}: {bytes} bytes");
        }
        let answer: Value = serde_json::from_str(text).expect("JSON");
        match tool {
            "list_models" => {
                for record in answer["models"].as_array().expect("models") {
                    let id = record["model_id"].as_str().expect("ID");
                    let target = format!(
                        "/api/v1/models?model_id={}",
                        model_demand::query::percent_encode(id)
                    );
                    let whole: Value =
                        serde_json::from_slice(&exchange(preview, "GET", &target).body)
                            .expect("JSON");
                    unknowns += unknowns_stay_unknown(record, &whole["models"][0], id);
                }
            }
            "get_model" => {
                let id = step["arguments"]["model_id"].as_str().expect("ID");
                let target = format!(
                    "/api/v1/models?model_id={}",
                    model_demand::query::percent_encode(id)
                );
                assert_eq!(
                    text.as_bytes(),
                    exchange(preview, "GET", &target).body.as_slice()
                );
            }
            "get_demand_history" => {
                for day in answer["demand"]["days"].as_array().expect("days") {
                    if day["state"] != "available" {
                        assert!(day["rank"].is_null() && day["tokens"].is_null(), "{day}");
                        assert!(day["reason"].is_string(), "{day}");
                        unknowns += 1;
                    }
                }
            }
            _ => {}
        }
    }
    assert!(unknowns > 0, "the fixture has unknowns to keep");
}

#[test]
fn an_agent_following_the_contract_stays_within_budget_and_keeps_unknowns() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let preview = common::serve_on_loopback(&out);
    let modes = [
        Mode::Stdio(vec![
            "mcp".to_string(),
            "--dir".to_string(),
            out.display().to_string(),
        ]),
        Mode::Url(format!("{preview}/mcp")),
    ];
    let mut seen_by_mode = Vec::new();
    for (n, mode) in modes.iter().enumerate() {
        let seen = play(dir.path(), mode, n);
        check(&seen, &preview);
        seen_by_mode.push(seen);
    }
    assert_eq!(seen_by_mode[0], seen_by_mode[1], "stdio and /mcp alike");
}
