//! The records against an independent oracle: `tests/oracle/oracle.py` derives DESIGN §4 again
//! in Python with exact fractions, sharing no code with the Rust side. Every served model's
//! exact lookup and every sort and order are compared as JSON, on the small, edge and sample
//! inputs, with and without supply.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use model_demand::query::{percent_encode, Order, SortKey};
use model_demand::render::Api;
use serde_json::Value;

fn oracle(export: &str, supply: Option<&str>, now: &str, queries: &[String]) -> Vec<Value> {
    let mut cmd = Command::new("python3");
    cmd.arg(common::crate_path("tests/oracle/oracle.py"))
        .arg("--export")
        .arg(common::crate_path(export))
        .arg("--now")
        .arg(now);
    if let Some(s) = supply {
        cmd.arg("--supply").arg(common::crate_path(s));
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(queries.join("\n").as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("oracle finishes");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("json"))
        .collect()
}

fn compare(dir: &str, now: &str, with_supply: bool) -> usize {
    let export = format!("{dir}/export.json");
    let supply = format!("{dir}/supply.json");
    let root = common::crate_path(dir);
    let inputs = model_demand::load(
        &root.join("export.json"),
        with_supply.then(|| root.join("supply.json")).as_deref(),
    )
    .expect("accepted");
    let catalog = inputs.catalog(model_demand::parse_now(now).expect("now"));
    let api = Api::new(&catalog);
    let mut queries = vec![
        String::new(),
        "limit=3&offset=2".to_string(),
        "offset=1000".to_string(),
    ];
    for sort in SortKey::ALL {
        for order in Order::ALL {
            queries.push(format!(
                "sort={}&order={}&limit=100",
                sort.as_str(),
                order.as_str()
            ));
        }
    }
    queries.extend(
        catalog
            .records
            .iter()
            .map(|r| format!("model_id={}", percent_encode(&r.model_id))),
    );
    let expected = oracle(
        &export,
        with_supply.then_some(supply.as_str()),
        now,
        &queries,
    );
    assert_eq!(expected.len(), queries.len());
    for (q, want) in queries.iter().zip(&expected) {
        let got: Value = serde_json::from_slice(&api.answer(q).body).expect("json");
        if got != *want {
            // Name the first differing model and field, not a wall of JSON.
            for (g, w) in got["models"]
                .as_array()
                .into_iter()
                .flatten()
                .zip(want["models"].as_array().into_iter().flatten())
            {
                for key in w.as_object().into_iter().flat_map(|o| o.keys()) {
                    assert_eq!(g[key], w[key], "{dir} ?{q}: {} {key}", w["model_id"]);
                }
            }
            assert_eq!(got, *want, "{dir} ?{q}");
        }
    }
    queries.len()
}

#[test]
fn the_oracle_reproduces_the_hand_checked_answers() {
    let dir = common::crate_path("tests/fixtures/small");
    let index: Value =
        serde_json::from_slice(&std::fs::read(dir.join("expected/index.json")).expect("index"))
            .expect("json");
    let cases: Vec<&Value> = index["responses"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["status"] == 200)
        .collect();
    let queries: Vec<String> = cases
        .iter()
        .map(|c| c["query"].as_str().expect("query").to_string())
        .collect();
    let answers = oracle(
        "tests/fixtures/small/export.json",
        Some("tests/fixtures/small/supply.json"),
        index["now"].as_str().expect("now"),
        &queries,
    );
    for (case, got) in cases.iter().zip(answers) {
        let expected: Value = serde_json::from_slice(
            &std::fs::read(dir.join(case["file"].as_str().expect("file"))).expect("file"),
        )
        .expect("json");
        assert_eq!(got, expected, "{}", case["name"]);
    }
}

#[test]
fn records_match_the_oracle_on_every_input() {
    let mut compared = 0;
    compared += compare("tests/fixtures/small", common::SMALL_NOW, true);
    compared += compare("tests/fixtures/small", common::SMALL_NOW, false);
    compared += compare("tests/fixtures/edge", "2026-10-05T12:00:00Z", true);
    compared += compare("data/sample", "2026-11-21T12:00:00Z", true);
    compared += compare("data/sample", "2026-12-01T00:00:00Z", false);
    assert!(compared > 200, "{compared}");
}
