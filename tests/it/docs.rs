//! The docs page: its table shows exactly the model records' values (as the independent oracle
//! derives them), in list order, unknown as "unknown".

use crate::common;

use common::docs_table::{assert_rows_are_the_records, oracle_records, Cells};

/// Rows of the page's table, with their model IDs.
pub(crate) fn rows(html: &str) -> Vec<(String, Cells)> {
    let mut out = Vec::new();
    for chunk in html.split("<tr data-model-id=\"").skip(1) {
        let (id, rest) = chunk.split_once('"').expect("id");
        let row = rest.split("</tr>").next().expect("row");
        let mut fields = std::collections::BTreeMap::new();
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
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let html = std::fs::read_to_string(out.join("docs/index.html")).expect("docs page");
    assert_rows_are_the_records(&rows(&html), &oracle_records());
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
        "/llms.txt",
        "&quot;--base-url&quot;, &quot;https://model-demand.netlify.app&quot;",
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\"",
    ] {
        assert!(html.contains(needle), "docs page lacks {needle:?}");
    }
    // The inline chart's XML namespace is a name, never fetched.
    let fetched = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(
        !fetched.contains("http://") && !html.contains("<script"),
        "no external assets"
    );
    // One link element: the icon, inline, so browsers ask for no /favicon.ico.
    assert_eq!(html.matches("<link").count(), 1);
    assert!(html
        .contains("<link rel=\"icon\" type=\"image/svg+xml\" href=\"data:image/svg+xml;base64,"));
    assert!(!html.contains("{{"), "unfilled placeholder");
}

#[test]
fn the_no_data_page_says_so() {
    let html = model_demand::answers::page::page(None, model_demand::site::DEFAULT_BASE_URL);
    assert!(html.contains("No accepted data") && html.contains("503 data_unavailable"));
    assert!(!html.contains("{{"));
}

#[test]
fn every_fact_is_shown_with_a_link_to_its_evidence_or_its_reason() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let html = std::fs::read_to_string(out.join("docs/index.html")).expect("docs page");
    // Expected values straight from the input export, not from the records.
    let export: serde_json::Value = serde_json::from_slice(
        &std::fs::read(common::crate_path("tests/fixtures/small/export.json")).expect("fixture"),
    )
    .expect("json");
    let served: Vec<String> = oracle_records()
        .iter()
        .map(|r| r["model_id"].as_str().expect("id").to_string())
        .collect();
    let mut seen = 0;
    for model in export["models"].as_array().expect("models") {
        let id = model["model_id"].as_str().expect("id");
        let block = html
            .split(&format!("<details data-model=\"{id}\">"))
            .nth(1)
            .and_then(|b| b.split("</details>").next());
        let known = model["facts"]
            .as_object()
            .expect("facts")
            .values()
            .any(|f| !f["value"].is_null());
        let Some(block) = block else {
            assert!(
                !(known && served.iter().any(|s| s == id)),
                "{id} is served with a known fact but has no facts block"
            );
            continue;
        };
        assert!(known, "{id}: a block without a known fact");
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
    let without = html
        .split("<p id=\"no-facts\" data-count=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .map_or(0, |n| n.parse::<usize>().expect("a count"));
    assert_eq!(
        seen + without,
        served.len(),
        "one block per served model with a known fact, the rest counted"
    );
}

/// Issue 50: the five questions at a glance on the small site, against the fixture's supply
/// feed and the oracle's records: providers by name, the cheapest first (input price, then
/// output price, each provider at its cheapest endpoint), three and the count of the rest; the
/// context as people write it; the cache with the length it is computed at; a model without a
/// route "unknown" with the reason in words; the share chart first, its legend lines distinct
/// and none for gaps that did not happen.
#[test]
fn the_five_questions_at_a_glance() {
    use serde_json::Value;
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let html = std::fs::read_to_string(out.join("docs/index.html")).expect("docs page");
    let latest = &common::small_latest_collection();
    let records = oracle_records();
    let table = rows(&html);
    let price = |e: &Value, m: &str| e[m].as_str().map(|p| p.parse::<f64>().expect("decimal"));
    let (mut named, mut unknown) = (0, 0);
    for ((id, cells), record) in table.iter().zip(&records) {
        let (count, shown) = &cells["providers"];
        if record["supply"]["state"] != "available" {
            let words = shown.strip_prefix("unknown").expect("unknown, never zero");
            // The reason in words (its code is only on hover, in the title).
            let text = words
                .split('>')
                .nth(1)
                .and_then(|t| t.split('<').next())
                .expect("words");
            assert!(!text.contains('_') && !text.is_empty(), "{id}: {shown}");
            unknown += 1;
            continue;
        }
        let route_id = &record["supply"]["summary"]["route_id"];
        let route = latest["routes"]
            .as_array()
            .expect("routes")
            .iter()
            .find(|r| &r["route_id"] == route_id)
            .expect("the route");
        let mut endpoints: Vec<&Value> = route["endpoints"]
            .as_array()
            .expect("list")
            .iter()
            .collect();
        let key = |e: &Value| {
            (
                price(e, "input_price_per_million").unwrap_or(f64::INFINITY),
                price(e, "output_price_per_million").unwrap_or(f64::INFINITY),
            )
        };
        endpoints.sort_by(|a, b| key(a).partial_cmp(&key(b)).expect("ordered"));
        let mut expected: Vec<&str> = Vec::new();
        for e in endpoints {
            let name = e["provider"].as_str().expect("provider");
            if !expected.contains(&name) {
                expected.push(name);
            }
        }
        let listed: Vec<&str> = shown
            .split("<li>")
            .skip(1)
            .map(|li| li.split(" <small>").next().expect("name"))
            .collect();
        let shown_names: Vec<&str> = expected.iter().copied().take(3).collect();
        assert_eq!(listed, shown_names, "{id}: the cheapest first");
        assert_eq!(count, &expected.len().to_string(), "{id}");
        if expected.len() > 3 {
            assert!(
                shown.contains(&format!("and {} more", expected.len() - 3)),
                "{id}"
            );
        }
        // The context as people write it.
        let (context, context_shown) = &cells["maximum_context_tokens"];
        if context == "131072" {
            assert_eq!(context_shown, "128K", "{id}");
        }
        named += 1;
    }
    assert!(named > 0 && unknown > 0, "{named} named, {unknown} unknown");
    // The cache beside the length it is computed at.
    let mut cached = 0;
    for ((id, cells), record) in table.iter().zip(&records) {
        let facts = &record["facts"];
        if let (Some(_), Some(length)) = (
            facts["full_sequence_attention_bytes"]["value"].as_str(),
            facts["calculation_sequence_length"]["value"].as_str(),
        ) {
            let shown = &cells["full_sequence_attention_bytes"].1;
            let k = length.parse::<u64>().expect("digits") / 1024;
            assert!(
                shown.contains(&format!("at {k}K tokens")) || shown.contains(" tokens</small>"),
                "{id}: {shown}"
            );
            cached += 1;
        }
    }
    assert!(cached > 0);
    // The share chart comes first, right below the lede; its legend lines are distinct, and the
    // small fixture (every day delivered and known) has no line for gaps.
    let chart = html.find("id=\"share-chart\"").expect("the share chart");
    assert!(chart < html.find("What this is not").expect("the note"));
    assert!(chart < html.find("<h2").expect("a section"));
    assert!(!html.contains("0 not delivered") && !html.contains("0 market total unknown"));
    let legend: Vec<&str> = html
        .split("<text x=\"36\" y=\"")
        .skip(1)
        .filter_map(|t| {
            t.split_once('>')
                .and_then(|(_, r)| r.split("</text>").next())
        })
        .collect();
    assert!(legend.len() >= 2, "{legend:?}");
    for (i, a) in legend.iter().enumerate() {
        assert!(!legend[i + 1..].contains(a), "two legend lines alike: {a}");
    }
}

/// Issue 50: beside each model, whether its weights are published: `models.csv`'s
/// `open_weights` (true, false or unknown) in words, the pinned evidence linked, an unknown
/// with its reason, never "closed".
#[test]
fn open_weights_beside_each_model_as_models_csv_says() {
    let dir = common::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    common::build_small(&out);
    let html = std::fs::read_to_string(out.join("docs/index.html")).expect("docs page");
    let csv = std::fs::read(out.join("api/tables/models.csv")).expect("models.csv");
    let table = crate::tables::table(&[("api/tables/models.csv".to_string(), csv)], "models.csv");
    let rows = rows(&html);
    assert_eq!(rows.len(), table.len());
    let mut seen = std::collections::BTreeMap::new();
    for (id, cells) in &rows {
        let row = table
            .iter()
            .find(|r| r["model_id"] == *id)
            .unwrap_or_else(|| panic!("{id} in models.csv"));
        let (value, shown) = &cells["open_weights"];
        assert_eq!(value, &row["open_weights"], "{id}");
        match value.as_str() {
            "true" => {
                let url = &row["open_weights_source_url"];
                assert!(shown.contains(&format!("href=\"{url}\"")), "{id}: {shown}");
                assert!(shown.contains("open weights"), "{id}: {shown}");
            }
            "false" => assert!(shown.contains("closed weights"), "{id}: {shown}"),
            _ => {
                assert!(shown.contains("weights: unknown, "), "{id}: {shown}");
                assert!(!shown.contains("closed"), "{id}: {shown}");
            }
        }
        *seen.entry(value.clone()).or_insert(0) += 1;
    }
    eprintln!("open_weights on the page, by value: {seen:?}");
    assert!(
        seen.len() >= 2,
        "the small fixture has more than one kind: {seen:?}"
    );
}
