//! Fixture Hugging Face repositories built around the six real `config.json` files of
//! `tests/fixtures/huggingface/`: tensor names, dtypes and shapes follow from each configuration
//! the way the real checkpoint's do (see /tmp/notes/huggingface.md §7 for the sources), and each
//! repository has the real shard count and shard names. Shards are served HEADER ONLY (8-byte
//! length + JSON header); `sizes` holds every file's true size. Generation is deterministic.
//!
//! Not real: commit shas, `_id`s, blob ids and LFS sha256s (derived from SHA-256 of fixed text),
//! the shard boundaries (tensors in layer order split contiguously into byte-balanced shards, not
//! the real cut points), tags (abridged), and the sizes of the non-checkpoint copies
//! (`original/`, `metal/`), which are illustrative.

use std::collections::BTreeMap;

use super::standin::{Reply, StandIn};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// The fixture folders (`<org>__<name>`) under `tests/fixtures/huggingface/`.
pub const REPOS: [&str; 6] = [
    "meta-llama__Meta-Llama-3.1-8B",
    "meta-llama__Llama-3.3-70B-Instruct",
    "Qwen__Qwen3-235B-A22B",
    "Qwen__Qwen3-Next-80B-A3B-Thinking",
    "deepseek-ai__DeepSeek-V3",
    "openai__gpt-oss-120b",
];

/// A fixture repository at one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixtureRepo {
    /// The repository id, such as `meta-llama/Llama-3.1-8B`.
    pub id: String,
    /// A fixed 40-hex commit.
    pub sha: String,
    /// Bytes served at `/{id}/resolve/{sha}/{path}` (shards: header only).
    pub files: BTreeMap<String, Vec<u8>>,
    /// Every sibling's true size.
    pub sizes: BTreeMap<String, u64>,
}

/// How a folder's repository is laid out.
struct Spec {
    id: &'static str,
    /// Number of shard files.
    shards: usize,
    /// Number of the first shard (gpt-oss counts from 0).
    first: usize,
    /// The `-of-N` number and its digit count (DeepSeek-V3 writes `-of-000163`).
    of: usize,
    of_width: usize,
    tags: &'static [&'static str],
}

fn spec(folder: &str) -> Spec {
    let (id, shards, first, of, of_width, tags): (_, _, _, _, _, &'static [&'static str]) =
        match folder {
            // Renamed from meta-llama/Meta-Llama-3.1-8B; the fixture serves the current name.
            "meta-llama__Meta-Llama-3.1-8B" => (
                "meta-llama/Llama-3.1-8B",
                4,
                1,
                4,
                5,
                &[
                    "transformers",
                    "safetensors",
                    "llama",
                    "text-generation",
                    "facebook",
                    "meta",
                    "pytorch",
                    "llama-3",
                    "en",
                    "license:llama3.1",
                    "text-generation-inference",
                    "region:us",
                ],
            ),
            "meta-llama__Llama-3.3-70B-Instruct" => (
                "meta-llama/Llama-3.3-70B-Instruct",
                30,
                1,
                30,
                5,
                &[
                    "transformers",
                    "safetensors",
                    "llama",
                    "text-generation",
                    "facebook",
                    "meta",
                    "pytorch",
                    "llama-3",
                    "conversational",
                    "en",
                    "base_model:meta-llama/Llama-3.1-70B",
                    "base_model:finetune:meta-llama/Llama-3.1-70B",
                    "license:llama3.3",
                    "region:us",
                ],
            ),
            "Qwen__Qwen3-235B-A22B" => (
                "Qwen/Qwen3-235B-A22B",
                118,
                1,
                118,
                5,
                &[
                    "transformers",
                    "safetensors",
                    "qwen3_moe",
                    "text-generation",
                    "conversational",
                    "license:apache-2.0",
                    "region:us",
                ],
            ),
            "Qwen__Qwen3-Next-80B-A3B-Thinking" => (
                "Qwen/Qwen3-Next-80B-A3B-Thinking",
                41,
                1,
                41,
                5,
                &[
                    "transformers",
                    "safetensors",
                    "qwen3_next",
                    "text-generation",
                    "conversational",
                    "license:apache-2.0",
                    "region:us",
                ],
            ),
            "deepseek-ai__DeepSeek-V3" => (
                "deepseek-ai/DeepSeek-V3",
                163,
                1,
                163,
                6,
                &[
                    "transformers",
                    "safetensors",
                    "deepseek_v3",
                    "text-generation",
                    "conversational",
                    "custom_code",
                    "arxiv:2412.19437",
                    "fp8",
                    "region:us",
                ],
            ),
            "openai__gpt-oss-120b" => (
                "openai/gpt-oss-120b",
                15,
                0,
                14,
                5,
                &[
                    "transformers",
                    "safetensors",
                    "gpt_oss",
                    "text-generation",
                    "vllm",
                    "conversational",
                    "arxiv:2508.10925",
                    "license:apache-2.0",
                    "8-bit",
                    "mxfp4",
                    "region:us",
                ],
            ),
            other => panic!("unknown fixture folder {other:?}"),
        };
    Spec {
        id,
        shards,
        first,
        of,
        of_width,
        tags,
    }
}

/// Lowercase hex of SHA-256 over `text`.
fn sha256_hex(text: &[u8]) -> String {
    Sha256::digest(text)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Bytes per element of a safetensors dtype (also its alignment).
pub fn dtype_bytes(dtype: &str) -> u64 {
    match dtype {
        "U8" | "I8" | "F8_E4M3" | "F8_E5M2" | "BOOL" => 1,
        "BF16" | "F16" => 2,
        "F32" | "I32" => 4,
        other => panic!("fixture dtype {other:?}"),
    }
}

/// A tensor's data bytes.
fn data_bytes(dtype: &str, shape: &[u64]) -> u64 {
    shape.iter().product::<u64>() * dtype_bytes(dtype)
}

/// The real `config.json` bytes of a fixture folder.
fn config_bytes(folder: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/huggingface")
        .join(folder)
        .join("config.json");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Tensors in checkpoint (layer) order.
struct Gen(Vec<(String, String, Vec<u64>)>);

impl Gen {
    fn t(&mut self, name: impl Into<String>, dtype: &str, shape: &[u64]) {
        self.0
            .push((name.into(), dtype.to_string(), shape.to_vec()));
    }
    /// A BF16 tensor.
    fn b(&mut self, name: impl Into<String>, shape: &[u64]) {
        self.t(name, "BF16", shape);
    }
    /// A SwiGLU MLP `{p}.{gate,up,down}_proj.weight` with inner size `i` (BF16).
    fn mlp(&mut self, p: &str, h: u64, i: u64) {
        self.b(format!("{p}.gate_proj.weight"), &[i, h]);
        self.b(format!("{p}.up_proj.weight"), &[i, h]);
        self.b(format!("{p}.down_proj.weight"), &[h, i]);
    }
}

/// A config integer.
fn int(c: &Value, key: &str) -> u64 {
    c[key]
        .as_u64()
        .unwrap_or_else(|| panic!("config key {key:?}"))
}

/// The tensors of a folder, in checkpoint order, from its config.
fn generate(folder: &str, c: &Value) -> Vec<(String, String, Vec<u64>)> {
    let mut g = Gen(Vec::new());
    let (h, v, layers) = (
        int(c, "hidden_size"),
        int(c, "vocab_size"),
        int(c, "num_hidden_layers"),
    );
    let heads = int(c, "num_attention_heads");
    let kv_heads = c["num_key_value_heads"].as_u64().unwrap_or(heads);
    let hd = c["head_dim"].as_u64().unwrap_or(h / heads);
    let tied = c["tie_word_embeddings"].as_bool().unwrap_or(false);
    g.b("model.embed_tokens.weight", &[v, h]);
    match c["model_type"].as_str().expect("model_type") {
        "llama" => {
            let i = int(c, "intermediate_size");
            for l in 0..layers {
                let p = format!("model.layers.{l}");
                g.b(format!("{p}.input_layernorm.weight"), &[h]);
                g.mlp(&format!("{p}.mlp"), h, i);
                g.b(format!("{p}.post_attention_layernorm.weight"), &[h]);
                g.b(format!("{p}.self_attn.q_proj.weight"), &[heads * hd, h]);
                g.b(format!("{p}.self_attn.k_proj.weight"), &[kv_heads * hd, h]);
                g.b(format!("{p}.self_attn.v_proj.weight"), &[kv_heads * hd, h]);
                g.b(format!("{p}.self_attn.o_proj.weight"), &[h, heads * hd]);
            }
        }
        "qwen3_moe" => {
            let (e, mi, i) = (
                int(c, "num_experts"),
                int(c, "moe_intermediate_size"),
                int(c, "intermediate_size"),
            );
            let step = int(c, "decoder_sparse_step");
            let dense: Vec<u64> = c["mlp_only_layers"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            for l in 0..layers {
                let p = format!("model.layers.{l}");
                g.b(format!("{p}.input_layernorm.weight"), &[h]);
                if dense.contains(&l) || (l + 1) % step != 0 {
                    g.mlp(&format!("{p}.mlp"), h, i);
                } else {
                    for x in 0..e {
                        g.mlp(&format!("{p}.mlp.experts.{x}"), h, mi);
                    }
                    g.b(format!("{p}.mlp.gate.weight"), &[e, h]);
                }
                g.b(format!("{p}.post_attention_layernorm.weight"), &[h]);
                g.b(format!("{p}.self_attn.k_norm.weight"), &[hd]);
                g.b(format!("{p}.self_attn.k_proj.weight"), &[kv_heads * hd, h]);
                g.b(format!("{p}.self_attn.o_proj.weight"), &[h, heads * hd]);
                g.b(format!("{p}.self_attn.q_norm.weight"), &[hd]);
                g.b(format!("{p}.self_attn.q_proj.weight"), &[heads * hd, h]);
                g.b(format!("{p}.self_attn.v_proj.weight"), &[kv_heads * hd, h]);
            }
        }
        "qwen3_next" => {
            let interval = int(c, "full_attention_interval");
            let (nk, dk) = (
                int(c, "linear_num_key_heads"),
                int(c, "linear_key_head_dim"),
            );
            let (nv, dv) = (
                int(c, "linear_num_value_heads"),
                int(c, "linear_value_head_dim"),
            );
            let kernel = int(c, "linear_conv_kernel_dim");
            let (e, mi, si) = (
                int(c, "num_experts"),
                int(c, "moe_intermediate_size"),
                int(c, "shared_expert_intermediate_size"),
            );
            // A full-attention (gated: q_proj holds query and gate) + MoE decoder layer.
            let full_moe = |g: &mut Gen, p: &str, full: bool| {
                g.b(format!("{p}.input_layernorm.weight"), &[h]);
                if full {
                    g.b(format!("{p}.self_attn.k_norm.weight"), &[hd]);
                    g.b(format!("{p}.self_attn.k_proj.weight"), &[kv_heads * hd, h]);
                    g.b(format!("{p}.self_attn.o_proj.weight"), &[h, heads * hd]);
                    g.b(format!("{p}.self_attn.q_norm.weight"), &[hd]);
                    g.b(format!("{p}.self_attn.q_proj.weight"), &[2 * heads * hd, h]);
                    g.b(format!("{p}.self_attn.v_proj.weight"), &[kv_heads * hd, h]);
                } else {
                    // Gated DeltaNet: q, k (nk·dk each), v, z (nv·dv each); b, a (nv each).
                    let a = format!("{p}.linear_attn");
                    g.b(format!("{a}.A_log"), &[nv]);
                    g.b(
                        format!("{a}.conv1d.weight"),
                        &[2 * nk * dk + nv * dv, 1, kernel],
                    );
                    g.b(format!("{a}.dt_bias"), &[nv]);
                    g.b(format!("{a}.in_proj_ba.weight"), &[2 * nv, h]);
                    g.b(
                        format!("{a}.in_proj_qkvz.weight"),
                        &[2 * nk * dk + 2 * nv * dv, h],
                    );
                    g.b(format!("{a}.norm.weight"), &[dv]);
                    g.b(format!("{a}.out_proj.weight"), &[h, nv * dv]);
                }
                for x in 0..e {
                    g.mlp(&format!("{p}.mlp.experts.{x}"), h, mi);
                }
                g.b(format!("{p}.mlp.gate.weight"), &[e, h]);
                g.mlp(&format!("{p}.mlp.shared_expert"), h, si);
                g.b(format!("{p}.mlp.shared_expert_gate.weight"), &[1, h]);
                g.b(format!("{p}.post_attention_layernorm.weight"), &[h]);
            };
            for l in 0..layers {
                full_moe(
                    &mut g,
                    &format!("model.layers.{l}"),
                    (l + 1) % interval == 0,
                );
            }
            g.b("model.norm.weight", &[h]);
            if !tied {
                g.b("lm_head.weight", &[v, h]);
            }
            // One multi-token-prediction layer (the config has no count for it).
            g.b("mtp.fc.weight", &[h, 2 * h]);
            full_moe(&mut g, "mtp.layers.0", true);
            g.b("mtp.norm.weight", &[h]);
            g.b("mtp.pre_fc_norm_embedding.weight", &[h]);
            g.b("mtp.pre_fc_norm_hidden.weight", &[h]);
            return g.0;
        }
        "deepseek_v3" => {
            let q = &c["quantization_config"]["weight_block_size"];
            let (b0, b1) = (q[0].as_u64().expect("block"), q[1].as_u64().expect("block"));
            // An FP8 linear layer with its F32 block scales.
            let fp8 = |g: &mut Gen, p: String, out: u64, inp: u64| {
                g.t(format!("{p}.weight"), "F8_E4M3", &[out, inp]);
                g.t(
                    format!("{p}.weight_scale_inv"),
                    "F32",
                    &[out.div_ceil(b0), inp.div_ceil(b1)],
                );
            };
            let (ql, kvl) = (int(c, "q_lora_rank"), int(c, "kv_lora_rank"));
            let (nope, rope, vd) = (
                int(c, "qk_nope_head_dim"),
                int(c, "qk_rope_head_dim"),
                int(c, "v_head_dim"),
            );
            let (e, mi, i) = (
                int(c, "n_routed_experts"),
                int(c, "moe_intermediate_size"),
                int(c, "intermediate_size"),
            );
            let shared = int(c, "n_shared_experts");
            let first_moe = int(c, "first_k_dense_replace");
            let mtp = int(c, "num_nextn_predict_layers");
            for l in 0..layers + mtp {
                let p = format!("model.layers.{l}");
                if l >= layers {
                    g.b(format!("{p}.eh_proj.weight"), &[h, 2 * h]);
                    g.b(format!("{p}.embed_tokens.weight"), &[v, h]);
                    g.b(format!("{p}.enorm.weight"), &[h]);
                    g.b(format!("{p}.hnorm.weight"), &[h]);
                }
                g.b(format!("{p}.input_layernorm.weight"), &[h]);
                let mlp = format!("{p}.mlp");
                if l < first_moe {
                    fp8(&mut g, format!("{mlp}.down_proj"), h, i);
                    fp8(&mut g, format!("{mlp}.gate_proj"), i, h);
                    fp8(&mut g, format!("{mlp}.up_proj"), i, h);
                } else {
                    let experts = (0..e)
                        .map(|x| (format!("{mlp}.experts.{x}"), mi))
                        .chain([(format!("{mlp}.shared_experts"), mi * shared)]);
                    for (ep, ei) in experts {
                        fp8(&mut g, format!("{ep}.down_proj"), h, ei);
                        fp8(&mut g, format!("{ep}.gate_proj"), ei, h);
                        fp8(&mut g, format!("{ep}.up_proj"), ei, h);
                    }
                    g.t(format!("{mlp}.gate.e_score_correction_bias"), "F32", &[e]);
                    g.b(format!("{mlp}.gate.weight"), &[e, h]);
                }
                g.b(format!("{p}.post_attention_layernorm.weight"), &[h]);
                let a = format!("{p}.self_attn");
                fp8(&mut g, format!("{a}.kv_a_proj_with_mqa"), kvl + rope, h);
                g.b(format!("{a}.kv_a_layernorm.weight"), &[kvl]);
                fp8(&mut g, format!("{a}.kv_b_proj"), heads * (nope + vd), kvl);
                fp8(&mut g, format!("{a}.o_proj"), h, heads * vd);
                fp8(&mut g, format!("{a}.q_a_proj"), ql, h);
                g.b(format!("{a}.q_a_layernorm.weight"), &[ql]);
                fp8(&mut g, format!("{a}.q_b_proj"), heads * (nope + rope), ql);
                if l >= layers {
                    g.b(format!("{p}.shared_head.head.weight"), &[v, h]);
                    g.b(format!("{p}.shared_head.norm.weight"), &[h]);
                }
                if l + 1 == layers {
                    // The main model ends before the MTP layer(s).
                    g.b("model.norm.weight", &[h]);
                    if !tied {
                        g.b("lm_head.weight", &[v, h]);
                    }
                }
            }
            return g.0;
        }
        "gpt_oss" => {
            let (e, i) = (int(c, "num_local_experts"), int(c, "intermediate_size"));
            // MXFP4: 32 values per 16-byte block along the input dimension, one E8M0 scale each.
            for l in 0..layers {
                let p = format!("model.layers.{l}");
                g.b(format!("{p}.input_layernorm.weight"), &[h]);
                let x = format!("{p}.mlp.experts");
                g.b(format!("{x}.down_proj_bias"), &[e, h]);
                g.t(format!("{x}.down_proj_blocks"), "U8", &[e, h, i / 32, 16]);
                g.t(format!("{x}.down_proj_scales"), "U8", &[e, h, i / 32]);
                g.b(format!("{x}.gate_up_proj_bias"), &[e, 2 * i]);
                g.t(
                    format!("{x}.gate_up_proj_blocks"),
                    "U8",
                    &[e, 2 * i, h / 32, 16],
                );
                g.t(
                    format!("{x}.gate_up_proj_scales"),
                    "U8",
                    &[e, 2 * i, h / 32],
                );
                g.b(format!("{p}.mlp.router.bias"), &[e]);
                g.b(format!("{p}.mlp.router.weight"), &[e, h]);
                g.b(format!("{p}.post_attention_layernorm.weight"), &[h]);
                let a = format!("{p}.self_attn");
                for (proj, out, inp) in [
                    ("k_proj", kv_heads * hd, h),
                    ("o_proj", h, heads * hd),
                    ("q_proj", heads * hd, h),
                    ("v_proj", kv_heads * hd, h),
                ] {
                    g.b(format!("{a}.{proj}.bias"), &[out]);
                    g.b(format!("{a}.{proj}.weight"), &[out, inp]);
                }
                g.b(format!("{a}.sinks"), &[heads]);
            }
        }
        other => panic!("{folder}: no generator for model_type {other:?}"),
    }
    g.b("model.norm.weight", &[h]);
    if !tied {
        g.b("lm_head.weight", &[v, h]);
    }
    g.0
}

/// Tensors of a repo (for tests): name, dtype, shape, sorted by name.
pub fn tensors(folder: &str) -> Vec<(String, String, Vec<u64>)> {
    let config: Value = serde_json::from_slice(&config_bytes(folder)).expect("config JSON");
    let mut all = generate(folder, &config);
    all.sort();
    all
}

/// One safetensors file's served bytes (8-byte LE length + header padded with spaces to a
/// multiple of 8) and its true size. Data is laid out the way the safetensors writer does:
/// by descending dtype alignment, then by name.
fn shard_file(mut tensors: Vec<&(String, String, Vec<u64>)>) -> (Vec<u8>, u64) {
    tensors.sort_by(|a, b| {
        dtype_bytes(&b.1)
            .cmp(&dtype_bytes(&a.1))
            .then_with(|| a.0.cmp(&b.0))
    });
    let mut header = Map::new();
    header.insert("__metadata__".into(), json!({"format": "pt"}));
    let mut offset = 0u64;
    for (name, dtype, shape) in tensors {
        let end = offset + data_bytes(dtype, shape);
        header.insert(
            name.clone(),
            json!({"dtype": dtype, "shape": shape, "data_offsets": [offset, end]}),
        );
        offset = end;
    }
    let mut json = serde_json::to_vec(&Value::Object(header)).expect("header JSON");
    json.resize(json.len().next_multiple_of(8), b' ');
    let n = json.len() as u64;
    let mut bytes = n.to_le_bytes().to_vec();
    bytes.extend_from_slice(&json);
    (bytes, 8 + n + offset)
}

/// The fixture repository of a folder.
pub fn repo(folder: &str) -> FixtureRepo {
    let spec = spec(folder);
    let config = config_bytes(folder);
    let value: Value = serde_json::from_slice(&config).expect("config JSON");
    let ordered = generate(folder, &value);
    let shard_name = |k: usize| {
        format!(
            "model-{:05}-of-{:0w$}.safetensors",
            spec.first + k,
            spec.of,
            w = spec.of_width
        )
    };
    // Contiguous, byte-balanced split: a tensor goes to the shard holding its midpoint.
    let total: u64 = ordered.iter().map(|t| data_bytes(&t.1, &t.2)).sum();
    let mut shards: Vec<Vec<&(String, String, Vec<u64>)>> = vec![Vec::new(); spec.shards];
    let mut start = 0u128;
    for t in &ordered {
        let b = u128::from(data_bytes(&t.1, &t.2));
        let k = ((2 * start + b) * spec.shards as u128 / (2 * u128::from(total))) as usize;
        shards[k.min(spec.shards - 1)].push(t);
        start += b;
    }
    let mut files = BTreeMap::new();
    let mut sizes = BTreeMap::new();
    let mut weight_map = BTreeMap::new();
    for (k, members) in shards.into_iter().enumerate() {
        assert!(!members.is_empty(), "{folder}: shard {k} is empty");
        let name = shard_name(k);
        for t in &members {
            weight_map.insert(t.0.clone(), name.clone());
        }
        let (bytes, size) = shard_file(members);
        files.insert(name.clone(), bytes);
        sizes.insert(name, size);
    }
    let index = json!({"metadata": {"total_size": total}, "weight_map": weight_map});
    let mut index = serde_json::to_vec_pretty(&index).expect("index JSON");
    index.push(b'\n');
    let readme = format!(
        "---\nlibrary_name: transformers\npipeline_tag: text-generation\n---\n\n# {}\n\n\
         Test fixture: real config.json, generated safetensors headers.\n",
        spec.id
    );
    let mut generation = Map::new();
    generation.insert("_from_model_config".into(), Value::Bool(true));
    for key in ["bos_token_id", "eos_token_id"] {
        if !value[key].is_null() {
            generation.insert(key.into(), value[key].clone());
        }
    }
    let mut generation = serde_json::to_vec_pretty(&generation).expect("generation JSON");
    generation.push(b'\n');
    let gitattributes = "*.safetensors filter=lfs diff=lfs merge=lfs -text\n\
                         *.pth filter=lfs diff=lfs merge=lfs -text\n\
                         *.bin filter=lfs diff=lfs merge=lfs -text\n";
    for (path, bytes) in [
        (".gitattributes", gitattributes.as_bytes().to_vec()),
        ("README.md", readme.into_bytes()),
        ("config.json", config),
        ("generation_config.json", generation),
        ("model.safetensors.index.json", index),
    ] {
        sizes.insert(path.to_string(), bytes.len() as u64);
        files.insert(path.to_string(), bytes);
    }
    // Copies that are not the checkpoint (sizes illustrative: about the checkpoint's bytes).
    match folder {
        "meta-llama__Meta-Llama-3.1-8B" => {
            sizes.insert("original/consolidated.00.pth".into(), total + 95_096);
        }
        "meta-llama__Llama-3.3-70B-Instruct" => {
            for k in 0..8 {
                let path = format!("original/consolidated.{k:02}.pth");
                sizes.insert(path, total / 8 + 1_312);
            }
        }
        "openai__gpt-oss-120b" => {
            sizes.insert("metal/model.bin".into(), total + 4_096);
            for k in 1..=7 {
                let path = format!("original/model--{k:05}-of-00007.safetensors");
                sizes.insert(path, total / 7 + 8_192);
            }
        }
        _ => {}
    }
    FixtureRepo {
        id: spec.id.to_string(),
        sha: sha256_hex(format!("commit {}", spec.id).as_bytes())[..40].to_string(),
        files,
        sizes,
    }
}

/// Whether a path is stored with Git LFS in the fixture.
fn is_lfs(path: &str) -> bool {
    [".safetensors", ".pth", ".bin"]
        .iter()
        .any(|ext| path.ends_with(ext))
}

impl FixtureRepo {
    /// `/api/models/{id}?blobs=true` answer: every sibling with `size` and `blobId`; LFS files
    /// (`.safetensors`, `.pth`, `.bin`) also with `lfs` {size, sha256, pointerSize}.
    pub fn info_json(&self) -> Vec<u8> {
        // A copy under another ID (the collector's failure tests) lists no tags.
        let spec_tags = REPOS
            .iter()
            .map(|f| spec(f))
            .find(|s| s.id == self.id)
            .map(|s| s.tags)
            .unwrap_or_default();
        let siblings: Vec<Value> = self
            .sizes
            .iter()
            .map(|(path, &size)| {
                if is_lfs(path) {
                    let oid = sha256_hex(format!("{} {} {size}", self.id, path).as_bytes());
                    let pointer = format!(
                        "version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n"
                    );
                    json!({
                        "rfilename": path,
                        "size": size,
                        "blobId": &sha256_hex(pointer.as_bytes())[..40],
                        "lfs": {"size": size, "sha256": oid, "pointerSize": pointer.len()},
                    })
                } else {
                    let content = self.files.get(path).map_or(&[][..], Vec::as_slice);
                    json!({
                        "rfilename": path,
                        "size": size,
                        "blobId": &sha256_hex(content)[..40],
                    })
                }
            })
            .collect();
        let (author, _) = self.id.split_once('/').expect("org/name");
        let info = json!({
            "_id": &sha256_hex(format!("id {}", self.id).as_bytes())[..24],
            "id": self.id,
            "modelId": self.id,
            "author": author,
            "sha": self.sha,
            "private": false,
            "gated": false,
            "disabled": false,
            "library_name": "transformers",
            "pipeline_tag": "text-generation",
            "tags": spec_tags,
            "siblings": siblings,
        });
        serde_json::to_vec(&info).expect("info JSON")
    }
}

/// Each fixture's parameter total under DESIGN §10, from published figures (derivations inline).
pub const PUBLISHED_TOTALS: [(&str, u128); 6] = [
    // Hub `safetensors.total`, all BF16.
    ("meta-llama__Meta-Llama-3.1-8B", 8_030_261_248),
    ("meta-llama__Llama-3.3-70B-Instruct", 70_553_706_496),
    ("Qwen__Qwen3-235B-A22B", 235_093_634_560),
    // Includes the MTP layer (79,674,391,296 without it).
    ("Qwen__Qwen3-Next-80B-A3B-Thinking", 81_324_862_720),
    // Hub total 684,531,386,000 = BF16 3,918,786,560 + F8_E4M3 680,571,043,840 + F32
    // 41,555,600. The F32 part is 41,540,496 `weight_scale_inv` (auxiliary under DESIGN §10)
    // + 59 MoE layers × 256 `gate.e_score_correction_bias` = 15,104, which ARE parameters
    // (last component does not end with a scale suffix). So the §10 total is
    // 684,531,386,000 − 41,540,496 = 684,489,845,504, not 684,531,386,000 − 41,555,600 =
    // 684,489,830,400 (that would also drop the 15,104 correction biases).
    ("deepseek-ai__DeepSeek-V3", 684_489_845_504),
    // BF16 2,167,371,072 + 2 × blocks bytes. Per layer (E = 128, H = I = 2880, 32 values
    // per 16-byte block): gate_up 128 × 5760 × 90 × 16 = 1,061,683,200, down
    // 128 × 2880 × 90 × 16 = 530,841,600; × 36 layers = 57,330,892,800 bytes; × 2 =
    // 114,661,785,600; + 2,167,371,072 = 116,829,156,672 = OpenAI's published total.
    ("openai__gpt-oss-120b", 116_829_156_672),
];

/// Each fixture's active parameters, derived by hand from its configuration.
pub const DERIVED_ACTIVE: [(&str, u128); 6] = [
    // Dense: active = total.
    ("meta-llama__Meta-Llama-3.1-8B", 8_030_261_248),
    ("meta-llama__Llama-3.3-70B-Instruct", 70_553_706_496),
    // Qwen3-235B-A22B: E = 128, k = 8, 94 MoE layers; one expert = 3 × 4096 × 1536 =
    // 18,874,368; R = 94 × 128 × 18,874,368 = 227,096,395,776; idle R × 120/128 =
    // 212,902,871,040; active = 235,093,634,560 − 212,902,871,040 = 22,190,763,520.
    ("Qwen__Qwen3-235B-A22B", 22_190_763_520),
    // Qwen3-Next: E = 512, k = 10, 48 layers + 1 MTP layer with routed experts; one expert
    // = 3 × 2048 × 512 = 3,145,728; R = 49 × 512 × 3,145,728 = 78,920,024,064; idle
    // R × 502/512 = 49 × 502 × 3,145,728 = 77,378,617,344; active = 81,324,862,720 −
    // 77,378,617,344 = 3,946,245,376.
    ("Qwen__Qwen3-Next-80B-A3B-Thinking", 3_946_245_376),
    // DeepSeek-V3: E = 256, k = 8, MoE layers 3..=60 plus MTP layer 61 = 59; one expert =
    // 3 × 2048 × 7168 = 44,040,192 (FP8; scales excluded, shared expert excluded);
    // R = 59 × 256 × 44,040,192 = 665,188,990,976; idle R × 248/256 =
    // 59 × 248 × 44,040,192 = 644,396,089,344; active = 684,489,845,504 −
    // 644,396,089,344 = 40,093,756,160 (DeepSeek's "37B activated" excludes the MTP module).
    ("deepseek-ai__DeepSeek-V3", 40_093_756_160),
    // gpt-oss-120b: E = 128, k = 4, 36 layers; per layer R = 2 × (1,061,683,200 +
    // 530,841,600) blocks-parameters + biases 128 × 5760 + 128 × 2880 = 1,105,920 →
    // 3,186,155,520; R = 36 × that = 114,701,598,720; idle R × 124/128 = 111,117,173,760;
    // active = 116,829,156,672 − 111,117,173,760 = 5,711,982,912. (OpenAI's "5.13B active"
    // leaves out the 201,088 × 2880 = 579,133,440 unembedding: 5,132,849,472.)
    ("openai__gpt-oss-120b", 5_711_982_912),
];

/// The four configurations added with DESIGN §10's amendment (2026-11-25), served as
/// config-only repositories (see [`config_repo`]).
pub const CONFIG_REPOS: [&str; 4] = [
    "deepseek-ai__DeepSeek-V3.2",
    "meta-llama__Llama-4-Scout-17B-16E-Instruct",
    "XiaomiMiMo__MiMo-V2-Flash",
    "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
];

/// The figures each of [`CONFIG_REPOS`] has in its `SOURCE.txt` (computed independently from
/// vLLM's cache specifications): architecture, attention bytes per token, full-sequence bytes,
/// recurrent state bytes and T.
pub const SOURCE_FIGURES: [(&str, &str, &str, &str, &str, &str); 4] = [
    // 61 × 576 × 2 + 61 × 132 = 78,324; × 163,840.
    (
        "deepseek-ai__DeepSeek-V3.2",
        "deepseek_v32",
        "78324",
        "12832604160",
        "0",
        "163840",
    ),
    // 12 full layers (policy default interval 4), 36 chunked at 8,192.
    (
        "meta-llama__Llama-4-Scout-17B-16E-Instruct",
        "llama4",
        "49152",
        "516604035072",
        "0",
        "10485760",
    ),
    // 9 full layers of 4 × (192 + 128) × 2; 39 sliding of 8 × (192 + 128) × 2 at 128.
    (
        "XiaomiMiMo__MiMo-V2-Flash",
        "mimo_v2_flash",
        "23040",
        "6065356800",
        "0",
        "262144",
    ),
    // 6 attention layers; 23 Mamba2; 23 MoE (E) without cache.
    (
        "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
        "nemotron_h",
        "6144",
        "1610612736",
        "24965120",
        "262144",
    ),
];

/// A repository around the real `config.json` of `folder` whose checkpoint is NOT the model's:
/// one `model.safetensors` holding a single 8 × 8 BF16 tensor (header served only), so the
/// run has size evidence to read; only the config facts are the model's. The repository ID is
/// the folder's `owner__name` as `owner/name`; the commit is derived like [`repo`]'s.
pub fn config_repo(folder: &str) -> FixtureRepo {
    let id = folder.replacen("__", "/", 1);
    let config = config_bytes(folder);
    let tensor = (
        "model.embed_tokens.weight".to_string(),
        "BF16".to_string(),
        vec![8, 8],
    );
    let (bytes, size) = shard_file(vec![&tensor]);
    let mut files = BTreeMap::new();
    let mut sizes = BTreeMap::new();
    sizes.insert("config.json".to_string(), config.len() as u64);
    files.insert("config.json".to_string(), config);
    sizes.insert("model.safetensors".to_string(), size);
    files.insert("model.safetensors".to_string(), bytes);
    FixtureRepo {
        sha: sha256_hex(format!("commit {id}").as_bytes())[..40].to_string(),
        id,
        files,
        sizes,
    }
}

/// Replaces a [`config_repo`]'s checkpoint with one `model.safetensors` of `tensors` (name,
/// dtype, shape), header served only.
pub fn with_checkpoint(repo: &mut FixtureRepo, tensors: &[(String, String, Vec<u64>)]) {
    let (bytes, size) = shard_file(tensors.iter().collect());
    repo.sizes.insert("model.safetensors".to_string(), size);
    repo.files.insert("model.safetensors".to_string(), bytes);
}

/// Serves a repository on a stand-in: its info, its files at the commit (Range-capable), and an empty
/// quantized-children search unless `children` are given.
pub fn serve(standin: &StandIn, repo: &FixtureRepo, children: &[&str]) {
    standin.route(
        &format!("/api/models/{}?blobs=true", repo.id),
        vec![Reply::json(repo.info_json())],
    );
    // The same info at its commit, as `--revision` asks for it.
    standin.route(
        &format!("/api/models/{}/revision/{}?blobs=true", repo.id, repo.sha),
        vec![Reply::json(repo.info_json())],
    );
    for (path, bytes) in &repo.files {
        standin.route(
            &format!("/{}/resolve/{}/{path}", repo.id, repo.sha),
            vec![Reply::File(bytes.clone())],
        );
    }
    let author = repo.id.split('/').next().expect("author");
    let listed: Vec<Value> = children
        .iter()
        .map(|c| json!({"id": c, "modelId": c}))
        .collect();
    standin.route(
        &format!(
            "/api/models?author={author}&filter=base_model:quantized:{}&limit=100",
            repo.id
        ),
        vec![Reply::json(serde_json::to_vec(&listed).expect("json"))],
    );
}
