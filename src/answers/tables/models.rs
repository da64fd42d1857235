//! `models.csv`: one row per served model, one column per value of the model record. The
//! columns are read off the field table behind `/api/v1/about` (`fields.rs`), and each cell off
//! the record's own JSON, so a value's text in the table is the API's string and a column
//! cannot drift from the field it shows.
//!
//! Naming (docs/decisions.md): a value object `x` gives `x`, `x_state`, `x_reason` (and
//! `x_source_url` for a fact); its `unit` is in the column's description. The members of the
//! facts and of the supply summary keep their own names, which are unique in the record; the
//! members of the trend and of the supply object take its name as a prefix (`trend_direction`,
//! `supply_state`).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::Value;

use super::csv::{CsvWriter, Written};
use super::open_weights;
use super::schema::{Column, ColumnType, TableSpec};
use crate::answers::fields::{
    self, Field, Kind, Rule, DATE, DECIMAL_STRING, INTEGER_STRING, SIGNED_DECIMAL_STRING, TIMESTAMP,
};
use crate::records::ModelRecord;

/// Where the record's fields sit in the model response's field table.
const RECORD: &str = "models[].";

/// A column of `models.csv` and where its value is in the record's JSON.
#[derive(Debug, Clone)]
pub(crate) struct ModelColumn {
    /// The column.
    pub column: Column,
    /// The members leading to the value (`["facts", "total_parameters", "value"]`).
    pub path: Vec<String>,
}

/// The column a field of the record becomes, by its path under the record (`latest_tokens.value`);
/// `None` for a field that is no value of its own (an object, a value object's fixed `unit`, an
/// array's items).
pub(crate) fn column_name(path: &str) -> Option<String> {
    if path.contains("[]") {
        return None;
    }
    let own = path
        .strip_prefix("facts.")
        .or_else(|| path.strip_prefix("supply.summary."))
        .unwrap_or(path);
    let parts: Vec<&str> = own.split('.').collect();
    match parts.as_slice() {
        [.., "unit"] if parts.len() > 1 => None,
        [base @ .., "value"] if !base.is_empty() => Some(base.join("_")),
        _ => Some(parts.join("_")),
    }
}

/// The column type of a field: its JSON type, or for a string the form its pattern fixes.
fn column_type(field: &Field) -> ColumnType {
    match (field.kind, &field.rule) {
        (Kind::Integer, _) => ColumnType::Integer,
        (Kind::Boolean, _) => ColumnType::Boolean,
        (Kind::Array, _) => ColumnType::Array,
        (_, Rule::Pattern(p)) if *p == INTEGER_STRING => ColumnType::Integer,
        (_, Rule::Pattern(p)) if *p == DECIMAL_STRING || *p == SIGNED_DECIMAL_STRING => {
            ColumnType::Number
        }
        (_, Rule::Pattern(p)) if *p == DATE => ColumnType::Date,
        (_, Rule::Pattern(p)) if *p == TIMESTAMP => ColumnType::Datetime,
        _ => ColumnType::String,
    }
}

/// Every column of `models.csv`, in the field table's order.
pub(crate) fn columns() -> Vec<ModelColumn> {
    let table = fields::model_response_fields();
    let nullable: BTreeMap<&str, bool> = table
        .iter()
        .map(|f| (f.path.as_str(), f.nullable))
        .collect();
    let mut out = Vec::new();
    for field in &table {
        let Some(path) = field.path.strip_prefix(RECORD) else {
            continue;
        };
        if field.kind == Kind::Object {
            continue;
        }
        let Some(name) = column_name(path) else {
            continue;
        };
        // A member of a nullable object (the supply summary) is empty whenever that object is null.
        let mut ancestors = path.match_indices('.').map(|(i, _)| &path[..i]);
        let in_nullable = ancestors.any(|a| {
            nullable
                .get(format!("{RECORD}{a}").as_str())
                .copied()
                .unwrap_or(false)
        });
        let kind = column_type(field);
        let mut description = field.description.clone();
        if let Some((base, member)) = name.rsplit_once('_').filter(|(base, member)| {
            matches!(*member, "state" | "reason")
                && out.iter().any(|c: &ModelColumn| c.column.name == *base)
        }) {
            description = format!("{member} of {base}: {description}");
        } else if let Some(base) = name.strip_suffix("_source_url") {
            description = format!("source_url of {base}: {description}");
        }
        if in_nullable {
            description
                .push_str(" Empty when supply_state is not available (the summary is null).");
        } else if field.nullable {
            description.push_str(" An empty cell is the API's null.");
        }
        let allowed = match &field.rule {
            Rule::OneOf(values) if kind == ColumnType::String => Some(values.clone()),
            _ => None,
        };
        let range = match field.rule {
            Rule::Range(low, high) if kind == ColumnType::Integer => Some((low, high)),
            _ => None,
        };
        let pattern = match field.rule {
            Rule::Pattern(p) if kind == ColumnType::String => Some(p),
            _ => None,
        };
        out.push(ModelColumn {
            column: Column {
                name,
                kind,
                description,
                required: !field.nullable && !in_nullable,
                allowed,
                range,
                pattern,
                // Every ratio and supply decimal has at most 12 fractional digits; a median of
                // two of them (the supply summary's) one more.
                scale: if path.starts_with("supply.summary.") {
                    crate::base::decimal::SUPPLY_FRACTION_DIGITS as u32 + 1
                } else {
                    crate::base::decimal::RATIO_DIGITS as u32
                },
            },
            path: path.split('.').map(str::to_string).collect(),
        });
    }
    out
}

/// The table's description, keys and sources.
pub(crate) fn spec(columns: &[ModelColumn], sources: Vec<Value>) -> TableSpec {
    TableSpec {
        name: "models",
        title: "Model records",
        description: "One row per model served in the 30-day window: every value of its record \
in /api/v1/models (demand, trend, the twelve facts, supply state and summary), one column each, \
with its state and reason beside every value that can be unknown. An empty cell is unknown, \
never zero: its _state and _reason columns say why. Decimals are the API's exact strings. \
Terms differ by column: demand and trend columns are OpenRouter's rankings (CC BY 4.0, with \
the attribution the package states); facts come from Hugging Face repository files whose \
licences vary per model (each fact's _source_url pins its evidence); supply columns come from \
OpenRouter's catalog and endpoints, under OpenRouter's terms (no licence)."
            .to_string(),
        columns: columns
            .iter()
            .map(|c| c.column.clone())
            .chain(open_weights::columns())
            .collect(),
        primary_key: &["model_id"],
        foreign_keys: Vec::new(),
        demand_only: false,
        sources,
    }
}

/// A JSON value as a cell: a string as it is, a number or a boolean as JSON writes it, an array
/// as compact JSON, null or a missing member as an empty cell.
fn cell(value: Option<&Value>) -> Option<Cow<'_, str>> {
    match value? {
        Value::Null => None,
        Value::String(text) => Some(Cow::Borrowed(text)),
        Value::Bool(true) => Some(Cow::Borrowed("true")),
        Value::Bool(false) => Some(Cow::Borrowed("false")),
        other => Some(Cow::Owned(other.to_string())),
    }
}

/// `models.csv` of `records`, in their order (model ID).
pub(crate) fn models_csv(
    spec: &TableSpec,
    columns: &[ModelColumn],
    records: &[ModelRecord],
) -> Written {
    let mut csv = CsvWriter::new(&spec.columns);
    for record in records {
        // The record's JSON is the API's: the same serialization every answer is made of.
        let json = serde_json::to_value(record).unwrap_or(Value::Null);
        let derived = open_weights::cells(&json);
        let cells: Vec<Option<Cow<'_, str>>> = columns
            .iter()
            .map(|c| {
                let value = c
                    .path
                    .iter()
                    .try_fold(&json, |at, member| at.get(member.as_str()));
                cell(value)
            })
            .chain(derived.iter().map(|d| d.as_deref().map(Cow::Borrowed)))
            .collect();
        csv.row(cells.iter().map(|c| c.as_deref()));
    }
    csv.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_record() {
        for (path, name) in [
            ("model_id", Some("model_id")),
            ("latest_rank.value", Some("latest_rank")),
            ("latest_rank.state", Some("latest_rank_state")),
            ("tokens_30d.unit", None),
            ("trend.direction", Some("trend_direction")),
            (
                "trend.percentage_point_change",
                Some("trend_percentage_point_change"),
            ),
            (
                "facts.attention_bytes_per_token.value",
                Some("attention_bytes_per_token"),
            ),
            (
                "facts.total_parameters.source_url",
                Some("total_parameters_source_url"),
            ),
            ("supply.state", Some("supply_state")),
            ("supply.summary.route_id", Some("route_id")),
            (
                "supply.summary.median_output_price_per_million.value",
                Some("median_output_price_per_million"),
            ),
            ("supply.summary.quantizations", Some("quantizations")),
            ("supply.summary.quantizations[]", None),
        ] {
            assert_eq!(column_name(path).as_deref(), name, "{path}");
        }
    }

    #[test]
    fn columns_are_unique_snake_case_and_typed() {
        let columns = columns();
        let mut names: Vec<&str> = columns.iter().map(|c| c.column.name.as_str()).collect();
        for name in &names {
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                    && name.starts_with(|c: char| c.is_ascii_lowercase()),
                "{name}"
            );
        }
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "column names are unique");
        let kind = |name: &str| {
            columns
                .iter()
                .find(|c| c.column.name == name)
                .map(|c| c.column.kind)
        };
        assert_eq!(kind("latest_rank"), Some(ColumnType::Integer));
        assert_eq!(kind("tokens_30d"), Some(ColumnType::Integer));
        assert_eq!(kind("share_30d"), Some(ColumnType::Number));
        assert_eq!(kind("trend_relative_change"), Some(ColumnType::Number));
        assert_eq!(kind("total_parameters"), Some(ColumnType::Integer));
        assert_eq!(kind("architecture_type"), Some(ColumnType::String));
        assert_eq!(kind("first_visible_date"), Some(ColumnType::Date));
        assert_eq!(kind("collection_finished_at"), Some(ColumnType::Datetime));
        assert_eq!(kind("history_ready"), Some(ColumnType::Boolean));
        assert_eq!(
            kind("median_output_price_per_million"),
            Some(ColumnType::Number)
        );
        assert_eq!(kind("maximum_context_tokens"), Some(ColumnType::Integer));
        assert_eq!(kind("quantizations"), Some(ColumnType::Array));
        // Beside each value that can be unknown, its state and reason.
        for c in &columns {
            let base = &c.column.name;
            let is_value = c.path.last().is_some_and(|m| m == "value");
            if is_value {
                assert!(kind(&format!("{base}_state")).is_some(), "{base}_state");
                assert!(kind(&format!("{base}_reason")).is_some(), "{base}_reason");
            }
        }
        let required = |name: &str| {
            columns
                .iter()
                .any(|c| c.column.name == name && c.column.required)
        };
        assert!(required("model_id") && required("supply_state") && required("trend_direction"));
        assert!(!required("route_id") && !required("listed_endpoints_state"));
    }
}
