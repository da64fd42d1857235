//! What the page and the charts share: text escaped for HTML and SVG, numbers and units in
//! human form (counts, bytes, shares, percentage points), and the order they list models in.
//! The exact figure of each is in the API; these are its readable faces.

use rust_decimal::Decimal;

use crate::query::{self, Order, SortKey};
use crate::records::ServedModels;

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A count in short human form with SI prefixes: `155850000000` → `155.85 B`.
pub fn human_count(digits: &str, unit: &str) -> String {
    let Ok(value) = digits.parse::<u128>() else {
        return escape(digits);
    };
    let steps = [(1e15, "P"), (1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")];
    let as_float = value as f64;
    for (scale, prefix) in steps {
        if as_float >= scale {
            return format!("{:.2} {prefix}{unit}", as_float / scale);
        }
    }
    format!("{value} {unit}").trim_end().to_string()
}

/// Bytes in decimal SI units with one decimal and the unit, the page's one byte format (the
/// exact figure is on hover and in the API): `141107412992` → `141.1 GB`.
pub fn human_bytes(digits: &str) -> String {
    let Ok(value) = digits.parse::<u128>() else {
        return escape(digits);
    };
    let steps = [
        (1e15, "PB"),
        (1e12, "TB"),
        (1e9, "GB"),
        (1e6, "MB"),
        (1e3, "kB"),
    ];
    let as_float = value as f64;
    for (scale, unit) in steps {
        if as_float >= scale {
            return format!("{:.1} {unit}", as_float / scale);
        }
    }
    format!("{value} B")
}

/// A fraction as a percentage with two decimals: `0.380053576914` → `38.01 %`.
pub fn human_share(fraction: &str) -> String {
    match fraction.parse::<Decimal>() {
        Ok(f) => format!("{} %", (f * Decimal::ONE_HUNDRED).round_dp(2)),
        Err(_) => escape(fraction),
    }
}

/// A percentage-point change with its sign and two decimals: `"1.234"` → `+1.23 pp`.
pub fn human_points(change: &str) -> String {
    match change.parse::<Decimal>() {
        Ok(d) => {
            let sign = if d > Decimal::ZERO { "+" } else { "" };
            format!("{sign}{:.2} pp", d.round_dp(2))
        }
        Err(_) => escape(change),
    }
}

/// A context length as people write it: binary thousands where the length is a whole number
/// of them (`131072` → `128K`, `1048576` → `1M`), else decimal ones (`200000` → `200K`,
/// `1000000` → `1M`), else a decimal with one digit (`32768.5` never occurs: `40960` →
/// `40K`, `12345` → `12.3K`). The exact figure is on hover and in the API.
pub fn human_context(digits: &str) -> String {
    let Ok(n) = digits.parse::<u64>() else {
        return escape(digits);
    };
    const KI: u64 = 1024;
    match n {
        0 => "0".to_string(),
        n if n % (KI * KI) == 0 => format!("{}M", n / (KI * KI)),
        n if n % KI == 0 => format!("{}K", n / KI),
        n if n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n % 1_000 == 0 => format!("{}K", n / 1_000),
        n if n < 1_000 => n.to_string(),
        n => format!("{:.1}K", n as f64 / 1_000.0),
    }
}

/// A ratio as a signed percentage with one decimal: `"0.0456"` → `+4.6 %`; `"-0.5"` → `-50.0 %`.
pub fn human_relative(ratio: &str) -> String {
    match ratio.parse::<Decimal>() {
        Ok(r) => {
            let percent = (r * Decimal::ONE_HUNDRED).round_dp(1);
            let sign = if percent > Decimal::ZERO { "+" } else { "" };
            format!("{sign}{percent:.1} %")
        }
        Err(_) => escape(ratio),
    }
}

/// The order of the page's table (and so of the chart's leading models): the API's
/// `sort=latest_rank&order=asc`, the rank on the window's last day, models without one after
/// the others by model ID. The first column is that rank, so the two agree.
pub fn table_order(catalog: &ServedModels) -> Vec<usize> {
    query::sorted_indices(catalog, SortKey::LatestRank, Order::Asc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_units() {
        assert_eq!(human_count("155850000000", ""), "155.85 B");
        assert_eq!(human_count("999", ""), "999");
        assert_eq!(human_bytes("141107412992"), "141.1 GB");
        assert_eq!(human_bytes("54000000000"), "54.0 GB");
        assert_eq!(human_points("1.234567"), "+1.23 pp");
        assert_eq!(human_points("-0.5"), "-0.50 pp");
        assert_eq!(human_share("0.380053576914"), "38.01 %");
        assert_eq!(human_share("0"), "0 %");
        assert_eq!(human_context("131072"), "128K");
        assert_eq!(human_context("1048576"), "1M");
        assert_eq!(human_context("10485760"), "10M");
        assert_eq!(human_context("200000"), "200K");
        assert_eq!(human_context("1000000"), "1M");
        assert_eq!(human_context("163840"), "160K");
        assert_eq!(human_context("12345"), "12.3K");
        assert_eq!(human_relative("0.0456"), "+4.6 %");
        assert_eq!(human_relative("-0.5"), "-50.0 %");
        assert_eq!(human_relative("0"), "0.0 %");
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
