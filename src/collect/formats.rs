//! Checkpoint formats (DESIGN §10, "Parameters", amended 2026-11-27): the format a
//! configuration's `quantization_config` declares, and what each format's writer names: its
//! packed parameters (how many logical values one stored element holds) and its auxiliary
//! tensors (scales, zero points, group indices, quantization state). The table is what the
//! writers' code showed on 2026-11-27 (pinned in docs/decisions.md); a format or a detail it
//! does not hold is not guessed: the checkpoint's size facts are then unknown.

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
    /// A `quantization_config` the table does not hold (what was read).
    Unknown(String),
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Format::Plain => f.write_str("plain (no quantization_config)"),
            Format::Known { label, .. } => f.write_str(label),
            Format::Unknown(what) => write!(f, "{what} (not a format the rules know)"),
        }
    }
}

/// The `quantization_config` object of a configuration: the top level's, else `text_config`'s.
pub(crate) fn quantization_config(config: &Value) -> Option<&Map<String, Value>> {
    match config.get("quantization_config") {
        Some(Value::Object(q)) => Some(q),
        _ => config
            .get("text_config")?
            .get("quantization_config")?
            .as_object(),
    }
}

/// Whether the configuration holds a `quantization_config` at all (an object, top level or
/// `text_config`'s), whatever it says.
pub(crate) fn has_quantization_config(config: &Value) -> bool {
    quantization_config(config).is_some()
}

fn uint(q: &Map<String, Value>, key: &str) -> Option<u128> {
    q.get(key).and_then(Value::as_u64).map(u128::from)
}

const FLOAT_SCALES: [Pattern; 6] = [
    "weight_scale_inv",
    "weight_scale",
    "input_scale",
    "k_scale",
    "v_scale",
    "q_scale",
];

/// The auxiliary names of compressed-tensors' int-quantized writer.
const INT_QUANTIZED_AUX: [Pattern; 7] = [
    "weight_scale",
    "weight_zero_point",
    "input_scale",
    "input_zero_point",
    "k_scale",
    "v_scale",
    "q_scale",
];

/// The auxiliary names of the integer formats of compressed-tensors' pack-quantized writer.
const PACK_QUANTIZED_AUX: [Pattern; 7] = [
    "weight_scale",
    "weight_zero_point",
    "weight_g_idx",
    "weight_shape",
    "k_scale",
    "v_scale",
    "q_scale",
];

/// The auxiliary names of compressed-tensors' FP4 pack writers.
const FP4_PACK_AUX: [Pattern; 6] = [
    "weight_scale",
    "weight_global_scale",
    "input_global_scale",
    "k_scale",
    "v_scale",
    "q_scale",
];

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
                &PACK_QUANTIZED_AUX,
            ),
            ("nvfp4-pack-quantized" | "mxfp4-pack-quantized", "float", Some(4)) => (
                format!("compressed-tensors {format}"),
                Some(nibbles(
                    "weight_packed",
                    true,
                    None,
                    ("weight_scale", Fit::RowsAlike),
                )),
                &FP4_PACK_AUX,
            ),
            ("float-quantized", "float", Some(8)) => (
                "compressed-tensors float-quantized 8-bit".to_string(),
                None,
                &FLOAT_SCALES,
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
                &INT_QUANTIZED_AUX,
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

/// The format of a configuration (DESIGN §10): its `quantization_config`'s `quant_method` and
/// the detail that decides the packing.
pub fn format_of(config: &Value) -> Format {
    let Some(q) = quantization_config(config) else {
        return Format::Plain;
    };
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
    const NAMED: [(&str, &[Pattern]); 8] = [
        ("mxfp4", &["*_blocks", "*_scales"]),
        ("gptq/awq", &["qweight", "qzeros", "scales", "g_idx"]),
        ("compressed-tensors", &PACK_QUANTIZED_AUX),
        (
            "compressed-tensors",
            &["weight_packed", "weight_global_scale", "input_global_scale"],
        ),
        (
            "fp8/modelopt",
            &[
                "weight",
                "weight_scale_inv",
                "weight_scale_2",
                "input_scale",
                "q_scale",
            ],
        ),
        ("bitsandbytes 8-bit", &["SCB", "weight_format"]),
        ("compressed-tensors", &["input_zero_point"]),
        (
            "bitsandbytes",
            &[
                "weight.absmax",
                "weight.quant_map",
                "weight.nested_absmax",
                "weight.nested_quant_map",
                "weight.quant_state.*",
            ],
        ),
    ];
    // A buffer name is a tail: it names what a pattern names when a tensor could match both.
    NAMED.iter().find_map(|(format, patterns)| {
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
