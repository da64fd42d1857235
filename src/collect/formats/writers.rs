//! The formats whose table entry depends on their configuration's details: compressed-tensors
//! (each weight group's format and bits), NVIDIA ModelOpt (its algorithm) and AMD Quark (its
//! export's weight dtypes): each gives its packed parameters and auxiliary names as its writer
//! writes them.

use serde_json::{Map, Value};

use super::state_names::{CT_STATE, FLOAT_SCALES, MODELOPT_STATE, QUARK_STATE};
use super::{nibbles, packed_words, Entry, Fit, Packed, Pattern};

/// compressed-tensors: the format of each weight group (`config_groups[*].format`, else the
/// top-level `format`); every group must be one the table holds.
pub(super) fn compressed_tensors(q: &Map<String, Value>) -> Result<Entry, String> {
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
pub(super) fn modelopt(q: &Map<String, Value>) -> Result<Entry, String> {
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
pub(super) fn quark(q: &Map<String, Value>) -> Result<Entry, String> {
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
