//! # nqueens
//!
//! Counts the solutions of the N-Queens problem exactly: the total (OEIS A000170), the unique
//! solutions up to the 8 symmetries of the square (OEIS A002562) and the orbit breakdown,
//! with full symmetry reduction, on every core.
//!
//! ```
//! let c = nqueens::count(8)?;
//! assert_eq!((c.total, c.unique), (92, 12));
//! assert_eq!((c.orbits8, c.orbits4, c.orbits2), (11, 1, 0));
//! # Ok::<(), nqueens::Error>(())
//! ```
//!
//! Layers: [`engine`] (pure computation: kernels, symmetry, unit plans, the reference
//! solver), [`runner`] (drives a unit plan on threads), and the `nqueens` binary on top.

pub mod engine;
mod error;
pub mod known;
pub mod runner;

pub use engine::construct::construct;
pub use engine::counts::Counts;
pub use engine::plan::{Engine, Unit, UnitKind, UnitPlan, UnitResult};
pub use engine::reference;
pub use engine::solutions::{is_solution, Solutions, Step, Steps};
pub use engine::symmetry::{canonical, orbit_size, Transform};
pub use error::Error;

/// The largest board size the library accepts.
pub const MAX_N: u32 = 64;

/// The most worker threads a count accepts. Far above the logical cores of any single
/// machine. Without a cap, rayon silently runs at most 65,535 threads whatever was asked,
/// and tens of thousands of threads exhaust the process table (Linux's default `pid_max`
/// is 32,768) before the pool reports an error.
pub const MAX_THREADS: usize = 4096;

/// Checks that `n` is a supported board size.
///
/// # Errors
/// [`Error::BoardSize`] unless `1 <= n <= 64`.
pub fn check_n(n: u64) -> Result<u32, Error> {
    if (1..=u64::from(MAX_N)).contains(&n) {
        Ok(n as u32)
    } else {
        Err(Error::BoardSize { n, max: MAX_N })
    }
}

/// Counts the solutions for `n` on all logical cores, with the faster engine for n
/// ([`Engine::auto`]).
///
/// # Errors
/// [`Error::BoardSize`] unless `1 <= n <= 64`; see [`count_with_threads`].
pub fn count(n: u32) -> Result<Counts, Error> {
    count_with_threads(n, num_cpus::get())
}

/// Counts the solutions for `n` on `threads` threads.
///
/// # Examples
/// ```
/// assert_eq!(nqueens::count_with_threads(10, 2)?.total, 724);
/// # Ok::<(), nqueens::Error>(())
/// ```
///
/// # Errors
/// [`Error::BoardSize`], [`Error::NoThreads`], [`Error::TooManyThreads`] above
/// [`MAX_THREADS`], [`Error::ThreadPool`] if the OS refuses the threads, or
/// [`Error::Inconsistent`] if the symmetry identities fail (which would be a bug).
pub fn count_with_threads(n: u32, threads: usize) -> Result<Counts, Error> {
    let n = check_n(u64::from(n))?;
    count_with_engine(n, threads, Engine::auto(n))
}

/// Counts the solutions for `n` on `threads` threads with a chosen engine.
///
/// # Examples
/// ```
/// use nqueens::Engine;
/// let q = nqueens::count_with_engine(12, 2, Engine::Quadrant)?;
/// let b = nqueens::count_with_engine(12, 2, Engine::Backtrack)?;
/// assert_eq!((q.total, q.unique), (14_200, 1_787));
/// assert_eq!((q.total, q.unique), (b.total, b.unique));
/// # Ok::<(), nqueens::Error>(())
/// ```
///
/// # Errors
/// As [`count_with_threads`], and [`Error::EngineRange`] for an n the engine does not
/// count (the quadrant engine counts 4..=32).
pub fn count_with_engine(n: u32, threads: usize, engine: Engine) -> Result<Counts, Error> {
    let n = check_n(u64::from(n))?;
    if !engine.supports(n) {
        return Err(Error::EngineRange {
            n,
            engine: engine.name(),
            min: engine::quadrant::MIN_N,
            max: engine::quadrant::MAX_N,
        });
    }
    runner::local::count_plan(
        &UnitPlan::build(n, engine, &engine::NEVER, usize::MAX)?,
        threads,
    )
}
