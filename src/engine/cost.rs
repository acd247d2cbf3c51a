//! A cheap estimate of what a unit costs, for progress weighting, shard balancing and
//! `nqueens plan`: a pure function of n and the unit, the same on every machine.
//!
//! # The estimate
//!
//! A border unit's search places one queen per inner row. Its cost is dominated by how many
//! partial placements survive the first rows and how much room they leave below. So we run
//! the unit's search for the first [`PROBE_ROWS`] inner rows only and weigh each surviving
//! placement by the free cells it leaves in every deeper row (zero if a row has none: that
//! subtree is dead; else the fourth root of the product of the free counts), then scale by
//! [`GROWTH`] per row not probed (units with a corner queen have one more inner row):
//!
//! `estimate = scale(n) · Σ_live (Π_rows free)^(1/4) · GROWTH^(rows − PROBE_ROWS)`
//!
//! A unit is one first-row queen of a border (plan version 2): the probe starts below it,
//! on the half-turned board the kernel searches. Good enough to weigh progress and to
//! balance shards of hundreds of units each; the makespan replay of `nqueens plan --stats`
//! can use measured costs (`--costs CHECKPOINT`) instead.
//!
//! The F180 and F90 units are small searches (a few hundredths of a percent of the nodes);
//! they get a fitted formula in n.
//!
//! The unit is "estimated nodes", calibrated so that summed over a plan it is close to the
//! real node count where it matters (estimate/real for n = 12..16: 0.50, 0.80, 1.01, 1.08,
//! 1.01); callers only rely on ratios within a plan. Below that it drifts (n = 10: 0.21).

use std::sync::atomic::{AtomicBool, Ordering};

use super::board::{columns, DiagBoard};
use super::known;
use super::plan::{Engine, Unit, UnitKind, UnitPlan};
use super::quadrant;
use super::symmetry::Transform;

/// Inner rows the probe searches before extrapolating.
pub const PROBE_ROWS: usize = 3;

/// Growth per inner row below the probe.
pub const GROWTH: f64 = 2.0;

/// Estimated cost of `unit` for board size `n`, in estimated search nodes (at least 1): one
/// unit's [`estimates`] (the tests).
#[cfg(test)]
pub fn estimate(n: u32, unit: &Unit) -> u64 {
    let frames = match unit.kind {
        UnitKind::Quadrant { .. } => frame_proxies(n),
        _ => Vec::new(),
    };
    estimate_with(&frames, n, unit)
}

fn estimate_with(frames: &[FrameProxy], n: u32, unit: &Unit) -> u64 {
    let n = n as usize;
    let est = match unit.kind {
        UnitKind::Border { .. } => {
            // Probe the board the kernel searches: the half-turned one (see
            // `Border::search_board`), with the unit's first-row queen placed.
            let queens: Vec<(usize, usize)> = unit
                .preplaced(n)
                .into_iter()
                .map(|cell| Transform::Rot180.apply(n, cell))
                .collect();
            border_estimate(n, &queens)
        }
        UnitKind::Fixed180 { .. } => half_turn_estimate(n),
        UnitKind::Fixed90 => quarter_turn_estimate(n),
        UnitKind::Quadrant { frame, prefix } => quadrant_estimate(frames, n as u32, frame, prefix),
    };
    est.max(1.0).min(u64::MAX as f64) as u64
}

/// Time of a quadrant unit, in node equivalents: its sets' estimates (see
/// `Proxy::set`: no table, no machine) times [`QUADRANT_SCALE`].
fn quadrant_estimate(frames: &[FrameProxy], n: u32, frame: u16, prefix: u32) -> f64 {
    let (f, proxy) = &frames[frame as usize];
    let p = quadrant::units::prefix_rows(n, f.rows().len() as u32);
    f.estimate_unit(proxy, p, prefix) * QUADRANT_SCALE
}

/// A frame with its estimate's precomputed factors.
type FrameProxy = (quadrant::Frame, quadrant::units::Proxy);

fn frame_proxies(n: u32) -> Vec<FrameProxy> {
    quadrant::Frame::all(n)
        .into_iter()
        .map(|f| {
            let p = quadrant::units::Proxy::new(&f);
            (f, p)
        })
        .collect()
}

/// Node equivalents per estimated pair of a quadrant set: near a backtracking node's time at
/// n = 16 (a node is about 3 ns on a Xeon core; the estimate's seconds per pair measured
/// 4.4e-12 there), but the join gets cheaper per estimated pair as the lists grow (1.4e-12
/// at n = 20, 2e-13 at n = 24), so above n = 16 the scale overstates time. Callers use
/// only ratios within a plan; `nqueens estimate` measures seconds.
pub const QUADRANT_SCALE: f64 = 1e-3;

/// The estimates of every unit of `plan`, in id order: one pass, in parallel (the quadrant
/// frames are built once). The same numbers as [`estimate`] unit by unit, and as pure a
/// function of the plan.
pub fn estimates(plan: &UnitPlan) -> Vec<u64> {
    estimates_until(plan, &super::NEVER).expect("never stopped")
}

/// [`estimates`], giving up (None) soon after `stop` becomes true (94 million units at
/// n = 64 take minutes; the flag is read per unit).
pub(crate) fn estimates_until(plan: &UnitPlan, stop: &AtomicBool) -> Option<Vec<u64>> {
    use rayon::prelude::*;
    let est = Estimator::new(plan.n(), plan.engine());
    plan.units()
        .par_iter()
        .map(|u| (!stop.load(Ordering::Relaxed)).then(|| est.of(u)))
        .collect()
}

/// [`estimate`] for many units of one plan: what it needs is prepared once.
#[derive(Debug)]
pub struct Estimator {
    n: u32,
    frames: Vec<FrameProxy>,
}

impl Estimator {
    /// An estimator for the units of `engine`'s plan of n.
    pub fn new(n: u32, engine: Engine) -> Estimator {
        let frames = match engine {
            Engine::Quadrant => frame_proxies(n),
            Engine::Backtrack => Vec::new(),
        };
        Estimator { n, frames }
    }

    /// The estimate of one unit (see [`estimate`]).
    pub fn of(&self, unit: &Unit) -> u64 {
        estimate_with(&self.frames, self.n, unit)
    }
}

/// Probe of a border unit: live placements after the first inner rows, each weighted by the
/// free cells it leaves in the rows below, extrapolated by a growth factor per row.
fn border_estimate(n: usize, queens: &[(usize, usize)]) -> f64 {
    if n < 3 {
        return 1.0;
    }
    let rows: Vec<usize> = (1..n - 1)
        .filter(|&r| queens.iter().all(|&(qr, _)| qr != r))
        .collect();
    let mut board = DiagBoard::new(n);
    for &q in queens {
        board = board.place(q);
    }
    let depth = PROBE_ROWS.min(rows.len());
    let weight = probe(&board, &rows[..depth], &rows[depth..]);
    // Calibration: the sum over a plan is within a factor 2 of the real nodes, n = 12..16.
    let scale = 0.0144 * 0.6f64.powi(n as i32 - 16);
    scale * weight * GROWTH.powi((rows.len() - depth) as i32)
}

/// Sums over the placements of one queen per row of `probe` the weight of what they leave:
/// 0 if a row of `rest` has no free cell, else the fourth root of the product of the free
/// counts of the rows of `rest`.
fn probe(board: &DiagBoard, probe_rows: &[usize], rest: &[usize]) -> f64 {
    let Some((&r, deeper)) = probe_rows.split_first() else {
        let mut w = 1.0;
        for &r in rest {
            let f = board.free(r).count_ones();
            if f == 0 {
                return 0.0;
            }
            w *= f64::from(f);
        }
        return w.sqrt().sqrt();
    };
    let mut total = 0.0;
    for c in columns(board.free(r)) {
        total += probe(&board.place((r, c)), deeper, rest);
    }
    total
}

/// An F180 unit searches n/2 rows; measured 117, 638 and 4,124 nodes per unit for
/// n = 12, 14, 16 (about 2.45x per n), a few hundredths of a percent of the plan.
fn half_turn_estimate(n: usize) -> f64 {
    117.0 * 2.45f64.powi(n as i32 - 12)
}

/// The F90 unit searches a quarter of the queens: smaller still (n = 16: 366 nodes).
fn quarter_turn_estimate(n: usize) -> f64 {
    half_turn_estimate(n) / 10.0
}

/// CPU seconds of a whole quadrant count of n = 16, 17, ..., 28, as `nqueens estimate N -t 1`
/// measured them on one core of a 2-core AMD EPYC (Zen 4, family 25 model 17, AVX-512
/// VPOPCNTDQ) on 2026-12-03 (48 units; 12 from n = 26; n = 28 with each thread's lists
/// sized from the memory, `Config::list_budget`): the one calibration of the command line's
/// long-run warning and `plan --stats`; `estimate` measures the machine it runs on. On the
/// Intel Xeon model 167 of the same day the frontier ran 10-25% faster per core. n = 24 and
/// 25 are without the 5 GB table a whole count builds (4-17% faster with it). The test
/// `the_time_model_follows_the_measured_time` (tests/cli_frontier.rs, ignored: it times)
/// fails when the engine gets 2x faster or slower and this table is not refitted.
const QUADRANT_CPU_SECONDS: [f64; 13] = [
    0.135, 1.98, 3.32, 57.5, 152.0, 1_702.0, 6_361.0, 75_220.0, 4.25e5, 4.58e6, 4.83e7, 2.455e8,
    4.59e9,
];

/// The engines' time and memory models: what a count of n will roughly take, before it
/// runs (the command line's warnings and its memory guard). Each engine's figures live
/// here, beside its cost estimate, so a caller never matches on the engine for them.
impl Engine {
    /// Rough CPU seconds of a whole count of n with this engine. Quadrant, n = 16..28: the
    /// measured table above. Otherwise calibrated on a 2-core Xeon (Sapphire Rapids class):
    /// n = 16 takes 0.7 s on one thread with backtracking; from there the time grows like
    /// the number of solutions (the known table's ratio Q(n)/Q(n-1), 6.5 at n = 17 rising to
    /// 10.5 at n = 27), and by 10.6 per n beyond the table. The quadrant engine outside its
    /// table is taken as 4x faster (measured 3.2x to 5x at n = 16..20 on an AMD EPYC).
    pub fn cpu_seconds(self, n: u32) -> f64 {
        if self == Engine::Quadrant {
            if let Some(&cpu) = QUADRANT_CPU_SECONDS.get((n as usize).wrapping_sub(16)) {
                return cpu;
            }
        }
        let mut secs = if self == Engine::Quadrant {
            0.7 / 4.0
        } else {
            0.7
        };
        for k in 17..=n {
            secs *= match (known::lookup(k), known::lookup(k - 1)) {
                (Some(a), Some(b)) => a.total as f64 / b.total as f64,
                _ => 10.6,
            };
        }
        for k in (n + 1..=16).rev() {
            secs /= match (known::lookup(k), known::lookup(k - 1)) {
                // Q(2) = Q(3) = 0: a ratio of 0 would divide by zero (n = 1 was "inf years").
                (Some(a), Some(b)) if a.total > 0 && b.total > 0 => a.total as f64 / b.total as f64,
                _ => 8.0,
            };
        }
        secs
    }

    /// Bytes of work lists one thread holds at n (0 for backtracking, whose state is a few
    /// hundred bytes of stack). Quadrant: the east and west lists of one set E and their
    /// sorted copies, 24 bytes per pattern, at about 51,000 patterns per set at n = 20, and
    /// 2.45x more per n (measured 1,500 at n = 16, 8,400 at n = 18), 2.75x per n above n = 20
    /// (measured 347,000 at n = 22 and 2.68 million at n = 24); three times the mean for the
    /// largest sets; at most 1 GiB (`quadrant::LIST_BUDGET`), because from n = 26 a set
    /// whose lists would pass it is counted in parts (a sample of one whole n = 28 set on 2
    /// threads once passed 17 GB).
    pub fn list_bytes(self, n: u32) -> u64 {
        self.whole_list_bytes(n).min(quadrant::LIST_BUDGET)
    }

    /// [`Engine::list_bytes`] without the cut into parts: what one thread's lists take
    /// when every set is joined whole (n = 26: about 2.6 GB; n = 28: about 20 GB).
    pub fn whole_list_bytes(self, n: u32) -> u64 {
        if self == Engine::Backtrack {
            return 0;
        }
        let mean = if n <= 20 {
            51_000.0 * 2.45f64.powi(n as i32 - 20)
        } else {
            51_000.0 * 2.75f64.powi(n as i32 - 20)
        };
        (3.0 * 24.0 * mean) as u64
    }

    /// Whether building this engine's table for n pays for itself in a run of about
    /// `cpu_seconds` of counting on `threads` threads (a shard of the plan, say).
    ///
    /// Only the h = 12 table (n = 24, 25) can fail to. Building it walks 633 million
    /// placements twice on one core and writes 5 GB: 32.5 and 34.4 s of wall time
    /// (`count 24 --shard 7411/20000 -t 2` with and without `--max-memory 2G`: 53.9 against
    /// 21.4 s, 57.4 against 23.0 s), the other threads idle. It saves about 15% of the
    /// counting at n = 24 (`--shard 1234/4000 -t 2`: 252.8 s of user CPU without it,
    /// 239.4 s with it, about 30 s of which built it). A run of W wall seconds of counting
    /// gains about 0.15 W, so the table pays when 0.15 W exceeds its 33 s of building:
    /// W > 220 s. A whole count of n = 24 (days) builds it; a shard of 1/20,000 (30 s of
    /// counting) does not, and is then 2.5x faster (22 s instead of 55 s wall, measured
    /// above); 1/4,000 (2 minutes) was 11% faster without it. All figures from a 2-core
    /// Intel Xeon model 207. The h <= 11 tables (550 MB and about 3 s at h = 11, for
    /// counts of minutes at least) are always built.
    pub fn table_pays(self, n: u32, cpu_seconds: f64, threads: usize) -> bool {
        const BUILD_SECONDS_H12: f64 = 33.0;
        const GAIN_H12: f64 = 0.15;
        if self != Engine::Quadrant || n / 2 != 12 {
            return true; // a small table, or none (n >= 26)
        }
        GAIN_H12 * cpu_seconds / threads.max(1) as f64 > BUILD_SECONDS_H12
    }

    /// Bytes of the table this engine builds for n when the memory allows (None: it builds
    /// none at this n; the quadrant table exists up to h = 12, n = 25).
    pub fn table_bytes(self, n: u32) -> Option<u64> {
        match self {
            Engine::Backtrack => None,
            Engine::Quadrant => quadrant::table::QuadrantTable::bytes(n / 2),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plan::UnitPlan;

    #[test]
    fn the_five_gigabyte_table_is_built_only_for_runs_it_shortens() {
        let q = Engine::Quadrant;
        let whole = q.cpu_seconds(24);
        assert!(q.table_pays(24, whole, 2), "a whole count of n = 24");
        assert!(q.table_pays(25, q.cpu_seconds(25), 64));
        assert!(
            !q.table_pays(24, whole / 20_000.0, 2),
            "a shard of 1/20,000"
        );
        assert!(
            !q.table_pays(24, whole / 4_000.0, 2),
            "measured 11% slower with it"
        );
        assert!(
            q.table_pays(24, whole / 500.0, 2),
            "a shard of 1/500: 15 minutes"
        );
        // The same shard on more threads ends sooner, so it gains less from the table.
        assert!(q.table_pays(24, 3_000.0, 2) && !q.table_pays(24, 3_000.0, 64));
        // Smaller tables are always built; backtracking has none.
        assert!(q.table_pays(22, 0.1, 64) && q.table_pays(23, 0.0, 1));
        assert!(Engine::Backtrack.table_pays(24, 0.0, 2));
    }

    #[test]
    fn every_unit_costs_at_least_one() {
        for engine in [Engine::Backtrack, Engine::Quadrant] {
            let plan = UnitPlan::with_engine(12, engine);
            assert!(
                plan.units().iter().all(|u| estimate(12, u) >= 1),
                "{engine:?}"
            );
        }
    }

    #[test]
    fn list_estimate_matches_the_measured_means() {
        let list_bytes = |n| Engine::Quadrant.list_bytes(n);
        // 3 x 24 bytes x the mean patterns per set: 1,400 at n = 16, 8,500 at 18.
        assert_eq!(list_bytes(20), 3_672_000);
        assert!((90_000..120_000).contains(&list_bytes(16)));
        // n = 24: 2.68 million patterns measured per set, 3 x 24 bytes each at most.
        assert!((150 << 20..300 << 20).contains(&list_bytes(24)));
        assert_eq!(Engine::Backtrack.list_bytes(24), 0);
    }

    #[test]
    fn estimate_is_within_a_factor_of_two_of_the_real_nodes_where_calibrated() {
        for n in [12u32, 13] {
            let plan = UnitPlan::new(n);
            let est: u64 = plan.units().iter().map(|u| estimate(n, u)).sum();
            let real: u64 = plan.units().iter().map(|u| u.run(n as usize).nodes).sum();
            let ratio = est as f64 / real as f64;
            assert!(
                (0.4..2.5).contains(&ratio),
                "n = {n}: estimated {est}, real {real}"
            );
        }
    }

    #[test]
    fn estimate_ranks_big_units_above_small_ones() {
        // The tenth of the units with the largest estimates holds more real nodes than the
        // tenth with the smallest, by far.
        let n = 12u32;
        let plan = UnitPlan::new(n);
        let mut v: Vec<(u64, u64)> = plan
            .units()
            .iter()
            .filter(|u| matches!(u.kind, UnitKind::Border { .. }))
            .map(|u| (estimate(n, u), u.run(n as usize).nodes))
            .collect();
        v.sort_unstable();
        let tenth = v.len() / 10;
        let low: u64 = v[..tenth].iter().map(|x| x.1).sum();
        let high: u64 = v[v.len() - tenth..].iter().map(|x| x.1).sum();
        assert!(high > 5 * low, "top tenth {high} nodes, bottom tenth {low}");
    }
}
