//! Exact numbers: canonical integer strings, exact ratios rounded half-to-even to 12 fractional
//! digits, supply decimals, medians, and the plain decimal form every published value uses.

use std::str::FromStr;

use rust_decimal::Decimal;

/// Fractional digits kept for every fraction, ratio and percentage-point value.
pub const RATIO_DIGITS: usize = 12;

/// Largest number of digits a supply decimal may have before its point.
pub const SUPPLY_INTEGER_DIGITS: usize = 15;
/// Largest number of significant digits (trailing zeros ignored) a supply decimal may have
/// after its point. With [`SUPPLY_INTEGER_DIGITS`] this keeps every median exact in a 96-bit
/// decimal: a sum of two values stays below 2·10^27 units of 10^-12, and halving it adds one
/// digit.
pub const SUPPLY_FRACTION_DIGITS: usize = 12;

/// Parses a canonical non-negative integer string (`^(0|[1-9][0-9]*)$`).
///
/// Returns `None` for anything else, including values that do not fit in `u128`.
pub fn parse_canonical_uint(text: &str) -> Option<u128> {
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
pub fn ratio(numerator: i128, denominator: i128) -> String {
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
pub enum DecimalError {
    /// Not of the form `^(0|[1-9][0-9]*)(\.[0-9]+)?$`.
    Form,
    /// More digits than the exact median arithmetic holds.
    TooManyDigits,
}

/// Parses a supply decimal string exactly.
pub fn parse_supply_decimal(text: &str) -> Result<Decimal, DecimalError> {
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
pub fn median(values: &mut [Decimal]) -> Option<Decimal> {
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
pub fn plain(value: Decimal) -> String {
    value.normalize().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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

    proptest! {
        /// The rounded ratio is within half a unit of the 12th digit of the true value, and a
        /// tie always lands on an even last digit.
        #[test]
        fn ratio_is_nearest_with_ties_to_even(n in -10i128.pow(20)..10i128.pow(20), d in 1i128..10i128.pow(20)) {
            let text = ratio(n, d);
            let negative = text.starts_with('-');
            let body = text.trim_start_matches('-');
            let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
            prop_assert!(frac.len() <= RATIO_DIGITS && !frac.ends_with('0'));
            let padded = format!("{frac:0<12}");
            let units: i128 = whole.parse::<i128>().unwrap_or(0) * 10i128.pow(12) + padded.parse::<i128>().unwrap_or(0);
            let units = if negative { -units } else { units };
            // |units/10^12 - n/d| <= 1/2 * 10^-12  <=>  |units*d - n*10^12| * 2 <= d
            let error = (units * d - n * 10i128.pow(12)).abs();
            prop_assert!(error * 2 <= d, "{n}/{d} -> {text}");
            if error * 2 == d {
                prop_assert!(units % 2 == 0, "tie not to even: {n}/{d} -> {text}");
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
