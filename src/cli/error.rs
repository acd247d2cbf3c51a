//! The binary's error kinds, and the one place that turns an error into a message and an
//! exit code ([`report`], called by `cli::entry` only).
//!
//! The subcommands return `anyhow` errors (their context chains name files and units);
//! what decides the exit code and the form of the message is the [`Failure`] somewhere in
//! that chain, never a guess from the error's shape:
//!
//! | kind | exit | message |
//! |---|---|---|
//! | [`Failure::Usage`] | 2 | the reason, then "(see 'nqueens count --help')" |
//! | [`Failure::CheckFailed`], a broken symmetry identity | 1 | the reason |
//! | [`Failure::Write`] to standard output, closed pipe | 0 | none (`nqueens ... \| head`) |
//! | [`Failure::Write`], [`Failure::Read`] | 2 | "cannot write/read WHAT: why" |
//! | anything else (a file refused, a failed count) | 2 | the chain, one line |
//!
//! Standard output is written through [`stdout`], whose errors carry
//! `Failure::Write { what: "standard output" }`; an I/O error that reaches [`report`] with
//! no kind is reported as what it says, not as a failed write (before, any bare I/O error
//! was taken for one: `verify --bfile - < DIR` said "cannot write to standard output").

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

/// What went wrong, as far as the exit code and the message's form are concerned.
#[derive(Debug)]
pub enum Failure {
    /// The command line or the environment asks for something the program does not do.
    Usage(String),
    /// A count or a file failed a check: a wrong count, a mismatch with a known value.
    CheckFailed(String),
    /// Reading `what` (a file, standard input) failed.
    Read {
        /// What was being read, as the message names it.
        what: String,
        /// Why.
        source: io::Error,
    },
    /// Writing `what` (a file, standard output) failed.
    Write {
        /// What was being written, as the message names it.
        what: String,
        /// Why.
        source: io::Error,
    },
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Usage(why) | Failure::CheckFailed(why) => f.write_str(why),
            Failure::Read { what, source } => write!(f, "cannot read {what}: {source}"),
            Failure::Write { what, source } => write!(f, "cannot write {what}: {source}"),
        }
    }
}

/// No `source()`: the message already ends with the I/O error's (an error chain printed
/// with `{:#}` would say it twice).
impl std::error::Error for Failure {}

/// Returns a usage error from the function: `usage!("--x needs --y")`, as `bail!` does.
macro_rules! usage {
    ($($arg:tt)*) => {
        return Err($crate::cli::error::usage_error(format!($($arg)*)))
    };
}
pub(crate) use usage;

/// Writes one line on standard error, and never panics.
///
/// `eprintln!` panics when the write fails (stderr a closed pipe, a full disk, a terminal
/// that hung up), and the release profile's `panic = "abort"` made that exit code 134 with
/// the run's own outcome lost. A diagnostic that cannot be written is dropped: there is
/// nowhere left to say it, and the exit code still tells how the run ended. The line is
/// formatted first and written with one `write` call, so lines of several threads do not
/// interleave. Called through [`say!`].
pub fn say_line(args: fmt::Arguments<'_>) {
    let line = format!("{args}\n");
    let _ = io::stderr().lock().write_all(line.as_bytes());
}

/// `eprintln!` that never panics (see [`say_line`]): the only way the command writes to
/// standard error (clippy's `print_stderr` is denied in `cli`).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::error::say_line(format_args!($($arg)*))
    };
}
pub(crate) use say;

/// A usage error (see [`usage!`]).
pub fn usage_error(why: impl Into<String>) -> anyhow::Error {
    Failure::Usage(why.into()).into()
}

/// Standard output, locked, whose write errors say that standard output failed.
pub fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

/// See [`stdout`].
pub struct Stdout(io::StdoutLock<'static>);

/// An error of standard output, tagged so that [`report`] knows what failed.
fn tagged(e: io::Error) -> io::Error {
    let kind = e.kind();
    io::Error::new(
        kind,
        Failure::Write {
            what: "standard output".into(),
            source: e,
        },
    )
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(tagged)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf).map_err(tagged)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(tagged)
    }
}

/// The [`Failure`] in `e`'s chain, also one carried inside an I/O error (see [`stdout`]).
fn failure(e: &anyhow::Error) -> Option<&Failure> {
    e.chain().find_map(|c| {
        c.downcast_ref::<Failure>().or_else(|| {
            c.downcast_ref::<io::Error>()
                .and_then(|io| io.get_ref())
                .and_then(|inner| inner.downcast_ref::<Failure>())
        })
    })
}

/// Prints `e` on stderr as the module doc's table says and returns the exit code; a usage
/// error points to `help` (`nqueens count --help`).
pub fn report(e: &anyhow::Error, one_line: impl Fn(&str) -> String, help: &str) -> ExitCode {
    let broken_pipe = |io: &io::Error| io.kind() == io::ErrorKind::BrokenPipe;
    match failure(e) {
        Some(Failure::Usage(why)) => {
            say!("nqueens: {} (see '{help}')", one_line(why));
            ExitCode::from(2)
        }
        Some(Failure::CheckFailed(_)) => {
            say!("nqueens: {}", one_line(&format!("{e:#}")));
            ExitCode::from(1)
        }
        Some(Failure::Write { what, source }) if what == "standard output" => {
            if broken_pipe(source) {
                return ExitCode::SUCCESS;
            }
            say!("nqueens: cannot write to standard output: {source}");
            ExitCode::from(2)
        }
        _ => {
            say!("nqueens: {}", one_line(&format!("{e:#}")));
            // A broken symmetry identity is a failed check, like a table mismatch.
            if super::report::is_failed_check(e) {
                ExitCode::from(1)
            } else {
                ExitCode::from(2)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_found_in_the_chain_and_inside_io_errors() {
        let plain = anyhow::anyhow!("a checkpoint refused");
        assert!(failure(&plain).is_none());
        let u = usage_error("no such option").context("while parsing");
        assert!(matches!(failure(&u), Some(Failure::Usage(_))));
        let io: anyhow::Error = tagged(io::Error::from(io::ErrorKind::BrokenPipe)).into();
        assert!(matches!(
            failure(&io),
            Some(Failure::Write { what, .. }) if what == "standard output"
        ));
        // A bare I/O error is not taken for a failed write.
        let bare: anyhow::Error = io::Error::from(io::ErrorKind::IsADirectory).into();
        assert!(failure(&bare).is_none());
    }

    #[test]
    fn messages_name_what_failed() {
        let r = Failure::Read {
            what: "b-file x.txt".into(),
            source: io::Error::from(io::ErrorKind::NotFound),
        };
        assert!(r.to_string().starts_with("cannot read b-file x.txt: "));
        let w = Failure::Write {
            what: "shard file s.json".into(),
            source: io::Error::from(io::ErrorKind::StorageFull),
        };
        assert!(w
            .to_string()
            .starts_with("cannot write shard file s.json: "));
    }
}
