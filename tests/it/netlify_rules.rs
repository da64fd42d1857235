//! The generated `_redirects`, run through Netlify's own redirect engine (npm package
//! `netlify-redirector`, offline under node): every plain request reaches the file holding
//! exactly the designed response, and the gaps rules alone cannot close are pinned down as the
//! engine really behaves (README, "What the rules alone get wrong").

use crate::common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use model_demand::answers::render::{Api, ErrorCode};
use model_demand::query::percent_encode;
use model_demand::site::netlify::error_file;
use serde::Deserialize;

/// What the engine answered for one request.
#[derive(Debug, Clone, Deserialize, PartialEq)]
struct Matched {
    to: String,
    status: u16,
    force: bool,
}

/// Runs the engine once over `rules` for every `(path, query)`.
fn run_engine(rules: &str, requests: &[(String, String)]) -> Vec<Option<Matched>> {
    let input = serde_json::json!({
        "rules": rules,
        "requests": requests.iter().map(|(p, q)| serde_json::json!({"path": p, "query": q})).collect::<Vec<_>>(),
    });
    let mut child = common::tools::command("node")
        .arg(common::crate_path("tests/netlify/match.mjs"))
        .arg(common::pins::NETLIFY_REDIRECTOR.install())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("node finishes");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("engine output")
}

struct Built {
    root: PathBuf,
    rules: String,
    api: Api,
    ids: Vec<String>,
}

fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let root = common::run_dir("netlify_rules").join("out");
        common::build_small(&root);
        let (_, catalog) = common::small();
        Built {
            rules: std::fs::read_to_string(root.join("_redirects")).expect("rules"),
            api: Api::new(&catalog),
            ids: catalog.records.iter().map(|r| r.model_id.clone()).collect(),
            root,
        }
    })
}

/// The file a matched rule serves, or None when the target does not exist (Netlify's HTML 404).
fn target_body(root: &Path, matched: &Matched) -> Option<Vec<u8>> {
    std::fs::read(root.join(matched.to.trim_start_matches('/'))).ok()
}

/// Every plain list request: each subset and order of the parameters, canonical values.
fn plain_list_queries(total: usize) -> Vec<String> {
    let sorts = common::oracle::SORTS;
    let values: BTreeMap<&str, Vec<String>> = BTreeMap::from([
        ("sort", sorts.iter().map(|s| s.to_string()).collect()),
        ("order", vec!["asc".into(), "desc".into()]),
        (
            "limit",
            vec!["1".into(), "2".into(), "25".into(), "100".into()],
        ),
        ("offset", vec!["0".into(), "1".into(), total.to_string()]),
    ]);
    let names = ["sort", "order", "limit", "offset"];
    let mut queries = vec![String::new()];
    for mask in 1u32..16 {
        let subset: Vec<&str> = names
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, n)| *n)
            .collect();
        // Every value combination in canonical order...
        let mut combos: Vec<Vec<(&str, String)>> = vec![Vec::new()];
        for name in &subset {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    values[name].iter().map(move |v| {
                        let mut c = c.clone();
                        c.push((*name, v.clone()));
                        c
                    })
                })
                .collect();
        }
        for combo in &combos {
            queries.push(
                combo
                    .iter()
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect::<Vec<_>>()
                    .join("&"),
            );
        }
        // ...and every order of the parameters for a few of them.
        for combo in combos.iter().step_by(combos.len().div_ceil(3).max(1)) {
            for perm in permutations(combo) {
                queries.push(
                    perm.iter()
                        .map(|(n, v)| format!("{n}={v}"))
                        .collect::<Vec<_>>()
                        .join("&"),
                );
            }
        }
    }
    queries.sort();
    queries.dedup();
    queries
}

fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first.clone());
            out.push(tail);
        }
    }
    out
}

#[test]
fn every_plain_request_reaches_exactly_the_designed_file() {
    let b = built();
    let mut queries = plain_list_queries(b.ids.len());
    for id in &b.ids {
        queries.push(format!("model_id={id}"));
        queries.push(format!("model_id={}", percent_encode(id)));
    }
    let requests: Vec<(String, String)> = queries
        .iter()
        .map(|q| ("/api/v1/models".to_string(), q.clone()))
        .collect();
    let answers = run_engine(&b.rules, &requests);
    assert!(queries.len() > 500, "{} requests", queries.len());
    for (q, matched) in queries.iter().zip(answers) {
        let matched = matched.unwrap_or_else(|| panic!("?{q}: no rule matched"));
        let expected = b.api.answer(q);
        assert_eq!(expected.status, 200, "?{q}");
        assert_eq!(matched.status, 200, "?{q}: {matched:?}");
        let body = target_body(&b.root, &matched)
            .unwrap_or_else(|| panic!("?{q}: {} missing", matched.to));
        assert!(
            body == expected.body,
            "?{q}: {} is not the designed answer",
            matched.to
        );
    }
}

/// IDs are case-sensitive (DESIGN §2, amended 2026-11-25): on a site serving `acme/Beta-8B` and
/// `acme/beta-8b`, Netlify's engine takes each literal rule for its own ID only (raw and
/// encoded), the preview server agrees, a third spelling is the JSON 404, and `verify` passes.
#[test]
fn ids_that_differ_only_in_case_reach_their_own_files() {
    let dir = common::tempdir().expect("temp dir");
    let root = dir.path().join("out");
    common::build_small_in_two_cases(&root);
    let rules = std::fs::read_to_string(root.join("_redirects")).expect("rules");
    let (_, catalog) = common::small_in_two_cases();
    let api = Api::new(&catalog);
    let site = model_demand::preview::Site::open(&root).expect("opens");
    // Two models served, not one under two names.
    let served: Vec<&str> = catalog
        .records
        .iter()
        .map(|r| r.model_id.as_str())
        .collect();
    assert!(
        served.contains(&"acme/Beta-8B") && served.contains(&"acme/beta-8b"),
        "{served:?}"
    );
    let cases = [
        ("model_id=acme/Beta-8B", Some("acme/Beta-8B")),
        ("model_id=acme%2FBeta-8B", Some("acme/Beta-8B")),
        ("model_id=acme/beta-8b", Some("acme/beta-8b")),
        ("model_id=acme%2Fbeta-8b", Some("acme/beta-8b")),
        ("model_id=ACME/BETA-8B", None),
        ("model_id=acme/beta-8B", None),
    ];
    let requests: Vec<(String, String)> = cases
        .iter()
        .map(|(q, _)| ("/api/v1/models".to_string(), q.to_string()))
        .collect();
    for ((q, id), matched) in cases.iter().zip(run_engine(&rules, &requests)) {
        let matched = matched.unwrap_or_else(|| panic!("?{q}: no rule matched"));
        let expected = api.answer(q);
        let body = target_body(&root, &matched).expect("the target exists");
        let preview = site.resolve("GET", &format!("/api/v1/models?{q}"), None);
        assert_eq!(preview.status, expected.status, "?{q}: the preview agrees");
        assert_eq!(
            site.read_body(&preview.body).expect("body"),
            expected.body,
            "?{q}"
        );
        match id {
            Some(id) => {
                assert_eq!(expected.status, 200, "?{q}");
                assert_eq!(
                    body, expected.body,
                    "?{q}: the CDN's file is the designed answer"
                );
                let answer: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
                assert_eq!(answer["models"][0]["model_id"], *id, "?{q}");
            }
            None => {
                // Rules alone serve the generic JSON 404 (the edge function quotes the ID).
                assert_eq!(expected.status, 404, "?{q}");
                assert_eq!(matched.status, 404, "?{q}");
                assert_eq!(
                    matched.to,
                    format!("/{}", error_file(ErrorCode::ModelNotFound))
                );
            }
        }
    }
    model_demand::verify::verify(&root).expect("verify passes");
}

#[test]
fn unknown_models_and_invalid_values_get_their_json_errors() {
    let b = built();
    let cases = [
        ("model_id=acme%2Fomega", 404, ErrorCode::ModelNotFound),
        ("model_id=nobody/else:free", 404, ErrorCode::ModelNotFound),
        ("sort=bogus", 400, ErrorCode::InvalidQuery),
        ("sort=TOKENS_30D&limit=2", 400, ErrorCode::InvalidQuery),
        ("order=up", 400, ErrorCode::InvalidQuery),
        ("order=up&limit=5&offset=1", 400, ErrorCode::InvalidQuery),
        (
            "sort=latest_rank&order=sideways",
            400,
            ErrorCode::InvalidQuery,
        ),
        ("sort=sideways&order=asc", 400, ErrorCode::InvalidQuery),
        ("sort=", 400, ErrorCode::InvalidQuery),
        ("order=", 400, ErrorCode::InvalidQuery),
    ];
    let requests: Vec<(String, String)> = cases
        .iter()
        .map(|(q, _, _)| ("/api/v1/models".to_string(), q.to_string()))
        .collect();
    for ((q, status, code), matched) in cases.iter().zip(run_engine(&b.rules, &requests)) {
        let matched = matched.unwrap_or_else(|| panic!("?{q}: no rule matched"));
        assert_eq!(matched.status, *status, "?{q}");
        assert_eq!(matched.to, format!("/{}", error_file(*code)), "?{q}");
        assert_eq!(b.api.answer(q).status, *status, "?{q}: the design agrees");
        assert!(target_body(&b.root, &matched).is_some());
    }
}

#[test]
fn other_paths_get_files_aliases_or_the_json_404() {
    let b = built();
    let requests: Vec<(String, String)> = [
        "/api/v1",
        "/api/v1/",
        "/api/v1/openapi.json",
        "/",
        "/api/v1/about",
        "/api/v1/about/",
        "/api/export",
        "/_redirects",
        "/_headers",
        "/nope",
        "/api/v2/models",
    ]
    .iter()
    .map(|p| (p.to_string(), String::new()))
    .collect();
    let answers = run_engine(&b.rules, &requests);
    let got: Vec<(String, u16)> = answers
        .into_iter()
        .map(|m| m.map(|m| (m.to, m.status)).expect("a rule"))
        .collect();
    assert_eq!(
        got,
        [
            ("/api/v1/about".to_string(), 301),
            ("/api/v1/about".to_string(), 301),
            ("/api/openapi.json".to_string(), 301),
            ("/docs/".to_string(), 302),
            ("/api/v1/about.json".to_string(), 200),
            ("/api/v1/about.json".to_string(), 200),
            ("/api/export.json".to_string(), 200),
            (format!("/{}", error_file(ErrorCode::NotFound)), 404),
            (format!("/{}", error_file(ErrorCode::NotFound)), 404),
            (format!("/{}", error_file(ErrorCode::NotFound)), 404),
            (format!("/{}", error_file(ErrorCode::NotFound)), 404),
        ]
    );
}

/// What rules alone answer wrongly, asserted as the engine really behaves, so the README's list
/// stays honest. The edge function (issue 7) exists to close each of these.
#[test]
fn the_gaps_of_rules_alone_are_as_documented() {
    let b = built();
    let n = b.ids.len();
    // (query, what the design answers, what the engine does: target suffix or None for no match)
    let gaps: Vec<(String, u16, Option<String>)> = vec![
        (
            "sort=latest_rank&foo=1".into(),
            400,
            Some("list/latest_rank/desc/25/0.json".into()),
        ),
        (
            "limit=2&limit=3".into(),
            400,
            Some("list/tokens_30d/desc/3/0.json".into()),
        ),
        (
            "sort=latest_rank&".into(),
            200,
            Some("list/tokens_30d/desc/25/0.json".into()),
        ),
        (
            "so%72t=latest_rank".into(),
            200,
            Some("list/tokens_30d/desc/25/0.json".into()),
        ),
        (
            "limit=007".into(),
            400,
            Some("list/tokens_30d/desc/007/0.json".into()),
        ),
        (
            "limit=0".into(),
            400,
            Some("list/tokens_30d/desc/0/0.json".into()),
        ),
        (
            format!("offset={}", n + 1),
            200,
            Some(format!("list/tokens_30d/desc/25/{}.json", n + 1)),
        ),
        (
            "model_id=acme%2Falpha-70b&limit=1".into(),
            400,
            Some(format!(
                "id/{}.json",
                model_demand::query::model_key("acme/alpha-70b")
            )),
        ),
    ];
    let requests: Vec<(String, String)> = gaps
        .iter()
        .map(|(q, _, _)| ("/api/v1/models".to_string(), q.clone()))
        .collect();
    for ((q, design_status, engine), matched) in gaps.iter().zip(run_engine(&b.rules, &requests)) {
        assert_eq!(
            b.api.answer(q).status,
            *design_status,
            "?{q}: the design's answer"
        );
        let to = matched.map(|m| m.to);
        match engine {
            Some(suffix) => {
                let to = to.unwrap_or_else(|| panic!("?{q}: expected a match"));
                assert!(to.ends_with(suffix.as_str()), "?{q}: engine now gives {to}");
                let served = std::fs::read(b.root.join(to.trim_start_matches('/'))).ok();
                // Either a file that is not the designed answer, or no file (an HTML 404).
                assert!(
                    served.as_deref() != Some(b.api.answer(q).body.as_slice()),
                    "?{q}: gap closed? update the README"
                );
            }
            None => assert!(to.is_none(), "?{q}: engine now matches {to:?}"),
        }
    }
}
