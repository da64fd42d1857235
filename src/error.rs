//! The crate's one error type and the validation `Problem` list the gate reports.

use std::fmt;
use std::path::PathBuf;

/// One thing wrong with an input file, located by its JSON path (`$.days[3].date`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// JSON path of the offending value, starting at `$`.
    pub path: String,
    /// What is wrong, lower-case, naming what was expected and what was found.
    pub message: String,
}

impl Problem {
    /// A problem at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Everything that can stop a command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{action} {path}")]
    Io {
        /// What was being done ("cannot read", "cannot write", ...).
        action: &'static str,
        /// The file or directory involved.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// An input file is not JSON at all.
    #[error("{path}: not valid JSON at line {line}, column {column}: {message}")]
    Syntax {
        /// The input file.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's description.
        message: String,
    },
    /// Input files are JSON but break their format; every problem of every file is listed.
    #[error("{}", refused_summary(.0))]
    Refused(Vec<(PathBuf, Vec<Problem>)>),
    /// A command-line value is unusable.
    #[error("{0}")]
    Usage(String),
    /// An output path holds something this program did not provably write; nothing was touched.
    #[error(
        "refusing to replace {path}: {why}. Nothing was changed: choose a new or empty directory, \
         or move its contents away yourself"
    )]
    NotReplaceable {
        /// The output path.
        path: PathBuf,
        /// What is there.
        why: String,
    },
    /// `collect` could not collect the demand; nothing was written.
    #[error("{0}")]
    Collect(String),
    /// A built site is not what its manifest or the design says.
    #[error("site check failed with {} difference(s)", .0.len())]
    Verify(Vec<String>),
}

impl Error {
    /// Wraps an I/O error with the action and path it concerned.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn refused_summary(files: &[(PathBuf, Vec<Problem>)]) -> String {
    let parts: Vec<String> = files
        .iter()
        .map(|(path, problems)| {
            format!(
                "{} refused with {} problem(s)",
                path.display(),
                problems.len()
            )
        })
        .collect();
    parts.join("; ")
}
