//! `supply.csv`: one row per (collection, route, listed endpoint) of the supply feed, the
//! endpoints the model records' supply summaries are the medians of. A failed collection and a
//! route that could not be collected list no endpoint, so they have no row.

use serde_json::Value;

use super::csv::{CsvWriter, Written};
use super::schema::{Column, ColumnType, TableSpec};
use crate::base::decimal::plain;
use crate::input::supply::{RouteType, Supply};

/// The columns of `supply.csv`.
fn columns() -> Vec<Column> {
    let mut route_id = Column::new(
        "route_id",
        ColumnType::String,
        true,
        "Exact public route ID (the catalog entry's ID, variant included); a model's supply \
summary in models.csv is its current route's, by route_id and collection_finished_at.",
    );
    route_id.pattern = Some(crate::answers::fields::MODEL_ID);
    let mut model_id = Column::new(
        "model_id",
        ColumnType::String,
        true,
        "The demand model the route serves (models.csv model_id, when the window serves it).",
    );
    model_id.pattern = Some(crate::answers::fields::MODEL_ID);
    let mut route_type = Column::new(
        "route_type",
        ColumnType::String,
        true,
        "paid, free, batch or thinking.",
    );
    route_type.allowed = Some(RouteType::ALL.iter().map(|r| r.as_str()).collect());
    let mut endpoint_index = Column::new(
        "endpoint_index",
        ColumnType::Integer,
        true,
        "Place of the endpoint in its route's list, from 0 (the supply feed's order). Two \
endpoints of one provider are two rows.",
    );
    endpoint_index.range = Some((0, u64::from(u32::MAX)));
    let decimal = |name: &str, what: &str| {
        Column::new(
            name,
            ColumnType::Number,
            false,
            &format!(
                "{what} Written in plain form (no trailing fractional zeros), as the API writes \
every supply decimal. Empty when the provider did not report it."
            ),
        )
    };
    vec![
        Column::new(
            "collection_finished_at",
            ColumnType::Datetime,
            true,
            "UTC time the supply collection finished: the collection's identity.",
        ),
        route_id,
        model_id,
        route_type,
        endpoint_index,
        Column::new(
            "provider",
            ColumnType::String,
            true,
            "Provider name as the supply source lists it.",
        ),
        Column::new(
            "quantization",
            ColumnType::String,
            false,
            "Quantization the provider lists (for example fp8). Empty when not listed.",
        ),
        Column::new(
            "context_length",
            ColumnType::Integer,
            false,
            "Context length the provider lists. Unit: tokens. Empty when not listed.",
        ),
        decimal(
            "input_price_per_million",
            "Input price. Unit: usd_per_million_tokens (US dollars per million tokens).",
        ),
        decimal(
            "output_price_per_million",
            "Output price. Unit: usd_per_million_tokens (US dollars per million tokens).",
        ),
        decimal(
            "latency_ms",
            "Latency (median of the last 30 minutes at collection). Unit: milliseconds.",
        ),
        decimal(
            "throughput_tokens_per_second",
            "Throughput (median of the last 30 minutes at collection). Unit: tokens_per_second.",
        ),
        decimal(
            "uptime_percent",
            "Uptime over the last 30 minutes at collection. Unit: percent (0 to 100).",
        ),
    ]
}

/// The table's description, keys and sources.
pub(crate) fn spec(sources: Vec<Value>) -> TableSpec {
    TableSpec {
        name: "supply",
        title: "Supply endpoints",
        description: "One row per (collection, route, listed endpoint) of the supply feed \
(/api/supply), every collection it keeps: the endpoints whose medians make each model's supply \
summary. A failed collection, and a route that could not be collected, list no endpoint and \
have no row (the feed and models.csv's supply_state say so). An empty cell is unknown, never \
zero. Source: OpenRouter's catalog and endpoints, under OpenRouter's terms (no licence)."
            .to_string(),
        columns: columns(),
        primary_key: &["collection_finished_at", "route_id", "endpoint_index"],
        foreign_keys: Vec::new(),
        demand_only: false,
        sources,
    }
}

/// `supply.csv`: by collection (oldest first), route ID, then the endpoint's place.
pub(crate) fn supply_csv(spec: &TableSpec, supply: Option<&Supply>) -> Written {
    let mut csv = CsvWriter::new(&spec.columns);
    let collections = supply.map_or(&[][..], |s| s.collections.as_slice());
    for collection in collections {
        let finished_at = collection.finished_at.as_str();
        let mut routes: Vec<_> = collection.routes.iter().collect();
        routes.sort_by(|a, b| a.route_id.cmp(&b.route_id));
        for route in routes {
            for (index, endpoint) in route.endpoints.iter().enumerate() {
                let index = index.to_string();
                let context = endpoint.context_length.map(|c| c.to_string());
                let decimals = [
                    endpoint.input_price_per_million,
                    endpoint.output_price_per_million,
                    endpoint.latency_ms,
                    endpoint.throughput_tokens_per_second,
                    endpoint.uptime_percent,
                ]
                .map(|value| value.map(plain));
                let mut cells = vec![
                    Some(finished_at),
                    Some(route.route_id.as_str()),
                    Some(route.model_id.as_str()),
                    Some(route.route_type.as_str()),
                    Some(index.as_str()),
                    Some(endpoint.provider.as_str()),
                    endpoint.quantization.as_deref(),
                    context.as_deref(),
                ];
                cells.extend(decimals.iter().map(|d| d.as_deref()));
                csv.row(cells);
            }
        }
    }
    csv.finish()
}
