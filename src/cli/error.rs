//! The binary's one failure type, [`Failure`], and what a subcommand that ran to its end
//! reports, [`Done`]: every subcommand returns an [`Outcome`], and `cli::entry` alone turns
//! it into an exit code. A failed check is a [`Failure::CheckFailed`] wherever it arises (a
//! count that disagrees with the known table, a broken symmetry identity, a recheck that
//! differs, a wrong benchmark count); nothing downstream looks inside an error to find out.
//!
//! | outcome | exit | message (by [`Failure::say`]) |
//! |---|---|---|
//! | [`Done::Ok`] | 0 | none |
//! | [`Failure::CheckFailed`] | 1 | the reason, if the command has not said it beside its report |
//! | [`Failure::Usage`] | 2 | the reason, then "(see 'nqueens count --help')" |
//! | [`Failure::Read`], [`Failure::Write`], [`Failure::Other`] | 2 | one line: what failed and why |
//! | [`Failure::Stdout`], closed pipe | 0 | none (`nqueens ... \| head`) |
//! | [`Failure::Stdout`], anything else | 2 | "cannot write to standard output: why" |
//! | [`Done::Incomplete`] | 3 | none (`merge --status` with shards missing) |
//! | [`Done::Interrupted`] | 130 | said by the command (what was kept, how to resume) |
//! | [`Done::Terminal`] | its code | the animation's end: 0, or 128 + the signal |
//!
//! [`Failure`] is deliberately not a `std::error::Error`: it cannot be hidden inside an
//! `anyhow::Error`, so a usage error or a failed check always reaches `entry` as itself.
//! Plain errors (`anyhow`, with context chains naming files and units) become
//! [`Failure::Other`] at the subcommand's edge. Library errors convert through
//! `From<crate::Error>`, which makes a broken symmetry identity a failed check: the
//! functions that count (`report::timed_count`, a session's `counts`, a merge's `finish`)
//! return `Result<_, Failure>`, so that conversion is the one the error takes.
//!
//! Standard output is written through [`stdout`], whose errors carry a tag saying which
//! stream failed; `From<io::Error>` reads that tag (the only place an error's payload is
//! looked at, to tell which stream failed, never whether a check did), so an I/O error of
//! a file is reported as what it says, not as a failed write to standard output.

use std::fmt;
use std::io::{self, Write};

/// Returns a usage error from the function: `usage!("--x needs --y")`, as `bail!` does.
macro_rules! usage {
    ($($arg:tt)*) => {
        return Err($crate::cli::error::Failure::Usage(format!($($arg)*)))
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

/// How a subcommand that ran to its end ended (see the module doc for the exit codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done {
    /// Everything ran and every check passed: exit 0.
    Ok,
    /// `merge --status`: the campaign has shards missing: exit 3.
    Incomplete,
    /// Stopped by a signal (Ctrl-C, SIGTERM, SIGHUP), after the command said what it kept:
    /// exit 130, as after SIGINT.
    Interrupted,
    /// `animate` on a terminal: the code its end asks for, 0 (finished or quit) or 128 + the
    /// signal that ended it (129 a hang-up, 130 Ctrl-C), as a shell reports one.
    Terminal(u8),
}

/// What a subcommand reports back to `cli::entry`.
pub type Outcome = Result<Done, Failure>;

/// Why a command failed, as far as the exit code and the message's form are concerned.
#[derive(Debug)]
pub enum Failure {
    /// The command line or the environment asks for something the program does not do.
    Usage(String),
    /// A count or a file failed a check: a wrong count, a mismatch with a known value, a
    /// broken symmetry identity, a unit that recomputes differently. `None`: the command
    /// has said why already, beside its report (each wrong row of a table, say).
    CheckFailed(Option<String>),
    /// Reading `what` (a file, standard input) failed.
    Read {
        /// What was being read, as the message names it.
        what: String,
        /// Why.
        source: io::Error,
    },
    /// Writing `what` (a file, a shard file to standard output) failed.
    Write {
        /// What was being written, as the message names it.
        what: String,
        /// Why.
        source: io::Error,
    },
    /// Writing the command's output to standard output failed ([`stdout`]).
    Stdout(io::Error),
    /// Anything else (a file refused, a count that could not run): its chain, one line.
    Other(anyhow::Error),
    /// A failure whose message was said already (an MPI rank says it while MPI is still
    /// up, `cli::mpi`): the exit code is the inner one's, and nothing more is said.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    Said(Box<Failure>),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Usage(why) | Failure::CheckFailed(Some(why)) => f.write_str(why),
            Failure::CheckFailed(None) => f.write_str("a check failed"),
            Failure::Read { what, source } => write!(f, "cannot read {what}: {source}"),
            Failure::Write { what, source } => write!(f, "cannot write {what}: {source}"),
            Failure::Stdout(source) => write!(f, "cannot write to standard output: {source}"),
            Failure::Other(e) => write!(f, "{e:#}"),
            Failure::Said(inner) => inner.fmt(f),
        }
    }
}

impl Failure {
    /// A failed check, said by `cli::entry` as `nqueens: WHY`.
    pub fn check(why: impl Into<String>) -> Failure {
        Failure::CheckFailed(Some(why.into()))
    }

    /// True for a closed pipe on standard output: the quiet end of `nqueens ... | head`.
    pub fn is_closed_pipe(&self) -> bool {
        match self {
            Failure::Stdout(e) => e.kind() == io::ErrorKind::BrokenPipe,
            Failure::Said(inner) => inner.is_closed_pipe(),
            _ => false,
        }
    }

    /// Says the failure on stderr in one line, as the module doc's table says; a usage
    /// error points to `help` (`nqueens count --help`).
    pub fn say(&self, help: &str) {
        match self {
            Failure::Usage(why) => say!("nqueens: {} (see '{help}')", one_line(why)),
            Failure::CheckFailed(None) | Failure::Said(_) => {}
            _ if self.is_closed_pipe() => {}
            other => say!("nqueens: {}", one_line(&other.to_string())),
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Other(e)
    }
}

impl From<serde_json::Error> for Failure {
    fn from(e: serde_json::Error) -> Failure {
        Failure::Other(e.into())
    }
}

/// A library error: a broken symmetry identity is a wrong count (exit 1), anything else
/// a failure to count (exit 2).
impl From<crate::Error> for Failure {
    fn from(e: crate::Error) -> Failure {
        match e {
            crate::Error::Inconsistent { .. } => Failure::check(e.to_string()),
            other => Failure::Other(other.into()),
        }
    }
}

/// A long count that could not run to its end: the engine's error as above, a checkpoint
/// that could not be written (or an MPI rank that broke the protocol) as what it says.
impl From<crate::runner::session::SessionError> for Failure {
    fn from(e: crate::runner::session::SessionError) -> Failure {
        match e {
            crate::runner::session::SessionError::Engine(e) => e.into(),
            other => Failure::Other(other.into()),
        }
    }
}

/// An I/O error: standard output's (tagged by [`stdout`]) is [`Failure::Stdout`], any other
/// is reported as what it says.
impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        if e.get_ref().is_some_and(|inner| inner.is::<OnStdout>()) {
            let inner = e.into_inner().expect("checked above");
            let OnStdout(source) = *inner.downcast::<OnStdout>().expect("checked above");
            return Failure::Stdout(source);
        }
        Failure::Other(e.into())
    }
}

/// Standard output, locked, whose write errors say that standard output failed.
pub fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

/// See [`stdout`].
pub struct Stdout(io::StdoutLock<'static>);

/// The tag of an error of standard output, inside the `io::Error` that carries it.
#[derive(Debug)]
struct OnStdout(io::Error);

impl fmt::Display for OnStdout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write to standard output: {}", self.0)
    }
}

impl std::error::Error for OnStdout {}

/// An error of standard output, tagged so that `From<io::Error>` knows what failed.
fn tagged(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), OnStdout(e))
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

/// An error's message as one line: its first line, without an "error: " (clap's
/// messages are made one line by `cli::entry`).
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
pub(crate) fn without_echo(msg: &str) -> String {
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
    fn standard_output_errors_are_told_from_other_io_errors() {
        let out: Failure = tagged(io::Error::from(io::ErrorKind::BrokenPipe)).into();
        assert!(matches!(&out, Failure::Stdout(e) if e.kind() == io::ErrorKind::BrokenPipe));
        assert!(out.is_closed_pipe());
        // A bare I/O error is not taken for a failed write.
        let bare: Failure = io::Error::from(io::ErrorKind::IsADirectory).into();
        assert!(matches!(bare, Failure::Other(_)));
        assert!(!bare.is_closed_pipe());
    }

    #[test]
    fn a_broken_identity_is_a_failed_check_and_other_library_errors_are_not() {
        let broken = crate::Error::Inconsistent {
            n: 8,
            detail: "F90 = 1 is odd".into(),
        };
        assert!(matches!(
            Failure::from(broken),
            Failure::CheckFailed(Some(_))
        ));
        // A thread pool the OS refused was reported as "FAILED ... MISMATCH", exit 1.
        let refused = crate::Error::ThreadPool("Resource temporarily unavailable".into());
        assert!(matches!(Failure::from(refused), Failure::Other(_)));
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
