//! The command's entry: parses the command line, builds the subcommand's options, runs it,
//! and turns its outcome into the exit code — the one place exit codes are decided (the
//! table is in `cli::error`: 0 ok, 1 a failed check, 2 usage or input, 3 `merge --status`
//! with shards missing, 130 interrupted). Every failure is one line on stderr, never a panic
//! or backtrace. `src/main.rs` calls [`main`] and nothing else.

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches};

use super::args::{self, Cli, Command};
use super::error::{say, without_echo, Done, Failure, Outcome};
use super::options::{
    AnimateOptions, BenchOptions, CountOptions, EstimateOptions, MergeOptions, PlanOptions,
    SolutionsOptions, SolveOptions, VerifyOptions,
};
use super::{
    animate, bench, count, estimate, kernel, merge, plan, session, solutions, solve, verify,
};
use crate::runner::shown;

/// Runs the `nqueens` command with the process's arguments.
pub fn main() -> ExitCode {
    let parsed = args::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
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
                let names: Vec<String> = Cli::command()
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
    let outcome = run(cli);
    if let Err(failure) = &outcome {
        failure.say(&help_pointer());
    }
    exit_code(&outcome)
}

/// Runs the parsed command line: its options first (every usage check), then the
/// subcommand.
fn run(cli: Cli) -> Outcome {
    kernel::check_env()?;
    // Ctrl-C, SIGTERM and SIGHUP end every command with exit code 130, as they end an
    // interrupted count (a range count, verify, plan, estimate ended with 143 on SIGTERM);
    // a single count then makes the signal graceful (`session::stop_flag`). Not animate:
    // it restores the terminal on signals of its own.
    if !matches!(cli.command, Command::Animate(_)) {
        session::quit_on_signal();
    }
    match cli.command {
        Command::Count(a) => count::run(&CountOptions::from_args(&a)?),
        Command::Verify(a) => verify::run(&VerifyOptions::from_args(&a)),
        Command::Solutions(a) => solutions::run(&SolutionsOptions::from_args(&a)?),
        Command::Solve(a) => solve::run(&SolveOptions::from_args(&a)?),
        Command::Animate(a) => animate::run(&AnimateOptions::from_args(&a)),
        Command::Bench(a) => bench::run(&BenchOptions::from_args(&a)),
        Command::Merge(a) => merge::run(&MergeOptions::from_args(&a)),
        Command::Plan(a) => plan::run(&PlanOptions::from_args(&a)?),
        Command::Estimate(a) => estimate::run(&EstimateOptions::from_args(&a)),
    }
}

/// The exit code of an outcome (the table of `cli::error`).
fn exit_code(outcome: &Outcome) -> ExitCode {
    match outcome {
        Ok(Done::Ok) => ExitCode::SUCCESS,
        Ok(Done::Incomplete) => ExitCode::from(3),
        Ok(Done::Interrupted) => ExitCode::from(130),
        Ok(Done::Terminal(code)) => ExitCode::from(*code),
        Err(failure) => ExitCode::from(failure_code(failure)),
    }
}

/// The exit code of a failure: 1 a failed check, 0 a closed pipe on standard output (the
/// reader had seen enough: `nqueens solutions 12 | head`), 2 anything else.
fn failure_code(failure: &Failure) -> u8 {
    match failure {
        Failure::CheckFailed(_) => 1,
        Failure::Said(inner) => failure_code(inner),
        f if f.is_closed_pipe() => 0,
        _ => 2,
    }
}

/// The help a usage error points to: the subcommand's (`nqueens count --help`) when the
/// command line names one (or its alias), else `nqueens --help`.
fn help_pointer() -> String {
    let cmd = Cli::command();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_errors_keep_their_tips_and_values_on_one_line() {
        let line = |args: &[&str]| {
            let e = args::command().try_get_matches_from(args).unwrap_err();
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
