//! `config.json`: reading a Python-written model configuration and computing the facts it gives
//! (DESIGN §10, "Architecture and attention" and the quantization bit widths). This module
//! owns the facts' outcomes and the reading of keys (with the policy's reference defaults);
//! what each fact computes lives beside it: `parse` (Python's JSON), `layout` (the layer kinds
//! and the layouts not modelled), `attention` (the cache bytes), `recurrent` (Mamba2 and
//! linear-attention state), `family` (the rules of one `model_type` each, with their own
//! files) and `quantization` (bit widths).

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::policy::{ConfigDefault, FactsReview};

mod attention;
mod block_list;
mod checked;
mod compressed;
mod delta_attention;
mod family;
mod index_cache;
mod layout;
mod parse;
mod per_kind;
mod quantization;
mod recurrent;
mod review;
mod shared_indexer;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_2026;
#[cfg(test)]
mod tests_families;
#[cfg(test)]
mod tests_hybrid_families;
#[cfg(test)]
mod tests_review;
#[cfg(test)]
mod tests_sparse_families;
#[cfg(test)]
mod tests_unmodelled;

pub(super) use parse::parse_config;
pub(super) use quantization::claim;
#[cfg(test)]
pub(super) use quantization::quantization;
pub(crate) use review::Unreviewed;

/// Reason code: a key a formula needs is missing (or unusable).
pub(super) const CONFIG_KEY_MISSING: &str = "config_key_missing";
/// Reason code: the attention layout is outside what the formulas describe.
pub(super) const ATTENTION_LAYOUT_NOT_SUPPORTED: &str = "attention_layout_not_supported";

/// The outcome of one computed fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Outcome {
    /// The fact's value: a plain decimal integer, or the architecture name.
    Value(String),
    /// No value, with the reason code ([`CONFIG_KEY_MISSING`] or
    /// [`ATTENTION_LAYOUT_NOT_SUPPORTED`]); the state is `not_found_under_policy`.
    NotFound(&'static str),
}

/// The facts `config.json` gives, and the expert counts active parameters need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ConfigFacts {
    /// The top-level `model_type`.
    pub architecture_type: Outcome,
    /// Cache bytes per token of the layers whose cache grows with the sequence (16-bit K and V
    /// of full layers, or the MLA latent), plus the sparse-attention indexer's keys.
    pub attention_bytes_per_token: Outcome,
    /// Cache bytes of one sequence of `calculation_sequence_length` tokens, windowed
    /// (sliding, chunked) layers included.
    pub full_sequence_attention_bytes: Outcome,
    /// 16-bit recurrent state bytes of the Mamba2 and linear-attention layers.
    pub recurrent_state_bytes: Outcome,
    /// T = `max_position_embeddings`.
    pub calculation_sequence_length: Outcome,
    /// E = `n_routed_experts` | `num_experts` | `num_local_experts`.
    pub experts: Option<u64>,
    /// k = `num_experts_per_tok`.
    pub experts_per_token: Option<u64>,
    /// The key whose value a family's rule refused, when it refused (the three cache facts
    /// then carry its reason).
    pub refused_key: Option<&'static str>,
}

/// A computed figure, or the reason code when there is none.
type Figure = Result<u128, &'static str>;

/// The keys of the configuration the formulas read: `text_config` when the top level lacks
/// `num_hidden_layers` and has a `text_config` object, else the top level.
fn model_keys(top: &Map<String, Value>) -> &Map<String, Value> {
    if top.contains_key("num_hidden_layers") {
        return top;
    }
    match top.get("text_config") {
        Some(Value::Object(text)) => text,
        _ => top,
    }
}

/// The key set with the policy's reference defaults laid in where it lacks a key (absent or
/// null): the defaults whose `model_type` is the key set's own.
fn with_defaults<'a>(
    keys: &'a Map<String, Value>,
    defaults: &[ConfigDefault],
) -> Cow<'a, Map<String, Value>> {
    let model_type = keys.get("model_type").and_then(Value::as_str);
    let due: Vec<&ConfigDefault> = defaults
        .iter()
        .filter(|d| Some(d.model_type.as_str()) == model_type && present(keys, &d.key).is_none())
        .collect();
    if due.is_empty() {
        return Cow::Borrowed(keys);
    }
    let mut filled = keys.clone();
    for default in due {
        filled.insert(default.key.clone(), Value::from(default.value));
    }
    Cow::Owned(filled)
}

/// A key's value, with JSON `null` counting as absent.
fn present<'a>(keys: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    keys.get(key).filter(|v| !v.is_null())
}

/// A non-negative integer key; absent, null or not a non-negative integer → `config_key_missing`.
fn uint(keys: &Map<String, Value>, key: &str) -> Figure {
    present(keys, key)
        .and_then(Value::as_u64)
        .map(u128::from)
        .ok_or(CONFIG_KEY_MISSING)
}

/// Checked product; overflow counts as an unusable key (`config_key_missing`).
fn product(factors: &[u128]) -> Figure {
    factors
        .iter()
        .try_fold(1u128, |acc, &f| acc.checked_mul(f))
        .ok_or(CONFIG_KEY_MISSING)
}

fn sum(a: u128, b: u128) -> Figure {
    a.checked_add(b).ok_or(CONFIG_KEY_MISSING)
}

fn outcome(figure: Figure) -> Outcome {
    match figure {
        Ok(value) => Outcome::Value(value.to_string()),
        Err(reason) => Outcome::NotFound(reason),
    }
}

/// The facts of one configuration in the closed world (DESIGN §10 as amended 2026-11-27): the
/// rules' facts, with the three cache facts `attention_layout_not_supported` unless the
/// policy's `review` covers the key set read; then also what was not reviewed.
pub(super) fn reviewed_config_facts(
    config: &Value,
    review: &FactsReview,
) -> (ConfigFacts, Option<Unreviewed>) {
    let mut facts = config_facts(config, &review.config_defaults);
    let empty = Map::new();
    let keys = model_keys(config.as_object().unwrap_or(&empty));
    let mut unreviewed = review::unreviewed(keys, review);
    if let (None, Some(key)) = (&unreviewed, facts.refused_key) {
        // Reviewed, but the family's rule did not model a value: named as well, never silent.
        unreviewed = Some(review::refused(keys, key));
    } else if unreviewed.is_some() {
        let unsupported = Outcome::NotFound(ATTENTION_LAYOUT_NOT_SUPPORTED);
        facts.attention_bytes_per_token = unsupported.clone();
        facts.full_sequence_attention_bytes = unsupported.clone();
        facts.recurrent_state_bytes = unsupported;
    }
    (facts, unreviewed)
}

/// The facts of one configuration by the rules alone (DESIGN §10, "Architecture and
/// attention"), before the closed world's review ([`reviewed_config_facts`]). Keys are read
/// from `text_config` when the top level lacks `num_hidden_layers` (`model_type` always from
/// the top level), with the policy's reference `defaults` where that key set lacks a key. An
/// unsupported layout gives `attention_layout_not_supported` to the three cache facts; a
/// missing key gives `config_key_missing` to the facts that need it.
fn config_facts(config: &Value, defaults: &[ConfigDefault]) -> ConfigFacts {
    let empty = Map::new();
    let top = config.as_object().unwrap_or(&empty);
    let keys = with_defaults(model_keys(top), defaults);
    let keys = keys.as_ref();

    let architecture_type = match top.get("model_type").and_then(Value::as_str) {
        Some(name) if !name.is_empty() => Outcome::Value(name.to_string()),
        _ => Outcome::NotFound(CONFIG_KEY_MISSING),
    };
    let sequence_length = uint(keys, "max_position_embeddings");
    let (per_token, full_sequence, recurrent, refused_key) = match family::rule(keys) {
        Some(rule) => family_figures(rule, keys),
        None => {
            let (a, b, c) = generic_figures(keys);
            (a, b, c, None)
        }
    };
    let experts = ["n_routed_experts", "num_experts", "num_local_experts"]
        .iter()
        .find_map(|key| present(keys, key))
        .and_then(Value::as_u64);
    ConfigFacts {
        architecture_type,
        attention_bytes_per_token: outcome(per_token),
        full_sequence_attention_bytes: outcome(full_sequence),
        recurrent_state_bytes: outcome(recurrent),
        calculation_sequence_length: outcome(sequence_length),
        experts,
        experts_per_token: present(keys, "num_experts_per_tok").and_then(Value::as_u64),
        refused_key,
    }
}

/// The three cache figures by a family's own rule: a refusal unknowns all three with its
/// reason and names its key; the fixed buffers join per token × T in the full sequence.
fn family_figures(
    rule: family::Rule,
    keys: &Map<String, Value>,
) -> (Figure, Figure, Figure, Option<&'static str>) {
    match rule(keys) {
        Err(refusal) => (
            Err(refusal.reason),
            Err(refusal.reason),
            Err(refusal.reason),
            Some(refusal.key),
        ),
        Ok(sizes) => {
            let full_sequence = uint(keys, "max_position_embeddings")
                .and_then(|t| product(&[sizes.per_token, t]))
                .and_then(|grown| sum(grown, sizes.fixed));
            (
                Ok(sizes.per_token),
                full_sequence,
                Ok(sizes.recurrent),
                None,
            )
        }
    }
}

/// The three cache figures by the generic layer kinds (rules 1–7).
fn generic_figures(keys: &Map<String, Value>) -> (Figure, Figure, Figure) {
    match layout::layout(keys) {
        Err(reason) => (Err(reason), Err(reason), Err(reason)),
        Ok(layout) => {
            let per_token = attention::attention_bytes_per_token(keys, &layout);
            (
                per_token,
                attention::full_sequence_attention_bytes(keys, &layout, per_token),
                recurrent::recurrent_state_bytes(keys, &layout),
            )
        }
    }
}
