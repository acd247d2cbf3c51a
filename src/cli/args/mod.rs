//! The command line as clap parses it ("low args", ripgrep's term): every clap type of
//! every subcommand, and nothing else. Each argument is parsed into a typed value by its
//! own parser ([`parse`]); what the arguments mean together (which mode, which engine, which
//! defaults) is decided once, in `cli::options`, and nothing after that sees these structs.
//! This module imports nothing else of the command but the value types it parses into.

pub mod parse;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use super::render::{parse_format, Format};
use crate::runner::schedule::ShardSpec;
use parse::*;

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
    Count(CountArgs),
    /// Count n = 1..MAX and check every value against the known table, Burnside's identity
    /// and (n <= 10) the reference solver; or recount the terms of an OEIS b-file (--bfile).
    Verify(VerifyArgs),
    /// List the solutions for N in lexicographic order (all, --unique, --first, --limit K or
    /// --random), in a chosen format.
    #[command(visible_alias = "list")]
    Solutions(SolutionsArgs),
    /// Print one solution for any N up to 10,000,000, built in O(N) and checked before it
    /// is printed.
    Solve(SolveArgs),
    /// Animate the backtracking search on the terminal (keys: space, n, +, -, q), write it as
    /// an animated SVG (--svg FILE), or print it as a step log when piped.
    Animate(AnimateArgs),
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
    Bench(BenchArgs),
    /// Merge shard files (from `count N --shard K/M --out FILE`) into the count of N; the set
    /// must cover every unit of the plan exactly once.
    Merge(MergeArgs),
    /// Project the time and memory of a whole count of N from a seeded random sample of its
    /// units: CPU time with a 95% interval, wall time on --threads, unit times, memory.
    ///
    /// Units are drawn with probability proportional to their cost estimate (even N from
    /// 26: to their sets' estimated list lengths E²·W³, which follow the time closer), in
    /// draws of K strata (--sample K, default 48, 12 from N = 26, 6 from N = 28; --seed S),
    /// each thread timing the next unit while --seconds allows; units or joins too long to time whole are timed on a random
    /// share and scaled up without bias. About a minute on 2 cores at N = 26 to 28 (N = 28:
    /// about 30-37 units). Validated against whole counts of N = 16..21 (see the README).
    Estimate(EstimateArgs),
    /// Print the unit plan of N (ids, pre-placed queens, weights, estimated costs) for
    /// external schedulers, or its statistics and a makespan estimate with --stats.
    Plan(PlanArgs),
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

/// Arguments of `count`.
#[derive(Args, Debug)]
pub struct CountArgs {
    /// Board size N (1..64), or an inclusive range A..B printed one row per N.
    #[arg(value_name = "N|A..B", allow_negative_numbers = true)]
    pub sizes: SizeRange,
    /// Worker threads (1..4096). Default: all logical cores.
    #[arg(short = 't', long, value_parser = parse_threads, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Print one JSON object per N (numbers as JSON numbers) instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar. (The bar is drawn on stderr, only when stderr is a terminal.)
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Record each finished unit in FILE and resume from it: run the same command again
    /// after Ctrl-C, SIGTERM, kill -9 or a crash. Single N only.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Compute only shard K of M (K is 0-based: 0..M-1, as $SLURM_ARRAY_TASK_ID with
    /// --array=0-(M-1)); needs --out. Merge the shard files with `nqueens merge`.
    #[arg(long, value_name = "K/M", requires = "out")]
    pub shard: Option<ShardSpec>,
    /// Where --shard writes its JSON shard file (written atomically at the end).
    #[arg(long, value_name = "FILE", requires = "shard")]
    pub out: Option<PathBuf>,
    /// How --shard's split hands out units: auto (the default) splits odd N up to 25 by
    /// bundles where there are at least 32 of them a shard on average, else by units. Every shard of
    /// one campaign needs the same rule; the shard file and checkpoint record it, and a
    /// checkpoint or campaign begun by units (every one before bundles) resumes with
    /// --split units.
    #[arg(long, value_enum, value_name = "RULE", requires = "shard")]
    pub split: Option<SplitArg>,
    /// Run under mpirun (a build with `--features mpi`, at least 2 ranks): rank 0 chooses
    /// the engine and unit plan from its own N, --engine and memory, and hands units to the
    /// other ranks as they finish; --checkpoint, --json and -q are rank 0's.
    ///
    /// Every other rank builds rank 0's plan and checks its id, or refuses (one line, exit
    /// 2, and rank 0 fails naming it): it refuses another N, an --engine other than auto
    /// that differs from rank 0's, another nqueens version, or a plan or lists that do not
    /// fit its memory. --threads T (default 1) and --max-memory are each rank's own; without
    /// --max-memory the ranks of a node split 80% of its free memory. Run one rank per node
    /// with --threads = its cores (one quadrant table per node).
    #[arg(long, conflicts_with_all = ["shard", "out"])]
    pub mpi: bool,
    /// Output format: text (the report), json (as --json) or bfile (an OEIS b-file of
    /// --sequence: `n a(n)` lines and nothing else; not with --json, --checkpoint, --shard
    /// or --mpi).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<CountFormat>,
    /// The sequence of --format bfile: total (A000170, the default) or unique (A002562).
    #[arg(long, value_enum, value_name = "SEQ", requires = "format")]
    pub sequence: Option<Sequence>,
    /// Engine selection.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Arguments of `verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// With --units: the board size N (12..32 for the quadrant plan) whose units to
    /// recount.
    #[arg(value_name = "N", value_parser = parse_n, requires = "units", conflicts_with_all = ["bfile", "max"])]
    pub n: Option<u32>,
    /// Recount K units of N's plan, drawn at random (--seed), by the plain recount (each
    /// unit's definition by plain backtracking, sharing no code with the quadrant engine's
    /// patterns, table, join or weights) and by the engine, and compare them unit by unit;
    /// exit 1 on any difference.
    #[arg(long, value_name = "K", requires = "n", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub units: Option<u32>,
    /// Seed of the --units draw (printed on stderr when not given). Default: from the clock.
    #[arg(long, value_name = "S", requires = "units")]
    pub seed: Option<u64>,
    /// With --units: draw among the P percent of the total's units with the lowest cost
    /// estimate (default 1) instead of among all units: from N = 24 a random unit takes
    /// hours to recount plainly. The cheapest units are sparse (many have no solution).
    #[arg(long, value_name = "P", requires = "units", num_args = 0..=1, default_missing_value = "1", value_parser = parse_share)]
    pub cheapest: Option<f64>,
    /// With --units: print one JSON object (the seed, every unit's two results and times).
    #[arg(long, requires = "units")]
    pub json: bool,
    /// Largest n to check. Default: 17 (2 s on 2 cores; 18 takes about 5 s).
    #[arg(long, value_parser = parse_n, default_value = "17", allow_negative_numbers = true)]
    pub max: u32,
    /// Worker threads (1..4096). Default: all logical cores.
    #[arg(short = 't', long, value_parser = parse_threads, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Check an OEIS b-file instead of the table: recount each term with n <= --max and
    /// report it as ok, MISMATCH or skipped. `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    pub bfile: Option<PathBuf>,
    /// The sequence of --bfile: total (A000170, the default) or unique (A002562).
    #[arg(long, value_enum, value_name = "SEQ", requires = "bfile")]
    pub sequence: Option<Sequence>,
    /// Engine selection (auto: the quadrant engine from n = 12 on). To cross-check the two
    /// engines, run verify once with each.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Arguments of `solutions`.
#[derive(Args, Debug)]
pub struct SolutionsArgs {
    /// Board size N (1..64).
    #[arg(value_name = "N", value_parser = parse_n, allow_negative_numbers = true)]
    pub n: u32,
    /// Output format: perm (1-based columns), lisp, tuple (0-based), board, unicode, json,
    /// svg (one board).
    #[arg(short, long, value_name = "F", value_parser = parse_format, default_value = "perm")]
    pub format: Format,
    /// List one solution per symmetry class: the lexicographically smallest of its 8
    /// rotations and reflections.
    #[arg(short, long)]
    pub unique: bool,
    /// Stop after K solutions.
    #[arg(long, value_name = "K", value_parser = parse_limit, allow_negative_numbers = true, conflicts_with_all = ["first", "random"])]
    pub limit: Option<u64>,
    /// Only the first solution in lexicographic order (the same as --limit 1). Still a
    /// search: 0.5 s for N = 30, more than 5 s for N = 36 to 48 (measured); 'solve N' builds
    /// one solution of any size at once.
    #[arg(long, conflicts_with = "random")]
    pub first: bool,
    /// One solution drawn uniformly at random (every solution, or with --unique every
    /// class, equally likely). For N <= 16.
    #[arg(long)]
    pub random: bool,
    /// Seed of --random: the same seed draws the same solution. Default: a fresh seed.
    #[arg(long, value_name = "S", value_parser = parse_seed, allow_negative_numbers = true, requires = "random")]
    pub seed: Option<u64>,
}

/// Arguments of `solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Board size N (1..10000000; 2 and 3 have no solution).
    #[arg(value_name = "N", value_parser = parse_big_n, allow_negative_numbers = true)]
    pub n: usize,
    /// Output format: perm (1-based columns), lisp, tuple (0-based), json, or for N <= 64
    /// board, unicode, svg.
    #[arg(short, long, value_name = "F", value_parser = parse_format, default_value = "perm")]
    pub format: Format,
}

/// Arguments of `animate`.
#[derive(Args, Debug)]
pub struct AnimateArgs {
    /// Board size N (1..32).
    #[arg(value_name = "N", value_parser = parse_animate_n, allow_negative_numbers = true)]
    pub n: u32,
    /// Pause after each step, in milliseconds (ten times as long on a solution), on the
    /// terminal and between SVG frames; the step log is written at full speed.
    #[arg(long, value_name = "MS", default_value = "100", value_parser = parse_delay, allow_negative_numbers = true)]
    pub delay: u64,
    /// When to stop: at the first solution, after the whole search (all), or after K
    /// solutions.
    #[arg(long, value_name = "first|all|K", default_value = "first", value_parser = parse_until, allow_negative_numbers = true)]
    pub until: Until,
    /// Write the search as one animated SVG (CSS keyframes, no script) to FILE instead of
    /// animating the terminal; `-` is stdout. One frame per step, --delay apart.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Most frames (steps) an SVG may hold: a search that needs more is refused before
    /// anything is written (about 0.3 KB per frame at n = 8).
    #[arg(long, value_name = "K", default_value = "10000", value_parser = parse_max_frames, requires = "svg")]
    pub max_frames: u64,
}

/// Arguments of `bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Timed runs per board size and thread count, each after one untimed warm-up.
    #[arg(short = 'r', long, value_parser = parse_runs, default_value = "5", allow_negative_numbers = true)]
    pub runs: usize,
    /// Thread counts to measure, comma-separated (e.g. 1,2,4,8); prints a scaling table.
    /// 1 is always measured, as the baseline of speed-up. Default: 1 and all logical cores.
    #[arg(short = 't', long, value_name = "LIST", allow_negative_numbers = true)]
    pub threads: Option<ThreadCounts>,
    /// Quick preset, workload nq-quick-4 (n = 16, counted 4 times per run): about 7 s on 2
    /// cores (quadrant engine).
    #[arg(long, conflicts_with_all = ["heavy", "tiny"])]
    pub quick: bool,
    /// Heavy preset, workload nq-heavy-4 (n = 18): for many-core machines; about 1 minute on
    /// 2 cores (quadrant engine; several minutes with --engine backtrack).
    #[arg(long, conflicts_with = "tiny")]
    pub heavy: bool,
    /// Test-suite preset, workload nq-tiny-1 (n = 10..12): too short to mean anything.
    #[arg(long, hide = true)]
    pub tiny: bool,
    /// Print the whole report as one JSON object on stdout (progress and warnings stay on
    /// stderr).
    #[arg(long)]
    pub json: bool,
    /// Compare two reports of `bench --json` (machine A, machine B) instead of running the
    /// benchmark: per test the median times and A/B (how many times faster B is), the
    /// whole workload per thread count, the scores, and the geometric mean of the ratios.
    #[arg(long, num_args = 2, value_names = ["A.json", "B.json"], conflicts_with_all = ["quick", "heavy", "tiny", "json", "threads", "runs"])]
    pub compare: Option<Vec<PathBuf>>,
    /// Engine selection (one engine for the whole workload; auto picks by its largest n).
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Arguments of `merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Shard files written by `count N --shard K/M --out FILE`, all of one N (pipes too:
    /// `<(ssh host cat s.json)`).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Print the result as one JSON object (as `count --json`, with a certificate: the
    /// shards' digests and the rechecks' seeds).
    #[arg(long)]
    pub json: bool,
    /// Report on a campaign in progress instead of merging: shards valid, missing,
    /// duplicated and refused (with why), units and CPU time so far, the partial sums, the
    /// CPU time still to spend, and the line `missing K,K,K-K` (Slurm --array syntax).
    /// Exit 0 when every shard is there, 3 when some are missing, 1 when two files of one
    /// shard disagree.
    #[arg(long, conflicts_with = "recheck")]
    pub status: bool,
    /// Recompute P percent (0..100) of each file's units, at least one per file, chosen at
    /// random, and refuse the merge if any differs. For shards from machines you do not
    /// control.
    #[arg(long, value_name = "P", value_parser = parse_percent)]
    pub recheck: Option<f64>,
    /// With --recheck: recount the units by the plain recount (plain backtracking of each
    /// unit's definition, sharing no code with the quadrant engine's patterns, table, join
    /// or weights) instead of the engine, to catch a bug of the engine, not only a forged
    /// or corrupted file. Slow: see `nqueens verify N --units K` for what a unit costs.
    #[arg(long, requires = "recheck")]
    pub independent: bool,
    /// Seed of the --recheck choice (printed on stderr), to repeat a recheck. Default: from
    /// the clock.
    #[arg(long, value_name = "S", requires = "recheck")]
    pub seed: Option<u64>,
    /// Worker threads for --recheck (1..4096). Default: all logical cores.
    #[arg(short = 't', long, value_parser = parse_threads, requires = "recheck")]
    pub threads: Option<usize>,
    /// Memory the merge may use for the files and the unit plan, e.g. 512M, 4G; files or a
    /// plan that would not fit are refused. Default: 80% of the memory available (as
    /// `count`).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<u64>,
}

/// Arguments of `estimate`.
#[derive(Args, Debug)]
pub struct EstimateArgs {
    /// Board size N (1..64).
    #[arg(value_name = "N", value_parser = parse_n)]
    pub n: u32,
    /// Units to time per draw (strata of the sample), 2..100000. Default: 48, or 12 from
    /// N = 26 (where each sampled set's half searches take seconds), 6 from N = 28.
    #[arg(long, value_name = "K", value_parser = parse_sample)]
    pub sample: Option<u32>,
    /// Seconds the estimate may take, 0..86400: the units of draws of K (seeds S, S + 1, ...)
    /// are timed one after another on each thread while the next is expected to end within
    /// it (the first draw always whole; the last may be cut short). Default: 4, or 55 from
    /// N = 26 without --sample (on 2 cores about ten draws of 12 at N = 26, a 95% interval
    /// near ±21%; 28-37 units at N = 28, within -28% / +33%).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, allow_hyphen_values = true)]
    pub seconds: Option<f64>,
    /// Seed of the random draw: the same seed draws the same units.
    #[arg(long, value_name = "S", default_value_t = 1, value_parser = parse_seed)]
    pub seed: u64,
    /// Threads that time units at once (1..4096); the projected wall time is for this many
    /// too. Default: all logical cores.
    #[arg(short, long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Seconds of one thread each sampled set's join may take; longer joins are timed on
    /// a share of their pieces. A unit a count runs with others of its frame group (odd N
    /// up to 25) is timed with them where they share its lists, its joins whole. Default: 1.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0, value_parser = parse_budget, allow_hyphen_values = true)]
    pub budget: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Engine and memory, as for `count`.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Arguments of `plan`.
#[derive(Args, Debug)]
pub struct PlanArgs {
    /// Board size N (1..64).
    #[arg(value_name = "N", value_parser = parse_n)]
    pub n: u32,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print statistics: unit count, cost distribution and makespan on --workers.
    #[arg(long)]
    pub stats: bool,
    /// With --stats: replay the measured per-unit nodes of a complete checkpoint of this N
    /// (from `count N --checkpoint FILE`) instead of estimated costs.
    #[arg(long, value_name = "CHECKPOINT", requires = "stats")]
    pub costs: Option<PathBuf>,
    /// With --stats: worker counts to estimate the makespan for. Default: 64,1024.
    #[arg(long, value_delimiter = ',', default_value = "64,1024", value_parser = parse_workers)]
    pub workers: Vec<usize>,
    /// Engine whose plan to show (auto: as `count` would pick on this machine's cores).
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Engine selection arguments.
#[derive(Args, Clone, Debug)]
pub struct EngineArgs {
    /// Counting engine: auto picks quadrant for 12 <= N <= 32 (the faster one there, 3-8x)
    /// when it fits --max-memory, and backtrack otherwise. Both give the same counts; unique
    /// counts always come from the same symmetric searches.
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: EngineChoice,
    /// Memory the count may use (the unit plan and, for the quadrant engine, its table and
    /// per-thread lists), e.g. 512M, 4G; a count that would not fit is refused.
    /// Default: 80% of the memory available when the count starts (/proc/meminfo), or 1G;
    /// never more than three quarters of the address-space limit (ulimit -v).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<u64>,
}

/// The `--engine` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineChoice {
    /// Quadrant for 12 <= N <= 32 when it fits --max-memory, backtrack otherwise.
    Auto,
    /// Join quarter-board placements (meet in the middle): the fastest from N = 12 on.
    Quadrant,
    /// Bit-board backtracking over border constellations: any N, little memory.
    Backtrack,
}

/// Which sequence a b-file holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Sequence {
    /// All solutions: OEIS A000170.
    #[default]
    Total,
    /// Solutions up to the 8 symmetries of the square: OEIS A002562.
    Unique,
}

/// How `count --shard` splits the plan (`--split`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SplitArg {
    /// Bundles where they pay and every shard gets enough, else units.
    Auto,
    /// Unit by unit, largest first, each to the least loaded shard.
    Units,
    /// The units of one frame group and prefix (odd N) to one shard together, counted
    /// as one bundle there.
    Bundles,
}

/// How `count` prints its results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CountFormat {
    /// The human report (the default).
    Text,
    /// One JSON object per N, as `--json` (`solutions` takes `--format json` too).
    Json,
    /// An OEIS b-file of `--sequence`: `n a(n)` per line, nothing else.
    Bfile,
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
