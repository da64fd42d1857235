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
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
