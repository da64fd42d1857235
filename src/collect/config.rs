//! `config.json`: reading a Python-written model configuration and computing the facts it gives
//! (DESIGN §10, "Architecture and attention" and the quantization bit widths).

use serde_json::{Map, Value};

/// Reason code: a key a formula needs is missing (or unusable).
pub const CONFIG_KEY_MISSING: &str = "config_key_missing";
/// Reason code: the attention layout is outside what the formulas describe.
pub const ATTENTION_LAYOUT_NOT_SUPPORTED: &str = "attention_layout_not_supported";

/// Parses `config.json` bytes written by Python: the bare tokens `NaN`, `Infinity` and
/// `-Infinity` outside strings are read as `null` (no fact needs their values). Returns the
/// configuration (a JSON object) or an error message.
pub fn parse_config(bytes: &[u8]) -> Result<Value, String> {
    let cleaned = replace_non_finite(bytes);
    let value: Value =
        serde_json::from_slice(&cleaned).map_err(|e| format!("config.json is not JSON: {e}"))?;
    if value.is_object() {
        Ok(value)
    } else {
        Err("config.json is not a JSON object".to_string())
    }
}

/// Copies `bytes`, replacing `NaN`, `Infinity` and `-Infinity` outside strings with `null`.
/// Strings (with their escapes) are copied unchanged.
fn replace_non_finite(bytes: &[u8]) -> Vec<u8> {
    const TOKENS: [&[u8]; 3] = [b"-Infinity", b"Infinity", b"NaN"];
    let mut out = Vec::with_capacity(bytes.len());
    let mut in_string = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if in_string {
            out.push(b);
            match b {
                b'\\' => {
                    if let Some(&escaped) = bytes.get(i + 1) {
                        out.push(escaped);
                    }
                    i += 2;
                    continue;
                }
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            out.push(b);
            i += 1;
            continue;
        }
        let rest = bytes.get(i..).unwrap_or_default();
        if let Some(token) = TOKENS.iter().find(|t| rest.starts_with(t)) {
            out.extend_from_slice(b"null");
            i += token.len();
            continue;
        }
        out.push(b);
        i += 1;
    }
    out
}

/// The outcome of one computed fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The fact's value: a plain decimal integer, or the architecture name.
    Value(String),
    /// No value, with the reason code ([`CONFIG_KEY_MISSING`] or
    /// [`ATTENTION_LAYOUT_NOT_SUPPORTED`]); the state is `not_found_under_policy`.
    NotFound(&'static str),
}

/// The facts `config.json` gives, and the expert counts active parameters need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFacts {
    /// The top-level `model_type`.
    pub architecture_type: Outcome,
    /// 16-bit KV-cache bytes per token of the full-attention (or MLA) layers.
    pub attention_bytes_per_token: Outcome,
    /// 16-bit KV-cache bytes of one sequence of `calculation_sequence_length` tokens.
    pub full_sequence_attention_bytes: Outcome,
    /// 16-bit recurrent state bytes of the Mamba2 and linear-attention layers.
    pub recurrent_state_bytes: Outcome,
    /// T = `max_position_embeddings`.
    pub calculation_sequence_length: Outcome,
    /// E = `n_routed_experts` | `num_experts` | `num_local_experts`.
    pub experts: Option<u64>,
    /// k = `num_experts_per_tok`.
    pub experts_per_token: Option<u64>,
}

/// A computed figure, or the reason code when there is none.
type Figure = Result<u128, &'static str>;

/// The keys of the configuration the formulas read: `text_config` when the top level lacks
/// `num_hidden_layers` and has a `text_config` object, else the top level.
fn model_keys(top: &Map<String, Value>) -> &Map<String, Value> {
    if top.contains_key("num_hidden_layers") {
        return top;
    }
    match top.get("text_config") {
        Some(Value::Object(text)) => text,
        _ => top,
    }
}

/// A key's value, with JSON `null` counting as absent.
fn present<'a>(keys: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    keys.get(key).filter(|v| !v.is_null())
}

/// A non-negative integer key; absent, null or not a non-negative integer → `config_key_missing`.
fn uint(keys: &Map<String, Value>, key: &str) -> Figure {
    present(keys, key)
        .and_then(Value::as_u64)
        .map(u128::from)
        .ok_or(CONFIG_KEY_MISSING)
}

/// Checked product; overflow counts as an unusable key (`config_key_missing`).
fn product(factors: &[u128]) -> Figure {
    factors
        .iter()
        .try_fold(1u128, |acc, &f| acc.checked_mul(f))
        .ok_or(CONFIG_KEY_MISSING)
}

fn sum(a: u128, b: u128) -> Figure {
    a.checked_add(b).ok_or(CONFIG_KEY_MISSING)
}

/// head_dim = `head_dim` | `attention_head_dim` | `hidden_size / num_attention_heads` (exact).
fn head_dim(keys: &Map<String, Value>) -> Figure {
    for key in ["head_dim", "attention_head_dim"] {
        if present(keys, key).is_some() {
            return uint(keys, key);
        }
    }
    let hidden = uint(keys, "hidden_size")?;
    let heads = uint(keys, "num_attention_heads")?;
    if heads == 0 || hidden % heads != 0 {
        return Err(CONFIG_KEY_MISSING);
    }
    Ok(hidden / heads)
}

/// n_kv = `num_key_value_heads`, default `num_attention_heads`.
fn kv_heads(keys: &Map<String, Value>) -> Figure {
    if present(keys, "num_key_value_heads").is_some() {
        uint(keys, "num_key_value_heads")
    } else {
        uint(keys, "num_attention_heads")
    }
}

/// How many layers of each kind the model has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Layout {
    full: u128,
    sliding: u128,
    linear: u128,
    mamba: u128,
}

/// The layer kinds: `layer_types`, else `hybrid_override_pattern`, else
/// `full_attention_interval`, else all `num_hidden_layers` full attention.
fn layout(keys: &Map<String, Value>) -> Result<Layout, &'static str> {
    let mut layout = Layout::default();
    if let Some(types) = present(keys, "layer_types") {
        let types = types.as_array().ok_or(ATTENTION_LAYOUT_NOT_SUPPORTED)?;
        for kind in types {
            match kind.as_str() {
                Some("full_attention") => layout.full += 1,
                Some("sliding_attention") => layout.sliding += 1,
                Some("linear_attention") => layout.linear += 1,
                _ => return Err(ATTENTION_LAYOUT_NOT_SUPPORTED),
            }
        }
        if u128::try_from(types.len()).ok() != Some(uint(keys, "num_hidden_layers")?) {
            return Err(ATTENTION_LAYOUT_NOT_SUPPORTED);
        }
    } else if let Some(pattern) = present(keys, "hybrid_override_pattern") {
        let pattern = pattern.as_str().ok_or(ATTENTION_LAYOUT_NOT_SUPPORTED)?;
        let mut length: u128 = 0;
        for kind in pattern.chars() {
            match kind {
                '*' => layout.full += 1,
                'M' => layout.mamba += 1,
                '-' => {}
                _ => return Err(ATTENTION_LAYOUT_NOT_SUPPORTED),
            }
            length += 1;
        }
        if length != uint(keys, "num_hidden_layers")? {
            return Err(ATTENTION_LAYOUT_NOT_SUPPORTED);
        }
    } else if let Some(interval) = present(keys, "full_attention_interval") {
        let interval = interval
            .as_u64()
            .filter(|&i| i > 0)
            .map(u128::from)
            .ok_or(ATTENTION_LAYOUT_NOT_SUPPORTED)?;
        let layers = uint(keys, "num_hidden_layers")?;
        // Layer j (0-based) is full when (j + 1) mod i = 0: floor(layers / i) of them.
        layout.full = layers / interval;
        layout.linear = layers - layout.full;
    } else {
        let sliding_enabled = !matches!(keys.get("use_sliding_window"), Some(Value::Bool(false)));
        if present(keys, "sliding_window").is_some() && sliding_enabled {
            return Err(ATTENTION_LAYOUT_NOT_SUPPORTED);
        }
        layout.full = uint(keys, "num_hidden_layers")?;
    }
    Ok(layout)
}

/// 2 × n_kv × head_dim × 2: the 16-bit K and V bytes one token takes in one layer.
fn kv_bytes_per_layer_token(keys: &Map<String, Value>) -> Figure {
    product(&[2, kv_heads(keys)?, head_dim(keys)?, 2])
}

/// `attention_bytes_per_token`: MLA `num_hidden_layers × (kv_lora_rank + qk_rope_head_dim) × 2`,
/// else `2 × F × n_kv × head_dim × 2` (0 without full layers, needing no key).
fn attention_bytes_per_token(keys: &Map<String, Value>, layout: &Layout) -> Figure {
    if present(keys, "kv_lora_rank").is_some() {
        let layers = uint(keys, "num_hidden_layers")?;
        let latent = sum(uint(keys, "kv_lora_rank")?, uint(keys, "qk_rope_head_dim")?)?;
        return product(&[layers, latent, 2]);
    }
    if layout.full == 0 {
        return Ok(0);
    }
    product(&[layout.full, kv_bytes_per_layer_token(keys)?])
}

/// `full_sequence_attention_bytes` = per token × T + 2 × S × n_kv × head_dim × 2 ×
/// min(`sliding_window`, T) (the sliding term is 0 without sliding layers, needing no key).
fn full_sequence_attention_bytes(
    keys: &Map<String, Value>,
    layout: &Layout,
    per_token: Figure,
) -> Figure {
    let t = uint(keys, "max_position_embeddings")?;
    let full = product(&[per_token?, t])?;
    if layout.sliding == 0 {
        return Ok(full);
    }
    let window = uint(keys, "sliding_window")?.min(t);
    let sliding = product(&[layout.sliding, kv_bytes_per_layer_token(keys)?, window])?;
    sum(full, sliding)
}

/// One Mamba2 layer's state elements, as vLLM sizes them.
fn mamba2_layer_elements(keys: &Map<String, Value>) -> Figure {
    let conv_kernel = uint(keys, "conv_kernel")?;
    let heads = uint(keys, "mamba_num_heads")?;
    let head_dim = uint(keys, "mamba_head_dim")?;
    let groups = uint(keys, "n_groups")?;
    let state = uint(keys, "ssm_state_size")?;
    let inner = product(&[heads, head_dim])?;
    let conv_channels = sum(inner, product(&[2, groups, state])?)?;
    let conv = product(&[
        conv_kernel.checked_sub(1).ok_or(CONFIG_KEY_MISSING)?,
        conv_channels,
    ])?;
    sum(conv, product(&[inner, state])?)
}

/// One Gated DeltaNet (linear attention) layer's state elements, as vLLM sizes them.
fn gated_delta_net_layer_elements(keys: &Map<String, Value>) -> Figure {
    let conv_kernel = uint(keys, "linear_conv_kernel_dim")?;
    let key_head_dim = uint(keys, "linear_key_head_dim")?;
    let key_heads = uint(keys, "linear_num_key_heads")?;
    let value_head_dim = uint(keys, "linear_value_head_dim")?;
    let value_heads = uint(keys, "linear_num_value_heads")?;
    let conv_channels = sum(
        product(&[2, key_head_dim, key_heads])?,
        product(&[value_head_dim, value_heads])?,
    )?;
    let conv = product(&[
        conv_kernel.checked_sub(1).ok_or(CONFIG_KEY_MISSING)?,
        conv_channels,
    ])?;
    sum(conv, product(&[value_heads, value_head_dim, key_head_dim])?)
}

/// `recurrent_state_bytes` = 2 × the state elements of all recurrent layers (0 without any).
fn recurrent_state_bytes(keys: &Map<String, Value>, layout: &Layout) -> Figure {
    let mut elements = 0;
    if layout.mamba > 0 {
        elements = sum(
            elements,
            product(&[layout.mamba, mamba2_layer_elements(keys)?])?,
        )?;
    }
    if layout.linear > 0 {
        elements = sum(
            elements,
            product(&[layout.linear, gated_delta_net_layer_elements(keys)?])?,
        )?;
    }
    product(&[2, elements])
}

fn outcome(figure: Figure) -> Outcome {
    match figure {
        Ok(value) => Outcome::Value(value.to_string()),
        Err(reason) => Outcome::NotFound(reason),
    }
}

/// The facts of one configuration (DESIGN §10, "Architecture and attention"). Keys are read
/// from `text_config` when the top level lacks `num_hidden_layers` (`model_type` always from
/// the top level). An unsupported layout gives `attention_layout_not_supported` to the three
/// cache facts; a missing key gives `config_key_missing` to the facts that need it.
pub fn config_facts(config: &Value) -> ConfigFacts {
    let empty = Map::new();
    let top = config.as_object().unwrap_or(&empty);
    let keys = model_keys(top);

    let architecture_type = match top.get("model_type").and_then(Value::as_str) {
        Some(name) if !name.is_empty() => Outcome::Value(name.to_string()),
        _ => Outcome::NotFound(CONFIG_KEY_MISSING),
    };
    let sequence_length = uint(keys, "max_position_embeddings");
    let (per_token, full_sequence, recurrent) = match layout(keys) {
        Err(reason) => (Err(reason), Err(reason), Err(reason)),
        Ok(layout) => {
            let per_token = attention_bytes_per_token(keys, &layout);
            (
                per_token,
                full_sequence_attention_bytes(keys, &layout, per_token),
                recurrent_state_bytes(keys, &layout),
            )
        }
    };
    let experts = ["n_routed_experts", "num_experts", "num_local_experts"]
        .iter()
        .find_map(|key| present(keys, key))
        .and_then(Value::as_u64);
    ConfigFacts {
        architecture_type,
        attention_bytes_per_token: outcome(per_token),
        full_sequence_attention_bytes: outcome(full_sequence),
        recurrent_state_bytes: outcome(recurrent),
        calculation_sequence_length: outcome(sequence_length),
        experts,
        experts_per_token: present(keys, "num_experts_per_tok").and_then(Value::as_u64),
    }
}

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
pub fn quantization(config: &Value) -> Option<(String, u32)> {
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
pub fn qweight_bits(config: &Value) -> Option<u32> {
    bits_u32(quantization_config(config)?.get("bits"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LLAMA_31_8B: &[u8] = include_bytes!(
        "../../tests/fixtures/huggingface/meta-llama__Meta-Llama-3.1-8B/config.json"
    );
    const LLAMA_33_70B: &[u8] = include_bytes!(
        "../../tests/fixtures/huggingface/meta-llama__Llama-3.3-70B-Instruct/config.json"
    );
    const DEEPSEEK_V3: &[u8] =
        include_bytes!("../../tests/fixtures/huggingface/deepseek-ai__DeepSeek-V3/config.json");
    const QWEN3_235B: &[u8] =
        include_bytes!("../../tests/fixtures/huggingface/Qwen__Qwen3-235B-A22B/config.json");
    const GPT_OSS_120B: &[u8] =
        include_bytes!("../../tests/fixtures/huggingface/openai__gpt-oss-120b/config.json");
    const QWEN3_NEXT: &[u8] = include_bytes!(
        "../../tests/fixtures/huggingface/Qwen__Qwen3-Next-80B-A3B-Thinking/config.json"
    );

    fn load(bytes: &[u8]) -> Value {
        parse_config(bytes).expect("fixture config parses")
    }

    fn value(text: &str) -> Outcome {
        Outcome::Value(text.to_string())
    }

    const MISSING: Outcome = Outcome::NotFound(CONFIG_KEY_MISSING);
    const UNSUPPORTED: Outcome = Outcome::NotFound(ATTENTION_LAYOUT_NOT_SUPPORTED);

    /// A copy of `config` with `key` set (or removed when `new` is `None`) at the top level.
    fn with(config: &Value, key: &str, new: Option<Value>) -> Value {
        let mut config = config.clone();
        let object = config.as_object_mut().expect("config is an object");
        match new {
            Some(v) => {
                object.insert(key.to_string(), v);
            }
            None => {
                object.remove(key);
            }
        }
        config
    }

    #[test]
    fn llama_31_8b() {
        // 32 layers, 8 KV heads, head_dim 4096 / 32 = 128: 2 × 32 × 8 × 128 × 2 = 131,072.
        let facts = config_facts(&load(LLAMA_31_8B));
        assert_eq!(facts.architecture_type, value("llama"));
        assert_eq!(facts.attention_bytes_per_token, value("131072"));
        // 131,072 B/token × 131,072 tokens = 2^34.
        assert_eq!(facts.full_sequence_attention_bytes, value("17179869184"));
        assert_eq!(facts.recurrent_state_bytes, value("0"));
        assert_eq!(facts.calculation_sequence_length, value("131072"));
        assert_eq!((facts.experts, facts.experts_per_token), (None, None));
    }

    #[test]
    fn llama_33_70b() {
        // 80 layers, 8 KV heads, head_dim 8192 / 64 = 128: 2 × 80 × 8 × 128 × 2 = 327,680.
        let facts = config_facts(&load(LLAMA_33_70B));
        assert_eq!(facts.attention_bytes_per_token, value("327680"));
        // 327,680 × 131,072 = 5 × 2^16 × 2^17 = 5 × 2^33.
        assert_eq!(facts.full_sequence_attention_bytes, value("42949672960"));
        assert_eq!(facts.recurrent_state_bytes, value("0"));
    }

    #[test]
    fn deepseek_v3_mla() {
        // MLA: 61 layers × (kv_lora_rank 512 + qk_rope_head_dim 64) × 2 = 70,272.
        let config = load(DEEPSEEK_V3);
        let facts = config_facts(&config);
        assert_eq!(facts.architecture_type, value("deepseek_v3"));
        assert_eq!(facts.attention_bytes_per_token, value("70272"));
        // 70,272 × 163,840 = 11,468,800,000 + 44,564,480.
        assert_eq!(facts.full_sequence_attention_bytes, value("11513364480"));
        assert_eq!(facts.recurrent_state_bytes, value("0"));
        assert_eq!(facts.calculation_sequence_length, value("163840"));
        assert_eq!(
            (facts.experts, facts.experts_per_token),
            (Some(256), Some(8))
        );
        assert_eq!(quantization(&config), Some(("fp8".to_string(), 8)));
        assert_eq!(qweight_bits(&config), None);
    }

    #[test]
    fn qwen3_235b_a22b() {
        // 94 layers, 4 KV heads, head_dim 128: 2 × 94 × 4 × 128 × 2 = 192,512. sliding_window is
        // null (and use_sliding_window false): all layers full.
        let config = load(QWEN3_235B);
        let facts = config_facts(&config);
        assert_eq!(facts.architecture_type, value("qwen3_moe"));
        assert_eq!(facts.attention_bytes_per_token, value("192512"));
        // 192,512 × 40,960 = 7,700,480,000 + 184,811,520.
        assert_eq!(facts.full_sequence_attention_bytes, value("7885291520"));
        assert_eq!(facts.recurrent_state_bytes, value("0"));
        assert_eq!(facts.calculation_sequence_length, value("40960"));
        assert_eq!(
            (facts.experts, facts.experts_per_token),
            (Some(128), Some(8))
        );
        assert_eq!(quantization(&config), None);
    }

    #[test]
    fn gpt_oss_120b_sliding_layers() {
        // layer_types: 36 entries alternating sliding/full → F = 18, S = 18; n_kv 8, head_dim 64,
        // sliding_window 128, T = max_position_embeddings = 131,072.
        // Per token: 2 × 18 × 8 × 64 × 2 = 36,864.
        // Full sequence: 36,864 × 131,072 (= 9 × 2^12 × 2^17 = 4,831,838,208)
        //   + 2 × 18 × 8 × 64 × 2 × min(128, 131,072) (= 36,864 × 128 = 4,718,592)
        //   = 4,836,556,800.
        let config = load(GPT_OSS_120B);
        let facts = config_facts(&config);
        assert_eq!(facts.architecture_type, value("gpt_oss"));
        assert_eq!(facts.attention_bytes_per_token, value("36864"));
        assert_eq!(facts.full_sequence_attention_bytes, value("4836556800"));
        assert_eq!(facts.recurrent_state_bytes, value("0"));
        assert_eq!(facts.calculation_sequence_length, value("131072"));
        assert_eq!(
            (facts.experts, facts.experts_per_token),
            (Some(128), Some(4))
        );
        assert_eq!(quantization(&config), Some(("mxfp4".to_string(), 4)));
        assert_eq!(qweight_bits(&config), None);
    }

    #[test]
    fn sliding_window_longer_than_the_sequence_holds_the_sequence() {
        // T = 64 < 128: both full and sliding layers hold 64 tokens:
        // 36,864 × 64 + 36,864 × 64 = 4,718,592.
        let config = with(
            &load(GPT_OSS_120B),
            "max_position_embeddings",
            Some(json!(64)),
        );
        let facts = config_facts(&config);
        assert_eq!(facts.attention_bytes_per_token, value("36864"));
        assert_eq!(facts.full_sequence_attention_bytes, value("4718592"));
    }

    #[test]
    fn sliding_layers_without_sliding_window_miss_only_the_full_sequence() {
        let config = with(&load(GPT_OSS_120B), "sliding_window", Some(Value::Null));
        let facts = config_facts(&config);
        assert_eq!(facts.attention_bytes_per_token, value("36864"));
        assert_eq!(facts.full_sequence_attention_bytes, MISSING);
        assert_eq!(facts.recurrent_state_bytes, value("0"));
    }

    #[test]
    fn qwen3_next_hybrid_linear_attention() {
        // full_attention_interval 4 over 48 layers: layers 3, 7, …, 47 are full (12); 36 linear.
        // Per token: 2 × 12 × 2 KV heads × 256 × 2 = 24,576.
        // One Gated DeltaNet layer: (4 − 1) × (2·128·16 + 128·32) + 32·128·128
        //   = 3 × 8,192 + 524,288 = 548,864; × 36 layers = 19,759,104; × 2 bytes = 39,518,208.
        let facts = config_facts(&load(QWEN3_NEXT));
        assert_eq!(facts.architecture_type, value("qwen3_next"));
        assert_eq!(facts.attention_bytes_per_token, value("24576"));
        // 24,576 × 262,144 = 3 × 2^13 × 2^18 = 3 × 2^31.
        assert_eq!(facts.full_sequence_attention_bytes, value("6442450944"));
        assert_eq!(facts.recurrent_state_bytes, value("39518208"));
        assert_eq!(facts.calculation_sequence_length, value("262144"));
        assert_eq!(
            (facts.experts, facts.experts_per_token),
            (Some(512), Some(10))
        );
    }

    #[test]
    fn qwen3_next_missing_linear_key_misses_only_the_recurrent_state() {
        let config = with(&load(QWEN3_NEXT), "linear_num_value_heads", None);
        let facts = config_facts(&config);
        assert_eq!(facts.attention_bytes_per_token, value("24576"));
        assert_eq!(facts.full_sequence_attention_bytes, value("6442450944"));
        assert_eq!(facts.recurrent_state_bytes, MISSING);
    }

    #[test]
    fn zero_full_attention_interval_is_not_supported() {
        let config = with(&load(QWEN3_NEXT), "full_attention_interval", Some(json!(0)));
        let facts = config_facts(&config);
        assert_eq!(facts.attention_bytes_per_token, UNSUPPORTED);
        assert_eq!(facts.full_sequence_attention_bytes, UNSUPPORTED);
        assert_eq!(facts.recurrent_state_bytes, UNSUPPORTED);
        assert_eq!(facts.calculation_sequence_length, value("262144"));
    }

    /// A small Nemotron-H-style hybrid: 4 layers "M*-M" (2 Mamba2, 1 attention, 1 MLP).
    fn mamba_hybrid() -> Value {
        json!({
            "model_type": "nemotron_h",
            "num_hidden_layers": 4,
            "hybrid_override_pattern": "M*-M",
            "hidden_size": 64,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "head_dim": 16,
            "max_position_embeddings": 1000,
            "conv_kernel": 4,
            "mamba_num_heads": 4,
            "mamba_head_dim": 8,
            "n_groups": 2,
            "ssm_state_size": 16
        })
    }

    #[test]
    fn mamba2_hybrid_pattern() {
        // Attention: 2 × 1 layer × 2 × 16 × 2 = 128 B/token; × 1000 tokens = 128,000.
        // One Mamba2 layer: (4 − 1) × (4·8 + 2·2·16) + 4·8·16 = 3 × 96 + 512 = 800;
        // 2 layers × 800 × 2 bytes = 3,200.
        let facts = config_facts(&mamba_hybrid());
        assert_eq!(facts.attention_bytes_per_token, value("128"));
        assert_eq!(facts.full_sequence_attention_bytes, value("128000"));
        assert_eq!(facts.recurrent_state_bytes, value("3200"));
    }

    #[test]
    fn mamba2_missing_key_misses_only_the_recurrent_state() {
        let facts = config_facts(&with(&mamba_hybrid(), "ssm_state_size", None));
        assert_eq!(facts.attention_bytes_per_token, value("128"));
        assert_eq!(facts.full_sequence_attention_bytes, value("128000"));
        assert_eq!(facts.recurrent_state_bytes, MISSING);
    }

    #[test]
    fn bad_patterns_are_not_supported() {
        for pattern in ["M*-ME", "M*-", "M*-M*"] {
            let config = with(
                &mamba_hybrid(),
                "hybrid_override_pattern",
                Some(json!(pattern)),
            );
            let facts = config_facts(&config);
            assert_eq!(facts.attention_bytes_per_token, UNSUPPORTED, "{pattern}");
            assert_eq!(
                facts.full_sequence_attention_bytes, UNSUPPORTED,
                "{pattern}"
            );
            assert_eq!(facts.recurrent_state_bytes, UNSUPPORTED, "{pattern}");
            assert_eq!(facts.architecture_type, value("nemotron_h"));
        }
    }

    #[test]
    fn pure_attention_pattern_has_no_recurrent_state() {
        let config = with(
            &mamba_hybrid(),
            "hybrid_override_pattern",
            Some(json!("**-*")),
        );
        let facts = config_facts(&config);
        // 3 attention layers × (2 × 2 × 16 × 2 = 128 B) = 384 B/token.
        assert_eq!(facts.attention_bytes_per_token, value("384"));
        assert_eq!(facts.recurrent_state_bytes, value("0"));
    }

    #[test]
    fn unknown_layer_type_is_not_supported() {
        let gpt_oss = load(GPT_OSS_120B);
        let mut types = gpt_oss["layer_types"].clone();
        types[0] = json!("chunked_attention");
        let facts = config_facts(&with(&gpt_oss, "layer_types", Some(types)));
        assert_eq!(facts.attention_bytes_per_token, UNSUPPORTED);
        assert_eq!(facts.full_sequence_attention_bytes, UNSUPPORTED);
        assert_eq!(facts.recurrent_state_bytes, UNSUPPORTED);
        assert_eq!(facts.architecture_type, value("gpt_oss"));
        assert_eq!(facts.calculation_sequence_length, value("131072"));
    }

    #[test]
    fn layer_types_of_the_wrong_length_are_not_supported() {
        let config = with(&load(GPT_OSS_120B), "num_hidden_layers", Some(json!(35)));
        let facts = config_facts(&config);
        assert_eq!(facts.attention_bytes_per_token, UNSUPPORTED);
        assert_eq!(facts.full_sequence_attention_bytes, UNSUPPORTED);
        assert_eq!(facts.recurrent_state_bytes, UNSUPPORTED);
    }

    #[test]
    fn sliding_window_without_layer_types_is_not_supported() {
        // Mistral-7B-v0.1 style: sliding_window 4096 with no layer_types.
        let config = with(&load(LLAMA_31_8B), "sliding_window", Some(json!(4096)));
        let facts = config_facts(&config);
        assert_eq!(facts.attention_bytes_per_token, UNSUPPORTED);
        assert_eq!(facts.full_sequence_attention_bytes, UNSUPPORTED);
        assert_eq!(facts.recurrent_state_bytes, UNSUPPORTED);
        assert_eq!(facts.architecture_type, value("llama"));

        let on = with(&config, "use_sliding_window", Some(json!(true)));
        assert_eq!(config_facts(&on).attention_bytes_per_token, UNSUPPORTED);

        // Qwen2 style: a sliding_window that use_sliding_window false turns off.
        let off = with(&config, "use_sliding_window", Some(json!(false)));
        assert_eq!(
            config_facts(&off).attention_bytes_per_token,
            value("131072")
        );
    }

    #[test]
    fn missing_model_type_misses_only_the_architecture() {
        let facts = config_facts(&with(&load(LLAMA_31_8B), "model_type", None));
        assert_eq!(facts.architecture_type, MISSING);
        assert_eq!(facts.attention_bytes_per_token, value("131072"));
        assert_eq!(facts.calculation_sequence_length, value("131072"));
    }

    #[test]
    fn missing_max_position_embeddings() {
        let facts = config_facts(&with(&load(LLAMA_31_8B), "max_position_embeddings", None));
        assert_eq!(facts.calculation_sequence_length, MISSING);
        assert_eq!(facts.full_sequence_attention_bytes, MISSING);
        assert_eq!(facts.attention_bytes_per_token, value("131072"));
        assert_eq!(facts.recurrent_state_bytes, value("0"));
    }

    #[test]
    fn missing_num_hidden_layers_misses_the_cache_facts() {
        let facts = config_facts(&with(&load(LLAMA_31_8B), "num_hidden_layers", None));
        assert_eq!(facts.attention_bytes_per_token, MISSING);
        assert_eq!(facts.full_sequence_attention_bytes, MISSING);
        assert_eq!(facts.recurrent_state_bytes, MISSING);
        assert_eq!(facts.architecture_type, value("llama"));
        assert_eq!(facts.calculation_sequence_length, value("131072"));
    }

    #[test]
    fn null_head_dim_falls_back_to_hidden_size_over_heads() {
        let config = with(&load(LLAMA_31_8B), "head_dim", Some(Value::Null));
        assert_eq!(
            config_facts(&config).attention_bytes_per_token,
            value("131072")
        );
        // attention_head_dim is the second choice: 2 × 32 × 8 × 64 × 2 = 65,536.
        let config = with(&config, "attention_head_dim", Some(json!(64)));
        assert_eq!(
            config_facts(&config).attention_bytes_per_token,
            value("65536")
        );
        // head_dim wins over attention_head_dim.
        let config = with(&config, "head_dim", Some(json!(128)));
        assert_eq!(
            config_facts(&config).attention_bytes_per_token,
            value("131072")
        );
    }

    #[test]
    fn inexact_head_dim_division_is_a_missing_key() {
        // 4097 / 32 is not exact and there is no head_dim.
        let facts = config_facts(&with(&load(LLAMA_31_8B), "hidden_size", Some(json!(4097))));
        assert_eq!(facts.attention_bytes_per_token, MISSING);
        assert_eq!(facts.full_sequence_attention_bytes, MISSING);
        assert_eq!(facts.recurrent_state_bytes, value("0"));
        assert_eq!(facts.calculation_sequence_length, value("131072"));
    }

    #[test]
    fn kv_heads_default_to_attention_heads() {
        // Without num_key_value_heads: 32 KV heads, 2 × 32 × 32 × 128 × 2 = 524,288.
        let config = with(&load(LLAMA_31_8B), "num_key_value_heads", None);
        assert_eq!(
            config_facts(&config).attention_bytes_per_token,
            value("524288")
        );
        let config = with(&load(LLAMA_31_8B), "num_key_value_heads", Some(Value::Null));
        assert_eq!(
            config_facts(&config).attention_bytes_per_token,
            value("524288")
        );
    }

    #[test]
    fn mla_missing_rope_dim_misses_the_attention_facts() {
        let facts = config_facts(&with(&load(DEEPSEEK_V3), "qk_rope_head_dim", None));
        assert_eq!(facts.attention_bytes_per_token, MISSING);
        assert_eq!(facts.full_sequence_attention_bytes, MISSING);
        assert_eq!(facts.recurrent_state_bytes, value("0"));
    }

    #[test]
    fn null_kv_lora_rank_is_not_mla() {
        // Without MLA, DeepSeek-V3 would be 2 × 61 × 128 × 56 (7168 / 128) × 2
        // = 7,808 × 56 × 4 = 1,748,992.
        let facts = config_facts(&with(&load(DEEPSEEK_V3), "kv_lora_rank", Some(Value::Null)));
        assert_eq!(facts.attention_bytes_per_token, value("1748992"));
    }

    #[test]
    fn text_config_is_read_when_the_top_level_lacks_num_hidden_layers() {
        // A multimodal wrapper around Llama-3.1-8B's text model: model_type and
        // quantization_config stay top-level.
        let text = load(LLAMA_31_8B);
        let config = json!({
            "model_type": "llava",
            "max_position_embeddings": 7,
            "quantization_config": {"quant_method": "fp8"},
            "text_config": text,
        });
        let facts = config_facts(&config);
        assert_eq!(facts.architecture_type, value("llava"));
        assert_eq!(facts.attention_bytes_per_token, value("131072"));
        assert_eq!(facts.calculation_sequence_length, value("131072"));
        assert_eq!(quantization(&config), Some(("fp8".to_string(), 8)));

        // The text config's own model_type and quantization_config are not read.
        let mut inner = load(LLAMA_31_8B);
        inner["quantization_config"] = json!({"quant_method": "mxfp4"});
        let config = json!({"text_config": inner});
        let facts = config_facts(&config);
        assert_eq!(facts.architecture_type, MISSING);
        assert_eq!(facts.attention_bytes_per_token, value("131072"));
        assert_eq!(quantization(&config), None);

        // With num_hidden_layers at the top level, text_config is ignored.
        let config = with(
            &load(LLAMA_31_8B),
            "text_config",
            Some(json!({"num_hidden_layers": 1, "num_key_value_heads": 1})),
        );
        assert_eq!(
            config_facts(&config).attention_bytes_per_token,
            value("131072")
        );
    }

    #[test]
    fn empty_config_misses_everything() {
        let facts = config_facts(&json!({}));
        assert_eq!(
            facts,
            ConfigFacts {
                architecture_type: MISSING,
                attention_bytes_per_token: MISSING,
                full_sequence_attention_bytes: MISSING,
                recurrent_state_bytes: MISSING,
                calculation_sequence_length: MISSING,
                experts: None,
                experts_per_token: None,
            }
        );
    }

    #[test]
    fn expert_count_keys_in_order() {
        let config = json!({"num_local_experts": 8, "num_experts_per_tok": 2});
        assert_eq!(config_facts(&config).experts, Some(8));
        let config = json!({"n_routed_experts": null, "num_experts": 64, "num_local_experts": 8});
        assert_eq!(config_facts(&config).experts, Some(64));
    }

    #[test]
    fn python_non_finite_tokens_read_as_null() {
        let text = br#"{"a": NaN, "b": Infinity, "c": -Infinity, "d": [NaN, -Infinity],
            "s": "NaN and -Infinity stay", "e": "quote \" NaN \\", "f": "\\", "g":NaN,
            "model_type": "llama"}"#;
        let config = parse_config(text).expect("Python JSON parses");
        assert_eq!(config["a"], Value::Null);
        assert_eq!(config["b"], Value::Null);
        assert_eq!(config["c"], Value::Null);
        assert_eq!(config["d"], json!([null, null]));
        assert_eq!(config["s"], json!("NaN and -Infinity stay"));
        assert_eq!(config["e"], json!("quote \" NaN \\"));
        assert_eq!(config["f"], json!("\\"));
        assert_eq!(config["g"], Value::Null);
        assert_eq!(config_facts(&config).architecture_type, value("llama"));
    }

    #[test]
    fn non_finite_keys_and_unicode_survive() {
        let text = "{\"NaN\": \"Infinity\", \"ünï\": \"\\u00e9 NaN\", \"x\": 1e5}".as_bytes();
        let config = parse_config(text).expect("parses");
        assert_eq!(config["NaN"], json!("Infinity"));
        assert_eq!(config["ünï"], json!("é NaN"));
        assert_eq!(config["x"], json!(100000.0));
    }

    #[test]
    fn parse_config_refuses_non_objects_and_bad_json() {
        assert!(parse_config(b"[1, 2]").is_err());
        assert!(parse_config(b"NaN").is_err());
        assert!(parse_config(b"{\"a\": }").is_err());
        assert!(parse_config(b"{\"a\": \"NaN}").is_err());
        assert!(parse_config(b"").is_err());
    }

    #[test]
    fn fixtures_all_parse() {
        for bytes in [
            LLAMA_31_8B,
            LLAMA_33_70B,
            DEEPSEEK_V3,
            QWEN3_235B,
            GPT_OSS_120B,
            QWEN3_NEXT,
        ] {
            assert!(parse_config(bytes).is_ok());
        }
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
