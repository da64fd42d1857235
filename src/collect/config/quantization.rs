//! The quantization of a configuration as a candidate of the smallest official quantization
//! (DESIGN §10): its method and the weight bit width it claims. (How its tensors are packed is
//! `formats`'; the bit width stated is the tensors', checked against this claim: amended
//! 2026-11-28.)

use serde_json::Value;

use super::super::formats::{format_of, quantization_config, Format};

/// The quantization a configuration declares: the format's name (the `quant_method`; for MLX,
/// which has none, `mlx-` and its mode) and the bit width it claims (`None` where the format
/// leaves that to the tensors: AMD Quark). `None` for a plain configuration and for a method
/// or detail the table does not hold.
pub(crate) fn claim(config: &Value) -> Option<(String, Option<u32>)> {
    match format_of(config) {
        Format::Mlx(m) => Some((m.name(), u32::try_from(m.global.bits).ok())),
        Format::Known { .. }
            if quantization_config(config)?.get("quant_method")?.as_str()? == "quark" =>
        {
            Some(("quark".to_string(), None))
        }
        _ => quantization(config).map(|(method, bits)| (method, Some(bits))),
    }
}

fn bits_u32(value: Option<&Value>) -> Option<u32> {
    value
        .and_then(Value::as_u64)
        .and_then(|b| u32::try_from(b).ok())
        .filter(|&b| b > 0)
}

/// The quantization of a config (`quantization_config` at the top level, else `text_config`'s):
/// `Some((quant_method, bit width))` with `fp8` 8, `mxfp4` 4, `awq`/`gptq` their `bits`,
/// `compressed-tensors` the `num_bits` shared by the weights of all `config_groups` (groups
/// without weights are ignored; disagreeing or no weight groups → `None`), `bitsandbytes` 4 if
/// `load_in_4bit` is true else 8, `modelopt` 4 for `NVFP4` and 8 for `FP8` (its `quant_algo`,
/// top level or under `quantization`); any other method or algorithm → `None`.
pub(crate) fn quantization(config: &Value) -> Option<(String, u32)> {
    let q = quantization_config(config)?;
    let method = q.get("quant_method")?.as_str()?;
    let bits = match method {
        "fp8" => 8,
        "mxfp4" => 4,
        "awq" | "gptq" => bits_u32(q.get("bits"))?,
        "compressed-tensors" => {
            let groups = q.get("config_groups")?.as_object()?;
            let mut shared: Option<u32> = None;
            for group in groups.values() {
                let weights = match group.get("weights") {
                    None | Some(Value::Null) => continue,
                    Some(weights) => weights,
                };
                let bits = bits_u32(weights.get("num_bits"))?;
                if shared.is_some_and(|s| s != bits) {
                    return None;
                }
                shared = Some(bits);
            }
            shared?
        }
        "modelopt" => {
            let algo = q
                .get("quant_algo")
                .or_else(|| q.get("quantization")?.get("quant_algo"))
                .and_then(Value::as_str)?;
            match algo {
                "NVFP4" => 4,
                "FP8" => 8,
                _ => return None,
            }
        }
        "bitsandbytes" => {
            if q.get("load_in_4bit").and_then(Value::as_bool) == Some(true) {
                4
            } else {
                8
            }
        }
        _ => return None,
    };
    Some((method.to_string(), bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LLAMA_31_8B: &[u8] = include_bytes!(
        "../../../tests/fixtures/huggingface/meta-llama__Meta-Llama-3.1-8B/config.json"
    );

    fn load(bytes: &[u8]) -> Value {
        super::super::parse_config(bytes).expect("fixture config parses")
    }

    #[test]
    fn quantization_methods() {
        let q = |quantization_config: Value| {
            quantization(&json!({"quantization_config": quantization_config}))
        };
        assert_eq!(
            q(json!({"quant_method": "awq", "bits": 4, "group_size": 128})),
            Some(("awq".to_string(), 4))
        );
        assert_eq!(
            q(json!({"quant_method": "gptq", "bits": 8})),
            Some(("gptq".to_string(), 8))
        );
        assert_eq!(q(json!({"quant_method": "gptq"})), None);
        assert_eq!(
            q(json!({"quant_method": "bitsandbytes", "load_in_4bit": true, "load_in_8bit": false})),
            Some(("bitsandbytes".to_string(), 4))
        );
        assert_eq!(
            q(json!({"quant_method": "bitsandbytes", "load_in_4bit": false, "load_in_8bit": true})),
            Some(("bitsandbytes".to_string(), 8))
        );
        assert_eq!(
            q(json!({"quant_method": "bitsandbytes"})),
            Some(("bitsandbytes".to_string(), 8))
        );
        assert_eq!(q(json!({"quant_method": "hqq", "bits": 4})), None);
        assert_eq!(q(json!({"bits": 4})), None);
        assert_eq!(quantization(&json!({"quantization_config": null})), None);
        assert_eq!(quantization(&load(LLAMA_31_8B)), None);
    }

    #[test]
    fn mlx_claims_its_bits_and_quark_leaves_them_to_the_tensors() {
        let mlx = json!({"quantization": {"group_size": 64, "bits": 4, "mode": "affine"},
                         "quantization_config": {"group_size": 64, "bits": 4, "mode": "affine"}});
        assert_eq!(claim(&mlx), Some(("mlx-affine".to_string(), Some(4))));
        // Before 2024-09-04 mlx-lm wrote only `quantization`, without a mode: affine.
        let old = json!({"quantization": {"group_size": 32, "bits": 8}});
        assert_eq!(claim(&old), Some(("mlx-affine".to_string(), Some(8))));
        let fp = json!({"quantization_config": {"group_size": 32, "bits": 4, "mode": "mxfp4"}});
        assert_eq!(claim(&fp), Some(("mlx-mxfp4".to_string(), Some(4))));
        // A mode and size the writer cannot write is no claim.
        let bad = json!({"quantization_config": {"group_size": 64, "bits": 4, "mode": "mxfp4"}});
        assert_eq!(claim(&bad), None);
        let quark = json!({"quantization_config": {"quant_method": "quark",
            "global_quant_config": {"weight": {"dtype": "fp8_e4m3", "qscheme": "per_tensor"}}}});
        assert_eq!(claim(&quark), Some(("quark".to_string(), None)));
        assert_eq!(
            claim(&json!({"quantization_config": {"quant_method": "fp8"}})),
            Some(("fp8".to_string(), Some(8)))
        );
        assert_eq!(claim(&json!({"quantization": {"bits": 4}})), None);
    }

    #[test]
    fn compressed_tensors_bits_must_agree() {
        let q = |groups: Value| {
            quantization(&json!({"quantization_config": {
                "quant_method": "compressed-tensors",
                "config_groups": groups
            }}))
        };
        let w = |bits: u64| json!({"weights": {"num_bits": bits, "type": "int"}, "targets": ["Linear"]});
        assert_eq!(
            q(json!({"group_0": w(4), "group_1": w(4)})),
            Some(("compressed-tensors".to_string(), 4))
        );
        assert_eq!(q(json!({"group_0": w(4), "group_1": w(8)})), None);
        assert_eq!(q(json!({})), None);
        assert_eq!(
            q(
                json!({"group_0": w(8), "kv": {"weights": null, "input_activations": {"num_bits": 8}}})
            ),
            Some(("compressed-tensors".to_string(), 8))
        );
        assert_eq!(q(json!({"group_0": {"weights": {"type": "int"}}})), None);
    }

    #[test]
    fn quantization_is_read_under_text_config_too() {
        // Kimi-K2.5 keeps its quantization_config in text_config.
        let nested = json!({"text_config": {"quantization_config": {
            "quant_method": "compressed-tensors", "format": "pack-quantized",
            "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int"}}}}}});
        assert_eq!(
            quantization(&nested),
            Some(("compressed-tensors".to_string(), 4))
        );
    }

    #[test]
    fn modelopt_nvfp4_and_fp8_are_candidates() {
        let q = |q: Value| quantization(&json!({"quantization_config": q}));
        assert_eq!(
            q(json!({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16})),
            Some(("modelopt".to_string(), 4))
        );
        assert_eq!(
            q(json!({"quant_method": "modelopt", "quantization": {"quant_algo": "FP8"}})),
            Some(("modelopt".to_string(), 8))
        );
        assert_eq!(
            q(json!({"quant_method": "modelopt", "quant_algo": "W4A8_AWQ"})),
            None
        );
        assert_eq!(q(json!({"quant_method": "modelopt"})), None);
    }
}
