//! The contract: the about document covers every field the responses carry (and nothing they
//! lack), and every body a built site serves validates against the generated OpenAPI document.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use model_demand::answers::contract;
use model_demand::answers::render::Api;
use model_demand::query::percent_encode;
use serde_json::Value;

/// Paths of a JSON value in field-table form (`models[].facts.x.value`).
fn paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, member) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                out.insert(path.clone());
                paths(member, &path, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                let path = format!("{prefix}[]");
                out.insert(path.clone());
                paths(item, &path, out);
            }
        }
        _ => {}
    }
}

fn served_paths(dir: &str, now: &str) -> BTreeSet<String> {
    let inputs = common::load_fixture(dir);
    let catalog = inputs.served_models(model_demand::parse_now(now).expect("now"));
    let api = Api::new(&catalog);
    let mut out = BTreeSet::new();
    let mut queries = vec!["limit=100".to_string()];
    queries.extend(
        catalog
            .records
            .iter()
            .map(|r| format!("model_id={}", percent_encode(&r.model_id))),
    );
    for q in queries {
        let body: Value = serde_json::from_slice(&api.answer(&q).body).expect("json");
        paths(&body, "", &mut out);
    }
    out
}

#[test]
fn field_definitions_cover_exactly_the_fields_responses_carry() {
    let about = contract::about("https://example.test", None, true);
    let defined: BTreeSet<String> = about["field_definitions"]
        .as_array()
        .expect("array")
        .iter()
        .map(|f| f["path"].as_str().expect("path").to_string())
        .collect();
    let mut served = served_paths("tests/fixtures/small", common::SMALL_NOW);
    served.extend(served_paths("tests/fixtures/edge", "2026-10-05T12:00:00Z"));
    let undefined: Vec<_> = served.difference(&defined).collect();
    assert!(
        undefined.is_empty(),
        "served but not defined: {undefined:?}"
    );
    let never_served: Vec<_> = defined.difference(&served).collect();
    assert!(
        never_served.is_empty(),
        "defined but never served: {never_served:?}"
    );
}

#[test]
fn about_follows_spec_2_7() {
    let about = contract::about(
        "https://example.test/",
        Some("https://docs.example.test/"),
        false,
    );
    let keys: BTreeSet<&str> = about
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    let expected: BTreeSet<&str> = [
        "schema_version",
        "api_schema_version",
        "documentation_version",
        "routes",
        "query_parameters",
        "field_definitions",
        "availability_states",
        "sources",
        "supply",
        "links",
        "agent_instructions",
    ]
    .into_iter()
    .collect();
    assert_eq!(keys, expected);
    assert_eq!(
        about["links"]["documentation"],
        "https://docs.example.test/"
    );
    assert_eq!(
        about["links"]["full_export"],
        "https://example.test/api/export"
    );
    let version = about["documentation_version"].as_str().expect("string");
    assert!(
        model_demand::input::validate::parse_date(version).is_some(),
        "{version}"
    );
    let states: Vec<&str> = about["availability_states"]
        .as_array()
        .expect("array")
        .iter()
        .map(|s| s["state"].as_str().expect("state"))
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
    assert_eq!(about["sources"][0]["license"], "CC BY 4.0");
    assert_eq!(about["sources"][1]["license"], Value::Null);
    assert_eq!(about["supply"]["states"].as_array().map(Vec::len), Some(5));
    let instructions = about["agent_instructions"].as_array().expect("array");
    let all = instructions
        .iter()
        .filter_map(Value::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    for must in [
        "contract",
        "separate",
        "unknown",
        "generated_at",
        "evaluation_cutoff",
        "freshness",
        "export",
        "underserved",
    ] {
        assert!(all.contains(must), "agent instructions miss {must:?}");
    }
    // The launch state follows the build.
    assert_eq!(
        contract::about("https://x.test", None, true)["supply"]["launch_state"],
        "enabled"
    );
}

fn run_validator(site: &Path) -> std::process::Output {
    run_validator_in(site, None)
}

/// The validator over the site's about, errors and the model answers under `only` (a folder
/// of `_api/models`), or all of them.
fn run_validator_in(site: &Path, only: Option<&str>) -> std::process::Output {
    let script = common::crate_path("tests/contract/validate.py");
    let python = common::pins::CONTRACT_PY.python();
    Command::new(python)
        .arg(script)
        .arg(site)
        .args(only)
        .output()
        .expect("the contract environment's python runs")
}

#[test]
fn every_body_of_a_built_site_validates_against_the_openapi_document() {
    let dir = common::tempdir().expect("temp dir");
    let site = dir.path().join("out");
    common::build_small(&site);
    let output = run_validator(&site);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");

    // The validator is strict: one wrong unit in one page makes it fail.
    let page = site.join("_api/models/list/latest_rank/asc/3/1.json");
    let body = std::fs::read_to_string(&page).expect("page");
    std::fs::write(
        &page,
        body.replacen("\"unit\":\"fraction\"", "\"unit\":\"percent\"", 1),
    )
    .expect("write");
    // Walked again: the broken page's folder (the whole site passed above).
    let output = run_validator_in(&site, Some("_api/models/list/latest_rank/asc/3"));
    assert!(
        !output.status.success(),
        "a wrong unit must fail validation"
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("latest_rank/asc/3/1.json"));
}

#[test]
fn the_fact_descriptions_say_how_each_fact_is_computed() {
    let about = contract::about("https://example.test/", None, false);
    let openapi: Value =
        serde_json::from_slice(&contract::openapi_json("https://example.test/", None))
            .expect("json");
    let openapi_text = openapi.to_string();
    let described = |path: &str| {
        about["field_definitions"]
            .as_array()
            .expect("fields")
            .iter()
            .find(|f| f["path"] == path)
            .and_then(|f| f["description"].as_str())
            .unwrap_or_else(|| panic!("{path} defined"))
            .to_string()
    };
    for (path, says) in [
        // DESIGN §10 as amended 2026-11-25: what the cache facts count.
        ("models[].facts.attention_bytes_per_token", "16-bit"),
        (
            "models[].facts.attention_bytes_per_token",
            "layers whose cache grows with the sequence",
        ),
        (
            "models[].facts.attention_bytes_per_token",
            "the latent of every layer",
        ),
        (
            "models[].facts.attention_bytes_per_token",
            "the indexer's keys as the model stores them",
        ),
        (
            "models[].facts.attention_bytes_per_token",
            "attention_layout_not_supported, never a figure",
        ),
        (
            "models[].facts.full_sequence_attention_bytes",
            "each windowed layer for min(its window, length) tokens",
        ),
        (
            "models[].facts.full_sequence_attention_bytes",
            "chunked layers their attention_chunk_size",
        ),
        ("models[].facts.recurrent_state_bytes", "16-bit"),
        (
            "models[].facts.total_parameters",
            "model.safetensors.index.json",
        ),
        ("models[].facts.total_parameters", "(MTP) layers count"),
        (
            "models[].facts.active_parameters",
            "shared experts always active",
        ),
        (
            "models[].facts.smallest_quant_checkpoint_bytes",
            "same author",
        ),
    ] {
        let text = described(path);
        assert!(text.contains(says), "{path}: {text}");
        // The OpenAPI schemas carry the same words (one table drives both).
        assert!(openapi_text.contains(says), "OpenAPI lacks {says:?}");
    }
}

#[test]
fn list_parameters_state_their_defaults_in_words_not_as_schema_defaults() {
    // Generated clients send every schema default on every call, so a lookup by model_id would
    // carry sort, order, limit and offset and get 400 (issue 13). The defaults live in the
    // descriptions and, as data, in /api/v1/about.
    let openapi = contract::openapi("https://example.test/", None);
    let about = contract::about("https://example.test/", None, true);
    let parameters = openapi["paths"]["/api/v1/models"]["get"]["parameters"]
        .as_array()
        .expect("parameters");
    assert_eq!(parameters.len(), 5);
    for parameter in parameters {
        let name = parameter["name"].as_str().expect("name");
        assert!(
            parameter["schema"].get("default").is_none(),
            "{name} has a schema default"
        );
        let listed = about["query_parameters"]
            .as_array()
            .expect("query parameters")
            .iter()
            .find(|p| p["name"] == name)
            .expect("listed in about");
        let description = parameter["description"].as_str().expect("description");
        match &listed["default"] {
            Value::Null => assert_eq!(name, "model_id"),
            Value::String(default) => {
                assert!(
                    description.contains(&format!("When omitted: {default}.")),
                    "{name}"
                )
            }
            default => assert!(
                description.contains(&format!("When omitted: {default}.")),
                "{name}"
            ),
        }
    }
    // No schema anywhere in the document has a default a generator could send.
    fn schema_defaults(value: &Value, at: &str, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                // The members of `properties` are names (the About schema has a property
                // called `default`), not keywords.
                let names = at.ends_with("/properties");
                for (key, member) in map {
                    if key == "default" && !names {
                        out.push(at.to_string());
                    }
                    schema_defaults(member, &format!("{at}/{key}"), out);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    schema_defaults(item, &format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    schema_defaults(&openapi, "#", &mut found);
    assert!(found.is_empty(), "schema defaults at {found:?}");
}

#[test]
fn every_supply_reason_is_documented_in_the_contract_the_openapi_document_and_the_docs_page() {
    let about = contract::about("https://x.test", None, true);
    let definitions = about["field_definitions"].to_string();
    let openapi = contract::openapi(model_demand::site::DEFAULT_BASE_URL, None);
    let reason_schema = openapi
        .pointer("/components/schemas/ModelResponse")
        .map(|s| s.to_string())
        .unwrap_or_default();
    let docs = model_demand::answers::page::page(None, model_demand::site::DEFAULT_BASE_URL);
    for reason in [
        "supply_not_collected",
        "latest_collection_failed",
        "route_collection_failed",
        "no_current_route",
        "several_current_routes",
    ] {
        assert!(definitions.contains(reason), "about: {reason}");
        assert!(reason_schema.contains(reason), "OpenAPI: {reason}");
        assert!(docs.contains(reason), "docs page: {reason}");
    }
    assert!(about["supply"]["description"]
        .as_str()
        .is_some_and(|d| d.contains("route_collection_failed")));
}
