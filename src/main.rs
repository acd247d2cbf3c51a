//! The `nqueens` binary: parses the command line, runs the subcommand, and turns every error
//! into one line on stderr with exit code 2 (usage or input) — never a panic or backtrace.

mod cli;

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::Parser;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
            _ => {
                eprintln!("nqueens: {}", one_line(&e.to_string()));
                return ExitCode::from(2);
            }
        },
    };
    match cli::run(cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nqueens: {}", one_line(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

/// Clap's messages span several lines (usage, tips); keep the first, without its "error: ".
fn one_line(msg: &str) -> String {
    let mut lines = msg.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut first = lines
        .next()
        .unwrap_or("error")
        .trim_start_matches("error:")
        .trim()
        .to_string();
    // "the following required arguments were not provided:" names them on the next line.
    if first.ends_with(':') {
        if let Some(next) = lines.next() {
            first = format!("{first} {next}");
        }
    }
    format!("{first} (see 'nqueens --help')")
}

/// `nqueens solutions 12 | head` closes the pipe early; that is a normal end, not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
