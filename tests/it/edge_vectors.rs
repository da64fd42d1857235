//! One behaviour, two implementations. The Rust router (`serve::Site::resolve`, the reference)
//! answers raw query strings of every class of DESIGN §5 on the small fixture's site and on a
//! site built without data; each answer is first checked against an expectation written here by
//! hand (status, error code and the kind of message, or the exact list page or model the
//! request means), then written as a vector with the exact target file or body and headers.
//! The edge module (`netlify/edge-functions/lib/query.mjs`) must give the same status, target
//! and bytes under node's test runner (`tests/edge/query.test.mjs`), and the edge handler
//! (`netlify/edge-functions/models.mjs`) the same answers under Deno with a stand-in for
//! Netlify serving the built files (`tests/edge/handler_test.mjs`).
//!
//! The vectors are regenerated into `target/tmp/edge_vectors` on every run, beside the sites they
//! refer to, instead of being committed: their targets and bodies are only meaningful with the
//! built fixture, so a committed copy could only drift from it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use model_demand::answers::render::ErrorCode;
use model_demand::preview::{Answer, Body, Site};
use model_demand::query::{list_file, model_file, percent_encode, ListQuery, Order, SortKey};
use model_demand::query::{LIMIT_DEFAULT, OFFSET_MAX};
use model_demand::site::{self, BuildOptions, SiteData};
use serde::Serialize;
use serde_json::{json, Value};

/// The answer DESIGN §5 gives a request, written by hand.
#[derive(Debug, Clone)]
enum Expect {
    /// A list page: sort, order, limit, offset (past the end when offset > N).
    List(&'static str, &'static str, u64, u64),
    /// The exact lookup of a served model.
    Model(String),
    /// An error with this code whose message contains this text.
    Error(ErrorCode, String),
}

/// A list page with the defaults for what the request leaves out.
fn list(sort: &'static str, order: &'static str, limit: u64, offset: u64) -> Expect {
    Expect::List(sort, order, limit, offset)
}

fn defaults() -> Expect {
    list("tokens_30d", "desc", LIMIT_DEFAULT, 0)
}

fn invalid(says: &str) -> Expect {
    Expect::Error(ErrorCode::InvalidQuery, says.to_string())
}

/// `404 model_not_found` whose message quotes the decoded ID as `quoted` (JSON, cut at 200
/// characters).
fn not_found(quoted: &str) -> Expect {
    Expect::Error(
        ErrorCode::ModelNotFound,
        format!("no model with ID {quoted} is served by the accepted export"),
    )
}

/// One request: class, method, raw query, `If-None-Match`, expectation.
struct Case {
    class: &'static str,
    method: &'static str,
    query: String,
    if_none_match: Option<String>,
    expect: Expect,
}

fn get(class: &'static str, query: impl Into<String>, expect: Expect) -> Case {
    Case {
        class,
        method: "GET",
        query: query.into(),
        if_none_match: None,
        expect,
    }
}

const REPEATED: &str = "is given more than once";
const UNKNOWN: &str = "unknown parameter";
const ESCAPE: &str = "has an invalid percent escape";
const UTF8: &str = "is not valid UTF-8 after percent-decoding";
const INTEGER: &str = "must be a whole number from";
const COMBINED: &str = "cannot be combined";
const EMPTY: &str = "has an empty value";
const NOT_ALLOWED: &str = "is not allowed; allowed values are";

/// The requests of the site with data, whose served IDs are `ids` (N = `ids.len()`).
fn data_cases(ids: &[String]) -> Vec<Case> {
    let n = ids.len() as u64;
    let alpha = "acme/alpha-70b";
    let beta = "acme/beta-8b";
    for id in [alpha, beta] {
        assert!(ids.iter().any(|i| i == id), "the small fixture serves {id}");
    }
    let model = |id: &str| Expect::Model(id.to_string());
    let mut c = vec![
        get("default", "", defaults()),
        get(
            "valid",
            "sort=latest_rank&order=asc&limit=3",
            list("latest_rank", "asc", 3, 0),
        ),
        get(
            "valid",
            "sort=total_parameters&order=desc&limit=100&offset=0",
            list("total_parameters", "desc", 100, 0),
        ),
        get(
            "valid",
            "sort=smallest_quant_checkpoint_bytes",
            list("smallest_quant_checkpoint_bytes", "desc", LIMIT_DEFAULT, 0),
        ),
        get(
            "valid",
            "order=asc",
            list("tokens_30d", "asc", LIMIT_DEFAULT, 0),
        ),
        get(
            "valid",
            "offset=2",
            list("tokens_30d", "desc", LIMIT_DEFAULT, 2),
        ),
        get(
            "valid",
            format!("limit=1&offset={n}"),
            list("tokens_30d", "desc", 1, n),
        ),
        get(
            "order_of_parameters",
            "offset=1&limit=2&order=asc&sort=active_parameters",
            list("active_parameters", "asc", 2, 1),
        ),
        get(
            "order_of_parameters",
            "limit=4&sort=full_sequence_attention_bytes",
            list("full_sequence_attention_bytes", "desc", 4, 0),
        ),
        get("repeated", "limit=2&limit=2", invalid(REPEATED)),
        get(
            "repeated",
            "sort=latest_rank&order=asc&sort=latest_rank",
            invalid(REPEATED),
        ),
        get("repeated", "limit=2&li%6dit=3", invalid(REPEATED)),
        get(
            "repeated",
            "model_id=acme%2Fbeta-8b&model_id=acme%2Fbeta-8b",
            invalid(REPEATED),
        ),
        get("repeated", "sort=latest_rank&sort", invalid(REPEATED)),
        get("unknown", "foo=1", invalid(UNKNOWN)),
        get("unknown", "sort=latest_rank&Limit=3", invalid(UNKNOWN)),
        get("unknown", "sort=latest_rank&f%6fo=1", invalid(UNKNOWN)),
        get("unknown", "?", invalid(UNKNOWN)),
        get("unknown", "?sort=latest_rank", invalid(UNKNOWN)),
        get("unknown", "limit%3D3", invalid(UNKNOWN)),
        get("unknown", "sort+=latest_rank", invalid(UNKNOWN)),
        get("unknown", "%73ort%00=x", invalid(UNKNOWN)),
        get("unknown", "=1", invalid(UNKNOWN)),
        get("unknown", "__proto__=1", invalid(UNKNOWN)),
        get(
            "unknown",
            "constructor=1&hasOwnProperty=2",
            invalid(UNKNOWN),
        ),
        get(
            "encoded_name",
            "so%72t=latest_rank",
            list("latest_rank", "desc", LIMIT_DEFAULT, 0),
        ),
        get(
            "encoded_name",
            "%6Frder=asc",
            list("tokens_30d", "asc", LIMIT_DEFAULT, 0),
        ),
        get(
            "encoded_name",
            "%6c%69%6d%69%74=5",
            list("tokens_30d", "desc", 5, 0),
        ),
        get("encoded_name", "model%5Fid=acme%2Fbeta-8b", model(beta)),
        get(
            "empty_segments",
            "&&sort=latest_rank&&order=asc&&",
            list("latest_rank", "asc", LIMIT_DEFAULT, 0),
        ),
        get("empty_segments", "&", defaults()),
        get(
            "empty_segments",
            "&&&limit=7",
            list("tokens_30d", "desc", 7, 0),
        ),
        get(
            "trailing_ampersand",
            "sort=latest_rank&",
            list("latest_rank", "desc", LIMIT_DEFAULT, 0),
        ),
        get(
            "trailing_ampersand",
            "limit=3&offset=1&",
            list("tokens_30d", "desc", 3, 1),
        ),
        get(
            "trailing_ampersand",
            "model_id=acme%2Fbeta-8b&",
            model(beta),
        ),
        get(
            "plus",
            "model_id=acme/alpha+70b",
            not_found(r#""acme/alpha 70b""#),
        ),
        get("plus", "sort=latest+rank", invalid(NOT_ALLOWED)),
        get("plus", "sort=latest%2Brank", invalid(NOT_ALLOWED)),
        get("plus", "limit=+5", invalid(INTEGER)),
        get("bad_escape", "sort=%ZZ", invalid(ESCAPE)),
        get("bad_escape", "model_id=%", invalid(ESCAPE)),
        get("bad_escape", "%G1=1", invalid(ESCAPE)),
        get("bad_escape", "model_id=acme%2", invalid(ESCAPE)),
        get("bad_escape", "sort=latest_rank%", invalid(ESCAPE)),
        get("bad_escape", "model_id=%%32%46", invalid(ESCAPE)),
        get("bad_escape", "model_id=%C3%", invalid(ESCAPE)),
        get("invalid_utf8", "model_id=%C0%AF", invalid(UTF8)),
        get("invalid_utf8", "model_id=%E2%82", invalid(UTF8)),
        get("invalid_utf8", "model_id=%ED%A0%80", invalid(UTF8)),
        get("invalid_utf8", "model_id=%e9", invalid(UTF8)),
        get("invalid_utf8", "%FF=1", invalid(UTF8)),
        get("escape_forms", "model_id=acme%2fbeta-8b", model(beta)),
        get("escape_forms", "model_id=acme%2Falpha%2D70b", model(alpha)),
        get(
            "escape_forms",
            "model_id=%EF%BB%BFacme%2Fbeta-8b",
            not_found("\"\u{feff}acme/beta-8b\""),
        ),
        get("non_canonical_integer", "limit=007", invalid(INTEGER)),
        get("non_canonical_integer", "offset=1.0", invalid(INTEGER)),
        get("non_canonical_integer", "offset=00", invalid(INTEGER)),
        get("non_canonical_integer", "limit=-1", invalid(INTEGER)),
        get("non_canonical_integer", "limit=1e2", invalid(INTEGER)),
        get("non_canonical_integer", "offset=0x10", invalid(INTEGER)),
        get("non_canonical_integer", "limit=%EF%BC%95", invalid(INTEGER)),
        get(
            "non_canonical_integer",
            "limit=%31%30",
            list("tokens_30d", "desc", 10, 0),
        ),
        get("non_canonical_integer", "offset=%30", defaults()),
        get("bounds", "limit=0", invalid(INTEGER)),
        get("bounds", "limit=101", invalid(INTEGER)),
        get("bounds", "limit=100", list("tokens_30d", "desc", 100, 0)),
        get("bounds", "limit=1", list("tokens_30d", "desc", 1, 0)),
        get("bounds", "limit=18446744073709551617", invalid(INTEGER)),
        get(
            "bounds",
            format!("offset={OFFSET_MAX}"),
            list("tokens_30d", "desc", LIMIT_DEFAULT, OFFSET_MAX),
        ),
        get(
            "bounds",
            format!("offset={}", u128::from(OFFSET_MAX) + 1),
            invalid(INTEGER),
        ),
        get(
            "bounds",
            "offset=99999999999999999999999999",
            invalid(INTEGER),
        ),
        get(
            "far_offset",
            format!("offset={}", n + 1),
            list("tokens_30d", "desc", LIMIT_DEFAULT, n + 1),
        ),
        get(
            "far_offset",
            "sort=latest_rank&order=asc&limit=7&offset=1000",
            list("latest_rank", "asc", 7, 1000),
        ),
        get(
            "unknown_model",
            "model_id=acme%2Fomega",
            not_found(r#""acme/omega""#),
        ),
        get(
            "unknown_model",
            "model_id=ACME%2FBETA-8B",
            not_found(r#""ACME/BETA-8B""#),
        ),
        get(
            "unknown_model",
            format!("model_id={}", "x".repeat(300)),
            not_found(&format!("\"{}\"...", "x".repeat(200))),
        ),
        get(
            "unknown_model",
            format!("model_id={}", "%F0%9F%98%80".repeat(250)),
            not_found(&format!("\"{}\"...", "\u{1f600}".repeat(200))),
        ),
        get(
            "unknown_model",
            "model_id=%22quoted%22%0A%09%C3%A9%5C",
            not_found(r#""\"quoted\"\n\té\\""#),
        ),
        get(
            "unknown_model",
            "model_id=__proto__",
            not_found(r#""__proto__""#),
        ),
        get(
            "unknown_model",
            "model_id=constructor",
            not_found(r#""constructor""#),
        ),
        get(
            "unknown_model",
            "model_id=toString",
            not_found(r#""toString""#),
        ),
        get(
            "combined",
            "model_id=acme%2Falpha-70b&limit=1",
            invalid(COMBINED),
        ),
        get(
            "combined",
            "sort=latest_rank&model_id=acme%2Falpha-70b",
            invalid(COMBINED),
        ),
        get(
            "combined",
            "model_id=acme%2Fomega&offset=1",
            invalid(COMBINED),
        ),
        get("empty_value", "sort=", invalid(EMPTY)),
        get("empty_value", "model_id", invalid(EMPTY)),
        get("empty_value", "model_id=", invalid(EMPTY)),
        get("empty_value", "limit=&offset=1", invalid(EMPTY)),
        get("invalid_value", "sort=bogus", invalid(NOT_ALLOWED)),
        get("invalid_value", "order=DESC", invalid(NOT_ALLOWED)),
        get("invalid_value", "sort=tokens_30d%00", invalid(NOT_ALLOWED)),
        get(
            "invalid_value",
            format!("order={}", "é".repeat(80)),
            invalid(NOT_ALLOWED),
        ),
    ];
    for id in ids {
        c.push(get("exact_raw", format!("model_id={id}"), model(id)));
        c.push(get(
            "exact_encoded",
            format!("model_id={}", percent_encode(id)),
            model(id),
        ));
    }
    for method in ["POST", "PUT", "DELETE", "OPTIONS"] {
        let mut case = get(
            "method",
            "sort=bogus&sort=x",
            Expect::Error(ErrorCode::MethodNotAllowed, "GET and HEAD".to_string()),
        );
        case.method = method;
        c.push(case);
    }
    let mut head = get("head", "limit=1", list("tokens_30d", "desc", 1, 0));
    head.method = "HEAD";
    c.push(head);
    let mut head = get("head", "foo=1", invalid(UNKNOWN));
    head.method = "HEAD";
    c.push(head);
    let mut head = get(
        "head",
        "offset=99",
        list("tokens_30d", "desc", LIMIT_DEFAULT, 99),
    );
    head.method = "HEAD";
    c.push(head);
    c
}

/// The requests of the site built without data: every model request is 503.
fn unavailable_cases() -> Vec<Case> {
    let unavailable = || {
        Expect::Error(
            ErrorCode::DataUnavailable,
            "No accepted public data".to_string(),
        )
    };
    let mut c = vec![
        get("no_data", "", unavailable()),
        get("no_data", "sort=bogus&sort=x", unavailable()),
        get("no_data", "model_id=acme%2Falpha-70b", unavailable()),
        get("no_data", "offset=1000", unavailable()),
        get("no_data", "model_id=%ZZ", unavailable()),
    ];
    let mut post = get(
        "no_data",
        "",
        Expect::Error(ErrorCode::MethodNotAllowed, "GET and HEAD".to_string()),
    );
    post.method = "POST";
    c.push(post);
    c
}

/// A vector: the request and the reference router's exact answer.
#[derive(Debug, Serialize)]
struct Vector {
    class: &'static str,
    /// `data` or `unavailable`: the site it is asked of.
    site: &'static str,
    method: &'static str,
    query: String,
    if_none_match: Option<String>,
    status: u16,
    /// The site file served, for answers that are a precomputed file (a rewrite on the CDN).
    file: Option<String>,
    /// The exact body, for answers made while answering (errors, pages past the end).
    body: Option<String>,
    /// The router's headers; for a file, without its ETag and `Accept-Ranges` (the CDN gives
    /// its own).
    headers: Vec<(String, String)>,
}

fn body_json(site: &Site, answer: &Answer) -> Value {
    let bytes = site.read_body(&answer.body).expect("body reads");
    serde_json::from_slice(&bytes).expect("body is JSON")
}

/// Checks a router answer against the hand-written expectation.
fn check(site: &Site, case: &Case, answer: &Answer) {
    let what = format!("{} {} ?{}", case.class, case.method, case.query);
    let n = site.routes().total;
    match &case.expect {
        Expect::List(sort, order, limit, offset) => {
            assert_eq!(answer.status, 200, "{what}");
            let body = body_json(site, answer);
            let echo = json!({"mode": "list", "model_id": null, "sort": sort, "order": order, "limit": limit, "offset": offset});
            assert_eq!(body["query"], echo, "{what}");
            let query = ListQuery {
                sort: SortKey::parse(sort).expect("sort"),
                order: Order::parse(order).expect("order"),
                limit: *limit,
                offset: *offset,
            };
            if *offset <= n {
                assert_eq!(answer.body, Body::File(list_file(&query)), "{what}");
            } else {
                // Past the end: the page at offset N with this query echoed and no models.
                assert!(matches!(answer.body, Body::Bytes(_)), "{what}");
                let last_query = format!("sort={sort}&order={order}&limit={limit}&offset={n}");
                let last = site.resolve("GET", &format!("/api/v1/models?{last_query}"), None);
                assert!(
                    matches!(last.body, Body::File(_)),
                    "{what}: the page at offset N"
                );
                let last = body_json(site, &last);
                let pagination = json!({"total_matching_models": n, "offset": offset, "limit": limit, "returned_count": 0, "has_next_page": false});
                assert_eq!(body["pagination"], pagination, "{what}");
                assert_eq!(body["models"], json!([]), "{what}");
                let (mut head, mut last_head) = (body.clone(), last);
                for member in ["query", "pagination"] {
                    head.as_object_mut().expect("object").remove(member);
                    last_head.as_object_mut().expect("object").remove(member);
                }
                assert_eq!(head, last_head, "{what}");
            }
        }
        Expect::Model(id) => {
            assert_eq!(answer.status, 200, "{what}");
            assert_eq!(answer.body, Body::File(model_file(id)), "{what}");
            let body = body_json(site, answer);
            assert_eq!(body["query"]["mode"], "exact_model", "{what}");
            assert_eq!(body["query"]["model_id"], id.as_str(), "{what}");
            assert_eq!(body["models"][0]["model_id"], id.as_str(), "{what}");
        }
        Expect::Error(code, says) => {
            assert_eq!(answer.status, code.status(), "{what}");
            let body = body_json(site, answer);
            assert_eq!(
                body["schema_version"], "model-demand.agent-api-error.v1",
                "{what}"
            );
            assert_eq!(body["error"], code.as_str(), "{what}");
            let message = body["message"].as_str().expect("message");
            assert!(message.contains(says), "{what}: {message}");
            if *code == ErrorCode::MethodNotAllowed {
                assert!(
                    answer.headers.contains(&("Allow", "GET, HEAD".to_string())),
                    "{what}"
                );
            }
        }
    }
}

fn vectors_of(site: &Site, name: &'static str, cases: &[Case]) -> Vec<Vector> {
    cases
        .iter()
        .map(|case| {
            let target = format!("/api/v1/models?{}", case.query);
            let answer = site.resolve(case.method, &target, case.if_none_match.as_deref());
            if answer.status != 304 {
                check(site, case, &answer);
            }
            let (file, body) = match &answer.body {
                Body::File(key) | Body::Part { key, .. } => (Some(key.clone()), None),
                Body::Bytes(bytes) => (
                    None,
                    Some(String::from_utf8(bytes.clone()).expect("UTF-8 body")),
                ),
            };
            let headers = answer
                .headers
                .iter()
                .filter(|(name, _)| file.is_none() || !matches!(*name, "ETag" | "Accept-Ranges"))
                .map(|(name, value)| (name.to_string(), value.clone()))
                .collect();
            Vector {
                class: case.class,
                site: name,
                method: case.method,
                query: case.query.clone(),
                if_none_match: case.if_none_match.clone(),
                status: answer.status,
                file,
                body,
                headers,
            }
        })
        .collect()
}

/// Conditional requests for a page made while answering: the router's own ETag gives a 304.
fn conditional_cases(site: &Site) -> Vec<Case> {
    let query = "sort=latest_rank&offset=50";
    let answer = site.resolve("GET", &format!("/api/v1/models?{query}"), None);
    let etag = answer
        .header("ETag")
        .expect("a page past the end has an ETag")
        .to_owned();
    let expect = || list("latest_rank", "desc", LIMIT_DEFAULT, 50);
    let with = |tag: String, expect: Expect| Case {
        if_none_match: Some(tag),
        ..get("conditional", query, expect)
    };
    vec![
        with(etag.clone(), expect()),
        with(format!("\"other\", W/{etag}"), expect()),
        with("*".to_string(), expect()),
        with("\"other\"".to_string(), expect()),
        Case {
            if_none_match: Some("*".to_string()),
            ..get("conditional", "foo=1", invalid(UNKNOWN))
        },
    ]
}

/// Builds both sites into `root`, writes `root/vectors.json` and returns the vectors.
fn build_fixture(root: &Path) -> Vec<Vector> {
    let data_dir = root.join("site");
    common::build_small(&data_dir);
    // The same data in the `edge` layout (DESIGN §8.1): what Netlify publishes.
    common::build_small_as(
        &root.join("site-edge"),
        model_demand::site::edge::Layout::Edge,
    );
    let unavailable_dir = root.join("site-unavailable");
    site::build(&SiteData::Unavailable, &BuildOptions::new(&unavailable_dir))
        .expect("no-data site builds");
    let data = Site::open(&data_dir).expect("site opens");
    let unavailable = Site::open(&unavailable_dir).expect("no-data site opens");
    let ids: Vec<String> = data.routes().models.keys().cloned().collect();
    let mut vectors = vectors_of(&data, "data", &data_cases(&ids));
    let conditional = vectors_of(&data, "data", &conditional_cases(&data));
    let statuses: Vec<u16> = conditional.iter().map(|v| v.status).collect();
    assert_eq!(statuses, [304, 304, 304, 200, 400], "conditional requests");
    vectors.extend(conditional);
    vectors.extend(vectors_of(
        &unavailable,
        "unavailable",
        &unavailable_cases(),
    ));
    std::fs::write(
        root.join("vectors.json"),
        serde_json::to_vec_pretty(&vectors).expect("json"),
    )
    .expect("write");
    vectors
}

/// The built sites and their vectors, made once per test binary.
struct Fixture {
    dir: PathBuf,
    vectors: Vec<Vector>,
}

/// Builds the fixture into `target/tmp/edge_vectors` ([`common::run_dir`]; Deno reads nothing
/// under `/dev`, where [`common::tempdir`] may be, without `--allow-all`), or into
/// `EDGE_FIXTURE_DIR` when set, so that the node and Deno tests can be rerun by hand:
/// `EDGE_FIXTURE=$EDGE_FIXTURE_DIR node --test tests/edge/query.test.mjs`.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = match std::env::var_os("EDGE_FIXTURE_DIR") {
            Some(dir) => {
                let dir = PathBuf::from(dir);
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).expect("EDGE_FIXTURE_DIR can be made");
                dir
            }
            None => common::run_dir("edge_vectors"),
        };
        let vectors = build_fixture(&dir);
        Fixture { dir, vectors }
    })
}

fn output_text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Classes every run must cover (the node test checks the same list).
const CLASSES: [&str; 25] = [
    "default",
    "valid",
    "order_of_parameters",
    "repeated",
    "unknown",
    "encoded_name",
    "empty_segments",
    "trailing_ampersand",
    "plus",
    "bad_escape",
    "invalid_utf8",
    "escape_forms",
    "non_canonical_integer",
    "bounds",
    "far_offset",
    "exact_raw",
    "exact_encoded",
    "unknown_model",
    "combined",
    "empty_value",
    "invalid_value",
    "method",
    "head",
    "conditional",
    "no_data",
];

#[test]
fn the_rust_router_meets_the_hand_written_expectations() {
    let vectors = &fixture().vectors;
    for class in CLASSES {
        assert!(
            vectors.iter().any(|v| v.class == class),
            "no vector of class {class}"
        );
    }
    assert!(vectors.len() > 100, "{}", vectors.len());
}

#[test]
fn the_edge_module_agrees_with_the_rust_router_under_node() {
    let dir = &fixture().dir;
    let out = common::tools::command("node")
        .arg("--test")
        .arg(common::crate_path("tests/edge/query.test.mjs"))
        .env("EDGE_FIXTURE", dir)
        .output()
        .expect("node runs");
    let text = output_text(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("# fail 0"), "{text}");
}

#[test]
fn the_edge_handler_answers_like_the_preview_server_under_deno() {
    let dir = &fixture().dir;
    let deno = common::pins::DENO.install().join(".bin/deno");
    assert!(
        deno.exists(),
        "npm package deno {} installed no binary at {}",
        common::pins::DENO.version,
        deno.display()
    );
    let out = Command::new(&deno)
        .args([
            "test",
            "--quiet",
            "--no-check",
            "--no-remote",
            "--allow-read",
            "--allow-env",
        ])
        .arg(common::crate_path("tests/edge/handler_test.mjs"))
        .env("EDGE_FIXTURE", dir)
        .env("DENO_DIR", common::crate_path("target/deno-cache/dir"))
        .env("DENO_NO_UPDATE_CHECK", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("{} runs: {e}", deno.display()));
    let text = output_text(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(" passed") && text.contains("0 failed"),
        "{text}"
    );
}

/// Every vector against the independent oracle (`tests/oracle/oracle.py`, DESIGN §5 in
/// Python): the same status and error code, and for a 200 the same body, byte for byte. The
/// oracle ignores `If-None-Match`: a 304 vector must be one it answers 200.
#[test]
fn the_oracle_agrees_with_every_vector() {
    let fixture = fixture();
    let inputs = common::oracle::Inputs::fixture("tests/fixtures/small", common::SMALL_NOW);
    let requests: Vec<String> = fixture
        .vectors
        .iter()
        .map(|v| json!({"method": v.method, "query": v.query, "site": v.site}).to_string())
        .collect();
    let answers = inputs.run(&["--digest"], &requests);
    for (v, want) in fixture.vectors.iter().zip(&answers) {
        let what = format!(
            "{} {} ?{} on the {} site",
            v.class, v.method, v.query, v.site
        );
        if v.status == 304 {
            assert_eq!(want["status"], 200, "{what}");
            continue;
        }
        assert_eq!(u64::from(v.status), want["status"], "{what}");
        let body = match (&v.file, &v.body) {
            (Some(file), _) => std::fs::read(fixture.dir.join("site").join(file)).expect("file"),
            (None, Some(body)) => body.clone().into_bytes(),
            (None, None) => panic!("{what}: neither file nor body"),
        };
        if v.status == 200 {
            assert_eq!(site::sha256_hex(&body), want["sha256"], "{what}");
        } else {
            let body: Value = serde_json::from_slice(&body).expect("error JSON");
            assert_eq!(body["error"], want["error"], "{what}");
        }
    }
    assert!(answers.len() > 100, "{}", answers.len());
}

/// DESIGN §8.1, over a whole query space: every list answer the edge function's own module
/// assembles from an `edge` build (under node) is byte for byte the page the `full` layout
/// writes (its SHA-256, which is also its ETag, and its length): 12 orderings × 100 limits ×
/// offsets 0 to N + 1, past the end included. The small fixture's (N = 6, 9,600 answers) by
/// default; the bundled sample's (N = 56, 69,600 answers) where the heavy cases run
/// ([`common::full`], as in CI).
#[test]
fn every_list_answer_of_the_sample_assembles_to_the_full_layouts_bytes() {
    let ((inputs, catalog), served) = if common::full() {
        (common::sample(), 56)
    } else {
        (common::small(), 6)
    };
    let dir = common::tempdir().expect("temp dir");
    let edge = dir.path().join("edge");
    common::build_into(
        &inputs,
        &catalog,
        &edge,
        model_demand::site::edge::Layout::Edge,
    );
    let out = common::tools::command("node")
        .arg(common::crate_path("tests/edge/assemble_all.mjs"))
        .arg(&edge)
        .output()
        .expect("node runs");
    assert!(out.status.success(), "{}", output_text(&out));
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");

    // What the full layout writes for each page: `Rendered::list_page` is its writer.
    let rendered = model_demand::answers::render::Rendered::new(&catalog);
    let n = rendered.total() as u64;
    assert_eq!(n, served, "the models the input serves");
    eprintln!(
        "every list answer of N = {n}: {} answers",
        12 * 100 * (n + 2)
    );
    let mut checked = 0;
    let mut page = Vec::new();
    for line in stdout.lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        let [sort, order, limit, offset, status, sha, bytes] = parts[..] else {
            panic!("odd line {line:?}");
        };
        let query = ListQuery {
            sort: SortKey::parse(sort).expect("sort"),
            order: Order::parse(order).expect("order"),
            limit: limit.parse().expect("limit"),
            offset: offset.parse().expect("offset"),
        };
        page.clear();
        if query.offset <= n {
            rendered.list_page(&query, &mut page);
        } else {
            let at_n = ListQuery { offset: n, ..query };
            rendered.list_page(&at_n, &mut page);
            page = model_demand::answers::render::past_end_page(&page, &query, n as usize)
                .expect("past-end page");
        }
        assert_eq!(status, "200", "{line}");
        assert_eq!(
            (sha, bytes.parse::<usize>().expect("length")),
            (model_demand::site::sha256_hex(&page).as_str(), page.len()),
            "{line}: the edge's bytes differ from the full layout's"
        );
        checked += 1;
    }
    assert_eq!(
        checked,
        12 * 100 * (n + 2),
        "every answer, past the end included"
    );
}
