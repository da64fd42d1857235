//! "Never a wrong figure" (DESIGN §10) as a property: every shared real configuration, with
//! each unmodelled key of §10 added one at a time (with a value that changes the layout), gives
//! `attention_layout_not_supported` on the three cache facts, never a number.

use super::tests_2026::{key_set, load, shipped_defaults, with_key};
use super::*;
use proptest::prelude::*;
use serde_json::json;

/// Every shared real configuration (tests/fixtures/huggingface/), by folder.
const REAL: [(&str, &[u8]); 16] = [
    (
        "meta-llama__Meta-Llama-3.1-8B",
        include_bytes!(
            "../../../tests/fixtures/huggingface/meta-llama__Meta-Llama-3.1-8B/config.json"
        ),
    ),
    (
        "meta-llama__Llama-3.3-70B-Instruct",
        include_bytes!(
            "../../../tests/fixtures/huggingface/meta-llama__Llama-3.3-70B-Instruct/config.json"
        ),
    ),
    (
        "deepseek-ai__DeepSeek-V3",
        include_bytes!("../../../tests/fixtures/huggingface/deepseek-ai__DeepSeek-V3/config.json"),
    ),
    (
        "Qwen__Qwen3-235B-A22B",
        include_bytes!("../../../tests/fixtures/huggingface/Qwen__Qwen3-235B-A22B/config.json"),
    ),
    (
        "openai__gpt-oss-120b",
        include_bytes!("../../../tests/fixtures/huggingface/openai__gpt-oss-120b/config.json"),
    ),
    (
        "Qwen__Qwen3-Next-80B-A3B-Thinking",
        include_bytes!(
            "../../../tests/fixtures/huggingface/Qwen__Qwen3-Next-80B-A3B-Thinking/config.json"
        ),
    ),
    (
        "deepseek-ai__DeepSeek-V3.2",
        super::tests_2026::DEEPSEEK_V32,
    ),
    (
        "meta-llama__Llama-4-Scout-17B-16E-Instruct",
        super::tests_2026::LLAMA4_SCOUT,
    ),
    (
        "XiaomiMiMo__MiMo-V2-Flash",
        super::tests_2026::MIMO_V2_FLASH,
    ),
    (
        "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
        super::tests_2026::NEMOTRON_3_NANO,
    ),
    (
        "deepseek-ai__DeepSeek-V4-Flash",
        super::tests_families::DEEPSEEK_V4_FLASH,
    ),
    ("zai-org__GLM-5.2", super::tests_families::GLM_5_2),
    ("MiniMaxAI__MiniMax-M3", super::tests_families::MINIMAX_M3),
    ("google__gemma-4-31B-it", super::tests_families::GEMMA_4_31B),
    (
        "nvidia__NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4",
        super::tests_families::NEMOTRON_LIGHTNING,
    ),
    ("moonshotai__Kimi-K3", super::tests_families::KIMI_K3),
];

/// The unmodelled keys of §10 a family's own rule models for its `model_type` (DESIGN §10 as
/// amended 2026-11-28: a key stays unmodelled until a rule exists for it in that type), so
/// adding them there is a layout the rule reads, not an unknown.
fn modelled_by_family(config: &Value) -> &'static [&'static str] {
    let mut config = config.clone();
    match key_set(&mut config)
        .get("model_type")
        .and_then(Value::as_str)
    {
        Some("deepseek_v4") => &["compress_ratios"],
        Some("glm_moe_dsa") => &["index_topk_freq", "index_topk_pattern", "indexer_types"],
        Some("gemma4_text") => &[
            "global_head_dim",
            "num_global_key_value_heads",
            "attention_k_eq_v",
            "num_kv_shared_layers",
        ],
        _ => &[],
    }
}

/// The layer count of a configuration's key set.
fn layers(config: &Value) -> usize {
    let mut config = config.clone();
    key_set(&mut config)["num_hidden_layers"]
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .expect("a layer count")
}

/// The unmodelled keys of §10, each as the edit that adds it to a configuration with a value
/// meaning a layout the section does not model. `n` is the configuration's layer count.
fn unmodelled_edits(config: &Value) -> Vec<(&'static str, Value)> {
    let n = layers(config);
    let mut lightning = vec![1; n];
    lightning[0] = 0;
    let mut shared = vec![json!("full"); n];
    shared[1] = json!("shared");
    let mut edits = vec![
        ("attn_type_list", json!(lightning)),
        ("global_head_dim", json!(512)),
        ("num_global_key_value_heads", json!(4)),
        ("attention_k_eq_v", json!(true)),
        ("num_kv_shared_layers", json!(n / 2)),
        ("compress_ratios", json!(vec![4; n])),
        ("index_topk_freq", json!(4)),
        ("index_topk_pattern", json!("F".repeat(n))),
        ("indexer_types", json!(shared)),
    ];
    let mut keys_of = config.clone();
    let keys = key_set(&mut keys_of);
    if keys.contains_key("hybrid_layer_pattern") {
        // Its swa_* keys without the pattern that gives them their layers.
        edits.push(("hybrid_layer_pattern", Value::Null));
    } else {
        edits.push(("swa_num_key_value_heads", json!(8)));
    }
    edits
}

/// MLA together with a layer-kind key of rules 1–6: the key a configuration lacks is added.
fn mla_with_layer_kinds(config: &Value) -> Value {
    let n = layers(config);
    let mut config = config.clone();
    let keys = key_set(&mut config);
    let has_kinds = [
        "layer_types",
        "hybrid_override_pattern",
        "hybrid_layer_pattern",
        "full_attention_interval",
        "attention_chunk_size",
        "sliding_window_pattern",
    ]
    .iter()
    .any(|k| keys.get(*k).is_some_and(|v| !v.is_null()));
    if !has_kinds {
        keys.insert("layer_types".into(), json!(vec!["full_attention"; n]));
    }
    if keys.get("kv_lora_rank").is_none_or(Value::is_null) {
        keys.insert("kv_lora_rank".into(), json!(512));
        keys.insert("qk_rope_head_dim".into(), json!(64));
    }
    config
}

const UNSUPPORTED: Outcome = Outcome::NotFound(ATTENTION_LAYOUT_NOT_SUPPORTED);

fn assert_unsupported(facts: &ConfigFacts, what: &str) {
    assert_eq!(facts.attention_bytes_per_token, UNSUPPORTED, "{what}");
    assert_eq!(facts.full_sequence_attention_bytes, UNSUPPORTED, "{what}");
    assert_eq!(facts.recurrent_state_bytes, UNSUPPORTED, "{what}");
}

#[test]
fn every_real_configuration_has_figures_before_the_edits() {
    // The property below is not vacuous: each configuration gives its three figures as is.
    for (folder, bytes) in REAL {
        let facts = config_facts(&load(bytes), &shipped_defaults());
        for fact in [
            &facts.attention_bytes_per_token,
            &facts.full_sequence_attention_bytes,
            &facts.recurrent_state_bytes,
        ] {
            assert!(matches!(fact, Outcome::Value(_)), "{folder}: {fact:?}");
        }
    }
}

#[test]
fn each_unmodelled_key_added_to_each_real_configuration_is_never_a_figure() {
    let defaults = shipped_defaults();
    for (folder, bytes) in REAL {
        let config = load(bytes);
        let own = modelled_by_family(&config);
        for (key, new) in unmodelled_edits(&config) {
            if own.contains(&key) {
                continue;
            }
            let edited = with_key(&config, key, Some(new.clone()));
            let facts = config_facts(&edited, &defaults);
            assert_unsupported(&facts, &format!("{folder} with {key} = {new}"));
            // The other facts do not depend on the layout.
            assert_eq!(
                facts.calculation_sequence_length,
                config_facts(&config, &defaults).calculation_sequence_length,
                "{folder} {key}"
            );
        }
        let facts = config_facts(&mla_with_layer_kinds(&config), &defaults);
        assert_unsupported(&facts, &format!("{folder} as MLA with layer kinds"));
    }
}

#[test]
fn the_plain_values_of_those_keys_change_nothing() {
    // The values §10 names as the plain layout leave the figures as they were.
    let defaults = shipped_defaults();
    for (folder, bytes) in REAL {
        let config = load(bytes);
        let n = layers(&config);
        let expected = config_facts(&config, &defaults);
        for (key, plain) in [
            ("attn_type_list", json!(vec![1; n])),
            ("attention_k_eq_v", json!(false)),
            ("num_kv_shared_layers", json!(0)),
            ("index_topk_freq", json!(1)),
        ] {
            if modelled_by_family(&config).contains(&key) {
                continue;
            }
            let facts = config_facts(&with_key(&config, key, Some(plain)), &defaults);
            assert_eq!(facts, expected, "{folder} with {key}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The same property over the values: any element other than 1 in `attn_type_list`, any
    /// `num_kv_shared_layers` above 0 and any `index_topk_freq` other than 1, anywhere.
    #[test]
    fn any_layout_changing_value_is_never_a_figure(
        which in 0usize..REAL.len(),
        at in any::<prop::sample::Index>(),
        other in prop_oneof![Just(0u64), 2u64..1000],
        shared in 1u64..1000,
        freq in prop_oneof![Just(0u64), 2u64..1000],
    ) {
        let config = load(REAL[which].1);
        let n = layers(&config);
        let mut types = vec![1u64; n];
        types[at.index(n)] = other;
        let d = shipped_defaults();
        for (key, new) in [
            ("attn_type_list", json!(types)),
            ("num_kv_shared_layers", json!(shared)),
            ("index_topk_freq", json!(freq)),
        ] {
            if modelled_by_family(&config).contains(&key) {
                continue;
            }
            let facts = config_facts(&with_key(&config, key, Some(new)), &d);
            prop_assert_eq!(&facts.attention_bytes_per_token, &UNSUPPORTED);
            prop_assert_eq!(&facts.full_sequence_attention_bytes, &UNSUPPORTED);
            prop_assert_eq!(&facts.recurrent_state_bytes, &UNSUPPORTED);
        }
    }
}
