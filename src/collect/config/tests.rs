//! The facts `config_facts` computes, on real configurations (the Hugging Face fixtures) and
//! on edits of them that remove, null or break the keys the formulas read.

use super::*;
use serde_json::json;

const LLAMA_31_8B: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/meta-llama__Meta-Llama-3.1-8B/config.json");
const LLAMA_33_70B: &[u8] = include_bytes!(
    "../../../tests/fixtures/huggingface/meta-llama__Llama-3.3-70B-Instruct/config.json"
);
const DEEPSEEK_V3: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/deepseek-ai__DeepSeek-V3/config.json");
const QWEN3_235B: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/Qwen__Qwen3-235B-A22B/config.json");
const GPT_OSS_120B: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/openai__gpt-oss-120b/config.json");
const QWEN3_NEXT: &[u8] = include_bytes!(
    "../../../tests/fixtures/huggingface/Qwen__Qwen3-Next-80B-A3B-Thinking/config.json"
);

/// The facts without reference defaults (the configurations here need none).
fn config_facts(config: &Value) -> ConfigFacts {
    super::config_facts(config, &[])
}

fn load(bytes: &[u8]) -> Value {
    parse_config(bytes).expect("fixture config parses")
}

fn value(text: &str) -> Outcome {
    Outcome::Value(text.to_string())
}

const MISSING: Outcome = Outcome::NotFound(CONFIG_KEY_MISSING);
const UNSUPPORTED: Outcome = Outcome::NotFound(ATTENTION_LAYOUT_NOT_SUPPORTED);

/// A copy of `config` with `key` set (or removed when `new` is `None`) at the top level.
fn with(config: &Value, key: &str, new: Option<Value>) -> Value {
    let mut config = config.clone();
    let object = config.as_object_mut().expect("config is an object");
    match new {
        Some(v) => {
            object.insert(key.to_string(), v);
        }
        None => {
            object.remove(key);
        }
    }
    config
}

#[test]
fn llama_31_8b() {
    // 32 layers, 8 KV heads, head_dim 4096 / 32 = 128: 2 × 32 × 8 × 128 × 2 = 131,072.
    let facts = config_facts(&load(LLAMA_31_8B));
    assert_eq!(facts.architecture_type, value("llama"));
    assert_eq!(facts.attention_bytes_per_token, value("131072"));
    // 131,072 B/token × 131,072 tokens = 2^34.
    assert_eq!(facts.full_sequence_attention_bytes, value("17179869184"));
    assert_eq!(facts.recurrent_state_bytes, value("0"));
    assert_eq!(facts.calculation_sequence_length, value("131072"));
    assert_eq!((facts.experts, facts.experts_per_token), (None, None));
}

#[test]
fn llama_33_70b() {
    // 80 layers, 8 KV heads, head_dim 8192 / 64 = 128: 2 × 80 × 8 × 128 × 2 = 327,680.
    let facts = config_facts(&load(LLAMA_33_70B));
    assert_eq!(facts.attention_bytes_per_token, value("327680"));
    // 327,680 × 131,072 = 5 × 2^16 × 2^17 = 5 × 2^33.
    assert_eq!(facts.full_sequence_attention_bytes, value("42949672960"));
    assert_eq!(facts.recurrent_state_bytes, value("0"));
}

#[test]
fn deepseek_v3_mla() {
    // MLA: 61 layers × (kv_lora_rank 512 + qk_rope_head_dim 64) × 2 = 70,272.
    let config = load(DEEPSEEK_V3);
    let facts = config_facts(&config);
    assert_eq!(facts.architecture_type, value("deepseek_v3"));
    assert_eq!(facts.attention_bytes_per_token, value("70272"));
    // 70,272 × 163,840 = 11,468,800,000 + 44,564,480.
    assert_eq!(facts.full_sequence_attention_bytes, value("11513364480"));
    assert_eq!(facts.recurrent_state_bytes, value("0"));
    assert_eq!(facts.calculation_sequence_length, value("163840"));
    assert_eq!(
        (facts.experts, facts.experts_per_token),
        (Some(256), Some(8))
    );
    assert_eq!(quantization(&config), Some(("fp8".to_string(), 8)));
}

#[test]
fn qwen3_235b_a22b() {
    // 94 layers, 4 KV heads, head_dim 128: 2 × 94 × 4 × 128 × 2 = 192,512. sliding_window is
    // null (and use_sliding_window false): all layers full.
    let config = load(QWEN3_235B);
    let facts = config_facts(&config);
    assert_eq!(facts.architecture_type, value("qwen3_moe"));
    assert_eq!(facts.attention_bytes_per_token, value("192512"));
    // 192,512 × 40,960 = 7,700,480,000 + 184,811,520.
    assert_eq!(facts.full_sequence_attention_bytes, value("7885291520"));
    assert_eq!(facts.recurrent_state_bytes, value("0"));
    assert_eq!(facts.calculation_sequence_length, value("40960"));
    assert_eq!(
        (facts.experts, facts.experts_per_token),
        (Some(128), Some(8))
    );
    assert_eq!(quantization(&config), None);
}

#[test]
fn gpt_oss_120b_sliding_layers() {
    // layer_types: 36 entries alternating sliding/full → F = 18, S = 18; n_kv 8, head_dim 64,
    // sliding_window 128, T = max_position_embeddings = 131,072.
    // Per token: 2 × 18 × 8 × 64 × 2 = 36,864.
    // Full sequence: 36,864 × 131,072 (= 9 × 2^12 × 2^17 = 4,831,838,208)
    //   + 2 × 18 × 8 × 64 × 2 × min(128, 131,072) (= 36,864 × 128 = 4,718,592)
    //   = 4,836,556,800.
    let config = load(GPT_OSS_120B);
    let facts = config_facts(&config);
    assert_eq!(facts.architecture_type, value("gpt_oss"));
    assert_eq!(facts.attention_bytes_per_token, value("36864"));
    assert_eq!(facts.full_sequence_attention_bytes, value("4836556800"));
    assert_eq!(facts.recurrent_state_bytes, value("0"));
    assert_eq!(facts.calculation_sequence_length, value("131072"));
    assert_eq!(
        (facts.experts, facts.experts_per_token),
        (Some(128), Some(4))
    );
    assert_eq!(quantization(&config), Some(("mxfp4".to_string(), 4)));
}

#[test]
fn sliding_window_longer_than_the_sequence_holds_the_sequence() {
    // T = 64 < 128: both full and sliding layers hold 64 tokens:
    // 36,864 × 64 + 36,864 × 64 = 4,718,592.
    let config = with(
        &load(GPT_OSS_120B),
        "max_position_embeddings",
        Some(json!(64)),
    );
    let facts = config_facts(&config);
    assert_eq!(facts.attention_bytes_per_token, value("36864"));
    assert_eq!(facts.full_sequence_attention_bytes, value("4718592"));
}

#[test]
fn sliding_layers_without_sliding_window_miss_the_attention_facts() {
    // Without a window a "sliding" layer may keep every token (an engine treats it as full
    // attention): neither attention figure can be had; the recurrent state can.
    let config = with(&load(GPT_OSS_120B), "sliding_window", Some(Value::Null));
    let facts = config_facts(&config);
    assert_eq!(facts.attention_bytes_per_token, MISSING);
    assert_eq!(facts.full_sequence_attention_bytes, MISSING);
    assert_eq!(facts.recurrent_state_bytes, value("0"));
}

#[test]
fn qwen3_next_hybrid_linear_attention() {
    // full_attention_interval 4 over 48 layers: layers 3, 7, …, 47 are full (12); 36 linear.
    // Per token: 2 × 12 × 2 KV heads × 256 × 2 = 24,576.
    // One Gated DeltaNet layer: (4 − 1) × (2·128·16 + 128·32) + 32·128·128
    //   = 3 × 8,192 + 524,288 = 548,864; × 36 layers = 19,759,104; × 2 bytes = 39,518,208.
    let facts = config_facts(&load(QWEN3_NEXT));
    assert_eq!(facts.architecture_type, value("qwen3_next"));
    assert_eq!(facts.attention_bytes_per_token, value("24576"));
    // 24,576 × 262,144 = 3 × 2^13 × 2^18 = 3 × 2^31.
    assert_eq!(facts.full_sequence_attention_bytes, value("6442450944"));
    assert_eq!(facts.recurrent_state_bytes, value("39518208"));
    assert_eq!(facts.calculation_sequence_length, value("262144"));
    assert_eq!(
        (facts.experts, facts.experts_per_token),
        (Some(512), Some(10))
    );
}

#[test]
fn qwen3_next_missing_linear_key_misses_only_the_recurrent_state() {
    let config = with(&load(QWEN3_NEXT), "linear_num_value_heads", None);
    let facts = config_facts(&config);
    assert_eq!(facts.attention_bytes_per_token, value("24576"));
    assert_eq!(facts.full_sequence_attention_bytes, value("6442450944"));
    assert_eq!(facts.recurrent_state_bytes, MISSING);
}

#[test]
fn zero_full_attention_interval_is_not_supported() {
    let config = with(&load(QWEN3_NEXT), "full_attention_interval", Some(json!(0)));
    let facts = config_facts(&config);
    assert_eq!(facts.attention_bytes_per_token, UNSUPPORTED);
    assert_eq!(facts.full_sequence_attention_bytes, UNSUPPORTED);
    assert_eq!(facts.recurrent_state_bytes, UNSUPPORTED);
    assert_eq!(facts.calculation_sequence_length, value("262144"));
}

/// A small Nemotron-H-style hybrid: 4 layers "M*-M" (2 Mamba2, 1 attention, 1 MLP).
fn mamba_hybrid() -> Value {
    json!({
        "model_type": "nemotron_h",
        "num_hidden_layers": 4,
        "hybrid_override_pattern": "M*-M",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "max_position_embeddings": 1000,
        "conv_kernel": 4,
        "mamba_num_heads": 4,
        "mamba_head_dim": 8,
        "n_groups": 2,
        "ssm_state_size": 16
    })
}

#[test]
fn mamba2_hybrid_pattern() {
    // Attention: 2 × 1 layer × 2 × 16 × 2 = 128 B/token; × 1000 tokens = 128,000.
    // One Mamba2 layer: (4 − 1) × (4·8 + 2·2·16) + 4·8·16 = 3 × 96 + 512 = 800;
    // 2 layers × 800 × 2 bytes = 3,200.
    let facts = config_facts(&mamba_hybrid());
    assert_eq!(facts.attention_bytes_per_token, value("128"));
    assert_eq!(facts.full_sequence_attention_bytes, value("128000"));
    assert_eq!(facts.recurrent_state_bytes, value("3200"));
}

#[test]
fn mamba2_missing_key_misses_only_the_recurrent_state() {
    let facts = config_facts(&with(&mamba_hybrid(), "ssm_state_size", None));
    assert_eq!(facts.attention_bytes_per_token, value("128"));
    assert_eq!(facts.full_sequence_attention_bytes, value("128000"));
    assert_eq!(facts.recurrent_state_bytes, MISSING);
}

#[test]
fn bad_patterns_are_not_supported() {
    for pattern in ["M*-ME", "M*-", "M*-M*"] {
        let config = with(
            &mamba_hybrid(),
            "hybrid_override_pattern",
            Some(json!(pattern)),
        );
        let facts = config_facts(&config);
        assert_eq!(facts.attention_bytes_per_token, UNSUPPORTED, "{pattern}");
        assert_eq!(
            facts.full_sequence_attention_bytes, UNSUPPORTED,
            "{pattern}"
        );
        assert_eq!(facts.recurrent_state_bytes, UNSUPPORTED, "{pattern}");
        assert_eq!(facts.architecture_type, value("nemotron_h"));
    }
}

#[test]
fn pure_attention_pattern_has_no_recurrent_state() {
    let config = with(
        &mamba_hybrid(),
        "hybrid_override_pattern",
        Some(json!("**-*")),
    );
    let facts = config_facts(&config);
    // 3 attention layers × (2 × 2 × 16 × 2 = 128 B) = 384 B/token.
    assert_eq!(facts.attention_bytes_per_token, value("384"));
    assert_eq!(facts.recurrent_state_bytes, value("0"));
}

#[test]
fn unknown_layer_type_is_not_supported() {
    let gpt_oss = load(GPT_OSS_120B);
    let mut types = gpt_oss["layer_types"].clone();
    types[0] = json!("lightning_attention");
    let facts = config_facts(&with(&gpt_oss, "layer_types", Some(types)));
    assert_eq!(facts.attention_bytes_per_token, UNSUPPORTED);
    assert_eq!(facts.full_sequence_attention_bytes, UNSUPPORTED);
    assert_eq!(facts.recurrent_state_bytes, UNSUPPORTED);
    assert_eq!(facts.architecture_type, value("gpt_oss"));
    assert_eq!(facts.calculation_sequence_length, value("131072"));
}

#[test]
fn layer_types_of_the_wrong_length_are_not_supported() {
    let config = with(&load(GPT_OSS_120B), "num_hidden_layers", Some(json!(35)));
    let facts = config_facts(&config);
    assert_eq!(facts.attention_bytes_per_token, UNSUPPORTED);
    assert_eq!(facts.full_sequence_attention_bytes, UNSUPPORTED);
    assert_eq!(facts.recurrent_state_bytes, UNSUPPORTED);
}

#[test]
fn sliding_window_without_layer_types_is_not_supported() {
    // Mistral-7B-v0.1 style: sliding_window 4096 with no layer_types.
    let config = with(&load(LLAMA_31_8B), "sliding_window", Some(json!(4096)));
    let facts = config_facts(&config);
    assert_eq!(facts.attention_bytes_per_token, UNSUPPORTED);
    assert_eq!(facts.full_sequence_attention_bytes, UNSUPPORTED);
    assert_eq!(facts.recurrent_state_bytes, UNSUPPORTED);
    assert_eq!(facts.architecture_type, value("llama"));

    let on = with(&config, "use_sliding_window", Some(json!(true)));
    assert_eq!(config_facts(&on).attention_bytes_per_token, UNSUPPORTED);

    // Qwen2 style: a sliding_window that use_sliding_window false turns off.
    let off = with(&config, "use_sliding_window", Some(json!(false)));
    assert_eq!(
        config_facts(&off).attention_bytes_per_token,
        value("131072")
    );
}

#[test]
fn missing_model_type_misses_only_the_architecture() {
    let facts = config_facts(&with(&load(LLAMA_31_8B), "model_type", None));
    assert_eq!(facts.architecture_type, MISSING);
    assert_eq!(facts.attention_bytes_per_token, value("131072"));
    assert_eq!(facts.calculation_sequence_length, value("131072"));
}

#[test]
fn missing_max_position_embeddings() {
    let facts = config_facts(&with(&load(LLAMA_31_8B), "max_position_embeddings", None));
    assert_eq!(facts.calculation_sequence_length, MISSING);
    assert_eq!(facts.full_sequence_attention_bytes, MISSING);
    assert_eq!(facts.attention_bytes_per_token, value("131072"));
    assert_eq!(facts.recurrent_state_bytes, value("0"));
}

#[test]
fn missing_num_hidden_layers_misses_the_cache_facts() {
    let facts = config_facts(&with(&load(LLAMA_31_8B), "num_hidden_layers", None));
    assert_eq!(facts.attention_bytes_per_token, MISSING);
    assert_eq!(facts.full_sequence_attention_bytes, MISSING);
    assert_eq!(facts.recurrent_state_bytes, MISSING);
    assert_eq!(facts.architecture_type, value("llama"));
    assert_eq!(facts.calculation_sequence_length, value("131072"));
}

#[test]
fn null_head_dim_falls_back_to_hidden_size_over_heads() {
    let config = with(&load(LLAMA_31_8B), "head_dim", Some(Value::Null));
    assert_eq!(
        config_facts(&config).attention_bytes_per_token,
        value("131072")
    );
    // attention_head_dim is the second choice: 2 × 32 × 8 × 64 × 2 = 65,536.
    let config = with(&config, "attention_head_dim", Some(json!(64)));
    assert_eq!(
        config_facts(&config).attention_bytes_per_token,
        value("65536")
    );
    // head_dim wins over attention_head_dim.
    let config = with(&config, "head_dim", Some(json!(128)));
    assert_eq!(
        config_facts(&config).attention_bytes_per_token,
        value("131072")
    );
}

#[test]
fn inexact_head_dim_division_is_a_missing_key() {
    // 4097 / 32 is not exact and there is no head_dim.
    let facts = config_facts(&with(&load(LLAMA_31_8B), "hidden_size", Some(json!(4097))));
    assert_eq!(facts.attention_bytes_per_token, MISSING);
    assert_eq!(facts.full_sequence_attention_bytes, MISSING);
    assert_eq!(facts.recurrent_state_bytes, value("0"));
    assert_eq!(facts.calculation_sequence_length, value("131072"));
}

#[test]
fn kv_heads_default_to_attention_heads() {
    // Without num_key_value_heads: 32 KV heads, 2 × 32 × 32 × 128 × 2 = 524,288.
    let config = with(&load(LLAMA_31_8B), "num_key_value_heads", None);
    assert_eq!(
        config_facts(&config).attention_bytes_per_token,
        value("524288")
    );
    let config = with(&load(LLAMA_31_8B), "num_key_value_heads", Some(Value::Null));
    assert_eq!(
        config_facts(&config).attention_bytes_per_token,
        value("524288")
    );
}

#[test]
fn mla_missing_rope_dim_misses_the_attention_facts() {
    let facts = config_facts(&with(&load(DEEPSEEK_V3), "qk_rope_head_dim", None));
    assert_eq!(facts.attention_bytes_per_token, MISSING);
    assert_eq!(facts.full_sequence_attention_bytes, MISSING);
    assert_eq!(facts.recurrent_state_bytes, value("0"));
}

#[test]
fn null_kv_lora_rank_is_not_mla() {
    // Without MLA, DeepSeek-V3 would be 61 layers × 128 KV heads × (head_dim 56 (7168 / 128)
    // + v_head_dim 128, read outside MLA) × 2 = 7,808 × 184 × 2 = 2,873,344.
    let facts = config_facts(&with(&load(DEEPSEEK_V3), "kv_lora_rank", Some(Value::Null)));
    assert_eq!(facts.attention_bytes_per_token, value("2873344"));
}

#[test]
fn text_config_is_read_when_the_top_level_lacks_num_hidden_layers() {
    // A multimodal wrapper around Llama-3.1-8B's text model: model_type and
    // quantization_config stay top-level.
    let text = load(LLAMA_31_8B);
    let config = json!({
        "model_type": "llava",
        "max_position_embeddings": 7,
        "quantization_config": {"quant_method": "fp8"},
        "text_config": text,
    });
    let facts = config_facts(&config);
    assert_eq!(facts.architecture_type, value("llava"));
    assert_eq!(facts.attention_bytes_per_token, value("131072"));
    assert_eq!(facts.calculation_sequence_length, value("131072"));
    assert_eq!(quantization(&config), Some(("fp8".to_string(), 8)));

    // The text config's own model_type is not the architecture; its quantization_config is
    // read when the top level has none (DESIGN §10 as amended 2026-11-27: Kimi-K2.5).
    let mut inner = load(LLAMA_31_8B);
    inner["quantization_config"] = json!({"quant_method": "mxfp4"});
    let config = json!({"text_config": inner});
    let facts = config_facts(&config);
    assert_eq!(facts.architecture_type, MISSING);
    assert_eq!(facts.attention_bytes_per_token, value("131072"));
    assert_eq!(quantization(&config), Some(("mxfp4".to_string(), 4)));

    // With num_hidden_layers at the top level, text_config is ignored.
    let config = with(
        &load(LLAMA_31_8B),
        "text_config",
        Some(json!({"num_hidden_layers": 1, "num_key_value_heads": 1})),
    );
    assert_eq!(
        config_facts(&config).attention_bytes_per_token,
        value("131072")
    );
}

#[test]
fn empty_config_misses_everything() {
    let facts = config_facts(&json!({}));
    assert_eq!(
        facts,
        ConfigFacts {
            architecture_type: MISSING,
            attention_bytes_per_token: MISSING,
            full_sequence_attention_bytes: MISSING,
            recurrent_state_bytes: MISSING,
            calculation_sequence_length: MISSING,
            experts: None,
            experts_per_token: None,
            refused_key: None,
        }
    );
}

#[test]
fn expert_count_keys_in_order() {
    let config = json!({"num_local_experts": 8, "num_experts_per_tok": 2});
    assert_eq!(config_facts(&config).experts, Some(8));
    let config = json!({"n_routed_experts": null, "num_experts": 64, "num_local_experts": 8});
    assert_eq!(config_facts(&config).experts, Some(64));
}

#[test]
fn fixtures_all_parse() {
    for bytes in [
        LLAMA_31_8B,
        LLAMA_33_70B,
        DEEPSEEK_V3,
        QWEN3_235B,
        GPT_OSS_120B,
        QWEN3_NEXT,
    ] {
        assert!(parse_config(bytes).is_ok());
    }
}
