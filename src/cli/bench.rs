//! `nqueens bench`: a CPU benchmark. A fixed, versioned workload (a list of board sizes) is
//! counted on 1 thread and on all threads (or a `--threads` sweep), each size after one
//! warm-up count and then `--runs` timed counts. Every count, warm-ups included, is checked
//! against the known table (OEIS A000170 / A002562); one wrong count fails the benchmark with
//! exit code 1, because a fast wrong answer says nothing good about a CPU.
//!
//! The layout follows hyperfine (warm-up, repeated runs, median/min/max, warnings about
//! results that should not be trusted, `--export-json`-style machine output); the report
//! types and the text tables live in [`report`], the machine description in [`machine`].

use std::io::Write;
use std::process::ExitCode;
use std::str::FromStr;

use clap::Args;

pub mod machine;
pub mod report;

use super::args::{parse_in, parse_threads, shown, Refused};
use super::default_threads;
use super::engine::{EngineArgs, EnginePlan};

use super::report::{timed_count, KnownCheck};
use super::Outcome;
use machine::Machine;
use nqueens::engine::plan::Engine;
use nqueens::{known, Counts, UnitPlan};
use report::{BenchReport, Sample, TestResult, WorkloadInfo};

/// A fixed benchmark workload. Changing the sizes of a workload means a new `id`: reports
/// are comparable only when their workload ids (and program versions) are equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Workload {
    /// Name and version, e.g. "nq-std-1".
    pub id: &'static str,
    /// Version number of this workload definition.
    pub version: u32,
    /// The preset that selects it: "standard", "quick", "heavy" or "tiny".
    pub preset: &'static str,
    /// Board sizes counted, in order, in one workload run.
    pub sizes: &'static [u32],
}

/// The default workload: n = 16 and 17; about 30 s with 5 runs on 2 AMD EPYC cores with the
/// quadrant engine. (Version 1 was n = 15, 16, sized for the engine before the interleaved
/// kernel; version 2 was timed with the backtracking engine only. From version 3 the report's
/// workload id also names the engine: `nq-std-3-quadrant`.)
pub const STANDARD: Workload = Workload {
    id: "nq-std-3",
    version: 3,
    preset: "standard",
    sizes: &[16, 17],
};
/// `--quick`: n = 16; a few seconds with 5 runs on 2 cores. (Version 1 was n = 14, now
/// too short to time well; version 3 names the engine, as [`STANDARD`].)
pub const QUICK: Workload = Workload {
    id: "nq-quick-3",
    version: 3,
    preset: "quick",
    sizes: &[16],
};
/// `--heavy`: n = 18, for machines with many cores; about 2 minutes with 5 runs on 2 cores
/// with the quadrant engine (version 3 names the engine, as [`STANDARD`]).
pub const HEAVY: Workload = Workload {
    id: "nq-heavy-3",
    version: 3,
    preset: "heavy",
    sizes: &[18],
};
/// Hidden `--tiny`, for the test suite: n = 10..12, milliseconds (every run is too short to
/// time well, so it always warns).
pub const TINY: Workload = Workload {
    id: "nq-tiny-1",
    version: 1,
    preset: "tiny",
    sizes: &[10, 11, 12],
};

/// Test hook, not a user option: when this environment variable is "1", the expected totals
/// are off by one, so every check fails and `bench` must exit with code 1. The CLI tests use
/// it to prove that a wrong count cannot pass; nothing else reads it.
const CORRUPT_EXPECTED_HOOK: &str = "NQUEENS_BENCH_CORRUPT_EXPECTED";

/// A comma-separated list of thread counts, e.g. `1,2,4`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadCounts(pub Vec<usize>);

impl FromStr for ThreadCounts {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let counts = s
            .split(',')
            .map(parse_threads)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ThreadCounts(counts))
    }
}

/// Parses `--runs`: at least 1.
fn parse_runs(s: &str) -> Result<usize, String> {
    match parse_in(s, 1, MAX_RUNS as i128) {
        Ok(v) => Ok(v as usize),
        Err(Refused::Below(0)) => {
            Err("run count 0 is invalid: use at least 1 run (3 or more to trust the spread)".into())
        }
        Err(Refused::NotANumber | Refused::Below(_)) => Err(format!(
            "'{}' is not a run count: expected a whole number of at least 1",
            shown(s)
        )),
        Err(Refused::Above(v)) => Err(format!(
            "run count {v} is too large: use at most {MAX_RUNS} runs"
        )),
    }
}

/// The most timed runs `bench --runs` accepts (each run is a count; the times are kept).
pub const MAX_RUNS: usize = 10_000;

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
    /// Quick preset, workload nq-quick-3 (n = 16): about 2 s on 2 cores (quadrant engine).
    #[arg(long, conflicts_with_all = ["heavy", "tiny"])]
    pub quick: bool,
    /// Heavy preset, workload nq-heavy-3 (n = 18): for many-core machines; about 1 minute on
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
    /// Engine selection (one engine for the whole workload; auto picks by its largest n).
    #[command(flatten)]
    pub engine: EngineArgs,
}

impl BenchArgs {
    /// The workload the flags select.
    pub fn workload(&self) -> Workload {
        match (self.quick, self.heavy, self.tiny) {
            (true, _, _) => QUICK,
            (_, true, _) => HEAVY,
            (_, _, true) => TINY,
            _ => STANDARD,
        }
    }

    /// The thread counts to measure: sorted, without repeats, always starting with 1.
    pub fn thread_counts(&self) -> Vec<usize> {
        let mut t = match &self.threads {
            Some(list) => list.0.clone(),
            None => vec![default_threads()],
        };
        t.push(1);
        t.sort_unstable();
        t.dedup();
        t
    }
}

/// A count that disagreed with the known table: the benchmark fails with exit code 1.
#[derive(Debug)]
struct WrongCount(String);

impl std::fmt::Display for WrongCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WrongCount {}

/// Counts `n` on `threads` threads, times it, and checks it against the known table.
fn checked_count(
    n: u32,
    threads: usize,
    engine: Engine,
    corrupt: bool,
) -> anyhow::Result<(Counts, UnitPlan, f64)> {
    let (counts, plan, seconds) = match timed_count(n, threads, &EnginePlan::unlimited(engine)) {
        Ok(r) => r,
        // A broken symmetry identity is a wrong count too, not a usage error.
        Err(e) if matches!(e.downcast_ref(), Some(nqueens::Error::Inconsistent { .. })) => {
            return Err(WrongCount(format!("n = {n} on {threads} thread(s): {e}")).into())
        }
        Err(e) => return Err(e),
    };
    let k = known::lookup(n).expect("every workload size is in the known table (n <= 27)");
    let expected_total = if corrupt { k.total + 1 } else { k.total };
    if counts.total != expected_total || KnownCheck::of(&counts) != KnownCheck::Match {
        return Err(WrongCount(format!(
            "wrong count for n = {n} on {threads} thread(s): total {} unique {}, the known values are {expected_total} and {}",
            counts.total, counts.unique, k.unique
        ))
        .into());
    }
    Ok((counts, plan, seconds))
}

/// Runs the workload on each thread count and collects the timed samples.
fn measure(
    workload: &Workload,
    engine: Engine,
    thread_counts: &[usize],
    runs: usize,
) -> anyhow::Result<Vec<TestResult>> {
    let corrupt = std::env::var(CORRUPT_EXPECTED_HOOK).is_ok_and(|v| v == "1");
    let mut tests = Vec::new();
    for &threads in thread_counts {
        for &n in workload.sizes {
            let (counts, plan, _) = checked_count(n, threads, engine, corrupt)?; // warm-up: checked, not timed
            let mut seconds = Vec::with_capacity(runs);
            for _ in 0..runs {
                seconds.push(checked_count(n, threads, engine, corrupt)?.2);
            }
            let test = TestResult::new(threads, &counts, &plan, Sample::of(seconds));
            eprintln!("{}", test.progress_line());
            tests.push(test);
        }
    }
    Ok(tests)
}

/// Runs `bench`.
pub fn run(a: &BenchArgs) -> Outcome {
    let workload = a.workload();
    let thread_counts = a.thread_counts();
    let machine = Machine::detect();
    let largest = *workload.sizes.iter().max().expect("a workload has sizes");
    let most_threads = *thread_counts.iter().max().expect("1 is always measured");
    let engine = a.engine.resolve(largest, most_threads)?.engine;
    let info = WorkloadInfo::new(&workload, engine);
    eprintln!("{}", info.header_line(a.runs));
    let tests = match measure(&workload, engine, &thread_counts, a.runs) {
        Ok(t) => t,
        Err(e) => {
            return match e.downcast_ref::<WrongCount>() {
                Some(wrong) => {
                    eprintln!("nqueens: benchmark failed: {wrong}");
                    Ok(ExitCode::from(1))
                }
                None => Err(e),
            }
        }
    };
    let report = BenchReport::new(info, machine, a.runs, tests);
    for w in &report.warnings {
        eprintln!("warning: {}", w.message);
    }
    // Written, not `println!`: a full disk or a closed pipe is an error `main` reports (or a
    // quiet end), never a panic.
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(out, "{}", report.text())?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_thread_lists() {
        assert_eq!(
            "1,2,4".parse::<ThreadCounts>(),
            Ok(ThreadCounts(vec![1, 2, 4]))
        );
        assert_eq!("8".parse::<ThreadCounts>(), Ok(ThreadCounts(vec![8])));
        assert!("0"
            .parse::<ThreadCounts>()
            .unwrap_err()
            .contains("thread count 0"));
        assert!("a,b".parse::<ThreadCounts>().unwrap_err().contains("'a'"));
        assert!("1,,2".parse::<ThreadCounts>().is_err());
    }

    #[test]
    fn rejects_zero_runs() {
        assert_eq!(parse_runs("3"), Ok(3));
        assert!(parse_runs("0").unwrap_err().contains("run count 0"));
        assert!(parse_runs("x").is_err());
    }

    #[test]
    fn workload_sizes_are_in_the_known_table() {
        for w in [STANDARD, QUICK, HEAVY, TINY] {
            assert!(w.id.ends_with(&format!("-{}", w.version)), "{}", w.id);
            assert!(
                w.sizes.iter().all(|&n| known::lookup(n).is_some()),
                "{}",
                w.id
            );
        }
    }

    #[test]
    fn a_corrupted_expectation_fails_the_check() {
        for engine in [Engine::Backtrack, Engine::Quadrant] {
            assert!(checked_count(8, 1, engine, false).is_ok());
        }
        let e = checked_count(8, 1, Engine::Quadrant, true).unwrap_err();
        assert!(e.downcast_ref::<WrongCount>().is_some(), "{e}");
    }
}
