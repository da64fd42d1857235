//! The MCP catalogue: the one definition of what agents reach as Model Context Protocol tools
//! (names, descriptions, input schemas, annotations), the resources, the server instructions,
//! the API path each tool asks and how its answer is shaped (the `fields` a record may be cut
//! to, the size limit, the history files). `build` renders it from the contract into
//! `_api/mcp.json` of every site; every MCP server (`model-demand mcp`, the preview server's
//! `/mcp`, the edge function) reads it from there. The docs page and `/llms.txt` take the tool
//! list and the client configuration from here, so this module sits below them and below the
//! MCP adapter (`agents/`), and imports nothing of the site stage: the addresses it names are `addresses.rs`'s.
//!
//! The schemas are read from the OpenAPI and about documents (built from `query` and
//! `fields.rs`), so there is no second list of sorts or bounds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::answers::addresses::MODELS_PATH;

/// Site-relative path of the catalogue.
pub const CATALOGUE_FILE: &str = "_api/mcp.json";
/// Public path of the catalogue.
pub const CATALOGUE_PATH: &str = "/_api/mcp.json";
/// The catalogue format's name and version.
pub const SCHEMA_VERSION: &str = "model-demand.mcp-catalogue.v1";
/// The MCP server's name.
pub const SERVER_NAME: &str = "model-demand";
/// The public path of the MCP endpoint on a site.
pub const MCP_PATH: &str = "/mcp";

/// How a tool shapes the site's answer before it goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// The answer as the site sent it.
    Body,
    /// A model response whose records are cut to the `fields` argument (the catalogue's
    /// default without it; `["*"]` for the body as sent).
    Records,
    /// The contract without its field definitions, or with those the `fields` argument asks
    /// (`["*"]` for the whole document).
    Contract,
    /// A precomputed file of [`Call::file_dir`] named by the SHA-256 of the `model_id`
    /// argument, when that is the only argument and a non-empty string; else, or when there is
    /// no such file, the models route's answer for the same arguments (the API's error).
    History,
}

/// One tool: its name, what it answers with (a phrase for the docs page and `/llms.txt`), its
/// description for agents, and the API request it becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolDefinition {
    /// The tool's name.
    pub name: &'static str,
    /// What it answers with, in a phrase.
    pub summary: &'static str,
    /// The description `tools/list` gives.
    pub description: &'static str,
    /// The API path a call asks.
    pub path: &'static str,
    /// The argument sent first in the query, and sent empty when absent (so the router refuses
    /// it as empty).
    pub first: Option<&'static str>,
    /// How the answer is shaped.
    pub shape: Shape,
    /// The site directory of the precomputed answers a [`Shape::History`] call reads.
    pub files: Option<&'static str>,
}

/// The public path of the contract.
const ABOUT_PATH: &str = "/api/v1/about";

/// The page size of `list_models` when the call gives none: smaller than the API's default
/// (25), so that a call with no arguments stays within [`DEFAULT_CALL_BUDGET`] (decisions.md).
pub const TOOL_LIMIT_DEFAULT: u64 = 10;

/// The most bytes `tools/list` may take (its result as sent).
pub const TOOLS_LIST_BUDGET: usize = 8_000;
/// The most bytes a tool call with its default arguments may take, as the client receives it.
pub const DEFAULT_CALL_BUDGET: usize = 30_000;
/// The most bytes any tool result may take; a larger one is refused with a way to ask less.
pub const MAX_RESULT_BYTES: usize = 75_000;

/// The record fields `list_models` gives when the call names none: the questions agents ask
/// (ranking, demand, trend, size, supply state), each with its state and reason.
pub const DEFAULT_RECORD_FIELDS: [&str; 8] = [
    "model_id",
    "latest_rank",
    "tokens_30d",
    "share_30d",
    "trend",
    "facts.total_parameters",
    "facts.active_parameters",
    "supply.state",
];

/// What every tool that reads the list says about reading it (the misreadings agents made).
pub const READING: &str = "A position in the list is not a rank: the rank is latest_rank (the rank on the window's last day). Models whose sort value is unknown come last in both orders, ordered by model_id. A null value is unknown, never zero; keep it unknown. supply.state current_route_not_found means no route of the supply feed has this model's ID, nothing about whether providers serve it; never infer that a model is underserved.";

/// The tools, in the order `tools/list` gives them.
pub const TOOLS: [ToolDefinition; 5] = [
    ToolDefinition {
        name: "get_contract",
        summary: "GET /api/v1/about without its field definitions, or with those of the given fields; [\"*\"] for the whole document",
        description: "The contract (GET /api/v1/about): routes, parameters, states, sources, supply, links and agent instructions; read it before querying models. Its field definitions are left out unless asked: fields names whose definitions to add (as list_models names them, e.g. tokens_30d or facts.total_parameters, or contract paths such as freshness); [\"*\"] gives the whole document byte for byte.",
        path: ABOUT_PATH,
        first: None,
        shape: Shape::Contract,
        files: None,
    },
    ToolDefinition {
        name: "list_models",
        summary: "GET /api/v1/models with the given sort, order, limit and offset, each record cut to the given fields: a ranked page",
        description: "A page of GET /api/v1/models (sorted by sort and order), each record cut to fields; every value object kept as the API wrote it (value, unit, state, reason, source_url) and the top level (generated_at, evaluation_cutoff, freshness, window, source, query, pagination) as the API's. Without fields: model_id, latest_rank, tokens_30d, share_30d, trend, facts.total_parameters, facts.active_parameters, supply.state. [\"*\"] gives the API's exact body. limit defaults to 10 here (the API's is 25). While pagination.has_next_page is true, add limit to offset for the next page. An answer over 75,000 bytes is refused: ask a smaller limit or fewer fields. A refused query is an error result whose text is the API's error body.",
        path: MODELS_PATH,
        first: None,
        shape: Shape::Records,
        files: None,
    },
    ToolDefinition {
        name: "get_model",
        summary: "GET /api/v1/models?model_id=...: one model by exact ID, its whole record",
        description: "The exact body of GET /api/v1/models?model_id=...: one model's whole record (demand, facts, supply) by its exact ID, as written in models[].model_id (not URL-encoded here). Its rank is latest_rank; a null value is unknown, never zero; supply.state current_route_not_found says nothing about whether providers serve it. An ID not served in the current window is an error result whose text is the API's 404 body (model_not_found).",
        path: MODELS_PATH,
        first: Some("model_id"),
        shape: Shape::Body,
        files: None,
    },
    ToolDefinition {
        name: "get_demand_history",
        summary: "one model's daily rank and tokens over the window and its route's supply in each collection of the last 7 days",
        description: "One model's history by its exact ID (as written, not URL-encoded): its rank and tokens on each date of the 30-day window (a date outside the top 50, or not delivered by the source, is unavailable with that reason, never zero), with the window, freshness and source attribution; and its route's supply (state, reason, endpoint and provider counts, medians) in each collection of the supply feed's last 7 UTC dates. An ID not served is an error result whose text is the API's 404 body.",
        path: MODELS_PATH,
        first: Some("model_id"),
        shape: Shape::History,
        files: Some(crate::answers::history::HISTORY_DIR),
    },
    ToolDefinition {
        name: "get_providers",
        summary: "who serves one model: each endpoint of its route in the latest supply collection (provider, quantization, context, prices, latency, throughput, uptime), the cheapest first",
        description: "Who serves one model, by exact ID (as written): each endpoint of its route in the latest supply collection, cheapest first (input, then output price), with provider, quantization, context_length, prices (USD per million tokens), latency_ms, throughput and uptime_percent; null means not reported, never zero. With no route, supply.state and reason say why (current_route_not_found says nothing about whether providers exist). An ID not served is an error result with the API's 404 body.",
        path: MODELS_PATH,
        first: Some("model_id"),
        shape: Shape::History,
        files: Some(crate::answers::providers::PROVIDERS_DIR),
    },
];

/// One resource: its URI, name, description, MIME type and the site path it reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resource {
    /// The resource URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is.
    pub description: String,
    /// Its MIME type.
    #[serde(rename = "mimeType")]
    pub mime_type: String,
    /// The site path whose body it is.
    pub path: String,
}

/// The resources: URI, site path, name, MIME type and what each is.
const RESOURCES: [(&str, &str, &str, &str, &str); 3] = [
    (
        "model-demand:///api/v1/about",
        ABOUT_PATH,
        "contract",
        "application/json",
        "The contract: routes, query parameters, every field, states, sources, agent instructions.",
    ),
    (
        "model-demand:///api/openapi.json",
        "/api/openapi.json",
        "openapi",
        "application/json",
        "The OpenAPI 3.1 description of the API, as strict as the server.",
    ),
    (
        "model-demand:///llms.txt",
        "/llms.txt",
        "llms.txt",
        "text/markdown",
        "A short Markdown guide for agents: routes, parameters, agent instructions, links.",
    ),
];

/// The server's name and version, as `initialize` gives them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerInfo {
    /// The server's name.
    pub name: String,
    /// Its version (this program's).
    pub version: String,
}

/// The API request a tool call becomes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// The API path asked.
    pub path: String,
    /// The argument sent first in the query, and sent empty when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<String>,
    /// Arguments sent, last and in name order, when the call gives none (or null).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub defaults: BTreeMap<String, String>,
    /// How the answer is shaped.
    pub shape: Shape,
    /// The public directory of precomputed answers named by the SHA-256 of the first argument
    /// (with [`Shape::History`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_dir: Option<String>,
}

/// What `fields` of `list_models` may name, and what it is without them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordFields {
    /// Record members and dotted paths, none inside a value object (kept whole).
    pub allowed: Vec<String>,
    /// The fields given when the call names none.
    pub default: Vec<String>,
}

/// The catalogue, as `_api/mcp.json` holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Catalogue {
    /// [`SCHEMA_VERSION`].
    pub schema_version: String,
    /// The server's name and version.
    pub server_info: ServerInfo,
    /// The server instructions: the contract's agent instructions, one a line.
    pub instructions: String,
    /// The MCP Tool objects, as `tools/list` gives them, in order.
    pub tools: Vec<Value>,
    /// By tool name, the API request a call becomes.
    pub calls: BTreeMap<String, Call>,
    /// The resources.
    pub resources: Vec<Resource>,
    /// The record fields `list_models` may name.
    pub record_fields: RecordFields,
    /// The most bytes a tool result may take as sent ([`MAX_RESULT_BYTES`]).
    pub max_result_bytes: usize,
}

impl Catalogue {
    /// The catalogue of a site whose OpenAPI and about documents are `openapi` and `about`;
    /// `sample` when the site is built from the bundled sample, which the instructions then
    /// say first.
    pub fn new(openapi: &Value, about: &Value, sample: bool) -> Catalogue {
        let tools = TOOLS
            .iter()
            .map(|tool| {
                // No output schemas: the model response's and the contract's took 53 kB each in
                // every tools/list, and a cut record does not match them (decisions.md).
                // The tools that give records say how to read them (issue 34's misreadings).
                let description = match tool.shape {
                    Shape::Records => format!("{} {READING}", tool.description),
                    _ => tool.description.to_string(),
                };
                json!({
                    "name": tool.name,
                    "description": description,
                    "inputSchema": input_schema(tool.name, openapi, about),
                    "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false},
                })
            })
            .collect();
        let calls = TOOLS
            .iter()
            .map(|tool| {
                let defaults = match tool.shape {
                    Shape::Records => {
                        BTreeMap::from([("limit".to_string(), TOOL_LIMIT_DEFAULT.to_string())])
                    }
                    _ => BTreeMap::new(),
                };
                let call = Call {
                    path: tool.path.to_string(),
                    first: tool.first.map(str::to_string),
                    defaults,
                    shape: tool.shape,
                    file_dir: tool.files.map(|dir| format!("/{dir}/")),
                };
                (tool.name.to_string(), call)
            })
            .collect();
        let resources = RESOURCES
            .iter()
            .map(|(uri, path, name, mime, what)| Resource {
                uri: uri.to_string(),
                name: name.to_string(),
                description: what.to_string(),
                mime_type: mime.to_string(),
                path: path.to_string(),
            })
            .collect();
        Catalogue {
            schema_version: SCHEMA_VERSION.to_string(),
            server_info: ServerInfo {
                name: SERVER_NAME.to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
            },
            instructions: match instructions(about) {
                Some(lines) if sample => format!("{}\n{lines}", crate::input::sample::NOTICE),
                lines => lines.unwrap_or_default(),
            },
            tools,
            calls,
            resources,
            record_fields: RecordFields {
                allowed: allowed_record_fields(),
                default: DEFAULT_RECORD_FIELDS.map(str::to_string).to_vec(),
            },
            max_result_bytes: MAX_RESULT_BYTES,
        }
    }

    /// The catalogue's file: pretty JSON with a final newline, the same bytes for the same
    /// documents.
    pub fn to_json(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("a catalogue always serializes");
        bytes.push(b'\n');
        bytes
    }
}

/// How an MCP client reaches the site: by URL (the site's `/mcp`) or by starting
/// `model-demand mcp` on stdio.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// Streamable HTTP at `{base_url}/mcp`.
    Url,
    /// `model-demand mcp --base-url {base_url}` on stdio (the program on `PATH`).
    Stdio,
}

/// The MCP endpoint of the site at `base_url`.
pub fn mcp_url(base_url: &str) -> String {
    format!("{}{MCP_PATH}", base_url.trim_end_matches('/'))
}

/// The entry MCP clients take in their configuration to reach the site at `base_url`.
pub fn client_config(base_url: &str, connection: Connection) -> String {
    let base = base_url.trim_end_matches('/');
    let quoted = |text: &str| serde_json::to_string(text).expect("a string always serializes");
    let server = match connection {
        Connection::Url => format!(
            "\"type\": \"http\",\n      \"url\": {}",
            quoted(&mcp_url(base))
        ),
        Connection::Stdio => format!(
            "\"command\": \"model-demand\",\n      \"args\": [\"mcp\", \"--base-url\", {}]",
            quoted(base)
        ),
    };
    format!("{{\n  \"mcpServers\": {{\n    \"model-demand\": {{\n      {server}\n    }}\n  }}\n}}")
}

/// Where an agent of the tools finds histories, providers and whole tables: what stands in the
/// server instructions for the contract's line on the feeds
/// ([`crate::answers::contract::FEEDS_INSTRUCTION`]), which no tool reads.
pub const HISTORIES_INSTRUCTION: &str = "For one model's daily demand and supply history, call get_demand_history; for who serves it (each endpoint's provider, prices, context, quantization, latency, uptime), call get_providers. For every model at once, the site serves flat tables (not tool results): /api/tables/models.csv, daily.csv, days.csv and supply.csv, described by /api/tables/datapackage.json; an empty cell is unknown.";

/// What the server instructions add to the contract's, for agents that reach it by MCP.
pub const MCP_INSTRUCTIONS: [&str; 3] = [
    READING,
    "Tool arguments take model IDs as written in models[].model_id (with / and : as they are); only URLs take them percent-encoded.",
    "Tool results are kept within 75,000 bytes: list_models gives a compact default of fields and 10 models a page; ask fields or [\"*\"] for more, with a smaller limit.",
];

/// The server instructions: the contract's agent instructions, one a line, with
/// [`HISTORIES_INSTRUCTION`] in place of the line on the feeds; then [`MCP_INSTRUCTIONS`].
pub fn instructions(about: &Value) -> Option<String> {
    let lines: Vec<&str> = about["agent_instructions"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .map(|line| {
            if line == crate::answers::contract::FEEDS_INSTRUCTION {
                HISTORIES_INSTRUCTION
            } else {
                line
            }
        })
        .chain(MCP_INSTRUCTIONS)
        .collect();
    Some(lines.join("\n"))
}

/// The names `fields` of `list_models` allows, from the one table of response fields: every
/// record member and every dotted path below one, except the members of an object that has a
/// `state` and only plain members (a value object, `latest_rank`, `trend`), which is kept whole
/// so that a value never leaves its state and reason.
pub fn allowed_record_fields() -> Vec<String> {
    let fields = crate::answers::fields::model_response_fields();
    let paths: Vec<(&str, crate::answers::fields::Kind)> = fields
        .iter()
        .filter_map(|f| Some((f.path.strip_prefix("models[].")?, f.kind)))
        .filter(|(p, _)| !p.contains("[]"))
        .collect();
    let whole = |object: &str| {
        let member = |p: &str| {
            p.strip_prefix(object)
                .and_then(|rest| rest.strip_prefix('.'))
                .is_some_and(|rest| !rest.contains('.'))
        };
        paths
            .iter()
            .any(|(p, _)| member(p) && p.ends_with(".state"))
            && !paths.iter().any(|(p, kind)| {
                member(p)
                    && matches!(
                        kind,
                        crate::answers::fields::Kind::Object | crate::answers::fields::Kind::Array
                    )
            })
    };
    paths
        .iter()
        .filter(|(path, _)| {
            let parts: Vec<&str> = path.split('.').collect();
            (1..parts.len()).all(|n| !whole(&parts[..n].join(".")))
        })
        .map(|(path, _)| path.to_string())
        .collect()
}

/// The input schema of a tool, from the OpenAPI parameters of `GET /api/v1/models` with the
/// about document's descriptions and defaults.
fn input_schema(tool: &str, openapi: &Value, about: &Value) -> Value {
    let parameters = openapi["paths"][MODELS_PATH]["get"]["parameters"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let described = |name: &str| -> Option<Value> {
        let schema = parameters.iter().find(|p| p["name"] == name)?["schema"].clone();
        let entry = about["query_parameters"]
            .as_array()?
            .iter()
            .find(|p| p["name"] == name)?
            .clone();
        let mut schema = schema.as_object()?.clone();
        let mut description = entry["description"].as_str()?.to_string();
        let mut entry = entry;
        if name == "limit" {
            // The tool's own default, within the budget of a call without arguments.
            entry["default"] = json!(TOOL_LIMIT_DEFAULT);
            description.push_str(" The API's default is 25; this tool's is 10.");
        }
        if !entry["default"].is_null() {
            description.push_str(&format!(
                " When omitted: {}.",
                query_text(&entry["default"])
            ));
            schema.insert("default".into(), entry["default"].clone());
        }
        schema.insert("description".into(), Value::String(description));
        Some(Value::Object(schema))
    };
    let (properties, required): (Map<String, Value>, Vec<&str>) = match tool {
        "list_models" => {
            let mut properties: Map<String, Value> = ["sort", "order", "limit", "offset"]
                .into_iter()
                .filter_map(|name| Some((name.to_string(), described(name)?)))
                .collect();
            let mut names = vec![crate::query::projection::ALL.to_string()];
            names.extend(allowed_record_fields());
            properties.insert(
                "fields".into(),
                json!({
                    "type": "array",
                    "items": {"type": "string", "enum": names},
                    "minItems": 1,
                    "uniqueItems": true,
                    "description": format!("Record members or dotted paths to keep, in any order (given in the API's order), or [\"*\"] for the API's exact body. Value objects are kept whole. When omitted: {}.", DEFAULT_RECORD_FIELDS.join(", ")),
                }),
            );
            (properties, vec![])
        }
        "get_contract" => (
            Map::from_iter([(
                "fields".to_string(),
                json!({
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "uniqueItems": true,
                    "description": "Fields whose definitions to include, named as list_models names them (tokens_30d, facts.total_parameters) or by contract path (freshness, pagination.has_next_page); [\"*\"] for the whole contract. When omitted: no field definitions.",
                }),
            )]),
            vec![],
        ),
        "get_model" | "get_demand_history" | "get_providers" => {
            let mut schema = parameters
                .iter()
                .find(|p| p["name"] == "model_id")
                .map(|p| p["schema"].clone())
                .unwrap_or_else(|| json!({"type": "string"}));
            schema["description"] = json!(
                "Exact model ID as the API writes it in models[].model_id, with its / and : as they are (not URL-encoded: the server encodes it). An ID not served in the current window gives the API's 404 model_not_found."
            );
            (
                Map::from_iter([("model_id".to_string(), schema)]),
                vec!["model_id"],
            )
        }
        _ => (Map::new(), vec![]),
    };
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    Value::Object(schema)
}

/// A JSON value's text in a query: strings as they are, integers (also `25.0`, which JSON
/// Schema counts as an integer) in plain digits, anything else as its JSON text, which the
/// router then refuses as a client's would be.
pub fn query_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.to_string(),
            (_, Some(i), _) => i.to_string(),
            (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => {
                format!("{}", f as i64)
            }
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::contract;
    use crate::query::{Order, SortKey, LIMIT_MAX, LIMIT_MIN};

    fn catalogue() -> Catalogue {
        let base = "https://x.test";
        Catalogue::new(
            &contract::openapi(base, None),
            &contract::about(base, None, false),
            false,
        )
    }

    fn tool<'a>(catalogue: &'a Catalogue, name: &str) -> &'a Value {
        catalogue
            .tools
            .iter()
            .find(|t| t["name"] == name)
            .expect("tool")
    }

    #[test]
    fn schemas_state_the_query_definition() {
        let catalogue = catalogue();
        let list = &tool(&catalogue, "list_models")["inputSchema"];
        let properties = &list["properties"];
        assert_eq!(properties["sort"]["enum"], json!(SortKey::names()));
        assert_eq!(properties["order"]["enum"], json!(Order::names()));
        assert_eq!(properties["limit"]["minimum"], json!(LIMIT_MIN));
        assert_eq!(properties["limit"]["maximum"], json!(LIMIT_MAX));
        assert_eq!(
            properties["sort"]["default"],
            json!(SortKey::DEFAULT.as_str())
        );
        let get_model = tool(&catalogue, "get_model");
        assert_eq!(get_model["inputSchema"]["required"], json!(["model_id"]));
        assert_eq!(properties["limit"]["default"], json!(10));
        assert_eq!(catalogue.calls["list_models"].defaults["limit"], "10");
        let described = tool(&catalogue, "list_models")["description"]
            .as_str()
            .expect("text");
        for says in ["not a rank", "come last", "current_route_not_found"] {
            assert!(described.contains(says), "{says}");
        }
        for tool in &catalogue.tools {
            assert!(tool.get("outputSchema").is_none(), "{}", tool["name"]);
        }
        let mut expected: Vec<&str> = contract::AGENT_INSTRUCTIONS
            .iter()
            .map(|line| match *line {
                contract::FEEDS_INSTRUCTION => HISTORIES_INSTRUCTION,
                other => other,
            })
            .collect();
        expected.extend(MCP_INSTRUCTIONS);
        assert_eq!(catalogue.instructions, expected.join("\n"));
        // Issue 50: the instructions name what the tools and the site serve, the tables
        // included, never a feed as a place the tools read.
        for names in ["/api/export", "/api/supply", "full_export"] {
            assert!(!catalogue.instructions.contains(names), "{names}");
        }
        for names in [
            "get_providers",
            "get_demand_history",
            "/api/tables/models.csv",
            "supply.csv",
        ] {
            assert!(catalogue.instructions.contains(names), "{names}");
        }
    }

    #[test]
    fn the_instructions_of_a_sample_site_open_with_the_notice() {
        let base = "https://x.test";
        let (openapi, about) = (
            contract::openapi(base, None),
            contract::about(base, None, false),
        );
        let sample = Catalogue::new(&openapi, &about, true);
        let real = Catalogue::new(&openapi, &about, false);
        assert_eq!(
            sample.instructions,
            format!("{}\n{}", crate::input::sample::NOTICE, real.instructions)
        );
        assert!(!real.instructions.contains("sample"));
        // Nothing else differs.
        assert_eq!(
            Catalogue {
                instructions: real.instructions.clone(),
                ..sample
            },
            real
        );
    }

    #[test]
    fn record_fields_stop_at_value_objects() {
        let allowed = allowed_record_fields();
        // Written from spec 2.2 to 2.6: 13 members, 12 facts, supply's 3 and its summary's 13.
        assert_eq!(allowed.len(), 13 + 12 + 3 + 13);
        for name in [
            "model_id",
            "latest_rank",
            "trend",
            "facts",
            "facts.total_parameters",
            "supply.state",
            "supply.summary.route_id",
            "supply.summary.listed_providers",
            "supply.summary.quantizations",
        ] {
            assert!(allowed.iter().any(|a| a == name), "{name}");
        }
        for name in [
            "latest_rank.value",
            "trend.direction",
            "tokens_30d.state",
            "facts.total_parameters.source_url",
            "supply.summary.listed_providers.value",
        ] {
            assert!(!allowed.iter().any(|a| a == name), "{name}");
        }
        for name in DEFAULT_RECORD_FIELDS {
            assert!(allowed.iter().any(|a| a == name), "{name}");
        }
    }

    #[test]
    fn tools_list_is_within_its_budget() {
        let tools = serde_json::to_vec(&json!({"tools": catalogue().tools})).expect("JSON");
        eprintln!("tools/list: {} bytes", tools.len());
        assert!(tools.len() <= TOOLS_LIST_BUDGET, "{} bytes", tools.len());
    }

    #[test]
    fn the_file_reads_back_and_is_deterministic() {
        let bytes = catalogue().to_json();
        let read: Catalogue = serde_json::from_slice(&bytes).expect("reads back");
        assert_eq!(read, catalogue());
        assert_eq!(bytes, catalogue().to_json());
        let names: Vec<&str> = read
            .tools
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, TOOLS.map(|t| t.name));
        assert_eq!(read.calls["get_model"].first.as_deref(), Some("model_id"));
    }

    #[test]
    fn the_client_configs_are_json_naming_the_site() {
        let url: Value =
            serde_json::from_str(&client_config("https://x.test/", Connection::Url)).expect("JSON");
        assert_eq!(
            url["mcpServers"]["model-demand"],
            json!({"type": "http", "url": "https://x.test/mcp"})
        );
        let stdio: Value =
            serde_json::from_str(&client_config("https://x.test/", Connection::Stdio))
                .expect("JSON");
        let server = &stdio["mcpServers"]["model-demand"];
        assert_eq!(server["command"], "model-demand");
        assert_eq!(
            server["args"],
            json!(["mcp", "--base-url", "https://x.test"])
        );
    }
}
