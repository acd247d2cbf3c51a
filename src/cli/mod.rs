//! The command line: clap-derive arguments, turned into engine/runner calls in one place per
//! subcommand, and formatted output (human text by default, `--json` for machines).

pub mod args;
pub mod count;
pub mod format;
pub mod merge;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod plan;
pub mod progress;
pub mod verify;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Counts N-Queens solutions exactly: total (OEIS A000170), unique (A002562) and the orbit
/// breakdown, with full 8-fold symmetry reduction, on every core.
///
/// Exit codes: 0 ok, 1 a check failed (a count that disagrees with the known table or a
/// symmetry identity), 2 usage or input error.
#[derive(Parser, Debug)]
#[command(name = "nqueens", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count the solutions for N (or each N of a range A..B).
    Count(count::CountArgs),
    /// Count n = 1..MAX and check every value against the known table, Burnside's identity
    /// and (n <= 10) the reference solver.
    Verify(verify::VerifyArgs),
    /// Merge shard files (from `count N --shard K/M --out FILE`) into the count of N; the set
    /// must cover every unit of the plan exactly once.
    Merge(merge::MergeArgs),
    /// Print the unit plan of N (ids, pre-placed queens, weights, estimated costs) for
    /// external schedulers, or its statistics and a makespan estimate with --stats.
    Plan(plan::PlanArgs),
}

/// What a subcommand reports back to `main`.
pub type Outcome = anyhow::Result<ExitCode>;

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Outcome {
    match cli.command {
        Command::Count(a) => count::run(&a),
        Command::Verify(a) => verify::run(&a),
        Command::Merge(a) => merge::run(&a),
        Command::Plan(a) => plan::run(&a),
    }
}

/// The default thread count: every logical core.
pub fn default_threads() -> usize {
    num_cpus::get().max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_valid() {
        Cli::command().debug_assert();
    }
}
