//! The answers of the MCP tool `get_demand_history`, precomputed per served model like every
//! other answer, so the preview server, `model-demand mcp` and the edge function all serve a
//! file: the model's daily rows of the export over the window (a day outside the top 50 or
//! not delivered said as such, never as zero), with the window, freshness and attribution of the
//! model response; and the supply of its route in each collection of the supply feed's last 7
//! UTC dates (the period `history_ready` speaks of), by the rules that give `supply.state`.
//!
//! The file's name is the SHA-256 of the model ID, as the model files' are
//! ([`crate::query::model_key`]), so no request byte becomes part of a path and IDs that differ
//! only in case stay apart.

use std::collections::BTreeMap;

use serde::Serialize;
use time::Date;

use crate::input::export::{window_start, Export, WINDOW_DAYS};
use crate::input::supply::{CollectionStatus, Supply};
use crate::records::{collection_state, rank_rows, reason, Freshness, Head, Source, Window};

/// The directory of the history files.
pub const HISTORY_DIR: &str = "_api/history";
/// The history document's schema name and version.
pub const SCHEMA_VERSION: &str = "model-demand.demand-history.v1";
/// The reason of a delivered day without a row for the model.
pub const OUTSIDE_TOP_50_ON_THIS_DAY: &str = "outside_top_50_on_this_day";
/// UTC dates of supply history, ending at the latest collection's.
const SUPPLY_DAYS: i64 = 7;

/// Site-relative path of a model's history file.
pub fn history_file(model_id: &str) -> String {
    format!("{HISTORY_DIR}/{}.json", crate::query::model_key(model_id))
}

/// A model's history, as the file holds it.
#[derive(Debug, Serialize)]
struct History<'a> {
    schema_version: &'static str,
    model_id: &'a str,
    generated_at: &'a str,
    evaluation_cutoff: &'a str,
    freshness: &'a Freshness,
    window: &'a Window,
    source: &'a Source,
    demand: Demand,
    supply: SupplyHistory,
}

/// The daily rows of the window.
#[derive(Debug, Serialize)]
struct Demand {
    /// The unit of every `tokens`.
    unit: &'static str,
    days: Vec<DemandDay>,
}

/// One date of the window: the model's rank and tokens, or why there are none.
#[derive(Debug, Serialize)]
struct DemandDay {
    date: String,
    rank: Option<u32>,
    tokens: Option<String>,
    state: &'static str,
    reason: Option<&'static str>,
}

/// The supply of the model's route in each collection of the period.
#[derive(Debug, Serialize)]
struct SupplyHistory {
    /// `collected` with collections, or `not_collected` (no supply feed, or none with a
    /// collection).
    state: &'static str,
    reason: Option<&'static str>,
    /// The units of the values of every collection.
    units: BTreeMap<&'static str, &'static str>,
    /// Why a null value of an available route is null.
    null_value_reason: &'static str,
    collections: Vec<CollectionEntry>,
}

/// The model's route in one collection: its state and reason by the rules of `supply.state`,
/// and the summary's values (null when no endpoint reported one) when it is available.
#[derive(Debug, Serialize)]
struct CollectionEntry {
    finished_at: String,
    collection_status: &'static str,
    state: &'static str,
    reason: Option<String>,
    route_id: Option<String>,
    route_type: Option<&'static str>,
    listed_endpoints: Option<u64>,
    listed_providers: Option<u64>,
    median_input_price_per_million: Option<String>,
    median_output_price_per_million: Option<String>,
    median_latency_ms: Option<String>,
    median_throughput_tokens_per_second: Option<String>,
    median_uptime_percent: Option<String>,
    maximum_context_tokens: Option<u64>,
    quantizations: Option<Vec<String>>,
}

/// A delivered day's ranks: by model ID, its rank and tokens.
type Ranked = BTreeMap<String, (u32, u128)>;

/// What every model's history shares: the window's days, ranked, and the supply period.
pub struct Histories<'a> {
    head: &'a Head,
    /// Each date of the window, with its ranks when the source delivered it.
    days: Vec<(Date, Option<Ranked>)>,
    supply: Option<&'a Supply>,
}

impl<'a> Histories<'a> {
    /// The histories of `export` and `supply`, under the response head `head`.
    pub fn new(export: &'a Export, supply: Option<&'a Supply>, head: &'a Head) -> Histories<'a> {
        let end = export
            .window_end()
            .expect("an accepted evaluation cutoff has a previous day");
        let start = window_start(end);
        let days = (0..i64::from(WINDOW_DAYS))
            .map(|i| {
                let date = start + time::Duration::days(i);
                let ranked = export.days.iter().find(|d| d.date == date).map(rank_rows);
                (date, ranked)
            })
            .collect();
        Histories { head, days, supply }
    }

    /// The history file's bytes for `model_id` (compact JSON).
    pub fn body(&self, model_id: &str) -> Vec<u8> {
        let days = self
            .days
            .iter()
            .map(|(date, ranked)| {
                let date = crate::input::validate::format_date(*date);
                match ranked {
                    None => DemandDay::unknown(date, reason::SOURCE_DAY_MISSING),
                    Some(ranked) => match ranked.get(model_id) {
                        None => DemandDay::unknown(date, OUTSIDE_TOP_50_ON_THIS_DAY),
                        Some((rank, tokens)) => DemandDay {
                            date,
                            rank: Some(*rank),
                            tokens: Some(tokens.to_string()),
                            state: "available",
                            reason: None,
                        },
                    },
                }
            })
            .collect();
        let head = self.head;
        crate::answers::render::to_json(&History {
            schema_version: SCHEMA_VERSION,
            model_id,
            generated_at: &head.generated_at,
            evaluation_cutoff: &head.evaluation_cutoff,
            freshness: &head.freshness,
            window: &head.window,
            source: &head.source,
            demand: Demand {
                unit: "tokens",
                days,
            },
            supply: self.supply_history(model_id),
        })
    }

    fn supply_history(&self, model_id: &str) -> SupplyHistory {
        let units = BTreeMap::from([
            ("listed_endpoints", "endpoints"),
            ("listed_providers", "providers"),
            ("median_input_price_per_million", "usd_per_million_tokens"),
            ("median_output_price_per_million", "usd_per_million_tokens"),
            ("median_latency_ms", "milliseconds"),
            ("median_throughput_tokens_per_second", "tokens_per_second"),
            ("median_uptime_percent", "percent"),
            ("maximum_context_tokens", "tokens"),
        ]);
        let collections = self.supply.map_or(&[][..], |s| s.collections.as_slice());
        let Some(latest) = collections.last() else {
            return SupplyHistory {
                state: "not_collected",
                reason: Some(reason::SUPPLY_NOT_COLLECTED),
                units,
                null_value_reason: reason::NO_ENDPOINT_REPORTED,
                collections: Vec::new(),
            };
        };
        let first_date = latest.finished_at.date() - time::Duration::days(SUPPLY_DAYS - 1);
        let entries = collections
            .iter()
            .filter(|c| c.finished_at.date() >= first_date)
            .map(|collection| {
                let state = collection_state(collection, model_id, false);
                let summary = state.summary.as_ref();
                let value = |v: &crate::records::Valued<String>| v.value.clone();
                CollectionEntry {
                    finished_at: collection.finished_at.as_str().to_string(),
                    collection_status: match collection.status {
                        CollectionStatus::Complete => "complete",
                        CollectionStatus::Failed => "failed",
                    },
                    state: state.state,
                    reason: state.reason.clone(),
                    route_id: summary.map(|s| s.route_id.clone()),
                    route_type: summary.map(|s| s.route_type),
                    listed_endpoints: summary.and_then(|s| s.listed_endpoints.value),
                    listed_providers: summary.and_then(|s| s.listed_providers.value),
                    median_input_price_per_million: summary
                        .and_then(|s| value(&s.median_input_price_per_million)),
                    median_output_price_per_million: summary
                        .and_then(|s| value(&s.median_output_price_per_million)),
                    median_latency_ms: summary.and_then(|s| value(&s.median_latency_ms)),
                    median_throughput_tokens_per_second: summary
                        .and_then(|s| value(&s.median_throughput_tokens_per_second)),
                    median_uptime_percent: summary.and_then(|s| value(&s.median_uptime_percent)),
                    maximum_context_tokens: summary.and_then(|s| s.maximum_context_tokens.value),
                    quantizations: summary.map(|s| s.quantizations.clone()),
                }
            })
            .collect();
        SupplyHistory {
            state: "collected",
            reason: None,
            units,
            null_value_reason: reason::NO_ENDPOINT_REPORTED,
            collections: entries,
        }
    }
}

impl DemandDay {
    fn unknown(date: String, why: &'static str) -> DemandDay {
        DemandDay {
            date,
            rank: None,
            tokens: None,
            state: "unavailable",
            reason: Some(why),
        }
    }
}
