//! `collect` against the sources as public captures show them (issue 19; the captures are cited
//! in `tests/fixtures/sources/README.md`): catalog aliases, routes that fail alone, endpoint lists
//! read member by member, Hugging Face's rate-limit windows, reviewed catalog matches, and the
//! run report saying what happened in each case.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::sources::{self, KEY};
use common::standin::{Limit, Reply, StandIn};

use model_demand::collect::{self, CollectOptions};
use serde_json::{json, Value};

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("written")).expect("JSON")
}

fn fixture(name: &str) -> Value {
    read_json(&common::crate_path(&format!(
        "tests/fixtures/sources/{name}"
    )))
}

use sources::run_with_report as run_with;

/// The supply records of the written pair, by model ID: (state, reason, listed endpoints).
fn supply_states(out: &Path) -> BTreeMap<String, (String, Option<String>, Option<u64>)> {
    let inputs = model_demand::load(&out.join("export.json"), Some(&out.join("supply.json")))
        .expect("the gate accepts what collect wrote");
    let catalog = inputs.served_models(model_demand::parse_now(sources::NOW).expect("now"));
    catalog
        .records
        .iter()
        .map(|r| {
            let listed = r
                .supply
                .summary
                .as_ref()
                .and_then(|s| s.listed_endpoints.value);
            (
                r.model_id.clone(),
                (r.supply.state.to_string(), r.supply.reason.clone(), listed),
            )
        })
        .collect()
}

fn routes_written(out: &Path) -> Vec<Value> {
    read_json(&out.join("supply.json"))["collections"][0]["routes"]
        .as_array()
        .expect("routes")
        .clone()
}

#[test]
fn aliases_and_ids_the_api_cannot_publish_are_never_routes_nor_repositories() {
    let standin = StandIn::start();
    sources::script_openrouter(&standin);
    let mut catalog: Value =
        serde_json::from_slice(&sources::catalog_body("")).expect("the scripted catalog");
    let data = catalog["data"].as_array_mut().expect("data");
    // As captured: `~` aliases with their own `~` slug and an alias_target object.
    data.extend(
        fixture("catalog-captured.json")["data"]
            .as_array()
            .expect("captured rows")
            .iter()
            .cloned(),
    );
    // Both forms sharing a served model's canonical_slug (the join would have taken them).
    data.push(json!({"id": "~acme/alpha-latest", "canonical_slug": "acme/alpha-2026-01",
        "alias_target": {"name": "Acme: Alpha", "slug": "acme/alpha"}, "hugging_face_id": "evil/alias-repo",
        "pricing": {"prompt": "-1", "completion": "-1"}}));
    data.push(
        json!({"id": "acme/alpha-latest", "canonical_slug": "acme/alpha-2026-01",
        "alias_target": "acme/alpha", "hugging_face_id": "evil/alias-repo"}),
    );
    // Upper case is part of the ID grammar now (DESIGN §2, amended); a space is not.
    data.push(
        json!({"id": "acme/alpha upper", "canonical_slug": "acme/alpha-2026-01",
        "hugging_face_id": "evil/upper-repo"}),
    );
    data.push(json!({"canonical_slug": "acme/alpha-2026-01"}));
    standin.route(
        sources::CATALOG_TARGET,
        vec![Reply::json(serde_json::to_vec(&catalog).expect("json"))],
    );
    let dir = common::tempdir().expect("temp dir");
    let (result, report) = run_with(&standin, dir.path(), |o| o);
    result.expect("collected");

    let asked: Vec<String> = standin.log().into_iter().map(|r| r.target).collect();
    for never in ["latest", "upper", "evil"] {
        assert!(
            !asked.iter().any(|t| t.contains(never)),
            "{never} was requested: {asked:?}"
        );
    }
    let out = dir.path().join("out");
    let route_ids: Vec<&str> = sources::ROUTES.iter().map(|(r, _)| *r).collect();
    let written = routes_written(&out);
    let written: Vec<&str> = written
        .iter()
        .filter_map(|r| r["route_id"].as_str())
        .collect();
    assert_eq!(
        written, route_ids,
        "the routes are the catalog's real entries"
    );
    let states = supply_states(&out);
    assert_eq!(states["acme/alpha-2026-01"].0, "available", "not ambiguous");

    let skipped: Vec<(&str, &str, Option<&str>)> = report
        .catalog
        .skipped
        .iter()
        .map(|s| (s.id.as_str(), s.why.as_str(), s.alias_target.as_deref()))
        .collect();
    let expected_skips = [
        (
            "~anthropic/claude-sonnet-latest",
            "alias",
            Some("anthropic/claude-sonnet-5"),
        ),
        ("~x-ai/grok-latest", "alias", Some("x-ai/grok-4.6")),
        ("~acme/alpha-latest", "alias", Some("acme/alpha")),
        ("acme/alpha-latest", "alias", Some("acme/alpha")),
        ("acme/alpha upper", "id_rule", None),
    ];
    for expected in expected_skips {
        assert!(skipped.contains(&expected), "{expected:?} in {skipped:?}");
    }
    assert!(
        skipped.iter().any(|s| s.1 == "no_id"),
        "an entry without an id: {skipped:?}"
    );
    assert_eq!(skipped.len(), expected_skips.len() + 1);
    assert_eq!(report.catalog.status.as_str(), "read");
    assert_eq!(report.outcome.as_str(), "written");
    assert!(report.to_markdown().contains("6 skipped"));
}

#[test]
fn a_route_answering_500_and_one_answering_404_each_fail_only_themselves() {
    let standin = StandIn::start();
    sources::script_openrouter(&standin);
    standin.route(
        &sources::endpoints_target("acme/alpha:free"),
        vec![Reply::error(500)],
    );
    // A retired route the catalog still lists.
    standin.route(
        &sources::endpoints_target("open/beta"),
        vec![Reply::error(404)],
    );
    let dir = common::tempdir().expect("temp dir");
    let (result, report) = run_with(&standin, dir.path(), |o| o);
    let summary = result.expect("collected");
    assert!(summary.supply_complete);
    assert_eq!(summary.routes_failed, 2);

    let attempts = |route: &str| {
        standin
            .log()
            .iter()
            .filter(|r| r.target == sources::endpoints_target(route))
            .count()
    };
    assert_eq!(
        attempts("acme/alpha:free"),
        4,
        "500: the first try and three retries"
    );
    assert_eq!(attempts("open/beta"), 1, "404 is final");

    let out = dir.path().join("out");
    let supply = read_json(&out.join("supply.json"));
    assert_eq!(supply["collections"][0]["status"], "complete");
    for route in routes_written(&out) {
        let failed =
            ["acme/alpha:free", "open/beta"].contains(&route["route_id"].as_str().expect("id"));
        assert_eq!(route.get("status").is_some(), failed, "{route}");
        if failed {
            assert_eq!(route["status"], "failed");
            assert_eq!(route["endpoints"], json!([]));
        }
    }
    let states = supply_states(&out);
    for (model, (state, reason, _)) in &states {
        match model.as_str() {
            "acme/alpha-2026-01:free" | "open/beta-7b" => assert_eq!(
                (state.as_str(), reason.as_deref()),
                ("temporarily_unavailable", Some("route_collection_failed")),
                "{model}"
            ),
            "gone/missing-model" => assert_eq!(state, "current_route_not_found"),
            _ => assert_eq!(state, "available", "{model}"),
        }
    }

    let failed: BTreeMap<&str, Option<u16>> = report
        .routes
        .failed
        .iter()
        .map(|r| (r.route_id.as_str(), r.last_status))
        .collect();
    assert_eq!(
        failed,
        BTreeMap::from([("acme/alpha:free", Some(500)), ("open/beta", Some(404))])
    );
    assert_eq!(report.routes.requested, 4);
    assert_eq!(report.routes.collected, 2);
    assert_eq!(report.requests["endpoints"].requests, 2 + 4 + 1);
    let md = report.to_markdown();
    assert!(md.contains("Routes failed"), "{md}");
    assert!(md.contains("`open/beta` (`open/beta-7b`): 404"), "{md}");
}

#[test]
fn an_endpoint_list_as_captured_is_read_member_by_member() {
    let standin = StandIn::start();
    sources::script_openrouter(&standin);
    standin.route(
        &sources::endpoints_target("acme/alpha"),
        vec![Reply::json(
            serde_json::to_vec(&fixture("endpoints-oddities.json")).expect("json"),
        )],
    );
    let dir = common::tempdir().expect("temp dir");
    let (result, report) = run_with(&standin, dir.path(), |o| o);
    result.expect("collected");
    let out = dir.path().join("out");
    let alpha = routes_written(&out)
        .into_iter()
        .find(|r| r["route_id"] == "acme/alpha")
        .expect("the route");
    assert!(alpha.get("status").is_none(), "collected");
    let endpoint =
        |provider: &str, q: Value, ctx: Value, prices: [Value; 2], p50s: [Value; 2], up: Value| {
            json!({"provider": provider, "quantization": q, "context_length": ctx,
            "input_price_per_million": prices[0], "output_price_per_million": prices[1],
            "latency_ms": p50s[0], "throughput_tokens_per_second": p50s[1], "uptime_percent": up})
        };
    let null = Value::Null;
    // Worked by hand from the fixture: prices × 10^6 exactly; the 13-digit uptime rounded
    // half-to-even to 12 digits; strings read as the numbers they hold; the twins kept apart;
    // the entry naming no provider dropped.
    let expected = json!([
        endpoint(
            "DekaLLM",
            json!("bf16"),
            json!(131072),
            [json!("0.03"), json!("0.18")],
            [null.clone(), null.clone()],
            json!("98.618242927831")
        ),
        endpoint(
            "BaseTen",
            json!("fp8"),
            json!(128072),
            [json!("0.1"), json!("0.5")],
            [json!("420.5"), json!("85.3")],
            json!("0")
        ),
        endpoint(
            "BaseTen",
            null.clone(),
            json!(128072),
            [json!("0.1"), json!("0.5")],
            [null.clone(), null.clone()],
            json!("100")
        ),
        endpoint(
            "StringCo",
            json!("fp4"),
            json!(65536),
            [json!("1"), json!("2")],
            [json!("812.5"), json!("95.12")],
            json!("99.5")
        ),
        endpoint(
            "BareCo",
            null.clone(),
            null.clone(),
            [null.clone(), null.clone()],
            [null.clone(), null.clone()],
            null.clone()
        ),
    ]);
    assert_eq!(alpha["endpoints"], expected);
    let states = supply_states(&out);
    assert_eq!(states["acme/alpha-2026-01"].2, Some(5), "duplicates count");

    let e = &report.endpoints;
    assert_eq!(e.without_provider, 1);
    let unknown = |m: &str| {
        let c = e.unknown_members.get(m).copied().unwrap_or_default();
        (c.missing, c.wrong_type, c.out_of_range)
    };
    // The other scripted routes add their own nulls: count this route's from the fixture.
    let scripted_missing_latency: u64 = 1; // acme/alpha:free's endpoint sends no percentiles
    assert_eq!(
        unknown("latency_last_30m.p50"),
        (2 + scripted_missing_latency, 1, 0)
    );
    assert_eq!(unknown("throughput_last_30m.p50").1, 1);
    assert_eq!(unknown("context_length"), (0, 1, 0));
    assert_eq!(unknown("pricing.prompt"), (0, 1, 0));
    assert_eq!(unknown("pricing.completion"), (0, 1, 0));
    assert_eq!(unknown("uptime_last_30m"), (0, 0, 1));
    assert_eq!(unknown("quantization").1, 1);
    assert!(report
        .to_markdown()
        .contains("| `latency_last_30m.p50` | 1 | 0 |"));
}

use sources::script_fixture_repositories as script_repositories;

fn export_facts(out: &Path) -> Value {
    read_json(&out.join("export.json"))["models"].clone()
}

/// Hub requests of the log by bucket, and how many were refused.
fn hub_requests(standin: &StandIn) -> (u64, u64, u64) {
    let log = standin.log();
    let api = log
        .iter()
        .filter(|r| r.target.starts_with("/api/models"))
        .count() as u64;
    let resolvers = log
        .iter()
        .filter(|r| r.target.contains("/resolve/"))
        .count() as u64;
    let refused = log.iter().filter(|r| r.status == 429).count() as u64;
    (api, resolvers, refused)
}

#[test]
fn a_cold_run_under_enforced_windows_reads_every_repository() {
    let standin = StandIn::start();
    script_repositories(&standin);
    let dir = common::tempdir().expect("temp dir");
    let (free, _) = run_with(&standin, &dir.path().join("free"), |o| o);
    free.expect("unlimited run");
    let (api, resolvers, _) = hub_requests(&standin);
    let unlimited = export_facts(&dir.path().join("free/out"));

    // Windows scaled down so the run needs about three of each bucket.
    let window = Duration::from_secs(3);
    let (q_api, q_res) = (api.div_ceil(3).max(4), resolvers.div_ceil(3).max(4));
    for on_every_answer in [true, false] {
        standin.clear_log();
        standin.limit(vec![
            Limit {
                on_every_answer,
                ..Limit::hub_api(q_api, window)
            },
            Limit {
                on_every_answer,
                ..Limit::hub_resolvers(q_res, window)
            },
        ]);
        let label = if on_every_answer { "paced" } else { "refused" };
        let started = Instant::now();
        let (result, report) = run_with(&standin, &dir.path().join(label), |o| o);
        result.expect("collected");
        let elapsed = started.elapsed();
        let (_, _, refused) = hub_requests(&standin);
        if std::env::var("SHOW_REFUSALS").is_ok() {
            for r in standin.log().iter().filter(|r| r.status == 429) {
                eprintln!("429 at {:.3} s: {}", r.at.as_secs_f64(), r.target);
            }
        }
        println!(
            "{label}: {api} API and {resolvers} resolver requests under {q_api} and {q_res} per {} s: {refused} refused, {:.1} s waited, {:.1} s in all",
            window.as_secs(),
            report.waited_seconds,
            elapsed.as_secs_f64()
        );
        assert_eq!(
            export_facts(&dir.path().join(label).join("out")),
            unlimited,
            "{label}: the same facts as the unlimited run"
        );
        assert!(
            report
                .repositories
                .iter()
                .all(|r| r.outcome.as_str() == "read"),
            "{label}: {:?}",
            report.repositories
        );
        let counted: u64 = report.rate_limits.values().map(|b| b.refused).sum();
        assert_eq!(counted, refused, "{label}: the report counts every 429");
        assert!(report.waited_seconds > 0.0, "{label}: it waited");
        if on_every_answer {
            // Paced by the fields on every answer: only requests sent before the first answer
            // said where the bucket stands (at most the four in flight) can be refused.
            assert!(refused <= 4, "{label}: {refused} refused");
            let quota = &report.rate_limits["huggingface/resolvers"];
            assert_eq!(
                (quota.quota_requests, quota.quota_window_seconds),
                (Some(q_res), Some(window.as_secs()))
            );
        } else {
            assert!(refused > 0, "the fields came only with refusals");
        }
    }
}

#[test]
fn a_wait_past_the_budget_fails_the_request_as_any_other() {
    let standin = StandIn::start();
    script_repositories(&standin);
    // One API request per minute: five of the six repositories would wait minutes.
    standin.limit(vec![Limit::hub_api(1, Duration::from_secs(60))]);
    let dir = common::tempdir().expect("temp dir");
    let started = Instant::now();
    let (result, report) = run_with(&standin, dir.path(), |o| CollectOptions {
        wait_budget: Duration::from_secs(2),
        ..o
    });
    result.expect("collected all the same");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let failed: Vec<_> = report
        .repositories
        .iter()
        .filter(|r| r.outcome.as_str() == "failed")
        .collect();
    assert!(!failed.is_empty(), "{:?}", report.repositories);
    for r in &failed {
        let reason = r.reason.as_deref().unwrap_or_default();
        assert!(reason.contains("rate limit"), "{reason}");
    }
    assert!(report.waited_seconds <= 2.0, "{}", report.waited_seconds);
    let export = read_json(&dir.path().join("out/export.json"));
    let unavailable = export["models"]
        .as_array()
        .expect("models")
        .iter()
        .filter(|m| m["facts"]["total_parameters"]["reason"] == "open_checkpoint_unavailable")
        .count();
    assert_eq!(
        unavailable,
        failed.iter().map(|r| r.models.len()).sum::<usize>()
    );
}

#[test]
fn an_openrouter_429_is_waited_out_to_its_x_ratelimit_reset() {
    let standin = StandIn::start();
    sources::script_openrouter(&standin);
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis();
    let target = sources::endpoints_target("open/beta");
    let headers = vec![
        ("X-RateLimit-Limit".to_string(), "50".to_string()),
        ("X-RateLimit-Remaining".to_string(), "0".to_string()),
        (
            "X-RateLimit-Reset".to_string(),
            (now_ms + 1_000).to_string(),
        ),
    ];
    let refusal = br#"{"error":{"message":"Rate limit exceeded","code":429}}"#.to_vec();
    let ok = sources::endpoints_body("open/beta", sources::default_endpoints("open/beta"));
    // Refused four times in a row: more than the three retries, so only waits that do not use
    // a try let the route through.
    let mut replies = vec![Reply::Status(429, headers, refusal); 4];
    replies.push(Reply::json(ok));
    standin.route(&target, replies);
    let dir = common::tempdir().expect("temp dir");
    let (result, report) = run_with(&standin, dir.path(), |o| o);
    assert_eq!(result.expect("collected").routes_failed, 0);
    let asked = standin.log().iter().filter(|r| r.target == target).count();
    assert_eq!(asked, 5);
    assert_eq!(report.requests["endpoints"].refused, 4);
    assert!(report.waited_seconds >= 1.0, "{}", report.waited_seconds);
}

fn policy_with(dir: &Path, matches: Value) -> PathBuf {
    let mut policy = read_json(&common::crate_path("data/policy.json"));
    policy["catalog_matches"] = matches;
    let path = dir.join("policy.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&policy).expect("json")).expect("write");
    path
}

/// Issue 35: a rankings row as captured from rankings-daily (`perplexity/pplx-embed-v1-0.6B`,
/// five days from 2026-07-29, its catalog ID lowercase) cost every night while the gate took
/// only lower case. Now it is a model of its own ID, joined to the catalog by letter case, and
/// the rows no rule can accept (empty, over 200 characters, a character outside the grammar)
/// go into their day's `other` tokens: the night is written, the market total whole.
#[test]
fn an_upper_case_permaslug_is_served_as_written_and_unpublishable_rows_go_into_other() {
    let standin = StandIn::start();
    sources::script_openrouter(&standin);
    let upper = "perplexity/pplx-embed-v1-0.6B";
    let lower = "perplexity/pplx-embed-v1-0.6b";
    let long = format!("acme/{}", "x".repeat(196));
    let base = sources::rankings_rows();
    let mut rows = Vec::new();
    for day in 0..40 {
        // Each day's rows as the source orders them: models, then `other` last.
        let (mut models, other): (Vec<_>, Vec<_>) = base
            .iter()
            .filter(|r| r.0 == sources::date(day))
            .cloned()
            .partition(|r| r.1 != "other");
        if day >= 35 {
            models.push((sources::date(day), upper.to_string(), 9_000 + day as u128));
            models.push((sources::date(day), String::new(), 11));
            models.push((sources::date(day), "acme/has space".to_string(), 13));
            models.push((sources::date(day), long.clone(), 17));
            models.push((sources::date(day), "ünïcode/model".to_string(), 19));
        }
        rows.extend(models);
        rows.extend(other);
    }
    standin.route(
        &sources::rankings_target(),
        vec![Reply::json(sources::rankings_body(
            &rows,
            "2026-11-21T02:00:00Z",
        ))],
    );
    let mut catalog: Value = serde_json::from_slice(&sources::catalog_body("")).expect("json");
    catalog["data"]
        .as_array_mut()
        .expect("data")
        .push(json!({"id": lower, "canonical_slug": lower, "hugging_face_id": ""}));
    standin.route(
        sources::CATALOG_TARGET,
        vec![Reply::json(serde_json::to_vec(&catalog).expect("json"))],
    );
    standin.route(
        &sources::endpoints_target(lower),
        vec![Reply::json(sources::endpoints_body(
            lower,
            sources::default_endpoints(lower),
        ))],
    );

    let dir = common::tempdir().expect("temp dir");
    let (result, report) = run_with(&standin, dir.path(), |o| o);
    result.expect("the night is written");
    let out = dir.path().join("out");
    let export = read_json(&out.join("export.json"));

    // The model keeps its ID as written, case and all.
    let ids: Vec<&str> = export["models"]
        .as_array()
        .expect("models")
        .iter()
        .filter_map(|m| m["model_id"].as_str())
        .collect();
    assert!(ids.contains(&upper), "{ids:?}");
    assert!(!ids.contains(&lower), "{ids:?}");
    // Every day keeps its market total: the unpublishable rows are in `other`.
    for day in export["days"].as_array().expect("days") {
        let date = day["date"].as_str().expect("date");
        let offset = (0..40)
            .find(|d| sources::date(*d) == date)
            .expect("a requested date");
        let delivered: u128 = rows.iter().filter(|r| r.0 == date).map(|r| r.2).sum();
        let in_rows: u128 = day["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| {
                r["total_tokens"]
                    .as_str()
                    .expect("tokens")
                    .parse::<u128>()
                    .expect("n")
            })
            .sum();
        let other: u128 = day["other_tokens"]
            .as_str()
            .expect("known")
            .parse()
            .expect("n");
        assert_eq!(
            in_rows + other,
            delivered,
            "{date}: the market total stays whole"
        );
        if offset >= 35 {
            assert!(
                day["rows"]
                    .as_array()
                    .expect("rows")
                    .iter()
                    .any(|r| r["model_id"] == upper),
                "{date}"
            );
        }
    }
    // Joined by letter case to the catalog's lowercase slug: its route is the catalog's ID.
    let route = routes_written(&out)
        .into_iter()
        .find(|r| r["model_id"] == upper)
        .expect("a route for the upper-case model");
    assert_eq!(route["route_id"], lower);
    assert_eq!(supply_states(&out)[upper].0, "available");
    assert!(!report
        .models_without_catalog_entry
        .iter()
        .any(|m| m == upper));
    assert_eq!(report.catalog_joins_by_case.len(), 1);
    assert_eq!(report.catalog_joins_by_case[0].model_id, upper);
    assert_eq!(report.catalog_joins_by_case[0].canonical_slugs, [lower]);
    assert!(report.catalog_joins_by_case[0].joined);

    // The report names every folded row: 4 a day over the 5 days.
    let folded = &report.rows_folded_into_other;
    assert_eq!(folded.len(), 20, "{folded:?}");
    let whys: std::collections::BTreeSet<&str> = folded.iter().map(|f| f.why.as_str()).collect();
    assert_eq!(
        whys,
        [
            "a character outside A-Z a-z 0-9 . _ : / -",
            "does not start with A-Z, a-z or 0-9",
            "empty",
            "longer than 200 characters",
        ]
        .into_iter()
        .collect()
    );
    let first = folded
        .iter()
        .find(|f| f.permaslug == "acme/has space")
        .expect("named");
    assert_eq!(first.date, sources::date(35));
    assert_eq!(first.total_tokens, "13");
    let index: usize = first
        .row
        .strip_prefix("data[")
        .and_then(|r| r.strip_suffix(']'))
        .and_then(|n| n.parse().ok())
        .expect("data[i]");
    assert_eq!(
        rows[index].1, "acme/has space",
        "the row named is the row served"
    );
    let md = report.to_markdown();
    assert!(
        md.contains("Rankings rows with no publishable model ID"),
        "{md}"
    );
    assert!(md.contains("Joined to the catalog by letter case"), "{md}");

    // What collect wrote is served under the ID as written, and only under it.
    let inputs = model_demand::load(&out.join("export.json"), Some(&out.join("supply.json")))
        .expect("accepted");
    let catalog = inputs.served_models(model_demand::parse_now(sources::NOW).expect("now"));
    let api = model_demand::answers::render::Api::new(&catalog);
    let found = api.answer(&format!(
        "model_id={}",
        model_demand::query::percent_encode(upper)
    ));
    assert_eq!(found.status, 200);
    assert_eq!(api.answer(&format!("model_id={lower}")).status, 404);
}

#[test]
fn a_permaslug_named_differently_is_joined_only_by_a_reviewed_match() {
    let standin = StandIn::start();
    sources::script_openrouter(&standin);
    // The rankings name the vendor `acme-ai`; the catalog names it `acme`.
    let mut rows = sources::rankings_rows();
    for day in 0..40 {
        rows.push((sources::date(day), "acme-ai/gamma-2026".to_string(), 42));
    }
    standin.route(
        &sources::rankings_target(),
        vec![Reply::json(sources::rankings_body(
            &rows,
            "2026-11-21T02:00:00Z",
        ))],
    );
    let mut catalog: Value = serde_json::from_slice(&sources::catalog_body("")).expect("json");
    catalog["data"].as_array_mut().expect("data").push(
        json!({"id": "acme/gamma", "canonical_slug": "acme/gamma-2026", "hugging_face_id": ""}),
    );
    standin.route(
        sources::CATALOG_TARGET,
        vec![Reply::json(serde_json::to_vec(&catalog).expect("json"))],
    );
    standin.route(
        &sources::endpoints_target("acme/gamma"),
        vec![Reply::json(sources::endpoints_body(
            "acme/gamma",
            sources::default_endpoints("acme/gamma"),
        ))],
    );

    let dir = common::tempdir().expect("temp dir");
    let (result, report) = run_with(&standin, &dir.path().join("without"), |o| o);
    result.expect("collected");
    assert_eq!(
        report.models_without_catalog_entry,
        ["acme-ai/gamma-2026", "gone/missing-model"]
    );
    let states = supply_states(&dir.path().join("without/out"));
    assert_eq!(states["acme-ai/gamma-2026"].0, "current_route_not_found");
    assert!(report.to_markdown().contains("`acme-ai/gamma-2026`"));

    let policy = policy_with(
        dir.path(),
        json!([
            {"model_id": "acme-ai/gamma-2026", "canonical_slug": "acme/gamma-2026",
             "note": "the rankings name the vendor acme-ai, the catalog acme"},
            {"model_id": "gone/missing-model", "canonical_slug": "gone/nowhere",
             "note": "a slug the catalog does not have"},
            {"model_id": "never/served", "canonical_slug": "acme/gamma-2026", "note": "no such model"}
        ]),
    );
    let (result, report) = run_with(&standin, &dir.path().join("with"), |o| CollectOptions {
        policy: Some(policy.clone()),
        ..o
    });
    result.expect("collected");
    assert_eq!(report.models_without_catalog_entry, ["gone/missing-model"]);
    let out = dir.path().join("with/out");
    let gamma = routes_written(&out)
        .into_iter()
        .find(|r| r["route_id"] == "acme/gamma")
        .expect("joined");
    assert_eq!(gamma["model_id"], "acme-ai/gamma-2026");
    assert_eq!(supply_states(&out)["acme-ai/gamma-2026"].0, "available");
    let outcomes: Vec<(&str, bool, Option<&str>)> = report
        .catalog_matches
        .iter()
        .map(|m| (m.model_id.as_str(), m.used, m.ignored_because.as_deref()))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("acme-ai/gamma-2026", true, None),
            (
                "gone/missing-model",
                false,
                Some("the catalog has no entry with this canonical_slug")
            ),
            (
                "never/served",
                false,
                Some("names no served model (neither its ID nor its release ID)")
            ),
        ]
    );
    assert!(report
        .to_markdown()
        .contains("`catalog_matches` entries ignored"));

    // The policy's entries pass its gate like the rest of it.
    let bad = policy_with(
        &dir.path().join("without"),
        json!([{"model_id": "acme-ai/gamma 2026", "canonical_slug": "acme/gamma-2026"}]),
    );
    let err = collect::collect(&CollectOptions {
        policy: Some(bad),
        ..sources::options(&standin, &dir.path().join("bad"))
    })
    .expect_err("refused");
    let problems = format!("{err:?}");
    assert!(
        problems.contains("$.catalog_matches[0].model_id"),
        "{problems}"
    );
    assert!(problems.contains("$.catalog_matches[0].note"), "{problems}");
}

#[test]
fn the_binary_says_when_it_waits_writes_its_report_and_renders_it() {
    let standin = StandIn::start();
    script_repositories(&standin);
    standin.limit(vec![Limit::hub_resolvers(160, Duration::from_secs(2))]);
    let dir = common::tempdir().expect("temp dir");
    let report = dir.path().join("report.json");
    let bin = env!("CARGO_BIN_EXE_model-demand");
    let output = sources::collect_command(&standin, dir.path())
        .arg("--report")
        .arg(&report)
        .output()
        .expect("runs");
    let text = common::output_text(&output);
    assert!(output.status.success(), "{text}");
    assert!(!text.contains(KEY), "the key is never printed");
    assert!(
        text.contains(
            "collect: huggingface/resolvers has nothing left (quota 160 per 2 s): waiting"
        ),
        "{text}"
    );
    let rendered = std::process::Command::new(bin)
        .arg("collect-report")
        .arg(&report)
        .output()
        .expect("runs");
    let md = String::from_utf8_lossy(&rendered.stdout);
    assert!(rendered.status.success(), "{md}");
    assert!(
        md.starts_with("### collect, 2026-11-21T06:00:00Z: written"),
        "{md}"
    );
    assert!(md.contains("| models served | 6 |"), "{md}");
    assert!(md.contains("| huggingface/resolvers |"), "{md}");
    assert!(md.contains("HF_TOKEN"), "{md}");
    let raw = std::fs::read_to_string(&report).expect("report");
    assert!(!raw.contains(KEY));

    // A report replaces only a report.
    std::fs::write(&report, "my notes").expect("write");
    let second = dir.path().join("second");
    std::fs::create_dir(&second).expect("mkdir");
    let refused = sources::collect_command(&standin, &second)
        .arg("--report")
        .arg(&report)
        .output()
        .expect("runs");
    assert!(!refused.status.success());
    assert_eq!(std::fs::read_to_string(&report).expect("kept"), "my notes");
    assert!(!second.join("out").exists(), "refused before any request");
}
