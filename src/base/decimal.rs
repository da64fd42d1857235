//! Exact numbers: canonical integer strings, exact ratios rounded half-to-even to 12 fractional
//! digits, supply decimals, medians, and the plain decimal form every published value uses.

use std::str::FromStr;

use rust_decimal::Decimal;

/// Fractional digits kept for every fraction, ratio and percentage-point value.
pub(crate) const RATIO_DIGITS: usize = 12;

/// Largest number of digits a supply decimal may have before its point.
pub(crate) const SUPPLY_INTEGER_DIGITS: usize = 15;
/// Largest number of significant digits (trailing zeros ignored) a supply decimal may have
/// after its point. With [`SUPPLY_INTEGER_DIGITS`] this keeps every median exact in a 96-bit
/// decimal: a sum of two values stays below 2·10^27 units of 10^-12, and halving it adds one
/// digit.
pub(crate) const SUPPLY_FRACTION_DIGITS: usize = 12;

/// True when `text` is a number as JSON writes one (RFC 8259 §6): an optional leading minus,
/// digits without a leading zero, an optional point with digits, an optional exponent. The one
/// form the sources' decimal strings may take: no `+`, no underscores, no spaces, no `.5`.
pub(crate) fn is_json_number(text: &str) -> bool {
    let rest = text.strip_prefix('-').unwrap_or(text);
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let whole = digits(rest);
    if whole == 0 || (whole > 1 && rest.starts_with('0')) {
        return false;
    }
    let mut rest = &rest[whole..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let n = digits(fraction);
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    if let Some(exponent) = rest.strip_prefix(['e', 'E']) {
        let exponent = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        let n = digits(exponent);
        return n > 0 && n == exponent.len();
    }
    rest.is_empty()
}

/// Parses a canonical non-negative integer string (`^(0|[1-9][0-9]*)$`).
///
/// Returns `None` for anything else, including values that do not fit in `u128`.
pub(crate) fn parse_canonical_uint(text: &str) -> Option<u128> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if bytes.len() > 1 && bytes[0] == b'0' {
        return None;
    }
    text.parse().ok()
}

/// Writes `numerator / denominator` exactly rounded half-to-even to 12 fractional digits, in
/// plain form: no exponent, no `+`, trailing fractional zeros and a bare `.` removed, zero as
/// `"0"`, negatives with `-`.
///
/// Uses long division, so it is exact whenever `10 × denominator` fits in `i128`.
///
/// # Panics
///
/// Panics when `denominator` is not positive; callers divide by market totals and shares that
/// are known to be positive.
pub(crate) fn ratio(numerator: i128, denominator: i128) -> String {
    assert!(denominator > 0, "ratio needs a positive denominator");
    let negative = numerator < 0;
    let n = numerator.unsigned_abs();
    let d = denominator.unsigned_abs();
    let whole = n / d;
    let mut rest = n % d;
    let mut fraction = [0u8; RATIO_DIGITS];
    for digit in fraction.iter_mut() {
        rest *= 10;
        *digit = (rest / d) as u8;
        rest %= d;
    }
    // Half-to-even on the remainder left after the last kept digit.
    let last_odd = fraction[RATIO_DIGITS - 1] % 2 == 1;
    let round_up = match (rest * 2).cmp(&d) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Equal => last_odd,
        std::cmp::Ordering::Less => false,
    };
    let mut whole = whole;
    if round_up {
        let mut carry = true;
        for digit in fraction.iter_mut().rev() {
            if !carry {
                break;
            }
            if *digit == 9 {
                *digit = 0;
            } else {
                *digit += 1;
                carry = false;
            }
        }
        if carry {
            whole += 1;
        }
    }
    let mut text = whole.to_string();
    let used = fraction
        .iter()
        .rposition(|&digit| digit != 0)
        .map_or(0, |i| i + 1);
    if used > 0 {
        text.push('.');
        text.extend(
            fraction[..used]
                .iter()
                .map(|&digit| char::from(b'0' + digit)),
        );
    }
    if negative && text != "0" {
        text.insert(0, '-');
    }
    text
}

/// Why a supply decimal string was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DecimalError {
    /// Not of the form `^(0|[1-9][0-9]*)(\.[0-9]+)?$`.
    Form,
    /// More digits than the exact median arithmetic holds.
    TooManyDigits,
}

/// Parses a supply decimal string exactly.
pub(crate) fn parse_supply_decimal(text: &str) -> Result<Decimal, DecimalError> {
    let (whole, fraction) = match text.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (text, None),
    };
    // Canonical whole part: "0" or digits without a leading zero.
    if !is_digits(whole) || (whole.len() > 1 && whole.starts_with('0')) {
        return Err(DecimalError::Form);
    }
    let significant_fraction = match fraction {
        Some(f) if f.is_empty() || !is_digits(f) => return Err(DecimalError::Form),
        Some(f) => f.trim_end_matches('0'),
        None => "",
    };
    if whole.len() > SUPPLY_INTEGER_DIGITS || significant_fraction.len() > SUPPLY_FRACTION_DIGITS {
        return Err(DecimalError::TooManyDigits);
    }
    let exact = if significant_fraction.is_empty() {
        whole.to_string()
    } else {
        format!("{whole}.{significant_fraction}")
    };
    Decimal::from_str(&exact).map_err(|_| DecimalError::TooManyDigits)
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// The exact median of `values` (mean of the two middle values for an even count), or `None`
/// for an empty list. Values must come from [`parse_supply_decimal`], which keeps this exact.
pub(crate) fn median(values: &mut [Decimal]) -> Option<Decimal> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        return Some(values[mid]);
    }
    let sum = values[mid - 1].checked_add(values[mid])?;
    sum.checked_div(Decimal::TWO)
}

/// Writes a decimal in plain normal form: `"363.40"` becomes `"363.4"`, `"1007.0"` becomes
/// `"1007"`, zero is `"0"`.
pub(crate) fn plain(value: Decimal) -> String {
    value.normalize().to_string()
}

/// Digits grouped by threes with commas, as reports print counts (`1234567` → `1,234,567`).
pub fn grouped(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_grouped_by_threes() {
        for (digits, want) in [
            ("0", "0"),
            ("999", "999"),
            ("1000", "1,000"),
            ("1234567", "1,234,567"),
        ] {
            assert_eq!(grouped(digits), want);
        }
    }
    use proptest::prelude::*;

    #[test]
    fn json_numbers_and_nothing_else() {
        for good in [
            "0",
            "-0",
            "10",
            "0.0000025",
            "-1.5",
            "1e-7",
            "1E+30",
            "2.50e3",
        ] {
            assert!(is_json_number(good), "{good:?}");
        }
        for bad in [
            "", "-", "1_0", "+1", "01", ".5", "5.", "1e", "1e+", " 1", "1 ", "0x10", "1,5", "NaN",
            "1.2.3", "--1",
        ] {
            assert!(!is_json_number(bad), "{bad:?}");
        }
    }

    #[test]
    fn canonical_integers() {
        assert_eq!(parse_canonical_uint("0"), Some(0));
        assert_eq!(parse_canonical_uint("120"), Some(120));
        for bad in ["", "00", "01", "-5", "+5", "1.0", " 1", "1e3", "١"] {
            assert_eq!(parse_canonical_uint(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn ratio_rounds_half_to_even_at_twelve_digits() {
        // 0.5e-12 exactly: ties go to the even digit (0), 1.5e-12 to 2e-12.
        assert_eq!(ratio(1, 2_000_000_000_000), "0");
        assert_eq!(ratio(3, 2_000_000_000_000), "0.000000000002");
        assert_eq!(ratio(5, 2_000_000_000_000), "0.000000000002");
        // Just above and below the tie.
        assert_eq!(
            ratio(1_000_001, 2_000_000_000_000_000_000),
            "0.000000000001"
        );
        assert_eq!(ratio(999_999, 2_000_000_000_000_000_000), "0");
        assert_eq!(ratio(1, 3), "0.333333333333");
        assert_eq!(ratio(2, 3), "0.666666666667");
        assert_eq!(ratio(-2, 3), "-0.666666666667");
        assert_eq!(ratio(-1, 2_000_000_000_000), "0");
        assert_eq!(ratio(1, 1), "1");
        assert_eq!(ratio(0, 7), "0");
        assert_eq!(ratio(3, 2), "1.5");
        assert_eq!(ratio(-3, 2), "-1.5");
        // A carry through every digit into the whole part.
        assert_eq!(ratio(19_999_999_999_999, 10_000_000_000_000), "2");
    }

    #[test]
    fn supply_decimals_are_exact_and_plain() {
        let d = |s: &str| parse_supply_decimal(s).expect("valid decimal");
        assert_eq!(plain(d("363.40")), "363.4");
        assert_eq!(plain(d("1007.0")), "1007");
        assert_eq!(plain(d("0")), "0");
        assert_eq!(plain(d("0.000")), "0");
        assert_eq!(plain(d("1.50000000000000000000")), "1.5");
        for bad in [
            "", ".5", "5.", "01", "-1", "+1", "1e3", "1.2.3", " 1", "0x1",
        ] {
            assert_eq!(
                parse_supply_decimal(bad),
                Err(DecimalError::Form),
                "{bad:?}"
            );
        }
        assert_eq!(
            parse_supply_decimal("0.0000000000001"),
            Err(DecimalError::TooManyDigits)
        );
        assert_eq!(
            parse_supply_decimal("1234567890123456"),
            Err(DecimalError::TooManyDigits)
        );
    }

    #[test]
    fn medians() {
        let mut v: Vec<Decimal> = ["0.23", "0.88", "0.59", "0.3"]
            .iter()
            .map(|s| parse_supply_decimal(s).expect("valid"))
            .collect();
        assert_eq!(median(&mut v).map(plain).as_deref(), Some("0.445"));
        let mut odd: Vec<Decimal> = ["3", "1", "2"]
            .iter()
            .map(|s| parse_supply_decimal(s).expect("valid"))
            .collect();
        assert_eq!(median(&mut odd).map(plain).as_deref(), Some("2"));
        assert_eq!(median(&mut []), None);
    }

    /// Integers of every size from 1 digit to 10^36, signed or positive.
    fn magnitude(signed: bool) -> impl Strategy<Value = i128> {
        (0u32..=36).prop_flat_map(move |digits| {
            let top = 10i128.pow(digits);
            if signed {
                (-top..=top).boxed()
            } else {
                (1..=top).boxed()
            }
        })
    }

    /// Plain form: optional `-`, a whole part without leading zeros, at most 12 fractional
    /// digits with no trailing zero, and no `-0`.
    fn is_plain(text: &str) -> bool {
        let body = text.strip_prefix('-').unwrap_or(text);
        let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        digits(whole)
            && (whole == "0" || !whole.starts_with('0'))
            && (fraction.is_empty() || (digits(fraction) && fraction.len() <= RATIO_DIGITS))
            && !fraction.ends_with('0')
            && text != "-0"
    }

    /// A magnitude in base 10^9, least significant limb first, from decimal digits.
    fn big(digits: &str) -> Vec<u64> {
        let digits = digits.trim_start_matches('0');
        let mut limbs: Vec<u64> = digits
            .as_bytes()
            .rchunks(9)
            .map(|chunk| chunk.iter().fold(0, |v, b| v * 10 + u64::from(b - b'0')))
            .collect();
        trim(&mut limbs);
        limbs
    }

    fn trim(limbs: &mut Vec<u64>) {
        while limbs.last() == Some(&0) {
            limbs.pop();
        }
    }

    fn mul(a: &[u64], b: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; a.len() + b.len() + 1];
        for (i, x) in a.iter().enumerate() {
            let mut carry = 0;
            for (j, y) in b.iter().enumerate() {
                let v = out[i + j] + x * y + carry;
                out[i + j] = v % 1_000_000_000;
                carry = v / 1_000_000_000;
            }
            out[i + b.len()] += carry;
        }
        trim(&mut out);
        out
    }

    fn compare(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
        a.len()
            .cmp(&b.len())
            .then_with(|| a.iter().rev().cmp(b.iter().rev()))
    }

    /// a − b for a ≥ b.
    fn sub(a: &[u64], b: &[u64]) -> Vec<u64> {
        let mut out = a.to_vec();
        let mut borrow = 0;
        for (i, limb) in out.iter_mut().enumerate() {
            let take = b.get(i).copied().unwrap_or(0) + borrow;
            borrow = u64::from(*limb < take);
            *limb = *limb + borrow * 1_000_000_000 - take;
        }
        trim(&mut out);
        out
    }

    /// Checks `text` = n/d rounded to 12 digits, ties to even: with U = |text|·10^12, the error
    /// |U·d − |n|·10^12| is at most d/2, and equals d/2 only when U is even. The sign matches
    /// n's unless the value rounds to zero.
    fn nearest_even(text: &str, n: i128, d: i128) -> Result<(), String> {
        let negative = text.starts_with('-');
        if negative != (n < 0) && text != "0" {
            return Err("wrong sign".to_string());
        }
        let body = text.trim_start_matches('-');
        let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
        let units = big(&format!("{whole}{fraction:0<12}"));
        let scaled_n = mul(&big(&n.unsigned_abs().to_string()), &big("1000000000000"));
        let d_big = big(&d.to_string());
        let product = mul(&units, &d_big);
        let error = match compare(&product, &scaled_n) {
            std::cmp::Ordering::Less => sub(&scaled_n, &product),
            _ => sub(&product, &scaled_n),
        };
        match compare(&mul(&error, &[2]), &d_big) {
            std::cmp::Ordering::Greater => Err("not the nearest value".to_string()),
            std::cmp::Ordering::Equal if units.first().is_some_and(|l| l % 2 == 1) => {
                Err("a tie not to even".to_string())
            }
            _ => Ok(()),
        }
    }

    #[test]
    fn the_big_integer_reference_can_tell() {
        // The checker itself: it refuses a value one unit off, and a tie sent to odd.
        assert!(nearest_even("0.333333333333", 1, 3).is_ok());
        assert!(nearest_even("0.333333333334", 1, 3).is_err());
        assert!(nearest_even("0.000000000001", 3, 2_000_000_000_000).is_err());
        assert!(nearest_even("0.000000000002", 3, 2_000_000_000_000).is_ok());
        assert!(nearest_even("-0.5", 1, 2).is_err());
        let huge = 10i128.pow(36);
        assert!(nearest_even("1000000000000000000000000000000000000", huge, 1).is_ok());
        assert!(nearest_even("1000000000000000000000000000000000001", huge, 1).is_err());
    }

    proptest! {
        /// The rounded ratio is the nearest value with 12 fractional digits, ties to even, for
        /// numerators and denominators of every size up to 10^36 (a trend's percentage-point
        /// change is (a·d − c·b)·100 / (b·d) with 7-day totals up to 7·10^15 and market totals
        /// up to about 10^18). The reference is the definition itself, checked in base-10^9
        /// big integers by multiplication only: no division, no i128.
        #[test]
        fn ratio_is_nearest_with_ties_to_even(n in magnitude(true), d in magnitude(false)) {
            let text = ratio(n, d);
            prop_assert!(is_plain(&text), "{n}/{d} -> {text}");
            if let Err(why) = nearest_even(&text, n, d) {
                prop_assert!(false, "{n}/{d} -> {text}: {why}");
            }
        }

        /// Exact ties, built as n/d = (2u + 1) / (2·10^12), scaled by k (n and d up to 8·10^35):
        /// the last digit is even.
        #[test]
        fn ratio_ties_go_to_even(u in 0i128..10i128.pow(13), k in 1i128..4 * 10i128.pow(22), negative: bool) {
            let n = (2 * u + 1) * k * if negative { -1 } else { 1 };
            let d = 2 * k * 10i128.pow(12);
            let text = ratio(n, d);
            prop_assert!(is_plain(&text), "{n}/{d} -> {text}");
            if let Err(why) = nearest_even(&text, n, d) {
                prop_assert!(false, "{n}/{d} -> {text}: {why}");
            }
        }

        #[test]
        fn supply_decimal_round_trips(whole in 0u64..10u64.pow(15), frac in proptest::option::of("[0-9]{1,12}")) {
            let text = match &frac { Some(f) => format!("{whole}.{f}"), None => whole.to_string() };
            let value = parse_supply_decimal(&text).expect("in range");
            let expected = {
                let t = text.trim_end_matches('0');
                if frac.is_some() { t.trim_end_matches('.').to_string() } else { text.clone() }
            };
            let expected = if expected.is_empty() { "0".to_string() } else { expected };
            prop_assert_eq!(plain(value), expected);
        }
    }
}
