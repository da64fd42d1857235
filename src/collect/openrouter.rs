//! OpenRouter's three sources as they answer (rankings-daily, the model catalog, a route's
//! endpoints): raw response types, and pure conversions into demand days, catalog joins and
//! supply routes (DESIGN §9).
//!
//! The raw types accept members they do not name: a source adding a field must not stop the
//! nightly job. What the export needs is checked here and again by the gate.

use std::collections::BTreeMap;
use std::str::FromStr;

use rust_decimal::{Decimal, RoundingStrategy};
use serde::Deserialize;
use time::Date;

use crate::supply::RouteType;

/// The reserved permaslug of the aggregated long tail.
pub const OTHER: &str = "other";

/// `GET /api/v1/datasets/rankings-daily`.
#[derive(Debug, Deserialize)]
pub struct RankingsResponse {
    /// One row per (date, permaslug), `other` last within its date.
    pub data: Vec<RankingRow>,
    /// When the snapshot was taken, and the dates it covers.
    pub meta: RankingsMeta,
}

/// One row of rankings-daily.
#[derive(Debug, Deserialize)]
pub struct RankingRow {
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
pub enum TokenCount {
    /// `"123"`
    Text(String),
    /// `123`
    Number(u64),
}

/// `meta` of rankings-daily.
#[derive(Debug, Deserialize)]
pub struct RankingsMeta {
    /// RFC 3339 instant of the snapshot, published verbatim in the attribution.
    pub as_of: String,
}

/// One delivered day, as the export writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemandDay {
    /// The date.
    pub date: Date,
    /// The `other` row's total; `"0"` when the day has rows but no `other` row.
    pub other_tokens: Option<u128>,
    /// The non-`other` rows in source order: (model ID, tokens).
    pub rows: Vec<(String, u128)>,
}

/// Turns rankings rows into days: dates outside `[start, end]` are ignored (the source may
/// include the day in progress), a date with only an `other` row is an empty day, and a date
/// with no row at all is absent. Rows of zero tokens are dropped, as the source itself drops
/// them before ranking. A malformed row is an error naming it.
pub fn demand_days(rows: &[RankingRow], start: Date, end: Date) -> Result<Vec<DemandDay>, String> {
    // Per date: the `other` total when its row came, and the model rows.
    type Parts = (Option<u128>, Vec<(String, u128)>);
    let mut days: BTreeMap<Date, Parts> = BTreeMap::new();
    for (i, row) in rows.iter().enumerate() {
        let date = crate::validate::parse_date(&row.date)
            .ok_or_else(|| format!("data[{i}].date {:?} is not a date", row.date))?;
        if date < start || date > end {
            continue;
        }
        let tokens = match &row.total_tokens {
            TokenCount::Text(text) => crate::decimal::parse_canonical_uint(text),
            TokenCount::Number(n) => Some(u128::from(*n)),
        }
        .ok_or_else(|| format!("data[{i}].total_tokens is not a whole number"))?;
        let day = days.entry(date).or_insert((None, Vec::new()));
        if row.model_permaslug == OTHER {
            day.0 = Some(day.0.unwrap_or(0) + tokens);
        } else if tokens > 0 {
            day.1.push((row.model_permaslug.clone(), tokens));
        }
    }
    Ok(days
        .into_iter()
        .map(|(date, (other, rows))| DemandDay {
            date,
            // No `other` row on a day with rows: the long tail was empty (the source omits it).
            other_tokens: Some(other.unwrap_or(0)),
            rows,
        })
        .collect())
}

/// `GET /api/v1/models`.
#[derive(Debug, Deserialize)]
pub struct CatalogResponse {
    /// Every listed model.
    pub data: Vec<CatalogEntry>,
}

/// One catalog entry, with the members the join needs.
#[derive(Debug, Clone, Deserialize)]
pub struct CatalogEntry {
    /// The ID used in requests, variant suffix included (`openai/gpt-4o:free`).
    pub id: String,
    /// The permanent slug the rankings use (without variant).
    #[serde(default)]
    pub canonical_slug: Option<String>,
    /// The Hugging Face repository, `""` or null when none.
    #[serde(default)]
    pub hugging_face_id: Option<String>,
}

/// The `:variant` suffix of an ID (text after the first `:`), if any.
pub fn variant(id: &str) -> Option<&str> {
    id.split_once(':').map(|(_, v)| v)
}

/// The release ID: the model ID without its `:variant` suffix.
pub fn release_id(model_id: &str) -> &str {
    model_id.split_once(':').map_or(model_id, |(base, _)| base)
}

/// A demand model's place in the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CatalogJoin {
    /// Catalog IDs of the model's route entries, in catalog order.
    pub route_ids: Vec<String>,
    /// The release's Hugging Face repository, when the catalog names one.
    pub hugging_face_repo: Option<String>,
}

/// Joins a demand model with the catalog (DESIGN §9): its release's entries are those whose
/// `canonical_slug` equals the release ID; route entries carry the model's variant suffix; the
/// repository is the non-empty `hugging_face_id` of the release's suffix-less entry, else the
/// first non-empty one among the release's entries.
pub fn join(model_id: &str, catalog: &[CatalogEntry]) -> CatalogJoin {
    let release = release_id(model_id);
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
    }
}

/// The route type a catalog ID's suffix names.
pub fn route_type(route_id: &str) -> RouteType {
    match variant(route_id) {
        Some("free") => RouteType::Free,
        Some("batch") => RouteType::Batch,
        Some("thinking") => RouteType::Thinking,
        _ => RouteType::Paid,
    }
}

/// `GET /api/v1/models/{author}/{slug}/endpoints`.
#[derive(Debug, Deserialize)]
pub struct EndpointsResponse {
    /// The route and its endpoints.
    pub data: EndpointsData,
}

/// `data` of the endpoints answer.
#[derive(Debug, Deserialize)]
pub struct EndpointsData {
    /// One entry per provider endpoint.
    pub endpoints: Vec<RawEndpoint>,
}

/// One endpoint as the source sends it; every member may be missing or null.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawEndpoint {
    /// The provider's display name.
    pub provider_name: Option<String>,
    /// The provider's tag, used when the name is missing.
    pub tag: Option<String>,
    /// Quantization name, `unknown` when the provider did not say.
    pub quantization: Option<String>,
    /// Context window in tokens.
    pub context_length: Option<serde_json::Number>,
    /// Prices per token.
    pub pricing: Option<RawPricing>,
    /// Uptime over 30 minutes, percent.
    pub uptime_last_30m: Option<serde_json::Number>,
    /// Latency percentiles over 30 minutes.
    pub latency_last_30m: Option<Percentiles>,
    /// Throughput percentiles over 30 minutes.
    pub throughput_last_30m: Option<Percentiles>,
}

/// Prices as decimal strings, USD per token.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawPricing {
    /// Input.
    pub prompt: Option<serde_json::Value>,
    /// Output.
    pub completion: Option<serde_json::Value>,
}

/// Percentiles of a 30-minute measure.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Percentiles {
    /// The median.
    pub p50: Option<serde_json::Number>,
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

/// Maps one endpoint (DESIGN §9); `None` when it names no provider at all. A value the gate
/// could not accept (negative, such as a `-1` "variable" price, past the digit bounds, uptime
/// over 100) becomes null: unknown, never a made-up number.
pub fn supply_endpoint(raw: &RawEndpoint) -> Option<SupplyEndpoint> {
    fn named(v: &Option<String>) -> Option<&str> {
        v.as_deref().map(str::trim).filter(|s| !s.is_empty())
    }
    let provider = named(&raw.provider_name).or(named(&raw.tag))?.to_string();
    let quantization = named(&raw.quantization)
        .filter(|q| *q != "unknown")
        .map(str::to_string);
    let context_length = raw
        .context_length
        .as_ref()
        .and_then(serde_json::Number::as_u64)
        .filter(|n| *n > 0 && *n <= i64::MAX as u64);
    let price = |v: &Option<serde_json::Value>| {
        let text = match v.as_ref()? {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            _ => return None,
        };
        let per_token = parse_decimal(&text)?;
        plain(per_token.checked_mul(Decimal::from(1_000_000))?)
    };
    let pricing = raw.pricing.as_ref();
    let number = |n: Option<&serde_json::Number>| plain(parse_decimal(&n?.to_string())?);
    Some(SupplyEndpoint {
        provider,
        quantization,
        context_length,
        input_price_per_million: pricing.and_then(|p| price(&p.prompt)),
        output_price_per_million: pricing.and_then(|p| price(&p.completion)),
        latency_ms: number(raw.latency_last_30m.as_ref().and_then(|l| l.p50.as_ref())),
        throughput_tokens_per_second: number(
            raw.throughput_last_30m
                .as_ref()
                .and_then(|t| t.p50.as_ref()),
        ),
        uptime_percent: number(raw.uptime_last_30m.as_ref())
            .filter(|u| parse_decimal(u).is_some_and(|d| d <= Decimal::from(100))),
    })
}

/// Parses a decimal as the sources write it: plain (`"0.0000025"`) or, for JSON numbers in
/// their shortest round-trip form, with an exponent (`1e-7`).
fn parse_decimal(text: &str) -> Option<Decimal> {
    let text = text.trim();
    if text.contains(['e', 'E']) {
        Decimal::from_scientific(text).ok()
    } else {
        Decimal::from_str_exact(text)
            .ok()
            .or_else(|| Decimal::from_str(text).ok())
    }
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
        crate::validate::parse_date(text).expect("date")
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
        let days = demand_days(&rows, date("2026-11-01"), date("2026-11-05")).expect("rows");
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
    fn a_malformed_count_is_an_error() {
        let rows = [row("2026-11-01", "a/x", "1.5")];
        assert!(demand_days(&rows, date("2026-11-01"), date("2026-11-01")).is_err());
    }

    #[test]
    fn prices_shift_six_places_exactly_and_numbers_lose_their_exponent() {
        let raw: RawEndpoint = serde_json::from_str(
            r#"{"provider_name":"P","quantization":"unknown","context_length":131072,
                "pricing":{"prompt":"0.0000025","completion":"-1"},
                "uptime_last_30m":100.0,"latency_last_30m":{"p50":1e-7},
                "throughput_last_30m":{"p50":95.1200}}"#,
        )
        .expect("parses");
        let e = supply_endpoint(&raw).expect("has a provider");
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
        let free = join("acme/m-2026:free", &catalog);
        assert_eq!(free.route_ids, ["acme/m:free"]);
        assert_eq!(free.hugging_face_repo.as_deref(), Some("acme/M"));
        assert_eq!(join("acme/m-2026", &catalog).route_ids, ["acme/m"]);
        assert_eq!(route_type("acme/m:thinking"), RouteType::Thinking);
        assert_eq!(join("gone/x", &catalog), CatalogJoin::default());
    }
}
