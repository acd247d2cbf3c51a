//! The command line: clap-derive arguments, turned into engine/runner calls in one place per
//! subcommand, and formatted output (human text by default, `--json` for machines).
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

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Counts N-Queens solutions exactly: total (OEIS A000170), unique (A002562) and the orbit
/// breakdown, with full 8-fold symmetry reduction, on every core.
///
/// Exit codes: 0 ok, 1 a check failed (a count that disagrees with the known table or a
/// symmetry identity), 2 usage or input error.
#[derive(Parser, Debug)]
#[command(
    name = "nqueens",
    version,
    about,
    long_about = None,
    propagate_version = true,
    after_help = "Environment: NQUEENS_KERNEL=baseline makes a portable build (one not built \
for the host CPU) run its baseline code instead of the x86-64-v3 code it picks at run time, \
for measuring one against the other; auto (or unset) is the default. bench names the code \
that ran."
)]
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
    /// and (n <= 10) the reference solver; or recount the terms of an OEIS b-file (--bfile).
    Verify(verify::VerifyArgs),
    /// List the solutions for N in lexicographic order (all, --unique, --first, --limit K or
    /// --random), in a chosen format.
    #[command(visible_alias = "list")]
    Solutions(solutions::SolutionsArgs),
    /// Print one solution for any N up to 10,000,000, built in O(N) and checked before it
    /// is printed.
    Solve(solve::SolveArgs),
    /// Animate the backtracking search on the terminal (keys: space, n, +, -, q), write it as
    /// an animated SVG (--svg FILE), or print it as a step log when piped.
    Animate(animate::AnimateArgs),
    /// Benchmark this CPU: a fixed, checked workload on 1 thread and on all threads.
    ///
    /// Counts a fixed, versioned list of board sizes (workload nq-std-4: n = 16, 17; --quick:
    /// nq-quick-4, n = 16 four times a run; --heavy: nq-heavy-4, n = 18; the id ends with the
    /// engine, as in nq-std-4-quadrant), each after one warm-up and then --runs times, on 1
    /// thread and on all logical cores (or each count of --threads LIST), the thread counts
    /// timed in turn run by run. Reports median, min and max wall
    /// time, pairs/s (quadrant) or nodes/s (backtrack), solutions/s, speed-up, parallel
    /// efficiency, the machine (CPU, cores, OS, compiled target features, the instruction
    /// set the hot loops ran with) and warnings about
    /// figures not to trust. Every count is checked against the known table: a wrong count
    /// fails the benchmark with exit code 1.
    ///
    /// Score = workload runs per hour = 3600 s / median wall time of one workload run (one
    /// count of each size) on 1 thread (single-thread score) and on the most threads measured
    /// (multi-thread score). Higher is faster. Compare only reports with the same workload id
    /// and program version.
    Bench(bench::BenchArgs),
    /// Merge shard files (from `count N --shard K/M --out FILE`) into the count of N; the set
    /// must cover every unit of the plan exactly once.
    Merge(merge::MergeArgs),
    /// Project the time and memory of a whole count of N from a seeded random sample of its
    /// units: CPU time with a 95% interval, wall time on --threads, unit times, memory.
    ///
    /// Units are drawn with probability proportional to their cost estimate, in strata
    /// (--sample K of them, default 48; --seed S); units or joins too long to time whole
    /// are timed on a random share and scaled up without bias. About a minute on 2 cores at
    /// any N up to 28. Validated against whole counts of N = 16..21 (see the README).
    Estimate(estimate::EstimateArgs),
    /// Print the unit plan of N (ids, pre-placed queens, weights, estimated costs) for
    /// external schedulers, or its statistics and a makespan estimate with --stats.
    Plan(plan::PlanArgs),
}

/// The command line as it is parsed: [`Cli`], where every argument that takes a value also
/// takes a negative number (`--seed -1`, `--max-memory -5`, `plan -3`), so that the
/// argument's own parser says which range it wants; clap said "unexpected argument '-1'
/// found", as if `-1` were an option.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command().mut_subcommands(|sub| {
        sub.mut_args(|a| {
            if a.get_action().takes_values() {
                a.allow_negative_numbers(true)
            } else {
                a
            }
        })
    })
}

/// What a subcommand reports back to `main`.
pub type Outcome = anyhow::Result<ExitCode>;

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Outcome {
    kernel::check_env()?;
    // Ctrl-C, SIGTERM and SIGHUP end every command with exit code 130, as they end an
    // interrupted count (a range count, verify, plan, estimate ended with 143 on SIGTERM);
    // a single count then makes the signal graceful (`session::stop_flag`). Not animate:
    // it restores the terminal on signals of its own.
    if !matches!(cli.command, Command::Animate(_)) {
        session::quit_on_signal();
    }
    match cli.command {
        Command::Count(a) => count::run(&a),
        Command::Verify(a) => verify::run(&a),
        Command::Solutions(a) => solutions::run(&a),
        Command::Solve(a) => solve::run(&a),
        Command::Animate(a) => animate::run(&a),
        Command::Bench(a) => bench::run(&a),
        Command::Merge(a) => merge::run(&a),
        Command::Plan(a) => plan::run(&a),
        Command::Estimate(a) => estimate::run(&a),
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
        command().debug_assert();
    }
}
