//! The engine: pure computation, no I/O. Bit-board kernels, symmetry, the unit plan, the
//! reference solver and the combination of unit results into counts.
//!
//! # One module per engine, behind one enum
//!
//! Each counting engine is one module: [`backtrack`] and [`quadrant`]. It owns its plan
//! version and units (`plan_units`), the run of a batch of them, their cost estimate, its
//! time and memory models, whether its work figure is portable, its labels and the sampler
//! `nqueens estimate` times it with. The seam is the [`Engine`](plan::Engine) enum rather
//! than a trait: [`engines`] dispatches each question about an engine to that engine's
//! module with one `match`, and [`exec`], [`cost`] and [`sample`] dispatch a unit by its
//! [`UnitKind`](plan::UnitKind). An enum because both are public values users store, compare
//! and serialize (a plan records its engine; a shard file its plan version), because the
//! engines share unit kinds (every plan's F180 and F90 searches) and a batch may mix kinds,
//! and because the per-engine state a count needs (the quadrant context) is built lazily
//! per kind inside one [`exec::Prepared`]; a trait object would add a vtable and a
//! downcast to each of those without removing a match. Both enums are `#[non_exhaustive]`,
//! so a third engine is not a breaking change; it touches its own module, the enums' arms
//! here in `src/engine`, and `--engine`'s name in `cli::engine`, nothing in `runner` or
//! the rest of `cli`.

pub mod backtrack;
pub mod board;
pub mod construct;
pub mod cost;
pub mod counts;
pub mod digest;
pub mod engines;
mod error;
pub mod exec;
pub mod isa;
pub mod known;
pub mod plan;
pub mod quadrant;
pub mod recount;
pub mod reference;
pub mod rng;
pub mod sample;
pub mod solutions;
pub mod symmetric;
pub mod symmetry;

use std::sync::atomic::AtomicBool;

pub use error::Error;
pub use isa::Isa;

/// The largest board size the library accepts (the backtracking engine's bit boards are
/// u64; the quadrant engine stops at n = 32).
///
/// ```
/// assert!(nqueens::check_n(u64::from(nqueens::MAX_N)).is_ok());
/// assert!(nqueens::check_n(u64::from(nqueens::MAX_N) + 1).is_err());
/// ```
pub const MAX_N: u32 = 64;

/// Checks that `n` is a supported board size.
///
/// ```
/// assert_eq!(nqueens::check_n(8), Ok(8));
/// assert_eq!(
///     nqueens::check_n(0),
///     Err(nqueens::Error::BoardSize { n: 0, max: 64 })
/// );
/// ```
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

/// What the caller decides for the engines' runs, passed down explicitly rather than held in
/// process-wide state: the largest quadrant table the quadrant engine may build and the
/// instruction set of the hot loops. (The command line makes it from `--max-memory` and its
/// environment variable for the kernel, see `cli::kernel`; the library's counts use the
/// default, or `Counter::table_limit` and `Counter::instruction_set`.)
/// Neither changes a count, a unit or a shard: only how fast and in how much memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Bytes the quadrant table may take; above it the quadrants of every set E are
    /// searched instead (same counts, slower: 2.5x at n = 16). Default
    /// [`quadrant::DEFAULT_TABLE_LIMIT`].
    pub table_limit: u64,
    /// The instruction set of the hot loops (see [`isa`]). Default [`Isa::best`]; a value
    /// this CPU cannot run falls back to the baseline ([`Isa::effective`]).
    pub isa: Isa,
    /// Bytes of pattern lists one quadrant set may hold at once, per thread; a set whose
    /// lists would pass it is counted in parts (same counts; from n = 26). Default
    /// [`quadrant::LIST_BUDGET`].
    pub list_budget: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            table_limit: quadrant::DEFAULT_TABLE_LIMIT,
            isa: Isa::best(),
            list_budget: quadrant::LIST_BUDGET,
        }
    }
}

/// A stop flag that is never raised, for the callers of the `*_until` functions that run to
/// the end (tests, benches, the library's one-shot counts). It holds no configuration: it is
/// read, never written.
pub static NEVER: AtomicBool = AtomicBool::new(false);
