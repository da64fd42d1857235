//! The work of each command, one entry point each, so the binary only parses the command line,
//! calls one of these, prints what it returns and picks the exit code.

use std::path::Path;

use time::OffsetDateTime;

use crate::answers::render::{Api, Response};
use crate::base::error::Result;
use crate::cli::{BuildArgs, CollectArgs, FactsArgs, InputArgs, McpArgs, QueryArgs, ServeArgs};
use crate::collect::{self, CollectOptions, CollectReport};
use crate::input::bundled::{self, Source};
use crate::preview::ServeOptions;
use crate::site::manifest::{BuiltFrom, Manifest};
use crate::site::{self, BuildOptions, BuildReport, SiteData};
use crate::{input::load_sources, input::Inputs, parse_now, summary, SAMPLE_EXPORT, SAMPLE_SUPPLY};

/// Loads and validates the inputs the arguments name (a path given, else the repository's
/// sample in the current directory, else the one in the binary: [`crate::input::bundled`]), and the
/// clock (`--now`, else now).
pub fn load_inputs(input: &InputArgs) -> Result<(Inputs, OffsetDateTime)> {
    let now = now_or_clock(input.now.as_deref())?;
    let supply = input.supply_source();
    Ok((load_sources(&input.export_source(), supply.as_ref())?, now))
}

fn now_or_clock(now: Option<&str>) -> Result<OffsetDateTime> {
    now.map_or_else(|| Ok(OffsetDateTime::now_utc()), parse_now)
}

/// `check`: the one-line summary of accepted inputs.
pub fn check(input: &InputArgs) -> Result<String> {
    let (inputs, now) = load_inputs(input)?;
    Ok(summary(&inputs, &inputs.served_models(now)))
}

/// `query`: the answer `GET /api/v1/models?QUERY` gets from the inputs.
pub fn query(args: &QueryArgs) -> Result<Response> {
    let (inputs, now) = load_inputs(&args.input)?;
    Ok(Api::new(&inputs.served_models(now)).answer(&args.query))
}

/// Removes what a stopped `build` of `out` left beside it, and with `previews` what a stopped
/// `serve` left in the temporary directory ([`crate::site::leftovers`]: only directories this
/// program marked as its own), saying so on stderr.
fn remove_leftovers(out: &Path, previews: bool) {
    let mut removed = crate::site::leftovers::sweep_beside(out);
    if previews {
        removed.extend(crate::site::leftovers::sweep_previews());
    }
    for path in removed {
        eprintln!(
            "removed {}: left by a build or serve that was stopped",
            path.display()
        );
    }
}

/// `build`: the site from the inputs (or the no-data site), with progress on stderr.
pub fn build(args: &BuildArgs) -> Result<BuildReport> {
    remove_leftovers(&args.out, false);
    let options = BuildOptions {
        base_url: args.base_url.clone(),
        docs_url: args.docs_url.clone(),
        progress: true,
        layout: args.layout,
        ..BuildOptions::new(&args.out)
    };
    if args.unavailable {
        return site::build(&SiteData::Unavailable, &options);
    }
    let (inputs, now) = load_inputs(&args.input)?;
    let catalog = inputs.served_models(now);
    eprintln!("inputs: {}", args.input.describe());
    eprintln!("{}", summary(&inputs, &catalog));
    let data = SiteData::Data {
        inputs: &inputs,
        catalog: &catalog,
    };
    site::build(&data, &options)
}

/// `serve`: serves the site in the directory until the process is stopped. When the directory
/// holds no site (absent or empty), the bundled sample is written into it, and answered from
/// its compact layout meanwhile ([`crate::preview`]); when it holds a site `serve` wrote from
/// other inputs than the sample's now (an edited `data/sample/`, another program version), the
/// site is written again the same way, and one line says why.
pub fn serve(args: &ServeArgs) -> Result<()> {
    let workers = usize::from(args.workers);
    let dir = &args.dir;
    remove_leftovers(dir, true);
    let export = Source::resolve(None, SAMPLE_EXPORT);
    let supply = Source::resolve(None, SAMPLE_SUPPLY);
    let from = bundled::describe(&export, Some(&supply));
    let base_url = crate::preview::local_base_url(args.bind);
    if Manifest::is_present(dir) {
        match stale_preview(dir, &base_url, &export, &supply)? {
            None => return crate::preview::serve(dir, args.bind, workers),
            Some(why) => match site::check_replaceable(dir) {
                Ok(_) => eprintln!(
                    "{} was built from {why}: rebuilding it from {from}, answered from its compact layout meanwhile",
                    dir.display()
                ),
                Err(refused) => {
                    eprintln!(
                        "{} was built from {why}, but is not rebuilt ({refused}); serving it as it is",
                        dir.display()
                    );
                    return crate::preview::serve(dir, args.bind, workers);
                }
            },
        }
    } else {
        // Refused before anything else, the sample's load included (`serve_while_building`
        // checks again, for its other callers).
        site::check_replaceable(dir)?;
        eprintln!(
            "{} holds no site: writing {from} into it (about 68,000 files, 5.7 GB), answered from its compact layout meanwhile",
            dir.display()
        );
    }
    let inputs = load_sources(&export, Some(&supply))?;
    let catalog = inputs.served_models(OffsetDateTime::now_utc());
    let data = SiteData::Data {
        inputs: &inputs,
        catalog: &catalog,
    };
    let options = ServeOptions {
        workers,
        ..ServeOptions::default()
    };
    let (running, report) = crate::preview::serve_while_building_for(
        &data,
        dir,
        &base_url,
        args.bind,
        options,
        true,
        |running, interim| {
            eprintln!(
                "{}",
                crate::preview::serving_line(interim, running.addr, workers)
            );
        },
    )?;
    eprintln!("{}", report.summary(dir));
    eprintln!(
        "{}",
        crate::preview::serving_line(dir, running.addr, workers)
    );
    running.wait();
    Ok(())
}

/// How the preview's own site in `dir` differs from the sample `serve` would write now for
/// `base_url`, in words (`another export, another program version (model-demand 0.1.0)`), or
/// `None` when it does not, or when the site is not the preview's (`build` wrote it, or it
/// records nothing: it was built before sites recorded their inputs), which `serve` never
/// replaces on its own.
pub fn stale_preview(
    dir: &Path,
    base_url: &str,
    export: &Source,
    supply: &Source,
) -> Result<Option<String>> {
    let Some(site) = Manifest::built_from(dir) else {
        return Ok(None);
    };
    if site.written_by != crate::preview::WRITTEN_BY {
        return Ok(None);
    }
    let now = BuiltFrom::new(
        crate::preview::WRITTEN_BY,
        base_url,
        Some(&export.read()?),
        Some(&supply.read()?),
    );
    Ok(site.differences(&now))
}

/// `collect`: the two input files from the live sources.
pub fn collect(args: CollectArgs) -> Result<CollectReport> {
    let now = now_or_clock(args.now.as_deref())?;
    let options = CollectOptions {
        previous_export: args.previous_export,
        previous_supply: args.previous_supply,
        days: args.days,
        openrouter_url: args.openrouter_url,
        huggingface_url: args.huggingface_url,
        policy: args.policy,
        cache: args.cache,
        report: args.report,
        progress: true,
        ..CollectOptions::from_env(&args.out, now)
    };
    collect::collect(&options)
}

/// `facts`: the twelve facts of one repository, as a table or (`--json`) pretty JSON.
pub fn facts(args: FactsArgs) -> Result<String> {
    let options = collect::inspect::FactsOptions {
        repo: args.repo,
        revision: args.revision,
        policy: args.policy,
        cache: args.cache,
        huggingface_url: args.huggingface_url,
        hf_token: collect::secret_from_env(collect::HF_TOKEN_VAR),
        retry_base: collect::RETRY_BASE,
    };
    let found = collect::inspect::repository_facts(&options)?;
    Ok(if args.json {
        let mut text = serde_json::to_string_pretty(&found.to_json())
            .map_err(crate::base::error::Error::Serialize)?;
        text.push('\n');
        text
    } else {
        found.to_table()
    })
}

/// `collect-report`: a run report as Markdown.
pub fn collect_report(path: &std::path::Path) -> Result<String> {
    Ok(collect::report::RunReport::read(path)?.to_markdown())
}

/// `mcp`: the MCP server on stdio over the site the arguments name, until the client closes
/// standard input. When `--dir` holds no site (absent or empty), it answers from the sample
/// `serve` would write (the path given, the checkout's, else the copy inside the binary), built
/// in its compact layout into a temporary directory (a fraction of a second), and says so on
/// standard error; a directory holding anything else is refused as before.
pub fn mcp(args: &McpArgs) -> Result<()> {
    use crate::site::ownership::Replaceable;
    if let Some(url) = &args.base_url {
        return crate::agents::run(crate::agents::Source::remote(url)?);
    }
    let dir = &args.dir;
    if !matches!(
        site::check_replaceable(dir),
        Ok(Replaceable::Absent | Replaceable::Empty)
    ) {
        return crate::agents::run(crate::agents::Source::dir(dir)?);
    }
    let export = Source::resolve(None, SAMPLE_EXPORT);
    let supply = Source::resolve(None, SAMPLE_SUPPLY);
    let inputs = load_sources(&export, Some(&supply))?;
    let catalog = inputs.served_models(OffsetDateTime::now_utc());
    let interim = TemporarySite::new();
    let compact = BuildOptions {
        layout: crate::site::edge::Layout::Edge,
        ..BuildOptions::new(&interim.0)
    };
    let data = SiteData::Data {
        inputs: &inputs,
        catalog: &catalog,
    };
    site::build(&data, &compact)?;
    eprintln!(
        "{} holds no site: answering from {} (its compact layout, in a temporary directory); `model-demand build --out {}` writes a site of your own data",
        dir.display(),
        bundled::describe(&export, Some(&supply)),
        dir.display()
    );
    let source = crate::agents::Source::dir(&interim.0)?;
    crate::agents::run(source)
}

/// A site written into a directory of its own under the system's temporary directory, removed
/// when dropped (only when it holds a manifest: a site this program wrote there).
struct TemporarySite(std::path::PathBuf);

impl TemporarySite {
    fn new() -> TemporarySite {
        TemporarySite(std::env::temp_dir().join(format!(
            "model-demand-mcp-{}-{}",
            std::process::id(),
            OffsetDateTime::now_utc().unix_timestamp_nanos()
        )))
    }
}

impl Drop for TemporarySite {
    fn drop(&mut self) {
        if Manifest::is_present(&self.0) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
