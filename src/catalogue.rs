//! The MCP catalogue: the one definition of what agents reach as Model Context Protocol tools
//! (names, descriptions, input and output schemas, annotations), the resources, the server
//! instructions and the API path each tool asks. `build` renders it from the contract into
//! `_api/mcp.json` of every site; every MCP server (`model-demand mcp`, the preview server's
//! `/mcp`, the edge function) reads it from there. The docs page and `/llms.txt` take the tool
//! list and the client configuration from here, so this module sits below them and below the
//! MCP adapter (`mcp/`), and imports nothing above the CDN rules.
//!
//! The schemas are read from the OpenAPI and about documents (built from `query` and
//! `fields.rs`), so there is no second list of sorts or bounds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::netlify::MODELS_PATH;

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
}

/// The public path of the contract.
const ABOUT_PATH: &str = "/api/v1/about";

/// The tools, in the order `tools/list` gives them.
pub const TOOLS: [ToolDefinition; 3] = [
    ToolDefinition {
        name: "get_contract",
        summary: "the exact body of GET /api/v1/about: routes, parameters, every field, states, sources, agent instructions",
        description: "The exact body of `GET /api/v1/about`, the contract: read it before querying models.",
        path: ABOUT_PATH,
        first: None,
    },
    ToolDefinition {
        name: "list_models",
        summary: "the exact body of GET /api/v1/models with the given sort, order, limit and offset: a ranked page",
        description: "The exact body of `GET /api/v1/models` with these parameters: a page of the ranked list, every model's demand, facts and supply with each value's state and reason (a null value is unknown, never zero). Absent parameters take the API's defaults. While pagination.has_next_page is true, add limit to offset for the next page. A refused query is an error result whose text is the API's JSON error body (error invalid_query).",
        path: MODELS_PATH,
        first: None,
    },
    ToolDefinition {
        name: "get_model",
        summary: "the exact body of GET /api/v1/models?model_id=...: one model by exact ID",
        description: "The exact body of `GET /api/v1/models?model_id=...`: one model by its exact ID, with each value's state and reason (a null value is unknown, never zero). An ID not served in the current window is an error result whose text is the API's 404 body (error model_not_found).",
        path: MODELS_PATH,
        first: Some("model_id"),
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
}

impl Catalogue {
    /// The catalogue of a site whose OpenAPI and about documents are `openapi` and `about`.
    pub fn new(openapi: &Value, about: &Value) -> Catalogue {
        let tools = TOOLS
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": tool.description,
                    "inputSchema": input_schema(tool.name, openapi, about),
                    "outputSchema": output_schema(tool.name, openapi),
                    "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false},
                })
            })
            .collect();
        let calls = TOOLS
            .iter()
            .map(|tool| {
                let call = Call {
                    path: tool.path.to_string(),
                    first: tool.first.map(str::to_string),
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
            instructions: instructions(about).unwrap_or_default(),
            tools,
            calls,
            resources,
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

/// The server instructions: the contract's agent instructions, one a line.
pub fn instructions(about: &Value) -> Option<String> {
    let lines: Vec<&str> = about["agent_instructions"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
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
        "list_models" => (
            ["sort", "order", "limit", "offset"]
                .into_iter()
                .filter_map(|name| Some((name.to_string(), described(name)?)))
                .collect(),
            vec![],
        ),
        "get_model" => {
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

/// The output schema of a tool: the about document's schema for `get_contract`; for the model
/// tools the model response or, on an error result, the error body.
fn output_schema(tool: &str, openapi: &Value) -> Value {
    let schemas = &openapi["components"]["schemas"];
    match tool {
        "get_contract" => schemas["About"].clone(),
        _ => json!({
            "type": "object",
            "anyOf": [schemas["ModelResponse"].clone(), schemas["Error"].clone()],
        }),
    }
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
    use crate::contract;
    use crate::query::{Order, SortKey, LIMIT_MAX, LIMIT_MIN};

    fn catalogue() -> Catalogue {
        let base = "https://x.test";
        Catalogue::new(
            &contract::openapi(base, None),
            &contract::about(base, None, false),
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
        assert_eq!(get_model["outputSchema"]["type"], "object");
        assert_eq!(
            tool(&catalogue, "get_contract")["outputSchema"]["type"],
            "object"
        );
        assert_eq!(
            catalogue.instructions,
            contract::AGENT_INSTRUCTIONS.join("\n")
        );
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
