//! Safetensors headers: reading the header length and the tensor table of a checkpoint file
//! (DESIGN §10). What the tensors count for is `parameters`'.

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

    }
}
