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
        fixtures().len() >= 11,
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
