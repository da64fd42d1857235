//! One binary that works anywhere (issue 43): the house's direction (the bottom of the crate
//! names nothing of the collector), the bundled inputs inside the binary, and the binary run
//! outside the repository.

use crate::common::crate_path;

/// The source of `src/REL` without its comments and its unit tests, as the imports see it.
fn code_of(rel: &str) -> String {
    let path = crate_path(&format!("src/{rel}"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let code = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or_default()
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>();
    code.join("\n")
}

#[test]
fn the_crate_error_names_no_module_above_it() {
    let code = code_of("error.rs");
    assert!(
        !code.contains("crate::") && !code.contains("super::"),
        "src/error.rs is the bottom of the crate and imports nothing of it"
    );
}

#[test]
fn the_preview_and_the_ownership_rules_do_not_read_the_collector() {
    for rel in [
        "ownership.rs",
        "preview.rs",
        "site.rs",
        "manifest.rs",
        "serve/mod.rs",
    ] {
        let code = code_of(rel);
        assert!(
            !code.contains("crate::collect") && !code.contains("crate::{collect"),
            "src/{rel} names the collector"
        );
    }
}

#[test]
fn a_collector_error_keeps_its_message_as_the_crate_error() {
    let err: model_demand::error::Error = model_demand::collect::CollectError::ReportVersion {
        path: "r.json".into(),
    }
    .into();
    assert_eq!(
        err.to_string(),
        "r.json is not a model-demand.collect-report.v1 report"
    );
    assert!(
        std::error::Error::source(&err).is_none(),
        "no caused-by line"
    );
}
