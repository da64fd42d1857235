//! The attention cache figures of a configuration (DESIGN §10, "Geometry of a layer" and
//! "Figures"): the 16-bit K and V bytes one token takes in a layer, the MLA latent, the
//! sparse-attention indexer's keys, and the bytes per token and per full sequence over the
//! layout that `layout` found.

use serde_json::{Map, Value};

use super::layout::Layout;
use super::{present, product, sum, uint, Figure, CONFIG_KEY_MISSING};

/// head_dim = `head_dim` | `attention_head_dim` | `hidden_size / num_attention_heads` (exact).
fn head_dim(keys: &Map<String, Value>) -> Figure {
    for key in ["head_dim", "attention_head_dim"] {
        if present(keys, key).is_some() {
            return uint(keys, key);
        }
    }
    let hidden = uint(keys, "hidden_size")?;
    let heads = uint(keys, "num_attention_heads")?;
    if heads == 0 || hidden % heads != 0 {
        return Err(CONFIG_KEY_MISSING);
    }
    Ok(hidden / heads)
}

/// n_kv = `num_key_value_heads`, default `num_attention_heads`.
fn kv_heads(keys: &Map<String, Value>) -> Figure {
    if present(keys, "num_key_value_heads").is_some() {
        uint(keys, "num_key_value_heads")
    } else {
        uint(keys, "num_attention_heads")
    }
}

/// The first of `names` the key set has, as a non-negative integer; `fallback` when none.
fn first_of(keys: &Map<String, Value>, names: &[&str], fallback: Figure) -> Figure {
    match names.iter().find(|k| present(keys, k).is_some()) {
        Some(key) => uint(keys, key),
        None => fallback,
    }
}

/// Bytes per token of one layer of the main geometry: n_kv × (head_dim + v_dim) × 2, where
/// v_dim = `v_head_dim` when present (this is never called for MLA), else head_dim.
fn layer_bytes(keys: &Map<String, Value>) -> Figure {
    let k = head_dim(keys)?;
    let v = first_of(keys, &["v_head_dim"], Ok(k))?;
    product(&[kv_heads(keys)?, sum(k, v)?, 2])
}

/// Bytes per token of one sliding layer of `hybrid_layer_pattern` (rule 3): n_kv =
/// `swa_num_key_value_heads`, head_dim = `swa_head_dim`, v_dim = `swa_v_head_dim` |
/// `swa_head_dim`.
fn own_sliding_layer_bytes(keys: &Map<String, Value>) -> Figure {
    let k = uint(keys, "swa_head_dim")?;
    let v = first_of(keys, &["swa_v_head_dim"], Ok(k))?;
    product(&[uint(keys, "swa_num_key_value_heads")?, sum(k, v)?, 2])
}

/// A window in tokens: a positive integer (a window of none or of a negative size is unusable).
fn window(keys: &Map<String, Value>, names: &[&str]) -> Figure {
    let tokens = first_of(keys, names, Err(CONFIG_KEY_MISSING))?;
    if tokens == 0 {
        return Err(CONFIG_KEY_MISSING);
    }
    Ok(tokens)
}

/// The sparse-attention indexer's key per token per layer, as the reference code and vLLM
/// store it whatever the model's precision: `index_head_dim` FP8 bytes plus a 4-byte FP32
/// scale per 128 values. `None` without an indexer (`index_topk` absent).
pub(super) fn indexer_bytes(keys: &Map<String, Value>) -> Option<Figure> {
    present(keys, "index_topk")?;
    Some(uint(keys, "index_head_dim").and_then(|dim| sum(dim, product(&[4, dim.div_ceil(128)])?)))
}

/// A windowed kind of layer: how many, the bytes one token takes in one, and its window keys.
type Windowed = (
    u128,
    fn(&Map<String, Value>) -> Figure,
    &'static [&'static str],
);

/// The windowed layers of a layout, each kind with its window in tokens (kinds the model lacks
/// left out, needing no key). A window that is not a positive integer fails the caller.
fn windowed(
    keys: &Map<String, Value>,
    layout: &Layout,
) -> Result<Vec<(Windowed, u128)>, &'static str> {
    let kinds: [Windowed; 3] = [
        (layout.sliding, layer_bytes, &["sliding_window"]),
        (layout.chunked, layer_bytes, &["attention_chunk_size"]),
        (
            layout.own_sliding,
            own_sliding_layer_bytes,
            &["sliding_window_size", "sliding_window"],
        ),
    ];
    kinds
        .into_iter()
        .filter(|(layers, _, _)| *layers > 0)
        .map(|kind| Ok((kind, window(keys, kind.2)?)))
        .collect()
}

/// `attention_bytes_per_token`: over the layers whose cache grows with the sequence, MLA
/// `num_hidden_layers × (kv_lora_rank + qk_rope_head_dim) × 2`, else full layers × the layer
/// bytes (0 without full layers, needing no key); plus `num_hidden_layers` × the indexer's key.
/// It needs the windows too: a layer whose window is unknown may be one whose cache grows (an
/// engine treats a sliding or chunked layer without a window as full attention).
pub(super) fn attention_bytes_per_token(keys: &Map<String, Value>, layout: &Layout) -> Figure {
    windowed(keys, layout)?;
    let growing = if present(keys, "kv_lora_rank").is_some() {
        let layers = uint(keys, "num_hidden_layers")?;
        let latent = sum(uint(keys, "kv_lora_rank")?, uint(keys, "qk_rope_head_dim")?)?;
        product(&[layers, latent, 2])?
    } else if layout.full == 0 {
        0
    } else {
        product(&[layout.full, layer_bytes(keys)?])?
    };
    match indexer_bytes(keys) {
        None => Ok(growing),
        Some(per_layer) => sum(
            growing,
            product(&[uint(keys, "num_hidden_layers")?, per_layer?])?,
        ),
    }
}

/// `full_sequence_attention_bytes` = per token × T + each windowed layer's bytes per token ×
/// min(its window, T). A kind the model lacks adds 0 and needs no key.
pub(super) fn full_sequence_attention_bytes(
    keys: &Map<String, Value>,
    layout: &Layout,
    per_token: Figure,
) -> Figure {
    let t = uint(keys, "max_position_embeddings")?;
    let mut total = product(&[per_token?, t])?;
    for ((layers, bytes, _), tokens) in windowed(keys, layout)? {
        total = sum(total, product(&[layers, bytes(keys)?, tokens.min(t)])?)?;
    }
    Ok(total)
}
