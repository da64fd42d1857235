//! Where the tests keep the tools they install (npm packages, Python environments): one
//! directory per pinned version, shared by every clone and worktree of the machine, so a fresh
//! clone's `cargo test` installs only what no earlier run installed (docs/testing.md).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The root of the tools: `MODEL_DEMAND_TEST_TOOLS` when set, else
/// `$XDG_CACHE_HOME/model-demand/test-tools`, else `$HOME/.cache/model-demand/test-tools`, else
/// `target/test-tools` of this clone. Everything under it is the tests' own: each entry is made
/// whole beside its final name and renamed into place, so a run killed while installing leaves
/// no entry that looks complete.
pub fn root() -> PathBuf {
    let var = |name| std::env::var_os(name).map(PathBuf::from);
    if let Some(dir) = var("MODEL_DEMAND_TEST_TOOLS") {
        return dir;
    }
    let cache = var("XDG_CACHE_HOME")
        .filter(|dir| dir.is_absolute())
        .or_else(|| {
            var("HOME")
                .filter(|home| home.is_absolute())
                .map(|home| home.join(".cache"))
        });
    match cache {
        Some(cache) => cache.join("model-demand/test-tools"),
        None => super::crate_path("target/test-tools"),
    }
}

/// The directory name of a package at a version (`@scope/name` has a `/`).
pub fn entry_name(name: &str, version: &str) -> String {
    format!("{}@{version}", name.replace('/', "+"))
}

/// Removes `ENTRY.partial-PID` directories under `root` whose process has ended: installs that
/// never finished (a run stopped while installing). Ones of a live process are left alone.
pub fn remove_partials_of_ended_runs(root: &Path, entry: &str) {
    let prefix = format!("{entry}.partial-");
    let Ok(listing) = std::fs::read_dir(root) else {
        return;
    };
    for item in listing.flatten() {
        let name = item.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !process_alive(pid) {
            let _ = std::fs::remove_dir_all(item.path());
        }
    }
}

/// True while the process `pid` (decimal) runs (Linux's `/proc`).
fn process_alive(pid: &str) -> bool {
    Path::new("/proc").join(pid).exists()
}

/// A lock directory holding its owner's PID; a lock whose owner is gone is taken over. Held by
/// one thread of one process at a time: test binaries (and clones) running at once take turns.
pub struct Lock(PathBuf);

impl Lock {
    /// Takes the lock at `path`, waiting up to 15 minutes for its holder.
    pub fn take(path: &Path) -> Lock {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", parent.display()));
        }
        let deadline = Instant::now() + Duration::from_secs(900);
        loop {
            if std::fs::create_dir(path).is_ok() {
                let _ = std::fs::write(path.join("pid"), std::process::id().to_string());
                return Lock(path.to_path_buf());
            }
            let owner = std::fs::read_to_string(path.join("pid")).ok();
            if owner
                .as_deref()
                .is_some_and(|pid| !process_alive(pid.trim()))
            {
                let _ = std::fs::remove_dir_all(path);
                continue;
            }
            assert!(
                Instant::now() < deadline,
                "{} is held by another test run",
                path.display()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
