//! The published model records' types (spec 2.2 to 2.6): a value with its unit, state and
//! reason, the rank, the facts, the trend, the supply summary and state, the record, and the
//! head every response starts with (freshness, window, source); `ServedModels`, what a build
//! publishes. [`derive`](super::derive) makes them.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::input::export::{Availability, FACTS};

/// Schema tag of every model response.
pub const API_SCHEMA_VERSION: &str = "model-demand.agent-api.v1";

/// Reason codes this program publishes (facts' own reasons are passed through from the export).
pub mod reason {
    /// The model has no row on the window's last day.
    pub const OUTSIDE_TOP_50_ON_LATEST_DAY: &str = "outside_top_50_on_latest_day";
    /// The model has no row on some day of the period.
    pub const OUTSIDE_TOP_50_ON_SOME_DAYS: &str = "outside_top_50_on_some_days";
    /// The source did not deliver a day the value needs.
    pub const SOURCE_DAY_MISSING: &str = "source_day_missing";
    /// The source's remainder is unknown on a day of the period.
    pub const MARKET_TOTAL_UNAVAILABLE: &str = "market_total_unavailable";
    /// The trend needs share_7d, which is unavailable.
    pub const SHARE_7D_UNAVAILABLE: &str = "share_7d_unavailable";
    /// The trend needs share_prior_7d, which is unavailable.
    pub const SHARE_PRIOR_7D_UNAVAILABLE: &str = "share_prior_7d_unavailable";
    /// The build was given `--now` no later than `fresh_until`.
    pub const WITHIN_EXPECTED_UPDATE_WINDOW: &str = "within_expected_update_window";
    /// The build ran after `fresh_until`.
    pub const PAST_EXPECTED_UPDATE_WINDOW: &str = "past_expected_update_window";
    /// The export gave no freshness deadline.
    pub const FRESHNESS_DEADLINE_UNKNOWN: &str = "freshness_deadline_unknown";
    /// No supply feed, or one without collections.
    pub const SUPPLY_NOT_COLLECTED: &str = "supply_not_collected";
    /// The latest supply collection failed.
    pub const LATEST_COLLECTION_FAILED: &str = "latest_collection_failed";
    /// The current route's endpoints could not be collected in the latest collection.
    pub const ROUTE_COLLECTION_FAILED: &str = "route_collection_failed";
    /// No route of the latest collection serves the model.
    pub const NO_CURRENT_ROUTE: &str = "no_current_route";
    /// Several routes serve the model and none has its ID.
    pub const SEVERAL_CURRENT_ROUTES: &str = "several_current_routes";
    /// No endpoint of the route reports the value.
    pub const NO_ENDPOINT_REPORTED: &str = "no_endpoint_reported";
}

/// A value with its unit, availability state and reason (spec 2.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Valued<T> {
    /// The value; null means unknown, never zero.
    pub value: Option<T>,
    /// The fixed unit of the field.
    pub unit: &'static str,
    /// Availability state.
    pub state: &'static str,
    /// Why the value is unavailable.
    pub reason: Option<String>,
}

impl<T> Valued<T> {
    pub(super) fn available(value: T, unit: &'static str) -> Valued<T> {
        Valued {
            value: Some(value),
            unit,
            state: Availability::Available.as_str(),
            reason: None,
        }
    }

    pub(super) fn unavailable(unit: &'static str, reason: &str) -> Valued<T> {
        Valued {
            value: None,
            unit,
            state: Availability::Unavailable.as_str(),
            reason: Some(reason.to_string()),
        }
    }

    pub(super) fn from_result(result: Result<T, &'static str>, unit: &'static str) -> Valued<T> {
        match result {
            Ok(value) => Valued::available(value, unit),
            Err(reason) => Valued::unavailable(unit, reason),
        }
    }
}

/// `latest_rank`: a value object without a unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rank {
    /// 1-based rank on the window's last day.
    pub value: Option<u32>,
    /// Availability state.
    pub state: &'static str,
    /// Why the rank is unavailable.
    pub reason: Option<String>,
}

/// A model fact as published: the export's fact with its unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FactValue {
    /// The value, a string.
    pub value: Option<String>,
    /// The fixed unit.
    pub unit: &'static str,
    /// Availability state.
    pub state: &'static str,
    /// Reason code when not available.
    pub reason: Option<String>,
    /// Pinned evidence URL.
    pub source_url: Option<String>,
}

/// The twelve facts, serialized as an object in [`FACTS`] order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts(pub Vec<FactValue>);

impl Serialize for Facts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (spec, fact) in FACTS.iter().zip(&self.0) {
            map.serialize_entry(spec.name.as_str(), fact)?;
        }
        map.end()
    }
}

/// The 7-day demand-share trend (spec 2.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Trend {
    /// `up`, `down`, `flat` or `unknown`.
    pub direction: &'static str,
    /// Availability state.
    pub state: &'static str,
    /// Why the trend is unknown.
    pub reason: Option<String>,
    /// (share_7d − share_prior_7d) / share_prior_7d, a ratio.
    pub relative_change: Option<String>,
    /// (share_7d − share_prior_7d) × 100, in percentage points.
    pub percentage_point_change: Option<String>,
}

/// Supply summary of the current route (spec 2.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SupplySummary {
    /// Exact public route ID.
    pub route_id: String,
    /// paid, free, batch or thinking.
    pub route_type: &'static str,
    /// When the latest collection finished.
    pub collection_finished_at: String,
    /// True when a complete collection finished on each of the 7 dates ending at the latest's.
    pub history_ready: bool,
    /// Number of endpoints listed.
    pub listed_endpoints: Valued<u64>,
    /// Number of distinct providers listed.
    pub listed_providers: Valued<u64>,
    /// Median input price.
    pub median_input_price_per_million: Valued<String>,
    /// Median output price.
    pub median_output_price_per_million: Valued<String>,
    /// Median latency.
    pub median_latency_ms: Valued<String>,
    /// Median throughput.
    pub median_throughput_tokens_per_second: Valued<String>,
    /// Median uptime.
    pub median_uptime_percent: Valued<String>,
    /// Largest context length listed.
    pub maximum_context_tokens: Valued<u64>,
    /// Sorted unique quantization names.
    pub quantizations: Vec<String>,
}

/// Supply state of a model (spec 2.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SupplyState {
    /// One of the five supply states.
    pub state: &'static str,
    /// Why supply is unavailable.
    pub reason: Option<String>,
    /// Present only when the state is `available`.
    pub summary: Option<SupplySummary>,
}

/// The five supply states, in contract order.
pub const SUPPLY_STATES: [&str; 5] = [
    "not_collected",
    "temporarily_unavailable",
    "current_route_not_found",
    "current_route_ambiguous",
    "available",
];

/// One published model record (spec 2.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelRecord {
    /// Stable public model ID.
    pub model_id: String,
    /// Stable public release ID.
    pub model_release_id: String,
    /// First date the model had a row in the demand data.
    pub first_visible_date: String,
    /// Rank on the window's last day.
    pub latest_rank: Rank,
    /// Tokens on the window's last day.
    pub latest_tokens: Valued<String>,
    /// Tokens over the last 7 days.
    pub tokens_7d: Valued<String>,
    /// Tokens over the 30-day window.
    pub tokens_30d: Valued<String>,
    /// Share of the market over the last 7 days.
    pub share_7d: Valued<String>,
    /// Share of the market over the window.
    pub share_30d: Valued<String>,
    /// Share of the market over the 7 days before the last 7.
    pub share_prior_7d: Valued<String>,
    /// Share trend.
    pub trend: Trend,
    /// Model facts.
    pub facts: Facts,
    /// Supply state.
    pub supply: SupplyState,
}

/// `freshness` of a response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Freshness {
    /// `fresh` or `stale`.
    pub state: &'static str,
    /// The export's deadline.
    pub fresh_until: Option<String>,
    /// Stable reason code.
    pub reason: &'static str,
}

/// `window` of a response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Window {
    /// First date.
    pub start_date: String,
    /// Last date.
    pub end_date: String,
    /// Always 30.
    pub days: u32,
}

/// `source` of a response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    /// Source name.
    pub name: String,
    /// Public URL.
    pub url: String,
    /// Terms URL.
    pub terms_url: String,
    /// When the terms were checked.
    pub checked_at: String,
    /// Data license.
    pub license: String,
    /// Required attribution.
    pub attribution: String,
}

/// The members every model response starts with, the same for every query of a build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Head {
    /// Always [`API_SCHEMA_VERSION`].
    pub schema_version: &'static str,
    /// When the export was generated.
    pub generated_at: String,
    /// Latest evidence time.
    pub evaluation_cutoff: String,
    /// Freshness at build time.
    pub freshness: Freshness,
    /// The demand window.
    pub window: Window,
    /// Demand source.
    pub source: Source,
}

/// The integer sort keys of one record; `None` sorts after every available key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SortKeys {
    /// 30-day tokens.
    pub tokens_30d: Option<u128>,
    /// Latest rank.
    pub latest_rank: Option<u128>,
    /// Total parameters.
    pub total_parameters: Option<u128>,
    /// Active parameters.
    pub active_parameters: Option<u128>,
    /// Smallest quantized checkpoint bytes.
    pub smallest_quant_checkpoint_bytes: Option<u128>,
    /// Full-sequence attention bytes.
    pub full_sequence_attention_bytes: Option<u128>,
}

/// Everything a build publishes about models: the shared head and every served record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedModels {
    /// The response head.
    pub head: Head,
    /// Served records, sorted by model ID.
    pub records: Vec<ModelRecord>,
    /// Sort keys, parallel to `records`.
    pub keys: Vec<SortKeys>,
    /// True when a supply feed with at least one collection was given.
    pub supply_enabled: bool,
    /// True when the export is the bundled sample ([`crate::input::sample::is_sample`]).
    pub sample: bool,
}

impl ServedModels {
    /// The index of a served model by exact ID.
    pub fn find(&self, model_id: &str) -> Option<usize> {
        self.records
            .binary_search_by(|r| r.model_id.as_str().cmp(model_id))
            .ok()
    }
}
