//! Directories a build or the preview writes for a while (a build's staging tree and the old
//! tree it retires beside the output, the preview's compact copy in the temporary directory),
//! marked as this program's own so that what a Ctrl-C or a kill leaves behind is recognised and
//! removed at the next start (issue 49).
//!
//! The mark: a file [`MARK`] holding exactly [`MARK_TEXT`], written into the directory as the
//! first thing after creating it, and kept locked (an advisory exclusive lock on the open file)
//! by the process that writes the directory for as long as it does. A dead process holds no
//! lock, so a directory is a leftover when its name is one this program gives such
//! directories, it is a real directory (not a link), and it is empty (a kill between creating
//! it and marking it) or holds the mark with its exact text and a lock anyone can take (no
//! running build or preview holds it).
//!
//! SECURITY: nothing else is removed. A directory of another name, a link, a mark of other
//! text or a link instead of a file, or a mark a live process holds is left alone.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::base::error::{Error, Result};

/// The mark's file name inside a directory being written.
pub const MARK: &str = ".model-demand-partial";

/// The mark's exact text.
pub const MARK_TEXT: &str = "model-demand writes this directory and removes it when done; a \
run that was stopped left it, and the next `model-demand build` or `serve` removes it\n";

/// The name prefix of the preview's compact copies in the temporary directory.
pub const PREVIEW_PREFIX: &str = "model-demand-preview-";

/// A directory's mark, held (locked) while this value lives.
#[derive(Debug)]
pub struct Mark {
    file: File,
    path: PathBuf,
}

impl Mark {
    /// Marks `dir` (a directory this process just created) as being written by it.
    pub fn new(dir: &Path) -> Result<Mark> {
        let path = dir.join(MARK);
        let io = |e| Error::io("cannot mark", &path, e);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io)?;
        file.lock().map_err(io)?;
        file.write_all(MARK_TEXT.as_bytes()).map_err(io)?;
        file.flush().map_err(io)?;
        Ok(Mark { file, path })
    }

    /// Removes the mark's file (a finished site holds only its own files); the lock is held
    /// until the value is dropped.
    pub fn remove_file(&self) -> Result<()> {
        std::fs::remove_file(&self.path).map_err(|e| Error::io("cannot remove", &self.path, e))
    }
}

impl Drop for Mark {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// The leftovers among the entries of `parent` whose names start with one of `prefixes`,
/// removed; returns the paths removed. Entries that cannot be read, or removed, are left.
pub fn sweep(parent: &Path, prefixes: &[&str]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if !prefixes.iter().any(|p| name.starts_with(p)) {
            continue;
        }
        let path = entry.path();
        if remove_if_leftover(&path) {
            removed.push(path);
        }
    }
    removed.sort();
    removed
}

/// The name prefixes of the staging and old trees a build of `out` writes beside it
/// (`.NAME.staging-`, `.NAME.old-`).
pub fn sibling_prefixes(out: &Path) -> Option<[String; 2]> {
    let name = out.file_name()?.to_str()?;
    Some([format!(".{name}.staging-"), format!(".{name}.old-")])
}

/// Removes the leftovers a stopped build of `out` left beside it; returns what was removed.
pub fn sweep_beside(out: &Path) -> Vec<PathBuf> {
    let Some(prefixes) = sibling_prefixes(out) else {
        return Vec::new();
    };
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let prefixes: Vec<&str> = prefixes.iter().map(String::as_str).collect();
    sweep(&parent, &prefixes)
}

/// Removes the preview copies a stopped `serve` left in the temporary directory.
pub fn sweep_previews() -> Vec<PathBuf> {
    sweep(&std::env::temp_dir(), &[PREVIEW_PREFIX])
}

/// Removes `path` when it is a leftover as the module defines it; true when it was removed.
fn remove_if_leftover(path: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !meta.file_type().is_dir() {
        return false;
    }
    // Empty: removed as it is (remove_dir fails on anything else, so nothing can be lost).
    if std::fs::remove_dir(path).is_ok() {
        return true;
    }
    let mark = path.join(MARK);
    let is_file = std::fs::symlink_metadata(&mark).is_ok_and(|m| m.file_type().is_file());
    if !is_file {
        return false;
    }
    let Ok(file) = File::open(&mark) else {
        return false;
    };
    let text = std::fs::read(&mark).unwrap_or_default();
    if text != MARK_TEXT.as_bytes() {
        return false;
    }
    // A live writer holds the lock; a stopped one does not.
    if file.try_lock().is_err() {
        return false;
    }
    let removed = std::fs::remove_dir_all(path).is_ok();
    let _ = file.unlock();
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_marked_unheld_or_empty_directories_of_the_names_given_are_removed() {
        let root = std::env::temp_dir().join(format!("leftovers-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("root");
        let dir = |name: &str| {
            let path = root.join(name);
            std::fs::create_dir_all(&path).expect("dir");
            path
        };
        // A stopped run's: marked, nobody holds it.
        let stopped = dir(".out.staging-1-0");
        drop(Mark::new(&stopped).expect("marks"));
        std::fs::write(stopped.join("a.json"), b"{}").expect("a file");
        // A live run's: marked and held.
        let live = dir(".out.staging-2-0");
        let held = Mark::new(&live).expect("marks");
        // Empty, as a kill before the mark leaves it.
        dir(".out.old-3-0");
        // Not ours: no mark, a mark of other text, another name.
        let unmarked = dir(".out.staging-4-0");
        std::fs::write(unmarked.join("mine.txt"), b"mine").expect("a file");
        let forged = dir(".out.staging-5-0");
        std::fs::write(forged.join(MARK), b"something else").expect("a file");
        let other = dir("out-staging-6");
        drop(Mark::new(&other).expect("marks"));
        let removed = sweep(&root, &[".out.staging-", ".out.old-"]);
        assert_eq!(
            removed,
            [root.join(".out.old-3-0"), root.join(".out.staging-1-0")]
        );
        for kept in [&live, &unmarked, &forged, &other] {
            assert!(kept.is_dir(), "{}", kept.display());
        }
        drop(held);
        assert_eq!(sweep(&root, &[".out.staging-"]), [live]);
        std::fs::remove_dir_all(&root).expect("cleaned");
    }
}
