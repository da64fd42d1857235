//! Netlify's own tools offline: npm `netlify-cli` with npm `deno` as its edge runtime, set up so
//! `netlify dev --offline` and `netlify build --offline` run on this machine (README, "Netlify's
//! own engine"): `deno` on `PATH`, the edge runtime's bootstrap from netlify-cli's bundled copy,
//! and a stand-in for the one remote module the edge config extractor imports.

use std::path::{Path, PathBuf};
use std::process::Command;

use model_demand::site::sha256_hex;

/// The module netlify-cli's config extractor imports for its types only.
const TYPES_URL_PATH: &str = "/bootstrap/globals/types.ts";

/// Copies a directory tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Deno's cache entry for `https://edge.netlify.com/bootstrap/globals/types.ts`: the file named
/// by the SHA-256 of the URL path, the body, then Deno's metadata line. The extractor imports
/// the module for a type only, so a one-line type stands in for it.
fn write_types_stand_in(deno_dir: &Path) {
    let dir = deno_dir.join("remote/https/edge.netlify.com");
    std::fs::create_dir_all(&dir).expect("deno cache dir");
    let body =
        "export type NetlifyGlobal = { readonly context: unknown; readonly env: unknown };\n";
    let metadata = format!(
        "{{\"headers\":{{\"content-type\":\"application/typescript\"}},\"url\":\"https://edge.netlify.com{TYPES_URL_PATH}\"}}"
    );
    std::fs::write(
        dir.join(sha256_hex(TYPES_URL_PATH.as_bytes())),
        format!("{body}\n// denoCacheMetadata={metadata}"),
    )
    .expect("write stand-in");
}

/// The `netlify` command (installed once from npm) run in `project`, offline, with a home, a
/// Deno cache and the edge bootstrap of the test's own under `scratch`.
pub fn command(project: &Path, scratch: &Path) -> Command {
    // `.bin/netlify` is a node script, and the build command it runs is a bash script.
    crate::common::tools::require(&["node", "bash"]);
    let cli: PathBuf = crate::common::pins::NETLIFY_CLI.install();
    let deno_bin = crate::common::pins::DENO.install().join(".bin");
    assert!(
        deno_bin.join("deno").exists(),
        "npm deno {} has no binary",
        crate::common::pins::DENO.version
    );
    let deno_dir = scratch.join("deno-dir");
    write_types_stand_in(&deno_dir);
    let home = scratch.join("home");
    std::fs::create_dir_all(&home).expect("home");
    let bootstrap = cli.join("@netlify/edge-functions-dev/dist/deno/bootstrap.mjs");
    assert!(bootstrap.exists(), "{} is missing", bootstrap.display());
    let path = format!(
        "{}:{}",
        deno_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new(cli.join(".bin/netlify"));
    cmd.current_dir(project)
        .env("PATH", path)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("DENO_DIR", &deno_dir)
        .env("DENO_NO_UPDATE_CHECK", "1")
        .env(
            "NETLIFY_EDGE_BOOTSTRAP",
            format!("file://{}", bootstrap.display()),
        )
        .env("NETLIFY_TELEMETRY_DISABLED", "1")
        .env("NO_COLOR", "1")
        .env("CI", "1");
    cmd
}

/// The edge functions' npm packages (the repository's `package.json`, pinned exactly), installed
/// once under `target/`; returns the `node_modules` a project links to, where Netlify's edge
/// bundler finds what the functions import.
pub fn edge_node_modules() -> PathBuf {
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(crate::common::crate_path("package.json")).expect("package.json"),
    )
    .expect("package.json is JSON");
    let dependencies = manifest["dependencies"]
        .as_object()
        .expect("package.json lists dependencies");
    assert_eq!(
        dependencies.len(),
        1,
        "one package: install each when there are more"
    );
    let (name, version) = dependencies.iter().next().expect("a dependency");
    let version = version.as_str().expect("a version");
    assert!(
        version.chars().all(|c| c.is_ascii_digit() || c == '.'),
        "{name} is pinned exactly, not {version}"
    );
    crate::common::npm_package(name, version)
}

/// Lays out the edge functions in `project` as Netlify builds them: `netlify/`, `package.json`
/// and the installed `node_modules` (a link to the tests' install).
pub fn lay_out_edge_functions(project: &Path) {
    copy_dir(
        &crate::common::crate_path("netlify"),
        &project.join("netlify"),
    );
    std::fs::copy(
        crate::common::crate_path("package.json"),
        project.join("package.json"),
    )
    .expect("copy package.json");
    std::os::unix::fs::symlink(edge_node_modules(), project.join("node_modules"))
        .expect("link node_modules");
}
