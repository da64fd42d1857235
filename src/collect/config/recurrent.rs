//! The recurrent-state fact of a configuration: the 16-bit state bytes of its Mamba2 and Gated
//! DeltaNet (linear-attention) layers, sized as vLLM sizes them.

use serde_json::{Map, Value};

use super::layout::Layout;
use super::{product, sum, uint, Figure, CONFIG_KEY_MISSING};

/// One Mamba2 layer's state elements, as vLLM sizes them.
fn mamba2_layer_elements(keys: &Map<String, Value>) -> Figure {
    let conv_kernel = uint(keys, "conv_kernel")?;
    let heads = uint(keys, "mamba_num_heads")?;
    let head_dim = uint(keys, "mamba_head_dim")?;
    let groups = uint(keys, "n_groups")?;
    let state = uint(keys, "ssm_state_size")?;
    let inner = product(&[heads, head_dim])?;
    let conv_channels = sum(inner, product(&[2, groups, state])?)?;
    let conv = product(&[
        conv_kernel.checked_sub(1).ok_or(CONFIG_KEY_MISSING)?,
        conv_channels,
    ])?;
    sum(conv, product(&[inner, state])?)
}

/// One Gated DeltaNet (linear attention) layer's state elements, as vLLM sizes them.
fn gated_delta_net_layer_elements(keys: &Map<String, Value>) -> Figure {
    let conv_kernel = uint(keys, "linear_conv_kernel_dim")?;
    let key_head_dim = uint(keys, "linear_key_head_dim")?;
    let key_heads = uint(keys, "linear_num_key_heads")?;
    let value_head_dim = uint(keys, "linear_value_head_dim")?;
    let value_heads = uint(keys, "linear_num_value_heads")?;
    let conv_channels = sum(
        product(&[2, key_head_dim, key_heads])?,
        product(&[value_head_dim, value_heads])?,
    )?;
    let conv = product(&[
        conv_kernel.checked_sub(1).ok_or(CONFIG_KEY_MISSING)?,
        conv_channels,
    ])?;
    sum(conv, product(&[value_heads, value_head_dim, key_head_dim])?)
}

/// `recurrent_state_bytes` = 2 × the state elements of all recurrent layers (0 without any).
pub(super) fn recurrent_state_bytes(keys: &Map<String, Value>, layout: &Layout) -> Figure {
    let mut elements = 0;
    if layout.mamba > 0 {
        elements = sum(
            elements,
            product(&[layout.mamba, mamba2_layer_elements(keys)?])?,
        )?;
    }
    if layout.linear > 0 {
        elements = sum(
            elements,
            product(&[layout.linear, gated_delta_net_layer_elements(keys)?])?,
        )?;
    }
    product(&[2, elements])
}
