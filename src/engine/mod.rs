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

/// A stop flag that is never raised, for the callers of the `*_until` functions that run to
/// the end (tests, benches, the library's one-shot counts). It holds no configuration: it is
/// read, never written.
pub static NEVER: AtomicBool = AtomicBool::new(false);
