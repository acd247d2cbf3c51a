//! Runners drive the engine over a unit plan. They see units and results, never the bit
//! tricks. [`stats`] holds the arithmetic of reports on runs (timing statistics, scaling,
//! cost spread and makespan), with no formatting.

// The files of a long count (checkpoints, shard files, output files, FIFOs) use Unix file
// APIs (O_NOFOLLOW, file types, owners); they and what builds on them exist on Unix only, so
// that the library's counting (engine, `local`, `Counter`) builds on every target.
#[cfg(unix)]
pub mod checkpoint;
#[cfg(unix)]
pub mod fifo;
pub mod local;
#[cfg(unix)]
pub mod merge;
#[cfg(feature = "mpi")]
pub mod mpi;
#[cfg(unix)]
pub mod outfile;
pub mod record;
pub mod recount;
pub mod schedule;
#[cfg(unix)]
pub mod session;
#[cfg(unix)]
pub mod shard;
pub mod shown;
#[cfg(unix)]
pub mod stats;
