//! The flat tables as a site serves them: both layouts carry the same bytes, listed in the
//! manifest; the preview server answers them as `text/csv; charset=utf-8` (the package as JSON)
//! with the feeds' CORS, caching and validators; a site without data answers them 503; `verify`
//! finds a table that is not the one its feeds make; the OpenAPI document names them and the
//! contract does not. And each loads in one call with pandas, polars and DuckDB, typed, and
//! the package validates with the `frictionless` tool.

use crate::common;
use crate::tables::{table, EDGE_NOW};

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use model_demand::answers::tables::{CSV_PATHS, DATAPACKAGE_PATH, PARQUET_PATHS};
use model_demand::base::error::Error;
use model_demand::preview::{Body, Site};
use model_demand::site::edge::Layout;
use model_demand::site::manifest::Manifest;
use model_demand::site::{self, sha256_hex, BuildOptions, SiteData};

/// Every address of the tables: the package, the CSV files, their Parquet twins.
fn addresses() -> Vec<&'static str> {
    std::iter::once(DATAPACKAGE_PATH)
        .chain(CSV_PATHS)
        .chain(PARQUET_PATHS)
        .collect()
}

/// The tables' files of a built site, by site-relative path.
fn tables_of(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    addresses()
        .into_iter()
        .map(|path| {
            let key = path.trim_start_matches('/').to_string();
            let bytes = std::fs::read(dir.join(&key)).unwrap_or_else(|e| panic!("{key}: {e}"));
            (key, bytes)
        })
        .collect()
}

#[test]
fn both_layouts_carry_serve_and_verify_the_tables() {
    let tmp = common::tempdir().expect("temp dir");
    let full = tmp.path().join("full");
    let edge = tmp.path().join("edge");
    common::build_small_as(&full, Layout::Full);
    common::build_small_as(&edge, Layout::Edge);
    let (inputs, catalog) = common::small();
    let made: BTreeMap<String, Vec<u8>> = model_demand::answers::tables::files(&inputs, &catalog)
        .into_iter()
        .collect();
    assert_eq!(
        made,
        model_demand::answers::tables::files(&inputs, &catalog)
            .into_iter()
            .collect(),
        "deterministic"
    );
    let expected_keys: Vec<String> = addresses().iter().map(|p| p[1..].to_string()).collect();
    assert_eq!(made.keys().cloned().collect::<Vec<_>>(), {
        let mut keys = expected_keys.clone();
        keys.sort();
        keys
    });
    for dir in [&full, &edge] {
        // The same bytes in both layouts, two builds, as the library makes them.
        assert_eq!(tables_of(dir), made, "{}", dir.display());
        let (manifest, _) = Manifest::read(dir).expect("manifest");
        for (key, bytes) in &made {
            let entry = manifest
                .files
                .iter()
                .find(|e| e.path == *key)
                .expect("listed");
            assert_eq!(
                (entry.bytes, entry.sha256.as_str()),
                (bytes.len() as u64, sha256_hex(bytes).as_str())
            );
        }
        let headers = std::fs::read_to_string(dir.join("_headers")).expect("_headers");
        for path in CSV_PATHS {
            assert!(
                headers.contains(&format!(
                    "{path}\n  Content-Type: text/csv; charset=utf-8\n"
                )),
                "{headers}"
            );
        }

        let site = Site::open(dir).expect("site opens");
        for path in addresses() {
            let answer = site.resolve("GET", path, None);
            assert_eq!(answer.status, 200, "{path}");
            let body = site.read_body(&answer.body).expect("body");
            assert_eq!(body, made[&path[1..]], "{path}");
            let content_type = if path.ends_with(".csv") {
                "text/csv; charset=utf-8"
            } else if path.ends_with(".parquet") {
                "application/vnd.apache.parquet"
            } else {
                "application/json"
            };
            assert_eq!(answer.header("Content-Type"), Some(content_type), "{path}");
            assert_eq!(answer.header("Access-Control-Allow-Origin"), Some("*"));
            assert_eq!(
                answer.header("Cache-Control"),
                Some("public, max-age=0, must-revalidate")
            );
            let etag = format!("\"{}\"", sha256_hex(&body));
            assert_eq!(answer.header("ETag"), Some(etag.as_str()));
            let head = site.resolve("HEAD", path, None);
            assert_eq!((head.status, head.length), (200, body.len() as u64));
            assert_eq!(site.resolve("GET", path, Some(&etag)).status, 304, "{path}");
            assert_eq!(site.resolve("POST", path, None).status, 405, "{path}");
        }
        model_demand::verify::verify(dir).expect("a fresh build verifies");
    }

    // A table that is not what the site's own feeds make is named, even with a manifest that
    // agrees with it.
    let key = "api/tables/models.csv";
    let mut text = String::from_utf8(made[key].clone()).expect("UTF-8");
    // One cell changed, the size kept, so only the table's own check can see it.
    text = text.replacen(",available,", ",availabl3,", 1);
    std::fs::write(edge.join(key), &text).expect("write");
    let manifest_path = edge.join(model_demand::site::manifest::MANIFEST);
    let manifest = std::fs::read_to_string(&manifest_path).expect("manifest");
    let old = sha256_hex(&made[key]);
    let manifest = manifest.replace(&old, &sha256_hex(text.as_bytes()));
    std::fs::write(&manifest_path, manifest).expect("write");
    match model_demand::verify::verify(&edge) {
        Err(Error::Verify(found)) => assert_eq!(
            found,
            [format!(
                "{key}: differs from the table made again from the site's own feeds"
            )]
        ),
        other => panic!("expected the table named, got {other:?}"),
    }
}

#[test]
fn a_site_without_data_answers_the_tables_503() {
    let tmp = common::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    site::build(&SiteData::Unavailable, &BuildOptions::new(&out)).expect("builds");
    assert!(!out.join("api/tables").exists());
    let headers = std::fs::read_to_string(out.join("_headers")).expect("_headers");
    assert!(
        !headers.contains("/api/tables/"),
        "a 503 body is JSON, never labelled CSV"
    );
    let redirects = std::fs::read_to_string(out.join("_redirects")).expect("_redirects");
    let site = Site::open(&out).expect("opens");
    for path in addresses() {
        assert!(redirects.contains(&format!(
            "{path}  /_api/errors/data_unavailable.json  503\n"
        )));
        let answer = site.resolve("GET", path, None);
        assert_eq!(answer.status, 503, "{path}");
        assert_eq!(answer.header("Content-Type"), Some("application/json"));
        let body = match &answer.body {
            Body::Bytes(bytes) => bytes.clone(),
            Body::File(_) | Body::Part { .. } => site.read_body(&answer.body).expect("body"),
        };
        let error: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(error["error"], "data_unavailable");
    }
    model_demand::verify::verify(&out).expect("verifies");
}

#[test]
fn the_openapi_document_names_the_tables_and_the_contract_does_not() {
    let openapi = model_demand::answers::contract::openapi("https://x.test", None);
    // The Parquet twins are named by the data package, not by the OpenAPI document, whose
    // bytes do not move.
    for path in std::iter::once(DATAPACKAGE_PATH).chain(CSV_PATHS) {
        let get = &openapi["paths"][path]["get"];
        assert_eq!(get["tags"][0], "tables", "{path}");
        let media = if path.ends_with(".csv") {
            "text/csv"
        } else {
            "application/json"
        };
        assert!(
            get["responses"]["200"]["content"][media].is_object(),
            "{path}"
        );
        assert!(get["responses"]["503"].is_object(), "{path}");
    }
    assert!(
        !openapi.to_string().contains(".parquet"),
        "the OpenAPI document's bytes do not move"
    );
    let about = model_demand::answers::contract::about("https://x.test", None, true).to_string();
    assert!(
        !about.contains("/api/tables"),
        "the contract's members are fixed"
    );
}

/// Writes the tables of `inputs` into `dir` (as the build does, without the rest of a site).
fn write_tables(
    inputs: &model_demand::Inputs,
    catalog: &model_demand::records::ServedModels,
    dir: &Path,
) {
    for (path, bytes) in model_demand::answers::tables::files(inputs, catalog) {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().expect("a directory")).expect("mkdir");
        std::fs::write(file, bytes).expect("write");
    }
}

#[test]
fn the_tables_load_in_one_call_typed_and_the_package_validates() {
    let python = common::pins::TABLES_PY.python();
    let script = common::crate_path("tests/tables/read_tables.py");
    let tmp = common::tempdir().expect("temp dir");
    let edge_inputs = common::load_fixture("tests/fixtures/edge");
    let edge_catalog = edge_inputs.served_models(model_demand::parse_now(EDGE_NOW).expect("now"));
    let (small_inputs, small_catalog) = common::small();
    let (sample_inputs, sample_catalog) = common::sample();
    // Text a spreadsheet would run: guarded in the CSV, exact in the Parquet twin.
    let (formulas, _) = crate::tables::small_with_providers(&crate::tables::FORMULA_NAMES);
    let out = Command::new(&python)
        .arg(&script)
        .arg(formulas.path().join("site/api/tables"))
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "formulas: {}",
        common::output_text(&out)
    );
    for (name, inputs, catalog) in [
        ("small", &small_inputs, &small_catalog),
        ("edge", &edge_inputs, &edge_catalog),
        ("sample", &sample_inputs, &sample_catalog),
    ] {
        let dir = tmp.path().join(name);
        write_tables(inputs, catalog, &dir);
        let out = Command::new(&python)
            .arg(&script)
            .arg(dir.join("api/tables"))
            .output()
            .expect("python runs");
        let said = common::output_text(&out);
        assert!(out.status.success(), "{name}: {said}");
        eprintln!("{name}:\n{said}");
        assert!(
            said.contains("frictionless validate: valid, 4 resources"),
            "{said}"
        );
        // What the script read is what the Rust reader reads.
        let files = model_demand::answers::tables::files(inputs, catalog);
        for file in ["models.csv", "daily.csv", "days.csv", "supply.csv"] {
            let rows = table(&files, file).len();
            assert!(
                said.contains(&format!("{file}: {rows} rows,")),
                "{name} {file}: {said}"
            );
        }
    }
}
