//! The two files `collect` writes: export v1 and supply v1 assembled in their documented member
//! order, checked by the same gate as `check`, then renamed into place (DESIGN §9).
//!
//! An existing `export.json` or `supply.json` is replaced only when this program wrote it: a
//! record beside them (`.model-demand-collect.json`) holds the SHA-256 of what it wrote last.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::base::digest::sha256_hex;
use crate::base::error::{Error, Result};
use crate::input::export::{Fact, EXPORT_SCHEMA_VERSION, FACTS};
use crate::input::sources::DEMAND_SOURCE;
use crate::input::supply::SUPPLY_SCHEMA_VERSION;
use crate::input::validate::{format_date, Timestamp};

use super::openrouter::{DemandDay, SupplyEndpoint};
use super::CollectError;
use super::CollectedRoute;

/// The export's file name in `--out`.
pub(super) const EXPORT_FILE: &str = "export.json";
/// The supply feed's file name in `--out`.
pub(super) const SUPPLY_FILE: &str = "supply.json";
/// The record of what `collect` last wrote in a directory.
pub(super) const RECORD_FILE: &str = ".model-demand-collect.json";
const RECORD_SCHEMA: &str = "model-demand.collect-record.v1";

/// What the export is made of.
pub(super) struct ExportParts<'a> {
    /// The run's clock.
    pub generated_at: &'a Timestamp,
    /// End of the last completed day.
    pub evaluation_cutoff: &'a Timestamp,
    /// Cutoff plus the policy's hours.
    pub fresh_until: &'a Timestamp,
    /// When a person reviewed the terms.
    pub checked_at: &'a Timestamp,
    /// `meta.as_of`, verbatim.
    pub as_of: &'a str,
    /// Every day, sorted.
    pub days: &'a [DemandDay],
    /// The served models' facts, by model ID.
    pub facts: &'a BTreeMap<String, Vec<Fact>>,
}

/// What the supply feed is made of.
pub(super) struct SupplyParts<'a> {
    /// The previous feed's collections, as JSON values (carried byte-faithfully).
    pub previous: Option<&'a Vec<Value>>,
    /// The run's clock: the new collection's start and finish.
    pub now: &'a Timestamp,
    /// The new collection's routes, `None` when it failed.
    pub routes: Option<&'a [CollectedRoute]>,
}

/// The export v1 document.
pub(super) fn export_json(parts: &ExportParts<'_>) -> Value {
    let days: Vec<Value> = parts
        .days
        .iter()
        .map(|day| {
            json!({
                "date": format_date(day.date),
                "other_tokens": day.other_tokens.map(|n| n.to_string()),
                "rows": day.rows.iter().map(|(id, tokens)| json!({
                    "model_id": id,
                    "total_tokens": tokens.to_string(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let models: Vec<Value> = parts
        .facts
        .iter()
        .map(|(id, facts)| {
            let mut members = Map::new();
            for (spec, fact) in FACTS.iter().zip(facts) {
                members.insert(
                    spec.name.to_string(),
                    json!({
                        "value": fact.value,
                        "state": fact.state.as_str(),
                        "reason": fact.reason,
                        "source_url": fact.source_url,
                    }),
                );
            }
            json!({
                "model_id": id,
                "model_release_id": super::openrouter::release_id(id),
                "facts": members,
            })
        })
        .collect();
    json!({
        "export_schema_version": EXPORT_SCHEMA_VERSION,
        "generated_at": parts.generated_at.as_str(),
        "evaluation_cutoff": parts.evaluation_cutoff.as_str(),
        "fresh_until": parts.fresh_until.as_str(),
        "demand_source": {
            "name": DEMAND_SOURCE.name,
            "url": DEMAND_SOURCE.url,
            "terms_url": DEMAND_SOURCE.terms_url,
            "checked_at": parts.checked_at.as_str(),
            "license": DEMAND_SOURCE.license,
            "attribution": format!(
                "Source: OpenRouter (openrouter.ai/rankings), as of {}. Licensed under CC BY 4.0.",
                parts.as_of
            ),
        },
        "days": days,
        "models": models,
    })
}

fn endpoint_json(e: &SupplyEndpoint) -> Value {
    json!({
        "provider": e.provider,
        "quantization": e.quantization,
        "context_length": e.context_length,
        "input_price_per_million": e.input_price_per_million,
        "output_price_per_million": e.output_price_per_million,
        "latency_ms": e.latency_ms,
        "throughput_tokens_per_second": e.throughput_tokens_per_second,
        "uptime_percent": e.uptime_percent,
    })
}

/// The supply v1 document: the previous collections finished within 35 days of the run (and
/// not at the run's own instant), then the new one.
pub(super) fn supply_json(parts: &SupplyParts<'_>) -> Value {
    let oldest = parts.now.instant() - time::Duration::days(super::SUPPLY_HISTORY_DAYS);
    let mut collections: Vec<(Timestamp, Value)> = parts
        .previous
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let finished = Timestamp::parse(c.get("finished_at")?.as_str()?)?;
            (finished.instant() >= oldest && finished != *parts.now).then(|| (finished, c.clone()))
        })
        .collect();
    let routes: Vec<Value> = parts
        .routes
        .unwrap_or_default()
        .iter()
        .map(|r| {
            let mut route = json!({
                "route_id": r.route_id,
                "model_id": r.model_id,
                "route_type": r.route_type.as_str(),
            });
            // A route that failed alone says so; its endpoints are unknown this run.
            if r.failure.is_some() {
                route["status"] = json!("failed");
            }
            route["endpoints"] = json!(r.endpoints.iter().map(endpoint_json).collect::<Vec<_>>());
            route
        })
        .collect();
    collections.push((
        parts.now.clone(),
        json!({
            "started_at": parts.now.as_str(),
            "finished_at": parts.now.as_str(),
            "status": if parts.routes.is_some() { "complete" } else { "failed" },
            "routes": routes,
        }),
    ));
    collections.sort_by(|a, b| a.0.cmp(&b.0));
    json!({
        "supply_schema_version": SUPPLY_SCHEMA_VERSION,
        "collections": collections.into_iter().map(|(_, c)| c).collect::<Vec<_>>(),
    })
}

/// Reads a previous supply feed through the gate and returns its collections as JSON values.
pub(super) fn read_previous_supply(path: &Path) -> Result<Vec<Value>> {
    let bytes = std::fs::read(path).map_err(|e| Error::io("cannot read", path, e))?;
    let raw = crate::input::json::parse(&bytes, path)?;
    crate::input::supply::validate(&raw)
        .map_err(|p| Error::Refused(vec![(path.to_path_buf(), p)]))?;
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|why| CollectError::PreviousSupply {
            path: path.to_path_buf(),
            why,
        })?;
    Ok(value
        .get("collections")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default())
}

fn to_bytes(value: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("JSON values always serialize");
    bytes.push(b'\n');
    bytes
}

/// Writes both files into `out` atomically, only after the pair passes the gate; an existing
/// file this program did not write is refused untouched.
pub(super) fn write_pair(
    out: &Path,
    export: &ExportParts<'_>,
    supply: &SupplyParts<'_>,
) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|e| Error::io("cannot create", out, e))?;
    let record = read_record(out);
    for name in [EXPORT_FILE, SUPPLY_FILE] {
        let path = out.join(name);
        if let Ok(existing) = std::fs::read(&path) {
            let digest = sha256_hex(&existing);
            if !record
                .get(name)
                .is_some_and(|known| known.contains(&digest))
            {
                return Err(Error::NotReplaceable {
                    path,
                    why: format!(
                        "it was not written by model-demand collect (no matching {RECORD_FILE})"
                    ),
                });
            }
        } else if path.exists() {
            return Err(Error::NotReplaceable {
                path,
                why: "it is not a readable file".to_string(),
            });
        }
    }
    let files = [
        (EXPORT_FILE, to_bytes(&export_json(export))),
        (SUPPLY_FILE, to_bytes(&supply_json(supply))),
    ];
    let temps: Vec<PathBuf> = files
        .iter()
        .map(|(name, _)| out.join(format!(".{name}.tmp-{}", std::process::id())))
        .collect();
    let cleanup = |temps: &[PathBuf]| {
        for t in temps {
            let _ = std::fs::remove_file(t);
        }
    };
    for ((_, bytes), temp) in files.iter().zip(&temps) {
        if let Err(e) = std::fs::write(temp, bytes) {
            cleanup(&temps);
            return Err(Error::io("cannot write", temp, e));
        }
    }
    // The same gate as `check`: the written pair, not the values in memory.
    if let Err(e) = crate::input::load(&temps[0], Some(&temps[1])) {
        cleanup(&temps);
        return Err(e);
    }
    let mut record_json = Map::new();
    record_json.insert("schema_version".into(), RECORD_SCHEMA.into());
    // Both the new digest and the one recorded before: if a rename below fails, the file left
    // in place is still recognised as ours next time.
    for (name, bytes) in &files {
        let mut known = vec![sha256_hex(bytes)];
        known.extend(record.get(*name).into_iter().flatten().take(1).cloned());
        record_json.insert((*name).into(), known.into());
    }
    let record_path = out.join(RECORD_FILE);
    std::fs::write(&record_path, to_bytes(&Value::Object(record_json)))
        .map_err(|e| Error::io("cannot write", &record_path, e))?;
    for ((name, _), temp) in files.iter().zip(&temps) {
        let path = out.join(name);
        if let Err(e) = std::fs::rename(temp, &path) {
            cleanup(&temps);
            return Err(Error::io("cannot move into place", path, e));
        }
    }
    Ok(())
}

fn read_record(out: &Path) -> BTreeMap<String, Vec<String>> {
    let Ok(bytes) = std::fs::read(out.join(RECORD_FILE)) else {
        return BTreeMap::new();
    };
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(&bytes) else {
        return BTreeMap::new();
    };
    if map.get("schema_version").and_then(Value::as_str) != Some(RECORD_SCHEMA) {
        return BTreeMap::new();
    }
    map.into_iter()
        .filter_map(|(k, v)| {
            let digests = v.as_array()?.iter().filter_map(Value::as_str);
            Some((k, digests.map(str::to_string).collect()))
        })
        .collect()
}
