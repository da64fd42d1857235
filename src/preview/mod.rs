//! The preview server: [`Site`], a pure router that answers every request exactly as the CDN
//! does from a written site (`router.rs`, with its body cache in `cache.rs`), the MCP endpoint
//! `/mcp` (`mcp.rs`, the MCP adapter `crate::agents` over the same site), and the bounded tiny_http
//! transport around both (`http.rs`). Layers: the router below `crate::agents`, which is below
//! `mcp.rs` and `http.rs`.
//!
//! SECURITY: files are served only from the site's manifest. A request's path is compared with
//! manifest keys and never joined onto a directory; the file opened is the manifest's own path.
//! No request byte is ever copied into a response header: headers are static text, the
//! manifest's digests, or lengths.

mod http;
mod mcp;
mod while_building;

pub use crate::site::cache::CACHE_BYTES;
pub use crate::site::{Answer, Body, Conditions, Site};
pub use http::{
    parse_bind, serve, serving_line, start, Running, ServeOptions, DEFAULT_BIND, DEFAULT_WORKERS,
    IO_TIMEOUT,
};
pub use mcp::{ALLOWED_HEADERS, MAX_BODY_BYTES};
pub use while_building::{
    local_base_url, serve_while_building, serve_while_building_for, WRITTEN_BY,
};
