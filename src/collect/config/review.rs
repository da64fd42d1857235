//! The closed world of the cache facts (DESIGN §10, "Never a wrong figure", amended
//! 2026-11-27): a configuration's cache facts are stated only when the policy has reviewed its
//! `model_type` and every key of its key set is a layout key of that entry or an inert key.
//! Anything else is named, so the run report and `facts REPO` can say what kept them unknown.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::policy::FactsReview;

/// What kept a configuration's cache facts unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Unreviewed {
    /// The `model_type` of the key set read (null when it has none).
    pub(crate) model_type: Option<String>,
    /// Whether the policy has a `cache_layouts` entry for it.
    pub(crate) type_reviewed: bool,
    /// The keys of the key set that are neither layout keys of the entry nor inert, sorted.
    pub(crate) keys: Vec<String>,
    /// The entry's `required_keys` the key set lacks (absent or null), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) absent: Vec<String>,
    /// Layout keys of a reviewed type whose value its family's rule does not model (a list
    /// that does not fit the layers, keys that disagree, a member it does not know): the rule
    /// refused and named the key (`checked::Refusal`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) refused: Vec<String>,
    /// Each of `keys` (and of `refused`) with its value as `config.json` writes it (compact JSON), cut to
    /// [`VALUE_CHARS`] characters with its length said, so a review starts from the evidence.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) values: BTreeMap<String, String>,
}

/// The most characters of a key's value an unreviewed configuration shows.
pub(crate) const VALUE_CHARS: usize = 160;

/// A value as compact JSON, cut to [`VALUE_CHARS`] characters with its whole length said.
pub(crate) fn bounded(value: &Value) -> String {
    let text = value.to_string();
    let length = text.chars().count();
    if length <= VALUE_CHARS {
        return text;
    }
    let cut: String = text.chars().take(VALUE_CHARS).collect();
    format!("{cut}… ({length} characters)")
}

impl Unreviewed {
    /// One line for a person: which type or keys were not reviewed.
    pub(crate) fn describe(&self) -> String {
        let model_type = self.model_type.as_deref().unwrap_or("(none)");
        let keys = self
            .keys
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let absent = self
            .absent
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let lacks = format!("lacks keys its review needs: {absent}");
        if self.type_reviewed && keys.is_empty() && absent.is_empty() && !self.refused.is_empty() {
            let refused = self
                .refused
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            return format!(
                "model_type `{model_type}`: its rule does not model the value of {refused}"
            );
        }
        match (self.type_reviewed, keys.is_empty(), absent.is_empty()) {
            (false, _, _) => format!(
                "model_type `{model_type}` has no reviewed cache layout (data/policy.json cache_layouts)"
            ),
            (true, true, true) => format!("model_type `{model_type}`: every key reviewed"),
            (true, true, false) => format!("model_type `{model_type}` {lacks}"),
            (true, false, true) => format!(
                "model_type `{model_type}` carries keys neither its layout keys nor inert: {keys}"
            ),
            (true, false, false) => format!(
                "model_type `{model_type}` carries keys neither its layout keys nor inert: {keys}; and {lacks}"
            ),
        }
    }
}

/// Whether the key set (as `config.json` has it, before reference defaults) is reviewed; the
/// reason when it is not. `model_type` itself selects the entry and is not a key to review.
pub(super) fn unreviewed(set: &Map<String, Value>, review: &FactsReview) -> Option<Unreviewed> {
    let keys = set;
    let model_type = keys
        .get("model_type")
        .and_then(Value::as_str)
        .map(str::to_string);
    let entry = model_type
        .as_deref()
        .and_then(|t| review.cache_layouts.get(t));
    let keys: Vec<String> = keys
        .keys()
        .filter(|k| *k != "model_type" && !review.inert_config_keys.contains(*k))
        .filter(|k| !entry.is_some_and(|e| e.layout_keys.contains(*k)))
        .cloned()
        .collect();
    let absent: Vec<String> = entry.map_or_else(Vec::new, |e| {
        e.required_keys
            .iter()
            .filter(|k| set.get(*k).is_none_or(Value::is_null))
            .cloned()
            .collect()
    });
    if entry.is_some() && keys.is_empty() && absent.is_empty() {
        return None;
    }
    let values = keys
        .iter()
        .filter_map(|k| set.get(k).map(|v| (k.clone(), bounded(v))))
        .collect();
    Some(Unreviewed {
        model_type,
        type_reviewed: entry.is_some(),
        keys,
        absent,
        refused: Vec::new(),
        values,
    })
}

/// A reviewed key set whose family rule refused the value of `key`: named as what kept the
/// cache facts unknown, with the value.
pub(super) fn refused(set: &Map<String, Value>, key: &str) -> Unreviewed {
    Unreviewed {
        model_type: set
            .get("model_type")
            .and_then(Value::as_str)
            .map(str::to_string),
        type_reviewed: true,
        keys: Vec::new(),
        absent: Vec::new(),
        refused: vec![key.to_string()],
        values: set
            .get(key)
            .map(|v| (key.to_string(), bounded(v)))
            .into_iter()
            .collect(),
    }
}
