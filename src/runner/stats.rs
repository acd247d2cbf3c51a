//! The arithmetic behind `nqueens bench` and `nqueens plan --stats`, apart from any
//! formatting: timing statistics of repeated runs ([`Sample`]), rates and scaling
//! ([`per_second`], [`per_hour`], [`speedup`], [`efficiency`]), and the spread and makespan
//! of unit costs ([`CostSpread`], [`Makespan`]).
//!
//! It lives with the runners because it measures what they do (wall times of counts, the
//! schedule [`super::schedule::list_schedule`] reaches), and it takes only numbers, so a second
//! counting engine changes nothing here. Statistics follow hyperfine (`benchmark_result.rs`):
//! the median is the figure to quote, min and max show the noise.

use serde::Serialize;

use super::schedule::list_schedule;

/// Timed wall times of repeated runs and their summary.
#[derive(Clone, Debug, Serialize)]
pub struct Sample {
    /// Wall time of each timed run, in order, seconds.
    pub runs_seconds: Vec<f64>,
    /// Median of the runs, seconds (the figure to quote).
    pub median_seconds: f64,
    /// Fastest run, seconds.
    pub min_seconds: f64,
    /// Slowest run, seconds.
    pub max_seconds: f64,
    /// Slowest over fastest run, ratio (1.0 = no noise).
    pub spread: f64,
}

impl Sample {
    /// Summarises `runs_seconds`: the median (the mean of the middle two for an even count),
    /// the extremes and their ratio (infinite when the fastest run took 0 s).
    ///
    /// # Panics
    /// If `runs_seconds` is empty.
    pub fn of(runs_seconds: Vec<f64>) -> Sample {
        assert!(!runs_seconds.is_empty(), "a sample has at least one run");
        let mut sorted = runs_seconds.clone();
        sorted.sort_by(f64::total_cmp);
        let mid = sorted.len() / 2;
        let median = if sorted.len() % 2 == 1 {
            sorted[mid]
        } else {
            (sorted[mid - 1] + sorted[mid]) / 2.0
        };
        let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
        Sample {
            runs_seconds,
            median_seconds: median,
            min_seconds: min,
            max_seconds: max,
            spread: if min > 0.0 { max / min } else { f64::INFINITY },
        }
    }

    /// The sample of running several things one after another: run i takes the sum of
    /// their i-th runs (a benchmark workload run is one count of each of its sizes).
    ///
    /// # Panics
    /// If `runs` is 0 or a sample has fewer than `runs` runs.
    pub fn summed(parts: &[&Sample], runs: usize) -> Sample {
        Sample::of(
            (0..runs)
                .map(|i| parts.iter().map(|p| p.runs_seconds[i]).sum())
                .collect(),
        )
    }
}

/// `amount` per second over `seconds`; 0 when the time is 0.
pub fn per_second(amount: u128, seconds: f64) -> f64 {
    if seconds > 0.0 {
        amount as f64 / seconds
    } else {
        0.0
    }
}

/// How many runs of `seconds` each fit in an hour (the benchmark score).
pub fn per_hour(seconds: f64) -> f64 {
    3600.0 / seconds
}

/// Speed-up of a run of `seconds` over a baseline of `base_seconds`, ratio.
pub fn speedup(base_seconds: f64, seconds: f64) -> f64 {
    base_seconds / seconds
}

/// Parallel efficiency: `speedup` over the `threads` that reached it (1.0 = perfect).
pub fn efficiency(speedup: f64, threads: usize) -> f64 {
    speedup / threads as f64
}

/// The `p`-th percentile of `sorted` (ascending) by the lower nearest rank: the entry at
/// index ⌊(len − 1) · p / 100⌋, so p = 0 is the minimum and p = 100 the maximum.
///
/// # Panics
/// If `sorted` is empty.
pub fn percentile(sorted: &[u64], p: usize) -> u64 {
    debug_assert!(sorted.is_sorted(), "percentile needs sorted costs");
    sorted[(sorted.len() - 1) * p / 100]
}

/// How unit costs are spread: their sum, percentiles and the largest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostSpread {
    /// Sum of the costs.
    pub total: u128,
    /// Median ([`percentile`] 50).
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Largest cost.
    pub max: u64,
}

impl CostSpread {
    /// The spread of `costs`, in any order.
    ///
    /// # Panics
    /// If `costs` is empty.
    pub fn of(costs: &[u64]) -> CostSpread {
        let mut sorted = costs.to_vec();
        sorted.sort_unstable();
        CostSpread {
            total: costs.iter().map(|&c| u128::from(c)).sum(),
            p50: percentile(&sorted, 50),
            p90: percentile(&sorted, 90),
            p99: percentile(&sorted, 99),
            max: *sorted.last().expect("costs are not empty"),
        }
    }

    /// The largest cost's share of the total, percent (0 when the total is 0).
    pub fn max_share_percent(&self) -> f64 {
        if self.total > 0 {
            100.0 * self.max as f64 / self.total as f64
        } else {
            0.0
        }
    }
}

/// The makespan of greedy list scheduling ([`list_schedule`]) on some workers, and how
/// close it comes to the best any schedule could do.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Makespan {
    /// Workers.
    pub workers: usize,
    /// Makespan, cost units (nodes).
    pub makespan: u128,
    /// Total cost / (workers × makespan), 0..1.
    pub efficiency: f64,
    /// Best efficiency any schedule can reach: total / (workers × max(total/workers, largest unit)).
    pub bound: f64,
}

impl Makespan {
    /// Replays `costs`, handed out in the given order, on `workers` workers. With no cost
    /// at all both ratios are 1.
    pub fn replay(costs: &[u64], workers: usize) -> Makespan {
        let total: u128 = costs.iter().map(|&c| u128::from(c)).sum();
        let largest = costs.iter().copied().max().unwrap_or(0);
        let (_, makespan) = list_schedule(costs, workers);
        // No schedule ends before the average load, nor before its largest unit.
        let ideal = (total as f64 / workers as f64).max(largest as f64);
        let ratio = |t: f64| {
            if t > 0.0 {
                total as f64 / (workers as f64 * t)
            } else {
                1.0
            }
        };
        Makespan {
            workers,
            makespan,
            efficiency: ratio(makespan as f64),
            bound: ratio(ideal),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarises_odd_and_even_samples() {
        let s = Sample::of(vec![3.0, 1.0, 2.0]);
        assert_eq!(
            (s.median_seconds, s.min_seconds, s.max_seconds, s.spread),
            (2.0, 1.0, 3.0, 3.0)
        );
        assert_eq!(Sample::of(vec![4.0, 1.0, 2.0, 3.0]).median_seconds, 2.5);
        assert_eq!(
            s.runs_seconds,
            vec![3.0, 1.0, 2.0],
            "runs stay in measuring order"
        );
    }

    #[test]
    fn a_zero_run_has_infinite_spread_and_no_rate() {
        let s = Sample::of(vec![0.0, 1.0]);
        assert_eq!((s.min_seconds, s.spread), (0.0, f64::INFINITY));
        assert_eq!(per_second(10, s.min_seconds), 0.0);
    }

    #[test]
    fn summed_samples_add_run_by_run() {
        let a = Sample::of(vec![1.0, 1.0, 4.0]);
        let b = Sample::of(vec![3.0, 2.0, 1.0]);
        let s = Sample::summed(&[&a, &b], 3);
        assert_eq!(s.runs_seconds, vec![4.0, 3.0, 5.0]);
        assert_eq!(
            s.median_seconds, 4.0,
            "the median of the sums, not the sum of medians"
        );
    }

    #[test]
    fn scaling_divides_by_the_baseline_and_threads() {
        let s = speedup(4.0, 2.0);
        assert_eq!((s, efficiency(s, 2), efficiency(s, 4)), (2.0, 1.0, 0.5));
        assert_eq!((per_hour(4.0), per_hour(2.0)), (900.0, 1800.0));
    }

    #[test]
    fn percentiles_take_the_lower_nearest_rank() {
        let costs: Vec<u64> = (1..=200).collect();
        assert_eq!(percentile(&costs, 0), 1);
        assert_eq!(percentile(&costs, 50), 100); // index 199 * 50 / 100 = 99
        assert_eq!(percentile(&costs, 90), 180); // index 179
        assert_eq!(percentile(&costs, 99), 198); // index 197
        assert_eq!(percentile(&costs, 100), 200);
        assert_eq!(percentile(&[7], 99), 7);
    }

    #[test]
    fn cost_spread_ignores_order() {
        let s = CostSpread::of(&[9, 1, 5, 3, 7]);
        assert_eq!(
            s,
            CostSpread {
                total: 25,
                p50: 5,
                p90: 7,
                p99: 7,
                max: 9
            }
        );
        assert_eq!(s.max_share_percent(), 36.0);
        assert_eq!(CostSpread::of(&[0, 0]).max_share_percent(), 0.0);
    }

    #[test]
    fn makespan_is_bounded_by_the_largest_unit_and_the_average() {
        // One big unit dominates: 4 workers cannot beat its 10.
        let m = Makespan::replay(&[10, 1, 1, 1, 1], 4);
        assert_eq!(m.makespan, 10);
        assert_eq!((m.efficiency, m.bound), (14.0 / 40.0, 14.0 / 40.0));
        // Largest-first order, an imperfect greedy result: 3,3,2,2,2 on 2 workers gives 7,
        // the average (6) is reachable (3+3 | 2+2+2).
        let m = Makespan::replay(&[3, 3, 2, 2, 2], 2);
        assert_eq!((m.makespan, m.efficiency, m.bound), (7, 12.0 / 14.0, 1.0));
        // Nothing to do is perfectly efficient.
        let m = Makespan::replay(&[0, 0], 3);
        assert_eq!((m.makespan, m.efficiency, m.bound), (0, 1.0, 1.0));
    }

    #[test]
    fn more_workers_never_lengthen_the_makespan_of_equal_units() {
        let costs = vec![5u64; 12];
        let spans: Vec<u128> = (1..=12)
            .map(|w| Makespan::replay(&costs, w).makespan)
            .collect();
        assert!(spans.windows(2).all(|p| p[1] <= p[0]), "{spans:?}");
        assert_eq!((spans[0], spans[11]), (60, 5));
    }
}

/// The examples that were this module's doc tests (doc tests cannot reach `pub(crate)`
/// items).
#[cfg(test)]
mod examples {
    #[test]
    fn sample_of_example() {
        use crate::runner::stats::Sample;
        let s = Sample::of(vec![3.0, 1.0, 2.0]);
        assert_eq!(
            (s.median_seconds, s.min_seconds, s.max_seconds, s.spread),
            (2.0, 1.0, 3.0, 3.0)
        );
    }

    #[test]
    fn sample_summed_example() {
        use crate::runner::stats::Sample;
        let (a, b) = (Sample::of(vec![1.0, 2.0]), Sample::of(vec![3.0, 3.0]));
        assert_eq!(Sample::summed(&[&a, &b], 2).runs_seconds, vec![4.0, 5.0]);
    }

    #[test]
    fn per_second_example() {
        assert_eq!(crate::runner::stats::per_second(92, 0.5), 184.0);
        assert_eq!(crate::runner::stats::per_second(92, 0.0), 0.0);
    }

    #[test]
    fn per_hour_example() {
        assert_eq!(crate::runner::stats::per_hour(4.0), 900.0);
    }

    #[test]
    fn speedup_example() {
        assert_eq!(crate::runner::stats::speedup(4.0, 2.0), 2.0);
    }

    #[test]
    fn efficiency_example() {
        assert_eq!(crate::runner::stats::efficiency(3.0, 4), 0.75);
    }

    #[test]
    fn percentile_example() {
        let costs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        assert_eq!(crate::runner::stats::percentile(&costs, 50), 5);
        assert_eq!(crate::runner::stats::percentile(&costs, 99), 9);
    }

    #[test]
    fn cost_spread_of_example() {
        use crate::runner::stats::CostSpread;
        let s = CostSpread::of(&[4, 1, 3, 2]);
        assert_eq!((s.total, s.p50, s.max), (10, 2, 4));
        assert_eq!(s.max_share_percent(), 40.0);
    }

    #[test]
    fn makespan_replay_example() {
        use crate::runner::stats::Makespan;
        let m = Makespan::replay(&[5, 4, 3, 3], 2);
        assert_eq!((m.makespan, m.efficiency, m.bound), (8, 15.0 / 16.0, 1.0));
    }
}
