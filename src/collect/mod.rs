//! Collecting the export and the supply feed from the public sources (DESIGN §9–10): read the
//! policy and the previous files, call the sources, assemble, pass the gate, write atomically.
//!
//! A front stage: its only output is the two input files, which re-enter through the same gate
//! as any other input. Nothing after it talks to the network.

pub mod config;
pub mod facts;
pub mod http;
pub mod huggingface;
pub mod openrouter;
pub mod policy;
pub mod safetensors;
mod write;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use time::{Date, OffsetDateTime};

use crate::error::{Error, Result};
use crate::export::{Availability, Export, Fact};
use crate::validate::Timestamp;

use self::facts::Evidence;
use self::http::{Client, Secret};
use self::huggingface::Hub;
use self::openrouter::{CatalogEntry, DemandDay, SupplyEndpoint};
use self::policy::Policy;

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
    /// The policy file.
    pub policy: PathBuf,
    /// Cache of immutable Hugging Face files, when given.
    pub cache: Option<PathBuf>,
    /// `OPENROUTER_API_KEY`.
    pub openrouter_key: Option<Secret>,
    /// `HF_TOKEN`.
    pub hf_token: Option<Secret>,
    /// The first retry's wait when the source gives no `Retry-After` (doubles each time).
    pub retry_base: Duration,
    /// Print progress on stderr.
    pub progress: bool,
}

impl CollectOptions {
    /// Options with the documented defaults and the credentials from the environment.
    pub fn from_env(out: impl Into<PathBuf>, now: OffsetDateTime) -> CollectOptions {
        let var = |name: &str| std::env::var(name).ok().and_then(Secret::new);
        CollectOptions {
            out: out.into(),
            previous_export: None,
            previous_supply: None,
            days: DEFAULT_DAYS,
            now,
            openrouter_url: "https://openrouter.ai".to_string(),
            huggingface_url: huggingface::PUBLIC_HOST.to_string(),
            policy: PathBuf::from(policy::DEFAULT_POLICY),
            cache: None,
            openrouter_key: var(OPENROUTER_KEY_VAR),
            hf_token: var(HF_TOKEN_VAR),
            retry_base: Duration::from_secs(2),
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
    /// Requests by kind, retries included.
    pub requests: BTreeMap<&'static str, u64>,
    /// Body bytes received by kind.
    pub bytes: BTreeMap<&'static str, u64>,
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
            "collected into {}: {} day(s) delivered ({} in the export), {} model(s) served ({} with repository evidence), {} route(s), supply {}, {} request(s) ({}), in {:.1} s",
            out.display(),
            self.days_collected,
            self.days,
            self.models,
            self.models_with_evidence,
            self.routes,
            if self.supply_complete { "complete" } else { "failed" },
            total,
            kinds.join(", "),
            self.elapsed.as_secs_f64()
        )
    }
}

fn collect_error(message: impl Into<String>) -> Error {
    Error::Collect(message.into())
}

/// Runs one collection and writes both files, or fails writing nothing.
pub fn collect(options: &CollectOptions) -> Result<CollectReport> {
    let started = Instant::now();
    let key = options.openrouter_key.as_ref().ok_or_else(|| {
        collect_error(format!(
            "{OPENROUTER_KEY_VAR} is not set: create a key at https://openrouter.ai/settings/keys \
             and export it in the environment (it is never printed or written)"
        ))
    })?;
    if !(1..=366).contains(&options.days) {
        return Err(Error::Usage(format!(
            "--days must be from 1 to 366, got {}",
            options.days
        )));
    }
    let policy = policy::load(&options.policy)?;
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
        .ok_or_else(|| collect_error("--now is before the rankings dataset begins (2025-01-02)"))?;
    let start = end
        .checked_sub(time::Duration::days(i64::from(options.days) - 1))
        .map_or(DATASET_START, |d| d.max(DATASET_START));
    let cutoff = end
        .next_day()
        .ok_or_else(|| collect_error("date out of range"))?
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
    let client = Client::new(options.retry_base);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if options.progress {
            scope.spawn(|| report_progress(&client, &done, started));
        }
        let result = gather(&plan, &client);
        done.store(true, Ordering::Relaxed);
        result
    })
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

/// The run's requests and assembly: demand, catalog, supply, facts, then the two files.
fn gather(plan: &Plan<'_>, client: &Client) -> Result<CollectReport> {
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
        crate::validate::format_date(start),
        crate::validate::format_date(end)
    ));
    let rankings = fetch_rankings(client, or_base, key, start, end, cutoff)?;
    let new_days = openrouter::demand_days(&rankings.data, start, end)
        .map_err(|e| collect_error(format!("rankings-daily answered malformed rows: {e}")))?;
    let days = merge_days(previous_export.as_ref(), &new_days, end);
    let window_start = crate::export::window_start(end);
    let served: BTreeSet<String> = days
        .iter()
        .filter(|d| d.date >= window_start && d.date <= end)
        .flat_map(|d| d.rows.iter().map(|(id, _)| id.clone()))
        .collect();

    progress(format!(
        "collect: {} model(s) served; catalog",
        served.len()
    ));
    let catalog = fetch_catalog(client, or_base, key);
    let joins: BTreeMap<&str, openrouter::CatalogJoin> = served
        .iter()
        .map(|id| {
            let join = catalog
                .as_ref()
                .map(|c| openrouter::join(id, c))
                .unwrap_or_default();
            (id.as_str(), join)
        })
        .collect();

    // At most four requests are in flight (the client's own cap); the pool only keeps that
    // many threads busy.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(http::MAX_IN_FLIGHT)
        .build()
        .map_err(|e| collect_error(format!("cannot start worker threads: {e}")))?;
    let routes = match &catalog {
        Some(_) => {
            progress(format!(
                "collect: endpoints of {} route(s)",
                joins.values().map(|j| j.route_ids.len()).sum::<usize>()
            ));
            pool.install(|| fetch_routes(client, or_base, key, &joins))
        }
        None => None,
    };

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
    let evidence: BTreeMap<&str, Evidence> = pool.install(|| {
        repos
            .par_iter()
            .map(|repo| (*repo, facts::from_repository(&hub, repo)))
            .collect()
    });
    let mut models_with_evidence = 0;
    let model_facts: BTreeMap<String, Vec<Fact>> = served
        .iter()
        .map(|id| {
            let previous = || {
                previous_export
                    .as_ref()
                    .and_then(|p| p.models.get(id))
                    .map(|m| m.facts.clone())
            };
            let facts = match (
                &catalog,
                joins
                    .get(id.as_str())
                    .and_then(|j| j.hugging_face_repo.as_deref()),
            ) {
                (None, _) => previous().unwrap_or_else(|| {
                    facts::all(Availability::Unavailable, "catalog_unavailable")
                }),
                (Some(_), None) => facts::without_repository(id, policy),
                (Some(_), Some(repo)) => match evidence.get(repo) {
                    Some(Evidence::Facts(f)) => {
                        models_with_evidence += 1;
                        f.clone()
                    }
                    _ => previous().unwrap_or_else(|| {
                        facts::all(Availability::Unavailable, "open_checkpoint_unavailable")
                    }),
                },
            };
            (id.clone(), facts)
        })
        .collect();

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
    let route_count = routes.as_ref().map_or(0, Vec::len);
    let supply = write::SupplyParts {
        previous: previous_supply.as_ref(),
        now: &now,
        routes: routes.as_deref(),
    };
    write::write_pair(&options.out, &export, &supply)?;
    Ok(CollectReport {
        days: days.len(),
        days_collected: new_days.len(),
        models: served.len(),
        models_with_evidence,
        routes: route_count,
        supply_complete: routes.is_some(),
        requests: client.counts(),
        bytes: client.bytes(),
        elapsed: started.elapsed(),
    })
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
    let raw = crate::json::parse(&bytes, path)?;
    crate::export::validate(&raw).map_err(|p| Error::Refused(vec![(path.to_path_buf(), p)]))
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
        crate::validate::format_date(start),
        crate::validate::format_date(end)
    );
    let answer = client.get("rankings", &url, Some(key), &[]).map_err(|e| {
        collect_error(format!(
            "rankings-daily could not be collected ({e}); nothing was written: run again later"
        ))
    })?;
    match answer.status {
        200..=299 => {}
        401 | 403 => {
            return Err(collect_error(format!(
            "rankings-daily refused the key ({}): check that {OPENROUTER_KEY_VAR} holds a valid \
                 OpenRouter API key; nothing was written",
            answer.status
        )))
        }
        status => {
            return Err(collect_error(format!(
                "rankings-daily answered {status} ({}); nothing was written",
                source_message(&answer.body)
            )))
        }
    }
    let rankings: openrouter::RankingsResponse = serde_json::from_slice(&answer.body)
        .map_err(|e| collect_error(format!("rankings-daily answered malformed JSON: {e}")))?;
    let as_of = OffsetDateTime::parse(
        &rankings.meta.as_of,
        &time::format_description::well_known::Rfc3339,
    )
    .map_err(|_| {
        collect_error(format!(
            "rankings-daily meta.as_of {:?} is not an RFC 3339 instant",
            rankings.meta.as_of
        ))
    })?;
    if as_of < cutoff {
        return Err(collect_error(format!(
            "the source's snapshot (meta.as_of {}) is older than the end of {}: that day was still \
             in progress; nothing was written: run again after the source has caught up",
            rankings.meta.as_of,
            crate::validate::format_date(end)
        )));
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

/// The catalog, or `None` when it could not be had (facts carried, supply failed).
fn fetch_catalog(client: &Client, base: &str, key: &Secret) -> Option<Vec<CatalogEntry>> {
    let url = format!("{base}/api/v1/models?output_modalities=all");
    let answer = client.get("catalog", &url, Some(key), &[]).ok()?;
    if !answer.ok() {
        return None;
    }
    serde_json::from_slice::<openrouter::CatalogResponse>(&answer.body)
        .ok()
        .map(|c| c.data)
}

/// One route of the new collection, as supply v1 writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectedRoute {
    /// Catalog ID.
    pub route_id: String,
    /// Demand model ID.
    pub model_id: String,
    /// Route type from the ID's suffix.
    pub route_type: crate::supply::RouteType,
    /// Endpoints in source order.
    pub endpoints: Vec<SupplyEndpoint>,
}

/// Every route's endpoints; `None` when any request fails (a failed collection, never a
/// partial one).
fn fetch_routes(
    client: &Client,
    base: &str,
    key: &Secret,
    joins: &BTreeMap<&str, openrouter::CatalogJoin>,
) -> Option<Vec<CollectedRoute>> {
    let mut seen = BTreeSet::new();
    let wanted: Vec<(&str, &str)> = joins
        .iter()
        .flat_map(|(model, join)| join.route_ids.iter().map(move |r| (*model, r.as_str())))
        .filter(|(_, route)| seen.insert(*route))
        .collect();
    wanted
        .par_iter()
        .map(|(model, route)| {
            let url = format!("{base}/api/v1/models/{route}/endpoints");
            let answer = client.get("endpoints", &url, Some(key), &[]).ok()?;
            if !answer.ok() {
                return None;
            }
            let parsed: openrouter::EndpointsResponse =
                serde_json::from_slice(&answer.body).ok()?;
            let endpoints = parsed
                .data
                .endpoints
                .iter()
                .map(openrouter::supply_endpoint)
                .collect::<Option<Vec<_>>>()?;
            Some(CollectedRoute {
                route_id: route.to_string(),
                model_id: model.to_string(),
                route_type: openrouter::route_type(route),
                endpoints,
            })
        })
        .collect::<Option<Vec<_>>>()
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
