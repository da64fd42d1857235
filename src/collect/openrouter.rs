//! OpenRouter's three sources as they answer (rankings-daily, the model catalog, a route's
//! endpoints): raw response types, and pure conversions into demand days, catalog joins and
//! supply routes (DESIGN §9).
//!
//! The raw types accept members they do not name: a source adding a field must not stop the
//! nightly job. What the export needs is checked here and again by the gate.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use rust_decimal::{Decimal, RoundingStrategy};
use serde::Deserialize;
use time::Date;

use crate::input::supply::RouteType;

/// The reserved permaslug of the aggregated long tail.
pub(super) const OTHER: &str = "other";

/// `GET /api/v1/datasets/rankings-daily`.
#[derive(Debug, Deserialize)]
pub(super) struct RankingsResponse {
    /// One row per (date, permaslug), `other` last within its date.
    pub data: Vec<RankingRow>,
    /// When the snapshot was taken, and the dates it covers.
    pub meta: RankingsMeta,
}

/// One row of rankings-daily.
#[derive(Debug, Deserialize)]
pub(super) struct RankingRow {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// The model's permaslug, variant suffix included, or `other`.
    pub model_permaslug: String,
    /// Decimal string (a number is accepted too, in case the source changes).
    pub total_tokens: TokenCount,
}

/// A token count as sent: a decimal string, or a JSON integer.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum TokenCount {
    /// `"123"`
    Text(String),
    /// `123`
    Number(u64),
}

/// `meta` of rankings-daily.
#[derive(Debug, Deserialize)]
pub(super) struct RankingsMeta {
    /// RFC 3339 instant of the snapshot, published verbatim in the attribution.
    pub as_of: String,
}

/// One delivered day, as the export writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct DemandDay {
    /// The date.
    pub date: Date,
    /// The `other` row's total; `"0"` when the day has rows but no `other` row.
    pub other_tokens: Option<u128>,
    /// The non-`other` rows in source order: (model ID, tokens).
    pub rows: Vec<(String, u128)>,
}

/// A rankings row whose permaslug no ID rule can accept (empty, over 200 characters, a
/// character outside the grammar of DESIGN §2): it is no model, and its tokens go into its
/// day's `other` bucket so the market total stays whole (DESIGN §9). The run report names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldedRow {
    /// Its index in the response's `data`.
    pub index: usize,
    /// Its date.
    pub date: Date,
    /// The permaslug as the source wrote it.
    pub permaslug: String,
    /// Its tokens, now part of the day's `other_tokens`.
    pub tokens: u128,
    /// Which part of the ID rule it breaks.
    pub why: &'static str,
}

/// The delivered days, and the rows folded into their day's `other` bucket.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Demand {
    /// One entry per delivered date, in date order.
    pub days: Vec<DemandDay>,
    /// Rows whose permaslug is no publishable ID, in source order.
    pub folded: Vec<FoldedRow>,
}

/// Turns rankings rows into days: dates outside `[start, end]` are ignored (the source may
/// include the day in progress), a date with only an `other` row is an empty day, and a date
/// with no row at all is absent. Rows of zero tokens are dropped, as the source itself drops
/// them before ranking. A row whose permaslug is no ID is folded into its day's `other`
/// bucket, never a reason to lose the night. A malformed date or token count is an error
/// naming the row.
pub(super) fn demand_days(rows: &[RankingRow], start: Date, end: Date) -> Result<Demand, String> {
    // Per date: the `other` total when its row came, and the model rows.
    type Parts = (Option<u128>, Vec<(String, u128)>);
    let mut days: BTreeMap<Date, Parts> = BTreeMap::new();
    let mut folded = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let date = crate::input::validate::parse_date(&row.date)
            .ok_or_else(|| format!("data[{i}].date {:?} is not a date", row.date))?;
        if date < start || date > end {
            continue;
        }
        let tokens = match &row.total_tokens {
            TokenCount::Text(text) => crate::base::decimal::parse_canonical_uint(text),
            TokenCount::Number(n) => Some(u128::from(*n)),
        }
        .ok_or_else(|| format!("data[{i}].total_tokens is not a whole number"))?;
        let day = days.entry(date).or_insert((None, Vec::new()));
        if row.model_permaslug == OTHER {
            day.0 = Some(day.0.unwrap_or(0) + tokens);
        } else if let Some(why) = crate::input::validate::model_id_problem(&row.model_permaslug) {
            // Counted in the market total as the long tail is; `other` stays known because
            // the row's tokens are known.
            day.0 = Some(day.0.unwrap_or(0) + tokens);
            folded.push(FoldedRow {
                index: i,
                date,
                permaslug: row.model_permaslug.clone(),
                tokens,
                why,
            });
        } else if tokens > 0 {
            day.1.push((row.model_permaslug.clone(), tokens));
        }
    }
    let days = days
        .into_iter()
        .map(|(date, (other, rows))| DemandDay {
            date,
            // No `other` row on a day with rows: the long tail was empty (the source omits it).
            other_tokens: Some(other.unwrap_or(0)),
            rows,
        })
        .collect();
    Ok(Demand { days, folded })
}

/// One catalog entry that may be a route, with the members the join needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEntry {
    /// The ID used in requests, variant suffix included (`openai/gpt-4o:free`).
    pub id: String,
    /// The permanent slug the rankings use (without variant).
    pub canonical_slug: Option<String>,
    /// The Hugging Face repository, `""` or null when none.
    pub hugging_face_id: Option<String>,
}

/// A catalog entry that is never a route nor a Hugging Face source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedEntry {
    /// The entry's `id` as listed (or `data[i]` when it has none).
    pub id: String,
    /// `alias` (a `~` ID or an `alias_target`), `id_rule` (an ID the API could not publish)
    /// or `no_id`.
    pub why: &'static str,
    /// The model an alias points to, when it says.
    pub alias_target: Option<String>,
}

/// The catalog as read: route candidates in catalog order, and the entries skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenRouterCatalog {
    /// Entries that may be routes.
    pub entries: Vec<CatalogEntry>,
    /// Aliases and entries whose ID breaks the ID rule.
    pub skipped: Vec<SkippedEntry>,
}

/// Reads `GET /api/v1/models` entry by entry (DESIGN §9): a `~`-prefixed "latest" alias, an
/// entry with an `alias_target`, and an ID that breaks the ID rule are skipped; a member of an
/// unexpected type is unknown, never a failed catalog. `Err` only when there is no `data`
/// list at all.
pub(super) fn read_catalog(body: &[u8]) -> Result<OpenRouterCatalog, String> {
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("not JSON: {e}"))?;
    let list = value
        .get("data")
        .and_then(serde_json::Value::as_array)
        .ok_or("no data list")?;
    let mut catalog = OpenRouterCatalog::default();
    for (i, entry) in list.iter().enumerate() {
        let text = |name: &str| entry.get(name).and_then(|v| v.as_str()).map(str::to_string);
        // Seen as `{"name": …, "slug": …}`; a bare string is taken as the slug.
        let alias_target = entry.get("alias_target").filter(|v| !v.is_null()).map(|v| {
            match v.get("slug").and_then(|s| s.as_str()).or(v.as_str()) {
                Some(slug) => slug.to_string(),
                None => v.to_string(),
            }
        });
        let Some(id) = text("id") else {
            catalog.skipped.push(SkippedEntry {
                id: format!("data[{i}]"),
                why: "no_id",
                alias_target,
            });
            continue;
        };
        let why = if id.starts_with('~') || alias_target.is_some() {
            Some("alias")
        } else if !crate::input::validate::is_model_id(&id) {
            Some("id_rule")
        } else {
            None
        };
        match why {
            Some(why) => catalog.skipped.push(SkippedEntry {
                id,
                why,
                alias_target,
            }),
            None => catalog.entries.push(CatalogEntry {
                id,
                canonical_slug: text("canonical_slug"),
                hugging_face_id: text("hugging_face_id"),
            }),
        }
    }
    Ok(catalog)
}

/// The `:variant` suffix of an ID (text after the first `:`), if any.
pub(super) fn variant(id: &str) -> Option<&str> {
    id.split_once(':').map(|(_, v)| v)
}

/// The release ID: the model ID without its `:variant` suffix.
pub(super) fn release_id(model_id: &str) -> &str {
    model_id.split_once(':').map_or(model_id, |(base, _)| base)
}

/// A demand model's place in the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct CatalogJoin {
    /// Catalog IDs of the model's route entries, in catalog order.
    pub route_ids: Vec<String>,
    /// The release's Hugging Face repository, when the catalog names one.
    pub hugging_face_repo: Option<String>,
    /// Catalog entries of the release (any variant): none means the catalog does not know
    /// the model under this slug.
    pub release_entries: usize,
}

/// Joins a demand model with the catalog (DESIGN §9): its release's entries are those whose
/// `canonical_slug` equals the release ID (or `slug`, when a reviewed `catalog_matches` entry
/// gives one); route entries carry the model's variant suffix; the repository is the non-empty
/// `hugging_face_id` of the release's suffix-less entry, else the first non-empty one among
/// the release's entries.
pub(super) fn join(model_id: &str, catalog: &[CatalogEntry], slug: Option<&str>) -> CatalogJoin {
    let release = slug.unwrap_or_else(|| release_id(model_id));
    let suffix = variant(model_id);
    let entries: Vec<&CatalogEntry> = catalog
        .iter()
        .filter(|e| e.canonical_slug.as_deref() == Some(release))
        .collect();
    let repo_of = |e: &&CatalogEntry| {
        e.hugging_face_id
            .as_deref()
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(str::to_string)
    };
    let hugging_face_repo = entries
        .iter()
        .filter(|e| variant(&e.id).is_none())
        .find_map(repo_of)
        .or_else(|| entries.iter().find_map(repo_of));
    CatalogJoin {
        route_ids: entries
            .iter()
            .filter(|e| variant(&e.id) == suffix)
            .map(|e| e.id.clone())
            .collect(),
        hugging_face_repo,
        release_entries: entries.len(),
    }
}

/// How a demand model's release ID found its catalog `canonical_slug` (DESIGN §9, amended
/// 2026-11-25): IDs are case-sensitive, so the exact slug wins; the rankings have been seen to
/// write a letter's case differently from the catalog (`perplexity/pplx-embed-v1-0.6B` against
/// the catalog's lowercase ID), so one slug equal but for ASCII letter case is taken next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlugMatch<'a> {
    /// The release ID as written: a slug equals it, or none equals it in any case.
    AsWritten,
    /// The one slug equal to the release ID but for letter case.
    ByCase(&'a str),
    /// Several slugs equal to it but for letter case: none is taken.
    Ambiguous(Vec<&'a str>),
}

/// The slug `release` joins, among the catalog's distinct `slugs` (see [`SlugMatch`]).
pub(super) fn match_slug<'a>(release: &str, slugs: &BTreeSet<&'a str>) -> SlugMatch<'a> {
    if slugs.contains(release) {
        return SlugMatch::AsWritten;
    }
    let mut by_case: Vec<&'a str> = slugs
        .iter()
        .copied()
        .filter(|s| s.eq_ignore_ascii_case(release))
        .collect();
    match by_case.len() {
        0 => SlugMatch::AsWritten,
        1 => SlugMatch::ByCase(by_case.remove(0)),
        _ => SlugMatch::Ambiguous(by_case),
    }
}

/// The route type a catalog ID's suffix names.
pub(super) fn route_type(route_id: &str) -> RouteType {
    match variant(route_id) {
        Some("free") => RouteType::Free,
        Some("batch") => RouteType::Batch,
        Some("thinking") => RouteType::Thinking,
        _ => RouteType::Paid,
    }
}

/// One endpoint as supply v1 writes it: decimals already in plain normal form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SupplyEndpoint {
    /// Provider name.
    pub provider: String,
    /// Quantization, null when unknown.
    pub quantization: Option<String>,
    /// Context window.
    pub context_length: Option<u64>,
    /// USD per million input tokens.
    pub input_price_per_million: Option<String>,
    /// USD per million output tokens.
    pub output_price_per_million: Option<String>,
    /// Median latency, milliseconds as the source documents it.
    pub latency_ms: Option<String>,
    /// Median throughput.
    pub throughput_tokens_per_second: Option<String>,
    /// Uptime percent.
    pub uptime_percent: Option<String>,
}

/// How often one endpoint member was read as unknown, by cause.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemberCounts {
    /// Absent or null (or `"unknown"` for a quantization).
    pub missing: u64,
    /// Of a type the documentation does not give it (a bare number where `{p50, …}` belongs).
    pub wrong_type: u64,
    /// Readable but outside what supply v1 allows (a `"-1"` price, uptime over 100).
    pub out_of_range: u64,
}

/// What reading endpoint lists found unknown: per member, and entries naming no provider.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointTally {
    /// Endpoints read (kept).
    pub endpoints: u64,
    /// Per member name (`pricing.prompt`, `latency_last_30m.p50`, ...).
    pub members: BTreeMap<&'static str, MemberCounts>,
    /// Entries dropped because they name no provider (neither `provider_name` nor `tag`).
    pub without_provider: u64,
}

impl EndpointTally {
    /// Adds another tally to this one.
    pub fn merge(&mut self, other: &EndpointTally) {
        self.endpoints += other.endpoints;
        self.without_provider += other.without_provider;
        for (name, c) in &other.members {
            let mine = self.members.entry(name).or_default();
            mine.missing += c.missing;
            mine.wrong_type += c.wrong_type;
            mine.out_of_range += c.out_of_range;
        }
    }

    fn count(&mut self, member: &'static str, read: &Read) {
        let c = self.members.entry(member).or_default();
        match read {
            Read::Missing => c.missing += 1,
            Read::WrongType => c.wrong_type += 1,
            Read::OutOfRange => c.out_of_range += 1,
            Read::Value(_) => {}
        }
    }
}

/// One member as read.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Read {
    Value(String),
    Missing,
    WrongType,
    OutOfRange,
}

impl Read {
    fn value(self) -> Option<String> {
        match self {
            Read::Value(v) => Some(v),
            _ => None,
        }
    }
}

/// Reads a route's `GET /api/v1/models/{author}/{slug}/endpoints` answer entry by entry and
/// member by member (DESIGN §9). `Err` (the route failed) only when the body is not JSON or
/// has no `data.endpoints` list; no single member can fail a route.
pub(super) fn read_endpoints(body: &[u8]) -> Result<(Vec<SupplyEndpoint>, EndpointTally), String> {
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|_| "a body that is not JSON".to_string())?;
    let list = value
        .pointer("/data/endpoints")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| "a body without a data.endpoints list".to_string())?;
    let mut tally = EndpointTally::default();
    let endpoints = list
        .iter()
        .filter_map(|raw| supply_endpoint(raw, &mut tally))
        .collect();
    Ok((endpoints, tally))
}

/// Maps one endpoint entry (DESIGN §9); `None` when it names no provider at all. Entries are
/// never merged: two entries with one tag are two listed endpoints. A member that is missing,
/// null, of an unexpected type, or outside supply v1's bounds (a negative "variable" price,
/// past the digit bounds, uptime over 100) is null: unknown, never a made-up number. A number
/// sent as a decimal string is read as that number.
pub(super) fn supply_endpoint(
    raw: &serde_json::Value,
    tally: &mut EndpointTally,
) -> Option<SupplyEndpoint> {
    let named = |name: &str| {
        raw.get(name)
            .and_then(serde_json::Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let Some(provider) = named("provider_name").or_else(|| named("tag")) else {
        tally.without_provider += 1;
        return None;
    };
    tally.endpoints += 1;
    let mut read = |member: &'static str, r: Read| {
        tally.count(member, &r);
        r.value()
    };
    let quantization = read(
        "quantization",
        match raw.get("quantization") {
            None | Some(serde_json::Value::Null) => Read::Missing,
            Some(serde_json::Value::String(q)) if q.trim().is_empty() || q.trim() == "unknown" => {
                Read::Missing
            }
            Some(serde_json::Value::String(q)) => Read::Value(q.trim().to_string()),
            Some(_) => Read::WrongType,
        },
    );
    let context_length = read(
        "context_length",
        match decimal_member(raw.get("context_length")) {
            Ok(Some(d))
                if d > Decimal::ZERO && d.fract().is_zero() && d <= Decimal::from(i64::MAX) =>
            {
                Read::Value(d.normalize().to_string())
            }
            Ok(Some(_)) => Read::OutOfRange,
            Ok(None) => Read::Missing,
            Err(why) => why.into(),
        },
    )
    .and_then(|n| n.parse::<u64>().ok());
    let pricing = raw.get("pricing").filter(|p| !p.is_null());
    let price = |name: &str| match pricing {
        Some(p) if !p.is_object() => Read::WrongType,
        _ => match decimal_member(pricing.and_then(|p| p.get(name))) {
            Ok(Some(per_token)) => per_token
                .checked_mul(Decimal::from(1_000_000))
                .and_then(plain)
                .map_or(Read::OutOfRange, Read::Value),
            Ok(None) => Read::Missing,
            Err(why) => why.into(),
        },
    };
    let input = read("pricing.prompt", price("prompt"));
    let output = read("pricing.completion", price("completion"));
    let p50 = |name: &str| match raw.get(name) {
        None | Some(serde_json::Value::Null) => Read::Missing,
        Some(serde_json::Value::Object(o)) => decimal_read(o.get("p50"), None),
        // A bare number (or anything else) where the percentiles belong is not a median.
        Some(_) => Read::WrongType,
    };
    let latency = read("latency_last_30m.p50", p50("latency_last_30m"));
    let throughput = read("throughput_last_30m.p50", p50("throughput_last_30m"));
    let uptime = read(
        "uptime_last_30m",
        decimal_read(raw.get("uptime_last_30m"), Some(Decimal::ONE_HUNDRED)),
    );
    Some(SupplyEndpoint {
        provider: provider.to_string(),
        quantization,
        context_length,
        input_price_per_million: input,
        output_price_per_million: output,
        latency_ms: latency,
        throughput_tokens_per_second: throughput,
        uptime_percent: uptime,
    })
}

/// A decimal member sent as a JSON number or a decimal string: `Ok(None)` when absent or null;
/// `WrongType` when of another type or not written as JSON writes numbers (the gate's strict
/// rule: `"1_0"` or `"+1"` is no price); `OutOfRange` when well written but too large (or too
/// fine) to hold exactly.
fn decimal_member(value: Option<&serde_json::Value>) -> Result<Option<Decimal>, Unreadable> {
    match value {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::Number(n)) => parse_decimal(&n.to_string()).map(Some),
        Some(serde_json::Value::String(s)) => parse_decimal(s).map(Some),
        Some(_) => Err(Unreadable::WrongType),
    }
}

/// Why a decimal member was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unreadable {
    WrongType,
    OutOfRange,
}

impl From<Unreadable> for Read {
    fn from(why: Unreadable) -> Read {
        match why {
            Unreadable::WrongType => Read::WrongType,
            Unreadable::OutOfRange => Read::OutOfRange,
        }
    }
}

/// A decimal member in plain normal form, out of range past `max` or supply v1's bounds.
fn decimal_read(value: Option<&serde_json::Value>, max: Option<Decimal>) -> Read {
    match decimal_member(value) {
        Ok(Some(d)) if max.is_some_and(|m| d > m) => Read::OutOfRange,
        Ok(Some(d)) => plain(d).map_or(Read::OutOfRange, Read::Value),
        Ok(None) => Read::Missing,
        Err(why) => why.into(),
    }
}

/// Parses a decimal as the sources write it, by JSON's number grammar only: plain
/// (`"0.0000025"`) or, for JSON numbers in their shortest round-trip form, with an exponent
/// (`1e-7`). More fractional digits than `Decimal` holds are rounded (half to even, past the
/// 12 kept anyway); a value too large for it is out of range.
fn parse_decimal(text: &str) -> Result<Decimal, Unreadable> {
    if !crate::base::decimal::is_json_number(text) {
        return Err(Unreadable::WrongType);
    }
    let parsed = if text.contains(['e', 'E']) {
        Decimal::from_scientific(text).ok()
    } else {
        Decimal::from_str_exact(text)
            .ok()
            .or_else(|| Decimal::from_str(text).ok())
    };
    parsed.ok_or(Unreadable::OutOfRange)
}

/// Rounds to 12 fractional digits half-to-even and writes the plain normal form; `None` for a
/// negative value or one past 15 integer digits (supply v1's bounds).
fn plain(value: Decimal) -> Option<String> {
    if value.is_sign_negative() && !value.is_zero() {
        return None;
    }
    let rounded = value
        .round_dp_with_strategy(12, RoundingStrategy::MidpointNearestEven)
        .normalize();
    if rounded.trunc() >= Decimal::from(1_000_000_000_000_000u64) {
        return None;
    }
    let text = rounded.to_string();
    Some(if text == "-0" { "0".to_string() } else { text })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(text: &str) -> Date {
        crate::input::validate::parse_date(text).expect("date")
    }

    fn row(date: &str, slug: &str, tokens: &str) -> RankingRow {
        RankingRow {
            date: date.to_string(),
            model_permaslug: slug.to_string(),
            total_tokens: TokenCount::Text(tokens.to_string()),
        }
    }

    #[test]
    fn other_rows_omitted_other_and_other_only_days() {
        let rows = [
            row("2026-11-01", "a/x", "10"),
            row("2026-11-01", "other", "5"),
            row("2026-11-02", "a/x", "7"),
            row("2026-11-03", "other", "9"),
            row("2026-11-09", "a/x", "1"),
        ];
        let demand = demand_days(&rows, date("2026-11-01"), date("2026-11-05")).expect("rows");
        assert!(demand.folded.is_empty());
        let days = demand.days;
        assert_eq!(days.len(), 3, "11-04 absent, 11-09 outside");
        assert_eq!(days[0].other_tokens, Some(5));
        assert_eq!(
            days[1].other_tokens,
            Some(0),
            "omitted other row is an empty tail"
        );
        assert_eq!(days[2].rows, vec![], "only an other row: present, empty");
        assert_eq!(days[2].other_tokens, Some(9));
    }

    #[test]
    fn ids_keep_their_case_and_rows_no_rule_accepts_go_into_other() {
        let long = format!("a/{}", "x".repeat(199));
        let rows = [
            row("2026-11-01", "perplexity/pplx-embed-v1-0.6B", "10"),
            row("2026-11-01", "perplexity/pplx-embed-v1-0.6b", "4"),
            row("2026-11-01", "", "3"),
            row("2026-11-01", "a/b c", "2"),
            row("2026-11-01", &long, "1"),
            row("2026-11-01", "other", "100"),
            // A day whose only row is no ID: present, empty, its tokens the tail.
            row("2026-11-02", "-x", "7"),
        ];
        let demand = demand_days(&rows, date("2026-11-01"), date("2026-11-02")).expect("rows");
        let day = &demand.days[0];
        assert_eq!(
            day.rows,
            vec![
                ("perplexity/pplx-embed-v1-0.6B".to_string(), 10),
                ("perplexity/pplx-embed-v1-0.6b".to_string(), 4),
            ],
            "two IDs, case kept"
        );
        assert_eq!(
            day.other_tokens,
            Some(106),
            "100 + 3 + 2 + 1: the market total whole"
        );
        assert_eq!(demand.days[1].rows, vec![]);
        assert_eq!(demand.days[1].other_tokens, Some(7));
        let named: Vec<(usize, &str, u128)> = demand
            .folded
            .iter()
            .map(|f| (f.index, f.permaslug.as_str(), f.tokens))
            .collect();
        assert_eq!(
            named,
            vec![
                (2, "", 3),
                (3, "a/b c", 2),
                (4, long.as_str(), 1),
                (6, "-x", 7)
            ]
        );
    }

    #[test]
    fn the_exact_slug_first_then_one_equal_but_for_case() {
        let slugs: BTreeSet<&str> = [
            "perplexity/pplx-embed-v1-0.6b",
            "acme/x",
            "two/Ways",
            "two/ways",
        ]
        .into_iter()
        .collect();
        assert_eq!(match_slug("acme/x", &slugs), SlugMatch::AsWritten);
        assert_eq!(
            match_slug("perplexity/pplx-embed-v1-0.6B", &slugs),
            SlugMatch::ByCase("perplexity/pplx-embed-v1-0.6b")
        );
        assert_eq!(
            match_slug("two/Ways", &slugs),
            SlugMatch::AsWritten,
            "exact wins"
        );
        assert_eq!(
            match_slug("TWO/WAYS", &slugs),
            SlugMatch::Ambiguous(vec!["two/Ways", "two/ways"])
        );
        assert_eq!(match_slug("nobody/x", &slugs), SlugMatch::AsWritten);
    }

    #[test]
    fn a_malformed_count_is_an_error() {
        let rows = [row("2026-11-01", "a/x", "1.5")];
        assert!(demand_days(&rows, date("2026-11-01"), date("2026-11-01")).is_err());
    }

    #[test]
    fn prices_shift_six_places_exactly_and_numbers_lose_their_exponent() {
        let raw: serde_json::Value = serde_json::from_str(
            r#"{"provider_name":"P","quantization":"unknown","context_length":131072,
                "pricing":{"prompt":"0.0000025","completion":"-1"},
                "uptime_last_30m":100.0,"latency_last_30m":{"p50":1e-7},
                "throughput_last_30m":{"p50":95.1200}}"#,
        )
        .expect("parses");
        let mut tally = EndpointTally::default();
        let e = supply_endpoint(&raw, &mut tally).expect("has a provider");
        assert_eq!(tally.members["pricing.completion"].out_of_range, 1);
        assert_eq!(tally.members["quantization"].missing, 1);
        assert_eq!(e.input_price_per_million.as_deref(), Some("2.5"));
        assert_eq!(
            e.output_price_per_million, None,
            "variable price is unknown"
        );
        assert_eq!(e.quantization, None);
        assert_eq!(e.uptime_percent.as_deref(), Some("100"));
        assert_eq!(e.latency_ms.as_deref(), Some("0.0000001"));
        assert_eq!(e.throughput_tokens_per_second.as_deref(), Some("95.12"));
    }

    #[test]
    fn decimals_follow_jsons_grammar_and_unholdable_sizes_are_out_of_range() {
        let raw: serde_json::Value = serde_json::from_str(
            r#"{"provider_name":"P","context_length":"1e40",
                "pricing":{"prompt":"1_0","completion":"99999999999999999999999999999999"},
                "uptime_last_30m":"+99","latency_last_30m":{"p50":"1e400"},
                "throughput_last_30m":{"p50":" 5"}}"#,
        )
        .expect("parses");
        let mut tally = EndpointTally::default();
        let e = supply_endpoint(&raw, &mut tally).expect("has a provider");
        assert_eq!(e.input_price_per_million, None, "1_0 is no price");
        let counts = |m: &str| {
            let c = tally.members[m];
            (c.wrong_type, c.out_of_range)
        };
        assert_eq!(counts("pricing.prompt"), (1, 0));
        assert_eq!(counts("uptime_last_30m"), (1, 0));
        assert_eq!(counts("throughput_last_30m.p50"), (1, 0));
        assert_eq!(counts("pricing.completion"), (0, 1));
        assert_eq!(counts("latency_last_30m.p50"), (0, 1));
        assert_eq!(counts("context_length"), (0, 1));
    }

    #[test]
    fn more_than_twelve_fractional_digits_round_half_to_even() {
        assert_eq!(
            plain(Decimal::from_str("0.0000000000005").expect("d")),
            Some("0".to_string())
        );
        assert_eq!(
            plain(Decimal::from_str("0.0000000000015").expect("d")),
            Some("0.000000000002".to_string())
        );
    }

    #[test]
    fn catalog_join_by_canonical_slug_and_suffix() {
        let entry = |id: &str, slug: &str, hf: Option<&str>| CatalogEntry {
            id: id.to_string(),
            canonical_slug: Some(slug.to_string()),
            hugging_face_id: hf.map(str::to_string),
        };
        let catalog = vec![
            entry("acme/m:free", "acme/m-2026", Some("")),
            entry("acme/m", "acme/m-2026", Some("acme/M")),
            entry("acme/m:thinking", "acme/m-2026", None),
            entry("other/n", "other/n", None),
        ];
        let free = join("acme/m-2026:free", &catalog, None);
        assert_eq!(free.route_ids, ["acme/m:free"]);
        assert_eq!(free.hugging_face_repo.as_deref(), Some("acme/M"));
        assert_eq!(join("acme/m-2026", &catalog, None).route_ids, ["acme/m"]);
        assert_eq!(route_type("acme/m:thinking"), RouteType::Thinking);
        assert_eq!(join("gone/x", &catalog, None), CatalogJoin::default());
        assert_eq!(
            join("acme-ai/m-2026", &catalog, Some("acme/m-2026")).route_ids,
            ["acme/m"],
            "a reviewed match joins a permaslug named differently"
        );
    }
}
