//! The charts and the page's figures (issue 42): `/charts/share.svg` in both layouts with its
//! headers, byte-identical across builds and layouts, listed in the manifest, drawn again by
//! `verify`, inlined in and linked from the docs page; the edge example's missing day, unknown
//! market total, days outside the top 50 and a model with no known share as gaps and words,
//! never zero; every share drawn equal to `daily.csv`; the figures the page prints for the leading models equal to the API's
//! records as the independent oracle derives them, on the small fixture and the bundled sample.

use crate::common;

use std::collections::BTreeMap;

use model_demand::answers::addresses::CHART_PATHS;
use model_demand::answers::charts::{DayState, ShareChart, TrendChart, LEADING, MOVES};
use model_demand::answers::human::{human_points, human_relative, human_share};
use model_demand::preview::Site;
use model_demand::site::edge::Layout;
use model_demand::site::sha256_hex;
use rust_decimal::Decimal;
use serde_json::Value;

use crate::tables::{table, EDGE_NOW};

/// The edge example's inputs and catalog.
fn edge() -> (model_demand::Inputs, model_demand::records::ServedModels) {
    let inputs = common::load_fixture("tests/fixtures/edge");
    let catalog = inputs.served_models(model_demand::parse_now(EDGE_NOW).expect("now"));
    (inputs, catalog)
}

#[test]
fn each_chart_is_a_file_of_its_own_in_both_layouts() {
    let dir = common::tempdir().expect("temp dir");
    let mut bodies: BTreeMap<&str, Vec<Vec<u8>>> = BTreeMap::new();
    for (name, layout) in [
        ("full", Layout::Full),
        ("edge", Layout::Edge),
        ("again", Layout::Edge),
    ] {
        let root = dir.path().join(name);
        common::build_small_as(&root, layout);
        let site = Site::open(&root).expect("the site opens");
        let manifest = std::fs::read_to_string(root.join("manifest.json")).expect("manifest");
        let headers = std::fs::read_to_string(root.join("_headers")).expect("_headers");
        let page = std::fs::read_to_string(root.join("docs/index.html")).expect("page");
        for path in CHART_PATHS {
            let answer = site.resolve("GET", path, None);
            assert_eq!(answer.status, 200, "{name} {path}");
            assert_eq!(answer.header("Content-Type"), Some("image/svg+xml"));
            assert_eq!(answer.header("Access-Control-Allow-Origin"), Some("*"));
            let body = site.read_body(&answer.body).expect("body");
            let key = path.trim_start_matches('/');
            assert!(
                manifest.contains(&format!("\"{key}\"")),
                "{name}: {key} listed"
            );
            assert!(headers.contains(&format!("{path}\n  Content-Type: image/svg+xml\n")));
            // The page inlines the very element the file holds, and links the file.
            let text = String::from_utf8(body.clone()).expect("UTF-8");
            let element = text
                .split_once('\n')
                .map(|(_, svg)| svg.trim_end())
                .expect("an XML declaration, then the element");
            assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns="));
            assert!(page.contains(element), "{name}: the page inlines {path}");
            assert!(
                page.contains(&format!("href=\"{path}\"")),
                "{name}: links {path}"
            );
            assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
            bodies.entry(path).or_default().push(body);
        }
        for link in [
            "href=\"/api/tables/datapackage.json\"",
            "href=\"/api/tables/daily.csv\"",
            "href=\"/api/tables/models.csv\"",
        ] {
            assert!(page.contains(link), "{name}: the page links {link}");
        }
    }
    for (path, bodies) in bodies {
        assert!(
            bodies.windows(2).all(|w| w[0] == w[1]),
            "{path}: byte-identical across layouts and builds"
        );
    }

    // A site without data answers the charts' addresses with the JSON 503, as the tables.
    let none = dir.path().join("none");
    model_demand::site::build(
        &model_demand::site::SiteData::Unavailable,
        &model_demand::site::BuildOptions::new(&none),
    )
    .expect("builds");
    let site = Site::open(&none).expect("opens");
    for path in CHART_PATHS {
        let answer = site.resolve("GET", path, None);
        assert_eq!(answer.status, 503, "{path}");
        assert_eq!(answer.header("Content-Type"), Some("application/json"));
    }
}

#[test]
fn verify_names_a_chart_that_is_not_the_feeds_chart() {
    let dir = common::tempdir().expect("temp dir");
    let root = dir.path().join("site");
    common::build_small_as(&root, Layout::Edge);
    model_demand::verify::verify(&root).expect("a fresh build verifies");
    // One colour changed, the size kept and the manifest agreeing: only the chart's own check
    // can see it.
    let key = "charts/share.svg";
    let old = std::fs::read(root.join(key)).expect("chart");
    let text = String::from_utf8(old.clone())
        .expect("UTF-8")
        .replacen("#0b6bcb", "#0b6bcc", 1);
    std::fs::write(root.join(key), &text).expect("write");
    let manifest_path = root.join(model_demand::site::manifest::MANIFEST);
    let manifest = std::fs::read_to_string(&manifest_path)
        .expect("manifest")
        .replace(&sha256_hex(&old), &sha256_hex(text.as_bytes()));
    std::fs::write(&manifest_path, manifest).expect("write");
    match model_demand::verify::verify(&root) {
        Err(model_demand::base::error::Error::Verify(found)) => assert_eq!(
            found,
            [format!(
                "{key}: differs from the chart drawn again from the site's own feeds"
            )]
        ),
        other => panic!("expected the chart named, got {other:?}"),
    }
}

#[test]
fn the_edge_example_draws_gaps_never_zero() {
    let (inputs, catalog) = edge();
    let chart = ShareChart::of(&inputs.export, &catalog);
    let date = |i: usize| chart.dates[i].to_string();
    let state = |d: &str| {
        let i = (0..chart.dates.len()).find(|&i| date(i) == d).expect(d);
        (i, chart.days[i])
    };
    let (missing, s) = state("2026-09-23");
    assert_eq!(s, DayState::NotDelivered);
    let (unknown_market, s) = state("2026-09-14");
    assert_eq!(s, DayState::MarketUnknown);
    assert_eq!(chart.series.len(), LEADING);

    // Every point drawn is daily.csv's share of that (date, model); every other is a gap.
    let files = model_demand::answers::tables::files(&inputs, &catalog);
    let daily: BTreeMap<(String, String), String> = table(&files, "daily.csv")
        .into_iter()
        .map(|r| {
            (
                (r["date"].clone(), r["model_id"].clone()),
                r["share"].clone(),
            )
        })
        .collect();
    let mut outside = 0;
    for line in &chart.series {
        assert!(line.shares[missing].is_none() && line.shares[unknown_market].is_none());
        for (i, share) in line.shares.iter().enumerate() {
            let csv = daily.get(&(date(i), line.model_id.clone()));
            match (share, csv) {
                (Some((text, value)), Some(csv)) => {
                    assert_eq!(text, csv, "{} {}", line.model_id, date(i));
                    assert!(*value > 0.0);
                }
                (None, None) => {}
                // A row without a known market: no share, never zero.
                (None, Some(csv)) => assert_eq!(csv, "", "{} {}", line.model_id, date(i)),
                (Some(_), None) => panic!("{} {}: drawn without a row", line.model_id, date(i)),
            }
        }
        outside += line.days_outside;
    }
    assert!(
        outside > 0,
        "the edge example has leading models outside the top 50 some days"
    );
    let svg = chart.svg();
    assert!(
        svg.contains(">1 not delivered, 1 market total unknown<"),
        "{svg}"
    );

    // A model with no known share at all: no line, and the words say so.
    let none = ShareChart::new(
        &inputs.export,
        &["nobody/no-such-model".to_string()],
        "2026-10-04",
    );
    assert!(none.series[0].shares.iter().all(Option::is_none));
    let svg = none.svg();
    assert!(
        !svg.contains("<polyline") && !svg.contains("<circle"),
        "{svg}"
    );
    assert!(svg.contains("no known share"), "{svg}");
    assert!(none
        .description()
        .contains("nobody/no-such-model: no known share in the history"));

    // The page says why a 30-day total is unknown, in words, never a zero: every row is the
    // oracle's record, an unknown value "unknown" with its reason.
    let page = model_demand::answers::page::page(Some((&inputs, &catalog)), "https://x.test");
    let oracle = common::oracle::Inputs::fixture("tests/fixtures/edge", EDGE_NOW);
    let body = oracle
        .bodies(&["sort=latest_rank&order=asc&limit=100".to_string()])
        .remove(0);
    common::docs_table::assert_rows_are_the_records(
        &crate::docs::rows(&page),
        body["models"].as_array().expect("models"),
    );
    assert!(page.contains("a day outside the top 50"));
    assert!(page.contains("a day not delivered"));
    assert!(page.contains(">1 not delivered, 1 market total unknown<"));
}

/// The figures the page prints in the first rows of its table and in the chart's table.
fn printed(page: &str) -> Vec<(String, BTreeMap<String, String>)> {
    let mut rows = Vec::new();
    for chunk in page.split("<tr data-model-id=\"").skip(1) {
        let (id, rest) = chunk.split_once('"').expect("id");
        let row = rest.split("</tr>").next().expect("row");
        let mut cells = BTreeMap::new();
        for cell in row.split("data-field=\"").skip(1) {
            let (field, rest) = cell.split_once('"').expect("field");
            let shown = rest
                .split_once('>')
                .and_then(|(_, t)| t.split("</td>").next())
                .expect("text");
            cells.insert(field.to_string(), shown.to_string());
        }
        rows.push((id.to_string(), cells));
    }
    rows
}

/// Asserts the leading rows print the records' values, formatted for people.
fn assert_leading_figures(page: &str, records: &[Value], daily: &[BTreeMap<String, String>]) {
    let rows = printed(page);
    let text = |v: &Value| {
        v.as_str()
            .map(str::to_string)
            .or(v.as_u64().map(|n| n.to_string()))
    };
    for ((id, cells), record) in rows.iter().zip(records).take(LEADING) {
        assert_eq!(id, record["model_id"].as_str().expect("id"));
        match record["latest_rank"]["value"].as_u64() {
            Some(rank) => assert_eq!(cells["latest_rank"], rank.to_string(), "{id}"),
            None => assert!(cells["latest_rank"].starts_with("unknown"), "{id}"),
        }
        if let Some(share) = text(&record["share_7d"]["value"]) {
            assert_eq!(cells["share_7d"], human_share(&share), "{id}");
        }
        // The trend in percentage points and as a relative change (issue 50).
        if let Some(pp) = text(&record["trend"]["percentage_point_change"]) {
            assert!(
                cells["trend"].contains(&human_points(&pp)),
                "{id}: {}",
                cells["trend"]
            );
        }
        if let Some(relative) = text(&record["trend"]["relative_change"]) {
            assert!(
                cells["trend"].contains(&format!("{} relative", human_relative(&relative))),
                "{id}: {}",
                cells["trend"]
            );
        }
        let summary = &record["supply"]["summary"];
        for (field, prefix) in [
            ("median_input_price_per_million", "$"),
            ("median_output_price_per_million", "$"),
        ] {
            match text(&summary[field]["value"]) {
                Some(v) => assert_eq!(cells[field], format!("{prefix}{v}"), "{id} {field}"),
                None => assert!(cells[field].starts_with("unknown"), "{id} {field}"),
            }
        }
        // The providers by name: at most three, the rest counted, never silently cut.
        match summary["listed_providers"]["value"].as_u64() {
            Some(n) => {
                let named = cells["providers"].matches("<li>").count() as u64;
                assert_eq!(named, n.min(3), "{id}: {}", cells["providers"]);
                if n > 3 {
                    assert!(
                        cells["providers"].contains(&format!("and {} more", n - 3)),
                        "{id}: {}",
                        cells["providers"]
                    );
                }
            }
            None => assert!(cells["providers"].starts_with("unknown"), "{id}"),
        }
        // The chart's table: its last known share is daily.csv's share of that date.
        let series = page
            .split(&format!("<li data-series=\"{id}\">"))
            .nth(1)
            .and_then(|r| r.split("</li>").next())
            .unwrap_or_else(|| panic!("{id} is drawn"));
        let last = series
            .split("data-share=\"last\" data-date=\"")
            .nth(1)
            .expect("a last share");
        let (date, rest) = last.split_once('"').expect("date");
        let value = rest
            .split("data-value=\"")
            .nth(1)
            .and_then(|v| v.split('"').next())
            .expect("value");
        let row = daily
            .iter()
            .rfind(|r| r["model_id"] == *id && !r["share"].is_empty())
            .expect("a share in daily.csv");
        assert_eq!(
            (date, value),
            (row["date"].as_str(), row["share"].as_str()),
            "{id}"
        );
        assert!(
            rest.contains(&format!(">{} on {date}<", human_share(value))),
            "{id}: {rest}"
        );
    }
}

#[test]
fn the_figures_printed_for_the_leading_models_equal_the_apis() {
    for (dir, now) in [
        ("tests/fixtures/small", common::SMALL_NOW),
        ("data/sample", common::SAMPLE_NOW),
    ] {
        let inputs = common::load_fixture(dir);
        let catalog = inputs.served_models(model_demand::parse_now(now).expect("now"));
        let page = model_demand::answers::page::page(Some((&inputs, &catalog)), "https://x.test");
        let oracle = common::oracle::Inputs::fixture(dir, now);
        let body = oracle
            .bodies(&["sort=latest_rank&order=asc&limit=100".to_string()])
            .remove(0);
        let records = body["models"].as_array().expect("models");
        let files = model_demand::answers::tables::files(&inputs, &catalog);
        assert_leading_figures(&page, records, &table(&files, "daily.csv"));
        // Facts only for the models that have any; the rest in one line.
        let blocks = page.matches("<details data-model=").count();
        let without = catalog
            .records
            .iter()
            .filter(|r| r.facts.0.iter().all(|f| f.value.is_none()))
            .count();
        assert_eq!(blocks + without, catalog.records.len(), "{dir}");
        assert!(!page.contains("(0 of 12 facts known)"), "{dir}");
        if without > 0 {
            assert!(page.contains(&format!("<p id=\"no-facts\" data-count=\"{without}\">")));
        }
        // One byte format: no "B bytes", no "k bytes".
        assert!(
            !page.contains(" bytes per token<") && !page.contains("B bytes"),
            "{dir}"
        );
    }
}

#[test]
fn the_trend_chart_draws_the_largest_moves_of_the_apis_trends() {
    for (dir, now) in [
        ("tests/fixtures/small", common::SMALL_NOW),
        ("tests/fixtures/edge", EDGE_NOW),
        ("data/sample", common::SAMPLE_NOW),
    ] {
        let inputs = common::load_fixture(dir);
        let catalog = inputs.served_models(model_demand::parse_now(now).expect("now"));
        let chart = TrendChart::of(&catalog);
        // Expected from the oracle's records: exact changes, compared as decimals.
        let oracle = common::oracle::Inputs::fixture(dir, now);
        let body = oracle.bodies(&["limit=100".to_string()]).remove(0);
        let mut known: Vec<(Decimal, String, String)> = Vec::new();
        let mut unknown = 0;
        for r in body["models"].as_array().expect("models") {
            match r["trend"]["percentage_point_change"].as_str() {
                Some(pp) => known.push((
                    pp.parse().expect("a decimal"),
                    pp.to_string(),
                    r["model_id"].as_str().expect("id").to_string(),
                )),
                None => unknown += 1,
            }
        }
        known.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.2.cmp(&b.2)));
        let mut expected: Vec<(String, String)> = known
            .iter()
            .filter(|k| k.0 > Decimal::ZERO)
            .take(MOVES)
            .map(|k| (k.2.clone(), k.1.clone()))
            .collect();
        let mut losses: Vec<(String, String)> = known
            .iter()
            .rev()
            .filter(|k| k.0 < Decimal::ZERO)
            .take(MOVES)
            .map(|k| (k.2.clone(), k.1.clone()))
            .collect();
        losses.reverse();
        expected.extend(losses);
        let drawn: Vec<(String, String)> = chart
            .moves
            .iter()
            .map(|m| (m.model_id.clone(), m.exact.clone()))
            .collect();
        assert_eq!(drawn, expected, "{dir}");
        assert_eq!(
            chart.unknown, unknown,
            "{dir}: unknown trends counted, not drawn"
        );
        assert_eq!(chart.others + drawn.len() + unknown, catalog.records.len());
        let svg = chart.svg();
        for m in &chart.moves {
            assert!(
                svg.contains(&format!("{} percentage points</title>", m.exact)),
                "{dir}: the exact change on hover"
            );
            assert!(
                svg.contains(&human_points(&m.exact).replace(" pp", "<")),
                "{dir}"
            );
        }
        assert!(svg.contains(&format!(">{unknown} unknown (a 7-day share unknown)<")));
    }
}
