//! The vocabulary the family rules (`family.rs` chooses one) are written in: a refusal that
//! names the key that decided it, the sizes a rule finds, and the checked readings of keys
//! (a number, a list, the layer count; products and sums that refuse to overflow), with the
//! refusal of a key that decides a layout the family does not model.

use serde_json::{Map, Value};

use super::layout::{unmodelled_found, LAYER_KIND_KEYS};
use super::{present, ATTENTION_LAYOUT_NOT_SUPPORTED, CONFIG_KEY_MISSING};

/// Why a family's rule states no figure: the reason code and the key that decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Refusal {
    /// [`ATTENTION_LAYOUT_NOT_SUPPORTED`] or [`CONFIG_KEY_MISSING`].
    pub(super) reason: &'static str,
    /// The key (`swa_*` for the sliding geometry keys as a group).
    pub(super) key: &'static str,
}

impl Refusal {
    /// A value the rule does not model, or keys that disagree.
    pub(super) fn unsupported(key: &'static str) -> Self {
        Refusal {
            reason: ATTENTION_LAYOUT_NOT_SUPPORTED,
            key,
        }
    }

    /// A key the rule needs is absent, null, not a non-negative integer, or overflows.
    pub(super) fn missing(key: &'static str) -> Self {
        Refusal {
            reason: CONFIG_KEY_MISSING,
            key,
        }
    }
}

/// A family rule's result.
pub(super) type Checked<T> = Result<T, Refusal>;

/// What a family's rule finds the model caches, in the units of the three cache facts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Sizes {
    /// Bytes that grow with every token (`attention_bytes_per_token`).
    pub(super) per_token: u128,
    /// Bytes of the fixed buffers of attention layers at the full sequence (windows,
    /// compressor states), added to per token × T in `full_sequence_attention_bytes`.
    pub(super) fixed: u128,
    /// Bytes of the recurrent layers' state (`recurrent_state_bytes`).
    pub(super) recurrent: u128,
}

/// Keys that decide a cache layout under some rule besides §10's unmodelled keys and the
/// layer-kind keys: MLA, the DSA indexer, and the families' own layout keys. A rule that does
/// not own one of them refuses it when present.
const OTHER_LAYOUT_KEYS: [&str; 7] = [
    "kv_lora_rank",
    "index_topk",
    "compress_ratios",
    "layers_block_type",
    "linear_attn_config",
    "sparse_attention_config",
    "block_configs",
];

/// Refuses, naming it, the first key of the key set that decides a layout the family's rule
/// does not model: an unmodelled key of §10 with a layout-changing value, a layer-kind key of
/// rules 1–6 or another layout key, unless `own` lists it.
pub(super) fn foreign(keys: &Map<String, Value>, own: &[&'static str]) -> Checked<()> {
    let unmodelled = unmodelled_found(keys);
    let present_keys = LAYER_KIND_KEYS
        .iter()
        .chain(OTHER_LAYOUT_KEYS.iter())
        .copied()
        .filter(|k| present(keys, k).is_some());
    match unmodelled
        .into_iter()
        .chain(present_keys)
        .find(|k| !own.contains(k))
    {
        Some(key) => Err(Refusal::unsupported(key)),
        None => Ok(()),
    }
}

/// A non-negative integer key, else `config_key_missing` naming it.
pub(super) fn need(keys: &Map<String, Value>, key: &'static str) -> Checked<u128> {
    present(keys, key)
        .and_then(Value::as_u64)
        .map(u128::from)
        .ok_or(Refusal::missing(key))
}

/// A positive integer key (a size or a window of none is unusable).
pub(super) fn positive(keys: &Map<String, Value>, key: &'static str) -> Checked<u128> {
    match need(keys, key)? {
        0 => Err(Refusal::missing(key)),
        value => Ok(value),
    }
}

/// The checked product of `factors`; an overflow is charged to `key` (the size that grew it).
pub(super) fn mul(factors: &[u128], key: &'static str) -> Checked<u128> {
    factors
        .iter()
        .try_fold(1u128, |acc, &f| acc.checked_mul(f))
        .ok_or(Refusal::missing(key))
}

/// `total + add`, checked; an overflow is charged to `key`.
pub(super) fn add(total: &mut u128, add: u128, key: &'static str) -> Checked<()> {
    *total = total.checked_add(add).ok_or(Refusal::missing(key))?;
    Ok(())
}

/// A list key, else `attention_layout_not_supported` naming it.
pub(super) fn list<'a>(keys: &'a Map<String, Value>, key: &'static str) -> Checked<&'a [Value]> {
    present(keys, key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .ok_or(Refusal::unsupported(key))
}

/// The number of layers as a length, to compare with a per-layer list.
pub(super) fn layer_count(keys: &Map<String, Value>) -> Checked<usize> {
    need(keys, "num_hidden_layers")
        .and_then(|n| usize::try_from(n).map_err(|_| Refusal::missing("num_hidden_layers")))
}
