//! Why `collect` or `facts` stopped: one variant per kind of failure, each with what its
//! message names. Nothing was written when one of these ends a run.
//!
//! No variant chains a source: the binary prints an error's sources as `caused by:` lines, and
//! each message already says its cause inline, as it always has.

use std::fmt;
use std::path::PathBuf;

use time::Date;

use super::http::FetchError;
use super::outcome::RepositoryOutcome;
use super::report::REPORT_SCHEMA_VERSION;
use super::{HF_TOKEN_VAR, OPENROUTER_KEY_VAR};

/// A collector's failure (`Error::Collect`); its text is the message the user reads.
#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    /// `OPENROUTER_API_KEY` is not set (or empty).
    #[error(
        "{} is not set: create a key at https://openrouter.ai/settings/keys \
         and export it in the environment (it is never printed or written)",
        OPENROUTER_KEY_VAR
    )]
    MissingKey,
    /// `--now` falls on or before the rankings dataset's first day.
    #[error("--now is before the rankings dataset begins (2025-01-02)")]
    BeforeDataset,
    /// A date past the calendar's end.
    #[error("date out of range")]
    DateOutOfRange,
    /// A panic in the run (a bug, or a source's value no rule foresaw), with its message.
    #[error("the collection stopped on an internal error ({what}); nothing was written")]
    Internal {
        /// The panic's message, or "no message".
        what: String,
    },
    /// A thread pool could not be started.
    #[error("cannot start worker threads: {why}")]
    WorkerThreads {
        /// rayon's reason.
        why: rayon::ThreadPoolBuildError,
    },
    /// rankings-daily gave no answer after retries.
    #[error("rankings-daily could not be collected ({why}); nothing was written: run again later")]
    RankingsUnreachable {
        /// The request's failure.
        why: FetchError,
    },
    /// rankings-daily answered 401 or 403.
    #[error(
        "rankings-daily refused the key ({status}): check that {} holds a \
         valid OpenRouter API key; nothing was written",
        OPENROUTER_KEY_VAR
    )]
    KeyRefused {
        /// The status.
        status: u16,
    },
    /// rankings-daily answered another status that is not a success.
    #[error("rankings-daily answered {status} ({message}); nothing was written")]
    RankingsStatus {
        /// The status.
        status: u16,
        /// The source's `error.message`, cut short, or "no error message".
        message: String,
    },
    /// rankings-daily's body is not the JSON its format says.
    #[error("rankings-daily answered malformed JSON: {why}")]
    MalformedJson {
        /// The parser's reason.
        why: serde_json::Error,
    },
    /// A rankings row holds a malformed date or token count.
    #[error("rankings-daily answered malformed rows: {why}")]
    MalformedRows {
        /// Which row, and what is wrong with it.
        why: String,
    },
    /// rankings-daily's `meta.as_of` is no RFC 3339 instant.
    #[error("rankings-daily meta.as_of {as_of:?} is not an RFC 3339 instant")]
    AsOfNotInstant {
        /// The value the source gave.
        as_of: String,
    },
    /// The source's snapshot predates the end of the last day asked for.
    #[error(
        "the source's snapshot (meta.as_of {as_of}) is older than the end of {}: that day was \
         still in progress; nothing was written: run again after the source has caught up",
        crate::input::validate::format_date(*.end)
    )]
    SnapshotBehind {
        /// The source's `meta.as_of`.
        as_of: String,
        /// The last day asked for.
        end: Date,
    },
    /// `facts`: the repository answered 404.
    #[error("{repo} does not exist on Hugging Face (answered 404)")]
    RepositoryMissing {
        /// The repository (and revision) asked for.
        repo: RepoAt,
    },
    /// `facts`: the repository answered 401 or 403.
    #[error(
        "{repo} answered {status}: it does not exist, or it is gated or private{}",
        advice(true)
    )]
    RepositoryDenied {
        /// The repository (and revision) asked for.
        repo: RepoAt,
        /// The status.
        status: u16,
    },
    /// `facts`: Hugging Face gave no answer (5xx, timeouts) after retries.
    #[error("{repo} could not be read ({why}): Hugging Face did not answer; try again later")]
    RepositoryUnavailable {
        /// The repository (and revision) asked for.
        repo: RepoAt,
        /// What failed.
        why: String,
    },
    /// `facts`: Hugging Face's host name does not resolve: no request left this machine.
    #[error(
        "{repo} could not be read ({why}); check the network connection (and \
         --huggingface-url)"
    )]
    HostUnresolved {
        /// The repository (and revision) asked for.
        repo: RepoAt,
        /// What failed.
        why: String,
    },
    /// `facts`: the model info is not of its format.
    #[error("{repo}: the model info is not of its format ({why})")]
    ModelInfoMalformed {
        /// The repository (and revision) asked for.
        repo: RepoAt,
        /// What is wrong with it.
        why: String,
    },
    /// `facts`: the model info came but the repository's files were refused or broken.
    #[error(
        "{repo}: its files could not be read ({outcome}, {why}){}",
        advice(*.outcome == RepositoryOutcome::Gated)
    )]
    FilesRefused {
        /// The repository (and revision) asked for.
        repo: RepoAt,
        /// The outcome the run report would give it.
        outcome: RepositoryOutcome,
        /// Why.
        why: String,
    },
    /// A previous supply feed passed the gate but could not be read as JSON values.
    #[error("{path}: {why}")]
    PreviousSupply {
        /// The feed.
        path: PathBuf,
        /// The parser's reason.
        why: serde_json::Error,
    },
    /// `--report` names a file that is not a run report; nothing was changed.
    #[error(
        "refusing to replace {path}: it is not a collect run report. Nothing was changed: \
         pass --report a new path"
    )]
    ReportNotReplaceable {
        /// The path given.
        path: PathBuf,
    },
    /// `collect-report` was given a file that is not a run report.
    #[error("{path} is not a collect run report: {why}")]
    NotAReport {
        /// The file.
        path: PathBuf,
        /// The parser's reason.
        why: serde_json::Error,
    },
    /// `collect-report` was given a run report of another schema version.
    #[error("{path} is not a {} report", REPORT_SCHEMA_VERSION)]
    ReportVersion {
        /// The file.
        path: PathBuf,
    },
}

impl From<CollectError> for crate::base::error::Error {
    fn from(err: CollectError) -> crate::base::error::Error {
        crate::base::error::Error::Collect(Box::new(err))
    }
}

/// What to do about a refusal: a gated repository needs a token that accepted its terms.
fn advice(gated: bool) -> String {
    if gated {
        format!(
            ": the repository is gated or private; set {HF_TOKEN_VAR} to a token of an account \
             that accepted its terms (it is never printed)"
        )
    } else {
        String::new()
    }
}

/// A repository as `facts` names it in a message: `owner/name`, then ` at REV` when a
/// revision was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoAt {
    /// The repository, `owner/name`.
    pub repo: String,
    /// The commit asked for, when one was.
    pub revision: Option<String>,
}

impl fmt::Display for RepoAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.repo)?;
        match &self.revision {
            Some(rev) => write!(f, " at {rev}"),
            None => Ok(()),
        }
    }
}
