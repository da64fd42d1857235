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

mod mlx;
mod state_names;
mod writers;

use mlx::{is_mlx, mlx};
pub use mlx::{Mlx, MlxMode, MlxQuant};
use state_names::FLOAT_SCALES;
pub(crate) use state_names::{is_state_name, STATE_NAMES};
use writers::{compressed_tensors, modelopt, quark};

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

/// Whether the configuration holds a `quantization_config` at all (an object, top level or
/// `text_config`'s), whatever it says.
pub(crate) fn has_quantization_config(config: &Value) -> bool {
    quantization_config(config).is_some()
}

fn uint(q: &Map<String, Value>, key: &str) -> Option<u128> {
    q.get(key).and_then(Value::as_u64).map(u128::from)
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
