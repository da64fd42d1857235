//! The rules of Gemma 4 (per-kind geometry), Nemotron 3 (`layers_block_type`) and Kimi K3
//! (Kimi Delta Attention and MLA) on their real configurations: the engine's figures, and each
//! bad input an unknown naming the key.

use super::tests_families::*;
use super::*;
use serde_json::json;

// Gemma 4 (`gemma4_text`, per_kind.rs).

#[test]
fn gemma4_full_and_sliding_layers_take_their_own_geometry() {
    // 31B: 10 full layers × 4 × (512 + 512) × 2 = 81,920 per token; 50 sliding × 16 ×
    // (256 + 256) × 2 × 1,024 = 838,860,800 fixed. Figures as before issue 47's rules, now
    // stated.
    let facts = config_facts(&load(GEMMA_4_31B), &[]);
    assert_eq!(figures(&facts), expected("google__gemma-4-31B-it"));
    assert_eq!(facts.attention_bytes_per_token, value("81920"));
    // 26B-A4B: 5 full × 2 × 1,024 × 2 = 20,480; 25 sliding × 8 × 512 × 2 × 1,024.
    let facts = config_facts(&load(GEMMA_4_26B), &[]);
    assert_eq!(figures(&facts), expected("google__gemma-4-26B-A4B"));
    assert_eq!(facts.attention_bytes_per_token, value("20480"));
}

#[test]
fn gemma4_global_kv_heads_count_only_with_k_eq_v() {
    // attention_k_eq_v false: vLLM gives full layers num_key_value_heads (16), not the global 4.
    let config = with_key(&load(GEMMA_4_31B), "attention_k_eq_v", Some(json!(false)));
    let facts = config_facts(&config, &[]);
    assert_eq!(
        facts.attention_bytes_per_token,
        value(&(10 * 16 * 1024 * 2).to_string())
    );
    // With it false, num_global_key_value_heads is not needed.
    let config = with_key(&config, "num_global_key_value_heads", None);
    assert_eq!(refusal(&config), None);
}

#[test]
fn gemma4_shared_layers_cache_nothing_of_their_own() {
    // The last 10 layers (8 sliding, 2 full at j = 53 and 59) reuse earlier layers' caches:
    // 8 full × 8,192 = 65,536 per token, 42 sliding at the window.
    let config = with_key(&load(GEMMA_4_31B), "num_kv_shared_layers", Some(json!(10)));
    let facts = config_facts(&config, &[]);
    assert_eq!(facts.attention_bytes_per_token, value("65536"));
    assert_eq!(
        facts.full_sequence_attention_bytes,
        value(&(65_536u128 * 262_144 + 42 * 16_384 * 1_024).to_string())
    );
}

#[test]
fn gemma4_bad_inputs_are_unknowns_naming_the_key() {
    let config = load(GEMMA_4_31B);
    let mut types = config["text_config"]["layer_types"]
        .as_array()
        .expect("a list")
        .clone();
    types.pop();
    assert_refused(
        &with_key(&config, "layer_types", Some(json!(types))),
        UNSUPPORTED,
        "layer_types",
    );
    types.push(json!("chunked_attention"));
    assert_refused(
        &with_key(&config, "layer_types", Some(json!(types))),
        UNSUPPORTED,
        "layer_types",
    );
    // As many shared layers as layers, or a shared kind no earlier layer has.
    assert_refused(
        &with_key(&config, "num_kv_shared_layers", Some(json!(60))),
        UNSUPPORTED,
        "num_kv_shared_layers",
    );
    let mut lonely = vec![json!("sliding_attention"); 60];
    lonely[59] = json!("full_attention");
    let lonely = with_key(&config, "layer_types", Some(json!(lonely)));
    assert_refused(
        &with_key(&lonely, "num_kv_shared_layers", Some(json!(1))),
        UNSUPPORTED,
        "num_kv_shared_layers",
    );
    assert_refused(
        &with_key(&config, "attention_k_eq_v", Some(json!("true"))),
        UNSUPPORTED,
        "attention_k_eq_v",
    );
    assert_refused(
        &with_key(&config, "use_bidirectional_attention", Some(json!("all"))),
        UNSUPPORTED,
        "use_bidirectional_attention",
    );
    // Keys whose class defaults were not reviewed, and the geometry the rule needs.
    for key in [
        "global_head_dim",
        "attention_k_eq_v",
        "num_kv_shared_layers",
        "num_global_key_value_heads",
        "head_dim",
        "num_key_value_heads",
        "sliding_window",
    ] {
        assert_refused(&with_key(&config, key, None), MISSING, key);
    }
    assert_refused(
        &with_key(&config, "swa_head_dim", Some(json!(128))),
        UNSUPPORTED,
        "swa_*",
    );
    assert_refused(
        &with_key(&config, "sliding_window_pattern", Some(json!(6))),
        UNSUPPORTED,
        "sliding_window_pattern",
    );
}

// Nemotron 3 (`nemotron_h` with `layers_block_type`, block_list.rs).

#[test]
fn nemotron_h_block_lists_give_rule_twos_figures() {
    // Lightning: 52 blocks, 6 attention × 2 × (128 + 128) × 2 = 6,144 per token, 23 Mamba2 ×
    // 542,720 elements × 2 = 24,965,120 (Nano's figures: the same geometry).
    let facts = config_facts(&load(NEMOTRON_LIGHTNING), &[]);
    assert_eq!(
        figures(&facts),
        expected("nvidia__NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4")
    );
    assert_eq!(facts.recurrent_state_bytes, value("24965120"));
    // Ultra writes no num_hidden_layers: the list's length is the layer count.
    let facts = config_facts(&load(NEMOTRON_ULTRA), &[]);
    assert_eq!(
        figures(&facts),
        expected("nvidia__NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16")
    );
    assert_eq!(facts.attention_bytes_per_token, value("12288"));
    // The same layers written as the pattern beside the list agree.
    let config = load(NEMOTRON_LIGHTNING);
    let pattern: String = config["layers_block_type"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|b| match b.as_str() {
            Some("attention") => '*',
            Some("mamba") => 'M',
            _ => 'E',
        })
        .collect();
    let both = with_key(&config, "hybrid_override_pattern", Some(json!(pattern)));
    assert_eq!(
        figures(&config_facts(&both, &[])),
        figures(&config_facts(&config, &[]))
    );
    // Rule 2 alone (the pattern without the list) gives the same figures too.
    let pattern_only = with_key(&both, "layers_block_type", None);
    assert_eq!(
        figures(&config_facts(&pattern_only, &[])),
        figures(&config_facts(&config, &[]))
    );
}

#[test]
fn nemotron_h_block_list_bad_inputs_are_unknowns_naming_the_key() {
    let config = load(NEMOTRON_LIGHTNING);
    let blocks = config["layers_block_type"]
        .as_array()
        .expect("a list")
        .clone();
    assert_refused(
        &with_key(&config, "num_hidden_layers", Some(json!(51))),
        UNSUPPORTED,
        "num_hidden_layers",
    );
    for other in ["mlp", "linear_attention", ""] {
        let mut edited = blocks.clone();
        edited[1] = json!(other);
        assert_refused(
            &with_key(&config, "layers_block_type", Some(json!(edited))),
            UNSUPPORTED,
            "layers_block_type",
        );
    }
    assert_refused(
        &with_key(&config, "layers_block_type", Some(json!("M-M*"))),
        UNSUPPORTED,
        "layers_block_type",
    );
    assert_refused(
        &with_key(
            &config,
            "hybrid_override_pattern",
            Some(json!("M".repeat(52))),
        ),
        UNSUPPORTED,
        "hybrid_override_pattern",
    );
    assert_refused(
        &with_key(&config, "sliding_window", Some(json!(4096))),
        UNSUPPORTED,
        "sliding_window",
    );
    assert_refused(
        &with_key(&config, "conv_kernel", None),
        MISSING,
        "conv_kernel, mamba_num_heads, mamba_head_dim, n_groups, ssm_state_size",
    );
    assert_refused(
        &with_key(
            &config,
            "layer_types",
            Some(json!(vec!["full_attention"; 52])),
        ),
        UNSUPPORTED,
        "layer_types",
    );
    // Outside nemotron_h the generic rules do not read the list, and do not ignore it.
    let llama = json!({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 8,
        "hidden_size": 512, "max_position_embeddings": 4096,
        "layers_block_type": ["attention", "mamba"]});
    assert_eq!(
        config_facts(&llama, &[]).attention_bytes_per_token,
        Outcome::NotFound(UNSUPPORTED)
    );
}

// Kimi K3 (`kimi_linear`, delta_attention.rs).

/// A copy of Kimi K3 with one member of `text_config.linear_attn_config` set (removed when
/// `None`).
fn with_linear(config: &Value, member: &str, new: Option<Value>) -> Value {
    let mut linear = config["text_config"]["linear_attn_config"].clone();
    let members = linear.as_object_mut().expect("an object");
    match new {
        Some(v) => members.insert(member.to_string(), v),
        None => members.remove(member),
    };
    with_key(config, "linear_attn_config", Some(linear))
}

#[test]
fn kimi_k3_kda_state_and_mla_latents() {
    // 93 layers: 24 MLA × (512 + 64) × 2 = 27,648 per token; 69 KDA × ((4 − 1) × 3 × 96 × 128
    // + 96 × 128 × 128) = 69 × 1,683,456 elements × 2 = 232,316,928.
    let facts = config_facts(&load(KIMI_K3), &[]);
    assert_eq!(figures(&facts), expected("moonshotai__Kimi-K3"));
    assert_eq!(facts.architecture_type, value("kimi_k3"));
    assert_eq!(facts.recurrent_state_bytes, value("232316928"));
    // Without full_attn_layers the layers outside kda_layers are MLA all the same.
    let config = with_linear(&load(KIMI_K3), "full_attn_layers", None);
    assert_eq!(figures(&config_facts(&config, &[])), figures(&facts));
}

#[test]
fn kimi_k3_bad_inputs_are_unknowns_naming_the_key() {
    let config = load(KIMI_K3);
    let kda = config["text_config"]["linear_attn_config"]["kda_layers"]
        .as_array()
        .expect("a list")
        .clone();
    // A KDA entry outside 1..93, 0-based, or repeated.
    for edit in [json!(94), json!(0), json!(1), json!("5")] {
        let mut edited = kda.clone();
        edited[1] = edit;
        assert_refused(
            &with_linear(&config, "kda_layers", Some(json!(edited))),
            UNSUPPORTED,
            "linear_attn_config.kda_layers",
        );
    }
    // The two lists overlap, or leave a layer in neither.
    let mut overlap = kda.clone();
    overlap.push(json!(4));
    let mut short = kda.clone();
    short.pop();
    for list in [overlap, short] {
        assert_refused(
            &with_linear(&config, "kda_layers", Some(json!(list))),
            UNSUPPORTED,
            "linear_attn_config.full_attn_layers",
        );
    }
    // A member nobody reviewed, such as a key-head count the state would take.
    assert_refused(
        &with_linear(&config, "num_k_heads", Some(json!(48))),
        UNSUPPORTED,
        "linear_attn_config",
    );
    for (member, key) in [
        ("num_heads", "linear_attn_config.num_heads"),
        ("head_dim", "linear_attn_config.head_dim"),
        (
            "short_conv_kernel_size",
            "linear_attn_config.short_conv_kernel_size",
        ),
    ] {
        assert_refused(&with_linear(&config, member, None), MISSING, key);
    }
    assert_refused(
        &with_linear(&config, "short_conv_kernel_size", Some(json!(0))),
        MISSING,
        "linear_attn_config.short_conv_kernel_size",
    );
    assert_refused(
        &with_key(&config, "kv_lora_rank", None),
        MISSING,
        "kv_lora_rank",
    );
    assert_refused(
        &with_key(&config, "linear_attn_config", Some(json!([1, 2]))),
        UNSUPPORTED,
        "linear_attn_config",
    );
    assert_refused(
        &with_key(
            &config,
            "layer_types",
            Some(json!(vec!["linear_attention"; 93])),
        ),
        UNSUPPORTED,
        "layer_types",
    );
}
