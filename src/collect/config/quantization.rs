//! The quantization of a configuration: its method and weight bit width, and the `bits` that
//! counting packed I32 `qweight` tensors needs.

use serde_json::{Map, Value};

/// The top-level `quantization_config` object, when there is one.
fn quantization_config(config: &Value) -> Option<&Map<String, Value>> {
    config.get("quantization_config")?.as_object()
}

fn bits_u32(value: Option<&Value>) -> Option<u32> {
    value
        .and_then(Value::as_u64)
        .and_then(|b| u32::try_from(b).ok())
        .filter(|&b| b > 0)
}

/// The quantization of a config (top-level `quantization_config`): `Some((quant_method, bit
/// width))` with `fp8` 8, `mxfp4` 4, `awq`/`gptq` their `bits`, `compressed-tensors` the
/// `num_bits` shared by the weights of all `config_groups` (groups without weights are
/// ignored; disagreeing or no weight groups → `None`), `bitsandbytes` 4 if `load_in_4bit` is
/// true else 8; any other method → `None`.
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

/// `quantization_config.bits` (top level) for counting I32 `qweight` tensors.
pub(crate) fn qweight_bits(config: &Value) -> Option<u32> {
    bits_u32(quantization_config(config)?.get("bits"))
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
    fn qweight_bits_reads_the_top_level() {
        let config = json!({"quantization_config": {"quant_method": "gptq", "bits": 4}});
        assert_eq!(qweight_bits(&config), Some(4));
        assert_eq!(qweight_bits(&json!({})), None);
        assert_eq!(
            qweight_bits(&json!({"text_config": {"quantization_config": {"bits": 4}}})),
            None
        );
    }
}
