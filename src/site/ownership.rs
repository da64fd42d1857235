//! Which directories a build may replace: only one that does not exist, is empty, or is a site
//! this program wrote (its manifest lists every file in it). Decided before anything is touched.
//!
//! SECURITY: a build swaps a whole directory out and deletes the old one, so a wrong answer
//! here destroys a user's files. Anything not provably ours is refused, and a path that is not a
//! directory (a regular file, a symbolic link, a device) is never moved.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::base::error::{Error, Result};
use crate::site::manifest::{Manifest, MANIFEST};

/// What an output path holds, when a build may replace it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replaceable {
    /// Nothing is there yet.
    Absent,
    /// An empty directory.
    Empty,
    /// A site this program wrote: a manifest of ours that lists every file in the tree.
    OwnSite,
}

/// How many unexpected entries a refusal names before it summarises the rest.
const NAMED_IN_REFUSAL: usize = 3;

/// Decides whether `out` may be replaced by a build, or refuses with a message that names the
/// path, what is wrong and what to do. Reads only; never changes anything.
pub fn check_replaceable(out: &Path) -> Result<Replaceable> {
    let refuse = |why: String| Error::NotReplaceable {
        path: out.to_path_buf(),
        why,
    };
    let meta = match std::fs::symlink_metadata(out) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Replaceable::Absent),
        Err(e) => return Err(Error::io("cannot inspect", out, e)),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        // Replacing the link would leave its target behind and the link gone; following it would
        // replace a directory the user named only indirectly. Neither is what was asked.
        return Err(refuse(
            "it is a symbolic link; name the directory itself".to_string(),
        ));
    }
    if !kind.is_dir() {
        return Err(refuse("it is a file, not a directory".to_string()));
    }
    let mut entries = std::fs::read_dir(out).map_err(|e| Error::io("cannot list", out, e))?;
    if entries.next().is_none() {
        return Ok(Replaceable::Empty);
    }
    let manifest = match Manifest::read(out) {
        Ok((manifest, _)) => manifest,
        Err(_) => {
            return Err(refuse(format!(
                "it is not empty and holds no site manifest ({MANIFEST}) written by model-demand"
            )))
        }
    };
    let strangers = unlisted_entries(out, &manifest)?;
    if strangers.is_empty() {
        return Ok(Replaceable::OwnSite);
    }
    let named: Vec<String> = strangers
        .iter()
        .take(NAMED_IN_REFUSAL)
        .map(|p| p.display().to_string())
        .collect();
    let more = strangers.len().saturating_sub(NAMED_IN_REFUSAL);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Err(refuse(format!(
        "it holds a site but also {} entr{} its manifest does not list ({}{tail})",
        strangers.len(),
        if strangers.len() == 1 { "y" } else { "ies" },
        named.join(", ")
    )))
}

/// Every entry under `root` that the manifest does not account for: a file it does not list, a
/// directory that holds none of its files, or anything that is neither file nor directory.
fn unlisted_entries(root: &Path, manifest: &Manifest) -> Result<Vec<PathBuf>> {
    let files: BTreeSet<&str> = manifest
        .files
        .iter()
        .map(|e| e.path.as_str())
        .chain([MANIFEST])
        .collect();
    let dirs: BTreeSet<&str> = files
        .iter()
        .flat_map(|path| {
            path.match_indices('/')
                .map(move |(at, _)| &path[..at])
                .collect::<Vec<_>>()
        })
        .collect();
    let mut strangers = Vec::new();
    for entry in WalkDir::new(root).min_depth(1).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(root).to_path_buf();
            Error::io("cannot walk", path, e.into())
        })?;
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(rel_text) = rel.to_str() else {
            strangers.push(rel.to_path_buf());
            continue;
        };
        let kind = entry.file_type();
        let known = (kind.is_file() && files.contains(rel_text))
            || (kind.is_dir() && dirs.contains(rel_text));
        if !known {
            strangers.push(rel.to_path_buf());
        }
    }
    Ok(strangers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::manifest::ManifestEntry;

    fn manifest(paths: &[&str]) -> Manifest {
        Manifest {
            schema_version: crate::site::manifest::MANIFEST_SCHEMA_VERSION.to_string(),
            built_from: None,
            files: paths
                .iter()
                .map(|p| ManifestEntry {
                    path: p.to_string(),
                    bytes: 0,
                    sha256: String::new(),
                })
                .collect(),
        }
    }

    fn write_site(root: &Path, listed: &[&str]) {
        for path in listed {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().expect("has parent")).expect("mkdir");
            std::fs::write(file, b"x").expect("write");
        }
        let bytes = serde_json::to_vec(&manifest(listed)).expect("serializes");
        std::fs::write(root.join(MANIFEST), bytes).expect("write manifest");
    }

    #[test]
    fn absent_and_empty_directories_may_be_replaced() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("out");
        assert_eq!(check_replaceable(&out).ok(), Some(Replaceable::Absent));
        std::fs::create_dir(&out).expect("mkdir");
        assert_eq!(check_replaceable(&out).ok(), Some(Replaceable::Empty));
    }

    #[test]
    fn a_site_whose_manifest_lists_every_file_is_ours() {
        let dir = tempfile::tempdir().expect("temp dir");
        write_site(dir.path(), &["a/b/c.json", "api/v1/about"]);
        assert_eq!(
            check_replaceable(dir.path()).ok(),
            Some(Replaceable::OwnSite)
        );
    }

    #[test]
    fn a_file_or_empty_directory_the_manifest_does_not_list_is_refused() {
        for extra in ["photo.jpg", "a/notes.txt"] {
            let dir = tempfile::tempdir().expect("temp dir");
            write_site(dir.path(), &["a/b/c.json"]);
            std::fs::write(dir.path().join(extra), b"mine").expect("write");
            let err = check_replaceable(dir.path()).expect_err("refused");
            assert!(err.to_string().contains(extra), "{err}");
        }
        let dir = tempfile::tempdir().expect("temp dir");
        write_site(dir.path(), &["a/b/c.json"]);
        std::fs::create_dir(dir.path().join("keep")).expect("mkdir");
        let err = check_replaceable(dir.path()).expect_err("refused");
        assert!(err.to_string().contains("keep"), "{err}");
    }

    #[test]
    fn a_foreign_or_broken_manifest_is_not_ours() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join(MANIFEST), br#"{"name":"my-app"}"#).expect("write");
        let err = check_replaceable(dir.path()).expect_err("refused");
        assert!(err.to_string().contains("no site manifest"), "{err}");
    }

    #[test]
    fn a_regular_file_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("afile");
        std::fs::write(&file, b"data").expect("write");
        let err = check_replaceable(&file).expect_err("refused");
        assert!(err.to_string().contains("not a directory"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("target");
        std::fs::create_dir(&target).expect("mkdir");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        let err = check_replaceable(&link).expect_err("refused");
        assert!(err.to_string().contains("symbolic link"), "{err}");
    }
}
