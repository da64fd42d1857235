//! The preview server: a pure router, `resolve(method, raw_target, if_none_match)`, that
//! answers exactly as the CDN does from a written site, and a bounded tiny_http loop around it.
//!
//! SECURITY: files are served only from the site's manifest. A request's path is compared with
//! manifest keys and never joined onto a directory; the file opened is the manifest's own path.
//! No request byte is ever copied into a response header: headers are static text, the
//! manifest's digests, or lengths.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::netlify::{self, headers_for, CONFIG_FILES, MODELS_PATH, UNAVAILABLE_PATHS};
use crate::query::{self, list_echo, list_file, ListQuery, Request};
use crate::render::{self, assemble_page, error_body, ErrorCode, Response};
use crate::site::{sha256_hex, Manifest, RoutingTable, MANIFEST, ROUTES};

/// Address the server binds to unless told otherwise: loopback only.
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";
/// Worker threads answering requests.
pub const DEFAULT_WORKERS: usize = 8;
/// How long a connection may stay silent (reading) or stalled (writing) before it is dropped.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// One servable file: where it is and its strong validator.
#[derive(Debug, Clone)]
struct SiteFile {
    path: PathBuf,
    bytes: u64,
    etag: String,
}

/// A written site, indexed from its manifest and routing table.
#[derive(Debug)]
pub struct Site {
    files: BTreeMap<String, SiteFile>,
    routes: RoutingTable,
    cache: BodyCache,
}

/// Bytes of file bodies kept in memory; the busiest pages are small and read again and again.
pub const CACHE_BYTES: u64 = 128 * 1024 * 1024;

/// A bounded, fill-once cache of file bodies: files are immutable while served, so an entry
/// never goes stale; once the budget is spent, further files are read from disk each time.
#[derive(Debug, Default)]
struct BodyCache {
    entries: std::sync::RwLock<std::collections::HashMap<String, Arc<[u8]>>>,
    used: std::sync::atomic::AtomicU64,
}

impl BodyCache {
    fn get_or_read(&self, key: &str, path: &Path) -> std::io::Result<Arc<[u8]>> {
        if let Some(hit) = self
            .entries
            .read()
            .ok()
            .and_then(|map| map.get(key).cloned())
        {
            return Ok(hit);
        }
        let bytes: Arc<[u8]> = std::fs::read(path)?.into();
        let size = bytes.len() as u64;
        let used = self
            .used
            .fetch_add(size, std::sync::atomic::Ordering::Relaxed);
        if used + size <= CACHE_BYTES {
            if let Ok(mut map) = self.entries.write() {
                map.insert(key.to_string(), Arc::clone(&bytes));
            }
        } else {
            self.used
                .fetch_sub(size, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(bytes)
    }
}

/// A response body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// Bytes made while answering.
    Bytes(Vec<u8>),
    /// A site file, by manifest key.
    File(String),
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
        let routes: RoutingTable = serde_json::from_slice(&read_json(ROUTES)?)
            .map_err(|e| Error::Usage(format!("{}: not a routing table ({e})", dir.display())))?;
        let mut files = BTreeMap::new();
        for entry in manifest.files {
            if !is_plain_relative(&entry.path) {
                return Err(Error::Usage(format!(
                    "{}: manifest lists an unsafe path {:?}",
                    dir.display(),
                    entry.path
                )));
            }
            let file = SiteFile {
                path: dir.join(&entry.path),
                bytes: entry.bytes,
                etag: format!("\"{}\"", entry.sha256),
            };
            files.insert(entry.path, file);
        }
        // The manifest cannot list itself; the CDN serves it like any other file.
        files.insert(
            MANIFEST.to_string(),
            SiteFile {
                path: dir.join(MANIFEST),
                bytes: manifest_bytes.len() as u64,
                etag: format!("\"{}\"", sha256_hex(&manifest_bytes)),
            },
        );
        Ok(Site {
            files,
            routes,
            cache: BodyCache::default(),
        })
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
    fn body_bytes(&self, body: &Body) -> std::io::Result<Arc<[u8]>> {
        match body {
            Body::Bytes(bytes) => Ok(bytes.as_slice().into()),
            Body::File(key) => match self.files.get(key) {
                Some(file) => self.cache.get_or_read(key, &file.path),
                None => Err(std::io::Error::other("file not in manifest")),
            },
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
            self.models(raw_query)
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

    /// `GET /api/v1/models`: the query rules, then the precomputed file.
    fn models(&self, raw_query: &str) -> Answer {
        if !self.routes.has_data {
            return self.error(ErrorCode::DataUnavailable, None);
        }
        match query::parse(raw_query) {
            Err(error) => from_response(render::invalid_query(&error)),
            Ok(Request::Exact(model_id)) => match self.routes.models.get(&model_id) {
                Some(key) => self.file(key),
                None => from_response(render::model_not_found(&model_id)),
            },
            Ok(Request::List(list)) if list.offset > self.routes.total => self.past_the_end(&list),
            Ok(Request::List(list)) => self.file(&list_file(&list)),
        }
    }

    /// A page past the end has no file: the empty page at offset N with the requested offset.
    fn past_the_end(&self, list: &ListQuery) -> Answer {
        let last = ListQuery {
            offset: self.routes.total,
            ..*list
        };
        let Some(bytes) = self
            .files
            .get(&list_file(&last))
            .and_then(|f| std::fs::read(&f.path).ok())
        else {
            return self.error(ErrorCode::Internal, None);
        };
        let Some(head_end) = find_last(&bytes, render::QUERY_MARKER) else {
            return self.error(ErrorCode::Internal, None);
        };
        let total = usize::try_from(self.routes.total).unwrap_or(usize::MAX);
        let (echo, pagination) = list_echo(list, total);
        let mut body = Vec::with_capacity(bytes.len() + 16);
        assemble_page(
            &bytes[..head_end],
            &echo,
            &pagination,
            std::iter::empty(),
            &mut body,
        );
        json_bytes(200, body)
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
        let mut headers: Vec<(&'static str, String)> = headers_for(&format!("/{key}"))
            .iter()
            .map(|(name, value)| (*name, (*value).to_string()))
            .collect();
        headers.push(("ETag", file.etag.clone()));
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
        ],
        body: Body::Bytes(Vec::new()),
        length: 0,
    }
}

/// An answer with bytes made while answering, and JSON headers.
fn json_bytes(status: u16, body: Vec<u8>) -> Answer {
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
fn not_modified(answer: Answer, if_none_match: Option<&str>) -> Answer {
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

fn find_last(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
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

/// A running preview server.
#[derive(Debug)]
pub struct Running {
    /// The address it listens on (the real port when port 0 was asked for).
    pub addr: SocketAddr,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl Running {
    /// Blocks while the server runs (until the process is stopped).
    pub fn wait(self) {
        for worker in self.workers {
            let _ = worker.join();
        }
    }
}

/// How the server runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeOptions {
    /// Worker threads answering requests (at least 1).
    pub workers: usize,
    /// Read and write timeout of every connection.
    pub io_timeout: Duration,
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            workers: DEFAULT_WORKERS,
            io_timeout: IO_TIMEOUT,
        }
    }
}

/// Starts serving a written site on `bind` with a fixed number of worker threads.
pub fn start(dir: &Path, bind: SocketAddr, options: ServeOptions) -> Result<Running> {
    let workers = options.workers;
    let site = Arc::new(Site::open(dir)?);
    let listener = listen(bind, options.io_timeout)?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::io("cannot listen on", bind.to_string(), e))?;
    let server = tiny_http::Server::from_listener(listener, None)
        .map_err(|e| Error::Usage(format!("cannot serve on {bind}: {e}")))?;
    let server = Arc::new(server);
    let workers = (0..workers.max(1))
        .map(|_| {
            let (server, site) = (Arc::clone(&server), Arc::clone(&site));
            std::thread::spawn(move || loop {
                if let Ok(request) = server.recv() {
                    handle(&site, request);
                }
            })
        })
        .collect();
    Ok(Running { addr, workers })
}

/// Serves a written site until the process is stopped.
pub fn serve(dir: &Path, bind: SocketAddr, workers: usize) -> Result<()> {
    let options = ServeOptions {
        workers,
        ..ServeOptions::default()
    };
    let running = start(dir, bind, options)?;
    eprintln!(
        "serving {dir} ({workers} worker threads): docs http://{addr}/docs/, API http://{addr}/api/v1/models, contract http://{addr}/api/v1/about",
        dir = dir.display(),
        addr = running.addr,
        workers = workers.max(1)
    );
    running.wait();
    Ok(())
}

/// Binds a listening socket whose read and write timeouts every accepted connection inherits
/// (Linux copies them on accept), since tiny_http sets none: a silent or stalled client is
/// dropped after `timeout` instead of holding a thread forever.
fn listen(bind: SocketAddr, timeout: Duration) -> Result<std::net::TcpListener> {
    use socket2::{Domain, Socket, Type};
    let io = |e| Error::io("cannot listen on", bind.to_string(), e);
    let socket = Socket::new(Domain::for_address(bind), Type::STREAM, None).map_err(io)?;
    socket.set_reuse_address(true).map_err(io)?;
    socket.set_read_timeout(Some(timeout)).map_err(io)?;
    socket.set_write_timeout(Some(timeout)).map_err(io)?;
    // tiny_http writes the head and the body separately; without TCP_NODELAY (also inherited)
    // Nagle and delayed ACKs add ~40 ms to every keep-alive response.
    socket.set_nodelay(true).map_err(io)?;
    socket.bind(&bind.into()).map_err(io)?;
    socket.listen(1024).map_err(io)?;
    Ok(socket.into())
}

/// Answers one request; a panic while answering becomes a 500 and the worker lives on.
fn handle(site: &Site, request: tiny_http::Request) {
    let method = request.method().as_str().to_string();
    let if_none_match = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("If-None-Match"))
        .map(|h| h.value.as_str().to_string());
    let (answer, body) = answer_safely(|| {
        let answer = site.resolve(&method, request.url(), if_none_match.as_deref());
        let body = site.body_bytes(&answer.body);
        (answer, body)
    });
    let head_only = method == "HEAD";
    let message = http_message(&answer, &body, head_only, &http_date());
    // The whole response goes out in one write: tiny_http's own writer copies bodies in 8 KB
    // pieces, one send each, which cost more than the routing itself. A client that went away
    // is not an error of the server.
    let mut writer = request.into_writer();
    let _ = writer.write_all(&message).and_then(|()| writer.flush());
}

/// The bytes of an HTTP/1.1 response: status line, the answer's headers, Date, Server,
/// Content-Length, then the body unless the request was HEAD or the status has none.
///
/// SECURITY: header values come from the answer (static text, digests, lengths) and never
/// contain CR or LF, so nothing here can split the response.
fn http_message(answer: &Answer, body: &[u8], head_only: bool, date: &str) -> Vec<u8> {
    use std::io::Write as _;
    let has_body = !matches!(answer.status, 100..=199 | 204 | 304);
    let mut out = Vec::with_capacity(320 + body.len());
    let _ = write!(
        out,
        "HTTP/1.1 {} {}\r\nDate: {date}\r\nServer: model-demand\r\n",
        answer.status,
        reason_phrase(answer.status)
    );
    for (name, value) in &answer.headers {
        if !value.contains(['\r', '\n']) {
            let _ = write!(out, "{name}: {value}\r\n");
        }
    }
    if has_body {
        let _ = write!(out, "Content-Length: {}\r\n", answer.length);
    }
    out.extend_from_slice(b"\r\n");
    if has_body && !head_only {
        out.extend_from_slice(body);
    }
    out
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    }
}

/// The current time as an HTTP date (`Sun, 22 Nov 2026 23:02:40 GMT`).
fn http_date() -> String {
    let now = time::OffsetDateTime::now_utc();
    let format = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    now.format(&format).unwrap_or_default()
}

/// Runs the router; a panic or an unreadable file becomes a 500 instead of a dead worker.
fn answer_safely(
    work: impl FnOnce() -> (Answer, std::io::Result<Arc<[u8]>>),
) -> (Answer, Arc<[u8]>) {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok((answer, Ok(body))) => (answer, body),
        _ => {
            let body = error_body(ErrorCode::Internal, ErrorCode::Internal.generic_message());
            (json_bytes(500, body.clone()), body.into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_while_answering_is_a_500() {
        let (answer, body) = answer_safely(|| panic!("boom"));
        assert_eq!(answer.status, 500);
        assert!(String::from_utf8_lossy(&body).contains("internal_error"));
        let (answer, _) = answer_safely(|| {
            (
                json_bytes(200, Vec::new()),
                Err(std::io::Error::other("gone")),
            )
        });
        assert_eq!(answer.status, 500);
    }

    #[test]
    fn http_messages_carry_length_and_omit_bodies_where_due() {
        let answer = json_bytes(200, b"{}".to_vec());
        let text = String::from_utf8(http_message(&answer, b"{}", false, "D")).expect("ascii");
        assert!(text.starts_with("HTTP/1.1 200 OK\r\nDate: D\r\n"), "{text}");
        assert!(text.ends_with("Content-Length: 2\r\n\r\n{}"), "{text}");
        let head = String::from_utf8(http_message(&answer, b"{}", true, "D")).expect("ascii");
        assert!(head.ends_with("Content-Length: 2\r\n\r\n"), "{head}");
        let not_modified = not_modified(answer, Some("*"));
        let text = String::from_utf8(http_message(&not_modified, b"", false, "D")).expect("ascii");
        assert!(text.starts_with("HTTP/1.1 304 Not Modified") && !text.contains("Content-Length"));
        assert!(http_date().ends_with(" GMT"));
    }

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
