//! Nemotron-H written with a `layers_block_type` list (`nemotron_h`, as Nemotron 3 Ultra and
//! 3.5 Lightning write it): the list names each layer's block where older configurations wrote
//! a `hybrid_override_pattern` string; the layers then cache what rule 2's characters do.
//!
//! Read from transformers' `src/transformers/models/nemotron_h/configuration_nemotron_h.py` at
//! cfeb552ef0cb77b59ff08da07698ecaad5f7b5ba (`layers_block_type` wins over the pattern, which
//! is used only without it; `num_hidden_layers` is the list's length; `_list_to_pattern` maps
//! `mamba` → `M`, `moe` → `E`, `attention` → `*`) and vLLM's `nemotron_h.py` at
//! 00b08dc44519a82cbdd9061d92d1226985094622 (one layer per pattern character).

use serde_json::{Map, Value};

use super::attention::attention_bytes_per_token;
use super::checked::{foreign, list, need, Checked, Refusal, Sizes};
use super::layout::Layout;
use super::present;
use super::recurrent::recurrent_state_bytes;

/// The keys of the attention layers' geometry, named together when one of them is unusable.
const ATTENTION_GEOMETRY: &str =
    "head_dim | attention_head_dim | hidden_size / num_attention_heads, num_key_value_heads";
/// The keys of the Mamba2 layers' state, named together when one of them is unusable.
const MAMBA_GEOMETRY: &str =
    "conv_kernel, mamba_num_heads, mamba_head_dim, n_groups, ssm_state_size";

/// `nemotron_h` with `layers_block_type`: one layer per entry, `attention` a full-attention
/// layer of the main geometry, `mamba` a Mamba2 layer, `moe` no cache; then the figures of the
/// generic rules over that layout (rule 2's, whose pattern the list replaces).
///
/// Refused, naming the key: an entry other than those three (`mlp` is one in some NemotronH
/// classes, but `_list_to_pattern` at that commit has no letter for it); a
/// `num_hidden_layers` other than the list's length (transformers ignores it with a warning:
/// the two disagree); a `hybrid_override_pattern` beside the list that says otherwise; a
/// non-null `sliding_window` (vLLM would window every attention layer, as for rule 2).
pub(super) fn nemotron_h(keys: &Map<String, Value>) -> Checked<Sizes> {
    foreign(keys, &["layers_block_type", "hybrid_override_pattern"])?;
    if present(keys, "sliding_window").is_some() {
        return Err(Refusal::unsupported("sliding_window"));
    }
    let pattern: String = list(keys, "layers_block_type")?
        .iter()
        .map(|block| match block.as_str() {
            Some("attention") => Ok('*'),
            Some("mamba") => Ok('M'),
            Some("moe") => Ok('E'),
            _ => Err(Refusal::unsupported("layers_block_type")),
        })
        .collect::<Checked<_>>()?;
    let layers = pattern.chars().count();
    if present(keys, "num_hidden_layers").is_some()
        && usize::try_from(need(keys, "num_hidden_layers")?).ok() != Some(layers)
    {
        return Err(Refusal::unsupported("num_hidden_layers"));
    }
    if let Some(written) = present(keys, "hybrid_override_pattern") {
        if written.as_str() != Some(pattern.as_str()) {
            return Err(Refusal::unsupported("hybrid_override_pattern"));
        }
    }
    let layout = Layout {
        full: pattern.chars().filter(|&c| c == '*').count() as u128,
        mamba: pattern.chars().filter(|&c| c == 'M').count() as u128,
        ..Layout::default()
    };
    let geometry = |reason| Refusal {
        reason,
        key: ATTENTION_GEOMETRY,
    };
    Ok(Sizes {
        per_token: attention_bytes_per_token(keys, &layout).map_err(geometry)?,
        fixed: 0,
        recurrent: recurrent_state_bytes(keys, &layout).map_err(|reason| Refusal {
            reason,
            key: MAMBA_GEOMETRY,
        })?,
    })
}
