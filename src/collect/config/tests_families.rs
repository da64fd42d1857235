//! The rules of one family each (DESIGN §10 as amended 2026-11-28): the real configurations
//! and helpers their tests share, and a property over the keys each rule reads. The families'
//! own tests are in `tests_sparse_families.rs` (DeepSeek V4, GLM-5, MiniMax M3) and
//! `tests_hybrid_families.rs` (Gemma 4, Nemotron 3, Kimi K3): each figure equals the engine's
//! (the fixture's `expected.json`, computed by `engine_figures_c.py` from the engine's code, not
//! by these rules), and each bad input (a list that does not fit the layers, a value the engine
//! does not build, keys that disagree, a layout key the rule does not model) is an honest
//! unknown naming the key.

use std::path::Path;

use super::checked::Refusal;
use super::family;
pub(super) use super::tests_2026::with_key;
use super::tests_2026::wrong_typed;
use super::*;
use proptest::prelude::*;

pub(super) const DEEPSEEK_V4_FLASH: &[u8] = include_bytes!(
    "../../../tests/fixtures/huggingface/deepseek-ai__DeepSeek-V4-Flash/config.json"
);
pub(super) const DEEPSEEK_V4_PRO: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/deepseek-ai__DeepSeek-V4-Pro/config.json");

pub(super) const GLM_5_2: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/zai-org__GLM-5.2/config.json");
pub(super) const GLM_5_2_NVFP4: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/nvidia__GLM-5.2-NVFP4/config.json");
pub(super) const GLM_5_1: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/zai-org__GLM-5.1/config.json");

pub(super) const MINIMAX_M3: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/MiniMaxAI__MiniMax-M3/config.json");

pub(super) const GEMMA_4_31B: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/google__gemma-4-31B-it/config.json");
pub(super) const GEMMA_4_26B: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/google__gemma-4-26B-A4B/config.json");

pub(super) const NEMOTRON_LIGHTNING: &[u8] = include_bytes!(
    "../../../tests/fixtures/huggingface/nvidia__NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4/config.json"
);
pub(super) const NEMOTRON_ULTRA: &[u8] = include_bytes!(
    "../../../tests/fixtures/huggingface/nvidia__NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16/config.json"
);

pub(super) const KIMI_K3: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/moonshotai__Kimi-K3/config.json");

pub(super) fn load(bytes: &[u8]) -> Value {
    parse_config(bytes).expect("fixture config parses")
}

/// The engine's figures of a fixture folder (its `expected.json`), as the four facts.
pub(super) fn expected(folder: &str) -> [Outcome; 4] {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/huggingface")
        .join(folder)
        .join("expected.json");
    let text = std::fs::read(path).expect("expected.json");
    let expected: Value = serde_json::from_slice(&text).expect("expected.json is JSON");
    [
        "attention_bytes_per_token",
        "full_sequence_attention_bytes",
        "recurrent_state_bytes",
        "calculation_sequence_length",
    ]
    .map(|name| {
        Outcome::Value(
            expected["engine_figures"][name]
                .as_str()
                .expect("an established figure")
                .to_string(),
        )
    })
}

pub(super) fn figures(facts: &ConfigFacts) -> [Outcome; 4] {
    [
        facts.attention_bytes_per_token.clone(),
        facts.full_sequence_attention_bytes.clone(),
        facts.recurrent_state_bytes.clone(),
        facts.calculation_sequence_length.clone(),
    ]
}

pub(super) fn value(text: &str) -> Outcome {
    Outcome::Value(text.to_string())
}

/// What the family's rule refuses for a configuration, with the key it names (`None` when it
/// states figures).
pub(super) fn refusal(config: &Value) -> Option<Refusal> {
    let keys = model_keys(config.as_object().expect("config is an object"));
    let rule = family::rule(keys).expect("the key set's type has a rule of its own");
    rule(keys).err()
}

/// Asserts the rule refuses with `reason` naming `key`, and that the three cache facts carry
/// the reason.
pub(super) fn assert_refused(config: &Value, reason: &'static str, key: &'static str) {
    assert_eq!(refusal(config), Some(Refusal { reason, key }), "{key}");
    let facts = config_facts(config, &[]);
    let unknown = Outcome::NotFound(reason);
    assert_eq!(facts.attention_bytes_per_token, unknown, "{key}");
    assert_eq!(facts.full_sequence_attention_bytes, unknown, "{key}");
    assert_eq!(facts.recurrent_state_bytes, unknown, "{key}");
}

pub(super) const UNSUPPORTED: &str = ATTENTION_LAYOUT_NOT_SUPPORTED;
pub(super) const MISSING: &str = CONFIG_KEY_MISSING;

/// The keys each family's rule reads, by real configuration.
fn read_keys() -> Vec<(&'static [u8], &'static [&'static str])> {
    vec![
        (
            DEEPSEEK_V4_FLASH,
            &[
                "compress_ratios",
                "head_dim",
                "index_head_dim",
                "max_position_embeddings",
                "num_hidden_layers",
                "num_key_value_heads",
                "num_nextn_predict_layers",
                "sliding_window",
            ],
        ),
        (
            GLM_5_2_NVFP4,
            &[
                "index_head_dim",
                "index_skip_topk_offset",
                "index_topk",
                "index_topk_freq",
                "index_topk_pattern",
                "indexer_types",
                "kv_lora_rank",
                "layer_types",
                "max_position_embeddings",
                "num_hidden_layers",
                "qk_rope_head_dim",
            ],
        ),
        (
            MINIMAX_M3,
            &[
                "head_dim",
                "max_position_embeddings",
                "num_hidden_layers",
                "num_key_value_heads",
                "sparse_attention_config",
                "sliding_window",
            ],
        ),
        (
            GEMMA_4_26B,
            &[
                "attention_k_eq_v",
                "global_head_dim",
                "head_dim",
                "layer_types",
                "max_position_embeddings",
                "num_global_key_value_heads",
                "num_hidden_layers",
                "num_key_value_heads",
                "num_kv_shared_layers",
                "sliding_window",
                "use_bidirectional_attention",
            ],
        ),
        (
            NEMOTRON_LIGHTNING,
            &[
                "conv_kernel",
                "head_dim",
                "hybrid_override_pattern",
                "layers_block_type",
                "mamba_head_dim",
                "mamba_num_heads",
                "max_position_embeddings",
                "n_groups",
                "num_hidden_layers",
                "num_key_value_heads",
                "sliding_window",
                "ssm_state_size",
            ],
        ),
        (
            KIMI_K3,
            &[
                "kv_lora_rank",
                "linear_attn_config",
                "max_position_embeddings",
                "num_hidden_layers",
                "qk_rope_head_dim",
            ],
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any key a family's rule reads, replaced by a value of the wrong type: no panic, and
    /// each cache fact is a reason or the figure it had before, never another number.
    #[test]
    fn a_wrong_typed_family_key_never_gives_another_figure(
        pick in any::<prop::sample::Index>(),
        key in any::<prop::sample::Index>(),
        bad in wrong_typed(),
    ) {
        let all = read_keys();
        let (bytes, keys) = all[pick.index(all.len())];
        let config = load(bytes);
        let key = keys[key.index(keys.len())];
        // A boolean is the right type of a boolean key (attention_k_eq_v), not a wrong one.
        let mut read = config.clone();
        let is_bool = super::tests_2026::key_set(&mut read).get(key).is_some_and(Value::is_boolean);
        prop_assume!(!(is_bool && bad.is_boolean()));
        let before = config_facts(&config, &[]);
        let after = config_facts(&with_key(&config, key, Some(bad)), &[]);
        let cache = |f: &ConfigFacts| [
            f.attention_bytes_per_token.clone(),
            f.full_sequence_attention_bytes.clone(),
            f.recurrent_state_bytes.clone(),
        ];
        for (new, old) in cache(&after).into_iter().zip(cache(&before)) {
            prop_assert!(matches!(new, Outcome::NotFound(_)) || new == old, "{key}: {new:?} was {old:?}");
        }
    }
}
