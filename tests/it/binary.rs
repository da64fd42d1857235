//! One binary that works anywhere (issue 43): the house's direction (the bottom of the crate
//! names nothing of the collector), the bundled inputs inside the binary, and the binary run
//! outside the repository.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};

use model_demand::commands::stale_preview;
use model_demand::input::bundled::Source;
use model_demand::site::edge::Layout;
use model_demand::site::manifest::Manifest;
use model_demand::site::{self, sha256_hex, BuildOptions, SiteData};
use model_demand::verify::{verify_with, VerifyOptions};
use model_demand::SAMPLE_EXPORT;

use crate::common::{self, crate_path};

/// The source of `src/REL` without its comments and its unit tests, as the imports see it.
fn code_of(rel: &str) -> String {
    let path = crate_path(&format!("src/{rel}"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let code = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or_default()
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>();
    code.join("\n")
}

#[test]
fn the_crate_error_names_no_module_above_it() {
    let code = code_of("base/error.rs");
    assert!(
        !code.contains("crate::") && !code.contains("super::"),
        "src/base/error.rs is the bottom of the crate and imports nothing of it"
    );
}

#[test]
fn the_run_report_s_unknown_sections_sit_below_the_report() {
    let code = code_of("collect/unknowns.rs");
    assert!(
        !code.contains("report::") && !code.contains("RunReport"),
        "src/collect/unknowns.rs fills sections the report lends it, and names no report"
    );
}

#[test]
fn the_preview_and_the_ownership_rules_do_not_read_the_collector() {
    for rel in [
        "site/ownership.rs",
        "preview/while_building.rs",
        "site/mod.rs",
        "site/manifest.rs",
        "preview/mod.rs",
    ] {
        let code = code_of(rel);
        assert!(
            !code.contains("crate::collect") && !code.contains("crate::{collect"),
            "src/{rel} names the collector"
        );
    }
}

#[test]
fn a_collector_error_keeps_its_message_as_the_crate_error() {
    let err: model_demand::base::error::Error =
        model_demand::collect::CollectError::ReportVersion {
            path: "r.json".into(),
        }
        .into();
    assert_eq!(
        err.to_string(),
        "r.json is not a model-demand.collect-report.v1 report"
    );
    assert!(
        std::error::Error::source(&err).is_none(),
        "no caused-by line"
    );
}

/// `model-demand ARGS` run in `cwd` with `TMPDIR` inside it, so that whatever it writes, its
/// temporary directories included, stays in `cwd`.
fn command_in(cwd: &Path, args: &[&str]) -> Command {
    let tmp = cwd.join("tmp");
    std::fs::create_dir_all(&tmp).expect("mkdir tmp");
    let mut command = Command::new(env!("CARGO_BIN_EXE_model-demand"));
    command.args(args).current_dir(cwd).env("TMPDIR", &tmp);
    command
}

/// The entries directly in `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("lists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn check_query_and_build_answer_outside_the_repository() {
    let cwd = common::tempdir().expect("temp dir");
    let out = command_in(cwd.path(), &["check"]).output().expect("runs");
    assert!(out.status.success(), "{}", common::output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("accepted: 56 model(s) served"),
        "{}",
        common::output_text(&out)
    );
    let out = command_in(cwd.path(), &["query", "limit=1"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", common::output_text(&out));
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON body");
    assert_eq!(body["pagination"]["limit"], 1, "{body}");
    let out = command_in(
        cwd.path(),
        &[
            "build",
            "--layout",
            "edge",
            "--out",
            "site",
            "--now",
            "2026-11-21T12:00:00Z",
        ],
    )
    .output()
    .expect("runs");
    assert!(out.status.success(), "{}", common::output_text(&out));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.starts_with("inputs: the bundled sample (embedded in the binary)\n"),
        "{said}"
    );
    let record = Manifest::built_from(&cwd.path().join("site")).expect("a record");
    assert_eq!(
        record.export_sha256.as_deref(),
        Some(sha256_hex(&std::fs::read(crate_path(SAMPLE_EXPORT)).expect("sample")).as_str())
    );
    assert_eq!(record.written_by, "build");
    // Nothing but the site (and the empty temporary directory it was given) was written.
    assert_eq!(entries(cwd.path()), ["site", "tmp"]);
    assert!(entries(&cwd.path().join("tmp")).is_empty());
}

#[test]
fn a_repository_file_in_the_current_directory_wins_over_the_embedded_one() {
    let cwd = common::tempdir().expect("temp dir");
    let sample = cwd.path().join("data/sample");
    std::fs::create_dir_all(&sample).expect("mkdir");
    let small = crate_path("tests/fixtures/small/export.json");
    std::fs::copy(&small, sample.join("export.json")).expect("copy");
    let out = command_in(cwd.path(), &["check", "--now", common::SMALL_NOW])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", common::output_text(&out));
    let expected = model_demand::commands::check(&model_demand::cli::InputArgs {
        export: Some(small),
        supply: None,
        no_supply: false,
        now: Some(common::SMALL_NOW.to_string()),
    })
    .expect("the small export with the embedded supply is accepted");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim_end(), expected);
}

/// The first answer of `model-demand serve` started in an empty directory, as a person who
/// installed the binary meets it; the server is stopped at once after it.
#[test]
fn serve_in_an_empty_directory_answers() {
    let cwd = common::tempdir().expect("temp dir");
    let mut child = command_in(cwd.path(), &["serve", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let first = lines.next().and_then(|l| l.ok()).unwrap_or_default();
    let serving = lines.next().and_then(|l| l.ok()).unwrap_or_default();
    let answer = serving
        .split("docs http://")
        .nth(1)
        .and_then(|rest| rest.split("/docs/").next())
        .map(|addr| get(addr, "/api/v1/models?limit=1"));
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        first,
        "out holds no site: writing the bundled sample (embedded in the binary) into it \
         (about 68,000 files, 5.7 GB), answered from its compact layout meanwhile"
    );
    let answer = answer.unwrap_or_else(|| panic!("no serving line: {serving}"));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"limit\":1"), "{answer}");
}

/// A GET of `target` from `addr` over a fresh connection; the whole answer, head and body.
fn get(addr: &str, target: &str) -> String {
    let mut stream = TcpStream::connect(addr).expect("connects");
    write!(
        stream,
        "GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .expect("sends");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("reads");
    answer
}

#[test]
fn serve_rebuilds_only_its_own_site_when_the_inputs_change() {
    let (inputs, catalog) = common::small();
    let data = SiteData::Data {
        inputs: &inputs,
        catalog: &catalog,
    };
    let dir = common::tempdir().expect("temp dir");
    let small = Source::File(crate_path("tests/fixtures/small/export.json"));
    let supply = Source::File(crate_path("tests/fixtures/small/supply.json"));
    let other = Source::File(crate_path("tests/fixtures/edge/export.json"));
    for (written_by, stale) in [("serve", Some("another export")), ("build", None)] {
        let out = dir.path().join(written_by);
        let options = BuildOptions {
            layout: Layout::Edge,
            written_by,
            ..BuildOptions::new(&out)
        };
        site::build(&data, &options).expect("builds");
        assert_eq!(
            stale_preview(&out, site::DEFAULT_BASE_URL, &small, &supply).expect("reads"),
            None
        );
        assert_eq!(
            stale_preview(&out, site::DEFAULT_BASE_URL, &other, &supply)
                .expect("reads")
                .as_deref(),
            stale,
            "{written_by}"
        );
    }
}

#[test]
fn verify_says_when_a_site_was_not_built_from_the_inputs_given() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small_as(&out, Layout::Edge);
    let small = crate_path("tests/fixtures/small/export.json");
    let options = VerifyOptions {
        export: Some(small.clone()),
        supply: Some(crate_path("tests/fixtures/small/supply.json")),
        progress: false,
    };
    verify_with(&out, &options).expect("built from these inputs");
    let other = crate_path("tests/fixtures/edge/export.json");
    let options = VerifyOptions {
        export: Some(other.clone()),
        ..options
    };
    match verify_with(&out, &options) {
        Err(model_demand::base::error::Error::Verify(differences)) => {
            assert_eq!(differences.len(), 1, "{differences:?}");
            let expected = format!("inputs: the site was not built from {}", other.display());
            assert!(differences[0].starts_with(&expected), "{differences:?}");
        }
        other => panic!("not refused as built from other inputs: {other:?}"),
    }
}

#[test]
fn a_port_in_use_names_bind() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let addr = taken.local_addr().expect("its address");
    let dir = common::tempdir().expect("temp dir");
    common::build_small_as(&dir.path().join("out"), Layout::Edge);
    let started = model_demand::preview::start(
        &dir.path().join("out"),
        addr,
        model_demand::preview::ServeOptions::default(),
    );
    let Err(err) = started else {
        panic!("served on {addr}, which is taken");
    };
    let next = std::net::SocketAddr::new(addr.ip(), addr.port() + 1);
    assert_eq!(
        err.to_string(),
        format!(
            "cannot listen on {addr}: the address is in use (another program, or another \
             `model-demand serve`, listens there); choose another with --bind, e.g. --bind {next}"
        )
    );
}

#[test]
fn facts_says_a_host_name_that_does_not_resolve_is_one() {
    let cwd = common::tempdir().expect("temp dir");
    // `.invalid` never resolves (RFC 6761), on or off a network.
    let out = command_in(
        cwd.path(),
        &[
            "facts",
            "acme/model",
            "--huggingface-url",
            "https://no-such-host.invalid",
        ],
    )
    .output()
    .expect("runs");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("the host name no-such-host.invalid does not resolve")
            && said.contains("check the network connection (and --huggingface-url)"),
        "{said}"
    );
    assert!(!said.contains("try again later"), "{said}");
}

#[test]
fn the_preview_names_the_local_mcp_in_its_docs_and_llms_txt() {
    let (inputs, catalog) = common::small();
    let data = SiteData::Data {
        inputs: &inputs,
        catalog: &catalog,
    };
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    let bind: std::net::SocketAddr = "127.0.0.1:8080".parse().expect("addr");
    let base = model_demand::preview::local_base_url(bind);
    assert_eq!(base, "http://localhost:8080");
    let options = model_demand::preview::ServeOptions::default();
    // Served on a free port; the site is built for the address asked (8080).
    let (running, _) = model_demand::preview::serve_while_building_for(
        &data,
        &out,
        &base,
        "127.0.0.1:0".parse().expect("addr"),
        options,
        false,
        |_, _| {},
    )
    .expect("serves");
    let addr = running.addr.to_string();
    let llms = get(&addr, "/llms.txt");
    assert!(llms.contains("http://localhost:8080/mcp"), "{llms}");
    assert!(!llms.contains("model-demand.netlify.app/mcp"), "{llms}");
    let docs = get(&addr, "/docs/");
    assert!(docs.contains("http://localhost:8080/mcp"), "{docs}");
    let record = Manifest::built_from(&out).expect("a record");
    assert_eq!(record.base_url, "http://localhost:8080");
}

/// The archive `scripts/release/package.sh` packs (of this test build's binary), unpacked in an
/// empty directory and run from another: the layout a release ships, away from the repository.
#[test]
fn the_archive_s_binary_answers_outside_the_repository() {
    let dir = common::tempdir().expect("temp dir");
    let bin = Path::new(env!("CARGO_BIN_EXE_model-demand"));
    let out = Command::new("bash")
        .arg(crate_path("scripts/release/package.sh"))
        .args(["v0.0.0-test", "x86_64-unknown-linux-gnu"])
        .arg(bin.parent().expect("the binary's directory"))
        .arg(dir.path().join("dist"))
        .output()
        .expect("package.sh runs");
    assert!(out.status.success(), "{}", common::output_text(&out));
    let archive = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let name = "model-demand-v0.0.0-test-x86_64-unknown-linux-gnu";
    assert!(
        archive.ends_with(&format!("dist/{name}.tar.gz")),
        "{archive}"
    );
    let sum = std::fs::read_to_string(format!("{archive}.sha256")).expect("a checksum");
    let archive_bytes = std::fs::read(&archive).expect("the archive");
    assert_eq!(
        sum,
        format!("{}  {name}.tar.gz\n", sha256_hex(&archive_bytes))
    );
    let unpacked = dir.path().join("unpacked");
    std::fs::create_dir(&unpacked).expect("mkdir");
    let status = Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .current_dir(&unpacked)
        .status()
        .expect("tar runs");
    assert!(status.success());
    assert_eq!(entries(&unpacked.join(name)), ["README.md", "model-demand"]);
    let cwd = dir.path().join("elsewhere");
    std::fs::create_dir(&cwd).expect("mkdir");
    let out = Command::new(unpacked.join(name).join("model-demand"))
        .args(["query", "--include", "limit=1"])
        .current_dir(&cwd)
        .env("TMPDIR", &cwd)
        .output()
        .expect("the unpacked binary runs");
    assert!(out.status.success(), "{}", common::output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("HTTP/1.1 200\n"),
        "{}",
        common::output_text(&out)
    );
    assert!(entries(&cwd).is_empty(), "query writes nothing");
}

/// `model-demand serve --dir out` in `cwd` until it says it serves `out` itself (its last
/// line before it waits); returns what it said, and stops it.
fn serve_until_it_serves_out(cwd: &Path) -> Vec<String> {
    let mut child = command_in(cwd, &["serve", "--bind", "127.0.0.1:0", "--dir", "out"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let stderr = child.stderr.take().expect("stderr");
    let mut said = Vec::new();
    for line in BufReader::new(stderr).lines() {
        let Ok(line) = line else { break };
        let done = line.starts_with("serving out ");
        said.push(line);
        if done {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    said
}

#[test]
fn serve_notices_an_edited_sample_and_rebuilds_its_site_once() {
    let cwd = common::tempdir().expect("temp dir");
    let sample = cwd.path().join("data/sample");
    std::fs::create_dir_all(&sample).expect("mkdir");
    let export = sample.join("export.json");
    std::fs::copy(crate_path("tests/fixtures/small/export.json"), &export).expect("copy");
    std::fs::copy(
        crate_path("tests/fixtures/small/supply.json"),
        sample.join("supply.json"),
    )
    .expect("copy");
    let from = "export data/sample/export.json, supply data/sample/supply.json";
    let first = serve_until_it_serves_out(cwd.path());
    assert!(
        first[0].starts_with(&format!("out holds no site: writing {from} into it")),
        "{first:?}"
    );
    assert!(
        first.last().is_some_and(|l| l.starts_with("serving out ")),
        "{first:?}"
    );
    // Unchanged inputs: the site is served as it is.
    let again = serve_until_it_serves_out(cwd.path());
    assert_eq!(again.len(), 1, "{again:?}");
    // An edited export (one more newline: other bytes, still accepted): rebuilt, said once.
    let mut bytes = std::fs::read(&export).expect("read");
    bytes.push(b'\n');
    std::fs::write(&export, &bytes).expect("write");
    let edited = serve_until_it_serves_out(cwd.path());
    assert_eq!(
        edited[0],
        format!(
            "out was built from another export: rebuilding it from {from}, answered from its \
             compact layout meanwhile"
        ),
        "{edited:?}"
    );
    let record = Manifest::built_from(&cwd.path().join("out")).expect("a record");
    assert_eq!(record.export_sha256, Some(sha256_hex(&bytes)));
    assert_eq!(record.written_by, "serve");
    // A file of the user's in it: never replaced, said, and served as it is.
    std::fs::write(cwd.path().join("out/notes.txt"), b"mine").expect("write");
    bytes.push(b'\n');
    std::fs::write(&export, &bytes).expect("write");
    let refused = serve_until_it_serves_out(cwd.path());
    assert!(
        refused[0].starts_with(
            "out was built from another export, but is not rebuilt (refusing to replace out:"
        ) && refused[0].ends_with("; serving it as it is"),
        "{refused:?}"
    );
    assert_eq!(
        std::fs::read(cwd.path().join("out/notes.txt")).expect("kept"),
        b"mine"
    );
}

/// Issue 50: `model-demand mcp` in an empty directory answers from the sample inside the
/// binary, as `serve` does, and says so on standard error; its standard output is only the
/// protocol, and it leaves nothing behind (its temporary site removed when stdin closes). A
/// directory holding other files is still refused.
#[test]
fn mcp_in_an_empty_directory_answers_from_the_sample() {
    use std::io::Write;
    let cwd = common::tempdir().expect("temp dir");
    let mut child = command_in(cwd.path(), &["mcp"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("starts");
    let mut stdin = child.stdin.take().expect("stdin");
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_models","arguments":{"limit":1,"fields":["model_id"]}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_providers","arguments":{"model_id":"google/gemini-3.1-flash-lite-preview-20260303"}}}"#,
    ] {
        writeln!(stdin, "{line}").expect("write");
    }
    drop(stdin);
    let out = child.wait_with_output().expect("ends");
    assert!(out.status.success(), "{}", common::output_text(&out));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(
            "out holds no site: answering from the bundled sample (embedded in the binary)"
        ),
        "{said}"
    );
    let answers: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("only protocol messages on stdout"))
        .collect();
    let by_id = |id: u64| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("no answer {id}: {answers:?}"))
    };
    assert!(by_id(1)["result"]["instructions"]
        .as_str()
        .expect("instructions")
        .starts_with(model_demand::input::sample::NOTICE));
    let page: serde_json::Value = serde_json::from_str(
        by_id(2)["result"]["content"][0]["text"]
            .as_str()
            .expect("text"),
    )
    .expect("JSON");
    assert_eq!(page["pagination"]["total_matching_models"], 56, "{page}");
    let providers = &by_id(3)["result"];
    assert_eq!(providers["isError"], false, "{providers}");
    // Nothing written in the directory it was started in, its temporary site removed.
    assert_eq!(entries(cwd.path()), ["tmp"]);
    assert!(entries(&cwd.path().join("tmp")).is_empty());

    // A directory of other files is not a site, and is not answered from the sample.
    std::fs::create_dir_all(cwd.path().join("other")).expect("mkdir");
    std::fs::write(cwd.path().join("other/notes.txt"), "mine").expect("write");
    let out = command_in(cwd.path(), &["mcp", "--dir", "other"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert!(!out.status.success(), "{}", common::output_text(&out));
}

/// The entries of `dir` whose names start with `prefix`.
fn named(dir: &Path, prefix: &str) -> Vec<String> {
    entries(dir)
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .collect()
}

/// Starts `serve` of the bundled sample in `cwd`, waits until it answers from its compact copy
/// and its full build's staging tree is being written, then stops it with `signal` (`INT`, as
/// Ctrl-C sends it, or `KILL`); returns what it said.
fn serve_stopped_while_building(cwd: &Path, signal: &str) -> Vec<String> {
    let mut child = command_in(cwd, &["serve", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut said = Vec::new();
    for line in lines.by_ref() {
        let Ok(line) = line else { break };
        let serving = line.starts_with("serving ");
        said.push(line);
        if serving {
            break;
        }
    }
    let started = std::time::Instant::now();
    let marked = |n: &String| cwd.join(n).join(".model-demand-partial").is_file();
    while !named(cwd, ".out.staging-").iter().any(marked)
        && started.elapsed() < std::time::Duration::from_secs(30)
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let stopped = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(stopped.success());
    // A stopped serve ends at once; one that lives on fails the test, never hangs it.
    let waited = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if waited.elapsed() > std::time::Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("serve lived on 30 s after SIG{signal}: {said:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    said
}

/// The signal that plays Ctrl-C: SIGINT, unless this process ignores it (a background job of a
/// non-interactive shell does, and every child inherits that, so a SIGINT would not reach the
/// program at all); then SIGTERM, which ends it the same way: it installs a handler for
/// neither, and what a stopped run leaves is removed by the next start, not by the one stopped.
fn ctrl_c() -> &'static str {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let ignored = status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (2 - 1)) != 0);
    if ignored {
        eprintln!(
            "SIGINT is ignored by this test process (a background job?): Ctrl-C played by SIGTERM"
        );
        "TERM"
    } else {
        "INT"
    }
}

#[test]
fn a_serve_stopped_during_its_first_build_leaves_only_what_the_next_start_removes() {
    let cwd = common::tempdir().expect("temp dir");
    let tmp = cwd.path().join("tmp");
    // What the program did not write is never removed, whatever its name.
    let users = cwd.path().join(".out.staging-1-0");
    std::fs::create_dir_all(&users).expect("mkdir");
    std::fs::write(users.join("notes.txt"), b"mine").expect("write");
    std::fs::create_dir_all(tmp.join("model-demand-preview-1-0")).expect("mkdir");
    let forged = tmp.join("model-demand-preview-1-1");
    std::fs::create_dir_all(&forged).expect("mkdir");
    std::fs::write(forged.join(".model-demand-partial"), b"not the mark").expect("write");
    let mut seen: Vec<(&str, String, String)> = Vec::new();
    for signal in [ctrl_c(), "KILL"] {
        let said = serve_stopped_while_building(cwd.path(), signal);
        assert!(
            said.iter().any(|l| l.starts_with("serving ")),
            "{signal}: {said:?}"
        );
        // Each start removes what the run before it left, and says so.
        for (before, staging, copy) in seen.drain(..) {
            for path in [
                format!("./{staging}"),
                tmp.join(&copy).display().to_string(),
            ] {
                let removed = format!("removed {path}: left by a build or serve that was stopped");
                assert!(said.contains(&removed), "{before}, then {signal}: {said:?}");
            }
        }
        // What the stopped run left: its staging tree beside out, its preview copy in the
        // temporary directory, each marked.
        let staging: Vec<String> = named(cwd.path(), ".out.staging-")
            .into_iter()
            .filter(|n| n != ".out.staging-1-0")
            .collect();
        let copies: Vec<String> = named(&tmp, "model-demand-preview-")
            .into_iter()
            .filter(|n| !n.starts_with("model-demand-preview-1-"))
            .collect();
        assert_eq!(staging.len(), 1, "{signal}: {staging:?}");
        assert_eq!(copies.len(), 1, "{signal}: {copies:?}");
        assert!(cwd
            .path()
            .join(&staging[0])
            .join(".model-demand-partial")
            .is_file());
        seen.push((signal, staging[0].clone(), copies[0].clone()));
    }
    // The next start removes them, says so, and nothing else.
    let out = command_in(cwd.path(), &["build", "--unavailable", "--out", "out"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", common::output_text(&out));
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    for (signal, staging, _) in &seen {
        assert!(
            said.contains(&format!(
                "removed ./{staging}: left by a build or serve that was stopped"
            )),
            "{signal}: {said}"
        );
    }
    assert_eq!(
        named(cwd.path(), ".out."),
        [".out.staging-1-0"],
        "the user's directory is kept"
    );
    assert_eq!(
        std::fs::read(users.join("notes.txt")).expect("kept"),
        b"mine"
    );
    // `serve` removes the preview copies too (and the empty one, which holds nothing).
    let said = serve_until_it_serves_out(cwd.path());
    for (signal, _, copy) in &seen {
        let removed = format!("removed {}", tmp.join(copy).display());
        assert!(
            said.iter().any(|l| l.starts_with(&removed)),
            "{signal}: {said:?}"
        );
    }
    assert_eq!(
        named(&tmp, "model-demand-preview-"),
        ["model-demand-preview-1-1"],
        "the forged mark is kept"
    );
}

#[test]
fn bind_takes_a_host_name_of_the_loopback_and_refuses_what_does_not_resolve() {
    let cwd = common::tempdir().expect("temp dir");
    common::build_small_as(&cwd.path().join("out"), Layout::Edge);
    let mut child = command_in(cwd.path(), &["serve", "--bind", "localhost:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let stderr = child.stderr.take().expect("stderr");
    let serving = BufReader::new(stderr)
        .lines()
        .next()
        .and_then(|l| l.ok())
        .unwrap_or_default();
    let addr = serving
        .split("docs http://")
        .nth(1)
        .and_then(|rest| rest.split("/docs/").next())
        .unwrap_or_default()
        .to_string();
    let answer = (!addr.is_empty()).then(|| get(&addr, "/api/v1/about"));
    let _ = child.kill();
    let _ = child.wait();
    assert!(addr.starts_with("127.0.0.1:"), "{serving}");
    assert!(
        answer.is_some_and(|a| a.starts_with("HTTP/1.1 200")),
        "{serving}"
    );
    let out = command_in(
        cwd.path(),
        &["serve", "--bind", "no-such-host.invalid:8080"],
    )
    .output()
    .expect("runs");
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("the host name no-such-host.invalid does not resolve"),
        "{said}"
    );
}
