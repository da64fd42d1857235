//! The docs page: its table shows exactly the model records' values, unknown as "unknown".

mod common;

use std::collections::BTreeMap;

use model_demand::query::{sorted_indices, Order, SortKey};

/// The cells of one table row: field → (data-value, shown text).
type Cells = BTreeMap<String, (String, String)>;

/// Rows of the page's table, with their model IDs.
fn rows(html: &str) -> Vec<(String, Cells)> {
    let mut out = Vec::new();
    for chunk in html.split("<tr data-model-id=\"").skip(1) {
        let (id, rest) = chunk.split_once('"').expect("id");
        let row = rest.split("</tr>").next().expect("row");
        let mut fields = BTreeMap::new();
        for cell in row.split("data-field=\"").skip(1) {
            let (field, rest) = cell.split_once('"').expect("field");
            let value = rest
                .split("data-value=\"")
                .nth(1)
                .and_then(|v| v.split('"').next())
                .expect("value");
            let shown = rest
                .split_once('>')
                .and_then(|(_, t)| t.split("</td>").next())
                .expect("text");
            fields.insert(field.to_string(), (value.to_string(), shown.to_string()));
        }
        out.push((id.to_string(), fields));
    }
    out
}

#[test]
fn the_table_shows_the_records_exactly() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let (_, catalog) = common::small();
    let html = std::fs::read_to_string(out.join("docs/index.html")).expect("docs page");
    let table = rows(&html);
    let order: Vec<&str> = sorted_indices(&catalog, SortKey::Tokens30d, Order::Desc)
        .into_iter()
        .map(|i| catalog.records[i].model_id.as_str())
        .collect();
    let shown: Vec<&str> = table.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(shown, order, "rows in 30-day token order");
    let fact = |r: &model_demand::records::ModelRecord, name: &str| {
        let i = model_demand::export::fact_index(name).expect("fact");
        r.facts.0[i].value.clone()
    };
    for (id, fields) in &table {
        let r = &catalog.records[catalog.find(id).expect("served")];
        let expect = [
            ("latest_rank", r.latest_rank.value.map(|v| v.to_string())),
            ("tokens_30d", r.tokens_30d.value.clone()),
            ("share_7d", r.share_7d.value.clone()),
            ("total_parameters", fact(r, "total_parameters")),
            ("active_parameters", fact(r, "active_parameters")),
            ("bf16_weights_bytes", fact(r, "bf16_weights_bytes")),
        ];
        for (field, value) in expect {
            let (data, text) = &fields[field];
            match value {
                Some(v) => assert_eq!(data, &v, "{id} {field}"),
                None => assert_eq!(
                    (data.as_str(), text.as_str()),
                    ("", "unknown"),
                    "{id} {field}"
                ),
            }
        }
        assert_eq!(fields["trend"].0, r.trend.direction, "{id}");
        assert_eq!(fields["supply_state"].0, r.supply.state, "{id}");
    }
    // Unknown values are never shown as zero.
    assert!(table
        .iter()
        .any(|(_, f)| f.values().any(|(_, t)| t == "unknown")));
    for needle in [
        "does not identify underserved models",
        "within_expected_update_window",
        "2026-03-02",
        "2026-03-31",
        "Licensed under CC BY 4.0",
        "/api/v1/about",
        "/api/openapi.json",
        "/api/export",
        "/api/supply",
        "<svg class=\"spark\"",
    ] {
        assert!(html.contains(needle), "docs page lacks {needle:?}");
    }
    assert!(
        !html.contains("http://") && !html.contains("<script") && !html.contains("<link"),
        "no external assets"
    );
    assert!(!html.contains("{{"), "unfilled placeholder");
}

#[test]
fn the_no_data_page_says_so() {
    let html = model_demand::docs::page(None);
    assert!(html.contains("No accepted data") && html.contains("503 data_unavailable"));
    assert!(!html.contains("{{"));
}

#[test]
fn every_fact_is_shown_with_a_link_to_its_evidence_or_its_reason() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let html = std::fs::read_to_string(out.join("docs/index.html")).expect("docs page");
    // Expected values straight from the input export, not from the records.
    let export: serde_json::Value = serde_json::from_slice(
        &std::fs::read(common::crate_path("tests/fixtures/small/export.json")).expect("fixture"),
    )
    .expect("json");
    let (_, catalog) = common::small();
    let mut seen = 0;
    for model in export["models"].as_array().expect("models") {
        let id = model["model_id"].as_str().expect("id");
        let block = html
            .split(&format!("<details data-model=\"{id}\">"))
            .nth(1)
            .and_then(|b| b.split("</details>").next());
        let Some(block) = block else {
            assert!(
                catalog.find(id).is_none(),
                "{id} is served but has no facts block"
            );
            continue;
        };
        seen += 1;
        for (name, fact) in model["facts"].as_object().expect("facts") {
            let dd = block
                .split(&format!("<dd data-fact=\"{name}\""))
                .nth(1)
                .and_then(|d| d.split("</dd>").next())
                .unwrap_or_else(|| panic!("{id} {name} shown"));
            match fact["value"].as_str() {
                Some(value) => {
                    assert!(
                        dd.contains(&format!("data-value=\"{value}\"")),
                        "{id} {name}: {dd}"
                    );
                    let url = fact["source_url"].as_str().expect("pinned");
                    assert!(dd.contains(&format!("href=\"{url}\"")), "{id} {name}: {dd}");
                }
                None => {
                    assert!(dd.contains("unknown"), "{id} {name}: {dd}");
                    let reason = fact["reason"].as_str().expect("reason");
                    assert!(dd.contains(reason), "{id} {name}: {dd}");
                }
            }
        }
    }
    assert_eq!(seen, catalog.records.len(), "one block per served model");
}
