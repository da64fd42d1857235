//! Pacing by the sources' own rate-limit fields (DESIGN §9): every bucket paced by what the
//! latest answer of its current window says (`window.rs`), requests held while their bucket has
//! nothing left, refusals waited out, and one waiting budget per run, charged with the time
//! actually waited.
//!
//! Hugging Face counts requests in fixed windows per bucket (`api`, `resolvers`) and says on every
//! answer where the bucket stands: `RateLimit: "resolvers";r=0;t=55` and
//! `RateLimit-Policy: "fixed window";"resolvers";q=3000;w=300`. A client that reads them waits
//! before it is refused, instead of retrying into a window that has not reset (the official
//! `huggingface_hub` does the same since 1.2). A request waiting for its bucket holds no request
//! slot and no other bucket: only its own thread waits.

mod fields;
mod window;

pub(super) use fields::{parse_retry_after, Signals};
pub(super) use window::{BucketModel, Next};

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use window::{after, At};

/// The most time one run spends waiting for windows to reset (DESIGN §9); past it a request
/// that would have to wait fails as any other.
pub(super) const WAIT_BUDGET: Duration = Duration::from_secs(15 * 60);

/// What a run's pacing came to, per bucket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BucketReport {
    /// 429 answers met.
    pub refused: u64,
    /// Times the bucket began holding requests back (a wait several requests share is one).
    pub waits: u64,
    /// Wall time during which at least one request of the bucket was held back.
    pub waited: Duration,
    /// The quota the source announced, as `q per w s`.
    pub quota: Option<(u64, u64)>,
    /// Requests admitted.
    pub sent: u64,
}

/// Why a request may not be sent now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Hold {
    /// The wait it needs would pass what is left of the run's waiting budget.
    OverBudget,
    /// The bucket's cap for one run is reached.
    RunCap,
}

/// One bucket: its model, its cap and what the report says of it.
#[derive(Debug, Default)]
struct Bucket {
    model: BucketModel,
    /// The most requests one run may send (a quota the source documents but does not
    /// announce, such as OpenRouter's Data API: 30 a minute, 500 a day).
    cap: Option<u64>,
    report: BucketReport,
    /// Threads holding a request of this bucket back now, and since when one has.
    waiting: u64,
    waiting_since: At,
}

/// The run's waiting, all buckets together: wall time during which any request was held.
#[derive(Debug, Default)]
struct Waiting {
    threads: u64,
    since: At,
    /// The latest instant any current wait is planned to last until.
    planned_until: At,
    /// Closed waiting periods.
    spent: Duration,
    /// Requests refused because their wait would pass the budget.
    over_budget: u64,
}

impl Waiting {
    /// Wall time waited so far, the current period included.
    fn spent(&self, now: At) -> Duration {
        if self.threads > 0 {
            self.spent + now.saturating_sub(self.since)
        } else {
            self.spent
        }
    }
}

/// The pacing state of one run, shared by every thread of the client.
pub(super) struct Pacer {
    state: Mutex<PacerState>,
    changed: Condvar,
    budget: Duration,
    /// The most requests in flight at once, all buckets together.
    slots: u64,
    progress: bool,
    epoch: Instant,
}

#[derive(Default)]
struct PacerState {
    buckets: BTreeMap<String, Bucket>,
    waiting: Waiting,
    /// Requests admitted and not yet answered, all buckets together.
    in_flight: u64,
}

impl Pacer {
    /// A pacer with the given waiting budget and at most `slots` requests in flight;
    /// `progress` prints each wait on stderr.
    pub(super) fn new(budget: Duration, progress: bool, slots: usize) -> Pacer {
        Pacer {
            state: Mutex::new(PacerState::default()),
            changed: Condvar::new(),
            budget,
            slots: u64::try_from(slots.max(1)).unwrap_or(u64::MAX),
            progress,
            epoch: Instant::now(),
        }
    }

    /// The pacer's clock: time since it began.
    pub(super) fn now(&self) -> At {
        self.epoch.elapsed()
    }

    /// Caps the requests one run sends in `bucket`: past `cap`, requests fail at once.
    pub(super) fn cap(&self, bucket: &str, cap: u64) {
        self.lock().bucket(bucket).cap = Some(cap);
    }

    fn lock(&self) -> MutexGuard<'_, PacerState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until `bucket` may send one more request and a request slot is free, and counts
    /// it as sent: the bucket's decision and the slot are taken together, so a request never
    /// goes on a decision made before answers it could have heeded. Only this thread waits:
    /// other buckets' requests go on. Every admitted request must be [`Pacer::answered`].
    pub(super) fn admit(&self, bucket: &str) -> Result<(), Hold> {
        let mut state = self.lock();
        let mut waiting = false;
        let result = loop {
            let now = self.now();
            let slot_free = state.in_flight < self.slots;
            let b = state.bucket(bucket);
            if b.cap.is_some_and(|cap| b.report.sent >= cap) {
                break Err(Hold::RunCap);
            }
            let until = match b.model.next(now) {
                Next::Send if !slot_free => {
                    // Waiting for a slot is not a rate-limit wait: an answer frees one.
                    state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
                    continue;
                }
                Next::Send => {
                    b.model.send();
                    b.report.sent += 1;
                    state.in_flight += 1;
                    break Ok(());
                }
                Next::WaitUntil(until) => until,
            };
            let planned = if state.waiting.threads > 0 {
                state.waiting.planned_until.max(until)
            } else {
                until
            };
            if state.waiting.spent(now) + planned.saturating_sub(now) > self.budget {
                state.waiting.over_budget += 1;
                break Err(Hold::OverBudget);
            }
            state.waiting.planned_until = planned;
            if !waiting {
                waiting = true;
                state.begin_wait(bucket, now);
                let b = state.bucket(bucket);
                if b.waiting == 1 {
                    self.say(bucket, until.saturating_sub(now), b.model.quota());
                }
            }
            let timeout = until.saturating_sub(now);
            state = self
                .changed
                .wait_timeout(state, timeout)
                .map(|(guard, _)| guard)
                .unwrap_or_else(|p| p.into_inner().0);
        };
        if waiting {
            let now = self.now();
            state.end_wait(bucket, now);
        }
        result
    }

    /// Records the answer (or the failure to get one) of a request [`Pacer::admit`] let through:
    /// sent at `sent`, received at `received` (the pacer's clock). Every bucket the fields name
    /// learns what they say of it; an item naming none speaks of `bucket`, as does a 429.
    pub(super) fn answered(
        &self,
        bucket: &str,
        signals: &Signals,
        status: Option<u16>,
        sent: At,
        received: At,
    ) {
        let mut state = self.lock();
        state.in_flight = state.in_flight.saturating_sub(1);
        let own = state.bucket(bucket);
        own.model.finished();
        if status == Some(429) {
            own.report.refused += 1;
        }
        self.learn(state, bucket, signals, sent, received);
    }

    /// Records what a redirect on the way to an admitted request's answer said of the rate
    /// limits (sent at `sent`, received at `received`): the request keeps its slot and is
    /// [`Pacer::answered`] when its last hop answers. Hugging Face's `/resolve/` answers a
    /// large file with a 302 that alone carries the `resolvers` bucket's fields (the file's
    /// host sends none), so a pacer that saw only the last hop would learn its quota from 429s.
    pub(super) fn redirected(&self, bucket: &str, signals: &Signals, sent: At, received: At) {
        let state = self.lock();
        self.learn(state, bucket, signals, sent, received);
    }

    /// Every bucket the fields name learns what they say of it; an item naming none speaks
    /// of `bucket`.
    fn learn(
        &self,
        mut state: MutexGuard<'_, PacerState>,
        bucket: &str,
        signals: &Signals,
        sent: At,
        received: At,
    ) {
        let now = self.now();
        let (source, _) = split(bucket);
        for quota in &signals.quotas {
            let name = named(source, bucket, quota.bucket.as_deref());
            state.bucket(&name).model.learn_quota(quota);
        }
        for standing in &signals.standings {
            let name = named(source, bucket, standing.bucket.as_deref());
            let b = state.bucket(&name);
            b.model.learn_standing(standing, sent, received, now);
        }
        drop(state);
        self.changed.notify_all();
    }

    /// Holds `bucket` until `wait` after `from` (a refusal that said nothing of its window: its
    /// `Retry-After`, or the backoff). The hold is waited through [`Pacer::admit`], within
    /// the budget.
    pub(super) fn hold(&self, bucket: &str, from: At, wait: Duration) {
        self.lock().bucket(bucket).model.hold(after(from, wait));
        self.changed.notify_all();
    }

    fn say(&self, bucket: &str, wait: Duration, quota: Option<(u64, u64)>) {
        if !self.progress {
            return;
        }
        let quota = quota.map_or(String::new(), |(q, w)| format!(" (quota {q} per {w} s)"));
        eprintln!(
            "collect: {bucket} has nothing left{quota}: waiting {:.0} s for its window to reset",
            wait.as_secs_f64().ceil()
        );
    }

    /// Per bucket that met a request, a refusal or a quota: its figures.
    pub(super) fn report(&self) -> BTreeMap<String, BucketReport> {
        let state = self.lock();
        let now = self.now();
        state
            .buckets
            .iter()
            .map(|(name, b)| {
                let mut report = b.report.clone();
                if b.waiting > 0 {
                    report.waited += now.saturating_sub(b.waiting_since);
                }
                report.quota = b.model.quota();
                (name.clone(), report)
            })
            .collect()
    }

    /// Wall time spent waiting for windows, all buckets together.
    pub(super) fn spent(&self) -> Duration {
        let state = self.lock();
        state.waiting.spent(self.now())
    }

    /// Requests not sent because their wait would have passed the budget.
    pub(super) fn over_budget(&self) -> u64 {
        self.lock().waiting.over_budget
    }
}

impl PacerState {
    fn bucket(&mut self, name: &str) -> &mut Bucket {
        self.buckets.entry(name.to_string()).or_default()
    }

    fn begin_wait(&mut self, bucket: &str, now: At) {
        if self.waiting.threads == 0 {
            self.waiting.since = now;
        }
        self.waiting.threads += 1;
        let b = self.bucket(bucket);
        if b.waiting == 0 {
            b.waiting_since = now;
            b.report.waits += 1;
        }
        b.waiting += 1;
    }

    fn end_wait(&mut self, bucket: &str, now: At) {
        self.waiting.threads = self.waiting.threads.saturating_sub(1);
        if self.waiting.threads == 0 {
            self.waiting.spent += now.saturating_sub(self.waiting.since);
        }
        let b = self.bucket(bucket);
        b.waiting = b.waiting.saturating_sub(1);
        if b.waiting == 0 {
            b.report.waited += now.saturating_sub(b.waiting_since);
        }
    }
}

/// `huggingface/resolvers` → (`huggingface`, `resolvers`).
fn split(bucket: &str) -> (&str, &str) {
    bucket.rsplit_once('/').unwrap_or(("", bucket))
}

/// The bucket an item speaks of: the one it names at the request's source, else the request's.
fn named(source: &str, own: &str, name: Option<&str>) -> String {
    match name {
        Some(name) if !source.is_empty() => format!("{source}/{name}"),
        Some(name) => name.to_string(),
        None => own.to_string(),
    }
}

/// The name a source's fields give `bucket` (`huggingface/resolvers` → `resolvers`).
pub(super) fn field_name(bucket: &str) -> &str {
    split(bucket).1
}

#[cfg(test)]
mod tests;
