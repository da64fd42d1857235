//! `collect` at nightly scale against the local stand-in: 60 served models over 60 days, 70
//! routes, and 60 Hugging Face repositories (ten copies of each of the six fixture
//! repositories), cold and then with a warm cache. Prints wall time, requests by kind and
//! bytes, against Hugging Face's anonymous limits (500 API calls and 3,000 file requests per
//! 5 minutes). A last row runs cold under those limits scaled 1:15 (33 API and 200 resolver
//! requests per 20 s window, enforced by the stand-in with Hugging Face's `RateLimit` fields)
//! and prints wall time, requests, 429s and waits against the least time the windows allow.
//!
//! Run: `cargo bench --bench collect` (the last row takes several minutes: the windows).

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::sources;
use common::standin::{Limit, Reply, StandIn};
use model_demand::collect::{self, CollectOptions, CollectReport};
use serde_json::{json, Value};

const MODELS: usize = 60;
const DAYS: u32 = 60;
/// Models that also have a second route entry (60 + 10 = 70 routes).
const SECOND_ROUTES: usize = 10;

fn main() {
    let standin = StandIn::start();
    let start = time::macros::date!(2026 - 09 - 22); // 2026-11-20 − 59 days
    let models: Vec<String> = (0..MODELS).map(|i| format!("bench/model-{i:02}")).collect();
    let mut rows = Vec::new();
    for day in 0..i64::from(DAYS) {
        let d = start + time::Duration::days(day);
        let date = format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day());
        // 50 a day, rotating, so 60 models are served over the window.
        for k in 0..50 {
            let m = (day as usize + k) % MODELS;
            rows.push((
                date.clone(),
                models[m].clone(),
                1_000_000 + (m * 1000 + k) as u128,
            ));
        }
        rows.push((date, "other".to_string(), 123_456));
    }
    standin.route(
        "/api/v1/datasets/rankings-daily?start_date=2026-09-22&end_date=2026-11-20",
        vec![Reply::json(sources::rankings_body(
            &rows,
            "2026-11-21T02:00:00Z",
        ))],
    );

    // Sixty repositories: ten copies of each fixture under new IDs.
    let mut catalog = Vec::new();
    let mut repos = 0;
    for (i, model) in models.iter().enumerate() {
        let folder = common::hf::REPOS[i % common::hf::REPOS.len()];
        let mut repo = common::hf::repo(folder);
        repo.id = format!("bench-org/{}-{i:02}", folder.replace("__", "-"));
        common::hf::serve(&standin, &repo, &[]);
        repos += 1;
        catalog.push(json!({"id": model, "canonical_slug": model, "hugging_face_id": repo.id}));
        if i < SECOND_ROUTES {
            // A dated alias of the same release: a second route entry for the model.
            catalog.push(json!({"id": format!("{model}-2026"), "canonical_slug": model, "hugging_face_id": ""}));
        }
    }
    for entry in &catalog {
        let id = entry["id"].as_str().expect("id");
        let body = sources::endpoints_body(id, sources::default_endpoints("acme/alpha"));
        standin.route(&sources::endpoints_target(id), vec![Reply::json(body)]);
    }
    let set_catalog = |with_repos: bool| {
        let data: Vec<Value> = catalog
            .iter()
            .map(|e| {
                let mut e = e.clone();
                if !with_repos {
                    e["hugging_face_id"] = json!("");
                }
                e
            })
            .collect();
        standin.route(
            sources::CATALOG_TARGET,
            vec![Reply::json(
                serde_json::to_vec(&json!({"data": data})).expect("json"),
            )],
        );
    };

    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    let mut cold = None;
    for (label, out, with_repos) in [
        ("OpenRouter only (target < 5 s)", "o", false),
        ("with facts, cold cache", "a", true),
        ("with facts, warm cache", "b", true),
    ] {
        set_catalog(with_repos);
        let options = CollectOptions {
            days: DAYS,
            cache: Some(cache.clone()),
            ..sources::options(&standin, &dir.path().join(out))
        };
        let started = Instant::now();
        let report = collect::collect(&options).expect("collects");
        print(label, &report, started.elapsed().as_secs_f64());
        if out == "a" {
            cold = Some((report, started.elapsed()));
        }
    }
    println!("({repos} repositories; stand-in answers one request at a time on loopback)");
    if let Some((report, elapsed)) = cold {
        under_windows(&standin, dir.path(), &report, elapsed);
    }
}

/// Hugging Face's anonymous quotas (500 API and 3,000 resolver requests per 300 s) scaled 1:15.
const WINDOW: Duration = Duration::from_secs(20);
const API_QUOTA: u64 = 500 / 15;
const RESOLVER_QUOTA: u64 = 3000 / 15;

/// The cold run again under enforced windows, against the least time the windows allow: each
/// bucket's full windows before its last one, counted from the run's start in the stand-in's
/// fixed windows, plus the unlimited run's pace for what its last window holds.
fn under_windows(
    standin: &StandIn,
    dir: &std::path::Path,
    cold: &CollectReport,
    cold_time: Duration,
) {
    let count =
        |kinds: &[&str]| -> u64 { kinds.iter().filter_map(|k| cold.requests.get(*k)).sum() };
    let buckets = [
        ("api", count(&["hf-info", "hf-search"]), API_QUOTA),
        ("resolvers", count(&["hf-file", "hf-range"]), RESOLVER_QUOTA),
    ];
    let all_hub: u64 = buckets.iter().map(|b| b.1).sum();
    standin.limit(vec![
        Limit::hub_api(API_QUOTA, WINDOW),
        Limit::hub_resolvers(RESOLVER_QUOTA, WINDOW),
    ]);
    standin.clear_log();
    let options = CollectOptions {
        days: DAYS,
        ..sources::options(standin, &dir.join("windows"))
    };
    // Where the run starts within the stand-in's current window.
    let phase =
        Duration::from_millis((standin.epoch.elapsed().as_millis() % WINDOW.as_millis()) as u64);
    let started = Instant::now();
    let report = collect::collect(&options).expect("collects");
    let seconds = started.elapsed().as_secs_f64();
    let minimum = buckets
        .iter()
        .map(|(_, n, q)| {
            let windows = n.div_ceil(*q);
            let last = n - (windows - 1) * q;
            let waits =
                ((windows - 1) as f64 * WINDOW.as_secs_f64() - phase.as_secs_f64()).max(0.0);
            waits + cold_time.as_secs_f64() * last as f64 / all_hub as f64
        })
        .fold(cold_time.as_secs_f64(), f64::max);
    let log = standin.log();
    let refused = log.iter().filter(|r| r.status == 429).count();
    let hub = log
        .iter()
        .filter(|r| r.target.starts_with("/api/models") || r.target.contains("/resolve/"))
        .count();
    let lost = report.models - report.models_with_evidence;
    println!(
        "collect cold under the anonymous Hub quotas scaled 1:15 ({API_QUOTA} API and {RESOLVER_QUOTA} resolver requests per {} s): {seconds:.1} s, {hub} Hub requests ({} API, {} resolvers), {refused} refused (429), {} models without facts",
        WINDOW.as_secs(),
        buckets[0].1,
        buckets[1].1,
        lost
    );
    println!(
        "  least time the windows allow: {minimum:.1} s (run began {:.1} s into a window); ratio {:.2} (target <= 1.2, no repository lost)",
        phase.as_secs_f64(),
        seconds / minimum
    );
}

fn print(label: &str, report: &CollectReport, seconds: f64) {
    let kinds: BTreeMap<_, _> = report.requests.iter().collect();
    let api: u64 = ["hf-info", "hf-search"]
        .iter()
        .filter_map(|k| report.requests.get(*k))
        .sum();
    let files: u64 = ["hf-file", "hf-range"]
        .iter()
        .filter_map(|k| report.requests.get(*k))
        .sum();
    let hf_bytes: u64 = ["hf-info", "hf-search", "hf-file", "hf-range"]
        .iter()
        .filter_map(|k| report.bytes.get(*k))
        .sum();
    println!(
        "collect {label}: {seconds:.2} s, {} models, {} routes, requests {kinds:?}",
        report.models, report.routes
    );
    println!(
        "  Hugging Face: {api} API calls (limit 500 / 5 min), {files} file requests (limit 3,000 / 5 min), {:.1} MB received",
        hf_bytes as f64 / 1e6
    );
}
