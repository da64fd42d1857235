//! Accepted inputs → the published model records: window, ranks, token totals, market totals,
//! shares, trend, facts with units, supply state and summary, and freshness, exactly as
//! DESIGN §4 defines them.

mod types;

use std::collections::{BTreeMap, BTreeSet};

use time::{Date, OffsetDateTime};

use crate::base::decimal::{median, plain, ratio};
use crate::input::export::{
    window_start, Availability, Day, Export, FactName, ModelEntry, FACTS, WINDOW_DAYS,
};
use crate::input::supply::{CollectionStatus, Endpoint, Supply, SupplyRoute};
use crate::input::validate::{format_date, Timestamp};
use crate::input::Inputs;

pub use types::{
    reason, FactValue, Facts, Freshness, Head, ModelRecord, Rank, ServedModels, SortKeys, Source,
    SupplyState, SupplySummary, Trend, Valued, Window, API_SCHEMA_VERSION, SUPPLY_STATES,
};

/// The days of the window, by date, with `None` for days the source did not deliver.
struct WindowDays<'a> {
    dates: Vec<Date>,
    by_date: BTreeMap<Date, &'a Day>,
    market: BTreeMap<Date, Option<u128>>,
}

impl<'a> WindowDays<'a> {
    fn new(export: &'a Export, end: Date) -> WindowDays<'a> {
        let start = window_start(end);
        let dates: Vec<Date> = (0..i64::from(WINDOW_DAYS))
            .map(|i| start + time::Duration::days(i))
            .collect();
        let by_date: BTreeMap<Date, &Day> = export
            .days
            .iter()
            .filter(|d| d.date >= start && d.date <= end)
            .map(|d| (d.date, d))
            .collect();
        let market = by_date
            .iter()
            .map(|(date, day)| (*date, market_total(day)))
            .collect();
        WindowDays {
            dates,
            by_date,
            market,
        }
    }

    fn tokens_on(&self, date: Date, model_id: &str) -> Result<u128, &'static str> {
        let day = self.by_date.get(&date).ok_or(reason::SOURCE_DAY_MISSING)?;
        day.rows
            .iter()
            .find(|r| r.model_id == model_id)
            .map(|r| r.total_tokens)
            .ok_or(reason::OUTSIDE_TOP_50_ON_SOME_DAYS)
    }

    /// Exact token total over `dates`; never a partial sum.
    fn total(&self, dates: &[Date], model_id: &str) -> Result<u128, &'static str> {
        if dates.iter().any(|d| !self.by_date.contains_key(d)) {
            return Err(reason::SOURCE_DAY_MISSING);
        }
        dates.iter().map(|d| self.tokens_on(*d, model_id)).sum()
    }

    fn market_total(&self, dates: &[Date]) -> Result<u128, &'static str> {
        dates
            .iter()
            .map(|d| match self.market.get(d) {
                None => Err(reason::SOURCE_DAY_MISSING),
                Some(None) => Err(reason::MARKET_TOTAL_UNAVAILABLE),
                Some(Some(total)) => Ok(*total),
            })
            .sum()
    }
}

/// The market total of a delivered day: the sum of its rows plus the source's remainder;
/// unknown when the remainder is.
pub(crate) fn market_total(day: &Day) -> Option<u128> {
    let rows: u128 = day.rows.iter().map(|r| r.total_tokens).sum();
    day.other_tokens.map(|other| rows + other)
}

/// An exact share of the market: `tokens` over `market`, both exact, rounded half-to-even to
/// 12 fractional digits and written plainly (DESIGN §4). `market` is positive: it holds
/// `tokens`, which is.
pub(crate) fn share_text(tokens: u128, market: u128) -> String {
    ratio(to_i128(tokens), to_i128(market))
}

/// An exact share: tokens over market total.
#[derive(Debug, Clone, Copy)]
struct Share {
    tokens: u128,
    market: u128,
}

fn to_i128(n: u128) -> i128 {
    // Bounded inputs (DESIGN §2) keep every total far below i128::MAX.
    i128::try_from(n).expect("bounded totals fit in i128")
}

/// Derives the catalog from accepted inputs, judging freshness at `now`.
pub fn derive(export: &Export, supply: Option<&Supply>, now: OffsetDateTime) -> ServedModels {
    let end = export
        .window_end()
        .expect("an accepted evaluation cutoff has a previous day");
    let window = WindowDays::new(export, end);
    let last_7: Vec<Date> = window.dates[window.dates.len() - 7..].to_vec();
    let prior_7: Vec<Date> = window.dates[window.dates.len() - 14..window.dates.len() - 7].to_vec();

    let served: BTreeSet<&str> = window
        .by_date
        .values()
        .flat_map(|d| d.rows.iter().map(|r| r.model_id.as_str()))
        .collect();
    let latest_ranks = window.by_date.get(&end).map(|day| rank_rows(day));
    let first_visible = first_visible_dates(export);
    let supply_view = SupplyView::new(supply);

    let mut records = Vec::with_capacity(served.len());
    let mut keys = Vec::with_capacity(served.len());
    for model_id in served {
        let entry = export
            .models
            .get(model_id)
            .expect("the gate requires an entry for every model served");
        let (record, key) = derive_record(
            model_id,
            entry,
            &window,
            &last_7,
            &prior_7,
            latest_ranks.as_ref(),
            first_visible.get(model_id).copied().unwrap_or(end),
            &supply_view,
        );
        records.push(record);
        keys.push(key);
    }
    ServedModels {
        head: head(export, now, end),
        records,
        keys,
        supply_enabled: supply_view.enabled(),
        sample: crate::input::sample::is_sample(export),
    }
}

/// The response head of an export judged at `now`.
fn head(export: &Export, now: OffsetDateTime, end: Date) -> Head {
    let (state, reason) = match &export.fresh_until {
        Some(deadline) if now <= deadline.instant() => {
            ("fresh", reason::WITHIN_EXPECTED_UPDATE_WINDOW)
        }
        Some(_) => ("stale", reason::PAST_EXPECTED_UPDATE_WINDOW),
        None => ("stale", reason::FRESHNESS_DEADLINE_UNKNOWN),
    };
    let source = &export.demand_source;
    Head {
        schema_version: API_SCHEMA_VERSION,
        generated_at: export.generated_at.as_str().to_string(),
        evaluation_cutoff: export.evaluation_cutoff.as_str().to_string(),
        freshness: Freshness {
            state,
            fresh_until: export.fresh_until.as_ref().map(|t| t.as_str().to_string()),
            reason,
        },
        window: Window {
            start_date: format_date(window_start(end)),
            end_date: format_date(end),
            days: WINDOW_DAYS,
        },
        source: Source {
            name: source.name.clone(),
            url: source.url.clone(),
            terms_url: source.terms_url.clone(),
            checked_at: source.checked_at.as_str().to_string(),
            license: source.license.clone(),
            attribution: source.attribution.clone(),
        },
    }
}

/// Ranks of a day: tokens descending, ties by model ID ascending (byte order), 1-based.
pub(crate) fn rank_rows(day: &Day) -> BTreeMap<String, (u32, u128)> {
    let mut rows: Vec<_> = day.rows.iter().collect();
    rows.sort_by(|a, b| {
        b.total_tokens
            .cmp(&a.total_tokens)
            .then_with(|| a.model_id.as_bytes().cmp(b.model_id.as_bytes()))
    });
    rows.iter()
        .zip(1u32..)
        .map(|(row, rank)| (row.model_id.clone(), (rank, row.total_tokens)))
        .collect()
}

fn first_visible_dates(export: &Export) -> BTreeMap<&str, Date> {
    let mut first = BTreeMap::new();
    // Days are sorted by date, so the first sighting is the earliest.
    for day in &export.days {
        for row in &day.rows {
            first.entry(row.model_id.as_str()).or_insert(day.date);
        }
    }
    first
}

#[allow(clippy::too_many_arguments)]
fn derive_record(
    model_id: &str,
    entry: &ModelEntry,
    window: &WindowDays<'_>,
    last_7: &[Date],
    prior_7: &[Date],
    latest_ranks: Option<&BTreeMap<String, (u32, u128)>>,
    first_visible: Date,
    supply: &SupplyView<'_>,
) -> (ModelRecord, SortKeys) {
    let latest = match latest_ranks {
        None => Err(reason::SOURCE_DAY_MISSING),
        Some(ranks) => ranks
            .get(model_id)
            .copied()
            .ok_or(reason::OUTSIDE_TOP_50_ON_LATEST_DAY),
    };
    let latest_rank = match latest {
        Ok((rank, _)) => Rank {
            value: Some(rank),
            state: Availability::Available.as_str(),
            reason: None,
        },
        Err(why) => Rank {
            value: None,
            state: Availability::Unavailable.as_str(),
            reason: Some(why.to_string()),
        },
    };
    let latest_tokens = latest.map(|(_, tokens)| tokens.to_string());

    let tokens_7d = window.total(last_7, model_id);
    let tokens_30d = window.total(&window.dates, model_id);
    let tokens_prior = window.total(prior_7, model_id);
    let share =
        |tokens: Result<u128, &'static str>, dates: &[Date]| -> Result<Share, &'static str> {
            let tokens = tokens?;
            let market = window.market_total(dates)?;
            Ok(Share { tokens, market })
        };
    let share_7d = share(tokens_7d, last_7);
    let share_30d = share(tokens_30d, &window.dates);
    let share_prior = share(tokens_prior, prior_7);
    let fraction = |s: Result<Share, &'static str>| s.map(|s| share_text(s.tokens, s.market));

    let keys = SortKeys {
        tokens_30d: tokens_30d.ok(),
        latest_rank: latest.ok().map(|(rank, _)| u128::from(rank)),
        total_parameters: fact_key(entry, FactName::TotalParameters),
        active_parameters: fact_key(entry, FactName::ActiveParameters),
        smallest_quant_checkpoint_bytes: fact_key(entry, FactName::SmallestQuantCheckpointBytes),
        full_sequence_attention_bytes: fact_key(entry, FactName::FullSequenceAttentionBytes),
    };
    let record = ModelRecord {
        model_id: model_id.to_string(),
        model_release_id: entry.model_release_id.clone(),
        first_visible_date: format_date(first_visible),
        latest_rank,
        latest_tokens: Valued::from_result(latest_tokens, "tokens"),
        tokens_7d: Valued::from_result(tokens_7d.map(|t| t.to_string()), "tokens"),
        tokens_30d: Valued::from_result(tokens_30d.map(|t| t.to_string()), "tokens"),
        share_7d: Valued::from_result(fraction(share_7d), "fraction"),
        share_30d: Valued::from_result(fraction(share_30d), "fraction"),
        share_prior_7d: Valued::from_result(fraction(share_prior), "fraction"),
        trend: trend(share_7d, share_prior),
        facts: Facts(
            FACTS
                .iter()
                .zip(&entry.facts)
                .map(|(spec, fact)| FactValue {
                    value: fact.value.clone(),
                    unit: spec.unit,
                    state: fact.state.as_str(),
                    reason: fact.reason.clone(),
                    source_url: fact.source_url.clone(),
                })
                .collect(),
        ),
        supply: supply.state_for(model_id),
    };
    (record, keys)
}

fn fact_key(entry: &ModelEntry, name: FactName) -> Option<u128> {
    entry.facts[name.index()].integer()
}

fn trend(share_7d: Result<Share, &'static str>, prior: Result<Share, &'static str>) -> Trend {
    let unknown = |why: &str| Trend {
        direction: "unknown",
        state: Availability::Unavailable.as_str(),
        reason: Some(why.to_string()),
        relative_change: None,
        percentage_point_change: None,
    };
    let Ok(s) = share_7d else {
        return unknown(reason::SHARE_7D_UNAVAILABLE);
    };
    let Ok(p) = prior else {
        return unknown(reason::SHARE_PRIOR_7D_UNAVAILABLE);
    };
    // s7 − sp = (a·d − c·b) / (b·d) with s7 = a/b and sp = c/d, all exact.
    let (a, b, c, d) = (
        to_i128(s.tokens),
        to_i128(s.market),
        to_i128(p.tokens),
        to_i128(p.market),
    );
    let difference = a * d - c * b;
    let direction = match difference.cmp(&0) {
        std::cmp::Ordering::Greater => "up",
        std::cmp::Ordering::Less => "down",
        std::cmp::Ordering::Equal => "flat",
    };
    Trend {
        direction,
        state: Availability::Available.as_str(),
        reason: None,
        // (s7 − sp) / sp = (a·d − c·b) / (c·b); c > 0 because an available total is positive.
        relative_change: Some(ratio(difference, c * b)),
        percentage_point_change: Some(ratio(difference * 100, b * d)),
    }
}

/// The latest supply collection, indexed for route lookups.
struct SupplyView<'a> {
    latest: Option<&'a crate::input::supply::Collection>,
    history_ready: bool,
}

impl<'a> SupplyView<'a> {
    fn new(supply: Option<&'a Supply>) -> SupplyView<'a> {
        let latest = supply.and_then(|s| s.collections.last());
        let history_ready = match (supply, latest) {
            (Some(s), Some(latest)) => {
                let last_date = latest.finished_at.date();
                let complete_dates: BTreeSet<Date> = s
                    .collections
                    .iter()
                    .filter(|c| c.status == CollectionStatus::Complete)
                    .map(|c| c.finished_at.date())
                    .collect();
                (0..7).all(|i| complete_dates.contains(&(last_date - time::Duration::days(i))))
            }
            _ => false,
        };
        SupplyView {
            latest,
            history_ready,
        }
    }

    fn enabled(&self) -> bool {
        self.latest.is_some()
    }

    fn state_for(&self, model_id: &str) -> SupplyState {
        let unavailable = |state: &'static str, why: &str| SupplyState {
            state,
            reason: Some(why.to_string()),
            summary: None,
        };
        let Some(latest) = self.latest else {
            return unavailable("not_collected", reason::SUPPLY_NOT_COLLECTED);
        };
        collection_state(latest, model_id, self.history_ready)
    }
}

/// The supply state of `model_id` in `collection` (the rules of DESIGN §4 for the latest one;
/// `get_demand_history` applies them to each collection of its period).
pub(crate) fn collection_state(
    collection: &crate::input::supply::Collection,
    model_id: &str,
    history_ready: bool,
) -> SupplyState {
    let unavailable = |state: &'static str, why: &str| SupplyState {
        state,
        reason: Some(why.to_string()),
        summary: None,
    };
    match current_route(collection, model_id) {
        Ok(route) => SupplyState {
            state: "available",
            reason: None,
            summary: Some(summarize(route, &collection.finished_at, history_ready)),
        },
        Err((state, why)) => unavailable(state, why),
    }
}

/// The route of `collection` that serves `model_id` by the rules of `supply.state` (DESIGN §4:
/// the route whose ID is the model's, else the only route of the model), or the state and
/// reason that say why there is none to read: the collection or the route failed, no route,
/// several.
pub(crate) fn current_route<'c>(
    collection: &'c crate::input::supply::Collection,
    model_id: &str,
) -> std::result::Result<&'c SupplyRoute, (&'static str, &'static str)> {
    if collection.status == CollectionStatus::Failed {
        return Err(("temporarily_unavailable", reason::LATEST_COLLECTION_FAILED));
    }
    let route = match collection.routes.iter().find(|r| r.route_id == model_id) {
        Some(route) => route,
        None => {
            let serving: Vec<&SupplyRoute> = collection
                .routes
                .iter()
                .filter(|r| r.model_id == model_id)
                .collect();
            match serving.as_slice() {
                [] => return Err(("current_route_not_found", reason::NO_CURRENT_ROUTE)),
                [only] => *only,
                _ => return Err(("current_route_ambiguous", reason::SEVERAL_CURRENT_ROUTES)),
            }
        }
    };
    if route.failed {
        return Err(("temporarily_unavailable", reason::ROUTE_COLLECTION_FAILED));
    }
    Ok(route)
}

fn summarize(route: &SupplyRoute, finished_at: &Timestamp, history_ready: bool) -> SupplySummary {
    let endpoints = &route.endpoints;
    let med = |field: fn(&Endpoint) -> Option<rust_decimal::Decimal>, unit: &'static str| {
        let mut values: Vec<_> = endpoints.iter().filter_map(field).collect();
        match median(&mut values) {
            Some(m) => Valued::available(plain(m), unit),
            None => Valued::unavailable(unit, reason::NO_ENDPOINT_REPORTED),
        }
    };
    let providers: BTreeSet<&str> = endpoints.iter().map(|e| e.provider.as_str()).collect();
    let quantizations: BTreeSet<&str> = endpoints
        .iter()
        .filter_map(|e| e.quantization.as_deref())
        .collect();
    let max_context = endpoints.iter().filter_map(|e| e.context_length).max();
    SupplySummary {
        route_id: route.route_id.clone(),
        route_type: route.route_type.as_str(),
        collection_finished_at: finished_at.as_str().to_string(),
        history_ready,
        listed_endpoints: Valued::available(endpoints.len() as u64, "endpoints"),
        listed_providers: Valued::available(providers.len() as u64, "providers"),
        median_input_price_per_million: med(
            |e| e.input_price_per_million,
            "usd_per_million_tokens",
        ),
        median_output_price_per_million: med(
            |e| e.output_price_per_million,
            "usd_per_million_tokens",
        ),
        median_latency_ms: med(|e| e.latency_ms, "milliseconds"),
        median_throughput_tokens_per_second: med(
            |e| e.throughput_tokens_per_second,
            "tokens_per_second",
        ),
        median_uptime_percent: med(|e| e.uptime_percent, "percent"),
        maximum_context_tokens: match max_context {
            Some(c) => Valued::available(c, "tokens"),
            None => Valued::unavailable("tokens", reason::NO_ENDPOINT_REPORTED),
        },
        quantizations: quantizations.into_iter().map(str::to_string).collect(),
    }
}

impl Inputs {
    /// Derives the served models (the records and their head) at `now`.
    pub fn served_models(&self, now: OffsetDateTime) -> ServedModels {
        derive(&self.export, self.supply.as_ref(), now)
    }
}
