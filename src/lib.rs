//! `model-demand` builds a static, read-only JSON API of AI model demand joined with checked
//! model facts and supply, and serves it for preview.
//!
//! Data flows one way: export (+ supply) → [`load`] (the gate) → [`records::derive`] →
//! [`render`] → site → CDN rules; the preview server reads the written site.

// A `pub` item no one outside can name, or a public item without its doc, is an error in CI
// (clippy runs with `-D warnings`): modules the binary, benches and tests do not use are
// private, so that the compiler sees their dead code.
#![warn(unreachable_pub, missing_docs)]

pub mod bundled;
pub mod catalogue;
pub mod charts;
pub mod cli;
pub mod collect;
pub mod commands;
pub mod contract;
mod decimal;
mod digest;
pub mod docs;
pub mod edge;
pub mod error;
pub mod export;
mod fields;
pub mod history;
pub mod json;
pub mod llms;
pub mod manifest;
mod mcp;
pub mod netlify;
mod ownership;
pub mod preview;
pub mod projection;
pub mod query;
pub mod records;
pub mod render;
pub mod sample;
pub mod serve;
pub mod site;
mod sources;
pub mod supply;
pub mod tables;
pub mod validate;
pub mod verify;

use std::path::{Path, PathBuf};

use time::OffsetDateTime;

use crate::error::{Error, Problem, Result};
use crate::export::Export;
use crate::records::ServedModels;
use crate::supply::Supply;

use crate::bundled::Source;
pub use crate::bundled::{SAMPLE_EXPORT, SAMPLE_SUPPLY};

/// Accepted inputs: an export and, optionally, a supply feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inputs {
    /// The accepted export.
    pub export: Export,
    /// The accepted supply feed, when one was given.
    pub supply: Option<Supply>,
    /// The export file's bytes, republished as `/api/export`.
    pub export_bytes: Vec<u8>,
    /// The supply file's bytes, republished as `/api/supply`.
    pub supply_bytes: Option<Vec<u8>>,
}

impl Inputs {
    /// Derives the served models (the records and their head) at `now`.
    pub fn served_models(&self, now: OffsetDateTime) -> ServedModels {
        records::derive(&self.export, self.supply.as_ref(), now)
    }
}

/// Loads and validates the export and the optional supply feed. Both files are checked before
/// failing so that every problem of both is reported at once.
pub fn load(export_path: &Path, supply_path: Option<&Path>) -> Result<Inputs> {
    let supply = supply_path.map(|path| Source::File(path.to_path_buf()));
    load_sources(&Source::File(export_path.to_path_buf()), supply.as_ref())
}

/// [`load`] of inputs that may be files or the copies inside the binary ([`bundled`]).
pub fn load_sources(export_source: &Source, supply_source: Option<&Source>) -> Result<Inputs> {
    let export_name = export_source.name();
    let supply_name = supply_source.map(Source::name);
    let export_path = export_name.as_path();
    let supply_path = supply_name.as_deref();
    let export_bytes = export_source.read()?;
    let supply_bytes = supply_source.map(Source::read).transpose()?;
    let export = json::parse(&export_bytes, export_path).map(|raw| export::validate(&raw));
    let supply = match (supply_path, &supply_bytes) {
        (Some(path), Some(bytes)) => {
            Some(json::parse(bytes, path).map(|raw| supply::validate(&raw)))
        }
        _ => None,
    };
    let mut refused: Vec<(PathBuf, Vec<Problem>)> = Vec::new();
    let export = match export? {
        Ok(export) => Some(export),
        Err(problems) => {
            refused.push((export_path.to_path_buf(), problems));
            None
        }
    };
    let supply = match supply.transpose()? {
        None => Some(None),
        Some(Ok(supply)) => Some(Some(supply)),
        Some(Err(problems)) => {
            refused.push((
                supply_path.unwrap_or(Path::new("supply")).to_path_buf(),
                problems,
            ));
            None
        }
    };
    match (export, supply) {
        (Some(export), Some(supply)) if refused.is_empty() => Ok(Inputs {
            export,
            supply,
            export_bytes,
            supply_bytes,
        }),
        _ => Err(Error::Refused(refused)),
    }
}

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
