//! The one HTTP client of `collect`: timeouts, retries with backoff honouring `Retry-After`,
//! pacing by the sources' rate-limit fields, at most four requests in flight, a `User-Agent`,
//! request counts by kind, and no secrets in errors.
//!
//! SECURITY: credentials are [`Secret`]s. They go into an `Authorization` header and nowhere
//! else: never into a URL, a message, a `Debug` rendering or a file.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

use super::ratelimit::{self, BucketReport, Hold, Pacer, Signals, WAIT_BUDGET};
use super::redirect;

/// Most requests in flight at once (DESIGN §9).
pub const MAX_IN_FLIGHT: usize = 4;
/// Retries after the first attempt for 429, 5xx and transport failures (DESIGN §9).
pub const MAX_RETRIES: u32 = 3;
/// Every request's overall timeout (DESIGN §9).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest `Retry-After` honoured on an answer that says nothing else of its rate limit; a
/// source asking for more is treated as unavailable now.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);
/// Refusals of one request that its fields say are waits for an empty window: waited out
/// without using a try, up to this many (each waits at least a second of the budget, and a
/// source that keeps refusing windows it says have reset must not loop for ever).
pub const MAX_WINDOW_WAITS: u32 = 16;
/// The most Data API requests (rankings-daily) one run sends: below OpenRouter's 30 a minute
/// and 500 a day, however the retries go.
pub const DATA_API_RUN_CAP: u64 = 10;
/// Redirects followed per attempt, by hand (ureq's default when it followed them itself).
pub const MAX_REDIRECTS: u32 = 10;
/// The largest body read (the OpenRouter catalog is a few MB).
const MAX_BODY_BYTES: u64 = 256 * 1024 * 1024;

/// A credential from the environment. Its text is reachable only through `Secret::expose`,
/// which the client calls to build one header.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a credential; `None` when it is empty or only whitespace.
    pub fn new(text: String) -> Option<Secret> {
        let trimmed = text.trim();
        (!trimmed.is_empty()).then(|| Secret(trimmed.to_string()))
    }

    fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// What a request asks a source for. It names the request in the run's counts (as the
/// summary and the run report write it, [`RequestKind::as_str`]) and picks its rate-limit
/// bucket ([`bucket_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestKind {
    /// OpenRouter's model catalog.
    Catalog,
    /// One route's endpoints on OpenRouter.
    Endpoints,
    /// A whole file from a Hugging Face repository.
    HfFile,
    /// A repository's model info on Hugging Face.
    HfInfo,
    /// A byte range of a file (a safetensors header) on Hugging Face.
    HfRange,
    /// A search of Hugging Face's repositories (quantized children).
    HfSearch,
    /// OpenRouter's rankings-daily dataset.
    Rankings,
}

impl RequestKind {
    /// The kind's name in the counts: `catalog`, `endpoints`, `hf-file`, `hf-info`,
    /// `hf-range`, `hf-search`, `rankings`.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestKind::Catalog => "catalog",
            RequestKind::Endpoints => "endpoints",
            RequestKind::HfFile => "hf-file",
            RequestKind::HfInfo => "hf-info",
            RequestKind::HfRange => "hf-range",
            RequestKind::HfSearch => "hf-search",
            RequestKind::Rankings => "rankings",
        }
    }
}

impl fmt::Display for RequestKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

// Ordered by name, so that counts keyed by kind list in the order they always have, and a
// count can be looked up by its name (`Borrow<str>` asks that both orders agree).
impl Ord for RequestKind {
    fn cmp(&self, other: &RequestKind) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for RequestKind {
    fn partial_cmp(&self, other: &RequestKind) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::borrow::Borrow<str> for RequestKind {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

/// A final answer: any status after retries, with its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceAnswer {
    /// HTTP status.
    pub status: u16,
    /// The body.
    pub body: Vec<u8>,
}

impl SourceAnswer {
    /// True for 2xx.
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Why a request produced no answer (after retries).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The source kept answering 429 or 5xx.
    #[error("{url} answered {status} {attempts} time(s)")]
    Exhausted {
        /// The URL (never holds a credential).
        url: String,
        /// The last status.
        status: u16,
        /// Attempts made.
        attempts: u32,
    },
    /// Waiting for the rate limit's reset would pass the run's waiting budget.
    #[error("wait_budget_exhausted: {url}: the source's rate limit would need more waiting than this run has left ({})", match last_status { Some(s) => format!("last answer {s}"), None => "not requested".to_string() })]
    OverBudget {
        /// The URL.
        url: String,
        /// The last status, when a try was answered before the budget ran out.
        last_status: Option<u16>,
    },
    /// The run already sent as many requests of this kind as one run may.
    #[error("{url}: this run already sent the most requests of this kind one run may send")]
    RunCap {
        /// The URL.
        url: String,
    },
    /// The host name of the URL does not resolve (no DNS answer: offline, or a wrong name);
    /// not retried, since the system's resolver has already tried.
    #[error("{url}: the host name {host} does not resolve ({message})")]
    Unresolved {
        /// The URL.
        url: String,
        /// The host name.
        host: String,
        /// The resolver's words.
        message: String,
    },
    /// No HTTP answer at all (connection refused, timeout, TLS...).
    #[error("{url}: {message} ({attempts} attempt(s))")]
    Transport {
        /// The URL.
        url: String,
        /// What failed.
        message: String,
        /// Attempts made.
        attempts: u32,
    },
}

/// Why one attempt got no HTTP answer.
#[derive(Debug)]
enum Failure {
    /// The host name did not resolve.
    Unresolved {
        /// The host name.
        host: String,
        /// The resolver's words.
        message: String,
    },
    /// Anything else (refused, reset, timed out, TLS): its message.
    Transport(String),
}

impl Failure {
    /// The failure of a request to `url` that ended on `error`.
    fn of(error: &ureq::Error, url: &str) -> Failure {
        // std's resolver (getaddrinfo) reports a failed lookup as an I/O error of no kind of its
        // own, with these words; ureq says `HostNotFound` when the lookup gave no address.
        let unresolved = match error {
            ureq::Error::HostNotFound => true,
            ureq::Error::Io(io) => io
                .to_string()
                .starts_with("failed to lookup address information"),
            _ => false,
        };
        let host = url
            .split_once("://")
            .map_or(url, |(_, rest)| rest)
            .split(['/', '?', '#'])
            .next()
            .unwrap_or_default();
        // The port, when the authority has one, is no part of the name.
        let host = host.rsplit_once(':').map_or(host, |(name, port)| {
            let digits = !port.is_empty() && port.chars().all(|c| c.is_ascii_digit());
            if digits && (!name.contains(':') || name.ends_with(']')) {
                name
            } else {
                host
            }
        });
        if unresolved {
            Failure::Unresolved {
                host: host.to_string(),
                message: error.to_string(),
            }
        } else {
            Failure::Transport(error.to_string())
        }
    }
}

/// The HTTP client shared by every source request of one run.
pub struct Client {
    agent: ureq::Agent,
    counts: Mutex<BTreeMap<RequestKind, u64>>,
    bytes: Mutex<BTreeMap<RequestKind, u64>>,
    refusals: Mutex<BTreeMap<RequestKind, u64>>,
    retry_base: Duration,
    pacer: Pacer,
}

impl Client {
    /// A client whose first retry waits `retry_base` (doubling after each attempt) unless the
    /// source says how long with `Retry-After`, waiting at most `ratelimit::WAIT_BUDGET` in all for
    /// rate-limit windows, silently.
    pub fn new(retry_base: Duration) -> Client {
        Client::with_pacing(retry_base, WAIT_BUDGET, false)
    }

    /// A client with its own waiting budget; `progress` says on stderr when and why it waits.
    /// OpenRouter's Data API (rankings-daily) allows 30 requests a minute and 500 a day; one run
    /// sends one request and its retries, and is capped well below both.
    pub fn with_pacing(retry_base: Duration, budget: Duration, progress: bool) -> Client {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(REQUEST_TIMEOUT))
            .http_status_as_error(false)
            .user_agent(format!("model-demand/{}", env!("CARGO_PKG_VERSION")))
            // Redirects are followed by hand (`Client::once`): every hop's rate-limit fields
            // reach the pacer, and the credential goes to the first request's host only.
            .max_redirects(0)
            .build();
        let pacer = Pacer::new(budget, progress, MAX_IN_FLIGHT);
        pacer.cap("openrouter/datasets", DATA_API_RUN_CAP);
        Client {
            agent: config.into(),
            counts: Mutex::new(BTreeMap::new()),
            bytes: Mutex::new(BTreeMap::new()),
            refusals: Mutex::new(BTreeMap::new()),
            retry_base,
            pacer,
        }
    }

    /// `GET url` with optional bearer credential and extra headers; retries 429, 5xx and
    /// transport failures. Any other status is a final answer for the caller to judge.
    /// `kind` names the request in the run's counts and picks its rate-limit bucket.
    ///
    /// Requests are paced by the source's rate-limit fields (`ratelimit`): while the bucket
    /// has nothing left its requests wait for the reset, holding no request slot. A 429 whose
    /// fields say its bucket is empty is waited out without using a try; any other 429 uses a
    /// try and holds the bucket for its `Retry-After` (seconds or a date) or the backoff. Every
    /// wait counts against the run's budget.
    pub fn get(
        &self,
        kind: RequestKind,
        url: &str,
        bearer: Option<&Secret>,
        headers: &[(&str, &str)],
    ) -> Result<SourceAnswer, FetchError> {
        let bucket = bucket_of(kind);
        let mut tries = 0;
        let mut window_waits = 0;
        let mut last_status = None;
        loop {
            self.pacer.admit(bucket).map_err(|hold| match hold {
                Hold::OverBudget => FetchError::OverBudget {
                    url: url.to_string(),
                    last_status,
                },
                Hold::RunCap => FetchError::RunCap {
                    url: url.to_string(),
                },
            })?;
            let (result, sent, received) = self.once(kind, url, bearer, headers);
            let (status, signals, retry_after) = match &result {
                Ok(a) => (Some(a.answer.status), a.signals.clone(), a.retry_after),
                Err(_) => (None, Signals::default(), None),
            };
            self.pacer
                .answered(bucket, &signals, status, sent, received);
            last_status = status.or(last_status);
            let message = match result {
                Ok(a) if a.answer.status != 429 && a.answer.status < 500 => return Ok(a.answer),
                Ok(_) => None,
                Err(Failure::Unresolved { host, message }) => {
                    return Err(FetchError::Unresolved {
                        url: url.to_string(),
                        host,
                        message,
                    })
                }
                Err(Failure::Transport(message)) => Some(message),
            };
            if status == Some(429) {
                bump(&self.refusals, kind, 1);
                let own = ratelimit::field_name(bucket);
                let empty = signals.own_standing(own).is_some_and(|s| s.remaining == 0);
                if empty && window_waits < MAX_WINDOW_WAITS {
                    // The next admit waits for the reset (and any Retry-After beside it).
                    window_waits += 1;
                    if let Some(wait) = retry_after {
                        self.pacer.hold(bucket, received, wait);
                    }
                    continue;
                }
            }
            tries += 1;
            let exhausted = || match &message {
                Some(message) => FetchError::Transport {
                    url: url.to_string(),
                    message: message.clone(),
                    attempts: tries,
                },
                None => FetchError::Exhausted {
                    url: url.to_string(),
                    status: status.unwrap_or(0),
                    attempts: tries,
                },
            };
            // A source asking for a longer wait than we give is unavailable for this run.
            if tries > MAX_RETRIES || retry_after.is_some_and(|w| w > MAX_RETRY_AFTER) {
                return Err(exhausted());
            }
            let backoff = self.retry_base.saturating_mul(1 << (tries - 1));
            let wait = retry_after.unwrap_or(backoff);
            if status == Some(429) {
                // The bucket refused without saying where it stands: all its requests pause.
                self.pacer.hold(bucket, received, wait);
            } else {
                std::thread::sleep(wait);
            }
        }
    }

    /// One attempt (the pacer's admission is its request slot): the answer with the
    /// `Retry-After` it asked for and its rate-limit fields (or a transport message), and when
    /// its last hop was sent and its header received, on the pacer's clock.
    ///
    /// Redirects are followed here, at most [`MAX_REDIRECTS`], so that each hop's fields reach
    /// the pacer: Hugging Face answers `/resolve/` for a large file with a 302 that carries the
    /// `resolvers` bucket's `RateLimit` fields, then the file comes from its CDN host without
    /// them. SECURITY: the credential is sent only while the hop is on the first request's
    /// origin (scheme, host and port); once a hop leaves it, it is never sent again. The other
    /// headers (`Range`) follow every hop.
    fn once(
        &self,
        kind: RequestKind,
        url: &str,
        bearer: Option<&Secret>,
        headers: &[(&str, &str)],
    ) -> (Result<Attempt, Failure>, Duration, Duration) {
        bump(&self.counts, kind, 1);
        let bucket = bucket_of(kind);
        let origin = redirect::origin(url);
        let mut target = url.to_string();
        let mut credential = bearer;
        let mut hops = 0;
        loop {
            let sent = self.pacer.now();
            let mut request = self.agent.get(&target);
            if let Some(secret) = credential {
                request = request.header("Authorization", format!("Bearer {}", secret.expose()));
            }
            for (name, value) in headers {
                request = request.header(*name, *value);
            }
            // ureq's messages name the URL or the socket, never request headers.
            let mut response = match request.call() {
                Ok(response) => response,
                Err(e) => return (Err(Failure::of(&e, &target)), sent, self.pacer.now()),
            };
            let received = self.pacer.now();
            let status = response.status().as_u16();
            let (signals, retry_after) = fields_of(response.headers());
            let location = redirect::is_redirect(status)
                .then(|| response.headers().get("location"))
                .flatten()
                .map(|v| v.to_str().map(str::to_string));
            if let Some(location) = location {
                // A redirect's own fields speak for the bucket now, while the request holds
                // its slot; its body is not read.
                self.pacer.redirected(bucket, &signals, sent, received);
                let next = location
                    .ok()
                    .and_then(|l| redirect::resolve(&target, &l))
                    .ok_or_else(|| {
                        Failure::Transport(format!(
                            "{target} answered {status} with an unusable Location"
                        ))
                    });
                let next = match next {
                    Ok(next) if hops < MAX_REDIRECTS => next,
                    Ok(_) => {
                        let message = format!("{url}: more than {MAX_REDIRECTS} redirects");
                        return (Err(Failure::Transport(message)), sent, received);
                    }
                    Err(message) => return (Err(message), sent, received),
                };
                hops += 1;
                if redirect::origin(&next) != origin {
                    credential = None;
                }
                target = next;
                continue;
            }
            let body = response
                .body_mut()
                .with_config()
                .limit(MAX_BODY_BYTES)
                .read_to_vec()
                .map_err(|e| Failure::Transport(e.to_string()));
            let attempt = body.map(|body| {
                bump(&self.bytes, kind, body.len() as u64);
                Attempt {
                    answer: SourceAnswer { status, body },
                    retry_after,
                    signals,
                }
            });
            return (attempt, sent, received);
        }
    }

    /// Requests made so far, by kind (retries included).
    pub fn counts(&self) -> BTreeMap<RequestKind, u64> {
        self.counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Body bytes received so far, by kind.
    pub fn bytes(&self) -> BTreeMap<RequestKind, u64> {
        self.bytes.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// 429 answers met so far, by kind.
    pub fn refusals(&self) -> BTreeMap<RequestKind, u64> {
        self.refusals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The pacing of this run: per bucket, refusals, waits and announced quotas.
    pub fn pacing(&self) -> BTreeMap<String, BucketReport> {
        self.pacer.report()
    }

    /// Requests not sent because the wait they needed would have passed the budget.
    pub fn over_budget(&self) -> u64 {
        self.pacer.over_budget()
    }

    /// Wall time spent waiting for rate-limit windows so far.
    pub fn waited(&self) -> Duration {
        self.pacer.spent()
    }
}

/// One attempt's answer with what it said about the rate limits.
struct Attempt {
    answer: SourceAnswer,
    retry_after: Option<Duration>,
    signals: Signals,
}

/// An answer's rate-limit fields (`RateLimit`, `RateLimit-Policy`, OpenRouter's
/// `X-RateLimit-*`) and the `Retry-After` it asks for.
fn fields_of(headers: &ureq::http::HeaderMap) -> (Signals, Option<Duration>) {
    let lines = |name: &str| -> Vec<&str> {
        headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect()
    };
    let first = |name: &str| lines(name).into_iter().next();
    let wall = std::time::SystemTime::now();
    let retry_after = first("retry-after").and_then(|v| ratelimit::parse_retry_after(v, wall));
    let now_ms = wall
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let signals = Signals::read(&lines("ratelimit"), &lines("ratelimit-policy")).read_legacy(
        first("x-ratelimit-remaining"),
        first("x-ratelimit-reset"),
        now_ms,
    );
    (signals, retry_after)
}

/// The rate-limit bucket a kind of request counts against: Hugging Face's `api` (model info,
/// search) and `resolvers` (every `/resolve/` file); OpenRouter's requests by the quota they
/// fall under.
pub fn bucket_of(kind: RequestKind) -> &'static str {
    match kind {
        RequestKind::HfInfo | RequestKind::HfSearch => "huggingface/api",
        RequestKind::HfFile | RequestKind::HfRange => "huggingface/resolvers",
        RequestKind::Rankings => "openrouter/datasets",
        RequestKind::Catalog | RequestKind::Endpoints => "openrouter/api",
    }
}

fn bump(map: &Mutex<BTreeMap<RequestKind, u64>>, kind: RequestKind, by: u64) {
    let mut map = map.lock().unwrap_or_else(|p| p.into_inner());
    *map.entry(kind).or_insert(0) += by;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_not_found_is_unresolved_and_names_the_host_without_its_port() {
        let unresolved = |url: &str| match Failure::of(&ureq::Error::HostNotFound, url) {
            Failure::Unresolved { host, .. } => host,
            Failure::Transport(message) => panic!("not unresolved: {message}"),
        };
        assert_eq!(
            unresolved("https://huggingface.co/api/models/a/b"),
            "huggingface.co"
        );
        assert_eq!(unresolved("http://example.test:8080/x?y"), "example.test");
        assert_eq!(unresolved("http://[::1]:80/"), "[::1]");
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(matches!(
            Failure::of(&ureq::Error::Io(refused), "https://a.test/"),
            Failure::Transport(_)
        ));
    }

    #[test]
    fn a_secret_never_shows_in_debug_output() {
        let secret = Secret::new("sk-or-v1-abcdef".to_string()).expect("non-empty");
        assert_eq!(format!("{secret:?}"), "Secret([redacted])");
        assert!(Secret::new("  ".to_string()).is_none());
    }
}
