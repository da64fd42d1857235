//! The closed world of the cache facts (DESIGN §10 as amended 2026-11-27) on every real
//! configuration the project holds (`tests/fixtures/huggingface/*/`): under the shipped policy a
//! reviewed `model_type` gives exactly the figures an engine allocates (each folder's
//! `expected.json`, computed from the engine's model code independently of these rules), an
//! unreviewed one gives `attention_layout_not_supported`, and any key the policy does not list,
//! added to a reviewed configuration, turns the three cache facts unknown.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::*;
use crate::collect::policy::{self, FactsReview};
use proptest::prelude::*;
use serde_json::json;

/// One real configuration with the figures an engine allocates for it.
struct Real {
    folder: String,
    config: Value,
    /// The `model_type` of the key set read.
    model_type: String,
    /// Whether the engine's behaviour was established (else its figures are null).
    established: bool,
    /// attention bytes per token, full sequence, recurrent, calculation sequence length.
    figures: [Option<String>; 4],
    /// Whether the project states nothing for it (`project_outcome`: a layout the policy has
    /// not reviewed), though the engine's figures are known.
    kept_unknown: bool,
    /// Whether the folder holds a reconstructed configuration (`config.reconstructed.json`,
    /// `"evidence": "reconstructed"`) instead of a verbatim `config.json`.
    reconstructed: bool,
}

/// The reviewed types held to a reconstructed configuration only (no verbatim copy was
/// found): Hunyuan 3, whose `config.json` is known from a third-party test's dict (its
/// SOURCE.txt). A real file with any key the reconstruction lacks stays unknown.
const RECONSTRUCTED_ONLY: [&str; 1] = ["hy_v3"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/huggingface")
}

/// Every fixture folder with an `expected.json`, in name order (read once).
fn reals() -> &'static [Real] {
    static READ: OnceLock<Vec<Real>> = OnceLock::new();
    READ.get_or_init(read_reals)
}

fn read_reals() -> Vec<Real> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("fixtures folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    folders.sort();
    folders
        .iter()
        .map(|dir| {
            let read = |name: &str| std::fs::read(dir.join(name)).expect("fixture file");
            let expected: Value =
                serde_json::from_slice(&read("expected.json")).expect("expected.json is JSON");
            let reconstructed = expected["evidence"] == json!("reconstructed");
            let config = if reconstructed {
                "config.reconstructed.json"
            } else {
                "config.json"
            };
            let figure = |name: &str| {
                expected["engine_figures"][name]
                    .as_str()
                    .map(str::to_string)
            };
            Real {
                folder: dir.file_name().expect("name").to_string_lossy().into(),
                config: parse_config(&read(config)).expect("config parses"),
                reconstructed,
                model_type: expected["model_type"]
                    .as_str()
                    .expect("expected.json names the model_type")
                    .to_string(),
                established: expected["established"] == json!(true),
                kept_unknown: expected["project_outcome"]["reason"]
                    == json!(ATTENTION_LAYOUT_NOT_SUPPORTED),
                figures: [
                    figure("attention_bytes_per_token"),
                    figure("full_sequence_attention_bytes"),
                    figure("recurrent_state_bytes"),
                    figure("calculation_sequence_length"),
                ],
            }
        })
        .collect()
}

/// The review of the shipped `data/policy.json`.
fn shipped() -> FactsReview {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(policy::DEFAULT_POLICY);
    policy::load(Some(&path))
        .expect("data/policy.json is accepted")
        .review
}

/// The key set the rules read, to edit (as `model_keys` chooses it).
fn key_set(config: &mut Value) -> &mut Map<String, Value> {
    let top = config.as_object_mut().expect("config is an object");
    if top.contains_key("num_hidden_layers")
        || !top.get("text_config").is_some_and(Value::is_object)
    {
        return top;
    }
    top.get_mut("text_config")
        .and_then(Value::as_object_mut)
        .expect("text_config is an object")
}

fn shown(outcome: &Outcome) -> Option<String> {
    match outcome {
        Outcome::Value(v) => Some(v.clone()),
        Outcome::NotFound(_) => None,
    }
}

const UNSUPPORTED: Outcome = Outcome::NotFound(ATTENTION_LAYOUT_NOT_SUPPORTED);

fn cache(facts: &ConfigFacts) -> [Outcome; 3] {
    [
        facts.attention_bytes_per_token.clone(),
        facts.full_sequence_attention_bytes.clone(),
        facts.recurrent_state_bytes.clone(),
    ]
}

#[test]
fn every_real_configuration_gives_the_engines_figures_or_an_honest_unknown() {
    let review = shipped();
    let reals = reals();
    assert!(
        reals.len() >= 10,
        "the fixtures hold {} configurations",
        reals.len()
    );
    for real in reals {
        let (facts, unreviewed) = reviewed_config_facts(&real.config, &review);
        if real.kept_unknown {
            assert_eq!(cache(&facts), [UNSUPPORTED; 3], "{}", real.folder);
            let unreviewed = unreviewed.expect("named");
            assert_eq!(
                unreviewed.model_type.as_deref(),
                Some(real.model_type.as_str())
            );
            continue;
        }
        assert!(
            review.cache_layouts.contains_key(&real.model_type),
            "{}: {} has no reviewed layout",
            real.folder,
            real.model_type
        );
        assert!(
            real.established,
            "{}: a reviewed type needs an established figure",
            real.folder
        );
        assert_eq!(unreviewed, None, "{}", real.folder);
        let got = [
            shown(&facts.attention_bytes_per_token),
            shown(&facts.full_sequence_attention_bytes),
            shown(&facts.recurrent_state_bytes),
            shown(&facts.calculation_sequence_length),
        ];
        assert_eq!(
            got, real.figures,
            "{}: the rules against the engine",
            real.folder
        );
    }
}

#[test]
fn every_reviewed_type_is_held_to_a_real_configuration() {
    let reals = reals();
    for (model_type, layout) in &shipped().cache_layouts {
        assert!(
            reals.iter().any(|r| &r.model_type == model_type
                && r.established
                && (!r.reconstructed || RECONSTRUCTED_ONLY.contains(&model_type.as_str()))),
            "{model_type} ({}) has no real configuration with the engine's figures",
            layout.source_url
        );
        assert!(
            layout.source_url.starts_with("https://github.com/"),
            "{}",
            layout.source_url
        );
    }
}

#[test]
fn only_the_named_types_rest_on_a_reconstructed_configuration() {
    for real in reals().iter().filter(|r| r.reconstructed) {
        assert!(
            RECONSTRUCTED_ONLY.contains(&real.model_type.as_str()),
            "{}: a reconstructed configuration of {}",
            real.folder,
            real.model_type
        );
    }
}

/// Issue 47's wide review: the configurations that no new rule needed, each with the figure
/// the engine allocates (bytes per token, full sequence), stated under the shipped policy.
#[test]
fn the_families_reviewed_without_a_new_rule_are_stated() {
    let review = shipped();
    for (folder, per_token, full) in [
        ("tencent__Hy3", "327680", "85899345920"),
        ("poolside__Laguna-S-2.1-FP8", "49152", "12960399360"),
        ("poolside__Laguna-XS.2-FP8", "40960", "10800332800"),
        (
            "Qwen__Qwen3-Coder-480B-A35B-Instruct",
            "253952",
            "66571993088",
        ),
        ("Qwen__Qwen3-Coder-30B-A3B-Instruct", "98304", "25769803776"),
        ("Qwen__Qwen3-30B-A3B", "98304", "4026531840"),
        ("Qwen__Qwen3.8-2.4T-A95B", "94208", "24696061952"),
        ("MiniMaxAI__MiniMax-M2.5", "253952", "49928994816"),
        ("MiniMaxAI__MiniMax-M2.7", "253952", "52009369600"),
        ("moonshotai__Kimi-K2.5", "70272", "18421383168"),
        ("nvidia__Kimi-K2.6-NVFP4", "70272", "18421383168"),
        ("deepseek-ai__DeepSeek-V3.1", "70272", "11513364480"),
    ] {
        let real = reals()
            .iter()
            .find(|r| r.folder == folder)
            .expect("the fixture folder");
        let (facts, unreviewed) = reviewed_config_facts(&real.config, &review);
        assert_eq!(unreviewed, None, "{folder}");
        assert_eq!(
            [
                shown(&facts.attention_bytes_per_token),
                shown(&facts.full_sequence_attention_bytes),
            ],
            [Some(per_token.to_string()), Some(full.to_string())],
            "{folder}"
        );
    }
}

/// The keys made inert or required in that review do what their reason says: `qkv_bias` and
/// `output_gate_type` change no figure (the engines do not read them), and a Laguna key set
/// without `head_dim` is not reviewed (vLLM would take the head size from the per-layer
/// query heads), naming the key.
#[test]
fn the_keys_of_that_review_keep_their_reasons() {
    let review = shipped();
    let real = |folder: &str| {
        reals()
            .iter()
            .find(|r| r.folder == folder)
            .expect("the fixture folder")
            .config
            .clone()
    };
    let coder = real("Qwen__Qwen3-Coder-480B-A35B-Instruct");
    let mut flipped = coder.clone();
    key_set(&mut flipped).insert("qkv_bias".into(), json!(true));
    assert_eq!(
        cache(&reviewed_config_facts(&flipped, &review).0),
        cache(&reviewed_config_facts(&coder, &review).0)
    );
    let mut laguna = real("poolside__Laguna-XS.2-FP8");
    key_set(&mut laguna).remove("head_dim");
    let (facts, unreviewed) = reviewed_config_facts(&laguna, &review);
    assert_eq!(cache(&facts), [UNSUPPORTED; 3]);
    let unreviewed = unreviewed.expect("named");
    assert_eq!(unreviewed.absent, ["head_dim"]);
    assert!(
        unreviewed.describe().contains("`head_dim`"),
        "{}",
        unreviewed.describe()
    );
}

#[test]
fn the_layouts_that_defeated_the_old_rules_are_unknown() {
    // A per-layer block_configs, a layers_block_type list and a linear_attn_config hybrid
    // (issue 40): under the old rules read as full attention on every layer.
    let review = shipped();
    let config = json!({"model_type": "llama", "num_hidden_layers": 4, "num_attention_heads": 8,
        "hidden_size": 512, "max_position_embeddings": 4096});
    for (key, value) in [
        (
            "block_configs",
            json!([{"attention": {"n_heads_in_group": 8, "no_op": false}}]),
        ),
        (
            "layers_block_type",
            json!(["attention", "mamba", "moe", "mamba"]),
        ),
        (
            "linear_attn_config",
            json!({"kda_layers": [1, 2, 3], "full_attn_layers": [4]}),
        ),
    ] {
        let mut with = config.clone();
        with[key] = value;
        let (facts, unreviewed) = reviewed_config_facts(&with, &review);
        assert_eq!(cache(&facts), [UNSUPPORTED; 3], "{key}");
        let unreviewed = unreviewed.expect("named");
        assert!(
            unreviewed.keys.contains(&key.to_string()),
            "{key}: {unreviewed:?}"
        );
    }
}

#[test]
fn without_a_review_nothing_is_stated() {
    for real in reals() {
        let (facts, unreviewed) = reviewed_config_facts(&real.config, &FactsReview::default());
        assert_eq!(cache(&facts), [UNSUPPORTED; 3], "{}", real.folder);
        assert!(unreviewed.is_some());
        // The architecture and the sequence length do not depend on the cache layout review.
        assert!(
            matches!(facts.architecture_type, Outcome::Value(_)),
            "{}",
            real.folder
        );
    }
}

/// The keys every list of the shipped policy names.
fn listed(review: &FactsReview) -> BTreeSet<String> {
    let mut all = review.inert_config_keys.clone();
    for layout in review.cache_layouts.values() {
        all.extend(layout.layout_keys.iter().cloned());
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any key the policy does not list, added with any value to any reviewed real
    /// configuration, turns the three cache facts unknown and is named.
    #[test]
    fn adding_any_unlisted_key_turns_the_cache_facts_unknown(
        pick in any::<prop::sample::Index>(),
        key in "[a-z][a-z0-9_]{0,24}",
        value in prop_oneof![
            Just(json!(null)), Just(json!(true)), Just(json!(0)), Just(json!(7)),
            Just(json!([1, 0, 1])), Just(json!({"layers": 2})), Just(json!("full_attention")),
        ],
    ) {
        let review = shipped();
        prop_assume!(!listed(&review).contains(&key) && key != "model_type");
        let reals: Vec<&Real> = reals()
            .iter()
            .filter(|r| review.cache_layouts.contains_key(&r.model_type) && !r.kept_unknown)
            .collect();
        prop_assume!(!reals.is_empty());
        let real = &reals[pick.index(reals.len())];
        let mut config = real.config.clone();
        key_set(&mut config).insert(key.clone(), value);
        let (facts, unreviewed) = reviewed_config_facts(&config, &review);
        prop_assert_eq!(cache(&facts), [UNSUPPORTED; 3]);
        let unreviewed = unreviewed.expect("named");
        prop_assert_eq!(unreviewed.keys, vec![key]);
    }
}

/// A layout key of another reviewed type, added to a reviewed configuration, is not reviewed
/// for this one.
#[test]
fn another_types_layout_key_is_not_reviewed_here() {
    let review = shipped();
    for real in reals()
        .iter()
        .filter(|r| review.cache_layouts.contains_key(&r.model_type) && !r.kept_unknown)
    {
        let own = &review.cache_layouts[&real.model_type].layout_keys;
        for key in review
            .cache_layouts
            .values()
            .flat_map(|l| l.layout_keys.iter())
            .filter(|k| !own.contains(*k))
        {
            let mut config = real.config.clone();
            let keys = key_set(&mut config);
            if keys.contains_key(key) {
                continue;
            }
            keys.insert(key.clone(), json!(1));
            let (facts, _) = reviewed_config_facts(&config, &review);
            assert_eq!(cache(&facts), [UNSUPPORTED; 3], "{} + {key}", real.folder);
        }
    }
}

/// A reviewed family whose rule refuses a value (a list that does not fit the layers) is named
/// as well: the refused key and its value, never a silent unknown.
#[test]
fn a_value_a_family_rule_refuses_is_named_with_its_value() {
    let review = shipped();
    let cases: [(&[u8], &str, &str); 2] = [
        (
            super::tests_families::DEEPSEEK_V4_FLASH,
            "compress_ratios",
            "compress_ratios",
        ),
        (
            super::tests_families::GEMMA_4_31B,
            "layer_types",
            "layer_types",
        ),
    ];
    for (bytes, key, named) in cases {
        let mut config = super::tests_families::load(bytes);
        let set = key_set(&mut config);
        let list = set
            .get_mut(key)
            .and_then(Value::as_array_mut)
            .expect("the fixture's list");
        list.truncate(3);
        let (facts, unreviewed) = reviewed_config_facts(&config, &review);
        assert_eq!(cache(&facts), [UNSUPPORTED; 3], "{key}");
        let u = unreviewed.expect("named");
        assert!(u.type_reviewed && u.keys.is_empty(), "{u:?}");
        assert_eq!(u.refused, vec![named.to_string()], "{u:?}");
        assert!(u.values.contains_key(named), "{u:?}");
        assert!(
            u.describe()
                .contains("its rule does not model the value of"),
            "{}",
            u.describe()
        );
    }
}
