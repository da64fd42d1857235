//! Reading `config.json` as Python writes it: JSON with the bare tokens `NaN`, `Infinity` and
//! `-Infinity`, which serde_json refuses.

use serde_json::Value;

/// Parses `config.json` bytes written by Python: the bare tokens `NaN`, `Infinity` and
/// `-Infinity` outside strings are read as `null` (no fact needs their values). Returns the
/// configuration (a JSON object) or an error message.
pub(crate) fn parse_config(bytes: &[u8]) -> Result<Value, String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::config::{config_facts, Outcome};
    use serde_json::json;

    fn value(text: &str) -> Outcome {
        Outcome::Value(text.to_string())
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
        assert_eq!(config_facts(&config, &[]).architecture_type, value("llama"));
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
}
