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

pub mod compare;
pub mod machine;
pub mod report;

use super::engine::EnginePlan;
use super::error::{say, Done, Failure, Outcome};
use super::options::{BenchOptions, BenchRun, Preset};
use super::report::{timed_count, KnownCheck};
use crate::engine::plan::Engine;
use crate::{known, Counts, UnitPlan};
use machine::Machine;
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
    /// How many times each size is counted, one count after another, in one timed run
    /// (so that a run is long enough to time; each count is checked).
    pub repeat: u32,
}

/// The default workload: n = 16 and 17; about 30 s with 5 runs on 2 cores with the
/// quadrant engine. (Version 1 was n = 15, 16, sized for the engine before the interleaved
/// kernel; version 2 was timed with the backtracking engine only. From version 3 the report's
/// workload id also names the engine: `nq-std-3-quadrant`. Version 4: the join of 2026-12
/// changed the scores, and the thread counts are timed in turn, run by run.)
pub const STANDARD: Workload = Workload {
    id: "nq-std-4",
    version: 4,
    preset: "standard",
    sizes: &[16, 17],
    repeat: 1,
};
/// `--quick`: n = 16 counted 4 times per timed run; about 7 s with 5 runs on 2 cores.
/// (Version 1 was n = 14, now too short to time well; version 3 names the engine, as
/// [`STANDARD`]. Version 4 counts n = 16 four times a run: one count takes 0.1 s on 2
/// cores, short enough that a scheduler hiccup moved the 2-thread speed-up of version 3
/// anywhere from 0.98x to 2.4x on the same machine.)
pub const QUICK: Workload = Workload {
    id: "nq-quick-4",
    version: 4,
    preset: "quick",
    sizes: &[16],
    repeat: 4,
};
/// `--heavy`: n = 18, for machines with many cores; about 1 minute with 5 runs on 2 cores
/// with the quadrant engine (version 3 names the engine, as [`STANDARD`]; version 4 as
/// [`STANDARD`]'s).
pub const HEAVY: Workload = Workload {
    id: "nq-heavy-4",
    version: 4,
    preset: "heavy",
    sizes: &[18],
    repeat: 1,
};
/// Hidden `--tiny`, for the test suite: n = 10..12, milliseconds (every run is too short to
/// time well, so it always warns).
pub const TINY: Workload = Workload {
    id: "nq-tiny-1",
    version: 1,
    preset: "tiny",
    sizes: &[10, 11, 12],
    repeat: 1,
};

/// Test hook, not a user option: when this environment variable is "1", the expected totals
/// are off by one, so every check fails and `bench` must exit with code 1. The CLI tests use
/// it to prove that a wrong count cannot pass; nothing else reads it.
const CORRUPT_EXPECTED_HOOK: &str = "NQUEENS_BENCH_CORRUPT_EXPECTED";

/// The workload of a preset.
pub fn workload(preset: Preset) -> Workload {
    match preset {
        Preset::Standard => STANDARD,
        Preset::Quick => QUICK,
        Preset::Heavy => HEAVY,
        Preset::Tiny => TINY,
    }
}

/// Counts `n` on `threads` threads, times it, and checks it against the known table.
fn checked_count(
    n: u32,
    threads: usize,
    engine: Engine,
    corrupt: bool,
) -> Result<(Counts, UnitPlan, f64), Failure> {
    let wrong = |why: String| Failure::check(format!("benchmark failed: {why}"));
    let (counts, plan, seconds) = match timed_count(n, threads, &EnginePlan::unlimited(engine)) {
        Ok(r) => r,
        // A broken symmetry identity is a wrong count too.
        Err(Failure::CheckFailed(why)) => {
            let why = why.unwrap_or_else(|| "a check failed".into());
            return Err(wrong(format!("n = {n} on {threads} thread(s): {why}")));
        }
        Err(e) => return Err(e),
    };
    let k = known::lookup(n).expect("every workload size is in the known table (n <= 27)");
    let expected_total = if corrupt { k.total + 1 } else { k.total };
    if counts.total != expected_total || KnownCheck::of(&counts) != KnownCheck::Match {
        return Err(wrong(format!(
            "wrong count for n = {n} on {threads} thread(s): total {} unique {}, the known values are {expected_total} and {}",
            counts.total, counts.unique, k.unique
        )));
    }
    Ok((counts, plan, seconds))
}

/// Runs the workload on each thread count and collects the timed samples.
///
/// Size by size, each thread count is warmed up once, then the timed runs go round the
/// thread counts in turn: run 1 on 1 thread, run 1 on 2 threads, run 2 on 1 thread, ... So
/// a slow minute of the machine (a neighbour, a frequency drop) slows runs of every thread
/// count alike instead of all the runs of one, and the speed-up, a ratio of medians, keeps
/// its meaning. (Version 3 timed all 1-thread runs first; on a shared 2-core VM its
/// speed-up at n = 16 ranged over 1.78x-2.37x in four reports of one hour.) Sizes are not
/// interleaved: the engine keeps the context (quadrant table) of one n, and switching n
/// every run would time its rebuilding.
fn measure(
    workload: &Workload,
    engine: Engine,
    thread_counts: &[usize],
    runs: usize,
) -> Result<Vec<TestResult>, Failure> {
    let corrupt = std::env::var(CORRUPT_EXPECTED_HOOK).is_ok_and(|v| v == "1");
    // One run of a test: `repeat` checked counts, timed together.
    let timed_run = |n: u32, threads: usize| -> Result<f64, Failure> {
        let mut seconds = 0.0;
        for _ in 0..workload.repeat {
            seconds += checked_count(n, threads, engine, corrupt)?.2;
        }
        Ok(seconds)
    };
    let mut by_size = Vec::with_capacity(workload.sizes.len());
    for &n in workload.sizes {
        let mut done = Vec::with_capacity(thread_counts.len());
        for &threads in thread_counts {
            let (counts, plan, _) = checked_count(n, threads, engine, corrupt)?; // warm-up: checked, not timed
            done.push((threads, counts, plan, Vec::with_capacity(runs)));
        }
        for run in 0..runs {
            for (threads, _, _, seconds) in &mut done {
                seconds.push(timed_run(n, *threads)?);
            }
            say!(
                "  n = {n}: run {} of {runs} done on every thread count",
                run + 1
            );
        }
        by_size.push(done);
    }
    // In the report's order: thread counts ascending, sizes in workload order within each.
    let mut results = Vec::with_capacity(thread_counts.len() * by_size.len());
    for i in 0..thread_counts.len() {
        for done in &mut by_size {
            let (threads, counts, plan, seconds) = &mut done[i];
            let seconds = std::mem::take(seconds);
            let test =
                TestResult::new(*threads, counts, plan, Sample::of(seconds), workload.repeat);
            say!("{}", test.progress_line());
            results.push(test);
        }
    }
    Ok(results)
}

/// Runs `bench`.
pub fn run(o: &BenchOptions) -> Outcome {
    match o {
        BenchOptions::Compare(x, y) => compare::run(x, y),
        BenchOptions::Run(a) => run_workload(a),
    }
}

/// Runs the workload and prints the report.
fn run_workload(a: &BenchRun) -> Outcome {
    let workload = workload(a.preset);
    let thread_counts = &a.thread_counts;
    let machine = Machine::detect();
    let largest = *workload.sizes.iter().max().expect("a workload has sizes");
    let most_threads = *thread_counts.iter().max().expect("1 is always measured");
    let engine = a.engine.resolve(largest, most_threads)?.engine;
    let info = WorkloadInfo::new(&workload, engine);
    say!("{}", info.header_line(a.runs));
    let tests = measure(&workload, engine, thread_counts, a.runs)?;
    let report = BenchReport::new(info, machine, a.runs, tests);
    for w in &report.warnings {
        say!("warning: {}", w.message);
    }
    // Written, not `println!`: a full disk or a closed pipe is an error `main` reports (or a
    // quiet end), never a panic.
    let mut out = super::error::stdout();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(out, "{}", report.text())?;
    }
    out.flush()?;
    Ok(Done::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for &engine in Engine::all() {
            assert!(checked_count(8, 1, engine, false).is_ok());
        }
        let e = checked_count(8, 1, Engine::named("quadrant").unwrap(), true).unwrap_err();
        assert!(matches!(e, Failure::CheckFailed(Some(_))), "{e}");
    }
}
