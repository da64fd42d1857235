//! The gate: one test per validation rule of DESIGN §2–3, each on its own small fixture (the
//! small example with one mutation), asserting the exact JSON path and the message; then a
//! mutation fuzz over the small and edge inputs: every invalid mutation is refused, without a
//! panic, with a problem at the mutated JSON path, and the few mutations DESIGN allows are
//! accepted.

use crate::common;

use std::path::Path;

use model_demand::base::error::{Error, Problem};
use model_demand::input::json;
use serde_json::{json, Value};

fn base(which: &str) -> Value {
    let path = common::crate_path(&format!("tests/fixtures/small/{which}.json"));
    serde_json::from_slice(&std::fs::read(path).expect("fixture")).expect("fixture JSON")
}

fn problems_of(which: &str, text: &str) -> Vec<Problem> {
    let raw = json::parse(text.as_bytes(), Path::new("fixture.json")).expect("JSON");
    let result = match which {
        "export" => model_demand::input::export::validate(&raw).map(|_| ()),
        _ => model_demand::input::supply::validate(&raw).map(|_| ()),
    };
    result.err().unwrap_or_default()
}

/// Applies `mutate` to the small `which` fixture and asserts a problem at `path` whose message
/// contains `fragment`.
fn refused(which: &str, mutate: impl FnOnce(&mut Value), path: &str, fragment: &str) {
    let mut value = base(which);
    mutate(&mut value);
    let problems = problems_of(which, &value.to_string());
    assert!(
        problems
            .iter()
            .any(|p| p.path == path && p.message.contains(fragment)),
        "expected {path}: …{fragment}…, got {problems:#?}"
    );
}

macro_rules! rule {
    ($name:ident, $which:literal, |$v:ident| $mutate:expr, $path:literal, $fragment:literal) => {
        #[test]
        fn $name() {
            refused(
                $which,
                |$v: &mut Value| {
                    $mutate;
                },
                $path,
                $fragment,
            );
        }
    };
}

// Export: the document and its header.
rule!(
    unknown_top_level_member,
    "export",
    |v| v["extra"] = json!(1),
    "$.extra",
    "unknown member"
);
rule!(
    missing_member,
    "export",
    |v| v.as_object_mut().map(|o| o.remove("models")),
    "$.models",
    "required member is missing"
);
rule!(
    schema_version_constant,
    "export",
    |v| v["export_schema_version"] = json!("model-demand.export.v2"),
    "$.export_schema_version",
    "must be \"model-demand.export.v1\""
);
rule!(
    timestamp_needs_z,
    "export",
    |v| v["generated_at"] = json!("2026-04-01T03:00:00+00:00"),
    "$.generated_at",
    "YYYY-MM-DDTHH:MM:SSZ"
);
rule!(
    timestamp_no_fraction,
    "export",
    |v| v["generated_at"] = json!("2026-04-01T03:00:00.5Z"),
    "$.generated_at",
    "YYYY-MM-DDTHH:MM:SSZ"
);
rule!(
    timestamp_real_instant,
    "export",
    |v| v["evaluation_cutoff"] = json!("2026-02-30T00:00:00Z"),
    "$.evaluation_cutoff",
    "YYYY-MM-DDTHH:MM:SSZ"
);
rule!(
    fresh_until_form,
    "export",
    |v| v["fresh_until"] = json!(5),
    "$.fresh_until",
    "must be a string"
);
rule!(
    generated_not_before_cutoff,
    "export",
    |v| v["generated_at"] = json!("2026-03-31T23:00:00Z"),
    "$.generated_at",
    "must not be before evaluation_cutoff"
);
rule!(
    demand_source_name,
    "export",
    |v| v["demand_source"]["name"] = json!("OpenRuter"),
    "$.demand_source.name",
    "must be \"OpenRouter\""
);
rule!(
    demand_source_url,
    "export",
    |v| v["demand_source"]["url"] = json!("https://example.com"),
    "$.demand_source.url",
    "must be \"https://openrouter.ai/rankings\""
);
rule!(
    demand_source_terms,
    "export",
    |v| v["demand_source"]["terms_url"] = json!("https://openrouter.ai/tos"),
    "$.demand_source.terms_url",
    "must be \"https://openrouter.ai/terms\""
);
rule!(
    demand_source_license,
    "export",
    |v| v["demand_source"]["license"] = json!("MIT"),
    "$.demand_source.license",
    "must be \"CC BY 4.0\""
);
rule!(
    demand_source_unknown_member,
    "export",
    |v| v["demand_source"]["x"] = json!(null),
    "$.demand_source.x",
    "unknown member"
);
rule!(
    demand_source_checked_at,
    "export",
    |v| v["demand_source"]["checked_at"] = json!("yesterday"),
    "$.demand_source.checked_at",
    "UTC timestamp"
);
rule!(
    attribution_non_empty,
    "export",
    |v| v["demand_source"]["attribution"] = json!(""),
    "$.demand_source.attribution",
    "non-empty"
);

// Export: days and rows.
rule!(
    date_real,
    "export",
    |v| v["days"][3]["date"] = json!("2026-02-31"),
    "$.days[3].date",
    "calendar date"
);
rule!(
    date_form,
    "export",
    |v| v["days"][3]["date"] = json!("2026-2-28"),
    "$.days[3].date",
    "calendar date"
);
rule!(
    date_unique,
    "export",
    |v| v["days"][4]["date"] = v["days"][3]["date"].clone(),
    "$.days[4].date",
    "duplicate date"
);
rule!(
    date_not_after_window_end,
    "export",
    |v| v["days"][0]["date"] = json!("2026-04-01"),
    "$.days[0].date",
    "must not be later than the window end 2026-03-31"
);
rule!(
    day_unknown_member,
    "export",
    |v| v["days"][2]["note"] = json!("x"),
    "$.days[2].note",
    "unknown member"
);
rule!(
    other_tokens_canonical,
    "export",
    |v| v["days"][2]["other_tokens"] = json!("0100"),
    "$.days[2].other_tokens",
    "no sign or leading zeros"
);
rule!(
    other_tokens_bound,
    "export",
    |v| v["days"][2]["other_tokens"] = json!("100000000000000001"),
    "$.days[2].other_tokens",
    "at most 100000000000000000"
);
rule!(
    other_tokens_is_string,
    "export",
    |v| v["days"][2]["other_tokens"] = json!(5),
    "$.days[2].other_tokens",
    "non-negative integer string"
);
rule!(
    total_tokens_positive,
    "export",
    |v| v["days"][12]["rows"][3]["total_tokens"] = json!("-5"),
    "$.days[12].rows[3].total_tokens",
    "got \"-5\""
);
rule!(
    total_tokens_not_zero,
    "export",
    |v| v["days"][12]["rows"][3]["total_tokens"] = json!("0"),
    "$.days[12].rows[3].total_tokens",
    "positive integer string"
);
rule!(
    total_tokens_bound,
    "export",
    |v| v["days"][12]["rows"][3]["total_tokens"] = json!("1000000000000001"),
    "$.days[12].rows[3].total_tokens",
    "at most 1000000000000000"
);
rule!(
    row_unknown_member,
    "export",
    |v| v["days"][1]["rows"][0]["rank"] = json!(1),
    "$.days[1].rows[0].rank",
    "unknown member"
);
rule!(
    row_model_id_pattern,
    "export",
    |v| v["days"][1]["rows"][0]["model_id"] = json!("acme/al pha"),
    "$.days[1].rows[0].model_id",
    "must match ^[A-Za-z0-9][A-Za-z0-9._:/-]*$"
);
rule!(
    row_model_id_length,
    "export",
    |v| v["days"][1]["rows"][0]["model_id"] = json!("a".repeat(201)),
    "$.days[1].rows[0].model_id",
    "at most 200 characters"
);
rule!(
    row_model_unique_within_day,
    "export",
    |v| v["days"][1]["rows"][1]["model_id"] = v["days"][1]["rows"][0]["model_id"].clone(),
    "$.days[1].rows[1].model_id",
    "duplicate model"
);
rule!(
    at_most_fifty_rows,
    "export",
    |v| {
        let rows: Vec<Value> = (0..51)
            .map(|i| json!({"model_id": format!("m/{i}"), "total_tokens": "1"}))
            .collect();
        v["days"][0]["rows"] = Value::Array(rows);
    },
    "$.days[0].rows",
    "at most 50 rows"
);
rule!(
    window_models_need_entries,
    "export",
    |v| {
        let last = v["days"].as_array().map_or(0, Vec::len) - 1;
        v["days"][last]["rows"][0]["model_id"] = json!("ghost/model");
    },
    "$.days[34].rows[0].model_id",
    "no entry in $.models"
);

// Export: models and facts.
rule!(
    model_id_unique,
    "export",
    |v| v["models"][1]["model_id"] = v["models"][0]["model_id"].clone(),
    "$.models[1].model_id",
    "duplicate model"
);
rule!(
    release_id_pattern,
    "export",
    |v| v["models"][0]["model_release_id"] = json!("/x"),
    "$.models[0].model_release_id",
    "must match"
);
rule!(
    facts_have_twelve_members,
    "export",
    |v| v["models"][0]["facts"]
        .as_object_mut()
        .map(|o| o.remove("recurrent_state_bytes")),
    "$.models[0].facts.recurrent_state_bytes",
    "required member is missing"
);
rule!(
    facts_unknown_member,
    "export",
    |v| v["models"][0]["facts"]["context_window"] =
        v["models"][0]["facts"]["total_parameters"].clone(),
    "$.models[0].facts.context_window",
    "unknown member"
);
rule!(
    fact_state_enum,
    "export",
    |v| v["models"][0]["facts"]["total_parameters"]["state"] = json!("missing"),
    "$.models[0].facts.total_parameters.state",
    "must be one of available, unavailable"
);
rule!(
    available_needs_value,
    "export",
    |v| v["models"][0]["facts"]["architecture_type"]["value"] = json!(null),
    "$.models[0].facts.architecture_type.value",
    "must be a string"
);
rule!(
    available_reason_null,
    "export",
    |v| v["models"][0]["facts"]["architecture_type"]["reason"] = json!("x"),
    "$.models[0].facts.architecture_type.reason",
    "must be null when state is available"
);
rule!(
    available_source_https,
    "export",
    |v| v["models"][0]["facts"]["architecture_type"]["source_url"] =
        json!("http://huggingface.co/x"),
    "$.models[0].facts.architecture_type.source_url",
    "absolute https URL"
);
rule!(
    unavailable_value_null,
    "export",
    |v| {
        let f = &mut v["models"][0]["facts"]["recurrent_state_bytes"];
        f["state"] = json!("not_available");
        f["reason"] = json!("evidence_missing");
        f["source_url"] = json!(null);
    },
    "$.models[0].facts.recurrent_state_bytes.value",
    "must be null when state is not_available"
);
rule!(
    unavailable_source_null,
    "export",
    |v| {
        let f = &mut v["models"][0]["facts"]["recurrent_state_bytes"];
        f["state"] = json!("not_available");
        f["reason"] = json!("evidence_missing");
        f["value"] = json!(null);
    },
    "$.models[0].facts.recurrent_state_bytes.source_url",
    "must be null when state is not_available"
);
rule!(
    unavailable_reason_code,
    "export",
    |v| {
        let f = &mut v["models"][0]["facts"]["recurrent_state_bytes"];
        *f = json!({"value": null, "state": "unavailable", "reason": "Evidence Missing", "source_url": null});
    },
    "$.models[0].facts.recurrent_state_bytes.reason",
    "reason code matching ^[a-z][a-z0-9_]*$"
);
rule!(
    integer_fact_form,
    "export",
    |v| v["models"][0]["facts"]["calculation_sequence_length"]["value"] = json!("131072.0"),
    "$.models[0].facts.calculation_sequence_length.value",
    "positive integer string"
);
rule!(
    integer_fact_bound,
    "export",
    |v| v["models"][0]["facts"]["calculation_sequence_length"]["value"] =
        json!("9223372036854775808"),
    "$.models[0].facts.calculation_sequence_length.value",
    "at most 9223372036854775807"
);
rule!(
    zero_only_where_allowed,
    "export",
    |v| v["models"][0]["facts"]["smallest_quant_bit_width"]["value"] = json!("0"),
    "$.models[0].facts.smallest_quant_bit_width.value",
    "positive integer string"
);
rule!(
    name_fact_token,
    "export",
    |v| v["models"][0]["facts"]["smallest_quant_format"]["value"] = json!("FP8"),
    "$.models[0].facts.smallest_quant_format.value",
    "must match ^[a-z0-9][a-z0-9_.-]*$"
);
rule!(
    active_not_above_total,
    "export",
    |v| v["models"][0]["facts"]["active_parameters"]["value"] = json!("70553706497"),
    "$.models[0].facts.active_parameters",
    "must not exceed total_parameters"
);
rule!(
    bf16_is_twice_total,
    "export",
    |v| v["models"][0]["facts"]["bf16_weights_bytes"]["value"] = json!("141107412990"),
    "$.models[0].facts.bf16_weights_bytes",
    "must equal 2 × total_parameters"
);
rule!(
    full_sequence_covers_per_token,
    "export",
    |v| v["models"][0]["facts"]["full_sequence_attention_bytes"]["value"] = json!("42949672959"),
    "$.models[0].facts.full_sequence_attention_bytes",
    "must be at least attention_bytes_per_token × calculation_sequence_length"
);
rule!(
    quant_facts_all_or_none,
    "export",
    |v| {
        let f = &mut v["models"][0]["facts"]["smallest_quant_bit_width"];
        *f = json!({"value": null, "state": "not_found_under_policy", "reason": "not_found_under_policy", "source_url": null});
    },
    "$.models[0].facts",
    "must be all available or none available"
);

// Supply.
rule!(
    supply_unknown_member,
    "supply",
    |v| v["x"] = json!(1),
    "$.x",
    "unknown member"
);
rule!(
    supply_schema_version,
    "supply",
    |v| v["supply_schema_version"] = json!("v1"),
    "$.supply_schema_version",
    "must be \"model-demand.supply.v1\""
);
rule!(
    collection_status_enum,
    "supply",
    |v| v["collections"][0]["status"] = json!("partial"),
    "$.collections[0].status",
    "must be one of complete, failed"
);
rule!(
    failed_collection_has_no_routes,
    "supply",
    |v| v["collections"][0]["status"] = json!("failed"),
    "$.collections[0].routes",
    "must be empty for a failed collection"
);
rule!(
    finished_not_before_started,
    "supply",
    |v| v["collections"][0]["finished_at"] = json!("2026-03-24T00:00:00Z"),
    "$.collections[0].finished_at",
    "must not be before started_at"
);
rule!(
    finished_at_unique,
    "supply",
    |v| v["collections"][1]["finished_at"] = v["collections"][0]["finished_at"].clone(),
    "$.collections[1].finished_at",
    "duplicate finished_at"
);
rule!(
    route_id_unique,
    "supply",
    |v| v["collections"][0]["routes"][1]["route_id"] =
        v["collections"][0]["routes"][0]["route_id"].clone(),
    "$.collections[0].routes[1].route_id",
    "duplicate route"
);
rule!(
    route_type_enum,
    "supply",
    |v| v["collections"][0]["routes"][0]["route_type"] = json!("premium"),
    "$.collections[0].routes[0].route_type",
    "must be one of paid, free, batch, thinking"
);
rule!(
    route_status_is_failed_or_absent,
    "supply",
    |v| v["collections"][0]["routes"][0]["status"] = json!("collected"),
    "$.collections[0].routes[0].status",
    "must be \"failed\" when present"
);
rule!(
    failed_route_has_no_endpoints,
    "supply",
    |v| v["collections"][0]["routes"][0]["status"] = json!("failed"),
    "$.collections[0].routes[0].endpoints",
    "must be empty for a failed route"
);

#[test]
fn a_route_that_failed_alone_is_accepted_and_its_model_alone_says_so() {
    let mut supply = base("supply");
    let latest = supply["collections"]
        .as_array()
        .expect("collections")
        .iter()
        .enumerate()
        .max_by_key(|(_, c)| c["finished_at"].as_str().map(str::to_string))
        .map(|(i, _)| i)
        .expect("a latest collection");
    let route = &mut supply["collections"][latest]["routes"][0];
    route["status"] = json!("failed");
    route["endpoints"] = json!([]);
    let failed_model = route["model_id"].as_str().expect("model").to_string();
    assert!(problems_of("supply", &supply.to_string()).is_empty());

    let dir = common::tempdir().expect("temp dir");
    let path = dir.path().join("supply.json");
    std::fs::write(&path, supply.to_string()).expect("write");
    let export = common::crate_path("tests/fixtures/small/export.json");
    let inputs = model_demand::load(&export, Some(&path)).expect("accepted");
    let catalog = inputs.served_models(model_demand::parse_now(common::SMALL_NOW).expect("now"));
    let (_, before) = common::small();
    let failed_route = supply["collections"][latest]["routes"][0]["route_id"]
        .as_str()
        .expect("route")
        .to_string();
    let mut affected = 0;
    for (record, was) in catalog.records.iter().zip(&before.records) {
        assert_eq!(record.model_id, was.model_id);
        let served_by_it =
            was.supply.summary.as_ref().map(|s| s.route_id.as_str()) == Some(failed_route.as_str());
        if served_by_it {
            affected += 1;
            assert_eq!(
                record.supply.state, "temporarily_unavailable",
                "{failed_model}"
            );
            assert_eq!(
                record.supply.reason.as_deref(),
                Some("route_collection_failed")
            );
            assert!(record.supply.summary.is_none());
        } else {
            assert_eq!(record.supply, was.supply, "{}", record.model_id);
        }
    }
    assert_eq!(affected, 1, "the failed route's model, and only it");
}

rule!(
    route_unknown_member,
    "supply",
    |v| v["collections"][0]["routes"][0]["x"] = json!(1),
    "$.collections[0].routes[0].x",
    "unknown member"
);
rule!(
    endpoint_unknown_member,
    "supply",
    |v| v["collections"][0]["routes"][0]["endpoints"][0]["x"] = json!(1),
    "$.collections[0].routes[0].endpoints[0].x",
    "unknown member"
);
rule!(
    provider_non_empty,
    "supply",
    |v| v["collections"][0]["routes"][0]["endpoints"][0]["provider"] = json!(""),
    "$.collections[0].routes[0].endpoints[0].provider",
    "non-empty"
);
rule!(
    decimal_no_sign,
    "supply",
    |v| v["collections"][0]["routes"][0]["endpoints"][0]["latency_ms"] = json!("-1"),
    "$.collections[0].routes[0].endpoints[0].latency_ms",
    "non-negative decimal string"
);
rule!(
    decimal_no_exponent,
    "supply",
    |v| v["collections"][0]["routes"][0]["endpoints"][0]["latency_ms"] = json!("1e3"),
    "$.collections[0].routes[0].endpoints[0].latency_ms",
    "non-negative decimal string"
);
rule!(
    decimal_no_leading_zero,
    "supply",
    |v| v["collections"][0]["routes"][0]["endpoints"][0]["input_price_per_million"] =
        json!("00.23"),
    "$.collections[0].routes[0].endpoints[0].input_price_per_million",
    "non-negative decimal string"
);
rule!(
    decimal_is_string,
    "supply",
    |v| v["collections"][0]["routes"][0]["endpoints"][0]["input_price_per_million"] = json!(0.23),
    "$.collections[0].routes[0].endpoints[0].input_price_per_million",
    "decimal string or null"
);
rule!(
    decimal_digit_bound,
    "supply",
    |v| v["collections"][0]["routes"][0]["endpoints"][0]["input_price_per_million"] =
        json!("0.0000000000001"),
    "$.collections[0].routes[0].endpoints[0].input_price_per_million",
    "12 significant digits after it"
);
rule!(
    uptime_at_most_100,
    "supply",
    |v| v["collections"][0]["routes"][0]["endpoints"][0]["uptime_percent"] = json!("100.01"),
    "$.collections[0].routes[0].endpoints[0].uptime_percent",
    "at most 100"
);
rule!(
    context_length_positive_integer,
    "supply",
    |v| v["collections"][0]["routes"][0]["endpoints"][0]["context_length"] = json!(0),
    "$.collections[0].routes[0].endpoints[0].context_length",
    "positive integer or null"
);
rule!(
    context_length_not_string,
    "supply",
    |v| v["collections"][0]["routes"][0]["endpoints"][0]["context_length"] = json!("131072"),
    "$.collections[0].routes[0].endpoints[0].context_length",
    "positive integer or null"
);

#[test]
fn duplicate_keys_are_refused() {
    let text = base("export").to_string().replacen(
        "\"fresh_until\":",
        "\"fresh_until\":null,\"fresh_until\":",
        1,
    );
    let problems = problems_of("export", &text);
    assert!(
        problems
            .iter()
            .any(|p| p.path == "$.fresh_until" && p.message.contains("duplicate")),
        "{problems:#?}"
    );
}

#[test]
fn every_problem_is_reported_not_only_the_first() {
    let mut v = base("export");
    v["generated_at"] = json!("now");
    v["days"][12]["rows"][3]["total_tokens"] = json!("-5");
    v["models"][2]["facts"]["smallest_quant_format"]["value"] = json!("Q4");
    let problems = problems_of("export", &v.to_string());
    let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "$.generated_at",
            "$.days[12].rows[3].total_tokens",
            "$.models[2].facts.smallest_quant_format.value"
        ]
    );
}

#[test]
fn a_file_that_is_not_json_reports_line_and_column() {
    let dir = common::tempdir().expect("temp dir");
    let path = dir.path().join("broken.json");
    std::fs::write(&path, "{\n  \"days\": [1, 2,\n}").expect("writable");
    match model_demand::load(&path, None) {
        Err(Error::Syntax { line, column, .. }) => assert_eq!((line, column), (3, 1)),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn both_inputs_are_checked_before_failing() {
    let dir = common::tempdir().expect("temp dir");
    let (export, supply) = (dir.path().join("e.json"), dir.path().join("s.json"));
    let mut e = base("export");
    e["extra"] = json!(1);
    let mut s = base("supply");
    s["extra"] = json!(1);
    std::fs::write(&export, e.to_string()).expect("writable");
    std::fs::write(&supply, s.to_string()).expect("writable");
    match model_demand::load(&export, Some(&supply)) {
        Err(Error::Refused(files)) => assert_eq!(files.len(), 2),
        other => panic!("expected both refused, got {other:?}"),
    }
}

#[test]
fn the_shipped_inputs_are_accepted() {
    for dir in ["tests/fixtures/small", "tests/fixtures/edge", "data/sample"] {
        common::load_fixture(dir);
    }
}

#[test]
fn an_export_serving_no_model_is_valid() {
    let mut v = base("export");
    v["days"] = json!([]);
    assert!(problems_of("export", &v.to_string()).is_empty());
    let mut v = base("export");
    for day in v["days"].as_array_mut().expect("days") {
        day["rows"] = json!([]);
    }
    assert!(problems_of("export", &v.to_string()).is_empty());
}

#[test]
fn check_prints_one_problem_per_line_starting_with_its_path() {
    let dir = common::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.json");
    let mut v = base("export");
    v["days"][12]["rows"][3]["total_tokens"] = json!("-5");
    v["models"][0]["facts"]["bf16_weights_bytes"]["value"] = json!("2");
    std::fs::write(&bad, v.to_string()).expect("writable");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(["check", "--no-supply", "--export"])
        .arg(&bad)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines[0].starts_with("error: ") && lines[0].contains("refused with 2 problem(s)"),
        "{stderr}"
    );
    assert_eq!(lines[1], "$.days[12].rows[3].total_tokens: must be a positive integer string (digits only, no sign or leading zeros), got \"-5\"");
    assert!(
        lines[2].starts_with("$.models[0].facts.bf16_weights_bytes: "),
        "{stderr}"
    );

    let good = std::process::Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(["check", "--now", "2026-04-01T12:00:00Z", "--export"])
        .arg(common::crate_path("tests/fixtures/small/export.json"))
        .arg("--supply")
        .arg(common::crate_path("tests/fixtures/small/supply.json"))
        .output()
        .expect("runs");
    assert_eq!(good.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&good.stdout);
    assert_eq!(stdout.lines().count(), 1);
    assert!(
        stdout.contains("6 model(s) served, window 2026-03-02 to 2026-03-31"),
        "{stdout}"
    );
}

// ---- Mutation fuzz -----------------------------------------------------------------------
//
// Mutations of valid inputs rather than random bytes (which are almost never JSON, so they
// only exercise the parser). Each mutation names the JSON paths where a problem must be
// reported; the mutations DESIGN allows (a nullable member set to null) are listed in
// `NULLABLE` and must be accepted, so nothing is filtered silently.

/// A step from a JSON value to one of its children.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn path_of(steps: &[Step]) -> String {
    let mut text = "$".to_string();
    for step in steps {
        match step {
            Step::Key(k) => text.push_str(&format!(".{k}")),
            Step::Index(i) => text.push_str(&format!("[{i}]")),
        }
    }
    text
}

/// The path with indices dropped (`$.days[].rows[].total_tokens`), to classify a node.
fn shape_of(steps: &[Step]) -> String {
    let mut text = "$".to_string();
    for step in steps {
        match step {
            Step::Key(k) => text.push_str(&format!(".{k}")),
            Step::Index(_) => text.push_str("[]"),
        }
    }
    text
}

/// Every node in document order with its steps (the root first).
fn nodes(value: &Value, steps: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, Value)>) {
    out.push((steps.clone(), value.clone()));
    match value {
        Value::Object(members) => {
            for (k, v) in members {
                steps.push(Step::Key(k.clone()));
                nodes(v, steps, out);
                steps.pop();
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                steps.push(Step::Index(i));
                nodes(v, steps, out);
                steps.pop();
            }
        }
        _ => {}
    }
}

fn at_mut<'a>(value: &'a mut Value, steps: &[Step]) -> &'a mut Value {
    steps.iter().fold(value, |v, step| match step {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

/// Members DESIGN §2–3 allows to be null; setting them to null must be accepted.
const NULLABLE: [&str; 9] = [
    "$.fresh_until",
    "$.days[].other_tokens",
    "$.collections[].routes[].endpoints[].quantization",
    "$.collections[].routes[].endpoints[].context_length",
    "$.collections[].routes[].endpoints[].input_price_per_million",
    "$.collections[].routes[].endpoints[].output_price_per_million",
    "$.collections[].routes[].endpoints[].latency_ms",
    "$.collections[].routes[].endpoints[].throughput_tokens_per_second",
    "$.collections[].routes[].endpoints[].uptime_percent",
];

const TIMESTAMPS: [&str; 6] = [
    "$.generated_at",
    "$.evaluation_cutoff",
    "$.fresh_until",
    "$.demand_source.checked_at",
    "$.collections[].started_at",
    "$.collections[].finished_at",
];

const IDS: [&str; 5] = [
    "$.days[].rows[].model_id",
    "$.models[].model_id",
    "$.models[].model_release_id",
    "$.collections[].routes[].route_id",
    "$.collections[].routes[].model_id",
];

const DECIMALS: [&str; 5] = [
    "input_price_per_million",
    "output_price_per_million",
    "latency_ms",
    "throughput_tokens_per_second",
    "uptime_percent",
];

/// Adds string replacements of one kind.
fn strings(out: &mut Vec<(&'static str, Value)>, kind: &'static str, values: &[&str]) {
    out.extend(values.iter().map(|v| (kind, json!(v))));
}

/// Invalid replacements for a node of this shape and value, each with what it breaks.
fn bad_forms(shape: &str, value: &Value) -> Vec<(&'static str, Value)> {
    let last = shape.rsplit('.').next().unwrap_or("");
    let mut out: Vec<(&'static str, Value)> = Vec::new();
    if TIMESTAMPS.contains(&shape) {
        strings(
            &mut out,
            "bad timestamp",
            &[
                "2026-02-30T00:00:00Z",
                "2026-04-01T00:00:00z",
                "2026-04-01 00:00:00Z",
                "2026-04-01T00:00:00.5Z",
                "2026-04-01T00:00:00+00:00",
                "2026-04-01T24:00:00Z",
                "2026-04-01T23:59:60Z",
                "2026-4-01T00:00:00Z",
            ],
        );
    } else if shape == "$.days[].date" {
        strings(
            &mut out,
            "bad or late date",
            &[
                "2026-02-30",
                "2026-4-01",
                "20260401",
                "2026-04-01T00:00:00Z",
                "2099-01-01",
            ],
        );
    } else if shape == "$.days[].rows[].total_tokens" {
        strings(
            &mut out,
            "bad or out-of-range integer",
            &[
                "0",
                "1000000000000001",
                "-5",
                "+5",
                "05",
                "5.0",
                "1e3",
                "",
                " 5",
                "٥",
            ],
        );
    } else if shape == "$.days[].other_tokens" {
        strings(
            &mut out,
            "bad or out-of-range integer",
            &["100000000000000001", "-1", "01", "1.5", ""],
        );
    } else if shape.starts_with("$.models[].facts.") && last == "value" && value.is_string() {
        let text = value.as_str().unwrap_or("");
        if text.bytes().all(|b| b.is_ascii_digit()) {
            strings(
                &mut out,
                "bad or out-of-range integer fact",
                &["9223372036854775808", "-1", "01", "1.5", "1e9"],
            );
        } else {
            strings(&mut out, "bad code", &["Dense", "", "-x", "a b"]);
        }
    } else if IDS.contains(&shape) {
        strings(
            &mut out,
            "bad ID",
            &["acme/é", "-x", "a b", "", &"x".repeat(201)],
        );
    } else if shape.ends_with(".state") && shape.starts_with("$.models[].facts.") {
        strings(&mut out, "unknown state", &["Available", "gone"]);
    } else if shape.ends_with(".reason") && value.is_string() {
        out.push(("bad reason code", json!("Not Found")));
    } else if shape.ends_with(".source_url") && value.is_string() {
        strings(
            &mut out,
            "bad URL",
            &["http://huggingface.co/x", "huggingface.co/x"],
        );
    } else if shape == "$.collections[].status" {
        out.push(("unknown status", json!("partial")));
    } else if shape == "$.collections[].routes[].route_type" {
        out.push(("unknown route type", json!("premium")));
    } else if shape.ends_with("_schema_version") {
        out.push(("wrong schema version", json!("model-demand.export.v2")));
    } else if shape.starts_with("$.demand_source.") && !shape.ends_with("checked_at") {
        if !shape.ends_with("attribution") {
            out.push(("mislabelled source", json!("Elsewhere")));
        }
    } else if shape.ends_with(".provider") {
        out.push(("empty provider", json!("")));
    } else if shape.ends_with(".quantization") {
        out.push(("empty quantization", json!("")));
    } else if shape.ends_with(".context_length") {
        for bad in [
            json!(0),
            json!(-1),
            json!(1.5),
            json!(9223372036854775808u64),
        ] {
            out.push(("bad context length", bad));
        }
    } else if DECIMALS.contains(&last) && shape.contains(".endpoints[].") {
        strings(
            &mut out,
            "bad decimal",
            &[
                "-1",
                "1e2",
                ".5",
                "1.",
                "01.5",
                "1.0000000000001",
                "1234567890123456",
            ],
        );
        if last == "uptime_percent" {
            out.push(("uptime over 100", json!("100.5")));
        }
    }
    out
}

/// Another JSON type for a node.
fn other_type(value: &Value) -> Value {
    match value {
        Value::String(_) => json!(7),
        Value::Number(_) => json!("7"),
        Value::Null => json!(true),
        Value::Bool(_) => json!("true"),
        Value::Array(_) => json!({}),
        Value::Object(_) => json!([]),
    }
}

/// What a mutation does to the input.
enum Edit {
    /// Replace the node at these steps.
    Set(Vec<Step>, Value),
    /// Delete the object member at these steps.
    Delete(Vec<Step>),
    /// Write the first member of the object at these steps twice in the text.
    DuplicateKey(Vec<Step>),
}

/// One mutation and where its problem must be reported.
struct Mutation {
    kind: &'static str,
    /// The mutated node's shape (`$.days[].date`).
    shape: String,
    edit: Edit,
    /// A problem must be at one of these paths, or at the parent of the first (a rule about
    /// an object's members together, such as a fact's state and value), unless `accepted`.
    paths: Vec<String>,
    accepted: bool,
}

impl Mutation {
    /// The mutated input's text.
    fn apply(&self, base: &Value) -> String {
        let mut value = base.clone();
        match &self.edit {
            Edit::Set(steps, new) => *at_mut(&mut value, steps) = new.clone(),
            Edit::Delete(steps) => {
                if let Some((Step::Key(k), parent)) = steps.split_last() {
                    let parent = at_mut(&mut value, parent).as_object_mut().expect("object");
                    parent.shift_remove(k);
                }
            }
            Edit::DuplicateKey(steps) => {
                let object = at_mut(&mut value, steps);
                let (key, original) = object
                    .as_object()
                    .and_then(|o| o.iter().next())
                    .map(|(k, v)| (k.clone(), v.to_string()))
                    .expect("a member");
                // A marker no input holds, replaced in the text by the member written twice.
                let marker = json!("\u{1}duplicate\u{1}");
                object[key.as_str()] = marker.clone();
                let quoted = serde_json::to_string(&key).expect("key");
                let twice = format!("{original},{quoted}:{original}");
                return value.to_string().replacen(&marker.to_string(), &twice, 1);
            }
        }
        value.to_string()
    }
}

/// A small deterministic generator, so that a failure names a reproducible case.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// The mutations of `base` this fuzz knows: of each kind, one per shape when `every_shape`, then
/// random ones up to `per_kind`.
fn mutations(base: &Value, per_kind: usize, every_shape: bool, rng: &mut Rng) -> Vec<Mutation> {
    let mut all: Vec<(Vec<Step>, Value)> = Vec::new();
    nodes(base, &mut Vec::new(), &mut all);
    let mut by_kind: std::collections::BTreeMap<&'static str, Vec<Mutation>> = Default::default();
    let mut add = |kind: &'static str, edit: Edit, paths: Vec<String>| {
        let steps = match &edit {
            Edit::Set(steps, _) | Edit::Delete(steps) | Edit::DuplicateKey(steps) => steps,
        };
        by_kind.entry(kind).or_default().push(Mutation {
            kind,
            shape: shape_of(steps),
            edit,
            paths,
            accepted: kind == "null where DESIGN allows it",
        });
    };
    for (steps, value) in &all {
        let path = path_of(steps);
        let shape = shape_of(steps);
        if matches!(steps.last(), Some(Step::Key(_))) {
            add(
                "required member deleted",
                Edit::Delete(steps.clone()),
                vec![path.clone()],
            );
        }
        if let Some(object) = value.as_object() {
            let mut with = value.clone();
            with["x_unknown"] = json!(1);
            add(
                "unknown member",
                Edit::Set(steps.clone(), with),
                vec![format!("{path}.x_unknown")],
            );
            if let Some(key) = object.keys().next() {
                add(
                    "duplicate key",
                    Edit::DuplicateKey(steps.clone()),
                    vec![format!("{path}.{key}")],
                );
            }
        }
        if steps.is_empty() {
            continue;
        }
        let set = |new: Value| Edit::Set(steps.clone(), new);
        add("type changed", set(other_type(value)), vec![path.clone()]);
        if !value.is_null() {
            let kind = if NULLABLE.contains(&shape.as_str()) {
                "null where DESIGN allows it"
            } else {
                "null where not allowed"
            };
            add(kind, set(Value::Null), vec![path.clone()]);
        }
        for (kind, bad) in bad_forms(&shape, value) {
            add(kind, set(bad), vec![path.clone()]);
        }
    }
    // Duplicates: the second element takes the first one's identifying member.
    for (array, member) in [
        ("$.models", "model_id"),
        ("$.days", "date"),
        ("$.days[].rows", "model_id"),
        ("$.collections[].routes", "route_id"),
        ("$.collections", "finished_at"),
    ] {
        for (steps, value) in &all {
            let Some(items) = value.as_array().filter(|_| shape_of(steps) == array) else {
                continue;
            };
            if items.len() < 2 {
                continue;
            }
            let mut target = steps.clone();
            target.extend([Step::Index(1), Step::Key(member.to_string())]);
            let mut first = steps.clone();
            first.extend([Step::Index(0), Step::Key(member.to_string())]);
            let paths = vec![path_of(&target), path_of(&first)];
            add(
                "duplicate ID",
                Edit::Set(target, items[0][member].clone()),
                paths,
            );
        }
    }
    // A sample of each kind, so that CI stays quick: one case of every shape the kind applies
    // to (so each nullable member, each timestamp, each ID... is tried on the small inputs),
    // then random ones up to `per_kind`.
    by_kind
        .into_values()
        .flat_map(|mut list| {
            let mut picked: Vec<Mutation> = Vec::new();
            let mut shapes = std::collections::BTreeSet::new();
            let mut rest = Vec::new();
            while !list.is_empty() {
                let m = list.swap_remove(rng.below(list.len()));
                if every_shape && shapes.insert(m.shape.clone()) {
                    picked.push(m);
                } else {
                    rest.push(m);
                }
            }
            while !rest.is_empty() && picked.len() < per_kind {
                picked.push(rest.swap_remove(rng.below(rest.len())));
            }
            picked
        })
        .collect()
}

/// Loads `text` as the `which` input (with the fixture's other input valid) and returns its
/// problems; a panic fails the test naming the mutation.
fn load_problems(dir: &str, which: &str, text: &str, scratch: &Path) -> Vec<Problem> {
    let fixture = common::crate_path(dir);
    let file = scratch.join(format!("{which}.json"));
    std::fs::write(&file, text).expect("writable");
    let result = std::panic::catch_unwind(|| match which {
        "export" => model_demand::load(&file, None),
        _ => model_demand::load(&fixture.join("export.json"), Some(&file)),
    });
    match result {
        Ok(Ok(_)) => Vec::new(),
        Ok(Err(Error::Refused(files))) => files.into_iter().flat_map(|(_, p)| p).collect(),
        Ok(Err(other)) => panic!("not a list of problems: {other}"),
        Err(_) => panic!("the gate panicked"),
    }
}

#[test]
fn mutated_inputs_are_refused_at_the_mutated_path_without_panic() {
    let scratch = common::tempdir().expect("temp dir");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut runs: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    // The small inputs with every shape of every kind; where the heavy cases run (CI:
    // `common::full`), also the edge inputs (3,000 rows, each load slower) with a few random
    // cases of each kind.
    let mut inputs = vec![("tests/fixtures/small", 30, true)];
    if common::full() {
        inputs.push(("tests/fixtures/edge", 6, false));
    }
    for (dir, per_kind, every_shape) in inputs {
        for which in ["export", "supply"] {
            let base: Value = serde_json::from_slice(
                &std::fs::read(common::crate_path(&format!("{dir}/{which}.json"))).expect("read"),
            )
            .expect("fixture JSON");
            assert!(load_problems(dir, which, &base.to_string(), scratch.path()).is_empty());
            for m in mutations(&base, per_kind, every_shape, &mut rng) {
                let what = format!("{dir}/{which}.json, {}: {:?}", m.kind, m.paths);
                let problems = load_problems(dir, which, &m.apply(&base), scratch.path());
                let entry = runs.entry(m.kind).or_default();
                entry.0 += 1;
                if m.accepted {
                    assert!(
                        problems.is_empty(),
                        "{what} must be accepted: {problems:#?}"
                    );
                    continue;
                }
                entry.1 += 1;
                assert!(!problems.is_empty(), "{what} was accepted");
                assert!(
                    problems.iter().all(|p| p.path.starts_with('$')),
                    "{what}: a problem without a JSON path: {problems:#?}"
                );
                let parent = m.paths[0]
                    .rsplit_once(['.', '['])
                    .map(|(p, _)| p.to_string())
                    .unwrap_or_default();
                assert!(
                    problems
                        .iter()
                        .any(|p| m.paths.contains(&p.path) || p.path == parent),
                    "{what}: no problem at the mutated path: {problems:#?}"
                );
            }
        }
    }
    eprintln!("mutation cases by kind (run, of which refused): {runs:?}");
    // Every kind ran, and enough cases overall.
    assert!(runs.len() >= 20, "{runs:?}");
    let total: usize = runs.values().map(|(n, _)| n).sum();
    assert!(total > 600, "{total}: {runs:?}");
}
