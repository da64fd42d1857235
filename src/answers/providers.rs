//! Who serves a model: the answers of the MCP tool `get_providers`, precomputed per served
//! model like [`crate::answers::history`], so every transport (stdio, the preview server's
//! `/mcp`, the edge function) serves a file. Each lists the endpoints of the model's current
//! route in the latest supply collection (the route `supply.state` reads, by the same rules):
//! provider, quantization, context length, prices, latency, throughput and uptime, the cheapest
//! first; a value a provider did not report is null with the reason, never zero. The docs page
//! names the providers in the same order ([`cheapest_first`]).
//!
//! The file's name is the SHA-256 of the model ID, as the model files' are.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::base::decimal::plain;
use crate::input::supply::{Endpoint, Supply, SupplyRoute};
use crate::records::{current_route, reason, Freshness, Head};

/// The directory of the providers files.
pub const PROVIDERS_DIR: &str = "_api/providers";
/// The providers document's schema name and version.
pub const SCHEMA_VERSION: &str = "model-demand.providers.v1";
/// Why an endpoint's value is null.
pub const NOT_REPORTED: &str = "not_reported_by_provider";
/// The order of the endpoints, in words (the document says it; the page follows it).
pub const ORDER: &str = "cheapest first: by input price, then output price (a price not reported comes after every reported one), then provider and quantization; the supply feed's order breaks what is left";

/// Site-relative path of a model's providers file.
pub fn providers_file(model_id: &str) -> String {
    format!("{PROVIDERS_DIR}/{}.json", crate::query::model_key(model_id))
}

/// The endpoints of `route`, the cheapest first ([`ORDER`]).
pub fn cheapest_first(route: &SupplyRoute) -> Vec<&Endpoint> {
    let mut endpoints: Vec<&Endpoint> = route.endpoints.iter().collect();
    // A stable sort: the feed's order breaks the remaining ties.
    endpoints.sort_by(|a, b| {
        known_first(a.input_price_per_million, b.input_price_per_million)
            .then_with(|| known_first(a.output_price_per_million, b.output_price_per_million))
            .then_with(|| a.provider.cmp(&b.provider))
            .then_with(|| a.quantization.cmp(&b.quantization))
    });
    endpoints
}

/// Known values in ascending order, then the unknown ones.
fn known_first<T: Ord>(a: Option<T>, b: Option<T>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// A model's providers, as the file holds them.
#[derive(Debug, Serialize)]
struct Providers<'a> {
    schema_version: &'static str,
    model_id: &'a str,
    generated_at: &'a str,
    evaluation_cutoff: &'a str,
    freshness: &'a Freshness,
    supply: Current,
    /// The terms the supply data falls under (it has no licence of its own).
    supply_terms_url: &'static str,
    order: &'static str,
    units: BTreeMap<&'static str, &'static str>,
    null_value_reason: &'static str,
    endpoints: Vec<EndpointEntry>,
}

/// The current route in the latest collection, or why there is none to read.
#[derive(Debug, Serialize)]
struct Current {
    /// `available`, or the supply state that says why no endpoint is listed.
    state: &'static str,
    reason: Option<&'static str>,
    collection_finished_at: Option<String>,
    route_id: Option<String>,
    route_type: Option<&'static str>,
    listed_endpoints: Option<usize>,
    listed_providers: Option<usize>,
}

/// One endpoint: what its provider lists, a null where it lists nothing.
#[derive(Debug, Serialize)]
struct EndpointEntry {
    provider: String,
    quantization: Option<String>,
    context_length: Option<u64>,
    input_price_per_million: Option<String>,
    output_price_per_million: Option<String>,
    latency_ms: Option<String>,
    throughput_tokens_per_second: Option<String>,
    uptime_percent: Option<String>,
}

/// The providers file's bytes of `model_id` (compact JSON), from the latest collection of
/// `supply`, under the response head `head`.
pub fn body(supply: Option<&Supply>, head: &Head, model_id: &str) -> Vec<u8> {
    let latest = supply.and_then(|s| s.collections.last());
    let unavailable = |state: &'static str, why: &'static str| Current {
        state,
        reason: Some(why),
        collection_finished_at: latest.map(|c| c.finished_at.as_str().to_string()),
        route_id: None,
        route_type: None,
        listed_endpoints: None,
        listed_providers: None,
    };
    let (current, endpoints) = match latest.map(|c| (c, current_route(c, model_id))) {
        None => (
            unavailable("not_collected", reason::SUPPLY_NOT_COLLECTED),
            Vec::new(),
        ),
        Some((_, Err((state, why)))) => (unavailable(state, why), Vec::new()),
        Some((collection, Ok(route))) => {
            let providers: std::collections::BTreeSet<&str> = route
                .endpoints
                .iter()
                .map(|e| e.provider.as_str())
                .collect();
            let current = Current {
                state: "available",
                reason: None,
                collection_finished_at: Some(collection.finished_at.as_str().to_string()),
                route_id: Some(route.route_id.clone()),
                route_type: Some(route.route_type.as_str()),
                listed_endpoints: Some(route.endpoints.len()),
                listed_providers: Some(providers.len()),
            };
            let entries = cheapest_first(route)
                .into_iter()
                .map(|e| EndpointEntry {
                    provider: e.provider.clone(),
                    quantization: e.quantization.clone(),
                    context_length: e.context_length,
                    input_price_per_million: e.input_price_per_million.map(plain),
                    output_price_per_million: e.output_price_per_million.map(plain),
                    latency_ms: e.latency_ms.map(plain),
                    throughput_tokens_per_second: e.throughput_tokens_per_second.map(plain),
                    uptime_percent: e.uptime_percent.map(plain),
                })
                .collect();
            (current, entries)
        }
    };
    crate::answers::render::to_json(&Providers {
        schema_version: SCHEMA_VERSION,
        model_id,
        generated_at: &head.generated_at,
        evaluation_cutoff: &head.evaluation_cutoff,
        freshness: &head.freshness,
        supply: current,
        supply_terms_url: crate::input::sources::SUPPLY_SOURCE.terms_url,
        order: ORDER,
        units: BTreeMap::from([
            ("context_length", "tokens"),
            ("input_price_per_million", "usd_per_million_tokens"),
            ("output_price_per_million", "usd_per_million_tokens"),
            ("latency_ms", "milliseconds"),
            ("throughput_tokens_per_second", "tokens_per_second"),
            ("uptime_percent", "percent"),
        ]),
        null_value_reason: NOT_REPORTED,
        endpoints,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::supply::RouteType;
    use rust_decimal::Decimal;

    fn endpoint(provider: &str, input: Option<i64>, output: Option<i64>) -> Endpoint {
        Endpoint {
            provider: provider.to_string(),
            quantization: None,
            context_length: None,
            input_price_per_million: input.map(Decimal::from),
            output_price_per_million: output.map(Decimal::from),
            latency_ms: None,
            throughput_tokens_per_second: None,
            uptime_percent: None,
        }
    }

    #[test]
    fn the_cheapest_come_first_and_unknown_prices_last() {
        let route = SupplyRoute {
            route_id: "a/b".to_string(),
            model_id: "a/b".to_string(),
            route_type: RouteType::Paid,
            failed: false,
            endpoints: vec![
                endpoint("z", None, Some(1)),
                endpoint("y", Some(3), Some(9)),
                endpoint("x", Some(3), Some(2)),
                endpoint("w", Some(1), None),
                endpoint("v", None, None),
            ],
        };
        let names: Vec<&str> = cheapest_first(&route)
            .iter()
            .map(|e| e.provider.as_str())
            .collect();
        assert_eq!(names, ["w", "x", "y", "z", "v"]);
    }
}
