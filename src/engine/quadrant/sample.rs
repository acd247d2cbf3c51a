//! `nqueens estimate`'s sampling inside a quadrant unit: units too long to time whole
//! (from n = 24 a unit takes from seconds to an hour) are sampled, without bias, in two
//! more stages: one of the unit's sets E, drawn with probability proportional to its
//! weight (`Proxy::draw_weight`; its time scaled back by the same ratio), and, inside that set's join, one
//! piece of east masks in every `stride`, scaled by the number of pieces (the pieces of a
//! join are independent work; the join's fixed part, its sort and layout, is timed apart
//! and counted once). The halves' pattern searches of the chosen set always run whole, so
//! their memory is measured too.

use std::time::Instant;

use super::half::Part;
use super::join::{JoinStats, Sample};
use super::table::QuadrantTable;
use super::{Context, Frame, Scratch, SetResult};
use crate::engine::rng::SplitMix64 as Rng;
use crate::engine::sample::Work;

/// Estimated time of one unit, seconds of one thread (see the module doc), and where it went;
/// its sets are cut into parts of at most `lists` bytes, its joins timed within `budget`;
/// `whole`: the unit is short and timed whole ([`is_short`]).
pub(crate) fn time_unit(
    ctx: &Context,
    frame: u16,
    prefix: u32,
    budget: f64,
    whole: bool,
    rng: &mut Rng,
    scratch: &mut Scratch,
) -> (f64, Work) {
    let (f, proxy) = (&ctx.frames[frame as usize], &ctx.proxies[frame as usize]);
    let (table, lists) = (ctx.table.as_ref(), ctx.list_budget);
    let (sets, total, (e, y)) =
        draw_set(ctx, frame, prefix, rng).expect("a unit has a counted set");
    let parts = f.parts_with(proxy, e, lists);
    let work = time_set(f, e, table, parts, budget, rng, scratch).scaled(total / y, 1.0);
    let scaled = work.secs();
    if !whole {
        return (scaled, work);
    }
    // A short unit (`whole`, by the time model: see [`is_short`]) is timed whole instead,
    // its sets in order as a count runs them: a set of a few microseconds timed alone
    // measures mostly the clock and the cache. Its phases keep the sampled set's shares;
    // its pairs and solutions are the unit's own.
    let clock = Instant::now();
    let mut done = SetResult::default();
    for &(e, _) in &sets {
        done.merge(&f.count_set(e, table, scratch));
    }
    let secs = clock.elapsed().as_secs_f64();
    let work = Work {
        tested: done.tested as f64,
        solutions: done.solutions as f64,
        sets: sets.len() as f64,
        ..work.scaled(1.0, secs / scaled.max(f64::MIN_POSITIVE))
    };
    (secs, work)
}

/// Estimated time of the bundle a count runs unit (`frame`, `prefix`) in, the units of
/// `bundle` (frames of one group, ascending, `frame` among them) and `prefix` counted
/// together (`set::run_bundle`: the group's list searched and sorted once for them all),
/// seconds of one thread, and where it went; None where the bundle's frames would not
/// share that list (each unit is then counted, and timed, as alone: [`time_unit`]).
///
/// A bundle's time is not a sum of its units' times, so the caller
/// (`Sampler::time_unit`) charges the unit a share of it: its weight in the estimator's
/// draw over the bundle's. That keeps the estimate unbiased: a unit u of bundle B is drawn with probability x_u / X and charged
/// T_B · x_u / X_B, so its ratio t/x is T_B / X_B and the projection X · E[t/x] sums
/// Σ_B X_B/X · X · T_B/X_B = Σ_B T_B, the bundles' time, whatever the shares within a
/// bundle (shares by weight make the ratio the same for a bundle's units). Inside, one set
/// E of the unit is drawn as [`time_unit`] draws it (the bundle's units have the same sets)
/// and all the bundle's frames count it together, their joins whole (a set of n = 25
/// takes about 20 ms a frame on a Zen 3 core).
pub(crate) fn time_in_bundle(
    ctx: &Context,
    bundle: &[u16],
    frame: u16,
    prefix: u32,
    whole: bool,
    rng: &mut Rng,
    scratch: &mut Scratch,
) -> Option<(f64, Work)> {
    let (table, lists) = (ctx.table.as_ref(), ctx.list_budget);
    let with: Vec<(&Frame, &super::units::Proxy)> = bundle
        .iter()
        .map(|&g| (&ctx.frames[g as usize], &ctx.proxies[g as usize]))
        .collect();
    let group = ctx.frames[*bundle.first()? as usize].group_frame();
    let (sets, total, (e, y)) = draw_set(ctx, frame, prefix, rng)?;
    let b = super::set::time_bundle_set(&with, &group, e, table, lists, scratch)?;
    let work = Work {
        halves: b.halves,
        sort: b.sort,
        join: b.join,
        tested: b.counted.tested as f64,
        solutions: b.counted.solutions as f64,
        sets: bundle.len() as f64,
        east: b.east as f64,
        west: b.west as f64,
    }
    .scaled(total / y, 1.0);
    let scaled = work.secs();
    if !whole {
        return Some((scaled, work));
    }
    // A short bundle (`whole`) is timed whole, as a short unit is (see [`time_unit`]).
    let clock = Instant::now();
    let done = ctx.run_bundle(bundle, prefix, scratch, &crate::engine::NEVER)?;
    let secs = clock.elapsed().as_secs_f64();
    let mut counted = SetResult::default();
    done.iter().for_each(|r| counted.merge(r));
    let work = Work {
        tested: counted.tested as f64,
        solutions: counted.solutions as f64,
        sets: (bundle.len() * sets.len()) as f64,
        ..work.scaled(1.0, secs / scaled.max(f64::MIN_POSITIVE))
    };
    Some((secs, work))
}

/// The counted sets of unit (`frame`, `prefix`) with their draw weights
/// (`Proxy::draw_weight`), the weights' sum, and one set drawn with probability
/// proportional to its weight, with its weight; None if the unit has no counted set.
#[allow(clippy::type_complexity)]
fn draw_set(
    ctx: &Context,
    frame: u16,
    prefix: u32,
    rng: &mut Rng,
) -> Option<(Vec<(u32, f64)>, f64, (u32, f64))> {
    let (f, proxy) = (&ctx.frames[frame as usize], &ctx.proxies[frame as usize]);
    let sets: Vec<(u32, f64)> = f
        .sets_with_prefix(ctx.prefix_rows[frame as usize], prefix)
        .filter(|&e| f.weight(e).0 > 0)
        .map(|e| (e, proxy.draw_weight(f, e).max(f64::MIN_POSITIVE)))
        .collect();
    let total: f64 = sets.iter().map(|s| s.1).sum();
    let mut point = rng.unit() * total;
    let &drawn = sets
        .iter()
        .find(|s| {
            point -= s.1;
            point < 0.0
        })
        .or(sets.last())?;
    Some((sets, total, drawn))
}

/// Units (or bundles) shorter than this by the time model (seconds) are timed whole (see
/// [`time_unit`]).
const WHOLE_BELOW: f64 = 0.05;

/// Whether work of `model_seconds` by the time model (`model::cpu_seconds` times its share
/// of the plan's cost) is timed whole rather than on one of its sets.
///
/// Why by the model and not by the sampled set's projection, as before 2026-12-07: a
/// choice made on the very time it then returns or discards biases the estimate upward
/// (work whose sampled projection happened to fall short is timed whole, so its short
/// draws are replaced and its long ones kept). A choice fixed before any timing keeps the
/// projection unbiased. Worked numbers (`estimate 21`): a unit of n = 21 is about 4 ms by
/// the model and is timed whole; a bundle of nine of its units, about 40 ms, too; a unit
/// of n = 23, 0.1 s, is timed on one set.
pub(crate) fn is_short(model_seconds: f64) -> bool {
    model_seconds < WHOLE_BELOW
}

/// Runs the smallest set of quadrant unit (`frame`, `prefix`; the plan's cheapest) untimed, so that a worker's
/// buffers have grown and its code is warm before it times anything (a count pays that
/// once per thread, not once per unit).
pub(crate) fn warm_up(ctx: &Context, frame: u16, prefix: u32, scratch: &mut Scratch) {
    {
        let (f, proxy) = (&ctx.frames[frame as usize], &ctx.proxies[frame as usize]);
        let (p, table, lists) = (
            ctx.prefix_rows[frame as usize],
            ctx.table.as_ref(),
            ctx.list_budget,
        );
        if let Some(e) = f
            .sets_with_prefix(p, prefix)
            .filter(|&e| f.weight(e).0 > 0)
            .min_by(|&a, &b| proxy.set(f, a).total_cmp(&proxy.set(f, b)))
        {
            // Its first part pair and a sixty-fourth of that join: enough to grow the
            // buffers and warm the code. (The whole set was counted here before; the
            // smallest set of n = 28 still joins for minutes, on every worker.)
            let (east, west) = f.parts_with(proxy, e, lists);
            let first = |of| Part { index: 0, of };
            f.prepare_part(e, table, scratch, first(east), first(west), true);
            f.join_prepared(
                scratch,
                Sample {
                    stride: 64,
                    offset: 0,
                },
            );
        }
    }
}

/// Estimated time of one set: its halves whole, its join on a share of its pieces (and
/// what the set did, scaled the same way).
fn time_set(
    f: &Frame,
    e: u32,
    table: Option<&QuadrantTable>,
    (east_parts, west_parts): (u32, u32),
    budget: f64,
    rng: &mut Rng,
    scratch: &mut Scratch,
) -> Work {
    // A set too large for memory is counted in parts (`Frame::parts`): time one (east part,
    // west part) pair drawn at random and scale by the number of pairs (unbiased; it counts
    // the east part's making once per west part, a few percent of a set at most).
    let part = |of: u32, rng: &mut Rng| Part {
        index: rng.below(u64::from(of)) as u32,
        of,
    };
    let (east, west) = (part(east_parts, rng), part(west_parts, rng));
    let scale = f64::from(east_parts) * f64::from(west_parts);
    let clock = Instant::now();
    f.prepare_part(e, table, scratch, east, west, true);
    let halves = clock.elapsed().as_secs_f64();
    let (east_len, west_len) = scratch.list_lens();
    // The join's fixed part (its key, sort and layout) runs once and is timed as it is;
    // its pieces are then timed apart, on the kept sorted lists. (Timing each sample as a
    // whole join and subtracting a separately timed sort, as this did before, made every
    // pilot sort again, 38% of `estimate 28`, and let the first, cold sort's extra time
    // be subtracted from the pieces.)
    let clock = Instant::now();
    let pieces = f.keep_prepared(scratch).max(1);
    let fixed = clock.elapsed().as_secs_f64();
    // The set's figures from its join's `t` seconds and stats `j` on `run` of its pieces,
    // all scaled to the whole set (a part pair stands for `scale` of them; the set counts
    // once).
    let work = |t: f64, j: &JoinStats, run: f64| {
        let share = pieces as f64 / run.max(1.0);
        Work {
            halves,
            sort: fixed,
            join: t * share,
            tested: j.tested as f64 * share,
            solutions: j.pairs as f64 * share,
            sets: 1.0 / scale,
            // A part pair holds one east part and one west part: the whole set's lists
            // are `east_parts` and `west_parts` of them.
            east: east_len as f64 / f64::from(west_parts),
            west: west_len as f64 / f64::from(east_parts),
        }
        .scaled(scale, 1.0)
    };
    let timed = |scratch: &mut Scratch, sample: Sample| {
        let clock = Instant::now();
        let j = f.join_kept(scratch, sample);
        (clock.elapsed().as_secs_f64(), j)
    };
    // A pilot of about four pieces, four times more until it lasts PILOT seconds (at n = 28
    // four pieces take a few milliseconds; one interrupt would double that), or the budget
    // is spent, to choose how many pieces to time.
    let mut run = 4u64;
    let (pilot, jp) = loop {
        let (pilot, jp) = timed(
            scratch,
            Sample {
                stride: (pieces / run).max(1),
                offset: 0,
            },
        );
        if pilot >= PILOT || run >= pieces || pilot >= budget {
            break (pilot, jp);
        }
        run *= 4;
    };
    if jp.pieces_run >= pieces {
        return work(pilot, &jp, pieces as f64); // the pilot ran the whole join
    }
    let whole = pilot / jp.pieces_run.max(1) as f64 * pieces as f64;
    if whole <= budget {
        let (t, j) = timed(scratch, Sample::ALL);
        return work(t, &j, pieces as f64);
    }
    // At most one piece in `pieces`, so that one always runs: a stride past the number of
    // pieces would often pick none and count the join as nothing.
    let stride = ((whole / budget).ceil() as u64).clamp(1, pieces);
    let offset = rng.below(stride);
    let (t, js) = timed(scratch, Sample { stride, offset });
    work(t, &js, js.pieces_run as f64)
}

/// Seconds a pilot of a sampled join lasts at least (see [`time_set`]).
const PILOT: f64 = 0.01;
