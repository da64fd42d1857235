//! DeepSeek V4's compressed sparse attention (`deepseek_v4`), by DESIGN §10's conventions for
//! caches that are neither plain K/V nor recurrent state: compressed entries per token, the
//! window and the fp32 compressor states as fixed buffers, the indexer's keys per token.
//!
//! Read from the reference inference code (`inference/model.py`: `Attention`, `Compressor`,
//! `Indexer`; a copy of the Hugging Face repository's code at
//! Nicooo-Wang/DeepSeek-V4-Pro-code@0ec3a03c2fc34f29b2e72696ceaed9ae7a373aeb) and checked
//! against vLLM's `vllm/model_executor/models/deepseek_v4.py` at
//! 023da1fc828eb07787cf0734a1ba32f0a0f11887 (same layers, same ratios; vLLM's own FP8 and MXFP4
//! layouts are a backend's choice, not these facts).

use serde_json::{Map, Value};

use super::checked::{
    add, foreign, layer_count, list, mul, need, positive, Checked, Refusal, Sizes,
};
use super::present;

/// Bytes per element of what the reference code stores in the model's default dtype (bf16:
/// `generate.py` sets it before building the model): the latents and the indexer's keys.
const BF16: u128 = 2;
/// Bytes per element of the compressor states, which the reference code fixes at fp32.
const FP32: u128 = 4;
/// The ratio whose layers compress with overlapping windows and carry an indexer.
const INDEXED: u128 = 4;

/// The keys of layouts elsewhere that this rule models or reviewed: `compress_ratios`, the
/// window of every layer, and `index_topk` (how many compressed entries the indexer selects,
/// which sizes no cache: the indexer exists on every ratio-4 layer whatever its value).
const OWN: [&str; 3] = ["compress_ratios", "sliding_window", "index_topk"];

/// `deepseek_v4`: for each of the `num_hidden_layers` layers, r = `compress_ratios[j]`:
/// - every layer keeps a ring of min(`sliding_window`, T) uncompressed latents of `head_dim`
///   bf16 values (fixed);
/// - r > 0 adds one compressed latent per r tokens (`head_dim` × 2 / r bytes per token) and a
///   compressor's `kv_state` and `score_state`, each (coff·r) × (coff·`head_dim`) fp32, with
///   coff = 2 for r = 4 (overlapping windows), else 1 (fixed);
/// - r = 4 adds the indexer: one key of `index_head_dim` bf16 values per 4 tokens, and its own
///   overlapping compressor of 2 × 8 × (2·`index_head_dim`) fp32 (fixed).
///
/// The list holds one more entry per MTP layer (`num_nextn_predict_layers`), which lies outside
/// the layers counted. Refused, naming the key: a list of another length, a ratio other than
/// 0, 4 and 128 (vLLM asserts those, and the engines part ways on any other), more than one
/// latent head (vLLM hard-codes one), a T that is not a multiple of a ratio, an entry whose
/// bytes do not divide by its ratio.
pub(super) fn deepseek_v4(keys: &Map<String, Value>) -> Checked<Sizes> {
    foreign(keys, &OWN)?;
    let layers = layer_count(keys)?;
    let ratios = list(keys, "compress_ratios")?;
    // Read only to check the list's length: the MTP layers cache nothing the facts count.
    let mtp = match present(keys, "num_nextn_predict_layers") {
        None => 0,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(Refusal::unsupported("num_nextn_predict_layers"))?,
    };
    if ratios.len() != layers && Some(ratios.len()) != layers.checked_add(mtp) {
        return Err(Refusal::unsupported("compress_ratios"));
    }
    if present(keys, "num_key_value_heads").is_some_and(|v| v.as_u64() != Some(1)) {
        return Err(Refusal::unsupported("num_key_value_heads"));
    }
    let head_dim = need(keys, "head_dim")?;
    let t = need(keys, "max_position_embeddings")?;
    let window = positive(keys, "sliding_window")?.min(t);
    let latent = mul(&[head_dim, BF16], "head_dim")?;

    let mut sizes = Sizes::default();
    for ratio in &ratios[..layers] {
        let r = match ratio.as_u64() {
            Some(r @ (0 | 4 | 128)) => u128::from(r),
            _ => return Err(Refusal::unsupported("compress_ratios")),
        };
        add(
            &mut sizes.fixed,
            mul(&[window, latent], "head_dim")?,
            "head_dim",
        )?;
        if r == 0 {
            continue;
        }
        if !t.is_multiple_of(r) {
            return Err(Refusal::unsupported("max_position_embeddings"));
        }
        add(
            &mut sizes.per_token,
            per_entry(latent, r, "head_dim")?,
            "head_dim",
        )?;
        let coff = if r == INDEXED { 2 } else { 1 };
        let state = mul(&[2, coff * r, coff, head_dim, FP32], "head_dim")?;
        add(&mut sizes.fixed, state, "head_dim")?;
        if r == INDEXED {
            let index_dim = need(keys, "index_head_dim")?;
            let key = mul(&[index_dim, BF16], "index_head_dim")?;
            add(
                &mut sizes.per_token,
                per_entry(key, INDEXED, "index_head_dim")?,
                "index_head_dim",
            )?;
            let state = mul(&[2, 2 * INDEXED, 2, index_dim, FP32], "index_head_dim")?;
            add(&mut sizes.fixed, state, "index_head_dim")?;
        }
    }
    Ok(sizes)
}

/// Bytes per token of one entry kept per `ratio` tokens; an entry whose bytes do not divide by
/// the ratio would be a fraction of a byte per token, which the facts do not state.
fn per_entry(entry: u128, ratio: u128, key: &'static str) -> Checked<u128> {
    if entry.is_multiple_of(ratio) {
        Ok(entry / ratio)
    } else {
        Err(Refusal::unsupported(key))
    }
}
