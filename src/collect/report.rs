//! The run report of `collect --report FILE` (DESIGN §9): what one run asked, met and made, as a
//! JSON document for the operator, and its Markdown rendering for a CI run's summary.
//!
//! The report says what a person may have to act on: a demand model the catalog does not name
//! (a `catalog_matches` entry may be due), routes that failed, endpoint members read as
//! unknown, repositories that gave no facts, and how long the run waited for rate limits.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};
use crate::input::export::{Availability, Fact, FACTS};

pub use super::changes::ChangedFact;
use super::http::Client;
use super::openrouter::{FoldedRow, OpenRouterCatalog, SlugMatch};
pub use super::outcome::{CatalogStatus, RepositoryOutcome, RunOutcome};
use super::policy::Policy;
use super::routes::Routes;
pub use super::unknowns::{RepositoryWhy, UnreviewedConfig};
use super::CollectError;

/// The schema tag of a run report.
pub const REPORT_SCHEMA_VERSION: &str = "model-demand.collect-report.v1";

/// One run of `collect`, as reported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// Always [`REPORT_SCHEMA_VERSION`].
    pub report_schema_version: String,
    /// The run's clock.
    pub run_at: String,
    /// `written` (both files passed the gate and were written) or `failed` (nothing written).
    pub outcome: RunOutcome,
    /// Why nothing was written, when the run failed.
    pub error: Option<String>,
    /// Wall time of the run, seconds.
    pub duration_seconds: f64,
    /// Days the source delivered in this run.
    pub days_delivered: u64,
    /// Days in the written export.
    pub days_in_export: u64,
    /// Models served by the window.
    pub models_served: u64,
    /// Served models with no catalog entry (their permaslugs): a join the policy may fix.
    pub models_without_catalog_entry: Vec<String>,
    /// Served models whose release ID equals no catalog `canonical_slug` exactly but one or
    /// more but for letter case: joined when exactly one does. Absent in reports written
    /// before IDs were case-sensitive.
    #[serde(default)]
    pub catalog_joins_by_case: Vec<CaseJoin>,
    /// Rankings rows whose permaslug is no publishable ID: their tokens were counted in their
    /// day's `other_tokens`, so the market total stays whole. Absent in older reports.
    #[serde(default)]
    pub rows_folded_into_other: Vec<FoldedRowSection>,
    /// The catalog: `read` or `failed`, with the entries skipped.
    pub catalog: CatalogSection,
    /// The policy's `catalog_matches` and what became of each.
    pub catalog_matches: Vec<MatchOutcome>,
    /// The new supply collection's routes.
    pub routes: RouteSection,
    /// What reading endpoint lists found unknown.
    pub endpoints: EndpointSection,
    /// Each Hugging Face repository and its outcome.
    pub repositories: Vec<RepositorySection>,
    /// Served models whose fact is available, per fact.
    pub facts_available: BTreeMap<String, u64>,
    /// Requests by kind.
    pub requests: BTreeMap<String, RequestCounts>,
    /// Rate-limit buckets: refusals, waits, quotas.
    pub rate_limits: BTreeMap<String, BucketSection>,
    /// Wall time spent waiting for rate-limit windows, seconds (budget: `wait_budget_seconds`).
    pub waited_seconds: f64,
    /// The run's waiting budget, seconds.
    pub wait_budget_seconds: f64,
    /// Requests not sent because the wait they needed would have passed the budget (their
    /// routes and repositories failed with `wait_budget_exhausted`). Absent in reports written
    /// before it was counted.
    #[serde(default)]
    pub requests_over_budget: u64,
    /// Facts that changed while their repository's commit did not (the rules changed): each
    /// model, fact, and old and new value. Absent in reports written before it was compared.
    #[serde(default)]
    pub changed_facts: Vec<ChangedFact>,
    /// Configurations whose cache facts the closed world kept unknown: each `model_type`
    /// without a reviewed layout, or key not reviewed, with the repositories that carried it
    /// (DESIGN §10, amended 2026-11-27). Absent in reports written before it.
    #[serde(default)]
    pub unreviewed_configurations: Vec<UnreviewedConfig>,
    /// The export's last day (`YYYY-MM-DD`), whose tokens order `unreviewed_configurations`;
    /// null when the export has no day. Absent in older reports.
    #[serde(default)]
    pub unreviewed_last_day: Option<String>,
    /// Checkpoints whose size facts are unknown: the tensor, dtype and format no rule
    /// classifies. Absent in reports written before it.
    #[serde(default)]
    pub uncounted_checkpoints: Vec<RepositoryWhy>,
    /// Quantizations of a base or its children that are not candidates of the smallest
    /// quantization. Absent in reports written before it.
    #[serde(default)]
    pub unsupported_quantizations: Vec<RepositoryWhy>,
}

/// A served model joined (or not) by a slug equal to its release ID but for letter case.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseJoin {
    /// The demand model's ID, as the rankings write it.
    pub model_id: String,
    /// The catalog slugs equal to its release ID but for letter case.
    pub canonical_slugs: Vec<String>,
    /// True when exactly one matched and the model was joined to it.
    pub joined: bool,
}

/// One rankings row whose permaslug no ID rule accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoldedRowSection {
    /// `data[i]` of the rankings response.
    pub row: String,
    /// The row's date.
    pub date: String,
    /// The permaslug as sent, cut to its first 200 characters.
    pub permaslug: String,
    /// Its length in characters.
    pub permaslug_chars: u64,
    /// Its tokens (a decimal string), now part of the day's `other_tokens`.
    pub total_tokens: String,
    /// Which part of the ID rule it breaks.
    pub why: String,
}

/// The catalog's part of the report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogSection {
    /// `read`, `failed` or `not_requested`.
    pub status: CatalogStatus,
    /// Entries that may be routes.
    pub entries: u64,
    /// Aliases and entries whose ID breaks the ID rule: never routes.
    pub skipped: Vec<SkippedSection>,
}

/// One catalog entry skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedSection {
    /// The entry's ID.
    pub id: String,
    /// `alias`, `id_rule` or `no_id`.
    pub why: String,
    /// What an alias points to.
    pub alias_target: Option<String>,
}

/// One `catalog_matches` entry of the policy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchOutcome {
    /// The entry's model ID.
    pub model_id: String,
    /// The slug it joins to.
    pub canonical_slug: String,
    /// True when it joined at least one served model this run.
    pub used: bool,
    /// Why it was ignored.
    pub ignored_because: Option<String>,
}

/// The routes' part of the report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteSection {
    /// Routes requested.
    pub requested: u64,
    /// Routes whose endpoints were read.
    pub collected: u64,
    /// Routes that failed, each alone.
    pub failed: Vec<FailedRoute>,
}

/// One failed route.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedRoute {
    /// The catalog ID.
    pub route_id: String,
    /// The demand model it serves.
    pub model_id: String,
    /// The last HTTP status, when there was an answer.
    pub last_status: Option<u16>,
    /// What went wrong.
    pub reason: String,
}

/// The endpoints' part of the report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndpointSection {
    /// Endpoints read.
    pub read: u64,
    /// Entries dropped for naming no provider.
    pub without_provider: u64,
    /// Members read as unknown, by member name.
    pub unknown_members: BTreeMap<String, UnknownCounts>,
}

/// How often a member was unknown, by cause.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnknownCounts {
    /// Absent or null.
    pub missing: u64,
    /// Of an unexpected type.
    pub wrong_type: u64,
    /// Outside supply v1's bounds.
    pub out_of_range: u64,
}

/// One repository and its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepositorySection {
    /// The repository ID the catalog names.
    pub repository: String,
    /// The served models it gives facts to.
    pub models: Vec<String>,
    /// `read`, `carried` (previous facts kept), `gated` (401/403), `missing` (404), `broken`
    /// or `failed`.
    pub outcome: RepositoryOutcome,
    /// Why, when not read.
    pub reason: Option<String>,
}

/// Requests of one kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestCounts {
    /// Requests made, retries included.
    pub requests: u64,
    /// Body bytes received.
    pub bytes: u64,
    /// 429 answers.
    pub refused: u64,
}

/// One rate-limit bucket.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BucketSection {
    /// 429 answers met.
    pub refused: u64,
    /// Waits begun (requests held back together count once).
    pub waits: u64,
    /// Wall time during which a request of the bucket was held back, seconds.
    pub waited_seconds: f64,
    /// The quota the source announced: requests per window.
    pub quota_requests: Option<u64>,
    /// The window's length, seconds.
    pub quota_window_seconds: Option<u64>,
}

impl RunReport {
    /// Orders the unreviewed configurations by the tokens, on `last_day`, of the served models
    /// whose repository carried them (`tokens`: repository → tokens that day).
    pub(super) fn order_unreviewed(
        &mut self,
        last_day: Option<String>,
        tokens: &BTreeMap<String, u128>,
    ) {
        super::unknowns::order_by_demand(&mut self.unreviewed_configurations, tokens);
        self.unreviewed_last_day = last_day;
    }

    /// The sections of what the run kept unknown, for `unknowns::record` to fill.
    pub(super) fn unknowns(&mut self) -> super::unknowns::Sections<'_> {
        super::unknowns::Sections {
            unreviewed_configurations: &mut self.unreviewed_configurations,
            uncounted_checkpoints: &mut self.uncounted_checkpoints,
            unsupported_quantizations: &mut self.unsupported_quantizations,
        }
    }

    /// An empty report of a run at `run_at`.
    pub fn new(run_at: &str) -> RunReport {
        RunReport {
            report_schema_version: REPORT_SCHEMA_VERSION.to_string(),
            run_at: run_at.to_string(),
            ..RunReport::default()
        }
    }

    /// Adds what the client counted: requests, bytes, refusals and waits, and the duration.
    pub fn finish(&mut self, client: &Client, budget: Duration, elapsed: Duration) {
        let counts = client.counts();
        let bytes = client.bytes();
        let refused = client.refusals();
        self.requests = counts
            .iter()
            .map(|(kind, n)| {
                let counts = RequestCounts {
                    requests: *n,
                    bytes: bytes.get(kind).copied().unwrap_or(0),
                    refused: refused.get(kind).copied().unwrap_or(0),
                };
                (kind.to_string(), counts)
            })
            .collect();
        self.rate_limits = client
            .pacing()
            .into_iter()
            .filter(|(_, b)| b.sent > 0 && (b.refused > 0 || b.waits > 0 || b.quota.is_some()))
            .map(|(name, b)| {
                let section = BucketSection {
                    refused: b.refused,
                    waits: b.waits,
                    waited_seconds: seconds(b.waited),
                    quota_requests: b.quota.map(|q| q.0),
                    quota_window_seconds: b.quota.map(|q| q.1),
                };
                (name, section)
            })
            .collect();
        self.waited_seconds = seconds(client.waited());
        self.requests_over_budget = client.over_budget();
        self.wait_budget_seconds = seconds(budget);
        self.duration_seconds = seconds(elapsed);
    }

    /// The catalog as read: entries and the entries skipped.
    pub fn record_catalog(&mut self, catalog: &OpenRouterCatalog) {
        self.catalog = CatalogSection {
            status: CatalogStatus::Read,
            entries: catalog.entries.len() as u64,
            skipped: catalog
                .skipped
                .iter()
                .map(|s| SkippedSection {
                    id: s.id.clone(),
                    why: s.why.to_string(),
                    alias_target: s.alias_target.clone(),
                })
                .collect(),
        };
    }

    /// Rankings rows folded into their day's `other` bucket.
    pub fn record_folded_rows(&mut self, rows: &[FoldedRow]) {
        self.rows_folded_into_other = rows
            .iter()
            .map(|r| FoldedRowSection {
                row: format!("data[{}]", r.index),
                date: crate::input::validate::format_date(r.date),
                permaslug: r
                    .permaslug
                    .chars()
                    .take(crate::input::validate::MAX_ID_LEN)
                    .collect(),
                permaslug_chars: r.permaslug.chars().count() as u64,
                total_tokens: r.tokens.to_string(),
                why: r.why.to_string(),
            })
            .collect();
    }

    /// How a served model's release found its catalog slug, when letter case mattered.
    pub fn record_slug_match(&mut self, model_id: &str, found: &SlugMatch<'_>) {
        let (canonical_slugs, joined) = match found {
            SlugMatch::AsWritten => return,
            SlugMatch::ByCase(slug) => (vec![slug.to_string()], true),
            SlugMatch::Ambiguous(slugs) => (slugs.iter().map(|s| s.to_string()).collect(), false),
        };
        self.catalog_joins_by_case.push(CaseJoin {
            model_id: model_id.to_string(),
            canonical_slugs,
            joined,
        });
    }

    /// What became of each reviewed `catalog_matches` entry; `slugs` are the catalog's
    /// canonical slugs (`None` when the catalog could not be read).
    pub fn record_matches(
        &mut self,
        policy: &Policy,
        served: &BTreeSet<String>,
        slugs: Option<&BTreeSet<&str>>,
    ) {
        self.catalog_matches = policy
            .catalog_matches
            .iter()
            .map(|m| {
                let names: Vec<&String> = served
                    .iter()
                    .filter(|id| policy.catalog_match(id) == Some(m))
                    .collect();
                let ignored_because = if served
                    .iter()
                    .all(|id| id != &m.model_id && super::openrouter::release_id(id) != m.model_id)
                {
                    Some("names no served model (neither its ID nor its release ID)".to_string())
                } else if names.is_empty() {
                    Some("every model it names has an entry of its exact ID".to_string())
                } else {
                    match slugs {
                        None => Some("the catalog could not be read".to_string()),
                        Some(s) if !s.contains(m.canonical_slug.as_str()) => {
                            Some("the catalog has no entry with this canonical_slug".to_string())
                        }
                        Some(_) => None,
                    }
                };
                MatchOutcome {
                    model_id: m.model_id.clone(),
                    canonical_slug: m.canonical_slug.clone(),
                    used: ignored_because.is_none(),
                    ignored_because,
                }
            })
            .collect();
    }

    /// The routes requested, collected and failed, and the unknown endpoint members.
    pub fn record_routes(&mut self, routes: &Routes) {
        self.routes = RouteSection {
            requested: routes.routes.len() as u64,
            collected: routes.routes.iter().filter(|r| r.failure.is_none()).count() as u64,
            failed: routes
                .routes
                .iter()
                .filter_map(|r| {
                    let failure = r.failure.as_ref()?;
                    Some(FailedRoute {
                        route_id: r.route_id.clone(),
                        model_id: r.model_id.clone(),
                        last_status: failure.last_status,
                        reason: failure.reason.clone(),
                    })
                })
                .collect(),
        };
        self.endpoints = EndpointSection {
            read: routes.tally.endpoints,
            without_provider: routes.tally.without_provider,
            unknown_members: routes
                .tally
                .members
                .iter()
                .filter(|(_, c)| c.missing + c.wrong_type + c.out_of_range > 0)
                .map(|(name, c)| {
                    let counts = UnknownCounts {
                        missing: c.missing,
                        wrong_type: c.wrong_type,
                        out_of_range: c.out_of_range,
                    };
                    (name.to_string(), counts)
                })
                .collect(),
        };
    }

    /// Served models whose fact is available, per fact.
    pub fn record_facts(&mut self, facts: &BTreeMap<String, Vec<Fact>>) {
        self.facts_available = FACTS
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                let n = facts
                    .values()
                    .filter(|f| f.get(i).is_some_and(|f| f.state == Availability::Available))
                    .count();
                (spec.name.to_string(), n as u64)
            })
            .collect();
    }

    /// Repositories by outcome.
    pub fn repository_outcomes(&self) -> BTreeMap<&str, u64> {
        let mut by = BTreeMap::new();
        for r in &self.repositories {
            *by.entry(r.outcome.as_str()).or_insert(0) += 1;
        }
        by
    }

    /// Refuses a `path` holding anything but a run report: a report replaces only a report
    /// (one this program wrote), never a file of the user's.
    pub fn check_replaceable(path: &Path) -> Result<()> {
        let ours = match std::fs::read(path) {
            Ok(existing) => serde_json::from_slice::<serde_json::Value>(&existing)
                .ok()
                .is_some_and(|v| v["report_schema_version"] == REPORT_SCHEMA_VERSION),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
            Err(_) => path.is_dir(),
        };
        if ours && !path.is_dir() {
            return Ok(());
        }
        Err(CollectError::ReportNotReplaceable {
            path: path.to_path_buf(),
        }
        .into())
    }

    /// Writes the report to `path`. An existing file is replaced only when it is a run report
    /// (this program wrote it); anything else there is refused untouched.
    pub fn write(&self, path: &Path) -> Result<()> {
        RunReport::check_replaceable(path)?;
        let mut bytes = serde_json::to_vec_pretty(self).map_err(Error::Serialize)?;
        bytes.push(b'\n');
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = path.file_name().map_or_else(
            || "report".to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let temp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        std::fs::write(&temp, &bytes).map_err(|e| Error::io("cannot write", &temp, e))?;
        std::fs::rename(&temp, path).map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            Error::io("cannot write", path, e)
        })
    }

    /// Reads a report `collect --report` wrote.
    pub fn read(path: &Path) -> Result<RunReport> {
        let bytes = std::fs::read(path).map_err(|e| Error::io("cannot read", path, e))?;
        let report: RunReport =
            serde_json::from_slice(&bytes).map_err(|why| CollectError::NotAReport {
                path: path.to_path_buf(),
                why,
            })?;
        if report.report_schema_version != REPORT_SCHEMA_VERSION {
            return Err(CollectError::ReportVersion {
                path: path.to_path_buf(),
            }
            .into());
        }
        Ok(report)
    }

    /// The report as Markdown: a headline, a table of the night's health, and the lists a
    /// person may have to act on, each with what to do.
    pub fn to_markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "### collect, {}: {}\n", self.run_at, self.outcome);
        if let Some(error) = &self.error {
            let _ = writeln!(md, "**Nothing was written:** {}\n", one_line(error));
        }
        let outcomes: Vec<String> = self
            .repository_outcomes()
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        let refused: u64 = self.rate_limits.values().map(|b| b.refused).sum();
        let waits: u64 = self.rate_limits.values().map(|b| b.waits).sum();
        let requests: u64 = self.requests.values().map(|r| r.requests).sum();
        let unknown: u64 = self
            .endpoints
            .unknown_members
            .values()
            .map(|c| c.missing + c.wrong_type + c.out_of_range)
            .sum();
        let rows = [
            ("models served", self.models_served.to_string()),
            (
                "days delivered / in the export",
                format!("{} / {}", self.days_delivered, self.days_in_export),
            ),
            (
                "models without a catalog entry",
                self.models_without_catalog_entry.len().to_string(),
            ),
            (
                "catalog",
                format!(
                    "{}, {} entries, {} skipped (aliases, odd IDs)",
                    self.catalog.status,
                    self.catalog.entries,
                    self.catalog.skipped.len()
                ),
            ),
            (
                "routes collected / failed",
                format!("{} / {}", self.routes.collected, self.routes.failed.len()),
            ),
            (
                "endpoints read (members unknown)",
                format!("{} ({unknown})", self.endpoints.read),
            ),
            (
                "repositories",
                if outcomes.is_empty() {
                    "none".to_string()
                } else {
                    outcomes.join(", ")
                },
            ),
            (
                "requests (429s, waits)",
                format!("{requests} ({refused}, {waits})"),
            ),
            (
                "waited for rate limits",
                format!(
                    "{:.0} s of {:.0} s{}",
                    self.waited_seconds,
                    self.wait_budget_seconds,
                    if self.requests_over_budget > 0 {
                        format!(
                            "; budget reached, {} request(s) not sent",
                            self.requests_over_budget
                        )
                    } else {
                        String::new()
                    }
                ),
            ),
            ("duration", format!("{:.1} s", self.duration_seconds)),
        ];
        md.push_str("| | |\n|---|---|\n");
        for (k, v) in rows {
            let _ = writeln!(md, "| {k} | {} |", cell(&v));
        }
        if !self.facts_available.is_empty() {
            md.push_str("\n| fact | models with it |\n|---|---|\n");
            for (fact, n) in &self.facts_available {
                let _ = writeln!(md, "| `{fact}` | {n} of {} |", self.models_served);
            }
        }
        self.markdown_lists(&mut md);
        md
    }

    fn markdown_lists(&self, md: &mut String) {
        super::unknowns::unreviewed_markdown(
            &self.unreviewed_configurations,
            self.unreviewed_last_day.as_deref(),
            md,
            cell,
        );
        if !self.models_without_catalog_entry.is_empty() {
            md.push_str("\n**Models without a catalog entry** (no supply, no facts). If the catalog lists the model under another slug, add a reviewed `catalog_matches` entry to `data/policy.json`:\n\n");
            for id in &self.models_without_catalog_entry {
                let _ = writeln!(md, "- `{}`", cell(id));
            }
        }
        if !self.catalog_joins_by_case.is_empty() {
            md.push_str("\n**Joined to the catalog by letter case** (the rankings and the catalog write the ID differently; IDs are published as the rankings write them):\n\n");
            for j in &self.catalog_joins_by_case {
                let slugs: Vec<String> = j
                    .canonical_slugs
                    .iter()
                    .map(|s| format!("`{}`", cell(s)))
                    .collect();
                let _ = writeln!(
                    md,
                    "- `{}` → {}{}",
                    cell(&j.model_id),
                    slugs.join(", "),
                    if j.joined {
                        ""
                    } else {
                        ": several slugs, none taken (add a reviewed `catalog_matches` entry)"
                    }
                );
            }
        }
        if !self.rows_folded_into_other.is_empty() {
            md.push_str("\n**Rankings rows with no publishable model ID** (counted in their day's other tokens; the market total stays whole):\n\n");
            for r in &self.rows_folded_into_other {
                let _ = writeln!(
                    md,
                    "- {} ({}): `{}`{}, {} tokens: {}",
                    r.row,
                    r.date,
                    cell(&r.permaslug),
                    if r.permaslug_chars > crate::input::validate::MAX_ID_LEN as u64 {
                        format!("… ({} characters)", r.permaslug_chars)
                    } else {
                        String::new()
                    },
                    r.total_tokens,
                    cell(&r.why)
                );
            }
        }
        let ignored: Vec<&MatchOutcome> = self
            .catalog_matches
            .iter()
            .filter(|m| m.ignored_because.is_some())
            .collect();
        if !ignored.is_empty() {
            md.push_str("\n**`catalog_matches` entries ignored** (fix or remove them):\n\n");
            for m in ignored {
                let _ = writeln!(
                    md,
                    "- `{}` → `{}`: {}",
                    cell(&m.model_id),
                    cell(&m.canonical_slug),
                    cell(m.ignored_because.as_deref().unwrap_or_default())
                );
            }
        }
        if !self.routes.failed.is_empty() {
            md.push_str("\n**Routes failed** (those models say `route_collection_failed` until the next run):\n\n");
            for r in &self.routes.failed {
                let status = r
                    .last_status
                    .map_or("no answer".to_string(), |s| s.to_string());
                let _ = writeln!(
                    md,
                    "- `{}` (`{}`): {status}, {}",
                    cell(&r.route_id),
                    cell(&r.model_id),
                    cell(&r.reason)
                );
            }
        }
        let odd: Vec<(&String, &UnknownCounts)> = self
            .endpoints
            .unknown_members
            .iter()
            .filter(|(_, c)| c.wrong_type + c.out_of_range > 0)
            .collect();
        if !odd.is_empty() {
            md.push_str("\n**Endpoint members of an unexpected type or range** (read as unknown; a format change if it grows):\n\n| member | wrong type | out of range |\n|---|---|---|\n");
            for (name, c) in odd {
                let _ = writeln!(md, "| `{name}` | {} | {} |", c.wrong_type, c.out_of_range);
            }
        }
        if !self.changed_facts.is_empty() {
            md.push_str("\n**Facts changed at an unchanged commit** (the rules or the policy's defaults changed, not the repository: check the new figures):\n\n| model | fact | commit | old | new |\n|---|---|---|---|---|\n");
            for c in &self.changed_facts {
                let shown = |value: &Option<String>, reason: &Option<String>| {
                    value.clone().unwrap_or_else(|| {
                        format!("none ({})", reason.as_deref().unwrap_or("no reason"))
                    })
                };
                let _ = writeln!(
                    md,
                    "| `{}` | `{}` | `{}` | {} | {} |",
                    cell(&c.model_id),
                    c.fact,
                    c.commit.get(..12).unwrap_or(&c.commit),
                    cell(&shown(&c.old_value, &c.old_reason)),
                    cell(&shown(&c.new_value, &c.new_reason))
                );
            }
        }
        super::unknowns::markdown(
            &self.uncounted_checkpoints,
            &self.unsupported_quantizations,
            md,
            cell,
        );
        let failed: Vec<&RepositorySection> = self
            .repositories
            .iter()
            .filter(|r| r.outcome != RepositoryOutcome::Read)
            .collect();
        if !failed.is_empty() {
            md.push_str("\n**Repositories without facts this run:**\n\n");
            for r in failed {
                let _ = writeln!(
                    md,
                    "- `{}`: {}{}",
                    cell(&r.repository),
                    r.outcome,
                    r.reason
                        .as_deref()
                        .map_or(String::new(), |why| format!(" ({})", cell(why)))
                );
            }
        }
        if self.requests_over_budget > 0 {
            let _ = writeln!(
                md,
                "\n**The waiting budget ran out:** {} request(s) were not sent, as the rate limits' windows would have needed more than the {:.0} s a run may wait; what they were for failed with `wait_budget_exhausted` and is collected again next run. Setting `HF_TOKEN` raises Hugging Face's quotas; `--cache` keeps files between runs.",
                self.requests_over_budget, self.wait_budget_seconds
            );
        }
        let refused: u64 = self.rate_limits.values().map(|b| b.refused).sum();
        if refused > 0 || self.waited_seconds > 0.0 || self.requests_over_budget > 0 {
            md.push_str("\n**Rate limits:** the run waited for the sources' windows. A first run over many repositories may take long: setting `HF_TOKEN` raises Hugging Face's quotas, and `--cache` keeps files between runs.\n\n| bucket | 429s | waits | waited | quota |\n|---|---|---|---|---|\n");
            for (name, b) in &self.rate_limits {
                let quota = match (b.quota_requests, b.quota_window_seconds) {
                    (Some(q), Some(w)) => format!("{q} per {w} s"),
                    _ => "not announced".to_string(),
                };
                let _ = writeln!(
                    md,
                    "| {name} | {} | {} | {:.0} s | {quota} |",
                    b.refused, b.waits, b.waited_seconds
                );
            }
        }
    }
}

fn seconds(d: Duration) -> f64 {
    (d.as_secs_f64() * 10.0).round() / 10.0
}

/// Text safe inside a Markdown table cell or list item: one line, no pipes or backticks.
fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|").replace('`', "'")
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_round_trips_and_renders_what_to_act_on() {
        let mut report = RunReport::new("2026-11-21T06:00:00Z");
        report.outcome = RunOutcome::Written;
        report.models_without_catalog_entry = vec!["acme-ai/x|y".to_string()];
        report.routes.failed.push(FailedRoute {
            route_id: "a/b".to_string(),
            model_id: "a/b".to_string(),
            last_status: Some(500),
            reason: "answered 500 4 time(s)".to_string(),
        });
        report.record_slug_match(
            "perplexity/pplx-embed-v1-0.6B",
            &SlugMatch::ByCase("perplexity/pplx-embed-v1-0.6b"),
        );
        report.record_slug_match("x/Y", &SlugMatch::Ambiguous(vec!["x/Y2", "x/y"]));
        report.record_slug_match("x/z", &SlugMatch::AsWritten);
        let long = format!("a/{}", "b".repeat(300));
        report.record_folded_rows(&[
            FoldedRow {
                index: 7,
                date: crate::input::validate::parse_date("2026-11-20").expect("date"),
                permaslug: "a/`b` c".to_string(),
                tokens: 12,
                why: "a character outside A-Z a-z 0-9 . _ : / -",
            },
            FoldedRow {
                index: 9,
                date: crate::input::validate::parse_date("2026-11-20").expect("date"),
                permaslug: long,
                tokens: 1,
                why: "longer than 200 characters",
            },
        ]);
        assert_eq!(
            report.catalog_joins_by_case.len(),
            2,
            "the exact join is not listed"
        );
        assert_eq!(report.rows_folded_into_other[1].permaslug.len(), 200);
        assert_eq!(report.rows_folded_into_other[1].permaslug_chars, 302);
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("report.json");
        report.write(&path).expect("written");
        assert_eq!(RunReport::read(&path).expect("read"), report);
        report.write(&path).expect("our own report is replaced");
        let md = report.to_markdown();
        assert!(md.contains("`acme-ai/x\\|y`"), "{md}");
        assert!(md.contains("catalog_matches"), "{md}");
        assert!(md.contains("- `a/b` (`a/b`): 500"), "{md}");
        assert!(
            md.contains("- `perplexity/pplx-embed-v1-0.6B` → `perplexity/pplx-embed-v1-0.6b`\n"),
            "{md}"
        );
        assert!(
            md.contains("- `x/Y` → `x/Y2`, `x/y`: several slugs, none taken"),
            "{md}"
        );
        assert!(
            md.contains("- data[7] (2026-11-20): `a/'b' c`, 12 tokens: a character outside"),
            "{md}"
        );
        assert!(md.contains("… (302 characters), 1 tokens"), "{md}");
        assert!(!md.contains("Facts changed"), "{md}");
        report.changed_facts.push(ChangedFact {
            model_id: "meta-llama/llama-4-scout".to_string(),
            fact: crate::input::export::FactName::AttentionBytesPerToken,
            repository: "meta-llama/Llama-4-Scout-17B-16E-Instruct".to_string(),
            commit: "0123456789abcdef0123456789abcdef01234567".to_string(),
            old_value: Some("196608".to_string()),
            new_value: None,
            old_reason: None,
            new_reason: Some("config_key_missing".to_string()),
        });
        report.write(&path).expect("written");
        assert_eq!(RunReport::read(&path).expect("read"), report);
        let md = report.to_markdown();
        assert!(
            md.contains("| `meta-llama/llama-4-scout` | `attention_bytes_per_token` | `0123456789ab` | 196608 | none (config_key_missing) |"),
            "{md}"
        );

        let foreign = dir.path().join("notes.json");
        std::fs::write(&foreign, b"{\"mine\":true}").expect("write");
        assert!(report.write(&foreign).is_err());
        assert_eq!(std::fs::read(&foreign).expect("kept"), b"{\"mine\":true}");
    }
}
