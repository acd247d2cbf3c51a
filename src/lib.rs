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
//! A count with its options is a [`Counter`]:
//!
//! ```
//! use nqueens::{Counter, Engine};
//! let backtrack = Engine::named("backtrack").expect("an engine");
//! let c = Counter::new(12)?.threads(2).engine(backtrack).count()?;
//! assert_eq!(c.total, 14_200);
//! # Ok::<(), nqueens::Error>(())
//! ```
//!
//! To distribute the work yourself, take the [`UnitPlan`] of n, run its [`Unit`]s where you
//! like ([`Unit::run`], or many through one [`Prepared`], which builds what they share
//! once) and add their results up in a [`Tally`], which checks Burnside's
//! identities when it finishes (see `examples/distribute.rs`). The plan of the engine
//! [`count`] picks is `UnitPlan::with_engine(n, Engine::auto(n))`; [`UnitPlan::new`] is the
//! backtracking plan.
//!
//! The public API is what this page lists; everything else is `pub(crate)`. Inside, the
//! layers are the engine (pure computation: kernels, symmetry, unit plans, the reference
//! solver), the runner (drives a unit plan on threads, checkpoints, shards) and the command
//! (`cli`, built with the default `cli` feature, which `src/main.rs` calls); [`architecture`]
//! is the map of the whole, and [`how_it_works`] explains the counting methods.

// Without the command (`default-features = false`) the runner's file formats, shards,
// merges and the engine's cost models have no caller: they are the command's. The full
// build (`cli`, the default) is the one whose dead code is checked.
#![cfg_attr(not(feature = "cli"), allow(dead_code, unused_imports))]

#[doc = include_str!("architecture.md")]
pub mod architecture {}
#[doc = include_str!("how_it_works.md")]
pub mod how_it_works {}

/// The README's Rust examples, compiled and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
pub(crate) mod engine;
pub(crate) mod runner;

/// The `nqueens` command (`src/main.rs` calls [`cli::entry::main`]); not a library API.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;

pub use engine::backtrack::border::Border;
pub use engine::construct::construct;
pub use engine::counts::{Counts, Tally};
pub use engine::exec::Prepared;
pub use engine::plan::{Engine, Unit, UnitKind, UnitPlan, UnitResult};
pub use engine::solutions::{is_solution, Solutions, Step, Steps};
pub use engine::symmetry::{canonical, orbit_size, Transform};
pub use engine::{check_n, Error, Isa, MAX_N};
pub use engine::{known, reference};

/// The most worker threads a count accepts. Far above the logical cores of any single
/// machine. Without a cap, rayon silently runs at most 65,535 threads whatever was asked,
/// and tens of thousands of threads exhaust the process table (Linux's default `pid_max`
/// is 32,768) before the pool reports an error.
///
/// ```
/// use nqueens::{Counter, Error, MAX_THREADS};
/// let e = Counter::new(8)?.threads(MAX_THREADS + 1).count().unwrap_err();
/// assert_eq!(e, Error::TooManyThreads { threads: MAX_THREADS + 1, max: MAX_THREADS });
/// # Ok::<(), nqueens::Error>(())
/// ```
pub const MAX_THREADS: usize = 4096;

/// One count and its options: board size, threads, engine, a memory limit for the unit plan
/// and a stop flag.
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use nqueens::{Counter, Error};
/// let c = Counter::new(10)?.threads(1).count()?;
/// assert_eq!((c.total, c.unique), (724, 92));
/// // A plan over the memory allowed is refused before it is counted.
/// let small = Counter::new(16)?.memory_limit(64 << 10).count();
/// assert!(matches!(small, Err(Error::PlanTooLarge { .. })));
/// // A raised stop flag ends the count early.
/// let stop = AtomicBool::new(true);
/// assert_eq!(Counter::new(14)?.stop(&stop).count(), Err(Error::Stopped));
/// # Ok::<(), nqueens::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Counter<'a> {
    n: u32,
    threads: usize,
    engine: Engine,
    memory_limit: Option<u64>,
    config: engine::Config,
    stop: &'a std::sync::atomic::AtomicBool,
}

impl<'a> Counter<'a> {
    /// A count of board size `n`, on every logical core, with the faster engine for n
    /// ([`Engine::auto`]), no memory limit and no stop flag.
    ///
    /// # Errors
    /// [`Error::BoardSize`] unless `1 <= n <= 64`.
    pub fn new(n: u32) -> Result<Counter<'static>, Error> {
        let n = check_n(u64::from(n))?;
        Ok(Counter {
            n,
            threads: num_cpus::get().max(1),
            engine: Engine::auto(n),
            memory_limit: None,
            config: engine::Config::default(),
            stop: &engine::NEVER,
        })
    }

    /// Counts on `threads` threads (checked by [`Counter::count`]: 1..=[`MAX_THREADS`]).
    pub fn threads(self, threads: usize) -> Counter<'a> {
        Counter { threads, ..self }
    }

    /// Counts with `engine` (checked by [`Counter::count`]: [`Engine::supports`]).
    pub fn engine(self, engine: Engine) -> Counter<'a> {
        Counter { engine, ..self }
    }

    /// Refuses a count whose unit plan and records would take more than `bytes`
    /// (128 bytes per unit): [`Error::PlanTooLarge`]. The
    /// quadrant engine's table is built within its own limit ([`Counter::table_limit`]).
    pub fn memory_limit(self, bytes: u64) -> Counter<'a> {
        Counter {
            memory_limit: Some(bytes),
            ..self
        }
    }

    /// The largest quadrant table the count may build, in bytes (default
    /// 1 GiB: tables up to n = 23); above it the
    /// quadrants are searched per set (same counts, slower).
    ///
    /// ```
    /// let c = nqueens::Counter::new(16)?.table_limit(0).threads(2).count()?;
    /// assert_eq!(c.total, 14_772_512);
    /// # Ok::<(), nqueens::Error>(())
    /// ```
    pub fn table_limit(self, bytes: u64) -> Counter<'a> {
        Counter {
            config: engine::Config {
                table_limit: bytes,
                ..self.config
            },
            ..self
        }
    }

    /// The instruction set of the hot loops (default [`Isa::best`], the best this
    /// CPU runs; one it cannot run falls back to the baseline). The counts are the same
    /// with any: this is for measuring one against the other.
    ///
    /// ```
    /// use nqueens::Isa;
    /// let c = nqueens::Counter::new(12)?.instruction_set(Isa::Baseline).count()?;
    /// assert_eq!(c.total, 14_200);
    /// # Ok::<(), nqueens::Error>(())
    /// ```
    pub fn instruction_set(self, isa: engine::Isa) -> Counter<'a> {
        Counter {
            config: engine::Config { isa, ..self.config },
            ..self
        }
    }

    /// Ends the count early, with [`Error::Stopped`], once `stop` is raised (from another
    /// thread or a signal handler).
    pub fn stop<'b>(self, stop: &'b std::sync::atomic::AtomicBool) -> Counter<'b> {
        Counter {
            n: self.n,
            threads: self.threads,
            engine: self.engine,
            memory_limit: self.memory_limit,
            config: self.config,
            stop,
        }
    }

    /// Runs the count.
    ///
    /// # Errors
    /// [`Error::EngineRange`], [`Error::NoThreads`], [`Error::TooManyThreads`],
    /// [`Error::PlanTooLarge`], [`Error::OutOfMemory`], [`Error::ThreadPool`],
    /// [`Error::Stopped`], or [`Error::Inconsistent`] if the symmetry identities fail
    /// (which would be a bug).
    pub fn count(&self) -> Result<Counts, Error> {
        let max_units = self
            .memory_limit
            .map_or(usize::MAX, runner::local::units_within);
        let plan = UnitPlan::build(self.n, self.engine, self.stop, max_units)?;
        // What the units share (the quadrant table), for this count only: dropped when it
        // returns, so a library count leaves nothing resident.
        let prepared = engine::exec::Prepared::with_config(self.n, &self.config);
        let run = runner::local::run_units_with(
            &plan,
            plan.units(),
            self.threads,
            &prepared,
            self.stop,
            |_, _| {},
        )?;
        if run.interrupted {
            return Err(Error::Stopped);
        }
        run.tally.finish(&plan)
    }
}

/// Counts the solutions for `n` on all logical cores, with the faster engine for n
/// ([`Engine::auto`]).
///
/// ```
/// let c = nqueens::count(14)?;
/// assert_eq!((c.total, c.unique), (365_596, 45_752));
/// # Ok::<(), nqueens::Error>(())
/// ```
///
/// # Errors
/// [`Error::BoardSize`] unless `1 <= n <= 64`; see [`Counter::count`].
pub fn count(n: u32) -> Result<Counts, Error> {
    Counter::new(n)?.count()
}

/// Counts the solutions for `n` on `threads` threads (the same as
/// `Counter::new(n)?.threads(threads).count()`).
///
/// # Examples
/// ```
/// assert_eq!(nqueens::count_with_threads(10, 2)?.total, 724);
/// # Ok::<(), nqueens::Error>(())
/// ```
///
/// # Errors
/// As [`Counter::count`].
pub fn count_with_threads(n: u32, threads: usize) -> Result<Counts, Error> {
    Counter::new(n)?.threads(threads).count()
}

/// Counts the solutions for `n` on `threads` threads with a chosen engine (the same as
/// `Counter::new(n)?.threads(threads).engine(engine).count()`).
///
/// # Examples
/// ```
/// use nqueens::Engine;
/// // Every engine that counts n = 12 gives the same counts.
/// for &engine in Engine::all() {
///     let c = nqueens::count_with_engine(12, 2, engine)?;
///     assert_eq!((c.total, c.unique), (14_200, 1_787));
/// }
/// # Ok::<(), nqueens::Error>(())
/// ```
///
/// # Errors
/// As [`Counter::count`]; [`Error::EngineRange`] for an n the engine does not count (the
/// quadrant engine counts 4..=32).
pub fn count_with_engine(n: u32, threads: usize, engine: Engine) -> Result<Counts, Error> {
    Counter::new(n)?.threads(threads).engine(engine).count()
}
