//! The rules of one family each (DESIGN §10 as amended 2026-11-28): layouts the generic layer
//! kinds do not describe, each written from its engine's code at a pinned commit, chosen by the
//! `model_type` of the key set read and held to a real configuration (docs/decisions.md).
//!
//! A family's rule reads the keys it models and refuses every other key that decides a layout
//! elsewhere (an unmodelled key of §10 it does not model, a layer-kind key of rules 1–6, MLA,
//! another family's layout key): a key it does not recognise is never read as absent. Each
//! refusal names the key that decided it, so a test (and later a report) can say which.

use serde_json::{Map, Value};

use super::checked::{Checked, Sizes};
use super::{
    block_list, compressed, delta_attention, index_cache, per_kind, present, shared_indexer,
};

/// A family's rule over its key set.
pub(super) type Rule = fn(&Map<String, Value>) -> Checked<Sizes>;

/// The rule of the key set's `model_type`, when that type has one of its own; `None` leaves
/// the key set to the generic layer kinds.
pub(super) fn rule(keys: &Map<String, Value>) -> Option<Rule> {
    match keys.get("model_type").and_then(Value::as_str)? {
        "deepseek_v4" => Some(compressed::deepseek_v4),
        "glm_moe_dsa" => Some(shared_indexer::glm_moe_dsa),
        "minimax_m3" => Some(index_cache::minimax_m3),
        "gemma4_text" => Some(per_kind::gemma4_text),
        "kimi_linear" => Some(delta_attention::kimi_linear),
        // Rule 2 keeps the configurations that write `hybrid_override_pattern`.
        "nemotron_h" if present(keys, "layers_block_type").is_some() => {
            Some(block_list::nemotron_h)
        }
        _ => None,
    }
}
