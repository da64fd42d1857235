//! `collect` against a local stand-in for OpenRouter: the export and the supply feed it writes
//! are accepted by the gate and say exactly what the scripted sources said.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::sources::{self, KEY};
use common::standin::{Reply, StandIn};
use model_demand::collect::{self, CollectReport};
use serde_json::Value;

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("written")).expect("JSON")
}

fn run(standin: &StandIn, out: &Path) -> model_demand::base::error::Result<CollectReport> {
    collect::collect(&sources::options(standin, out))
}

fn healthy() -> StandIn {
    let standin = StandIn::start();
    sources::script_openrouter(&standin);
    standin
}

#[test]
fn a_normal_run_writes_what_the_sources_said_and_check_accepts_it() {
    let standin = healthy();
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("collected");
    let report = run(&standin, &out).expect("collects");
    model_demand::load(&out.join("export.json"), Some(&out.join("supply.json")))
        .expect("the gate accepts the pair");

    let export = read_json(&out.join("export.json"));
    // Every scripted row is in the export, with its tokens; `other` is the remainder.
    type Day = (Vec<(String, String)>, Option<String>);
    let mut expected: BTreeMap<String, Day> = BTreeMap::new();
    for (date, slug, tokens) in sources::rankings_rows() {
        let day = expected.entry(date).or_default();
        if slug == "other" {
            day.1 = Some(tokens.to_string());
        } else {
            day.0.push((slug, tokens.to_string()));
        }
    }
    let days = export["days"].as_array().expect("days");
    assert_eq!(days.len(), expected.len(), "one day per delivered date");
    assert_eq!(report.days_collected, 39);
    for day in days {
        let date = day["date"].as_str().expect("date");
        let (rows, other) = &expected[date];
        let got: Vec<(String, String)> = day["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| {
                (
                    r["model_id"].as_str().expect("id").to_string(),
                    r["total_tokens"].as_str().expect("tokens").to_string(),
                )
            })
            .collect();
        assert_eq!(&got, rows, "{date}");
        // An omitted `other` row on a day with rows is an empty long tail.
        let other = other.clone().unwrap_or_else(|| "0".to_string());
        assert_eq!(day["other_tokens"].as_str(), Some(other.as_str()), "{date}");
    }
    let dates: Vec<&str> = days.iter().filter_map(|d| d["date"].as_str()).collect();
    assert!(
        !dates.contains(&"2026-11-10"),
        "a date with no rows is absent"
    );
    let only_other = days
        .iter()
        .find(|d| d["date"] == "2026-11-11")
        .expect("present");
    assert_eq!(only_other["rows"], serde_json::json!([]));
    assert_eq!(only_other["other_tokens"], "5000");

    assert_eq!(export["evaluation_cutoff"], "2026-11-21T00:00:00Z");
    assert_eq!(export["generated_at"], sources::NOW);
    assert_eq!(
        export["fresh_until"], "2026-11-22T08:00:00Z",
        "cutoff + 32 h"
    );
    assert_eq!(
        export["demand_source"]["attribution"],
        "Source: OpenRouter (openrouter.ai/rankings), as of 2026-11-21T02:00:00.000Z. Licensed under CC BY 4.0."
    );
    let models: Vec<(&str, &str)> = export["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|m| {
            (
                m["model_id"].as_str().expect("id"),
                m["model_release_id"].as_str().expect("release"),
            )
        })
        .collect();
    assert_eq!(
        models,
        [
            ("acme/alpha-2026-01", "acme/alpha-2026-01"),
            ("acme/alpha-2026-01:free", "acme/alpha-2026-01"),
            ("deep/think-v1:thinking", "deep/think-v1"),
            ("gone/missing-model", "gone/missing-model"),
            ("open/beta-7b", "open/beta-7b"),
        ]
    );
    // No repository anywhere and no closed-weights entry: the weights' access is unknown.
    for model in export["models"].as_array().expect("models") {
        for fact in model["facts"].as_object().expect("facts").values() {
            assert_eq!(fact["state"], "not_available");
            assert_eq!(fact["reason"], "weights_access_unknown");
        }
    }

    let supply = read_json(&out.join("supply.json"));
    let collections = supply["collections"].as_array().expect("collections");
    assert_eq!(collections.len(), 1);
    let c = &collections[0];
    assert_eq!(c["status"], "complete");
    assert_eq!(c["started_at"], sources::NOW);
    let routes: Vec<(&str, &str, &str)> = c["routes"]
        .as_array()
        .expect("routes")
        .iter()
        .map(|r| {
            (
                r["route_id"].as_str().expect("id"),
                r["model_id"].as_str().expect("model"),
                r["route_type"].as_str().expect("type"),
            )
        })
        .collect();
    assert_eq!(
        routes,
        [
            ("acme/alpha", "acme/alpha-2026-01", "paid"),
            ("acme/alpha:free", "acme/alpha-2026-01:free", "free"),
            ("deep/think:thinking", "deep/think-v1:thinking", "thinking"),
            ("open/beta", "open/beta-7b", "paid"),
        ],
        "one route per route entry; the catalog id differs from the permaslug"
    );
    let alpha = &c["routes"][0]["endpoints"];
    assert_eq!(alpha[0]["provider"], "Acme");
    assert_eq!(
        alpha[0]["input_price_per_million"], "2.5",
        "0.0000025 × 10^6"
    );
    assert_eq!(alpha[0]["output_price_per_million"], "10");
    assert_eq!(alpha[0]["latency_ms"], "812.5");
    assert_eq!(alpha[1]["latency_ms"], "1007", "1007.0 in plain form");
    assert_eq!(alpha[0]["throughput_tokens_per_second"], "95.12");
    assert_eq!(alpha[0]["uptime_percent"], "99.5");
    assert_eq!(alpha[0]["context_length"], 131_072);
    let free = &c["routes"][1]["endpoints"][0];
    assert_eq!(
        free["quantization"],
        Value::Null,
        "\"unknown\" becomes null"
    );
    assert_eq!(free["latency_ms"], Value::Null, "no latency reported");
    assert_eq!(
        report.routes, 4,
        "gone/missing-model is not in the catalog: no route"
    );

    // Requests: one rankings, one catalog, one per route; all carry the key and a User-Agent.
    let log = standin.log();
    assert_eq!(log.len(), 6, "{log:?}");
    for request in &log {
        assert_eq!(
            request.authorization.as_deref(),
            Some(format!("Bearer {KEY}").as_str())
        );
        assert!(request
            .user_agent
            .as_deref()
            .is_some_and(|ua| ua.starts_with("model-demand/")));
    }
    assert_eq!(report.requests.values().sum::<u64>(), 6);
}

#[test]
fn the_same_responses_and_clock_give_byte_identical_files() {
    let standin = healthy();
    let dir = common::tempdir().expect("temp dir");
    run(&standin, &dir.path().join("a")).expect("collects");
    run(&standin, &dir.path().join("b")).expect("collects");
    for file in ["export.json", "supply.json"] {
        assert_eq!(
            std::fs::read(dir.path().join("a").join(file)).expect("a"),
            std::fs::read(dir.path().join("b").join(file)).expect("b"),
            "{file}"
        );
    }
}

#[test]
fn a_second_run_carries_history_and_replaces_restated_days() {
    let standin = healthy();
    let dir = common::tempdir().expect("temp dir");
    let first = dir.path().join("first");
    run(&standin, &first).expect("first run");

    // The next day: the source restates 2026-11-20 and delivers 2026-11-21; only the last
    // three days are requested, so older days must come from the previous export.
    let mut rows: Vec<(String, String, u128)> = Vec::new();
    for d in ["2026-11-19", "2026-11-20", "2026-11-21"] {
        rows.push((d.to_string(), "acme/alpha-2026-01".to_string(), 42_000_000));
        rows.push((d.to_string(), "other".to_string(), 1));
    }
    standin.route(
        "/api/v1/datasets/rankings-daily?start_date=2026-11-19&end_date=2026-11-21",
        vec![Reply::json(sources::rankings_body(
            &rows,
            "2026-11-22T01:00:00Z",
        ))],
    );
    let second = dir.path().join("second");
    let options = collect::CollectOptions {
        days: 3,
        now: model_demand::parse_now("2026-11-22T06:00:00Z").expect("now"),
        previous_export: Some(first.join("export.json")),
        previous_supply: Some(first.join("supply.json")),
        ..sources::options(&standin, &second)
    };
    collect::collect(&options).expect("second run");
    model_demand::load(
        &second.join("export.json"),
        Some(&second.join("supply.json")),
    )
    .expect("accepted");
    let before = read_json(&first.join("export.json"));
    let after = read_json(&second.join("export.json"));
    let day = |export: &Value, date: &str| {
        export["days"]
            .as_array()
            .expect("days")
            .iter()
            .find(|d| d["date"] == date)
            .cloned()
    };
    assert_eq!(
        day(&after, "2026-10-12"),
        day(&before, "2026-10-12"),
        "history kept"
    );
    let restated = day(&after, "2026-11-20").expect("present");
    assert_eq!(
        restated["rows"].as_array().map(Vec::len),
        Some(1),
        "replaced whole"
    );
    assert_eq!(restated["rows"][0]["total_tokens"], "42000000");
    assert!(day(&after, "2026-11-21").is_some());
    let supply = read_json(&second.join("supply.json"));
    let finished: Vec<&str> = supply["collections"]
        .as_array()
        .expect("collections")
        .iter()
        .filter_map(|c| c["finished_at"].as_str())
        .collect();
    assert_eq!(finished, [sources::NOW, "2026-11-22T06:00:00Z"]);
}

#[test]
fn collections_older_than_35_days_are_dropped() {
    let standin = healthy();
    let dir = common::tempdir().expect("temp dir");
    let first = dir.path().join("first");
    run(&standin, &first).expect("first run");
    let later = "2026-12-27T06:00:00Z"; // 36 days after the first collection
    standin.route(
        "/api/v1/datasets/rankings-daily?start_date=2026-12-26&end_date=2026-12-26",
        vec![Reply::json(sources::rankings_body(
            &[],
            "2026-12-27T01:00:00Z",
        ))],
    );
    let second = dir.path().join("second");
    let options = collect::CollectOptions {
        days: 1,
        now: model_demand::parse_now(later).expect("now"),
        previous_supply: Some(first.join("supply.json")),
        ..sources::options(&standin, &second)
    };
    collect::collect(&options).expect("second run");
    let supply = read_json(&second.join("supply.json"));
    let collections = supply["collections"].as_array().expect("collections");
    assert_eq!(collections.len(), 1, "the 36-day-old collection is pruned");
    assert_eq!(collections[0]["finished_at"], later);
}

#[test]
fn a_429_is_retried_after_the_time_it_asks_for() {
    let standin = healthy();
    let limited = Reply::Status(
        429,
        vec![("Retry-After".to_string(), "1".to_string())],
        br#"{"error":{"code":429,"message":"Rate limit exceeded"}}"#.to_vec(),
    );
    let body = sources::rankings_body(&sources::rankings_rows(), "2026-11-21T02:00:00Z");
    standin.route(
        &sources::rankings_target(),
        vec![limited, Reply::json(body)],
    );
    let dir = common::tempdir().expect("temp dir");
    let started = std::time::Instant::now();
    let report = run(&standin, &dir.path().join("out")).expect("collects after the wait");
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(1),
        "Retry-After: 1 honoured"
    );
    assert_eq!(
        report.requests.get("rankings"),
        Some(&2),
        "both attempts counted"
    );
}

#[test]
fn one_failing_endpoints_request_fails_only_its_route() {
    let standin = healthy();
    standin.route(
        &sources::endpoints_target("deep/think:thinking"),
        vec![Reply::error(502)],
    );
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    let report = run(&standin, &out).expect("collected");
    assert!(
        report.supply_complete,
        "one route never fails the collection"
    );
    assert_eq!(report.routes_failed, 1);
    let supply = read_json(&out.join("supply.json"));
    let c = &supply["collections"][0];
    assert_eq!(c["status"], "complete");
    let routes = c["routes"].as_array().expect("routes");
    assert_eq!(
        routes.len(),
        sources::ROUTES.len(),
        "every route is written"
    );
    for route in routes {
        if route["route_id"] == "deep/think:thinking" {
            assert_eq!(route["status"], "failed");
            assert_eq!(route["endpoints"], serde_json::json!([]));
        } else {
            assert!(route.get("status").is_none(), "{route}");
        }
    }
    let retried = standin
        .log()
        .iter()
        .filter(|r| r.target.contains("deep/think:thinking"))
        .count();
    assert_eq!(retried, 4, "first attempt and three retries");
    // The API then says that model alone is temporarily unavailable.
    let inputs = model_demand::load(&out.join("export.json"), Some(&out.join("supply.json")))
        .expect("accepted");
    let catalog = inputs.served_models(model_demand::parse_now(sources::NOW).expect("now"));
    for record in &catalog.records {
        let (state, reason) = (record.supply.state, record.supply.reason.as_deref());
        match record.model_id.as_str() {
            "deep/think-v1:thinking" => assert_eq!(
                (state, reason),
                ("temporarily_unavailable", Some("route_collection_failed"))
            ),
            "gone/missing-model" => assert_eq!(state, "current_route_not_found"),
            id => assert_eq!(state, "available", "{id}"),
        }
    }
}

#[test]
fn a_failed_catalog_gives_catalog_unavailable_facts_and_a_failed_collection() {
    let standin = healthy();
    standin.route(sources::CATALOG_TARGET, vec![Reply::error(503)]);
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    run(&standin, &out).expect("demand still collected");
    let export = read_json(&out.join("export.json"));
    let fact = &export["models"][0]["facts"]["total_parameters"];
    assert_eq!(fact["state"], "unavailable");
    assert_eq!(fact["reason"], "catalog_unavailable");
    assert_eq!(
        read_json(&out.join("supply.json"))["collections"][0]["status"],
        "failed"
    );
}

#[test]
fn a_snapshot_older_than_the_cutoff_writes_nothing() {
    let standin = healthy();
    standin.route(
        &sources::rankings_target(),
        vec![Reply::json(sources::rankings_body(
            &sources::rankings_rows(),
            "2026-11-20T23:59:59Z",
        ))],
    );
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    let err = run(&standin, &out).expect_err("refused");
    assert!(err.to_string().contains("still in progress"), "{err}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn a_refused_key_exits_1_writes_nothing_and_never_echoes_the_key() {
    let standin = healthy();
    standin.route(&sources::rankings_target(), vec![Reply::error(401)]);
    let dir = common::tempdir().expect("temp dir");
    let output = sources::collect_command(&standin, dir.path())
        .output()
        .expect("binary runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stderr.contains("refused the key (401)"), "{stderr}");
    assert!(stderr.contains("OPENROUTER_API_KEY"), "says what to do");
    assert!(!stderr.contains(KEY) && !stdout.contains(KEY), "key echoed");
    assert!(!dir.path().join("out").exists(), "nothing written");
    assert_eq!(standin.log().len(), 1, "401 is not retried");
}

#[test]
fn a_missing_key_exits_1_before_any_request() {
    let standin = healthy();
    let dir = common::tempdir().expect("temp dir");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(["collect", "--out", "out", "--openrouter-url", &standin.base])
        .arg("--policy")
        .arg(common::crate_path("data/policy.json"))
        .env_remove("OPENROUTER_API_KEY")
        .current_dir(dir.path())
        .output()
        .expect("binary runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("OPENROUTER_API_KEY is not set"));
    assert!(standin.log().is_empty());
    assert!(!dir.path().join("out").exists());
}

#[test]
fn an_existing_file_collect_did_not_write_is_refused_untouched() {
    let standin = healthy();
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).expect("mkdir");
    std::fs::write(out.join("export.json"), b"my own export").expect("write");
    let err = run(&standin, &out).expect_err("refused");
    assert!(err.to_string().contains("refusing to replace"), "{err}");
    assert_eq!(
        std::fs::read(out.join("export.json")).expect("kept"),
        b"my own export"
    );
    assert!(!out.join("supply.json").exists());
    // Its own output, on the other hand, is replaced run after run.
    let own = dir.path().join("own");
    run(&standin, &own).expect("first");
    run(&standin, &own).expect("second replaces its own files");
}
