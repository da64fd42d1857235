//! Nothing a user owns is lost: `build` and `serve` replace a directory only when it does not
//! exist, is empty, or is a site this program wrote; anything else is refused untouched.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use walkdir::WalkDir;

/// Every entry under `root` (files with their bytes, directories as `None`), plus the root's
/// own kind, so any change to a refused path shows.
fn snapshot(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.expect("walkable"))
        .map(|e| {
            let rel = e.path().strip_prefix(root).expect("under root");
            let content = e
                .file_type()
                .is_file()
                .then(|| std::fs::read(e.path()).expect("readable"));
            (rel.to_string_lossy().into_owned(), content)
        })
        .collect()
}

fn run(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("binary runs")
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("listable")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A directory of someone's own files: a picture and a note in a subdirectory.
fn users_directory(dir: &Path) {
    std::fs::create_dir_all(dir.join("2026")).expect("mkdir");
    std::fs::write(dir.join("holiday.jpg"), [0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]).expect("write");
    std::fs::write(dir.join("2026/notes.txt"), b"keep me").expect("write");
}

fn assert_refused(output: &Output, path: &str) {
    assert_eq!(output.status.code(), Some(1), "must fail");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("refusing to replace {path}")),
        "names the path: {stderr}"
    );
    assert!(stderr.contains("Nothing was changed"), "says so: {stderr}");
}

#[test]
fn build_refuses_a_directory_of_unrelated_files() {
    let dir = common::tempdir().expect("temp dir");
    users_directory(&dir.path().join("mysite"));
    let before = snapshot(&dir.path().join("mysite"));
    let output = run(&["build", "--unavailable", "--out", "mysite"], dir.path());
    assert_refused(&output, "mysite");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("no site manifest"),
        "says why"
    );
    assert_eq!(
        snapshot(&dir.path().join("mysite")),
        before,
        "contents changed"
    );
    assert_eq!(names_in(dir.path()), ["mysite"], "nothing left beside it");
}

#[test]
fn serve_refuses_a_directory_of_unrelated_files_before_building() {
    let dir = common::tempdir().expect("temp dir");
    users_directory(&dir.path().join("photos"));
    let before = snapshot(&dir.path().join("photos"));
    // Port 0: if the refusal failed, the server would start and this test would hang, not pass.
    let output = run(
        &["serve", "--dir", "photos", "--bind", "127.0.0.1:0"],
        dir.path(),
    );
    assert_refused(&output, "photos");
    assert_eq!(
        snapshot(&dir.path().join("photos")),
        before,
        "contents changed"
    );
    assert_eq!(names_in(dir.path()), ["photos"], "nothing left beside it");
}

#[test]
fn build_never_moves_a_regular_file() {
    let dir = common::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("afile"), b"precious").expect("write");
    let output = run(&["build", "--unavailable", "--out", "afile"], dir.path());
    assert_refused(&output, "afile");
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a directory"));
    assert_eq!(
        std::fs::read(dir.path().join("afile")).expect("still there"),
        b"precious"
    );
    assert_eq!(names_in(dir.path()), ["afile"], "no hidden copy beside it");
}

#[test]
fn build_refuses_a_site_holding_a_file_its_manifest_does_not_list() {
    let dir = common::tempdir().expect("temp dir");
    let ok = run(&["build", "--unavailable", "--out", "out"], dir.path());
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    std::fs::write(dir.path().join("out/api/my-notes.txt"), b"mine").expect("write");
    let before = snapshot(&dir.path().join("out"));
    let output = run(&["build", "--unavailable", "--out", "out"], dir.path());
    assert_refused(&output, "out");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("api/my-notes.txt"),
        "names the stranger"
    );
    assert_eq!(
        snapshot(&dir.path().join("out")),
        before,
        "contents changed"
    );
}

#[test]
fn build_replaces_an_empty_directory_and_its_own_site() {
    let dir = common::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("out")).expect("mkdir");
    for round in 0..2 {
        let output = run(&["build", "--unavailable", "--out", "out"], dir.path());
        assert!(
            output.status.success(),
            "round {round}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(dir.path().join("out/manifest.json").is_file());
        assert_eq!(names_in(dir.path()), ["out"], "round {round}: leftovers");
    }
    // A site with data replaces the no-data site it wrote before.
    let out = dir.path().join("out");
    common::build_small(&out);
    assert!(out.join("api/export.json").is_file());
}
