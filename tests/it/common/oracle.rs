//! The independent oracle (`tests/oracle/oracle.py`, DESIGN §4 and §5 in Python) as the tests
//! call it, and a raw HTTP exchange to ask the preview server the same requests: the expected
//! side of a comparison never comes from the Rust code under test.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::Stdio;

use serde_json::Value;

/// The sorts and orders of spec 4.2, written from the spec rather than taken from `query.rs`.
pub const SORTS: [&str; 6] = [
    "tokens_30d",
    "latest_rank",
    "total_parameters",
    "active_parameters",
    "smallest_quant_checkpoint_bytes",
    "full_sequence_attention_bytes",
];
pub const ORDERS: [&str; 2] = ["asc", "desc"];

/// The inputs the oracle derives from: an export, an optional supply feed and `--now`.
#[derive(Debug, Clone)]
pub struct Inputs {
    pub export: PathBuf,
    pub supply: Option<PathBuf>,
    pub now: String,
}

impl Inputs {
    /// A fixture directory's `export.json` and `supply.json` (crate-relative).
    pub fn fixture(dir: &str, now: &str) -> Inputs {
        let dir = super::crate_path(dir);
        Inputs {
            export: dir.join("export.json"),
            supply: Some(dir.join("supply.json")),
            now: now.to_string(),
        }
    }

    /// The same inputs without the supply feed.
    pub fn without_supply(mut self) -> Inputs {
        self.supply = None;
        self
    }

    /// Runs the oracle with `args` and one request per line; returns one JSON value per line
    /// (`{"status", "error", "body" | "sha256", ...}`).
    pub fn run(&self, args: &[&str], requests: &[String]) -> Vec<Value> {
        let mut cmd = super::tools::command("python3");
        cmd.arg(super::crate_path("tests/oracle/oracle.py"))
            .arg("--export")
            .arg(&self.export)
            .arg("--now")
            .arg(&self.now)
            .args(args);
        if let Some(supply) = &self.supply {
            cmd.arg("--supply").arg(supply);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let mut stdin = child.stdin.take().expect("stdin");
        // Written from a thread: the oracle answers while it reads, and a large batch would
        // otherwise fill both pipes.
        let input = requests.join("\n").into_bytes();
        let writer = std::thread::spawn(move || stdin.write_all(&input).expect("write"));
        let out = child.wait_with_output().expect("oracle finishes");
        writer.join().expect("writer");
        assert!(
            out.status.success(),
            "oracle failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines: Vec<Value> = out
            .stdout
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("oracle JSON"))
            .collect();
        if !args.contains(&"--generate") {
            assert_eq!(lines.len(), requests.len(), "one answer per request");
        }
        lines
    }

    /// The oracle's 200 bodies for GET `queries` (each must be a 200).
    pub fn bodies(&self, queries: &[String]) -> Vec<Value> {
        self.run(&[], queries)
            .into_iter()
            .zip(queries)
            .map(|(mut answer, q)| {
                assert_eq!(answer["status"], 200, "the oracle refuses ?{q}");
                answer["body"].take()
            })
            .collect()
    }

    /// The served model IDs in the oracle's list order for `sort` and `order` (one page of
    /// 100, so at most 100 models).
    pub fn order(&self, sort: &str, order: &str) -> Vec<String> {
        let body = self
            .bodies(&[format!("sort={sort}&order={order}&limit=100")])
            .remove(0);
        assert!(body["pagination"]["has_next_page"] == false, "over 100");
        ids(&body)
    }
}

/// The model IDs of a list body, in order.
pub fn ids(body: &Value) -> Vec<String> {
    body["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|m| m["model_id"].as_str().expect("id").to_string())
        .collect()
}

/// One HTTP answer: status, headers (names lower-case) and body.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `METHOD target` to `base` (`http://host:port`) on a fresh connection, byte for byte
/// (no client normalizes the target), and reads the answer to the end.
pub fn exchange(base: &str, method: &str, target: &str) -> Reply {
    send(base, method, target, &[], None)
}

/// Sends `METHOD target` with `headers` and `body` (its Content-Length added; `Host` is the
/// base's authority unless `headers` give one) on a fresh connection, and reads the answer to
/// the end; a chunked body is decoded.
pub fn send(
    base: &str,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Reply {
    let addr = base.strip_prefix("http://").expect("http base");
    let addr = addr.split('/').next().unwrap_or(addr);
    let mut stream = TcpStream::connect(addr).expect("connects");
    let mut request = format!("{method} {target} HTTP/1.1\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    let body = body.unwrap_or_default();
    request.push_str(&format!(
        "Connection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    ));
    stream.write_all(request.as_bytes()).expect("sends");
    // A server may refuse before reading the whole body and close: what it answered counts.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

/// The data of a chunked body.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = raw.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&raw[..end]);
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        let data = &raw[end + 2..end + 2 + size];
        out.extend_from_slice(data);
        raw = &raw[end + 2 + size + 2..];
    }
    out
}
