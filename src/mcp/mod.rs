//! `model-demand mcp`: a Model Context Protocol server on stdio (the official Rust SDK, rmcp)
//! over a built site (`--dir`) or a published one (`--base-url`). It owns the protocol and
//! nothing of the query rules: a tool call becomes the raw query string a client would send
//! (`tools.rs`), the site's own router (or the CDN) decides it (`source.rs`), and the tool
//! result carries the bytes the site answers (`server.rs`).
//!
//! SECURITY: standard output carries protocol messages only; logs go to standard error. With
//! `--base-url` only that host is asked, only at fixed API paths, and redirects are not followed.

mod prepared;
mod server;
mod source;
mod tools;
mod transport;

pub use source::{Reply, Source, FETCH_TIMEOUT};
pub use tools::{input_schema, instructions, output_schema, raw_query};

use crate::error::{Error, Result};

/// The tools, in the order `tools/list` gives them, with what each answers with.
pub const TOOLS: [(&str, &str); 3] = [
    (
        "get_contract",
        "the exact body of GET /api/v1/about: routes, parameters, every field, states, sources, agent instructions",
    ),
    (
        "list_models",
        "the exact body of GET /api/v1/models with the given sort, order, limit and offset: a ranked page",
    ),
    (
        "get_model",
        "the exact body of GET /api/v1/models?model_id=...: one model by exact ID",
    ),
];

/// The entry MCP clients take in their configuration to start this server against the site at
/// `base_url` (the program on `PATH` as `model-demand`).
pub fn client_config(base_url: &str) -> String {
    let base =
        serde_json::to_string(base_url.trim_end_matches('/')).expect("a string always serializes");
    format!(
        "{{\n  \"mcpServers\": {{\n    \"model-demand\": {{\n      \"command\": \"model-demand\",\n      \"args\": [\"mcp\", \"--base-url\", {base}]\n    }}\n  }}\n}}"
    )
}

/// Serves the MCP protocol on standard input and output, answering from `source`, until the
/// client closes standard input (then `Ok`).
pub fn run(source: Source) -> Result<()> {
    let (queue, writer) = transport::Writer::start(std::io::stdout());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Usage(format!("cannot start the MCP server's runtime: {e}")))?;
    let served = runtime.block_on(server::serve_stdio(source, queue));
    // The runtime's end drops every queued send still held by a task; then the writer ends.
    drop(runtime);
    let written = writer
        .finish()
        .map_err(|e| Error::Usage(format!("MCP session ended: standard output: {e}")));
    served.and(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_config_is_json_naming_the_site() {
        let config: serde_json::Value =
            serde_json::from_str(&client_config("https://x.test/")).expect("JSON");
        let server = &config["mcpServers"]["model-demand"];
        assert_eq!(server["command"], "model-demand");
        assert_eq!(
            server["args"],
            serde_json::json!(["mcp", "--base-url", "https://x.test"])
        );
    }
}
