//! Safetensors headers: reading the header length and the tensor table of a checkpoint file, and
//! counting its parameters and the parameters of its routed experts (DESIGN §10, "Parameters").

use std::fmt;

use serde_json::Value;

/// The largest header length N accepted; a file announcing more is refused.
pub const MAX_HEADER_BYTES: u64 = 25_000_000;

/// How many bytes the first range request asks for (`bytes=0-100000`).
pub const FIRST_RANGE_BYTES: u64 = 100_001;

/// One tensor of a safetensors header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tensor {
    /// The tensor's name, such as `model.layers.0.mlp.down_proj.weight`.
    pub name: String,
    /// The tensor's dtype as the header spells it, such as `BF16`.
    pub dtype: String,
    /// The tensor's shape; its element count is the product (1 for an empty shape).
    pub shape: Vec<u64>,
}

/// Why a safetensors header could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderError {
    /// Fewer than the 8 bytes of the header length arrived.
    TooShort,
    /// The header length is larger than [`MAX_HEADER_BYTES`].
    TooLarge(u64),
    /// The header is not a JSON object.
    NotJson(String),
    /// A header entry is not of the form `{"dtype", "shape", "data_offsets"}`.
    BadEntry(String),
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderError::TooShort => {
                write!(f, "safetensors file shorter than its 8-byte header length")
            }
            HeaderError::TooLarge(n) => write!(
                f,
                "safetensors header length {n} exceeds the limit of {MAX_HEADER_BYTES} bytes"
            ),
            HeaderError::NotJson(why) => {
                write!(f, "safetensors header is not a JSON object: {why}")
            }
            HeaderError::BadEntry(why) => write!(f, "safetensors header entry is invalid: {why}"),
        }
    }
}

impl std::error::Error for HeaderError {}

/// From the first bytes of a file: the header length N (little-endian u64 of bytes 0..8);
/// refuses N > [`MAX_HEADER_BYTES`].
pub fn header_length(prefix: &[u8]) -> Result<u64, HeaderError> {
    let first: [u8; 8] = prefix
        .get(..8)
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or(HeaderError::TooShort)?;
    let n = u64::from_le_bytes(first);
    if n > MAX_HEADER_BYTES {
        return Err(HeaderError::TooLarge(n));
    }
    Ok(n)
}

/// Parses the N JSON header bytes (the bytes after the first 8) into tensors, sorted by name;
/// skips `__metadata__`. Each entry must be an object with a string `dtype`, a `shape` array of
/// non-negative integers and `data_offsets` (two non-negative integers); anything else is
/// [`HeaderError::BadEntry`].
pub fn parse_header(json: &[u8]) -> Result<Vec<Tensor>, HeaderError> {
    let value: Value =
        serde_json::from_slice(json).map_err(|e| HeaderError::NotJson(e.to_string()))?;
    let Value::Object(entries) = value else {
        return Err(HeaderError::NotJson(
            "the header is not an object".to_string(),
        ));
    };
    let mut tensors = Vec::with_capacity(entries.len());
    for (name, entry) in &entries {
        if name == "__metadata__" {
            continue;
        }
        tensors.push(parse_entry(name, entry)?);
    }
    tensors.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(tensors)
}

fn parse_entry(name: &str, entry: &Value) -> Result<Tensor, HeaderError> {
    let bad = |what: &str| HeaderError::BadEntry(format!("tensor {name:?}: {what}"));
    let object = entry.as_object().ok_or_else(|| bad("not an object"))?;
    let dtype = object
        .get("dtype")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("dtype is not a string"))?;
    let shape = object
        .get("shape")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("shape is not an array"))?
        .iter()
        .map(Value::as_u64)
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(|| bad("shape holds a value that is not a non-negative integer"))?;
    let offsets_ok = object
        .get("data_offsets")
        .and_then(Value::as_array)
        .is_some_and(|offsets| offsets.len() == 2 && offsets.iter().all(Value::is_u64));
    if !offsets_ok {
        return Err(bad("data_offsets is not two non-negative integers"));
    }
    Ok(Tensor {
        name: name.to_string(),
        dtype: dtype.to_string(),
        shape,
    })
}

/// The parameters of a checkpoint: all of them, and those of its routed experts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ParameterCount {
    /// The sum over parameter tensors.
    pub total: u128,
    /// The parameters of tensors whose name contains `.experts.` and not `shared_expert`.
    pub routed_experts: u128,
}

/// Why the parameters of a checkpoint could not be counted (the size facts are then
/// `unavailable` / `size_calculation_failed`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CountError {
    /// A non-auxiliary tensor has a dtype outside the counting rules.
    UnsupportedDtype {
        /// The tensor's name.
        tensor: String,
        /// Its dtype.
        dtype: String,
    },
    /// An I32 `qweight` tensor, but the config gives no `quantization_config.bits`.
    QweightWithoutBits(String),
    /// An I32 `qweight` tensor whose bit width does not pack a whole number of values
    /// (0 bits, or 32 × elements not a multiple of the bit width).
    QweightBadBits {
        /// The tensor's name.
        tensor: String,
        /// The bit width from `quantization_config.bits`.
        bits: u32,
    },
    /// A count does not fit in 128 bits.
    Overflow(String),
}

impl fmt::Display for CountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CountError::UnsupportedDtype { tensor, dtype } => {
                write!(f, "tensor {tensor:?} has unsupported dtype {dtype:?}")
            }
            CountError::QweightWithoutBits(tensor) => write!(
                f,
                "tensor {tensor:?} is an I32 qweight but quantization_config.bits is missing"
            ),
            CountError::QweightBadBits { tensor, bits } => write!(
                f,
                "tensor {tensor:?} is an I32 qweight that {bits} bits do not divide"
            ),
            CountError::Overflow(tensor) => {
                write!(f, "parameter count overflows at tensor {tensor:?}")
            }
        }
    }
}

impl std::error::Error for CountError {}

/// Suffixes of the last name component that mark an auxiliary (non-parameter) tensor.
const AUXILIARY_SUFFIXES: [&str; 6] = [
    "scale",
    "scales",
    "scale_inv",
    "zero_point",
    "qzeros",
    "g_idx",
];

/// The text after the last `.` of a tensor name (the whole name when it has none).
fn last_component(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Whether a tensor is auxiliary (quantization scales, zero points, group indices).
fn is_auxiliary(name: &str) -> bool {
    let last = last_component(name);
    AUXILIARY_SUFFIXES.iter().any(|s| last.ends_with(s))
}

/// Whether a tensor belongs to the routed experts.
fn is_routed_expert(name: &str) -> bool {
    name.contains(".experts.") && !name.contains("shared_expert")
}

/// The parameters one tensor holds (0 for auxiliary tensors and buffers).
fn tensor_parameters(tensor: &Tensor, qweight_bits: Option<u32>) -> Result<u128, CountError> {
    if is_auxiliary(&tensor.name) {
        return Ok(0);
    }
    let overflow = || CountError::Overflow(tensor.name.clone());
    let elements = tensor
        .shape
        .iter()
        .try_fold(1u128, |acc, &d| acc.checked_mul(u128::from(d)))
        .ok_or_else(overflow)?;
    let last = last_component(&tensor.name);
    match tensor.dtype.as_str() {
        "F64" | "F32" | "F16" | "BF16" | "F8_E4M3" | "F8_E5M2" | "I8" => Ok(elements),
        "U8" if last.ends_with("_blocks") => elements.checked_mul(2).ok_or_else(overflow),
        "U8" => Ok(elements),
        "I32" if last.ends_with("qweight") => {
            let bits =
                qweight_bits.ok_or_else(|| CountError::QweightWithoutBits(tensor.name.clone()))?;
            let bad_bits = || CountError::QweightBadBits {
                tensor: tensor.name.clone(),
                bits,
            };
            let packed = elements.checked_mul(32).ok_or_else(overflow)?;
            let bits = u128::from(bits);
            if bits == 0 || packed % bits != 0 {
                return Err(bad_bits());
            }
            Ok(packed / bits)
        }
        "I16" | "I32" | "I64" | "U16" | "U32" | "U64" | "BOOL" => Ok(0),
        other => Err(CountError::UnsupportedDtype {
            tensor: tensor.name.clone(),
            dtype: other.to_string(),
        }),
    }
}

/// DESIGN §10 parameter counting. Auxiliary tensors (last name component ends with `scale`,
/// `scales`, `scale_inv`, `zero_point`, `qzeros` or `g_idx`) are skipped whatever their dtype;
/// F64, F32, F16, BF16, F8_E4M3, F8_E5M2, I8 and U8 count one per element; a U8 tensor whose last
/// component ends with `_blocks` counts ×2; an I32 tensor whose last component ends with
/// `qweight` counts ×(32/`qweight_bits`); other integer types (I16, I32, I64, U16, U32, U64)
/// and BOOL are buffers (0); any other dtype is [`CountError::UnsupportedDtype`].
/// `routed_experts` = the parameters of tensors whose name contains `.experts.` and not
/// `shared_expert`.
pub fn count_parameters(
    tensors: &[Tensor],
    qweight_bits: Option<u32>,
) -> Result<ParameterCount, CountError> {
    let mut count = ParameterCount::default();
    for tensor in tensors {
        let overflow = || CountError::Overflow(tensor.name.clone());
        let parameters = tensor_parameters(tensor, qweight_bits)?;
        count.total = count.total.checked_add(parameters).ok_or_else(overflow)?;
        if is_routed_expert(&tensor.name) {
            count.routed_experts = count
                .routed_experts
                .checked_add(parameters)
                .ok_or_else(overflow)?;
        }
    }
    Ok(count)
}

/// Active parameters: total − R × (E − k) / E with R the routed-expert parameters, E the
/// number of experts and k the experts per token. Without E, or E ≤ 1, the total. `None`
/// (`size_calculation_failed`) when E > 1 and R is 0, k is missing or larger than E, the
/// division is not exact, or the result would be negative.
pub fn active_parameters(
    count: ParameterCount,
    experts: Option<u64>,
    experts_per_token: Option<u64>,
) -> Option<u128> {
    let e = match experts {
        Some(e) if e > 1 => u128::from(e),
        _ => return Some(count.total),
    };
    let k = u128::from(experts_per_token?);
    let r = count.routed_experts;
    if r == 0 {
        return None;
    }
    let inactive = r.checked_mul(e.checked_sub(k)?)?;
    if inactive % e != 0 {
        return None;
    }
    count.total.checked_sub(inactive / e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn tensor(name: &str, dtype: &str, shape: &[u64]) -> Tensor {
        Tensor {
            name: name.to_string(),
            dtype: dtype.to_string(),
            shape: shape.to_vec(),
        }
    }

    fn header_bytes(value: &Value) -> Vec<u8> {
        serde_json::to_vec(value).expect("serializable test header")
    }

    #[test]
    fn header_length_reads_little_endian_u64() {
        let mut prefix = 1234u64.to_le_bytes().to_vec();
        prefix.extend_from_slice(b"{\"__metadata__\":{}}");
        assert_eq!(header_length(&prefix), Ok(1234));
        assert_eq!(header_length(&[0x10, 0x27, 0, 0, 0, 0, 0, 0]), Ok(10_000));
    }

    #[test]
    fn header_length_accepts_the_limit_and_refuses_one_more() {
        assert_eq!(header_length(&25_000_000u64.to_le_bytes()), Ok(25_000_000));
        assert_eq!(
            header_length(&25_000_001u64.to_le_bytes()),
            Err(HeaderError::TooLarge(25_000_001))
        );
        assert_eq!(
            header_length(&u64::MAX.to_le_bytes()),
            Err(HeaderError::TooLarge(u64::MAX))
        );
    }

    #[test]
    fn header_length_needs_eight_bytes() {
        assert_eq!(header_length(&[]), Err(HeaderError::TooShort));
        assert_eq!(
            header_length(&[1, 0, 0, 0, 0, 0, 0]),
            Err(HeaderError::TooShort)
        );
    }

    #[test]
    fn first_range_is_bytes_0_to_100000() {
        assert_eq!(FIRST_RANGE_BYTES, 100_000 + 1);
    }

    #[test]
    fn parse_header_sorts_by_name_and_skips_metadata() {
        let header = header_bytes(&json!({
            "__metadata__": {"format": "pt"},
            "model.norm.weight": {"dtype": "BF16", "shape": [4096], "data_offsets": [8192, 16384]},
            "lm_head.weight": {"dtype": "BF16", "shape": [2, 4096], "data_offsets": [16384, 32768]},
            "model.embed_tokens.weight": {"dtype": "F32", "shape": [], "data_offsets": [0, 4]}
        }));
        // Safetensors pads the header with trailing spaces.
        let mut padded = header.clone();
        padded.extend_from_slice(b"    ");
        let expected = vec![
            tensor("lm_head.weight", "BF16", &[2, 4096]),
            tensor("model.embed_tokens.weight", "F32", &[]),
            tensor("model.norm.weight", "BF16", &[4096]),
        ];
        assert_eq!(parse_header(&header), Ok(expected.clone()));
        assert_eq!(parse_header(&padded), Ok(expected));
    }

    #[test]
    fn parse_header_refuses_what_is_not_a_json_object() {
        assert!(matches!(
            parse_header(b"{\"a\":"),
            Err(HeaderError::NotJson(_))
        ));
        assert!(matches!(parse_header(b""), Err(HeaderError::NotJson(_))));
        assert!(matches!(
            parse_header(b"[1,2]"),
            Err(HeaderError::NotJson(_))
        ));
        assert!(matches!(
            parse_header(b"\xff\xfe"),
            Err(HeaderError::NotJson(_))
        ));
    }

    #[test]
    fn parse_header_refuses_bad_entries() {
        let bad = [
            json!({"w": {"shape": [1], "data_offsets": [0, 2]}}),
            json!({"w": {"dtype": 7, "shape": [1], "data_offsets": [0, 2]}}),
            json!({"w": {"dtype": "BF16", "data_offsets": [0, 2]}}),
            json!({"w": {"dtype": "BF16", "shape": [-1], "data_offsets": [0, 2]}}),
            json!({"w": {"dtype": "BF16", "shape": [1.5], "data_offsets": [0, 2]}}),
            json!({"w": {"dtype": "BF16", "shape": "1", "data_offsets": [0, 2]}}),
            json!({"w": {"dtype": "BF16", "shape": [1]}}),
            json!({"w": {"dtype": "BF16", "shape": [1], "data_offsets": [0]}}),
            json!({"w": {"dtype": "BF16", "shape": [1], "data_offsets": [0, "2"]}}),
            json!({"w": [1, 2]}),
        ];
        for header in bad {
            let result = parse_header(&header_bytes(&header));
            assert!(
                matches!(result, Err(HeaderError::BadEntry(_))),
                "{header} gave {result:?}"
            );
        }
    }

    #[test]
    fn fp8_weight_scale_inv_is_not_counted() {
        // DeepSeek-V3 FP8 layout: 128×128 blocks, one F32 scale per block.
        let tensors = [
            tensor(
                "model.layers.3.mlp.shared_experts.down_proj.weight",
                "F8_E4M3",
                &[7168, 2048],
            ),
            tensor(
                "model.layers.3.mlp.shared_experts.down_proj.weight_scale_inv",
                "F32",
                &[56, 16],
            ),
        ];
        let count = count_parameters(&tensors, None).expect("countable");
        assert_eq!(
            count,
            ParameterCount {
                total: 7168 * 2048,
                routed_experts: 0
            }
        );
    }

    #[test]
    fn every_auxiliary_suffix_is_skipped_whatever_the_dtype() {
        let tensors = [
            tensor("a.input_scale", "F32", &[1]),
            tensor("a.weight_scales", "F16", &[10]),
            tensor("a.weight_scale_inv", "F32", &[10]),
            tensor("a.weight_zero_point", "I8", &[10]),
            tensor("a.qzeros", "I32", &[10]),
            tensor("a.g_idx", "I32", &[10]),
            tensor("a.e8m0_scale", "F8_E8M0", &[10]),
            tensor("norm.scale", "BF16", &[10]),
        ];
        assert_eq!(
            count_parameters(&tensors, None),
            Ok(ParameterCount::default())
        );
    }

    #[test]
    fn only_the_last_name_component_marks_auxiliary_tensors() {
        let tensors = [
            tensor("model.scales.weight", "BF16", &[3]),
            tensor("model.g_idx_table.weight", "BF16", &[5]),
        ];
        assert_eq!(count_parameters(&tensors, None).map(|c| c.total), Ok(8));
    }

    #[test]
    fn mxfp4_blocks_count_twice_and_their_scales_not_at_all() {
        // gpt-oss-120b expert tensors: 90 blocks of 16 bytes = 1440 bytes = 2880 4-bit values
        // per row (hidden_size 2880); 128 experts × 5760 rows (2 × intermediate_size).
        let tensors = [
            tensor(
                "model.layers.0.mlp.experts.gate_up_proj_blocks",
                "U8",
                &[128, 5760, 90, 16],
            ),
            tensor(
                "model.layers.0.mlp.experts.gate_up_proj_scales",
                "U8",
                &[128, 5760, 90],
            ),
            tensor(
                "model.layers.0.mlp.experts.gate_up_proj_bias",
                "BF16",
                &[128, 5760],
            ),
            tensor("model.layers.0.mlp.router.weight", "BF16", &[128, 2880]),
        ];
        let count = count_parameters(&tensors, None).expect("countable");
        let blocks = 128 * 5760 * 2880; // 2,123,366,400
        let bias = 128 * 5760; // 737,280
        let router = 128 * 2880; // 368,640
        assert_eq!(blocks, 2_123_366_400);
        assert_eq!(
            count,
            ParameterCount {
                total: blocks + bias + router,
                routed_experts: blocks + bias
            }
        );
    }

    #[test]
    fn plain_u8_and_i8_count_once() {
        let tensors = [
            tensor("a.weight", "U8", &[4, 4]),
            tensor("b.weight", "I8", &[3]),
        ];
        assert_eq!(count_parameters(&tensors, None).map(|c| c.total), Ok(19));
    }

    #[test]
    fn gptq_qweight_with_4_bits_counts_eight_values_per_element() {
        // A 4-bit GPTQ down_proj of Llama-3.1-8B: in 14336, out 4096; 8 values per I32.
        let tensors = [
            tensor("model.layers.0.mlp.down_proj.qweight", "I32", &[1792, 4096]),
            tensor("model.layers.0.mlp.down_proj.qzeros", "I32", &[112, 512]),
            tensor("model.layers.0.mlp.down_proj.scales", "F16", &[112, 4096]),
            tensor("model.layers.0.mlp.down_proj.g_idx", "I32", &[14336]),
        ];
        let count = count_parameters(&tensors, Some(4)).expect("countable");
        assert_eq!(count.total, 14336 * 4096);
        assert_eq!(
            count_parameters(&tensors, None),
            Err(CountError::QweightWithoutBits(
                "model.layers.0.mlp.down_proj.qweight".to_string()
            ))
        );
        assert!(matches!(
            count_parameters(&tensors, Some(0)),
            Err(CountError::QweightBadBits { bits: 0, .. })
        ));
    }

    #[test]
    fn qweight_with_3_bits_counts_when_it_divides() {
        // 3 I32 words pack 32 three-bit values.
        let tensors = [tensor("l.qweight", "I32", &[3, 10])];
        assert_eq!(
            count_parameters(&tensors, Some(3)).map(|c| c.total),
            Ok(320)
        );
        let odd = [tensor("l.qweight", "I32", &[1])];
        assert!(matches!(
            count_parameters(&odd, Some(3)),
            Err(CountError::QweightBadBits { bits: 3, .. })
        ));
    }

    #[test]
    fn integer_and_bool_buffers_count_zero() {
        let tensors = [
            tensor("model.layers.0.attn.bias", "BOOL", &[1, 1, 2048, 2048]),
            tensor("model.position_ids", "I64", &[1, 2048]),
            tensor("model.layers.0.attn.masked_bias", "I32", &[1]),
            tensor("x.i16", "I16", &[7]),
            tensor("x.u16", "U16", &[7]),
            tensor("x.u32", "U32", &[7]),
            tensor("x.u64", "U64", &[7]),
            tensor("model.norm.weight", "F32", &[2]),
        ];
        // An I32 qweight needs bits, but other I32 tensors never do.
        assert_eq!(count_parameters(&tensors, None).map(|c| c.total), Ok(2));
    }

    #[test]
    fn unknown_dtype_is_an_error() {
        let tensors = [
            tensor("model.norm.weight", "BF16", &[2]),
            tensor("model.layers.0.mlp.weight", "F4", &[2]),
        ];
        assert_eq!(
            count_parameters(&tensors, None),
            Err(CountError::UnsupportedDtype {
                tensor: "model.layers.0.mlp.weight".to_string(),
                dtype: "F4".to_string()
            })
        );
        let lower = [tensor("w", "bf16", &[1])];
        assert!(matches!(
            count_parameters(&lower, None),
            Err(CountError::UnsupportedDtype { .. })
        ));
    }

    #[test]
    fn scalar_and_empty_tensors() {
        let tensors = [
            tensor("a.weight", "F32", &[]),
            tensor("b.weight", "F32", &[0, 5]),
        ];
        assert_eq!(count_parameters(&tensors, None).map(|c| c.total), Ok(1));
    }

    #[test]
    fn overflow_is_an_error_not_a_wrap() {
        let huge = [tensor("w", "F32", &[u64::MAX, u64::MAX, u64::MAX])];
        assert!(matches!(
            count_parameters(&huge, None),
            Err(CountError::Overflow(_))
        ));
        let sum = [
            tensor("a", "U8", &[u64::MAX, u64::MAX]),
            tensor("b", "U8", &[u64::MAX, u64::MAX]),
            tensor("c", "U8", &[u64::MAX, u64::MAX]),
        ];
        assert!(matches!(
            count_parameters(&sum, None),
            Err(CountError::Overflow(_))
        ));
    }

    #[test]
    fn routed_experts_exclude_shared_experts() {
        let tensors = [
            tensor(
                "model.layers.3.mlp.experts.0.gate_proj.weight",
                "BF16",
                &[10],
            ),
            tensor(
                "model.layers.3.mlp.experts.255.up_proj.weight",
                "BF16",
                &[20],
            ),
            tensor(
                "model.layers.3.mlp.shared_experts.gate_proj.weight",
                "BF16",
                &[100],
            ),
            tensor(
                "model.layers.3.mlp.shared_expert.experts.x.weight",
                "BF16",
                &[1000],
            ),
            tensor("model.layers.3.mlp.gate.weight", "BF16", &[10000]),
        ];
        assert_eq!(
            count_parameters(&tensors, None),
            Ok(ParameterCount {
                total: 11130,
                routed_experts: 30
            })
        );
    }

    #[test]
    fn active_parameters_exact_moe() {
        // 8 experts, 2 per token: 6/8 of the 800 routed parameters are idle.
        let count = ParameterCount {
            total: 1000,
            routed_experts: 800,
        };
        assert_eq!(active_parameters(count, Some(8), Some(2)), Some(400));
        assert_eq!(active_parameters(count, Some(8), Some(8)), Some(1000));
    }

    #[test]
    fn active_parameters_not_divisible_is_none() {
        let count = ParameterCount {
            total: 1000,
            routed_experts: 10,
        };
        // 10 × 6 = 60 is not a multiple of 8.
        assert_eq!(active_parameters(count, Some(8), Some(2)), None);
    }

    #[test]
    fn active_parameters_without_experts_is_the_total() {
        let dense = ParameterCount {
            total: 8_030_261_248,
            routed_experts: 0,
        };
        assert_eq!(active_parameters(dense, None, None), Some(8_030_261_248));
        assert_eq!(
            active_parameters(dense, Some(1), Some(1)),
            Some(8_030_261_248)
        );
        assert_eq!(active_parameters(dense, Some(0), None), Some(8_030_261_248));
    }

    #[test]
    fn active_parameters_refuses_incoherent_moe() {
        let no_routed = ParameterCount {
            total: 1000,
            routed_experts: 0,
        };
        assert_eq!(active_parameters(no_routed, Some(8), Some(2)), None);
        let count = ParameterCount {
            total: 1000,
            routed_experts: 800,
        };
        assert_eq!(active_parameters(count, Some(8), None), None);
        assert_eq!(active_parameters(count, Some(8), Some(9)), None);
        let more_routed_than_total = ParameterCount {
            total: 100,
            routed_experts: 800,
        };
        assert_eq!(
            active_parameters(more_routed_than_total, Some(8), Some(2)),
            None
        );
    }

    proptest! {
        #[test]
        fn parse_header_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = parse_header(&bytes);
            let _ = header_length(&bytes);
        }

        #[test]
        fn parse_header_never_panics_on_json_like_text(
            text in "[{}\\[\\]\":, 0-9a-zA-Z_.-]{0,200}"
        ) {
            let _ = parse_header(text.as_bytes());
        }

        #[test]
        fn count_never_panics(
            shapes in proptest::collection::vec(
                (proptest::collection::vec(any::<u64>(), 0..4), 0usize..6, any::<bool>()),
                0..6,
            ),
            bits in proptest::option::of(0u32..40),
        ) {
            let dtypes = ["BF16", "U8", "I32", "BOOL", "F8_E4M3", "X"];
            let tensors: Vec<Tensor> = shapes
                .iter()
                .enumerate()
                .map(|(i, (shape, d, blocks))| Tensor {
                    name: format!("m.{i}.{}", if *blocks { "w_blocks" } else { "qweight" }),
                    dtype: dtypes[*d].to_string(),
                    shape: shape.clone(),
                })
                .collect();
            if let Ok(count) = count_parameters(&tensors, bits) {
                prop_assert!(count.routed_experts <= count.total);
                let _ = active_parameters(count, Some(8), Some(2));
            }
        }
    }
}
