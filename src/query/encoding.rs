//! Text forms of request values: percent-decoding of query components and paths (DESIGN §5),
//! percent-encoding for query strings, and request values quoted for error messages.

/// A request value quoted for an error message: its first `max` characters as a JSON string,
/// then `...` when it was longer. JSON quoting (not Rust's debug form) so that the edge
/// function, in JavaScript, writes byte-identical messages with `JSON.stringify`.
pub fn quote_value(text: &str, max: usize) -> String {
    let short: String = text.chars().take(max).collect();
    let ellipsis = if short.len() < text.len() { "..." } else { "" };
    let json = serde_json::to_string(&short).expect("a string always serializes");
    format!("{json}{ellipsis}")
}

/// A request value quoted at the length messages use for parameter values.
pub(super) fn quoted(text: &str) -> String {
    quote_value(text, 64)
}

/// Percent-decodes a query component as UTF-8, with `+` meaning space.
pub fn percent_decode(text: &str) -> Result<String, &'static str> {
    decode(text, true)
}

/// Percent-decodes a URL path as UTF-8 (`+` stays `+`).
pub fn percent_decode_path(text: &str) -> Result<String, &'static str> {
    decode(text, false)
}

fn decode(text: &str, plus_is_space: bool) -> Result<String, &'static str> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' if plus_is_space => out.push(b' '),
            b'%' => {
                let hex = |b: u8| (b as char).to_digit(16);
                let high = bytes.get(i + 1).copied().and_then(hex);
                let low = bytes.get(i + 2).copied().and_then(hex);
                match (high, low) {
                    (Some(h), Some(l)) => out.push((h * 16 + l) as u8),
                    _ => return Err("has an invalid percent escape"),
                }
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| "is not valid UTF-8 after percent-decoding")
}

/// Percent-encodes a value for a query string (unreserved characters kept).
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
