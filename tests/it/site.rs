//! The written site: the query space in files, each equal to what `query` answers, the
//! manifest, determinism, atomic replacement and the no-data site.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use model_demand::answers::render::{Api, ErrorCode};
use model_demand::query::{self, all_list_queries, list_file, model_file, percent_encode};
use model_demand::site::manifest::{Manifest, MANIFEST};
use model_demand::site::netlify::error_file;
use model_demand::site::{self, sha256_hex, BuildOptions, RoutingTable, SiteData, ROUTES};
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
        let dir = common::tempdir().expect("temp dir");
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
        model_demand::answers::llms::LLMS_FILE,
        model_demand::answers::catalogue::CATALOGUE_FILE,
        "api/export.json",
        "api/supply.json",
        "api/tables/datapackage.json",
        "api/tables/models.csv",
        "api/tables/daily.csv",
        "api/tables/days.csv",
        "api/tables/supply.csv",
        "api/tables/models.parquet",
        "api/tables/daily.parquet",
        "api/tables/days.parquet",
        "api/tables/supply.parquet",
        "charts/share.svg",
        "charts/trend.svg",
        "_redirects",
        "_headers",
        ROUTES,
        MANIFEST,
    ];
    let errors = ErrorCode::ALL.len();
    let docs = files.keys().filter(|p| p.starts_with("docs/")).count();
    // One demand history (get_demand_history) and one providers file (get_providers) per
    // served model, named as the model files are.
    for record in &catalog.records {
        let path = model_demand::answers::history::history_file(&record.model_id);
        assert!(files.contains_key(&path), "{path} missing");
        let path = model_demand::answers::providers::providers_file(&record.model_id);
        assert!(files.contains_key(&path), "{path} missing");
    }
    assert_eq!(
        files.len(),
        query_space + fixed.len() + errors + docs + 2 * total
    );
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
    let dir = common::tempdir().expect("temp dir");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    common::build_small(&a);
    common::build_small(&b);
    assert!(tree(&a) == tree(&b), "builds differ");
}

#[test]
fn a_failed_build_leaves_the_previous_site_untouched() {
    let dir = common::tempdir().expect("temp dir");
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
    let dir = common::tempdir().expect("temp dir");
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
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    site::build(&SiteData::Unavailable, &BuildOptions::new(&out)).expect("no-data site builds");
    let files = tree(&out);
    assert!(files.contains_key("api/v1/about.json"));
    assert!(files.contains_key("api/openapi.json"));
    assert!(files.contains_key(model_demand::answers::llms::LLMS_FILE));
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

/// Every written list page and model file against the independent oracle, byte for byte (by
/// SHA-256): the files must be exactly the documented query space
/// (`_api/models/list/{sort}/{order}/{limit}/{offset}.json` for limits 1–100 and offsets 0–N,
/// `_api/models/id/{SHA-256 of the ID}.json` per served model), and each must hold the body the
/// oracle computes for its query. Returns how many files were compared.
fn written_pages_match_the_oracle(inputs: &common::oracle::Inputs, out: &Path) -> usize {
    use common::oracle::{ORDERS, SORTS};
    let first = inputs.bodies(&["limit=100".to_string()]).remove(0);
    let served = common::oracle::ids(&first);
    let n = served.len();
    let mut expected: Vec<(String, String)> = Vec::new();
    for sort in SORTS {
        for order in ORDERS {
            for limit in 1..=100 {
                for offset in 0..=n {
                    expected.push((
                        format!("_api/models/list/{sort}/{order}/{limit}/{offset}.json"),
                        format!("sort={sort}&order={order}&limit={limit}&offset={offset}"),
                    ));
                }
            }
        }
    }
    for id in &served {
        // The raw ID is a valid query value: its characters need no escape (DESIGN §2, §5).
        expected.push((
            format!("_api/models/id/{}.json", sha256_hex(id.as_bytes())),
            format!("model_id={id}"),
        ));
    }
    let written: Vec<String> = WalkDir::new(out.join("_api/models"))
        .into_iter()
        .map(|e| e.expect("walkable tree"))
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(out).expect("under out");
            rel.to_string_lossy().replace('\\', "/")
        })
        .collect();
    let mut wanted: Vec<&str> = expected.iter().map(|(p, _)| p.as_str()).collect();
    let mut got: Vec<&str> = written.iter().map(String::as_str).collect();
    wanted.sort_unstable();
    got.sort_unstable();
    assert!(wanted == got, "the written files are not the query space");

    let queries: Vec<String> = expected.iter().map(|(_, q)| q.clone()).collect();
    let answers = inputs.run(&["--digest"], &queries);
    for ((path, q), want) in expected.iter().zip(&answers) {
        assert_eq!(want["status"], 200, "the oracle refuses ?{q}");
        let bytes = std::fs::read(out.join(path)).expect("readable page");
        if sha256_hex(&bytes) != want["sha256"] {
            let want = inputs.bodies(std::slice::from_ref(q)).remove(0);
            let got: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
            assert_eq!(got, want, "{path}");
            panic!("{path}: the same JSON in other bytes");
        }
    }
    expected.len()
}

#[test]
fn the_small_site_holds_the_oracle_answers() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let inputs = common::oracle::Inputs::fixture("tests/fixtures/small", common::SMALL_NOW);
    assert_eq!(written_pages_match_the_oracle(&inputs, &out), 8406);
}

/// The edge fixture's models whose site is compared with the oracle: its whole site is 5.5 GB
/// (54 models), so the site is built from the edge export with only these models' rows kept,
/// one or two of each kind of record the edge fixture holds.
const EDGE_MODELS: [&str; 11] = [
    // outside the top 50 on the latest day, facts available
    "deepseek/deepseek-chat-v3-0324",
    // outside the top 50 on the latest day, no current route, facts not publicly cleared
    "openrouter/polaris-alpha",
    // no current route
    "openrouter/sherlock-alpha",
    // outside the top 50 on some days, facts not available
    "google/gemini-3.1-pro-preview-20260219",
    // a thinking route, facts not available
    "anthropic/claude-3-7-sonnet-20250219:thinking",
    // no official quantized checkpoint: an unavailable key of one sort only
    "meta-llama/llama-3.3-70b-instruct",
    // total parameters unavailable, the rest not publicly cleared
    "z-ai/glm-5-20260211",
    // equal facts: ties broken by model ID, and free routes
    "z-ai/glm-4.5-air",
    "z-ai/glm-4.5-air:free",
    "qwen/qwen3-coder-480b-a35b-07-25",
    "qwen/qwen3-coder-480b-a35b-07-25:free",
];

#[test]
fn an_edge_site_holds_the_oracle_answers() {
    let dir = common::tempdir().expect("temp dir");
    let edge = common::crate_path("tests/fixtures/edge");
    let mut export: serde_json::Value =
        serde_json::from_slice(&std::fs::read(edge.join("export.json")).expect("fixture"))
            .expect("json");
    let mut kept = std::collections::BTreeSet::new();
    for day in export["days"].as_array_mut().expect("days") {
        let rows = day["rows"].as_array_mut().expect("rows");
        rows.retain(|r| EDGE_MODELS.contains(&r["model_id"].as_str().expect("id")));
        kept.extend(rows.iter().map(|r| r["model_id"].to_string()));
    }
    assert_eq!(kept.len(), EDGE_MODELS.len(), "every chosen model has rows");
    let export_path = dir.path().join("export.json");
    std::fs::write(&export_path, export.to_string()).expect("writable");
    let now = "2026-10-05T12:00:00Z";
    let inputs = common::oracle::Inputs {
        export: export_path,
        supply: Some(edge.join("supply.json")),
        now: now.to_string(),
    };
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(["build", "--now", now, "--export"])
        .arg(&inputs.export)
        .arg("--supply")
        .arg(edge.join("supply.json"))
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .expect("binary runs");
    assert!(status.status.success(), "{}", common::output_text(&status));
    let compared = written_pages_match_the_oracle(&inputs, &dir.path().join("out"));
    assert_eq!(
        compared,
        12 * 100 * (EDGE_MODELS.len() + 1) + EDGE_MODELS.len()
    );
}

/// `query` on the bundled sample, run from the crate's directory (its default inputs).
fn query_command(query: &str) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_model-demand"));
    command.current_dir(common::crate_path(".")).args([
        "query",
        query,
        "--now",
        "2026-04-01T12:00:00Z",
    ]);
    command
}

#[test]
fn a_standard_output_closed_early_ends_the_command_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let whole = query_command("limit=100").output().expect("binary runs");
    assert!(whole.status.success(), "{}", common::output_text(&whole));
    // More than a pipe holds (64 KiB on Linux), so the writer meets the closed pipe.
    assert!(whole.stdout.len() > 128 * 1024, "{}", whole.stdout.len());

    // As `model-demand query 'limit=100' | head -c 20` does.
    let mut child = query_command("limit=100")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 20];
    stdout.read_exact(&mut first).expect("20 bytes");
    drop(stdout);
    let output = child.wait_with_output().expect("it ends");
    assert_eq!(first.as_slice(), &whole.stdout[..20]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        common::output_text(&output)
    );
    assert!(
        output.stderr.is_empty(),
        "nothing said: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The first screen of a docs page: what comes before its table of contents.
fn first_screen(page: &str) -> &str {
    page.split("<nav").next().unwrap_or_default()
}

#[test]
fn a_site_built_from_the_sample_says_so_and_one_from_real_inputs_does_not() {
    use model_demand::input::sample::{NOTICE, SAMPLE_COMMIT};
    let dir = common::tempdir().expect("temp dir");
    // The sample in the edge layout (the same notices, a few files instead of 68,000).
    let (inputs, catalog) = common::sample();
    assert!(catalog.sample);
    let sample = dir.path().join("sample");
    common::build_into(
        &inputs,
        &catalog,
        &sample,
        model_demand::site::edge::Layout::Edge,
    );
    let small = dir.path().join("small");
    common::build_small(&small);
    let read = |site: &Path, file: &str| {
        std::fs::read_to_string(site.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
    };
    let instructions = |site: &Path| {
        let catalogue: serde_json::Value = serde_json::from_str(&read(
            site,
            model_demand::answers::catalogue::CATALOGUE_FILE,
        ))
        .expect("JSON");
        catalogue["instructions"]
            .as_str()
            .expect("instructions")
            .to_string()
    };
    let escaped = NOTICE.replace('\'', "&#39;");

    let page = read(&sample, model_demand::answers::addresses::DOCS_PAGE);
    assert!(
        first_screen(&page).contains(&escaped),
        "{}",
        first_screen(&page)
    );
    let guide = read(&sample, model_demand::answers::llms::LLMS_FILE);
    let opening = guide.split("## ").next().unwrap_or_default();
    assert!(
        opening.contains(&format!("**Sample data.** {NOTICE}")),
        "{opening}"
    );
    assert!(instructions(&sample).starts_with(&format!("{NOTICE}\n")));
    // The attribution the API gives and the page's footer show is the sample's own sentence.
    let about_sample = "Sample data: invented figures under real model names";
    assert_eq!(
        catalog.head.source.attribution.split(',').next(),
        Some(about_sample)
    );
    assert!(page.contains(about_sample));
    // Every available fact is pinned to the commit of zeros: none passes for evidence.
    let export = read(&sample, model_demand::site::netlify::EXPORT_FILE);
    assert_eq!(
        export.matches("\"source_url\": \"https").count(),
        export.matches(SAMPLE_COMMIT).count()
    );

    // Real inputs (the small fixture): none of it, anywhere.
    let small_page = read(&small, model_demand::answers::addresses::DOCS_PAGE);
    for text in [
        small_page.as_str(),
        &read(&small, model_demand::answers::llms::LLMS_FILE),
        &instructions(&small),
    ] {
        assert!(
            !text.contains("Sample data") && !text.contains(SAMPLE_COMMIT),
            "{}",
            first_screen(text)
        );
    }
    assert!(!small_page.contains("{{"), "every placeholder filled");
}
