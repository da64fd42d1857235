//! The `model-demand` binary: parse the command line, call the library, report errors.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use model_demand::cli::{Cli, Command, InputArgs};
use model_demand::error::{Error, Result};
use model_demand::site::{self, BuildOptions, SiteData};
use time::OffsetDateTime;

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(err) => {
            report(&err);
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Check(input) => {
            let (inputs, now) = load(&input)?;
            let catalog = inputs.catalog(now);
            println!("{}", model_demand::summary(&inputs, &catalog));
            Ok(ExitCode::SUCCESS)
        }
        Command::Query(args) => {
            let (inputs, now) = load(&args.input)?;
            let api = model_demand::render::Api::new(&inputs.catalog(now));
            let response = api.answer(&args.query);
            let mut out = std::io::stdout().lock();
            let written = (|| {
                if args.include {
                    write!(out, "HTTP/1.1 {}\n\n", response.status)?;
                }
                out.write_all(&response.body)?;
                out.write_all(b"\n")?;
                out.flush()
            })();
            written.map_err(|e| Error::io("cannot write", "standard output", e))?;
            Ok(if response.status == 200 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Build(args) => {
            let options = BuildOptions {
                base_url: args.base_url.clone(),
                docs_url: args.docs_url.clone(),
                progress: true,
                ..BuildOptions::new(&args.out)
            };
            let report = if args.unavailable {
                site::build(&SiteData::Unavailable, &options)?
            } else {
                let (inputs, now) = load(&args.input)?;
                let catalog = inputs.catalog(now);
                eprintln!("{}", model_demand::summary(&inputs, &catalog));
                site::build(
                    &SiteData::Data {
                        inputs: &inputs,
                        catalog: &catalog,
                    },
                    &options,
                )?
            };
            eprintln!("{}", report.summary(&args.out));
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve(args) => {
            if let Some(report) = model_demand::ensure_preview_site(&args.dir)? {
                eprintln!("{}", report.summary(&args.dir));
            }
            model_demand::serve::serve(&args.dir, args.bind, usize::from(args.workers))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Verify { dir } => {
            let report = model_demand::verify::verify(&dir)?;
            println!(
                "verified {}: {} files match the manifest, {} sampled answers consistent with the site's own feeds",
                dir.display(),
                report.files,
                report.requests
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Collect(args) => {
            let now = match &args.now {
                Some(text) => model_demand::parse_now(text)?,
                None => OffsetDateTime::now_utc(),
            };
            let options = model_demand::collect::CollectOptions {
                previous_export: args.previous_export,
                previous_supply: args.previous_supply,
                days: args.days,
                openrouter_url: args.openrouter_url,
                huggingface_url: args.huggingface_url,
                policy: args.policy,
                cache: args.cache,
                progress: true,
                ..model_demand::collect::CollectOptions::from_env(&args.out, now)
            };
            let report = model_demand::collect::collect(&options)?;
            println!("{}", report.summary(&args.out));
            Ok(ExitCode::SUCCESS)
        }
        Command::NetlifyToml => {
            print!("{}", model_demand::netlify::netlify_toml());
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn load(input: &InputArgs) -> Result<(model_demand::Inputs, OffsetDateTime)> {
    let now = match &input.now {
        Some(text) => model_demand::parse_now(text)?,
        None => OffsetDateTime::now_utc(),
    };
    Ok((model_demand::load(&input.export, input.supply_path())?, now))
}

/// Prints an error and its causes; a refused input lists one problem per line, path first.
fn report(err: &Error) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "error: {err}");
    if let Error::Verify(differences) = err {
        for difference in differences {
            let _ = writeln!(stderr, "{difference}");
        }
    }
    if let Error::Refused(files) = err {
        for (_, problems) in files {
            for problem in problems {
                let _ = writeln!(stderr, "{problem}");
            }
        }
    }
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        let _ = writeln!(stderr, "  caused by: {cause}");
        source = cause.source();
    }
}
