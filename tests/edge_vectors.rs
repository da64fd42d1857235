//! One behaviour, two implementations: the Rust router (`serve::Site::resolve`) answers a
//! vector of raw query strings of every class of DESIGN §5; each answer is checked against a
//! hand-written expected status, written to `vectors.json`, and then the edge module
//! (`netlify/edge-functions/lib/query.mjs`) must give the same status, target and bytes under
//! node's test runner, and the edge handler the same under Deno.

mod common;

use std::path::Path;
use std::process::Command;

use model_demand::query::{percent_encode, OFFSET_MAX};
use model_demand::serve::{Body, Site};
use serde::Serialize;

#[derive(Debug, Serialize)]
struct Vector {
    class: &'static str,
    query: String,
    status: u16,
    /// The site file served, for file answers.
    file: Option<String>,
    /// The exact body, for answers made while answering (errors, pages past the end).
    body: Option<String>,
}

/// (class, raw query, the status DESIGN §5 gives it): written by hand, not by the router.
fn cases(ids: &[String]) -> Vec<(&'static str, String, u16)> {
    let n = ids.len();
    let mut c: Vec<(&'static str, String, u16)> = vec![
        ("default", String::new(), 200),
        ("valid", "sort=latest_rank&order=asc&limit=3".into(), 200),
        (
            "valid",
            "sort=total_parameters&order=desc&limit=100&offset=0".into(),
            200,
        ),
        ("valid", format!("limit=1&offset={n}"), 200),
        (
            "order_of_parameters",
            "offset=1&limit=2&order=asc&sort=active_parameters".into(),
            200,
        ),
        (
            "order_of_parameters",
            "limit=4&sort=full_sequence_attention_bytes".into(),
            200,
        ),
        ("repeated", "limit=2&limit=2".into(), 400),
        (
            "repeated",
            "sort=latest_rank&order=asc&sort=latest_rank".into(),
            400,
        ),
        ("repeated", "limit=2&li%6dit=3".into(), 400),
        ("unknown", "foo=1".into(), 400),
        ("unknown", "sort=latest_rank&Limit=3".into(), 400),
        ("unknown", "sort=latest_rank&f%6fo=1".into(), 400),
        ("encoded_name", "so%72t=latest_rank".into(), 200),
        ("encoded_name", "%6Frder=asc".into(), 200),
        (
            "empty_segments",
            "&&sort=latest_rank&&order=asc&&".into(),
            200,
        ),
        ("empty_segments", "&".into(), 200),
        ("trailing_ampersand", "sort=latest_rank&".into(), 200),
        ("trailing_ampersand", "limit=3&offset=1&".into(), 200),
        ("plus", "model_id=acme/alpha+70b".into(), 404),
        ("plus", "sort=latest+rank".into(), 400),
        ("bad_escape", "sort=%ZZ".into(), 400),
        ("bad_escape", "model_id=%".into(), 400),
        ("bad_escape", "%G1=1".into(), 400),
        ("bad_escape", "model_id=acme%2".into(), 400),
        ("invalid_utf8", "model_id=%C0%AF".into(), 400),
        ("invalid_utf8", "model_id=%E2%82".into(), 400),
        ("invalid_utf8", "%FF=1".into(), 400),
        ("non_canonical_integer", "limit=007".into(), 400),
        ("non_canonical_integer", "limit=+5".into(), 400),
        ("non_canonical_integer", "offset=1.0".into(), 400),
        ("non_canonical_integer", "offset=00".into(), 400),
        ("non_canonical_integer", "limit=%31%30".into(), 200),
        ("bounds", "limit=0".into(), 400),
        ("bounds", "limit=101".into(), 400),
        ("bounds", "limit=100".into(), 200),
        ("bounds", format!("offset={OFFSET_MAX}"), 200),
        (
            "bounds",
            format!("offset={}", u128::from(OFFSET_MAX) + 1),
            400,
        ),
        ("bounds", "offset=99999999999999999999999999".into(), 400),
        ("far_offset", format!("offset={}", n + 1), 200),
        (
            "far_offset",
            "sort=latest_rank&order=asc&limit=7&offset=1000".into(),
            200,
        ),
        ("unknown_model", "model_id=acme%2Fomega".into(), 404),
        (
            "unknown_model",
            format!("model_id={}", "x".repeat(300)),
            404,
        ),
        (
            "unknown_model",
            "model_id=%22quoted%22%0A%09%C3%A9".into(),
            404,
        ),
        ("combined", "model_id=acme%2Falpha-70b&limit=1".into(), 400),
        (
            "combined",
            "sort=latest_rank&model_id=acme%2Falpha-70b".into(),
            400,
        ),
        ("empty_value", "sort=".into(), 400),
        ("empty_value", "model_id".into(), 400),
        ("empty_value", "limit=&offset=1".into(), 400),
        ("invalid_value", "sort=bogus".into(), 400),
        ("invalid_value", format!("order={}", "é".repeat(80)), 400),
    ];
    for id in ids {
        c.push(("exact_raw", format!("model_id={id}"), 200));
        c.push((
            "exact_encoded",
            format!("model_id={}", percent_encode(id)),
            200,
        ));
    }
    c
}

fn build_fixture(root: &Path) -> Vec<Vector> {
    let site_dir = root.join("site");
    common::build_small(&site_dir);
    let site = Site::open(&site_dir).expect("site opens");
    let ids: Vec<String> = site.routes().models.keys().cloned().collect();
    let vectors: Vec<Vector> = cases(&ids)
        .into_iter()
        .map(|(class, query, status)| {
            let answer = site.resolve("GET", &format!("/api/v1/models?{query}"), None);
            assert_eq!(answer.status, status, "{class}: ?{query}");
            let (file, body) = match &answer.body {
                Body::File(key) => (Some(key.clone()), None),
                Body::Bytes(bytes) => (
                    None,
                    Some(String::from_utf8(bytes.clone()).expect("UTF-8 body")),
                ),
            };
            Vector {
                class,
                query,
                status,
                file,
                body,
            }
        })
        .collect();
    std::fs::write(
        root.join("vectors.json"),
        serde_json::to_vec_pretty(&vectors).expect("json"),
    )
    .expect("write");
    vectors
}

fn output_text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn the_rust_router_and_the_edge_module_agree_on_every_vector() {
    let dir = tempfile::tempdir().expect("temp dir");
    let vectors = build_fixture(dir.path());
    assert!(vectors.len() > 60, "{}", vectors.len());
    let out = Command::new("node")
        .arg("--test")
        .arg(common::crate_path("tests/edge/query.test.mjs"))
        .env("EDGE_FIXTURE", dir.path())
        .output()
        .expect("node runs");
    let text = output_text(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("# fail 0"), "{text}");
}

#[test]
fn the_edge_handler_answers_like_the_preview_server_under_deno() {
    let dir = tempfile::tempdir().expect("temp dir");
    build_fixture(dir.path());
    let deno = common::npm_package("deno", "2.9.6").join(".bin/deno");
    let out = Command::new(deno)
        .args([
            "test",
            "--quiet",
            "--no-check",
            "--allow-read",
            "--allow-env",
        ])
        .arg(common::crate_path("tests/edge/handler_test.mjs"))
        .env("EDGE_FIXTURE", dir.path())
        .env("DENO_DIR", common::crate_path("target/deno-cache/dir"))
        .env("NO_COLOR", "1")
        .output()
        .expect("deno runs");
    let text = output_text(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(" passed") && text.contains("0 failed"),
        "{text}"
    );
}
