//! The rules of one family each (DESIGN §10 as amended 2026-11-28), on their real
//! configurations: each figure equals the engine's (the fixture's `expected.json`, computed by
//! `engine_figures_c.py` from the engine's code, not by these rules), and each bad input (a
//! list that does not fit the layers, a value the engine does not build, keys that disagree, a
//! layout key the rule does not model) is an honest unknown naming the key.

use std::path::Path;

use super::family::{self, Refusal};
use super::tests_2026::with_key;
use super::*;
use proptest::prelude::*;
use serde_json::json;

pub(super) const DEEPSEEK_V4_FLASH: &[u8] = include_bytes!(
    "../../../tests/fixtures/huggingface/deepseek-ai__DeepSeek-V4-Flash/config.json"
);
const DEEPSEEK_V4_PRO: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/deepseek-ai__DeepSeek-V4-Pro/config.json");

pub(super) const GLM_5_2: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/zai-org__GLM-5.2/config.json");
const GLM_5_2_NVFP4: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/nvidia__GLM-5.2-NVFP4/config.json");
const GLM_5_1: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/zai-org__GLM-5.1/config.json");

pub(super) const MINIMAX_M3: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/MiniMaxAI__MiniMax-M3/config.json");

pub(super) const GEMMA_4_31B: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/google__gemma-4-31B-it/config.json");
const GEMMA_4_26B: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/google__gemma-4-26B-A4B/config.json");

pub(super) const NEMOTRON_LIGHTNING: &[u8] = include_bytes!(
    "../../../tests/fixtures/huggingface/nvidia__NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4/config.json"
);
const NEMOTRON_ULTRA: &[u8] = include_bytes!(
    "../../../tests/fixtures/huggingface/nvidia__NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16/config.json"
);

pub(super) const KIMI_K3: &[u8] =
    include_bytes!("../../../tests/fixtures/huggingface/moonshotai__Kimi-K3/config.json");

fn load(bytes: &[u8]) -> Value {
    parse_config(bytes).expect("fixture config parses")
}

/// The engine's figures of a fixture folder (its `expected.json`), as the four facts.
fn expected(folder: &str) -> [Outcome; 4] {
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

fn figures(facts: &ConfigFacts) -> [Outcome; 4] {
    [
        facts.attention_bytes_per_token.clone(),
        facts.full_sequence_attention_bytes.clone(),
        facts.recurrent_state_bytes.clone(),
        facts.calculation_sequence_length.clone(),
    ]
}

fn value(text: &str) -> Outcome {
    Outcome::Value(text.to_string())
}

/// What the family's rule refuses for a configuration, with the key it names (`None` when it
/// states figures).
fn refusal(config: &Value) -> Option<Refusal> {
    let keys = model_keys(config.as_object().expect("config is an object"));
    let rule = family::rule(keys).expect("the key set's type has a rule of its own");
    rule(keys).err()
}

/// Asserts the rule refuses with `reason` naming `key`, and that the three cache facts carry
/// the reason.
fn assert_refused(config: &Value, reason: &'static str, key: &'static str) {
    assert_eq!(refusal(config), Some(Refusal { reason, key }), "{key}");
    let facts = config_facts(config, &[]);
    let unknown = Outcome::NotFound(reason);
    assert_eq!(facts.attention_bytes_per_token, unknown, "{key}");
    assert_eq!(facts.full_sequence_attention_bytes, unknown, "{key}");
    assert_eq!(facts.recurrent_state_bytes, unknown, "{key}");
}

const UNSUPPORTED: &str = ATTENTION_LAYOUT_NOT_SUPPORTED;
const MISSING: &str = CONFIG_KEY_MISSING;

// DeepSeek V4 (`deepseek_v4`, compressed.rs).

#[test]
fn deepseek_v4_flash_and_pro_give_the_engines_figures() {
    // Flash: 43 layers, 2 × r0, 21 × r4, 20 × r128; per token 21 × (1,024 / 4 + 256 / 4) +
    // 20 × 1,024 / 128 = 6,880; fixed 43 × 128 × 1,024 (windows) + 21 × (65,536 + 16,384)
    // (overlapping compressor and the indexer's) + 20 × 524,288 = 17,842,176.
    let flash = config_facts(&load(DEEPSEEK_V4_FLASH), &[]);
    assert_eq!(figures(&flash), expected("deepseek-ai__DeepSeek-V4-Flash"));
    assert_eq!(flash.attention_bytes_per_token, value("6880"));
    assert_eq!(
        flash.full_sequence_attention_bytes,
        value(&(6880u128 * 1_048_576 + 17_842_176).to_string())
    );
    // Pro: 61 layers, 30 × r4, 31 × r128: 30 × 320 + 31 × 8 = 9,848.
    let pro = config_facts(&load(DEEPSEEK_V4_PRO), &[]);
    assert_eq!(figures(&pro), expected("deepseek-ai__DeepSeek-V4-Pro"));
    assert_eq!(pro.attention_bytes_per_token, value("9848"));
}

#[test]
fn deepseek_v4_without_the_mtp_entry_reads_the_same_layers() {
    // A list of exactly num_hidden_layers entries (no MTP entry) is the same layout.
    let config = load(DEEPSEEK_V4_FLASH);
    let mut ratios = config["compress_ratios"]
        .as_array()
        .expect("a list")
        .clone();
    ratios.pop();
    let trimmed = with_key(&config, "compress_ratios", Some(json!(ratios)));
    assert_eq!(
        figures(&config_facts(&trimmed, &[])),
        figures(&config_facts(&config, &[]))
    );
    // Without num_nextn_predict_layers only the exact length fits.
    let no_mtp = with_key(&config, "num_nextn_predict_layers", None);
    assert_refused(&no_mtp, UNSUPPORTED, "compress_ratios");
    assert_eq!(
        refusal(&with_key(&trimmed, "num_nextn_predict_layers", None)),
        None
    );
}

#[test]
fn deepseek_v4_bad_inputs_are_unknowns_naming_the_key() {
    let config = load(DEEPSEEK_V4_FLASH);
    let ratios = |edit: &dyn Fn(&mut Vec<Value>)| {
        let mut list = config["compress_ratios"]
            .as_array()
            .expect("a list")
            .clone();
        edit(&mut list);
        with_key(&config, "compress_ratios", Some(json!(list)))
    };
    // A list that does not fit the layers: one short, or one more than the MTP layers.
    assert_refused(
        &ratios(&|l| {
            l.truncate(42);
        }),
        UNSUPPORTED,
        "compress_ratios",
    );
    assert_refused(
        &ratios(&|l| l.push(json!(0))),
        UNSUPPORTED,
        "compress_ratios",
    );
    // A ratio the engines do not build alike (vLLM asserts 4 or 128 for a compressor).
    for bad in [json!(1), json!(2), json!(64), json!("4"), json!(null)] {
        assert_refused(
            &ratios(&|l| l[5] = bad.clone()),
            UNSUPPORTED,
            "compress_ratios",
        );
    }
    assert_refused(
        &with_key(&config, "compress_ratios", Some(json!("0,0,4"))),
        UNSUPPORTED,
        "compress_ratios",
    );
    // More than one latent head: vLLM hard-codes one.
    assert_refused(
        &with_key(&config, "num_key_value_heads", Some(json!(8))),
        UNSUPPORTED,
        "num_key_value_heads",
    );
    // T not a multiple of a ratio: the compressed cache does not hold T / r whole entries.
    assert_refused(
        &with_key(&config, "max_position_embeddings", Some(json!(1_048_640))),
        UNSUPPORTED,
        "max_position_embeddings",
    );
    // An entry that is not a whole number of bytes per token (1,000 × 2 / 128).
    assert_refused(
        &with_key(&config, "head_dim", Some(json!(1000))),
        UNSUPPORTED,
        "head_dim",
    );
    // Keys the rule needs.
    for key in [
        "sliding_window",
        "head_dim",
        "index_head_dim",
        "num_hidden_layers",
    ] {
        assert_refused(&with_key(&config, key, None), MISSING, key);
    }
    assert_refused(
        &with_key(&config, "sliding_window", Some(json!(0))),
        MISSING,
        "sliding_window",
    );
    // Without ratio-4 layers there is no indexer and index_head_dim is not needed.
    let no_indexer = ratios(&|l| {
        for r in l.iter_mut() {
            if r == &json!(4) {
                *r = json!(128);
            }
        }
    });
    let no_indexer = with_key(&no_indexer, "index_head_dim", None);
    assert_eq!(refusal(&no_indexer), None);
}

#[test]
fn deepseek_v4_refuses_the_layout_keys_it_does_not_model() {
    let config = load(DEEPSEEK_V4_FLASH);
    let layers = vec![json!("full_attention"); 43];
    for (key, new) in [
        ("layer_types", json!(layers)),
        ("kv_lora_rank", json!(512)),
        ("global_head_dim", json!(512)),
        ("index_topk_freq", json!(4)),
        ("linear_attn_config", json!({"kda_layers": [1]})),
    ] {
        assert_refused(&with_key(&config, key, Some(new)), UNSUPPORTED, key);
    }
    assert_refused(
        &with_key(&config, "swa_head_dim", Some(json!(128))),
        UNSUPPORTED,
        "swa_*",
    );
}

// GLM-5 (`glm_moe_dsa`, shared_indexer.rs).

#[test]
fn glm_5_2_keeps_indexer_keys_only_where_top_k_is_computed() {
    // 78 MLA layers × 1,152 + 21 indexer keys × 132 (layers 0, 1, 2, 6, 10, …, 74: freq 4,
    // offset 3) = 92,628; × T 1,048,576.
    let facts = config_facts(&load(GLM_5_2), &[]);
    assert_eq!(figures(&facts), expected("zai-org__GLM-5.2"));
    assert_eq!(facts.attention_bytes_per_token, value("92628"));
    let nvfp4 = config_facts(&load(GLM_5_2_NVFP4), &[]);
    assert_eq!(figures(&nvfp4), expected("nvidia__GLM-5.2-NVFP4"));
    // GLM-5.1 (no sharing keys: every layer computes) keeps its figure.
    let facts = config_facts(&load(GLM_5_1), &[]);
    assert_eq!(figures(&facts), expected("zai-org__GLM-5.1"));
    assert_eq!(facts.attention_bytes_per_token, value("100152"));
}

#[test]
fn glm_5_2_any_one_source_of_the_sharing_gives_the_same_figure() {
    let config = load(GLM_5_2);
    let want = figures(&config_facts(&config, &[]));
    // indexer_types alone would not do: vLLM does not read it, so freq and offset decide.
    let without_types = with_key(&config, "indexer_types", None);
    assert_eq!(figures(&config_facts(&without_types, &[])), want);
    // The same layers as a pattern, with or without the frequency beside it.
    let pattern: String = config["indexer_types"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|t| if t == "full" { 'F' } else { 'S' })
        .collect();
    let patterned = with_key(&config, "index_topk_pattern", Some(json!(pattern)));
    assert_eq!(figures(&config_facts(&patterned, &[])), want);
    let only_pattern = with_key(
        &with_key(&patterned, "index_topk_freq", None),
        "index_skip_topk_offset",
        None,
    );
    assert_eq!(figures(&config_facts(&only_pattern, &[])), want);
}

#[test]
fn glm_5_2_bad_inputs_are_unknowns_naming_the_key() {
    let config = load(GLM_5_2);
    let types = config["indexer_types"].as_array().expect("a list").clone();
    // A list that does not fit the layers, or that disagrees with the frequency.
    let mut short = types.clone();
    short.pop();
    let mut flipped = types.clone();
    flipped[3] = json!("full");
    let mut other = types.clone();
    other[0] = json!("dense");
    for list in [short, flipped, other] {
        assert_refused(
            &with_key(&config, "indexer_types", Some(json!(list))),
            UNSUPPORTED,
            "indexer_types",
        );
    }
    // A frequency without its offset: the engines' defaults differ.
    assert_refused(
        &with_key(&config, "index_skip_topk_offset", None),
        UNSUPPORTED,
        "index_skip_topk_offset",
    );
    for bad in [json!(0), json!("4"), json!(-4)] {
        assert_refused(
            &with_key(&config, "index_topk_freq", Some(bad)),
            UNSUPPORTED,
            "index_topk_freq",
        );
    }
    // Another frequency or offset than the one indexer_types was written for.
    assert_refused(
        &with_key(&config, "index_skip_topk_offset", Some(json!(2))),
        UNSUPPORTED,
        "indexer_types",
    );
    // A pattern whose length is not the layer count, with another letter, or disagreeing
    // with the frequency.
    for bad in [
        json!("F".repeat(77)),
        json!("X".repeat(78)),
        json!(vec!["F"; 78]),
        json!("F".repeat(78)),
    ] {
        assert_refused(
            &with_key(&config, "index_topk_pattern", Some(bad)),
            UNSUPPORTED,
            "index_topk_pattern",
        );
    }
    // A layer_types naming another kind, or of another length.
    let mut kinds = vec![json!("deepseek_sparse_attention"); 78];
    kinds[10] = json!("full_attention");
    assert_refused(
        &with_key(&config, "layer_types", Some(json!(kinds))),
        UNSUPPORTED,
        "layer_types",
    );
    assert_refused(
        &with_key(
            &config,
            "layer_types",
            Some(json!(vec!["deepseek_sparse_attention"; 77])),
        ),
        UNSUPPORTED,
        "layer_types",
    );
    // Sharing keys without an indexer to share.
    assert_refused(
        &with_key(&config, "index_topk", None),
        UNSUPPORTED,
        "indexer_types",
    );
    // MLA needs its latent.
    assert_refused(
        &with_key(&config, "kv_lora_rank", Some(Value::Null)),
        MISSING,
        "kv_lora_rank",
    );
    assert_refused(
        &with_key(&config, "compress_ratios", Some(json!(vec![4; 78]))),
        UNSUPPORTED,
        "compress_ratios",
    );
}

// MiniMax M3 (`minimax_m3`, index_cache.rs).

/// A copy of `config` with one member of `sparse_attention_config` set (removed when `None`).
fn with_sparse(config: &Value, member: &str, new: Option<Value>) -> Value {
    let mut sparse = config["sparse_attention_config"].clone();
    let members = sparse.as_object_mut().expect("an object");
    match new {
        Some(v) => members.insert(member.to_string(), v),
        None => members.remove(member),
    };
    with_key(config, "sparse_attention_config", Some(sparse))
}

#[test]
fn minimax_m3_keeps_an_index_key_beside_gqa_on_its_sparse_layers() {
    // 60 layers × 4 × (128 + 128) × 2 = 122,880, plus 57 sparse layers × 128 × 2 = 14,592:
    // 137,472 per token; × T 1,048,576.
    let facts = config_facts(&load(MINIMAX_M3), &[]);
    assert_eq!(figures(&facts), expected("MiniMaxAI__MiniMax-M3"));
    assert_eq!(facts.attention_bytes_per_token, value("137472"));
    // Without sparse layers it is plain GQA.
    let dense = with_key(&load(MINIMAX_M3), "sparse_attention_config", None);
    assert_eq!(
        config_facts(&dense, &[]).attention_bytes_per_token,
        value("122880")
    );
}

#[test]
fn minimax_m3_bad_inputs_are_unknowns_naming_the_key() {
    let config = load(MINIMAX_M3);
    let freq = config["sparse_attention_config"]["sparse_attention_freq"].clone();
    let mut short = freq.as_array().expect("a list").clone();
    short.pop();
    assert_refused(
        &with_sparse(&config, "sparse_attention_freq", Some(json!(short))),
        UNSUPPORTED,
        "sparse_attention_config.sparse_attention_freq",
    );
    assert_refused(
        &with_sparse(&config, "sparse_attention_freq", None),
        UNSUPPORTED,
        "sparse_attention_config.sparse_attention_freq",
    );
    // A sparse layer that keeps its index value branch, which vLLM does not build.
    let mut kept = freq.as_array().expect("a list").clone();
    kept[10] = json!(0);
    assert_refused(
        &with_sparse(&config, "sparse_disable_index_value", Some(json!(kept))),
        UNSUPPORTED,
        "sparse_attention_config.sparse_disable_index_value",
    );
    assert_refused(
        &with_sparse(&config, "use_sparse_attention", Some(json!(false))),
        UNSUPPORTED,
        "sparse_attention_config.use_sparse_attention",
    );
    assert_refused(
        &with_sparse(&config, "sparse_num_index_heads", Some(json!(8))),
        UNSUPPORTED,
        "sparse_attention_config.sparse_num_index_heads",
    );
    assert_refused(
        &with_sparse(&config, "sparse_index_dim", None),
        MISSING,
        "sparse_attention_config.sparse_index_dim",
    );
    // A member nobody reviewed, or a config that is not an object.
    assert_refused(
        &with_sparse(&config, "sparse_index_heads_kv", Some(json!(2))),
        UNSUPPORTED,
        "sparse_attention_config",
    );
    assert_refused(
        &with_key(&config, "sparse_attention_config", Some(json!([1, 0]))),
        UNSUPPORTED,
        "sparse_attention_config",
    );
    assert_refused(
        &with_key(&config, "sliding_window", Some(json!(4096))),
        UNSUPPORTED,
        "sliding_window",
    );
    for key in ["num_key_value_heads", "head_dim", "num_hidden_layers"] {
        assert_refused(&with_key(&config, key, None), MISSING, key);
    }
    assert_refused(
        &with_key(&config, "attn_type_list", Some(json!(vec![0; 60]))),
        UNSUPPORTED,
        "attn_type_list",
    );
}

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

/// A JSON value of a type no layout key has.
fn wrong_typed() -> impl Strategy<Value = Value> {
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
