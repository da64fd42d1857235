//! The flat tables under `/api/tables/` (issue 42): the model records, the daily demand, the
//! source days and the supply endpoints as UTF-8 CSV, described by a Frictionless Data Package
//! (`datapackage.json`). The build writes them beside the feeds from the records and
//! derivations the API is made of; `verify` makes them again from the site's own feeds.
//! They are other addresses, like the feeds: outside `/api/v1/about`.

mod csv;
mod demand;
mod models;
pub(crate) mod open_weights;
mod parquet;
mod schema;
mod supply;

use serde_json::{json, Value};

use crate::answers::render::to_json;
use crate::input::sources::{
    SourceInfo, DEMAND_LICENSE, DEMAND_SOURCE, MODEL_SOURCE, SUPPLY_SOURCE,
};
use crate::input::Inputs;
use crate::records::ServedModels;
use csv::Written;
use schema::TableSpec;

pub(crate) use demand::calendar;

/// The site directory of the tables.
pub const TABLES_DIR: &str = "api/tables";
/// The data package's public address.
pub const DATAPACKAGE_PATH: &str = "/api/tables/datapackage.json";
/// The CSV files' public addresses, in the package's order; each is `/api/tables/NAME.csv`.
pub const CSV_PATHS: [&str; 4] = [
    "/api/tables/models.csv",
    "/api/tables/daily.csv",
    "/api/tables/days.csv",
    "/api/tables/supply.csv",
];

/// The Parquet twins' public addresses, in the package's order: `/api/tables/NAME.parquet`
/// beside each CSV file, the same rows and columns, typed.
pub const PARQUET_PATHS: [&str; 4] = [
    "/api/tables/models.parquet",
    "/api/tables/daily.parquet",
    "/api/tables/days.parquet",
    "/api/tables/supply.parquet",
];

/// The Parquet twins' media type.
pub const PARQUET_MEDIA_TYPE: &str = "application/vnd.apache.parquet";

/// What each address of the tables holds, in one line (the OpenAPI document's summaries and
/// `/llms.txt`'s list), by public address: the package first, then [`CSV_PATHS`].
pub const SUMMARIES: [(&str, &str); 5] = [
    (
        DATAPACKAGE_PATH,
        "The Frictionless Data Package describing the four tables: columns, types, units, keys, sources, licences and attribution",
    ),
    (
        CSV_PATHS[0],
        "One row per served model: every value of its record (demand, trend, facts, supply), with each value's state and reason",
    ),
    (
        CSV_PATHS[1],
        "One row per (date, model) of the export's whole history: rank, tokens and share of that day's market",
    ),
    (
        CSV_PATHS[2],
        "One row per date of the history: delivered or not, rows, the source's remainder and the market total",
    ),
    (
        CSV_PATHS[3],
        "One row per (supply collection, route, listed endpoint): provider, prices, latency, throughput, uptime, context length, quantization",
    ),
];

/// A source as a data package names it: title and address, with its terms and licence as the
/// contract document states them.
fn source(role: &str, info: &SourceInfo) -> Value {
    json!({
        "title": format!("{} ({role})", info.name),
        "path": info.url,
        "terms_url": info.terms_url,
        "license": info.license,
    })
}

/// Every table, in the package's order ([`CSV_PATHS`]).
fn specs(catalog: &ServedModels, model_columns: &[models::ModelColumn]) -> Vec<TableSpec> {
    let demand = source("demand", &DEMAND_SOURCE);
    let facts = source("model facts", &MODEL_SOURCE);
    let supply = source("supply", &SUPPLY_SOURCE);
    let [daily, days] = demand::specs(&catalog.head.source.attribution, vec![demand.clone()]);
    vec![
        models::spec(model_columns, vec![demand, facts, supply.clone()]),
        daily,
        days,
        supply::spec(vec![supply]),
    ]
}

/// `datapackage.json`: every table's schema, its sources and, for demand tables, the licence.
fn datapackage(catalog: &ServedModels, specs: &[TableSpec], written: &[Written]) -> Vec<u8> {
    let head = &catalog.head;
    let resources: Vec<Value> = specs
        .iter()
        .zip(written)
        .map(|(spec, written)| {
            let types = parquet::physical_types(&spec.columns, &written.rows);
            let types: serde_json::Map<String, Value> = spec
                .columns
                .iter()
                .zip(types)
                .map(|(column, physical)| (column.name.clone(), json!(physical.name())))
                .collect();
            let mut resource = json!({
                "name": spec.name,
                "path": spec.file_name(),
                "profile": "tabular-data-resource",
                "title": spec.title,
                "description": spec.description,
                "format": "csv",
                "mediatype": "text/csv",
                "encoding": "utf-8",
                "dialect": {"delimiter": ",", "lineTerminator": "\n", "quoteChar": "\"", "doubleQuote": true, "header": true},
                "sources": spec.sources,
                "schema": spec.schema(),
                "parquet": {
                    "path": spec.parquet_name(),
                    "format": "parquet",
                    "mediatype": PARQUET_MEDIA_TYPE,
                    "description": "The same rows and columns in Parquet, each column typed in the file (so a column whose values are all unknown keeps its type): one row group, uncompressed, every column nullable (an unknown value is a null, never zero); text exactly as the source gave it (no apostrophe). types gives each column's Parquet type; decimals are exact DECIMAL(38, scale).",
                    "types": types,
                },
            });
            if spec.demand_only {
                resource["licenses"] = json!([{
                    "name": DEMAND_LICENSE.id,
                    "path": DEMAND_LICENSE.url,
                    "title": head.source.license,
                }]);
            }
            resource
        })
        .collect();
    let package = json!({
        "profile": "tabular-data-package",
        "name": "model-demand-tables",
        "title": "model-demand: demand for AI models, as flat tables",
        "description": format!(
            "The records of /api/v1/models, the export's daily demand history and the supply \
    feed's endpoints as CSV (UTF-8, a header row, LF line ends, RFC 4180 quoting), from the same \
    derivations as the API; beside each CSV file, its Parquet twin (NAME.parquet) of the same rows \
    and columns, typed in the file (integers INT64, decimals exact DECIMAL, dates DATE, booleans \
    BOOLEAN): each resource's parquet member names it. An empty cell is unknown, never zero: beside each value that can be \
    unknown, its _state and _reason columns say why. Decimals are the API's exact strings. A text \
    cell that would begin with =, +, -, @, a tab or a carriage return (a provider name or a \
    quantization label is free text from the source) is written with a leading apostrophe, so a \
    spreadsheet shows it as text instead of running it as a formula (OWASP, CSV injection), and a \
    text value beginning with an apostrophe gets one more: a text cell that begins with ' holds \
    the value without that one apostrophe. Numbers are never changed (a negative number stays \
    one), and the API and the feeds keep every exact value. Window \
    {} to {}; export generated {}, evaluation cutoff {}. The API does not identify underserved \
    models: demand or missing data does not prove a supply opportunity. Demand data: {} (CC BY \
    4.0); attribution: {}",
            head.window.start_date,
            head.window.end_date,
            head.generated_at,
            head.evaluation_cutoff,
            head.source.name,
            head.source.attribution,
        ),
        "created": head.generated_at,
        "sources": [
            source("demand", &DEMAND_SOURCE),
            source("model facts", &MODEL_SOURCE),
            source("supply", &SUPPLY_SOURCE),
        ],
        "attribution": head.source.attribution,
        "states": open_weights::states(),
        "resources": resources,
    });
    to_json(&package)
}

/// The tables' files (site-relative path and bytes): the package, then each CSV file. The
/// same inputs give the same bytes.
pub fn files(inputs: &Inputs, catalog: &ServedModels) -> Vec<(String, Vec<u8>)> {
    let model_columns = models::columns();
    let specs = specs(catalog, &model_columns);
    let written: Vec<Written> = specs
        .iter()
        .map(|spec| match spec.name {
            "models" => models::models_csv(spec, &model_columns, &catalog.records),
            "daily" => demand::daily_csv(spec, &inputs.export),
            "days" => demand::days_csv(spec, &inputs.export),
            _ => supply::supply_csv(spec, inputs.supply.as_ref()),
        })
        .collect();
    let mut files = vec![(
        format!("{TABLES_DIR}/datapackage.json"),
        datapackage(catalog, &specs, &written),
    )];
    let created_by = concat!("model-demand ", env!("CARGO_PKG_VERSION"));
    for (spec, written) in specs.iter().zip(written) {
        let twin = parquet::write(&spec.columns, &written.rows, created_by);
        files.push((format!("{TABLES_DIR}/{}", spec.file_name()), written.csv));
        files.push((format!("{TABLES_DIR}/{}", spec.parquet_name()), twin));
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_address_is_a_file_of_the_tables_directory() {
        assert_eq!(DATAPACKAGE_PATH, format!("/{TABLES_DIR}/datapackage.json"));
        for (path, name) in CSV_PATHS.iter().zip(["models", "daily", "days", "supply"]) {
            assert_eq!(*path, format!("/{TABLES_DIR}/{name}.csv"));
        }
        for (path, csv) in PARQUET_PATHS.iter().zip(CSV_PATHS) {
            assert_eq!(
                Some(*path),
                csv.strip_suffix(".csv")
                    .map(|p| format!("{p}.parquet"))
                    .as_deref()
            );
        }
        let summarized: Vec<&str> = SUMMARIES.iter().map(|(path, _)| *path).collect();
        assert_eq!(summarized[0], DATAPACKAGE_PATH);
        assert_eq!(summarized[1..], CSV_PATHS);
    }
}
