//! `model-demand mcp` at the protocol's edges, and a second client: malformed lines get errors
//! (or, for text that is not JSON at all, are skipped as rmcp and the other official SDKs do)
//! and the server keeps answering; a closed standard input ends it with exit 0; standard output
//! carries nothing but JSON-RPC messages. Then the MCP Inspector's CLI mode (npm, pinned) lists
//! the tools and calls one.

use crate::common;

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
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
    let dir = tempfile::tempdir().expect("temp dir");
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
    assert_eq!(page["structuredContent"]["pagination"]["limit"], 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("model-demand mcp:"),
        "logs go to stderr: {stderr}"
    );
}

#[test]
fn a_stdin_closed_before_initialize_ends_the_server_cleanly() {
    let dir = tempfile::tempdir().expect("temp dir");
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
    let dir = tempfile::tempdir().expect("temp dir");
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
