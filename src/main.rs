//! The `model-demand` binary: parse the command line, call the library, report errors.

use std::io::{StdoutLock, Write};
use std::process::ExitCode;

use clap::Parser;
use model_demand::base::error::{Error, Result};
use model_demand::cli::{Cli, Command};
use model_demand::commands;

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        // Whoever read standard output wants no more (`| head`): end quietly, as ripgrep does.
        Err(Stop::Closed) => ExitCode::SUCCESS,
        Err(Stop::Failed(err)) => {
            report(&err);
            ExitCode::FAILURE
        }
    }
}

/// Why a command stopped early.
enum Stop {
    /// Standard output was closed by its reader (a broken pipe).
    Closed,
    /// The command failed.
    Failed(Error),
}

impl From<Error> for Stop {
    fn from(err: Error) -> Stop {
        Stop::Failed(err)
    }
}

/// Writes to standard output and flushes it; a closed standard output is [`Stop::Closed`],
/// not an error (Rust ignores SIGPIPE, so a closed pipe is an `EPIPE` here, and `println!`
/// would panic on it).
fn out(write: impl FnOnce(&mut StdoutLock<'static>) -> std::io::Result<()>) -> Result<(), Stop> {
    let mut stdout = std::io::stdout().lock();
    match write(&mut stdout).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(Stop::Closed),
        Err(e) => Err(Stop::Failed(Error::io(
            "cannot write",
            "standard output",
            e,
        ))),
    }
}

fn run(cli: Cli) -> Result<ExitCode, Stop> {
    match cli.command {
        Command::Check(input) => {
            let summary = commands::check(&input)?;
            out(|o| writeln!(o, "{summary}"))?;
        }
        Command::Query(args) => {
            let response = commands::query(&args)?;
            out(|o| {
                if args.include {
                    write!(o, "HTTP/1.1 {}\n\n", response.status)?;
                }
                o.write_all(&response.body)?;
                o.write_all(b"\n")
            })?;
            if response.status != 200 {
                return Ok(ExitCode::FAILURE);
            }
        }
        Command::Build(args) => eprintln!("{}", commands::build(&args)?.summary(&args.out)),
        Command::Serve(args) => commands::serve(&args)?,
        Command::Verify {
            dir,
            export,
            supply,
        } => {
            let options = model_demand::verify::VerifyOptions {
                export,
                supply,
                progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
            };
            let report = model_demand::verify::verify_with(&dir, &options)?;
            let answers = if report.every_list_answer {
                "answers (every list answer of the edge layout)"
            } else {
                "sampled answers"
            };
            out(|o| {
                writeln!(
                    o,
                    "verified {}: {} files match the manifest, {} {answers} consistent with the site's own feeds",
                    dir.display(),
                    report.files,
                    report.requests
                )
            })?;
        }
        Command::Collect(args) => {
            let dir = args.out.clone();
            let summary = commands::collect(args)?.summary(&dir);
            out(|o| writeln!(o, "{summary}"))?;
        }
        Command::Facts(args) => {
            let text = commands::facts(args)?;
            out(|o| write!(o, "{text}"))?;
        }
        Command::CollectReport { report } => {
            let text = commands::collect_report(&report)?;
            out(|o| write!(o, "{text}"))?;
        }
        Command::NetlifyToml => {
            out(|o| write!(o, "{}", model_demand::site::netlify::netlify_toml()))?
        }
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
