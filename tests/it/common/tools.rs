//! The programs the tests run from `PATH` (node, npm, python3, git, curl, bash, chromium): each
//! is looked up before it runs, so a machine that lacks one fails the test with the Debian
//! package to install instead of a bare "No such file or directory".

use std::path::Path;
use std::process::Command;

/// Debian's package for each program the tests (and the scripts they run) take from `PATH`.
const PACKAGES: [(&str, &str); 7] = [
    ("node", "nodejs"),
    ("npm", "npm"),
    ("python3", "python3"),
    ("git", "git"),
    ("curl", "curl"),
    ("bash", "bash"),
    ("chromium", "chromium"),
];

/// Panics, naming the Debian package to install, unless every one of `programs` is an
/// executable file in a directory of `PATH`.
pub fn require(programs: &[&str]) {
    let missing: Vec<&str> = programs.iter().copied().filter(|p| !on_path(p)).collect();
    if missing.is_empty() {
        return;
    }
    let packages: Vec<&str> = missing
        .iter()
        .map(|p| {
            PACKAGES
                .iter()
                .find(|(name, _)| name == p)
                .map_or(*p, |(_, package)| *package)
        })
        .collect();
    panic!(
        "the tests need {} on PATH: apt-get install {}",
        missing.join(", "),
        packages.join(" ")
    );
}

/// `Command::new(program)` once [`require`] has found `program`.
pub fn command(program: &str) -> Command {
    require(&[program]);
    Command::new(program)
}

/// The full path of `program` on `PATH` once [`require`] has found it, for tools that want a
/// path rather than a name (puppeteer's `executablePath`).
pub fn path_of(program: &str) -> std::path::PathBuf {
    require(&[program]);
    find(program).expect("found by require")
}

fn on_path(program: &str) -> bool {
    find(program).is_some()
}

fn find(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|file| executable(file))
}

fn executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
