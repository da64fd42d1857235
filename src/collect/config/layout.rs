//! The layer layout of a configuration (DESIGN §10, "Layer kinds" and "Unmodelled keys"): how
//! many layers of each kind the model has, or why the layout is not one the rules model.
//!
//! The rules are tried in order and the first whose key the key set has decides the layout;
//! anything the rules do not describe (an unknown kind, a list of the wrong length or type, a
//! key of a layout the section does not model) is `attention_layout_not_supported`, never a
//! layout guessed as if the key were absent.

use serde_json::{Map, Value};

use super::{present, uint, Figure, ATTENTION_LAYOUT_NOT_SUPPORTED, CONFIG_KEY_MISSING};

/// How many layers of each kind the model has (their sum is `num_hidden_layers`, less the
/// layers that hold no cache: MLP and MoE layers of a hybrid pattern).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Layout {
    /// Full-attention layers (their cache grows with the sequence), main geometry.
    pub(super) full: u128,
    /// Sliding-window layers, main geometry, window `sliding_window`.
    pub(super) sliding: u128,
    /// Chunked-attention layers, main geometry, window `attention_chunk_size`.
    pub(super) chunked: u128,
    /// Sliding layers of `hybrid_layer_pattern` (rule 3): their own geometry and window.
    pub(super) own_sliding: u128,
    /// Gated DeltaNet (linear attention) layers: recurrent state.
    pub(super) linear: u128,
    /// Mamba2 layers: recurrent state.
    pub(super) mamba: u128,
}

/// The keys that choose a layout by rules 1–6; MLA with any of them is not modelled.
pub(super) const LAYER_KIND_KEYS: [&str; 6] = [
    "layer_types",
    "hybrid_override_pattern",
    "hybrid_layer_pattern",
    "full_attention_interval",
    "attention_chunk_size",
    "sliding_window_pattern",
];

type Kinds = Result<Layout, &'static str>;

/// The layout of a key set: the unmodelled keys first, then the first rule whose key is there.
pub(super) fn layout(keys: &Map<String, Value>) -> Kinds {
    unmodelled(keys)?;
    // A list of blocks only `nemotron_h`'s own rule reads (`block_list.rs`): anywhere else the
    // layer kinds it names would be read as absent.
    if present(keys, "layers_block_type").is_some() {
        return Err(ATTENTION_LAYOUT_NOT_SUPPORTED);
    }
    if let Some(types) = present(keys, "layer_types") {
        layer_types(keys, types)
    } else if let Some(pattern) = present(keys, "hybrid_override_pattern") {
        override_pattern(keys, pattern)
    } else if let Some(pattern) = present(keys, "hybrid_layer_pattern") {
        layer_pattern(keys, pattern)
    } else if let Some(interval) = present(keys, "full_attention_interval") {
        let layers = uint(keys, "num_hidden_layers")?;
        let full = every(interval, layers)?;
        Ok(Layout {
            full,
            linear: layers - full,
            ..Layout::default()
        })
    } else if present(keys, "attention_chunk_size").is_some() {
        chunked(keys)
    } else if let (Some(pattern), Some(_)) = (
        present(keys, "sliding_window_pattern"),
        present(keys, "sliding_window"),
    ) {
        let layers = uint(keys, "num_hidden_layers")?;
        let full = every(pattern, layers)?;
        Ok(Layout {
            full,
            sliding: layers - full,
            ..Layout::default()
        })
    } else {
        let sliding_enabled = !matches!(keys.get("use_sliding_window"), Some(Value::Bool(false)));
        if present(keys, "sliding_window").is_some() && sliding_enabled {
            return Err(ATTENTION_LAYOUT_NOT_SUPPORTED);
        }
        Ok(Layout {
            full: uint(keys, "num_hidden_layers")?,
            ..Layout::default()
        })
    }
}

/// The keys of layouts §10 does not model, each with the values that mean such a layout. A
/// value of an unexpected type counts as such a layout too: nothing says it is the plain one.
fn unmodelled(keys: &Map<String, Value>) -> Result<(), &'static str> {
    if unmodelled_found(keys).is_empty() {
        Ok(())
    } else {
        Err(ATTENTION_LAYOUT_NOT_SUPPORTED)
    }
}

/// The unmodelled keys of §10 the key set carries with a value meaning a layout the generic
/// rules do not model, by name (`swa_*` for the sliding geometry outside rule 3, `kv_lora_rank`
/// for MLA beside a layer-kind key). A family's own rule (`family.rs`) models some of them for
/// its `model_type` and refuses the rest.
pub(super) fn unmodelled_found(keys: &Map<String, Value>) -> Vec<&'static str> {
    let not_one = |v: &Value| v.as_u64() != Some(1);
    let found = [
        // Lightning (linear) attention layers marked in a list (MiniMax).
        (
            "attn_type_list",
            present(keys, "attn_type_list")
                .is_some_and(|v| v.as_array().is_none_or(|list| list.iter().any(not_one))),
        ),
        // Per-kind geometry other than rule 3's (Gemma 4).
        (
            "global_head_dim",
            present(keys, "global_head_dim").is_some(),
        ),
        (
            "num_global_key_value_heads",
            present(keys, "num_global_key_value_heads").is_some(),
        ),
        (
            "attention_k_eq_v",
            present(keys, "attention_k_eq_v").is_some_and(|v| v != &Value::Bool(false)),
        ),
        // KV caches shared between layers.
        (
            "num_kv_shared_layers",
            present(keys, "num_kv_shared_layers").is_some_and(|v| v.as_u64() != Some(0)),
        ),
        // Compressed caches.
        (
            "compress_ratios",
            present(keys, "compress_ratios").is_some(),
        ),
        // Indexers shared between layers.
        (
            "index_topk_freq",
            present(keys, "index_topk_freq").is_some_and(not_one),
        ),
        (
            "index_topk_pattern",
            present(keys, "index_topk_pattern").is_some(),
        ),
        ("indexer_types", present(keys, "indexer_types").is_some()),
        // Sliding layers with their own geometry are modelled only where rule 3 decides the
        // layout: with `layer_types` first, its sliding layers would take the wrong geometry.
        (
            "swa_*",
            keys.iter()
                .any(|(k, v)| k.starts_with("swa_") && !v.is_null())
                && (present(keys, "hybrid_layer_pattern").is_none()
                    || present(keys, "layer_types").is_some()
                    || present(keys, "hybrid_override_pattern").is_some()),
        ),
        (
            "kv_lora_rank",
            present(keys, "kv_lora_rank").is_some()
                && LAYER_KIND_KEYS.iter().any(|k| present(keys, k).is_some()),
        ),
    ];
    found
        .into_iter()
        .filter(|(_, here)| *here)
        .map(|(name, _)| name)
        .collect()
}

/// The number of layers j (0-based) of `layers` with (j + 1) mod i = 0: floor(layers / i). An
/// interval that is not a positive integer is no layout the rules know.
fn every(interval: &Value, layers: u128) -> Figure {
    let i = interval
        .as_u64()
        .filter(|&i| i > 0)
        .ok_or(ATTENTION_LAYOUT_NOT_SUPPORTED)?;
    Ok(layers / u128::from(i))
}

/// A list or pattern must have one entry per layer.
fn check_length(keys: &Map<String, Value>, length: usize) -> Result<(), &'static str> {
    if u128::try_from(length).ok() == Some(uint(keys, "num_hidden_layers")?) {
        Ok(())
    } else {
        Err(ATTENTION_LAYOUT_NOT_SUPPORTED)
    }
}

/// Rule 1: `layer_types`, one kind per layer.
fn layer_types(keys: &Map<String, Value>, types: &Value) -> Kinds {
    let types = types.as_array().ok_or(ATTENTION_LAYOUT_NOT_SUPPORTED)?;
    let mut layout = Layout::default();
    for kind in types {
        match kind.as_str() {
            Some("full_attention") => layout.full += 1,
            Some("sliding_attention") => layout.sliding += 1,
            Some("chunked_attention") => layout.chunked += 1,
            Some("linear_attention") => layout.linear += 1,
            _ => return Err(ATTENTION_LAYOUT_NOT_SUPPORTED),
        }
    }
    check_length(keys, types.len())?;
    Ok(layout)
}

/// Rule 2: `hybrid_override_pattern`, one character per layer. A non-null `sliding_window`
/// beside it would window every attention layer in vLLM's `nemotron_h.py`, which the rule does
/// not say: not a layout the rules know (docs/decisions.md, issue 40).
fn override_pattern(keys: &Map<String, Value>, pattern: &Value) -> Kinds {
    let pattern = pattern.as_str().ok_or(ATTENTION_LAYOUT_NOT_SUPPORTED)?;
    if present(keys, "sliding_window").is_some() {
        return Err(ATTENTION_LAYOUT_NOT_SUPPORTED);
    }
    let mut layout = Layout::default();
    for kind in pattern.chars() {
        match kind {
            '*' => layout.full += 1,
            'M' => layout.mamba += 1,
            // MLP and MoE layers hold no cache.
            '-' | 'E' => {}
            _ => return Err(ATTENTION_LAYOUT_NOT_SUPPORTED),
        }
    }
    check_length(keys, pattern.chars().count())?;
    Ok(layout)
}

/// The entries of a list of 0 and 1, as booleans; anything else is no layout the rules know.
fn zeros_and_ones(list: &Value) -> Result<Vec<bool>, &'static str> {
    list.as_array()
        .ok_or(ATTENTION_LAYOUT_NOT_SUPPORTED)?
        .iter()
        .map(|v| match v.as_u64() {
            Some(0) => Ok(false),
            Some(1) => Ok(true),
            _ => Err(ATTENTION_LAYOUT_NOT_SUPPORTED),
        })
        .collect()
}

/// Rule 3: `hybrid_layer_pattern`, 1 sliding (with its own geometry), 0 full.
fn layer_pattern(keys: &Map<String, Value>, pattern: &Value) -> Kinds {
    let pattern = zeros_and_ones(pattern)?;
    check_length(keys, pattern.len())?;
    let own_sliding = pattern.iter().filter(|&&s| s).count() as u128;
    Ok(Layout {
        full: pattern.len() as u128 - own_sliding,
        own_sliding,
        ..Layout::default()
    })
}

/// Rule 5: chunked attention. `no_rope_layers` (1 chunked, 0 full) when a non-empty list, else
/// every `no_rope_layer_interval`-th layer full (the key or its reference default).
fn chunked(keys: &Map<String, Value>) -> Kinds {
    let layers = uint(keys, "num_hidden_layers")?;
    let listed = match present(keys, "no_rope_layers") {
        Some(list) => Some(zeros_and_ones(list)?).filter(|l| !l.is_empty()),
        None => None,
    };
    let full = match listed {
        Some(list) => {
            check_length(keys, list.len())?;
            list.iter().filter(|&&chunked| !chunked).count() as u128
        }
        None => every(
            present(keys, "no_rope_layer_interval").ok_or(CONFIG_KEY_MISSING)?,
            layers,
        )?,
    };
    Ok(Layout {
        full,
        chunked: layers - full,
        ..Layout::default()
    })
}
