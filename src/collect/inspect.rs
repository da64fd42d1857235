//! `model-demand facts REPO`: the twelve facts of one Hugging Face repository at its current
//! commit (or a given one), computed by the same code, policy and cache as `collect`, as a
//! table for a person or JSON for a program. It is how a person reviewing the policy checks a
//! new model before the nightly run does.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::base::error::{Error, Result};
use crate::input::export::{Fact, FACTS};

use super::error::{CollectError, RepoAt};
use super::facts::{self, Evidence, Findings};
use super::http::{Client, Secret};
use super::huggingface::{Hub, HubError};
use super::policy;

/// What `facts` needs.
#[derive(Debug, Clone)]
pub(crate) struct FactsOptions {
    /// The repository, `owner/name`.
    pub repo: String,
    /// A commit SHA (7 to 40 hex digits) instead of the current commit.
    pub revision: Option<String>,
    /// The policy file (its review applies: reference defaults, cache layouts, inert keys and
    /// buffer names).
    pub policy: Option<PathBuf>,
    /// Cache of immutable Hugging Face files, shared with `collect`.
    pub cache: Option<PathBuf>,
    /// Hugging Face's base URL.
    pub huggingface_url: String,
    /// `HF_TOKEN`.
    pub hf_token: Option<Secret>,
    /// The first retry's wait.
    pub retry_base: Duration,
}

/// The twelve facts of one repository at one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepositoryFacts {
    /// The repository as the source names it (after a rename's redirect).
    pub repository: String,
    /// The commit the facts are pinned to.
    pub commit: String,
    /// The facts, in [`FACTS`] order.
    pub facts: Vec<Fact>,
    /// What the rules did not recognise, and so kept unknown.
    pub findings: Findings,
}

/// True for `owner/name` of the characters Hugging Face allows (so it is safe in a URL path).
fn is_repository(text: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    };
    matches!(text.split_once('/'), Some((owner, name)) if part(owner) && part(name))
}

/// The facts of the repository the options name, or why there are none: a repository that
/// does not exist, is gated or private, or could not be read is an error (exit 1).
pub(crate) fn repository_facts(options: &FactsOptions) -> Result<RepositoryFacts> {
    if !is_repository(&options.repo) {
        return Err(Error::Usage(format!(
            "REPO must be a Hugging Face repository as owner/name, got {:?}",
            options.repo
        )));
    }
    if let Some(rev) = &options.revision {
        if !(7..=40).contains(&rev.len()) || !rev.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::Usage(format!(
                "--revision must be a commit SHA of 7 to 40 hex digits, got {rev:?}"
            )));
        }
    }
    let policy = policy::load(options.policy.as_deref())?;
    let client = Client::new(options.retry_base);
    let hub = Hub::new(
        &client,
        &options.huggingface_url,
        options.hf_token.as_ref(),
        options.cache.as_deref(),
    );
    let info = hub
        .info(&options.repo, options.revision.as_deref())
        .map_err(|e| refused(options, e))?;
    match facts::from_info(&hub, &info, &policy.review) {
        Evidence::Facts {
            facts,
            repository,
            commit,
            findings,
        } => Ok(RepositoryFacts {
            repository,
            commit,
            facts,
            findings: *findings,
        }),
        Evidence::Refused(_, outcome, why) => Err(CollectError::FilesRefused {
            repo: repo_at(options),
            outcome,
            why,
        }
        .into()),
        Evidence::Unavailable(why) => Err(CollectError::RepositoryUnavailable {
            repo: repo_at(options),
            why,
        }
        .into()),
    }
}

/// The repository (and revision) the options name, as messages give it.
fn repo_at(options: &FactsOptions) -> RepoAt {
    RepoAt {
        repo: options.repo.clone(),
        revision: options.revision.clone(),
    }
}

/// The error for model info that could not be had.
fn refused(options: &FactsOptions, error: HubError) -> Error {
    let repo = repo_at(options);
    Error::from(match error {
        HubError::Denied(404) => CollectError::RepositoryMissing { repo },
        HubError::Denied(status) => CollectError::RepositoryDenied { repo, status },
        HubError::Unavailable(why) => CollectError::RepositoryUnavailable { repo, why },
        HubError::Unresolved(why) => CollectError::HostUnresolved { repo, why },
        HubError::Broken(why) => CollectError::ModelInfoMalformed { repo, why },
    })
}

impl RepositoryFacts {
    /// The facts as JSON: the repository, the commit, and each fact by name with its value,
    /// unit, state, reason and `source_url` (the members the export gives, and the unit).
    pub(crate) fn to_json(&self) -> Value {
        let mut members = Map::new();
        for (spec, fact) in FACTS.iter().zip(&self.facts) {
            members.insert(
                spec.name.to_string(),
                json!({
                    "value": fact.value,
                    "unit": spec.unit,
                    "state": fact.state.as_str(),
                    "reason": fact.reason,
                    "source_url": fact.source_url,
                }),
            );
        }
        json!({
            "repository": self.repository,
            "commit": self.commit,
            "facts": members,
            "kept_unknown": {
                "unreviewed_configuration": self.findings.unreviewed,
                "size_calculation": self.findings.size_failure,
                "unsupported_quantizations": self.findings.unsupported_quantizations,
            },
        })
    }

    /// What kept facts unknown, one line each (nothing when the rules recognised everything).
    fn kept_unknown(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(u) = &self.findings.unreviewed {
            lines.push(format!("cache facts: {}", u.describe()));
            // Each key not reviewed with its value (cut when long), so a review starts from
            // the evidence rather than from a second download.
            for key in u.keys.iter().chain(&u.refused) {
                if let Some(value) = u.values.get(key) {
                    lines.push(format!("  {key} = {value}"));
                }
            }
        }
        if let Some(why) = &self.findings.size_failure {
            lines.push(format!("size facts: {why}"));
        }
        for why in &self.findings.unsupported_quantizations {
            lines.push(format!("smallest quantization: {why}"));
        }
        lines
    }

    /// The facts as a table for a person: one line per fact (name, value, unit, state,
    /// reason), then the evidence each source URL pins.
    pub(crate) fn to_table(&self) -> String {
        let mut rows: Vec<[String; 5]> = vec![[
            "fact".into(),
            "value".into(),
            "unit".into(),
            "state".into(),
            "reason".into(),
        ]];
        for (spec, fact) in FACTS.iter().zip(&self.facts) {
            rows.push([
                spec.name.to_string(),
                fact.value.clone().unwrap_or_else(|| "-".into()),
                spec.unit.to_string(),
                fact.state.as_str().to_string(),
                fact.reason.clone().unwrap_or_else(|| "-".into()),
            ]);
        }
        let widths: Vec<usize> = (0..5)
            .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
            .collect();
        let mut out = format!("{} at commit {}\n\n", self.repository, self.commit);
        for row in &rows {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(cell, w)| format!("{cell:<w$}"))
                .collect();
            let _ = writeln!(out, "{}", cells.join("  ").trim_end());
        }
        let mut sources: Vec<(&str, &str)> = Vec::new();
        for (spec, fact) in FACTS.iter().zip(&self.facts) {
            if let Some(url) = &fact.source_url {
                sources.push((spec.name.as_str(), url));
            }
        }
        let unknown = self.kept_unknown();
        if !unknown.is_empty() {
            out.push_str("\nkept unknown, as the rules did not recognise:\n");
            for line in unknown {
                let _ = writeln!(out, "  {line}");
            }
        }
        if !sources.is_empty() {
            out.push_str("\nsource_url:\n");
            for (name, url) in sources {
                let _ = writeln!(out, "  {name}: {url}");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_names_are_owner_slash_name() {
        for good in [
            "meta-llama/Llama-4-Scout-17B-16E-Instruct",
            "a/b",
            "Org_1/x.y-z",
        ] {
            assert!(is_repository(good), "{good}");
        }
        for bad in [
            "", "a", "a/", "/b", "a/b/c", "a/../b", "a/.b", "a/b?c", "a b/c", "a/b#c",
        ] {
            assert!(!is_repository(bad), "{bad}");
        }
    }
}
