//! The two inputs and their gate: export v1 and the optional supply v1, read from a file or
//! from the copies inside the binary into the raw JSON tree, and checked into typed values or
//! refused with every problem of both at its JSON path. Everything after this stage reads only
//! accepted inputs.

pub mod bundled;
pub mod export;
pub mod json;
pub mod sample;
pub(crate) mod sources;
pub mod supply;
pub mod validate;

use std::path::{Path, PathBuf};

use crate::base::error::{Error, Problem, Result};
use crate::input::bundled::Source;
use crate::input::export::Export;
use crate::input::supply::Supply;

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
