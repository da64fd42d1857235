//! Request lines over the stdio limit get an answer: the line is read no further than the
//! limit (`stdio.rs` discards the rest as it streams past), and the request's `id` is read from
//! the line's start, the first [`MAX_LINE_BYTES`] bytes, all that is kept.

use rmcp::model::RequestId;

use super::message::{Refusal, INVALID_REQUEST};

/// The longest stdio line read (its newline included); a longer one is answered with an
/// Invalid Request error and discarded unread (no tool needs more than a few hundred bytes of
/// arguments), so one line never holds more memory than this. It lives here, with what a line
/// over it gets, so that `stdio.rs` depends on this module and not the reverse.
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024;

/// The error for a line over the limit, with the id its start holds (if any).
pub(crate) fn too_long(id: Option<RequestId>) -> Refusal {
    let message = format!(
        "Invalid Request: the request line is over {MAX_LINE_BYTES} bytes, the most this server \
         reads; it was discarded"
    );
    Refusal {
        id,
        code: INVALID_REQUEST,
        message,
    }
}

/// The `id` of the JSON-RPC message a line starts with, when that start holds it whole: the
/// first top-level member named `id`, with a number or string value. `None` when the start
/// ends first, the line is no JSON object, or the ID is `null` or of another type.
pub(crate) fn leading_id(start: &[u8]) -> Option<RequestId> {
    let bytes = start.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(start);
    let mut at = Scan { bytes, pos: 0 };
    at.expect(b'{')?;
    loop {
        at.skip_space();
        let key = at.string()?;
        at.expect(b':')?;
        at.skip_space();
        let value = at.value()?;
        if serde_json::from_slice::<String>(key).ok()? == "id" {
            return serde_json::from_slice(value).ok();
        }
        at.expect(b',')?;
    }
}

/// A cursor over a JSON text that may stop anywhere.
struct Scan<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Scan<'a> {
    fn skip_space(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.pos += 1;
        }
    }

    /// Skips space, then `byte`.
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_space();
        (*self.bytes.get(self.pos)? == byte).then(|| self.pos += 1)
    }

    /// A whole string, its quotes included.
    fn string(&mut self) -> Option<&'a [u8]> {
        let from = self.pos;
        if *self.bytes.get(self.pos)? != b'"' {
            return None;
        }
        self.pos += 1;
        loop {
            match *self.bytes.get(self.pos)? {
                b'"' => {
                    self.pos += 1;
                    return Some(&self.bytes[from..self.pos]);
                }
                b'\\' => self.pos += 2,
                _ => self.pos += 1,
            }
        }
    }

    /// A whole value: a string, an object or array to its closing bracket, or a number or
    /// literal followed by something (so known to be complete).
    fn value(&mut self) -> Option<&'a [u8]> {
        let from = self.pos;
        match *self.bytes.get(self.pos)? {
            b'"' => {
                self.string()?;
            }
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match *self.bytes.get(self.pos)? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.checked_sub(1)?;
                            if depth == 0 {
                                self.pos += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
            }
            _ => {
                while matches!(
                    self.bytes.get(self.pos)?,
                    b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z'
                ) {
                    self.pos += 1;
                }
            }
        }
        Some(&self.bytes[from..self.pos])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(start: &str) -> Option<RequestId> {
        leading_id(start.as_bytes())
    }

    #[test]
    fn the_id_is_read_from_the_start_of_the_line() {
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"argu"#),
            Some(RequestId::Number(7))
        );
        assert_eq!(
            id(r#" { "jsonrpc" : "2.0" , "id" : "a\"b" , "par"#),
            Some(RequestId::String("a\"b".into()))
        );
        // After members of every kind, and a key written with an escape.
        assert_eq!(
            id(r#"{"params":{"a":[1,{"b":"}"}]},"x":-1.5e3,"y":null,"\u0069d":12,"#),
            Some(RequestId::Number(12))
        );
        assert_eq!(id("\u{feff}{\"id\":3,"), Some(RequestId::Number(3)));
    }

    #[test]
    fn no_id_when_the_start_does_not_hold_it_whole() {
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":12"#), None, "maybe 123");
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":"ab"#), None);
        assert_eq!(id(r#"{"method":"x","params":{"id":4,"data":"..."#), None);
        assert_eq!(id(r#"{"id":null,"method":"x""#), None);
        assert_eq!(id(r#"{"id":1.5,"method":"x""#), None);
        assert_eq!(id(r#"[{"id":1}]"#), None);
        assert_eq!(id("not JSON"), None);
        assert_eq!(id(""), None);
    }
}
