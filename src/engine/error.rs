//! The library's error type.

use std::fmt;

/// Everything the library can refuse or detect.
///
/// ```
/// use nqueens::{Counter, Error};
/// assert_eq!(
///     nqueens::count(0).unwrap_err(),
///     Error::BoardSize { n: 0, max: 64 }
/// );
/// let e = Counter::new(8).unwrap().threads(0).count().unwrap_err();
/// assert_eq!(e, Error::NoThreads);
/// assert_eq!(e.to_string(), "thread count 0 is invalid: use at least 1 thread");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The board size is outside `1..=max`.
    BoardSize {
        /// The size asked for.
        n: u64,
        /// The largest size supported.
        max: u32,
    },
    /// The chosen engine does not count this board size.
    EngineRange {
        /// The board size asked for.
        n: u32,
        /// The engine's name.
        engine: &'static str,
        /// Smallest size it counts.
        min: u32,
        /// Largest size it counts.
        max: u32,
    },
    /// A thread count of zero.
    NoThreads,
    /// More threads than [`MAX_THREADS`](crate::MAX_THREADS).
    TooManyThreads {
        /// The thread count asked for.
        threads: usize,
        /// The largest thread count accepted.
        max: usize,
    },
    /// Unit results broke one of Burnside's identities (a bug or corrupted results).
    Inconsistent {
        /// Board size.
        n: u32,
        /// Which identity failed, with the numbers.
        detail: String,
    },
    /// More threads than the address-space limit (`ulimit -v`) leaves room for: their
    /// stacks may take a quarter of what the process has not mapped yet.
    ThreadsOverAddressSpace {
        /// The thread count asked for.
        threads: usize,
        /// The most threads that fit.
        max: usize,
        /// The address-space limit, bytes.
        limit: u64,
    },
    /// A [`Tally`](crate::Tally) was finished with another number of unit results than
    /// its plan has units (some missing, or some added twice).
    IncompleteTally {
        /// Board size.
        n: u32,
        /// Unit results added.
        added: u64,
        /// Units in the plan.
        units: u64,
    },
    /// The thread pool could not be built.
    ThreadPool(String),
    /// A structure that grows with n could not be allocated (it would not fit the address
    /// space or the memory allowed).
    OutOfMemory {
        /// What it was.
        what: &'static str,
        /// About how many bytes it needed when the allocation failed.
        bytes: u64,
    },
    /// The unit plan has more units than the caller's budget allows.
    PlanTooLarge {
        /// The budget, in units.
        units: usize,
    },
    /// The stop flag was raised before the work finished.
    Stopped,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BoardSize { n, max } => write!(
                f,
                "board size {n} is out of range: n must be between 1 and {max}"
            ),
            Error::EngineRange {
                n,
                engine,
                min,
                max,
            } => write!(f, "the {engine} engine counts n = {min}..{max}, not {n}"),
            Error::NoThreads => write!(f, "thread count 0 is invalid: use at least 1 thread"),
            Error::TooManyThreads { threads, max } => write!(
                f,
                "thread count {threads} is too large: use at most {max} threads"
            ),
            Error::Inconsistent { n, detail } => {
                write!(f, "inconsistent counts for n = {n}: {detail}")
            }
            Error::ThreadsOverAddressSpace {
                threads,
                max,
                limit,
            } => write!(
                f,
                "cannot start {threads} threads: the address-space limit (ulimit -v {}) leaves room for the stacks of {max}; use at most {max} threads",
                limit / 1024
            ),
            Error::IncompleteTally { n, added, units } => write!(
                f,
                "the tally of n = {n} holds {added} unit results, but its plan has {units} units: add each unit's result exactly once"
            ),
            Error::ThreadPool(e) => write!(f, "cannot start the thread pool: {e}"),
            Error::OutOfMemory { what, bytes } => write!(
                f,
                "cannot allocate {what}: about {:.1} MiB more would not fit",
                *bytes as f64 / f64::from(1 << 20)
            ),
            Error::PlanTooLarge { units } => {
                write!(f, "the unit plan has more than {units} units")
            }
            Error::Stopped => write!(f, "stopped"),
        }
    }
}

impl std::error::Error for Error {}
