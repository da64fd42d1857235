//! A local stand-in for OpenRouter and Hugging Face: a tiny_http server on loopback answering
//! scripted replies by exact request target, serving files with HTTP Range, logging every
//! request (target, `Authorization`, `Range`, status) so tests can count and inspect them, and,
//! when asked, enforcing Hugging Face's fixed-window rate limits with its `RateLimit` fields.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A status, extra headers and a body.
    Status(u16, Vec<(String, String)>, Vec<u8>),
    /// A file: 200 with all of it, or 206 with the requested `bytes=a-b` slice.
    File(Vec<u8>),
    /// A redirect to another target on the same server.
    Redirect(u16, String),
    /// This reply, counted and its fields computed on arrival, sent after a delay on a thread
    /// of its own (other requests are answered meanwhile): a slow answer, read late.
    Delayed(Duration, Box<Reply>),
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
    /// The status answered.
    pub status: u16,
    /// When it was answered, from the stand-in's start.
    pub at: Duration,
}

/// A fixed-window quota enforced on the requests whose target a bucket claims, as Hugging Face
/// enforces its `api` and `resolvers` buckets: every answer carries
/// `RateLimit: "NAME";r=R;t=T` and `RateLimit-Policy: "fixed window";"NAME";q=Q;w=W`, and a
/// request past the quota gets 429 with `r=0` and no `Retry-After`.
#[derive(Debug, Clone)]
pub struct Limit {
    /// The bucket's name.
    pub name: &'static str,
    /// Which targets count against it.
    pub claims: fn(&str) -> bool,
    /// Requests per window.
    pub quota: u64,
    /// The window's length.
    pub window: Duration,
    /// Send the fields on 200s too (Hugging Face does); false sends them on 429s only.
    pub on_every_answer: bool,
    /// Says `t` = this many seconds on the answer to the request counted at this index (from
    /// 1, over the whole run) instead of the truth: one odd value among truthful ones.
    pub misreport: Option<(u64, u64)>,
    /// Fixed windows count from the bucket's first request instead of the stand-in's start, so
    /// where in a window a run's first requests fall does not hang on how fast the machine got
    /// them there.
    pub from_first_request: bool,
}

impl Limit {
    /// Hugging Face's `api` bucket: model info and search (`/api/models…`).
    pub fn hub_api(quota: u64, window: Duration) -> Limit {
        Limit {
            name: "api",
            claims: |t| t.starts_with("/api/models/") || t.starts_with("/api/models?"),
            quota,
            window,
            on_every_answer: true,
            misreport: None,
            from_first_request: false,
        }
    }

    /// Hugging Face's `resolvers` bucket: every `/resolve/` URL.
    pub fn hub_resolvers(quota: u64, window: Duration) -> Limit {
        Limit {
            name: "resolvers",
            claims: |t| t.contains("/resolve/"),
            quota,
            window,
            on_every_answer: true,
            misreport: None,
            from_first_request: false,
        }
    }
}

#[derive(Default)]
struct State {
    /// Replies by target; the front is used and dropped while more than one remains.
    routes: BTreeMap<String, VecDeque<Reply>>,
    log: Vec<Logged>,
    limits: Vec<Limit>,
    /// Requests counted per (bucket, window index).
    counted: BTreeMap<(&'static str, u64), u64>,
    /// Requests counted per bucket over the run.
    total: BTreeMap<&'static str, u64>,
    /// When each bucket counted its first request.
    first: BTreeMap<&'static str, Instant>,
}

/// A running stand-in; stops when dropped.
pub struct StandIn {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// When the stand-in started: fixed windows count from here.
    pub epoch: Instant,
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
        let epoch = Instant::now();
        let thread = {
            let server = Arc::clone(&server);
            let state = Arc::clone(&state);
            std::thread::spawn(move || {
                // Requests are answered one at a time; the client's cap of four in flight
                // queues behind, which is what a slow source looks like.
                for request in server.incoming_requests() {
                    answer(&state, epoch, request);
                }
            })
        };
        StandIn {
            base: format!("http://127.0.0.1:{port}"),
            epoch,
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

    /// Enforces these rate limits from now on (replacing earlier ones).
    pub fn limit(&self, limits: Vec<Limit>) {
        let mut state = self.state.lock().expect("lock");
        state.limits = limits;
        state.counted.clear();
        state.total.clear();
        state.first.clear();
    }

    /// Moves the replies of every target `moves` claims to `host`, a second stand-in, and
    /// answers them here with a 302 to the same target there: Hugging Face's `/resolve/` for a
    /// large file (the 302 carries the `resolvers` fields, the file's host none).
    pub fn redirect_to(&self, host: &StandIn, moves: fn(&str) -> bool) {
        let moved: Vec<(String, VecDeque<Reply>)> = {
            let mut state = self.state.lock().expect("lock");
            let targets: Vec<String> = state.routes.keys().filter(|t| moves(t)).cloned().collect();
            targets
                .into_iter()
                .filter_map(|t| state.routes.remove(&t).map(|replies| (t, replies)))
                .collect()
        };
        for (target, replies) in moved {
            host.route(&target, replies.into());
            self.route(
                &target,
                vec![Reply::Redirect(302, format!("{}{target}", host.base))],
            );
        }
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

/// The bucket claiming `target`, counted: its fields, and whether the request is past the quota.
fn count(state: &mut State, epoch: Instant, target: &str) -> Option<(Vec<(String, String)>, bool)> {
    let limit = state.limits.iter().find(|l| (l.claims)(target))?.clone();
    let epoch = if limit.from_first_request {
        *state.first.entry(limit.name).or_insert_with(Instant::now)
    } else {
        epoch
    };
    let elapsed = epoch.elapsed();
    let window = limit.window.as_millis().max(1);
    let index = (elapsed.as_millis() / window) as u64;
    let used = state.counted.entry((limit.name, index)).or_insert(0);
    *used += 1;
    let refused = *used > limit.quota;
    let remaining = limit.quota.saturating_sub(*used);
    let nth = state.total.entry(limit.name).or_insert(0);
    *nth += 1;
    // Whole seconds to the reset, rounded down: the client must allow for the fraction.
    let left_ms = (u128::from(index) + 1) * window - elapsed.as_millis();
    let t = match limit.misreport {
        Some((at, t)) if at == *nth => u128::from(t),
        _ => left_ms / 1000,
    };
    let fields = vec![
        (
            "RateLimit".to_string(),
            format!("\"{}\";r={remaining};t={t}", limit.name),
        ),
        (
            "RateLimit-Policy".to_string(),
            format!(
                "\"fixed window\";\"{}\";q={};w={}",
                limit.name,
                limit.quota,
                limit.window.as_secs()
            ),
        ),
    ];
    let fields = if refused || limit.on_every_answer {
        fields
    } else {
        Vec::new()
    };
    Some((fields, refused))
}

fn answer(state: &Mutex<State>, epoch: Instant, request: tiny_http::Request) {
    let target = request.url().to_string();
    let range = header(&request, "Range");
    let (reply, limited) = {
        let mut state = state.lock().expect("lock");
        let limited = count(&mut state, epoch, &target);
        let reply = match state.routes.get_mut(&target) {
            Some(queue) if queue.len() > 1 => queue.pop_front(),
            Some(queue) => queue.front().cloned(),
            None => None,
        };
        (reply, limited)
    };
    let reply = match &limited {
        Some((_, true)) => Some(Reply::Status(
            429,
            Vec::new(),
            br#"{"error":"rate limited"}"#.to_vec(),
        )),
        _ => reply,
    };
    let (delay, reply) = match reply {
        Some(Reply::Delayed(delay, reply)) => (Some(delay), Some(*reply)),
        reply => (None, reply),
    };
    let (status, mut headers, body) = match reply {
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
        Some(Reply::Delayed(..)) => (500, Vec::new(), b"nested delay".to_vec()),
    };
    if let Some((fields, _)) = limited {
        headers.extend(fields);
    }
    state.lock().expect("lock").log.push(Logged {
        method: request.method().as_str().to_string(),
        target,
        authorization: header(&request, "Authorization"),
        range,
        user_agent: header(&request, "User-Agent"),
        sent: body.len(),
        status,
        at: epoch.elapsed(),
    });
    let mut response = tiny_http::Response::from_data(body).with_status_code(status);
    for (name, value) in headers {
        if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response = response.with_header(h);
        }
    }
    match delay {
        Some(delay) => {
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                let _ = request.respond(response);
            });
        }
        None => {
            let _ = request.respond(response);
        }
    }
}
