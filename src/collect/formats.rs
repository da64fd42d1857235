//! Checkpoint formats (DESIGN §10, "Parameters", amended 2026-11-27): the format a
//! configuration's `quantization_config` declares, and what each format's writer names: its
//! packed parameters (how many logical values one stored element holds) and its auxiliary
//! tensors (scales, zero points, group indices, quantization state). The table is what the
//! writers' code showed on 2026-11-27 (pinned in docs/decisions.md); a format or a detail it
//! does not hold is not guessed: the checkpoint's size facts are then unknown. Amended
//! 2026-11-28: a format's auxiliary names are its writers' and loaders' whole list, read from
//! their code, and `is_state_name` is the union of every format's, so that a float tensor
//! under a name any writer or loader uses for quantization state is never counted as a
//! parameter where its format does not name it; MLX (mlx-lm) and AMD Quark join the table.

use std::fmt;

use serde_json::{Map, Value};

/// A tensor-name pattern, matched against a name's trailing dot-separated components:
/// `*_blocks` (the last component ends with `_blocks`), `weight.quant_state.*` (the name has the
/// components `weight.quant_state.` followed by more), or a plain tail (`weight_scale`: the name
/// is it, or ends with `.weight_scale`).
pub type Pattern = &'static str;

/// Whether `name` matches `pattern` (see [`Pattern`]).
pub fn matches(pattern: Pattern, name: &str) -> bool {
    if let Some(suffix) = pattern.strip_prefix('*') {
        let last = name.rsplit('.').next().unwrap_or(name);
        return last.ends_with(suffix) && last.len() > suffix.len();
    }
    if let Some(stem) = pattern.strip_suffix(".*") {
        let inner = format!(".{stem}.");
        return name.starts_with(&inner[1..]) || name.contains(&inner);
    }
    name == pattern
        || name
            .strip_suffix(pattern)
            .is_some_and(|head| head.ends_with('.'))
}

/// How a packed tensor's shape must agree with its scale's (the companion tensor of the same
/// module), as the writer lays them out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// `[out, in / per]` with a scale `[out, groups]`: equal rows, the logical columns a
    /// multiple of the scale's (compressed-tensors, modelopt NVFP4).
    RowsAlike,
    /// GPTQ `qweight [in / per, out]` with `scales [groups, out]`: equal columns, the logical
    /// rows a multiple of the scale's.
    ColumnsAlike,
    /// AWQ `qweight [in, out / per]` with `scales [groups, out]`: the scale's columns are the
    /// logical columns, the rows a multiple of the scale's.
    LogicalColumns,
    /// MXFP4 `*_blocks [..., n, 16]` with `*_scales [..., n]`.
    Blocks,
    /// bitsandbytes 4-bit `weight [n / 2, 1]`: the shape its writer flattens to.
    Flattened,
}

/// One kind of packed parameter tensor of a format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    /// Its name.
    pub name: Pattern,
    /// The dtype the writer stores it in.
    pub dtype: &'static str,
    /// Logical values per stored element: `numerator / denominator` (exact).
    pub numerator: u128,
    /// See `numerator` (the bit width for 32-bit words of `bits`-bit values).
    pub denominator: u128,
    /// Whether the name is the format's own (`weight_packed`, `qweight`, `*_blocks`): then any
    /// other dtype under it is wrong. `weight` (modelopt, bitsandbytes) is also a float
    /// layer's name, so a float `weight` is plain unless its module carries `marker`.
    pub exclusive: bool,
    /// The companion that marks a module as packed, for a name shared with plain layers.
    pub marker: Option<Pattern>,
    /// The companion scale (a tail replacing the packed tensor's own) and how its shape fits.
    pub scale: Option<(Pattern, Fit)>,
}

/// A checkpoint's format, as its configuration declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// No `quantization_config`: plain float tensors.
    Plain,
    /// A format of the table.
    Known {
        /// What was read, for messages (`compressed-tensors pack-quantized 4-bit`).
        label: String,
        /// Its packed parameter tensors.
        packed: Vec<Packed>,
        /// Its auxiliary tensors.
        auxiliary: Vec<Pattern>,
    },
    /// MLX quantization as mlx-lm writes it (`quantization` / `quantization_config` with
    /// `group_size` and `bits` and no `quant_method`): a U32 `weight` is packed exactly where its
    /// module has `scales`, at the bits the configuration gives that module, checked against
    /// the tensors.
    Mlx(Mlx),
    /// A `quantization_config` the table does not hold (what was read).
    Unknown(String),
}

/// An MLX quantization: `mode` (`affine` unless written), `group_size` and `bits` of the whole
/// model, and the per-module entries mlx-lm writes beside them (module path → its own, or
/// `None` for a module written `false`: left unquantized).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mlx {
    /// The model's quantization.
    pub global: MlxQuant,
    /// Per-module entries, by module path.
    pub modules: std::collections::BTreeMap<String, Option<MlxQuant>>,
}

/// One MLX quantization: mode, group size and bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MlxQuant {
    /// `affine`, `mxfp4`, `nvfp4` or `mxfp8`.
    pub mode: MlxMode,
    /// Values per scale.
    pub group_size: u64,
    /// Bits per value.
    pub bits: u64,
}

/// The modes of MLX quantization (mlx `ops.cpp`: `affine_quantize`, `fp_quantize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MlxMode {
    /// Float `scales` and `biases` of the weight's dtype; bits 2, 3, 4, 5, 6, 8.
    Affine,
    /// U8 E8M0 `scales`, group 32, 4 bits, no biases.
    Mxfp4,
    /// U8 E4M3 `scales`, group 16, 4 bits, no biases.
    Nvfp4,
    /// U8 E8M0 `scales`, group 32, 8 bits, no biases.
    Mxfp8,
}

impl MlxMode {
    /// The mode's name as mlx-lm writes it.
    pub fn name(self) -> &'static str {
        match self {
            MlxMode::Affine => "affine",
            MlxMode::Mxfp4 => "mxfp4",
            MlxMode::Nvfp4 => "nvfp4",
            MlxMode::Mxfp8 => "mxfp8",
        }
    }

    /// The only group size and bits of a float mode (`None` for affine).
    pub fn fixed(self) -> Option<(u64, u64)> {
        match self {
            MlxMode::Affine => None,
            MlxMode::Mxfp4 => Some((32, 4)),
            MlxMode::Nvfp4 => Some((16, 4)),
            MlxMode::Mxfp8 => Some((32, 8)),
        }
    }
}

impl Mlx {
    /// The quantization the configuration gives the module `path`: its own entry, else the
    /// model's; `None` where the entry is `false`.
    pub fn of_module(&self, path: &str) -> Option<MlxQuant> {
        match self.modules.get(path) {
            Some(own) => *own,
            None => Some(self.global),
        }
    }

    /// The format's name for the smallest quantization (`mlx-affine`, `mlx-mxfp4`, ...).
    pub fn name(&self) -> String {
        format!("mlx-{}", self.global.mode.name())
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Format::Plain => f.write_str("plain (no quantization_config)"),
            Format::Known { label, .. } => f.write_str(label),
            Format::Mlx(m) => write!(
                f,
                "mlx {} {}-bit group {}{}",
                m.global.mode.name(),
                m.global.bits,
                m.global.group_size,
                if m.modules.is_empty() {
                    ""
                } else {
                    " with per-module entries"
                }
            ),
            Format::Unknown(what) => write!(f, "{what} (not a format the rules know)"),
        }
    }
}

/// The `quantization_config` object of a configuration: the top level's, else `text_config`'s,
/// else an MLX `quantization` (mlx-lm wrote only that key before 2024-09-04; such a file is
/// quantized, not plain).
pub(crate) fn quantization_config(config: &Value) -> Option<&Map<String, Value>> {
    match config.get("quantization_config") {
        Some(Value::Object(q)) => Some(q),
        _ => config
            .get("text_config")
            .and_then(|t| t.get("quantization_config"))
            .and_then(Value::as_object)
            .or_else(|| {
                config
                    .get("quantization")?
                    .as_object()
                    .filter(|q| is_mlx(q))
            }),
    }
}

/// Whether a quantization object is mlx-lm's: integer `group_size` and `bits`, no `quant_method`.
fn is_mlx(q: &Map<String, Value>) -> bool {
    !q.contains_key("quant_method")
        && q.get("group_size").is_some_and(Value::is_u64)
        && q.get("bits").is_some_and(Value::is_u64)
}

fn mlx_quant(q: &Map<String, Value>) -> Result<MlxQuant, String> {
    let mode = match q.get("mode").map(Value::as_str) {
        None | Some(Some("affine")) => MlxMode::Affine,
        Some(Some("mxfp4")) => MlxMode::Mxfp4,
        Some(Some("nvfp4")) => MlxMode::Nvfp4,
        Some(Some("mxfp8")) => MlxMode::Mxfp8,
        Some(other) => return Err(format!("mlx mode {other:?}")),
    };
    let (Some(group_size), Some(bits)) = (
        q.get("group_size").and_then(Value::as_u64),
        q.get("bits").and_then(Value::as_u64),
    ) else {
        return Err("mlx quantization without integer group_size and bits".to_string());
    };
    // mlx ops.cpp validate_mode_with_type / affine_quantize: the writer's only choices.
    let valid = match mode.fixed() {
        Some(fixed) => fixed == (group_size, bits),
        None => [2, 3, 4, 5, 6, 8].contains(&bits) && [32, 64, 128].contains(&group_size),
    };
    if !valid {
        return Err(format!(
            "mlx {} of {bits} bits in groups of {group_size}",
            mode.name()
        ));
    }
    Ok(MlxQuant {
        mode,
        group_size,
        bits,
    })
}

/// An MLX quantization object: the model's quantization and the per-module entries (an
/// object or `false`) mlx-lm writes in the same object.
fn mlx(q: &Map<String, Value>) -> Result<Mlx, String> {
    let global = mlx_quant(q)?;
    let mut modules = std::collections::BTreeMap::new();
    for (key, value) in q {
        match (key.as_str(), value) {
            ("group_size" | "bits" | "mode", _) => {}
            (_, Value::Object(own)) => {
                modules.insert(key.clone(), Some(mlx_quant(own)?));
            }
            (_, Value::Bool(false)) => {
                modules.insert(key.clone(), None);
            }
            (_, other) => return Err(format!("mlx quantization entry {key:?}: {other}")),
        }
    }
    Ok(Mlx { global, modules })
}

/// Whether the configuration holds a `quantization_config` at all (an object, top level or
/// `text_config`'s), whatever it says.
pub(crate) fn has_quantization_config(config: &Value) -> bool {
    quantization_config(config).is_some()
}

fn uint(q: &Map<String, Value>, key: &str) -> Option<u128> {
    q.get(key).and_then(Value::as_u64).map(u128::from)
}

/// The state names of float-weight formats (`fp8`, modelopt's base, compressed-tensors
/// float-quantized): vLLM's FP8 linear and MoE weights (`weight_scale_inv`, `weight_scale`,
/// `input_scale`) and every KV-cache and attention scale name its loaders map
/// (`fp8.py`/`kv_cache.py` `k_scale`, `v_scale`, `q_scale`, `prob_scale`, the deprecated
/// `kv_scale`; `get_cache_scale` `output_scale` on k/v/q projections and `prob_output_scale`).
const FLOAT_SCALES: [Pattern; 10] = [
    "weight_scale_inv",
    "weight_scale",
    "input_scale",
    "k_scale",
    "v_scale",
    "q_scale",
    "prob_scale",
    "kv_scale",
    "output_scale",
    "prob_output_scale",
];

/// compressed-tensors' state names: `QuantizationMetadata.all_qparam_names` (the 15
/// `{input,weight,output}_{scale,zero_point,global_scale,g_idx,shape}`), its KV-cache scales
/// (`KVCacheScaleType`: `k_scale`, `v_scale`, `q_scale`), vLLM's KV remapping of
/// `output_scale` and `prob_output_scale`, and the FP8 scales its converters read
/// (`weight_scale_inv`, `weight_scale_2`).
const CT_STATE: [Pattern; 22] = [
    "input_scale",
    "input_zero_point",
    "input_global_scale",
    "input_g_idx",
    "input_shape",
    "weight_scale",
    "weight_zero_point",
    "weight_global_scale",
    "weight_g_idx",
    "weight_shape",
    "output_scale",
    "output_zero_point",
    "output_global_scale",
    "output_g_idx",
    "output_shape",
    "k_scale",
    "v_scale",
    "q_scale",
    "prob_scale",
    "prob_output_scale",
    "weight_scale_inv",
    "weight_scale_2",
];

/// modelopt's state names beyond the float formats': NVFP4's second-level scale, AWQ's
/// `pre_quant_scale`, the affine KV cache's `k_bias`/`v_bias`, and the fused-expert names
/// `quantizer_attr_names` prefixes with the weight's (`gate_up_proj_weight_scale`).
const MODELOPT_STATE: [Pattern; 7] = [
    "weight_scale_2",
    "pre_quant_scale",
    "k_bias",
    "v_bias",
    "*_weight_scale",
    "*_weight_scale_2",
    "*_input_scale",
];

/// AMD Quark's state names (`quark/torch/export/constants.py` LOAD_MAP and LOAD_MAP_MULTI,
/// `qparamslinear.py`): scales and zero points of weight, bias, input and output, their
/// second-level `_2` variants, the rotation, and the KV names its exports and vLLM's Quark
/// loader use (`output_scale` on any module, `prob_output_scale`, `k_scale`, `v_scale`).
const QUARK_STATE: [Pattern; 23] = [
    "weight_scale",
    "weight_zero_point",
    "bias_scale",
    "bias_zero_point",
    "input_scale",
    "input_zero_point",
    "output_scale",
    "output_zero_point",
    "weight_scale_2",
    "weight_zero_point_2",
    "bias_scale_2",
    "bias_zero_point_2",
    "input_scale_2",
    "input_zero_point_2",
    "output_scale_2",
    "output_zero_point_2",
    "input_rotation",
    "prob_output_scale",
    "k_scale",
    "v_scale",
    "q_scale",
    "prob_scale",
    "kv_scale",
];

/// MLX's state names (mlx `nn/layers/quantized.py`): the group scales and, in affine mode, the
/// group biases. (`bias`, without the `s`, is a float layer's parameter.)
const MLX_STATE: [Pattern; 2] = ["scales", "biases"];

/// GPTQ's and AWQ's state names.
const GPTQ_AWQ_STATE: [Pattern; 3] = ["qzeros", "scales", "g_idx"];

/// bitsandbytes' 4-bit quantization state.
const BNB4_STATE: [Pattern; 5] = [
    "weight.absmax",
    "weight.quant_map",
    "weight.nested_absmax",
    "weight.nested_quant_map",
    "weight.quant_state.*",
];

/// bitsandbytes' LLM.int8 state.
const BNB8_STATE: [Pattern; 2] = ["SCB", "weight_format"];

/// gpt-oss MXFP4's block scales.
const MXFP4_STATE: [Pattern; 1] = ["*_scales"];

/// Every format's state names, by format: what any writer or loader of the table uses for
/// quantization state. A name a model also uses for a plain parameter (`k_bias`, `v_bias`: the
/// query and value biases of BEiT-style vision encoders) is state only where its format names
/// it, so it is left out of [`is_state_name`].
pub(crate) const STATE_NAMES: [(&str, &[Pattern]); 9] = [
    ("mxfp4", &MXFP4_STATE),
    ("gptq/awq", &GPTQ_AWQ_STATE),
    ("compressed-tensors", &CT_STATE),
    ("fp8", &FLOAT_SCALES),
    ("modelopt", &MODELOPT_STATE),
    ("quark", &QUARK_STATE),
    ("mlx", &MLX_STATE),
    ("bitsandbytes", &BNB4_STATE),
    ("bitsandbytes 8-bit", &BNB8_STATE),
];

/// Names that are state where their format says so and plain parameters elsewhere.
const SHARED_WITH_PARAMETERS: [Pattern; 2] = ["k_bias", "v_bias"];

/// Whether any writer or loader of the table uses `name` for quantization state (DESIGN §10,
/// amended 2026-11-28).
pub(crate) fn is_state_name(name: &str) -> bool {
    STATE_NAMES.iter().any(|(_, patterns)| {
        patterns
            .iter()
            .filter(|p| !SHARED_WITH_PARAMETERS.contains(p))
            .any(|p| matches(p, name))
    })
}

/// A format's table entry: `(label, packed, auxiliary)`.
type Entry = (String, Vec<Packed>, Vec<Pattern>);

fn packed_words(name: Pattern, bits: u128, fit: Fit, scale: Pattern) -> Option<Packed> {
    // Whole values per 32-bit word only: the writers pack 2, 4 and 8 bits so.
    if bits == 0 || 32 % bits != 0 {
        return None;
    }
    Some(Packed {
        name,
        dtype: "I32",
        numerator: 32,
        denominator: bits,
        exclusive: true,
        marker: None,
        scale: Some((scale, fit)),
    })
}

fn nibbles(
    name: Pattern,
    exclusive: bool,
    marker: Option<Pattern>,
    scale: (Pattern, Fit),
) -> Packed {
    Packed {
        name,
        dtype: "U8",
        numerator: 2,
        denominator: 1,
        exclusive,
        marker,
        scale: Some(scale),
    }
}

/// compressed-tensors: the format of each weight group (`config_groups[*].format`, else the
/// top-level `format`); every group must be one the table holds.
fn compressed_tensors(q: &Map<String, Value>) -> Result<Entry, String> {
    let groups = q
        .get("config_groups")
        .and_then(Value::as_object)
        .ok_or("compressed-tensors without config_groups")?;
    let top_format = q.get("format").and_then(Value::as_str);
    let mut packed: Vec<Packed> = Vec::new();
    let mut auxiliary: Vec<Pattern> = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    for (name, group) in groups {
        let Some(weights) = group.get("weights").filter(|w| !w.is_null()) else {
            continue;
        };
        let format = group
            .get("format")
            .and_then(Value::as_str)
            .or(top_format)
            .ok_or_else(|| format!("compressed-tensors group {name} without a format"))?;
        let bits = weights
            .get("num_bits")
            .and_then(Value::as_u64)
            .map(u128::from);
        let kind = weights.get("type").and_then(Value::as_str).unwrap_or("");
        let (label, p, aux): (String, Option<Packed>, &[Pattern]) = match (format, kind, bits) {
            ("pack-quantized", "int", Some(b)) => (
                format!("compressed-tensors pack-quantized {b}-bit"),
                packed_words("weight_packed", b, Fit::RowsAlike, "weight_scale"),
                &CT_STATE,
            ),
            ("nvfp4-pack-quantized" | "mxfp4-pack-quantized", "float", Some(4)) => (
                format!("compressed-tensors {format}"),
                Some(nibbles(
                    "weight_packed",
                    true,
                    None,
                    ("weight_scale", Fit::RowsAlike),
                )),
                &CT_STATE,
            ),
            ("float-quantized", "float", Some(8)) => (
                "compressed-tensors float-quantized 8-bit".to_string(),
                None,
                &CT_STATE,
            ),
            // Integer weights that are not packed: one value per I8 element (W8A8, W4A8).
            ("int-quantized", "int", Some(b)) if b <= 8 => (
                format!("compressed-tensors int-quantized {b}-bit"),
                Some(Packed {
                    name: "weight",
                    dtype: "I8",
                    numerator: 1,
                    denominator: 1,
                    exclusive: false,
                    marker: Some("weight_scale"),
                    scale: Some(("weight_scale", Fit::RowsAlike)),
                }),
                &CT_STATE,
            ),
            _ => {
                return Err(format!(
                    "compressed-tensors {format} of {kind} {} bits",
                    bits.map_or("unknown".to_string(), |b| b.to_string())
                ))
            }
        };
        if format == "pack-quantized" && p.is_none() {
            return Err(format!(
                "compressed-tensors pack-quantized of {bits:?} bits"
            ));
        }
        if !labels.contains(&label) {
            labels.push(label);
        }
        packed.extend(p.filter(|p| !packed.contains(p)));
        for a in aux {
            if !auxiliary.contains(a) {
                auxiliary.push(a);
            }
        }
    }
    if labels.is_empty() {
        return Err("compressed-tensors without weight groups".to_string());
    }
    // Two packings under one name would make the count ambiguous.
    let names: Vec<&str> = packed.iter().map(|p| p.name).collect();
    if names.len() > 1 {
        return Err(format!(
            "compressed-tensors with mixed packings: {}",
            labels.join(", ")
        ));
    }
    Ok((labels.join(" + "), packed, auxiliary))
}

/// modelopt: `quant_algo` (top level, else under `quantization`), `NVFP4` or `FP8`, or
/// `MIXED_PRECISION` whose per-layer algorithms are among these.
fn modelopt(q: &Map<String, Value>) -> Result<Entry, String> {
    let algo = q
        .get("quant_algo")
        .or_else(|| q.get("quantization")?.get("quant_algo"))
        .and_then(Value::as_str)
        .ok_or("modelopt without quant_algo")?;
    let mut algos: Vec<&str> = Vec::new();
    if algo == "MIXED_PRECISION" {
        let layers = q
            .get("quantized_layers")
            .or_else(|| q.get("quantization")?.get("quantized_layers"))
            .and_then(Value::as_object)
            .ok_or("modelopt MIXED_PRECISION without quantized_layers")?;
        for layer in layers.values() {
            let a = layer
                .get("quant_algo")
                .and_then(Value::as_str)
                .ok_or("modelopt MIXED_PRECISION layer without quant_algo")?;
            if !algos.contains(&a) {
                algos.push(a);
            }
        }
    } else {
        algos.push(algo);
    }
    let mut packed = Vec::new();
    let mut auxiliary: Vec<Pattern> = FLOAT_SCALES.to_vec();
    for a in MODELOPT_STATE {
        if a != "weight_scale_2" {
            auxiliary.push(a);
        }
    }
    for a in &algos {
        match *a {
            "NVFP4" => {
                packed.push(nibbles(
                    "weight",
                    false,
                    Some("weight_scale_2"),
                    ("weight_scale", Fit::RowsAlike),
                ));
                auxiliary.push("weight_scale_2");
            }
            "FP8" => {}
            other => return Err(format!("modelopt {other}")),
        }
    }
    Ok((format!("modelopt {}", algos.join(" + ")), packed, auxiliary))
}

/// The weight dtypes of a Quark configuration: its global, per-layer and per-layer-type weight
/// specifications (`QConfig.to_dict`; vLLM `QuarkConfig.from_config`), each an object or, for
/// two-level quantization, a list.
fn quark_weight_dtypes(q: &Map<String, Value>) -> Result<Vec<String>, String> {
    let mut specs: Vec<&Value> = Vec::new();
    if let Some(global) = q.get("global_quant_config").filter(|g| !g.is_null()) {
        specs.push(global);
    }
    for key in ["layer_quant_config", "layer_type_quant_config"] {
        match q.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Object(layers)) => specs.extend(layers.values()),
            Some(other) => return Err(format!("quark {key} {other}")),
        }
    }
    let mut dtypes: Vec<String> = Vec::new();
    for spec in specs {
        let dtype = match spec.get("weight") {
            None | Some(Value::Null) => continue,
            Some(Value::Object(w)) => {
                let dtype = w.get("dtype").and_then(Value::as_str).unwrap_or("");
                let qscheme = w.get("qscheme").and_then(Value::as_str).unwrap_or("");
                let group = w.get("group_size").and_then(Value::as_u64);
                match (dtype, qscheme, group) {
                    ("fp4", "per_group", Some(32)) => "fp4".to_string(),
                    ("fp8_e4m3" | "fp8_e5m2", _, _) => "fp8".to_string(),
                    _ => return Err(format!("quark weight {dtype} {qscheme}")),
                }
            }
            Some(_) => return Err("quark two-level weight quantization".to_string()),
        };
        if !dtypes.contains(&dtype) {
            dtypes.push(dtype);
        }
    }
    Ok(dtypes)
}

/// AMD Quark: its MXFP4 export (U8 `weight` of two E2M1 values per byte beside a U8
/// `weight_scale` per 32) or its FP8 export (F8 `weight`, float parameters), KV-cache scales
/// included. Other element types, and FP4 and FP8 layers in one checkpoint, are not in the
/// table yet.
fn quark(q: &Map<String, Value>) -> Result<Entry, String> {
    let dtypes = quark_weight_dtypes(q)?;
    let packed = match dtypes.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["fp4"] => vec![nibbles(
            "weight",
            false,
            Some("weight_scale"),
            ("weight_scale", Fit::RowsAlike),
        )],
        ["fp8"] => Vec::new(),
        _ => return Err(format!("quark weights {}", dtypes.join(" + "))),
    };
    Ok((
        format!("quark {}", dtypes.join(" + ")),
        packed,
        QUARK_STATE.to_vec(),
    ))
}

/// The format of a configuration (DESIGN §10): its `quantization_config`'s `quant_method` and
/// the detail that decides the packing.
pub fn format_of(config: &Value) -> Format {
    let Some(q) = quantization_config(config) else {
        return Format::Plain;
    };
    if is_mlx(q) {
        return match mlx(q) {
            Ok(m) => Format::Mlx(m),
            Err(what) => Format::Unknown(what),
        };
    }
    let Some(method) = q.get("quant_method").and_then(Value::as_str) else {
        return Format::Unknown("a quantization_config without quant_method".to_string());
    };
    let entry: Result<Entry, String> = match method {
        "fp8" => Ok(("fp8".to_string(), Vec::new(), FLOAT_SCALES.to_vec())),
        "mxfp4" => Ok((
            "mxfp4".to_string(),
            vec![Packed {
                name: "*_blocks",
                dtype: "U8",
                numerator: 2,
                denominator: 1,
                exclusive: true,
                marker: None,
                scale: Some(("*_scales", Fit::Blocks)),
            }],
            vec!["*_scales"],
        )),
        "gptq" | "awq" => {
            let bits = uint(q, "bits").unwrap_or(0);
            let fit = if method == "gptq" {
                Fit::ColumnsAlike
            } else {
                Fit::LogicalColumns
            };
            packed_words("qweight", bits, fit, "scales")
                .map(|p| {
                    (
                        format!("{method} {bits}-bit"),
                        vec![p],
                        vec!["qzeros", "scales", "g_idx"],
                    )
                })
                .ok_or_else(|| format!("{method} of {bits} bits"))
        }
        "compressed-tensors" => compressed_tensors(q),
        "modelopt" => modelopt(q),
        "quark" => quark(q),
        "bitsandbytes" if q.get("load_in_4bit").and_then(Value::as_bool) == Some(true) => Ok((
            "bitsandbytes 4-bit".to_string(),
            vec![nibbles(
                "weight",
                false,
                Some("weight.absmax"),
                ("weight.absmax", Fit::Flattened),
            )],
            vec![
                "weight.absmax",
                "weight.quant_map",
                "weight.nested_absmax",
                "weight.nested_quant_map",
                "weight.quant_state.*",
            ],
        )),
        // LLM.int8: an I8 `weight` of one value each beside its `SCB` row scales.
        "bitsandbytes" if q.get("load_in_8bit").and_then(Value::as_bool) == Some(true) => Ok((
            "bitsandbytes 8-bit".to_string(),
            vec![Packed {
                name: "weight",
                dtype: "I8",
                numerator: 1,
                denominator: 1,
                exclusive: false,
                marker: Some("SCB"),
                scale: None,
            }],
            vec!["SCB", "weight_format"],
        )),
        other => Err(other.to_string()),
    };
    match entry {
        Ok((label, packed, auxiliary)) => Format::Known {
            label,
            packed,
            auxiliary,
        },
        Err(what) => Format::Unknown(what),
    }
}

/// Every name any format of the table gives its packed or auxiliary tensors (a reviewed
/// buffer name must be none of them): the format that names `name`, if one does.
pub(crate) fn format_naming(name: &str) -> Option<&'static str> {
    const PACKED: [(&str, &[Pattern]); 4] = [
        ("mxfp4", &["*_blocks"]),
        ("gptq/awq", &["qweight"]),
        ("compressed-tensors", &["weight_packed"]),
        ("fp8/modelopt", &["weight"]),
    ];
    // A buffer name is a tail: it names what a pattern names when a tensor could match both.
    PACKED
        .iter()
        .chain(STATE_NAMES.iter())
        .find_map(|(format, patterns)| {
            patterns
                .iter()
                .any(|p| matches(p, name) || matches(p, &format!("x.{name}")) || tail_of(p) == name)
                .then_some(*format)
        })
}

/// The fixed text of a pattern (`weight.quant_state.*` → `weight.quant_state`).
fn tail_of(pattern: Pattern) -> &'static str {
    pattern
        .strip_suffix(".*")
        .or_else(|| pattern.strip_prefix('*'))
        .unwrap_or(pattern)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patterns_match_trailing_components() {
        assert!(matches(
            "weight_scale",
            "model.layers.0.mlp.down_proj.weight_scale"
        ));
        assert!(matches("weight_scale", "weight_scale"));
        assert!(!matches(
            "weight_scale",
            "model.layers.0.mlp.down_proj.weight_scale_2"
        ));
        assert!(!matches("scale", "model.norm.weight_scale"));
        assert!(matches(
            "*_blocks",
            "model.layers.0.mlp.experts.down_proj_blocks"
        ));
        assert!(!matches("*_blocks", "model.layers.0._blocks"));
        assert!(matches(
            "weight.quant_state.*",
            "model.layers.0.mlp.up_proj.weight.quant_state.bitsandbytes__nf4"
        ));
        assert!(!matches(
            "weight.quant_state.*",
            "model.layers.0.weight.quant_state"
        ));
        assert!(matches(
            "weight.absmax",
            "model.layers.0.mlp.up_proj.weight.absmax"
        ));
    }

    #[test]
    fn the_format_is_read_at_the_top_level_else_under_text_config() {
        assert_eq!(format_of(&json!({})), Format::Plain);
        let nested = json!({"text_config": {"quantization_config": {"quant_method": "fp8"}}});
        assert!(matches!(format_of(&nested), Format::Known { ref label, .. } if label == "fp8"));
        assert!(has_quantization_config(&nested));
        let top = json!({"quantization_config": {"quant_method": "hqq"},
                         "text_config": {"quantization_config": {"quant_method": "fp8"}}});
        assert_eq!(format_of(&top), Format::Unknown("hqq".to_string()));
    }

    #[test]
    fn formats_the_table_does_not_hold_are_unknown() {
        for q in [
            json!({"quant_method": "gptq", "bits": 3}),
            json!({"quant_method": "awq"}),
            json!({"quant_method": "bitsandbytes"}),
            json!({"quant_method": "modelopt", "quant_algo": "W4A8_AWQ"}),
            json!({"quant_method": "compressed-tensors", "config_groups": {"g": {"format": "marlin-24",
                "weights": {"num_bits": 4, "type": "int"}}}}),
            json!({"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": null}}}),
            json!({"bits": 4}),
        ] {
            let format = format_of(&json!({"quantization_config": q}));
            assert!(matches!(format, Format::Unknown(_)), "{q}: {format:?}");
        }
    }

    #[test]
    fn state_names_are_every_writers_and_loaders() {
        for name in [
            "m.self_attn.k_proj.output_scale",
            "m.self_attn.prob_output_scale",
            "m.self_attn.kv_scale",
            "m.o_proj.bias_zero_point",
            "m.o_proj.output_zero_point_2",
            "m.o_proj.input_rotation",
            "m.o_proj.biases",
            "m.experts.gate_up_proj_weight_scale",
            "m.down_proj.pre_quant_scale",
            "m.down_proj.weight_global_scale",
            "m.down_proj.input_g_idx",
        ] {
            assert!(is_state_name(name), "{name}");
        }
        // Names models give plain parameters stay out of the union (modelopt names `k_bias`
        // as its own state only).
        for name in [
            "vision.blocks.0.attn.q_bias",
            "vision.blocks.0.attn.v_bias",
            "m.o_proj.bias",
            "vision.blocks.0.layer_scale",
            "logit_scale",
            "m.weight",
        ] {
            assert!(!is_state_name(name), "{name}");
        }
    }

    #[test]
    fn mlx_is_read_from_either_key_with_its_per_module_entries() {
        let q = json!({"group_size": 64, "bits": 4, "mode": "affine",
                       "model.layers.0.mlp.gate": {"group_size": 64, "bits": 8},
                       "model.norm": false});
        for config in [
            json!({"quantization": q.clone(), "quantization_config": q.clone()}),
            json!({"quantization": q.clone()}),
        ] {
            let Format::Mlx(m) = format_of(&config) else {
                panic!("{config}");
            };
            assert_eq!(m.name(), "mlx-affine");
            assert_eq!(
                m.of_module("model.layers.0.mlp.gate").map(|q| q.bits),
                Some(8)
            );
            assert_eq!(m.of_module("model.norm"), None);
            assert_eq!(m.of_module("lm_head"), Some(m.global));
        }
        for bad in [
            json!({"group_size": 64, "bits": 7}),
            json!({"group_size": 48, "bits": 4}),
            json!({"group_size": 16, "bits": 4, "mode": "mxfp4"}),
            json!({"group_size": 64, "bits": 4, "mode": "int4"}),
            json!({"group_size": 64, "bits": 4, "x": 1}),
        ] {
            let format = format_of(&json!({ "quantization_config": bad }));
            assert!(matches!(format, Format::Unknown(_)), "{format:?}");
        }
        // A top-level `quantization` of another shape is not a declaration.
        assert_eq!(
            format_of(&json!({"quantization": {"bits": 4}})),
            Format::Plain
        );
    }

    #[test]
    fn buffer_names_that_a_format_names_are_found() {
        for name in [
            "weight_scale",
            "weight",
            "qweight",
            "gate_up_proj_blocks",
            "weight.absmax",
            "weight.quant_state",
            "weight_packed",
            "input_global_scale",
        ] {
            assert!(format_naming(name).is_some(), "{name}");
        }
        for name in ["position_ids", "rotary_emb.inv_freq", "bias"] {
            assert_eq!(format_naming(name), None, "{name}");
        }
    }
}
