//! The three MCP transports answer alike (issue 41): a few thousand generated messages (a fixed
//! seed; the eleven cases of the issue among them) sent to `model-demand mcp` on stdio and to the
//! preview server's `/mcp`, each over a site of both layouts (`full` and `edge`), and to the edge
//! function (`netlify/edge-functions/mcp.mjs` on the official TypeScript SDK) under node
//! (`tests/edge/mcp_alike.mjs`) over the same two sites. Every message gets the same answer on
//! all six (none, or the same JSON-RPC message; `/mcp` and the edge the same HTTP status), an
//! answer carries the request's id whenever the generator wrote a readable one, no answer passes
//! the 75,000-byte budget, and the stdio server's peak memory stays within the bound
//! `mcp_protocol.rs` holds it to.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Instant;

use common::oracle::send;
use model_demand::answers::catalogue::MAX_RESULT_BYTES;
use model_demand::site::edge::Layout;
use serde_json::{json, Value};

/// How many messages are generated besides the fixed cases: 2,400 where the heavy cases run
/// ([`common::full`], as in CI), else 600 of the same sequence (its first 600).
fn generated() -> usize {
    if common::full() {
        2_400
    } else {
        600
    }
}
/// The generator's seed.
const SEED: u64 = 0x4d43_5041_4c49_4b45;

/// A generated message: its text, and the id the answer must carry when there is one (`None`
/// when the generator wrote no readable id).
struct Message {
    text: String,
    id: Option<Value>,
}

/// xorshift64*: a fixed sequence from the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string")
}

/// A request's text: `params` is the params member's text (or `None` for no params).
fn request(id: &str, method: &str, params: Option<&str>) -> String {
    match params {
        Some(params) => {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":{method},"params":{params}}}"#)
        }
        None => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":{method}}}"#),
    }
}

fn call(id: &str, tool: &str, arguments: &str) -> String {
    request(
        id,
        &quoted("tools/call"),
        Some(&format!(
            r#"{{"name":{},"arguments":{arguments}}}"#,
            quoted(tool)
        )),
    )
}

/// The cases of issue 41, each as the issue reproduced it.
fn issue_cases() -> Vec<Message> {
    let quotes = quoted(&"\"".repeat(30_000));
    let deep = format!("{}{}", "[".repeat(20_000), "]".repeat(20_000));
    let n = |i: i64| Some(json!(i));
    vec![
        // 1. a refusal that would echo 30,000 quotes
        Message {
            text: call("1", "list_models", &format!(r#"{{"fields":[{quotes}]}}"#)),
            id: n(1),
        },
        // 2. a contract name without a definition
        Message {
            text: call("2", "get_contract", r#"{"fields":["nope"]}"#),
            id: n(2),
        },
        // 3. a path below facts that is not a fact
        Message {
            text: call("3", "list_models", r#"{"fields":["facts.foo"]}"#),
            id: n(3),
        },
        // 4. a null offset of a history
        Message {
            text: call(
                "4",
                "get_demand_history",
                r#"{"model_id":"acme/alpha-70b","offset":null}"#,
            ),
            id: n(4),
        },
        // 5. null arguments
        Message {
            text: call("5", "list_models", "null"),
            id: n(5),
        },
        // 6. _meta null, and a list
        Message {
            text: request(
                "6",
                r#""tools/call""#,
                Some(r#"{"name":"list_models","arguments":{"limit":1},"_meta":null}"#),
            ),
            id: n(6),
        },
        Message {
            text: request(
                "60",
                r#""tools/call""#,
                Some(r#"{"name":"list_models","arguments":{"limit":1},"_meta":[]}"#),
            ),
            id: n(60),
        },
        // 7. an integer with a fraction, and one that rounds to 100
        Message {
            text: call("7", "list_models", r#"{"limit":13.000000000000001}"#),
            id: n(7),
        },
        Message {
            text: call("70", "list_models", r#"{"limit":99.99999999999999}"#),
            id: n(70),
        },
        // 8. a lone surrogate, 1e400, nesting past 128 (and 20,000 deep)
        Message {
            text: call("8", "get_model", r#"{"model_id":"\ud800"}"#),
            id: n(8),
        },
        Message {
            text: call("80", "list_models", r#"{"limit":1e400}"#),
            id: n(80),
        },
        Message {
            text: call("81", "list_models", &format!(r#"{{"limit":{deep}}}"#)),
            id: n(81),
        },
        Message {
            text: call(
                "82",
                "list_models",
                &format!(
                    r#"{{"limit":{}{}}}"#,
                    "[".repeat(130),
                    "]".repeat(130)
                ),
            ),
            id: n(82),
        },
        // 9. duplicate keys in params
        Message {
            text: r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"list_models","name":"get_contract","arguments":{}}}"#.to_string(),
            id: n(9),
        },
        // 10. an invalid request whose id is readable
        Message {
            text: r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":[]}"#.to_string(),
            id: n(10),
        },
        // 11. a percent-encoded ID
        Message {
            text: call("11", "get_model", r#"{"model_id":"acme%2Falpha-70b"}"#),
            id: n(11),
        },
    ]
}

const IDS: [&str; 8] = [
    "acme/alpha-70b",
    "closed/epsilon-pro",
    "acme/alpha-70b:free",
    "acme/beta-8b",
    "newco/gamma-1",
    "oldco/delta-v2",
    "nobody/none",
    "",
];

/// A value for an argument, as JSON text.
fn argument(rng: &mut Rng) -> String {
    let numbers = [
        "1",
        "3",
        "10",
        "50",
        "100",
        "0",
        "101",
        "-1",
        "25.0",
        "2.5e1",
        "1e2",
        "1E1",
        "13.000000000000001",
        "99.99999999999999",
        "1.5",
        "-0",
        "1e-400",
        "123456789012345678901234567890",
        "18446744073709551616",
        "9007199254740993",
        "1e400",
        "-1e400",
    ];
    let others = [
        r#""10""#,
        r#""abc""#,
        r#""""#,
        "null",
        "true",
        "false",
        "[1]",
        r#"{"a":1}"#,
        r#""tokens_30d""#,
        r#""latest_rank""#,
        r#""asc""#,
        r#""desc""#,
        r#""\ud800""#,
        r#""\udc00x""#,
        r#""\ud83d\ude00""#,
        r#""a\u0000b""#,
    ];
    if rng.chance(55) {
        rng.pick(&numbers).to_string()
    } else {
        rng.pick(&others).to_string()
    }
}

fn fields(rng: &mut Rng) -> String {
    let lists = [
        r#"["*"]"#,
        r#"["model_id"]"#,
        r#"["model_id","tokens_30d","facts.total_parameters"]"#,
        r#"["facts.foo"]"#,
        r#"["tokens_30d.value"]"#,
        r#"["nope"]"#,
        r#"[]"#,
        r#""model_id""#,
        r#"[1]"#,
        r#"["model_id","model_id"]"#,
        r#"["*","model_id"]"#,
        r#"["facts","facts.total_parameters"]"#,
        r#"["supply.summary.route_id","latest_rank"]"#,
        r#"["freshness","tokens_30d"]"#,
        "null",
        r#"{"a":1}"#,
    ];
    if rng.chance(4) {
        let long = "x\"".repeat(rng.below(3_000) + 100);
        return format!("[{}]", quoted(&long));
    }
    rng.pick(&lists).to_string()
}

/// The arguments of one tool call, as JSON text.
fn arguments(rng: &mut Rng, tool: &str) -> String {
    let mut members: Vec<String> = Vec::new();
    match tool {
        "get_model" | "get_demand_history" | "get_providers" => {
            if !rng.chance(10) {
                let id = IDS[rng.below(IDS.len())];
                let id = if rng.chance(25) {
                    id.replace('/', "%2F").replace(':', "%3A")
                } else {
                    id.to_string()
                };
                let value = if rng.chance(8) {
                    argument(rng)
                } else {
                    quoted(&id)
                };
                members.push(format!(r#""model_id":{value}"#));
            }
            if rng.chance(15) {
                let name = rng.pick(&["offset", "limit", "fields", "sort"]);
                members.push(format!(r#"{}:{}"#, quoted(name), argument(rng)));
            }
        }
        _ => {
            for name in ["limit", "offset", "sort", "order"] {
                if rng.chance(35) {
                    members.push(format!(r#"{}:{}"#, quoted(name), argument(rng)));
                }
            }
            if rng.chance(50) {
                members.push(format!(r#""fields":{}"#, fields(rng)));
            }
            if rng.chance(5) {
                members.push(format!(r#""colour":{}"#, argument(rng)));
            }
        }
    }
    // A member given twice, sometimes.
    if !members.is_empty() && rng.chance(4) {
        let again = members[rng.below(members.len())].clone();
        members.push(again);
    }
    let at = rng.below(members.len() + 1).min(members.len());
    members.rotate_left(at);
    format!("{{{}}}", members.join(","))
}

/// One generated message.
fn generate(rng: &mut Rng, n: usize) -> Message {
    let tools = [
        "list_models",
        "list_models",
        "list_models",
        "get_model",
        "get_model",
        "get_demand_history",
        "get_providers",
        "get_contract",
        "no_such_tool",
    ];
    // The id: mostly a readable number or string, sometimes not.
    let (id_text, id) = match rng.below(26) {
        20 => (format!("-{n}"), Some(json!(-(n as i64)))),
        21 => ("\"é\\u00e9☃\"".to_string(), Some(json!("éé☃"))),
        22 => ("\"\\ud800\"".to_string(), None),
        23 => ("\"\\ufffd\"".to_string(), Some(json!("\u{fffd}"))),
        24 => (
            "9007199254740991".to_string(),
            Some(json!(9_007_199_254_740_991_i64)),
        ),
        25 => ("1e2".to_string(), None),
        0 => ("null".to_string(), None),
        1 => ("1.5".to_string(), None),
        2 => ("9007199254740992".to_string(), None),
        3 => (format!("\"s-{n}\""), Some(json!(format!("s-{n}")))),
        4 => ("[1]".to_string(), None),
        _ => (format!("{}", 1000 + n), Some(json!(1000 + n))),
    };
    let tool = rng.pick(&tools);
    let args = arguments(rng, tool);
    let case = rng.below(46);
    let text = match case {
        0 => request(&id_text, r#""ping""#, None),
        1 => request(&id_text, r#""tools/list""#, Some("{}")),
        2 => request(&id_text, r#""resources/list""#, None),
        3 => {
            let uri = rng.pick(&[
                "model-demand:///api/v1/about",
                "model-demand:///llms.txt",
                "model-demand:///nope",
            ]);
            request(
                &id_text,
                r#""resources/read""#,
                Some(&format!(r#"{{"uri":{}}}"#, quoted(uri))),
            )
        }
        4 => request(&id_text, r#""prompts/list""#, None),
        5 => request(&id_text, r#""no/such/method""#, Some("{}")),
        6 => request(&id_text, "42", None),
        7 => request(&id_text, r#""tools/call""#, Some("[]")),
        8 => request(&id_text, r#""tools/call""#, Some(r#""x""#)),
        9 => request(&id_text, r#""tools/call""#, Some(r#"{"arguments":{}}"#)),
        10 => request(&id_text, r#""tools/call""#, Some(r#"{"name":7}"#)),
        11 => request(
            &id_text,
            r#""tools/call""#,
            Some(&format!(
                r#"{{"name":{},"arguments":[1]}}"#,
                quoted(tool)
            )),
        ),
        12 => request(
            &id_text,
            r#""tools/call""#,
            Some(&format!(
                r#"{{"name":{},"_meta":{}}}"#,
                quoted(tool),
                rng.pick(&["null", "[]", "{}", "\"x\"", "{\"a\":1}"])
            )),
        ),
        13 => format!(r#"{{"jsonrpc":"1.0","id":{id_text},"method":"ping"}}"#),
        14 => format!(r#"{{"id":{id_text},"method":"ping"}}"#),
        15 => format!(r#"[{{"jsonrpc":"2.0","id":{id_text},"method":"ping"}}]"#),
        16 => {
            // Text that is not JSON: a message cut short.
            let whole = call(&id_text, tool, &args);
            let cut = rng.below(whole.len().max(2) - 1) + 1;
            let mut at = cut;
            while !whole.is_char_boundary(at) {
                at -= 1;
            }
            let cut = whole[..at.max(1)].to_string();
            if cut.trim().is_empty() {
                "x".to_string()
            } else {
                cut
            }
        }
        17 => r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        18 => format!(r#"{{"jsonrpc":"2.0","id":{id_text},"result":{{}}}}"#),
        19 => format!(
            r#"{{"jsonrpc":"2.0","id":{id_text},"id":{id_text},"method":"ping"}}"#
        ),
        20 => request(
            &id_text,
            r#""initialize""#,
            Some(rng.pick(&[
                r#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"alike","version":"1"}}"#,
                r#"{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"alike","version":"1"}}"#,
                r#"{"protocolVersion":7,"capabilities":{},"clientInfo":{"name":"alike","version":"1"}}"#,
                r#"{"protocolVersion":"2025-06-18","clientInfo":{"name":"alike","version":"1"}}"#,
                r#"{"protocolVersion":"2025-06-18","capabilities":{}}"#,
                r#"{"protocolVersion":"2025-06-18","capabilities":{"roots":5},"clientInfo":{"name":"alike","version":"1"}}"#,
                r#"{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"alike","version":"1","title":"T"}}"#,
            ])),
        ),
        21 => request(
            &id_text,
            r#""tools/call""#,
            Some(&format!(
                r#"{{"name":{},"arguments":{args},"arguments":{{}}}}"#,
                quoted(tool)
            )),
        ),
        22 => {
            // Nesting about the limit (the message itself is level 1, params 2, arguments 3).
            let depth = 120 + rng.below(16);
            call(
                &id_text,
                tool,
                &format!(r#"{{"limit":{}{}}}"#, "[".repeat(depth), "]".repeat(depth)),
            )
        }
        23 => request(
            &id_text,
            rng.pick(&[r#""tools/list""#, r#""resources/list""#]),
            Some(rng.pick(&[
                r#"{"cursor":null}"#,
                r#"{"cursor":5}"#,
                r#"{"cursor":"x"}"#,
                "null",
                r#"{"_meta":{"progressToken":1}}"#,
                r#"{"_meta":{"progressToken":[]}}"#,
                r#"{"__proto__":{"x":1}}"#,
            ])),
        ),
        24 => request(
            &id_text,
            r#""resources/read""#,
            Some(rng.pick(&[r#"{"uri":null}"#, r#"{"uri":5}"#, "{}", "null"])),
        ),
        25 => request(
            &id_text,
            r#""tools/call""#,
            Some(&format!(
                r#"{{"name":{},"arguments":{args},"_meta":{}}}"#,
                rng.pick(&["null", r#""list_models""#, r#""get_model""#]),
                rng.pick(&[
                    r#"{"progressToken":1}"#,
                    r#"{"progressToken":"t"}"#,
                    r#"{"progressToken":true}"#,
                    r#"{"progressToken":1.5}"#,
                    r#"{"x":[1,2]}"#,
                ])
            )),
        ),
        26 => request(&id_text, r#""ping""#, Some(rng.pick(&["null", "{}", r#"{"_meta":{}}"#]))),
        _ => call(&id_text, tool, &args),
    };
    // A batch, a message cut short (no JSON: nothing in it is read), a client's response (never
    // answered), an id given twice (which is not read) or a message without its id promises none.
    let promised = if case == 16
        || case == 18
        || case == 19
        || text.starts_with('[')
        || !text.contains(&format!(r#""id":{id_text}"#))
    {
        None
    } else {
        id
    };
    Message { text, id: promised }
}

/// All messages: the issue's cases, then the generated ones.
fn messages() -> Vec<Message> {
    let mut rng = Rng(SEED);
    let mut all = issue_cases();
    for n in 0..generated() {
        let mut message = generate(&mut rng, n);
        // Line transports take no raw newline, and stdio skips an empty line.
        if message.text.contains('\n') || message.text.trim().is_empty() {
            message.text = "x".to_string();
            message.id = None;
        }
        all.push(message);
    }
    all
}

/// The process's peak resident memory in KiB (Linux's `VmHWM`), when known.
fn peak_kib(child: &Child) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// What `model-demand mcp --dir site` answers to each message on stdio (none, or one), after
/// initialize; each message is followed by a ping whose answer marks the end of its answers.
/// Also the server's peak memory after initialize and at the end, in KiB.
fn stdio_answers(site: &Path, messages: &[Message]) -> (Vec<Vec<Value>>, Option<(u64, u64)>) {
    let mut child = common::mcp_http::spawn_stdio(site);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":"init","method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"alike","version":"1"}}}}}}"#).expect("write");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .expect("write");
    stdin.flush().expect("flush");
    let first = lines.next().expect("an answer").expect("a line");
    assert!(first.contains(r#""id":"init""#), "{first}");
    let before = peak_kib(&child);
    // One message at a time: a refusal of the line reader is written at once, ahead of rmcp's
    // answers to earlier lines, so only a message alone in flight has its answers before the
    // ping's.
    let mut answers = Vec::with_capacity(messages.len());
    for (i, message) in messages.iter().enumerate() {
        writeln!(stdin, "{}", message.text).expect("write");
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":"sync-{i}","method":"ping"}}"#
        )
        .expect("write");
        stdin.flush().expect("flush");
        let sync = json!(format!("sync-{i}"));
        let mut mine = Vec::new();
        loop {
            let line = lines
                .next()
                .unwrap_or_else(|| panic!("stdio ended before answering message {i}"))
                .expect("a line");
            let answer: Value = serde_json::from_str(&line).expect("an answer is JSON");
            if answer["id"] == sync {
                break;
            }
            mine.push(answer);
        }
        answers.push(mine);
    }
    let after = peak_kib(&child);
    drop(stdin);
    let status = child.wait().expect("the server ends");
    assert!(status.success(), "{status}");
    (answers, before.zip(after))
}

/// What the preview server's `/mcp` answers to each message: the status and the answer, if any.
fn http_answers(base: &str, messages: &[Message]) -> Vec<(u16, Option<Value>)> {
    messages
        .iter()
        .map(|m| {
            let reply = send(
                base,
                "POST",
                "/mcp",
                &[
                    ("Content-Type", "application/json"),
                    ("Accept", "application/json, text/event-stream"),
                    ("MCP-Protocol-Version", "2025-06-18"),
                ],
                Some(m.text.as_bytes()),
            );
            let answer = (!reply.body.is_empty())
                .then(|| serde_json::from_slice(&reply.body).expect("an answer is JSON"));
            (reply.status, answer)
        })
        .collect()
}

#[test]
fn every_message_is_answered_alike_on_stdio_mcp_and_the_edge() {
    let started = Instant::now();
    let dir = common::tempdir().expect("temp dir");
    let mut sites = Vec::new();
    for (name, layout) in [("full", Layout::Full), ("edge", Layout::Edge)] {
        let site = dir.path().join(name);
        common::build_small_as(&site, layout);
        sites.push((name, site));
    }
    let messages = messages();
    let project = dir.path().join("project");
    common::netlify::lay_out_edge_functions(&project);
    let file = json!({
        "about_file": model_demand::site::netlify::ABOUT_FILE,
        "sites": sites.iter().map(|(name, site)| (name.to_string(), json!(site))).collect::<serde_json::Map<_, _>>(),
        "messages": messages.iter().map(|m| m.text.clone()).collect::<Vec<_>>(),
    });
    std::fs::write(dir.path().join("alike.json"), file.to_string()).expect("write messages");
    let built = started.elapsed();

    // The edge function under node, in the background while the Rust servers answer.
    let node = common::tools::command("node")
        .arg(common::crate_path("tests/edge/mcp_alike.mjs"))
        .env("EDGE_FIXTURE", dir.path())
        .env("EDGE_PROJECT", &project)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");

    let mut transports: Vec<(String, Vec<Answered>)> = Vec::new();
    for (name, site) in &sites {
        let (answers, peaks) = stdio_answers(site, &messages);
        for (i, mine) in answers.iter().enumerate() {
            assert!(
                mine.len() <= 1,
                "stdio ({name}) answered message {i} {} times: {}: {}",
                mine.len(),
                messages[i].text.chars().take(300).collect::<String>(),
                mine.iter()
                    .map(|a| a.to_string().chars().take(300).collect::<String>())
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
        if let Some((before, after)) = peaks {
            assert!(
                after < before + 4 * 1024,
                "stdio ({name}): peak memory grew from {before} KiB to {after} KiB"
            );
        }
        transports.push((
            format!("stdio {name}"),
            answers.into_iter().map(|mut a| (None, a.pop())).collect(),
        ));
        let preview = common::serve_on_loopback(site);
        transports.push((
            format!("/mcp {name}"),
            http_answers(&preview, &messages)
                .into_iter()
                .map(|(status, answer)| (Some(status), answer))
                .collect(),
        ));
    }
    let rust_done = started.elapsed();

    let out = node.wait_with_output().expect("node ends");
    assert!(out.status.success(), "{}", common::output_text(&out));
    let edge: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("edge_answers.json")).expect("the edge's answers"),
    )
    .expect("JSON");
    for (name, _) in &sites {
        let answers = edge[name].as_array().expect("answers").iter().map(|a| {
            let status = a["status"].as_u64().and_then(|s| u16::try_from(s).ok());
            let body = a["body"].as_str().expect("a body");
            let answer = (!body.is_empty())
                .then(|| serde_json::from_str::<Value>(body).expect("an answer is JSON"));
            (status, answer)
        });
        transports.push((format!("edge {name}"), answers.collect()));
    }

    // Each of the issue's cases says what was wrong (or answers as the rule says).
    let stdio_full = &transports[0].1;
    let answer_of = |id: i64| -> &Value {
        let at = messages
            .iter()
            .position(|m| m.id == Some(json!(id)))
            .expect("the case");
        stdio_full[at].1.as_ref().expect("an answer")
    };
    let texts = |id: i64| -> Vec<String> {
        answer_of(id)["result"]["content"]
            .as_array()
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b["text"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let error = |id: i64| -> (i64, String) {
        let error = &answer_of(id)["error"];
        (
            error["code"].as_i64().unwrap_or_default(),
            error["message"].as_str().unwrap_or_default().to_string(),
        )
    };
    assert!(
        answer_of(1).to_string().len() < 2_000,
        "1: a bounded refusal"
    );
    assert!(
        texts(1)[0].starts_with("unknown field \""),
        "1: {:?}",
        texts(1)
    );
    assert!(
        texts(2)[0].starts_with("no field definition for \"nope\""),
        "2"
    );
    assert!(texts(3)[0].starts_with("unknown field \"facts.foo\""), "3");
    assert!(texts(4)[0].contains("model-demand.demand-history.v1"), "4");
    assert_eq!(answer_of(5)["result"]["isError"], false, "5");
    assert_eq!(answer_of(6)["result"]["isError"], false, "6");
    let (code, says) = error(60);
    assert!(code == -32602 && says.contains("_meta"), "60: {says}");
    for (id, written) in [(7, "13.000000000000001"), (70, "99.99999999999999")] {
        assert!(
            texts(id)[0].contains(&format!("got \\\"{written}\\\"")),
            "{id}: {:?}",
            texts(id)
        );
    }
    for (id, named) in [
        (8, "lone surrogate"),
        (80, "\"1e400\""),
        (81, "deeper than 128"),
        (82, "deeper than 128"),
        (9, "\"name\" is given twice"),
        (10, "params must be an object"),
    ] {
        let (code, says) = error(id);
        assert!(code == -32600 && says.contains(named), "{id}: {says}");
    }
    let hint = texts(11);
    assert!(
        hint.len() == 2 && hint[1].contains("take the ID as written (here \"acme/alpha-70b\")"),
        "11: {hint:?}"
    );

    let mut failures = Vec::new();
    let mut answered = 0;
    let mut largest = 0;
    for (i, message) in messages.iter().enumerate() {
        let (first_name, first) = &transports[0];
        let expected = &first[i].1;
        let shown = || message.text.chars().take(200).collect::<String>();
        for (name, answers) in &transports[1..] {
            if answers[i].1 != *expected {
                failures.push(format!(
                    "message {i} {}: {first_name} gave {}, {name} gave {}",
                    shown(),
                    short(expected),
                    short(&answers[i].1)
                ));
            }
        }
        let statuses: Vec<u16> = transports.iter().filter_map(|(_, a)| a[i].0).collect();
        if statuses.windows(2).any(|w| w[0] != w[1]) {
            failures.push(format!("message {i} {}: statuses {statuses:?}", shown()));
        }
        if expected.is_none() && message.id.is_some() {
            failures.push(format!("message {i} {}: no answer to a request", shown()));
        }
        if let Some(answer) = expected {
            answered += 1;
            let size = answer.to_string().len();
            largest = largest.max(size);
            if size > MAX_RESULT_BYTES {
                failures.push(format!("message {i} {}: {size} bytes", shown()));
            }
            if let Some(id) = &message.id {
                if answer["id"] != *id {
                    failures.push(format!(
                        "message {i} {}: answered with id {}",
                        shown(),
                        answer["id"]
                    ));
                }
            }
        }
    }
    eprintln!(
        "{} messages ({answered} answered), six transports alike; largest answer {largest} bytes; sites and edge layout {:.1} s, Rust servers done at {:.1} s, all at {:.1} s",
        messages.len(),
        built.as_secs_f64(),
        rust_done.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// What a transport did with a message: its HTTP status (none on stdio) and its answer, if any.
type Answered = (Option<u16>, Option<Value>);

/// An answer, cut for a message.
fn short(answer: &Option<Value>) -> String {
    match answer {
        None => "no answer".to_string(),
        Some(answer) => answer.to_string().chars().take(400).collect(),
    }
}
