//! The API against an independent oracle: `tests/oracle/oracle.py` derives DESIGN §4 (records)
//! and applies §5 (query rules) again in Python with exact fractions, sharing no code with the
//! Rust side. The oracle is first held to the shared examples' hand-checked answers; then every
//! served model's exact lookup and every sort and order are compared on the small, edge and
//! sample inputs, and generated requests (mostly malformed) are compared with the preview
//! server's status, error code and body bytes.

use crate::common;

use common::oracle::{exchange, Inputs, ORDERS, SORTS};
use model_demand::answers::render::Api;
use model_demand::query::percent_encode;
use model_demand::site::{self, sha256_hex, BuildOptions, SiteData};
use serde_json::Value;

fn compare(dir: &str, now: &str, with_supply: bool) -> usize {
    let mut inputs = Inputs::fixture(dir, now);
    if !with_supply {
        inputs = inputs.without_supply();
    }
    let accepted = model_demand::load(&inputs.export, inputs.supply.as_deref()).expect("accepted");
    let catalog = accepted.served_models(model_demand::parse_now(now).expect("now"));
    let api = Api::new(&catalog);
    let mut queries = vec![
        String::new(),
        "limit=3&offset=2".to_string(),
        "offset=1000".to_string(),
    ];
    for sort in SORTS {
        for order in ORDERS {
            queries.push(format!("sort={sort}&order={order}&limit=100"));
        }
    }
    queries.extend(
        catalog
            .records
            .iter()
            .map(|r| format!("model_id={}", percent_encode(&r.model_id))),
    );
    let expected = inputs.bodies(&queries);
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
    let cases = index["responses"].as_array().expect("cases");
    let queries: Vec<String> = cases
        .iter()
        .map(|c| c["query"].as_str().expect("query").to_string())
        .collect();
    let inputs = Inputs::fixture("tests/fixtures/small", index["now"].as_str().expect("now"));
    let answers = inputs.run(&[], &queries);
    let digests = inputs.run(&["--digest"], &queries);
    assert!(cases.iter().any(|c| c["status"] != 200), "error cases too");
    for ((case, got), digest) in cases.iter().zip(answers).zip(digests) {
        let name = &case["name"];
        let expected: Value = serde_json::from_slice(
            &std::fs::read(dir.join(case["file"].as_str().expect("file"))).expect("file"),
        )
        .expect("json");
        assert_eq!(got["status"], case["status"], "{name}");
        if case["status"] == 200 {
            assert_eq!(got["body"], expected, "{name}");
            // The byte form too: the examples' member order (serde_json keeps it here, with
            // `preserve_order`), written compactly. This is what lets other tests compare the
            // site's files with the oracle by digest.
            let bytes = serde_json::to_vec(&expected).expect("json");
            assert_eq!(digest["sha256"], sha256_hex(&bytes), "{name}");
        } else {
            assert_eq!(got["error"], expected["error"], "{name}");
            assert_eq!(got["body"]["schema_version"], expected["schema_version"]);
        }
    }
}

#[test]
fn records_match_the_oracle_on_every_input() {
    let mut compared = 0;
    compared += compare("tests/fixtures/small", common::SMALL_NOW, true);
    compared += compare("tests/fixtures/small", common::SMALL_NOW, false);
    compared += compare("tests/fixtures/edge", "2026-10-05T12:00:00Z", true);
    compared += compare("data/sample", common::SAMPLE_NOW, true);
    compared += compare("data/sample", "2026-12-01T00:00:00Z", false);
    assert!(compared > 200, "{compared}");
}

/// How many requests the oracle makes up; `ORACLE_SEED` picks another set to explore.
const GENERATED: usize = 600;

#[test]
fn the_preview_server_answers_generated_requests_like_the_oracle() {
    let dir = common::tempdir().expect("temp dir");
    common::build_small(&dir.path().join("data"));
    site::build(
        &SiteData::Unavailable,
        &BuildOptions::new(dir.path().join("unavailable")),
    )
    .expect("no-data site builds");
    let data = common::serve_on_loopback(&dir.path().join("data"));
    let unavailable = common::serve_on_loopback(&dir.path().join("unavailable"));

    let seed = std::env::var("ORACLE_SEED").unwrap_or_else(|_| "1".to_string());
    let inputs = Inputs::fixture("tests/fixtures/small", common::SMALL_NOW);
    let count = GENERATED.to_string();
    let generated = inputs.run(&["--digest", "--generate", &count, "--seed", &seed], &[]);
    assert_eq!(generated.len(), GENERATED);
    let mut statuses = std::collections::BTreeMap::new();
    for want in &generated {
        let method = want["method"].as_str().expect("method");
        let query = want["query"].as_str().expect("query");
        let base = if want["site"] == "data" {
            &data
        } else {
            &unavailable
        };
        let what = format!(
            "{method} ?{query} on the {} site (seed {seed})",
            want["site"]
        );
        let reply = exchange(base, method, &format!("/api/v1/models?{query}"));
        assert_eq!(u64::from(reply.status), want["status"], "{what}");
        *statuses.entry(reply.status).or_insert(0) += 1;
        assert_eq!(
            reply.header("content-type"),
            Some("application/json"),
            "{what}"
        );
        if method == "HEAD" {
            assert!(reply.body.is_empty(), "{what}");
            continue;
        }
        if reply.status == 200 {
            if sha256_hex(&reply.body) != want["sha256"] {
                let expected = inputs.bodies(&[query.to_string()]).remove(0);
                let got: Value = serde_json::from_slice(&reply.body).expect("json");
                assert_eq!(got, expected, "{what}");
                panic!("{what}: same JSON, other bytes");
            }
        } else {
            let got: Value = serde_json::from_slice(&reply.body).expect("error JSON");
            assert_eq!(got["error"], want["error"], "{what}");
            assert_eq!(got["schema_version"], "model-demand.agent-api-error.v1");
            assert!(got["message"].as_str().is_some_and(|m| !m.is_empty()));
            if reply.status == 405 {
                assert_eq!(reply.header("allow"), Some("GET, HEAD"), "{what}");
            }
        }
    }
    // Every kind of answer is reached, so the comparison cannot pass by being all 400s.
    for status in [200, 400, 404, 405, 503] {
        assert!(
            statuses.get(&status).is_some_and(|n| *n >= 5),
            "{statuses:?}"
        );
    }
}
