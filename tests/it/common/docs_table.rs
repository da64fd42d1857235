//! The docs page's ranked table against the model records: one comparison, used on the page's
//! HTML (tests/it/docs.rs) and on the DOM a browser rendered (tests/it/browser.rs). The records come
//! from the independent oracle, never from the code under test.

use std::collections::BTreeMap;

use serde_json::Value;

/// The cells of one table row: field → (data-value, shown text).
pub type Cells = BTreeMap<String, (String, String)>;

/// The small fixture's records in the page's order (the rank on the window's last day, as
/// `sort=latest_rank&order=asc` lists them), from the independent oracle.
pub fn oracle_records() -> Vec<Value> {
    let inputs = super::oracle::Inputs::fixture("tests/fixtures/small", super::SMALL_NOW);
    let body = inputs
        .bodies(&["sort=latest_rank&order=asc&limit=100".to_string()])
        .remove(0);
    body["models"].as_array().expect("models").clone()
}

/// The text of HTML (the browser's innerText is already text): tags removed.
fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// Asserts the rows are the records in their order, every cell carrying the record's exact
/// value, and an unknown value shown as "unknown" with its reason in words (never zero).
pub fn assert_rows_are_the_records(table: &[(String, Cells)], records: &[Value]) {
    let order: Vec<&str> = records
        .iter()
        .map(|r| r["model_id"].as_str().expect("id"))
        .collect();
    let shown: Vec<&str> = table.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(shown, order, "rows in the order of the latest rank");
    for ((id, fields), r) in table.iter().zip(records) {
        let text = |v: &Value| match v {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        };
        let expect = [
            ("latest_rank", text(&r["latest_rank"]["value"])),
            ("tokens_30d", text(&r["tokens_30d"]["value"])),
            ("share_7d", text(&r["share_7d"]["value"])),
            (
                "total_parameters",
                text(&r["facts"]["total_parameters"]["value"]),
            ),
            (
                "active_parameters",
                text(&r["facts"]["active_parameters"]["value"]),
            ),
            (
                "bf16_weights_bytes",
                text(&r["facts"]["bf16_weights_bytes"]["value"]),
            ),
        ];
        for (field, value) in expect {
            let (data, shown) = &fields[field];
            match value {
                Some(v) => {
                    assert_eq!(data, &v, "{id} {field}");
                    assert!(
                        !shown.is_empty() && shown != "unknown",
                        "{id} {field}: {shown:?}"
                    );
                }
                None => {
                    assert_eq!(data, "", "{id} {field}");
                    let reason = strip_tags(shown);
                    let reason = reason
                        .strip_prefix("unknown")
                        .unwrap_or_else(|| panic!("{id} {field}: {shown:?}"));
                    assert!(
                        !reason.trim().is_empty() && !reason.contains('_'),
                        "{id} {field}: the reason in words, not {shown:?}"
                    );
                }
            }
        }
        assert_eq!(fields["trend"].0, r["trend"]["direction"], "{id}");
        assert_eq!(fields["supply_state"].0, r["supply"]["state"], "{id}");
    }
    // Unknown values are never shown as zero.
    assert!(table
        .iter()
        .any(|(_, f)| f.values().any(|(_, t)| t.starts_with("unknown"))));
}
