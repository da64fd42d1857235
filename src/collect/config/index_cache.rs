//! MiniMax M3's index cache beside grouped-query attention (`minimax_m3`): every layer keeps
//! full K and V, and each sparse layer also keeps one index key per token for its block
//! selection.
//!
//! Read from vLLM's `vllm/models/minimax_m3/nvidia/model.py` at
//! 902158949803be74ad6941ee4bd4b08741297fa0 (`MiniMaxM3DecoderLayer`: a layer is sparse when
//! `sparse_attention_freq[j]` is not 0; `MiniMaxM3Attention` and `MiniMaxM3SparseAttention`
//! cache `num_key_value_heads` × `head_dim` K and V without a window) and
//! `vllm/models/minimax_m3/common/indexer.py` at 0484480bc73081c4a5133b3cb53018323fce632d
//! (`MiniMaxM3IndexerCache`: key-only, one vector of `sparse_index_dim` per token, bf16 unless
//! a backend is told otherwise).

use serde_json::{Map, Value};

use super::checked::{add, foreign, layer_count, mul, need, Checked, Refusal, Sizes};
use super::present;

/// The members of `sparse_attention_config` reviewed: the layers and the index key's width
/// (read), what vLLM assumes of them (checked), and the block selection's parameters, which
/// size no cache.
const REVIEWED_MEMBERS: [&str; 10] = [
    "sparse_attention_freq",
    "sparse_index_dim",
    "sparse_disable_index_value",
    "use_sparse_attention",
    "sparse_num_index_heads",
    "sparse_block_size",
    "sparse_topk_blocks",
    "sparse_init_block",
    "sparse_local_block",
    "sparse_score_type",
];

/// `minimax_m3`: each of the `num_hidden_layers` layers caches `num_key_value_heads` ×
/// (`head_dim` + `head_dim`) × 2 bytes per token; each sparse layer
/// (`sparse_attention_config.sparse_attention_freq[j]` not 0) adds one index key of
/// `sparse_index_dim` × 2 bytes per token. No window, no recurrent state.
///
/// Refused, naming the key: a per-layer list whose length is not the layer count; a sparse
/// layer whose index value branch is kept (`sparse_disable_index_value` not 1: vLLM never
/// builds it, so its cache is not established); `use_sparse_attention` false beside sparse
/// layers (vLLM reads only the list); `sparse_num_index_heads` other than
/// `num_key_value_heads` (vLLM shards the index queries as the KV heads); a member not
/// reviewed; a `sliding_window` (vLLM's M3 layers take none).
pub(super) fn minimax_m3(keys: &Map<String, Value>) -> Checked<Sizes> {
    foreign(keys, &["sparse_attention_config"])?;
    if present(keys, "sliding_window").is_some() {
        return Err(Refusal::unsupported("sliding_window"));
    }
    let layers = layer_count(keys)?;
    let kv_heads = need(keys, "num_key_value_heads")?;
    let head_dim = need(keys, "head_dim")?;
    let kv = mul(&[kv_heads, 2, head_dim, 2], "head_dim")?;
    let mut sizes = Sizes {
        per_token: mul(&[layers as u128, kv], "num_hidden_layers")?,
        ..Sizes::default()
    };
    let Some(config) = present(keys, "sparse_attention_config") else {
        return Ok(sizes);
    };
    let config = config
        .as_object()
        .ok_or(Refusal::unsupported("sparse_attention_config"))?;
    if config
        .keys()
        .any(|k| !REVIEWED_MEMBERS.contains(&k.as_str()))
    {
        return Err(Refusal::unsupported("sparse_attention_config"));
    }
    let sparse: Vec<bool> = config
        .get("sparse_attention_freq")
        .and_then(|list| per_layer_value(list, layers))
        .ok_or(Refusal::unsupported(
            "sparse_attention_config.sparse_attention_freq",
        ))?
        .iter()
        .map(|&f| f != 0)
        .collect();
    let count = sparse.iter().filter(|&&s| s).count() as u128;
    if count == 0 {
        return Ok(sizes);
    }
    if let Some(disabled) = config.get("sparse_disable_index_value") {
        let disabled = per_layer_value(disabled, layers).ok_or(Refusal::unsupported(
            "sparse_attention_config.sparse_disable_index_value",
        ))?;
        if sparse.iter().zip(&disabled).any(|(&s, &d)| s && d != 1) {
            return Err(Refusal::unsupported(
                "sparse_attention_config.sparse_disable_index_value",
            ));
        }
    }
    if config
        .get("use_sparse_attention")
        .is_some_and(|v| v != &Value::Bool(true))
    {
        return Err(Refusal::unsupported(
            "sparse_attention_config.use_sparse_attention",
        ));
    }
    let index_heads = config
        .get("sparse_num_index_heads")
        .and_then(Value::as_u64)
        .map(u128::from);
    if index_heads != Some(kv_heads) {
        return Err(Refusal::unsupported(
            "sparse_attention_config.sparse_num_index_heads",
        ));
    }
    let index_dim = config
        .get("sparse_index_dim")
        .and_then(Value::as_u64)
        .filter(|&d| d > 0)
        .map(u128::from)
        .ok_or(Refusal::missing("sparse_attention_config.sparse_index_dim"))?;
    add(
        &mut sizes.per_token,
        mul(
            &[count, index_dim, 2],
            "sparse_attention_config.sparse_index_dim",
        )?,
        "sparse_attention_config.sparse_index_dim",
    )?;
    Ok(sizes)
}

/// A list of exactly `layers` non-negative integers.
fn per_layer_value(list: &Value, layers: usize) -> Option<Vec<u64>> {
    let list = list.as_array()?;
    if list.len() != layers {
        return None;
    }
    list.iter().map(Value::as_u64).collect()
}
