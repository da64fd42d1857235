//! Gemma 4's per-kind geometry (`gemma4_text`): full and sliding layers with their own head
//! size and KV heads, K = V on the full layers, and the last layers sharing an earlier layer's
//! cache.
//!
//! Read from vLLM's `vllm/model_executor/models/gemma4.py` at
//! eee7972fe3225f0b08bb8d61afd88eb846330a55 (`Gemma4DecoderLayer`, `Gemma4Attention`).

use serde_json::{Map, Value};

use super::checked::{
    add, foreign, layer_count, list, mul, need, positive, Checked, Refusal, Sizes,
};
use super::present;

/// The layout keys of other rules this one models.
const OWN: [&str; 5] = [
    "layer_types",
    "global_head_dim",
    "num_global_key_value_heads",
    "attention_k_eq_v",
    "num_kv_shared_layers",
];

/// `gemma4_text`, per `layer_types[j]`:
/// - a full layer caches K and V of `global_head_dim` each for `num_global_key_value_heads`
///   heads when `attention_k_eq_v` is true, else for `num_key_value_heads` (vLLM ignores the
///   global count then); K = V saves nothing, since vLLM loads K's weights into both slots
///   and caches both;
/// - a sliding layer caches K and V of `head_dim` for `num_key_value_heads` heads over
///   min(`sliding_window`, T) tokens;
/// - the last `num_kv_shared_layers` layers reuse the cache of the last earlier layer of their
///   kind and cache nothing.
///
/// The class defaults of `global_head_dim`, `attention_k_eq_v` and `num_kv_shared_layers` were
/// not reviewed, so each must be written (else `config_key_missing` naming it). Refused as
/// unsupported, naming the key: a `layer_types` whose length is not the layer count or with
/// another kind; a shared layer whose kind no earlier layer has (vLLM raises), or as many
/// shared layers as layers; `attention_k_eq_v` not a boolean; `use_bidirectional_attention`
/// other than `vision` (which changes the mask for image tokens only).
pub(super) fn gemma4_text(keys: &Map<String, Value>) -> Checked<Sizes> {
    foreign(keys, &OWN)?;
    if present(keys, "use_bidirectional_attention").is_some_and(|v| v != "vision") {
        return Err(Refusal::unsupported("use_bidirectional_attention"));
    }
    let layers = layer_count(keys)?;
    let full: Vec<bool> = list(keys, "layer_types")?
        .iter()
        .map(|kind| match kind.as_str() {
            Some("full_attention") => Ok(true),
            Some("sliding_attention") => Ok(false),
            _ => Err(Refusal::unsupported("layer_types")),
        })
        .collect::<Checked<_>>()?;
    if full.len() != layers {
        return Err(Refusal::unsupported("layer_types"));
    }
    let own_cache = owning_layers(keys, &full)?;

    let t = need(keys, "max_position_embeddings")?;
    let head_dim = need(keys, "head_dim")?;
    let kv_heads = need(keys, "num_key_value_heads")?;
    let global_head_dim = need(keys, "global_head_dim")?;
    let k_eq_v = match present(keys, "attention_k_eq_v") {
        None => return Err(Refusal::missing("attention_k_eq_v")),
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(Refusal::unsupported("attention_k_eq_v")),
    };
    let global_kv_heads = if k_eq_v {
        need(keys, "num_global_key_value_heads")?
    } else {
        kv_heads
    };
    let full_bytes = mul(&[global_kv_heads, 2, global_head_dim, 2], "global_head_dim")?;
    let sliding_bytes = mul(&[kv_heads, 2, head_dim, 2], "head_dim")?;

    let full_layers = own_cache.iter().filter(|&&f| f).count() as u128;
    let sliding_layers = own_cache.len() as u128 - full_layers;
    let mut sizes = Sizes {
        per_token: mul(&[full_layers, full_bytes], "global_head_dim")?,
        ..Sizes::default()
    };
    if sliding_layers > 0 {
        let window = positive(keys, "sliding_window")?.min(t);
        add(
            &mut sizes.fixed,
            mul(&[sliding_layers, sliding_bytes, window], "sliding_window")?,
            "sliding_window",
        )?;
    }
    Ok(sizes)
}

/// The kinds (true: full) of the layers that keep a cache of their own: all but the last
/// `num_kv_shared_layers`, each of which must find an earlier layer of its kind to share.
fn owning_layers<'a>(keys: &Map<String, Value>, full: &'a [bool]) -> Checked<&'a [bool]> {
    let refused = Refusal::unsupported("num_kv_shared_layers");
    let shared = usize::try_from(need(keys, "num_kv_shared_layers")?).map_err(|_| refused)?;
    if shared == 0 {
        return Ok(full);
    }
    let first_shared = full
        .len()
        .checked_sub(shared)
        .filter(|&f| f > 0)
        .ok_or(refused)?;
    let (owning, sharing) = full.split_at(first_shared);
    if sharing.iter().any(|kind| !owning.contains(kind)) {
        return Err(refused);
    }
    Ok(owning)
}
