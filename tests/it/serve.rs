//! The preview server: the router answers like `query` for every class of request, serves only
//! the site's own files, and the socket server survives hostile clients.

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use model_demand::answers::render::Api;
use model_demand::preview::{self, Body, Conditions, ServeOptions, Site};
use model_demand::query::{percent_encode, OFFSET_MAX};
use model_demand::site::{self, BuildOptions, SiteData};
use proptest::prelude::*;

/// The small site, built once, with its router and a running server.
struct Fixture {
    root: PathBuf,
    site: Site,
    api: Api,
    addr: SocketAddr,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let root = common::run_dir("serve").join("out");
        common::build_small(&root);
        let (_, catalog) = common::small();
        let options = ServeOptions {
            workers: 4,
            io_timeout: Duration::from_secs(2),
        };
        let running = preview::start(&root, "127.0.0.1:0".parse().expect("addr"), options)
            .expect("server starts");
        let addr = running.addr;
        std::thread::spawn(move || running.wait());
        Fixture {
            site: Site::open(&root).expect("site opens"),
            root,
            api: Api::new(&catalog),
            addr,
        }
    })
}

/// The requests the suite compares: every class of DESIGN §5.
fn generated_queries() -> Vec<String> {
    let mut queries = vec![
        String::new(),
        "&".to_string(),
        "sort=latest_rank&order=asc&limit=3".to_string(),
        "limit=2&offset=2".to_string(),
        "offset=6".to_string(),
        "offset=7".to_string(),
        "offset=1000".to_string(),
        format!("offset={OFFSET_MAX}&limit=100&sort=total_parameters&order=asc"),
        "limit=2&limit=2".to_string(),
        "li%6dit=2".to_string(),
        "so%72t=latest_rank&order=asc".to_string(),
        "foo=1".to_string(),
        "sort=bogus".to_string(),
        "order=up".to_string(),
        "limit=0".to_string(),
        "limit=101".to_string(),
        "limit=007".to_string(),
        "offset=-1".to_string(),
        format!("offset={}", OFFSET_MAX as u128 + 1),
        "sort=".to_string(),
        "sort".to_string(),
        "sort=latest_rank&".to_string(),
        "&&sort=latest_rank&&order=asc&&".to_string(),
        "model_id=acme%2Fomega".to_string(),
        "model_id=acme/alpha-70b&limit=1".to_string(),
        "model_id=%ZZ".to_string(),
        "model_id=%C0%AF".to_string(),
        "model_id=acme%2Falpha-70b%3Afree".to_string(),
        "model_id=acme/alpha-70b:free".to_string(),
        "model_id=".to_string(),
        "model_id=a+b".to_string(),
    ];
    let (_, catalog) = common::small();
    for record in &catalog.records {
        queries.push(format!("model_id={}", percent_encode(&record.model_id)));
        queries.push(format!("model_id={}", record.model_id));
    }
    for sort in [
        "tokens_30d",
        "latest_rank",
        "total_parameters",
        "active_parameters",
    ] {
        for order in ["asc", "desc"] {
            for (limit, offset) in [(1, 0), (4, 1), (100, 0), (25, 6)] {
                queries.push(format!(
                    "order={order}&offset={offset}&sort={sort}&limit={limit}"
                ));
            }
        }
    }
    queries
}

#[test]
fn router_answers_every_generated_request_like_query() {
    let f = fixture();
    for q in generated_queries() {
        let expected = f.api.answer(&q);
        for method in ["GET", "HEAD"] {
            let answer = f.site.resolve(method, &format!("/api/v1/models?{q}"), None);
            assert_eq!(answer.status, expected.status, "{method} ?{q}");
            let body = f.site.read_body(&answer.body).expect("readable body");
            assert_eq!(body, expected.body, "{method} ?{q}");
            assert_eq!(answer.length, body.len() as u64);
            assert_eq!(answer.header("Content-Type"), Some("application/json"));
        }
    }
}

#[test]
fn other_methods_are_405_with_allow() {
    let f = fixture();
    for method in [
        "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "get",
    ] {
        let answer = f.site.resolve(method, "/api/v1/models", None);
        assert_eq!(answer.status, 405, "{method}");
        assert!(answer.headers.contains(&("Allow", "GET, HEAD".to_string())));
        let body = f.site.read_body(&answer.body).expect("body");
        let json: serde_json::Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(json["error"], "method_not_allowed");
    }
}

#[test]
fn static_files_and_unknown_paths() {
    let f = fixture();
    for path in [
        "/api/v1/about",
        "/api/openapi.json",
        "/api/export",
        "/api/supply",
        "/manifest.json",
    ] {
        assert_eq!(f.site.resolve("GET", path, None).status, 200, "{path}");
    }
    for path in [
        "/_redirects",
        "/_headers",
        "/api/v1/nope",
        "/api/v1/models//",
        "/api/openapi.json/",
        "/API/v1/about",
        "/api/v1/about/../about",
        "/api/v1/%2e%2e/v1/about",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/..%5c..%5cetc/passwd",
        "/api/v1/about%00",
        "",
        "*",
    ] {
        let answer = f.site.resolve("GET", path, None);
        assert_eq!(answer.status, 404, "{path:?}");
        let body = f.site.read_body(&answer.body).expect("body");
        let json: serde_json::Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(json["error"], "not_found");
    }
    let absolute = f
        .site
        .resolve("GET", "http://example.test/api/v1/about", None);
    assert_eq!(absolute.status, 200);
}

#[test]
fn rule_paths_match_with_a_trailing_slash_and_extensionless_addresses_are_json_files() {
    let f = fixture();
    // Netlify normalizes a trailing slash before its rules (and the edge function) match.
    for (path, same_as) in [
        ("/api/v1/models/", "/api/v1/models"),
        (
            "/api/v1/models/?sort=latest_rank&limit=2",
            "/api/v1/models?sort=latest_rank&limit=2",
        ),
        ("/api/v1/models/?foo=1", "/api/v1/models?foo=1"),
        ("/api/v1/about/", "/api/v1/about"),
        ("/api/export/", "/api/export"),
        ("/api/supply/", "/api/supply"),
    ] {
        let (a, b) = (
            f.site.resolve("GET", path, None),
            f.site.resolve("GET", same_as, None),
        );
        assert_eq!((a.status, &a.body), (b.status, &b.body), "{path}");
    }
    let moved = f.site.resolve("GET", "/api/v1/", None);
    assert_eq!(moved.status, 301);
    // The extensionless addresses are served from their .json files, also reachable directly.
    for (path, file) in [
        ("/api/v1/about", "api/v1/about.json"),
        ("/api/export", "api/export.json"),
        ("/api/supply", "api/supply.json"),
    ] {
        let answer = f.site.resolve("GET", path, None);
        assert_eq!(answer.body, Body::File(file.to_string()), "{path}");
        assert_eq!(answer.header("Content-Type"), Some("application/json"));
        assert_eq!(
            f.site.resolve("GET", &format!("/{file}"), None).body,
            answer.body
        );
    }
}

/// Issue 50: the headers a public site sends, as the CDN's `_headers` gives them: every answer
/// forbids sniffing (files, made answers, errors, redirects, 405s, 304s); the page alone has a
/// policy that allows only its own style and its inline icon, and sends no referrer.
#[test]
fn every_answer_forbids_sniffing_and_the_page_has_its_policy() {
    let f = fixture();
    let etag = f
        .site
        .resolve("GET", "/api/v1/about", None)
        .header("ETag")
        .map(str::to_owned);
    let answers = [
        f.site.resolve("GET", "/api/v1/about", None),
        f.site.resolve("GET", "/api/v1/about", etag.as_deref()),
        f.site.resolve("GET", "/api/v1/models?limit=3", None),
        f.site.resolve("GET", "/api/v1/models?limit=0", None),
        f.site
            .resolve("GET", "/api/v1/models?model_id=nope/x", None),
        f.site.resolve("GET", "/api/tables/models.csv", None),
        f.site.resolve("GET", "/charts/share.svg", None),
        f.site.resolve("GET", "/llms.txt", None),
        f.site.resolve("GET", "/nope", None),
        f.site.resolve("GET", "/", None),
        f.site.resolve("POST", "/docs/", None),
        f.site.resolve("GET", "/api/tables/models.parquet", None),
        // A range of a file (206) and one past its end (416) are answers too.
        f.site.resolve_with(
            "GET",
            "/api/tables/models.csv",
            Conditions {
                range: Some("bytes=0-9"),
                ..Default::default()
            },
        ),
        f.site.resolve_with(
            "GET",
            "/api/tables/models.csv",
            Conditions {
                range: Some("bytes=999999999-"),
                ..Default::default()
            },
        ),
    ];
    assert_eq!(answers[answers.len() - 2].status, 206);
    assert_eq!(answers[answers.len() - 1].status, 416);
    for answer in &answers {
        assert_eq!(
            answer.header("X-Content-Type-Options"),
            Some("nosniff"),
            "{answer:?}"
        );
        assert_eq!(answer.header("Content-Security-Policy"), None);
    }
    assert_eq!(answers[1].status, 304);
    let page = f.site.resolve("GET", "/docs/", None);
    let policy = page.header("Content-Security-Policy").expect("a policy");
    assert!(policy.starts_with("default-src 'none'; style-src 'sha256-"));
    assert!(!policy.contains("script") && !policy.contains("unsafe"));
    assert_eq!(page.header("Referrer-Policy"), Some("no-referrer"));
    assert_eq!(page.header("X-Content-Type-Options"), Some("nosniff"));
    // And on the wire.
    let (status, text) = get("/docs/");
    assert_eq!(status, Some(200));
    assert!(text.contains(&format!("\r\nContent-Security-Policy: {policy}\r\n")));
    assert!(text.contains("\r\nX-Content-Type-Options: nosniff\r\n"));
}

#[test]
fn the_root_leads_to_the_docs_page() {
    let f = fixture();
    let answer = f.site.resolve("GET", "/", None);
    assert_eq!(answer.status, 302);
    assert_eq!(answer.header("Location"), Some("/docs/"));
    let (status, text) = get("/");
    assert_eq!(status, Some(302));
    assert!(text.contains("\r\nLocation: /docs/\r\n"), "{text}");
}

#[test]
fn etags_are_strong_and_answer_304() {
    let f = fixture();
    let first = f.site.resolve("GET", "/api/v1/models?limit=3", None);
    let etag = first.header("ETag").expect("ETag on 200").to_owned();
    assert!(etag.starts_with('"') && !etag.starts_with("W/"));
    let again = f.site.resolve("GET", "/api/v1/models?limit=3", Some(&etag));
    assert_eq!(again.status, 304);
    assert_eq!(f.site.read_body(&again.body).expect("body"), b"");
    let other = f.site.resolve("GET", "/api/v1/models?limit=4", Some(&etag));
    assert_eq!(other.status, 200);
}

#[test]
fn every_file_etag_is_the_sha256_of_the_bytes_served_the_manifest_included() {
    let f = fixture();
    for path in ["/manifest.json", "/api/v1/about", "/api/v1/models?limit=2"] {
        let answer = f.site.resolve("GET", path, None);
        let body = f.site.read_body(&answer.body).expect("body");
        let expected = format!("\"{}\"", model_demand::site::sha256_hex(&body));
        assert_eq!(answer.header("ETag"), Some(expected.as_str()), "{path}");
        // The manifest's digest is made when first asked for; asked again, the same.
        let again = f.site.resolve("GET", path, Some(&expected));
        assert_eq!(again.status, 304, "{path}");
    }
}

#[test]
fn a_site_without_data_answers_503_on_the_model_route_and_feeds() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    site::build(&SiteData::Unavailable, &BuildOptions::new(&out)).expect("builds");
    let site = Site::open(&out).expect("opens");
    for target in [
        "/api/v1/models",
        "/api/v1/models?sort=bogus&sort=x",
        "/api/v1/models?model_id=acme%2Falpha-70b",
        "/api/export",
        "/api/supply",
    ] {
        let answer = site.resolve("GET", target, None);
        assert_eq!(answer.status, 503, "{target}");
        let body = site.read_body(&answer.body).expect("body");
        assert_eq!(body, Api::Unavailable.answer("").body);
    }
    assert_eq!(site.resolve("GET", "/api/v1/about", None).status, 200);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Whatever the target, the router serves either bytes it made or a file of the manifest,
    /// and that file lies inside the site.
    #[test]
    fn the_router_never_leaves_the_site(
        prefix in prop::sample::select(vec!["/", "/api/", "/api/v1/", "/_api/", "/docs/", "http://h/", "/api/v1/models?"]),
        rest in "([a-z0-9._%/\\\\?&=+:-]|%2e|%2f|%5c|\\.\\./|%00|%c0%af){0,40}",
        range in prop::option::of("(bytes=|BYTES=|x)?[0-9]{0,22}-?[0-9]{0,22}(,[0-9]*-[0-9]*)?\\PC{0,3}"),
        if_range in prop::option::of("\\PC{0,8}"),
    ) {
        let f = fixture();
        let target = format!("{prefix}{rest}");
        for method in ["GET", "HEAD"] {
            let conditions = Conditions { if_none_match: None, range: range.as_deref(), if_range: if_range.as_deref() };
            let answer = f.site.resolve_with(method, &target, conditions);
            if let Body::File(key) | Body::Part { key, .. } = &answer.body {
                let path = f.root.join(key);
                let canonical = path.canonicalize().expect("served file exists");
                prop_assert!(canonical.starts_with(f.root.canonicalize().expect("root")));
                prop_assert!(!key.contains(".."));
            }
            for (name, value) in &answer.headers {
                // Header values come from static text or digests only.
                let allowed = match *name {
                    "ETag" => value.len() == 66 && value.trim_matches('"').bytes().all(|b| b.is_ascii_hexdigit()),
                    "Content-Type" => ["application/json", "text/html; charset=utf-8"].contains(&value.as_str()),
                    "Access-Control-Allow-Origin" => value == "*",
                    "Cache-Control" => value == "public, max-age=0, must-revalidate",
                    "X-Content-Type-Options" => value == "nosniff",
                    "Content-Security-Policy" => value == model_demand::site::netlify::PAGE_CSP,
                    "Referrer-Policy" => value == "no-referrer",
                    "Allow" => value == "GET, HEAD",
                    "Accept-Ranges" => value == "bytes",
                    // Numbers the server computed, never the request's text.
                    "Content-Range" => value.strip_prefix("bytes ").is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit() || b"-*/".contains(&b))),
                    "Location" => f.site.routes().redirects.iter().any(|r| &r.to == value),
                    _ => false,
                };
                prop_assert!(allowed, "{name}: {value}");
            }
            // Every answer forbids sniffing; only the page carries a policy.
            prop_assert_eq!(answer.header("X-Content-Type-Options"), Some("nosniff"));
            let html = answer.header("Content-Type") == Some("text/html; charset=utf-8");
            prop_assert_eq!(answer.header("Content-Security-Policy").is_some(), html);
        }
    }
}

/// Sends raw bytes to the fixture's server and reads the whole answer (the server closes or
/// the timeout passes).
fn raw_exchange(request: &[u8], read_for: Duration) -> Vec<u8> {
    raw_exchange_at(fixture().addr, request, read_for)
}

/// [`raw_exchange`] with the server at `addr`.
fn raw_exchange_at(addr: SocketAddr, request: &[u8], read_for: Duration) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).expect("connects");
    stream.set_read_timeout(Some(read_for)).expect("timeout");
    let _ = stream.write_all(request);
    let mut answer = Vec::new();
    let started = Instant::now();
    let mut chunk = [0u8; 8192];
    while started.elapsed() < read_for {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                answer.extend_from_slice(&chunk[..n]);
                if complete_response(&answer) {
                    break;
                }
            }
        }
    }
    answer
}

/// True once a full response with a Content-Length body has arrived.
fn complete_response(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    let length = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length: ")
                .map(str::to_string)
        })
        .and_then(|v| v.trim().parse::<usize>().ok());
    length.is_some_and(|n| body.len() >= n)
}

fn status_of(answer: &[u8]) -> Option<u16> {
    let text = String::from_utf8_lossy(answer);
    text.split_whitespace().nth(1).and_then(|s| s.parse().ok())
}

fn get(target: &str) -> (Option<u16>, String) {
    let request = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let answer = raw_exchange(request.as_bytes(), Duration::from_secs(5));
    (
        status_of(&answer),
        String::from_utf8_lossy(&answer).into_owned(),
    )
}

#[test]
fn hostile_requests_over_tcp_get_json_errors_and_the_server_lives_on() {
    let cases: Vec<(&str, u16)> = vec![
        ("/%2e%2e/%2e%2e/%2e%2e/etc/passwd", 404),
        ("/..%2f..%2f..%2fetc%2fpasswd", 404),
        ("/..\\..\\..\\windows\\win.ini", 404),
        ("/api/v1/about%00.json", 404),
        ("/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd", 404),
        ("/api/v1/models?model_id=%00", 404),
        ("/api/v1/models?model_id=%c0%af", 400),
        ("http://evil.test/api/v1/about", 200),
        ("/api/v1/models?limit=1%0d%0aSet-Cookie:%20x=1", 400),
    ];
    for (target, status) in cases {
        let (got, text) = get(target);
        assert_eq!(got, Some(status), "{target}: {text}");
        let head = text.split("\r\n\r\n").next().unwrap_or_default();
        assert!(
            !head.to_ascii_lowercase().contains("set-cookie"),
            "{target}"
        );
        assert!(!text.contains("root:"), "{target}");
    }
    // Raw CR/LF and NUL inside the request line, and an overlong head: the server may refuse
    // or drop the connection, but must not crash or echo them into headers.
    let nasty: Vec<Vec<u8>> = vec![
        b"GET /api/v1/models?x=\r\nSet-Cookie: a=b HTTP/1.1\r\n\r\n".to_vec(),
        b"GET /api/v1/about\0 HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        b"GET /\xc0\xaf HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        format!(
            "GET /api/v1/models?{} HTTP/1.1\r\nHost: x\r\n\r\n",
            "a".repeat(300_000)
        )
        .into_bytes(),
        format!(
            "GET /api/v1/about HTTP/1.1\r\nX-Big: {}\r\n\r\n",
            "b".repeat(400_000)
        )
        .into_bytes(),
        b"\r\n\r\n\r\n".to_vec(),
        b"GARBAGE\r\n\r\n".to_vec(),
    ];
    for request in nasty {
        let answer = raw_exchange(&request, Duration::from_secs(3));
        let text = String::from_utf8_lossy(&answer).to_ascii_lowercase();
        let head = text.split("\r\n\r\n").next().unwrap_or_default();
        assert!(!head.contains("set-cookie"), "{head}");
    }
    let (status, _) = get("/api/v1/about");
    assert_eq!(status, Some(200), "server still answers");
}

#[test]
fn a_huge_declared_body_does_not_stop_the_server() {
    // The body is declared but never sent: the unread rest is skipped when the connection ends
    // (tiny_http allocated all of it at once before vendor patch 5, and aborted).
    for target in ["/api/v1/about", "/mcp"] {
        let request = format!(
            "POST {target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 999999999999999\r\n\r\n{{}}"
        );
        let answer = raw_exchange(request.as_bytes(), Duration::from_secs(3));
        let status = status_of(&answer);
        assert!(matches!(status, Some(405 | 413)), "{target}: {status:?}");
    }
    let (status, _) = get("/api/v1/about");
    assert_eq!(status, Some(200), "server still answers");
}

#[test]
fn stalled_clients_do_not_block_others_and_are_dropped() {
    // A server of its own, with a timeout long enough to tell "answered while the others were
    // still stalled" from "answered after they were dropped" without timing the request.
    let f = fixture();
    let options = ServeOptions {
        workers: 2,
        io_timeout: Duration::from_secs(5),
    };
    let running =
        preview::start(&f.root, "127.0.0.1:0".parse().expect("addr"), options).expect("starts");
    let addr = running.addr;
    std::thread::spawn(move || running.wait());
    // More silent connections than worker threads.
    let stalled: Vec<TcpStream> = (0..16)
        .map(|_| {
            let mut s = TcpStream::connect(addr).expect("connects");
            let _ = s.write_all(b"GET /api/v1/ab");
            s
        })
        .collect();
    let mut client = TcpStream::connect(addr).expect("connects");
    client
        .set_read_timeout(Some(Duration::from_secs(4)))
        .expect("timeout");
    client
        .write_all(b"GET /api/v1/models?limit=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .expect("writes");
    let mut answer = Vec::new();
    let _ = client.read_to_end(&mut answer);
    assert_eq!(status_of(&answer), Some(200));
    // Every stalled connection is still open: the answer did not wait for them to be dropped.
    for s in &stalled {
        s.set_nonblocking(true).expect("nonblocking");
        let mut buf = [0u8; 1];
        let open = matches!(s.peek(&mut buf), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
        assert!(
            open,
            "a stalled connection was closed before the other client was answered"
        );
        s.set_nonblocking(false).expect("blocking");
    }
    // Then the server's read timeout drops them.
    for mut s in stalled {
        s.set_read_timeout(Some(Duration::from_secs(15)))
            .expect("timeout");
        let mut buf = [0u8; 64];
        let closed = match s.read(&mut buf) {
            Ok(_) => true,
            Err(e) => !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
        };
        assert!(closed, "stalled connection was not dropped");
    }
}

#[test]
fn head_gets_headers_without_a_body() {
    let f = fixture();
    let request = b"HEAD /api/v1/models?limit=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    let mut stream = TcpStream::connect(f.addr).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    stream.write_all(request).expect("writes");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text.split_once("\r\n\r\n").expect("a head");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("Content-Type: application/json"));
    assert!(head.contains("Access-Control-Allow-Origin: *"));
    assert!(head.contains("ETag: \""));
    assert!(body.is_empty(), "HEAD carried a body");
}

#[test]
fn an_idle_server_keeps_accepting_past_its_timeout() {
    // The listener's read timeout (2 s here) also bounds accept(); tiny_http gives up on the
    // first accept error, so the server must keep its accept loop alive while idle.
    let f = fixture();
    let stream = TcpStream::connect(f.addr).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .expect("timeout");
    drop(stream);
    std::thread::sleep(Duration::from_secs(5));
    let (status, _) = get("/api/v1/about");
    assert_eq!(status, Some(200));
}

#[test]
fn moved_addresses_answer_301_from_the_alias_table() {
    let f = fixture();
    for (from, to) in model_demand::site::netlify::ALIASES {
        let answer = f.site.resolve("GET", from, None);
        assert_eq!(answer.status, 301, "{from}");
        assert!(
            answer.headers.contains(&("Location", to.to_string())),
            "{from}"
        );
    }
    // The docs page is served from the site when no documentation host is set.
    let docs = f.site.resolve("GET", "/docs/", None);
    assert_eq!(docs.status, 200);
    assert!(docs
        .headers
        .contains(&("Content-Type", "text/html; charset=utf-8".to_string())));
    assert_eq!(f.site.resolve("GET", "/docs", None).status, 200);
}

#[test]
fn a_documentation_host_takes_over_the_docs_address() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    let (inputs, catalog) = common::small();
    let options = BuildOptions {
        docs_url: Some("https://docs.example.test/model-demand/".to_string()),
        ..BuildOptions::new(&out)
    };
    site::build(
        &SiteData::Data {
            inputs: &inputs,
            catalog: &catalog,
        },
        &options,
    )
    .expect("builds");
    let site = Site::open(&out).expect("opens");
    for path in ["/docs", "/docs/", "/docs/index.html"] {
        let answer = site.resolve("GET", path, None);
        assert_eq!(answer.status, 301, "{path}");
        assert!(answer.headers.contains(&(
            "Location",
            "https://docs.example.test/model-demand/".to_string()
        )));
    }
    let redirects = std::fs::read_to_string(out.join("_redirects")).expect("rules");
    assert!(redirects.contains("/docs/*  https://docs.example.test/model-demand/  301!"));
    let about: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("api/v1/about.json")).expect("about"))
            .expect("json");
    assert_eq!(
        about["links"]["documentation"],
        "https://docs.example.test/model-demand/"
    );
}

/// `GET target` on a connection of its own: status, ETag and body (the Date header left out,
/// since answers a second apart differ there).
fn status_etag_body(addr: SocketAddr, target: &str) -> (Option<u16>, Option<String>, Vec<u8>) {
    let request = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let answer = raw_exchange_at(addr, request.as_bytes(), Duration::from_secs(5));
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    let etag = head
        .lines()
        .find_map(|l| l.strip_prefix("ETag: "))
        .map(str::to_string);
    (status_of(&answer), etag, answer[split + 4..].to_vec())
}

#[test]
fn a_directory_without_a_site_is_answered_at_once_from_the_compact_layout_then_from_its_site() {
    use model_demand::site::manifest::Manifest;
    let (inputs, catalog) = common::small();
    let data = SiteData::Data {
        inputs: &inputs,
        catalog: &catalog,
    };
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    let targets = [
        "/docs/",
        "/api/v1/about",
        "/api/v1/models?limit=3&offset=2&sort=name&order=asc",
        "/api/v1/models?limit=100&offset=6",
        "/api/v1/models?model_id=acme%2Falpha-70b",
        "/api/v1/models?limit=0",
        "/manifest.json",
    ];
    let options = ServeOptions {
        workers: 2,
        io_timeout: Duration::from_secs(5),
    };
    let mut before = Vec::new();
    let mut interim = (PathBuf::new(), 0);
    let (running, report) = model_demand::preview::serve_while_building(
        &data,
        &out,
        "127.0.0.1:0".parse().expect("addr"),
        options,
        false,
        |running, compact| {
            assert!(!out.exists(), "answering before the site is written");
            let (manifest, _) = Manifest::read(compact).expect("a written compact site");
            interim = (compact.to_path_buf(), manifest.files.len());
            before = targets
                .iter()
                .map(|t| status_etag_body(running.addr, t))
                .collect();
        },
    )
    .expect("serves");
    assert!(
        interim.1 * 10 < report.files as usize,
        "the compact layout ({} files) is not the full site ({})",
        interim.1,
        report.files
    );
    assert!(!interim.0.exists(), "the compact copy is removed");
    // The site written is the one `build` writes of the same inputs, byte for byte; its
    // manifest records that `serve` wrote it (the site `serve` may write again).
    let reference = dir.path().join("reference");
    common::build_small(&reference);
    let (written, _) = Manifest::read(&out).expect("a manifest");
    let (built, _) = Manifest::read(&reference).expect("a manifest");
    assert_eq!(written.files, built.files);
    let mut record = written.built_from.expect("a record");
    assert_eq!(record.written_by, "serve");
    record.written_by = "build".to_string();
    assert_eq!(Some(record), built.built_from);
    let after: Vec<_> = targets
        .iter()
        .map(|t| status_etag_body(running.addr, t))
        .collect();
    for ((target, early), late) in targets.iter().zip(&before).zip(&after) {
        assert_eq!(early.0, late.0, "{target}: status");
        // The manifest lists the files of the layout answering, so it is the one answer that
        // differs; every other is the same bytes under the same validator.
        if *target != "/manifest.json" {
            assert!(early.2 == late.2, "{target}: body");
            assert_eq!(early.1, late.1, "{target}: ETag");
        }
    }
    assert_eq!(before[0].0, Some(200), "the docs page answers at once");
}

/// `GET target` with extra header lines on a connection of its own: status, head and body.
fn exchange(addr: SocketAddr, target: &str, headers: &str) -> (Option<u16>, String, Vec<u8>) {
    let request =
        format!("GET {target} HTTP/1.1\r\nHost: localhost\r\n{headers}Connection: close\r\n\r\n");
    let answer = raw_exchange_at(addr, request.as_bytes(), Duration::from_secs(5));
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    (status_of(&answer), head, answer[split + 4..].to_vec())
}

/// The value of header `name` in a response head.
fn header_in<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(": "))
}

/// A table's bytes and ETag as the preview serves it whole.
fn whole_file(target: &str) -> (Vec<u8>, String) {
    let (status, head, body) = exchange(fixture().addr, target, "");
    assert_eq!(status, Some(200), "{head}");
    assert_eq!(header_in(&head, "Accept-Ranges"), Some("bytes"), "{head}");
    let etag = header_in(&head, "ETag").expect("an ETag").to_string();
    (body, etag)
}

const TABLE: &str = "/api/tables/models.csv";

#[test]
fn one_satisfiable_range_is_a_206_of_those_bytes() {
    let addr = fixture().addr;
    let (whole, etag) = whole_file(TABLE);
    let len = whole.len();
    assert!(len > 100, "a table of some length");
    for (range, first, last) in [
        ("bytes=0-0", 0, 0),
        ("bytes=0-99", 0, 99),
        ("bytes=10-19", 10, 19),
        (&format!("bytes=50-{}", len * 10) as &str, 50, len - 1),
        ("bytes=60-", 60, len - 1),
        ("bytes=-7", len - 7, len - 1),
        (&format!("bytes=-{}", len + 5), 0, len - 1),
        (&format!("bytes={}-", len - 1), len - 1, len - 1),
    ] {
        let (status, head, body) = exchange(addr, TABLE, &format!("Range: {range}\r\n"));
        assert_eq!(status, Some(206), "{range}: {head}");
        assert_eq!(
            header_in(&head, "Content-Range"),
            Some(format!("bytes {first}-{last}/{len}").as_str()),
            "{range}"
        );
        assert_eq!(
            header_in(&head, "Content-Length"),
            Some((last - first + 1).to_string().as_str())
        );
        assert_eq!(header_in(&head, "ETag"), Some(etag.as_str()), "{range}");
        assert_eq!(
            header_in(&head, "Content-Type"),
            Some("text/csv; charset=utf-8")
        );
        assert_eq!(body, whole[first..=last], "{range}");
    }
    // Every file answers ranges, the JSON ones and the manifest included.
    for target in [
        "/api/v1/about",
        "/manifest.json",
        "/api/tables/datapackage.json",
    ] {
        let (_, _, whole) = exchange(addr, target, "");
        let (status, head, body) = exchange(addr, target, "Range: bytes=0-1\r\n");
        assert_eq!(status, Some(206), "{target}: {head}");
        assert_eq!(body, whole[..2], "{target}");
    }
}

#[test]
fn an_unsatisfiable_range_is_a_416_naming_the_length() {
    let addr = fixture().addr;
    let (whole, _) = whole_file(TABLE);
    let len = whole.len();
    for range in [
        format!("bytes={len}-"),
        format!("bytes={}-{}", len + 1, len + 9),
        "bytes=-0".to_string(),
        "bytes=99999999999999999999999999-".to_string(),
    ] {
        let (status, head, body) = exchange(addr, TABLE, &format!("Range: {range}\r\n"));
        assert_eq!(status, Some(416), "{range}: {head}");
        assert_eq!(
            header_in(&head, "Content-Range"),
            Some(format!("bytes */{len}").as_str()),
            "{range}"
        );
        assert_eq!(header_in(&head, "Content-Length"), Some("0"));
        assert!(body.is_empty());
    }
}

#[test]
fn malformed_reversed_and_multi_ranges_are_ignored_with_the_whole_file() {
    let addr = fixture().addr;
    let (whole, _) = whole_file(TABLE);
    for range in [
        "bytes=5-2",
        "bytes=0-1,4-5",
        "bytes=0-1, 4-5",
        "bytes=-",
        "bytes=a-b",
        "bytes=1-2-3",
        "bytes 0-1",
        "items=0-1",
        "bytes=0x0-1",
        "bytes=+0-1",
    ] {
        let (status, head, body) = exchange(addr, TABLE, &format!("Range: {range}\r\n"));
        assert_eq!(status, Some(200), "{range}: {head}");
        assert!(header_in(&head, "Content-Range").is_none(), "{range}");
        assert_eq!(body, whole, "{range}");
    }
    // Ranges are a GET's: HEAD is answered whole, a 304 stays a 304, answers made while
    // answering (errors, redirects) are untouched.
    let request = format!(
        "HEAD {TABLE} HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\nConnection: close\r\n\r\n"
    );
    let answer = raw_exchange(request.as_bytes(), Duration::from_secs(5));
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains(&format!("Content-Length: {}\r\n", whole.len())));
    let (_, etag) = whole_file(TABLE);
    let (status, _, _) = exchange(
        addr,
        TABLE,
        &format!("If-None-Match: {etag}\r\nRange: bytes=0-1\r\n"),
    );
    assert_eq!(status, Some(304));
    for target in ["/api/v1/models?limit=0", "/nope", "/"] {
        let plain = exchange(addr, target, "");
        let ranged = exchange(addr, target, "Range: bytes=0-1\r\n");
        assert_eq!(plain.0, ranged.0, "{target}");
        assert_eq!(plain.2, ranged.2, "{target}");
        assert!(header_in(&ranged.1, "Content-Range").is_none());
    }
}

#[test]
fn if_range_with_the_strong_etag_gives_the_range_and_anything_else_the_whole_file() {
    let addr = fixture().addr;
    let (whole, etag) = whole_file(TABLE);
    let (status, _, body) = exchange(
        addr,
        TABLE,
        &format!("Range: bytes=3-5\r\nIf-Range: {etag}\r\n"),
    );
    assert_eq!(status, Some(206));
    assert_eq!(body, whole[3..=5]);
    for validator in [
        "\"0000000000000000000000000000000000000000000000000000000000000000\"".to_string(),
        format!("W/{etag}"),
        "Sat, 28 Nov 2026 11:00:00 GMT".to_string(),
        "Thu, 01 Jan 2099 00:00:00 GMT".to_string(),
    ] {
        let (status, head, body) = exchange(
            addr,
            TABLE,
            &format!("Range: bytes=3-5\r\nIf-Range: {validator}\r\n"),
        );
        assert_eq!(status, Some(200), "{validator}: {head}");
        assert_eq!(body, whole, "{validator}");
    }
}

#[test]
fn no_byte_of_range_or_if_range_reaches_a_header() {
    let addr = fixture().addr;
    for headers in [
        "Range: bytes=0-1 MARKER\r\n",
        "Range: MARKER=0-1\r\n",
        "Range: bytes=0-1,MARKER\r\n",
        "Range: bytes=0-1\r\nIf-Range: \"MARKER\"\r\n",
        "Range: bytes=MARKER-\r\n",
    ] {
        let (status, head, _) = exchange(addr, TABLE, headers);
        assert!(matches!(status, Some(200 | 206 | 416)), "{headers}: {head}");
        assert!(!head.contains("MARKER"), "{headers}: {head}");
    }
}

#[test]
fn every_table_loads_over_http_from_the_running_preview_in_pandas_and_polars() {
    let python = common::pins::TABLES_PY.python();
    let script = common::crate_path("tests/tables/read_over_http.py");
    let tmp = common::tempdir().expect("temp dir");
    let edge = tmp.path().join("edge");
    let edge_inputs = common::load_fixture("tests/fixtures/edge");
    let now = model_demand::parse_now(crate::tables::EDGE_NOW).expect("now");
    let edge_catalog = edge_inputs.served_models(now);
    let sample = tmp.path().join("sample");
    let (sample_inputs, sample_catalog) = common::sample();
    use model_demand::site::edge::Layout;
    common::build_into(&edge_inputs, &edge_catalog, &edge, Layout::Edge);
    common::build_into(&sample_inputs, &sample_catalog, &sample, Layout::Edge);
    let small = &fixture().root;
    for (name, dir, url) in [
        ("small", small.clone(), format!("http://{}", fixture().addr)),
        ("edge", edge.clone(), common::serve_on_loopback(&edge)),
        ("sample", sample.clone(), common::serve_on_loopback(&sample)),
    ] {
        let out = std::process::Command::new(&python)
            .arg(&script)
            .arg(&url)
            .arg(dir.join("api/tables"))
            .output()
            .expect("python runs");
        let said = common::output_text(&out);
        eprintln!("{name}:\n{said}");
        assert!(out.status.success(), "{name}: {said}");
        for file in [
            "models.parquet",
            "daily.parquet",
            "days.parquet",
            "supply.parquet",
        ] {
            assert!(
                said.contains(&format!("{file}: polars over HTTP")),
                "{name} {file}: {said}"
            );
        }
        for file in ["models.csv", "daily.csv", "days.csv", "supply.csv"] {
            for reader in ["pandas", "polars"] {
                assert!(
                    said.contains(&format!("{file}: {reader} over HTTP")),
                    "{name} {file} {reader}: {said}"
                );
            }
        }
    }
}
