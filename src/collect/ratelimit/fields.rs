//! What a source's answer says about its rate limits, read from its header fields: the IETF
//! draft's `RateLimit` and `RateLimit-Policy` (every line, every bucket named), OpenRouter's
//! older `X-RateLimit-*` pair, and `Retry-After` in both of its forms (seconds or an HTTP date).
//!
//! Nothing here does arithmetic on instants: numbers stay numbers (`u64` seconds), so an
//! oversized value is only large, never a panic; the pacing model clamps them (`window.rs`).

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where one bucket stands, as one item of a `RateLimit` field says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Standing {
    /// The bucket's name (`api`, `resolvers`), when the item names one; else the request's own.
    pub bucket: Option<String>,
    /// Requests left in the window.
    pub remaining: u64,
    /// Seconds until the window resets.
    pub reset_seconds: u64,
}

/// A bucket's quota, as one item of a `RateLimit-Policy` field says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Quota {
    /// The bucket's name, when the item names one; else the request's own.
    pub bucket: Option<String>,
    /// Requests allowed per window.
    pub requests: u64,
    /// The window's length in seconds.
    pub window_seconds: u64,
}

/// One item of a structured-field list: its bare values (quoted strings or tokens) and its
/// `;key=value` parameters.
type Item = (Vec<String>, BTreeMap<String, String>);

fn items(field: &str) -> Vec<Item> {
    split_outside_quotes(field, ',')
        .into_iter()
        .map(|item| {
            let mut values = Vec::new();
            let mut params = BTreeMap::new();
            for part in split_outside_quotes(&item, ';') {
                let part = part.trim();
                match part.split_once('=') {
                    Some((k, v)) if !k.trim().starts_with('"') => {
                        params.insert(
                            k.trim().to_ascii_lowercase(),
                            v.trim().trim_matches('"').to_string(),
                        );
                    }
                    _ if !part.is_empty() => values.push(part.trim_matches('"').to_string()),
                    _ => {}
                }
            }
            (values, params)
        })
        .collect()
}

fn split_outside_quotes(text: &str, separator: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut quoted = false;
    for c in text.chars() {
        if c == separator && !quoted {
            parts.push(String::new());
            continue;
        }
        if c == '"' {
            quoted = !quoted;
        }
        if let Some(part) = parts.last_mut() {
            part.push(c);
        }
    }
    parts
}

/// A non-negative integer parameter: digits only (no sign, no fraction), saturating at
/// `u64::MAX` rather than refused, since "very large" is what such a value says.
fn number(params: &BTreeMap<String, String>, key: &str) -> Option<u64> {
    whole_number(params.get(key)?)
}

/// Digits only, saturating at `u64::MAX`.
fn whole_number(text: &str) -> Option<u64> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.parse::<u64>().unwrap_or(u64::MAX))
}

/// Reads a `RateLimit` field (its lines joined with `,`): each item `"name";r=REMAINING;t=SECONDS`.
/// An item without both numbers is skipped; a field that says nothing readable gives nothing.
pub(crate) fn parse_ratelimit(field: &str) -> Vec<Standing> {
    items(field)
        .into_iter()
        .filter_map(|(values, params)| {
            Some(Standing {
                bucket: values.into_iter().next(),
                remaining: number(&params, "r")?,
                reset_seconds: number(&params, "t")?,
            })
        })
        .collect()
}

/// Reads a `RateLimit-Policy` field: items such as `"fixed window";"api";q=500;w=300` (the
/// name is the last quoted value: Hugging Face writes the window kind first).
pub(crate) fn parse_policy(field: &str) -> Vec<Quota> {
    items(field)
        .into_iter()
        .filter_map(|(values, params)| {
            Some(Quota {
                bucket: values.into_iter().last(),
                requests: number(&params, "q")?,
                window_seconds: number(&params, "w")?,
            })
        })
        .collect()
}

/// What the rate-limit fields of one answer say, about every bucket they name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Signals {
    /// Every `RateLimit` item, in the order sent.
    pub standings: Vec<Standing>,
    /// Every `RateLimit-Policy` item, in the order sent.
    pub quotas: Vec<Quota>,
}

impl Signals {
    /// The signals of an answer's `RateLimit` and `RateLimit-Policy` lines (a field sent on
    /// several lines is one list: RFC 9110 §5.3).
    pub(crate) fn read(ratelimit: &[&str], policy: &[&str]) -> Signals {
        Signals {
            standings: parse_ratelimit(&ratelimit.join(",")),
            quotas: parse_policy(&policy.join(",")),
        }
    }

    /// The older `X-RateLimit-Remaining` and `X-RateLimit-Reset` fields (OpenRouter sends them
    /// on its error answers, the reset in epoch milliseconds), taken for the request's own
    /// bucket unless an unnamed `RateLimit` item already speaks of it. `now_epoch_ms` is the
    /// wall clock.
    pub(crate) fn read_legacy(
        mut self,
        remaining: Option<&str>,
        reset: Option<&str>,
        now_epoch_ms: u128,
    ) -> Signals {
        if self.standings.iter().any(|s| s.bucket.is_none()) {
            return self;
        }
        let remaining = remaining.and_then(whole_number);
        let reset = reset.and_then(|r| {
            let r = r.trim();
            r.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| r.parse::<u128>().unwrap_or(u128::MAX))
        });
        if let (Some(remaining), Some(reset)) = (remaining, reset) {
            // Epoch milliseconds; a value below 10^11 can only be epoch seconds.
            let reset_ms = if reset < 100_000_000_000 {
                reset * 1000
            } else {
                reset
            };
            let seconds = reset_ms.saturating_sub(now_epoch_ms).div_ceil(1000);
            self.standings.push(Standing {
                bucket: None,
                remaining,
                reset_seconds: u64::try_from(seconds).unwrap_or(u64::MAX),
            });
        }
        self
    }

    /// The standing of the request's own bucket (an item naming `own`, else one naming none).
    pub(crate) fn own_standing(&self, own: &str) -> Option<&Standing> {
        self.standings
            .iter()
            .find(|s| s.bucket.as_deref() == Some(own))
            .or_else(|| self.standings.iter().find(|s| s.bucket.is_none()))
    }
}

/// Reads `Retry-After`: delay-seconds, or an HTTP date (IMF-fixdate, RFC 850 or asctime: RFC
/// 9110 §10.2.3 and §5.6.7), as the time to wait from `now`. A date in the past is no wait; an
/// oversized number saturates (the pacing model clamps it). Anything else is not read.
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Some(seconds) = whole_number(value) {
        return Some(Duration::from_secs(seconds));
    }
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    let year = time::OffsetDateTime::from_unix_timestamp(i64::try_from(now).ok()?)
        .ok()?
        .year();
    let at = http_date(value, year)?;
    let at = u64::try_from(at.unix_timestamp()).ok()?;
    Some(Duration::from_secs(at.saturating_sub(now)))
}

fn http_date(value: &str, this_year: i32) -> Option<time::OffsetDateTime> {
    use time::macros::format_description;
    use time::PrimitiveDateTime;
    // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
    let imf = format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT. Its two-digit year is the most recent year with
    // those digits that is not more than 50 years ahead (RFC 9110 §5.6.7).
    let rfc850 = format_description!(
        "[weekday], [day]-[month repr:short]-[year repr:last_two] [hour]:[minute]:[second] GMT"
    );
    // asctime: Sun Nov  6 08:49:37 1994
    let asctime = format_description!(
        "[weekday repr:short] [month repr:short] [day padding:space] [hour]:[minute]:[second] [year]"
    );
    if let Ok(t) = PrimitiveDateTime::parse(value, imf) {
        return Some(t.assume_utc());
    }
    if let Ok(t) = PrimitiveDateTime::parse(value, asctime) {
        return Some(t.assume_utc());
    }
    let mut parsed = time::parsing::Parsed::new();
    let rest = parsed.parse_items(value.as_bytes(), rfc850).ok()?;
    if !rest.is_empty() {
        return None;
    }
    let two = i32::from(parsed.year_last_two()?);
    let mut year = this_year - this_year.rem_euclid(100) + two;
    if year > this_year + 50 {
        year -= 100;
    }
    let parsed = parsed.with_year(year)?;
    PrimitiveDateTime::try_from(parsed)
        .ok()
        .map(|t| t.assume_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hugging_face_fields_are_read_on_every_line_and_for_every_bucket() {
        assert_eq!(
            parse_ratelimit(r#""resolvers";r=0;t=55"#),
            [Standing {
                bucket: Some("resolvers".into()),
                remaining: 0,
                reset_seconds: 55
            }]
        );
        assert_eq!(
            parse_policy(r#""fixed window";"resolvers";q=3000;w=300"#),
            [Quota {
                bucket: Some("resolvers".into()),
                requests: 3000,
                window_seconds: 300
            }]
        );
        let two_lines = Signals::read(
            &[r#""api";r=12;t=40"#, r#""resolvers";r=3;t=40"#],
            &[r#""fixed window";"api";q=500;w=300"#],
        );
        assert_eq!(two_lines.standings.len(), 2);
        assert_eq!(
            two_lines.own_standing("resolvers").map(|s| s.remaining),
            Some(3)
        );
        assert_eq!(two_lines.own_standing("api").map(|s| s.remaining), Some(12));
        assert_eq!(two_lines.quotas[0].bucket.as_deref(), Some("api"));
    }

    #[test]
    fn oversized_numbers_saturate_and_odd_ones_are_not_read() {
        let huge = parse_ratelimit(r#""datasets";r=5;t=9999999999999999999999"#);
        assert_eq!(huge[0].reset_seconds, u64::MAX);
        for field in [
            "",
            "garbage",
            r#""api";r=x;t=1"#,
            r#""api";t=5"#,
            "r=-1;t=3",
            "r=1;t=+3",
            "r=1;t=3.5",
        ] {
            assert!(parse_ratelimit(field).is_empty(), "{field}");
        }
        assert!(parse_policy(r#""fixed window";"api";q=500"#).is_empty());
    }

    #[test]
    fn openrouter_error_fields_are_read_when_no_ratelimit_item_speaks_for_the_bucket() {
        let now_ms = 1_788_825_590_000;
        let legacy = Signals::default().read_legacy(Some("0"), Some("1788825600000"), now_ms);
        assert_eq!(
            legacy.standings,
            [Standing {
                bucket: None,
                remaining: 0,
                reset_seconds: 10
            }]
        );
        let seconds = Signals::default().read_legacy(Some("3"), Some("1788825600"), now_ms);
        assert_eq!(seconds.standings[0].reset_seconds, 10);
        let huge = Signals::default().read_legacy(
            Some("0"),
            Some("100000000000000000000000000000000000000000"),
            now_ms,
        );
        assert_eq!(huge.standings[0].reset_seconds, u64::MAX);
        let both =
            Signals::read(&["r=5;t=2"], &[]).read_legacy(Some("0"), Some("1788825600000"), now_ms);
        assert_eq!(both.standings.len(), 1, "RateLimit wins");
        assert_eq!(both.standings[0].remaining, 5);
    }

    #[test]
    fn retry_after_in_seconds_and_as_every_http_date_form() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777 - 21); // 21 s before the date
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after("18446744073709551616", now),
            Some(Duration::from_secs(u64::MAX))
        );
        for date in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(
                parse_retry_after(date, now),
                Some(Duration::from_secs(21)),
                "{date}"
            );
        }
        let later = UNIX_EPOCH + Duration::from_secs(784_111_777 + 5);
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", later),
            Some(Duration::ZERO),
            "a date in the past is no wait"
        );
        for odd in ["", "-1", "1.5", "soon", "Sun, 06 Nov 1994"] {
            assert_eq!(parse_retry_after(odd, now), None, "{odd}");
        }
    }
}
