//! The bundled sample and the default policy inside the binary, and which copy a command reads.
//!
//! Precedence, for each input: a path given on the command line; else the repository's file
//! at its usual place in the current directory (`data/sample/export.json`,
//! `data/sample/supply.json`, `data/policy.json`), so an edit of the checkout is what a
//! command in its root reads; else the copy compiled into the binary. So `model-demand serve`
//! answers in any directory, and a binary installed with `cargo install` needs no checkout.

use std::path::{Path, PathBuf};

use crate::base::error::{Error, Result};

/// Where the bundled sample export lives, relative to the repository root.
pub const SAMPLE_EXPORT: &str = "data/sample/export.json";
/// Where the bundled sample supply feed lives, relative to the repository root.
pub const SAMPLE_SUPPLY: &str = "data/sample/supply.json";
/// Where the default collection policy lives, relative to the repository root.
pub const DEFAULT_POLICY: &str = "data/policy.json";

/// The sample export as it was when the binary was built.
const EXPORT: &[u8] = include_bytes!("../../data/sample/export.json");
/// The sample supply feed as it was when the binary was built.
const SUPPLY: &[u8] = include_bytes!("../../data/sample/supply.json");
/// The default policy as it was when the binary was built.
const POLICY: &[u8] = include_bytes!("../../data/policy.json");

/// How the output names the embedded copies.
pub const EMBEDDED: &str = "the bundled sample (embedded in the binary)";

/// One input file: a path to read, or a copy inside the binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file (given on the command line, or the repository's in the current directory).
    File(PathBuf),
    /// The copy compiled in of the repository file at this path.
    Embedded(&'static str),
}

impl Source {
    /// The input at `flag` when one was given, else the repository's file at `default` when it
    /// is in the current directory, else its embedded copy. `default` must be one of
    /// [`SAMPLE_EXPORT`], [`SAMPLE_SUPPLY`] or [`DEFAULT_POLICY`].
    pub fn resolve(flag: Option<&Path>, default: &'static str) -> Source {
        match flag {
            Some(path) => Source::File(path.to_path_buf()),
            None if Path::new(default).is_file() => Source::File(PathBuf::from(default)),
            None => Source::Embedded(default),
        }
    }

    /// The name messages give the input: its path, or `embedded:PATH` for a copy in the binary.
    pub fn name(&self) -> PathBuf {
        match self {
            Source::File(path) => path.clone(),
            Source::Embedded(default) => PathBuf::from(format!("embedded:{default}")),
        }
    }

    /// The input's bytes.
    pub fn read(&self) -> Result<Vec<u8>> {
        match self {
            Source::File(path) => {
                std::fs::read(path).map_err(|e| Error::io("cannot read", path, e))
            }
            Source::Embedded(default) => Ok(embedded(default).to_vec()),
        }
    }

    /// True for a copy inside the binary.
    pub fn is_embedded(&self) -> bool {
        matches!(self, Source::Embedded(_))
    }
}

/// The embedded copy of the repository file at `default` (empty for a path that has none,
/// which [`Source::resolve`]'s callers never give).
fn embedded(default: &str) -> &'static [u8] {
    match default {
        SAMPLE_EXPORT => EXPORT,
        SAMPLE_SUPPLY => SUPPLY,
        DEFAULT_POLICY => POLICY,
        _ => &[],
    }
}

/// What the output says a site or a check was made from: `the bundled sample (embedded in the
/// binary)` when every input is an embedded copy, else each input by its path.
pub fn describe(export: &Source, supply: Option<&Source>) -> String {
    if export.is_embedded() && supply.is_none_or(Source::is_embedded) {
        return EMBEDDED.to_string();
    }
    let one = |source: &Source| match source {
        Source::File(path) => path.display().to_string(),
        Source::Embedded(default) => format!("{default} embedded in the binary"),
    };
    let supply = supply.map_or_else(
        || "no supply feed".to_string(),
        |s| format!("supply {}", one(s)),
    );
    format!("export {}, {supply}", one(export))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_copies_are_the_repository_files() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for default in [SAMPLE_EXPORT, SAMPLE_SUPPLY, DEFAULT_POLICY] {
            let file = std::fs::read(root.join(default)).expect("the repository file");
            assert_eq!(embedded(default), file.as_slice(), "{default}");
        }
    }

    #[test]
    fn the_embedded_sample_passes_the_gate() {
        let inputs = crate::input::load_sources(
            &Source::Embedded(SAMPLE_EXPORT),
            Some(&Source::Embedded(SAMPLE_SUPPLY)),
        )
        .expect("the embedded sample is accepted");
        assert!(crate::input::sample::is_sample(&inputs.export));
        assert_eq!(inputs.export_bytes, EXPORT);
    }

    #[test]
    fn a_flag_wins_and_an_absent_repository_file_is_the_embedded_copy() {
        let given = Path::new("elsewhere/export.json");
        assert_eq!(
            Source::resolve(Some(given), SAMPLE_EXPORT),
            Source::File(given.to_path_buf())
        );
        // The unit tests run in the crate root, where the repository's files are.
        assert_eq!(
            Source::resolve(None, SAMPLE_EXPORT),
            Source::File(PathBuf::from(SAMPLE_EXPORT))
        );
        assert_eq!(
            describe(
                &Source::Embedded(SAMPLE_EXPORT),
                Some(&Source::Embedded(SAMPLE_SUPPLY))
            ),
            EMBEDDED
        );
        assert_eq!(
            describe(&Source::File(given.to_path_buf()), None),
            "export elsewhere/export.json, no supply feed"
        );
        assert_eq!(
            describe(
                &Source::File(given.to_path_buf()),
                Some(&Source::Embedded(SAMPLE_SUPPLY))
            ),
            "export elsewhere/export.json, supply data/sample/supply.json embedded in the binary"
        );
    }
}
