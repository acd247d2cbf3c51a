//! `nqueens estimate N`: what a whole count of N would cost, measured on a seeded random
//! sample of its units instead of guessed, with a 95% interval.
//!
//! # The estimator
//!
//! Every unit has a deterministic weight x: its cost estimate (`engine::cost`, the same
//! numbers shards are balanced by), or on even boards from n = 26 a weight that follows the
//! time twice as closely (`engine::sample::draw_weights`: the sets' `E²·W³`, where E and
//! W are their estimated list lengths). The units, sorted by x, are laid end to end on a line of length
//! X = Σ x and cut into K strata of equal length; one point is drawn uniformly in each
//! stratum, and the unit under it is timed. A unit is hit with probability proportional to
//! x (probability proportional to size, stratified), so
//!
//! `T̂ = (X / K) · Σ_j t_j / x_j`
//!
//! is an unbiased estimate of the whole count's CPU time Σ t. Its variance is estimated
//! from the spread of the ratios t_j / x_j as if they were independent (conservative for a
//! stratified draw), and the interval is T̂ ± t(0.975, K − 1) · s.e., widened by
//! [`DRIFT`] on each side for what sampling cannot see: the machine's own drift from run
//! to run, and the warm caches of a unit timed alone.
//!
//! Units too long to time whole (from n = 24 a unit takes from seconds to an hour) are
//! themselves sampled, without bias, in two more stages: one of the unit's sets E, drawn
//! with probability proportional to its estimate (and its time scaled back by the same
//! ratio), and, inside that set's join, one piece of east masks in every `stride`,
//! scaled by the number of pieces (the pieces of a join are independent work; the join's
//! fixed part, its sort and layout, is timed apart and counted once). The halves' pattern
//! searches of the chosen set always run whole, so their memory is measured too.
//! (That sampling inside a unit is the engine's: `engine::sample::Sampler`, with the quadrant
//! engine's part in `engine::quadrant::sample`; this file draws, projects and prints.)
//!
//! Where the interval's width comes from at n = 28 (2026-12-03, Zen 4, `estimate 28` with
//! its defaults, one draw of 12 units in 53-62 s): seeds 1, 2 and 3 gave -29%/+35%,
//! -34%/+41% and -48%/+59%: the sampled ratios t_j / x_j spread with a CV of 0.27, 0.36
//! and 0.61 (the interval less [`DRIFT`], over t(0.975, 11) / √12). A probe that timed
//! each drawn unit of seed 3 three times (each time its own set and share of pieces) found
//! the repeats of a unit spread with a CV of 0.18 (rms over the 12 units; 0.04 to 0.40),
//! and the first unit a thread times up to 60% higher than its repeats: it pays the first
//! touch of its thread's lists (GBs; on a KVM machine 20 µs a page), which a count pays
//! once a thread, not once a unit. So most of the width is between units: their weights
//! (`E²·W³`) do not follow their time closely enough at n = 28, and a better weight, or
//! strata by frame and set size, is what would narrow it. More units a minute would too,
//! but a unit's halves and sort take 2-4 s of a thread whatever share of its join is timed
//! (its join: 1 s at most).
//!
//! Since 2026-12-04 (night) more units fit the minute: the units are ordered by weight once
//! ([`Strata`]) rather than once per draw (at n = 28 sorting 20 million weights took 3-5 s
//! of each draw, while the pool waited), and n = 28 draws 6 units at a time, so the last
//! draw wastes less of the time (`options::SMALL_DRAWS_FROM`): 5 draws, 30 units, in about
//! 51 s on 2 cores, where one draw of 12 took 31 s and a second rarely fit.
//!
//! Tried and not kept (2026-12-04, late; commit 14615fb with the variance printed both
//! ways): the *stratified* variance, from the spread of each stratum's ratios across the
//! draws (K strata, D draws: `(X/K)² Σ_h s_h² / D`, K(D - 1) degrees of freedom) instead of
//! the spread of all K·D ratios. It is the exact estimator for this design, and would be
//! narrower if t/x drifted with the weight from stratum to stratum; at n = 28 it does not.
//! Default `estimate 28 -t 2`, seeds 1 to 5 (5, 5, 6, 6, 5 draws of 6): sampling half-width
//! 20.6%, 16.3%, 15.5%, 12.8%, 17.1% as now, against 20.8%, 16.9%, 15.2%, 13.4%, 17.4%
//! stratified. Those runs' intervals (with [`DRIFT`]): -32%/+39%, -29%/+34%, -28%/+33%,
//! -26%/+30%, -30%/+35%: four of five within ±35%. The ratios t/x of one stratum range
//! over 0.4-3.3 times their mean in the lightest two strata and 0.5-1.9 in the others, and
//! a unit timed twice (the same unit in two runs, seeds overlapping) repeats within about
//! 25%: the weight is what misses, not the timing.
//!
//! Nor does another weight of the list lengths help (2026-12-05, Zen 4): two runs of
//! `estimate 28 -t 2 --seconds 300` (seeds 7 and 1000: 288 and 276 units; 77.4 and 77.8
//! CPU-years, 62-94, 0.95 ns a solution) printed each drawn set's time and estimated E and
//! W. The spread of t/x as the draw sees it (its CV) was 0.460 and 0.478 for `E²·W³`; the
//! best power over a grid (E^1.5..4, W^2..5) fitted on one run gave 0.416 there and 0.446
//! on the other; a fit of log t on the logs, their squares and product, and five features
//! of the rows of E, 0.39 in sample. The measured list lengths fit worse than the
//! estimated ones (0.49). The join is 98% of those sets' time, and what varies between
//! sets of equal lengths is how much their keys prune, which nothing cheaper than the join
//! tells. Not changed: at most 7% narrower.
//!
//! Since 2026-12-05 each thread takes the draws' units one at a time ([`time_units`]) rather
//! than a whole draw at once: a draw kept both threads until its slowest unit ended, and
//! the next began only if all of it fitted the time left. Default `estimate 28 -t 2`, seeds
//! 1 to 5, Intel Xeon model 167 (AVX-512), the build before and this one one after the
//! other: 24, 30, 30, 30, 30 units before (intervals -30%/+35%, -33%/+39%, -31%/+36%,
//! -27%/+32%, -28%/+33%: two of five within ±35%), 28, 34, 36, 36, 37 units now
//! (-28%/+33%, -28%/+32%, -27%/+32%, -28%/+32%, -26%/+30%: five of five). The estimates
//! (63.6-78.7 CPU-years before, 63.5-74.5 now) agree within their intervals.
//!
//! Where a count runs a frame group's units of one prefix together (odd n up to 25: the
//! group's list is searched and sorted once for its frames, `quadrant::bundles`), a drawn
//! unit is timed *in its bundle* and charged the bundle's time times its share, x_u / X_B
//! (its weight over the bundle's): a unit drawn with probability x_u / X then has the
//! ratio T_B / X_B, and the projection sums each bundle's time once, still without bias
//! (`quadrant::sample::time_in_bundle`; the test `every_units_share_of_its_bundle_sums_to_the_total`
//! checks the shares on every unit of n = 15 and 17). Before (2026-12-07), units were timed
//! alone and the estimate of those n overstated a count by the bundles' saving. Measured
//! on an AMD EPYC Zen 3 (2 cores, `-t 2`, seeds 1 and 2, the build before and this one
//! one after the other, 2026-12-07 evening), against whole counts and shards (of a first
//! form of this build, whose count ran 1-2% slower, paired; this one's runs within 1% of
//! the build before):
//!
//! | n | before | now | the count |
//! |---|---|---|---|
//! | 19 | 33.4-34.2 s | 24.9-25.6 s | `count 19 -t 2`: 24.6-25.1 s of CPU (3 runs) |
//! | 21 | 868-894 s | 679-682 s | `count 21 -t 2`: 668.8 s |
//! | 23 | 1.29-1.34 ns a solution | 1.13-1.16 ns | `count 23 --shard K/100 -t 2`, K = 19 and 13, × 100: 1.09 ns |
//! | 25 | 0.88 ns | 0.78-0.85 ns | |
//!
//! A bundle costs more to time than a unit, so fewer are timed in the default 4 s (n =
//! 25: 48 units, one draw, against 134-140; its interval -24% / +28% and -27% / +31%,
//! against -19% / +21% and -20% / +22%).
//! In a bundle's breakdown a frame's sort of its own west list counts as pair tests (see
//! `quadrant::set::BundleSet`). (These figures were measured before short units and
//! bundles were chosen by the time model, `quadrant::sample::is_short`, the same evening;
//! after it, the same commands gave n = 19 24.5-24.7 s, n = 21 668.8-669.3 s and n = 23
//! 1.09-1.15 ns.)
//!
//! The engine and table are chosen as `count` would choose them, except that a table that
//! takes more than [`TABLE_BUILD_LIMIT`] to build (h = 12, 5 GB) is not built: the sample
//! then searches the quadrants. At n = 24 a count does the same (it counts faster without
//! that table); at n = 25 a whole count builds it and counts 4-9% faster (three shards,
//! see `Engine::table_pays`), so there the estimate errs high by about that; for shards of
//! a few minutes, which do not build the table either, it does not.

use std::io::Write;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::args::EngineChoice;
use super::error::{usage, Done, Failure, Outcome};
use super::format::{bytes, duration, fine_duration};
use super::options::EstimateOptions;
use crate::engine::cost;
use crate::engine::exec::Prepared;
use crate::engine::plan::Engine;
use crate::engine::rng::SplitMix64 as Rng;
use crate::engine::sample::{Sampler, Timing, Work};
use crate::engine::Config;

/// Largest table the estimate builds, in bytes (h = 11: 550 MB, about 3 s).
pub const TABLE_BUILD_LIMIT: u64 = 1 << 30;

/// The share by which the interval is widened on each side beyond the sampling error: the
/// run-to-run drift of one whole count on a shared machine (measured here: 10-20% between
/// identical runs), and the warm caches of a unit timed alone (5-10% fast at n = 16..20).
pub const DRIFT: f64 = 0.15;

/// Most draws of K strata an estimate makes.
pub const MAX_DRAWS: u32 = 64;

/// What `estimate --json` prints.
#[derive(Serialize, Debug)]
struct Report {
    /// Board size.
    n: u32,
    /// "quadrant" or "backtrack".
    engine: Engine,
    /// The plan's id and size.
    plan_id: String,
    /// Units in the plan.
    units: usize,
    /// Units timed per draw (strata).
    sample: u32,
    /// Draws begun (each of `sample` strata, seeds `seed`, `seed` + 1, ...; the last one
    /// may be cut short by the time, see [`time_units`]).
    draws: u32,
    /// Units timed (`sample` a draw, fewer in a last draw cut short).
    units_timed: usize,
    /// Seed of the draw.
    seed: u64,
    /// Projected CPU time of the whole count, seconds of one thread.
    cpu_seconds: f64,
    /// Lower end of its 95% interval, seconds.
    cpu_seconds_low: f64,
    /// Upper end of its 95% interval, seconds.
    cpu_seconds_high: f64,
    /// Projected wall time on `threads` threads, seconds (CPU time / threads, or the
    /// longest sampled unit, or bundle a count runs a sampled unit in, if that is longer).
    wall_seconds: f64,
    /// Threads of the wall time.
    threads: usize,
    /// Estimated time of a unit: median, 99th percentile and largest seen, seconds
    /// (weighted so that they describe the plan's units, not the sample's).
    unit_seconds_p50: f64,
    /// See `unit_seconds_p50`.
    unit_seconds_p99: f64,
    /// See `unit_seconds_p50`.
    unit_seconds_max: f64,
    /// Peak resident memory of this process while sampling (the table, if built, and
    /// every thread's pattern lists), bytes.
    peak_bytes: u64,
    /// Bytes of the quadrant table a count would build under --max-memory (0: none).
    table_bytes: u64,
    /// Whether the sample used that table (tables above 1 GiB are not built here).
    table_used: bool,
    /// Wall time of the estimate itself, seconds.
    elapsed_seconds: f64,
    /// Where the time goes (quadrant engine only; null for backtracking).
    breakdown: Option<Breakdown>,
}

/// Where a quadrant count's time goes, projected from the sample like its CPU time (each
/// figure by the same estimator, `(X / K) · Σ_j c_j / x_j`).
#[derive(Serialize, Debug)]
struct Breakdown {
    /// CPU seconds of the half-board pattern searches.
    halves_seconds: f64,
    /// CPU seconds of the joins' fixed part: key choice, sort and layout.
    sort_seconds: f64,
    /// CPU seconds of the joins' pair tests.
    join_seconds: f64,
    /// (east, west) pattern pairs the joins test.
    pairs_tested: f64,
    /// Solutions (weighted by symmetry, as the count adds them): an estimate of the total.
    solutions: f64,
    /// 95% interval of `solutions` (sampling only).
    solutions_low: f64,
    /// See `solutions_low`.
    solutions_high: f64,
    /// Sets E counted.
    sets: f64,
    /// Mean east and west patterns of a set (lists before any cut into parts).
    east_per_set: f64,
    /// See `east_per_set`.
    west_per_set: f64,
    /// Pairs tested per solution.
    pairs_per_solution: f64,
    /// CPU nanoseconds per solution: the CPU time over the known total, or over the
    /// estimated one where none is known.
    cpu_ns_per_solution: f64,
}

impl Breakdown {
    fn of(n: u32, timed: &[Timed], total_x: f64, cpu: f64) -> Breakdown {
        // Projected total and 95% half-width of figure `i` (see [`Work::figures`]).
        let project = |i: usize| project(timed, total_x, |t| t.work.figures()[i]);
        let [halves, sort, join, tested, (solutions, half), sets, east, west] =
            std::array::from_fn(project);
        let known = crate::known::lookup(n).map(|k| k.total as f64);
        Breakdown {
            halves_seconds: halves.0,
            sort_seconds: sort.0,
            join_seconds: join.0,
            pairs_tested: tested.0,
            solutions,
            solutions_low: (solutions - half).max(0.0),
            solutions_high: solutions + half,
            sets: sets.0,
            east_per_set: east.0 / sets.0,
            west_per_set: west.0 / sets.0,
            pairs_per_solution: tested.0 / solutions,
            cpu_ns_per_solution: cpu * 1e9 / known.unwrap_or(solutions),
        }
    }
}

/// One timed unit.
struct Timed {
    /// The unit's estimate x.
    x: f64,
    /// Its estimated time, seconds of one thread.
    secs: f64,
    /// Seconds of one thread of the bundle a count runs it in, where it was timed as one
    /// (`Timing::batch_secs`), else `secs`.
    batch_secs: f64,
    /// Where that time went, and what it found (quadrant units; zero for others).
    work: Work,
}

/// Runs `estimate`.
pub fn run(a: &EstimateOptions) -> Outcome {
    let start = Instant::now();
    let (threads, sample) = (a.threads, a.sample);
    let resolved = a.engine.resolve(a.n, threads)?;
    let engine = resolved.engine;
    let auto = Engine::auto(a.n);
    if a.engine.engine == EngineChoice::Auto && auto != engine {
        // `count` falls back to backtracking here, the faster engine's lists not fitting;
        // timing that engine's units at this n would take hours, so say why instead.
        usage!(
            "n = {}: the {} engine's pattern lists (about {} on {threads} thread(s)) do not fit the memory allowed: use fewer --threads or a larger --max-memory, or --engine {} to estimate the backtracking engine",
            a.n,
            auto.name(),
            bytes(auto.list_bytes(a.n).saturating_mul(threads as u64)),
            engine.name()
        );
    }
    // Only an engine with a table has table bytes.
    let table_used = resolved.table_bytes > 0 && resolved.table_bytes <= TABLE_BUILD_LIMIT;
    // What a count does before its first unit (the plan, the table) is timed as is and
    // added: at n = 16 it is a third of the count.
    let clock = Instant::now();
    let plan = resolved
        .plan(a.n, &crate::engine::NEVER)?
        .expect("never stopped");
    let mut fixed = clock.elapsed().as_secs_f64();
    let costs = cost::estimates(&plan);

    // The units' shared context (the frames and, if used, the table), built and timed now.
    let clock = Instant::now();
    let config = Config {
        table_limit: if table_used { resolved.table_bytes } else { 0 },
        ..resolved.config
    };
    let prepared = Prepared::with_config(a.n, &config);
    prepared.prepare(plan.units(), &crate::engine::NEVER);
    fixed += clock.elapsed().as_secs_f64();
    let weights = crate::engine::sample::draw_weights(&plan, &costs);
    let pool = crate::runner::local::pool(threads)?;
    let strata = pool.install(|| Strata::new(&weights));
    let sampler = Sampler::new(&prepared, a.budget, &plan, &costs);
    let timed = time_units(&Schedule {
        strata: &strata,
        weights: &weights,
        sample,
        seed: a.seed,
        seconds: a.seconds,
        start,
        pool: &pool,
        time: &|i: usize, rng: &mut Rng| sampler.time_unit(&plan.units()[i], rng),
    });
    let draws = (timed.len() as u32).div_ceil(sample);
    let total_x: f64 = weights.iter().sum();
    let (projected, half) = project(&timed, total_x, |t| t.secs);
    let cpu = projected + fixed;
    let (p50, p99, max) = unit_quantiles(&timed);
    let breakdown = engine
        .labels()
        .phases
        .then(|| Breakdown::of(a.n, &timed, total_x, cpu));
    let report = Report {
        n: a.n,
        engine,
        plan_id: plan.id_hex(),
        units: plan.len(),
        sample,
        draws,
        units_timed: timed.len(),
        seed: a.seed,
        cpu_seconds: cpu,
        cpu_seconds_low: ((cpu - half) * (1.0 - DRIFT)).max(0.0),
        cpu_seconds_high: (cpu + half) * (1.0 + DRIFT),
        wall_seconds: wall_seconds(cpu, threads, &timed),
        threads,
        unit_seconds_p50: p50,
        unit_seconds_p99: p99,
        unit_seconds_max: max,
        peak_bytes: peak_rss().unwrap_or(0),
        table_bytes: resolved.table_bytes,
        table_used,
        elapsed_seconds: start.elapsed().as_secs_f64(),
        breakdown,
    };
    print(&report, a.json)?;
    Ok(Done::Ok)
}

fn print(r: &Report, json: bool) -> Result<(), Failure> {
    let mut out = super::error::stdout();
    if json {
        writeln!(out, "{}", serde_json::to_string(r)?)?;
        return Ok(());
    }
    let table = if r.table_bytes == 0 {
        "none (quadrants searched per set)".to_string()
    } else if r.table_used {
        format!("{} (built and used)", bytes(r.table_bytes))
    } else {
        format!(
            "{} (a count builds it; this sample searched the quadrants instead: 4-17% slower, as small shards do)",
            bytes(r.table_bytes)
        )
    };
    writeln!(
        out,
        "n = {}, engine {}, plan {} ({} units), {} units timed in {} draw{} of {} (seed {}) in {}",
        r.n,
        r.engine.name(),
        r.plan_id,
        r.units,
        r.units_timed,
        r.draws,
        if r.draws == 1 { "" } else { "s" },
        r.sample,
        r.seed,
        duration(r.elapsed_seconds)
    )?;
    writeln!(
        out,
        "CPU time  {}   95% interval {} .. {}",
        duration(r.cpu_seconds),
        duration(r.cpu_seconds_low),
        duration(r.cpu_seconds_high)
    )?;
    writeln!(
        out,
        "wall time {} on {} thread(s)",
        duration(r.wall_seconds),
        r.threads
    )?;
    writeln!(
        out,
        "unit time median {}, p99 {}, largest seen {}",
        fine_duration(r.unit_seconds_p50),
        fine_duration(r.unit_seconds_p99),
        fine_duration(r.unit_seconds_max)
    )?;
    writeln!(
        out,
        "memory    peak {} (this process), table {table}",
        bytes(r.peak_bytes)
    )?;
    if let Some(b) = &r.breakdown {
        let phases = b.halves_seconds + b.sort_seconds + b.join_seconds;
        let pct = |x: f64| 100.0 * x / phases;
        writeln!(
            out,
            "time goes to half patterns {:.0}%, sort and layout {:.0}%, pair tests {:.0}%; {:.3} ns of CPU a solution",
            pct(b.halves_seconds),
            pct(b.sort_seconds),
            pct(b.join_seconds),
            b.cpu_ns_per_solution
        )?;
        writeln!(
            out,
            "work      {:.1} pairs tested a solution; {:.3e} sets of {:.3e} east and {:.3e} west patterns (mean); solutions {:.3e} (95%: {:.3e} .. {:.3e})",
            b.pairs_per_solution,
            b.sets,
            b.east_per_set,
            b.west_per_set,
            b.solutions,
            b.solutions_low,
            b.solutions_high
        )?;
    }
    Ok(())
}

/// What [`time_units`] draws and times, and for how long.
struct Schedule<'a> {
    strata: &'a Strata,
    weights: &'a [f64],
    /// Strata a draw (K).
    sample: u32,
    seed: u64,
    /// The whole command's time (see `EstimateOptions::seconds`), from `start`.
    seconds: f64,
    start: Instant,
    pool: &'a rayon::ThreadPool,
    /// Times unit i of the plan (its estimated seconds, and where they went).
    time: &'a (dyn Fn(usize, &mut Rng) -> Timing + Sync),
}

/// Times units on every thread of the pool until the next would end past the schedule's
/// seconds: draw d (seed `seed + d`) of K strata, then draw d + 1, and so on, each thread
/// taking the next unit as soon as it is free. The first draw is always timed whole.
///
/// Why one queue and not whole draws (as before 2026-12-05): a draw of K units kept both
/// threads until its slowest unit ended, and the next draw began only if all of it fitted
/// the time left. At n = 28 a unit takes 2-5 s of a thread (its halves and sort whole,
/// a share of its join), so on 2 cores a draw of 6 took about 9 s and the last 5-10 s of
/// the minute timed nothing (Intel Xeon model 167, `estimate 28 -t 2 --seed 1`: 4 draws,
/// 24 units, in 45.8 of 55 s).
///
/// Still unbiased: every unit timed was drawn with probability proportional to x, whatever
/// draw it came from, so the mean of the t/x stays unbiased when the last draw is cut
/// short. The units of a draw are begun in an order shuffled by the draw's seed, so a cut
/// draw keeps a random choice of its strata (not always its lightest ones). Whether a unit
/// is begun depends only on the clock, never on the unit.
fn time_units(s: &Schedule) -> Vec<Timed> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Mutex;
    let k = s.sample as usize;
    let next = AtomicUsize::new(0);
    let over = AtomicBool::new(false);
    let done = Mutex::new(Timings::default());
    let lock = || done.lock().unwrap_or_else(|e| e.into_inner());
    let fits = || {
        let t = lock();
        let per_unit = t.busy / f64::from(t.units.max(1));
        s.start.elapsed().as_secs_f64() + per_unit <= s.seconds
    };
    let worker = || {
        while !over.load(Ordering::Relaxed) {
            let ticket = next.fetch_add(1, Ordering::Relaxed);
            let d = ticket / k;
            if d >= MAX_DRAWS as usize || (d > 0 && !fits()) {
                over.store(true, Ordering::Relaxed);
                break;
            }
            let seed = s.seed.wrapping_add(d as u64);
            let j = shuffled(k, seed)[ticket % k];
            let i = s.strata.draw(s.sample, seed)[j];
            // The unit's own draws (its set, its pieces): the same as before the queue for
            // the same seed and stratum.
            let mut rng = Rng::new(seed ^ 0x5851_f42d_4c95_7f2d ^ (j as u64) << 20);
            let clock = Instant::now();
            let Timing {
                secs,
                batch_secs,
                work,
            } = (s.time)(i, &mut rng);
            let took = clock.elapsed().as_secs_f64();
            let x = s.weights[i];
            let mut t = lock();
            t.timed.push((
                ticket,
                Timed {
                    x,
                    secs,
                    batch_secs,
                    work,
                },
            ));
            t.busy += took;
            t.units += 1;
        }
    };
    s.pool.broadcast(|_| worker());
    let mut timed = done.into_inner().unwrap_or_else(|e| e.into_inner()).timed;
    timed.sort_by_key(|t| t.0);
    timed.into_iter().map(|t| t.1).collect()
}

/// What the threads of [`time_units`] have timed so far.
#[derive(Default)]
struct Timings {
    /// Each unit with its place in the queue (draw d's j-th unit begun: d·K + j).
    timed: Vec<(usize, Timed)>,
    /// Seconds of a thread the units took to time, and how many.
    busy: f64,
    units: u32,
}

/// 0..k in an order shuffled by `seed` (Fisher-Yates).
fn shuffled(k: usize, seed: u64) -> Vec<usize> {
    let mut rng = Rng::new(seed ^ 0x2545_f491_4f6c_dd1d);
    let mut order: Vec<usize> = (0..k).collect();
    for i in (1..k).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    order
}

/// The units laid end to end by estimate, smallest first: what each stratified draw cuts
/// into K equal stretches ([`Strata::draw`]). Made once per `estimate`: at n = 28 ordering
/// the plan's 20 million units takes seconds, which each draw of 12 units paid again before
/// (2026-12-04, Zen 4: a third of `estimate 28`'s sampling time, one thread busy and the
/// other idle).
struct Strata {
    /// Unit indices by weight (ties by index); u32 as the plan's unit ids (4 bytes, not 8,
    /// a unit: 80 MB held for the whole estimate at n = 28).
    order: Vec<u32>,
    /// `ends[i]`: the weights of `order[..=i]` summed.
    ends: Vec<f64>,
}

impl Strata {
    fn new(weights: &[f64]) -> Strata {
        let units = u32::try_from(weights.len()).expect("a plan's unit ids are u32");
        let mut order: Vec<u32> = (0..units).collect();
        // No two units compare equal (ties go by index), so the unstable sort gives the
        // one order; in parallel, on the pool's threads.
        order.par_sort_unstable_by(|&a, &b| {
            weights[a as usize]
                .total_cmp(&weights[b as usize])
                .then(a.cmp(&b))
        });
        let mut ends = Vec::with_capacity(order.len());
        let mut acc = 0.0f64;
        for &i in &order {
            acc += weights[i as usize];
            ends.push(acc);
        }
        Strata { order, ends }
    }

    /// The stratified draw: K points, one uniform in each of K equal stretches of the
    /// units laid end to end, and the unit index under each.
    fn draw(&self, k: u32, seed: u64) -> Vec<usize> {
        let total = self.ends.last().copied().unwrap_or(0.0);
        let mut rng = Rng::new(seed);
        (0..k)
            .map(|j| {
                let point = (f64::from(j) + rng.unit()) / f64::from(k) * total;
                let pos = self
                    .ends
                    .partition_point(|&e| e <= point)
                    .min(self.order.len() - 1);
                self.order[pos] as usize
            })
            .collect()
    }
}

/// The projected wall time of a count on `threads` threads: its CPU spread over them, but
/// no less than the longest batch seen, since a unit, or the bundle a count runs it in,
/// takes one thread (`Timing::batch_secs`; a bundled unit's own `secs` is only its share).
fn wall_seconds(cpu: f64, threads: usize, timed: &[Timed]) -> f64 {
    timed
        .iter()
        .map(|t| t.batch_secs)
        .fold(cpu / threads.max(1) as f64, f64::max)
}

/// Weighted quantiles of the unit times: a unit drawn with probability ∝ x stands for
/// 1/x units of the plan.
fn unit_quantiles(timed: &[Timed]) -> (f64, f64, f64) {
    let mut v: Vec<(f64, f64)> = timed.iter().map(|t| (t.secs, 1.0 / t.x)).collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = v.iter().map(|x| x.1).sum();
    let at = |q: f64| {
        let mut acc = 0.0;
        for &(s, w) in &v {
            acc += w;
            if acc >= q * total {
                return s;
            }
        }
        v.last().map_or(0.0, |x| x.0)
    };
    (at(0.5), at(0.99), v.last().map_or(0.0, |x| x.0))
}

/// The projection of a figure c over the whole plan, `(X / K) · Σ_j c_j / x_j` (see the module
/// doc), and the half-width of its 95% interval from the spread of the c_j / x_j (sampling
/// only).
fn project(timed: &[Timed], total_x: f64, c: impl Fn(&Timed) -> f64) -> (f64, f64) {
    let k = timed.len() as f64;
    let r: Vec<f64> = timed.iter().map(|t| c(t) / t.x).collect();
    let mean = r.iter().sum::<f64>() / k;
    let var = r.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (k - 1.0);
    (
        total_x * mean,
        t_quantile(timed.len() - 1) * total_x * (var / k).sqrt(),
    )
}

/// Student's t quantile at 0.975 for `df` degrees of freedom (table, then 1.96).
fn t_quantile(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        31..=60 => 2.0,
        _ => 1.96,
    }
}

/// Peak resident set of this process (VmHWM), where /proc tells it.
fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kb: u64 = line.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_draw_hits_units_in_proportion_to_their_estimate() {
        // One unit holds 90% of the estimate: 9 of 10 strata fall on it.
        let costs = [10.0, 900.0, 50.0, 40.0];
        let strata = Strata::new(&costs);
        let picks = strata.draw(10, 7);
        assert_eq!(picks.iter().filter(|&&i| i == 1).count(), 9);
        assert!(picks.iter().all(|&i| i < costs.len()));
        // The strata are made once and drawn from many times: the same seed, the same units.
        assert_eq!(strata.draw(10, 7), picks);
        // Equal weights are laid end to end by index: one unit a stratum, in order.
        assert_eq!(Strata::new(&[5.0; 6]).draw(6, 3), [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_draw_begins_its_strata_in_a_shuffled_order() {
        // Each order is 0..k once; the same seed gives the same order, and over seeds
        // every stratum comes first sometimes (a draw cut short keeps a random choice of
        // strata, not always the lightest).
        let mut first = [0u32; 6];
        for seed in 0..600 {
            let order = shuffled(6, seed);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 1, 2, 3, 4, 5], "seed {seed}");
            assert_eq!(shuffled(6, seed), order);
            first[order[0]] += 1;
        }
        assert!(first.iter().all(|&c| (60..=140).contains(&c)), "{first:?}");
        assert_eq!(shuffled(1, 9), [0]);
    }

    #[test]
    fn weighted_quantiles_describe_the_plan_not_the_sample() {
        // Two small units (x = 1, 1 s) stand for many more units than the big one (x = 100).
        let timed = [
            Timed {
                x: 1.0,
                secs: 1.0,
                batch_secs: 1.0,
                work: Work::default(),
            },
            Timed {
                x: 1.0,
                secs: 1.0,
                batch_secs: 1.0,
                work: Work::default(),
            },
            Timed {
                x: 100.0,
                secs: 100.0,
                batch_secs: 100.0,
                work: Work::default(),
            },
        ];
        let (p50, _, max) = unit_quantiles(&timed);
        assert_eq!((p50, max), (1.0, 100.0));
    }

    #[test]
    fn the_wall_time_is_no_shorter_than_the_longest_bundle() {
        // A unit charged 1 s of a bundle that takes 30 s on one thread: 8 s of CPU on 2
        // threads cannot end before the bundle does.
        let unit = |secs: f64, batch_secs: f64| Timed {
            x: 1.0,
            secs,
            batch_secs,
            work: Work::default(),
        };
        assert_eq!(
            wall_seconds(8.0, 2, &[unit(1.0, 30.0), unit(2.0, 2.0)]),
            30.0
        );
        assert_eq!(wall_seconds(8.0, 2, &[unit(1.0, 3.0), unit(2.0, 2.0)]), 4.0);
    }
}
