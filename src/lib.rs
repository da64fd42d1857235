//! `model-demand` builds a static, read-only JSON API of AI model demand joined with checked
//! model facts and supply, and serves it for preview.
//!
//! The modules are the data's path, in its order (docs/internals.md, "The data's path"):
//! [`collect`] makes the two inputs from the public sources; [`input`] loads them through the
//! gate; [`records`] derives the model records and [`query`] the query rules over them;
//! [`answers`] renders every answer's bytes (the API, the page, the charts, the tables, the
//! contract); [`site`] writes them as files with the CDN's rules and answers from a written site
//! as the CDN does; `agents` serves the tools of the Model Context Protocol over it;
//! [`preview`] is the local server. [`base`] holds what every stage uses (the error type, exact
//! decimals, digests); [`cli`], [`commands`] and [`verify`] are the program around them. A
//! module imports only from its own stage or the ones before it (`tests/it/house.rs`).

// A `pub` item no one outside can name, or a public item without its doc, is an error in CI
// (clippy runs with `-D warnings`): modules the binary, benches and tests do not use are
// private, so that the compiler sees their dead code.
#![warn(unreachable_pub, missing_docs)]

mod agents;
pub mod answers;
pub mod base;
pub mod cli;
pub mod collect;
pub mod commands;
pub mod input;
pub mod preview;
pub mod query;
pub mod records;
pub mod site;
pub mod verify;

use time::OffsetDateTime;

use crate::base::error::{Error, Result};
use crate::records::ServedModels;

pub use crate::input::bundled::{SAMPLE_EXPORT, SAMPLE_SUPPLY};
pub use crate::input::{load, load_sources, Inputs};

/// Parses a `--now` value (RFC 3339, any offset) into a UTC instant.
pub fn parse_now(text: &str) -> Result<OffsetDateTime> {
    OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .map(|t| t.to_offset(time::UtcOffset::UTC))
        .map_err(|e| {
            Error::Usage(format!(
                "--now must be an RFC 3339 timestamp such as 2026-11-21T12:00:00Z ({e})"
            ))
        })
}

/// The one-line summary `check` prints for accepted inputs.
pub fn summary(inputs: &Inputs, catalog: &ServedModels) -> String {
    let head = &catalog.head;
    let supply = match &inputs.supply {
        Some(s) if !s.collections.is_empty() => {
            format!("supply: {} collection(s)", s.collections.len())
        }
        _ => "supply: not collected".to_string(),
    };
    format!(
        "accepted: {} model(s) served, window {} to {} ({} days), freshness {} ({}), {}",
        catalog.records.len(),
        head.window.start_date,
        head.window.end_date,
        head.window.days,
        head.freshness.state,
        head.freshness.reason,
        supply
    )
}
