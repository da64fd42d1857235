//! GLM-5's DeepSeek sparse attention with indexers shared between layers (`glm_moe_dsa`):
//! every layer keeps its MLA latent, and only the layers that compute their own top-k keep the
//! indexer's key; the others reuse an earlier layer's selection and cache no key.
//!
//! Read from vLLM's `vllm/models/deepseek_v32/attention.py` at
//! 00859a52088e757514a25dddd0214ccc89898a1c (`DeepseekV32Attention.__init__`: `skip_topk` from
//! `index_topk_pattern`, else from `index_topk_freq` and `index_skip_topk_offset`; the
//! `DeepseekV32Indexer` and its `DeepseekV32IndexerCache` only where it does not skip), with the
//! MLA latent as `deepseek_v2.py` sizes it for the DeepSeek family.

use serde_json::{Map, Value};

use super::attention::indexer_bytes;
use super::checked::{add, foreign, layer_count, list, mul, need, Checked, Refusal, Sizes};
use super::present;

/// The layout keys of other rules this one models: MLA, the indexer and its sharing, and a
/// `layer_types` that names every layer a sparse-attention layer.
const OWN: [&str; 6] = [
    "kv_lora_rank",
    "index_topk",
    "index_topk_freq",
    "index_topk_pattern",
    "indexer_types",
    "layer_types",
];

/// `glm_moe_dsa`: each of the `num_hidden_layers` layers caches one latent of
/// (`kv_lora_rank` + `qk_rope_head_dim`) × 2 bytes per token; each layer that computes its own
/// top-k also caches the indexer's key (DESIGN §10: `index_head_dim` FP8 bytes plus a 4-byte
/// scale per 128 values, 132 bytes for 128). Which layers compute (vLLM, 0-based j):
/// `index_topk_pattern`'s `F` (`S` skips) when it is there; else those with
/// max(j + 1 − `index_skip_topk_offset`, 0) mod `index_topk_freq` = 0 (`index_topk_freq`
/// absent or 1: every layer). `indexer_types` (`full` computes, `shared` reuses), which vLLM at
/// that commit does not read and other engines read first, must say the same.
///
/// Refused, naming the key: a pattern or list whose length is not the layer count or with
/// another entry; `index_topk_freq` other than 1 without `index_skip_topk_offset` (the engines'
/// defaults differ: vLLM 2, SGLang max(j − 1, 0), transformers j); keys that disagree; sharing
/// keys without an indexer (`index_topk` absent); a `layer_types` entry other than
/// `deepseek_sparse_attention`.
pub(super) fn glm_moe_dsa(keys: &Map<String, Value>) -> Checked<Sizes> {
    foreign(keys, &OWN)?;
    let layers = layer_count(keys)?;
    if present(keys, "layer_types").is_some() {
        let types = list(keys, "layer_types")?;
        let sparse = |t: &Value| t.as_str() == Some("deepseek_sparse_attention");
        if types.len() != layers || !types.iter().all(sparse) {
            return Err(Refusal::unsupported("layer_types"));
        }
    }
    let latent = mul(
        &[
            need(keys, "kv_lora_rank")?
                .checked_add(need(keys, "qk_rope_head_dim")?)
                .ok_or(Refusal::missing("kv_lora_rank"))?,
            2,
        ],
        "kv_lora_rank",
    )?;
    let mut sizes = Sizes {
        per_token: mul(&[layers as u128, latent], "num_hidden_layers")?,
        ..Sizes::default()
    };
    let Some(key_bytes) = indexer_bytes(keys) else {
        return no_indexer(keys).map(|()| sizes);
    };
    let key_bytes = key_bytes.map_err(|_| Refusal::missing("index_head_dim"))?;
    let computing = computing_layers(keys, layers)?;
    let count = computing.iter().filter(|&&c| c).count() as u128;
    add(
        &mut sizes.per_token,
        mul(&[count, key_bytes], "index_head_dim")?,
        "index_head_dim",
    )?;
    Ok(sizes)
}

/// Without `index_topk` no layer has an indexer: keys that share one between layers then
/// disagree with it.
fn no_indexer(keys: &Map<String, Value>) -> Checked<()> {
    for key in ["index_topk_pattern", "indexer_types"] {
        if present(keys, key).is_some() {
            return Err(Refusal::unsupported(key));
        }
    }
    if present(keys, "index_topk_freq").is_some_and(|v| v.as_u64() != Some(1)) {
        return Err(Refusal::unsupported("index_topk_freq"));
    }
    Ok(())
}

/// Which layers compute their own top-k (and keep an indexer key), each source the
/// configuration has checked against the others.
fn computing_layers(keys: &Map<String, Value>, layers: usize) -> Checked<Vec<bool>> {
    let by_pattern = match present(keys, "index_topk_pattern") {
        None => None,
        Some(pattern) => Some(from_pattern(pattern, layers)?),
    };
    let by_frequency = from_frequency(keys, layers, by_pattern.is_some())?;
    let computing = match (by_pattern, by_frequency) {
        (Some(pattern), Some(frequency)) if pattern != frequency => {
            return Err(Refusal::unsupported("index_topk_pattern"));
        }
        (Some(pattern), _) => pattern,
        (None, Some(frequency)) => frequency,
        (None, None) => vec![true; layers],
    };
    if present(keys, "indexer_types").is_some() {
        let types = list(keys, "indexer_types")?;
        let listed: Option<Vec<bool>> = types
            .iter()
            .map(|t| match t.as_str() {
                Some("full") => Some(true),
                Some("shared") => Some(false),
                _ => None,
            })
            .collect();
        if listed.as_ref() != Some(&computing) {
            return Err(Refusal::unsupported("indexer_types"));
        }
    }
    Ok(computing)
}

/// `index_topk_pattern`: one `F` (computes) or `S` (skips) per layer.
fn from_pattern(pattern: &Value, layers: usize) -> Checked<Vec<bool>> {
    let refused = Refusal::unsupported("index_topk_pattern");
    let pattern = pattern.as_str().ok_or(refused)?;
    let computing: Vec<bool> = pattern
        .chars()
        .map(|c| match c {
            'F' => Ok(true),
            'S' => Ok(false),
            _ => Err(refused),
        })
        .collect::<Checked<_>>()?;
    if computing.len() != layers {
        return Err(refused);
    }
    Ok(computing)
}

/// The layers `index_topk_freq` and `index_skip_topk_offset` make compute; `None` when the
/// frequency is absent or 1 and a pattern decides (or every layer computes). A frequency other
/// than 1 needs its offset written: the engines' defaults for it differ.
fn from_frequency(
    keys: &Map<String, Value>,
    layers: usize,
    patterned: bool,
) -> Checked<Option<Vec<bool>>> {
    let frequency = match present(keys, "index_topk_freq") {
        None => 1,
        Some(v) => v
            .as_u64()
            .filter(|&f| f > 0)
            .ok_or(Refusal::unsupported("index_topk_freq"))?,
    };
    if present(keys, "index_skip_topk_offset").is_some_and(|v| v.as_u64().is_none()) {
        return Err(Refusal::unsupported("index_skip_topk_offset"));
    }
    if frequency == 1 {
        return Ok((!patterned).then(|| vec![true; layers]));
    }
    let offset = present(keys, "index_skip_topk_offset")
        .and_then(Value::as_u64)
        .ok_or(Refusal::unsupported("index_skip_topk_offset"))?;
    Ok(Some(
        (0..layers as u64)
            .map(|j| (j + 1).saturating_sub(offset) % frequency == 0)
            .collect(),
    ))
}
