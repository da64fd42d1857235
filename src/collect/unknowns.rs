//! What a run's closed world kept unknown (DESIGN §10, amended 2026-11-27), for the run report:
//! the configurations whose `model_type` or keys the policy has not reviewed, the checkpoints
//! whose tensors no rule classifies, and the quantizations that are not candidates, each with
//! the repositories that carried them, so the operator sees in one place what a night left
//! unknown and why (docs/operating.md, "Reviewing a new model_type or format").

use crate::base::decimal::grouped;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::facts::Findings;

/// A `model_type` without a reviewed cache layout (`key` null), or a key of a reviewed one
/// that is neither a layout key nor inert, and the repositories whose configuration carried it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct UnreviewedConfig {
    /// The `model_type` of the key set read (null when it has none).
    pub model_type: Option<String>,
    /// The key not reviewed; null when the `model_type` itself has no entry.
    pub key: Option<String>,
    /// The repositories, sorted.
    pub repositories: Vec<String>,
    /// The tokens of the served models whose repository carried it, on the export's last day
    /// (`RunReport::unreviewed_last_day`), as a decimal string; the rows are in this order,
    /// most first, so the operator reviews where the demand is. `None` (null) when none of
    /// those models has a known figure that day (outside the top 50, the day not delivered, or
    /// a report older than the member): unknown, never 0, and ordered after the known.
    #[serde(default)]
    pub tokens_last_day: Option<String>,
}

/// A repository and why one of its facts is unknown (the tensor, dtype and format that
/// stopped the count; the quantization that is not a candidate).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RepositoryWhy {
    /// The repository.
    pub repository: String,
    /// Why.
    pub why: String,
}

/// The run report's three sections this module fills, borrowed from the report
/// (`RunReport::unknowns`), so that this module, below the report, does not name it.
pub(super) struct Sections<'a> {
    /// Configurations not reviewed.
    pub(super) unreviewed_configurations: &'a mut Vec<UnreviewedConfig>,
    /// Checkpoints whose tensors no rule classifies.
    pub(super) uncounted_checkpoints: &'a mut Vec<RepositoryWhy>,
    /// Quantizations that are not candidates.
    pub(super) unsupported_quantizations: &'a mut Vec<RepositoryWhy>,
}

/// Adds one repository's findings to the run report's sections (kept sorted).
pub(super) fn record(report: Sections<'_>, repository: &str, findings: &Findings) {
    if let Some(u) = &findings.unreviewed {
        let keys: Vec<Option<String>> = if u.type_reviewed {
            u.keys
                .iter()
                .cloned()
                .chain(
                    u.absent
                        .iter()
                        .map(|k| format!("{k} (absent: the review needs it)")),
                )
                .chain(
                    u.refused
                        .iter()
                        .map(|k| format!("{k} (a value its rule does not model)")),
                )
                .map(Some)
                .collect()
        } else {
            vec![None]
        };
        for key in keys {
            let rows = &mut *report.unreviewed_configurations;
            let at = rows
                .iter()
                .position(|r| r.model_type == u.model_type && r.key == key);
            let row = match at {
                Some(i) => &mut rows[i],
                None => {
                    rows.push(UnreviewedConfig {
                        model_type: u.model_type.clone(),
                        key,
                        repositories: Vec::new(),
                        tokens_last_day: None,
                    });
                    let last = rows.len() - 1;
                    &mut rows[last]
                }
            };
            if !row.repositories.iter().any(|r| r == repository) {
                row.repositories.push(repository.to_string());
                row.repositories.sort();
            }
        }
        report.unreviewed_configurations.sort();
    }
    if let Some(why) = &findings.size_failure {
        report.uncounted_checkpoints.push(RepositoryWhy {
            repository: repository.to_string(),
            why: why.clone(),
        });
        report.uncounted_checkpoints.sort();
    }
    for why in &findings.unsupported_quantizations {
        report.unsupported_quantizations.push(RepositoryWhy {
            repository: repository.to_string(),
            why: why.clone(),
        });
        report.unsupported_quantizations.sort();
    }
}

/// Gives each unreviewed configuration the tokens, on the export's last day, of the served
/// models whose repository carried it (`tokens`: repository → that day's tokens of its
/// models), and orders the rows by them, most first (ties by type and key).
pub(super) fn order_by_demand(rows: &mut [UnreviewedConfig], tokens: &BTreeMap<String, u128>) {
    for row in rows.iter_mut() {
        let known: Vec<u128> = row
            .repositories
            .iter()
            .filter_map(|r| tokens.get(r).copied())
            .collect();
        row.tokens_last_day = (!known.is_empty()).then(|| {
            known
                .iter()
                .fold(0u128, |acc, t| acc.saturating_add(*t))
                .to_string()
        });
    }
    rows.sort_by(|a, b| {
        // Known figures first, most first; an unknown (None) sorts below every number.
        let tokens = |r: &UnreviewedConfig| {
            r.tokens_last_day
                .as_deref()
                .and_then(|t| t.parse::<u128>().ok())
        };
        tokens(b)
            .cmp(&tokens(a))
            .then_with(|| (&a.model_type, &a.key).cmp(&(&b.model_type, &b.key)))
    });
}

/// The unreviewed configurations as Markdown, most demand first (nothing when there are
/// none): the report's first list, as it is where a review starts.
pub(super) fn unreviewed_markdown(
    unreviewed: &[UnreviewedConfig],
    last_day: Option<&str>,
    md: &mut String,
    cell: fn(&str) -> String,
) {
    if !unreviewed.is_empty() {
        let _ = write!(
            md,
            "\n**Cache facts kept unknown: configurations not reviewed**, most demand first (`attention_layout_not_supported`; to state them, review the `model_type` against the engine's code and add it to `cache_layouts`, or the key to its `layout_keys` or to `inert_config_keys`: docs/operating.md, \"The review of a new family, step by step\"):\n\n| model_type | key not reviewed | tokens on {} | repositories |\n|---|---|--:|---|\n",
            last_day.unwrap_or("the last day")
        );
        for row in unreviewed {
            let repos: Vec<String> = row
                .repositories
                .iter()
                .map(|r| format!("`{}`", cell(r)))
                .collect();
            let _ = writeln!(
                md,
                "| `{}` | {} | {} | {} |",
                cell(row.model_type.as_deref().unwrap_or("(none)")),
                row.key
                    .as_deref()
                    .map_or("(the type has no entry)".to_string(), |k| format!(
                        "`{}`",
                        cell(k)
                    )),
                row.tokens_last_day
                    .as_deref()
                    .map_or("unknown".to_string(), grouped),
                repos.join(", ")
            );
        }
    }
}

/// The checkpoints and quantizations kept unknown, as Markdown (nothing when both are empty).
pub(super) fn markdown(
    uncounted: &[RepositoryWhy],
    unsupported: &[RepositoryWhy],
    md: &mut String,
    cell: fn(&str) -> String,
) {
    for (title, rows) in [
        (
            "Size facts kept unknown: tensors no rule classifies** (`size_calculation_failed`; review the format's writer: docs/operating.md)",
            uncounted,
        ),
        (
            "Smallest quantizations kept unknown: same-author repositories not recognised or not read** (`quantized_format_not_supported`; not read: carried, else `open_checkpoint_unavailable`)",
            unsupported,
        ),
    ] {
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(md, "\n**{title}:\n");
        for r in rows {
            let _ = writeln!(md, "- `{}`: {}", cell(&r.repository), cell(&r.why));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::config::Unreviewed;
    use crate::collect::report::RunReport;

    fn unreviewed(model_type: &str, type_reviewed: bool, keys: &[&str]) -> Findings {
        Findings {
            unreviewed: Some(Unreviewed {
                model_type: Some(model_type.to_string()),
                type_reviewed,
                keys: keys.iter().map(|k| k.to_string()).collect(),
                ..Unreviewed::default()
            }),
            ..Findings::default()
        }
    }

    #[test]
    fn each_type_and_key_is_listed_once_with_the_repositories_that_carried_it() {
        let mut report = RunReport::new("2026-11-27T03:00:00Z");
        record(
            report.unknowns(),
            "b/kimi",
            &unreviewed("kimi_linear", false, &["linear_attn_config"]),
        );
        record(
            report.unknowns(),
            "a/kimi",
            &unreviewed("kimi_linear", false, &[]),
        );
        record(
            report.unknowns(),
            "n/nas",
            &unreviewed("llama", true, &["block_configs", "x"]),
        );
        record(
            report.unknowns(),
            "m/nas",
            &unreviewed("llama", true, &["block_configs"]),
        );
        record(
            report.unknowns(),
            "m/nas",
            &unreviewed("llama", true, &["block_configs"]),
        );
        let rows: Vec<(Option<&str>, Option<&str>, Vec<&str>)> = report
            .unreviewed_configurations
            .iter()
            .map(|r| {
                (
                    r.model_type.as_deref(),
                    r.key.as_deref(),
                    r.repositories.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (Some("kimi_linear"), None, vec!["a/kimi", "b/kimi"]),
                (Some("llama"), Some("block_configs"), vec!["m/nas", "n/nas"]),
                (Some("llama"), Some("x"), vec!["n/nas"]),
            ]
        );
        record(
            report.unknowns(),
            "q/int4",
            &Findings {
                size_failure: Some("tensor \"a.weight_offsets\" (I32) is not ...".to_string()),
                unsupported_quantizations: vec![
                    "q/int4-hqq: hqq (not a format the rules know)".to_string()
                ],
                ..Findings::default()
            },
        );
        let md = report.to_markdown();
        assert!(
            md.contains("| `llama` | `block_configs` | unknown | `m/nas`, `n/nas` |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| `kimi_linear` | (the type has no entry) | unknown | `a/kimi`, `b/kimi` |"
            ),
            "{md}"
        );
        assert!(
            md.contains("- `q/int4`: tensor \"a.weight_offsets\" (I32) is not ..."),
            "{md}"
        );
        assert!(
            md.contains("- `q/int4`: q/int4-hqq: hqq (not a format the rules know)"),
            "{md}"
        );
        // The report round-trips, and a report written before these sections still reads.
        let json = serde_json::to_value(&report).expect("serializes");
        let back: RunReport = serde_json::from_value(json.clone()).expect("reads back");
        assert_eq!(back, report);
        let mut older = json;
        for member in [
            "unreviewed_configurations",
            "uncounted_checkpoints",
            "unsupported_quantizations",
        ] {
            older.as_object_mut().expect("object").remove(member);
        }
        let older: RunReport = serde_json::from_value(older).expect("an older report reads");
        assert!(older.unreviewed_configurations.is_empty());
    }

    #[test]
    fn the_rows_are_ordered_by_the_demand_of_the_models_that_carry_them() {
        let mut report = RunReport::new("2026-11-28T03:00:00Z");
        for (repo, model_type, keys) in [
            ("a/small", "llama", &["x"][..]),
            ("b/big", "qwen3_moe", &["qkv_bias"][..]),
            ("c/big-too", "qwen3_moe", &["qkv_bias"][..]),
            ("d/none", "laguna", &[][..]),
        ] {
            let type_reviewed = model_type != "laguna";
            record(
                report.unknowns(),
                repo,
                &unreviewed(model_type, type_reviewed, keys),
            );
        }
        let tokens: BTreeMap<String, u128> = [
            ("a/small".to_string(), 5),
            ("b/big".to_string(), 1_000_000_000_000),
            ("c/big-too".to_string(), 234_567),
        ]
        .into();
        report.order_unreviewed(Some("2026-11-27".to_string()), &tokens);
        let rows: Vec<(&str, Option<&str>)> = report
            .unreviewed_configurations
            .iter()
            .map(|r| {
                (
                    r.model_type.as_deref().unwrap_or_default(),
                    r.tokens_last_day.as_deref(),
                )
            })
            .collect();
        // Two repositories' tokens add up; a repository without a demand row that day is
        // unknown, never 0, and sorts after every known figure; ties keep type order.
        assert_eq!(
            rows,
            [
                ("qwen3_moe", Some("1000000234567")),
                ("llama", Some("5")),
                ("laguna", None)
            ]
        );
        let md = report.to_markdown();
        let list = md
            .split("**Cache facts kept unknown: configurations not reviewed**, most demand first")
            .nth(1)
            .expect("the section");
        assert!(
            list.contains(
                "| model_type | key not reviewed | tokens on 2026-11-27 | repositories |"
            ),
            "{md}"
        );
        assert!(
            list.contains(
                "| `qwen3_moe` | `qkv_bias` | 1,000,000,234,567 | `b/big`, `c/big-too` |"
            ),
            "{md}"
        );
        assert!(
            list.contains("| `laguna` | (the type has no entry) | unknown | `d/none` |"),
            "{md}"
        );
        // It is the report's first list, before anything else a person may act on.
        let first_list = md.find("\n**").expect("a list");
        assert!(
            md[first_list..]
                .starts_with("\n**Cache facts kept unknown: configurations not reviewed**"),
            "{md}"
        );
    }
}
