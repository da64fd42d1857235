//! The command line: clap definitions, with each option's help text as its doc comment.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Builds and previews a static, read-only JSON API of AI model demand (OpenRouter's public
/// top-50 daily rankings) joined with checked model facts (Hugging Face) and supply.
#[derive(Debug, Parser)]
#[command(name = "model-demand", version, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate an export (and supply feed) and print a one-line summary; exit 1 listing every
    /// problem with its JSON path when refused.
    Check(InputArgs),
    /// Print the exact body of `GET /api/v1/models?QUERY` as compact JSON; exit 0 for 200, else 1.
    Query(QueryArgs),
    /// Write the whole static site: every answer the API allows, the feeds, the contract, the
    /// Netlify rules and a manifest. The site is swapped in only when complete.
    Build(BuildArgs),
    /// Serve a built site on localhost exactly as the CDN answers it. When DIR does not exist
    /// or is empty, the bundled sample is written into it (about 68,000 files, 5.7 GB), answered
    /// meanwhile from its compact layout; a directory holding anything but a site is refused
    /// untouched.
    Serve(ServeArgs),
    /// Check a built site against its manifest (every file present, sizes and SHA-256 equal,
    /// nothing extra), its CDN rules, and a sample of answers recomputed from its own feeds.
    Verify {
        /// The built site.
        #[arg(long, value_name = "DIR", default_value = "out")]
        dir: PathBuf,
        /// Also check that the site was built from this export (its manifest records the
        /// inputs' SHA-256).
        #[arg(long, value_name = "PATH")]
        export: Option<PathBuf>,
        /// Also check that the site was built from this supply feed.
        #[arg(long, value_name = "PATH")]
        supply: Option<PathBuf>,
    },
    /// Collect a new export and supply feed from OpenRouter and Hugging Face into DIR
    /// (export.json, supply.json), written only after they pass the same gate as `check`.
    /// Needs OPENROUTER_API_KEY in the environment; HF_TOKEN is optional.
    Collect(CollectArgs),
    /// Print the twelve facts of one Hugging Face repository at its current commit (or
    /// --revision), each with state, reason, unit and source_url, computed by the same code,
    /// policy and cache as `collect`: a table, or JSON with --json. HF_TOKEN is honoured (never
    /// printed); a repository that does not exist or is gated is an error (exit 1).
    Facts(FactsArgs),
    /// Print a run report that `collect --report FILE` wrote as Markdown (for a CI run's
    /// summary): the night's health and what a person may have to act on.
    CollectReport {
        /// The run report (model-demand.collect-report.v1).
        #[arg(value_name = "FILE")]
        report: PathBuf,
    },
    /// Print the repository's netlify.toml (publish directory, build command, headers).
    NetlifyToml,
    /// Serve the API to agents as Model Context Protocol tools on stdio (get_contract,
    /// list_models, get_model, get_demand_history, get_providers), answering with the bytes of a
    /// built or published site, cut to what is asked; without a site, from the bundled sample.
    /// Standard output carries only the protocol; logs go to standard error.
    Mcp(McpArgs),
}

/// `mcp` arguments: where the answers come from.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// A built site, read through the same router as `serve`; when it holds none (absent or
    /// empty), the bundled sample is answered from a temporary directory, as `serve` answers first.
    #[arg(long, value_name = "DIR", default_value = "out")]
    pub dir: PathBuf,
    /// A published site instead (https://..., or http:// on this machine), asked over the
    /// network: one attempt per call, no retries.
    #[arg(long, value_name = "URL", conflicts_with = "dir")]
    pub base_url: Option<String>,
}

/// `serve` arguments.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The built site to serve.
    #[arg(long, value_name = "DIR", default_value = "out")]
    pub dir: PathBuf,
    /// Address to listen on; loopback by default, so nothing is exposed unless asked. An IP
    /// address and port, or a host name and port that resolves to loopback addresses only
    /// (localhost:8080).
    #[arg(long, value_name = "ADDR", default_value = crate::preview::DEFAULT_BIND,
          value_parser = crate::preview::parse_bind)]
    pub bind: std::net::SocketAddr,
    /// Connection threads kept ready to answer requests (1 to 256); more start while more
    /// connections are open, each answering its own connection.
    #[arg(long, value_name = "N", default_value_t = crate::preview::DEFAULT_WORKERS as u16,
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub workers: u16,
}

/// `collect` arguments.
#[derive(Debug, Args)]
pub struct CollectArgs {
    /// Directory receiving export.json and supply.json (created when missing).
    #[arg(long, value_name = "DIR", default_value = "collected")]
    pub out: PathBuf,
    /// An accepted export whose days and facts are carried forward (e.g. the live /api/export).
    #[arg(long, value_name = "PATH")]
    pub previous_export: Option<PathBuf>,
    /// An accepted supply feed whose collections are carried forward (e.g. the live /api/supply).
    #[arg(long, value_name = "PATH")]
    pub previous_supply: Option<PathBuf>,
    /// Rankings days requested, ending yesterday (UTC).
    #[arg(long, value_name = "N", default_value_t = crate::collect::DEFAULT_DAYS,
          value_parser = clap::value_parser!(u32).range(1..=366))]
    pub days: u32,
    /// The run's clock (RFC 3339); defaults to now.
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
    /// OpenRouter's base URL.
    #[arg(long, value_name = "URL", default_value = "https://openrouter.ai")]
    pub openrouter_url: String,
    /// Hugging Face's base URL.
    #[arg(long, value_name = "URL", default_value = "https://huggingface.co")]
    pub huggingface_url: String,
    /// The collection policy (model-demand.policy.v1), which must exist; without it,
    /// data/policy.json in the current directory, else the policy embedded in the binary.
    #[arg(long, value_name = "PATH")]
    pub policy: Option<PathBuf>,
    /// Cache of immutable Hugging Face files, keyed by repository and commit.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Write the run report (JSON: requests, rate-limit waits, unmatched models, skipped
    /// aliases, failed routes, unknown endpoint members, repositories and facts) to FILE,
    /// whether the run succeeds or not. An existing FILE must be such a report.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

/// `facts` arguments.
#[derive(Debug, Args)]
pub struct FactsArgs {
    /// The Hugging Face repository, owner/name (for example deepseek-ai/DeepSeek-V3.2).
    #[arg(value_name = "REPO")]
    pub repo: String,
    /// A commit SHA (7 to 40 hex digits) instead of the repository's current commit.
    #[arg(long, value_name = "SHA")]
    pub revision: Option<String>,
    /// Print JSON (repository, commit, and each fact's value, unit, state, reason and
    /// source_url) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// The collection policy (model-demand.policy.v1), which must exist; its review applies.
    /// Without it, data/policy.json in the current directory, else the policy embedded in the
    /// binary.
    #[arg(long, value_name = "PATH")]
    pub policy: Option<PathBuf>,
    /// Cache of immutable Hugging Face files, keyed by repository and commit (the one
    /// `collect --cache` uses).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Hugging Face's base URL.
    #[arg(long, value_name = "URL", default_value = "https://huggingface.co")]
    pub huggingface_url: String,
}

/// `build` arguments.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The inputs (ignored with --unavailable).
    #[command(flatten)]
    pub input: InputArgs,
    /// Output directory; replaced as a whole when the build succeeds. Only a new or empty
    /// directory, or a site this program wrote, is replaced: anything else is refused untouched.
    #[arg(long, value_name = "DIR", default_value = "out")]
    pub out: PathBuf,
    /// Public base address of the site, used in the contract's links.
    #[arg(long, value_name = "URL", default_value = crate::site::DEFAULT_BASE_URL)]
    pub base_url: String,
    /// A separate documentation host for the contract's documentation link (the site's own
    /// /docs/ address keeps working and redirects there).
    #[arg(long, value_name = "URL")]
    pub docs_url: Option<String>,
    /// Build the no-data site: contract and OpenAPI served, the model route and feeds answer 503.
    #[arg(long)]
    pub unavailable: bool,
    /// How list answers are kept: `full` writes every page as a file (for `serve`, `verify` and
    /// any static host); `edge` writes them as parts the Netlify edge function assembles (what
    /// Netlify publishes: a few MB whatever the number of models). Both give the same answers.
    #[arg(long, value_enum, default_value_t = crate::site::edge::Layout::Full)]
    pub layout: crate::site::edge::Layout,
}

/// The inputs every data command reads.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Export v1 file (model-demand.export.v1) [default: data/sample/export.json when the
    /// current directory has it, else the bundled sample embedded in the binary].
    #[arg(long, value_name = "PATH")]
    pub export: Option<PathBuf>,
    /// Supply v1 file (model-demand.supply.v1) [default: data/sample/supply.json when the
    /// current directory has it, else the bundled sample's, embedded in the binary].
    #[arg(long, value_name = "PATH", conflicts_with = "no_supply")]
    pub supply: Option<PathBuf>,
    /// Read no supply feed: every model's supply is not_collected.
    #[arg(long)]
    pub no_supply: bool,
    /// The time freshness is judged at (RFC 3339, e.g. 2026-11-21T12:00:00Z); defaults to the clock.
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
}

impl InputArgs {
    /// The export to read: `--export`, else the repository's sample in the current directory,
    /// else the embedded one ([`crate::input::bundled`]).
    pub fn export_source(&self) -> crate::input::bundled::Source {
        crate::input::bundled::Source::resolve(
            self.export.as_deref(),
            crate::input::bundled::SAMPLE_EXPORT,
        )
    }

    /// The supply feed to read (as [`InputArgs::export_source`]), unless `--no-supply` was given.
    pub fn supply_source(&self) -> Option<crate::input::bundled::Source> {
        (!self.no_supply).then(|| {
            crate::input::bundled::Source::resolve(
                self.supply.as_deref(),
                crate::input::bundled::SAMPLE_SUPPLY,
            )
        })
    }

    /// What the output says the inputs are ([`crate::input::bundled::describe`]).
    pub fn describe(&self) -> String {
        crate::input::bundled::describe(&self.export_source(), self.supply_source().as_ref())
    }
}

/// `query` arguments.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// Print `HTTP/1.1 <status>` and an empty line before the body.
    #[arg(long, short = 'i')]
    pub include: bool,
    /// The raw query string, without `?` (e.g. `sort=latest_rank&order=asc&limit=3`); may be empty.
    #[arg(value_name = "QUERY", default_value = "", allow_hyphen_values = true)]
    pub query: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
