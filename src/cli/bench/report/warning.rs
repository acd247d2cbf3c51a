//! The trust warnings of `nqueens bench`: checks of a finished benchmark for figures that
//! should not be quoted (a debug build, a busy machine, too few or too short runs, noisy
//! runs, more threads than cores), each with a kind scripts can match on and a one-line
//! message saying what to do. They follow hyperfine's outlier and "fast command" warnings,
//! reduced to checks that need no statistics library.

use std::fmt;

use serde::{Serialize, Serializer};

use super::super::machine::Machine;
use super::TestResult;

/// Runs faster than this are timed with too much relative noise (thread-pool start-up and
/// scheduler ticks are milliseconds), seconds.
pub const SHORT_RUN_SECONDS: f64 = 0.050;

/// Runs of one test more than this far apart (max / min) are too noisy to compare.
pub const MAX_SPREAD: f64 = 1.10;

/// A 1-minute load average from this much up means other programs used at least one core's
/// worth of CPU when the benchmark started, runnable threads.
pub const BUSY_LOAD: f64 = 1.0;

/// Fewer runs than this give no usable spread.
pub const MIN_TRUSTED_RUNS: usize = 3;

/// What kind of reason not to trust a figure; `Display` and JSON give its name
/// (`debug_build`, `busy`, ...), which scripts match on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarningKind {
    /// Not a release build.
    DebugBuild,
    /// Other programs were using the CPU at the start ([`BUSY_LOAD`]).
    Busy,
    /// Fewer than [`MIN_TRUSTED_RUNS`] timed runs per test.
    FewRuns,
    /// More threads than logical cores.
    Oversubscribed,
    /// A run faster than [`SHORT_RUN_SECONDS`].
    ShortRun,
    /// Runs of one test further apart than [`MAX_SPREAD`].
    Spread,
}

impl WarningKind {
    /// The name in reports: "debug_build", "busy", "few_runs", "oversubscribed",
    /// "short_run" or "spread".
    pub fn name(self) -> &'static str {
        match self {
            WarningKind::DebugBuild => "debug_build",
            WarningKind::Busy => "busy",
            WarningKind::FewRuns => "few_runs",
            WarningKind::Oversubscribed => "oversubscribed",
            WarningKind::ShortRun => "short_run",
            WarningKind::Spread => "spread",
        }
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for WarningKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A reason not to trust a figure of the report.
#[derive(Clone, Debug, Serialize)]
pub struct Warning {
    /// Kind, by name: "debug_build", "busy", "few_runs", "oversubscribed", "short_run" or
    /// "spread".
    pub kind: WarningKind,
    /// What is wrong and what to do, one line.
    pub message: String,
}

/// The trust warnings for a finished benchmark.
pub(super) fn warnings(machine: &Machine, runs: usize, tests: &[TestResult]) -> Vec<Warning> {
    let mut w = Vec::new();
    let mut push = |kind, message| w.push(Warning { kind, message });
    if machine.profile != "release" {
        push(
            WarningKind::DebugBuild,
            "this is a debug build: timings are not comparable; build with --release".into(),
        );
    }
    if let Some(load) = machine.load_average.filter(|&l| l >= BUSY_LOAD) {
        push(
            WarningKind::Busy,
            format!(
                "the load average was {load:.2} on {} logical cores when the benchmark started: other programs compete for the CPU, so times are high and scaling is understated",
                machine.logical_cores
            ),
        );
    }
    if runs < MIN_TRUSTED_RUNS {
        push(
            WarningKind::FewRuns,
            format!("only {runs} timed run(s) per test: use --runs {MIN_TRUSTED_RUNS} or more for a median and spread worth trusting"),
        );
    }
    let mut oversubscribed: Vec<usize> = tests
        .iter()
        .map(|t| t.threads)
        .filter(|&t| t > machine.logical_cores)
        .collect();
    oversubscribed.dedup();
    for threads in oversubscribed {
        push(
            WarningKind::Oversubscribed,
            format!("{threads} threads requested but the machine has {} logical cores: threads share cores", machine.logical_cores),
        );
    }
    for t in tests {
        if t.time.min_seconds < SHORT_RUN_SECONDS {
            push(
                WarningKind::ShortRun,
                format!(
                    "n = {} on {} thread(s): a run took {:.1} ms, under {:.0} ms the timing is mostly noise; use a larger workload",
                    t.n,
                    t.threads,
                    t.time.min_seconds * 1e3,
                    SHORT_RUN_SECONDS * 1e3
                ),
            );
        }
        if t.time.spread > MAX_SPREAD {
            push(
                WarningKind::Spread,
                format!(
                    "n = {} on {} thread(s): slowest run {:.0}% slower than fastest (over {:.0}%): the machine was busy or throttling, or the runs are too short",
                    t.n,
                    t.threads,
                    (t.time.spread - 1.0) * 100.0,
                    (MAX_SPREAD - 1.0) * 100.0
                ),
            );
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_print_and_serialize_as_their_names() {
        let all = [
            (WarningKind::DebugBuild, "debug_build"),
            (WarningKind::Busy, "busy"),
            (WarningKind::FewRuns, "few_runs"),
            (WarningKind::Oversubscribed, "oversubscribed"),
            (WarningKind::ShortRun, "short_run"),
            (WarningKind::Spread, "spread"),
        ];
        for (kind, name) in all {
            assert_eq!(kind.to_string(), name);
            assert_eq!(
                serde_json::to_string(&kind).expect("a name serializes"),
                format!("\"{name}\"")
            );
        }
    }
}
