//! Third-party OpenAPI tools accept `/api/openapi.json` (issue 13, part 3): Redocly CLI and
//! Spectral lint it with no finding at all, and the Python client that openapi-python-client
//! generates from it works, alone, against the preview server.
//!
//! The npm packages are installed by the tests into `target/` (pinned below); the generator
//! is installed by the test into a virtual environment in the tests' tool cache (`tests/it/common/tool_cache.rs`), pinned by
//! `tests/requirements.txt`.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::oracle::Inputs;
use model_demand::answers::contract;
use model_demand::query;
use model_demand::site::DEFAULT_BASE_URL;
use serde_json::Value;

/// The document as a build writes it, in `dir`.
fn write_document(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("openapi.json");
    std::fs::write(&path, contract::openapi_json(DEFAULT_BASE_URL, None)).expect("write");
    path
}

#[test]
fn redocly_lint_finds_no_error_and_no_warning() {
    let modules = common::pins::REDOCLY.install();
    let dir = common::tempdir().expect("temp dir");
    let document = write_document(dir.path());
    let config = common::crate_path("tests/clients/redocly.yaml");
    let lint = |format: &str| {
        Command::new(modules.join(".bin/redocly"))
            .args(["lint", "--format", format, "--config"])
            .arg(&config)
            .arg(&document)
            .env("REDOCLY_TELEMETRY", "off")
            .env("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true")
            .output()
            .expect("redocly runs")
    };
    let out = lint("json");
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("redocly's JSON report: {e}: {}", common::output_text(&out)));
    let totals = &report["totals"];
    if totals["errors"] != 0 || totals["warnings"] != 0 || !out.status.success() {
        // The readable report says what to fix.
        panic!(
            "redocly: {totals}\n{}",
            common::output_text(&lint("stylish"))
        );
    }
    assert_eq!(totals["ignored"], 0, "{totals}");
}

#[test]
fn spectral_lint_finds_nothing() {
    let modules = common::pins::SPECTRAL.install();
    let dir = common::tempdir().expect("temp dir");
    let document = write_document(dir.path());
    let ruleset = common::crate_path("tests/clients/spectral.yaml");
    let out = Command::new(modules.join(".bin/spectral"))
        .args([
            "lint",
            "--quiet",
            "--format",
            "json",
            "--fail-severity",
            "hint",
        ])
        .arg("--ruleset")
        .arg(&ruleset)
        .arg(&document)
        .output()
        .expect("spectral runs");
    let findings: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("spectral's JSON report: {e}: {}", common::output_text(&out)));
    assert_eq!(
        findings,
        Value::Array(vec![]),
        "spectral: {}",
        common::output_text(&out)
    );
    assert!(
        out.status.success(),
        "spectral: {}",
        common::output_text(&out)
    );
}

fn python(args: &[&std::ffi::OsStr]) -> Output {
    let python = common::pins::OPENAPI_CLIENT_PY.python();
    let out = Command::new(python)
        .args(args)
        // The client talks to loopback only.
        .env("NO_PROXY", "127.0.0.1")
        .env("no_proxy", "127.0.0.1")
        .output()
        .expect("the client environment's python runs");
    out
}

#[test]
fn the_generated_python_client_reads_about_pages_through_every_model_and_looks_one_up() {
    let dir = common::tempdir().expect("temp dir");
    let site = dir.path().join("site");
    common::build_small(&site);
    let base_url = common::serve_on_loopback(&site);

    // Generate the client from the document the site serves.
    let client_dir = dir.path().join("client");
    let out = python(&[
        "-m".as_ref(),
        "openapi_python_client".as_ref(),
        "generate".as_ref(),
        "--path".as_ref(),
        site.join("api/openapi.json").as_os_str(),
        "--meta".as_ref(),
        "none".as_ref(),
        "--config".as_ref(),
        common::crate_path("tests/clients/generator.yaml").as_os_str(),
        "--output-path".as_ref(),
        client_dir.join("model_demand_client").as_os_str(),
    ]);
    let generated = common::output_text(&out);
    assert!(out.status.success(), "generation failed: {generated}");
    // The generator warns about any part of the document it cannot turn into code.
    assert!(!generated.to_lowercase().contains("warning"), "{generated}");

    // Use it, and nothing else.
    // The default list order, from the independent oracle.
    let oracle = Inputs::fixture("tests/fixtures/small", common::SMALL_NOW);
    let expected = oracle.order("tokens_30d", "desc");
    let wanted = expected
        .iter()
        .map(String::as_str)
        .find(|id| id.contains('/') && id.contains(':'))
        .expect("the small fixture serves an ID holding / and :");
    let out = python(&[
        common::crate_path("tests/clients/use_client.py").as_os_str(),
        client_dir.as_os_str(),
        base_url.as_ref(),
        wanted.as_ref(),
    ]);
    assert!(
        out.status.success(),
        "the client failed: {}",
        common::output_text(&out)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("the script's JSON report");

    let about = &report["about"];
    assert_eq!(about["schema_version"], contract::ABOUT_SCHEMA_VERSION);
    assert_eq!(
        about["query_parameters"],
        serde_json::json!(query::PARAMETERS)
    );
    // Every model, once, in the default list order, whatever the page size.
    let total = expected.len();
    for (limit, key) in [(7, "limit_7"), (2, "limit_2")] {
        let paged = &report[key];
        assert_eq!(paged["ids"], serde_json::json!(expected), "{key}");
        assert_eq!(paged["total"], total, "{key}");
        assert_eq!(paged["pages"], total.div_ceil(limit).max(1), "{key}");
    }
    // The exact lookup sends model_id alone (no list defaults), encoded or not, and finds it.
    let lookup = &report["lookup"];
    assert_eq!(lookup["mode"], "exact_model");
    assert_eq!(lookup["model_ids"], serde_json::json!([wanted]));
    let target = lookup["target"].as_str().expect("target");
    let (path, raw_query) = target.split_once('?').expect("a query");
    assert_eq!(path, "/api/v1/models");
    let meant = oracle.bodies(&[raw_query.to_string()]).remove(0);
    assert_eq!(
        (&meant["query"]["mode"], &meant["query"]["model_id"]),
        (&Value::from("exact_model"), &Value::from(wanted)),
        "{target}"
    );
    assert_eq!(report["missing"]["error"], "model_not_found");
}
