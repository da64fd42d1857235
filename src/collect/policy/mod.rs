//! The collection policy (`data/policy.json`, `model-demand.policy.v1`): what a person reviewed
//! and versioned with the code. It passes a gate like any input: every problem with its path.
//! The parts about model files (DESIGN §10) live in `review`.

use std::path::Path;

use crate::base::error::{Error, Result};
use crate::input::json::{index_path, Problems, Raw};
use crate::input::validate::{self, Timestamp};

mod review;

pub(crate) use review::{ConfigDefault, FactsReview};

/// The policy's schema version.
pub(crate) const POLICY_SCHEMA_VERSION: &str = "model-demand.policy.v1";
/// Where the policy lives unless `--policy` says otherwise.
pub(crate) use crate::input::bundled::DEFAULT_POLICY;
/// The most hours an export may call itself fresh (a year); more is surely a typo.
const MAX_FRESH_FOR_HOURS: u128 = 8784;

/// An accepted policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// When a person last reviewed the demand source's terms; published as `checked_at`.
    pub terms_checked_at: Timestamp,
    /// Hours after the evaluation cutoff the export stays fresh.
    pub fresh_for_hours: u32,
    /// Model-ID prefixes an official page declares closed (no public weights).
    pub closed_weights: Vec<ClosedWeights>,
    /// Joins a person reviewed: a demand model whose permaslug differs from its catalog
    /// release's `canonical_slug`.
    pub catalog_matches: Vec<CatalogMatch>,
    /// What a person reviewed about model files (DESIGN §10): reference defaults, the cache
    /// layouts and inert keys of `config.json`, and buffer tensor names.
    pub review: FactsReview,
}

/// One reviewed join of a demand model with a catalog release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogMatch {
    /// A demand model ID, or a release ID (the ID without its `:variant`), covering all of
    /// that release's variants.
    pub model_id: String,
    /// The catalog's `canonical_slug` of the release.
    pub canonical_slug: String,
    /// Why the two are the same model (the person's note).
    pub note: String,
}

/// One closed-weights declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosedWeights {
    /// Model-ID prefix it covers (for example `openai/gpt-4o`).
    pub prefix: String,
    /// The official page that says so.
    pub source_url: String,
}

impl Policy {
    /// The declaration covering `model_id`, if any (the longest matching prefix).
    pub fn closed(&self, model_id: &str) -> Option<&ClosedWeights> {
        self.closed_weights
            .iter()
            .filter(|c| model_id.starts_with(&c.prefix))
            .max_by_key(|c| c.prefix.len())
    }

    /// The reviewed match for a demand model: the entry naming its exact ID, else the one
    /// naming its release ID.
    pub fn catalog_match(&self, model_id: &str) -> Option<&CatalogMatch> {
        let release = super::openrouter::release_id(model_id);
        self.catalog_matches
            .iter()
            .find(|m| m.model_id == model_id)
            .or_else(|| self.catalog_matches.iter().find(|m| m.model_id == release))
    }
}

/// Reads and checks a policy file: the one given, which must exist; without one,
/// `data/policy.json` in the current directory, else the policy embedded in the binary
/// ([`crate::input::bundled`]).
pub(crate) fn load(path: Option<&Path>) -> Result<Policy> {
    let source = crate::input::bundled::Source::resolve(path, DEFAULT_POLICY);
    let name = source.name();
    let bytes = source.read()?;
    let raw = crate::input::json::parse(&bytes, &name)?;
    validate_policy(&raw).map_err(|problems| Error::Refused(vec![(name, problems)]))
}

/// Validates a raw policy tree.
pub(crate) fn validate_policy(raw: &Raw) -> Result<Policy, Vec<crate::base::error::Problem>> {
    let mut problems = Problems::default();
    let members = [
        "policy_schema_version",
        "terms_checked_at",
        "fresh_for_hours",
        "closed_weights",
        "catalog_matches",
        "config_defaults",
        "cache_layouts",
        "inert_config_keys",
        "buffer_tensor_names",
    ];
    let Some(obj) = problems.object("$", raw, &members) else {
        return Err(problems.into_vec());
    };
    if let Some(v) = obj.required(&mut problems, "policy_schema_version") {
        validate::constant(
            &mut problems,
            &obj.at("policy_schema_version"),
            v,
            POLICY_SCHEMA_VERSION,
        );
    }
    let terms_checked_at = obj
        .required(&mut problems, "terms_checked_at")
        .and_then(|v| validate::timestamp(&mut problems, &obj.at("terms_checked_at"), v));
    let fresh_for_hours = obj.required(&mut problems, "fresh_for_hours").and_then(|v| {
        let path = obj.at("fresh_for_hours");
        match v {
            Raw::Number(n) => match n.as_u64() {
                Some(h) if (1..=MAX_FRESH_FOR_HOURS as u64).contains(&h) => u32::try_from(h).ok(),
                _ => {
                    problems.add(
                        path,
                        format!(
                            "must be a whole number of hours from 1 to {MAX_FRESH_FOR_HOURS}, got {}",
                            v.describe()
                        ),
                    );
                    None
                }
            },
            other => {
                problems.add(path, format!("must be a number, got {}", other.describe()));
                None
            }
        }
    });
    let mut closed_weights = Vec::new();
    if let Some(list) = obj
        .required(&mut problems, "closed_weights")
        .and_then(|v| problems.array(&obj.at("closed_weights"), v))
    {
        for (i, item) in list.iter().enumerate() {
            let path = index_path(&obj.at("closed_weights"), i);
            let Some(entry) = problems.object(&path, item, &["prefix", "source_url"]) else {
                continue;
            };
            let prefix = entry
                .required(&mut problems, "prefix")
                .and_then(|v| validate::model_id(&mut problems, &entry.at("prefix"), v));
            let url = entry
                .required(&mut problems, "source_url")
                .and_then(|v| problems.string(&entry.at("source_url"), v));
            let url = match url {
                Some(u) if validate::is_https_url(u) => Some(u.to_string()),
                Some(u) => {
                    problems.add(
                        entry.at("source_url"),
                        format!("must be an absolute https URL of the official page, got {u:?}"),
                    );
                    None
                }
                None => None,
            };
            if let (Some(prefix), Some(source_url)) = (prefix, url) {
                closed_weights.push(ClosedWeights { prefix, source_url });
            }
        }
    }
    // Optional: a policy without it has no reviewed joins.
    let catalog_matches = match obj.get("catalog_matches") {
        None => Vec::new(),
        Some(v) => check_catalog_matches(&mut problems, &obj.at("catalog_matches"), v),
    };
    let review = review::check(&mut problems, &obj);
    match (terms_checked_at, fresh_for_hours) {
        (Some(terms_checked_at), Some(fresh_for_hours)) if problems.is_empty() => Ok(Policy {
            terms_checked_at,
            fresh_for_hours,
            closed_weights,
            catalog_matches,
            review,
        }),
        _ => Err(problems.into_vec()),
    }
}

/// The `catalog_matches` list: each entry a model ID, a slug of the ID form and a note; one
/// entry per model ID.
fn check_catalog_matches(problems: &mut Problems, path: &str, raw: &Raw) -> Vec<CatalogMatch> {
    let Some(list) = problems.array(path, raw) else {
        return Vec::new();
    };
    let mut matches: Vec<CatalogMatch> = Vec::new();
    let mut first_at: std::collections::BTreeMap<String, usize> = Default::default();
    for (i, item) in list.iter().enumerate() {
        let at = index_path(path, i);
        let Some(entry) = problems.object(&at, item, &["model_id", "canonical_slug", "note"])
        else {
            continue;
        };
        let model_id = entry
            .required(problems, "model_id")
            .and_then(|v| validate::model_id(problems, &entry.at("model_id"), v));
        let slug = entry
            .required(problems, "canonical_slug")
            .and_then(|v| validate::model_id(problems, &entry.at("canonical_slug"), v));
        if let Some(s) = &slug {
            if s.contains(':') {
                problems.add(
                    entry.at("canonical_slug"),
                    format!("must be a release slug without a :variant, got {s:?}"),
                );
            }
        }
        let note = entry
            .required(problems, "note")
            .and_then(|v| problems.non_empty_string(&entry.at("note"), v))
            .map(str::to_string);
        if let Some(id) = &model_id {
            if let Some(first) = first_at.get(id) {
                problems.add(
                    entry.at("model_id"),
                    format!(
                        "duplicate model_id {id:?}: already at {}",
                        index_path(path, *first)
                    ),
                );
            } else {
                first_at.insert(id.clone(), i);
            }
        }
        if let (Some(model_id), Some(canonical_slug), Some(note)) = (model_id, slug, note) {
            matches.push(CatalogMatch {
                model_id,
                canonical_slug,
                note,
            });
        }
    }
    matches
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON path of each problem line.
    fn paths_of(problems: &[String]) -> Vec<&str> {
        problems
            .iter()
            .map(|p| p.split(':').next().unwrap_or(""))
            .collect()
    }

    fn check(text: &str) -> Result<Policy, Vec<String>> {
        let raw =
            crate::input::json::parse(text.as_bytes(), Path::new("policy.json")).expect("JSON");
        validate_policy(&raw).map_err(|ps| ps.iter().map(|p| p.to_string()).collect())
    }

    #[test]
    fn the_shipped_policy_is_accepted() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_POLICY);
        let policy = load(Some(&path)).expect("data/policy.json is accepted");
        assert!(policy.fresh_for_hours >= 24);
        // A policy named that is not there is an error, never the embedded default.
        let missing = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/no-such-policy.json");
        assert!(load(Some(&missing)).is_err());
    }

    #[test]
    fn every_problem_is_named_with_its_path() {
        let problems = check(
            r#"{"policy_schema_version":"v0","terms_checked_at":"2026-11-23",
                "fresh_for_hours":0,"closed_weights":[{"prefix":"-bad","source_url":"http://x"},{"extra":1}],
                "more":true}"#,
        )
        .expect_err("refused");
        let paths = paths_of(&problems);
        for expected in [
            "$.more",
            "$.policy_schema_version",
            "$.terms_checked_at",
            "$.fresh_for_hours",
            "$.closed_weights[0].prefix",
            "$.closed_weights[0].source_url",
            "$.closed_weights[1].extra",
            "$.closed_weights[1].prefix",
        ] {
            assert!(paths.contains(&expected), "{expected} in {problems:?}");
        }
    }

    #[test]
    fn catalog_matches_are_gated_and_found_by_model_or_release_id() {
        let base = r#""policy_schema_version":"model-demand.policy.v1","terms_checked_at":"2026-11-23T10:00:00Z","fresh_for_hours":32,"closed_weights":[]"#;
        let problems = check(&format!(
            r#"{{{base},"catalog_matches":[{{"model_id":"Acme x","canonical_slug":"acme/x:free","note":""}},
                {{"model_id":"acme-ai/y","canonical_slug":"acme/y"}},{{"model_id":"acme-ai/y","canonical_slug":"acme/y","note":"n"}},7]}}"#
        ))
        .expect_err("refused");
        let paths = paths_of(&problems);
        for expected in [
            "$.catalog_matches[0].model_id",
            "$.catalog_matches[0].canonical_slug",
            "$.catalog_matches[0].note",
            "$.catalog_matches[1].note",
            "$.catalog_matches[2].model_id",
            "$.catalog_matches[3]",
        ] {
            assert!(paths.contains(&expected), "{expected} in {problems:?}");
        }
        let policy = check(&format!(
            r#"{{{base},"catalog_matches":[{{"model_id":"acme-ai/y","canonical_slug":"acme/y","note":"the rankings name the vendor acme-ai"}},
                {{"model_id":"acme-ai/y:free","canonical_slug":"acme/y-free","note":"n"}}]}}"#
        ))
        .expect("accepted");
        let slug = |id: &str| policy.catalog_match(id).map(|m| m.canonical_slug.as_str());
        assert_eq!(slug("acme-ai/y"), Some("acme/y"));
        assert_eq!(
            slug("acme-ai/y:thinking"),
            Some("acme/y"),
            "the release's entry"
        );
        assert_eq!(
            slug("acme-ai/y:free"),
            Some("acme/y-free"),
            "the exact entry first"
        );
        assert_eq!(slug("acme/y"), None);
        assert!(check(&format!("{{{base}}}"))
            .expect("optional")
            .catalog_matches
            .is_empty());
    }

    #[test]
    fn the_shipped_policy_carries_the_reviewed_reference_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_POLICY);
        let policy = load(Some(&path)).expect("data/policy.json is accepted");
        let rows: Vec<(&str, &str, u64)> = policy
            .review
            .config_defaults
            .iter()
            .map(|d| (d.model_type.as_str(), d.key.as_str(), d.value))
            .collect();
        assert_eq!(
            rows,
            [
                ("llama4_text", "no_rope_layer_interval", 4),
                ("gemma3_text", "sliding_window_pattern", 6),
                ("gemma3_text", "max_position_embeddings", 131_072),
                // Gemma 3's official text_configs leave out their head geometry and window too
                // (issue 40's review): the class's values, read at the same commit.
                ("gemma3_text", "head_dim", 256),
                ("gemma3_text", "num_attention_heads", 8),
                ("gemma3_text", "num_key_value_heads", 4),
                ("gemma3_text", "sliding_window", 4096),
            ]
        );
        for d in &policy.review.config_defaults {
            assert!(
                d.source_url
                    .starts_with("https://github.com/huggingface/transformers/blob/"),
                "{}",
                d.source_url
            );
            let family = d.model_type.trim_end_matches("_text");
            assert!(
                d.source_url.ends_with(&format!(
                    "/src/transformers/models/{family}/configuration_{family}.py"
                )),
                "{}",
                d.source_url
            );
        }
    }

    #[test]
    fn a_malformed_config_default_is_refused_with_its_path() {
        let base = r#""policy_schema_version":"model-demand.policy.v1","terms_checked_at":"2026-11-23T10:00:00Z","fresh_for_hours":32,"closed_weights":[]"#;
        let pinned = "https://github.com/huggingface/transformers/blob/008e574391258935f3ecc3035c882e73bbcac419/src/transformers/models/llama4/configuration_llama4.py";
        let problems = check(&format!(
            r#"{{{base},"config_defaults":[
                {{"model_type":"Llama4","key":"no_rope_layer_interval","value":4,"source_url":"{pinned}"}},
                {{"model_type":"llama4_text","key":"","value":"4","source_url":"https://github.com/huggingface/transformers/blob/main/x.py"}},
                {{"model_type":"llama4_text","key":"no_rope_layer_interval","value":-1,"source_url":"{pinned}","why":"x"}},
                {{"model_type":"llama4_text","key":"no_rope_layer_interval","value":4,"source_url":"{pinned}"}},
                {{"model_type":"llama4_text","key":"no_rope_layer_interval","value":4,"source_url":"{pinned}"}},
                {{"key":"k","value":1.5}},
                "x"]}}"#
        ))
        .expect_err("refused");
        let paths = paths_of(&problems);
        for expected in [
            "$.config_defaults[0].model_type",
            "$.config_defaults[1].key",
            "$.config_defaults[1].value",
            "$.config_defaults[1].source_url",
            "$.config_defaults[2].why",
            "$.config_defaults[2].value",
            // Entry 2 is the first valid pair (entry 0's model_type is refused).
            "$.config_defaults[3].key",
            "$.config_defaults[4].key",
            "$.config_defaults[5].model_type",
            "$.config_defaults[5].value",
            "$.config_defaults[5].source_url",
            "$.config_defaults[6]",
        ] {
            assert!(paths.contains(&expected), "{expected} in {problems:?}");
        }
        let problems =
            check(&format!(r#"{{{base},"config_defaults":{{}}}}"#)).expect_err("refused");
        assert_eq!(paths_of(&problems), ["$.config_defaults"]);
        assert!(check(&format!("{{{base}}}"))
            .expect("optional")
            .review
            .config_defaults
            .is_empty());
    }

    #[test]
    fn the_longest_prefix_wins() {
        let policy = check(
            r#"{"policy_schema_version":"model-demand.policy.v1","terms_checked_at":"2026-11-23T10:00:00Z",
                "fresh_for_hours":32,"closed_weights":[
                  {"prefix":"acme/","source_url":"https://acme.example/a"},
                  {"prefix":"acme/pro","source_url":"https://acme.example/b"}]}"#,
        )
        .expect("accepted");
        assert_eq!(
            policy.closed("acme/pro-2").map(|c| c.source_url.as_str()),
            Some("https://acme.example/b")
        );
        assert!(policy.closed("other/x").is_none());
    }
}
