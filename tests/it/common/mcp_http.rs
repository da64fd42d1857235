//! The MCP endpoint's HTTP vectors (`tests/fixtures/mcp_http_vectors.json`) run against a
//! server's `{base}/mcp`, and the stdio server's answers they are compared with: one runner for
//! the preview server and for the edge function under `netlify dev`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use super::oracle::{send, Reply};

/// The vectors file.
pub fn vectors() -> Vec<Value> {
    let text = std::fs::read_to_string(super::crate_path("tests/fixtures/mcp_http_vectors.json"))
        .expect("the vectors file");
    let file: Value = serde_json::from_str(&text).expect("vectors JSON");
    file["vectors"].as_array().expect("vectors").clone()
}

/// `model-demand mcp --dir site` started with piped stdin and stdout (stderr discarded).
pub fn spawn_stdio(site: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(["mcp", "--dir"])
        .arg(site)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the stdio server starts")
}

/// What `model-demand mcp --dir site` answers on stdio to `messages` after initialize, each
/// answer by its request's id.
pub fn stdio_answers(site: &Path, messages: &[Value]) -> Vec<Value> {
    let mut child = spawn_stdio(site);
    let mut stdin = child.stdin.take().expect("stdin");
    let initialize = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "vectors", "version": "1"}}});
    writeln!(stdin, "{initialize}").expect("write");
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .expect("write");
    for message in messages {
        writeln!(stdin, "{message}").expect("write");
    }
    drop(stdin);
    let out = child.wait_with_output().expect("the stdio server ends");
    let answers: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("stdio answers JSON"))
        .collect();
    messages
        .iter()
        .map(|m| {
            answers
                .iter()
                .find(|a| a["id"] == m["id"])
                .cloned()
                .unwrap_or_else(|| panic!("stdio gave no answer to {m}"))
        })
        .collect()
}

/// The body a vector sends.
fn body_of(request: &Value) -> Option<Vec<u8>> {
    if let Some(size) = request["body_size"].as_u64() {
        let frame = |pad: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"ping","params":{{"_meta":{{"pad":"{pad}"}}}}}}"#
            )
        };
        let fixed = frame("").len();
        let pad = "a".repeat(usize::try_from(size).expect("size") - fixed);
        return Some(frame(&pad).into_bytes());
    }
    request["body"].as_str().map(|b| b.as_bytes().to_vec())
}

/// Sends one vector's request to `{base}/mcp`.
pub fn send_vector(base: &str, request: &Value) -> Reply {
    let headers: Vec<(String, String)> = request["headers"]
        .as_object()
        .map(|h| {
            h.iter()
                .map(|(n, v)| (n.clone(), v.as_str().expect("header text").to_string()))
                .collect()
        })
        .unwrap_or_default();
    let headers: Vec<(&str, &str)> = headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let method = request["method"].as_str().expect("method");
    send(base, method, "/mcp", &headers, body_of(request).as_deref())
}

/// Runs every vector against `{base}/mcp` (those of scope `loopback` only when `loopback`),
/// comparing `same_as_stdio` answers with `model-demand mcp --dir site`'s; panics naming
/// every vector that fails.
pub fn check_vectors(base: &str, loopback: bool, site: &Path) {
    let vectors: Vec<Value> = vectors()
        .into_iter()
        .filter(|v| loopback || v["scope"] != "loopback")
        .collect();
    let stdio_messages: Vec<Value> = vectors
        .iter()
        .filter(|v| v["expect"]["same_as_stdio"] == true)
        .map(|v| {
            serde_json::from_str(v["request"]["body"].as_str().expect("a body")).expect("JSON")
        })
        .collect();
    let stdio = stdio_answers(site, &stdio_messages);
    let mut failures = Vec::new();
    for vector in &vectors {
        let reply = send_vector(base, &vector["request"]);
        let problems = check(&vector["expect"], &reply, &stdio_messages, &stdio);
        if !problems.is_empty() {
            failures.push(format!(
                "{}: {} (got {} {:?} {})",
                vector["name"],
                problems.join("; "),
                reply.status,
                reply.headers,
                String::from_utf8_lossy(&reply.body)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What is wrong with `reply` against `expect`.
fn check(expect: &Value, reply: &Reply, stdio_messages: &[Value], stdio: &[Value]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut want = |ok: bool, what: String| {
        if !ok {
            problems.push(what);
        }
    };
    want(
        expect["status"] == json!(reply.status),
        format!("status {}", expect["status"]),
    );
    want(
        reply.header("access-control-allow-origin") == Some("*"),
        "Access-Control-Allow-Origin: *".into(),
    );
    if let Some(media) = expect["content_type"].as_str() {
        let got = reply.header("content-type").unwrap_or("");
        want(
            got.split(';').next().unwrap_or("").trim() == media,
            format!("Content-Type {media}"),
        );
    }
    for (name, value) in expect["headers"].as_object().into_iter().flatten() {
        want(
            reply.header(name) == value.as_str(),
            format!("{name}: {value}"),
        );
    }
    for (name, items) in expect["header_lists"].as_object().into_iter().flatten() {
        let got: Vec<String> = reply
            .header(name)
            .unwrap_or("")
            .split(',')
            .map(|i| i.trim().to_ascii_lowercase())
            .collect();
        for item in items.as_array().into_iter().flatten() {
            let item = item.as_str().expect("item").to_ascii_lowercase();
            want(got.contains(&item), format!("{name} lists {item}"));
        }
    }
    if expect["body_empty"] == true {
        want(reply.body.is_empty(), "no body".into());
        return problems;
    }
    let Ok(body) = serde_json::from_slice::<Value>(&reply.body) else {
        problems.push("a JSON body".into());
        return problems;
    };
    want(body["jsonrpc"] == "2.0", "jsonrpc 2.0".into());
    if let Some(id) = expect.get("id") {
        want(body["id"] == *id, format!("id {id}"));
    }
    if let Some(code) = expect.get("jsonrpc_error") {
        want(body["error"]["code"] == *code, format!("error.code {code}"));
        want(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "an error message".into(),
        );
    }
    for (name, value) in expect["result"].as_object().into_iter().flatten() {
        want(
            body["result"][name] == *value,
            format!("result.{name} = {value}"),
        );
    }
    for name in expect["result_has"].as_array().into_iter().flatten() {
        let name = name.as_str().expect("name");
        want(!body["result"][name].is_null(), format!("result.{name}"));
    }
    if let Some(names) = expect.get("tool_names") {
        let got: Vec<Value> = body["result"]["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| t["name"].clone())
            .collect();
        want(json!(got) == *names, format!("tools {names}"));
    }
    if expect["same_as_stdio"] == true {
        let answer = stdio_messages
            .iter()
            .position(|m| m["id"] == body["id"])
            .map(|i| &stdio[i]);
        want(answer == Some(&body), "the answer stdio gives".into());
    }
    problems
}
