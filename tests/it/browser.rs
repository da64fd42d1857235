//! The docs page in a real browser: the binary builds the small fixture's site and the no-data
//! site (and the bundled sample in the edge layout, its notice included), `model-demand serve`
//! serves each on a free loopback port, and headless Chromium
//! (Debian's `chromium`, driven by puppeteer-core) loads `/docs/` at a desktop and a phone size.
//! axe-core finds no WCAG 2.1 A/AA or best-practice violation; nothing logs an error or fails to
//! load; the page never scrolls sideways (only the ranked table scrolls, in its own box); and the
//! rendered rows show the oracle's records.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use common::docs_table::{assert_rows_are_the_records, oracle_records, Cells};
use serde_json::Value;

/// Desktop and phone.
const VIEWPORTS: [&str; 2] = ["1400x900", "390x844"];

/// `model-demand serve` of one site, stopped when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(site: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_model-demand"))
            .args(["serve", "--bind", "127.0.0.1:0", "--dir"])
            .arg(site)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("serve starts");
        // It names the port it was given on its first line: "serving DIR (...): docs http://ADDR/docs/, ...".
        let mut line = String::new();
        let stderr = child.stderr.take().expect("stderr");
        BufReader::new(stderr)
            .read_line(&mut line)
            .expect("serve says where");
        let base = line
            .split("docs ")
            .nth(1)
            .and_then(|rest| rest.split("/docs/").next())
            .unwrap_or_else(|| panic!("serve's first line: {line}"))
            .to_string();
        Server { child, base }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Builds a site with the binary, as a person would.
fn build(args: &[&str], out: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(["build", "--out"])
        .arg(out)
        .args(args)
        .stderr(Stdio::null())
        .status()
        .expect("build runs");
    assert!(status.success(), "build {args:?}");
}

/// Loads `/docs/` of `base` at every viewport; the script's report.
fn load(base: &str, scratch: &Path) -> Value {
    // The browser first: a machine without it fails before anything installs.
    let chromium = common::tools::path_of("chromium");
    let puppeteer = common::pins::PUPPETEER_CORE.install();
    let axe = common::pins::AXE_CORE.install();
    let profile = tempfile::tempdir_in(scratch).expect("profile dir");
    let out = common::tools::command("node")
        .arg(common::crate_path("tests/browser/docs_page.mjs"))
        .arg(&puppeteer)
        .arg(&axe)
        .arg(&chromium)
        .arg(profile.path())
        .arg(format!("{base}/docs/"))
        .args(VIEWPORTS)
        .output()
        .expect("node runs");
    assert!(out.status.success(), "{}", common::output_text(&out));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("report ({e}): {}", common::output_text(&out)))
}

/// The rendered rows as the shared comparison takes them.
fn rows(result: &Value) -> Vec<(String, Cells)> {
    result["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            let cells = row["cells"]
                .as_object()
                .expect("cells")
                .iter()
                .map(|(field, pair)| {
                    let text = |i: usize| pair[i].as_str().unwrap_or_default().to_string();
                    (field.clone(), (text(0), text(1)))
                })
                .collect();
            (row["id"].as_str().expect("id").to_string(), cells)
        })
        .collect()
}

/// Prints one site's figures and asserts what holds for every docs page.
fn check_page(site: &str, report: &Value) {
    for r in report["results"].as_array().expect("results") {
        let size = format!("{}x{}", r["width"], r["height"]);
        let violations = r["violations"].as_array().expect("violations");
        let errors = r["consoleErrors"].as_array().expect("errors");
        let failed = r["failedRequests"].as_array().expect("failed");
        println!(
            "{site} at {size} ({}): {} axe violation(s) ({} rules passed), {} console error(s), {} failed request(s), sideways overflow {} px, page height {} px, {} row(s)",
            report["browser"].as_str().unwrap_or_default(),
            violations.len(),
            r["passes"],
            errors.len(),
            failed.len(),
            r["overflowPx"],
            r["scrollHeight"],
            r["rows"].as_array().map_or(0, Vec::len),
        );
        assert!(violations.is_empty(), "{site} {size}: {violations:#?}");
        assert!(errors.is_empty(), "{site} {size}: {errors:#?}");
        assert!(failed.is_empty(), "{site} {size}: {failed:#?}");
        // One request: the page itself (no stylesheet, script, image or icon to fetch).
        assert_eq!(
            r["requests"].as_array().map(Vec::len),
            Some(1),
            "{site} {size}: {}",
            r["requests"]
        );
        assert_eq!(
            r["overflowPx"], 0,
            "{site} {size}: the page scrolls sideways; past the edge: {}",
            r["wide"]
        );
        assert_eq!(r["wide"].as_array().map(Vec::len), Some(0), "{}", r["wide"]);
        // Issue 50: the table's header row and model column stay in view inside its box,
        // whichever way it was scrolled, at every width.
        let sticky = &r["sticky"];
        if !sticky.is_null() {
            println!("{site} at {size}: the table box scrolled {sticky}");
            if sticky["scrolledDown"].as_i64().unwrap_or(0) > 0 {
                let top = sticky["headerTopOffset"].as_i64().expect("offset");
                assert!(
                    (0..=2).contains(&top),
                    "{site} {size}: the header left view: {sticky}"
                );
            }
            if sticky["scrolledRight"].as_i64().unwrap_or(0) > 0 {
                let left = sticky["modelLeftOffset"].as_i64().expect("offset");
                assert!(
                    (0..=2).contains(&left),
                    "{site} {size}: the model column left view: {sticky}"
                );
            }
        }
        // The first chart: as wide as the text column at least, and on the phone within the
        // first screen.
        let chart = &r["firstChart"];
        if !chart.is_null() {
            let (top, bottom) = (
                chart["top"].as_i64().expect("top"),
                chart["bottom"].as_i64().expect("bottom"),
            );
            let width = chart["width"].as_i64().expect("width");
            let column = r["textColumn"].as_i64().expect("text column");
            println!(
                "{site} at {size}: the first chart from {top} to {bottom} px, {width} px wide (the text column {column} px)"
            );
            assert!(
                width >= column - 2,
                "{site} {size}: chart {width} px, text {column} px"
            );
            if r["width"] == 390 {
                assert!(
                    bottom <= r["height"].as_i64().expect("height"),
                    "{site} {size}: the first chart ends at {bottom} px, below the first screen"
                );
            }
        }
    }
}

#[test]
fn the_docs_page_in_chromium() {
    let started = Instant::now();
    let dir = common::tempdir().expect("temp dir");
    let small = dir.path().join("small");
    let fixture = common::crate_path("tests/fixtures/small");
    build(
        &[
            "--export",
            &fixture.join("export.json").to_string_lossy(),
            "--supply",
            &fixture.join("supply.json").to_string_lossy(),
            "--now",
            common::SMALL_NOW,
        ],
        &small,
    );
    let none = dir.path().join("none");
    build(&["--unavailable"], &none);

    let server = Server::start(&small);
    let report = load(&server.base, dir.path());
    check_page("small site", &report);
    let records = oracle_records();
    for r in report["results"].as_array().expect("results") {
        assert_rows_are_the_records(&rows(r), &records);
        // At both sizes the table stays inside the page; on the phone it scrolls in its box.
        let table = &r["table"];
        assert!(
            table["right"].as_i64().expect("right") <= r["innerWidth"].as_i64().expect("width"),
            "{table}"
        );
        if r["width"] == 390 {
            assert_eq!(table["scrolls"], true, "{table}");
        }
    }
    drop(server);

    // The bundled sample, its notice included, in the layout Netlify publishes (5.7 MB).
    let sample = dir.path().join("sample");
    build(
        &[
            "--export",
            &common::crate_path(model_demand::SAMPLE_EXPORT).to_string_lossy(),
            "--supply",
            &common::crate_path(model_demand::SAMPLE_SUPPLY).to_string_lossy(),
            "--now",
            common::SAMPLE_NOW,
            "--layout",
            "edge",
        ],
        &sample,
    );
    let server = Server::start(&sample);
    let report = load(&server.base, dir.path());
    check_page("sample site", &report);
    for r in report["results"].as_array().expect("results") {
        assert_eq!(r["rows"].as_array().map(Vec::len), Some(56));
        assert_eq!(
            r["sampleNotice"], true,
            "the sample's notice is on the page"
        );
    }
    drop(server);

    let server = Server::start(&none);
    let report = load(&server.base, dir.path());
    check_page("no-data site", &report);
    for r in report["results"].as_array().expect("results") {
        assert_eq!(r["rows"].as_array().map(Vec::len), Some(0));
    }
    println!(
        "browser test: {:.1} s (builds, three servers, six page loads)",
        started.elapsed().as_secs_f64()
    );
}
