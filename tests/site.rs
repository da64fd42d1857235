//! The written site: the query space in files, each equal to what `query` answers, the
//! manifest, determinism, atomic replacement and the no-data site.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use model_demand::netlify::error_file;
use model_demand::query::{self, all_list_queries, list_file, model_file, percent_encode};
use model_demand::render::{Api, ErrorCode};
use model_demand::site::{
    self, sha256_hex, BuildOptions, Manifest, RoutingTable, SiteData, MANIFEST, ROUTES,
};
use walkdir::WalkDir;

/// Every file of a tree, by site-relative path, with its bytes.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    WalkDir::new(root)
        .into_iter()
        .map(|e| e.expect("walkable tree"))
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root).expect("under root");
            let rel = rel.to_string_lossy().replace('\\', "/");
            (rel, std::fs::read(e.path()).expect("readable file"))
        })
        .collect()
}

/// The small site, built once for the tests that only read it.
fn shared_site() -> &'static BTreeMap<String, Vec<u8>> {
    static SITE: OnceLock<BTreeMap<String, Vec<u8>>> = OnceLock::new();
    SITE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("out");
        let report = common::build_small(&out);
        let files = tree(&out);
        assert_eq!(
            report.files as usize,
            files.len(),
            "report counts every file"
        );
        files
    })
}

fn list_query_string(q: &query::ListQuery) -> String {
    format!(
        "sort={}&order={}&limit={}&offset={}",
        q.sort.as_str(),
        q.order.as_str(),
        q.limit,
        q.offset
    )
}

#[test]
fn every_list_and_exact_file_equals_the_query_answer() {
    let (_, catalog) = common::small();
    let api = Api::new(&catalog);
    let files = shared_site();
    let total = catalog.records.len();

    let mut answers = 0;
    for q in all_list_queries(total) {
        let body = files
            .get(&list_file(&q))
            .unwrap_or_else(|| panic!("missing {}", list_file(&q)));
        let answer = api.answer(&list_query_string(&q));
        assert_eq!(answer.status, 200);
        assert_eq!(body, &answer.body, "{}", list_file(&q));
        answers += 1;
    }
    for record in &catalog.records {
        let path = model_file(&record.model_id);
        let answer = api.answer(&format!("model_id={}", percent_encode(&record.model_id)));
        assert_eq!(answer.status, 200);
        assert_eq!(files.get(&path), Some(&answer.body), "{path}");
        answers += 1;
    }
    // The file count equals the query space plus the fixed files, and nothing else is there.
    let query_space = 6 * 2 * 100 * (total + 1) + total;
    assert_eq!(answers, query_space);
    let fixed = [
        "api/v1/about.json",
        "api/openapi.json",
        "api/export.json",
        "api/supply.json",
        "_redirects",
        "_headers",
        ROUTES,
        MANIFEST,
    ];
    let errors = ErrorCode::ALL.len();
    let docs = files.keys().filter(|p| p.starts_with("docs/")).count();
    assert_eq!(files.len(), query_space + fixed.len() + errors + docs);
    for path in fixed {
        assert!(files.contains_key(path), "{path} missing");
    }
}

#[test]
fn no_directory_holds_more_than_netlify_allows() {
    let mut per_dir: BTreeMap<String, usize> = BTreeMap::new();
    for path in shared_site().keys() {
        let parent = path.rsplit_once('/').map_or("", |(p, _)| p).to_string();
        *per_dir.entry(parent).or_default() += 1;
    }
    let busiest = per_dir.values().max().copied().unwrap_or(0);
    assert!(busiest <= site::MAX_FILES_PER_DIR, "{busiest}");
}

#[test]
fn manifest_lists_every_file_with_size_and_digest() {
    let files = shared_site();
    let manifest: Manifest = serde_json::from_slice(&files[MANIFEST]).expect("manifest parses");
    let listed: Vec<&str> = manifest.files.iter().map(|e| e.path.as_str()).collect();
    let mut on_disk: Vec<&str> = files
        .keys()
        .map(String::as_str)
        .filter(|p| *p != MANIFEST)
        .collect();
    on_disk.sort_unstable();
    assert_eq!(listed, on_disk);
    for entry in &manifest.files {
        let bytes = &files[&entry.path];
        assert_eq!(entry.bytes, bytes.len() as u64, "{}", entry.path);
        assert_eq!(entry.sha256, sha256_hex(bytes), "{}", entry.path);
    }
}

#[test]
fn two_builds_of_the_same_inputs_are_byte_identical() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    common::build_small(&a);
    common::build_small(&b);
    assert!(tree(&a) == tree(&b), "builds differ");
}

#[test]
fn a_failed_build_leaves_the_previous_site_untouched() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let before = tree(&out);

    let (inputs, catalog) = common::small();
    let options = BuildOptions {
        fail_after_files: Some(500),
        ..BuildOptions::new(&out)
    };
    let data = SiteData::Data {
        inputs: &inputs,
        catalog: &catalog,
    };
    assert!(
        site::build(&data, &options).is_err(),
        "injected failure must fail the build"
    );
    assert!(tree(&out) == before, "published site changed");
    // Nothing is left beside it: the staging tree is removed.
    let siblings: Vec<_> = std::fs::read_dir(dir.path()).expect("listable").collect();
    assert_eq!(siblings.len(), 1, "staging left behind");
}

#[test]
fn a_refused_export_builds_nothing_and_keeps_the_site() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let before = tree(&out);
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        br#"{"export_schema_version":"model-demand.export.v1"}"#,
    )
    .expect("writable");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(["build", "--no-supply", "--export"])
        .arg(&bad)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("binary runs");
    assert_eq!(status.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&status.stderr);
    assert!(
        stderr.contains("$.generated_at: required member is missing"),
        "{stderr}"
    );
    assert!(tree(&out) == before, "published site changed");
}

#[test]
fn the_no_data_site_serves_the_contract_and_503_elsewhere() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    site::build(&SiteData::Unavailable, &BuildOptions::new(&out)).expect("no-data site builds");
    let files = tree(&out);
    assert!(files.contains_key("api/v1/about.json"));
    assert!(files.contains_key("api/openapi.json"));
    assert!(!files.contains_key("api/export.json") && !files.contains_key("api/supply.json"));
    assert!(!files.keys().any(|p| p.starts_with("_api/models/")));
    let body: serde_json::Value =
        serde_json::from_slice(&files[&error_file(ErrorCode::DataUnavailable)]).expect("json");
    assert_eq!(body["error"], "data_unavailable");
    assert_eq!(body["schema_version"], "model-demand.agent-api-error.v1");
    let redirects = String::from_utf8_lossy(&files["_redirects"]).into_owned();
    for path in ["/api/v1/models", "/api/export", "/api/supply"] {
        let line = format!("{path}  /{}  503", error_file(ErrorCode::DataUnavailable));
        assert!(redirects.lines().any(|l| l == line), "{line} missing");
    }
    let routes: RoutingTable = serde_json::from_slice(&files[ROUTES]).expect("routes parse");
    assert!(!routes.has_data);
    assert_eq!(Api::Unavailable.answer("sort=bogus").status, 503);
}

#[test]
fn feeds_republish_the_accepted_inputs() {
    let files = shared_site();
    let export =
        std::fs::read(common::crate_path("tests/fixtures/small/export.json")).expect("fixture");
    let supply =
        std::fs::read(common::crate_path("tests/fixtures/small/supply.json")).expect("fixture");
    assert_eq!(files["api/export.json"], export);
    assert_eq!(files["api/supply.json"], supply);
}
