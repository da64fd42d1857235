//! The hand-checked answers of the small example (`tests/fixtures/small/expected/`) reproduced
//! exactly (JSON equality; an error's `message` text is ours), plus the edge example's cases.

use crate::common;

use model_demand::answers::render::Api;
use serde_json::Value;

fn small_api(now: &str) -> Api {
    let inputs = common::load_fixture("tests/fixtures/small");
    Api::new(&inputs.served_models(model_demand::parse_now(now).expect("now")))
}

#[test]
fn every_expected_response_of_the_small_example_is_reproduced() {
    let dir = common::crate_path("tests/fixtures/small");
    let index: Value =
        serde_json::from_slice(&std::fs::read(dir.join("expected/index.json")).expect("index"))
            .expect("json");
    let api = small_api(index["now"].as_str().expect("now"));
    let responses = index["responses"].as_array().expect("responses");
    assert_eq!(responses.len(), 10);
    for case in responses {
        let name = case["name"].as_str().expect("name");
        let query = case["query"].as_str().expect("query");
        let answer = api.answer(query);
        assert_eq!(
            u64::from(answer.status),
            case["status"].as_u64().expect("status"),
            "{name}"
        );
        let mut got: Value = serde_json::from_slice(&answer.body).expect("json body");
        let file = dir.join(case["file"].as_str().expect("file"));
        let expected: Value =
            serde_json::from_slice(&std::fs::read(file).expect("expected")).expect("json");
        if expected.get("message").and_then(Value::as_str) == Some("(any text)") {
            let message = got["message"].as_str().expect("a message");
            assert!(!message.is_empty(), "{name}");
            got["message"] = expected["message"].clone();
        }
        assert_eq!(got, expected, "{name}");
    }
}

fn edge_record(model_id: &str) -> Value {
    let inputs = common::load_fixture("tests/fixtures/edge");
    let api = Api::new(
        &inputs.served_models(model_demand::parse_now("2026-10-05T12:00:00Z").expect("now")),
    );
    let body: Value =
        serde_json::from_slice(&api.answer(&format!("model_id={model_id}")).body).expect("json");
    body["models"][0].clone()
}

#[test]
fn the_edge_example_states_its_reasons() {
    let inputs = common::load_fixture("tests/fixtures/edge");
    let catalog =
        inputs.served_models(model_demand::parse_now("2026-10-05T12:00:00Z").expect("now"));
    // fresh_until is null: stale with the deadline unknown.
    assert_eq!(catalog.head.freshness.state, "stale");
    assert_eq!(catalog.head.freshness.reason, "freshness_deadline_unknown");
    assert_eq!(catalog.head.freshness.fresh_until, None);
    // 2026-09-23 was not delivered: it lies in the 30-day window and in the prior 7 days
    // (09-21..09-27), but not in the last 7 (09-28..10-04).
    let first = catalog.records.first().expect("a model").model_id.clone();
    let r = edge_record(&first);
    assert_eq!(r["tokens_30d"]["reason"], "source_day_missing");
    assert_eq!(r["share_30d"]["reason"], "source_day_missing");
    assert_eq!(r["share_prior_7d"]["reason"], "source_day_missing");
    assert_eq!(r["trend"]["direction"], "unknown");
    // The supply collection of 10-05 is complete, 10-03 failed: history is not ready.
    let with_supply = catalog
        .records
        .iter()
        .find(|r| r.supply.summary.is_some())
        .expect("supplied model");
    assert_eq!(
        with_supply.supply.summary.as_ref().map(|s| s.history_ready),
        Some(false)
    );
    // Every 7-day total that is available is exact and every share is a fraction in [0, 1].
    for record in &catalog.records {
        if let Some(share) = &record.share_7d.value {
            let v: f64 = share.parse().expect("decimal");
            assert!((0.0..=1.0).contains(&v), "{share}");
        }
        assert!(
            record.tokens_30d.value.is_none(),
            "the missing day makes every 30-day total unknown"
        );
    }
}
