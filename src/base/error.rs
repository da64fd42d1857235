//! The crate's one error type and the validation `Problem` list the gate reports.
//!
//! This is the bottom of the crate: it names no type of a module above it. The collector's
//! own error (`collect::CollectError`) converts into [`Error::Collect`], not the reverse.

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
    /// `collect`, `facts` or `collect-report` stopped (the collector's own error, boxed so
    /// this module names nothing of the collector); its text is the collector's message.
    #[error(transparent)]
    Collect(Box<dyn std::error::Error + Send + Sync>),
    /// A directory is not a site this program wrote: its manifest is missing its format.
    #[error("{dir}: not a site manifest ({why})")]
    NotAManifest {
        /// The site directory.
        dir: PathBuf,
        /// What is wrong with `manifest.json`.
        why: ManifestProblem,
    },
    /// A site's manifest lists a path that is not plain and relative; nothing is served.
    #[error("{dir}: manifest lists an unsafe path {path:?}")]
    UnsafeManifestPath {
        /// The site directory.
        dir: PathBuf,
        /// The path as listed.
        path: String,
    },
    /// A site's routing table (`_api/routes.json`) is not of its format.
    #[error("{dir}: not a routing table ({why})")]
    NotARoutingTable {
        /// The site directory.
        dir: PathBuf,
        /// The parser's reason.
        why: serde_json::Error,
    },
    /// `mcp --dir` names a directory holding no built site.
    #[error(
        "{dir} holds no built site ({why}); build one with `model-demand build --out {dir}`, \
         or use --base-url"
    )]
    NoSite {
        /// The directory.
        dir: PathBuf,
        /// Why the site could not be opened.
        why: Box<Error>,
    },
    /// The MCP server's async runtime could not start.
    #[error("cannot start the MCP server's runtime: {why}")]
    McpRuntime {
        /// The operating system's reason.
        why: std::io::Error,
    },
    /// The MCP session on stdio ended on an error (a clean close is no error).
    #[error("MCP session ended: {why}")]
    McpSession {
        /// rmcp's reason.
        why: String,
    },
    /// The preview server's address is taken by another listener.
    #[error(
        "cannot listen on {bind}: the address is in use (another program, or another \
         `model-demand serve`, listens there); choose another with --bind, e.g. --bind {}",
        next_port(*.bind)
    )]
    AddressInUse {
        /// The address asked for.
        bind: std::net::SocketAddr,
    },
    /// The preview server could not start its connection threads.
    #[error("cannot serve on {bind}: {why}")]
    Serve {
        /// The address bound.
        bind: std::net::SocketAddr,
        /// tiny_http's reason.
        why: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The `edge` layout's parts could not be assembled (a build's internal failure).
    #[error("edge layout: {why}")]
    EdgeLayout {
        /// The part, and what was wrong.
        why: String,
    },
    /// No free name for a temporary sibling directory (a build's staging or old tree).
    #[error("{parent}: no free name for a temporary .{name}.{role} directory")]
    NoTemporaryName {
        /// The directory the sibling would go into.
        parent: PathBuf,
        /// The output's name.
        name: String,
        /// `staging` or `old`.
        role: &'static str,
    },
    /// A value could not be written as JSON (its text is serde_json's own).
    #[error(transparent)]
    Serialize(serde_json::Error),
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

/// What is wrong with a directory's `manifest.json`.
#[derive(Debug, thiserror::Error)]
pub enum ManifestProblem {
    /// It is not of the manifest's format.
    #[error("{0}")]
    Format(serde_json::Error),
    /// It is of another schema version.
    #[error("schema_version {0:?}")]
    Version(String),
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The address after `bind`: the same host, the next port (the port before the last one).
fn next_port(bind: std::net::SocketAddr) -> std::net::SocketAddr {
    let mut next = bind;
    next.set_port(bind.port().checked_add(1).unwrap_or(bind.port() - 1));
    next
}

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
