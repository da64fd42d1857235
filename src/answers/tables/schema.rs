//! What a table is: its columns (name, type, description with the unit, constraints), keys
//! and sources; the one list both its CSV header and its Frictionless table schema are made
//! from.

use serde_json::{json, Map, Value};

/// A column's type, as a Frictionless table schema names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ColumnType {
    /// Digits, with a `-` when negative.
    Integer,
    /// A plain decimal, the API's exact string.
    Number,
    /// Text.
    String,
    /// `YYYY-MM-DD`.
    Date,
    /// `YYYY-MM-DDTHH:MM:SSZ`, UTC.
    Datetime,
    /// `true` or `false`.
    Boolean,
    /// A JSON array.
    Array,
}

impl ColumnType {
    /// The Frictionless type name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ColumnType::Integer => "integer",
            ColumnType::Number => "number",
            ColumnType::String => "string",
            ColumnType::Date => "date",
            ColumnType::Datetime => "datetime",
            ColumnType::Boolean => "boolean",
            ColumnType::Array => "array",
        }
    }
}

/// One column of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Column {
    /// snake_case, unique in its table, usable unquoted in SQL.
    pub name: String,
    /// Its type.
    pub kind: ColumnType,
    /// What it holds, its unit included.
    pub description: String,
    /// True when no cell of it is ever empty.
    pub required: bool,
    /// The values it may take, when they are a closed list.
    pub allowed: Option<Vec<&'static str>>,
    /// Bounds of an integer column.
    pub range: Option<(u64, u64)>,
    /// A regular expression every value of a text column matches (anchored).
    pub pattern: Option<&'static str>,
    /// Fractional digits a value of a `number` column may have: its Parquet twin's decimal
    /// scale.
    pub scale: u32,
}

impl Column {
    /// A column without constraints beyond `required`.
    pub(crate) fn new(name: &str, kind: ColumnType, required: bool, description: &str) -> Column {
        Column {
            name: name.to_string(),
            kind,
            description: description.to_string(),
            required,
            allowed: None,
            range: None,
            pattern: None,
            scale: crate::base::decimal::RATIO_DIGITS as u32,
        }
    }

    /// The Frictionless field descriptor.
    fn descriptor(&self) -> Value {
        let mut field = Map::new();
        field.insert("name".into(), json!(self.name));
        field.insert("type".into(), json!(self.kind.as_str()));
        field.insert("description".into(), json!(self.description));
        let mut constraints = Map::new();
        if self.required {
            constraints.insert("required".into(), json!(true));
        }
        if let Some(values) = &self.allowed {
            constraints.insert("enum".into(), json!(values));
        }
        if let Some((minimum, maximum)) = self.range {
            constraints.insert("minimum".into(), json!(minimum));
            constraints.insert("maximum".into(), json!(maximum));
        }
        if let Some(pattern) = self.pattern {
            // Frictionless anchors a pattern itself.
            let bare = pattern.trim_start_matches('^').trim_end_matches('$');
            constraints.insert("pattern".into(), json!(bare));
        }
        if !constraints.is_empty() {
            field.insert("constraints".into(), Value::Object(constraints));
        }
        Value::Object(field)
    }
}

/// A reference from columns of one table to the key of another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ForeignKey {
    /// The referring columns.
    pub fields: &'static [&'static str],
    /// The table referred to.
    pub resource: &'static str,
    /// Its columns referred to.
    pub reference: &'static [&'static str],
}

/// A table: its file, what it holds and its columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableSpec {
    /// The resource name (`models`); the file is `NAME.csv`.
    pub name: &'static str,
    /// A title.
    pub title: &'static str,
    /// What a row is, what an empty cell means, and the terms of its data.
    pub description: String,
    /// The columns, in file order.
    pub columns: Vec<Column>,
    /// The columns that identify a row.
    pub primary_key: &'static [&'static str],
    /// References to other tables.
    pub foreign_keys: Vec<ForeignKey>,
    /// True when the whole table is demand data (CC BY 4.0).
    pub demand_only: bool,
    /// The sources its values come from (titles and addresses).
    pub sources: Vec<Value>,
}

impl TableSpec {
    /// The file's name in the tables' directory.
    pub(crate) fn file_name(&self) -> String {
        format!("{}.csv", self.name)
    }

    /// Its Parquet twin's name in the tables' directory.
    pub(crate) fn parquet_name(&self) -> String {
        format!("{}.parquet", self.name)
    }

    /// The Frictionless table schema.
    pub(crate) fn schema(&self) -> Value {
        let foreign_keys: Vec<Value> = self
            .foreign_keys
            .iter()
            .map(|key| {
                json!({
                    "fields": key.fields,
                    "reference": {"resource": key.resource, "fields": key.reference},
                })
            })
            .collect();
        let mut schema = Map::new();
        schema.insert(
            "fields".into(),
            Value::Array(self.columns.iter().map(Column::descriptor).collect()),
        );
        schema.insert("primaryKey".into(), json!(self.primary_key));
        if !foreign_keys.is_empty() {
            schema.insert("foreignKeys".into(), Value::Array(foreign_keys));
        }
        schema.insert("missingValues".into(), json!([""]));
        Value::Object(schema)
    }
}
