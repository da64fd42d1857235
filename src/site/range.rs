//! Byte ranges of a site file as the CDN answers them (RFC 9110 §14): `Accept-Ranges: bytes`
//! on every file, one satisfiable range a 206 with its `Content-Range`, an unsatisfiable one a
//! 416 with `Content-Range: bytes */LENGTH`, and whatever this server does not honour
//! (a malformed, reversed or multi-range `Range`, another unit, a `Range` on `HEAD`, an
//! `If-Range` that is not the file's strong ETag) ignored: the whole file, 200. polars and
//! DuckDB's `httpfs` read tables by ranges, so the preview answers them as the CDN does.
//!
//! SECURITY: no request byte reaches a header: `Content-Range` is made of numbers the server
//! computed from the file's own length.

/// One range of a file of `length` bytes: the first and last byte, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    /// The first byte sent.
    pub first: u64,
    /// The last byte sent (included).
    pub last: u64,
}

impl ByteRange {
    /// Bytes in the range.
    pub fn len(self) -> u64 {
        self.last - self.first + 1
    }

    /// Never true: a range holds at least one byte.
    pub fn is_empty(self) -> bool {
        false
    }

    /// `bytes FIRST-LAST/LENGTH`, the 206's `Content-Range`.
    pub fn content_range(self, length: u64) -> String {
        format!("bytes {}-{}/{length}", self.first, self.last)
    }
}

/// What a `Range` header asks of a file of `length` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranged {
    /// No range to honour: the whole file (no header, a malformed, reversed or multi-range
    /// one, another unit).
    Whole,
    /// One satisfiable range: 206.
    Part(ByteRange),
    /// A well-formed range that no byte of the file satisfies: 416.
    Unsatisfiable,
}

/// `Content-Range: bytes */LENGTH`, the 416's.
pub fn unsatisfied_range(length: u64) -> String {
    format!("bytes */{length}")
}

/// Decides a request's `Range` (with its `If-Range`) against a file of `length` bytes whose
/// strong entity tag is `etag` (quoted, as the `ETag` header gives it).
pub fn decide(range: Option<&str>, if_range: Option<&str>, etag: &str, length: u64) -> Ranged {
    let Some(range) = range else {
        return Ranged::Whole;
    };
    // RFC 9110 §13.1.5: the range only when the validator is the current representation's,
    // compared strongly; a weak tag or a date (the site has no Last-Modified) never matches.
    if let Some(validator) = if_range {
        if validator.trim() != etag || etag.starts_with("W/") {
            return Ranged::Whole;
        }
    }
    match parse(range) {
        None => Ranged::Whole,
        Some(spec) => spec.resolve(length),
    }
}

/// A single range-spec as written: `first-[last]` or `-suffix` (RFC 9110 §14.1.1), with
/// numbers too large for 64 bits saturated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spec {
    From { first: u64, last: Option<u64> },
    Suffix(u64),
}

impl Spec {
    fn resolve(self, length: u64) -> Ranged {
        match self {
            Spec::From { first, .. } if first >= length => Ranged::Unsatisfiable,
            Spec::From { first, last } => Ranged::Part(ByteRange {
                first,
                last: last.map_or(length - 1, |last| last.min(length - 1)),
            }),
            Spec::Suffix(0) => Ranged::Unsatisfiable,
            Spec::Suffix(_) if length == 0 => Ranged::Unsatisfiable,
            Spec::Suffix(n) => Ranged::Part(ByteRange {
                first: length - n.min(length),
                last: length - 1,
            }),
        }
    }
}

/// `bytes=RANGE` with exactly one range-spec; `None` for anything else (another unit, a list,
/// a reversed or malformed range), which is then ignored.
fn parse(header: &str) -> Option<Spec> {
    let (unit, set) = header.trim().split_once('=')?;
    if !unit.eq_ignore_ascii_case("bytes") {
        return None;
    }
    // A list of more than one range is not honoured (multipart answers are not made); empty
    // list elements (`bytes=0-1,`) are allowed by the list rule and skipped.
    let mut specs = set.split(',').map(|s| s.trim_matches([' ', '\t']));
    let mut specs = specs.by_ref().filter(|s| !s.is_empty());
    let spec = specs.next()?;
    if specs.next().is_some() {
        return None;
    }
    let (first, last) = spec.split_once('-')?;
    if first.is_empty() {
        return Some(Spec::Suffix(digits(last)?));
    }
    let first = digits(first)?;
    let last = if last.is_empty() {
        None
    } else {
        Some(digits(last)?)
    };
    if last.is_some_and(|last| last < first) {
        return None;
    }
    Some(Spec::From { first, last })
}

/// A non-empty run of ASCII digits, saturated at `u64::MAX`.
fn digits(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.bytes().fold(0u64, |n, b| {
        n.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAG: &str = "\"abc\"";

    fn part(first: u64, last: u64) -> Ranged {
        Ranged::Part(ByteRange { first, last })
    }

    #[test]
    fn one_range_of_each_form() {
        for (header, expected) in [
            ("bytes=0-0", part(0, 0)),
            ("bytes=0-9", part(0, 9)),
            ("bytes=5-", part(5, 9)),
            ("bytes=5-500", part(5, 9)),
            ("bytes=-3", part(7, 9)),
            ("bytes=-30", part(0, 9)),
            ("BYTES=2-3", part(2, 3)),
            (" bytes=2-3 ", part(2, 3)),
            ("bytes=2-3,", part(2, 3)),
            ("bytes=9-99999999999999999999999", part(9, 9)),
            ("bytes=10-", Ranged::Unsatisfiable),
            ("bytes=10-20", Ranged::Unsatisfiable),
            ("bytes=99999999999999999999999-", Ranged::Unsatisfiable),
            ("bytes=-0", Ranged::Unsatisfiable),
        ] {
            assert_eq!(decide(Some(header), None, TAG, 10), expected, "{header}");
        }
        assert_eq!(
            decide(Some("bytes=-1"), None, TAG, 0),
            Ranged::Unsatisfiable
        );
        assert_eq!(
            decide(Some("bytes=0-"), None, TAG, 0),
            Ranged::Unsatisfiable
        );
    }

    #[test]
    fn malformed_reversed_and_multi_ranges_are_ignored() {
        for header in [
            "",
            "bytes",
            "bytes=",
            "bytes=-",
            "bytes=a-b",
            "bytes=5-2",
            "bytes=0-1,3-4",
            "bytes=0-1, 3-4",
            "bytes=+1-2",
            "bytes=1 -2",
            "bytes=0x1-2",
            "items=0-1",
            "bytes 0-1",
            "bytes=--1",
            "bytes=1-2-3",
            "bytes=١-٢",
        ] {
            assert_eq!(
                decide(Some(header), None, TAG, 10),
                Ranged::Whole,
                "{header:?}"
            );
        }
        assert_eq!(decide(None, Some(TAG), TAG, 10), Ranged::Whole);
    }

    #[test]
    fn if_range_gives_the_range_only_for_the_strong_etag() {
        let range = Some("bytes=1-2");
        assert_eq!(decide(range, Some(TAG), TAG, 10), part(1, 2));
        assert_eq!(decide(range, Some(" \"abc\" "), TAG, 10), part(1, 2));
        for other in [
            "\"abd\"",
            "W/\"abc\"",
            "abc",
            "*",
            "Sat, 28 Nov 2026 11:00:00 GMT",
            "",
        ] {
            assert_eq!(
                decide(range, Some(other), TAG, 10),
                Ranged::Whole,
                "{other}"
            );
        }
    }

    #[test]
    fn content_ranges_are_numbers() {
        let range = ByteRange { first: 2, last: 5 };
        assert_eq!(range.len(), 4);
        assert_eq!(range.content_range(10), "bytes 2-5/10");
        assert_eq!(unsatisfied_range(10), "bytes */10");
    }
}
