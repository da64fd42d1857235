//! The rules of DeepSeek V4 (compressed sparse attention), GLM-5 (indexers shared between
//! layers) and MiniMax M3 (an index cache beside GQA) on their real configurations: the
//! engine's figures, and each bad input an unknown naming the key.

use super::tests_families::*;
use super::*;
use serde_json::json;

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
