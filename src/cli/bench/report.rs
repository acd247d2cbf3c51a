//! The report of `nqueens bench`: timing statistics (median, min, max, spread), per-test and
//! per-thread-count results, the scaling table, the two scores, trust warnings, and the text
//! and JSON forms. `scripts/compare-bench.py` and `scripts/scaling-chart.py` read only the
//! JSON form, so a field renamed here must be renamed there too.
//!
//! The statistics themselves (median, spread, speed-up, efficiency) are computed in
//! [`crate::runner::stats`], as hyperfine does (`benchmark_result.rs`): the median is the
//! figure to quote, min and max show the noise. The trust warnings are in [`warning`].

use serde::Serialize;

use super::machine::Machine;
use super::Workload;
use crate::cli::format::si;
use crate::engine::plan::Engine;
use crate::runner::stats::{efficiency, per_hour, per_second, speedup};
use crate::{Counts, UnitPlan};

pub mod warning;

pub use crate::runner::stats::Sample;
use warning::Warning;

/// The score, as stated in `--help`, the README and every JSON report.
pub const SCORE_DEFINITION: &str =
    "score = workload runs per hour = 3600 s / median wall time of one workload run \
(one count of each size of the workload, on the given thread count); higher is faster; \
compare scores only between reports with the same workload id and program version";

/// Version of the JSON layout of this report; bump it when a field changes meaning or goes.
pub const REPORT_FORMAT: u32 = 1;

/// One test: one board size on one thread count.
#[derive(Clone, Debug, Serialize)]
pub struct TestResult {
    /// Board size.
    pub n: u32,
    /// Worker threads.
    pub threads: usize,
    /// Solutions found by every run (checked against A000170), count.
    pub total: u128,
    /// Unique solutions found by every run (checked against A002562), count.
    pub unique: u128,
    /// Backtracking search nodes of one run (the whole count with the backtracking engine,
    /// the F180/F90 searches with the quadrant engine), count.
    pub nodes: u128,
    /// Half-board pattern pairs the quadrant engine's join tested in one run (0 with the
    /// backtracking engine), count.
    pub pairs_tested: u128,
    /// Counts of this size in one timed run (the workload's repeat; the counts above are
    /// those of one count, the rates below those of the whole run).
    pub counts_per_run: u32,
    /// Work units in the plan, count.
    pub units: usize,
    /// Identity of the unit plan, 16 hex digits.
    pub plan_id: String,
    /// Wall times of the timed runs.
    pub time: Sample,
    /// Nodes per second at the median time, nodes/s.
    pub nodes_per_second: f64,
    /// Pattern pairs tested per second at the median time, pairs/s.
    pub pairs_per_second: f64,
    /// Solutions per second at the median time, solutions/s.
    pub solutions_per_second: f64,
}

impl TestResult {
    /// The result of timing `counts` (checked) on `threads` threads.
    pub fn new(
        threads: usize,
        counts: &Counts,
        plan: &UnitPlan,
        time: Sample,
        counts_per_run: u32,
    ) -> TestResult {
        let per_run = |x: u128| x * u128::from(counts_per_run);
        TestResult {
            counts_per_run,
            n: counts.n,
            threads,
            total: counts.total,
            unique: counts.unique,
            nodes: counts.nodes,
            pairs_tested: counts.pairs_tested,
            units: plan.len(),
            plan_id: plan.id_hex(),
            nodes_per_second: per_second(per_run(counts.nodes), time.median_seconds),
            pairs_per_second: per_second(per_run(counts.pairs_tested), time.median_seconds),
            solutions_per_second: per_second(per_run(counts.total), time.median_seconds),
            time,
        }
    }

    /// The line printed on stderr when the test is done.
    pub fn progress_line(&self) -> String {
        format!(
            "  n = {:<2} threads = {:<3} median {:.3} s  (min {:.3}, max {:.3}, {} runs, counts ok)",
            self.n,
            self.threads,
            self.time.median_seconds,
            self.time.min_seconds,
            self.time.max_seconds,
            self.time.runs_seconds.len()
        )
    }
}

/// The workload as run: which sizes, which plans.
#[derive(Clone, Debug, Serialize)]
pub struct WorkloadInfo {
    /// Workload name and version, e.g. "nq-std-1"; compare only equal ids.
    pub id: String,
    /// Workload version number.
    pub version: u32,
    /// Preset that selected it: "standard", "quick", "heavy" or "tiny".
    pub preset: String,
    /// Board sizes of one workload run, in order.
    pub sizes: Vec<u32>,
    /// Counts of each size in one workload run, one after another.
    pub repeat: u32,
    /// The engine that counted: "quadrant" or "backtrack".
    pub engine: Engine,
    /// Version of the unit-plan splitting rule (plan ids are per test).
    pub plan_version: u32,
    /// Solutions in one workload run (sum of the known totals), count.
    pub solutions_per_run: u128,
}

impl WorkloadInfo {
    /// Describes `w` counted by `engine`. The id names the engine from workload version 3
    /// on ("nq-std-3-quadrant"): scores of different engines are not comparable.
    pub fn new(w: &Workload, engine: Engine) -> WorkloadInfo {
        WorkloadInfo {
            id: if w.version >= 3 {
                format!("{}-{}", w.id, engine.name())
            } else {
                w.id.into()
            },
            version: w.version,
            preset: w.preset.into(),
            sizes: w.sizes.to_vec(),
            repeat: w.repeat,
            engine,
            plan_version: engine.plan_version(),
            solutions_per_run: w
                .sizes
                .iter()
                .map(|&n| {
                    crate::known::lookup(n)
                        .expect("workload sizes are in the known table")
                        .total
                })
                .sum::<u128>()
                * u128::from(w.repeat),
        }
    }

    /// The sizes as a header writes them: "16, 17", or "16, each counted 4 times a run"
    /// (not Rust's "[16, 17]").
    pub fn sizes_text(&self) -> String {
        let sizes: Vec<String> = self.sizes.iter().map(u32::to_string).collect();
        match self.repeat {
            1 => sizes.join(", "),
            r => format!("{}, each counted {r} times a run", sizes.join(", ")),
        }
    }

    /// "workload nq-std-2 (n = 16, 17; plan v2), 5 runs after 1 warm-up each".
    pub fn header_line(&self, runs: usize) -> String {
        format!(
            "nqueens bench: workload {} (n = {}; {} engine, plan v{}), {runs} run(s) after 1 warm-up each, every count checked",
            self.id,
            self.sizes_text(),
            self.engine.name(),
            self.plan_version
        )
    }
}

/// The whole workload on one thread count: a row of the scaling table.
#[derive(Clone, Debug, Serialize)]
pub struct ScalingRow {
    /// Worker threads.
    pub threads: usize,
    /// Wall time of each workload run (the sum of its tests' i-th runs).
    pub time: Sample,
    /// Nodes of one workload run per second at the median time, nodes/s.
    pub nodes_per_second: f64,
    /// Solutions of one workload run per second at the median time, solutions/s.
    pub solutions_per_second: f64,
    /// Workload runs per hour at the median time (see score_definition), runs/h.
    pub score: f64,
    /// Median time on 1 thread over median time here, ratio.
    pub speedup: f64,
    /// Speed-up over threads, ratio (1.0 = perfect scaling).
    pub efficiency: f64,
}

/// Everything `nqueens bench --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Version of this JSON layout.
    pub report_format: u32,
    /// The workload.
    pub workload: WorkloadInfo,
    /// How the scores are defined (text).
    pub score_definition: &'static str,
    /// The machine and binary.
    pub machine: Machine,
    /// Instruction set the hot loops ran with and how it was chosen: "x86-64-v3 (chosen at
    /// run time)", "x86-64-v3 (the build's target)", "baseline (NQUEENS_KERNEL=baseline)",
    /// ... (see `machine.target_features` for what the build itself was compiled for).
    pub instruction_set: String,
    /// Timed runs per test, count.
    pub runs: usize,
    /// Untimed (but checked) warm-up runs per test, count.
    pub warmup_runs: usize,
    /// When the report was made, seconds since 1970-01-01 UTC.
    pub unix_time_seconds: u64,
    /// Every test: each size on each thread count.
    pub tests: Vec<TestResult>,
    /// The whole workload per thread count, ascending; the first row is 1 thread.
    pub scaling: Vec<ScalingRow>,
    /// Score on 1 thread, workload runs per hour.
    pub single_thread_score: f64,
    /// Score on the most threads measured, workload runs per hour.
    pub multi_thread_score: f64,
    /// Thread count of the multi-thread score (default: all logical cores).
    pub multi_threads: usize,
    /// Multi-thread over single-thread speed, ratio.
    pub speedup: f64,
    /// Speed-up over multi_threads, ratio (1.0 = perfect scaling).
    pub efficiency: f64,
    /// Reasons not to trust some figures; empty when there are none.
    pub warnings: Vec<Warning>,
}

impl BenchReport {
    /// Builds the report from the tests, in measuring order (thread counts ascending, 1 first).
    pub fn new(
        workload: WorkloadInfo,
        machine: Machine,
        runs: usize,
        tests: Vec<TestResult>,
    ) -> BenchReport {
        let mut thread_counts: Vec<usize> = tests.iter().map(|t| t.threads).collect();
        thread_counts.dedup();
        assert_eq!(
            thread_counts.first(),
            Some(&1),
            "1 thread is always measured first"
        );
        let mut scaling: Vec<ScalingRow> = Vec::new();
        for &threads in &thread_counts {
            let of_threads: Vec<&TestResult> =
                tests.iter().filter(|t| t.threads == threads).collect();
            let times: Vec<&Sample> = of_threads.iter().map(|t| &t.time).collect();
            let time = Sample::summed(&times, runs);
            let nodes: u128 = of_threads
                .iter()
                .map(|t| t.nodes * u128::from(t.counts_per_run))
                .sum();
            let speedup = scaling.first().map_or(1.0, |one| {
                speedup(one.time.median_seconds, time.median_seconds)
            });
            scaling.push(ScalingRow {
                threads,
                nodes_per_second: per_second(nodes, time.median_seconds),
                solutions_per_second: per_second(workload.solutions_per_run, time.median_seconds),
                score: per_hour(time.median_seconds),
                speedup,
                efficiency: efficiency(speedup, threads),
                time,
            });
        }
        let (single, multi) = (&scaling[0], &scaling[scaling.len() - 1]);
        let warnings = warning::warnings(&machine, runs, &tests);
        BenchReport {
            report_format: REPORT_FORMAT,
            score_definition: SCORE_DEFINITION,
            runs,
            warmup_runs: 1,
            unix_time_seconds: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            single_thread_score: single.score,
            multi_thread_score: multi.score,
            multi_threads: multi.threads,
            speedup: multi.speedup,
            efficiency: multi.efficiency,
            workload,
            machine,
            instruction_set: crate::cli::kernel::describe(),
            tests,
            scaling,
            warnings,
        }
    }

    /// The human-readable report.
    pub fn text(&self) -> String {
        let m = &self.machine;
        let mut s = String::new();
        s.push_str(&format!(
            "workload  {} (n = {}; {} engine, plan v{})\n",
            self.workload.id,
            self.workload.sizes_text(),
            self.workload.engine.name(),
            self.workload.plan_version
        ));
        s.push_str(&format!("cpu       {}\n", m.cpu_line()));
        s.push_str(&format!("system    {}\n", m.system_line()));
        s.push_str(&format!("code      {}\n", self.instruction_set));
        s.push_str(&format!("program   {} ({} build)\n", m.program, m.profile));
        if let Some(load) = m.load_average {
            s.push_str(&format!(
                "load      {load:.2} (1-minute load average at the start)\n"
            ));
        }
        s.push_str(&format!(
            "runs      {} timed after 1 warm-up per test; every count checked\n\n",
            self.runs
        ));
        // The work rate of the engine that ran: queens placed, or pattern pairs tested
        // (an engine whose work figure is reported apart from the F180/F90 nodes).
        let pairs = self.workload.engine.labels().work_apart.is_some();
        s.push_str(&format!(
            "{:>7} {:>3} {:>10} {:>10} {:>10} {:>7} {:>12} {:>14}\n",
            "threads",
            "n",
            "median s",
            "min s",
            "max s",
            "spread",
            format!("{}/s", self.workload.engine.work()),
            "solutions/s"
        ));
        for t in &self.tests {
            s.push_str(&format!(
                "{:>7} {:>3} {:>10.4} {:>10.4} {:>10.4} {:>6.1}% {:>12} {:>14}\n",
                t.threads,
                t.n,
                t.time.median_seconds,
                t.time.min_seconds,
                t.time.max_seconds,
                (t.time.spread - 1.0) * 100.0,
                si(if pairs {
                    t.pairs_per_second
                } else {
                    t.nodes_per_second
                }),
                si(t.solutions_per_second)
            ));
        }
        s.push_str(&format!(
            "\nscaling (whole workload)\n{:>7} {:>10} {:>9} {:>11} {:>10}\n",
            "threads", "median s", "speed-up", "efficiency", "score"
        ));
        for r in &self.scaling {
            s.push_str(&format!(
                "{:>7} {:>10.4} {:>8.2}x {:>10.1}% {:>10.1}\n",
                r.threads,
                r.time.median_seconds,
                r.speedup,
                r.efficiency * 100.0,
                r.score
            ));
        }
        s.push_str(&format!(
            "\nsingle-thread score  {:.1}\n",
            self.single_thread_score
        ));
        s.push_str(&format!(
            "multi-thread score   {:.1}  ({} threads)\n",
            self.multi_thread_score, self.multi_threads
        ));
        s.push_str(&format!(
            "speed-up             {:.2}x on {} threads, parallel efficiency {:.1}%\n",
            self.speedup,
            self.multi_threads,
            self.efficiency * 100.0
        ));
        s.push_str(
            "score = workload runs per hour = 3600 s / median wall time of one workload run;\n",
        );
        s.push_str(
            "higher is faster; compare only reports of the same workload id and program version\n",
        );
        if !self.warnings.is_empty() {
            s.push_str(&format!(
                "{} warning(s), see stderr or --json\n",
                self.warnings.len()
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quadrant() -> Engine {
        Engine::named("quadrant").expect("an engine")
    }

    fn test(n: u32, threads: usize, runs: Vec<f64>) -> TestResult {
        let k = crate::known::lookup(n).unwrap();
        TestResult {
            n,
            threads,
            total: k.total,
            unique: k.unique,
            nodes: 1_000_000,
            pairs_tested: 0,
            counts_per_run: 1,
            units: 1,
            plan_id: "0".into(),
            nodes_per_second: 0.0,
            pairs_per_second: 0.0,
            solutions_per_second: 0.0,
            time: Sample::of(runs),
        }
    }

    fn machine(logical_cores: usize) -> Machine {
        Machine {
            logical_cores,
            profile: "release".into(),
            load_average: Some(0.0),
            ..Machine::detect()
        }
    }

    #[test]
    fn scaling_sums_runs_and_divides_by_one_thread() {
        let tests = vec![
            test(14, 1, vec![1.0, 1.0, 1.0]),
            test(15, 1, vec![3.0, 3.0, 3.0]),
            test(14, 2, vec![0.5, 0.5, 0.5]),
            test(15, 2, vec![1.5, 1.5, 1.5]),
        ];
        let r = BenchReport::new(
            WorkloadInfo::new(&super::super::QUICK, quadrant()),
            machine(2),
            3,
            tests,
        );
        assert_eq!(r.scaling.len(), 2);
        assert_eq!(r.scaling[0].time.median_seconds, 4.0);
        assert_eq!(r.scaling[1].time.median_seconds, 2.0);
        assert_eq!((r.speedup, r.efficiency, r.multi_threads), (2.0, 1.0, 2));
        assert_eq!(
            (r.single_thread_score, r.multi_thread_score),
            (900.0, 1800.0)
        );
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        assert!(
            r.text()
                .starts_with("workload  nq-quick-4-quadrant (n = 16, each counted 4 times a run; quadrant engine, plan v4)\n"),
            "{}",
            r.text()
        );
    }

    #[test]
    fn warns_about_untrustworthy_runs() {
        let tests = vec![test(12, 1, vec![0.010, 0.020]), test(12, 4, vec![0.1, 0.1])];
        let busy = Machine {
            load_average: Some(1.5),
            ..machine(2)
        };
        let r = BenchReport::new(
            WorkloadInfo::new(&super::super::TINY, quadrant()),
            busy,
            2,
            tests,
        );
        let kinds: Vec<&str> = r.warnings.iter().map(|w| w.kind.name()).collect();
        assert_eq!(
            kinds,
            ["busy", "few_runs", "oversubscribed", "short_run", "spread"]
        );
    }
}
