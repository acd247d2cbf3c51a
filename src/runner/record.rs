//! Unit results as they cross a file or machine boundary: check values and the error type
//! shared by checkpoints, shard files and MPI.
//!
//! Every count that leaves memory carries check values, as the Q(27) project stored its counts
//! (Preußer & Engelhardt): the residues mod 13 and mod 15 of the solutions and of the nodes,
//! plus an FNV-1a digest of the record's text. A record that was corrupted, edited by hand or
//! produced by an overflowing counter fails them and is rejected with its file and line.
//! They catch accidents, not forgery: anyone can recompute them.

use super::shown;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::engine::plan::UnitResult;

pub use crate::engine::digest::fnv1a64;

/// The residues of `x` mod 13 and mod 15, written `a/b`: `1000 -> "12/10"`.
pub fn residues(x: u64) -> String {
    format!("{}/{}", x % 13, x % 15)
}

/// The check value of one unit's result: residues of solutions and nodes, `s13/s15,n13/n15`.
pub fn check_value(r: &UnitResult) -> String {
    format!("{},{}", residues(r.solutions), residues(r.nodes))
}

/// Parses a non-negative count that must fit in a u64, naming it in the error.
///
/// # Errors
/// A one-line reason: not a number, negative, or larger than u64::MAX.
#[cfg(unix)] // for the checkpoint records, which are Unix-only
pub(crate) fn parse_u64(what: &str, s: &str) -> Result<u64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{what} '{s}' is not a non-negative whole number"));
    }
    s.parse::<u64>()
        .map_err(|_| format!("{what} {s} does not fit in 64 bits (max {})", u64::MAX))
}

/// A file that cannot be used: which file, where, what kind of problem, and why in words.
/// Displays as one line.
#[derive(Debug)]
pub struct FileError {
    /// What kind of file ("checkpoint", "shard").
    pub kind: &'static str,
    /// The file.
    pub path: PathBuf,
    /// 1-based line, where one applies.
    pub line: Option<usize>,
    /// What kind of problem, for a caller that decides by it. The command words its
    /// messages from `reason` alone, so only the tests read it today
    /// (`refusals_say_what_kind_of_problem`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub problem: Problem,
    /// Why it was refused.
    pub reason: String,
}

/// What is wrong with a file the runner refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// Not a file of this kind: another program's, or not a regular file. Left untouched.
    NotOurs,
    /// A file of this kind, but for another n, unit plan, scope or format version.
    OtherPlan,
    /// Its contents fail a check: a digest, a check value, a unit outside the plan or
    /// recorded twice with other counts, bytes that are not text.
    Corrupt,
    /// Another process holds its lock.
    Locked,
    /// Larger than any file of its plan can be (refused without reading on).
    TooLarge,
    /// The file changed under the program while it was opened.
    Changing,
    /// The operating system refused an operation on it.
    Io(std::io::ErrorKind),
}

impl FileError {
    /// An error about the whole file.
    pub fn new(
        kind: &'static str,
        path: &Path,
        problem: Problem,
        reason: impl Into<String>,
    ) -> FileError {
        FileError {
            kind,
            path: path.to_path_buf(),
            line: None,
            problem,
            reason: reason.into(),
        }
    }

    /// An error about one line of the file.
    pub fn at(
        kind: &'static str,
        path: &Path,
        line: usize,
        problem: Problem,
        reason: impl Into<String>,
    ) -> FileError {
        FileError {
            line: Some(line),
            ..FileError::new(kind, path, problem, reason)
        }
    }

    /// An I/O error on the whole file.
    pub fn io(kind: &'static str, path: &Path, e: &std::io::Error) -> FileError {
        // An error made from a bare kind shows the kind's description: a missing file was
        // "checkpoint nonexist: entity not found".
        let reason = match e.kind() {
            std::io::ErrorKind::NotFound if e.raw_os_error().is_none() && e.get_ref().is_none() => {
                "no such file".to_string()
            }
            _ => e.to_string(),
        };
        FileError::new(kind, path, Problem::Io(e.kind()), reason)
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind, shown::path(&self.path))?;
        if let Some(l) = self.line {
            write!(f, " line {l}")?;
        }
        write!(f, ": {}", self.reason)
    }
}

impl std::error::Error for FileError {}

/// Why [`read_bounded`] stopped.
#[derive(Debug)]
pub enum Bounded<E> {
    /// Reading failed.
    Io(std::io::Error),
    /// The first bytes were refused by the caller's judgement.
    Refused(E),
    /// The file holds more than its limit (the limit, in bytes).
    TooLarge(u64),
}

/// The one bounded reader of the runner's files (checkpoints, shard files): reads at most
/// `head` bytes, lets `limit` judge them (refuse them, or say how large the whole file may
/// be), then reads on to that limit and one byte more. A file that passes its limit is
/// refused without reading further, so a FIFO or `/dev/zero` named as a file can make the
/// program hold at most `limit + 1` bytes, never all memory.
pub fn read_bounded<E>(
    file: &mut impl std::io::Read,
    head: u64,
    limit: impl FnOnce(&[u8]) -> Result<u64, E>,
) -> Result<Vec<u8>, Bounded<E>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    file.by_ref()
        .take(head)
        .read_to_end(&mut bytes)
        .map_err(Bounded::Io)?;
    let limit = limit(&bytes).map_err(Bounded::Refused)?;
    file.take(limit.saturating_add(1).saturating_sub(bytes.len() as u64))
        .read_to_end(&mut bytes)
        .map_err(Bounded::Io)?;
    if bytes.len() as u64 > limit {
        return Err(Bounded::TooLarge(limit));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn parses_only_counts_that_fit() {
        assert_eq!(parse_u64("nodes", "18446744073709551615"), Ok(u64::MAX));
        assert!(parse_u64("nodes", "18446744073709551616")
            .unwrap_err()
            .contains("does not fit"));
        assert!(parse_u64("nodes", "-1").is_err());
        assert!(parse_u64("nodes", "+1").is_err());
        assert!(parse_u64("nodes", "").is_err());
    }

    #[test]
    fn residues_follow_the_q27_convention() {
        assert_eq!(residues(0), "0/0");
        assert_eq!(residues(195), "0/0");
        assert_eq!(
            residues(u64::MAX),
            format!("{}/{}", u64::MAX % 13, u64::MAX % 15)
        );
    }
}

/// The examples that were this module's doc tests (doc tests cannot reach `pub(crate)`
/// items).
#[cfg(test)]
mod examples {
    #[test]
    fn check_value_example() {
        use crate::{runner::record::check_value, UnitResult};
        assert_eq!(
            check_value(&UnitResult {
                solutions: 1000,
                nodes: 14
            }),
            "12/10,1/14"
        );
    }
}
