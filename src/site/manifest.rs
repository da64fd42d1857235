//! The site's manifest (`manifest.json` at the root): every file but itself with its size and
//! SHA-256, its one reader and its one writer. The build writes it; the preview server, `verify`
//! and the ownership check read it, so it lives apart from the site writer they would otherwise
//! import.

use std::io::{self, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, ManifestProblem, Result};

/// Name of the manifest at the site root.
pub const MANIFEST: &str = "manifest.json";
/// The manifest's `schema_version`: what marks a directory as a site this program wrote.
pub const MANIFEST_SCHEMA_VERSION: &str = "model-demand.manifest.v1";

/// One file of the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// Site-relative path with `/` separators.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Lower-case hex SHA-256 of the content.
    pub sha256: String,
}

/// What a site was built from: the program and the inputs' SHA-256, so that `serve` can tell
/// a site it wrote from older inputs (or by another version) and `verify` can tell a site not
/// built from the inputs it is given. Absent from the manifests of sites built before it was
/// recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuiltFrom {
    /// The program and its version (`model-demand 0.1.0`).
    pub program: String,
    /// The command that wrote the site: `build`, or `serve` (the preview, from the sample).
    pub written_by: String,
    /// The base address the site's links name (`--base-url`; the preview's own site names
    /// the local server, `http://localhost:PORT`).
    pub base_url: String,
    /// SHA-256 of the export's bytes (`null` for the no-data site).
    pub export_sha256: Option<String>,
    /// SHA-256 of the supply feed's bytes (`null` without one).
    pub supply_sha256: Option<String>,
}

/// This program as [`BuiltFrom::program`] names it.
pub const PROGRAM: &str = concat!("model-demand ", env!("CARGO_PKG_VERSION"));

impl BuiltFrom {
    /// The record of a site written by `written_by` for `base_url` from inputs of these bytes.
    pub fn new(
        written_by: &str,
        base_url: &str,
        export: Option<&[u8]>,
        supply: Option<&[u8]>,
    ) -> BuiltFrom {
        BuiltFrom {
            program: PROGRAM.to_string(),
            written_by: written_by.to_string(),
            base_url: base_url.to_string(),
            export_sha256: export.map(crate::base::digest::sha256_hex),
            supply_sha256: supply.map(crate::base::digest::sha256_hex),
        }
    }

    /// How `self` (a site's record) differs from `other` (the inputs at hand), in words, or
    /// `None` when the program and both inputs are the same (who wrote it does not count).
    pub fn differences(&self, other: &BuiltFrom) -> Option<String> {
        let mut what = Vec::new();
        if self.export_sha256 != other.export_sha256 {
            what.push("another export".to_string());
        }
        if self.supply_sha256 != other.supply_sha256 {
            what.push("another supply feed".to_string());
        }
        if self.base_url != other.base_url {
            what.push(format!("another base URL ({})", self.base_url));
        }
        if self.program != other.program {
            what.push(format!("another program version ({})", self.program));
        }
        (!what.is_empty()).then(|| what.join(", "))
    }
}

/// The manifest: every file of the site but the manifest itself, sorted by path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `model-demand.manifest.v1`.
    pub schema_version: String,
    /// What the site was built from (absent in sites built before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub built_from: Option<BuiltFrom>,
    /// The files.
    pub files: Vec<ManifestEntry>,
}

impl Manifest {
    /// True when `dir/manifest.json` is a manifest of this program's schema. Reads its
    /// `schema_version` and skips over the entries without keeping them, for a caller that only
    /// asks whether a site is there (`serve` then opens it once, not twice).
    pub fn is_present(dir: &Path) -> bool {
        #[derive(Deserialize)]
        struct Head {
            schema_version: String,
            #[serde(rename = "files")]
            _files: serde::de::IgnoredAny,
        }
        std::fs::read(dir.join(MANIFEST))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Head>(&bytes).ok())
            .is_some_and(|head| head.schema_version == MANIFEST_SCHEMA_VERSION)
    }

    /// What the site in `dir` records it was built from, when its manifest is of this
    /// program's schema and records it; reads the head and skips over the entries.
    pub fn built_from(dir: &Path) -> Option<BuiltFrom> {
        #[derive(Deserialize)]
        struct Head {
            schema_version: String,
            #[serde(default)]
            built_from: Option<BuiltFrom>,
            #[serde(rename = "files")]
            _files: serde::de::IgnoredAny,
        }
        std::fs::read(dir.join(MANIFEST))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Head>(&bytes).ok())
            .filter(|head| head.schema_version == MANIFEST_SCHEMA_VERSION)
            .and_then(|head| head.built_from)
    }

    /// Reads `dir/manifest.json`, returning it and its bytes; the one loader of the preview
    /// server, `verify` and the build's ownership check. A manifest of another schema is refused.
    pub fn read(dir: &Path) -> Result<(Manifest, Vec<u8>)> {
        let path = dir.join(MANIFEST);
        let bytes = std::fs::read(&path).map_err(|e| Error::io("cannot read", &path, e))?;
        let manifest: Manifest =
            serde_json::from_slice(&bytes).map_err(|e| Error::NotAManifest {
                dir: dir.to_path_buf(),
                why: ManifestProblem::Format(e),
            })?;
        if manifest.schema_version != MANIFEST_SCHEMA_VERSION {
            return Err(Error::NotAManifest {
                dir: dir.to_path_buf(),
                why: ManifestProblem::Version(manifest.schema_version),
            });
        }
        Ok((manifest, bytes))
    }
}

/// Writes a manifest entry by entry, in path order, byte for byte as `serde_json::to_vec_pretty`
/// writes the whole [`Manifest`], so a build never holds every entry (120,000 and more at real
/// scale) or the whole text in memory. Counts the site's files and bytes, the manifest included.
pub struct ManifestWriter<W: Write> {
    out: CountingWriter<W>,
    /// The previous entry's path (empty before the first).
    last: String,
    files: u64,
    bytes: u64,
}

/// A `Write` that counts what passes through it.
struct CountingWriter<W: Write> {
    inner: W,
    written: u64,
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> ManifestWriter<W> {
    /// Starts a manifest on `out`, with what the site was built from.
    pub fn new(out: W, built_from: Option<&BuiltFrom>) -> io::Result<ManifestWriter<W>> {
        let mut out = CountingWriter {
            inner: out,
            written: 0,
        };
        out.write_all(b"{\n  \"schema_version\": ")?;
        serde_json::to_writer(&mut out, MANIFEST_SCHEMA_VERSION)?;
        if let Some(built_from) = built_from {
            out.write_all(b",\n  \"built_from\": ")?;
            let text = serde_json::to_string_pretty(built_from)?;
            // One level deep: every newline of the text is a line break of the layout.
            out.write_all(text.replace('\n', "\n  ").as_bytes())?;
        }
        out.write_all(b",\n  \"files\": [")?;
        Ok(ManifestWriter {
            out,
            last: String::new(),
            files: 0,
            bytes: 0,
        })
    }

    /// Adds `entry`, whose path must sort after the previous entry's (a manifest is sorted and
    /// lists each file once; anything else is the build's own mistake, refused here).
    pub fn push(&mut self, entry: &ManifestEntry) -> io::Result<()> {
        if self.files > 0 && self.last >= entry.path {
            return Err(io::Error::other(format!(
                "manifest entries out of order: {:?} after {:?}",
                entry.path, self.last
            )));
        }
        let text = serde_json::to_string_pretty(entry)?;
        // Each entry sits two levels deep. A JSON string never holds a raw newline, so every
        // newline of the text is a line break of the layout.
        self.out.write_all(if self.files == 0 {
            b"\n    "
        } else {
            b",\n    "
        })?;
        self.out
            .write_all(text.replace('\n', "\n    ").as_bytes())?;
        self.files += 1;
        self.bytes += entry.bytes;
        self.last.clear();
        self.last.push_str(&entry.path);
        Ok(())
    }

    /// Ends the manifest; gives the site's files and bytes (the manifest counted) and `out`.
    pub fn finish(mut self) -> io::Result<(u64, u64, W)> {
        self.out.write_all(if self.files == 0 {
            b"]\n}"
        } else {
            b"\n  ]\n}"
        })?;
        self.out.flush()?;
        let manifest_bytes = self.out.written;
        Ok((self.files + 1, self.bytes + manifest_bytes, self.out.inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, bytes: u64) -> ManifestEntry {
        ManifestEntry {
            path: path.to_string(),
            bytes,
            sha256: format!("{bytes:064x}"),
        }
    }

    fn streamed(entries: &[ManifestEntry]) -> io::Result<(u64, u64, Vec<u8>)> {
        streamed_from(entries, None)
    }

    fn streamed_from(
        entries: &[ManifestEntry],
        built_from: Option<&BuiltFrom>,
    ) -> io::Result<(u64, u64, Vec<u8>)> {
        let mut writer = ManifestWriter::new(Vec::new(), built_from)?;
        for e in entries {
            writer.push(e)?;
        }
        writer.finish()
    }

    #[test]
    fn a_streamed_manifest_is_the_whole_one_byte_for_byte() {
        let record = BuiltFrom::new("serve", "http://localhost:8080", Some(b"export"), None);
        for built_from in [None, Some(&record)] {
            same_bytes_streamed_and_whole(built_from);
        }
    }

    #[test]
    fn a_record_differs_by_inputs_address_and_program_not_by_writer() {
        let local = "http://localhost:8080";
        let site = BuiltFrom::new("serve", local, Some(b"a"), Some(b"s"));
        let same = BuiltFrom::new("build", local, Some(b"a"), Some(b"s"));
        assert_eq!(site.differences(&same), None);
        let other = BuiltFrom::new("serve", "http://localhost:8081", Some(b"b"), None);
        assert_eq!(
            site.differences(&other).as_deref(),
            Some("another export, another supply feed, another base URL (http://localhost:8080)")
        );
        let old = BuiltFrom {
            program: "model-demand 0.0.1".to_string(),
            ..site.clone()
        };
        assert_eq!(
            old.differences(&site).as_deref(),
            Some("another program version (model-demand 0.0.1)")
        );
    }

    fn same_bytes_streamed_and_whole(built_from: Option<&BuiltFrom>) {
        for entries in [
            vec![],
            vec![entry("_api/a.json", 3)],
            vec![
                entry("_api/models/list/tokens_30d/desc/1/0.json", 10),
                entry("_api/models/list/tokens_30d/desc/1/1.json", 0),
                entry("a \"quoted\" \\ path/é.json", 7),
                entry("llms.txt", 4818),
            ],
        ] {
            let whole = serde_json::to_vec_pretty(&Manifest {
                schema_version: MANIFEST_SCHEMA_VERSION.to_string(),
                built_from: built_from.cloned(),
                files: entries.clone(),
            })
            .expect("serializes");
            let (files, bytes, text) = streamed_from(&entries, built_from).expect("written");
            assert_eq!(
                String::from_utf8(text).expect("utf-8"),
                String::from_utf8(whole.clone()).expect("utf-8")
            );
            assert_eq!(files, entries.len() as u64 + 1);
            let sum: u64 = entries.iter().map(|e| e.bytes).sum();
            assert_eq!(bytes, sum + whole.len() as u64);
        }
    }

    #[test]
    fn entries_out_of_order_or_twice_are_refused() {
        assert!(streamed(&[entry("b", 1), entry("a", 1)]).is_err());
        assert!(streamed(&[entry("a", 1), entry("a", 1)]).is_err());
    }
}
