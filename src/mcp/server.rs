//! The MCP handler (rmcp's tool router and server handler): three read-only tools that answer
//! with the site's bytes, the contract and the OpenAPI document as resources, the contract's
//! agent instructions at initialize, and the stdio session until the client closes it.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, Implementation, JsonObject, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, ServerInitializeError};
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler, ServiceExt};

use tokio::sync::mpsc;

use super::prepared::{Line, PreparedResults};
use super::source::{Reply, Source};
use super::tools::{input_schema, instructions, output_schema, raw_query, tool_result};
use super::transport::StdioTransport;
use crate::contract::AGENT_INSTRUCTIONS;
use crate::error::{Error, Result};
use crate::netlify::MODELS_PATH;

/// The public path of the contract.
const ABOUT_PATH: &str = "/api/v1/about";
/// The resources: URI, the site path it reads, name, MIME type and what it is.
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

/// The server: where answers come from, the instructions read from the site's contract, and
/// the tool router (made once; each of its tools carries its schemas).
#[derive(Clone)]
pub(super) struct ApiServer {
    source: Arc<Source>,
    instructions: String,
    tool_router: ToolRouter<ApiServer>,
    /// A built site's results, serialized once (`prepared.rs`); a published site's are not
    /// kept, since it may change between calls.
    prepared: Arc<PreparedResults>,
}

#[tool_router]
impl ApiServer {
    /// The exact body of `GET /api/v1/about`, the contract: read it before querying models.
    #[tool(
        input_schema = input_schema("get_contract"),
        output_schema = Arc::new(output_schema("get_contract")),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_contract(&self) -> std::result::Result<CallToolResult, ErrorData> {
        Ok(self.answer(ABOUT_PATH.to_string()).await)
    }

    /// The exact body of `GET /api/v1/models` with these parameters: a page of the ranked list,
    /// every model's demand, facts and supply with each value's state and reason (a null value
    /// is unknown, never zero). Absent parameters take the API's defaults. While
    /// pagination.has_next_page is true, add limit to offset for the next page. A refused query
    /// is an error result whose text is the API's JSON error body (error invalid_query).
    #[tool(
        input_schema = input_schema("list_models"),
        output_schema = Arc::new(output_schema("list_models")),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_models(
        &self,
        Parameters(arguments): Parameters<JsonObject>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        let target = format!("{MODELS_PATH}?{}", raw_query(&arguments, None));
        Ok(self.answer(target).await)
    }

    /// The exact body of `GET /api/v1/models?model_id=...`: one model by its exact ID, with
    /// each value's state and reason (a null value is unknown, never zero). An ID not served in
    /// the current window is an error result whose text is the API's 404 body (error
    /// model_not_found).
    #[tool(
        input_schema = input_schema("get_model"),
        output_schema = Arc::new(output_schema("get_model")),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_model(
        &self,
        Parameters(arguments): Parameters<JsonObject>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        let target = format!("{MODELS_PATH}?{}", raw_query(&arguments, Some("model_id")));
        Ok(self.answer(target).await)
    }
}

impl ApiServer {
    /// A server over `source`; its instructions are the agent instructions of the contract the
    /// source serves, or this program's own when the source cannot give them now.
    fn new(source: Source, prepared: Arc<PreparedResults>) -> ApiServer {
        let about = source
            .get(ABOUT_PATH)
            .ok()
            .filter(|reply| reply.status == 200)
            .and_then(|reply| serde_json::from_slice(&reply.body).ok());
        let instructions = about.as_ref().and_then(instructions).unwrap_or_else(|| {
            eprintln!(
                "model-demand mcp: the contract of {} cannot be read now; giving this program's own agent instructions",
                source.describe()
            );
            AGENT_INSTRUCTIONS.join("\n")
        });
        ApiServer {
            source: Arc::new(source),
            instructions,
            tool_router: Self::tool_router(),
            prepared,
        }
    }

    /// The tool result of `GET target`. A built site's result is stored serialized the first
    /// time and then stood for by a placeholder the transport replaces with its bytes.
    async fn answer(&self, target: String) -> CallToolResult {
        if !matches!(&*self.source, Source::Dir(_)) {
            return tool_result(self.fetch(target).await);
        }
        if let Some(placeholder) = self.prepared.stored(&target) {
            return placeholder;
        }
        let result = tool_result(self.fetch(target.clone()).await);
        self.prepared.store(&target, &result).unwrap_or(result)
    }

    /// The site's answer to `GET target`. A built site answers from memory or a local file;
    /// a published one on the blocking pool, so the session keeps reading while it waits.
    async fn fetch(&self, target: String) -> std::result::Result<Reply, String> {
        match &*self.source {
            Source::Dir(_) => self.source.get(&target),
            Source::Remote(_) => {
                let source = Arc::clone(&self.source);
                tokio::task::spawn_blocking(move || source.get(&target))
                    .await
                    .unwrap_or_else(|e| Err(format!("the request did not finish: {e}")))
            }
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ApiServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new(
            "model-demand",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(self.instructions.clone())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        let resources: Vec<Resource> = RESOURCES
            .iter()
            .map(|(uri, _, name, mime, what)| {
                Resource::new(*uri, *name)
                    .with_description(*what)
                    .with_mime_type(*mime)
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        let Some((uri, path, _, mime, _)) = RESOURCES.iter().find(|r| r.0 == request.uri) else {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}; see resources/list", request.uri),
                None,
            ));
        };
        let reply = self
            .fetch(path.to_string())
            .await
            .map_err(|why| ErrorData::internal_error(why, None))?;
        let text = String::from_utf8(reply.body)
            .ok()
            .filter(|_| reply.status == 200)
            .ok_or_else(|| {
                ErrorData::internal_error(
                    format!("the site answered {path} with {}", reply.status),
                    None,
                )
            })?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, *uri).with_mime_type(*mime)
        ])
        .into())
    }
}

/// Serves one stdio session, every line out through `queue`: until the client closes standard
/// input (or before initializing).
pub(super) async fn serve_stdio(source: Source, queue: mpsc::Sender<Line>) -> Result<()> {
    let prepared = Arc::new(PreparedResults::default());
    let server = ApiServer::new(source, Arc::clone(&prepared));
    let (input, _) = rmcp::transport::io::stdio_pipes();
    let transport = StdioTransport::new(input, queue, prepared);
    eprintln!(
        "model-demand mcp: serving {} on stdio",
        server.source.describe()
    );
    let running = match server.serve(transport).await {
        Ok(running) => running,
        Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(e) => return Err(Error::Usage(format!("MCP session ended: {e}"))),
    };
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| Error::Usage(format!("MCP session ended: {e}")))
}
