//! The preview server's transport: tiny_http on a listening socket with timeouts, a fixed
//! number of worker threads, and each response written by the server itself in one piece.

use std::net::SocketAddr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::router::{json_bytes, Answer, Site};
use crate::error::{Error, Result};
use crate::render::{error_body, ErrorCode};

/// Address the server binds to unless told otherwise: loopback only.
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";
/// Worker threads answering requests.
pub const DEFAULT_WORKERS: usize = 8;
/// How long a connection may stay silent (reading) or stalled (writing) before it is dropped.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);

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
    use crate::serve::router::not_modified;

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
}
