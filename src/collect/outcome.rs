//! What a run, its catalog and each repository came to: the outcomes the run report writes
//! (as snake_case names, the report's JSON unchanged) and `collect-report` reads back.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What a run came to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    /// Both files passed the gate and were written.
    Written,
    /// Nothing was written (a report starts so, until the run writes).
    #[default]
    Failed,
}

/// What became of the catalog request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CatalogStatus {
    /// Read, entry by entry.
    Read,
    /// Could not be had: supply fails, facts are carried.
    Failed,
    /// The run ended before asking for it.
    #[default]
    NotRequested,
}

/// What reading one Hugging Face repository came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepositoryOutcome {
    /// Its facts were computed from its files.
    Read,
    /// It could not be read; the previous export's facts were kept.
    Carried,
    /// It answered 401 or 403.
    Gated,
    /// It answered 404.
    Missing,
    /// It answered what is not its format.
    Broken,
    /// It could not be read and there were no previous facts to keep.
    Failed,
}

impl RunOutcome {
    /// The name the report writes.
    pub fn as_str(self) -> &'static str {
        match self {
            RunOutcome::Written => "written",
            RunOutcome::Failed => "failed",
        }
    }
}

impl CatalogStatus {
    /// The name the report writes.
    pub fn as_str(self) -> &'static str {
        match self {
            CatalogStatus::Read => "read",
            CatalogStatus::Failed => "failed",
            CatalogStatus::NotRequested => "not_requested",
        }
    }
}

impl RepositoryOutcome {
    /// The name the report writes.
    pub fn as_str(self) -> &'static str {
        match self {
            RepositoryOutcome::Read => "read",
            RepositoryOutcome::Carried => "carried",
            RepositoryOutcome::Gated => "gated",
            RepositoryOutcome::Missing => "missing",
            RepositoryOutcome::Broken => "broken",
            RepositoryOutcome::Failed => "failed",
        }
    }
}

/// Each outcome prints as the report writes it (the Markdown rendering, messages).
macro_rules! display_as_str {
    ($($name:ident),*) => {$(
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}

display_as_str!(RunOutcome, CatalogStatus, RepositoryOutcome);

#[cfg(test)]
mod tests {
    use super::*;

    fn serializes_as_its_name<T: Serialize + fmt::Display>(outcome: T) {
        let json = serde_json::to_string(&outcome).expect("an outcome serializes");
        assert_eq!(json, format!("\"{outcome}\""));
    }

    #[test]
    fn each_outcome_serializes_as_its_name() {
        [RunOutcome::Written, RunOutcome::Failed]
            .into_iter()
            .for_each(serializes_as_its_name);
        [
            CatalogStatus::Read,
            CatalogStatus::Failed,
            CatalogStatus::NotRequested,
        ]
        .into_iter()
        .for_each(serializes_as_its_name);
        [
            RepositoryOutcome::Read,
            RepositoryOutcome::Carried,
            RepositoryOutcome::Gated,
            RepositoryOutcome::Missing,
            RepositoryOutcome::Broken,
            RepositoryOutcome::Failed,
        ]
        .into_iter()
        .for_each(serializes_as_its_name);
    }
}
