//! The fixture repositories of `tests/it/common/hf.rs` against independently known figures: the
//! parameter totals the Hub and the model publishers give, and active-parameter counts derived by
//! hand from each `config.json` (DESIGN §10 rules). Sources: /tmp/notes/huggingface.md §7.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use common::hf::{self, FixtureRepo};
use model_demand::collect::formats::format_of;
use model_demand::collect::parameters::{active_parameters, count_parameters, ParameterCount};
use model_demand::collect::safetensors::{header_length, parse_header, Tensor, MAX_HEADER_BYTES};
use serde_json::Value;

/// A fixture repository read back the way the collector reads it: index, then every shard header.
struct Checkpoint {
    folder: &'static str,
    repo: FixtureRepo,
    config: Value,
    index_total_size: u64,
    /// Shard file → header length N.
    headers: BTreeMap<String, u64>,
    tensors: Vec<Tensor>,
}

fn read(folder: &'static str) -> Checkpoint {
    let repo = hf::repo(folder);
    let config: Value = serde_json::from_slice(&repo.files["config.json"]).expect("config");
    let index: Value =
        serde_json::from_slice(&repo.files["model.safetensors.index.json"]).expect("index");
    let weight_map: BTreeMap<String, String> =
        serde_json::from_value(index["weight_map"].clone()).expect("weight_map");
    let shards: BTreeSet<&String> = weight_map.values().collect();
    let mut headers = BTreeMap::new();
    let mut tensors = Vec::new();
    let mut data_total = 0;
    for shard in shards {
        let bytes = &repo.files[shard];
        let n = header_length(bytes).expect("header length");
        assert_eq!(bytes.len() as u64, 8 + n, "{shard}: served header only");
        assert_eq!(n % 8, 0, "{shard}: header padded to a multiple of 8");
        let json = &bytes[8..];
        // Data offsets, checked independently of the parser: they tile the data from 0, each
        // span is elements × dtype size, and the last one ends where the file does.
        let raw: serde_json::Map<String, Value> = serde_json::from_slice(json).expect("JSON");
        assert_eq!(raw["__metadata__"], serde_json::json!({"format": "pt"}));
        let mut spans: Vec<(u64, u64)> = raw
            .iter()
            .filter(|(name, _)| *name != "__metadata__")
            .map(|(name, e)| {
                let (s, t) = (e["data_offsets"][0].as_u64(), e["data_offsets"][1].as_u64());
                let (s, t) = (s.expect("start"), t.expect("end"));
                let elements: u64 = e["shape"]
                    .as_array()
                    .expect("shape")
                    .iter()
                    .map(|d| d.as_u64().expect("dim"))
                    .product();
                let dtype = e["dtype"].as_str().expect("dtype");
                assert_eq!(t - s, elements * hf::dtype_bytes(dtype), "{name}");
                (s, t)
            })
            .collect();
        spans.sort_unstable();
        let end = spans.iter().fold(0, |at, &(s, t)| {
            assert_eq!(s, at, "{shard}: offsets tile the data");
            t
        });
        assert_eq!(repo.sizes[shard], 8 + n + end, "{shard}: size");
        data_total += end;
        let parsed = parse_header(json).expect("header parses");
        for t in &parsed {
            assert_eq!(&weight_map[&t.name], shard, "{}: weight_map shard", t.name);
        }
        headers.insert(shard.clone(), n);
        tensors.extend(parsed);
    }
    tensors.sort_by(|a, b| a.name.cmp(&b.name));
    // The index covers exactly the tensors of the headers, and they are the generated ones.
    let names: Vec<&String> = tensors.iter().map(|t| &t.name).collect();
    assert_eq!(names, weight_map.keys().collect::<Vec<_>>(), "{folder}");
    let expected: Vec<Tensor> = hf::tensors(folder)
        .into_iter()
        .map(|(name, dtype, shape)| Tensor { name, dtype, shape })
        .collect();
    assert_eq!(tensors, expected, "{folder}");
    let index_total_size = index["metadata"]["total_size"]
        .as_u64()
        .expect("total_size");
    assert_eq!(
        index_total_size, data_total,
        "{folder}: total_size = data bytes"
    );
    Checkpoint {
        folder,
        repo,
        config,
        index_total_size,
        headers,
        tensors,
    }
}

/// All six checkpoints, read once.
fn all() -> &'static [Checkpoint] {
    static ALL: OnceLock<Vec<Checkpoint>> = OnceLock::new();
    ALL.get_or_init(|| hf::REPOS.iter().map(|&f| read(f)).collect())
}

fn get(folder: &str) -> &'static Checkpoint {
    all()
        .iter()
        .find(|c| c.folder == folder)
        .expect("fixture folder")
}

fn count(c: &Checkpoint) -> ParameterCount {
    // Under the checkpoint's own format, with no reviewed buffer names.
    count_parameters(&c.tensors, &format_of(&c.config), &Default::default()).expect("countable")
}

/// Elements per dtype, summed by the test (the Hub's `safetensors.parameters` counts every
/// tensor, scales included, and MXFP4 `_blocks` bytes twice).
fn hub_by_dtype(c: &Checkpoint) -> BTreeMap<String, u64> {
    let mut by = BTreeMap::new();
    for t in &c.tensors {
        let twice = if t.name.ends_with("_blocks") { 2 } else { 1 };
        *by.entry(t.dtype.clone()).or_default() += twice * t.shape.iter().product::<u64>();
    }
    by
}

#[test]
fn totals_equal_the_published_parameter_counts() {
    let expected = hf::PUBLISHED_TOTALS;
    for (folder, total) in expected {
        assert_eq!(count(get(folder)).total, total, "{folder}");
    }
}

/// E, k from the config as DESIGN §10 reads them.
fn experts(config: &Value) -> (Option<u64>, Option<u64>) {
    let e = ["n_routed_experts", "num_experts", "num_local_experts"]
        .iter()
        .find_map(|k| config[k].as_u64());
    (e, config["num_experts_per_tok"].as_u64())
}

#[test]
fn active_parameters_equal_the_hand_derivation() {
    let expected = hf::DERIVED_ACTIVE;
    for (folder, active) in expected {
        let c = get(folder);
        let (e, k) = experts(&c.config);
        assert_eq!(active_parameters(count(c), e, k), Some(active), "{folder}");
    }
}

#[test]
fn dtype_breakdowns_equal_the_hub_api() {
    let by = hub_by_dtype(get("deepseek-ai__DeepSeek-V3"));
    let hub: BTreeMap<String, u64> = [
        ("BF16", 3_918_786_560),
        ("F32", 41_555_600),
        ("F8_E4M3", 680_571_043_840),
    ]
    .map(|(d, n)| (d.to_string(), n))
    .into();
    assert_eq!(by, hub);
    // gpt-oss-120b: the Hub's U8 figure counts `_blocks` bytes twice and `_scales` once.
    let by = hub_by_dtype(get("openai__gpt-oss-120b"));
    let hub: BTreeMap<String, u64> = [("BF16", 2_167_371_072), ("U8", 118_244_966_400)]
        .map(|(d, n)| (d.to_string(), n))
        .into();
    assert_eq!(by, hub);
    for folder in [
        "meta-llama__Meta-Llama-3.1-8B",
        "meta-llama__Llama-3.3-70B-Instruct",
        "Qwen__Qwen3-235B-A22B",
        "Qwen__Qwen3-Next-80B-A3B-Thinking",
    ] {
        let by = hub_by_dtype(get(folder));
        assert_eq!(by.keys().collect::<Vec<_>>(), ["BF16"], "{folder}");
    }
}

#[test]
fn tensor_counts_and_index_sizes_match_reports() {
    // Third-party reports: Qwen3-235B-A22B 36,945 tensors, DeepSeek-V3 (R1 layout) 91,991,
    // Qwen3-Next-80B-A3B 75,944. By hand: Llama 3 + 9 per layer (291, 723); gpt-oss 3 + 19
    // per layer (687).
    for (folder, n) in [
        ("meta-llama__Meta-Llama-3.1-8B", 291),
        ("meta-llama__Llama-3.3-70B-Instruct", 723),
        ("Qwen__Qwen3-235B-A22B", 36_945),
        ("Qwen__Qwen3-Next-80B-A3B-Thinking", 75_944),
        ("deepseek-ai__DeepSeek-V3", 91_991),
        ("openai__gpt-oss-120b", 687),
    ] {
        assert_eq!(get(folder).tensors.len(), n, "{folder}");
    }
    // Qwen3-235B-A22B's published index total_size (2 bytes × 235,093,634,560).
    assert_eq!(
        get("Qwen__Qwen3-235B-A22B").index_total_size,
        470_187_269_120
    );
}

#[test]
fn shard_names_are_the_real_ones() {
    let names = |c: &Checkpoint| c.headers.keys().cloned().collect::<Vec<_>>();
    for (folder, count, first, last) in [
        (
            "meta-llama__Meta-Llama-3.1-8B",
            4,
            "model-00001-of-00004.safetensors",
            "model-00004-of-00004.safetensors",
        ),
        (
            "meta-llama__Llama-3.3-70B-Instruct",
            30,
            "model-00001-of-00030.safetensors",
            "model-00030-of-00030.safetensors",
        ),
        (
            "Qwen__Qwen3-235B-A22B",
            118,
            "model-00001-of-00118.safetensors",
            "model-00118-of-00118.safetensors",
        ),
        (
            "Qwen__Qwen3-Next-80B-A3B-Thinking",
            41,
            "model-00001-of-00041.safetensors",
            "model-00041-of-00041.safetensors",
        ),
        (
            "deepseek-ai__DeepSeek-V3",
            163,
            "model-00001-of-000163.safetensors",
            "model-00163-of-000163.safetensors",
        ),
        (
            "openai__gpt-oss-120b",
            15,
            "model-00000-of-00014.safetensors",
            "model-00014-of-00014.safetensors",
        ),
    ] {
        let c = get(folder);
        let names = names(c);
        assert_eq!(names.len(), count, "{folder}");
        assert_eq!(names.first().map(String::as_str), Some(first), "{folder}");
        assert_eq!(names.last().map(String::as_str), Some(last), "{folder}");
        assert!(c.headers.values().all(|&n| n <= MAX_HEADER_BYTES));
        let largest = c.headers.values().max().expect("shards");
        println!("{folder}: {count} shards, largest header {largest} bytes");
    }
}

#[test]
fn info_json_lists_every_file_with_sizes() {
    for c in all() {
        let info: Value = serde_json::from_slice(&c.repo.info_json()).expect("info JSON");
        assert_eq!(info["id"], c.repo.id.as_str());
        assert_eq!(info["modelId"], c.repo.id.as_str());
        assert_eq!(info["sha"], c.repo.sha.as_str());
        assert_eq!(c.repo.sha.len(), 40);
        assert!(c.repo.sha.bytes().all(|b| b.is_ascii_hexdigit()));
        let siblings = info["siblings"].as_array().expect("siblings");
        let listed: BTreeMap<&str, u64> = siblings
            .iter()
            .map(|s| {
                let name = s["rfilename"].as_str().expect("rfilename");
                let size = s["size"].as_u64().expect("size");
                assert!(s["blobId"].is_string(), "{name}");
                if name.ends_with(".safetensors") {
                    assert_eq!(s["lfs"]["size"].as_u64(), Some(size), "{name}");
                    assert!(s["lfs"]["pointerSize"].as_u64().is_some());
                    assert_eq!(s["lfs"]["sha256"].as_str().map(str::len), Some(64));
                }
                (name, size)
            })
            .collect();
        let sizes: BTreeMap<&str, u64> =
            c.repo.sizes.iter().map(|(k, &v)| (k.as_str(), v)).collect();
        assert_eq!(listed, sizes, "{}", c.folder);
        for file in ["README.md", "generation_config.json", "config.json"] {
            assert!(listed.contains_key(file), "{}: {file}", c.folder);
        }
        // The served config is the real one, byte for byte.
        let path = common::crate_path(&format!(
            "tests/fixtures/huggingface/{}/config.json",
            c.folder
        ));
        assert_eq!(
            c.repo.files["config.json"],
            std::fs::read(path).expect("config")
        );
    }
    let llama = &get("meta-llama__Meta-Llama-3.1-8B").repo;
    assert_eq!(llama.id, "meta-llama/Llama-3.1-8B");
    assert!(llama.sizes.contains_key("original/consolidated.00.pth"));
    let oss = &get("openai__gpt-oss-120b").repo;
    assert!(oss.sizes.contains_key("metal/model.bin"));
}

#[test]
fn generation_is_deterministic() {
    for folder in ["meta-llama__Meta-Llama-3.1-8B", "openai__gpt-oss-120b"] {
        assert_eq!(hf::repo(folder), get(folder).repo, "{folder}");
    }
}
