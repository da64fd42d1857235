//! The MCP adapter above the site, below the preview (`preview/`): the official Rust SDK (rmcp) answering the
//! site's catalogue (`_api/mcp.json`, see `crate::answers::catalogue`) over a built site (`--dir`) or a
//! published one (`--base-url`). It owns the protocol and nothing of the query rules: a tool
//! call becomes the raw query string a client would send (`tools.rs`), the site's own router
//! (or the CDN) decides it (`source.rs`), and the tool result carries the bytes the site
//! answers (`server.rs`). Two transports: stdio (`stdio.rs`, `model-demand mcp`) and one
//! message at a time for the preview server's `/mcp` ([`answer_one`]).
//!
//! SECURITY: standard output carries protocol messages only; logs go to standard error. With
//! `--base-url` only that host is asked, only at fixed API paths, and redirects are not followed.

mod message;
mod oversized;
mod server;
mod source;
mod stdio;
mod tools;

pub(crate) use message::{read as read_message, Read};
pub(crate) use rmcp::model::{ClientJsonRpcMessage, ProtocolVersion, ServerJsonRpcMessage};
pub(crate) use server::ApiServer;
pub(crate) use source::Source;

use rmcp::model::{ClientRequest, Implementation, InitializeRequestParams};
use rmcp::RoleServer;

use crate::base::error::{Error, Result};

/// The protocol versions served: rmcp's known versions that have the `initialize` handshake
/// (2024-11-05 to 2025-11-25). An `initialize` naming another is answered with the newest.
pub(crate) fn supported_protocol_versions() -> &'static [ProtocolVersion] {
    ProtocolVersion::known_up_to(&ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// Serves the MCP protocol on standard input and output, answering from `source`, until the
/// client closes standard input (then `Ok`).
pub(crate) fn run(source: Source) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|why| Error::McpRuntime { why })?;
    let server = ApiServer::new(source);
    runtime.block_on(stdio::serve(server))
}

/// Answers one message that stands alone (the stateless Streamable HTTP transport): a request
/// gets its response or error; a notification or a client's response gets nothing. `version`
/// is the protocol version the request is made under (the `MCP-Protocol-Version` header, or the
/// transport's default), which shapes results as rmcp shapes them for that version.
///
/// Runs rmcp's service over a one-message transport on this thread's own runtime (made on the
/// thread's first call), so the caller blocks until the answer is ready.
pub(crate) fn answer_one(
    server: &ApiServer,
    message: ClientJsonRpcMessage,
    version: ProtocolVersion,
) -> Option<ServerJsonRpcMessage> {
    let ClientJsonRpcMessage::Request(request) = &message else {
        return None;
    };
    let version = match &request.request {
        ClientRequest::InitializeRequest(init) => init.params.protocol_version.clone(),
        _ => version,
    };
    let peer = InitializeRequestParams::new(Default::default(), Implementation::default())
        .with_protocol_version(version);
    thread_local! {
        static RUNTIME: Option<tokio::runtime::Runtime> = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok();
    }
    RUNTIME.with(|runtime| {
        let runtime = runtime.as_ref()?;
        runtime.block_on(async {
            let (transport, mut answers) =
                rmcp::transport::OneshotTransport::<RoleServer>::new(message);
            let running = rmcp::service::serve_directly(server.clone(), transport, Some(peer));
            let mut answer = None;
            while let Some(sent) = answers.recv().await {
                if matches!(
                    sent,
                    ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_)
                ) {
                    answer = Some(sent);
                    break;
                }
            }
            // The transport ends once it has sent the answer; the service ends with it.
            let _ = running.waiting().await;
            answer
        })
    })
}
