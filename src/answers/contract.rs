//! The contract: `/api/v1/about` (spec 2.7) and `/api/openapi.json` (OpenAPI 3.1), both built
//! from the field table of `fields.rs` and the query definition of `query/`. Neither loads
//! model data; only the supply launch state and the links depend on the build.

use serde_json::{json, Map, Value};

use crate::answers::fields::{self, Field, Kind, Rule};
use crate::answers::render::{to_json, ErrorCode};
use crate::answers::tables;
use crate::input::export::Availability;
use crate::input::sources::{SourceInfo, DEMAND_SOURCE, MODEL_SOURCE};
use crate::query::{self, Order, SortKey, PARAMETERS};
use crate::records::{API_SCHEMA_VERSION, SUPPLY_STATES};

/// Schema tag of the contract document.
pub const ABOUT_SCHEMA_VERSION: &str = "model-demand.agent-about.v1";
/// Date of this documentation; bump it when the contract's text changes.
pub const DOCUMENTATION_VERSION: &str = "2026-11-23";

/// Where the documentation lives: the site's own docs page unless `--docs-url` names a host.
pub fn documentation_url(base_url: &str, docs_url: Option<&str>) -> String {
    docs_url.map_or_else(
        || format!("{}/docs/", base_url.trim_end_matches('/')),
        str::to_string,
    )
}

/// The agent instruction that sends a client of the HTTP API to the feeds for histories: the
/// MCP server's instructions put the tools and tables that answer it in its place
/// ([`crate::answers::catalogue::instructions`]), since no tool reads the feeds.
pub const FEEDS_INSTRUCTION: &str = "Use the full export (links.full_export) for daily demand history and the supply feed (/api/supply) for supply history.";

/// The agent instructions of spec 2.7.
pub const AGENT_INSTRUCTIONS: [&str; 8] = [
    "Read this contract before querying models.",
    "Treat the demand source and the model-repository source as separate sources.",
    "Use only fields this contract defines.",
    "Keep unavailable values as unknown: a null value is never zero, and must not be replaced with a number.",
    "Report generated_at, evaluation_cutoff, the window, freshness (state and reason) and the source limits with any result; check freshness.state before reporting.",
    FEEDS_INSTRUCTION,
    "Do not infer that any model is underserved: demand or missing data does not prove a supply opportunity.",
    "Give the attribution in source.attribution wherever demand data is reused (CC BY 4.0).",
];

/// The query parameters as the about document lists them.
fn query_parameters() -> Value {
    let sorts = SortKey::names();
    let orders = Order::names();
    json!([
        {"name": "model_id", "type": "string", "required": false, "default": null, "allowed_values": null,
         "description": "Exact model ID, URL-encoded (IDs contain / and : which must be encoded as %2F and %3A). Selects exact_model mode and cannot be combined with sort, order, limit or offset; an ID not served in the window gives 404 model_not_found."},
        {"name": "sort", "type": "string", "required": false, "default": SortKey::DEFAULT.as_str(), "allowed_values": sorts,
         "description": "List sort field. Models whose value is unavailable come after all available ones in both orders; ties and the unavailable tail are ordered by model_id ascending."},
        {"name": "order", "type": "string", "required": false, "default": Order::DEFAULT.as_str(), "allowed_values": orders,
         "description": "List sort order."},
        {"name": "limit", "type": "integer", "required": false, "default": query::LIMIT_DEFAULT, "allowed_values": null,
         "description": format!("Page size, {} to {}, written in plain digits (no sign, no leading zeros).", query::LIMIT_MIN, query::LIMIT_MAX)},
        {"name": "offset", "type": "integer", "required": false, "default": 0, "allowed_values": null,
         "description": format!("Models to skip, 0 to {}, in plain digits. An offset past the end returns 200 with an empty page. Each parameter may appear at most once; unknown, repeated or empty parameters give 400 invalid_query.", query::OFFSET_MAX)},
    ])
}

fn source_entry(source: &SourceInfo) -> Value {
    json!({
        "name": source.name,
        "url": source.url,
        "terms_url": source.terms_url,
        "license": source.license,
        "limit_note": source.limit_note,
    })
}

fn field_definitions() -> Value {
    let defs: Vec<Value> = fields::model_response_fields()
        .iter()
        .map(|f| {
            json!({
                "path": f.path,
                "type": f.kind.as_str(),
                "unit": f.unit,
                "nullable": f.nullable,
                "description": f.description,
            })
        })
        .collect();
    Value::Array(defs)
}

/// The `/api/v1/about` document as a JSON value.
pub fn about(base_url: &str, docs_url: Option<&str>, supply_enabled: bool) -> Value {
    let base = base_url.trim_end_matches('/');
    let launch_state = if supply_enabled {
        "enabled"
    } else {
        "not_collected"
    };
    json!({
        "schema_version": ABOUT_SCHEMA_VERSION,
        "api_schema_version": API_SCHEMA_VERSION,
        "documentation_version": DOCUMENTATION_VERSION,
        "routes": [
            {"method": "GET", "path": "/api/v1/about",
             "description": "This contract document: static, loads no model data."},
            {"method": "GET", "path": "/api/v1/models",
             "description": "Ranked model records with demand, facts and supply for the current 30-day window, or one model by exact model_id. Errors are JSON: 400 invalid_query, 404 model_not_found, 503 data_unavailable."},
        ],
        "query_parameters": query_parameters(),
        "field_definitions": field_definitions(),
        "availability_states": Availability::ALL.iter().map(|s| json!({"state": s.as_str(), "meaning": s.meaning()})).collect::<Vec<_>>(),
        "sources": [source_entry(&DEMAND_SOURCE), source_entry(&MODEL_SOURCE)],
        "supply": {
            "launch_state": launch_state,
            "states": SUPPLY_STATES,
            "description": "Supply of each model's current route in the latest collection of public provider listings: not_collected when this build had no supply feed, temporarily_unavailable when the latest collection failed (reason latest_collection_failed) or when only the model's current route could not be collected in it (reason route_collection_failed), current_route_not_found or current_route_ambiguous when no single route serves the model, else available with a summary (endpoint and provider counts, exact medians of price, latency, throughput and uptime, maximum context, quantizations). Supply history is in the supply feed, outside this schema.",
        },
        "links": {
            "documentation": documentation_url(base, docs_url),
            "openapi": format!("{base}/api/openapi.json"),
            "full_export": format!("{base}/api/export"),
        },
        "agent_instructions": AGENT_INSTRUCTIONS,
    })
}

/// The JSON Schema of one field and, for objects and arrays, of its members or items.
fn schema_of(path: &str, table: &[Field]) -> Value {
    let field = table.iter().find(|f| f.path == path);
    let (kind, nullable, rule, description) = match field {
        Some(f) => (
            f.kind,
            f.nullable,
            f.rule.clone(),
            Some(f.description.clone()),
        ),
        None => (Kind::Object, false, Rule::Any, None), // the root
    };
    let mut schema = Map::new();
    let type_name = json!(kind.as_str());
    schema.insert(
        "type".into(),
        if nullable {
            json!([kind.as_str(), "null"])
        } else {
            type_name
        },
    );
    if let Some(d) = description {
        schema.insert("description".into(), json!(d));
    }
    match rule {
        Rule::Any => {}
        Rule::OneOf(values) => {
            let mut values: Vec<Value> = values.into_iter().map(Value::from).collect();
            if nullable {
                values.push(Value::Null);
            }
            schema.insert("enum".into(), Value::Array(values));
        }
        Rule::Pattern(p) => {
            schema.insert("pattern".into(), json!(p));
        }
        Rule::Range(min, max) => {
            schema.insert("minimum".into(), json!(min));
            schema.insert("maximum".into(), json!(max));
        }
    }
    match kind {
        Kind::Object => {
            let prefix = if path.is_empty() {
                String::new()
            } else {
                format!("{path}.")
            };
            let members: Vec<&Field> = table
                .iter()
                .filter(|f| {
                    f.path
                        .strip_prefix(&prefix)
                        .is_some_and(|rest| !rest.contains('.') && !rest.ends_with("[]"))
                })
                .collect();
            let mut properties = Map::new();
            for member in &members {
                let name = &member.path[prefix.len()..];
                properties.insert(name.to_string(), schema_of(&member.path, table));
            }
            schema.insert(
                "required".into(),
                Value::Array(
                    members
                        .iter()
                        .map(|m| json!(&m.path[prefix.len()..]))
                        .collect(),
                ),
            );
            schema.insert("properties".into(), Value::Object(properties));
            schema.insert("additionalProperties".into(), json!(false));
        }
        Kind::Array => {
            schema.insert("items".into(), schema_of(&format!("{path}[]"), table));
        }
        _ => {}
    }
    Value::Object(schema)
}

/// The strict JSON Schema of the about document (spec 2.7).
fn about_schema() -> Value {
    let strict = |properties: Value, required: &[&str]| json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false});
    let text = json!({"type": "string", "minLength": 1});
    let uri = json!({"type": "string", "format": "uri", "pattern": "^https?://"});
    let names: Vec<&str> = PARAMETERS.to_vec();
    let states: Vec<&str> = Availability::ALL.iter().map(|s| s.as_str()).collect();
    strict(
        json!({
            "schema_version": {"const": ABOUT_SCHEMA_VERSION},
            "api_schema_version": {"const": API_SCHEMA_VERSION},
            "documentation_version": {"type": "string", "minLength": 1, "pattern": fields::DATE},
            "routes": {"type": "array", "items": strict(json!({
                "method": {"const": "GET"},
                "path": {"enum": ["/api/v1/about", "/api/v1/models"]},
                "description": text,
            }), &["method", "path", "description"])},
            "query_parameters": {"type": "array", "items": strict(json!({
                "name": {"enum": names},
                "type": {"enum": ["string", "integer"]},
                "required": {"type": "boolean"},
                "default": {"type": ["string", "integer", "null"]},
                "allowed_values": {"type": ["array", "null"], "items": {"type": "string"}},
                "description": text,
            }), &["name", "type", "required", "default", "allowed_values", "description"])},
            "field_definitions": {"type": "array", "items": strict(json!({
                "path": text,
                "type": {"enum": ["string", "integer", "boolean", "object", "array"]},
                "unit": {"type": ["string", "null"]},
                "nullable": {"type": "boolean"},
                "description": text,
            }), &["path", "type", "unit", "nullable", "description"])},
            "availability_states": {"type": "array", "items": strict(json!({
                "state": {"enum": states},
                "meaning": text,
            }), &["state", "meaning"])},
            "sources": {"type": "array", "minItems": 2, "maxItems": 2, "items": strict(json!({
                "name": text,
                "url": uri,
                "terms_url": uri,
                "license": {"type": ["string", "null"]},
                "limit_note": text,
            }), &["name", "url", "terms_url", "license", "limit_note"])},
            "supply": strict(json!({
                "launch_state": {"enum": ["not_collected", "enabled"]},
                "states": {"type": "array", "items": {"enum": SUPPLY_STATES}, "minItems": 5, "maxItems": 5, "uniqueItems": true},
                "description": text,
            }), &["launch_state", "states", "description"]),
            "links": strict(json!({"documentation": uri, "openapi": uri, "full_export": uri}), &["documentation", "openapi", "full_export"]),
            "agent_instructions": {"type": "array", "minItems": 1, "items": text},
        }),
        &[
            "schema_version",
            "api_schema_version",
            "documentation_version",
            "routes",
            "query_parameters",
            "field_definitions",
            "availability_states",
            "sources",
            "supply",
            "links",
            "agent_instructions",
        ],
    )
}

fn json_response(description: &str, schema_ref: &str) -> Value {
    json!({
        "description": description,
        "headers": {
            "Access-Control-Allow-Origin": {"schema": {"const": "*"}, "description": "Any origin may read the API."},
            "Cache-Control": {"schema": {"type": "string"}, "description": "public, max-age=0, must-revalidate"},
            "ETag": {"schema": {"type": "string"}, "description": "Strong validator; send it back in If-None-Match to get 304."},
        },
        "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema_ref}")}}},
    })
}

fn error_response(codes: &[ErrorCode], description: &str) -> Value {
    let names: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
    json!({
        "description": description,
        "content": {"application/json": {"schema": {
            "allOf": [
                {"$ref": "#/components/schemas/Error"},
                {"properties": {"error": {"enum": names}}},
            ]
        }}},
    })
}

/// The description of a list parameter: what it is and the value the server uses when it is
/// omitted. The default is stated in words, not as a schema `default`: generated clients send
/// every schema default on every call, and a default list parameter sent along with `model_id`
/// is refused with 400 (issue 13). `/api/v1/about` lists the defaults as data.
fn omitted(what: &str, default: &str) -> String {
    format!("{what}. When omitted: {default}. Send it only in list mode: with model_id it gives 400 invalid_query.")
}

/// The OpenAPI 3.1 document as a JSON value. `docs_url` as for [`about`]: the contact is the
/// documentation page.
pub fn openapi(base_url: &str, docs_url: Option<&str>) -> Value {
    let base = base_url.trim_end_matches('/');
    let sorts = SortKey::names();
    let orders = Order::names();
    let models_table = fields::model_response_fields();
    let error_table = fields::error_fields();
    let feed = |operation_id: &str, what: &str| {
        json!({
            "get": {
                "operationId": operation_id,
                "tags": ["feeds"],
                "summary": what,
                "description": format!("{what}. Outside the formal v1 agent schema: its payload is not described here and may change without a version bump."),
                "responses": {
                    "200": {"description": "The feed.", "content": {"application/json": {"schema": {}}}},
                    "503": error_response(&[ErrorCode::DataUnavailable], "The site was built without accepted data."),
                },
            }
        })
    };
    let mut document = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "model-demand",
            "version": API_SCHEMA_VERSION,
            "summary": "Demand for AI models (OpenRouter's public top-50 daily rankings) with checked model facts (Hugging Face) and supply.",
            "description": "A public, anonymous, read-only JSON API. Every value carries its own state and reason; a null value is unknown, never zero. Decimal quantities are strings so exact values survive. The API does not identify underserved models. Read /api/v1/about first. The license below covers this document and the software that serves it; the data keeps its sources' terms (demand data CC BY 4.0, with the attribution in source.attribution), listed per source in /api/v1/about.",
            "contact": {"name": "model-demand documentation", "url": documentation_url(base, docs_url)},
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "servers": [{"url": base}],
        // Anonymous: no operation needs credentials.
        "security": [],
        "tags": [
            {"name": "contract", "description": "What the API serves and how to read it."},
            {"name": "models", "description": "Model records: demand, facts and supply for the current window."},
            {"name": "feeds", "description": "The accepted input files, outside the formal v1 agent schema."},
            {"name": "tables", "description": "Flat tables (CSV) of the model records, the daily demand and the supply endpoints, with a Frictionless Data Package; outside the formal v1 agent schema."},
        ],
        "paths": {
            "/api/v1/about": {"get": {
                "operationId": "getAbout",
                "tags": ["contract"],
                "summary": "The contract document",
                "description": "The contract: routes, query parameters with their defaults, field definitions, availability states, sources with their licenses and limits, supply, links and agent instructions. Static; loads no model data.",
                "responses": {"200": json_response("The contract: routes, query parameters, field definitions, states, sources, supply, links, agent instructions.", "About")},
            }},
            "/api/v1/models": {"get": {
                "operationId": "getModels",
                "tags": ["models"],
                "summary": "Ranked model records, or one model by exact ID",
                "description": "Without model_id: a page of the list, sorted by sort and order (unavailable values last in both orders, ties by model_id). With model_id: exact lookup; model_id cannot be combined with sort, order, limit or offset (400 invalid_query), a rule OpenAPI cannot express. Each parameter at most once; unknown, repeated or empty parameters give 400. An offset past the end is 200 with an empty page.",
                "parameters": [
                    {"name": "model_id", "in": "query", "required": false, "description": "Exact model ID, URL-encoded. Not combinable with the other parameters.",
                     "schema": {"type": "string", "minLength": 1, "maxLength": crate::input::validate::MAX_ID_LEN}},
                    {"name": "sort", "in": "query", "required": false, "description": omitted("List sort field", SortKey::DEFAULT.as_str()),
                     "schema": {"type": "string", "enum": sorts}},
                    {"name": "order", "in": "query", "required": false, "description": omitted("List sort order", Order::DEFAULT.as_str()),
                     "schema": {"type": "string", "enum": orders}},
                    {"name": "limit", "in": "query", "required": false, "description": omitted("Page size, plain digits", &query::LIMIT_DEFAULT.to_string()),
                     "schema": {"type": "integer", "minimum": query::LIMIT_MIN, "maximum": query::LIMIT_MAX}},
                    {"name": "offset", "in": "query", "required": false, "description": omitted("Models to skip, plain digits", "0"),
                     "schema": {"type": "integer", "minimum": 0, "maximum": query::OFFSET_MAX}},
                ],
                "responses": {
                    "200": json_response("The model response.", "ModelResponse"),
                    "400": error_response(&[ErrorCode::InvalidQuery], "Unknown, repeated, empty, out-of-range or incompatible query parameters."),
                    "404": error_response(&[ErrorCode::ModelNotFound], "The exact model ID is not served by the accepted export."),
                    "503": error_response(&[ErrorCode::DataUnavailable], "The site was built without accepted data."),
                },
            }},
            "/api/export": feed("getExport", "The accepted export (model-demand.export.v1), with daily demand history"),
            "/api/supply": feed("getSupply", "The provider supply feed (model-demand.supply.v1) with supply history"),
        },
        "components": {"schemas": {
            "ModelResponse": schema_of("", &models_table),
            "Error": schema_of("", &error_table),
            "About": about_schema(),
        }},
    });
    if let Some(paths) = document["paths"].as_object_mut() {
        for (path, summary) in tables::SUMMARIES {
            paths.insert(path.to_string(), table_operation(path, summary));
        }
    }
    document
}

/// The operation of a flat table's address (`/api/tables/models.csv`) or of its data package:
/// a static file, CSV or JSON, or 503 on a site without data.
fn table_operation(path: &str, summary: &str) -> Value {
    let file = path.rsplit('/').next().unwrap_or(path);
    let (operation_id, media_type, body) = match file.strip_suffix(".csv") {
        Some(name) => {
            let mut id = String::from("getTable");
            let mut chars = name.chars();
            id.extend(chars.next().map(|c| c.to_ascii_uppercase()));
            id.push_str(chars.as_str());
            (id, "text/csv", json!({"type": "string"}))
        }
        None => (
            "getTablesPackage".to_string(),
            "application/json",
            json!({}),
        ),
    };
    json!({
        "get": {
            "operationId": operation_id,
            "tags": ["tables"],
            "summary": summary,
            "description": format!("{summary}. A flat table precomputed by the build from the same records and derivations as the API, outside the formal v1 agent schema: the data package (/api/tables/datapackage.json) describes every column. CSV: UTF-8, a header row, LF line ends, RFC 4180 quoting; an empty cell is unknown, never zero."),
            "responses": {
                "200": {"description": "The file.", "content": {media_type: {"schema": body}}},
                "503": error_response(&[ErrorCode::DataUnavailable], "The site was built without accepted data."),
            },
        }
    })
}

/// The `/api/openapi.json` body.
pub fn openapi_json(base_url: &str, docs_url: Option<&str>) -> Vec<u8> {
    to_json(&openapi(base_url, docs_url))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_object_field_has_members_and_every_member_a_parent() {
        let table = fields::model_response_fields();
        for field in &table {
            if let Some((parent, _)) = field.path.rsplit_once('.') {
                assert!(
                    table.iter().any(|f| f.path == parent),
                    "{} has no parent",
                    field.path
                );
            }
            if let Some(array) = field.path.strip_suffix("[]") {
                assert!(
                    table
                        .iter()
                        .any(|f| f.path == array && f.kind == Kind::Array),
                    "{}",
                    field.path
                );
            }
            if field.kind == Kind::Object {
                let prefix = format!("{}.", field.path);
                assert!(
                    table.iter().any(|f| f.path.starts_with(&prefix)),
                    "{} has no members",
                    field.path
                );
            }
        }
    }

    #[test]
    fn about_is_complete() {
        let about = about("https://x.test/", None, false);
        assert_eq!(about["links"]["openapi"], "https://x.test/api/openapi.json");
        assert_eq!(about["supply"]["launch_state"], "not_collected");
        assert_eq!(about["sources"][1]["license"], Value::Null);
        assert_eq!(about["query_parameters"].as_array().map(Vec::len), Some(5));
    }
}
