//! The `model-demand` binary: parse the command line, call the library, report errors.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use model_demand::cli::{Cli, Command};
use model_demand::commands;
use model_demand::error::{Error, Result};

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
        Command::Check(input) => println!("{}", commands::check(&input)?),
        Command::Query(args) => {
            let response = commands::query(&args)?;
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
            if response.status != 200 {
                return Ok(ExitCode::FAILURE);
            }
        }
        Command::Build(args) => eprintln!("{}", commands::build(&args)?.summary(&args.out)),
        Command::Serve(args) => commands::serve(&args)?,
        Command::Verify { dir } => {
            let report = model_demand::verify::verify(&dir)?;
            let answers = if report.every_list_answer {
                "answers (every list answer of the edge layout)"
            } else {
                "sampled answers"
            };
            println!(
                "verified {}: {} files match the manifest, {} {answers} consistent with the site's own feeds",
                dir.display(),
                report.files,
                report.requests,
            );
        }
        Command::Collect(args) => {
            let out = args.out.clone();
            println!("{}", commands::collect(args)?.summary(&out));
        }
        Command::Facts(args) => print!("{}", commands::facts(args)?),
        Command::CollectReport { report } => print!("{}", commands::collect_report(&report)?),
        Command::NetlifyToml => print!("{}", model_demand::netlify::netlify_toml()),
        Command::Mcp(args) => commands::mcp(&args)?,
    }
    Ok(ExitCode::SUCCESS)
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
