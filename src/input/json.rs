//! The raw side of input: a JSON tree that keeps duplicate keys, plus path-aware accessors
//! that record every problem instead of stopping at the first.
//!
//! serde's derived structs stop at the first error and silently keep the last of two duplicate
//! keys; the gate must report every problem with its JSON path, so inputs are first read into
//! this loose tree and then checked member by member (see `export/` and `supply.rs`).

use std::fmt;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::base::error::{Error, Problem, Result};

/// A parsed JSON value; objects keep their members in document order, duplicates included.
#[derive(Debug, Clone, PartialEq)]
pub enum Raw {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// Any JSON number, as serde_json read it.
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Raw>),
    /// An object, members in document order.
    Object(Vec<(String, Raw)>),
}

impl Raw {
    /// A short rendering of the value for messages (`got "-5"`), cut to stay readable.
    pub fn describe(&self) -> String {
        let text = match self {
            Raw::Null => "null".to_string(),
            Raw::Bool(b) => b.to_string(),
            Raw::Number(n) => n.to_string(),
            Raw::String(s) => serde_json::to_string(s).unwrap_or_default(),
            Raw::Array(_) => "an array".to_string(),
            Raw::Object(_) => "an object".to_string(),
        };
        if text.chars().count() > 80 {
            let cut: String = text.chars().take(77).collect();
            format!("{cut}...")
        } else {
            text
        }
    }
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Raw, D::Error> {
        struct RawVisitor;
        impl<'de> Visitor<'de> for RawVisitor {
            type Value = Raw;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> std::result::Result<Raw, E> {
                Ok(Raw::Null)
            }
            fn visit_bool<E>(self, v: bool) -> std::result::Result<Raw, E> {
                Ok(Raw::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> std::result::Result<Raw, E> {
                Ok(Raw::Number(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> std::result::Result<Raw, E> {
                Ok(Raw::Number(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> std::result::Result<Raw, E> {
                // Non-finite values cannot come out of JSON text; null keeps the type honest.
                Ok(serde_json::Number::from_f64(v).map_or(Raw::Null, Raw::Number))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<Raw, E> {
                Ok(Raw::String(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> std::result::Result<Raw, E> {
                Ok(Raw::String(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Raw, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Raw::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Raw, A::Error> {
                let mut members = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, Raw>()? {
                    members.push((key, value));
                }
                Ok(Raw::Object(members))
            }
        }
        deserializer.deserialize_any(RawVisitor)
    }
}

/// Parses JSON text; a syntax error names the file, line and column.
pub fn parse(text: &[u8], path: &Path) -> Result<Raw> {
    serde_json::from_slice(text).map_err(|e| {
        // serde_json's text ends with its own "at line L column C"; the error prints the
        // location once, in its own words.
        let full = e.to_string();
        let location = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&location).unwrap_or(&full).to_string();
        Error::Syntax {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message,
        }
    })
}

/// Reads and parses a JSON file.
pub fn read(path: &Path) -> Result<Raw> {
    let bytes = std::fs::read(path).map_err(|e| Error::io("cannot read", path, e))?;
    parse(&bytes, path)
}

/// Extends a JSON path with a member name (`$.a` + `b` = `$.a.b`; odd names are quoted).
pub fn member_path(parent: &str, name: &str) -> String {
    let plain = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        format!("{parent}.{name}")
    } else {
        let quoted = serde_json::to_string(name).unwrap_or_default();
        format!("{parent}[{quoted}]")
    }
}

/// Extends a JSON path with an array index.
pub fn index_path(parent: &str, index: usize) -> String {
    format!("{parent}[{index}]")
}

/// Collects problems while a document is walked.
#[derive(Debug, Default)]
pub struct Problems {
    list: Vec<Problem>,
}

impl Problems {
    /// Records a problem.
    pub fn add(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.list.push(Problem::new(path, message));
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The recorded problems, in the order they were found.
    pub fn into_vec(self) -> Vec<Problem> {
        self.list
    }

    /// Checks that `value` is an object with exactly the allowed members (duplicates and
    /// unknown members are problems) and returns an accessor; `None` when it is no object.
    pub fn object<'a>(&mut self, path: &str, value: &'a Raw, allowed: &[&str]) -> Option<Obj<'a>> {
        let Raw::Object(members) = value else {
            self.add(path, format!("must be an object, got {}", value.describe()));
            return None;
        };
        for (i, (name, _)) in members.iter().enumerate() {
            let at = member_path(path, name);
            if !allowed.contains(&name.as_str()) {
                self.add(
                    at,
                    format!("unknown member (allowed: {})", allowed.join(", ")),
                );
            } else if members[..i].iter().any(|(other, _)| other == name) {
                self.add(at, "duplicate member: each member may appear once");
            }
        }
        Some(Obj {
            path: path.to_string(),
            members,
        })
    }

    /// Checks that `value` is an array and returns its items.
    pub fn array<'a>(&mut self, path: &str, value: &'a Raw) -> Option<&'a [Raw]> {
        match value {
            Raw::Array(items) => Some(items),
            other => {
                self.add(path, format!("must be an array, got {}", other.describe()));
                None
            }
        }
    }

    /// Checks that `value` is a string and returns it.
    pub fn string<'a>(&mut self, path: &str, value: &'a Raw) -> Option<&'a str> {
        match value {
            Raw::String(s) => Some(s),
            other => {
                self.add(path, format!("must be a string, got {}", other.describe()));
                None
            }
        }
    }

    /// Checks that `value` is a non-empty string and returns it.
    pub fn non_empty_string<'a>(&mut self, path: &str, value: &'a Raw) -> Option<&'a str> {
        let s = self.string(path, value)?;
        if s.is_empty() {
            self.add(path, "must be a non-empty string");
            return None;
        }
        Some(s)
    }
}

/// A checked object: member access by name, with the path of each member at hand.
#[derive(Debug, Clone)]
pub struct Obj<'a> {
    path: String,
    members: &'a [(String, Raw)],
}

impl<'a> Obj<'a> {
    /// The path of this object.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The path of member `name`.
    pub fn at(&self, name: &str) -> String {
        member_path(&self.path, name)
    }

    /// The first value of member `name`, if present.
    pub fn get(&self, name: &str) -> Option<&'a Raw> {
        self.members
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value)
    }

    /// Member `name`, recording a problem when it is missing.
    pub fn required(&self, problems: &mut Problems, name: &str) -> Option<&'a Raw> {
        let value = self.get(name);
        if value.is_none() {
            problems.add(self.at(name), "required member is missing");
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_kept_and_reported() {
        let raw = parse(br#"{"a":1,"a":2}"#, Path::new("x.json")).expect("valid JSON");
        let mut problems = Problems::default();
        problems.object("$", &raw, &["a"]);
        let list = problems.into_vec();
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].path, "$.a");
        assert!(list[0].message.contains("duplicate"));
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let err = parse(b"{\n  \"a\": ,\n}", Path::new("x.json")).expect_err("invalid JSON");
        match err {
            Error::Syntax {
                line,
                column,
                message,
                ..
            } => {
                assert_eq!((line, column), (2, 8));
                assert_eq!(message, "expected value");
            }
            other => panic!("unexpected error {other:?}"),
        }
    }

    #[test]
    fn odd_member_names_are_quoted_in_paths() {
        assert_eq!(member_path("$", "days"), "$.days");
        assert_eq!(member_path("$", "a b"), "$[\"a b\"]");
        assert_eq!(member_path("$", "1x"), "$[\"1x\"]");
    }
}
