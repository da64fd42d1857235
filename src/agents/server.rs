//! The MCP handler, written by hand over the site's catalogue (`_api/mcp.json`): `tools/list`
//! gives the catalogue's tools, `tools/call` asks the API path the catalogue names for the tool
//! and answers with the site's bytes, the resources are the site's files, and `initialize` gives
//! the catalogue's instructions. rmcp decides the protocol around it (parsing, versions, errors).
//!
//! Hand-written rather than rmcp's `#[tool]` macros: the tools are data read from the site, not
//! Rust functions, and the macros' crates (and their compile time) are no longer built.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::source::{Reply, Source};
use super::tools::{history_target, percent_hint, read_call, refusal, tool_result, NO_HISTORY};
use crate::answers::addresses::DEFAULT_BASE_URL;
use crate::answers::catalogue::{Call, Catalogue, RecordFields, Shape, CATALOGUE_PATH};
use crate::answers::contract;

/// The server: where answers come from and what the catalogue says (read once).
#[derive(Clone)]
pub(crate) struct ApiServer {
    source: Arc<Source>,
    offer: Arc<Offer>,
}

/// The catalogue in rmcp's types, made once per server.
struct Offer {
    info: ServerConfig,
    tools: Vec<Tool>,
    calls: BTreeMap<String, Call>,
    resources: Vec<crate::answers::catalogue::Resource>,
    record_fields: RecordFields,
    max_result_bytes: usize,
}

impl ApiServer {
    /// A server over `source`, with the catalogue the source serves; this program's own when
    /// the source has none (a site built by an older version), said on standard error.
    pub(crate) fn new(source: Source) -> ApiServer {
        let offer = match read_catalogue(&source).and_then(Offer::new) {
            Ok(offer) => offer,
            Err(why) => {
                eprintln!(
                    "model-demand mcp: {} gives no MCP catalogue ({why}); offering this program's own",
                    source.describe()
                );
                Offer::new(own_catalogue()).expect("this program's catalogue reads")
            }
        };
        ApiServer {
            source: Arc::new(source),
            offer: Arc::new(offer),
        }
    }

    /// Where answers come from, for logs.
    pub(crate) fn describe(&self) -> String {
        self.source.describe()
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

/// The catalogue the source serves at `/_api/mcp.json`.
fn read_catalogue(source: &Source) -> std::result::Result<Catalogue, String> {
    let reply = source.get(CATALOGUE_PATH)?;
    if reply.status != 200 {
        return Err(format!("{CATALOGUE_PATH} answered {}", reply.status));
    }
    serde_json::from_slice(&reply.body).map_err(|e| format!("{CATALOGUE_PATH}: {e}"))
}

/// The catalogue this program would write into a site.
fn own_catalogue() -> Catalogue {
    Catalogue::new(
        &contract::openapi(DEFAULT_BASE_URL, None),
        &contract::about(DEFAULT_BASE_URL, None, false),
        false,
    )
}

impl Offer {
    fn new(catalogue: Catalogue) -> std::result::Result<Offer, String> {
        let tools = catalogue
            .tools
            .into_iter()
            .map(|tool| serde_json::from_value::<Tool>(tool).map_err(|e| format!("a tool: {e}")))
            .collect::<std::result::Result<Vec<Tool>, String>>()?;
        if let Some(tool) = tools
            .iter()
            .find(|t| !catalogue.calls.contains_key(&*t.name))
        {
            return Err(format!("no call for the tool {}", tool.name));
        }
        let info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new(
            catalogue.server_info.name,
            catalogue.server_info.version,
        ))
        .with_instructions(catalogue.instructions);
        Ok(Offer {
            info,
            tools,
            calls: catalogue.calls,
            resources: catalogue.resources,
            record_fields: catalogue.record_fields,
            max_result_bytes: catalogue.max_result_bytes,
        })
    }
}

impl ServerHandler for ApiServer {
    fn get_info(&self) -> ServerConfig {
        self.offer.info.clone()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.offer.tools.clone()))
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(super::supported_protocol_versions())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.offer.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        // The error rmcp's tool router gave for a name it does not hold.
        let Some(call) = self.offer.calls.get(&*request.name) else {
            return Err(ErrorData::invalid_params("tool not found", None));
        };
        // A null argument counts as absent, for every rule below (issue 41).
        let mut arguments = request.arguments.unwrap_or_default();
        arguments.retain(|_, value| !value.is_null());
        let (query, asked) = match read_call(call, &self.offer.record_fields, &arguments) {
            Ok(read) => read,
            Err(why) => return Ok(refusal(why).into()),
        };
        if let Some(file) = history_target(call, &arguments) {
            let reply = self.fetch(file).await;
            if reply.as_ref().is_ok_and(|r| r.status == 200) {
                return Ok(tool_result(
                    reply,
                    call.shape,
                    &asked,
                    self.offer.max_result_bytes,
                    None,
                )
                .into());
            }
        }
        let target = if query.is_empty() {
            call.path.clone()
        } else {
            format!("{}?{query}", call.path)
        };
        let reply = self.fetch(target).await;
        if call.shape == Shape::History && reply.as_ref().is_ok_and(|r| r.status == 200) {
            // The model is served, and the site has no history file for it.
            return Ok(refusal(NO_HISTORY.to_string()).into());
        }
        let hint = percent_hint(call, &arguments);
        Ok(tool_result(reply, call.shape, &asked, self.offer.max_result_bytes, hint).into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        let resources: Vec<Resource> = self
            .offer
            .resources
            .iter()
            .map(|r| {
                Resource::new(r.uri.clone(), r.name.clone())
                    .with_description(r.description.clone())
                    .with_mime_type(r.mime_type.clone())
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        let Some(resource) = self.offer.resources.iter().find(|r| r.uri == request.uri) else {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource {}; see resources/list",
                    crate::query::quote_value(&request.uri, crate::query::projection::QUOTED_CHARS)
                ),
                None,
            ));
        };
        let reply = self
            .fetch(resource.path.clone())
            .await
            .map_err(|why| ErrorData::internal_error(why, None))?;
        let text = String::from_utf8(reply.body)
            .ok()
            .filter(|_| reply.status == 200)
            .ok_or_else(|| {
                ErrorData::internal_error(
                    format!("the site answered {} with {}", resource.path, reply.status),
                    None,
                )
            })?;
        Ok(
            ReadResourceResult::new(vec![ResourceContents::text(text, resource.uri.clone())
                .with_mime_type(resource.mime_type.clone())])
            .into(),
        )
    }
}
