//! The command line: clap-derive arguments, turned into engine/runner calls in one place per
//! subcommand, and formatted output (human text by default, `--json` for machines).
//!
//! The layers, each importing only those before it (`tests/cli_imports.rs` checks that no
//! file of `src/cli` imports, through others, one that imports it):
//!
//! - `args`: the clap types ("low args") and their value parsers;
//! - `options`: one validated, typed options value per subcommand ("high args": which
//!   mode, which engine for each n, the defaults filled in), built once from the clap
//!   types; nothing after it sees them;
//! - the subcommands (`count`, `verify`, `merge`, ...), which take their options value and
//!   return an `Outcome`: `Done`, or a `Failure` (the binary's one failure
//!   type, a failed check included);
//! - `entry`: parses, builds the options, runs the subcommand, and is the one place that
//!   turns an outcome into an exit code.
//!
//! Nothing here prints with `eprintln!`/`println!` (denied below): they panic when the
//! stream fails, which the release profile turns into an abort. Standard error is written
//! with `error::say!`, standard output through `error::stdout()`, whose errors are reported.
#![deny(clippy::print_stderr, clippy::print_stdout)]

mod animate;
mod args;
mod bench;
mod bfile;
mod count;
mod engine;
pub mod entry;
mod error;
mod estimate;
mod format;
mod kernel;
mod merge;
#[cfg(feature = "mpi")]
mod mpi;
mod options;
mod outfile;
mod plan;
mod progress;
mod render;
mod report;
mod session;
mod solutions;
mod solve;
mod verify;

pub use error::{Done, Outcome};
