//! Checks of the primitive forms shared by both inputs: timestamps, dates, identifiers, codes,
//! URLs and integer strings. Each returns the typed value or records a problem at its path.

use std::cmp::Ordering;
use std::fmt;

use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time};

use crate::base::decimal::parse_canonical_uint;
use crate::input::json::{Problems, Raw};

/// Longest model or release ID accepted.
pub const MAX_ID_LEN: usize = 200;
/// A model, release or route ID, as a pattern (the contract's field table shows it too).
pub(crate) const MODEL_ID: &str = "^[A-Za-z0-9][A-Za-z0-9._:/-]*$";

/// A UTC instant written exactly as `YYYY-MM-DDTHH:MM:SSZ`; the text is kept so that it is
/// republished byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Timestamp {
    text: String,
    at: OffsetDateTime,
}

impl Timestamp {
    /// Parses the exact form; `None` for any other spelling or a date or time that does not exist.
    pub fn parse(text: &str) -> Option<Timestamp> {
        let b = text.as_bytes();
        let shape_ok = b.len() == 20
            && b.iter().enumerate().all(|(i, c)| match i {
                4 | 7 => *c == b'-',
                10 => *c == b'T',
                13 | 16 => *c == b':',
                19 => *c == b'Z',
                _ => c.is_ascii_digit(),
            });
        if !shape_ok {
            return None;
        }
        let num = |range: std::ops::Range<usize>| text[range].parse::<u16>().ok();
        let date = civil_date(num(0..4)?, num(5..7)?, num(8..10)?)?;
        let clock = Time::from_hms(
            u8::try_from(num(11..13)?).ok()?,
            u8::try_from(num(14..16)?).ok()?,
            u8::try_from(num(17..19)?).ok()?,
        )
        .ok()?;
        Some(Timestamp {
            text: text.to_string(),
            at: PrimitiveDateTime::new(date, clock).assume_utc(),
        })
    }

    /// The instant of a `time` value, written in the exact form (sub-seconds dropped).
    pub fn from_instant(at: OffsetDateTime) -> Timestamp {
        let at = at
            .to_offset(time::UtcOffset::UTC)
            .replace_nanosecond(0)
            .unwrap_or(at);
        let text = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute(),
            at.second()
        );
        Timestamp { text, at }
    }

    /// The timestamp as published.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The instant.
    pub fn instant(&self) -> OffsetDateTime {
        self.at
    }

    /// The UTC calendar date of the instant.
    pub fn date(&self) -> Date {
        self.at.date()
    }
}

impl Ord for Timestamp {
    fn cmp(&self, other: &Self) -> Ordering {
        self.at.cmp(&other.at)
    }
}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn civil_date(year: u16, month: u16, day: u16) -> Option<Date> {
    let month = Month::try_from(u8::try_from(month).ok()?).ok()?;
    Date::from_calendar_date(i32::from(year), month, u8::try_from(day).ok()?).ok()
}

/// Parses an exact `YYYY-MM-DD` calendar date that exists.
pub fn parse_date(text: &str) -> Option<Date> {
    let b = text.as_bytes();
    let shape_ok = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        });
    if !shape_ok {
        return None;
    }
    civil_date(
        text[0..4].parse().ok()?,
        text[5..7].parse().ok()?,
        text[8..10].parse().ok()?,
    )
}

/// Writes a date as `YYYY-MM-DD`.
pub fn format_date(date: Date) -> String {
    format!(
        "{:04}-{:02}-{:02}",
        date.year(),
        u8::from(date.month()),
        date.day()
    )
}

/// True for a model, release or route ID: `^[A-Za-z0-9][A-Za-z0-9._:/-]*$`, at most 200
/// characters. IDs are case-sensitive (DESIGN §2, amended 2026-11-25): real rankings rows carry
/// `perplexity/pplx-embed-v1-0.6B`, and `…-0.6B` and `…-0.6b` are two IDs.
pub fn is_model_id(text: &str) -> bool {
    let b = text.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_ID_LEN
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || b"._:/-".contains(c))
}

/// Which part of the ID rule `text` breaks, for a message naming it; `None` for an ID.
pub fn model_id_problem(text: &str) -> Option<&'static str> {
    let b = text.as_bytes();
    if b.is_empty() {
        Some("empty")
    } else if b.len() > MAX_ID_LEN {
        Some("longer than 200 characters")
    } else if !b[0].is_ascii_alphanumeric() {
        Some("does not start with A-Z, a-z or 0-9")
    } else if is_model_id(text) {
        None
    } else {
        Some("a character outside A-Z a-z 0-9 . _ : / -")
    }
}

/// True for a reason code: `^[a-z][a-z0-9_]*$`.
pub fn is_reason_code(text: &str) -> bool {
    let b = text.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
}

/// True for a name token such as an architecture or format: `^[a-z0-9][a-z0-9_.-]*$`.
pub fn is_name_token(text: &str) -> bool {
    let b = text.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || b"_.-".contains(c))
}

/// True for an absolute `https` URL with a host and no white space or control characters.
pub fn is_https_url(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("https://") else {
        return false;
    };
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    host_end > 0
        && !text
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '"' || c == '\\')
}

/// Reads a required timestamp member.
pub fn timestamp(problems: &mut Problems, path: &str, value: &Raw) -> Option<Timestamp> {
    let text = problems.string(path, value)?;
    let parsed = Timestamp::parse(text);
    if parsed.is_none() {
        problems.add(
            path,
            format!(
                "must be a UTC timestamp written YYYY-MM-DDTHH:MM:SSZ, got {}",
                value.describe()
            ),
        );
    }
    parsed
}

/// Reads a canonical integer string within `min..=max`.
pub fn integer_string(
    problems: &mut Problems,
    path: &str,
    value: &Raw,
    min: u128,
    max: u128,
) -> Option<u128> {
    let what = if min == 0 {
        "a non-negative integer string"
    } else {
        "a positive integer string"
    };
    let Raw::String(text) = value else {
        problems.add(path, format!("must be {what}, got {}", value.describe()));
        return None;
    };
    match parse_canonical_uint(text) {
        None => {
            problems.add(
                path,
                format!(
                    "must be {what} (digits only, no sign or leading zeros), got {}",
                    value.describe()
                ),
            );
            None
        }
        Some(n) if n < min => {
            problems.add(path, format!("must be {what}, got {}", value.describe()));
            None
        }
        Some(n) if n > max => {
            problems.add(
                path,
                format!("must be at most {max}, got {}", value.describe()),
            );
            None
        }
        Some(n) => Some(n),
    }
}

/// Reads a model, release or route ID string.
pub fn model_id(problems: &mut Problems, path: &str, value: &Raw) -> Option<String> {
    let text = problems.string(path, value)?;
    if is_model_id(text) {
        Some(text.to_string())
    } else {
        problems.add(
            path,
            format!(
                "must match {} with at most {MAX_ID_LEN} characters, got {}",
                MODEL_ID,
                value.describe()
            ),
        );
        None
    }
}

/// Checks that a string member equals a fixed value.
pub fn constant(problems: &mut Problems, path: &str, value: &Raw, expected: &str) {
    if problems.string(path, value).is_some_and(|s| s != expected) {
        problems.add(
            path,
            format!("must be {expected:?}, got {}", value.describe()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_need_the_exact_form_and_a_real_instant() {
        assert!(Timestamp::parse("2026-11-21T02:17:43Z").is_some());
        assert!(Timestamp::parse("2024-02-29T00:00:00Z").is_some());
        for bad in [
            "2026-11-21T02:17:43z",
            "2026-11-21t02:17:43Z",
            "2026-11-21T02:17:43.5Z",
            "2026-11-21T02:17:43+00:00",
            "2026-11-21 02:17:43Z",
            "2025-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-11-21T24:00:00Z",
            "2026-11-21T23:59:60Z",
            "2026-1-21T02:17:43Z",
        ] {
            assert!(Timestamp::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn dates_need_the_exact_form_and_a_real_day() {
        assert!(parse_date("2026-02-28").is_some());
        for bad in [
            "2026-02-29",
            "2026-2-28",
            "2026-02-28Z",
            "20260228",
            "2026-00-10",
        ] {
            assert!(parse_date(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn identifiers_and_codes() {
        assert!(is_model_id("deepseek/deepseek-chat-v3-0324:free"));
        // Case-sensitive and upper case allowed (DESIGN §2, amended 2026-11-25).
        assert!(is_model_id("perplexity/pplx-embed-v1-0.6B"));
        assert!(is_model_id("Deepseek/x"));
        assert!(!is_model_id("-x"));
        assert!(!is_model_id(""));
        assert!(!is_model_id("a b"));
        assert!(!is_model_id("é/x"));
        assert!(!is_model_id("a/x?y"));
        assert!(!is_model_id(&"a".repeat(201)));
        assert!(is_model_id(&"a".repeat(200)));
        assert!(is_reason_code("closed_weights"));
        assert!(!is_reason_code("Closed"));
        assert!(!is_reason_code("1x"));
        assert!(is_name_token("fp8"));
        assert!(is_name_token("q4_k.m-x"));
        assert!(!is_name_token("FP8"));
        assert!(is_https_url("https://huggingface.co/a/b"));
        assert!(!is_https_url("http://huggingface.co/a"));
        assert!(!is_https_url("https:///a"));
        assert!(!is_https_url("https://a b"));
    }
}
