//! Collecting the export and the supply feed from the public sources (DESIGN §9–10): read the
//! policy and the previous files, call the sources, assemble, pass the gate, write atomically.
//!
//! A front stage: its only output is the two input files, which re-enter through the same gate
//! as any other input. Nothing after it talks to the network.

pub mod cache_facts;
mod changes;
mod config;
mod error;
mod facts;
pub mod formats;
pub mod http;
mod huggingface;
pub(crate) mod inspect;
mod openrouter;
mod outcome;
pub mod parameters;
pub(crate) mod policy;
mod ratelimit;
mod redirect;
pub mod report;
mod routes;
pub mod safetensors;
mod unknowns;
mod write;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use time::{Date, OffsetDateTime};

use crate::base::error::{Error, Result};
use crate::input::export::{Availability, Export, Fact};
use crate::input::validate::Timestamp;

pub use self::error::{CollectError, RepoAt};
use self::facts::Evidence;
use self::http::{Client, RequestKind, Secret};
use self::huggingface::Hub;
use self::openrouter::{CatalogJoin, DemandDay, OpenRouterCatalog, SlugMatch};
use self::policy::Policy;
use self::report::{CatalogStatus, RepositoryOutcome, RunOutcome, RunReport};
pub use self::routes::CollectedRoute;

/// The first date of the rankings dataset; earlier start dates are clamped to it.
pub const DATASET_START: Date = time::macros::date!(2025 - 01 - 01);
/// Collections finished more than this many days before the run are dropped from the feed.
pub const SUPPLY_HISTORY_DAYS: i64 = 35;
/// Default number of rankings days requested.
pub const DEFAULT_DAYS: u32 = 60;
/// The environment variable holding the OpenRouter key.
pub const OPENROUTER_KEY_VAR: &str = "OPENROUTER_API_KEY";
/// The environment variable holding the optional Hugging Face token.
pub const HF_TOKEN_VAR: &str = "HF_TOKEN";
/// The first retry's wait when the source gives no `Retry-After` (doubles each time).
pub const RETRY_BASE: Duration = Duration::from_secs(2);

/// A credential from the environment variable `name`, when set and not empty.
pub fn secret_from_env(name: &str) -> Option<Secret> {
    std::env::var(name).ok().and_then(Secret::new)
}

/// Everything one run needs.
#[derive(Debug, Clone)]
pub struct CollectOptions {
    /// Directory receiving `export.json` and `supply.json`.
    pub out: PathBuf,
    /// An accepted export whose days (and facts) are carried forward.
    pub previous_export: Option<PathBuf>,
    /// An accepted supply feed whose collections are carried forward.
    pub previous_supply: Option<PathBuf>,
    /// Rankings days requested, 1–366.
    pub days: u32,
    /// The run's clock.
    pub now: OffsetDateTime,
    /// OpenRouter's base URL.
    pub openrouter_url: String,
    /// Hugging Face's base URL.
    pub huggingface_url: String,
    /// The policy file given; without one, `data/policy.json` in the current directory, else
    /// the policy embedded in the binary.
    pub policy: Option<PathBuf>,
    /// Cache of immutable Hugging Face files, when given.
    pub cache: Option<PathBuf>,
    /// `OPENROUTER_API_KEY`.
    pub openrouter_key: Option<Secret>,
    /// `HF_TOKEN`.
    pub hf_token: Option<Secret>,
    /// The first retry's wait when the source gives no `Retry-After` (doubles each time).
    pub retry_base: Duration,
    /// The most wall time the run waits for rate-limit windows to reset.
    pub wait_budget: Duration,
    /// Where to write the run report (`--report`), if anywhere.
    pub report: Option<PathBuf>,
    /// Print progress on stderr.
    pub progress: bool,
}

impl CollectOptions {
    /// Options with the documented defaults and the credentials from the environment.
    pub fn from_env(out: impl Into<PathBuf>, now: OffsetDateTime) -> CollectOptions {
        CollectOptions {
            out: out.into(),
            previous_export: None,
            previous_supply: None,
            days: DEFAULT_DAYS,
            now,
            openrouter_url: "https://openrouter.ai".to_string(),
            huggingface_url: huggingface::PUBLIC_HOST.to_string(),
            policy: None,
            cache: None,
            openrouter_key: secret_from_env(OPENROUTER_KEY_VAR),
            hf_token: secret_from_env(HF_TOKEN_VAR),
            retry_base: RETRY_BASE,
            wait_budget: ratelimit::WAIT_BUDGET,
            report: None,
            progress: false,
        }
    }
}

/// What a finished run reports.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectReport {
    /// Days in the written export.
    pub days: usize,
    /// Days the source delivered in this run.
    pub days_collected: usize,
    /// Models served by the window.
    pub models: usize,
    /// Models whose facts came from repository evidence this run.
    pub models_with_evidence: usize,
    /// Routes of the new collection (0 when it failed).
    pub routes: usize,
    /// Whether the new supply collection is complete.
    pub supply_complete: bool,
    /// Routes that failed alone (their models say `route_collection_failed`).
    pub routes_failed: usize,
    /// Requests by kind, retries included.
    pub requests: BTreeMap<RequestKind, u64>,
    /// Body bytes received by kind.
    pub bytes: BTreeMap<RequestKind, u64>,
    /// Wall time.
    pub elapsed: Duration,
}

impl CollectReport {
    /// The one-line summary that ends a run.
    pub fn summary(&self, out: &Path) -> String {
        let total: u64 = self.requests.values().sum();
        let kinds: Vec<String> = self
            .requests
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        format!(
            "collected into {}: {} day(s) delivered ({} in the export), {} model(s) served ({} with repository evidence), {} route(s) ({} failed), supply {}, {} request(s) ({}), in {:.1} s",
            out.display(),
            self.days_collected,
            self.days,
            self.models,
            self.models_with_evidence,
            self.routes,
            self.routes_failed,
            if self.supply_complete { "complete" } else { "failed" },
            total,
            kinds.join(", "),
            self.elapsed.as_secs_f64()
        )
    }
}

/// The most threads reading Hugging Face repositories at once (requests in flight stay at
/// [`http::MAX_IN_FLIGHT`]); above the top-50's repositories with room to spare.
const MAX_REPOSITORY_THREADS: usize = 256;

/// Runs one collection and writes both files, or fails writing nothing. With
/// `options.report`, the run report is written either way.
pub fn collect(options: &CollectOptions) -> Result<CollectReport> {
    let started = Instant::now();
    if let Some(path) = &options.report {
        // Refused before the first request: a report may replace only a report.
        RunReport::check_replaceable(path)?;
    }
    let client = Client::with_pacing(options.retry_base, options.wait_budget, options.progress);
    let mut run = RunReport::new(Timestamp::from_instant(options.now).as_str());
    let result = collect_with(options, &client, &mut run, started);
    if let Some(path) = &options.report {
        run.finish(&client, options.wait_budget, started.elapsed());
        match &result {
            Ok(_) => run.outcome = RunOutcome::Written,
            Err(e) => run.error = Some(e.to_string()),
        }
        // The files are what matters: a report that cannot be written is said, not fatal.
        if let Err(e) = run.write(path) {
            eprintln!("collect: the run report was not written: {e}");
        }
    }
    result
}

fn collect_with(
    options: &CollectOptions,
    client: &Client,
    run: &mut RunReport,
    started: Instant,
) -> Result<CollectReport> {
    let key = options
        .openrouter_key
        .as_ref()
        .ok_or(CollectError::MissingKey)?;
    if !(1..=366).contains(&options.days) {
        return Err(Error::Usage(format!(
            "--days must be from 1 to 366, got {}",
            options.days
        )));
    }
    let policy = policy::load(options.policy.as_deref())?;
    let previous_export = options
        .previous_export
        .as_deref()
        .map(read_previous_export)
        .transpose()?;
    let previous_supply = options
        .previous_supply
        .as_deref()
        .map(write::read_previous_supply)
        .transpose()?;

    let end = options
        .now
        .date()
        .previous_day()
        .filter(|d| *d >= DATASET_START)
        .ok_or(CollectError::BeforeDataset)?;
    let start = end
        .checked_sub(time::Duration::days(i64::from(options.days) - 1))
        .map_or(DATASET_START, |d| d.max(DATASET_START));
    let cutoff = end
        .next_day()
        .ok_or(CollectError::DateOutOfRange)?
        .midnight()
        .assume_utc();

    let plan = Plan {
        options,
        key,
        policy,
        previous_export,
        previous_supply,
        start,
        end,
        cutoff,
        started,
    };
    with_progress(options.progress, client, started, || {
        gather(&plan, client, run)
    })
}

/// Runs `work`, printing the requests made every two seconds meanwhile when `progress`. The
/// progress thread stops when the work ends, however it ends: a panic in the work (a bug, or a
/// source's value no rule foresaw) is the run's error, with its report, never a process left
/// waiting for that thread.
fn with_progress<T>(
    progress: bool,
    client: &Client,
    started: Instant,
    work: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if progress {
            scope.spawn(|| report_progress(client, &done, started));
        }
        let _stop = SetOnDrop(&done);
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_string());
            Err(CollectError::Internal { what }.into())
        })
    })
}

/// Sets its flag when dropped, unwinding included.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What a run has settled before its first request.
struct Plan<'a> {
    options: &'a CollectOptions,
    key: &'a Secret,
    policy: Policy,
    previous_export: Option<Export>,
    previous_supply: Option<Vec<serde_json::Value>>,
    start: Date,
    end: Date,
    cutoff: OffsetDateTime,
    started: Instant,
}

/// The run's requests and assembly: demand, catalog, supply, facts, then the two files. What
/// it meets goes into `run`, the run report.
fn gather(plan: &Plan<'_>, client: &Client, run: &mut RunReport) -> Result<CollectReport> {
    let Plan {
        options,
        key,
        policy,
        previous_export,
        previous_supply,
        start,
        end,
        cutoff,
        started,
    } = plan;
    let (key, start, end, cutoff) = (*key, *start, *end, *cutoff);
    let or_base = options.openrouter_url.trim_end_matches('/');
    let progress = |line: String| {
        if options.progress {
            eprintln!("{line}");
        }
    };
    progress(format!(
        "collect: rankings-daily {} to {}",
        crate::input::validate::format_date(start),
        crate::input::validate::format_date(end)
    ));
    let rankings = fetch_rankings(client, or_base, key, start, end, cutoff)?;
    let demand = openrouter::demand_days(&rankings.data, start, end)
        .map_err(|why| CollectError::MalformedRows { why })?;
    run.record_folded_rows(&demand.folded);
    if !demand.folded.is_empty() {
        progress(format!(
            "collect: {} rankings row(s) with no publishable model ID counted in their day's other tokens (the run report names them)",
            demand.folded.len()
        ));
    }
    let new_days = demand.days;
    let days = merge_days(previous_export.as_ref(), &new_days, end);
    let window_start = crate::input::export::window_start(end);
    let served: BTreeSet<String> = days
        .iter()
        .filter(|d| d.date >= window_start && d.date <= end)
        .flat_map(|d| d.rows.iter().map(|(id, _)| id.clone()))
        .collect();
    run.days_delivered = new_days.len() as u64;
    run.days_in_export = days.len() as u64;
    run.models_served = served.len() as u64;

    progress(format!(
        "collect: {} model(s) served; catalog",
        served.len()
    ));
    let catalog = match fetch_catalog(client, or_base, key) {
        Ok(catalog) => Some(catalog),
        Err(why) => {
            progress(format!(
                "collect: the catalog could not be read ({why}): supply fails, facts are carried"
            ));
            run.catalog.status = CatalogStatus::Failed;
            None
        }
    };
    let joins = join_catalog(&served, catalog.as_ref(), policy, run);

    // At most four requests are in flight (the client's own cap); the pool only keeps that
    // many threads busy.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(http::MAX_IN_FLIGHT)
        .build()
        .map_err(|why| CollectError::WorkerThreads { why })?;
    let routes = catalog.as_ref().map(|_| {
        progress(format!(
            "collect: endpoints of {} route(s)",
            joins.values().map(|j| j.route_ids.len()).sum::<usize>()
        ));
        pool.install(|| routes::fetch(client, or_base, key, &joins))
    });
    if let Some(routes) = &routes {
        run.record_routes(routes);
    }

    let hub = Hub::new(
        client,
        &options.huggingface_url,
        options.hf_token.as_ref(),
        options.cache.as_deref(),
    );
    let repos: BTreeSet<&str> = joins
        .values()
        .filter_map(|j| j.hugging_face_repo.as_deref())
        .collect();
    progress(format!(
        "collect: facts from {} Hugging Face repositor{}",
        repos.len(),
        if repos.len() == 1 { "y" } else { "ies" }
    ));
    // A repository's requests run in order (model info, then files); while one bucket is held
    // its waiting requests hold a thread each, never a request slot, so that every repository
    // has a thread of its own and the other bucket's requests go on.
    let hub_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(repos.len().clamp(1, MAX_REPOSITORY_THREADS))
        .build()
        .map_err(|why| CollectError::WorkerThreads { why })?;
    let evidence: BTreeMap<&str, Evidence> = hub_pool.install(|| {
        repos
            .par_iter()
            .map(|repo| (*repo, facts::from_repository(&hub, repo, &policy.review)))
            .collect()
    });
    for (repo, found) in &evidence {
        if let Evidence::Facts { findings, .. } = found {
            unknowns::record(run.unknowns(), repo, findings);
        }
    }
    let (last_day, tokens) = demand_by_repository(&days, &joins);
    run.order_unreviewed(last_day, &tokens);
    let model_facts = assemble_facts(
        &served,
        &joins,
        catalog.is_some(),
        &evidence,
        previous_export.as_ref(),
        policy,
        run,
    );
    let models_with_evidence = run
        .repositories
        .iter()
        .filter(|r| r.outcome == RepositoryOutcome::Read)
        .map(|r| r.models.len())
        .sum();

    let now = Timestamp::from_instant(options.now);
    let export = write::ExportParts {
        generated_at: &now,
        evaluation_cutoff: &Timestamp::from_instant(cutoff),
        fresh_until: &Timestamp::from_instant(
            cutoff + time::Duration::hours(i64::from(policy.fresh_for_hours)),
        ),
        checked_at: &policy.terms_checked_at,
        as_of: &rankings.meta.as_of,
        days: &days,
        facts: &model_facts,
    };
    let supply = write::SupplyParts {
        previous: previous_supply.as_ref(),
        now: &now,
        routes: routes.as_ref().map(|r| r.routes.as_slice()),
    };
    write::write_pair(&options.out, &export, &supply)?;
    Ok(CollectReport {
        days: days.len(),
        days_collected: new_days.len(),
        models: served.len(),
        models_with_evidence,
        routes: routes.as_ref().map_or(0, |r| r.routes.len()),
        routes_failed: run.routes.failed.len(),
        supply_complete: routes.is_some(),
        requests: client.counts(),
        bytes: client.bytes(),
        elapsed: started.elapsed(),
    })
}

/// Each served model's place in the catalog (none when the catalog failed), using the
/// policy's reviewed `catalog_matches` where they name a slug the catalog has; the report
/// learns of skipped entries, unmatched models and what became of each reviewed match.
fn join_catalog<'a>(
    served: &'a BTreeSet<String>,
    catalog: Option<&OpenRouterCatalog>,
    policy: &Policy,
    run: &mut RunReport,
) -> BTreeMap<&'a str, CatalogJoin> {
    let Some(catalog) = catalog else {
        run.record_matches(policy, served, None);
        return served
            .iter()
            .map(|id| (id.as_str(), CatalogJoin::default()))
            .collect();
    };
    run.record_catalog(catalog);
    let slugs: BTreeSet<&str> = catalog
        .entries
        .iter()
        .filter_map(|e| e.canonical_slug.as_deref())
        .collect();
    run.record_matches(policy, served, Some(&slugs));
    let joins: BTreeMap<&str, CatalogJoin> = served
        .iter()
        .map(|id| {
            let reviewed = policy
                .catalog_match(id)
                .map(|m| m.canonical_slug.as_str())
                .filter(|s| slugs.contains(s));
            let slug = reviewed.or_else(|| {
                let found = openrouter::match_slug(openrouter::release_id(id), &slugs);
                run.record_slug_match(id, &found);
                match found {
                    SlugMatch::ByCase(slug) => Some(slug),
                    SlugMatch::AsWritten | SlugMatch::Ambiguous(_) => None,
                }
            });
            (id.as_str(), openrouter::join(id, &catalog.entries, slug))
        })
        .collect();
    run.models_without_catalog_entry = joins
        .iter()
        .filter(|(_, j)| j.release_entries == 0)
        .map(|(id, _)| id.to_string())
        .collect();
    joins
}

/// The twelve facts of every served model: from its repository's evidence, carried from the
/// previous export when the evidence could not be had, or the reason there is none.
fn assemble_facts(
    served: &BTreeSet<String>,
    joins: &BTreeMap<&str, CatalogJoin>,
    catalog_read: bool,
    evidence: &BTreeMap<&str, Evidence>,
    previous_export: Option<&Export>,
    policy: &Policy,
    run: &mut RunReport,
) -> BTreeMap<String, Vec<Fact>> {
    let previous = |id: &str| {
        previous_export
            .and_then(|p| p.models.get(id))
            .map(|m| m.facts.clone())
    };
    let mut outcomes: BTreeMap<&str, (RepositoryOutcome, Option<String>, Vec<String>)> =
        BTreeMap::new();
    let mut model_facts = BTreeMap::new();
    for id in served {
        let repo = joins
            .get(id.as_str())
            .and_then(|j| j.hugging_face_repo.as_deref());
        let facts = match (catalog_read, repo) {
            (false, _) => previous(id)
                .unwrap_or_else(|| facts::all(Availability::Unavailable, "catalog_unavailable")),
            (true, None) => facts::without_repository(id, policy),
            (true, Some(repo)) => {
                let (facts, outcome, why) = match evidence.get(repo) {
                    Some(Evidence::Facts {
                        facts,
                        repository,
                        commit,
                        findings,
                    }) => {
                        let mut facts = facts.clone();
                        if let Some(old) = previous(id) {
                            // A quantized child not read: the smallest quantization carried.
                            if findings.quantization_unread {
                                facts::carry_smallest_quantization(&mut facts, &old);
                            }
                            run.changed_facts.extend(changes::changed_facts(
                                id, repository, commit, &old, &facts,
                            ));
                        }
                        (facts, RepositoryOutcome::Read, None)
                    }
                    Some(Evidence::Refused(f, outcome, why)) => {
                        (f.clone(), *outcome, Some(why.clone()))
                    }
                    Some(Evidence::Unavailable(why)) => match previous(id) {
                        Some(f) => (f, RepositoryOutcome::Carried, Some(why.clone())),
                        None => (
                            facts::all(Availability::Unavailable, "open_checkpoint_unavailable"),
                            RepositoryOutcome::Failed,
                            Some(why.clone()),
                        ),
                    },
                    None => (
                        facts::all(Availability::Unavailable, "open_checkpoint_unavailable"),
                        RepositoryOutcome::Failed,
                        Some("not requested".to_string()),
                    ),
                };
                let entry = outcomes.entry(repo).or_insert((outcome, why, Vec::new()));
                // Two models of one repository: one carried and one failed is reported failed.
                if outcome == RepositoryOutcome::Failed {
                    entry.0 = outcome;
                }
                entry.2.push(id.clone());
                facts
            }
        };
        model_facts.insert(id.clone(), facts);
    }
    run.repositories = outcomes
        .into_iter()
        .map(
            |(repo, (outcome, reason, models))| report::RepositorySection {
                repository: repo.to_string(),
                models,
                outcome,
                reason,
            },
        )
        .collect();
    run.record_facts(&model_facts);
    model_facts
}

/// Prints the requests made so far every two seconds until `done`: a long run (a cold cache
/// reads thousands of headers) shows it is moving.
fn report_progress(client: &Client, done: &AtomicBool, started: Instant) {
    let mut last = Instant::now();
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        if last.elapsed() >= Duration::from_secs(2) {
            last = Instant::now();
            let counts = client.counts();
            let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
            eprintln!(
                "  ... {} request(s) ({}) in {:.0} s",
                counts.values().sum::<u64>(),
                parts.join(", "),
                started.elapsed().as_secs_f64()
            );
        }
    }
}

fn read_previous_export(path: &Path) -> Result<Export> {
    let bytes = std::fs::read(path).map_err(|e| Error::io("cannot read", path, e))?;
    let raw = crate::input::json::parse(&bytes, path)?;
    crate::input::export::validate(&raw).map_err(|p| Error::Refused(vec![(path.to_path_buf(), p)]))
}

/// The rankings answer, or the reason demand cannot be collected (exit 1, nothing written).
fn fetch_rankings(
    client: &Client,
    base: &str,
    key: &Secret,
    start: Date,
    end: Date,
    cutoff: OffsetDateTime,
) -> Result<openrouter::RankingsResponse> {
    let url = format!(
        "{base}/api/v1/datasets/rankings-daily?start_date={}&end_date={}",
        crate::input::validate::format_date(start),
        crate::input::validate::format_date(end)
    );
    let answer = client
        .get(RequestKind::Rankings, &url, Some(key), &[])
        .map_err(|why| CollectError::RankingsUnreachable { why })?;
    match answer.status {
        200..=299 => {}
        status @ (401 | 403) => return Err(CollectError::KeyRefused { status }.into()),
        status => {
            let message = source_message(&answer.body);
            return Err(CollectError::RankingsStatus { status, message }.into());
        }
    }
    let rankings: openrouter::RankingsResponse =
        serde_json::from_slice(&answer.body).map_err(|why| CollectError::MalformedJson { why })?;
    let as_of = OffsetDateTime::parse(
        &rankings.meta.as_of,
        &time::format_description::well_known::Rfc3339,
    )
    .map_err(|_| CollectError::AsOfNotInstant {
        as_of: rankings.meta.as_of.clone(),
    })?;
    if as_of < cutoff {
        let as_of = rankings.meta.as_of.clone();
        return Err(CollectError::SnapshotBehind { as_of, end }.into());
    }
    Ok(rankings)
}

/// The `error.message` of a source's error body, cut short, for messages.
fn source_message(body: &[u8]) -> String {
    let message = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .and_then(|m| m.as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| "no error message".to_string());
    message.chars().take(200).collect()
}

/// The catalog read entry by entry, or why it could not be had (facts carried, supply
/// failed).
fn fetch_catalog(
    client: &Client,
    base: &str,
    key: &Secret,
) -> std::result::Result<OpenRouterCatalog, String> {
    let url = format!("{base}/api/v1/models?output_modalities=all");
    let answer = client
        .get(RequestKind::Catalog, &url, Some(key), &[])
        .map_err(|e| e.to_string())?;
    if !answer.ok() {
        return Err(format!("answered {}", answer.status));
    }
    openrouter::read_catalog(&answer.body)
}

/// The export's last day and, for each repository the catalog names, the tokens its served
/// models had on it: what orders the run report's unreviewed configurations (DESIGN §10,
/// "Review wide, not one file deep").
fn demand_by_repository(
    days: &[DemandDay],
    joins: &BTreeMap<&str, CatalogJoin>,
) -> (Option<String>, BTreeMap<String, u128>) {
    let mut tokens: BTreeMap<String, u128> = BTreeMap::new();
    let Some(last) = days.last() else {
        return (None, tokens);
    };
    for (model, total) in &last.rows {
        let repo = joins
            .get(model.as_str())
            .and_then(|j| j.hugging_face_repo.as_ref());
        if let Some(repo) = repo {
            let sum = tokens.entry(repo.clone()).or_insert(0);
            *sum = sum.saturating_add(*total);
        }
    }
    let date = crate::input::validate::format_date(last.date);
    (Some(date), tokens)
}

/// The previous export's days with this run's days laid over them (a restated day replaces the
/// old one), sorted by date.
fn merge_days(previous: Option<&Export>, new_days: &[DemandDay], end: Date) -> Vec<DemandDay> {
    let mut by_date: BTreeMap<Date, DemandDay> = BTreeMap::new();
    if let Some(export) = previous {
        for day in &export.days {
            by_date.insert(
                day.date,
                DemandDay {
                    date: day.date,
                    other_tokens: day.other_tokens,
                    rows: day
                        .rows
                        .iter()
                        .map(|r| (r.model_id.clone(), r.total_tokens))
                        .collect(),
                },
            );
        }
    }
    for day in new_days {
        by_date.insert(day.date, day.clone());
    }
    // A previous export judged at a later clock may hold days past this run's window end.
    by_date.retain(|date, _| *date <= end);
    by_date.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_in_the_work_is_the_runs_error_and_the_progress_thread_ends() {
        let client = Client::new(Duration::from_millis(1));
        let started = Instant::now();
        let result: Result<()> = with_progress(true, &client, started, || {
            panic!("overflow when adding duration to instant")
        });
        let message = result.expect_err("an error, not a hang").to_string();
        assert!(
            message.contains("internal error (overflow when adding duration to instant)"),
            "{message}"
        );
        assert!(started.elapsed() < Duration::from_secs(2), "ended at once");
        let fine: Result<u8> = with_progress(true, &client, Instant::now(), || Ok(7));
        assert_eq!(fine.expect("ok"), 7);
    }
}
