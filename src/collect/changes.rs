//! Facts that changed while their evidence did not: a model read this run at the commit its
//! previous facts pin, whose facts differ from the previous export's. The files at a commit never
//! change, so such a difference is the rules' (DESIGN §10 amended, a policy default added), and
//! the run report lists it for a person to check before the site publishes it.

use serde::{Deserialize, Serialize};

use crate::input::export::{Fact, FactName, FACTS};

use super::huggingface::PUBLIC_HOST;

/// One fact whose value changed at an unchanged commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedFact {
    /// The demand model.
    pub model_id: String,
    /// The fact's name.
    pub fact: FactName,
    /// The repository and the commit both exports' facts come from.
    pub repository: String,
    /// The commit.
    pub commit: String,
    /// The previous export's value (null when it had none).
    pub old_value: Option<String>,
    /// The previous export's reason when it had no value.
    pub old_reason: Option<String>,
    /// This run's value (null when it has none).
    pub new_value: Option<String>,
    /// This run's reason when it has no value.
    pub new_reason: Option<String>,
}

/// The commit a `source_url` of `repository` pins (`…/{repository}/blob/{sha}/{file}` or
/// `…/{repository}/tree/{sha}`); `None` for another repository or another form.
fn pinned_commit<'a>(url: &'a str, repository: &str) -> Option<&'a str> {
    let rest = url
        .strip_prefix(PUBLIC_HOST)?
        .strip_prefix('/')?
        .strip_prefix(repository)?;
    let rest = rest
        .strip_prefix("/blob/")
        .or_else(|| rest.strip_prefix("/tree/"))?;
    Some(rest.split('/').next().unwrap_or(rest))
}

/// The facts of `model_id` that differ between the previous export and this run, when this
/// run read `repository` at `commit` and the previous facts pin that same commit. A fact of the
/// smallest quantization is compared only when both pin the same evidence (its own URL).
pub(super) fn changed_facts(
    model_id: &str,
    repository: &str,
    commit: &str,
    previous: &[Fact],
    new: &[Fact],
) -> Vec<ChangedFact> {
    // The previous facts' commit of this repository: the one their source URLs pin. A previous
    // run at another commit (or with no evidence from this repository) is no comparison.
    let previous_commits: Vec<&str> = previous
        .iter()
        .filter_map(|f| pinned_commit(f.source_url.as_deref()?, repository))
        .collect();
    let same_commit = !previous_commits.is_empty() && previous_commits.iter().all(|c| *c == commit);
    let differs = |old: &Fact, new: &Fact| {
        (&old.value, old.state, &old.reason) != (&new.value, new.state, &new.reason)
    };
    FACTS
        .iter()
        .zip(previous.iter().zip(new))
        .filter(|(spec, (old, new))| {
            if FactName::QUANTIZATION.contains(&spec.name) {
                old.source_url.is_some() && old.source_url == new.source_url && differs(old, new)
            } else {
                same_commit && differs(old, new)
            }
        })
        .map(|(spec, (old, new))| ChangedFact {
            model_id: model_id.to_string(),
            fact: spec.name,
            repository: repository.to_string(),
            commit: commit.to_string(),
            old_value: old.value.clone(),
            old_reason: old.reason.clone(),
            new_value: new.value.clone(),
            new_reason: new.reason.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::export::Availability;

    /// A listed change: fact, old value, new value, new reason.
    type Listed<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Option<&'a str>);

    const SHA: &str = "0123456789abcdef0123456789abcdef01234567";
    const OTHER: &str = "89abcdef0123456789abcdef0123456789abcdef";

    fn fact(value: &str, url: &str) -> Fact {
        Fact {
            value: Some(value.to_string()),
            state: Availability::Available,
            reason: None,
            source_url: Some(url.to_string()),
        }
    }

    fn config(sha: &str) -> String {
        format!("https://huggingface.co/org/model/blob/{sha}/config.json")
    }

    /// Twelve facts, each the value `v` pinned to `config.json` at `sha`.
    fn facts(v: &str, sha: &str) -> Vec<Fact> {
        (0..FACTS.len()).map(|_| fact(v, &config(sha))).collect()
    }

    #[test]
    fn the_commit_a_source_url_pins() {
        assert_eq!(pinned_commit(&config(SHA), "org/model"), Some(SHA));
        let tree = format!("https://huggingface.co/org/model/tree/{SHA}");
        assert_eq!(pinned_commit(&tree, "org/model"), Some(SHA));
        assert_eq!(pinned_commit(&config(SHA), "org/mode"), None);
        assert_eq!(pinned_commit(&config(SHA), "org/model-fp8"), None);
        assert_eq!(
            pinned_commit("https://example.com/org/model/tree/x", "org/model"),
            None
        );
    }

    #[test]
    fn a_change_at_the_same_commit_is_listed_and_one_at_a_new_commit_is_not() {
        let previous = facts("196608", SHA);
        let mut new = facts("196608", SHA);
        new[8] = fact("49152", &config(SHA));
        new[9] = Fact {
            value: None,
            state: Availability::NotFoundUnderPolicy,
            reason: Some("attention_layout_not_supported".to_string()),
            source_url: None,
        };
        let changed = changed_facts("org/model", "org/model", SHA, &previous, &new);
        let listed: Vec<Listed<'_>> = changed
            .iter()
            .map(|c| {
                (
                    c.fact.as_str(),
                    c.old_value.as_deref(),
                    c.new_value.as_deref(),
                    c.new_reason.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            listed,
            [
                (
                    "attention_bytes_per_token",
                    Some("196608"),
                    Some("49152"),
                    None
                ),
                (
                    "full_sequence_attention_bytes",
                    Some("196608"),
                    None,
                    Some("attention_layout_not_supported")
                ),
            ]
        );
        // The repository moved to another commit: its files changed, not the rules.
        let moved = facts("196608", OTHER);
        assert!(changed_facts("org/model", "org/model", SHA, &moved, &new).is_empty());
        // Nothing differs: nothing listed.
        assert!(changed_facts("org/model", "org/model", SHA, &previous, &previous).is_empty());
    }

    #[test]
    fn a_quantization_fact_is_compared_only_on_the_same_evidence() {
        let previous = facts("1", SHA);
        let mut new = facts("1", SHA);
        let child = format!("https://huggingface.co/org/model-fp8/tree/{OTHER}");
        new[5] = fact("2", &child);
        assert!(changed_facts("org/model", "org/model", SHA, &previous, &new).is_empty());
        new[5] = fact("2", &config(SHA));
        let changed = changed_facts("org/model", "org/model", SHA, &previous, &new);
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0].fact, FactName::SmallestQuantCheckpointBytes);
    }
}
