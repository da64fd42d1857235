//! The closed-world count on a checkpoint per format, written as the format's own writer writes
//! it (`tests/fixtures/formats/*/`: names, dtypes, shapes and packing, with the logical count
//! taken from the float model before packing by `generate.py`); and "never a wrong figure" as
//! properties: an integer tensor the format does not name, or a packed tensor's dtype
//! relabelled, makes the count fail instead of giving a figure.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::*;
use crate::collect::config::parse_config;
use crate::collect::formats::format_of;
use crate::collect::safetensors::parse_header;
use proptest::prelude::*;
use serde_json::Value;

/// One fixture checkpoint.
struct Fixture {
    folder: String,
    config: Value,
    tensors: Vec<Tensor>,
    expected: Value,
}

fn read_fixtures() -> Vec<Fixture> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/fixtures/formats")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    folders.sort();
    folders
        .into_iter()
        .map(|dir| {
            let read = |name: &str| std::fs::read(dir.join(name)).expect("fixture file");
            Fixture {
                folder: dir.file_name().expect("name").to_string_lossy().into(),
                config: parse_config(&read("config.json")).expect("config parses"),
                tensors: parse_header(&read("header.json")).expect("header parses"),
                expected: serde_json::from_slice(&read("expected.json")).expect("JSON"),
            }
        })
        .collect()
}

fn fixtures() -> &'static [Fixture] {
    static READ: OnceLock<Vec<Fixture>> = OnceLock::new();
    READ.get_or_init(read_fixtures)
}

fn number(value: &Value) -> Option<u128> {
    value.as_str().and_then(|s| s.parse().ok())
}

fn count(fixture: &Fixture, tensors: &[Tensor]) -> Result<ParameterCount, CountError> {
    count_parameters(tensors, &format_of(&fixture.config), &BTreeSet::new())
}

#[test]
fn every_format_counts_the_float_models_parameters() {
    assert!(
        fixtures().len() >= 24,
        "{} format fixtures",
        fixtures().len()
    );
    for f in fixtures() {
        let got = count(f, &f.tensors).unwrap_or_else(|e| panic!("{}: {e}", f.folder));
        assert_eq!(
            Some(got.total),
            number(&f.expected["total_parameters"]),
            "{}",
            f.folder
        );
        if let Some(routed) = number(&f.expected["routed_expert_parameters"]) {
            assert_eq!(got.routed_experts, routed, "{}", f.folder);
            let active = active_parameters(
                got,
                f.expected["num_experts"].as_u64(),
                f.expected["experts_per_token"].as_u64(),
            );
            assert_eq!(
                active,
                number(&f.expected["active_parameters"]),
                "{}",
                f.folder
            );
        }
    }
}

/// The names of the tensors a fixture stores packed.
fn packed_tensors(f: &Fixture) -> Vec<usize> {
    let packed: Vec<(String, String)> = f.expected["packed"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|p| {
                    Some((
                        p["suffix"].as_str()?.to_string(),
                        p["dtype"].as_str()?.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    f.tensors
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            packed.iter().any(|(suffix, dtype)| {
                let named = t.name.ends_with(&format!(".{suffix}"))
                    || (suffix.starts_with('_') && t.name.ends_with(suffix.as_str()));
                named && &t.dtype == dtype
            })
        })
        .map(|(i, _)| i)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// An integer or BOOL tensor the format does not name is never a buffer nor a parameter.
    #[test]
    fn an_unnamed_integer_tensor_makes_the_count_fail(
        pick in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        dtype in prop::sample::select(vec!["I8", "U8", "I16", "I32", "I64", "U16", "U32", "U64", "BOOL"]),
        shape in proptest::collection::vec(1u64..64, 1..3),
    ) {
        let f = &fixtures()[pick.index(fixtures().len())];
        let mut tensors = f.tensors.clone();
        // Beside a tensor of the checkpoint, under a name no format gives (a module's stem).
        let beside = &tensors[at.index(tensors.len())].name;
        let stem: Vec<&str> = beside.split('.').take(3).collect();
        let stem = stem.join(".");
        tensors.push(Tensor { name: format!("{stem}.extra_{}", dtype.to_lowercase()), dtype: dtype.to_string(), shape });
        prop_assert!(count(f, &tensors).is_err(), "{}", f.folder);
    }

    /// A packed tensor relabelled to another dtype is never counted.
    #[test]
    fn a_relabelled_packed_tensor_makes_the_count_fail(
        pick in any::<prop::sample::Index>(),
        which in any::<prop::sample::Index>(),
        dtype in prop::sample::select(vec!["BF16", "F16", "F32", "F8_E4M3", "I8", "U8", "I32", "I64"]),
    ) {
        let packed_fixtures: Vec<&Fixture> = fixtures().iter().filter(|f| !packed_tensors(f).is_empty()).collect();
        let f = packed_fixtures[pick.index(packed_fixtures.len())];
        let indices = packed_tensors(f);
        let i = indices[which.index(indices.len())];
        prop_assume!(f.tensors[i].dtype != dtype);
        let mut tensors = f.tensors.clone();
        tensors[i].dtype = dtype.to_string();
        prop_assert!(count(f, &tensors).is_err(), "{} {} as {dtype}", f.folder, tensors[i].name);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A tensor of a dtype no rule lists, under any name, is never read as absent: the count
    /// fails and says the dtype.
    #[test]
    fn a_tensor_of_an_unseen_dtype_makes_the_count_fail_naming_it(
        pick in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        dtype in prop::sample::select(vec!["F4", "F6_E3M2", "F8_E8M0", "I4", "U4", "C64", "F128", "Q4_K"]),
    ) {
        let f = &fixtures()[pick.index(fixtures().len())];
        let mut tensors = f.tensors.clone();
        let name = tensors[at.index(tensors.len())].name.clone();
        tensors.push(Tensor { name: format!("{name}_x"), dtype: dtype.to_string(), shape: vec![4, 4] });
        match count(f, &tensors) {
            Ok(counted) => prop_assert!(false, "{}: {name}_x ({dtype}) counted: {counted:?}", f.folder),
            Err(failed) => prop_assert!(failed.to_string().contains(dtype), "{}: {failed}", f.folder),
        }
    }

    /// A quantization method (or an MLX mode) no rule knows, on a real writer's checkpoint, is
    /// never read as plain or as a neighbour: the format is unknown, named, and nothing is
    /// counted.
    #[test]
    fn an_unseen_quantization_method_is_unknown_and_named(
        pick in any::<prop::sample::Index>(),
        method in "[a-z][a-z0-9_-]{2,10}",
    ) {
        const KNOWN: [&str; 14] = ["fp8", "mxfp4", "gptq", "awq", "compressed-tensors", "bitsandbytes", "modelopt", "quark", "affine", "nvfp4", "mxfp8", "fbgemm_fp8", "hqq", "bitnet"];
        prop_assume!(!KNOWN.contains(&method.as_str()));
        let f = &fixtures()[pick.index(fixtures().len())];
        let mut config = f.config.clone();
        let q = config
            .get_mut("quantization_config")
            .and_then(Value::as_object_mut)
            .expect("a format fixture declares its quantization");
        if q.contains_key("quant_method") {
            q.insert("quant_method".into(), Value::from(method.clone()));
        } else {
            // MLX writes no quant_method: its mode is what names the packing.
            q.insert("mode".into(), Value::from(method.clone()));
        }
        let format = format_of(&config);
        prop_assert!(matches!(format, Format::Unknown(_)), "{}: {format:?}", f.folder);
        prop_assert!(format.to_string().contains(&method), "{}: {format}", f.folder);
        let counted = count_parameters(&f.tensors, &format, &BTreeSet::new());
        prop_assert!(counted.is_err(), "{}: counted under {format}", f.folder);
    }
}

/// The bit width each fixture's writer stores its weights at.
const BITS: [(&str, u32); 22] = [
    ("awq-4bit", 4),
    ("bitsandbytes-fp4", 4),
    ("bitsandbytes-int8", 8),
    ("bitsandbytes-nf4", 4),
    ("compressed-tensors-fp8", 8),
    ("compressed-tensors-nvfp4", 4),
    ("compressed-tensors-w4a16", 4),
    ("compressed-tensors-w4a16-asym-actorder", 4),
    ("compressed-tensors-w4a16-moe", 4),
    ("compressed-tensors-w8a16", 8),
    ("compressed-tensors-w8a8-int8", 8),
    ("fp8-block", 8),
    ("gptq-4bit", 4),
    ("mlx-affine-4bit", 4),
    ("mlx-affine-8bit", 8),
    ("mlx-affine-mixed-4-6", 4),
    ("mlx-mxfp4", 4),
    ("mlx-mxfp8", 8),
    ("mlx-nvfp4", 4),
    ("modelopt-fp8", 8),
    ("modelopt-nvfp4", 4),
    ("mxfp4", 4),
];

/// The bit width a fixture's tensors hold, checked against its config's claim.
fn bit_width(f: &Fixture) -> Result<u32, String> {
    let (_, widths) = classify_checkpoint(&f.tensors, &format_of(&f.config), &BTreeSet::new())
        .map_err(|e| e.to_string())?;
    let claim = crate::collect::config::claim(&f.config).ok_or("no claim")?;
    widths.checked(claim.1)
}

#[test]
fn every_format_states_the_bit_width_its_tensors_hold() {
    let quark = [("quark-fp8-kv", 8), ("quark-mxfp4", 4)];
    for f in fixtures() {
        let expected = BITS
            .iter()
            .chain(quark.iter())
            .find(|(folder, _)| *folder == f.folder)
            .map(|(_, bits)| *bits)
            .unwrap_or_else(|| panic!("{}: add its bit width to BITS", f.folder));
        assert_eq!(bit_width(f), Ok(expected), "{}", f.folder);
    }
    // The mixed recipe's modules hold 4 and 6 bits; most of its parameters are 4-bit.
    let mixed = fixtures()
        .iter()
        .find(|f| f.folder == "mlx-affine-mixed-4-6")
        .expect("fixture");
    let (_, widths) =
        classify_checkpoint(&mixed.tensors, &format_of(&mixed.config), &BTreeSet::new())
            .expect("counts");
    assert_eq!(widths.exact.keys().copied().collect::<Vec<_>>(), [4, 6]);
}

#[test]
fn a_config_whose_claim_the_tensors_contradict_is_not_a_bit_width() {
    // The case: fp8 declared over 4-bit packed tensors is never 8 bits (here the
    // tensors do not even count under it); an MLX config claiming 8 bits over 4-bit tensors,
    // or 8-bit groups of 32 over 4-bit groups of 64 (one product), is a misfit.
    let pick = |folder: &str| {
        fixtures()
            .iter()
            .find(|f| f.folder == folder)
            .expect("fixture")
    };
    for (folder, claim) in [
        (
            "modelopt-nvfp4",
            serde_json::json!({"quant_method": "fp8", "activation_scheme": "dynamic"}),
        ),
        (
            "compressed-tensors-w4a16",
            serde_json::json!({"quant_method": "fp8"}),
        ),
        (
            "mlx-affine-4bit",
            serde_json::json!({"group_size": 64, "bits": 8, "mode": "affine"}),
        ),
        (
            "mlx-mxfp4",
            serde_json::json!({"group_size": 32, "bits": 8, "mode": "mxfp8"}),
        ),
        (
            "mlx-affine-4bit",
            serde_json::json!({"group_size": 64, "bits": 4, "mode": "mxfp4"}),
        ),
    ] {
        let f = pick(folder);
        let mut config = f.config.clone();
        config["quantization_config"] = claim.clone();
        if config.get("quantization").is_some() {
            config["quantization"] = claim.clone();
        }
        let g = Fixture {
            folder: f.folder.clone(),
            config,
            tensors: f.tensors.clone(),
            expected: f.expected.clone(),
        };
        assert!(bit_width(&g).is_err(), "{folder} claiming {claim}");
    }
    // 8-bit groups of 32 over 4-bit groups of 64 passes the product check of every module, but
    // no module then unpacks to the hidden size its norms give: a misfit, never half the count.
    let f = pick("mlx-affine-4bit");
    let mut config = f.config.clone();
    let claim = serde_json::json!({"group_size": 32, "bits": 8, "mode": "affine"});
    config["quantization_config"] = claim.clone();
    config["quantization"] = claim;
    assert!(
        matches!(
            count_parameters(&f.tensors, &format_of(&config), &BTreeSet::new()),
            Err(CountError::Misfit { .. })
        ),
        "a claim of the same product is anchored on the hidden size"
    );
    // 2-bit groups of 128 over 8-bit groups of 32: the same.
    let f = pick("mlx-affine-8bit");
    let mut config = f.config.clone();
    let claim = serde_json::json!({"group_size": 128, "bits": 4, "mode": "affine"});
    config["quantization_config"] = claim.clone();
    config["quantization"] = claim;
    assert!(count_parameters(&f.tensors, &format_of(&config), &BTreeSet::new()).is_err());
}

/// A concrete tensor-name tail for a pattern (`*_scales` → `gate_up_proj_scales`).
fn concrete(pattern: Pattern) -> String {
    if let Some(suffix) = pattern.strip_prefix('*') {
        return format!("gate_up_proj{suffix}");
    }
    if let Some(stem) = pattern.strip_suffix(".*") {
        return format!("{stem}.bitsandbytes__nf4");
    }
    pattern.to_string()
}

/// Every state name a writer or loader of the fixture's format uses (its auxiliary names), and
/// every one any writer or loader of the table uses for state alone (not the names some models
/// also give plain parameters, such as modelopt's `k_bias`), concrete.
fn state_names(f: &Fixture) -> Vec<String> {
    let own: Vec<Pattern> = match format_of(&f.config) {
        Format::Known { auxiliary, .. } => auxiliary,
        Format::Mlx(_) => vec!["scales", "biases"],
        _ => Vec::new(),
    };
    crate::collect::formats::STATE_NAMES
        .iter()
        .flat_map(|(_, patterns)| patterns.iter())
        .filter(|p| is_state_name(&concrete(p)))
        .chain(own.iter())
        .map(|p| concrete(p))
        .collect()
}

/// Whether any writer or loader of the table names `name` as state (its shared names too).
fn named_as_state(name: &str) -> bool {
    crate::collect::formats::STATE_NAMES
        .iter()
        .any(|(_, patterns)| patterns.iter().any(|p| matches(p, name)))
        || looks_like_quantization_state(name)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A float tensor added under a state name any writer or loader uses (in a module of the
    /// checkpoint or a new one) never changes the count: it is auxiliary, or the count fails.
    #[test]
    fn a_float_tensor_under_a_state_name_never_changes_the_count(
        pick in any::<prop::sample::Index>(),
        name in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        fresh in any::<bool>(),
        dtype in prop::sample::select(vec!["BF16", "F16", "F32", "F8_E4M3"]),
        shape in proptest::collection::vec(1u64..64, 0..3),
    ) {
        let f = &fixtures()[pick.index(fixtures().len())];
        let names = state_names(f);
        let tail = &names[name.index(names.len())];
        let module = if fresh {
            "model.layers.0.probe".to_string()
        } else {
            let beside = &f.tensors[at.index(f.tensors.len())].name;
            beside.rsplit_once('.').map_or(String::new(), |(m, _)| m.to_string())
        };
        let full = if module.is_empty() { tail.clone() } else { format!("{module}.{tail}") };
        prop_assume!(f.tensors.iter().all(|t| t.name != full));
        let before = count(f, &f.tensors).expect("the fixture counts");
        let mut tensors = f.tensors.clone();
        tensors.push(Tensor { name: full.clone(), dtype: dtype.to_string(), shape });
        if let Ok(after) = count(f, &tensors) {
            prop_assert_eq!(after, before, "{} + {} ({})", &f.folder, &full, dtype);
        }
    }

    /// A float tensor added under a name no writer or loader uses for state, in a new module,
    /// is a plain parameter: the count grows by its elements.
    #[test]
    fn a_float_tensor_under_another_name_stays_a_parameter(
        pick in any::<prop::sample::Index>(),
        tail in prop_oneof![
            prop::sample::select(vec![
                "weight", "bias", "layer_scale", "logit_scale", "gamma", "beta", "inv_freq",
                "e_score_correction_bias", "A_log", "D", "dt_bias", "q_norm.weight",
                "conv1d.weight", "embedding", "scale", "router.weight", "gate.weight",
            ]).prop_map(str::to_string),
            "[a-z]{1,8}(_[a-z]{1,8})?",
        ],
        dtype in prop::sample::select(vec!["BF16", "F16", "F32"]),
        shape in proptest::collection::vec(1u64..64, 0..3),
    ) {
        let f = &fixtures()[pick.index(fixtures().len())];
        let full = format!("model.layers.0.probe.{tail}");
        prop_assume!(!named_as_state(&full));
        let before = count(f, &f.tensors).expect("the fixture counts");
        let mut tensors = f.tensors.clone();
        let elements: u128 = shape.iter().map(|&d| u128::from(d)).product();
        tensors.push(Tensor { name: full.clone(), dtype: dtype.to_string(), shape });
        let after = count(f, &tensors);
        prop_assert_eq!(
            after.map(|c| c.total),
            Ok(before.total + elements),
            "{} + {}",
            &f.folder,
            &full
        );
    }
}
