//! The flat tables (`/api/tables/`) hold the API's own values, each fixture built into a site
//! of the layout Netlify publishes and read through the preview server's router: `models.csv`
//! cell by cell against every model's exact answer of the same site, `daily.csv` and `days.csv`
//! against its `/api/export` as the test reads it, `supply.csv` against its `/api/supply`; and
//! the edge example (a day not delivered, a day whose market total is unknown) renders unknowns
//! as empty cells, never 0.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use model_demand::preview::Site;
use model_demand::query::percent_encode;
use model_demand::site::edge::Layout;
use serde_json::Value;

/// A CSV document read by RFC 4180, independently of the writer: header and records.
pub fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut records = Vec::new();
    let (mut record, mut field) = (Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(
        !quoted && field.is_empty() && record.is_empty(),
        "the document ends a line"
    );
    let header = records.remove(0);
    for r in &records {
        assert_eq!(
            r.len(),
            header.len(),
            "every record has one field per column"
        );
    }
    (header, records)
}

/// A CSV document's records as maps of column to cell, in file order.
fn rows_of(bytes: &[u8]) -> Vec<BTreeMap<String, String>> {
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    assert!(!text.starts_with('\u{feff}'), "no byte-order mark");
    let (header, records) = parse_csv(text);
    records
        .into_iter()
        .map(|r| header.iter().cloned().zip(r).collect())
        .collect()
}

/// A table of the tables' files (`tables::files`) as maps of column to cell, in file order.
pub fn table(files: &[(String, Vec<u8>)], name: &str) -> Vec<BTreeMap<String, String>> {
    let path = format!("api/tables/{name}");
    let bytes = &files
        .iter()
        .find(|(p, _)| *p == path)
        .unwrap_or_else(|| panic!("{path} missing"))
        .1;
    rows_of(bytes)
}

/// A fixture built into a site of the layout Netlify publishes (`edge`), read through the
/// preview server's router: its tables and its JSON answers.
struct Built {
    _dir: tempfile::TempDir,
    site: Site,
    name: &'static str,
}

impl Built {
    fn new(name: &'static str) -> Built {
        let (inputs, catalog) = match name {
            "small" => common::small(),
            _ => {
                let inputs = common::load_fixture("tests/fixtures/edge");
                let now = model_demand::parse_now(EDGE_NOW).expect("now");
                let catalog = inputs.served_models(now);
                (inputs, catalog)
            }
        };
        let dir = common::tempdir().expect("temp dir");
        let root = dir.path().join("site");
        common::build_into(&inputs, &catalog, &root, Layout::Edge);
        Built {
            site: Site::open(&root).expect("the site opens"),
            _dir: dir,
            name,
        }
    }

    fn get(&self, target: &str) -> Vec<u8> {
        let answer = self.site.resolve("GET", target, None);
        assert_eq!(answer.status, 200, "{} {target}", self.name);
        self.site.read_body(&answer.body).expect("a body")
    }

    fn table(&self, file: &str) -> Vec<BTreeMap<String, String>> {
        rows_of(&self.get(&format!("/api/tables/{file}")))
    }

    fn json(&self, target: &str) -> Value {
        serde_json::from_slice(&self.get(target)).expect("JSON")
    }
}

/// Both fixtures, built.
fn both() -> [Built; 2] {
    [Built::new("small"), Built::new("edge")]
}

fn text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A model record flattened by the naming docs/api.md gives: a value object `x` as `x`,
/// `x_state`, `x_reason` (and `x_source_url`), its unit left out; fact and summary members by
/// their own names; trend and supply members with their object's name before them.
fn flatten(record: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let value_object = |out: &mut BTreeMap<String, String>, base: &str, object: &Value| {
        out.insert(base.to_string(), text(&object["value"]));
        for member in ["state", "reason", "source_url"] {
            if let Some(v) = object.get(member) {
                out.insert(format!("{base}_{member}"), text(v));
            }
        }
    };
    for (key, value) in record.as_object().expect("a record is an object") {
        match key.as_str() {
            "facts" => {
                for (fact, object) in value.as_object().expect("facts") {
                    value_object(&mut out, fact, object);
                }
            }
            "trend" | "supply" => {
                for (member, v) in value.as_object().expect("an object") {
                    if member == "summary" {
                        for (m, v) in v.as_object().into_iter().flatten() {
                            if v.get("state").is_some() {
                                value_object(&mut out, m, v);
                            } else {
                                out.insert(m.clone(), text(v));
                            }
                        }
                    } else {
                        out.insert(format!("{key}_{member}"), text(v));
                    }
                }
            }
            _ if value.get("state").is_some() => value_object(&mut out, key, value),
            _ => {
                out.insert(key.clone(), text(value));
            }
        }
    }
    out
}

/// `open_weights` and its evidence as docs/api.md defines them, from the record's facts:
/// false on `closed_weights`, true on an available `total_parameters` (else
/// `base_checkpoint_bytes`) with its `source_url`, else empty with the facts' reason.
fn open_weights(record: &Value) -> BTreeMap<String, String> {
    let facts = record["facts"].as_object().expect("facts");
    let has_reason = |code: &str| facts.values().any(|f| f["reason"] == code);
    let pinned = ["total_parameters", "base_checkpoint_bytes"]
        .into_iter()
        .find(|name| facts[*name]["state"] == "available");
    let (value, evidence, url) = if has_reason("closed_weights") {
        ("false", "closed_weights", String::new())
    } else if let Some(name) = pinned {
        (
            "true",
            "checkpoint_pinned",
            text(&facts[name]["source_url"]),
        )
    } else if has_reason("weights_access_unknown") {
        ("", "weights_access_unknown", String::new())
    } else if has_reason("open_checkpoint_unavailable") {
        ("", "open_checkpoint_unavailable", String::new())
    } else {
        ("", "no_checkpoint_evidence", String::new())
    };
    [
        ("open_weights", value.to_string()),
        ("open_weights_evidence", evidence.to_string()),
        ("open_weights_source_url", url),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

#[test]
fn open_weights_is_said_with_its_evidence_and_the_package_explains_the_states_once() {
    let edge = Built::new("edge");
    let rows = edge.table("models.csv");
    let row = |id: &str| {
        rows.iter()
            .find(|r| r["model_id"] == id)
            .unwrap_or_else(|| panic!("{id}"))
    };
    for (id, value, evidence) in [
        (
            "anthropic/claude-4.5-sonnet-20250929",
            "false",
            "closed_weights",
        ),
        ("deepseek/deepseek-r1-0528", "true", "checkpoint_pinned"),
        ("openrouter/polaris-alpha", "", "weights_access_unknown"),
        (
            "minimax/minimax-m2.5-20260211",
            "",
            "open_checkpoint_unavailable",
        ),
    ] {
        assert_eq!(row(id)["open_weights"], value, "{id}");
        assert_eq!(row(id)["open_weights_evidence"], evidence, "{id}");
        let url = &row(id)["open_weights_source_url"];
        assert_eq!(url.is_empty(), value != "true", "{id}: {url}");
    }
    // The last columns, after the record's.
    let header = String::from_utf8(edge.get("/api/tables/models.csv")).expect("UTF-8");
    let header = header.lines().next().expect("a header");
    assert!(header.ends_with(",open_weights,open_weights_evidence,open_weights_source_url"));
    let package = edge.json("/api/tables/datapackage.json");
    let states: Vec<&str> = package["states"]["availability"]
        .as_array()
        .expect("the availability states")
        .iter()
        .map(|s| s["state"].as_str().expect("a state"))
        .collect();
    assert_eq!(
        states,
        [
            "available",
            "unavailable",
            "not_publicly_cleared",
            "not_available",
            "not_found_under_policy"
        ]
    );
    assert_eq!(
        package["states"]["supply"].as_array().map(Vec::len),
        Some(5)
    );
    let models = &package["resources"][0]["schema"]["fields"];
    let field = |name: &str| {
        models
            .as_array()
            .expect("fields")
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
            .clone()
    };
    assert_eq!(field("open_weights")["type"], "boolean");
    assert_eq!(
        field("open_weights_evidence")["constraints"]["enum"]
            .as_array()
            .map(Vec::len),
        Some(5)
    );
}

/// The `--now` the edge example is read at.
pub const EDGE_NOW: &str = "2026-10-05T12:00:00Z";

#[test]
fn models_csv_is_every_record_of_the_api_cell_by_cell() {
    for built in both() {
        let rows = built.table("models.csv");
        let list = built.json("/api/v1/models?limit=100");
        let mut ids: Vec<&str> = list["models"]
            .as_array()
            .expect("models")
            .iter()
            .map(|m| m["model_id"].as_str().expect("an ID"))
            .collect();
        ids.sort_unstable();
        assert_eq!(rows.len(), ids.len(), "one row per served model, by ID");
        let mut columns_seen = BTreeSet::new();
        for (row, model_id) in rows.iter().zip(&ids) {
            let target = format!("/api/v1/models?model_id={}", percent_encode(model_id));
            let answer = built.json(&target);
            let record = &answer["models"][0];
            let mut expected = flatten(record);
            expected.extend(open_weights(record));
            for (column, value) in &expected {
                assert_eq!(
                    row.get(column),
                    Some(value),
                    "{} {model_id} {column}",
                    built.name
                );
                columns_seen.insert(column.clone());
            }
            // Columns the record has no value for are the summary's, empty with it.
            for (column, cell) in row {
                if !expected.contains_key(column) {
                    assert_eq!(record["supply"]["summary"], Value::Null, "{column}");
                    assert_eq!(cell, "", "{model_id} {column}");
                }
            }
        }
        let header: BTreeSet<String> = rows[0].keys().cloned().collect();
        assert_eq!(header, columns_seen, "one column per value of the record");
    }
}

fn int(text: &str) -> u128 {
    text.parse().expect("an integer string")
}

/// `share` is tokens over market, exact to 12 fractional digits, written plainly.
fn assert_share(share: &str, tokens: u128, market: u128, what: &str) {
    let exact = tokens as f64 / market as f64;
    let written: f64 = share.parse().expect("a number");
    assert!(
        (written - exact).abs() <= 0.6e-12,
        "{what}: {share} for {exact}"
    );
    let fraction = share.split_once('.').map_or("", |(_, f)| f);
    assert!(
        fraction.len() <= 12 && !fraction.ends_with('0'),
        "{what}: {share}"
    );
}

#[test]
fn daily_and_days_csv_are_the_export_whole_history() {
    for built in both() {
        let dir = built.name;
        // The site's own export feed, read by this test, not by the gate.
        let export = built.json("/api/export");
        let days = export["days"].as_array().expect("days");
        // daily.csv: every row of every day, ranked by tokens then ID, in date and rank order.
        let mut expected = Vec::new();
        for day in days {
            let date = day["date"].as_str().expect("date");
            let mut rows: Vec<(String, u128)> = day["rows"]
                .as_array()
                .expect("rows")
                .iter()
                .map(|r| (text(&r["model_id"]), int(&text(&r["total_tokens"]))))
                .collect();
            rows.sort_by(|a, b| {
                b.1.cmp(&a.1)
                    .then_with(|| a.0.as_bytes().cmp(b.0.as_bytes()))
            });
            let other = day["other_tokens"].as_str().map(int);
            let market = other.map(|o| o + rows.iter().map(|r| r.1).sum::<u128>());
            for (rank, (model_id, tokens)) in rows.into_iter().enumerate() {
                expected.push((date.to_string(), model_id, rank + 1, tokens, market));
            }
        }
        let daily = built.table("daily.csv");
        assert_eq!(
            daily.len(),
            expected.len(),
            "{dir}: one row per (date, model)"
        );
        for (row, (date, model_id, rank, tokens, market)) in daily.iter().zip(&expected) {
            let what = format!("{dir} {date} {model_id}");
            assert_eq!((&row["date"], &row["model_id"]), (date, model_id), "{what}");
            assert_eq!(row["rank"], rank.to_string(), "{what}");
            assert_eq!(row["tokens"], tokens.to_string(), "{what}");
            match market {
                Some(m) => assert_share(&row["share"], *tokens, *m, &what),
                None => assert_eq!(row["share"], "", "{what}: unknown market, no share"),
            }
        }
        // The records are sums and ranks of the same rows.
        let head = built.json("/api/v1/models?limit=1");
        let start = head["window"]["start_date"]
            .as_str()
            .expect("start")
            .to_string();
        let end = head["window"]["end_date"]
            .as_str()
            .expect("end")
            .to_string();
        for record in built.table("models.csv") {
            let model_id = &record["model_id"];
            let on_end = daily
                .iter()
                .find(|r| r["model_id"] == *model_id && r["date"] == end);
            assert_eq!(
                on_end.map_or("", |r| &r["rank"]),
                record["latest_rank"],
                "{model_id}"
            );
            if !record["tokens_30d"].is_empty() {
                let sum: u128 = daily
                    .iter()
                    .filter(|r| {
                        r["model_id"] == *model_id && r["date"] >= start && r["date"] <= end
                    })
                    .map(|r| int(&r["tokens"]))
                    .sum();
                assert_eq!(sum.to_string(), record["tokens_30d"], "{model_id}");
            }
        }

        // days.csv: every date from the first (or the window's) to the window's last.
        let by_date: BTreeMap<&str, &Value> = days
            .iter()
            .map(|d| (d["date"].as_str().expect("date"), d))
            .collect();
        let rows = built.table("days.csv");
        let first = by_date.keys().next().copied().unwrap_or(&start);
        assert_eq!(rows[0]["date"], first.min(start.as_str()));
        assert_eq!(rows[rows.len() - 1]["date"], end);
        for pair in rows.windows(2) {
            let next = model_demand::input::validate::parse_date(&pair[0]["date"])
                .and_then(|d| d.next_day())
                .expect("a date with a next day");
            assert_eq!(
                pair[1]["date"],
                model_demand::input::validate::format_date(next),
                "no date skipped"
            );
        }
        for row in &rows {
            match by_date.get(row["date"].as_str()) {
                None => {
                    assert_eq!(row["delivered"], "false");
                    assert_eq!(
                        (
                            &row["rows"][..],
                            &row["other_tokens"][..],
                            &row["market_tokens"][..]
                        ),
                        ("", "", "")
                    );
                }
                Some(day) => {
                    let listed = day["rows"].as_array().expect("rows");
                    assert_eq!(row["delivered"], "true");
                    assert_eq!(row["rows"], listed.len().to_string());
                    assert_eq!(row["other_tokens"], text(&day["other_tokens"]));
                    let market = day["other_tokens"].as_str().map(|o| {
                        int(o)
                            + listed
                                .iter()
                                .map(|r| int(&text(&r["total_tokens"])))
                                .sum::<u128>()
                    });
                    assert_eq!(
                        row["market_tokens"],
                        market.map(|m| m.to_string()).unwrap_or_default()
                    );
                }
            }
        }
    }
}

/// A supply decimal in plain form, as the test writes it: no trailing fractional zeros.
fn plain(text: &str) -> String {
    match text.split_once('.') {
        Some(_) => text.trim_end_matches('0').trim_end_matches('.').to_string(),
        None => text.to_string(),
    }
}

/// The decimal members of a supply endpoint.
const DECIMALS: [&str; 5] = [
    "input_price_per_million",
    "output_price_per_million",
    "latency_ms",
    "throughput_tokens_per_second",
    "uptime_percent",
];

#[test]
fn supply_csv_is_every_listed_endpoint_of_the_feed() {
    for built in both() {
        let dir = built.name;
        let feed = built.json("/api/supply");
        let mut expected = Vec::new();
        for collection in feed["collections"].as_array().expect("collections") {
            let mut routes: Vec<&Value> = collection["routes"]
                .as_array()
                .expect("routes")
                .iter()
                .collect();
            routes.sort_by_key(|r| text(&r["route_id"]));
            for route in routes {
                for (index, endpoint) in route["endpoints"]
                    .as_array()
                    .expect("endpoints")
                    .iter()
                    .enumerate()
                {
                    let mut row = BTreeMap::from([
                        (
                            "collection_finished_at".to_string(),
                            text(&collection["finished_at"]),
                        ),
                        ("route_id".to_string(), text(&route["route_id"])),
                        ("model_id".to_string(), text(&route["model_id"])),
                        ("route_type".to_string(), text(&route["route_type"])),
                        ("endpoint_index".to_string(), index.to_string()),
                    ]);
                    for (member, value) in endpoint.as_object().expect("an endpoint") {
                        let cell = match value {
                            Value::String(s) if DECIMALS.contains(&member.as_str()) => plain(s),
                            other => text(other),
                        };
                        row.insert(member.clone(), cell);
                    }
                    expected.push(row);
                }
            }
        }
        let rows = built.table("supply.csv");
        assert!(!expected.is_empty());
        assert_eq!(rows, expected, "{dir}");
    }
}

#[test]
fn the_edge_example_leaves_unknowns_empty_never_zero() {
    let built = Built::new("edge");
    let days = built.table("days.csv");
    let missing: Vec<&str> = days
        .iter()
        .filter(|d| d["delivered"] == "false")
        .map(|d| d["date"].as_str())
        .collect();
    let unknown_market: Vec<&str> = days
        .iter()
        .filter(|d| d["delivered"] == "true" && d["market_tokens"].is_empty())
        .map(|d| d["date"].as_str())
        .collect();
    assert_eq!(
        missing,
        ["2026-09-23"],
        "the day the source did not deliver"
    );
    assert_eq!(
        unknown_market,
        ["2026-09-14"],
        "the day without the source's remainder"
    );
    let daily = built.table("daily.csv");
    assert!(
        daily.iter().all(|r| r["date"] != "2026-09-23"),
        "no row of a missing day"
    );
    let on_unknown: Vec<_> = daily.iter().filter(|r| r["date"] == "2026-09-14").collect();
    assert_eq!(on_unknown.len(), 50);
    assert!(on_unknown
        .iter()
        .all(|r| r["share"].is_empty() && !r["tokens"].is_empty()));

    // Every empty value of models.csv is unknown with a reason, and every known one available.
    let models = built.table("models.csv");
    let mut empty_values = 0;
    for row in &models {
        for (column, cell) in row {
            let Some(state) = row.get(&format!("{column}_state")) else {
                continue;
            };
            let reason = &row[&format!("{column}_reason")];
            if row["supply_state"] != "available" && state.is_empty() {
                continue; // a summary value of a model without a summary
            }
            if cell.is_empty() {
                empty_values += 1;
                assert!(
                    state != "available" && !reason.is_empty(),
                    "{} {column}",
                    row["model_id"]
                );
            } else {
                assert!(
                    state == "available" && reason.is_empty(),
                    "{} {column}",
                    row["model_id"]
                );
            }
        }
    }
    assert!(empty_values > 0);
    let unknown_30d = models.iter().filter(|r| r["tokens_30d"].is_empty()).count();
    assert!(
        unknown_30d > 0,
        "the window has a missing day: 30-day totals are unknown"
    );
    assert!(models
        .iter()
        .all(|r| r["tokens_30d_reason"] == "source_day_missing" || !r["tokens_30d"].is_empty()));
}

/// The small fixture with the first endpoints of its latest collection's provider names and quantization labels replaced
/// by `names` (free text of the source), built into a site of the layout Netlify publishes.
pub fn small_with_providers(names: &[&str]) -> (tempfile::TempDir, Site) {
    let dir = common::tempdir().expect("temp dir");
    let fixture = common::crate_path("tests/fixtures/small");
    let mut supply: Value =
        serde_json::from_slice(&std::fs::read(fixture.join("supply.json")).expect("supply.json"))
            .expect("JSON");
    let endpoints = supply["collections"]
        .as_array_mut()
        .expect("collections")
        .iter_mut()
        .rev()
        .flat_map(|c| c["routes"].as_array_mut().expect("routes").iter_mut())
        .flat_map(|r| r["endpoints"].as_array_mut().expect("endpoints").iter_mut());
    for (endpoint, name) in endpoints.zip(names) {
        endpoint["provider"] = Value::from(*name);
        endpoint["quantization"] = Value::from(format!("{name}q"));
    }
    let supply_path = dir.path().join("supply.json");
    std::fs::write(&supply_path, serde_json::to_vec(&supply).expect("JSON")).expect("write");
    let inputs = model_demand::load(&fixture.join("export.json"), Some(&supply_path))
        .expect("free text is accepted");
    let now = model_demand::parse_now(common::SMALL_NOW).expect("now");
    let catalog = inputs.served_models(now);
    let root = dir.path().join("site");
    common::build_into(&inputs, &catalog, &root, Layout::Edge);
    let site = Site::open(&root).expect("opens");
    (dir, site)
}

/// Provider names a spreadsheet would run as formulas, and others.
pub const FORMULA_NAMES: [&str; 8] = [
    "=HYPERLINK(\"http://evil.test\",\"x\")",
    "+1+1",
    "-2+3",
    "@SUM(A1:A2)",
    "\tTabbed",
    "\rReturned",
    "'Apostrophe",
    "Plain=Name",
];

#[test]
fn text_a_spreadsheet_would_run_as_a_formula_gets_an_apostrophe_in_the_csv_cell_alone() {
    let names = FORMULA_NAMES;
    let (_dir, site) = small_with_providers(&names);
    let get = |target: &str| {
        let answer = site.resolve("GET", target, None);
        site.read_body(&answer.body).expect("a body")
    };
    let supply_csv = rows_of(&get("/api/tables/supply.csv"));
    let feed: Value = serde_json::from_slice(&get("/api/supply")).expect("JSON");
    let feed_text = feed.to_string();
    for name in names {
        let guarded = if name.starts_with(['=', '+', '-', '@', '\t', '\r', '\'']) {
            format!("'{name}")
        } else {
            name.to_string()
        };
        assert!(
            supply_csv.iter().any(|r| r["provider"] == guarded),
            "{name:?} as {guarded:?}"
        );
        assert!(
            supply_csv
                .iter()
                .any(|r| r["quantization"] == format!("{guarded}q")),
            "{name:?}"
        );
        assert!(
            !supply_csv.iter().any(|r| r["provider"] == name) || guarded == name,
            "{name:?} unguarded"
        );
        // The feed keeps the exact value.
        let exact = serde_json::to_string(name).expect("JSON");
        assert!(feed_text.contains(&exact), "{name:?} in the feed");
    }
    // Reversible: a text cell that begins with an apostrophe is the value without it.
    for row in &supply_csv {
        let provider = &row["provider"];
        let value = provider.strip_prefix('\'').unwrap_or(provider);
        assert!(
            names.contains(&value) || !provider.starts_with('\''),
            "{provider:?}"
        );
    }
    // Numbers are never guarded: a negative change stays a number.
    let models_csv = rows_of(&get("/api/tables/models.csv"));
    assert!(
        models_csv
            .iter()
            .any(|r| r["trend_percentage_point_change"].starts_with('-')),
        "the small fixture has a falling trend"
    );
    for row in &models_csv {
        for (column, cell) in row {
            assert!(!cell.starts_with('\''), "{column}: {cell:?}");
        }
    }
    // The summary's quantizations (a JSON array) keep the exact labels.
    let arrays: String = models_csv
        .iter()
        .map(|r| r["quantizations"].clone())
        .collect();
    assert!(arrays.contains("\"=HYPERLINK"), "{arrays}");
}
