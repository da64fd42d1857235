//! Netlify's own engine, edge functions included: `netlify dev --offline` (npm `netlify-cli`
//! 27.10.2, with npm `deno` 2.9.6 as its edge runtime) serves the small fixture's site beside
//! the preview server, and both answer the same requests: every class of DESIGN §5, exact
//! lookups raw and encoded, far offsets, malformed queries, trailing slashes, the other
//! addresses, HEAD, other methods and `If-None-Match`. Status and body must be equal (redirects:
//! status and `Location`). The emulation's own header differences on static files are asserted
//! as they are (README, "Netlify's own engine"), not hidden. In the same instance, the edge
//! function's `/mcp` (`check_mcp`): the shared HTTP vectors, the official conformance suite and
//! the official Python SDK, against stdio and the preview server.
//!
//! Offline, three things are set up by hand (README): `deno` on `PATH`, the edge runtime's
//! bootstrap from netlify-cli's bundled copy (`NETLIFY_EDGE_BOOTSTRAP`), and a stand-in for the
//! one remote module the config extractor imports, in a Deno cache of the test's own.

use crate::common;

use common::mcp_client::{assert_same_as_preview, case as tool_case, run_client, Mode};
use common::netlify;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use model_demand::preview::{self, ServeOptions, Site};
use model_demand::query::{percent_encode, OFFSET_MAX};
use serde_json::json;

/// One HTTP exchange as seen on the wire.
#[derive(Debug, Clone)]
struct Reply {
    status: u16,
    /// Lower-cased names.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends one request (`Connection: close`) and reads the whole answer, de-chunked.
fn exchange(addr: SocketAddr, method: &str, target: &str, extra: &[(&str, &str)]) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut request = format!(
        "{method} {target} HTTP/1.1\r\nHost: localhost:{}\r\nConnection: close\r\n",
        addr.port()
    );
    for (name, value) in extra {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    if method != "GET" && method != "HEAD" {
        request.push_str("Content-Length: 0\r\n");
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).expect("send");
    // Read until the answer is complete: the preview server keeps the connection open.
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        if let Some(reply) = complete(method, &raw) {
            return reply;
        }
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => raw.extend_from_slice(&buf[..k]),
            Err(e) => panic!("{method} {target}: {e} after {raw:?}"),
        }
    }
    complete(method, &raw).unwrap_or_else(|| panic!("{method} {target}: incomplete {raw:?}"))
}

/// The reply when `raw` holds a whole answer.
fn complete(method: &str, raw: &[u8]) -> Option<Reply> {
    let head_end = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&raw[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let rest = &raw[head_end + 4..];
    let reply = |body: Vec<u8>| Reply {
        status,
        headers: headers.clone(),
        body,
    };
    if method == "HEAD" || matches!(status, 100..=199 | 204 | 304) {
        return Some(reply(Vec::new()));
    }
    let find = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        return rest.ends_with(b"0\r\n\r\n").then(|| reply(dechunk(rest)));
    }
    let length: usize = find("content-length")?.parse().ok()?;
    (rest.len() >= length).then(|| reply(rest[..length].to_vec()))
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(line_end) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16).unwrap_or(0);
        data = &data[line_end + 2..];
        if size == 0 || data.len() < size {
            return out;
        }
        out.extend_from_slice(&data[..size]);
        data = data.get(size + 2..).unwrap_or(&[]);
    }
}

/// A port free at the time of asking.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// `netlify dev` running in its own process group; stopped (the group, by its id) on drop.
struct NetlifyDev {
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
}

impl Drop for NetlifyDev {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        std::thread::sleep(Duration::from_millis(300));
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
    }
}

impl NetlifyDev {
    fn log_text(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(&self.log).unwrap_or_default()).replace('\0', "")
    }
}

/// Lays out `dir` as a Netlify project (the built site in `out/`, `netlify.toml`, `netlify/`)
/// and starts `netlify dev --offline` on it; returns once an unknown parameter answers 400,
/// which needs the edge function loaded.
fn start_netlify_dev(dir: &Path) -> NetlifyDev {
    let static_port = free_port();
    let toml = std::fs::read_to_string(common::crate_path("netlify.toml")).expect("netlify.toml");
    std::fs::write(
        dir.join("netlify.toml"),
        format!("{toml}\n# Test only: the static server's port.\n[dev]\n  staticServerPort = {static_port}\n"),
    )
    .expect("write netlify.toml");
    netlify::lay_out_edge_functions(dir);
    let port = free_port();
    let log = dir.join("netlify-dev.log");
    let log_file = std::fs::File::create(&log).expect("log");
    use std::os::unix::process::CommandExt;
    let child = netlify::command(dir, dir)
        .args(["dev", "--offline", "--no-open", "--framework", "#static"])
        .args(["--port", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(log_file.try_clone().expect("log"))
        .stderr(log_file)
        .process_group(0)
        .spawn()
        .expect("netlify dev starts");
    let mut dev = NetlifyDev {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        log,
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Ok(Some(status)) = dev.child.try_wait() {
            panic!("netlify dev exited ({status}):\n{}", dev.log_text());
        }
        if TcpStream::connect(dev.addr).is_ok()
            && exchange(dev.addr, "GET", "/api/v1/models?foo=1", &[]).status == 400
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "netlify dev not ready in 120 s:\n{}",
            dev.log_text()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    dev
}

/// One request of the comparison.
struct Case {
    class: &'static str,
    method: &'static str,
    target: String,
}

fn case(class: &'static str, method: &'static str, target: impl Into<String>) -> Case {
    Case {
        class,
        method,
        target: target.into(),
    }
}

fn models(class: &'static str, query: &str) -> Case {
    case(class, "GET", format!("/api/v1/models?{query}"))
}

/// The requests: every class of DESIGN §5 on the model route, then the other addresses.
fn cases(ids: &[String], n: u64) -> Vec<Case> {
    let mut c = vec![
        case("default", "GET", "/api/v1/models"),
        models("valid", "sort=latest_rank&order=asc&limit=3"),
        models(
            "valid",
            "sort=total_parameters&order=desc&limit=100&offset=0",
        ),
        models("valid", "order=asc"),
        models("valid", "offset=2"),
        models("valid", &format!("limit=1&offset={n}")),
        models(
            "order_of_parameters",
            "offset=1&limit=2&order=asc&sort=active_parameters",
        ),
        models("repeated", "limit=2&limit=3"),
        models("repeated", "limit=2&li%6dit=3"),
        models("repeated", "sort=latest_rank&sort"),
        models("unknown", "foo=1"),
        models("unknown", "sort=latest_rank&Limit=3"),
        models("unknown", "sort=latest_rank&f%6fo=1"),
        models("unknown", "limit%3D3"),
        models("unknown", "__proto__=1"),
        models("encoded_name", "so%72t=latest_rank"),
        models("encoded_name", "model%5Fid=acme%2Fbeta-8b"),
        models("empty_segments", "&&sort=latest_rank&&order=asc&&"),
        models("empty_segments", "&"),
        models("trailing_ampersand", "sort=latest_rank&"),
        models("trailing_ampersand", "model_id=acme%2Fbeta-8b&"),
        models("plus", "model_id=acme/alpha+70b"),
        models("plus", "sort=latest+rank"),
        models("plus", "limit=+5"),
        models("bad_escape", "sort=%ZZ"),
        models("bad_escape", "model_id=%"),
        models("bad_escape", "model_id=acme%2"),
        models("bad_escape", "model_id=%%32%46"),
        models("invalid_utf8", "model_id=%C0%AF"),
        models("invalid_utf8", "model_id=%ED%A0%80"),
        models("invalid_utf8", "%FF=1"),
        models("escape_forms", "model_id=acme%2fbeta-8b"),
        models("escape_forms", "model_id=%EF%BB%BFacme%2Fbeta-8b"),
        models("non_canonical_integer", "limit=007"),
        models("non_canonical_integer", "offset=1.0"),
        models("non_canonical_integer", "limit=-1"),
        models("non_canonical_integer", "limit=%31%30"),
        models("bounds", "limit=0"),
        models("bounds", "limit=101"),
        models("bounds", "limit=100"),
        models("bounds", "limit=18446744073709551617"),
        models("bounds", &format!("offset={OFFSET_MAX}")),
        models("bounds", &format!("offset={}", u128::from(OFFSET_MAX) + 1)),
        models("far_offset", &format!("offset={}", n + 1)),
        models(
            "far_offset",
            "sort=latest_rank&order=asc&limit=7&offset=1000",
        ),
        models("far_offset", "offset=99999"),
        models("unknown_model", "model_id=acme%2Fomega"),
        models("unknown_model", "model_id=ACME%2FBETA-8B"),
        models("unknown_model", &format!("model_id={}", "x".repeat(300))),
        models("unknown_model", "model_id=%22quoted%22%0A%09%C3%A9%5C"),
        models("combined", "model_id=acme%2Falpha-70b&limit=1"),
        models("combined", "sort=latest_rank&model_id=acme%2Falpha-70b"),
        models("empty_value", "sort="),
        models("empty_value", "model_id"),
        models("invalid_value", "sort=bogus"),
        models("invalid_value", "order=DESC"),
        models("invalid_value", "sort=tokens_30d%00"),
        case("trailing_slash", "GET", "/api/v1/models/"),
        case(
            "trailing_slash",
            "GET",
            "/api/v1/models/?sort=latest_rank&limit=2",
        ),
        case("trailing_slash", "GET", "/api/v1/models/?foo=1"),
        case("trailing_slash", "GET", "/api/v1/about/"),
        case("trailing_slash", "GET", "/api/export/"),
        case("trailing_slash", "GET", "/api/v1/"),
    ];
    for id in ids {
        c.push(models("exact_raw", &format!("model_id={id}")));
        c.push(models(
            "exact_encoded",
            &format!("model_id={}", percent_encode(id)),
        ));
    }
    for path in [
        "/api/v1/about",
        "/api/v1/about.json",
        "/api/openapi.json",
        "/api/export",
        "/api/supply",
        "/api/tables/datapackage.json",
        "/api/tables/models.csv",
        "/api/tables/daily.csv",
        "/api/tables/days.csv",
        "/api/tables/supply.csv",
        "/api/tables/models.parquet",
        "/api/tables/supply.parquet",
        "/charts/share.svg",
        "/charts/trend.svg",
        "/llms.txt",
        "/docs/",
        "/docs",
        "/",
        "/api/v1",
        "/api/v1/openapi.json",
        "/nope",
        "/api/v2/models",
        "/API/v1/about",
        "/_redirects",
        "/_headers",
    ] {
        c.push(case("address", "GET", path));
    }
    for target in [
        "/api/v1/models?limit=1",
        "/api/v1/models?foo=1",
        "/api/v1/models?offset=99",
        "/api/v1/about",
        "/nope",
    ] {
        c.push(case("head", "HEAD", target));
    }
    for (method, target) in [
        ("POST", "/api/v1/models"),
        ("PUT", "/api/v1/models?limit=1"),
        ("DELETE", "/api/v1/models"),
        ("PATCH", "/api/v1/models"),
        ("OPTIONS", "/api/v1/models"),
        ("POST", "/api/v1/about"),
        ("POST", "/api/openapi.json"),
        ("PUT", "/api/export"),
        ("DELETE", "/docs/"),
        ("PATCH", "/manifest.json"),
        ("OPTIONS", "/api/v1/about"),
        ("POST", "/nope"),
        ("POST", "/"),
    ] {
        c.push(case("method", method, target));
    }
    c
}

/// What one comparison found.
struct Outcome {
    what: String,
    equal: bool,
    detail: String,
}

fn compare(what: String, netlify: &Reply, preview: &Reply) -> Outcome {
    let mut problems = Vec::new();
    if netlify.status != preview.status {
        problems.push(format!("status {} vs {}", netlify.status, preview.status));
    }
    if matches!(preview.status, 301 | 302) {
        if netlify.header("location") != preview.header("location") {
            problems.push(format!(
                "location {:?} vs {:?}",
                netlify.header("location"),
                preview.header("location")
            ));
        }
    } else if netlify.body != preview.body {
        problems.push(format!(
            "body differs ({} vs {} bytes): {:?}",
            netlify.body.len(),
            preview.body.len(),
            String::from_utf8_lossy(&netlify.body[..netlify.body.len().min(160)])
        ));
    }
    Outcome {
        what,
        equal: problems.is_empty(),
        detail: problems.join("; "),
    }
}

/// Headers an answer must carry, by who made it: the preview server always gives the
/// `_headers` set; `netlify dev` gives it on the edge function's own answers, and on static
/// files (rewrites included) its own: a charset added, `must-revalidate` dropped, a weak ETag.
fn check_headers(what: &str, netlify: &Reply, preview: &Reply, differences: &mut Vec<String>) {
    if !matches!(preview.status, 200 | 400 | 404 | 405 | 503) {
        return;
    }
    let preview_type = preview.header("content-type").unwrap_or_default();
    assert_eq!(
        preview.header("access-control-allow-origin"),
        Some("*"),
        "{what}: preview CORS"
    );
    assert_eq!(
        netlify.header("access-control-allow-origin"),
        Some("*"),
        "{what}: netlify CORS"
    );
    // Issue 50: every answer forbids sniffing, the edge functions' own answers included.
    assert_eq!(
        preview.header("x-content-type-options"),
        Some("nosniff"),
        "{what}: preview nosniff"
    );
    assert_eq!(
        netlify.header("x-content-type-options"),
        Some("nosniff"),
        "{what}: netlify nosniff"
    );
    let by_edge = netlify.header("x-nf-edge-functions").is_some()
        && netlify.header("cache-control") == preview.header("cache-control");
    if preview.status == 405 {
        assert_eq!(netlify.header("allow"), Some("GET, HEAD"), "{what}: Allow");
        assert_eq!(preview.header("allow"), Some("GET, HEAD"), "{what}: Allow");
    }
    if by_edge {
        assert_eq!(
            netlify.header("content-type"),
            Some(preview_type),
            "{what}: an edge answer carries the _headers type"
        );
        return;
    }
    // A static file served by the emulation.
    let expected_type = format!("{preview_type}; charset=utf-8");
    let netlify_type = netlify.header("content-type").unwrap_or_default();
    let etag = netlify.header("etag").unwrap_or_default();
    let cache = netlify.header("cache-control").unwrap_or_default();
    // netlify dev types static files by its own MIME table, which has no Parquet type: it
    // answers the tables' Parquet twins as octet-stream where `_headers` says
    // application/vnd.apache.parquet.
    let no_parquet_type = preview_type == "application/vnd.apache.parquet"
        && netlify_type == "application/octet-stream";
    let emulation =
        (netlify_type == expected_type || netlify_type == preview_type || no_parquet_type)
            && cache == "public, max-age=0"
            && (etag.starts_with("W/") || preview.status != 200);
    assert!(
        emulation,
        "{what}: static answer headers are not the documented emulation ones: {:?}",
        netlify.headers
    );
    if netlify_type != preview_type {
        differences.push(format!("{what}: content-type {netlify_type:?}"));
    }
}

#[test]
fn netlify_dev_answers_like_the_preview_server() {
    let started = Instant::now();
    let dir = common::tempdir().expect("temp dir");
    // Netlify publishes the `edge` layout (DESIGN §8.1); the preview server answers from the
    // `full` layout: every answer must be the same.
    let root = dir.path().join("out");
    common::build_small_as(&root, model_demand::site::edge::Layout::Edge);
    let full = dir.path().join("full");
    common::build_small(&full);
    let site = Site::open(&full).expect("site opens");
    let ids: Vec<String> = site.routes().models.keys().cloned().collect();
    let n = site.routes().total;
    let options = ServeOptions {
        workers: 4,
        io_timeout: Duration::from_secs(10),
    };
    let running =
        preview::start(&full, "127.0.0.1:0".parse().expect("addr"), options).expect("preview");
    let preview = running.addr;
    std::thread::spawn(move || running.wait());
    let dev = start_netlify_dev(dir.path());
    eprintln!("netlify dev ready after {:.1?}", started.elapsed());

    let mut outcomes = Vec::new();
    let mut charset_added = Vec::new();
    let cases = cases(&ids, n);
    let mut classes: Vec<&str> = cases.iter().map(|c| c.class).collect();
    classes.dedup();
    for c in &cases {
        let what = format!("[{}] {} {}", c.class, c.method, c.target);
        let a = exchange(dev.addr, c.method, &c.target, &[]);
        let b = exchange(preview, c.method, &c.target, &[]);
        check_headers(&what, &a, &b, &mut charset_added);
        outcomes.push(compare(what, &a, &b));
    }

    // If-None-Match: each side's own validator gives 304 (the emulation's ETags are weak and
    // its own; a page the edge function makes carries the preview server's ETag on both);
    // `*` gives 304; another validator gives the 200.
    for target in [
        "/api/v1/models?limit=2",
        "/api/v1/models?sort=latest_rank&offset=50",
        &format!("/api/v1/models?model_id={}", percent_encode(&ids[0])),
        "/api/v1/about",
        "/docs/",
    ] {
        let a = exchange(dev.addr, "GET", target, &[]);
        let b = exchange(preview, "GET", target, &[]);
        let (ta, tb) = (
            a.header("etag").expect("netlify etag").to_string(),
            b.header("etag").expect("preview etag").to_string(),
        );
        if target.starts_with("/api/v1/models?") && !target.contains("model_id") {
            // Every list answer of the edge layout is made by the edge function.
            assert_eq!(
                ta, tb,
                "{target}: the edge function's ETag is the preview's"
            );
        } else {
            assert!(
                ta.starts_with("W/") && !tb.starts_with("W/"),
                "{target}: {ta} {tb}"
            );
        }
        for (label, tag_a, tag_b) in [
            ("own", ta.as_str(), tb.as_str()),
            ("star", "*", "*"),
            ("other", "\"other\"", "\"other\""),
        ] {
            let what = format!("[conditional/{label}] GET {target}");
            let a = exchange(dev.addr, "GET", target, &[("If-None-Match", tag_a)]);
            let b = exchange(preview, "GET", target, &[("If-None-Match", tag_b)]);
            outcomes.push(compare(what, &a, &b));
        }
    }

    // Each layout's own bookkeeping (its manifest, and the routing table that names the edge
    // layout's parts) differs by design: netlify dev serves the edge build's own files.
    for (path, file) in [
        ("/manifest.json", "manifest.json"),
        ("/_api/routes.json", "_api/routes.json"),
    ] {
        let reply = exchange(dev.addr, "GET", path, &[]);
        assert_eq!(reply.status, 200, "{path}");
        assert!(
            reply.body == std::fs::read(root.join(file)).expect("built"),
            "{path}: not the edge build's own file"
        );
    }

    // `/llms.txt` under Netlify's engine: the same Markdown guide (compared byte for byte
    // above), as plain text, naming every route.
    let guide = exchange(dev.addr, "GET", "/llms.txt", &[]);
    assert_eq!(guide.status, 200);
    assert!(
        guide
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/plain")),
        "{:?}",
        guide.headers
    );
    let text = String::from_utf8(guide.body).expect("UTF-8");
    assert!(text.starts_with("# "), "a Markdown title");
    for route in [
        "/api/v1/about",
        "/api/v1/models",
        "/api/openapi.json",
        "/api/export",
        "/api/supply",
    ] {
        assert!(text.contains(&format!("`GET {route}`")), "{route} missing");
    }

    // The page under Netlify's engine: the same policy and referrer rule as the preview's.
    let page = exchange(dev.addr, "GET", "/docs/", &[]);
    let preview_page = exchange(preview, "GET", "/docs/", &[]);
    for name in [
        "content-security-policy",
        "referrer-policy",
        "x-content-type-options",
    ] {
        assert!(
            page.header(name).is_some(),
            "/docs/ {name}: {:?}",
            page.headers
        );
        assert_eq!(
            page.header(name),
            preview_page.header(name),
            "/docs/ {name}"
        );
    }

    // The flat tables under Netlify's engine: CSV by their own `_headers` rules (compared
    // byte for byte above), with the feeds' CORS.
    for path in model_demand::answers::tables::CSV_PATHS {
        let reply = exchange(dev.addr, "GET", path, &[]);
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/csv; charset=utf-8"),
            "{path}: {:?}",
            reply.headers
        );
        assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    }

    // The charts under Netlify's engine: SVG by their own `_headers` rules.
    for path in model_demand::answers::addresses::CHART_PATHS {
        let reply = exchange(dev.addr, "GET", path, &[]);
        assert_eq!(reply.status, 200, "{path}");
        assert!(
            reply
                .header("content-type")
                .is_some_and(|t| t.starts_with("image/svg+xml")),
            "{path}: {:?}",
            reply.headers
        );
        assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    }

    let mcp_started = Instant::now();
    check_mcp(&dev, &root, preview, &ids, dir.path());
    eprintln!("netlify dev /mcp checked in {:.1?}", mcp_started.elapsed());

    let equal = outcomes.iter().filter(|o| o.equal).count();
    // The emulation's own difference: `If-None-Match: *` on a file reached through a
    // `_redirects` rewrite gets its 200 (a file served directly, or rewritten by the edge
    // function, gets the 304 RFC 9110 asks for, as from the preview server).
    let emulation_only = "[conditional/star] GET /api/v1/about";
    let report: Vec<String> = outcomes
        .iter()
        .filter(|o| !o.equal)
        .filter(|o| !(o.what == emulation_only && o.detail == "status 200 vs 304"))
        .map(|o| format!("{}: {}", o.what, o.detail))
        .collect();
    assert!(
        outcomes
            .iter()
            .any(|o| o.what == emulation_only && !o.equal),
        "netlify dev now answers {emulation_only} with 304: update the README and this test"
    );
    eprintln!(
        "netlify dev vs preview: {equal} of {} requests equal in {:.1?} (the other one: {emulation_only}, the emulation's own); static files with a charset added by the emulation: {}",
        outcomes.len(),
        started.elapsed(),
        charset_added.len()
    );
    assert!(outcomes.len() >= 90, "{} requests", outcomes.len());
    assert!(
        report.is_empty(),
        "{} of {} differ:\n{}\n--- netlify dev log ---\n{}",
        report.len(),
        outcomes.len(),
        report.join("\n"),
        dev.log_text()
    );
    // The emulation's own differences exist, so the README's list stays honest.
    assert!(
        !charset_added.is_empty(),
        "netlify dev no longer adds a charset: update the README"
    );
}

/// Tool arguments a client may write in more than one way (numbers as floats, past 2^53, in
/// exponent form; values that are not strings or numbers; text outside ASCII): the edge
/// function reads them as the request wrote them, so its results must be the preview server's
/// for the same request.
fn argument_forms() -> Vec<common::mcp_client::Case> {
    [
        json!({"limit": 25.0}),
        json!({"limit": 2, "offset": 1.0}),
        json!({"limit": 1e16}),
        json!({"limit": 1.5e-7}),
        json!({"offset": 12_345_678_901_234_567_890_u64}),
        json!({"offset": -9_223_372_036_854_775_808_i64}),
        json!({"sort": true}),
        json!({"sort": [1, 2.5, {"b": 1, "a": null}, "x"]}),
        json!({"sort": {"z": "\u{1}\"\\/é", "a": 0.1}}),
        json!({"order": "asc", "sort": null, "limit": 3}),
        json!({"limit": 3, "order": "asc", "colour": "red"}),
    ]
    .into_iter()
    .map(|arguments| tool_case("list_models", arguments, ""))
    .chain([
        tool_case("get_model", json!({"model_id": "ünï/cödé:frée"}), ""),
        tool_case("get_model", json!({"model_id": 7}), ""),
        tool_case("get_model", json!({"model_id": null, "limit": 1}), ""),
        tool_case("get_contract", json!({"anything": [1, 2]}), ""),
    ])
    .collect()
}

/// `/mcp` under netlify dev: every vector of the shared file (those of the preview server's
/// loopback rule aside), the official conformance suite's server scenarios (every check
/// SUCCESS), then the official Python SDK over Streamable HTTP: the same session
/// as with `model-demand mcp` on stdio (protocol version, server, instructions, tools,
/// resources, every tool result and resource read), and each tool result the preview server's
/// answer to the same GET, byte for byte.
fn check_mcp(dev: &NetlifyDev, root: &Path, preview: SocketAddr, ids: &[String], scratch: &Path) {
    let base = format!("http://{}", dev.addr);
    common::mcp_http::check_vectors(&base, false, root);
    common::conformance::check_scenarios(
        &format!("{base}/mcp"),
        &["server-initialize", "ping", "tools-list"],
    );
    let cases = common::mcp_client::cases(ids);
    let forms = argument_forms();
    let stdio_mode = Mode::Stdio(vec![
        "mcp".to_string(),
        "--dir".to_string(),
        root.display().to_string(),
    ]);
    let edge_mode = Mode::Url(format!("{base}/mcp"));
    // The argument forms against the preview server's /mcp, through the same HTTP client: the
    // Python SDK writes a float on stdio with pydantic's serializer (`1.5e-7`) and over HTTP
    // with json.dumps (`1.5e-07`), and since issue 41 every server quotes a number as written.
    let preview_mode = Mode::Url(format!("http://{preview}/mcp"));
    for (what, calls, reference) in [
        ("the stdio tests' calls", &cases, &stdio_mode),
        ("argument forms", &forms, &preview_mode),
    ] {
        let edge = run_client(scratch, &edge_mode, calls);
        let stdio = run_client(scratch, reference, calls);
        for key in [
            "protocol_version",
            "server_name",
            "instructions",
            "tools",
            "resources",
            "results",
            "read",
        ] {
            if edge[key] != stdio[key] {
                panic!(
                    "{what}: {key} differs between the edge function and its reference (stdio, or the preview server for the argument forms):\n{}\n--- netlify dev log ---\n{}",
                    first_difference(&edge[key].to_string(), &stdio[key].to_string()),
                    dev.log_text()
                );
            }
        }
        if std::ptr::eq(calls, &cases) {
            assert_same_as_preview(&edge, calls, &format!("http://{preview}"));
        }
    }
}

/// Where two texts first differ, with some context on each side.
fn first_difference(edge: &str, stdio: &str) -> String {
    let at = edge
        .bytes()
        .zip(stdio.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(edge.len().min(stdio.len()));
    let around = |text: &str| {
        let start = text.floor_char_boundary(at.saturating_sub(200));
        let end = text.ceil_char_boundary((at + 200).min(text.len()));
        text[start..end].to_string()
    };
    format!(
        "at byte {at}:\n  edge  …{}…\n  stdio …{}…",
        around(edge),
        around(stdio)
    )
}
