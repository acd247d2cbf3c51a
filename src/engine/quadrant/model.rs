//! The quadrant engine's models: a unit's cost estimate (no table, no machine: the same
//! on every machine), and what a whole count takes before it runs (CPU time, lists, whether
//! the largest table pays). `Engine` and `cost` ask these; nothing here counts.

use super::units::{prefix_rows, Proxy};
use super::{Frame, LIST_BUDGET};

/// Node equivalents per estimated pair of a quadrant set: near a backtracking node's time at
/// n = 16 (a node is about 3 ns on a Xeon core; the estimate's seconds per pair measured
/// 4.4e-12 there), but the join gets cheaper per estimated pair as the lists grow (1.4e-12
/// at n = 20, 2e-13 at n = 24), so above n = 16 the scale overstates time. Callers use
/// only ratios within a plan; `nqueens estimate` measures seconds.
pub const QUADRANT_SCALE: f64 = 1e-3;

/// The frames of n with their estimate's precomputed factors, for estimating many units.
#[derive(Debug)]
pub(crate) struct Estimator {
    n: u32,
    frames: Vec<(Frame, Proxy)>,
}

impl Estimator {
    /// The estimator of n's units (the frames are built once).
    pub(crate) fn new(n: u32) -> Estimator {
        let frames = Frame::all(n)
            .into_iter()
            .map(|f| {
                let p = Proxy::new(&f);
                (f, p)
            })
            .collect();
        Estimator { n, frames }
    }

    /// Time of a quadrant unit, in node equivalents: its sets' estimates (see
    /// `Proxy::set`: no table, no machine) times [`QUADRANT_SCALE`].
    pub(crate) fn unit(&self, frame: u16, prefix: u32) -> f64 {
        let (f, proxy) = &self.frames[frame as usize];
        let p = prefix_rows(self.n, f.rows().len() as u32);
        f.estimate_unit(proxy, p, prefix) * QUADRANT_SCALE
    }

    /// A quadrant unit's weight in `nqueens estimate`'s draw (see `Proxy::draw_weight`;
    /// on its own scale, not node equivalents).
    pub(crate) fn draw_weight(&self, frame: u16, prefix: u32) -> f64 {
        let (f, proxy) = &self.frames[frame as usize];
        let p = prefix_rows(self.n, f.rows().len() as u32);
        f.draw_weight_unit(proxy, p, prefix)
    }
}

/// CPU seconds of a whole quadrant count of n = 16, 17, ..., 28, as `nqueens estimate N -t 2`
/// measured them on a 2-core Intel Xeon model 167 (AVX-512 VPOPCNTDQ, the machine model of
/// issue 28's table) on 2026-12-05 (10:10-10:30 UTC) with the build of commit ca464dd (the
/// pieces' transposes and chunk tables in AVX2, the halves' table prefetch): n = 16..21
/// with `--seconds 20 --seed 100` (n = 20: 70.4 s, where `count 20 -t 2` took 70.6 and
/// 72.6 s of user CPU), n = 22 and 23 `--seconds 60 --seed 100` (2,944 and 25,996 s:
/// 1.09 and 1.07 ns a solution), n = 24..27 the defaults with seed 1 (68.3 CPU-hours,
/// 497 hours, 0.584 and 3.60 CPU-years), n = 28 the mean of seeds 1 and 2 (64.6 and 61.2
/// CPU-years). The one calibration of the command line's long-run warning and `plan
/// --stats`; `estimate` measures the machine it runs on, and this one drifts by 10-20% in
/// a day (the build before these changes measured 1.34 and 1.33 ns at n = 22 and 23 at
/// 09:10 and 1.19 and 1.21 ns at 10:00).
///
/// The fits before were on an AMD EPYC Zen 4 (2026-12-04 and 05, commits 834ad75 to
/// d5137c3): 1.07 CPU-hours at n = 22, 9.26 at 23, 72.0 at 24, 561 at 25, 0.67, 4.26 and
/// 80 CPU-years at 26, 27 and 28. Since then the code became 5-15% cheaper and the refit
/// moved to the machine; against this one's estimates the old table was 5-34%
/// high (n = 22 and 23 by 31% and 28%, n = 28 by 27%). The test
/// `the_time_model_follows_the_measured_time` (tests/cli_frontier.rs, ignored: it times)
/// fails when the engine gets 2x faster or slower and this table is not refitted.
const QUADRANT_CPU_SECONDS: [f64; 13] = [
    0.0746, 1.19, 2.18, 28.4, 70.4, 700.0, 2_944.0, 25_996.0, 2.458e5, 1.790e6, 1.842e7, 1.135e8,
    1.985e9,
];

/// Rough CPU seconds of a whole quadrant count of n: the measured table above for
/// n = 16..28; elsewhere the backtracking model's growth from n = 16, taken as 4x faster
/// (measured 3.2x to 5x at n = 16..20 on an AMD EPYC).
pub(crate) fn cpu_seconds(n: u32) -> f64 {
    match QUADRANT_CPU_SECONDS.get((n as usize).wrapping_sub(16)) {
        Some(&cpu) => cpu,
        None => crate::engine::backtrack::scaled_from_16(0.7 / 4.0, n),
    }
}

/// Bytes of work lists one thread holds at n: the east and west lists of one set E and
/// their sorted copies, 24 bytes per pattern, at about 51,000 patterns per set at n = 20,
/// and 2.45x more per n (measured 1,500 at n = 16, 8,400 at n = 18), 2.75x per n above
/// n = 20 (measured 347,000 at n = 22 and 2.68 million at n = 24); three times the mean for
/// the largest sets; at most 1 GiB ([`LIST_BUDGET`]), because from n = 26 a set whose lists
/// would pass it is counted in parts (a sample of one whole n = 28 set on 2 threads once
/// passed 17 GB).
pub(crate) fn list_bytes(n: u32) -> u64 {
    whole_list_bytes(n).min(LIST_BUDGET)
}

/// [`list_bytes`] without the cut into parts: what one thread's lists take when every set
/// is joined whole (n = 26: about 2.6 GB; n = 28: about 20 GB).
pub(crate) fn whole_list_bytes(n: u32) -> u64 {
    let mean = if n <= 20 {
        51_000.0 * 2.45f64.powi(n as i32 - 20)
    } else {
        51_000.0 * 2.75f64.powi(n as i32 - 20)
    };
    (3.0 * 24.0 * mean) as u64
}

/// Whether building the quadrant table for n pays for itself in a run of about
/// `cpu_seconds` of counting on `threads` threads (a shard of the plan, say).
///
/// Only the h = 12 table (n = 24, 25) can fail to. Building it finds 633 million
/// placements on one core and writes 5 GB: 10.2-10.5 s of wall time on an Intel Xeon model
/// 167 core (2026-12-06, row set by row set: `QuadrantTable::build_until`; the build
/// before, two walks of the whole square, took 28-33 s there and 24-28 s on a Zen 4 core),
/// the other threads idle. Whether it then saves anything depends on n,
/// measured that day (AMD EPYC Zen 4, `-t 1`, one process at a time, the same shards with
/// and without the table, the build's own time subtracted):
///
/// - *n = 24: never.* Six random shards of 1/20,000 counted 0.7% to 7.6% slower with the
///   table (median 5.7%): n = 24's sets are few and long, the halves are about a tenth of
///   a set, and since they are paired with AVX2 a search of them costs less than reading
///   them from 5 GB. (On the Intel Xeon model 207 of the first measurement, before that
///   pairing, the table saved about 15%.)
/// - *n = 25: long runs.* Three shards of 1/200,000 counted 3.6%, 5% and 9% faster with
///   it: odd frames cut the work into many short sets, whose halves are a quarter of the
///   time. A run of W wall seconds of counting gains about 0.06 W, so the table pays
///   when that exceeds its 11 s of building: W > 180 s (on 2 threads, a shard of about
///   1/5,000 of the plan or more; with the 26 s of the build before, W > 430 s). Checked
///   at that size (Intel Xeon model 167, 2026-12-06, one run each, one after the other):
///   `count 25 --shard 1234/4000 -t 2` built the table and took 210 s of wall time and
///   401 s of CPU (peak 5.3 GB), and with `--max-memory 3G` (no table) 225 s and 441 s.
///
/// The h <= 11 tables (550 MB and about 1 s at h = 11) are always built: at n = 23 the
/// same shard took 17.3 s with the table and 20.9 s without (`--max-memory 400M`), at
/// n = 22 22.5 s against 23.8 s.
pub(crate) fn table_pays(n: u32, cpu_seconds: f64, threads: usize) -> bool {
    const BUILD_SECONDS_H12: f64 = 11.0;
    const GAIN_N25: f64 = 0.06;
    match n {
        24 => false,
        25 => GAIN_N25 * cpu_seconds / threads.max(1) as f64 > BUILD_SECONDS_H12,
        _ => true, // a small table, or none (n >= 26)
    }
}

/// Rough seconds of one unit of the quadrant plan of n on one core, for the local runner's
/// batch size. Not fitted to this engine: it is the backtracking engine's unit model
/// (`backtrack::unit_seconds`), which the batch rule was sized with and which has served
/// both engines since (it gives batches of 256 units at n = 16 and of one unit from n = 22,
/// where a quadrant unit takes seconds).
pub(crate) fn unit_seconds(n: u32) -> f64 {
    crate::engine::backtrack::unit_seconds(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_five_gigabyte_table_is_built_only_for_runs_it_shortens() {
        // n = 24 counts faster without it, however long the run.
        assert!(
            !table_pays(24, cpu_seconds(24), 2),
            "a whole count of n = 24"
        );
        assert!(!table_pays(24, cpu_seconds(24) / 20_000.0, 2));
        let whole = cpu_seconds(25);
        assert!(table_pays(25, whole, 64), "a whole count of n = 25");
        assert!(
            !table_pays(25, whole / 200_000.0, 2),
            "a shard of 1/200,000"
        );
        assert!(
            table_pays(25, whole / 1_000.0, 2),
            "a shard of 1/1,000: 17 minutes on 2 threads"
        );
        // The same shard on more threads ends sooner, so it gains less from the table.
        assert!(table_pays(25, 10_000.0, 2) && !table_pays(25, 10_000.0, 64));
        // Smaller tables are always built.
        assert!(table_pays(22, 0.1, 64) && table_pays(23, 0.0, 1));
    }

    #[test]
    fn list_estimate_matches_the_measured_means() {
        // 3 x 24 bytes x the mean patterns per set: 1,400 at n = 16, 8,500 at 18.
        assert_eq!(list_bytes(20), 3_672_000);
        assert!((90_000..120_000).contains(&list_bytes(16)));
        // n = 24: 2.68 million patterns measured per set, 3 x 24 bytes each at most.
        assert!((150 << 20..300 << 20).contains(&list_bytes(24)));
    }
}
