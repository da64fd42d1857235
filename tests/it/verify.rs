//! `verify`: a built site passes; every kind of damage is found and named.

use crate::common;

use model_demand::base::error::Error;
use model_demand::site::{self, BuildOptions, SiteData};
use model_demand::verify::verify;

fn differences(dir: &std::path::Path) -> Vec<String> {
    match verify(dir) {
        Err(Error::Verify(list)) => list,
        other => panic!("expected differences, got {other:?}"),
    }
}

#[test]
fn a_fresh_build_verifies_and_damage_is_named() {
    let tmp = common::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    common::build_small(&out);
    let report = verify(&out).expect("a fresh build verifies");
    assert!(report.files > 8000 && report.requests > 300, "{report:?}");
    // The command says what it checked: consistency with the site's own feeds, recomputed by
    // the code that built it, which is no independent check of the derivation.
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .arg("verify")
        .arg("--dir")
        .arg(&out)
        .output()
        .expect("binary runs");
    let said = common::output_text(&run);
    assert!(run.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "{} sampled answers consistent with the site's own feeds",
            report.requests
        )) && !said.contains("as designed"),
        "{said}"
    );

    std::fs::write(out.join("extra.json"), b"{}").expect("write");
    std::fs::remove_file(out.join("_api/models/list/tokens_30d/desc/25/0.json")).expect("remove");
    let page = out.join("_api/models/list/latest_rank/asc/3/0.json");
    let body = std::fs::read(&page).expect("page");
    std::fs::write(&page, [&body[..body.len() - 1], b" }"].concat()).expect("write");
    let found = differences(&out);
    let has = |needle: &str| found.iter().any(|d| d.contains(needle));
    assert!(has("extra.json: not in the manifest"), "{found:#?}");
    assert!(
        has("tokens_30d/desc/25/0.json: listed in the manifest but missing"),
        "{found:#?}"
    );
    let sizes = format!(
        "latest_rank/asc/3/0.json: {} bytes, manifest says {}",
        body.len() + 1,
        body.len()
    );
    assert!(has(&sizes), "{found:#?}");
}

#[test]
fn a_consistent_but_wrong_answer_is_found() {
    // Rewrite a page and its manifest entry together: the tree matches the manifest, but the
    // answer no longer equals what the design computes from the site's own export.
    let tmp = common::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    common::build_small(&out);
    let rel = "_api/models/list/tokens_30d/desc/25/0.json";
    let body = std::fs::read_to_string(out.join(rel)).expect("page");
    let forged = body.replacen("\"value\":1,", "\"value\":2,", 1);
    assert_ne!(body, forged);
    std::fs::write(out.join(rel), &forged).expect("write");
    let manifest_path = out.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest_path).expect("manifest")).expect("json");
    for entry in manifest["files"].as_array_mut().expect("files") {
        if entry["path"] == rel {
            entry["bytes"] = forged.len().into();
            entry["sha256"] = site::sha256_hex(forged.as_bytes()).into();
        }
    }
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest).expect("json")).expect("write");
    let found = differences(&out);
    assert!(
        found.iter().any(|d| d.contains("body differs")),
        "{found:#?}"
    );
}

#[test]
fn the_no_data_site_verifies() {
    let tmp = common::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    site::build(&SiteData::Unavailable, &BuildOptions::new(&out)).expect("builds");
    verify(&out).expect("the no-data site verifies");
}

#[test]
fn a_stale_build_verifies() {
    let tmp = common::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let inputs = common::load_fixture("tests/fixtures/small");
    let catalog =
        inputs.served_models(model_demand::parse_now("2027-01-01T00:00:00Z").expect("now"));
    assert_eq!(catalog.head.freshness.state, "stale");
    let data = SiteData::Data {
        inputs: &inputs,
        catalog: &catalog,
    };
    site::build(&data, &BuildOptions::new(&out)).expect("builds");
    verify(&out).expect("a stale build verifies");
}

/// DESIGN §8.1: an `edge` site verifies with every list answer assembled from its parts; parts
/// that cannot be assembled (offsets that disagree with the records, a part gone, a list answer
/// the feeds do not give) are named by their file or query, and `serve` refuses to open them.
#[test]
fn an_edge_site_verifies_every_list_answer_and_broken_parts_are_named() {
    let tmp = common::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    common::build_small_as(&out, model_demand::site::edge::Layout::Edge);
    let report = verify(&out).expect("a fresh edge build verifies");
    let (_, catalog) = common::small();
    let n = catalog.records.len();
    assert!(
        report.requests >= 12 * 100 * (n + 2),
        "every list answer: {report:?}"
    );

    let routes_path = out.join("_api/routes.json");
    let routes = std::fs::read(&routes_path).expect("routes");
    let mut table: serde_json::Value = serde_json::from_slice(&routes).expect("JSON");
    let file = table["edge"]["orderings"]["latest_rank/asc"]["file"]
        .as_str()
        .expect("file")
        .to_string();
    // Offsets one byte off: refused when the site opens, naming the part.
    table["edge"]["orderings"]["latest_rank/asc"]["offsets"][1] = serde_json::json!(
        table["edge"]["orderings"]["latest_rank/asc"]["offsets"][1]
            .as_u64()
            .expect("offset")
            + 1
    );
    std::fs::write(&routes_path, table.to_string()).expect("write");
    let found = differences(&out);
    assert!(found.iter().any(|d| d.starts_with(&file)), "{found:?}");
    assert!(model_demand::preview::Site::open(&out).is_err());

    // A part gone: named.
    std::fs::write(&routes_path, &routes).expect("restore");
    std::fs::remove_file(out.join(&file)).expect("remove");
    let found = differences(&out);
    assert!(found.iter().any(|d| d.contains(&file)), "{found:?}");

    // Consistent parts that give another answer than the feeds (two records swapped in the
    // ordering, offsets made to agree): every page that shows them is named by its query.
    let fresh = tmp.path().join("fresh");
    common::build_small_as(&fresh, model_demand::site::edge::Layout::Edge);
    let records = std::fs::read(fresh.join(&file)).expect("part");
    let table: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fresh.join("_api/routes.json")).expect("routes"))
            .expect("JSON");
    let offsets: Vec<usize> = table["edge"]["orderings"]["latest_rank/asc"]["offsets"]
        .as_array()
        .expect("offsets")
        .iter()
        .map(|o| o.as_u64().expect("offset") as usize)
        .collect();
    let first = &records[offsets[0]..offsets[1] - 1];
    let second = &records[offsets[1]..offsets[2] - 1];
    if first.len() == second.len() {
        let mut swapped = second.to_vec();
        swapped.push(b',');
        swapped.extend_from_slice(first);
        swapped.extend_from_slice(&records[offsets[2] - 1..]);
        std::fs::write(fresh.join(&file), &swapped).expect("write");
    } else {
        // Different lengths: swap and rewrite the offset between them.
        let mut swapped = second.to_vec();
        swapped.push(b',');
        let middle = swapped.len();
        swapped.extend_from_slice(first);
        swapped.extend_from_slice(&records[offsets[2] - 1..]);
        std::fs::write(fresh.join(&file), &swapped).expect("write");
        let mut table = table.clone();
        table["edge"]["orderings"]["latest_rank/asc"]["offsets"][1] = serde_json::json!(middle);
        std::fs::write(fresh.join("_api/routes.json"), table.to_string()).expect("write");
    }
    let found = differences(&fresh);
    assert!(
        found
            .iter()
            .any(|d| d.starts_with("?sort=latest_rank&order=asc&limit=1&offset=0: body differs")),
        "{found:?}"
    );
}
