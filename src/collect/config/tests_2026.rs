//! The layouts of DESIGN §10 as amended 2026-11-25, on the four new real configurations
//! (expected figures from each fixture's `SOURCE.txt`, computed independently from vLLM's cache
//! specifications), the shipped reference defaults, and configurations whose layout keys are of
//! the wrong type: a reason, never a panic and never a wrong figure.

use std::path::Path;

use super::*;
use crate::collect::policy::{self, ConfigDefault};
use proptest::prelude::*;
use serde_json::json;

pub(super) const DEEPSEEK_V32: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/deepseek-ai__DeepSeek-V3.2/config.json");
pub(super) const LLAMA4_SCOUT: &[u8] = include_bytes!(
    "../../../tests/fixtures/huggingface/meta-llama__Llama-4-Scout-17B-16E-Instruct/config.json"
);
pub(super) const MIMO_V2_FLASH: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/XiaomiMiMo__MiMo-V2-Flash/config.json");
pub(super) const NEMOTRON_3_NANO: &[u8] = include_bytes!(
    "../../../tests/fixtures/huggingface/nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16/config.json"
);
const GPT_OSS_120B: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/openai__gpt-oss-120b/config.json");
const LLAMA_31_8B: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/meta-llama__Meta-Llama-3.1-8B/config.json");

pub(super) fn load(bytes: &[u8]) -> Value {
    parse_config(bytes).expect("fixture config parses")
}

/// The reference defaults of the shipped `data/policy.json`.
pub(super) fn shipped_defaults() -> Vec<ConfigDefault> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(policy::DEFAULT_POLICY);
    policy::load(Some(&path))
        .expect("data/policy.json is accepted")
        .review
        .config_defaults
}

fn value(text: &str) -> Outcome {
    Outcome::Value(text.to_string())
}

const MISSING: Outcome = Outcome::NotFound(CONFIG_KEY_MISSING);
const UNSUPPORTED: Outcome = Outcome::NotFound(ATTENTION_LAYOUT_NOT_SUPPORTED);

/// The three cache facts.
fn cache(facts: &ConfigFacts) -> [Outcome; 3] {
    [
        facts.attention_bytes_per_token.clone(),
        facts.full_sequence_attention_bytes.clone(),
        facts.recurrent_state_bytes.clone(),
    ]
}

/// The key set the rules read: `text_config` for a wrapper without `num_hidden_layers`.
pub(super) fn key_set(config: &mut Value) -> &mut Map<String, Value> {
    let object = config.as_object_mut().expect("config is an object");
    if object.contains_key("num_hidden_layers") {
        return object;
    }
    object
        .get_mut("text_config")
        .and_then(Value::as_object_mut)
        .expect("text_config is an object")
}

/// A copy of `config` with `key` of its key set set to `new` (removed when `None`).
pub(super) fn with_key(config: &Value, key: &str, new: Option<Value>) -> Value {
    let mut config = config.clone();
    let keys = key_set(&mut config);
    match new {
        Some(v) => keys.insert(key.to_string(), v),
        None => keys.remove(key),
    };
    config
}

#[test]
fn deepseek_v32_mla_and_its_indexer() {
    // MLA: 61 × (512 + 64) × 2 = 70,272; indexer: 61 × (128 FP8 bytes + 4 × ceil(128 / 128))
    // = 61 × 132 = 8,052; together 78,324. × T 163,840 = 12,832,604,160. The MTP layer
    // (num_nextn_predict_layers 1) is outside num_hidden_layers and not counted.
    let facts = config_facts(&load(DEEPSEEK_V32), &[]);
    assert_eq!(facts.architecture_type, value("deepseek_v32"));
    assert_eq!(facts.attention_bytes_per_token, value("78324"));
    assert_eq!(facts.full_sequence_attention_bytes, value("12832604160"));
    assert_eq!(facts.recurrent_state_bytes, value("0"));
    assert_eq!(facts.calculation_sequence_length, value("163840"));
}

#[test]
fn the_indexer_key_takes_a_scale_per_started_128_values() {
    // index_head_dim 129: 129 + 4 × 2 = 137 per layer; 70,272 + 61 × 137 = 78,629.
    let config = with_key(&load(DEEPSEEK_V32), "index_head_dim", Some(json!(129)));
    let facts = config_facts(&config, &[]);
    assert_eq!(facts.attention_bytes_per_token, value("78629"));
    // Without index_head_dim the indexer cannot be sized.
    let config = with_key(&load(DEEPSEEK_V32), "index_head_dim", None);
    let facts = config_facts(&config, &[]);
    assert_eq!(facts.attention_bytes_per_token, MISSING);
    assert_eq!(facts.full_sequence_attention_bytes, MISSING);
    assert_eq!(facts.recurrent_state_bytes, value("0"));
}

#[test]
fn llama4_scout_chunked_attention_with_the_reference_interval() {
    // text_config: 48 layers, no no_rope_layers; the policy's no_rope_layer_interval 4 makes
    // layers 3, 7, …, 47 full (12) and 36 chunked at 8,192. Per token 12 × 8 × (128 + 128) × 2
    // = 49,152; full sequence 49,152 × 10,485,760 + 36 × 4,096 × 8,192 = 516,604,035,072.
    let facts = config_facts(&load(LLAMA4_SCOUT), &shipped_defaults());
    assert_eq!(facts.architecture_type, value("llama4"));
    assert_eq!(facts.attention_bytes_per_token, value("49152"));
    assert_eq!(facts.full_sequence_attention_bytes, value("516604035072"));
    assert_eq!(facts.recurrent_state_bytes, value("0"));
    assert_eq!(facts.calculation_sequence_length, value("10485760"));
    assert_eq!(
        (facts.experts, facts.experts_per_token),
        (Some(16), Some(1))
    );

    // Without the default nothing says which layers are chunked: no figure.
    let facts = config_facts(&load(LLAMA4_SCOUT), &[]);
    assert_eq!(cache(&facts), [MISSING; 3]);
    // A default of another model_type does not apply; one in the config wins over it.
    let other = ConfigDefault {
        model_type: "llama4".to_string(),
        ..shipped_defaults()[0].clone()
    };
    assert_eq!(
        cache(&config_facts(&load(LLAMA4_SCOUT), &[other])),
        [MISSING; 3]
    );
    let every_second = with_key(
        &load(LLAMA4_SCOUT),
        "no_rope_layer_interval",
        Some(json!(2)),
    );
    // 24 full, 24 chunked: 24 × 4,096 = 98,304 per token.
    let facts = config_facts(&every_second, &shipped_defaults());
    assert_eq!(facts.attention_bytes_per_token, value("98304"));
}

#[test]
fn llama4_resaved_with_layer_types_gives_the_same_figures() {
    // transformers writes no_rope_layers, no_rope_layer_interval and layer_types back on save.
    let no_rope: Vec<u64> = (0..48).map(|j| u64::from((j + 1) % 4 != 0)).collect();
    let types: Vec<&str> = no_rope
        .iter()
        .map(|&c| {
            if c == 1 {
                "chunked_attention"
            } else {
                "full_attention"
            }
        })
        .collect();
    let resaved = with_key(&load(LLAMA4_SCOUT), "layer_types", Some(json!(types)));
    let resaved = with_key(&resaved, "no_rope_layers", Some(json!(no_rope)));
    let resaved = with_key(&resaved, "no_rope_layer_interval", Some(json!(4)));
    let expected = config_facts(&load(LLAMA4_SCOUT), &shipped_defaults());
    for defaults in [shipped_defaults(), Vec::new()] {
        assert_eq!(config_facts(&resaved, &defaults), expected);
    }
    // no_rope_layers alone (rule 5's list) gives the same layout too.
    let listed = with_key(&load(LLAMA4_SCOUT), "no_rope_layers", Some(json!(no_rope)));
    assert_eq!(config_facts(&listed, &[]), expected);
    // An empty no_rope_layers falls back to the interval.
    let empty = with_key(&load(LLAMA4_SCOUT), "no_rope_layers", Some(json!([])));
    assert_eq!(config_facts(&empty, &shipped_defaults()), expected);
}

#[test]
fn mimo_v2_flash_sliding_layers_with_their_own_geometry() {
    // hybrid_layer_pattern: 9 full layers of 4 × (192 + 128) × 2 = 2,560 → 23,040 per token;
    // 39 sliding layers of 8 × (192 + 128) × 2 = 5,120 at sliding_window_size 128.
    // Full sequence 23,040 × 262,144 + 39 × 5,120 × 128 = 6,039,797,760 + 25,559,040.
    let facts = config_facts(&load(MIMO_V2_FLASH), &[]);
    assert_eq!(facts.architecture_type, value("mimo_v2_flash"));
    assert_eq!(facts.attention_bytes_per_token, value("23040"));
    assert_eq!(facts.full_sequence_attention_bytes, value("6065356800"));
    assert_eq!(facts.recurrent_state_bytes, value("0"));
    assert_eq!(facts.calculation_sequence_length, value("262144"));
    // swa_v_head_dim falls back to swa_head_dim: 39 × 8 × 384 × 2 × 128 = 30,670,848.
    let config = with_key(&load(MIMO_V2_FLASH), "swa_v_head_dim", None);
    assert_eq!(
        config_facts(&config, &[]).full_sequence_attention_bytes,
        value((6_039_797_760u64 + 30_670_848).to_string().as_str())
    );
    // The window is sliding_window_size, else sliding_window.
    let config = with_key(&load(MIMO_V2_FLASH), "sliding_window_size", None);
    let config = with_key(&config, "sliding_window", Some(json!(64)));
    assert_eq!(
        config_facts(&config, &[]).full_sequence_attention_bytes,
        value((6_039_797_760u64 + 25_559_040 / 2).to_string().as_str())
    );
}

#[test]
fn nemotron_3_nano_moe_layers_in_the_hybrid_pattern() {
    // 52 layers: 6 attention (*) of 2 × (128 + 128) × 2 = 1,024 → 6,144 per token; 23 Mamba2
    // (M) of (4 − 1) × (64·64 + 2·8·128) + 64·64·128 = 542,720 elements → × 23 × 2 bytes =
    // 24,965,120; 23 MoE (E) without cache. Full sequence 6,144 × 262,144 = 1,610,612,736.
    let facts = config_facts(&load(NEMOTRON_3_NANO), &[]);
    assert_eq!(facts.architecture_type, value("nemotron_h"));
    assert_eq!(facts.attention_bytes_per_token, value("6144"));
    assert_eq!(facts.full_sequence_attention_bytes, value("1610612736"));
    assert_eq!(facts.recurrent_state_bytes, value("24965120"));
    assert_eq!(facts.calculation_sequence_length, value("262144"));
    // vLLM's nemotron_h.py windows every attention layer when sliding_window is set; the rule
    // does not say so, so a window is no layout the rules know (a null one is absent).
    let windowed = with_key(&load(NEMOTRON_3_NANO), "sliding_window", Some(json!(4096)));
    assert_eq!(cache(&config_facts(&windowed, &[])), [UNSUPPORTED; 3]);
    let null = with_key(&load(NEMOTRON_3_NANO), "sliding_window", Some(Value::Null));
    assert_eq!(
        config_facts(&null, &[]).attention_bytes_per_token,
        value("6144")
    );
}

/// Gemma 3 27B's `config.json` as Google publishes it, abridged to the keys the rules read (not
/// a copy of the file): its text_config has no sliding_window_pattern and no
/// max_position_embeddings, which its reference class supplies.
fn gemma3_27b() -> Value {
    json!({
        "model_type": "gemma3",
        "text_config": {
            "model_type": "gemma3_text",
            "head_dim": 128,
            "hidden_size": 5376,
            "num_attention_heads": 32,
            "num_hidden_layers": 62,
            "num_key_value_heads": 16,
            "sliding_window": 1024
        }
    })
}

#[test]
fn gemma3_sliding_pattern_and_context_from_the_reference_class() {
    // Pattern 6: layers 5, 11, …, 59 full (10), 52 sliding at 1,024. Per token 10 × 16 ×
    // (128 + 128) × 2 = 81,920; full sequence 81,920 × 131,072 + 52 × 8,192 × 1,024.
    let facts = config_facts(&gemma3_27b(), &shipped_defaults());
    assert_eq!(facts.attention_bytes_per_token, value("81920"));
    assert_eq!(
        facts.full_sequence_attention_bytes,
        value(
            (81_920u64 * 131_072 + 52 * 8_192 * 1_024)
                .to_string()
                .as_str()
        )
    );
    assert_eq!(facts.calculation_sequence_length, value("131072"));
    // Without the defaults: a sliding window with no pattern is no layout the rules know.
    let facts = config_facts(&gemma3_27b(), &[]);
    assert_eq!(cache(&facts), [UNSUPPORTED; 3]);
    assert_eq!(facts.calculation_sequence_length, MISSING);
}

#[test]
fn v_head_dim_outside_mla_sets_the_value_width() {
    // Llama-3.1-8B with V of 64: 32 layers × 8 × (128 + 64) × 2 = 98,304.
    let config = with_key(&load(LLAMA_31_8B), "v_head_dim", Some(json!(64)));
    assert_eq!(
        config_facts(&config, &[]).attention_bytes_per_token,
        value("98304")
    );
}

#[test]
fn layout_keys_of_the_wrong_type_give_a_reason() {
    let gpt = load(GPT_OSS_120B);
    let scout = load(LLAMA4_SCOUT);
    let mimo = load(MIMO_V2_FLASH);
    let nemotron = load(NEMOTRON_3_NANO);
    let d = shipped_defaults();
    // (config, key, value, expected per token, full sequence, recurrent)
    let cases: Vec<(&Value, &str, Value, [Outcome; 3])> = vec![
        // A string where a list is due.
        (
            &gpt,
            "layer_types",
            json!("full_attention"),
            [UNSUPPORTED; 3],
        ),
        (
            &mimo,
            "hybrid_layer_pattern",
            json!("0111"),
            [UNSUPPORTED; 3],
        ),
        (&scout, "no_rope_layers", json!("1110"), [UNSUPPORTED; 3]),
        (
            &nemotron,
            "hybrid_override_pattern",
            json!(["M", "*"]),
            [UNSUPPORTED; 3],
        ),
        // A pattern of the wrong length, or with values other than 0 and 1.
        (
            &mimo,
            "hybrid_layer_pattern",
            json!([0, 1, 1]),
            [UNSUPPORTED; 3],
        ),
        (
            &mimo,
            "hybrid_layer_pattern",
            json!(vec![2; 48]),
            [UNSUPPORTED; 3],
        ),
        (
            &scout,
            "no_rope_layers",
            json!(vec![1; 47]),
            [UNSUPPORTED; 3],
        ),
        (
            &nemotron,
            "hybrid_override_pattern",
            json!("M*E"),
            [UNSUPPORTED; 3],
        ),
        // An interval that is no positive integer.
        (
            &scout,
            "no_rope_layer_interval",
            json!("4"),
            [UNSUPPORTED; 3],
        ),
        (&scout, "no_rope_layer_interval", json!(0), [UNSUPPORTED; 3]),
        (
            &scout,
            "no_rope_layer_interval",
            json!(-4),
            [UNSUPPORTED; 3],
        ),
        // A layer count of the wrong type: nothing can be laid out.
        (&scout, "num_hidden_layers", json!("48"), [MISSING; 3]),
        // A negative or empty window: a layer without a usable window may be one whose cache
        // grows, so neither attention figure can be had.
        (
            &gpt,
            "sliding_window",
            json!(-128),
            [MISSING, MISSING, value("0")],
        ),
        (
            &gpt,
            "sliding_window",
            json!(0),
            [MISSING, MISSING, value("0")],
        ),
        (
            &scout,
            "attention_chunk_size",
            json!(-8192),
            [MISSING, MISSING, value("0")],
        ),
        (
            &scout,
            "attention_chunk_size",
            json!("8192"),
            [MISSING, MISSING, value("0")],
        ),
        (
            &mimo,
            "sliding_window_size",
            json!(-1),
            [MISSING, MISSING, value("0")],
        ),
        // Geometry of the wrong type.
        (
            &mimo,
            "swa_head_dim",
            json!("192"),
            [value("23040"), MISSING, value("0")],
        ),
        (
            &mimo,
            "v_head_dim",
            json!(-128),
            [MISSING, MISSING, value("0")],
        ),
        (
            &nemotron,
            "head_dim",
            json!([128]),
            [MISSING, MISSING, value("24965120")],
        ),
    ];
    for (config, key, bad, expected) in cases {
        let facts = config_facts(&with_key(config, key, Some(bad.clone())), &d);
        assert_eq!(cache(&facts), expected, "{key} = {bad}");
    }
    // A text_config that is not an object: the top level has no layer count.
    let broken = json!({"model_type": "llama4", "text_config": "llama4_text"});
    assert_eq!(cache(&config_facts(&broken, &d)), [MISSING; 3]);
}

/// A JSON value of a type no layout key has: strings, negative and fractional numbers,
/// booleans, objects and lists of strings (also the family rules' property, `tests_families.rs`).
pub(super) fn wrong_typed() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-z0-9*M-]{0,8}".prop_map(Value::from),
        (i64::MIN..0).prop_map(Value::from),
        (-1e9f64..1e9)
            .prop_filter("fractional", |f| f.fract() != 0.0)
            .prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(json!({"value": 4})),
        proptest::collection::vec("[a-z_]{0,12}", 0..60).prop_map(|v| json!(v)),
    ]
}

/// The keys that decide a layout or a window, in the configurations that use them.
const LAYOUT_KEYS: [&str; 13] = [
    "num_hidden_layers",
    "layer_types",
    "hybrid_override_pattern",
    "hybrid_layer_pattern",
    "full_attention_interval",
    "attention_chunk_size",
    "no_rope_layers",
    "no_rope_layer_interval",
    "sliding_window_pattern",
    "sliding_window",
    "sliding_window_size",
    "use_sliding_window",
    "kv_lora_rank",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any layout key of any new configuration replaced by a value of the wrong type: no
    /// panic, and each cache fact is a reason or the figure it had before (a key no figure of
    /// it depends on), never another number.
    #[test]
    fn a_wrong_typed_layout_key_never_gives_another_figure(
        which in 0usize..4,
        key in 0usize..LAYOUT_KEYS.len(),
        bad in wrong_typed(),
    ) {
        let config = load([DEEPSEEK_V32, LLAMA4_SCOUT, MIMO_V2_FLASH, NEMOTRON_3_NANO][which]);
        let d = shipped_defaults();
        let before = config_facts(&config, &d);
        let after = config_facts(&with_key(&config, LAYOUT_KEYS[key], Some(bad)), &d);
        for (new, old) in cache(&after).into_iter().zip(cache(&before)) {
            prop_assert!(matches!(new, Outcome::NotFound(_)) || new == old, "{new:?} was {old:?}");
        }
    }
}
