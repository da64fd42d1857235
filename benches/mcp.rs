//! Times the MCP servers of the release binary. Run with `cargo bench --bench mcp`.
//!
//! stdio (`model-demand mcp --dir`), on the small fixture's site (6 records a page) and the edge
//! fixture's (25 records a page, about 100 kB):
//! - from spawn to the first `list_models` answer (initialize, initialized and the call written
//!   at once, as a client does); target under 100 ms;
//! - answers per second of `list_models` (default page) over one session with the requests
//!   pipelined (a writer thread writes them all; the answers are read as they come);
//! - the server's resident memory after a client wrote 200, then 5,000 requests and read no
//!   answer: bounded by the requests in flight, so the two must be about equal.
//!
//! The preview server's `/mcp` (`model-demand serve`), on the sample site and both fixtures:
//! - from spawn to the first `/mcp` answer of a `list_models` call; target under 100 ms;
//! - the median latency and calls per second of a `list_models` call (default page) over
//!   keep-alive connections, next to a plain `GET /api/v1/models` on the same server in the same
//!   run (the ratio is printed; its target of 2x was withdrawn with the result store that met it,
//!   issue 33: no user feels a millisecond).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_model-demand");
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;
/// First-answer runs per site, and calls in the throughput session.
const STARTS: usize = 20;
const CALLS: usize = 5_000;
/// Requests written without reading, for the memory rows.
const UNREAD: [usize; 2] = [200, 5_000];
/// Keep-alive connections of the HTTP rows, and calls on each.
const CONNECTIONS: usize = 2;
const HTTP_CALLS: usize = 1_000;

fn call(id: usize) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"list_models\",\"arguments\":{{}}}}}}\n"
    )
}

/// Builds a site once under target/bench-mcp: a fixture's, or the bundled sample's.
fn site(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = root.join("target/bench-mcp").join(name);
    if !out.join("manifest.json").exists() {
        std::fs::create_dir_all(root.join("target/bench-mcp")).expect("target/bench-mcp");
        let mut build = Command::new(BIN);
        build.current_dir(root).arg("build");
        if name != "sample" {
            let input = root.join("tests/fixtures").join(name);
            build
                .arg("--export")
                .arg(input.join("export.json"))
                .arg("--supply")
                .arg(input.join("supply.json"));
        }
        let built = build
            .args(["--now", "2026-04-01T12:00:00Z", "--out"])
            .arg(&out)
            .output()
            .expect("the binary runs");
        assert!(
            built.status.success(),
            "build of {name} failed: {}",
            String::from_utf8_lossy(&built.stderr)
        );
    }
    out
}

fn spawn(site: &Path) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(BIN)
        .args(["mcp", "--dir"])
        .arg(site)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let stdout = BufReader::with_capacity(1 << 20, child.stdout.take().expect("stdout"));
    (child, stdout)
}

/// Reads answers until the one with `id`; returns its length in bytes.
fn read_until(stdout: &mut BufReader<ChildStdout>, id: usize) -> usize {
    let needle = format!("\"id\":{id},");
    let mut line = String::new();
    loop {
        line.clear();
        let n = stdout.read_line(&mut line).expect("read");
        assert!(n > 0, "the server ended early");
        if line.contains(&needle) {
            assert!(!line.contains("\"isError\":true"), "{line}");
            return n;
        }
    }
}

fn first_answer(site: &Path) -> Duration {
    let started = Instant::now();
    let (mut child, mut stdout) = spawn(site);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(format!("{INITIALIZE}{}", call(1)).as_bytes())
        .expect("write");
    read_until(&mut stdout, 1);
    let elapsed = started.elapsed();
    drop(stdin);
    let _ = child.wait();
    elapsed
}

fn throughput(site: &Path) -> (f64, usize) {
    let (mut child, mut stdout) = spawn(site);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(INITIALIZE.as_bytes()).expect("write");
    read_until(&mut stdout, 0);
    let started = Instant::now();
    let writer = std::thread::spawn(move || {
        for id in 1..=CALLS {
            stdin.write_all(call(id).as_bytes()).expect("write");
        }
        stdin
    });
    let mut answers = 0;
    let mut bytes = 0;
    let mut line = String::new();
    while answers < CALLS {
        line.clear();
        let n = stdout.read_line(&mut line).expect("read");
        assert!(n > 0, "the server ended early");
        if line.contains("\"result\"") {
            answers += 1;
            bytes = n;
        }
    }
    let rate = CALLS as f64 / started.elapsed().as_secs_f64();
    drop(writer.join().expect("writer"));
    let _ = child.wait();
    (rate, bytes)
}

/// A process's resident and peak resident memory in kB, from /proc.
fn rss_kb(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The server's memory after a client wrote `unread` requests and read none of the answers.
fn unread_memory(site: &Path, unread: usize) -> (u64, u64) {
    let (mut child, mut stdout) = spawn(site);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(INITIALIZE.as_bytes()).expect("write");
    read_until(&mut stdout, 0);
    // The writer blocks once the server stops reading; it ends when the server is killed.
    std::thread::spawn(move || {
        for id in 1..=unread {
            if stdin.write_all(call(id).as_bytes()).is_err() {
                return;
            }
        }
        std::thread::park();
    });
    std::thread::sleep(Duration::from_secs(2));
    let memory = rss_kb(child.id());
    let _ = child.kill();
    let _ = child.wait();
    memory
}

/// A free loopback port (bound, read, released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// `model-demand serve --dir site` on a free port, and its address.
fn serve(site: &Path) -> (Child, String) {
    let addr = format!("127.0.0.1:{}", free_port());
    let child = Command::new(BIN)
        .args(["serve", "--dir"])
        .arg(site)
        .args(["--bind", &addr])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    (child, addr)
}

/// The `/mcp` request of a `list_models` call on the default page.
fn mcp_request(addr: &str) -> Vec<u8> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_models","arguments":{}}}"#;
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn get_request(addr: &str) -> Vec<u8> {
    format!("GET /api/v1/models HTTP/1.1\r\nHost: {addr}\r\n\r\n").into_bytes()
}

/// Sends `request` on a keep-alive connection and reads one response; its status and length.
fn exchange(stream: &mut BufReader<TcpStream>, request: &[u8]) -> (u16, usize) {
    stream.get_mut().write_all(request).expect("send");
    let mut status = 0;
    let mut length = 0;
    let mut line = String::new();
    loop {
        line.clear();
        stream.read_line(&mut line).expect("read head");
        let lower = line.to_ascii_lowercase();
        if status == 0 {
            status = line
                .split(' ')
                .nth(1)
                .and_then(|s| s.parse().ok())
                .expect("status");
        } else if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().expect("length");
        } else if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body).expect("read body");
    (status, length)
}

/// Median latency and calls per second of `request` over keep-alive connections.
fn load(addr: &str, request: &[u8]) -> (Duration, f64, usize) {
    let started = Instant::now();
    let threads: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            let addr = addr.to_string();
            let request = request.to_vec();
            std::thread::spawn(move || {
                let stream = TcpStream::connect(&addr).expect("connects");
                stream.set_nodelay(true).expect("nodelay");
                let mut stream = BufReader::with_capacity(1 << 20, stream);
                let mut latencies = Vec::with_capacity(HTTP_CALLS);
                let mut length = 0;
                for _ in 0..HTTP_CALLS {
                    let sent = Instant::now();
                    let (status, n) = exchange(&mut stream, &request);
                    latencies.push(sent.elapsed());
                    assert_eq!(status, 200);
                    length = n;
                }
                (latencies, length)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    let mut length = 0;
    for thread in threads {
        let (mine, n) = thread.join().expect("client");
        latencies.extend(mine);
        length = n;
    }
    let rate = latencies.len() as f64 / started.elapsed().as_secs_f64();
    latencies.sort();
    (latencies[latencies.len() / 2], rate, length)
}

/// From spawning `serve` to the first `/mcp` answer of a `list_models` call.
fn first_http_answer(site: &Path) -> Duration {
    let started = Instant::now();
    let (mut child, addr) = serve(site);
    let answer = loop {
        if let Ok(stream) = TcpStream::connect(&addr) {
            let mut stream = BufReader::new(stream);
            let (status, _) = exchange(&mut stream, &mcp_request(&addr));
            break status;
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let elapsed = started.elapsed();
    assert_eq!(answer, 200);
    let _ = child.kill();
    let _ = child.wait();
    elapsed
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    for fixture in ["small", "edge"] {
        let site = site(fixture);
        let mut starts: Vec<Duration> = (0..STARTS).map(|_| first_answer(&site)).collect();
        starts.sort();
        let (rate, bytes) = throughput(&site);
        println!(
            "stdio {fixture}: first list_models answer after spawn: median {:.1} ms, max {:.1} ms ({STARTS} runs); \
             {rate:.0} answers/s over one pipelined session ({CALLS} calls, {bytes} bytes an answer)",
            ms(starts[STARTS / 2]),
            ms(starts[STARTS - 1]),
        );
        let memory: Vec<String> = UNREAD
            .iter()
            .map(|&n| {
                let (rss, peak) = unread_memory(&site, n);
                format!(
                    "{n} unread: RSS {:.1} MB (peak {:.1} MB)",
                    rss as f64 / 1e3,
                    peak as f64 / 1e3
                )
            })
            .collect();
        println!(
            "stdio {fixture}: server memory, answers never read: {}",
            memory.join("; ")
        );
    }
    for name in ["sample", "small", "edge"] {
        let site = site(name);
        let mut starts: Vec<Duration> = (0..STARTS).map(|_| first_http_answer(&site)).collect();
        starts.sort();
        let (mut child, addr) = serve(&site);
        // Warm: the server is up and each page is in its body cache.
        while TcpStream::connect(&addr).is_err() {
            std::thread::sleep(Duration::from_millis(1));
        }
        let _ = load(&addr, &get_request(&addr));
        let (get_median, get_rate, get_bytes) = load(&addr, &get_request(&addr));
        let (mcp_median, mcp_rate, mcp_bytes) = load(&addr, &mcp_request(&addr));
        let _ = child.kill();
        let _ = child.wait();
        println!(
            "serve {name}: first /mcp list_models answer after spawn: median {:.1} ms, max {:.1} ms ({STARTS} runs); \
             over {CONNECTIONS} keep-alive connections ({} calls each): GET /api/v1/models median {:.3} ms, {get_rate:.0}/s ({get_bytes} B); \
             /mcp list_models median {:.3} ms, {mcp_rate:.0}/s ({mcp_bytes} B); /mcp / GET latency {:.2}x",
            ms(starts[STARTS / 2]),
            ms(starts[STARTS - 1]),
            HTTP_CALLS,
            ms(get_median),
            ms(mcp_median),
            mcp_median.as_secs_f64() / get_median.as_secs_f64(),
        );
    }
}
