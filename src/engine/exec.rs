//! The unit dispatcher: runs units of a plan whatever their kind. Every runner (the local
//! pool, MPI ranks, `merge --recheck`) calls this module and nothing below it, so runners never
//! know which engine or kernel computed a unit.
//!
//! A count holds one [`Prepared`]: what its units share, built once and dropped with the
//! count (the quadrant engine's context, with its table: 550 MB at n = 22, 5 GB at n = 24).
//! Nothing is kept between counts, so a range of counts builds one context per n and a
//! library call leaves nothing resident after it returns.
//!
//! A batch of units is split by kind: the border units together go to the interleaved lanes
//! kernel (`backtrack::lanes`), which keeps its lanes busy across units; the quadrant units
//! run set by set on the shared context; the small symmetric searches (`symmetric.rs`) run
//! one by one. A new engine plugs in with its unit kinds in [`UnitKind`] and one arm in
//! [`Prepared::run_batch`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use super::backtrack::BorderBatch;
use super::plan::{Unit, UnitKind, UnitResult};
use super::quadrant;
use super::symmetric::{count_fixed180, count_fixed90};
use super::Config;

/// What the units of one board size share, prepared once for a whole count and dropped
/// with it: the quadrant engine's frames and table (built when the first batch with
/// quadrant units runs, by the first thread to need it, while the others wait; never for a
/// batch without such units). Safe to share between threads.
///
/// Running many units yourself (on threads, or one at a time), prepare once and run
/// them all through it; [`Unit::run`] prepares for its one unit and throws it away.
///
/// ```
/// use nqueens::{Engine, Prepared, Tally, UnitPlan};
/// let plan = UnitPlan::with_engine(16, Engine::auto(16));
/// let prepared = Prepared::new(16); // the quadrant table of n = 16, once
/// let mut tally = Tally::default();
/// for u in plan.units() {
///     tally.add(&u.kind, &prepared.run(u));
/// }
/// assert_eq!(tally.finish(&plan)?.total, 14_772_512);
/// # Ok::<(), nqueens::Error>(())
/// ```
#[derive(Debug)]
pub struct Prepared {
    n: u32,
    config: Config,
    /// The quadrant context, once a batch has needed it.
    quadrant: OnceLock<quadrant::Context>,
    /// Held while the quadrant context is built, so that it is built once.
    building: Mutex<()>,
    /// The quadrant workers' buffers between batches (a batch takes one and puts it back).
    /// Memory given back to the system between units must be faulted in again page by
    /// page: 1.4 million faults for one unit of n = 28, 8-30 s of system time on a 2-core
    /// KVM machine (Zen 4), a fifth to two fifths of the unit's CPU.
    scratches: quadrant::ScratchPool,
}

impl Prepared {
    /// Prepares to run units of board size `n` with the default configuration (a quadrant
    /// table of at most 1 GiB, the best instruction set this CPU runs). Nothing is built
    /// until a unit needs it.
    pub fn new(n: u32) -> Prepared {
        Prepared::with_config(n, &Config::default())
    }

    /// [`Prepared::new`] under the caller's `config`.
    pub(crate) fn with_config(n: u32, config: &Config) -> Prepared {
        Prepared {
            n,
            config: *config,
            quadrant: OnceLock::new(),
            building: Mutex::new(()),
            scratches: quadrant::ScratchPool::default(),
        }
    }

    /// Runs one unit of the board size this was prepared for, to the end.
    ///
    /// # Panics
    /// If the unit is a quadrant unit and n is outside the quadrant engine's range (no
    /// quadrant plan has such a unit).
    pub fn run(&self, unit: &Unit) -> UnitResult {
        self.run_unit(unit, &super::NEVER).expect("never stopped")
    }

    /// The configuration the units run under.
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    /// The quadrant context, built now if no batch has built it yet; None if `stop` was
    /// raised while it was being built (another batch may build it later).
    pub(crate) fn context(&self, stop: &AtomicBool) -> Option<&quadrant::Context> {
        if let Some(c) = self.quadrant.get() {
            return Some(c);
        }
        let _building = self.building.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = self.quadrant.get() {
            return Some(c); // built by the thread this one waited for
        }
        let c = quadrant::Context::build_until(self.n, &self.config, stop)?;
        Some(self.quadrant.get_or_init(|| c))
    }

    /// Builds what `units` share before any of them runs (the quadrant context, with its
    /// table, for units with quadrant units among them), so that a caller timing units one
    /// by one does not charge the first with it; None if `stop` was raised first.
    pub(crate) fn prepare(&self, units: &[Unit], stop: &AtomicBool) -> Option<()> {
        if units
            .iter()
            .any(|u| matches!(u.kind, UnitKind::Quadrant { .. }))
        {
            self.context(stop)?;
        }
        Some(())
    }

    /// Runs a batch of units, returning one result per unit in order, or `None` if `stop`
    /// was raised before the batch finished (nothing of it is then reported). Quadrant
    /// units of one frame group and one prefix run together ([`run_quadrant`]); each
    /// result is the one the unit gives alone.
    pub(crate) fn run_batch(&self, units: &[Unit], stop: &AtomicBool) -> Option<Vec<UnitResult>> {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let n = self.n as usize;
        let mut border_results = BorderBatch::of(n, units)
            .run(self.config.isa, stop)?
            .into_iter();
        let quadrant = match units
            .iter()
            .any(|u| matches!(u.kind, UnitKind::Quadrant { .. }))
        {
            true => Some(self.context(stop)?),
            false => None,
        };
        let solo = |(solutions, nodes): (u64, u64)| {
            (!stop.load(Ordering::Relaxed)).then_some(UnitResult { solutions, nodes })
        };
        let mut quadrant_results = vec![None; units.len()];
        if let Some(ctx) = quadrant {
            let mut scratch = self.take_scratch();
            let done = run_quadrant(ctx, units, &mut quadrant_results, &mut scratch, stop);
            self.scratches.put(scratch);
            done?;
        }
        units
            .iter()
            .zip(quadrant_results)
            .map(|(u, q)| match u.kind {
                UnitKind::Border { .. } => border_results.next(),
                UnitKind::Fixed180 { col } => solo(count_fixed180(n, col as usize)),
                UnitKind::Fixed90 => solo(count_fixed90(n)),
                UnitKind::Quadrant { .. } => {
                    q.and_then(|(solutions, tested)| solo((solutions, tested)))
                }
            })
            .collect()
    }

    /// A quadrant worker's buffers: those a finished batch put back, or new ones.
    fn take_scratch(&self) -> quadrant::Scratch {
        let kept = self.scratches.take();
        kept.unwrap_or_else(|| quadrant::Scratch::new(self.config.isa))
    }

    /// Runs one unit, giving up (None) soon after `stop` becomes true.
    pub(crate) fn run_unit(&self, unit: &Unit, stop: &AtomicBool) -> Option<UnitResult> {
        self.run_batch(std::slice::from_ref(unit), stop)
            .map(|r| r[0])
    }
}

/// Counts the quadrant units of `units` into `results` (solutions, pairs tested; by
/// position), those of one group and one prefix together wherever they stand in the batch
/// ([`quadrant::Context::run_bundle`]: one full-side search and sort a set for the group;
/// the same solutions as unit by unit). None if `stop` was raised first.
fn run_quadrant(
    ctx: &quadrant::Context,
    units: &[Unit],
    results: &mut [Option<(u64, u64)>],
    scratch: &mut quadrant::Scratch,
    stop: &AtomicBool,
) -> Option<()> {
    let mut order: Vec<(u16, u32, u16, usize)> = units
        .iter()
        .enumerate()
        .filter_map(|(i, u)| match u.kind {
            UnitKind::Quadrant { frame, prefix } => {
                Some((ctx.group_of[frame as usize], prefix, frame, i))
            }
            _ => None,
        })
        .collect();
    order.sort_unstable();
    for bundle in order.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let frames: Vec<u16> = bundle.iter().map(|b| b.2).collect();
        let counted = ctx.run_bundle(&frames, bundle[0].1, scratch, stop)?;
        for (b, r) in bundle.iter().zip(counted) {
            results[b.3] = Some((r.solutions, r.tested));
        }
    }
    Some(())
}

/// Runs a batch of units of the plan for `n` under the caller's `config`, preparing for
/// this batch alone (see [`Prepared`]): one result per unit in order, or `None` if `stop`
/// was raised before the batch finished (the tests').
#[cfg(test)]
pub fn run_batch_with(
    n: usize,
    units: &[Unit],
    config: &Config,
    stop: &AtomicBool,
) -> Option<Vec<UnitResult>> {
    Prepared::with_config(n as u32, config).run_batch(units, stop)
}

impl Unit {
    /// Runs the unit's search to the end. Pure computation; safe to call from any thread.
    ///
    /// Each call prepares what the unit's engine needs and drops it (for a quadrant unit
    /// the quadrant table of n: 0.1 s at n = 20, 1 s at n = 22): to run many units, prepare
    /// once with [`Prepared`].
    pub fn run(&self, n: usize) -> UnitResult {
        Prepared::new(n as u32).run(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plan::UnitPlan;

    #[test]
    fn a_batch_equals_its_units_run_alone() {
        let plan = UnitPlan::new(9);
        let never = AtomicBool::new(false);
        let batch = run_batch_with(9, plan.units(), &Config::default(), &never).unwrap();
        for (u, r) in plan.units().iter().zip(&batch) {
            assert_eq!(u.run(9), *r, "{u:?}");
        }
    }

    #[test]
    fn raised_stop_runs_nothing() {
        let plan = UnitPlan::new(8);
        let stopped = AtomicBool::new(true);
        assert_eq!(
            run_batch_with(8, plan.units(), &Config::default(), &stopped),
            None
        );
    }

    #[test]
    fn one_prepared_context_serves_every_batch_of_a_count() {
        // The quadrant context is built by the first batch that needs it and kept for the
        // rest; a raised stop while building leaves it unbuilt for a later batch.
        let plan = UnitPlan::with_engine(12, crate::Engine::auto(12));
        let prepared = Prepared::new(12);
        let stopped = AtomicBool::new(true);
        assert_eq!(prepared.prepare(plan.units(), &stopped), None);
        assert!(prepared.quadrant.get().is_none());
        let never = AtomicBool::new(false);
        let (a, b) = plan.units().split_at(plan.len() / 2);
        let first = prepared.run_batch(a, &never).unwrap();
        let built: *const quadrant::Context = prepared.quadrant.get().unwrap();
        let second = prepared.run_batch(b, &never).unwrap();
        assert!(std::ptr::eq(built, prepared.quadrant.get().unwrap()));
        let mut tally = crate::Tally::default();
        for (u, r) in plan.units().iter().zip(first.iter().chain(&second)) {
            tally.add(&u.kind, r);
        }
        assert_eq!(tally.finish(&plan).unwrap().total, 14_200);
    }
}
