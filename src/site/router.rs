//! The pure router of the preview server: a written site indexed from its manifest and routing
//! table, and `resolve(method, raw_target, if_none_match)` → the answer the CDN gives. The
//! models route is decided by [`query::route`], the same decision as `query` and the edge
//! function; this module maps the site's other addresses as the `_redirects` rules do.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::cache::BodyCache;
use super::range::{self, Ranged};
use crate::answers::render::{self, error_body, ErrorCode, Response};
use crate::base::digest::sha256_hex;
use crate::base::error::{Error, Result};
use crate::query::{self, list_file, ListQuery, Routed};
use crate::site::edge;
use crate::site::manifest::{Manifest, MANIFEST};
use crate::site::netlify::{self, headers_for_file, CONFIG_FILES, MODELS_PATH, UNAVAILABLE_PATHS};
use crate::site::{RoutingTable, ROUTES};

/// One servable file: its size and the SHA-256 its strong validator quotes. Where it is comes
/// from the site's directory and the manifest key when it is read, so opening a site of
/// 68,000 files allocates nothing per file beyond what the manifest's parse did.
#[derive(Debug, Clone)]
struct SiteFile {
    bytes: u64,
    /// As the manifest lists it; `None` for the manifest itself, hashed when first asked for
    /// ([`Site::manifest_sha256`]).
    sha256: Option<String>,
}

/// A written site, indexed from its manifest and routing table.
#[derive(Debug)]
pub struct Site {
    dir: PathBuf,
    files: BTreeMap<String, SiteFile>,
    routes: RoutingTable,
    cache: BodyCache,
    /// The manifest's own SHA-256, made when its ETag is first needed: hashing it (13 MB for
    /// the sample) was an eighth of opening a site, which every `serve` and `mcp` start waits
    /// for.
    manifest_sha256: OnceLock<Option<String>>,
}

/// A response body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// Bytes made while answering.
    Bytes(Vec<u8>),
    /// A site file, by manifest key.
    File(String),
    /// Bytes `first..=last` of a site file, by manifest key (a 206).
    Part {
        /// The file's manifest key.
        key: String,
        /// The first byte.
        first: u64,
        /// The last byte (included).
        last: u64,
    },
}

/// What a request asks beyond its method and target: the validators and the byte range it
/// sends (the header values as received; none of them is ever copied into an answer).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Conditions<'a> {
    /// `If-None-Match`.
    pub if_none_match: Option<&'a str>,
    /// `Range`.
    pub range: Option<&'a str>,
    /// `If-Range`.
    pub if_range: Option<&'a str>,
}

/// What the router answers: status, headers and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// Response headers (static names; values never contain request bytes).
    pub headers: Vec<(&'static str, String)>,
    /// The body; for HEAD and 304 it is still described, and the transport omits it.
    pub body: Body,
    /// Length of the body in bytes.
    pub length: u64,
}

impl Answer {
    /// The value of the header `name` (names are the server's own static names).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl Site {
    /// Opens a written site: reads its manifest and routing table and checks every listed path
    /// is a plain relative path inside the site.
    pub fn open(dir: &Path) -> Result<Site> {
        let read_json = |name: &str| -> Result<Vec<u8>> {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|e| Error::io("cannot read", path, e))
        };
        let (manifest, manifest_bytes) = Manifest::read(dir)?;
        let routes: RoutingTable =
            serde_json::from_slice(&read_json(ROUTES)?).map_err(|why| Error::NotARoutingTable {
                dir: dir.to_path_buf(),
                why,
            })?;
        if let Some(entry) = manifest.files.iter().find(|e| !is_plain_relative(&e.path)) {
            return Err(Error::UnsafeManifestPath {
                dir: dir.to_path_buf(),
                path: entry.path.clone(),
            });
        }
        let mut files: BTreeMap<String, SiteFile> = manifest
            .files
            .into_iter()
            .map(|entry| {
                let file = SiteFile {
                    bytes: entry.bytes,
                    sha256: Some(entry.sha256),
                };
                (entry.path, file)
            })
            .collect();
        // The manifest cannot list itself; the CDN serves it like any other file.
        files.insert(
            MANIFEST.to_string(),
            SiteFile {
                bytes: manifest_bytes.len() as u64,
                sha256: None,
            },
        );
        let site = Site {
            dir: dir.to_path_buf(),
            files,
            routes,
            cache: BodyCache::default(),
            manifest_sha256: OnceLock::new(),
        };
        site.check_edge_parts()?;
        Ok(site)
    }

    /// An `edge` site's parts must assemble every list answer: each ordering named, its file
    /// listed in the manifest and its offsets agreeing with its records. A site whose parts
    /// cannot is refused when it opens (by `serve` and `verify`), with the file named.
    fn check_edge_parts(&self) -> Result<()> {
        let Some(parts) = &self.routes.edge else {
            return Ok(());
        };
        let total = usize::try_from(self.routes.total).unwrap_or(usize::MAX);
        let read = |key: &str| -> std::result::Result<Vec<u8>, String> {
            match self.files.get(key) {
                Some(_) => self
                    .read_body(&Body::File(key.to_string()))
                    .map_err(|e| format!("{key}: cannot read ({e})")),
                None => Err(format!(
                    "{key}: named by the routing table, not in the manifest"
                )),
            }
        };
        let mut problems: Vec<String> = read(&parts.head).err().into_iter().collect();
        for (sort, order) in query::list_orders() {
            let key = edge::ordering_key(sort, order);
            let Some(ordering) = parts.orderings.get(&key) else {
                problems.push(format!("{ROUTES}: no edge ordering {key}"));
                continue;
            };
            match read(&ordering.file) {
                Ok(bytes) => problems.extend(edge::check_ordering(ordering, &bytes, total)),
                Err(why) => problems.push(why),
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Verify(problems))
        }
    }

    /// The SHA-256 of the site's manifest (the file as served), hashed once; `None` when it
    /// cannot be read.
    fn manifest_sha256(&self) -> Option<&str> {
        self.manifest_sha256
            .get_or_init(|| {
                self.body_bytes(&Body::File(MANIFEST.to_string()))
                    .ok()
                    .map(|bytes| sha256_hex(&bytes))
            })
            .as_deref()
    }

    /// The routing table.
    pub fn routes(&self) -> &RoutingTable {
        &self.routes
    }

    /// Reads a body.
    pub fn read_body(&self, body: &Body) -> std::io::Result<Vec<u8>> {
        self.body_bytes(body).map(|bytes| bytes.to_vec())
    }

    /// The bytes of a body, from the cache where possible.
    pub(crate) fn body_bytes(&self, body: &Body) -> std::io::Result<Arc<[u8]>> {
        match body {
            Body::Bytes(bytes) => Ok(bytes.as_slice().into()),
            Body::File(key) => self.file_bytes(key),
            Body::Part { key, first, last } => {
                let bytes = self.file_bytes(key)?;
                let range = usize::try_from(*first)
                    .ok()
                    .zip(usize::try_from(*last).ok())
                    .and_then(|(first, last)| bytes.get(first..=last));
                match range {
                    Some(part) => Ok(part.into()),
                    None => Err(std::io::Error::other("range past the file's end")),
                }
            }
        }
    }

    /// The bytes of the file `key`, from the cache where possible.
    fn file_bytes(&self, key: &str) -> std::io::Result<Arc<[u8]>> {
        match self.files.get(key) {
            // The key is a manifest entry checked plain and relative when the site opened.
            Some(_) => self.cache.get_or_read(key, || self.dir.join(key)),
            None => Err(std::io::Error::other("file not in manifest")),
        }
    }

    /// Answers one request with its conditions: [`Site::resolve`], then the byte range a `GET`
    /// of a file asks for, as the CDN answers it (RFC 9110: after `If-None-Match`, so a 304
    /// stays a 304; `Range` on `HEAD` ignored).
    pub fn resolve_with(
        &self,
        method: &str,
        raw_target: &str,
        conditions: Conditions<'_>,
    ) -> Answer {
        let answer = self.resolve(method, raw_target, conditions.if_none_match);
        if method == "GET" {
            ranged(answer, conditions.range, conditions.if_range)
        } else {
            answer
        }
    }

    /// Answers one request. `raw_target` is the request-target as sent (origin form
    /// `/path?query`, or absolute form `http://host/path?query`).
    pub fn resolve(&self, method: &str, raw_target: &str, if_none_match: Option<&str>) -> Answer {
        if method != "GET" && method != "HEAD" {
            let mut answer = self.error(ErrorCode::MethodNotAllowed, None);
            answer.headers.push(("Allow", "GET, HEAD".to_string()));
            return answer;
        }
        let target = strip_absolute_form(raw_target);
        let (raw_path, raw_query) = target.split_once('?').unwrap_or((target, ""));
        // The CDN matches decoded paths; a path that does not decode cannot name a file.
        let Ok(path) = query::percent_decode_path(raw_path) else {
            return self.error(ErrorCode::NotFound, None);
        };
        let moved = self.routes.redirects.iter().find(|r| r.matches(&path));
        // Netlify's rules (and the edge function's path) match with an optional trailing slash.
        let path = rule_path(&path, self.routes.has_data);
        let answer = if let Some(redirect) = moved {
            redirect_to(redirect.status, &redirect.to)
        } else if path == MODELS_PATH {
            self.models(method, raw_query)
        } else if !self.routes.has_data && UNAVAILABLE_PATHS.contains(&path) {
            self.error(ErrorCode::DataUnavailable, None)
        } else if let Some((_, file)) = netlify::file_rewrites(self.routes.has_data)
            .into_iter()
            .find(|(from, _)| *from == path)
        {
            self.file(file)
        } else {
            self.static_file(path)
        };
        not_modified(answer, if_none_match)
    }

    /// `/api/v1/models`: the one route decision, then the precomputed file or a made answer.
    fn models(&self, method: &str, raw_query: &str) -> Answer {
        match query::route(method, raw_query, &self.routes) {
            Err(refused) => from_response(render::refusal(&refused)),
            Ok(Routed::Model(key)) => self.file(key),
            Ok(Routed::Page(list) | Routed::PastEnd(list)) if self.routes.edge.is_some() => {
                self.assembled(&list)
            }
            Ok(Routed::Page(list)) => self.file(&list_file(&list)),
            Ok(Routed::PastEnd(list)) => self.past_the_end(&list),
        }
    }

    /// A list answer of an `edge` site, assembled from its parts as the edge function does
    /// (checked when the site opened).
    fn assembled(&self, list: &ListQuery) -> Answer {
        let Some(parts) = &self.routes.edge else {
            return self.error(ErrorCode::Internal, None);
        };
        let ordering = parts
            .orderings
            .get(&edge::ordering_key(list.sort, list.order));
        let head = self.body_bytes(&Body::File(parts.head.clone()));
        let records = ordering.map(|o| self.body_bytes(&Body::File(o.file.clone())));
        match (ordering, head, records) {
            (Some(ordering), Ok(head), Some(Ok(records))) => {
                let mut body = Vec::new();
                edge::assemble(&head, &records, &ordering.offsets, list, &mut body);
                json_bytes(200, body)
            }
            _ => self.error(ErrorCode::Internal, None),
        }
    }

    /// A page past the end has no file: it is made from the parts of the page at offset N.
    fn past_the_end(&self, list: &ListQuery) -> Answer {
        let last = Body::File(list_file(&ListQuery {
            offset: self.routes.total,
            ..*list
        }));
        let total = usize::try_from(self.routes.total).unwrap_or(usize::MAX);
        let page = self
            .body_bytes(&last)
            .ok()
            .and_then(|page| render::past_end_page(&page, list, total));
        match page {
            Some(body) => json_bytes(200, body),
            // The routing table names a page the site does not hold: a broken site.
            None => self.error(ErrorCode::Internal, None),
        }
    }

    /// A public static file, by exact manifest key; `/docs/` serves `docs/index.html`.
    fn static_file(&self, path: &str) -> Answer {
        let Some(key) = path.strip_prefix('/') else {
            return self.error(ErrorCode::NotFound, None);
        };
        let key = if key.is_empty() || key.ends_with('/') {
            format!("{key}index.html")
        } else if self.files.contains_key(&format!("{key}/index.html")) {
            format!("{key}/index.html")
        } else {
            key.to_string()
        };
        if CONFIG_FILES.contains(&key.as_str()) || !self.files.contains_key(&key) {
            return self.error(ErrorCode::NotFound, None);
        }
        self.file(&key)
    }

    /// A site file with the headers the CDN gives its public path.
    fn file(&self, key: &str) -> Answer {
        let Some(file) = self.files.get(key) else {
            // Listed in the routing table but missing from the manifest: a broken site.
            return self.error(ErrorCode::Internal, None);
        };
        let Some(sha256) = file.sha256.as_deref().or_else(|| self.manifest_sha256()) else {
            // The manifest itself, unreadable since the site opened.
            return self.error(ErrorCode::Internal, None);
        };
        let mut headers: Vec<(&'static str, String)> = headers_for_file(key)
            .iter()
            .map(|(name, value)| (*name, (*value).to_string()))
            .collect();
        headers.push(("ETag", format!("\"{sha256}\"")));
        headers.push(("Accept-Ranges", "bytes".to_string()));
        Answer {
            status: 200,
            headers,
            body: Body::File(key.to_string()),
            length: file.bytes,
        }
    }

    /// An error answer: the site's precomputed body, or `message` when one is given.
    fn error(&self, code: ErrorCode, message: Option<&str>) -> Answer {
        let body = error_body(code, message.unwrap_or(code.generic_message()));
        json_bytes(code.status(), body)
    }
}

/// The path a rule of the CDN sees: a path with one trailing slash is the rule's own path when
/// it names the models route or a rewritten file (the redirects match it themselves).
fn rule_path(path: &str, has_data: bool) -> &str {
    let rule_paths = std::iter::once(MODELS_PATH).chain(UNAVAILABLE_PATHS).chain(
        netlify::file_rewrites(has_data)
            .into_iter()
            .map(|(from, _)| from),
    );
    for rule in rule_paths {
        if netlify::trailing_slash_of(path, rule) {
            return rule;
        }
    }
    path
}

/// A redirect (301 or 302) to a location from the site's own redirect table (never from the
/// request).
fn redirect_to(status: u16, location: &str) -> Answer {
    Answer {
        status,
        headers: vec![
            ("Location", location.to_string()),
            (
                "Cache-Control",
                "public, max-age=0, must-revalidate".to_string(),
            ),
            (netlify::NOSNIFF.0, netlify::NOSNIFF.1.to_string()),
        ],
        body: Body::Bytes(Vec::new()),
        length: 0,
    }
}

/// An answer with bytes made while answering, and JSON headers.
pub(crate) fn json_bytes(status: u16, body: Vec<u8>) -> Answer {
    let mut headers: Vec<(&'static str, String)> = netlify::JSON_HEADERS
        .iter()
        .map(|(name, value)| (*name, (*value).to_string()))
        .collect();
    if status == 200 {
        headers.push(("ETag", format!("\"{}\"", sha256_hex(&body))));
    }
    Answer {
        status,
        length: body.len() as u64,
        headers,
        body: Body::Bytes(body),
    }
}

fn from_response(response: Response) -> Answer {
    json_bytes(response.status, response.body)
}

/// Turns a 200 into a 304 when the client already holds this representation.
pub(crate) fn not_modified(answer: Answer, if_none_match: Option<&str>) -> Answer {
    let Some(candidates) = if_none_match else {
        return answer;
    };
    if answer.status != 200 {
        return answer;
    }
    let Some(etag) = answer.header("ETag").map(str::to_owned) else {
        return answer;
    };
    let matches = candidates.split(',').map(str::trim).any(|candidate| {
        candidate == "*" || candidate.strip_prefix("W/").unwrap_or(candidate) == etag
    });
    if !matches {
        return answer;
    }
    let headers = answer
        .headers
        .into_iter()
        .filter(|(name, _)| *name != "Content-Type")
        .collect();
    Answer {
        status: 304,
        headers,
        body: Body::Bytes(Vec::new()),
        length: 0,
    }
}

/// A file's 200 as the byte range the request asks for: a 206 of one range, a 416 when no
/// byte satisfies it, else unchanged (every other answer, and every range not honoured).
fn ranged(answer: Answer, range: Option<&str>, if_range: Option<&str>) -> Answer {
    let Body::File(key) = &answer.body else {
        return answer;
    };
    let Some(etag) = answer.header("ETag").filter(|_| answer.status == 200) else {
        return answer;
    };
    match range::decide(range, if_range, etag, answer.length) {
        Ranged::Whole => answer,
        Ranged::Part(part) => {
            let mut headers = answer.headers.clone();
            headers.push(("Content-Range", part.content_range(answer.length)));
            Answer {
                status: 206,
                headers,
                body: Body::Part {
                    key: key.clone(),
                    first: part.first,
                    last: part.last,
                },
                length: part.len(),
            }
        }
        Ranged::Unsatisfiable => {
            // No body, so no type; the validator and the length the range missed.
            let mut headers: Vec<(&'static str, String)> = answer
                .headers
                .iter()
                .filter(|(name, _)| *name != "Content-Type")
                .cloned()
                .collect();
            headers.push(("Content-Range", range::unsatisfied_range(answer.length)));
            Answer {
                status: 416,
                headers,
                body: Body::Bytes(Vec::new()),
                length: 0,
            }
        }
    }
}

/// `http://host/path?q` → `/path?q`; origin-form targets pass unchanged.
fn strip_absolute_form(target: &str) -> &str {
    for scheme in ["http://", "https://"] {
        if let Some(rest) = target
            .get(..scheme.len())
            .filter(|s| s.eq_ignore_ascii_case(scheme))
            .map(|_| &target[scheme.len()..])
        {
            return rest.find('/').map_or("/", |i| &rest[i..]);
        }
    }
    target
}

/// True for a relative path of plain components (`a/b.json`): no root, `..`, `.` or empty part.
fn is_plain_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\\')
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_form_targets_reduce_to_their_path() {
        assert_eq!(
            strip_absolute_form("http://x/api/v1/about"),
            "/api/v1/about"
        );
        assert_eq!(strip_absolute_form("HTTP://x"), "/");
        assert_eq!(strip_absolute_form("/a?b"), "/a?b");
    }

    #[test]
    fn only_plain_relative_paths_are_servable() {
        assert!(is_plain_relative("api/v1/about"));
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a//b",
            "a/./b",
            "a\\b",
            "a/",
        ] {
            assert!(!is_plain_relative(bad), "{bad}");
        }
    }

    #[test]
    fn etags_match_with_lists_and_weak_forms() {
        let answer = json_bytes(200, b"{}".to_vec());
        let etag = answer
            .header("ETag")
            .expect("200 carries an ETag")
            .to_owned();
        let hit = not_modified(answer.clone(), Some(&format!("\"x\", W/{etag}")));
        assert_eq!(hit.status, 304);
        assert_eq!(not_modified(answer.clone(), Some("\"nope\"")).status, 200);
        assert_eq!(not_modified(answer, Some("*")).status, 304);
    }
}
