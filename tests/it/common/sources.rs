//! A scripted OpenRouter for the collector's tests: rankings-daily rows, a catalog and endpoint
//! answers written in the formats OpenRouter documents (its Data API page and OpenAPI document,
//! cited in the README), served by the [`super::standin::StandIn`].

use std::time::Duration;

use model_demand::collect::http::Secret;
use model_demand::collect::CollectOptions;
use serde_json::{json, Value};

use super::standin::{Reply, StandIn};

/// The run's clock in these tests: the window ends 2026-11-20.
pub const NOW: &str = "2026-11-21T06:00:00Z";
/// A key that must never appear in output.
pub const KEY: &str = "sk-or-v1-not-a-real-key-for-tests";
/// Days requested.
pub const DAYS: u32 = 40;
/// The first date requested (2026-11-20 − 39 days).
pub const START: &str = "2026-10-12";
/// The last date requested.
pub const END: &str = "2026-11-20";

/// The demand models, as rankings-daily names them (permaslugs, variant included).
pub const MODELS: [&str; 5] = [
    "acme/alpha-2026-01",      // catalog id acme/alpha (differs from the permaslug)
    "acme/alpha-2026-01:free", // its :free variant
    "deep/think-v1:thinking",  // a :thinking variant
    "open/beta-7b",            // hugging_face_id null
    "gone/missing-model",      // not in the catalog
];

/// The target of the rankings request.
pub fn rankings_target() -> String {
    format!("/api/v1/datasets/rankings-daily?start_date={START}&end_date={END}")
}

/// The catalog target.
pub const CATALOG_TARGET: &str = "/api/v1/models?output_modalities=all";

/// Catalog route IDs with the demand model each serves.
pub const ROUTES: [(&str, &str); 4] = [
    ("acme/alpha", "acme/alpha-2026-01"),
    ("acme/alpha:free", "acme/alpha-2026-01:free"),
    ("deep/think:thinking", "deep/think-v1:thinking"),
    ("open/beta", "open/beta-7b"),
];

/// The endpoints target of a route.
pub fn endpoints_target(route: &str) -> String {
    format!("/api/v1/models/{route}/endpoints")
}

/// A date of the requested range by offset from START.
pub fn date(offset: i64) -> String {
    let start = time::macros::date!(2026 - 10 - 12);
    let d = start + time::Duration::days(offset);
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

/// The scripted rankings rows: (date, permaslug, tokens). Day offsets 29, 30 and 31
/// (2026-11-10, -11, -12) are special: absent, `other` only, and rows without `other`.
pub fn rankings_rows() -> Vec<(String, String, u128)> {
    let mut rows = Vec::new();
    for day in 0..40i64 {
        let d = date(day);
        if day == 29 {
            continue; // the source delivered nothing for this date
        }
        if day == 30 {
            rows.push((d, "other".to_string(), 5_000));
            continue;
        }
        for (i, model) in MODELS.iter().enumerate() {
            // gone/missing-model only appears in the last 10 days.
            if i == 4 && day < 30 {
                continue;
            }
            let tokens = (1_000_000 * (5 - i as u128)) + day as u128 * 1_000 + i as u128;
            rows.push((d.clone(), model.to_string(), tokens));
        }
        if day != 31 {
            rows.push((d, "other".to_string(), 777_000 + day as u128));
        }
    }
    rows
}

/// The rankings-daily body for rows, with `meta.as_of`.
pub fn rankings_body(rows: &[(String, String, u128)], as_of: &str) -> Vec<u8> {
    let data: Vec<Value> = rows
        .iter()
        .map(|(d, slug, tokens)| {
            json!({"date": d, "model_permaslug": slug, "total_tokens": tokens.to_string()})
        })
        .collect();
    serde_json::to_vec(&json!({
        "data": data,
        "meta": {"as_of": as_of, "version": "v1", "start_date": START, "end_date": END}
    }))
    .expect("serializes")
}

/// A catalog entry in the documented model-object shape (abridged to the members a client
/// reads plus a few it must ignore).
fn catalog_entry(id: &str, slug: &str, hf: Value) -> Value {
    json!({
        "id": id, "canonical_slug": slug, "hugging_face_id": hf, "name": id,
        "created": 1_700_000_000, "context_length": 131_072,
        "architecture": {"modality": "text->text", "input_modalities": ["text"], "output_modalities": ["text"], "tokenizer": "Other", "instruct_type": null},
        "pricing": {"prompt": "0.000001", "completion": "0.000002"},
        "top_provider": {"context_length": 131_072, "max_completion_tokens": null, "is_moderated": false},
        "per_request_limits": null, "supported_parameters": ["temperature"], "default_parameters": null,
        "supported_voices": null, "links": {"details": format!("/api/v1/models/{id}/endpoints")}
    })
}

/// The catalog: the routes above, an unrelated model, and `open/beta-7b` with a null repo.
pub fn catalog_body(hf_for_alpha: &str) -> Vec<u8> {
    let data = vec![
        catalog_entry("acme/alpha:free", "acme/alpha-2026-01", json!("")),
        catalog_entry("acme/alpha", "acme/alpha-2026-01", json!(hf_for_alpha)),
        catalog_entry("deep/think:thinking", "deep/think-v1", json!("")),
        catalog_entry("deep/think", "deep/think-v1", json!("")),
        catalog_entry("open/beta", "open/beta-7b", Value::Null),
        catalog_entry("unrelated/x", "unrelated/x-1", json!("unrelated/X")),
    ];
    serde_json::to_vec(&json!({"data": data, "total_count": 6, "links": {"next": null}}))
        .expect("serializes")
}

/// An endpoint in the documented `PublicEndpoint` shape.
pub fn endpoint(provider: &str, quantization: Value, prompt: &str, latency_p50: Value) -> Value {
    json!({
        "name": format!("{provider}: model"), "model_id": "x", "model_name": "x",
        "context_length": 131_072,
        "pricing": {"prompt": prompt, "completion": "0.00001", "request": "0", "image": "0"},
        "provider_name": provider, "tag": provider.to_lowercase(), "quantization": quantization,
        "max_completion_tokens": null, "max_prompt_tokens": null, "supported_parameters": [],
        "status": 0, "uptime_last_30m": 99.5, "uptime_last_5m": 100, "uptime_last_1d": 99.8,
        "supports_implicit_caching": false,
        "latency_last_30m": latency_p50.as_f64().map(|p| json!({"p50": p, "p75": p, "p90": p, "p99": p})),
        "throughput_last_30m": {"p50": 95.12, "p75": 80.0, "p90": 70.0, "p99": 50.0}
    })
}

/// The endpoints body for a route.
pub fn endpoints_body(route: &str, endpoints: Vec<Value>) -> Vec<u8> {
    serde_json::to_vec(&json!({"data": {"id": route, "name": route, "created": 0,
        "description": "", "architecture": {}, "endpoints": endpoints}}))
    .expect("serializes")
}

/// The default endpoints of each route.
pub fn default_endpoints(route: &str) -> Vec<Value> {
    match route {
        "acme/alpha" => vec![
            endpoint("Acme", json!("bf16"), "0.0000025", json!(812.5)),
            endpoint("Beta Cloud", json!("fp8"), "0.000003", json!(1007.0)),
        ],
        "acme/alpha:free" => vec![endpoint("Acme", json!("unknown"), "0", Value::Null)],
        _ => vec![endpoint("Deep", Value::Null, "0.000001", json!(400))],
    }
}

/// Scripts a complete, healthy OpenRouter on `standin` (no Hugging Face repositories).
pub fn script_openrouter(standin: &StandIn) {
    standin.route(
        &rankings_target(),
        vec![Reply::json(rankings_body(
            &rankings_rows(),
            "2026-11-21T02:00:00.000Z",
        ))],
    );
    standin.route(CATALOG_TARGET, vec![Reply::json(catalog_body(""))]);
    for (route, _) in ROUTES {
        standin.route(
            &endpoints_target(route),
            vec![Reply::json(endpoints_body(route, default_endpoints(route)))],
        );
    }
}

/// Options for a run against `standin`, writing into `out`.
pub fn options(standin: &StandIn, out: &std::path::Path) -> CollectOptions {
    let now = model_demand::parse_now(NOW).expect("valid now");
    CollectOptions {
        days: DAYS,
        openrouter_url: standin.base.clone(),
        huggingface_url: standin.base.clone(),
        policy: Some(super::crate_path("data/policy.json")),
        openrouter_key: Secret::new(KEY.to_string()),
        hf_token: None,
        retry_base: Duration::from_millis(10),
        ..CollectOptions::from_env(out, now)
    }
}

/// The demand model ID a fixture repository is listed under.
pub fn repository_model_id(repo: &super::hf::FixtureRepo) -> String {
    repo.id.to_lowercase()
}

/// Scripts OpenRouter with one model per fixture repository (catalog entry naming it as the
/// Hugging Face source, an empty endpoint list), each on every day of the window.
pub fn script_repositories(standin: &StandIn, repos: &[super::hf::FixtureRepo]) {
    let id = repository_model_id;
    let mut rows = Vec::new();
    for day in 0..40 {
        for (i, repo) in repos.iter().enumerate() {
            rows.push((date(day), id(repo), 1_000_000 + i as u128));
        }
        rows.push((date(day), "other".to_string(), 1));
    }
    standin.route(
        &rankings_target(),
        vec![Reply::json(rankings_body(&rows, "2026-11-21T02:00:00Z"))],
    );
    let data: Vec<Value> = repos
        .iter()
        .map(|r| json!({"id": id(r), "canonical_slug": id(r), "hugging_face_id": r.id}))
        .collect();
    standin.route(
        CATALOG_TARGET,
        vec![Reply::json(
            serde_json::to_vec(&json!({"data": data})).expect("json"),
        )],
    );
    for repo in repos {
        standin.route(
            &endpoints_target(&id(repo)),
            vec![Reply::json(endpoints_body(&id(repo), vec![]))],
        );
    }
}

/// `model-demand collect` run in `dir` against `standin` (writing `dir/out`), with the test key
/// and no Hugging Face token; callers add options and run it.
pub fn collect_command(standin: &StandIn, dir: &std::path::Path) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_model-demand"));
    command
        .args(["collect", "--out", "out", "--now", NOW, "--days", "40"])
        .args([
            "--openrouter-url",
            &standin.base,
            "--huggingface-url",
            &standin.base,
        ])
        .arg("--policy")
        .arg(super::crate_path("data/policy.json"))
        .env("OPENROUTER_API_KEY", KEY)
        .env_remove("HF_TOKEN")
        .current_dir(dir);
    command
}

/// A run against `standin` writing `dir/out` and a report `dir/report.json`, with `tweak`
/// applied to the options: the result and the report.
pub fn run_with_report(
    standin: &StandIn,
    dir: &std::path::Path,
    tweak: impl FnOnce(CollectOptions) -> CollectOptions,
) -> (
    model_demand::base::error::Result<model_demand::collect::CollectReport>,
    model_demand::collect::report::RunReport,
) {
    let report = dir.join("report.json");
    let options = tweak(CollectOptions {
        report: Some(report.clone()),
        ..options(standin, &dir.join("out"))
    });
    let result = model_demand::collect::collect(&options);
    let written =
        model_demand::collect::report::RunReport::read(&report).expect("a report is written");
    (result, written)
}

/// Scripts OpenRouter with one model per fixture repository, and Hugging Face serving them.
pub fn script_fixture_repositories(standin: &StandIn) -> Vec<super::hf::FixtureRepo> {
    let repos: Vec<super::hf::FixtureRepo> = super::hf::REPOS
        .iter()
        .map(|f| super::hf::repo(f))
        .collect();
    script_repositories(standin, &repos);
    for repo in &repos {
        super::hf::serve(standin, repo, &[]);
    }
    repos
}
