//! The pacer with real threads (holds, budgets, figures), and the pacing model against a
//! simulated fixed-window source (a property test over quotas, windows, latencies and the
//! reordering they cause).

use super::fields::{Quota, Standing};
use super::*;

fn signals(ratelimit: &str, policy: &str) -> Signals {
    let lines = |f: &str| {
        if f.is_empty() {
            vec![]
        } else {
            vec![f.to_string()]
        }
    };
    let (r, p) = (lines(ratelimit), lines(policy));
    Signals::read(
        &r.iter().map(String::as_str).collect::<Vec<_>>(),
        &p.iter().map(String::as_str).collect::<Vec<_>>(),
    )
}

/// Admits one request of `bucket` and answers it with `fields` at once.
fn exchange(pacer: &Pacer, bucket: &str, fields: &Signals, status: u16) {
    pacer.admit(bucket).expect("admitted");
    let at = pacer.now();
    pacer.answered(bucket, fields, Some(status), at, at);
}

#[test]
fn never_more_requests_in_flight_than_the_slots() {
    let pacer = Pacer::new(Duration::from_secs(1), false, 2);
    let in_flight = Mutex::new((0usize, 0usize));
    std::thread::scope(|scope| {
        for i in 0..8 {
            let (pacer, in_flight) = (&pacer, &in_flight);
            scope.spawn(move || {
                let bucket = if i % 2 == 0 { "s/a" } else { "s/b" };
                pacer.admit(bucket).expect("admitted");
                {
                    let mut g = in_flight.lock().expect("lock");
                    g.0 += 1;
                    g.1 = g.1.max(g.0);
                }
                std::thread::sleep(Duration::from_millis(5));
                in_flight.lock().expect("lock").0 -= 1;
                let at = pacer.now();
                pacer.answered(bucket, &Signals::default(), Some(200), at, at);
            });
        }
    });
    assert_eq!(in_flight.lock().expect("lock").1, 2);
}

#[test]
fn a_capped_bucket_refuses_past_its_cap() {
    let pacer = Pacer::new(Duration::from_secs(1), false, 8);
    pacer.cap("d", 2);
    pacer.admit("d").expect("1");
    pacer.admit("d").expect("2");
    assert_eq!(pacer.admit("d"), Err(Hold::RunCap));
    pacer.admit("other").expect("other buckets are not capped");
}

#[test]
fn a_bucket_with_nothing_left_holds_only_its_own_requests_and_says_how_long() {
    let pacer = Pacer::new(Duration::from_secs(5), false, 8);
    exchange(&pacer, "s/a", &signals("r=0;t=0", ""), 200);
    let started = Instant::now();
    pacer.admit("s/b").expect("another bucket goes on");
    assert!(started.elapsed() < Duration::from_millis(100));
    pacer.admit("s/a").expect("after the reset and its margin");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(900), "{waited:?}");
    let report = pacer.report();
    assert_eq!(report["s/a"].waits, 1);
    let charged = report["s/a"].waited;
    assert!(
        charged >= Duration::from_millis(900) && charged <= waited,
        "{charged:?} of {waited:?}"
    );
    assert_eq!(report["s/b"].waits, 0);
    assert_eq!(pacer.spent(), charged, "the run is charged what was waited");
}

#[test]
fn every_item_speaks_of_the_bucket_it_names() {
    let pacer = Pacer::new(Duration::from_secs(30), false, 8);
    // A model-info answer (bucket api) that also says resolvers is empty for 20 s.
    let both = Signals::read(
        &[r#""api";r=50;t=20"#, r#""resolvers";r=0;t=20"#],
        &[r#""fixed window";"api";q=60;w=300"#],
    );
    exchange(&pacer, "hub/api", &both, 200);
    let mut state = pacer.lock();
    let now = pacer.now();
    assert_eq!(state.bucket("hub/api").model.next(now), Next::Send);
    assert!(matches!(
        state.bucket("hub/resolvers").model.next(now),
        Next::WaitUntil(_)
    ));
    assert_eq!(state.bucket("hub/api").model.quota(), Some((60, 300)));
    assert_eq!(state.bucket("hub/resolvers").model.quota(), None);
}

#[test]
fn a_wait_past_the_budget_is_refused_at_once_and_counted() {
    let pacer = Pacer::new(Duration::from_secs(2), false, 8);
    exchange(&pacer, "s/a", &signals("r=0;t=3600", ""), 429);
    let started = Instant::now();
    assert_eq!(pacer.admit("s/a"), Err(Hold::OverBudget));
    assert_eq!(pacer.admit("s/a"), Err(Hold::OverBudget), "the retry too");
    assert!(started.elapsed() < Duration::from_millis(100));
    assert_eq!(pacer.report()["s/a"].refused, 1);
    assert_eq!(pacer.over_budget(), 2);
    assert_eq!(pacer.spent(), Duration::ZERO, "nothing was waited");
}

#[test]
fn oversized_numbers_never_panic_and_mean_not_within_this_run() {
    for t in [u64::MAX, 9_999_999_999_999_999_999, 1 << 40] {
        let pacer = Pacer::new(Duration::from_secs(900), false, 8);
        let field = format!("r=0;t={t}");
        exchange(&pacer, "s/a", &signals(&field, ""), 200);
        assert_eq!(pacer.admit("s/a"), Err(Hold::OverBudget), "t={t}");
        pacer.hold("s/b", pacer.now(), Duration::from_secs(u64::MAX));
        assert_eq!(pacer.admit("s/b"), Err(Hold::OverBudget), "hold {t}");
    }
}

#[test]
fn a_wait_ended_early_by_an_answer_is_charged_what_it_lasted() {
    let pacer = Pacer::new(Duration::from_secs(30), false, 8);
    exchange(&pacer, "s/a", &signals("r=0;t=5", ""), 429);
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            // A later answer (sent after the first was told) says the window has reset.
            let at = pacer.now();
            pacer.answered("s/a", &signals("r=9;t=60", ""), Some(200), at, at);
        });
        pacer.admit("s/a").expect("released");
    });
    let spent = pacer.spent();
    assert!(
        spent >= Duration::from_millis(250) && spent < Duration::from_millis(1500),
        "{spent:?}, not the planned 5-6 s"
    );
    assert_eq!(pacer.report()["s/a"].waited, spent);
}

#[test]
fn threads_waiting_through_one_window_spend_its_length_once() {
    let pacer = Pacer::new(Duration::from_secs(10), false, 8);
    for _ in 0..4 {
        pacer.admit("s/a").expect("admitted");
    }
    let at = pacer.now();
    for _ in 0..4 {
        pacer.answered("s/a", &signals("r=0;t=0", ""), Some(429), at, at);
    }
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| pacer.admit("s/a").expect("fits"));
        }
    });
    let spent = pacer.spent();
    assert!(spent <= Duration::from_millis(1300), "{spent:?}");
    assert_eq!(pacer.report()["s/a"].waits, 1, "one wait shared by four");
}

/// The model alone, on a clock of its own.
mod model {
    use super::super::window::{At, BucketModel, Next};
    use super::*;

    fn s(secs: f64) -> At {
        Duration::from_secs_f64(secs)
    }

    fn standing(r: u64, t: u64) -> Standing {
        Standing {
            bucket: None,
            remaining: r,
            reset_seconds: t,
        }
    }

    fn quota(q: u64, w: u64) -> Quota {
        Quota {
            bucket: None,
            requests: q,
            window_seconds: w,
        }
    }

    #[test]
    fn a_late_answer_of_the_same_window_never_raises_the_count_nor_moves_the_reset() {
        let mut m = BucketModel::default();
        m.learn_quota(&quota(10, 60));
        m.send();
        m.send();
        // The second request's answer comes first: 3 left, reset 30 s after.
        m.finished();
        m.learn_standing(&standing(3, 30), s(0.0), s(0.1), s(0.1));
        // The first one's answer, delayed 2.5 s: more left, same window.
        m.finished();
        m.learn_standing(&standing(4, 29), s(0.0), s(2.6), s(2.6));
        // 3 left less the one then in flight (it may not have been counted): 2, not 4.
        for _ in 0..2 {
            assert_eq!(m.next(s(3.0)), Next::Send);
            m.send();
        }
        assert_eq!(
            m.next(s(3.0)),
            Next::WaitUntil(s(31.1)),
            "the reset not pushed"
        );
    }

    /// Known limitation, found by issue 33 (its closing note): four requests sent together
    /// 0.08 s before a 3-s window resets; three answers say `t=0` (the last `r=0`), then the
    /// answer with a wild `t` (3000, taken as the window's 3 s) is read last. It reads as a
    /// newer window with 2 left, so the model sends into the window the others said was spent,
    /// and the source refuses it (`tests/it/collect_pacing.rs` met it under load).
    #[test]
    #[ignore = "known limitation: a wild reset read after the window's true word reopens it"]
    fn a_wild_reset_read_last_does_not_reopen_a_spent_window() {
        let mut m = BucketModel::default();
        m.learn_quota(&quota(4, 3));
        for _ in 0..4 {
            m.send();
        }
        for r in [3, 1, 0] {
            m.finished();
            m.learn_standing(&standing(r, 0), s(2.921), s(2.922), s(2.922));
        }
        m.finished();
        m.learn_standing(&standing(2, 3000), s(2.921), s(2.923), s(2.923));
        // The window the three told resets by 3.922 at the latest: nothing goes before.
        assert!(matches!(m.next(s(2.967)), Next::WaitUntil(_)));
    }

    #[test]
    fn an_answer_of_a_window_already_reset_says_nothing() {
        let mut m = BucketModel::default();
        m.send();
        m.finished();
        m.learn_standing(&standing(0, 1), s(0.0), s(0.1), s(5.0));
        assert_eq!(m.next(s(5.0)), Next::Send);
    }

    #[test]
    fn a_huge_reset_is_corrected_by_the_sources_next_word() {
        let mut m = BucketModel::default();
        m.send();
        m.finished();
        m.learn_standing(&standing(1, 3000), s(0.0), s(0.1), s(0.1));
        m.send();
        m.finished();
        // Sent after the first answer was received: the source's later word.
        m.learn_standing(&standing(0, 3), s(0.2), s(0.3), s(0.3));
        assert_eq!(m.next(s(0.3)), Next::WaitUntil(s(4.3)));
        // And with the quota known, a `t` past the window is the window's length.
        let mut m = BucketModel::default();
        m.learn_quota(&quota(2, 3));
        m.send();
        m.finished();
        m.learn_standing(&standing(0, 3000), s(0.0), s(0.1), s(0.1));
        assert_eq!(m.next(s(0.1)), Next::WaitUntil(s(4.1)));
    }

    #[test]
    fn after_a_reset_never_more_than_the_quota_less_what_is_in_flight() {
        let mut m = BucketModel::default();
        m.learn_quota(&quota(2, 10));
        m.send();
        m.send();
        m.send();
        m.finished();
        m.learn_standing(&standing(0, 5), s(0.0), s(0.1), s(0.1));
        // Two still in flight when the window resets: they may count in the new one.
        assert_eq!(m.next(s(6.2)), Next::WaitUntil(s(16.1)));
        m.finished();
        m.finished();
        assert_eq!(
            m.next(s(6.2)),
            Next::WaitUntil(s(16.1)),
            "still the same window"
        );
        assert_eq!(m.next(s(16.2)), Next::Send, "the window after");
        m.send();
        m.send();
        assert_eq!(m.next(s(16.2)), Next::WaitUntil(s(26.1)));
    }

    #[test]
    fn a_hold_and_a_reset_wait_for_the_later() {
        let mut m = BucketModel::default();
        m.hold(s(3.0));
        assert_eq!(m.next(s(1.0)), Next::WaitUntil(s(3.0)));
        assert_eq!(m.next(s(3.0)), Next::Send);
    }
}

/// The model against a simulated source of fixed windows.
mod simulated {
    use std::collections::{BTreeMap, BinaryHeap};

    use proptest::prelude::*;

    use super::super::window::{BucketModel, Next, RESET_MARGIN};
    use super::*;

    const SLOTS: usize = 4;

    #[derive(Debug, Clone)]
    struct Case {
        quota: u64,
        window_ms: u64,
        phase_ms: u64,
        workers: usize,
        per_worker: usize,
        /// (to the source, back) latencies in ms, drawn per attempt, cycled.
        latencies: Vec<(u64, u64)>,
    }

    fn cases() -> impl Strategy<Value = Case> {
        (
            1u64..6,
            5u64..61,
            0u64..1000,
            1usize..7,
            1usize..7,
            prop::collection::vec((0u64..2000, 0u64..2000), 1..24),
        )
            .prop_map(
                |(quota, window_s, phase, workers, per_worker, latencies)| Case {
                    quota,
                    window_ms: window_s * 1000,
                    phase_ms: phase * window_s,
                    workers,
                    per_worker,
                    latencies,
                },
            )
    }

    #[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
    enum Event {
        /// The source processes a worker's request.
        Arrive { worker: usize, sent: u64 },
        /// The worker receives the answer.
        Receive {
            worker: usize,
            sent: u64,
            remaining: u64,
            t: u64,
            refused: bool,
        },
    }

    /// What one run of the simulation came to.
    struct Outcome {
        /// Refusals of requests sent after the client first heard the quota.
        avoidable: Vec<u64>,
        most_in_flight: usize,
        finished_ms: u64,
        done: usize,
    }

    /// Runs `case`; a client that does not `heed` the fields sends whenever a slot is free.
    fn run(case: &Case, heed: bool) -> Outcome {
        let mut model = BucketModel::default();
        let mut queue: BinaryHeap<std::cmp::Reverse<(u64, u64, Event)>> = BinaryHeap::new();
        let mut seq = 0u64;
        let mut counted: BTreeMap<u64, u64> = BTreeMap::new();
        let mut left_to_do = vec![case.per_worker; case.workers];
        let mut busy = vec![false; case.workers];
        let mut in_flight = 0usize;
        let mut outcome = Outcome {
            avoidable: vec![],
            most_in_flight: 0,
            finished_ms: 0,
            done: 0,
        };
        let mut quota_known_at: Option<u64> = None;
        let mut attempt = 0usize;
        let mut now = 0u64;
        let ms = Duration::from_millis;
        loop {
            // Every idle worker with work asks the model, while slots are free.
            let mut wake: Option<u64> = None;
            for w in 0..case.workers {
                if busy[w] || left_to_do[w] == 0 || in_flight >= SLOTS {
                    continue;
                }
                match model.next(ms(now)) {
                    Next::Send => {
                        model.send();
                        busy[w] = true;
                        in_flight += 1;
                        outcome.most_in_flight = outcome.most_in_flight.max(in_flight);
                        let (up, _) = case.latencies[attempt % case.latencies.len()];
                        seq += 1;
                        queue.push(std::cmp::Reverse((
                            now + up,
                            seq,
                            Event::Arrive {
                                worker: w,
                                sent: now,
                            },
                        )));
                    }
                    Next::WaitUntil(t) => {
                        let t = u64::try_from(t.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX);
                        wake = Some(wake.map_or(t, |x| x.min(t)));
                    }
                }
            }
            let next_event = queue.peek().map(|std::cmp::Reverse((t, _, _))| *t);
            let next = match (next_event, wake) {
                (None, None) => break,
                (Some(e), Some(w)) if w < e => {
                    now = w;
                    continue;
                }
                (None, Some(w)) => {
                    now = w;
                    continue;
                }
                (Some(e), _) => e,
            };
            let Some(std::cmp::Reverse((at, _, event))) = queue.pop() else {
                break;
            };
            now = next.max(at);
            match event {
                Event::Arrive { worker, sent } => {
                    let index = (now + case.phase_ms) / case.window_ms;
                    let used = counted.entry(index).or_insert(0);
                    *used += 1;
                    let refused = *used > case.quota;
                    let reset = (index + 1) * case.window_ms - case.phase_ms;
                    let (_, down) = case.latencies[attempt % case.latencies.len()];
                    attempt += 1;
                    seq += 1;
                    queue.push(std::cmp::Reverse((
                        now + down,
                        seq,
                        Event::Receive {
                            worker,
                            sent,
                            remaining: case.quota.saturating_sub(*used),
                            t: (reset - now) / 1000,
                            refused,
                        },
                    )));
                }
                Event::Receive {
                    worker,
                    sent,
                    remaining,
                    t,
                    refused,
                } => {
                    in_flight -= 1;
                    busy[worker] = false;
                    model.finished();
                    if heed {
                        model.learn_quota(&Quota {
                            bucket: None,
                            requests: case.quota,
                            window_seconds: case.window_ms / 1000,
                        });
                        let standing = Standing {
                            bucket: None,
                            remaining,
                            reset_seconds: t,
                        };
                        model.learn_standing(&standing, ms(sent), ms(now), ms(now));
                    }
                    if refused {
                        if quota_known_at.is_some_and(|k| sent >= k) {
                            outcome.avoidable.push(sent);
                        }
                    } else {
                        left_to_do[worker] -= 1;
                        outcome.done += 1;
                        outcome.finished_ms = now;
                    }
                    quota_known_at.get_or_insert(now);
                }
            }
        }
        outcome
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Never a refusal the announced fields could have avoided, never more in flight than
        /// the slots, every request done, and no wait longer than the windows force: the run
        /// ends within the windows its requests need, each plus the margins and latencies.
        #[test]
        fn the_pacing_model_against_a_fixed_window_source(case in cases()) {
            let outcome = run(&case, true);
            let total = (case.workers * case.per_worker) as u64;
            prop_assert_eq!(outcome.done as u64, total);
            prop_assert!(outcome.avoidable.is_empty(), "{:?}", outcome.avoidable);
            prop_assert!(outcome.most_in_flight <= SLOTS);
            let windows = total.div_ceil(case.quota) + 1;
            let rtt = 4000;
            let slack = 2 * RESET_MARGIN.as_millis() as u64 + rtt;
            let bound = windows * (case.window_ms + slack) + total * rtt;
            prop_assert!(
                outcome.finished_ms <= bound,
                "finished at {} ms, bound {} ms", outcome.finished_ms, bound
            );
        }
    }

    #[test]
    fn the_simulation_sees_the_refusals_of_a_client_that_ignores_the_fields() {
        let case = Case {
            quota: 1,
            window_ms: 10_000,
            phase_ms: 0,
            workers: 3,
            per_worker: 2,
            latencies: vec![(10, 10)],
        };
        let heeding = run(&case, true);
        assert!(heeding.avoidable.is_empty());
        assert_eq!(heeding.done, 6);
        // 6 requests at 1 per 10 s window: 5 resets at least.
        assert!(heeding.finished_ms >= 50_000, "{}", heeding.finished_ms);
        let naive = run(&case, false);
        assert_eq!(naive.done, 6);
        assert!(naive.avoidable.len() > 100, "{}", naive.avoidable.len());
    }
}
