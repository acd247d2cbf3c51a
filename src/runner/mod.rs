//! Runners drive the engine over a unit plan. They see units and results, never the bit
//! tricks. [`stats`] holds the arithmetic of reports on runs (timing statistics, scaling,
//! cost spread and makespan), with no formatting.

pub mod checkpoint;
pub mod fifo;
pub mod local;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod outfile;
pub mod record;
pub mod session;
pub mod shard;
pub mod shown;
pub mod stats;
