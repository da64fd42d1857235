//! Shared helpers of the integration tests: fixture paths, loading and building.

#![allow(dead_code)]

pub mod conformance;
pub mod docs_table;
pub mod hf;
pub mod mcp_client;
pub mod mcp_http;
pub mod netlify;
pub mod oracle;
pub mod pyenv;
pub mod sources;
pub mod standin;
pub mod tools;

use std::path::{Path, PathBuf};

use model_demand::records::ServedModels;
use model_demand::site::{self, BuildOptions, BuildReport, SiteData};
use model_demand::Inputs;

/// The `--now` the small fixture's expected responses were made at.
pub const SMALL_NOW: &str = "2026-04-01T12:00:00Z";

/// A path under the crate root.
pub fn crate_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The accepted inputs of a fixture directory holding export.json and supply.json.
pub fn load_fixture(dir: &str) -> Inputs {
    let dir = crate_path(dir);
    model_demand::load(&dir.join("export.json"), Some(&dir.join("supply.json")))
        .expect("fixture is accepted")
}

/// The small fixture's inputs and catalog at [`SMALL_NOW`].
pub fn small() -> (Inputs, ServedModels) {
    let inputs = load_fixture("tests/fixtures/small");
    let now = model_demand::parse_now(SMALL_NOW).expect("valid now");
    let catalog = inputs.served_models(now);
    (inputs, catalog)
}

/// Builds the small fixture's site into `out`.
pub fn build_small(out: &Path) -> BuildReport {
    build_small_as(out, model_demand::edge::Layout::Full)
}

/// Builds the small fixture's site into `out` in `layout`.
pub fn build_small_as(out: &Path, layout: model_demand::edge::Layout) -> BuildReport {
    let (inputs, catalog) = small();
    site::build(
        &SiteData::Data {
            inputs: &inputs,
            catalog: &catalog,
        },
        &BuildOptions {
            layout,
            ..BuildOptions::new(out)
        },
    )
    .expect("small site builds")
}

/// The small fixture with two IDs that differ only in letter case (DESIGN §2, amended
/// 2026-11-25): `acme/beta-8b` becomes `acme/Beta-8B` and `oldco/delta-v2` becomes
/// `acme/beta-8b`, in the export and the supply feed alike. Returns the accepted inputs and
/// the catalog at [`SMALL_NOW`].
pub fn small_in_two_cases() -> (Inputs, ServedModels) {
    let dir = tempfile::tempdir().expect("temp dir");
    for name in ["export.json", "supply.json"] {
        let text = std::fs::read_to_string(crate_path(&format!("tests/fixtures/small/{name}")))
            .expect("small fixture");
        let text = text
            .replace("acme/beta-8b", "\u{0}")
            .replace("oldco/delta-v2", "acme/beta-8b")
            .replace("\u{0}", "acme/Beta-8B");
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    let inputs = model_demand::load(
        &dir.path().join("export.json"),
        Some(&dir.path().join("supply.json")),
    )
    .expect("IDs that differ only in case are accepted");
    let now = model_demand::parse_now(SMALL_NOW).expect("valid now");
    let catalog = inputs.served_models(now);
    (inputs, catalog)
}

/// Builds [`small_in_two_cases`] into `out`.
pub fn build_small_in_two_cases(out: &Path) -> BuildReport {
    let (inputs, catalog) = small_in_two_cases();
    site::build(
        &SiteData::Data {
            inputs: &inputs,
            catalog: &catalog,
        },
        &BuildOptions::new(out),
    )
    .expect("the site builds")
}

/// The MCP Inspector release the tests run (its CLI mode, over stdio and over HTTP).
pub const INSPECTOR: &str = "2.12.0";

/// Installs an npm package once into `target/<name>-cache` and returns that cache's
/// `node_modules`. A missing npm or a failed install fails the test, naming what to install.
pub fn npm_package(name: &str, version: &str) -> PathBuf {
    // The suites share one test binary: two of them installing at once would race in npm.
    static INSTALLING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _installing = INSTALLING.lock().unwrap_or_else(|p| p.into_inner());
    let cache = crate_path(&format!("target/{name}-cache"));
    let modules = cache.join("node_modules");
    if !modules.join(name).join("package.json").exists() {
        // The installed packages run under node, so both are needed before anything installs.
        tools::require(&["npm", "node"]);
        let status = std::process::Command::new("npm")
            .args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
            .arg(&cache)
            .arg(format!("{name}@{version}"))
            .status()
            .unwrap_or_else(|e| {
                panic!("npm cannot run ({e}): the tests need Node.js and npm: apt-get install nodejs npm")
            });
        assert!(status.success(), "npm install {name}@{version} failed");
    }
    modules
}

/// Starts the preview server on a free loopback port for the rest of the test, serving `site`;
/// returns its base URL.
pub fn serve_on_loopback(site: &Path) -> String {
    let running = model_demand::serve::start(
        site,
        "127.0.0.1:0".parse().expect("addr"),
        model_demand::serve::ServeOptions {
            workers: 2,
            io_timeout: std::time::Duration::from_secs(5),
        },
    )
    .expect("serves");
    let url = format!("http://{}", running.addr);
    std::thread::spawn(move || running.wait());
    url
}

/// A finished command's standard output and error, for assertion messages.
pub fn output_text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
