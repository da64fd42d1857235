//! `collect`'s pacing against an adversarial stand-in (issue 27): odd but possible rate-limit
//! values never panic nor hang a run; a refusal without fields follows `Retry-After` (seconds or
//! a date) and the backoff; late answers, one wild `t`, several buckets and several field lines
//! are read by the window the source announces; and the report says what actually happened.
//! Timings are asserted with generous bounds; the pacing model itself is property-tested in
//! `src/collect/ratelimit/tests.rs`.

use crate::common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime};

use common::hf;
use common::sources::{self, CATALOG_TARGET, KEY};
use common::standin::{Limit, Logged, Reply, StandIn};
use model_demand::collect::report::RunReport;
use model_demand::collect::CollectOptions;

use sources::run_with_report as run_with;

use sources::script_fixture_repositories as script_repositories;

fn header(name: &str, value: &str) -> (String, String) {
    (name.to_string(), value.to_string())
}

fn requests_to<'a>(log: &'a [Logged], target: &str) -> Vec<&'a Logged> {
    log.iter().filter(|r| r.target == target).collect()
}

/// Runs the binary's `collect` with a report, killing it after `limit`: (exit code, stderr,
/// the report). A run that outlives the limit fails the test as a hang.
fn run_binary(standin: &StandIn, dir: &Path, limit: Duration) -> (Option<i32>, String, RunReport) {
    let report = dir.join("report.json");
    let mut child = sources::collect_command(standin, dir)
        .arg("--report")
        .arg(&report)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("collect did not end within {limit:?}: a hang");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        use std::io::Read;
        let _ = pipe.read_to_string(&mut stderr);
    }
    assert!(!stderr.contains(KEY), "the key is never printed");
    let report = RunReport::read(&report).unwrap_or_else(|e| panic!("no report: {e}\n{stderr}"));
    (status.code(), stderr, report)
}

/// Scripts one odd answer on a stand-in.
type Script = dyn Fn(&StandIn) + Sync;

#[test]
fn oversized_rate_limit_values_never_panic_nor_hang_a_run() {
    let huge_t = r#""datasets";r=5;t=9999999999999999999"#;
    let cases: [(&str, &Script); 4] = [
        ("a huge t on the rankings answer", &|s: &StandIn| {
            let body = sources::rankings_body(&sources::rankings_rows(), "2026-11-21T02:00:00Z");
            s.route(
                &sources::rankings_target(),
                vec![Reply::Status(200, vec![header("RateLimit", huge_t)], body)],
            );
        }),
        (
            "a huge t saying the api bucket is empty on a model-info answer",
            &|s: &StandIn| {
                let repo = hf::repo(hf::REPOS[0]);
                s.route(
                    &format!("/api/models/{}?blobs=true", repo.id),
                    vec![Reply::Status(
                        200,
                        vec![header("RateLimit", r#""api";r=0;t=9999999999999999999"#)],
                        repo.info_json(),
                    )],
                );
            },
        ),
        (
            "a reset of 10^23 on an endpoints refusal",
            &|s: &StandIn| {
                let route = sources::repository_model_id(&hf::repo(hf::REPOS[0]));
                s.route(
                    &sources::endpoints_target(&route),
                    vec![Reply::Status(
                        429,
                        vec![
                            header("X-RateLimit-Remaining", "0"),
                            header("X-RateLimit-Reset", "100000000000000000000000"),
                        ],
                        b"{}".to_vec(),
                    )],
                );
            },
        ),
        (
            "Retry-After 2^64-1 beside a RateLimit field on a catalog refusal",
            &|s: &StandIn| {
                s.route(
                    CATALOG_TARGET,
                    vec![Reply::Status(
                        429,
                        vec![
                            header("RateLimit", "r=0;t=1"),
                            header("Retry-After", "18446744073709551615"),
                        ],
                        b"{}".to_vec(),
                    )],
                );
            },
        ),
    ];
    // Four whole runs that mostly wait: at once (each its own stand-in and directory).
    let cases: Vec<(String, &Script)> = cases.iter().map(|(w, s)| (w.to_string(), *s)).collect();
    common::each_at_once(cases, |what, script| {
        let standin = StandIn::start();
        sources::script_openrouter(&standin);
        script_repositories(&standin);
        script(&standin);
        let dir = common::tempdir().expect("temp dir");
        let (code, stderr, report) = run_binary(&standin, dir.path(), Duration::from_secs(60));
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        assert_eq!(code, Some(0), "{what}: the run goes on\n{stderr}");
        assert_eq!(report.outcome.as_str(), "written", "{what}");
        assert!(
            report.waited_seconds < 5.0,
            "{what}: {}",
            report.waited_seconds
        );
        if what.contains("10^23") || what.contains("2^64") {
            assert!(report.requests_over_budget > 0, "{what}: past the budget");
            assert!(
                report.to_markdown().contains("The waiting budget ran out"),
                "{what}"
            );
        }
    });
}

#[test]
fn a_refusal_without_fields_uses_a_try_and_waits_its_backoff_even_after_a_window() {
    let standin = StandIn::start();
    sources::script_openrouter(&standin);
    // The catalog says its window resets at once; then a route is refused twice, saying nothing.
    standin.route(
        CATALOG_TARGET,
        vec![Reply::Status(
            200,
            vec![header("RateLimit", "r=5;t=0")],
            sources::catalog_body(""),
        )],
    );
    let (route, _) = sources::ROUTES[3];
    let target = sources::endpoints_target(route);
    let ok = sources::endpoints_body(route, sources::default_endpoints(route));
    standin.route(
        &target,
        vec![
            Reply::Status(429, vec![], b"{}".to_vec()),
            Reply::Status(429, vec![], b"{}".to_vec()),
            Reply::json(ok),
        ],
    );
    let dir = common::tempdir().expect("temp dir");
    let base = Duration::from_millis(400);
    let (result, report) = run_with(&standin, dir.path(), |o| CollectOptions {
        retry_base: base,
        ..o
    });
    assert_eq!(result.expect("collected").routes_failed, 0);
    let log = standin.log();
    let asked = requests_to(&log, &target);
    assert_eq!(asked.len(), 3);
    let gaps = [asked[1].at - asked[0].at, asked[2].at - asked[1].at];
    assert!(gaps[0] >= base, "{gaps:?}");
    assert!(gaps[1] >= base * 2, "{gaps:?}: the backoff doubles");
    assert_eq!(report.requests["endpoints"].refused, 2);

    // Four refusals without fields use up the three retries: the route fails, having tried.
    let standin = StandIn::start();
    sources::script_openrouter(&standin);
    standin.route(&target, vec![Reply::Status(429, vec![], b"{}".to_vec())]);
    let (result, report) = run_with(&standin, &dir.path().join("b"), |o| o);
    assert_eq!(result.expect("collected").routes_failed, 1);
    assert_eq!(requests_to(&standin.log(), &target).len(), 4);
    let failed = &report.routes.failed[0];
    assert_eq!(failed.last_status, Some(429));
}

#[test]
fn retry_after_as_an_http_date_is_waited_out() {
    let standin = StandIn::start();
    sources::script_openrouter(&standin);
    let at = time::OffsetDateTime::from(SystemTime::now() + Duration::from_secs(3));
    let format = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    let date = at.format(format).expect("a date");
    standin.route(
        CATALOG_TARGET,
        vec![
            Reply::Status(429, vec![header("Retry-After", &date)], b"{}".to_vec()),
            Reply::json(sources::catalog_body("")),
        ],
    );
    let dir = common::tempdir().expect("temp dir");
    let (result, report) = run_with(&standin, dir.path(), |o| o);
    let collected = result.expect("collected");
    assert!(
        collected.supply_complete,
        "the supply collection is not lost"
    );
    let log = standin.log();
    let asked = requests_to(&log, CATALOG_TARGET);
    assert_eq!(asked.len(), 2);
    let gap = asked[1].at - asked[0].at;
    assert!(
        gap >= Duration::from_millis(1500),
        "{gap:?} for a date 2-3 s ahead"
    );
    assert!(report.waited_seconds >= 1.5, "{}", report.waited_seconds);
}

/// Hub requests: (model-info log entries, resolver log entries).
fn hub_log(standin: &StandIn) -> (Vec<Logged>, Vec<Logged>) {
    let log = standin.log();
    let api = log
        .iter()
        .filter(|r| r.target.starts_with("/api/models"))
        .cloned()
        .collect();
    let resolvers = log
        .iter()
        .filter(|r| r.target.contains("/resolve/"))
        .cloned()
        .collect();
    (api, resolvers)
}

#[test]
fn a_late_answer_or_one_wild_reset_costs_no_refusal_and_no_repository() {
    let cases: Vec<(String, (Limit, bool))> = [
        ("late", Limit::hub_api(4, Duration::from_secs(3)), true),
        (
            "wild t",
            // Windows from the first Hub request: a run whose first requests a loaded machine
            // delays into a window's last second meets the known limitation that a wild `t`
            // read last reopens a spent window (docs/decisions.md; the ignored unit test
            // `a_wild_reset_read_last_does_not_reopen_a_spent_window` reproduces it). This
            // test holds what the pacing does promise, on any machine.
            Limit {
                misreport: Some((2, 3000)),
                from_first_request: true,
                ..Limit::hub_api(4, Duration::from_secs(3))
            },
            false,
        ),
    ]
    .map(|(label, limit, delayed)| (label.to_string(), (limit, delayed)))
    .into_iter()
    .collect();
    // The two runs wait on their own windows: at once, each its own stand-in.
    common::each_at_once(cases, |label, (limit, delayed)| {
        let standin = StandIn::start();
        let repos = script_repositories(&standin);
        if delayed {
            // The first repository's model info is answered 2.5 s late (counted on arrival).
            let repo = &repos[0];
            standin.route(
                &format!("/api/models/{}?blobs=true", repo.id),
                vec![Reply::Delayed(
                    Duration::from_millis(2500),
                    Box::new(Reply::json(repo.info_json())),
                )],
            );
        }
        standin.limit(vec![limit]);
        let dir = common::tempdir().expect("temp dir");
        let (result, report) = run_with(&standin, dir.path(), |o| o);
        result.expect("collected");
        let (api, _) = hub_log(&standin);
        let refused = api.iter().filter(|r| r.status == 429).count();
        assert_eq!(refused, 0, "{label}: {api:?}");
        assert!(
            report
                .repositories
                .iter()
                .all(|r| r.outcome.as_str() == "read"),
            "{label}: {:?}",
            report.repositories
        );
        assert_eq!(report.requests_over_budget, 0, "{label}");
        // 12 API requests at 4 per 3 s window: two resets forced, each with its margins.
        assert!(
            report.waited_seconds >= 2.0 && report.waited_seconds < 15.0,
            "{label}: {}",
            report.waited_seconds
        );
    });
}

#[test]
fn buckets_are_independent_and_every_field_line_speaks_for_its_bucket() {
    let standin = StandIn::start();
    let repos = script_repositories(&standin);
    // Every model-info answer also says, on a second RateLimit line, that resolvers is empty
    // for 3 s: no file may be asked before then, and model info goes on meanwhile.
    for repo in &repos {
        standin.route(
            &format!("/api/models/{}?blobs=true", repo.id),
            vec![Reply::Status(
                200,
                vec![
                    header("RateLimit", r#""api";r=900;t=300"#),
                    header("RateLimit", r#""resolvers";r=0;t=3"#),
                ],
                repo.info_json(),
            )],
        );
    }
    let dir = common::tempdir().expect("temp dir");
    let started = Instant::now();
    let (result, report) = run_with(&standin, dir.path(), |o| o);
    result.expect("collected");
    let (api, resolvers) = hub_log(&standin);
    let first_info = api.iter().map(|r| r.at).min().expect("model info asked");
    let last_info = api
        .iter()
        .filter(|r| r.target.contains("?blobs=true"))
        .map(|r| r.at)
        .max()
        .expect("model info asked");
    let first_file = resolvers.iter().map(|r| r.at).min().expect("files asked");
    assert!(
        last_info - first_info < Duration::from_millis(1500),
        "every repository's model info went on while resolvers was held: {:?}",
        last_info - first_info
    );
    assert!(
        first_file - first_info >= Duration::from_millis(2500),
        "the second line held resolvers: {:?}",
        first_file - first_info
    );
    assert!(resolvers.iter().all(|r| r.status != 429));
    let held = &report.rate_limits["huggingface/resolvers"];
    assert!(held.waits >= 1);
    assert!(
        held.waited_seconds >= 2.0 && held.waited_seconds <= started.elapsed().as_secs_f64(),
        "{held:?}"
    );
    assert!(
        report
            .rate_limits
            .get("huggingface/api")
            .is_none_or(|b| b.waits == 0),
        "{:?}",
        report.rate_limits
    );
    assert!(report.waited_seconds >= held.waited_seconds - 0.1);
}

/// Issue 35: Hugging Face answers `/resolve/` for a large file with a 302 carrying the
/// `resolvers` bucket's fields, then the file comes from its CDN host without them. The client
/// follows redirects by hand, so each hop's fields reach the pacer: under a resolvers window
/// the run is refused at most the four requests sent before any answer (none avoidable); the
/// file host gets the `Range` but never the credential; the facts equal an unlimited run's.
#[test]
fn the_quota_on_a_redirect_paces_the_files_behind_it() {
    let hub = StandIn::start();
    let cdn = StandIn::start();
    script_repositories(&hub);
    hub.redirect_to(&cdn, |t| t.contains("/resolve/"));
    let dir = common::tempdir().expect("temp dir");
    let token = "hf_not_a_real_token_for_tests";
    let with_token = |o: CollectOptions| CollectOptions {
        hf_token: model_demand::collect::http::Secret::new(token.to_string()),
        ..o
    };
    let (free, _) = run_with(&hub, &dir.path().join("free"), with_token);
    free.expect("unlimited run");
    let unlimited = std::fs::read(dir.path().join("free/out/export.json")).expect("written");
    let resolved = hub
        .log()
        .iter()
        .filter(|r| r.target.contains("/resolve/"))
        .count() as u64;
    assert!(resolved > 12, "{resolved} file requests");
    let files = cdn.log();
    assert_eq!(
        files.len() as u64,
        resolved,
        "every 302 was followed to the file host"
    );
    assert!(
        files.iter().all(|r| r.authorization.is_none()),
        "no credential to another host"
    );
    assert!(
        files.iter().any(|r| r.range.is_some()),
        "the Range follows the redirect"
    );
    assert!(
        hub.log()
            .iter()
            .filter(|r| r.target.contains("/resolve/"))
            .all(|r| r.authorization.as_deref() == Some(&format!("Bearer {token}")[..])),
        "the Hub's own hops carry it"
    );

    // A resolvers window that the run needs about three of; its fields only on the 302s.
    let window = Duration::from_secs(2);
    let quota = resolved.div_ceil(3).max(4);
    hub.clear_log();
    cdn.clear_log();
    hub.limit(vec![Limit::hub_resolvers(quota, window)]);
    let started = Instant::now();
    let (result, report) = run_with(&hub, &dir.path().join("paced"), with_token);
    result.expect("collected");
    let refused = hub.log().iter().filter(|r| r.status == 429).count();
    println!(
        "{resolved} redirected file requests under {quota} per {} s: {refused} refused, {:.1} s in all",
        window.as_secs(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        refused <= 4,
        "{refused} refused: the 302s' fields were not heeded"
    );
    assert!(report
        .repositories
        .iter()
        .all(|r| r.outcome.as_str() == "read"));
    let paced: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("paced/out/export.json")).expect("written"),
    )
    .expect("JSON");
    let free: serde_json::Value = serde_json::from_slice(&unlimited).expect("JSON");
    assert_eq!(paced["models"], free["models"], "the same facts");
    let bucket = &report.rate_limits["huggingface/resolvers"];
    assert_eq!(
        (bucket.quota_requests, bucket.quota_window_seconds),
        (Some(quota), Some(window.as_secs())),
        "the quota was learnt from the 302s"
    );
}

#[test]
fn a_hold_released_early_is_charged_what_it_lasted() {
    let standin = StandIn::start();
    sources::script_openrouter(&standin);
    // Route 0 is refused with 5 s to wait; route 1, sent beside it and answered a second later,
    // says a new window has begun with plenty left: the hold ends then.
    let (held, _) = sources::ROUTES[0];
    let (late, _) = sources::ROUTES[1];
    let body = |route: &str| sources::endpoints_body(route, sources::default_endpoints(route));
    standin.route(
        &sources::endpoints_target(held),
        vec![
            // Delayed a little, so that both requests are on their way before either answer.
            Reply::Delayed(
                Duration::from_millis(300),
                Box::new(Reply::Status(
                    429,
                    vec![header("RateLimit", "r=0;t=5")],
                    b"{}".to_vec(),
                )),
            ),
            Reply::json(body(held)),
        ],
    );
    standin.route(
        &sources::endpoints_target(late),
        vec![Reply::Delayed(
            Duration::from_millis(1000),
            Box::new(Reply::Status(
                200,
                vec![header("RateLimit", "r=50;t=60")],
                body(late),
            )),
        )],
    );
    let dir = common::tempdir().expect("temp dir");
    let (result, report) = run_with(&standin, dir.path(), |o| o);
    assert_eq!(result.expect("collected").routes_failed, 0);
    assert!(
        report.waited_seconds >= 0.2 && report.waited_seconds < 3.0,
        "charged {} s, not the planned 5-6 s",
        report.waited_seconds
    );
}

#[test]
fn routes_never_requested_for_the_budget_say_so() {
    let standin = StandIn::start();
    sources::script_openrouter(&standin);
    let far = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .expect("clock")
        .as_millis()
        + 3_600_000;
    standin.route(
        CATALOG_TARGET,
        vec![Reply::Status(
            200,
            vec![
                header("X-RateLimit-Remaining", "0"),
                header("X-RateLimit-Reset", &far.to_string()),
            ],
            sources::catalog_body(""),
        )],
    );
    let dir = common::tempdir().expect("temp dir");
    let started = Instant::now();
    let (result, report) = run_with(&standin, dir.path(), |o| o);
    assert!(started.elapsed() < Duration::from_secs(10));
    let collected = result.expect("written");
    assert_eq!(collected.routes_failed, sources::ROUTES.len());
    assert!(standin
        .log()
        .iter()
        .all(|r| !r.target.ends_with("/endpoints")));
    for route in &report.routes.failed {
        assert_eq!(route.last_status, None, "{route:?}");
        assert!(route.reason.contains("wait_budget_exhausted"), "{route:?}");
        assert!(route.reason.contains("not requested"), "{route:?}");
    }
    assert_eq!(report.requests_over_budget, sources::ROUTES.len() as u64);
    assert_eq!(report.waited_seconds, 0.0, "nothing was waited");
    let md = report.to_markdown();
    assert!(md.contains("budget reached, 4 request(s) not sent"), "{md}");
    assert!(md.contains("**The waiting budget ran out:**"), "{md}");
    assert!(md.contains(": no answer, wait_budget_exhausted"), "{md}");
}
