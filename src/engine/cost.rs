//! A cheap estimate of what a unit costs, for progress weighting, shard balancing and
//! `nqueens plan`: a pure function of n and the unit, the same on every machine. Each
//! engine estimates its own units (a border unit by a probe of its first rows,
//! `backtrack::estimate`; a quadrant unit from its sets' pattern counts,
//! `quadrant::model`); the F180 and F90 units, in every plan, get a fitted formula in n.
//!
//! The unit is "estimated nodes", calibrated so that summed over a backtracking plan it is
//! close to the real node count where it matters (estimate/real for n = 12..16: 0.50, 0.80,
//! 1.01, 1.08, 1.01; below that it drifts, n = 10: 0.21), and node equivalents for the
//! quadrant engine; callers only rely on ratios within a plan. Good enough to weigh
//! progress and to balance shards of hundreds of units each; the makespan replay of
//! `nqueens plan --stats` can use measured costs (`--costs CHECKPOINT`) instead.

use std::sync::atomic::{AtomicBool, Ordering};

use super::plan::{Engine, Unit, UnitKind, UnitPlan};
use super::{backtrack, quadrant};

/// Estimated cost of `unit` for board size `n`, in estimated search nodes (at least 1): one
/// unit's [`estimates`] (the tests).
#[cfg(test)]
pub fn estimate(n: u32, unit: &Unit) -> u64 {
    let engine = match unit.kind {
        UnitKind::Quadrant { .. } => Engine::Quadrant,
        _ => Engine::Backtrack,
    };
    Estimator::new(n, engine).of(unit)
}

/// The estimates of every unit of `plan`, in id order: one pass, in parallel (the quadrant
/// frames are built once). The same numbers as `estimate` (the tests') unit by unit, and as pure a
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

/// The estimate of many units of one plan ([`Estimator::of`]): what it needs is prepared once.
#[derive(Debug)]
pub struct Estimator {
    n: u32,
    /// The quadrant engine's frames and their factors (a plan of that engine only).
    quadrant: Option<quadrant::model::Estimator>,
}

impl Estimator {
    /// An estimator for the units of `engine`'s plan of n.
    pub fn new(n: u32, engine: Engine) -> Estimator {
        let quadrant = match engine {
            Engine::Quadrant => Some(quadrant::model::Estimator::new(n)),
            Engine::Backtrack => None,
        };
        Estimator { n, quadrant }
    }

    /// The estimate of one unit, in estimated search nodes (at least 1).
    pub fn of(&self, unit: &Unit) -> u64 {
        let n = self.n as usize;
        let est = match unit.kind {
            UnitKind::Border { .. } => backtrack::estimate(n, unit),
            UnitKind::Fixed180 { .. } => half_turn_estimate(n),
            UnitKind::Fixed90 => quarter_turn_estimate(n),
            UnitKind::Quadrant { frame, prefix } => self
                .quadrant
                .as_ref()
                .expect("a quadrant unit belongs to a quadrant plan")
                .unit(frame, prefix),
        };
        est.max(1.0).min(u64::MAX as f64) as u64
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plan::UnitPlan;

    #[test]
    fn engines_without_tables_or_lists_have_none() {
        assert!(Engine::Backtrack.table_pays(24, 0.0, 2));
        assert_eq!(Engine::Backtrack.table_bytes(24), None);
        assert_eq!(Engine::Backtrack.list_bytes(24), 0);
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
