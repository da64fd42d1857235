//! Hugging Face repository evidence: model info pinned to its commit, files at that commit,
//! safetensors headers read with Range requests only (never the weights), the quantized-children
//! search, and the on-disk cache of immutable files keyed by (repository, commit, file).
//!
//! SECURITY: the cache path is built from a repository ID and a commit the source sent, so each
//! component is reduced to a safe name (see [`safe_component`]); nothing can escape the cache.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Deserialize;

use super::http::{Client, FetchError, RequestKind, Secret};
use super::safetensors::{self, Tensor, FIRST_RANGE_BYTES};

/// The public host named in every `source_url`, whatever `--huggingface-url` is.
pub(super) const PUBLIC_HOST: &str = "https://huggingface.co";
/// The index file naming a sharded checkpoint's files.
pub(super) const INDEX_FILE: &str = "model.safetensors.index.json";
/// The single-file checkpoint.
pub(super) const SINGLE_FILE: &str = "model.safetensors";

/// Why evidence could not be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum HubError {
    /// 401, 403 or 404: gated, private or gone.
    Denied(u16),
    /// 5xx or timeouts after retries, or another unexpected status: try again another night.
    Unavailable(String),
    /// The answer arrived but is not what the format says (for example a broken header).
    Broken(String),
    /// The host's name does not resolve: no request reached it (offline, or a wrong URL).
    Unresolved(String),
}

/// A repository pinned to one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RepoInfo {
    /// The repository ID after redirects (a renamed repository answers with its new ID).
    pub id: String,
    /// The commit every file is read at.
    pub sha: String,
    /// Files at that commit with their sizes when listed.
    pub siblings: Vec<Sibling>,
}

/// One file of a repository listing.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(super) struct Sibling {
    /// Repository-relative path.
    pub rfilename: String,
    /// Size in bytes (with `?blobs=true`).
    #[serde(default)]
    pub size: Option<u64>,
    /// LFS details; their size is the real file's.
    #[serde(default)]
    pub lfs: Option<LfsInfo>,
}

/// LFS details of a sibling.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(super) struct LfsInfo {
    /// The file's size.
    #[serde(default)]
    pub size: Option<u64>,
}

impl Sibling {
    /// The file's size: the LFS size for an LFS file, else the listed size.
    pub(super) fn bytes(&self) -> Option<u64> {
        self.lfs.as_ref().and_then(|l| l.size).or(self.size)
    }
}

#[derive(Deserialize)]
struct RawInfo {
    id: String,
    sha: Option<String>,
    #[serde(default)]
    siblings: Vec<Sibling>,
}

#[derive(Deserialize)]
struct RawChild {
    id: String,
}

/// The Hugging Face side of one run.
pub(super) struct Hub<'a> {
    client: &'a Client,
    base: String,
    token: Option<&'a Secret>,
    cache: Option<PathBuf>,
    /// Small files already read this run (a quantized base's index is needed twice), so even
    /// without `--cache` no file is requested twice.
    read: Mutex<BTreeMap<String, Vec<u8>>>,
}

impl<'a> Hub<'a> {
    /// A hub reader at `base` (normally the public host), with an optional token and cache.
    pub(super) fn new(
        client: &'a Client,
        base: &str,
        token: Option<&'a Secret>,
        cache: Option<&Path>,
    ) -> Hub<'a> {
        Hub {
            client,
            base: base.trim_end_matches('/').to_string(),
            token,
            cache: cache.map(Path::to_path_buf),
            read: Mutex::new(BTreeMap::new()),
        }
    }

    fn get(
        &self,
        kind: RequestKind,
        path: &str,
        headers: &[(&str, &str)],
    ) -> Result<Vec<u8>, HubError> {
        let url = format!("{}{path}", self.base);
        match self.client.get(kind, &url, self.token, headers) {
            Ok(answer) if answer.ok() => Ok(answer.body),
            Ok(answer) if matches!(answer.status, 401 | 403 | 404) => {
                Err(HubError::Denied(answer.status))
            }
            Ok(answer) => Err(HubError::Unavailable(format!(
                "{url} answered {}",
                answer.status
            ))),
            Err(e @ FetchError::Unresolved { .. }) => Err(HubError::Unresolved(e.to_string())),
            Err(e) => Err(HubError::Unavailable(e.to_string())),
        }
    }

    /// Model info with file sizes, pinned to the current commit, or to `revision` (a commit
    /// SHA, full or abbreviated: the answer's commit must begin with it).
    pub(super) fn info(&self, repo: &str, revision: Option<&str>) -> Result<RepoInfo, HubError> {
        let path = match revision {
            None => format!("/api/models/{repo}?blobs=true"),
            Some(rev) => format!("/api/models/{repo}/revision/{rev}?blobs=true"),
        };
        let body = self.get(RequestKind::HfInfo, &path, &[])?;
        let raw: RawInfo = serde_json::from_slice(&body)
            .map_err(|e| HubError::Broken(format!("model info of {repo}: {e}")))?;
        let sha = raw
            .sha
            .filter(|s| s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| HubError::Broken(format!("model info of {repo} has no commit sha")))?;
        if let Some(rev) = revision {
            if !sha
                .to_ascii_lowercase()
                .starts_with(&rev.to_ascii_lowercase())
            {
                return Err(HubError::Broken(format!(
                    "model info of {repo} at revision {rev} answered commit {sha}"
                )));
            }
        }
        Ok(RepoInfo {
            id: raw.id,
            sha: sha.to_ascii_lowercase(),
            siblings: raw.siblings,
        })
    }

    /// A whole (small) file at a commit, from the cache when it is there.
    pub(super) fn file(&self, repo: &RepoInfo, file: &str) -> Result<Vec<u8>, HubError> {
        let key = resolve_path(repo, file);
        let remembered = self
            .read
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .cloned();
        let bytes = match remembered.or_else(|| self.cached(repo, file)) {
            Some(bytes) => bytes,
            None => {
                let bytes = self.get(RequestKind::HfFile, &key, &[])?;
                self.store(repo, file, &bytes);
                bytes
            }
        };
        self.read
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, bytes.clone());
        Ok(bytes)
    }

    /// The tensors of a safetensors file at a commit, read from its header with Range requests
    /// (`bytes=0-100000`, then the rest of the header when it is longer).
    pub(super) fn header(&self, repo: &RepoInfo, file: &str) -> Result<Vec<Tensor>, HubError> {
        let key = format!("{file}.header");
        let parse = |json: &[u8]| {
            safetensors::parse_header(json).map_err(|e| HubError::Broken(format!("{file}: {e}")))
        };
        if let Some(json) = self.cached(repo, &key) {
            return parse(&json);
        }
        let path = resolve_path(repo, file);
        let first_range = format!("bytes=0-{}", FIRST_RANGE_BYTES - 1);
        let first = self.get(RequestKind::HfRange, &path, &[("Range", &first_range)])?;
        let n = safetensors::header_length(&first)
            .map_err(|e| HubError::Broken(format!("{file}: {e}")))?;
        let end = 8 + usize::try_from(n).unwrap_or(usize::MAX);
        let json = if first.len() >= end {
            first[8..end].to_vec()
        } else {
            let rest = format!("bytes=8-{}", n + 7);
            let bytes = self.get(RequestKind::HfRange, &path, &[("Range", &rest)])?;
            if bytes.len() < n as usize {
                return Err(HubError::Broken(format!(
                    "{file}: header of {n} bytes, {} arrived",
                    bytes.len()
                )));
            }
            bytes[..n as usize].to_vec()
        };
        // Parsed before it is stored: a broken header is never cached.
        let tensors = parse(&json)?;
        self.store(repo, &key, &json);
        Ok(tensors)
    }

    /// The same author's repositories tagged as quantizations of `repo`, sorted by ID.
    pub(super) fn quantized_children(&self, repo: &str) -> Result<Vec<String>, HubError> {
        let author = repo.split('/').next().unwrap_or(repo);
        let path = format!(
            "/api/models?author={}&filter=base_model:quantized:{repo}&limit=100",
            author
        );
        let body = self.get(RequestKind::HfSearch, &path, &[])?;
        let children: Vec<RawChild> = serde_json::from_slice(&body)
            .map_err(|e| HubError::Broken(format!("quantized children of {repo}: {e}")))?;
        let mut ids: Vec<String> = children
            .into_iter()
            .map(|c| c.id)
            .filter(|id| id.split('/').next() == Some(author) && id != repo)
            .collect();
        ids.sort();
        ids.dedup();
        Ok(ids)
    }

    fn cache_path(&self, repo: &RepoInfo, file: &str) -> Option<PathBuf> {
        let mut path = self.cache.clone()?;
        path.push(safe_component(&repo.id));
        path.push(safe_component(&repo.sha));
        path.push(safe_component(file));
        Some(path)
    }

    fn cached(&self, repo: &RepoInfo, file: &str) -> Option<Vec<u8>> {
        std::fs::read(self.cache_path(repo, file)?).ok()
    }

    /// Stores a file atomically; a cache that cannot be written only costs requests next time.
    fn store(&self, repo: &RepoInfo, file: &str, bytes: &[u8]) {
        let Some(path) = self.cache_path(repo, file) else {
            return;
        };
        let Some(dir) = path.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let temp = dir.join(format!(".tmp-{}-{}", std::process::id(), unique()));
        if std::fs::write(&temp, bytes).is_ok() && std::fs::rename(&temp, &path).is_ok() {
            return;
        }
        let _ = std::fs::remove_file(&temp);
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn resolve_path(repo: &RepoInfo, file: &str) -> String {
    format!("/{}/resolve/{}/{file}", repo.id, repo.sha)
}

/// A pinned evidence URL for a file: `https://huggingface.co/{repo}/blob/{sha}/{file}`.
pub(super) fn blob_url(repo: &RepoInfo, file: &str) -> String {
    format!("{PUBLIC_HOST}/{}/blob/{}/{file}", repo.id, repo.sha)
}

/// A pinned evidence URL for the file listing: `https://huggingface.co/{repo}/tree/{sha}`.
pub(super) fn tree_url(repo: &RepoInfo) -> String {
    format!("{PUBLIC_HOST}/{}/tree/{}", repo.id, repo.sha)
}

/// One path component from arbitrary text: ASCII letters, digits, `.`, `_` and `-` kept, every
/// other byte written as `%XX`, and a leading `.` escaped so `.` and `..` cannot occur.
pub(super) fn safe_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, b) in text.bytes().enumerate() {
        let keep = b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (b == b'.' && i > 0);
        if keep {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.is_empty() {
        out.push_str("%00");
    }
    out
}

/// The checkpoint's files (DESIGN §10): the root-level files the index names, else the single
/// root `model.safetensors`; `None` when there is no safetensors checkpoint. The index's bytes
/// are read through `index` only when the listing has one.
pub(super) fn checkpoint_files(
    info: &RepoInfo,
    index: impl FnOnce() -> Result<Vec<u8>, HubError>,
) -> Result<Option<(String, Vec<String>)>, HubError> {
    let listed = |name: &str| info.siblings.iter().any(|s| s.rfilename == name);
    if listed(INDEX_FILE) {
        let bytes = index()?;
        let value: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| HubError::Broken(format!("{INDEX_FILE}: {e}")))?;
        let map = value
            .get("weight_map")
            .and_then(serde_json::Value::as_object)
            .ok_or_else(|| HubError::Broken(format!("{INDEX_FILE} has no weight_map")))?;
        let mut files: Vec<String> = map
            .values()
            .filter_map(serde_json::Value::as_str)
            .filter(|f| !f.contains('/') && f.ends_with(".safetensors"))
            .map(str::to_string)
            .collect();
        files.sort();
        files.dedup();
        return Ok((!files.is_empty()).then(|| (INDEX_FILE.to_string(), files)));
    }
    Ok(listed(SINGLE_FILE).then(|| (SINGLE_FILE.to_string(), vec![SINGLE_FILE.to_string()])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_components_never_escape() {
        for hostile in ["..", ".", "a/../../etc", "/abs", "", "x\0y", "a\\b"] {
            let c = safe_component(hostile);
            assert!(!c.contains('/') && !c.contains('\\') && c != "." && c != "..");
            assert!(!c.starts_with('.'), "{c}");
        }
        assert_eq!(
            safe_component("meta-llama/Llama-3.1-8B"),
            "meta-llama%2FLlama-3.1-8B"
        );
    }

    fn info(files: &[&str]) -> RepoInfo {
        RepoInfo {
            id: "o/r".to_string(),
            sha: "0".repeat(40),
            siblings: files
                .iter()
                .map(|f| Sibling {
                    rfilename: f.to_string(),
                    size: Some(1),
                    lfs: None,
                })
                .collect(),
        }
    }

    #[test]
    fn the_checkpoint_is_the_root_files_of_the_index() {
        let repo = info(&[INDEX_FILE, "original/consolidated.00.pth"]);
        let index = br#"{"weight_map":{"a":"model-00002-of-00002.safetensors",
            "b":"model-00001-of-00002.safetensors","c":"original/x.safetensors",
            "d":"model-00001-of-00002.safetensors"}}"#;
        let (evidence, files) = checkpoint_files(&repo, || Ok(index.to_vec()))
            .expect("read")
            .expect("has a checkpoint");
        assert_eq!(evidence, INDEX_FILE);
        assert_eq!(
            files,
            [
                "model-00001-of-00002.safetensors",
                "model-00002-of-00002.safetensors"
            ]
        );
        let single = info(&[SINGLE_FILE, "model.gguf"]);
        let found = checkpoint_files(&single, || unreachable!("no index listed"));
        assert_eq!(
            found.expect("read").map(|(_, f)| f),
            Some(vec![SINGLE_FILE.to_string()])
        );
        let none = info(&["pytorch_model.bin", "metal/model.bin"]);
        assert_eq!(checkpoint_files(&none, || unreachable!()), Ok(None));
    }
}
