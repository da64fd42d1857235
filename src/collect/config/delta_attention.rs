//! Kimi Linear's layers (`kimi_linear`, the key set of Kimi K3's `text_config`): Kimi Delta
//! Attention (KDA) layers keep a recurrent state, the others an MLA latent per token.
//!
//! Read from vLLM: `vllm/models/kimi_k3/nvidia/kda.py` at
//! 055e47c28003156421365af985d676fc921cb075 (`KimiK3DeltaAttention.get_state_shape` from
//! `linear_attn_config`), `vllm/model_executor/layers/mamba/mamba_utils.py` at
//! 02d710837549a368073552333f66d714477415d2 (`kda_state_shape`), `vllm/models/kimi_k3/nvidia/mla.py`
//! at 01b867e884625778a017f9edf5cab0311af29a8b (one latent of `kv_lora_rank` +
//! `qk_rope_head_dim`, no window) and `vllm/model_executor/models/kimi_linear.py` at
//! 01d995867291dd13119ea66cd18e3c9c9b51c50e (layer j is KDA when j + 1 is in `kda_layers`).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::checked::{add, foreign, layer_count, mul, need, Checked, Refusal, Sizes};
use super::present;

/// The members of `linear_attn_config` reviewed: the layers and the state's geometry (read),
/// the full-attention layers (checked against the KDA ones), and the gate's parameters, which
/// size no state.
const REVIEWED_MEMBERS: [&str; 7] = [
    "kda_layers",
    "full_attn_layers",
    "num_heads",
    "head_dim",
    "short_conv_kernel_size",
    "gate_lower_bound",
    "use_full_rank_gate",
];

/// `kimi_linear`: layer j (0-based) is a KDA layer when j + 1 is in
/// `linear_attn_config.kda_layers` (1-based), else an MLA layer.
/// - MLA: (`kv_lora_rank` + `qk_rope_head_dim`) × 2 bytes per token.
/// - KDA: a recurrent state of (`short_conv_kernel_size` − 1) × 3·H·d convolution elements
///   (q, k and v, whose key heads default to the value heads) plus H·d·d, with H =
///   `num_heads` and d = `head_dim`, at 2 bytes per element (DESIGN §10; vLLM keeps the d × d
///   part in fp32, a deployment's choice).
///
/// Refused, naming the key (`linear_attn_config.<member>` for a member): a KDA entry outside
/// 1..`num_hidden_layers` or repeated; `full_attn_layers` that overlap the KDA layers or leave a
/// layer in neither list (vLLM makes such a layer MLA silently, while the list says it is
/// something else); a member not reviewed (`num_k_heads` or `head_k_dim` would change the
/// state); a `layer_types` or any other layout key beside the config.
pub(super) fn kimi_linear(keys: &Map<String, Value>) -> Checked<Sizes> {
    foreign(keys, &["linear_attn_config", "kv_lora_rank"])?;
    let layers = layer_count(keys)?;
    let config = present(keys, "linear_attn_config")
        .and_then(Value::as_object)
        .ok_or(Refusal::unsupported("linear_attn_config"))?;
    if config
        .keys()
        .any(|k| !REVIEWED_MEMBERS.contains(&k.as_str()))
    {
        return Err(Refusal::unsupported("linear_attn_config"));
    }
    let kda = layer_set(config, "kda_layers", layers)
        .ok_or(Refusal::unsupported("linear_attn_config.kda_layers"))?;
    if config.contains_key("full_attn_layers") {
        layer_set(config, "full_attn_layers", layers)
            .filter(|full| full.is_disjoint(&kda) && full.len() + kda.len() == layers)
            .ok_or(Refusal::unsupported("linear_attn_config.full_attn_layers"))?;
    }
    let kda_layers = kda.len() as u128;
    let mla_layers = layers as u128 - kda_layers;

    let mut sizes = Sizes::default();
    if mla_layers > 0 {
        let latent = need(keys, "kv_lora_rank")?
            .checked_add(need(keys, "qk_rope_head_dim")?)
            .ok_or(Refusal::missing("kv_lora_rank"))?;
        sizes.per_token = mul(&[mla_layers, latent, 2], "kv_lora_rank")?;
    }
    if kda_layers > 0 {
        let member = |name: &'static str, key: &'static str| {
            config
                .get(name)
                .and_then(Value::as_u64)
                .map(u128::from)
                .ok_or(Refusal::missing(key))
        };
        let heads = member("num_heads", "linear_attn_config.num_heads")?;
        let head_dim = member("head_dim", "linear_attn_config.head_dim")?;
        let kernel = member(
            "short_conv_kernel_size",
            "linear_attn_config.short_conv_kernel_size",
        )?
        .checked_sub(1)
        .ok_or(Refusal::missing(
            "linear_attn_config.short_conv_kernel_size",
        ))?;
        let key = "linear_attn_config.num_heads";
        let conv = mul(&[kernel, 3, heads, head_dim], key)?;
        let mut elements = mul(&[heads, head_dim, head_dim], key)?;
        add(&mut elements, conv, key)?;
        sizes.recurrent = mul(&[kda_layers, elements, 2], key)?;
    }
    Ok(sizes)
}

/// A member listing 1-based layers, as a set: each entry an integer in 1..=`layers`, none
/// repeated; `None` otherwise.
fn layer_set(config: &Map<String, Value>, member: &str, layers: usize) -> Option<BTreeSet<u64>> {
    let list = config.get(member)?.as_array()?;
    let set: BTreeSet<u64> = list
        .iter()
        .map(|v| v.as_u64().filter(|&n| n >= 1 && n <= layers as u64))
        .collect::<Option<_>>()?;
    (set.len() == list.len()).then_some(set)
}
