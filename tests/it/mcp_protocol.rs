//! `model-demand mcp` at the protocol's edges, and a second client: malformed lines get errors
//! (or, for text that is not JSON at all, are skipped as rmcp and the other official SDKs do)
//! and the server keeps answering; a line over the 64 KiB limit (1 MB, 10 MB) gets an Invalid
//! Request error with its ID, streamed away without growing the server, and the next request is
//! answered; a closed standard input ends it with exit 0; standard output carries nothing but
//! JSON-RPC messages. Then the MCP Inspector's CLI mode (npm, pinned) lists
//! the tools and calls one.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn spawn_server(site: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(["mcp", "--dir"])
        .arg(site)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts")
}

/// Waits for the process to exit by itself (it is killed, and the test fails, after 20 s).
fn exit_code(child: &mut Child) -> Option<i32> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server did not end after its standard input closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn malformed_lines_get_errors_and_a_closed_stdin_ends_the_server() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let mut child = spawn_server(&out);
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "this line is not JSON",
        r#"{"jsonrpc":"2.0","id":2,"method":42}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"no/such/method"}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_models","arguments":{"limit":2}}}"#,
    ];
    let mut stdin = child.stdin.take().expect("stdin");
    for line in lines {
        writeln!(stdin, "{line}").expect("write a line");
    }
    drop(stdin);
    let code = exit_code(&mut child);
    let output = child.wait_with_output().expect("output");
    assert_eq!(code, Some(0), "{}", common::output_text(&output));

    let messages: Vec<Value> = String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not protocol on stdout: {l}")))
        .collect();
    assert!(
        messages.iter().all(|m| m["jsonrpc"] == "2.0"),
        "{messages:?}"
    );
    let by_id = |id: u64| {
        messages
            .iter()
            .find(|m| m["id"] == json!(id))
            .unwrap_or_else(|| panic!("no answer to {id}: {messages:?}"))
    };
    assert!(by_id(1)["result"]["instructions"].is_string());
    // JSON that is no JSON-RPC message: an Invalid Request error, with or without its id.
    assert!(
        messages.iter().any(|m| m["error"]["code"] == -32600),
        "{messages:?}"
    );
    // A tools/call without a name is no CallToolRequest: rmcp answers it as an unknown method.
    assert!(
        by_id(3)["error"]["code"].is_i64(),
        "a tools/call without a name"
    );
    assert_eq!(by_id(4)["error"]["code"], -32601, "an unknown method");
    assert!(by_id(5)["error"]["code"].is_i64(), "an unknown tool");
    // And it kept answering.
    let page = &by_id(6)["result"];
    assert_eq!(page["isError"], false);
    let text: Value = page["content"][0]["text"]
        .as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .expect("the page as text");
    assert_eq!(text["pagination"]["limit"], 2);
    assert!(
        page.get("structuredContent").is_none(),
        "sent once, as text"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("model-demand mcp:"),
        "logs go to stderr: {stderr}"
    );
}

/// The process's peak resident memory in KiB (Linux's `VmHWM`), when known.
fn peak_kib(child: &Child) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Reads messages (20 s at most for each) until `done` holds for the ones read.
fn read_until(answers: &Receiver<Value>, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let mut seen = Vec::new();
    while !done(&seen) {
        let message = answers
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("the server stopped answering; read {seen:?}"));
        seen.push(message);
    }
    seen
}

/// A `tools/call` line of more than `size` bytes (its one argument is that long), with its ID
/// as the first member or as the last.
fn long_request(id: &Value, size: usize, id_first: bool) -> Vec<u8> {
    let filler = "x".repeat(size);
    let body = format!(
        r#""method":"tools/call","params":{{"name":"get_model","arguments":{{"id":"{filler}"}}}}"#
    );
    let line = if id_first {
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},{body}}}\n")
    } else {
        format!("{{\"jsonrpc\":\"2.0\",{body},\"id\":{id}}}\n")
    };
    line.into_bytes()
}

#[test]
fn a_line_over_the_limit_gets_an_error_with_its_id_and_the_server_goes_on() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let mut child = spawn_server(&out);
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (sender, answers) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("read stdout");
            let message = serde_json::from_str::<Value>(&line)
                .unwrap_or_else(|_| panic!("not protocol on stdout: {line}"));
            if sender.send(message).is_err() {
                break;
            }
        }
    });
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"raw","version":"1"}}}}}}"#).expect("write");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .expect("write");
    read_until(&answers, |seen| seen.iter().any(|m| m["id"] == 1));
    let peak_before = peak_kib(&child);

    // (the long line's ID, its size, whether the ID comes first, the ID its error carries)
    let cases = [
        (json!("one megabyte"), 1 << 20, true, json!("one megabyte")),
        (json!(10), 10 << 20, true, json!(10)),
        // After the long arguments the ID is past what the server reads: null.
        (json!(11), 1 << 20, false, Value::Null),
    ];
    for (n, (id, size, id_first, answered_id)) in cases.into_iter().enumerate() {
        let next = 100 + n as u64;
        stdin
            .write_all(&long_request(&id, size, id_first))
            .expect("write the long line");
        writeln!(stdin, r#"{{"jsonrpc":"2.0","id":{next},"method":"tools/call","params":{{"name":"list_models","arguments":{{"limit":1}}}}}}"#).expect("write");
        stdin.flush().expect("flush");
        let seen = read_until(&answers, |seen| {
            seen.iter().any(|m| m["id"] == next) && seen.iter().any(|m| m["error"].is_object())
        });
        let error = seen
            .iter()
            .find(|m| m["error"].is_object())
            .expect("an error");
        assert_eq!(error["id"], answered_id, "{error}");
        assert_eq!(error["error"]["code"], -32600, "{error}");
        let message = error["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("over 65536 bytes"), "{message}");
        let page = seen
            .iter()
            .find(|m| m["id"] == next)
            .expect("the next answer");
        assert_eq!(page["result"]["isError"], false, "{page}");
        assert_eq!(seen.len(), 2, "nothing else: {seen:?}");
    }
    // 12 MB were sent: the server held none of it beyond its 64 KiB line (a few MB of slack
    // for the allocator and the answers).
    if let (Some(before), Some(after)) = (peak_before, peak_kib(&child)) {
        assert!(
            after < before + 4 * 1024,
            "peak memory grew from {before} KiB to {after} KiB"
        );
    }
    drop(stdin);
    assert_eq!(exit_code(&mut child), Some(0));
    reader.join().expect("the reader thread");
}

#[test]
fn a_stdin_closed_before_initialize_ends_the_server_cleanly() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let mut child = spawn_server(&out);
    drop(child.stdin.take());
    assert_eq!(exit_code(&mut child), Some(0));
    let output = child.wait_with_output().expect("output");
    assert!(output.stdout.is_empty(), "nothing but protocol on stdout");
}

#[test]
fn an_unreachable_site_is_a_tool_error_not_a_crash() {
    // A port nothing listens on: bound, read, and released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(["mcp", "--base-url", &format!("http://127.0.0.1:{port}")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"raw","version":"1"}}}}}}"#).expect("write");
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"get_contract","arguments":{{}}}}}}"#).expect("write");
    drop(stdin);
    assert_eq!(exit_code(&mut child), Some(0));
    let output = child.wait_with_output().expect("output");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let answer: Value = stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .find(|m| m["id"] == 2)
        .expect("an answer to the call");
    assert_eq!(answer["result"]["isError"], true);
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(
        text.contains("cannot be reached") && text.contains(&port.to_string()),
        "{text}"
    );
}

#[test]
fn the_mcp_inspector_lists_the_tools_and_calls_one() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let bin = env!("CARGO_BIN_EXE_model-demand");
    let server = [
        bin.as_ref(),
        "mcp".as_ref(),
        "--dir".as_ref(),
        out.as_os_str(),
    ];
    common::mcp_client::inspector_lists_and_calls(dir.path(), &server, &out);
}
