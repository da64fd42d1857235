//! The one table of response fields (spec 2.1 to 2.6): path, type, unit, nullability,
//! constraints and description. `/api/v1/about` lists it as `field_definitions` and the
//! OpenAPI document builds its response schemas from it, so the two cannot drift.

use crate::input::export::{Availability, FactKind, FactName, FACTS};
use crate::input::supply::RouteType;
use crate::query::{self, Order, SortKey};
use crate::records::{reason, API_SCHEMA_VERSION, SUPPLY_STATES};

/// JSON type of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A JSON string.
    String,
    /// A JSON integer.
    Integer,
    /// A JSON boolean.
    Boolean,
    /// A JSON object; its members are the fields at `path.member`.
    Object,
    /// A JSON array; its items are the field at `path[]`.
    Array,
}

impl Kind {
    /// The JSON Schema type name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Integer => "integer",
            Kind::Boolean => "boolean",
            Kind::Object => "object",
            Kind::Array => "array",
        }
    }
}

/// What values a field may take beyond its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rule {
    /// Any value of the type.
    Any,
    /// One of these strings.
    OneOf(Vec<&'static str>),
    /// A string matching this regular expression.
    Pattern(&'static str),
    /// An integer within these bounds.
    Range(u64, u64),
}

/// One field of a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    /// Path such as `models[].facts.total_parameters.value` (`[]` marks array items).
    pub path: String,
    /// JSON type.
    pub kind: Kind,
    /// Unit of the value, when it has one.
    pub unit: Option<&'static str>,
    /// True when the value may be null.
    pub nullable: bool,
    /// What the field means and how to use it.
    pub description: String,
    /// Further constraints.
    pub rule: Rule,
}

/// A canonical non-negative integer string.
pub(crate) const INTEGER_STRING: &str = "^(0|[1-9][0-9]*)$";
/// A plain non-negative decimal string (no exponent, no trailing fractional zeros).
pub(crate) const DECIMAL_STRING: &str = "^(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$";
/// A plain decimal string that may be negative.
pub(crate) const SIGNED_DECIMAL_STRING: &str = "^-?(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$";
/// A UTC timestamp `YYYY-MM-DDTHH:MM:SSZ`.
pub(crate) const TIMESTAMP: &str = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$";
/// A calendar date `YYYY-MM-DD`.
pub(crate) const DATE: &str = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";
/// A model, release or route ID (the gate's own pattern, which the gate names in its refusals).
pub(crate) use crate::input::validate::MODEL_ID;
/// A reason code.
pub(crate) const REASON_CODE: &str = "^[a-z][a-z0-9_]*$";
/// A name token (architecture, format).
pub(crate) const NAME_TOKEN: &str = "^[a-z0-9][a-z0-9_.-]*$";
/// An https URL.
pub(crate) const HTTPS_URL: &str = "^https://[^\\s]+$";

/// Builds the field list.
struct Table {
    fields: Vec<Field>,
}

impl Table {
    fn add(
        &mut self,
        path: &str,
        kind: Kind,
        unit: Option<&'static str>,
        nullable: bool,
        rule: Rule,
        description: &str,
    ) {
        self.fields.push(Field {
            path: path.to_string(),
            kind,
            unit,
            nullable,
            description: description.to_string(),
            rule,
        });
    }

    fn object(&mut self, path: &str, nullable: bool, description: &str) {
        self.add(path, Kind::Object, None, nullable, Rule::Any, description);
    }

    /// A value object: `value`, `unit`, `state`, `reason` (and `source_url` for facts).
    #[allow(clippy::too_many_arguments)]
    fn value_object(
        &mut self,
        path: &str,
        kind: Kind,
        value_rule: Rule,
        unit: &'static str,
        states: Vec<&'static str>,
        reasons: Rule,
        description: &str,
        fact: bool,
    ) {
        self.object(
            path,
            false,
            &format!("{description} A value object: read state and reason before value."),
        );
        self.add(
            &format!("{path}.value"),
            kind,
            Some(unit),
            true,
            value_rule,
            &format!("{description} Unit: {unit}. Null means unknown, never zero; do not replace it with a number."),
        );
        self.add(
            &format!("{path}.unit"),
            Kind::String,
            None,
            false,
            Rule::OneOf(vec![unit]),
            &format!("The fixed unit of the value: always \"{unit}\"."),
        );
        self.add(
            &format!("{path}.state"),
            Kind::String,
            None,
            false,
            Rule::OneOf(states),
            "Availability state of the value (see availability_states); the value is non-null exactly when the state is available.",
        );
        self.add(
            &format!("{path}.reason"),
            Kind::String,
            None,
            true,
            reasons,
            "Stable reason code when the value is unavailable; null when it is available.",
        );
        if fact {
            self.add(
                &format!("{path}.source_url"),
                Kind::String,
                None,
                true,
                Rule::Pattern(HTTPS_URL),
                "Pinned public evidence for the fact (an official repository file at a fixed commit); null when the fact is not available.",
            );
        }
    }
}

fn available_or_not() -> Vec<&'static str> {
    vec![
        Availability::Available.as_str(),
        Availability::Unavailable.as_str(),
    ]
}

fn codes(list: &[&'static str]) -> Rule {
    Rule::OneOf(list.to_vec())
}

/// Every field of the model response (spec 2.1 to 2.6), parents before children.
pub(crate) fn model_response_fields() -> Vec<Field> {
    let mut t = Table { fields: Vec::new() };
    let ts = || Rule::Pattern(TIMESTAMP);
    t.add(
        "schema_version",
        Kind::String,
        None,
        false,
        codes(&[API_SCHEMA_VERSION]),
        "Version of the model response schema; always model-demand.agent-api.v1.",
    );
    t.add(
        "generated_at",
        Kind::String,
        None,
        false,
        ts(),
        "UTC time the accepted public export was generated. Report it with results.",
    );
    t.add("evaluation_cutoff", Kind::String, None, false, ts(), "Latest evidence time included in the accepted export; the window ends the day before its UTC date. Report it with results.");
    t.object("freshness", false, "Freshness of the export, judged when the site was built. Check state and reason before reporting results.");
    t.add("freshness.state", Kind::String, None, false, codes(&["fresh", "stale"]), "fresh when the build ran no later than fresh_until; stale otherwise (the nightly rebuild publishes an old export as stale).");
    t.add(
        "freshness.fresh_until",
        Kind::String,
        None,
        true,
        ts(),
        "UTC deadline until which the export counts as fresh; null when the collector gave none.",
    );
    t.add(
        "freshness.reason",
        Kind::String,
        None,
        false,
        codes(&[reason::WITHIN_EXPECTED_UPDATE_WINDOW, reason::PAST_EXPECTED_UPDATE_WINDOW, reason::FRESHNESS_DEADLINE_UNKNOWN]),
        "within_expected_update_window (fresh), past_expected_update_window (stale: the deadline passed) or freshness_deadline_unknown (stale: no deadline given).",
    );
    t.object(
        "window",
        false,
        "The completed 30-day UTC demand window every aggregate covers.",
    );
    t.add(
        "window.start_date",
        Kind::String,
        None,
        false,
        Rule::Pattern(DATE),
        "First date of the window (end_date minus 29 days).",
    );
    t.add("window.end_date", Kind::String, None, false, Rule::Pattern(DATE), "Last date of the window: the last completed UTC day before evaluation_cutoff. 7-day values cover the 7 dates ending here; prior 7-day values the 7 dates before those.");
    t.add(
        "window.days",
        Kind::Integer,
        Some("days"),
        false,
        Rule::Range(30, 30),
        "Window length in days; always 30.",
    );
    t.object(
        "source",
        false,
        "The demand source and the attribution its license requires.",
    );
    t.add(
        "source.name",
        Kind::String,
        None,
        false,
        Rule::Any,
        "Demand source name (OpenRouter).",
    );
    t.add(
        "source.url",
        Kind::String,
        None,
        false,
        Rule::Pattern(HTTPS_URL),
        "Public URL of the demand data.",
    );
    t.add(
        "source.terms_url",
        Kind::String,
        None,
        false,
        Rule::Pattern(HTTPS_URL),
        "URL of the demand source's terms.",
    );
    t.add(
        "source.checked_at",
        Kind::String,
        None,
        false,
        ts(),
        "UTC time the source terms were checked.",
    );
    t.add(
        "source.license",
        Kind::String,
        None,
        false,
        Rule::Any,
        "License of the demand data (CC BY 4.0).",
    );
    t.add(
        "source.attribution",
        Kind::String,
        None,
        false,
        Rule::Any,
        "Attribution text to show wherever the demand data is reused.",
    );
    t.object(
        "query",
        false,
        "The normalized effective query, defaults applied.",
    );
    t.add(
        "query.mode",
        Kind::String,
        None,
        false,
        codes(&["list", "exact_model"]),
        "list for a ranked page; exact_model for a lookup by model_id.",
    );
    t.add(
        "query.model_id",
        Kind::String,
        None,
        true,
        Rule::Pattern(MODEL_ID),
        "The exact model ID in exact_model mode; null in list mode.",
    );
    let sorts = SortKey::names();
    let orders = Order::names();
    t.add(
        "query.sort",
        Kind::String,
        None,
        true,
        Rule::OneOf(sorts),
        "Effective sort field in list mode; null in exact_model mode.",
    );
    t.add(
        "query.order",
        Kind::String,
        None,
        true,
        Rule::OneOf(orders),
        "Effective sort order in list mode; null in exact_model mode.",
    );
    t.add(
        "query.limit",
        Kind::Integer,
        Some("models"),
        false,
        Rule::Range(query::LIMIT_MIN, query::LIMIT_MAX),
        "Effective page limit (1 in exact_model mode).",
    );
    t.add(
        "query.offset",
        Kind::Integer,
        Some("models"),
        false,
        Rule::Range(0, query::OFFSET_MAX),
        "Effective offset (0 in exact_model mode).",
    );
    t.object("pagination", false, "Page information. While has_next_page is true, request the next page by adding limit to offset.");
    t.add(
        "pagination.total_matching_models",
        Kind::Integer,
        Some("models"),
        false,
        Rule::Range(0, query::OFFSET_MAX),
        "Models matching the query: every model served in list mode, 1 in exact_model mode.",
    );
    t.add(
        "pagination.offset",
        Kind::Integer,
        Some("models"),
        false,
        Rule::Range(0, query::OFFSET_MAX),
        "Offset of this page.",
    );
    t.add(
        "pagination.limit",
        Kind::Integer,
        Some("models"),
        false,
        Rule::Range(query::LIMIT_MIN, query::LIMIT_MAX),
        "Limit of this page.",
    );
    t.add(
        "pagination.returned_count",
        Kind::Integer,
        Some("models"),
        false,
        Rule::Range(0, query::LIMIT_MAX),
        "Number of records in models.",
    );
    t.add(
        "pagination.has_next_page",
        Kind::Boolean,
        None,
        false,
        Rule::Any,
        "True when offset + returned_count < total_matching_models.",
    );
    t.add(
        "models",
        Kind::Array,
        None,
        false,
        Rule::Any,
        "Model records in list order (may be empty: an empty page is a success, not an error).",
    );
    record_fields(&mut t, "models[]");
    t.fields
}

fn record_fields(t: &mut Table, r: &str) {
    let at = |member: &str| format!("{r}.{member}");
    t.object(
        r,
        false,
        "One model served in the window: every model with a row on at least one window date.",
    );
    t.add(&at("model_id"), Kind::String, None, false, Rule::Pattern(MODEL_ID), "Stable public model ID of the demand source (a free variant such as :free is its own model).");
    t.add(
        &at("model_release_id"),
        Kind::String,
        None,
        false,
        Rule::Pattern(MODEL_ID),
        "Stable public ID of the model release the facts describe.",
    );
    t.add(
        &at("first_visible_date"),
        Kind::String,
        None,
        false,
        Rule::Pattern(DATE),
        "First completed date the model had a row in the demand data (may precede the window).",
    );
    t.object(&at("latest_rank"), false, "Rank on the window's last day: rows sorted by tokens descending, ties by model ID. Members value, state, reason; no unit member.");
    t.add(
        &at("latest_rank.value"),
        Kind::Integer,
        Some("rank"),
        true,
        Rule::Range(1, 50),
        "1-based rank on end_date; null when unavailable.",
    );
    t.add(
        &at("latest_rank.state"),
        Kind::String,
        None,
        false,
        Rule::OneOf(available_or_not()),
        "available or unavailable.",
    );
    let latest = codes(&[
        reason::OUTSIDE_TOP_50_ON_LATEST_DAY,
        reason::SOURCE_DAY_MISSING,
    ]);
    t.add(
        &at("latest_rank.reason"),
        Kind::String,
        None,
        true,
        latest.clone(),
        "outside_top_50_on_latest_day or source_day_missing when unavailable; else null.",
    );
    let int = || Rule::Pattern(INTEGER_STRING);
    let frac = || Rule::Pattern(DECIMAL_STRING);
    t.value_object(
        &at("latest_tokens"),
        Kind::String,
        int(),
        "tokens",
        available_or_not(),
        latest,
        "Tokens on the window's last day, as an exact integer string.",
        false,
    );
    let totals = codes(&[
        reason::SOURCE_DAY_MISSING,
        reason::OUTSIDE_TOP_50_ON_SOME_DAYS,
    ]);
    let totals_note = "Available only when every date of the period was delivered and the model has a row on each; never a partial sum (reasons source_day_missing, checked first, or outside_top_50_on_some_days).";
    t.value_object(
        &at("tokens_7d"),
        Kind::String,
        int(),
        "tokens",
        available_or_not(),
        totals.clone(),
        &format!("Exact token total over the last 7 days of the window. {totals_note}"),
        false,
    );
    t.value_object(
        &at("tokens_30d"),
        Kind::String,
        int(),
        "tokens",
        available_or_not(),
        totals,
        &format!("Exact token total over the 30-day window. {totals_note}"),
        false,
    );
    let shares = codes(&[
        reason::SOURCE_DAY_MISSING,
        reason::OUTSIDE_TOP_50_ON_SOME_DAYS,
        reason::MARKET_TOTAL_UNAVAILABLE,
    ]);
    let share_note = "A fraction from 0 to 1 (not a percentage): model tokens over the market total (all rows plus the source's remainder) of the same dates, computed exactly and rounded half-to-even to 12 fractional digits, written plainly. Reasons: those of the token total, else market_total_unavailable when the remainder of a date is unknown.";
    t.value_object(
        &at("share_7d"),
        Kind::String,
        frac(),
        "fraction",
        available_or_not(),
        shares.clone(),
        &format!("Demand share over the last 7 days. {share_note}"),
        false,
    );
    t.value_object(
        &at("share_30d"),
        Kind::String,
        frac(),
        "fraction",
        available_or_not(),
        shares.clone(),
        &format!("Demand share over the 30-day window. {share_note}"),
        false,
    );
    t.value_object(
        &at("share_prior_7d"),
        Kind::String,
        frac(),
        "fraction",
        available_or_not(),
        shares,
        &format!("Demand share over the 7 days before the last 7. {share_note}"),
        false,
    );
    t.object(&at("trend"), false, "7-day demand-share trend: share_7d against share_prior_7d, compared exactly. No unit member; see the units of its changes.");
    t.add(&at("trend.direction"), Kind::String, None, false, codes(&["up", "down", "flat", "unknown"]), "up, down or flat by exact comparison of the two shares; unknown when either share is unavailable.");
    t.add(
        &at("trend.state"),
        Kind::String,
        None,
        false,
        Rule::OneOf(available_or_not()),
        "available or unavailable.",
    );
    t.add(&at("trend.reason"), Kind::String, None, true, codes(&[reason::SHARE_7D_UNAVAILABLE, reason::SHARE_PRIOR_7D_UNAVAILABLE]), "share_7d_unavailable (checked first) or share_prior_7d_unavailable when unknown; else null.");
    t.add(&at("trend.relative_change"), Kind::String, Some("ratio"), true, Rule::Pattern(SIGNED_DECIMAL_STRING), "(share_7d − share_prior_7d) / share_prior_7d as a ratio (0.1 = +10 %), exact then rounded half-to-even to 12 fractional digits; null when unknown.");
    t.add(&at("trend.percentage_point_change"), Kind::String, Some("percentage_points"), true, Rule::Pattern(SIGNED_DECIMAL_STRING), "(share_7d − share_prior_7d) × 100 in percentage points, exact then rounded half-to-even to 12 fractional digits; null when unknown.");
    t.object(&at("facts"), false, "Versioned public model facts from the model-repository source, each a value object with its pinned source_url. A source separate from demand.");
    let all_states: Vec<&'static str> = Availability::ALL.iter().map(|s| s.as_str()).collect();
    for spec in &FACTS {
        let rule = match spec.kind {
            FactKind::Positive | FactKind::NonNegative => Rule::Pattern(INTEGER_STRING),
            FactKind::Name => Rule::Pattern(NAME_TOKEN),
        };
        let reasons_note = if spec.name == FactName::Bf16WeightsBytes {
            ""
        } else {
            " When not available, the reason says whether evidence is missing, unsafe, not checked, or not found under the public policy."
        };
        t.value_object(
            &at(&format!("facts.{}", spec.name)),
            Kind::String,
            rule,
            spec.unit,
            all_states.clone(),
            Rule::Pattern(REASON_CODE),
            &format!("{}{reasons_note}", spec.description),
            true,
        );
    }
    supply_fields(t, &at("supply"));
}

fn supply_fields(t: &mut Table, s: &str) {
    let at = |member: &str| format!("{s}.{member}");
    t.object(s, false, "Supply of the model's current route in the latest supply collection. Demand or missing supply does not prove a supply opportunity.");
    t.add(&at("state"), Kind::String, None, false, Rule::OneOf(SUPPLY_STATES.to_vec()), "not_collected (no supply feed), temporarily_unavailable (the latest collection failed, or only this model's current route could not be collected in it), current_route_not_found, current_route_ambiguous (several routes serve the model and none has its ID) or available.");
    t.add(
        &at("reason"),
        Kind::String,
        None,
        true,
        codes(&[reason::SUPPLY_NOT_COLLECTED, reason::LATEST_COLLECTION_FAILED, reason::ROUTE_COLLECTION_FAILED, reason::NO_CURRENT_ROUTE, reason::SEVERAL_CURRENT_ROUTES]),
        "supply_not_collected, latest_collection_failed (the whole latest collection failed), route_collection_failed (the latest collection is complete but this model's current route could not be collected in it), no_current_route or several_current_routes; null when available.",
    );
    let sm = at("summary");
    let sat = |member: &str| format!("{sm}.{member}");
    t.object(&sm, true, "Summary of the current route; null unless state is available. Medians are exact over endpoints reporting the value (mean of the two middle values for an even count), in plain form.");
    t.add(&sat("route_id"), Kind::String, None, false, Rule::Pattern(MODEL_ID), "Exact public route ID: the route whose ID equals the model ID, else the only route serving the model.");
    let route_types: Vec<&'static str> = RouteType::ALL.iter().map(|r| r.as_str()).collect();
    t.add(
        &sat("route_type"),
        Kind::String,
        None,
        false,
        Rule::OneOf(route_types),
        "paid, free, batch or thinking.",
    );
    t.add(
        &sat("collection_finished_at"),
        Kind::String,
        None,
        false,
        Rule::Pattern(TIMESTAMP),
        "UTC time the latest collection finished.",
    );
    t.add(&sat("history_ready"), Kind::Boolean, None, false, Rule::Any, "True when a complete collection finished on each of the 7 UTC dates ending at the latest collection's date.");
    let none = || codes(&[reason::NO_ENDPOINT_REPORTED]);
    let avail = available_or_not;
    t.value_object(
        &sat("listed_endpoints"),
        Kind::Integer,
        Rule::Range(0, u64::from(u32::MAX)),
        "endpoints",
        avail(),
        none(),
        "Number of endpoints listed for the route.",
        false,
    );
    t.value_object(
        &sat("listed_providers"),
        Kind::Integer,
        Rule::Range(0, u64::from(u32::MAX)),
        "providers",
        avail(),
        none(),
        "Number of distinct providers listed for the route.",
        false,
    );
    let dec = || Rule::Pattern(DECIMAL_STRING);
    let medians = [
        (
            "median_input_price_per_million",
            "usd_per_million_tokens",
            "Median input price in US dollars per million tokens.",
        ),
        (
            "median_output_price_per_million",
            "usd_per_million_tokens",
            "Median output price in US dollars per million tokens.",
        ),
        (
            "median_latency_ms",
            "milliseconds",
            "Median latency in milliseconds.",
        ),
        (
            "median_throughput_tokens_per_second",
            "tokens_per_second",
            "Median throughput in tokens per second.",
        ),
        (
            "median_uptime_percent",
            "percent",
            "Median uptime in percent (0 to 100).",
        ),
    ];
    for (name, unit, description) in medians {
        t.value_object(
            &sat(name),
            Kind::String,
            dec(),
            unit,
            avail(),
            none(),
            &format!(
                "{description} Unavailable with no_endpoint_reported when no endpoint reports it."
            ),
            false,
        );
    }
    t.value_object(
        &sat("maximum_context_tokens"),
        Kind::Integer,
        Rule::Range(1, i64::MAX as u64),
        "tokens",
        avail(),
        none(),
        "Largest context length listed by an endpoint, in tokens.",
        false,
    );
    t.add(
        &sat("quantizations"),
        Kind::Array,
        None,
        false,
        Rule::Any,
        "Sorted unique quantization names listed by the endpoints (may be empty).",
    );
    t.add(
        &sat("quantizations[]"),
        Kind::String,
        None,
        false,
        Rule::Any,
        "A quantization name as the supply source lists it.",
    );
}

/// The fields of an error response.
pub(crate) fn error_fields() -> Vec<Field> {
    let codes: Vec<&'static str> = crate::answers::render::ErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .collect();
    vec![
        Field { path: "schema_version".into(), kind: Kind::String, unit: None, nullable: false, rule: Rule::OneOf(vec![crate::answers::render::ERROR_SCHEMA_VERSION]), description: "Always model-demand.agent-api-error.v1.".into() },
        Field { path: "error".into(), kind: Kind::String, unit: None, nullable: false, rule: Rule::OneOf(codes), description: "Stable error code: invalid_query (400), model_not_found (404), data_unavailable (503), not_found (404), method_not_allowed (405), internal_error (500).".into() },
        Field { path: "message".into(), kind: Kind::String, unit: None, nullable: false, rule: Rule::Any, description: "What was wrong and what is allowed, for people; do not parse it.".into() },
    ]
}
