//! Python packages the tests need, installed by the tests themselves: one virtual environment
//! per pinned requirement set under the tests' tool cache (`pyenv/NAME-DIGEST`,
//! [`super::tool_cache`]), created once and reused, so `cargo test` on a fresh clone needs
//! nothing installed by hand but Python itself.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// What to install when Python itself is missing (Debian's package names).
const DEBIAN_PACKAGES: &str = "apt-get install python3 python3-venv";

/// The `python` of a virtual environment `pyenv/NAME-DIGEST` of the tool cache holding exactly
/// `requirements` (pinned `name==version` lines; DIGEST names them), creating it on first use.
/// A second call with the same requirements reuses it; other requirements have their own.
pub fn python_env(name: &str, requirements: &[&str]) -> PathBuf {
    super::pins::prefetch();
    let root = super::tool_cache::root().join("pyenv");
    std::fs::create_dir_all(&root)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", root.display()));
    let wanted = requirements.join("\n") + "\n";
    let digest = model_demand::site::sha256_hex(wanted.as_bytes());
    let dir = root.join(format!("{name}-{}", &digest[..12]));
    let python = dir.join("bin/python");
    let stamp = dir.join(".model-demand-requirements");
    if ready(&stamp, &python, &wanted) {
        return python;
    }
    // Test runs may run at once (cargo nextest, two clones): one creates, the others wait.
    let _lock = super::tool_cache::Lock::take(&dir.with_extension("lock"));
    if ready(&stamp, &python, &wanted) {
        return python;
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Missing, it fails naming its Debian package (the one check of PATH, tests/it/common/tools.rs).
    let base = "python3";
    super::tools::require(&[base]);
    let started = Instant::now();
    eprintln!(
        "installing {} into {} (once)",
        requirements.join(" "),
        dir.display()
    );
    let out = Command::new(base)
        .args(["-m", "venv"])
        .arg(&dir)
        .output()
        .unwrap_or_else(|e| panic!("{base} -m venv cannot run ({e}): {DEBIAN_PACKAGES}"));
    assert!(
        out.status.success(),
        "`{base} -m venv` failed (Debian needs python3-venv: {DEBIAN_PACKAGES}): {}",
        super::output_text(&out)
    );
    let out = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-input",
        ])
        .args(requirements)
        .output()
        .expect("the environment's pip runs");
    assert!(
        out.status.success(),
        "pip install {} failed: {}",
        requirements.join(" "),
        super::output_text(&out)
    );
    std::fs::write(&stamp, wanted).expect("write the requirements stamp");
    eprintln!(
        "installed {name} in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    python
}

/// The requirement lines of `tests/requirements.txt` that name `packages` (comments and other
/// packages left out), so each environment pins what that file pins: one list of versions.
pub fn pinned(packages: &[&str]) -> Vec<&'static str> {
    static FILE: &str = include_str!("../../requirements.txt");
    let lines: Vec<&'static str> = FILE
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    packages
        .iter()
        .map(|p| {
            *lines
                .iter()
                .find(|l| l.split("==").next() == Some(*p))
                .unwrap_or_else(|| panic!("tests/requirements.txt pins no {p}"))
        })
        .collect()
}

fn ready(stamp: &Path, python: &Path, wanted: &str) -> bool {
    python.exists() && std::fs::read_to_string(stamp).is_ok_and(|s| s == wanted)
}
