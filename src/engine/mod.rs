//! The engine: pure computation, no I/O. Bit-board kernels, symmetry, the unit plan, the
//! reference solver and the combination of unit results into counts.

pub mod board;
pub mod border;
pub mod construct;
pub mod cost;
pub mod counts;
pub mod digest;
pub mod exec;
pub mod isa;
pub mod kernel;
pub mod lanes;
pub mod plan;
pub mod quadrant;
pub mod reference;
pub mod solutions;
pub mod symmetric;
pub mod symmetry;

use std::sync::atomic::AtomicBool;

/// What the caller decides for the engines' runs, passed down explicitly rather than held in
/// process-wide state: today the largest quadrant table the quadrant engine may build. (The
/// command line makes it from `--max-memory`; the library's counts use the default.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Bytes the quadrant table may take; above it the quadrants of every set E are
    /// searched instead (same counts, slower: 2.5x at n = 16). Default
    /// [`quadrant::DEFAULT_TABLE_LIMIT`].
    pub table_limit: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            table_limit: quadrant::DEFAULT_TABLE_LIMIT,
        }
    }
}

/// A stop flag that is never raised, for the callers of the `*_until` functions that run to
/// the end (tests, benches, the library's one-shot counts). It holds no configuration: it is
/// read, never written.
pub static NEVER: AtomicBool = AtomicBool::new(false);
