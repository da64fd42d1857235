//! A local stand-in for OpenRouter and Hugging Face: a tiny_http server on loopback answering
//! scripted replies by exact request target, serving files with HTTP Range, and logging every
//! request (target, `Authorization`, `Range`) so tests can count and inspect them.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A status, extra headers and a body.
    Status(u16, Vec<(String, String)>, Vec<u8>),
    /// A file: 200 with all of it, or 206 with the requested `bytes=a-b` slice.
    File(Vec<u8>),
    /// A redirect to another target on the same server.
    Redirect(u16, String),
}

impl Reply {
    /// 200 with a JSON body.
    pub fn json(body: impl Into<Vec<u8>>) -> Reply {
        Reply::Status(200, Vec::new(), body.into())
    }

    /// A status with an OpenRouter-style error body.
    pub fn error(status: u16) -> Reply {
        let body = format!(r#"{{"error":{{"code":{status},"message":"scripted {status}"}}}}"#);
        Reply::Status(status, Vec::new(), body.into_bytes())
    }
}

/// One request as the stand-in saw it.
#[derive(Debug, Clone)]
pub struct Logged {
    /// The request method.
    pub method: String,
    /// The request target (path and query).
    pub target: String,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
    /// The `Range` header, if any.
    pub range: Option<String>,
    /// The `User-Agent` header, if any.
    pub user_agent: Option<String>,
    /// Body bytes sent back.
    pub sent: usize,
}

#[derive(Default)]
struct State {
    /// Replies by target; the front is used and dropped while more than one remains.
    routes: BTreeMap<String, VecDeque<Reply>>,
    log: Vec<Logged>,
}

/// A running stand-in; stops when dropped.
pub struct StandIn {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    state: Arc<Mutex<State>>,
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
}

impl StandIn {
    /// Starts a stand-in on a free loopback port.
    pub fn start() -> StandIn {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind loopback"));
        let port = server.server_addr().to_ip().expect("an IP listener").port();
        let state = Arc::new(Mutex::new(State::default()));
        let thread = {
            let server = Arc::clone(&server);
            let state = Arc::clone(&state);
            std::thread::spawn(move || {
                // Requests are answered one at a time; the client's cap of four in flight
                // queues behind, which is what a slow source looks like.
                for request in server.incoming_requests() {
                    answer(&state, request);
                }
            })
        };
        StandIn {
            base: format!("http://127.0.0.1:{port}"),
            state,
            server,
            thread: Some(thread),
        }
    }

    /// Sets the replies for a target (exact path and query), replacing earlier ones.
    pub fn route(&self, target: &str, replies: Vec<Reply>) {
        let mut state = self.state.lock().expect("lock");
        state.routes.insert(target.to_string(), replies.into());
    }

    /// Every request so far.
    pub fn log(&self) -> Vec<Logged> {
        self.state.lock().expect("lock").log.clone()
    }

    /// Forgets the log.
    pub fn clear_log(&self) {
        self.state.lock().expect("lock").log.clear();
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn header(request: &tiny_http::Request, name: &str) -> Option<String> {
    request
        .headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str().to_string())
}

/// `bytes=a-b` → the slice of `data` (clamped), or `None` when the header is absent or odd.
fn range_of(range: Option<&str>, len: usize) -> Option<(usize, usize)> {
    let spec = range?.strip_prefix("bytes=")?;
    let (a, b) = spec.split_once('-')?;
    let start: usize = a.parse().ok()?;
    let end: usize = b.parse::<usize>().ok()?.min(len.saturating_sub(1));
    (start <= end && start < len).then_some((start, end))
}

fn answer(state: &Mutex<State>, request: tiny_http::Request) {
    let target = request.url().to_string();
    let range = header(&request, "Range");
    let reply = {
        let mut state = state.lock().expect("lock");
        match state.routes.get_mut(&target) {
            Some(queue) if queue.len() > 1 => queue.pop_front(),
            Some(queue) => queue.front().cloned(),
            None => None,
        }
    };
    let (status, headers, body) = match reply {
        None => (404, Vec::new(), br#"{"error":"not found"}"#.to_vec()),
        Some(Reply::Status(status, headers, body)) => (status, headers, body),
        Some(Reply::Redirect(status, location)) => {
            (status, vec![("Location".to_string(), location)], Vec::new())
        }
        Some(Reply::File(data)) => match range_of(range.as_deref(), data.len()) {
            Some((a, b)) => (
                206,
                vec![(
                    "Content-Range".to_string(),
                    format!("bytes {a}-{b}/{}", data.len()),
                )],
                data[a..=b].to_vec(),
            ),
            None => (200, Vec::new(), data),
        },
    };
    state.lock().expect("lock").log.push(Logged {
        method: request.method().as_str().to_string(),
        target,
        authorization: header(&request, "Authorization"),
        range,
        user_agent: header(&request, "User-Agent"),
        sent: body.len(),
    });
    let mut response = tiny_http::Response::from_data(body).with_status_code(status);
    for (name, value) in headers {
        if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response = response.with_header(h);
        }
    }
    let _ = request.respond(response);
}
