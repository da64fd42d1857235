//! Shared helpers of the integration tests: fixture paths, loading and building.

#![allow(dead_code)]

pub mod conformance;
pub mod docs_table;
pub mod hf;
pub mod mcp_client;
pub mod mcp_http;
pub mod netlify;
pub mod oracle;
pub mod pins;
pub mod pyenv;
pub mod sources;
pub mod standin;
pub mod tool_cache;
pub mod tools;

use std::path::{Path, PathBuf};

use model_demand::records::ServedModels;
use model_demand::site::{self, BuildOptions, BuildReport, SiteData};
use model_demand::Inputs;

/// A temporary directory for a test's files, removed when dropped. Sites are thousands of
/// small files, and creating them on the disks of the machines seen here cost more than
/// anything else a suite does (the small fixture's site: 6 s on ext4, 1 s in RAM), so the
/// directory is in `/dev/shm` when that is a RAM file system with room ([`SCRATCH_FREE`]) and
/// `TMPDIR` is not set; else in the system's temporary directory.
pub fn tempdir() -> std::io::Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix("model-demand-it-")
        .tempdir_in(scratch_root())
}

/// A directory for a fixture the tests of one run share (held in a `static`, which Rust never
/// drops, so a temporary directory there would be left behind): `NAME` under cargo's
/// `CARGO_TARGET_TMPDIR`, emptied when first asked for in a run, so runs leave one copy at
/// most, in `target/`.
pub fn run_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// The free bytes `/dev/shm` must have to hold the suites' sites (two at a time, a few
/// hundred MB each; a container's default `/dev/shm` of 64 MB does not).
const SCRATCH_FREE: u64 = 4 << 30;

fn scratch_root() -> &'static Path {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        let roomy = std::env::var_os("TMPDIR").is_none()
            && free_bytes(shm).is_some_and(|free| free >= SCRATCH_FREE);
        if roomy {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        }
    })
}

/// The bytes free on the file system holding `dir` (`df`, POSIX), when it can be told.
fn free_bytes(dir: &Path) -> Option<u64> {
    let out = std::process::Command::new("df")
        .args(["-P", "-k"])
        .arg(dir)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    // `Filesystem 1024-blocks Used Available Capacity Mounted-on`, then one line.
    let available = text.lines().nth(1)?.split_whitespace().nth(3)?;
    available.parse::<u64>().ok().map(|kib| kib * 1024)
}

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
    build_small_as(out, model_demand::site::edge::Layout::Full)
}

/// Builds the small fixture's site into `out` in `layout`.
pub fn build_small_as(out: &Path, layout: model_demand::site::edge::Layout) -> BuildReport {
    let (inputs, catalog) = small();
    build_into(&inputs, &catalog, out, layout)
}

/// Builds accepted inputs into `out` in `layout`.
pub fn build_into(
    inputs: &Inputs,
    catalog: &ServedModels,
    out: &Path,
    layout: model_demand::site::edge::Layout,
) -> BuildReport {
    let data = SiteData::Data { inputs, catalog };
    let options = BuildOptions {
        layout,
        ..BuildOptions::new(out)
    };
    site::build(&data, &options).expect("the site builds")
}

/// The `--now` the tests read the bundled sample at.
pub const SAMPLE_NOW: &str = "2026-11-21T12:00:00Z";

/// The bundled sample's accepted inputs and its served models at [`SAMPLE_NOW`].
pub fn sample() -> (Inputs, ServedModels) {
    let inputs = model_demand::load(
        &crate_path(model_demand::SAMPLE_EXPORT),
        Some(&crate_path(model_demand::SAMPLE_SUPPLY)),
    )
    .expect("the sample is accepted");
    let catalog = inputs.served_models(model_demand::parse_now(SAMPLE_NOW).expect("now"));
    (inputs, catalog)
}

/// The small fixture with two IDs that differ only in letter case (DESIGN §2, amended
/// 2026-11-25): `acme/beta-8b` becomes `acme/Beta-8B` and `oldco/delta-v2` becomes
/// `acme/beta-8b`, in the export and the supply feed alike. Returns the accepted inputs and
/// the catalog at [`SMALL_NOW`].
pub fn small_in_two_cases() -> (Inputs, ServedModels) {
    let dir = tempdir().expect("temp dir");
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
    build_into(
        &inputs,
        &catalog,
        out,
        model_demand::site::edge::Layout::Full,
    )
}

/// Installs an npm package once into the tests' tool cache ([`tool_cache`], `npm/NAME@VERSION`)
/// and returns its `node_modules`. A missing npm or a failed install fails the test, naming
/// what to install.
pub fn npm_package(name: &str, version: &str) -> PathBuf {
    pins::prefetch();
    let root = tool_cache::root().join("npm");
    let entry = tool_cache::entry_name(name, version);
    let dir = root.join(&entry);
    let modules = dir.join("node_modules");
    let installed = || modules.join(name).join("package.json").exists();
    if installed() {
        return modules;
    }
    // Suites of this binary and other test runs installing it at once take turns.
    let _lock = tool_cache::Lock::take(&root.join(format!("{entry}.lock")));
    if installed() {
        return modules;
    }
    // The installed packages run under node, so both are needed before anything installs.
    tools::require(&["npm", "node"]);
    // Installed beside its place and renamed into it: an interrupted install is never taken
    // for a whole one (npm's own files hold no absolute paths). The place is this process's
    // own, since an npm started by a run that has ended (a background install,
    // [`pins::prefetch`]) may still be writing into that run's; such leftovers are removed.
    tool_cache::remove_partials_of_ended_runs(&root, &entry);
    let partial = root.join(format!("{entry}.partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&partial);
    let status = std::process::Command::new("npm")
        .args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
        .arg(&partial)
        .arg(format!("{name}@{version}"))
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "npm cannot run ({e}): the tests need Node.js and npm: apt-get install nodejs npm"
            )
        });
    assert!(status.success(), "npm install {name}@{version} failed");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&partial, &dir)
        .unwrap_or_else(|e| panic!("cannot move {} into place: {e}", partial.display()));
    modules
}

/// Starts the preview server on a free loopback port for the rest of the test, serving `site`;
/// returns its base URL.
pub fn serve_on_loopback(site: &Path) -> String {
    let running = model_demand::preview::start(
        site,
        "127.0.0.1:0".parse().expect("addr"),
        model_demand::preview::ServeOptions {
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

/// Runs each case on a thread of its own and waits for all: cases that spend their time waiting
/// on a clock or a child process (the pacing suite's runs) take the longest one's time, not the
/// sum. A case's panic fails the test with the case's label.
pub fn each_at_once<T: Send>(cases: Vec<(String, T)>, run: impl Fn(&str, T) + Sync) {
    let failures: Vec<String> = std::thread::scope(|scope| {
        let running: Vec<_> = cases
            .into_iter()
            .map(|(label, case)| {
                let run = &run;
                let handle = scope.spawn(move || run(&label, case));
                handle
            })
            .collect();
        running
            .into_iter()
            .filter_map(|handle| handle.join().err())
            .map(|panic| {
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "a case panicked".to_string())
            })
            .collect()
    });
    assert!(
        failures.is_empty(),
        "failed cases:\n{}",
        failures.join("\n")
    );
}

/// Whether the heavy generated cases run: `MODEL_DEMAND_TEST_FULL=1`, which `.ci/run` sets. A
/// newcomer's `cargo test` runs every test and every assertion on the smallest inputs that
/// exercise them; CI runs the same tests over the large generated spaces too (docs/testing.md).
pub fn full() -> bool {
    std::env::var_os("MODEL_DEMAND_TEST_FULL").is_some_and(|v| v == "1")
}

/// The small fixture's latest supply collection, as its feed writes it.
pub fn small_latest_collection() -> serde_json::Value {
    let supply: serde_json::Value = serde_json::from_slice(
        &std::fs::read(crate_path("tests/fixtures/small/supply.json")).expect("supply"),
    )
    .expect("JSON");
    supply["collections"]
        .as_array()
        .and_then(|c| c.last())
        .cloned()
        .expect("a collection")
}
