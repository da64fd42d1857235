//! The preview server's transport: tiny_http on a listening socket with timeouts, each request
//! answered on the thread that read its connection, and each response written by the server
//! itself in one piece.

use std::borrow::Cow;
use std::io::{IoSlice, Write};
use std::net::SocketAddr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::agents::{ApiServer, Source};
use crate::answers::render::{error_body, ErrorCode};
use crate::base::error::{Error, Result};
use crate::site::router::{json_bytes, Answer, Body, Conditions, Site};

/// The address `--bind` names: an IP address and port as they are (`127.0.0.1:8080`,
/// `[::1]:8080`, `0.0.0.0:8080` when asked), or a host name and port that resolves to loopback
/// addresses only (`localhost:8080`), the IPv4 one first. A host name that resolves to any
/// other address is refused: a name is not a way to expose the server by surprise (give the
/// address itself to listen elsewhere).
pub fn parse_bind(text: &str) -> std::result::Result<SocketAddr, String> {
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let Some((host, port)) = text.rsplit_once(':') else {
        return Err(format!(
            "{text} is not HOST:PORT (for example 127.0.0.1:8080 or localhost:8080)"
        ));
    };
    let Ok(port) = port.parse::<u16>() else {
        return Err(format!(
            "{text}: the port {port} is not a number from 0 to 65535"
        ));
    };
    let addrs: Vec<SocketAddr> = std::net::ToSocketAddrs::to_socket_addrs(&(host, port))
        .map_err(|_| format!("the host name {host} does not resolve"))?
        .collect();
    loopback_of(host, &addrs)
}

/// The address to bind for a host name resolving to `addrs`: the IPv4 loopback address when
/// there is one, else the first; refused when any address is not loopback, or there is none.
fn loopback_of(host: &str, addrs: &[SocketAddr]) -> std::result::Result<SocketAddr, String> {
    if addrs.is_empty() {
        return Err(format!("the host name {host} does not resolve"));
    }
    if let Some(other) = addrs.iter().find(|a| !a.ip().is_loopback()) {
        return Err(format!(
            "the host name {host} resolves to {ip}, which is not a loopback address; a host              name must name this machine's loopback (localhost), and to listen elsewhere give              the address itself (for example --bind 0.0.0.0:{port})",
            ip = other.ip(),
            port = other.port()
        ));
    }
    Ok(addrs
        .iter()
        .find(|a| a.is_ipv4())
        .copied()
        .unwrap_or(addrs[0]))
}

/// Address the server binds to unless told otherwise: loopback only.
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";
/// Connection threads kept ready to read and answer requests.
pub const DEFAULT_WORKERS: usize = 8;
/// How long a connection may stay silent (reading) or stalled (writing) before it is dropped.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// A running preview server.
pub struct Running {
    /// The address it listens on (the real port when port 0 was asked for).
    pub addr: SocketAddr,
    /// Serves while it lives: dropping it stops the accept loop.
    server: tiny_http::Server,
    /// What it answers from; [`Running::switch_to`] replaces it.
    current: Arc<RwLock<Arc<Served>>>,
}

/// What a server answers from: a written site and the MCP endpoint over it.
struct Served {
    site: Arc<Site>,
    mcp: ApiServer,
}

impl Served {
    fn open(dir: &Path) -> Result<Served> {
        let site = Arc::new(Site::open(dir)?);
        // `/mcp` answers from the same site, through the MCP handler over its catalogue.
        let mcp = ApiServer::new(Source::Dir(Arc::clone(&site)));
        Ok(Served { site, mcp })
    }
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running").field("addr", &self.addr).finish()
    }
}

impl Running {
    /// Answers every request from now on from the site written in `dir` (opened first; on
    /// error nothing changes). Requests already being answered finish from the old site, which
    /// is dropped when the last of them is done; returns once that has happened, so the old
    /// site's files may then be removed.
    pub fn switch_to(&self, dir: &Path) -> Result<()> {
        let next = Arc::new(Served::open(dir)?);
        let old = {
            let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
            std::mem::replace(&mut *current, next)
        };
        // Each request holds its own reference while it is answered (at most the I/O timeout
        // once its answer is being written).
        while Arc::strong_count(&old) > 1 {
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    }

    /// Blocks while the server runs (until the process is stopped).
    pub fn wait(self) {
        let _serving = self.server;
        loop {
            std::thread::park();
        }
    }
}

/// How the server runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeOptions {
    /// Connection threads kept ready (at least 1). Each reads and answers the requests of one
    /// connection at a time; more start while more connections are open.
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

/// Starts serving a written site on `bind`.
pub fn start(dir: &Path, bind: SocketAddr, options: ServeOptions) -> Result<Running> {
    let current = Arc::new(RwLock::new(Arc::new(Served::open(dir)?)));
    let listener = listen(bind, options.io_timeout)?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::io("cannot listen on", bind.to_string(), e))?;
    // Each request is answered on the thread that read it: handing it to another thread cost
    // two context switches per request, most of the time of a small page (benches/serve.sh).
    let serving = Arc::clone(&current);
    let handler = Arc::new(move |request| {
        let served = Arc::clone(&serving.read().unwrap_or_else(|p| p.into_inner()));
        handle(&served.site, &served.mcp, request);
    });
    let threads = options.workers.max(1);
    let server = tiny_http::Server::from_listener_with_handler(listener, None, threads, handler)
        .map_err(|why| Error::Serve { bind, why })?;
    Ok(Running {
        addr,
        server,
        current,
    })
}

/// Serves a written site until the process is stopped.
pub fn serve(dir: &Path, bind: SocketAddr, workers: usize) -> Result<()> {
    let options = ServeOptions {
        workers,
        ..ServeOptions::default()
    };
    let running = start(dir, bind, options)?;
    eprintln!("{}", serving_line(dir, running.addr, workers));
    running.wait();
    Ok(())
}

/// What `serve` says once it answers from `dir`: where to look.
pub fn serving_line(dir: &Path, addr: SocketAddr, workers: usize) -> String {
    format!(
        "serving {dir} ({workers} connection threads ready): docs http://{addr}/docs/, API http://{addr}/api/v1/models, contract http://{addr}/api/v1/about, MCP http://{addr}/mcp",
        dir = dir.display(),
        workers = workers.max(1)
    )
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
    socket.set_tcp_nodelay(true).map_err(io)?;
    socket.bind(&bind.into()).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AddrInUse {
            Error::AddressInUse { bind }
        } else {
            io(e)
        }
    })?;
    socket.listen(1024).map_err(io)?;
    Ok(socket.into())
}

/// Answers one request (`/mcp` by the MCP endpoint, every other path by the site's router); a
/// panic while answering becomes a 500 and the worker lives on.
fn handle(site: &Site, mcp: &ApiServer, mut request: tiny_http::Request) {
    // The method outlives the borrow of the request `/mcp` takes; GET and HEAD, nearly every
    // request, are kept without allocating.
    let method: Cow<'static, str> = match request.method() {
        tiny_http::Method::Get => Cow::Borrowed("GET"),
        tiny_http::Method::Head => Cow::Borrowed("HEAD"),
        other => Cow::Owned(other.as_str().to_string()),
    };
    // The header values as sent, read by the router and never copied into an answer.
    let header = |name: &'static str| {
        request
            .headers()
            .iter()
            .find(|h| h.field.equiv(name))
            .map(|h| h.value.as_str().to_string())
    };
    let if_none_match = header("If-None-Match");
    let range = header("Range");
    let if_range = header("If-Range");
    let (answer, body) = answer_safely(|| {
        let answer = if super::mcp::is_mcp(request.url()) {
            super::mcp::answer(mcp, &mut request)
        } else {
            let conditions = Conditions {
                if_none_match: if_none_match.as_deref(),
                range: range.as_deref(),
                if_range: if_range.as_deref(),
            };
            site.resolve_with(&method, request.url(), conditions)
        };
        let mut answer = answer;
        // Bytes made while answering are sent as they are; a file comes from the cache.
        let body = match &mut answer.body {
            Body::Bytes(bytes) => Ok(Sent::Made(std::mem::take(bytes))),
            Body::File(_) | Body::Part { .. } => site.body_bytes(&answer.body).map(Sent::Kept),
        };
        (answer, body)
    });
    let head_only = method == "HEAD";
    let (head, has_body) = with_http_date(|date| http_message(&answer, head_only, date));
    let body = if has_body { body.bytes() } else { &[][..] };
    // The whole response goes out in one writev of head and body: tiny_http's own writer
    // copies bodies in 8 KB pieces, one send each, and copying a body behind its head costs
    // more than the routing on large pages. A client that went away is not an error of the
    // server.
    let mut writer = request.into_writer();
    let _ = write_all_vectored(&mut writer, &head, body).and_then(|()| writer.flush());
}

/// Writes `head` then `body`, as few system calls as the socket takes (one `writev` mostly).
fn write_all_vectored(out: &mut impl Write, head: &[u8], body: &[u8]) -> std::io::Result<()> {
    let mut slices = [head, body];
    let mut next = 0;
    while next < slices.len() {
        if slices[next].is_empty() {
            next += 1;
            continue;
        }
        let io: Vec<IoSlice<'_>> = slices[next..].iter().map(|s| IoSlice::new(s)).collect();
        let mut n = out.write_vectored(&io)?;
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        while n > 0 && next < slices.len() {
            let take = n.min(slices[next].len());
            slices[next] = &slices[next][take..];
            n -= take;
            if slices[next].is_empty() {
                next += 1;
            }
        }
    }
    Ok(())
}

/// The head of an HTTP/1.1 response (status line, the answer's headers, Date, Server,
/// Content-Length), and whether its body follows: not when the request was HEAD or the status
/// has none.
///
/// SECURITY: header values come from the answer (static text, digests, lengths) and never
/// contain CR or LF, so nothing here can split the response.
fn http_message(answer: &Answer, head_only: bool, date: &str) -> (Vec<u8>, bool) {
    let has_body = !matches!(answer.status, 100..=199 | 204 | 304);
    // Made once a request: plain appends, not the formatting machinery.
    let mut out = Vec::with_capacity(320);
    out.extend_from_slice(b"HTTP/1.1 ");
    push_decimal(&mut out, u64::from(answer.status));
    out.push(b' ');
    out.extend_from_slice(reason_phrase(answer.status).as_bytes());
    out.extend_from_slice(b"\r\nDate: ");
    out.extend_from_slice(date.as_bytes());
    out.extend_from_slice(b"\r\nServer: model-demand\r\n");
    for (name, value) in &answer.headers {
        if !value.contains(['\r', '\n']) {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
    }
    if has_body {
        out.extend_from_slice(b"Content-Length: ");
        push_decimal(&mut out, answer.length);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    (out, has_body && !head_only)
}

/// Appends `n` in decimal.
fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        204 => "No Content",
        206 => "Partial Content",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        400 => "Bad Request",
        404 => "Not Found",
        403 => "Forbidden",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        416 => "Range Not Satisfiable",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    }
}

/// Runs `write` with the current time as an HTTP date (`Sun, 22 Nov 2026 23:02:40 GMT`). The
/// header has a resolution of one second, so each connection thread formats it once a second,
/// not once a request, and lends it rather than copying it.
fn with_http_date<R>(write: impl FnOnce(&str) -> R) -> R {
    thread_local! {
        static LAST: std::cell::RefCell<(i64, String)> = const { std::cell::RefCell::new((i64::MIN, String::new())) };
    }
    let now = time::OffsetDateTime::now_utc();
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if last.0 != now.unix_timestamp() {
            let format = time::macros::format_description!(
                "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
            );
            *last = (
                now.unix_timestamp(),
                now.format(&format).unwrap_or_default(),
            );
        }
        write(&last.1)
    })
}

/// Runs the router; a panic or an unreadable file becomes a 500 instead of a dead worker.
fn answer_safely(work: impl FnOnce() -> (Answer, std::io::Result<Sent>)) -> (Answer, Sent) {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok((answer, Ok(body))) => (answer, body),
        _ => {
            let body = error_body(ErrorCode::Internal, ErrorCode::Internal.generic_message());
            (json_bytes(500, body.clone()), Sent::Made(body))
        }
    }
}

/// A body on its way out: made for this answer, or a site file the cache holds.
enum Sent {
    Made(Vec<u8>),
    Kept(Arc<[u8]>),
}

impl Sent {
    /// The body's bytes.
    fn bytes(&self) -> &[u8] {
        match self {
            Sent::Made(bytes) => bytes,
            Sent::Kept(bytes) => bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::router::not_modified;

    #[test]
    fn a_host_name_binds_only_when_it_resolves_to_loopback() {
        let at = |text: &str| text.parse::<SocketAddr>().expect("addr");
        assert_eq!(
            loopback_of("localhost", &[at("[::1]:80"), at("127.0.0.1:80")]),
            Ok(at("127.0.0.1:80"))
        );
        assert_eq!(loopback_of("l6", &[at("[::1]:80")]), Ok(at("[::1]:80")));
        let refused = loopback_of("evil.test", &[at("127.0.0.1:80"), at("203.0.113.7:80")])
            .expect_err("not only loopback");
        assert!(
            refused.starts_with(
                "the host name evil.test resolves to 203.0.113.7, which is not a loopback address"
            ),
            "{refused}"
        );
        assert!(loopback_of("none", &[]).is_err());
        assert_eq!(parse_bind("0.0.0.0:8080"), Ok(at("0.0.0.0:8080")));
        assert_eq!(parse_bind("[::1]:0"), Ok(at("[::1]:0")));
        assert!(parse_bind("localhost").is_err());
        assert!(parse_bind("localhost:99999").is_err());
        let local = parse_bind("localhost:8080").expect("localhost resolves to loopback");
        assert!(local.ip().is_loopback() && local.port() == 8080);
    }

    #[test]
    fn a_panic_while_answering_is_a_500() {
        let (answer, body) = answer_safely(|| panic!("boom"));
        assert_eq!(answer.status, 500);
        assert!(String::from_utf8_lossy(body.bytes()).contains("internal_error"));
        let (answer, _) = answer_safely(|| {
            (
                json_bytes(200, Vec::new()),
                Err(std::io::Error::other("gone")),
            )
        });
        assert_eq!(answer.status, 500);
    }

    /// The response as written: the head, and the body when it follows.
    fn joined((head, has_body): (Vec<u8>, bool), body: &[u8]) -> String {
        let body = if has_body { body } else { &[] };
        String::from_utf8([head.as_slice(), body].concat()).expect("ascii")
    }

    #[test]
    fn heads_and_bodies_are_written_whole_through_short_writes() {
        /// A writer that takes at most 3 bytes a call, vectored or not.
        struct Short(Vec<u8>);
        impl Write for Short {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                let n = buf.len().min(3);
                self.0.extend_from_slice(&buf[..n]);
                Ok(n)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut out = Short(Vec::new());
        write_all_vectored(&mut out, b"head\r\n\r\n", b"{\"a\":1}").expect("written");
        assert_eq!(out.0, b"head\r\n\r\n{\"a\":1}");
        let mut out = Short(Vec::new());
        write_all_vectored(&mut out, b"h\r\n\r\n", b"").expect("written");
        assert_eq!(out.0, b"h\r\n\r\n", "an empty body skipped");
        /// A writer that takes whole slices, several at a time.
        struct Vectored(Vec<u8>);
        impl Write for Vectored {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.extend_from_slice(buf);
                Ok(buf.len())
            }
            fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> std::io::Result<usize> {
                // Takes the first slice and half of the second, as a full socket might.
                let first = bufs.first().map_or(0, |b| b.len());
                self.0
                    .extend_from_slice(bufs.first().map_or(&[][..], |b| b));
                let half = bufs.get(1).map_or(&[][..], |b| &b[..b.len() / 2]);
                self.0.extend_from_slice(half);
                Ok(first + half.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut out = Vectored(Vec::new());
        write_all_vectored(&mut out, b"head:", b"abcdefghijk").expect("written");
        assert_eq!(out.0, b"head:abcdefghijk");
    }

    #[test]
    fn http_messages_carry_length_and_omit_bodies_where_due() {
        let answer = json_bytes(200, b"{}".to_vec());
        let text = joined(http_message(&answer, false, "D"), b"{}");
        assert!(text.starts_with("HTTP/1.1 200 OK\r\nDate: D\r\n"), "{text}");
        assert!(text.ends_with("Content-Length: 2\r\n\r\n{}"), "{text}");
        let head = joined(http_message(&answer, true, "D"), b"{}");
        assert!(head.ends_with("Content-Length: 2\r\n\r\n"), "{head}");
        let not_modified = not_modified(answer, Some("*"));
        let text = joined(http_message(&not_modified, false, "D"), b"{}");
        assert!(text.starts_with("HTTP/1.1 304 Not Modified") && !text.contains("Content-Length"));
        assert!(with_http_date(
            |date| date.ends_with(" GMT") && date.len() == 29
        ));
        for n in [0, 7, 10, 204, 18_446_744_073_709_551_615] {
            let mut out = Vec::new();
            push_decimal(&mut out, n);
            assert_eq!(out, n.to_string().as_bytes());
        }
    }
}
