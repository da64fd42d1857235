//! The pacing model of one bucket, as a pure state machine over a clock it is given: what the
//! latest answer of the bucket's current window says, when that window resets, and whether a
//! request may go now or must wait until when. No threads and no clock of its own, so the
//! property test below drives it against a simulated fixed-window source.
//!
//! Instants are [`At`]: time since the pacer began. Every duration taken from a source's number
//! is clamped to [`HORIZON`] first, so no sum can overflow however large the number.
//!
//! The rules, in the order they apply (docs/design.md, "Pacing"):
//! 1. An answer places its window's reset in an interval: from its request's sending plus `t`,
//!    less a second, to its receipt plus `t`, plus a second (`t` is whole seconds, computed
//!    somewhere between the two). A `t` longer than the announced window is the window's length.
//! 2. An interval already past says nothing: that window has reset.
//! 3. An interval overlapping the current window's is the same window: the lowest count left
//!    wins, and the reset is bounded by both (by the later bound when the two could still be a
//!    window apart, latency being near the window's length). One wholly later is a newer window, believed. One wholly
//!    earlier is an older window read late, ignored, unless its request was sent after the
//!    current window was told: then it is the source's later word, and believed.
//! 4. What is left is the count less the requests still in flight (they may not be counted yet).
//! 5. When the window's latest reset passes, the next window allows the quota less what is in
//!    flight; with a known window length the next reset is a window later; without a quota,
//!    nothing is known to be limited.
//! 6. A request goes when something is left (or nothing is known) and no hold is set; else it
//!    waits for the reset or the hold, whichever is later.

use std::time::Duration;

use super::fields::{Quota, Standing};

/// Time since the pacer began.
pub(super) type At = Duration;

/// The furthest ahead any source's number can put a reset or a hold. Beyond the waiting budget
/// (15 minutes) every wait is "not within this run" alike, so a day is as good as forever, and
/// `At + HORIZON` cannot overflow.
pub(crate) const HORIZON: Duration = Duration::from_secs(24 * 60 * 60);

/// `t` is whole seconds: the reset may come up to a second either side of what it implies.
pub(crate) const RESET_MARGIN: Duration = Duration::from_secs(1);

/// Seconds a source sent, as a duration no longer than [`HORIZON`].
pub(super) fn clamped(seconds: u64) -> Duration {
    Duration::from_secs(seconds.min(HORIZON.as_secs()))
}

/// `at + by`, with `by` clamped to [`HORIZON`].
pub(super) fn after(at: At, by: Duration) -> At {
    at.saturating_add(by.min(HORIZON))
}

/// Where the current window's reset lies, and since when this client knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Window {
    earliest: At,
    latest: At,
    /// When the answer that last set or confirmed the window was received.
    told_at: At,
}

/// What a request of the bucket may do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// Send it.
    Send,
    /// Wait until this instant (or until an answer changes the picture).
    WaitUntil(At),
}

/// One bucket's state as the client knows it.
#[derive(Debug, Clone, Default)]
pub(crate) struct BucketModel {
    quota: Option<(u64, u64)>,
    window: Option<Window>,
    /// Requests the client may still send in the current window (`None`: not known limited).
    left: Option<u64>,
    /// A hold a refusal without fields set (its `Retry-After` or the backoff).
    hold_until: Option<At>,
    /// Requests admitted and not yet answered.
    in_flight: u64,
}

impl BucketModel {
    /// The quota announced, as (requests, window seconds).
    pub(crate) fn quota(&self) -> Option<(u64, u64)> {
        self.quota
    }

    /// Whether a request may go at `now`, after rolling past windows and holds.
    pub(crate) fn next(&mut self, now: At) -> Next {
        self.roll(now);
        let reset = match (self.left, self.window) {
            (Some(0), Some(w)) => Some(w.latest),
            _ => None,
        };
        match reset.max(self.hold_until) {
            Some(until) if until > now => Next::WaitUntil(until),
            _ => Next::Send,
        }
    }

    /// Counts a request as sent (after [`BucketModel::next`] said so).
    pub(crate) fn send(&mut self) {
        self.left = self.left.map(|l| l.saturating_sub(1));
        self.in_flight += 1;
    }

    /// Counts a request of this bucket as answered (or failed without an answer).
    pub(crate) fn finished(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }

    /// Learns a quota the source announced.
    pub(crate) fn learn_quota(&mut self, quota: &Quota) {
        self.quota = Some((quota.requests, quota.window_seconds));
    }

    /// Learns what an answer says of this bucket: sent at `sent`, received at `received`,
    /// processed at `now` (rules 1 to 4).
    pub(crate) fn learn_standing(&mut self, standing: &Standing, sent: At, received: At, now: At) {
        let mut t = clamped(standing.reset_seconds);
        if let Some((_, w)) = self.quota.filter(|(_, w)| *w > 0) {
            t = t.min(clamped(w));
        }
        let told = Window {
            earliest: after(sent, t).saturating_sub(RESET_MARGIN),
            latest: after(after(received, t), RESET_MARGIN),
            told_at: received,
        };
        if told.latest <= now {
            return; // rule 2
        }
        let seen = standing.remaining.saturating_sub(self.in_flight);
        match self.window {
            Some(w) if told.earliest <= w.latest && w.earliest <= told.latest => {
                // Overlapping intervals are surely one window when together they span less
                // than a window's length (two resets are a window apart): the reset then lies
                // in both, and the tighter bound holds. Otherwise (latency near the window's
                // length) they may be two windows: keep the later bound, which holds either way.
                let span = w.latest.max(told.latest) - w.earliest.min(told.earliest);
                let surely_one = self
                    .quota
                    .is_some_and(|(_, seconds)| span < clamped(seconds));
                let latest = if surely_one {
                    w.latest.min(told.latest)
                } else {
                    w.latest.max(told.latest)
                };
                self.window = Some(Window {
                    earliest: w.earliest.max(told.earliest),
                    latest,
                    told_at: w.told_at.max(received),
                });
                self.left = Some(self.left.map_or(seen, |l| l.min(seen)));
            }
            Some(w) if told.latest < w.earliest && sent < w.told_at => {} // read late
            _ => {
                self.window = Some(told);
                self.left = Some(seen);
            }
        }
    }

    /// Holds the bucket until `until` (a refusal without fields: its `Retry-After` or backoff).
    pub(crate) fn hold(&mut self, until: At) {
        self.hold_until = self.hold_until.max(Some(until));
    }

    /// Rule 5, and holds that have passed.
    fn roll(&mut self, now: At) {
        if self.hold_until.is_some_and(|h| h <= now) {
            self.hold_until = None;
        }
        let Some(w) = self.window.filter(|w| w.latest <= now) else {
            return;
        };
        match self.quota {
            Some((requests, seconds)) if seconds > 0 => {
                let length = clamped(seconds);
                // Whole windows passed since the latest reset, plus the one now current.
                let passed = (now - w.latest).as_nanos() / length.as_nanos() + 1;
                let shift = length
                    .checked_mul(u32::try_from(passed).unwrap_or(u32::MAX))
                    .unwrap_or(HORIZON)
                    .min(HORIZON);
                self.window = Some(Window {
                    earliest: after(w.earliest, shift),
                    latest: after(w.latest, shift),
                    told_at: w.told_at,
                });
                self.left = Some(requests.saturating_sub(self.in_flight));
            }
            _ => {
                self.window = None;
                self.left = None;
            }
        }
    }
}
