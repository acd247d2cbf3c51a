//! The command's entry: parses the command line, runs the subcommand, and turns every error
//! into one line on stderr with its exit code (`cli::error`: 1 a failed check, 2 usage
//! or input) — never a panic or backtrace. `src/main.rs` calls [`main`] and nothing else.

use crate::cli::error::say;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches};

use crate::cli;
use crate::runner::shown;

/// Runs the `nqueens` command with the process's arguments.
pub fn main() -> ExitCode {
    let parsed = cli::command()
        .try_get_matches()
        .and_then(|m| cli::Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                return match e.print() {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(io) => write_failed(&io),
                };
            }
            // Bare `nqueens`: clap would print the whole help on stderr; one line is enough.
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                let names: Vec<String> = cli::Cli::command()
                    .get_subcommands()
                    .map(|c| c.get_name().to_string())
                    .collect();
                say!(
                    "nqueens: a subcommand is required: one of {} (see 'nqueens --help')",
                    names.join(", ")
                );
                return ExitCode::from(2);
            }
            _ => {
                say!(
                    "nqueens: {} (see '{}')",
                    clap_line(&escape_args(&e.to_string())),
                    help_pointer()
                );
                return ExitCode::from(2);
            }
        },
    };
    match cli::run(cli) {
        Ok(code) => code,
        // The error's kind (cli::error::Failure) decides the exit code and the message.
        Err(e) => cli::error::report(&e, one_line, &help_pointer()),
    }
}

/// The help a usage error points to: the subcommand's (`nqueens count --help`) when the
/// command line names one (or its alias), else `nqueens --help`.
fn help_pointer() -> String {
    let cmd = cli::Cli::command();
    std::env::args_os()
        .skip(1)
        .find(|a| !a.to_string_lossy().starts_with('-'))
        .and_then(|a| cmd.find_subcommand(a).map(|s| s.get_name().to_string()))
        .map_or_else(
            || "nqueens --help".to_string(),
            |name| format!("nqueens {name} --help"),
        )
}

/// A clap error as one line, keeping what helps: the error, clap's tips ("a similar
/// argument exists: '--threads'") and the possible values, without the usage line and
/// clap's pointer to `--help` (the caller points to the subcommand's). Before, only the
/// first line was kept: `count 12 --thread 2` lost its "did you mean".
fn clap_line(msg: &str) -> String {
    let mut lines = msg
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"));
    let mut line = without_echo(
        lines
            .next()
            .unwrap_or("error")
            .trim_start_matches("error:")
            .trim(),
    );
    for l in lines {
        let joint = if l.starts_with('[') || line.ends_with(':') {
            " "
        } else if l.starts_with("tip:") {
            "; "
        } else {
            // One more name of "the following required arguments were not provided:".
            ", "
        };
        line.push_str(joint);
        line.push_str(l);
    }
    line
}

/// The end of a run whose output could not be written. `nqueens solutions 12 | head` closes
/// the pipe early; that is a normal end, not an error (ripgrep's rule). Anything else (a
/// full disk: `> /dev/full`) is one line and exit code 2.
fn write_failed(io: &std::io::Error) -> ExitCode {
    if io.kind() == std::io::ErrorKind::BrokenPipe {
        return ExitCode::SUCCESS;
    }
    say!("nqueens: cannot write to standard output: {io}");
    ExitCode::from(2)
}

/// Clap echoes the arguments it refuses as they were given; a newline in one would cut
/// the message (and an escape sequence would reach the terminal). Each argument, or the
/// value of a `--name=value` one, that needs it is replaced by its shown form (see
/// `crate::runner::shown`) before the message is cut to one line.
fn escape_args(msg: &str) -> String {
    let mut args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .flat_map(|a| {
            let value = a
                .strip_prefix("--")
                .and_then(|r| r.split_once('='))
                .map(|(_, v)| v.to_string());
            std::iter::once(a).chain(value)
        })
        .filter(|a| !a.is_empty() && shown::needs_care(a))
        .collect();
    args.sort_by_key(|a| std::cmp::Reverse(a.len()));
    args.iter().fold(msg.to_string(), |m, a| {
        m.replace(a.as_str(), &shown::value(a))
    })
}

/// An error's message as one line: its first line, without an "error: " (clap's
/// messages are made one line by [`clap_line`]).
pub(crate) fn one_line(msg: &str) -> String {
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
    without_echo(&first)
}

/// Clap says "invalid value 'V' for 'ARG': REASON"; when REASON names V again (our parsers
/// do), the value is dropped from clap's part, so a long argument appears once.
fn without_echo(msg: &str) -> String {
    let parts = msg
        .strip_prefix("invalid value '")
        .and_then(|rest| rest.split_once("' for '"))
        .and_then(|(value, rest)| Some((value, rest.split_once("': ")?)));
    match parts {
        Some((value, (arg, reason))) if value.len() > 40 || reason.contains(value) => {
            format!("invalid value for '{arg}': {reason}")
        }
        _ => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_errors_keep_their_tips_and_values_on_one_line() {
        let line = |args: &[&str]| {
            let e = cli::command().try_get_matches_from(args).unwrap_err();
            clap_line(&e.to_string())
        };
        assert_eq!(
            line(&["nqueens", "count", "12", "--thread", "2"]),
            "unexpected argument '--thread' found; tip: a similar argument exists: '--threads'"
        );
        assert_eq!(
            line(&["nqueens", "count", "12", "--engine", "fast"]),
            "invalid value 'fast' for '--engine <ENGINE>' [possible values: auto, quadrant, backtrack]"
        );
        assert_eq!(
            line(&["nqueens", "cuont"]),
            "unrecognized subcommand 'cuont'; tip: a similar subcommand exists: 'count'"
        );
        assert_eq!(
            line(&["nqueens", "count"]),
            "the following required arguments were not provided: <N|A..B>"
        );
    }
}
