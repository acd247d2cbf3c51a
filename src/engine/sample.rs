//! The sampler `nqueens estimate` times a plan's units with: each engine's way of timing
//! one unit without running all of it, behind one call ([`Sampler::time_unit`]), so the
//! command only draws units and projects. A backtracking unit (and an F180/F90 search) is
//! timed whole; a quadrant unit too long to time whole is sampled in two more stages, one
//! of its sets and a share of that set's join (`quadrant::sample`).

use std::time::Instant;

use super::exec::Prepared;
use super::plan::{Engine, Unit, UnitKind, UnitPlan};
use super::quadrant;
use super::rng::SplitMix64 as Rng;
use super::NEVER;

/// What a sampled unit (a quadrant unit, or one of its sets) did, scaled to the whole unit
/// like its time: the seconds of its three phases, the pairs its join tested, the solutions
/// it found (weighted by symmetry, as the count adds them), its sets and their list sizes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    /// Seconds of the half-board pattern searches.
    pub halves: f64,
    /// Seconds of the joins' fixed part: key choice, sort and layout.
    pub sort: f64,
    /// Seconds of the joins' pair tests.
    pub join: f64,
    /// (east, west) pattern pairs tested.
    pub tested: f64,
    /// Solutions found, weighted by symmetry.
    pub solutions: f64,
    /// Sets E counted.
    pub sets: f64,
    /// East patterns (lists before any cut into parts).
    pub east: f64,
    /// West patterns.
    pub west: f64,
}

impl Work {
    /// Seconds of the three phases.
    pub fn secs(&self) -> f64 {
        self.halves + self.sort + self.join
    }

    /// Every figure times `k` (`time` only the seconds).
    pub(crate) fn scaled(self, k: f64, time: f64) -> Work {
        Work {
            halves: self.halves * k * time,
            sort: self.sort * k * time,
            join: self.join * k * time,
            tested: self.tested * k,
            solutions: self.solutions * k,
            sets: self.sets * k,
            east: self.east * k,
            west: self.west * k,
        }
    }

    /// The figures as a list, for the estimator (in field order).
    pub fn figures(&self) -> [f64; 8] {
        [
            self.halves,
            self.sort,
            self.join,
            self.tested,
            self.solutions,
            self.sets,
            self.east,
            self.west,
        ]
    }
}

/// One unit timed by [`Sampler::time_unit`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    /// The unit's estimated time, seconds of one thread: where a count runs it in a
    /// bundle, its share of the bundle's time.
    pub secs: f64,
    /// Seconds of one thread that a count spends, unsplit, on the bundle it counts the
    /// unit in: the bundle's whole time where it was timed as a bundle, else `secs`. A
    /// lower bound of a count's wall time is the longest of these (a runner's batch may
    /// hold more than one bundle, and a unit timed alone may still run in one).
    pub batch_secs: f64,
    /// Where the time went, and what the unit found.
    pub work: Work,
}

/// Each unit's weight in `nqueens estimate`'s draw (a unit is timed with probability
/// proportional to it), in id order: its cost estimate `costs[id]` (the numbers shards are
/// balanced by), except that a quadrant plan from n = 26 weighs its quadrant units by
/// their sets' `E²·W³` (`Proxy::draw_weight`: it follows their time twice as closely),
/// scaled so that those units weigh as much together as their cost estimates do (the
/// few backtracking units of such a plan keep their share of the draw).
pub fn draw_weights(plan: &UnitPlan, costs: &[u64]) -> Vec<f64> {
    use rayon::prelude::*;
    let mut weights: Vec<f64> = costs.iter().map(|&c| c as f64).collect();
    if plan.engine() != Engine::Quadrant || plan.n() < quadrant::units::DRAW_WEIGHT_FROM {
        return weights;
    }
    let est = quadrant::model::Estimator::new(plan.n());
    let drawn: Vec<Option<f64>> = plan
        .units()
        .par_iter()
        .map(|u| match u.kind {
            UnitKind::Quadrant { frame, prefix } => Some(est.draw_weight(frame, prefix)),
            _ => None,
        })
        .collect();
    let (mut cost_sum, mut drawn_sum) = (0.0, 0.0);
    for (w, d) in weights.iter().zip(&drawn) {
        if let Some(d) = d {
            cost_sum += w;
            drawn_sum += d;
        }
    }
    if drawn_sum > 0.0 && drawn_sum.is_finite() {
        for (w, d) in weights.iter_mut().zip(&drawn) {
            if let Some(d) = d {
                *w = (d * cost_sum / drawn_sum).max(f64::MIN_POSITIVE);
            }
        }
    }
    weights
}

/// Times units of one plan on a [`Prepared`] (its configuration and context: the table the
/// sample uses, the lists' budget, the instruction set).
#[derive(Debug)]
pub struct Sampler<'a> {
    prepared: &'a Prepared,
    /// Seconds of one thread a sampled set's join may take (`estimate --budget`).
    budget: f64,
    /// The plan's cheapest quadrant unit (frame, prefix), which warms up a worker's buffers.
    smallest: Option<(u16, u32)>,
    /// Warmed-up buffers between units: a unit takes one (or makes and warms one) and puts
    /// it back, so each thread warms up once and its lists, GBs at n = 28, are not given
    /// back to the system and faulted in again for the next unit (before, rayon's
    /// `map_init` made and warmed buffers per split of the work, several times a thread,
    /// and `estimate 28 -t 2` spent 43% of its CPU in the kernel on a KVM machine).
    scratches: quadrant::ScratchPool,
    /// Where a count runs a frame group's units of one prefix together (odd n up to 25,
    /// `quadrant::bundles`), each bundle's frames (ascending) and estimated cost by
    /// (group, prefix), and each frame's group; None elsewhere.
    bundles: Option<Bundles>,
    /// The units' cost estimates, by id, and their sum.
    costs: &'a [u64],
    total_cost: f64,
    /// CPU seconds of the whole count by the time model (`quadrant::model::cpu_seconds`).
    plan_seconds: f64,
}

/// The bundles of a plan's quadrant units ([`Sampler`]).
#[derive(Debug)]
struct Bundles {
    /// The first frame of each frame's group.
    group_of: Vec<u16>,
    /// By (group, prefix): the bundle's frames, ascending, and their costs summed.
    of: std::collections::HashMap<(u16, u32), (Vec<u16>, f64)>,
}

impl Bundles {
    /// The bundles of `plan` (by `quadrant::bundles`), with the units' `costs`.
    fn of(plan: &UnitPlan, costs: &[u64]) -> Option<Bundles> {
        let group_of = quadrant::bundles(plan.n(), plan.len())?;
        let mut of: std::collections::HashMap<(u16, u32), (Vec<u16>, f64)> =
            std::collections::HashMap::new();
        for u in plan.units() {
            if let UnitKind::Quadrant { frame, prefix } = u.kind {
                let b = of.entry((group_of[frame as usize], prefix)).or_default();
                b.0.push(frame);
                b.1 += costs[u.id as usize] as f64;
            }
        }
        for (frames, _) in of.values_mut() {
            frames.sort_unstable();
        }
        Some(Bundles { group_of, of })
    }
}

impl<'a> Sampler<'a> {
    /// A sampler of `plan`'s units on `prepared` (whose context is built on first use:
    /// prepare it first to time that apart), joins timed within `budget` seconds each;
    /// `costs` are the units' estimates, which pick the unit that warms buffers up.
    pub fn new(
        prepared: &'a Prepared,
        budget: f64,
        plan: &UnitPlan,
        costs: &'a [u64],
    ) -> Sampler<'a> {
        let smallest = plan
            .units()
            .iter()
            .filter_map(|u| match u.kind {
                UnitKind::Quadrant { frame, prefix } => Some((costs[u.id as usize], frame, prefix)),
                _ => None,
            })
            .min_by_key(|&(cost, ..)| cost)
            .map(|(_, frame, prefix)| (frame, prefix));
        Sampler {
            prepared,
            budget,
            smallest,
            scratches: quadrant::ScratchPool::default(),
            bundles: Bundles::of(plan, costs),
            costs,
            total_cost: costs.iter().map(|&c| c as f64).sum(),
            plan_seconds: quadrant::model::cpu_seconds(plan.n()),
        }
    }

    /// A worker's buffers: kept ones, or new ones warmed up on the smallest set of the
    /// plan's cheapest unit (see `quadrant::sample::warm_up`), so that the first unit a
    /// thread times is not charged with growing them.
    fn take_scratch(&self) -> quadrant::Scratch {
        if let Some(kept) = self.scratches.take() {
            return kept;
        }
        let mut scratch = quadrant::Scratch::new(self.prepared.config().isa);
        if let Some((frame, prefix)) = self.smallest {
            let ctx = self.prepared.context(&NEVER).expect("never stopped");
            quadrant::sample::warm_up(ctx, frame, prefix, &mut scratch);
        }
        scratch
    }

    /// Estimated time of one unit, seconds of one thread, and where it went (zero figures
    /// for an engine that does not say). Safe to call from many threads at once.
    pub fn time_unit(&self, unit: &Unit, rng: &mut Rng) -> Timing {
        let UnitKind::Quadrant { frame, prefix } = unit.kind else {
            let t = Instant::now();
            // A backtracking unit runs whole.
            let _ = self.prepared.run_unit(unit, &NEVER);
            let secs = t.elapsed().as_secs_f64();
            return Timing {
                secs,
                batch_secs: secs,
                work: Work::default(),
            };
        };
        let ctx = self.prepared.context(&NEVER).expect("never stopped");
        let mut scratch = self.take_scratch();
        let cost = self.costs[unit.id as usize] as f64;
        let in_bundle = self.bundle_of(frame, prefix).and_then(|(frames, total)| {
            // The unit's share of its bundle's time: its cost over the bundle's, the
            // draw's weights below n = 26 (`draw_weights`), where bundles are.
            let whole = quadrant::sample::is_short(self.model_seconds(total));
            let share = cost / total;
            quadrant::sample::time_in_bundle(ctx, frames, frame, prefix, whole, rng, &mut scratch)
                .map(|(secs, work)| Timing {
                    secs: secs * share,
                    batch_secs: secs,
                    work: work.scaled(share, 1.0),
                })
        });
        let timed = in_bundle.unwrap_or_else(|| {
            let whole = quadrant::sample::is_short(self.model_seconds(cost));
            let (secs, work) = quadrant::sample::time_unit(
                ctx,
                frame,
                prefix,
                self.budget,
                whole,
                rng,
                &mut scratch,
            );
            Timing {
                secs,
                batch_secs: secs,
                work,
            }
        });
        self.scratches.put(scratch);
        timed
    }

    /// The frames of the bundle of unit (`frame`, `prefix`) and their costs summed, where
    /// a count runs it with others and they share their group's list (from
    /// `quadrant::SHARED_FROM` frames; fewer are counted unit by unit).
    fn bundle_of(&self, frame: u16, prefix: u32) -> Option<(&[u16], f64)> {
        let b = self.bundles.as_ref()?;
        let (frames, total) = b.of.get(&(b.group_of[frame as usize], prefix))?;
        (frames.len() >= quadrant::SHARED_FROM && *total > 0.0)
            .then_some((frames.as_slice(), *total))
    }

    /// Seconds of one thread that work of estimated `cost` takes by the time model: the
    /// plan's share of `quadrant::model::cpu_seconds` (a choice made before timing, see
    /// `quadrant::sample::is_short`).
    fn model_seconds(&self, cost: f64) -> f64 {
        self.plan_seconds * cost / self.total_cost.max(f64::MIN_POSITIVE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{known, Config};

    #[test]
    fn every_units_share_of_its_bundle_sums_to_the_total() {
        // n = 15 and 17, where counts run a frame group's units of one prefix together:
        // timing every unit of the plan (each one charged its share of its bundle's time
        // and work) adds up each bundle's solutions once, so the known total. A unit timed
        // alone where it shares its bundle's list would count its own solutions, not its
        // share, and so would a share that did not sum to one over its bundle.
        for n in [15u32, 17] {
            let config = Config::default();
            let prepared = Prepared::with_config(n, &config);
            let plan = UnitPlan::with_engine(n, Engine::Quadrant);
            let costs = crate::engine::cost::estimates(&plan);
            prepared.prepare(plan.units(), &NEVER);
            let sampler = Sampler::new(&prepared, 1.0, &plan, &costs);
            let bundled = plan
                .units()
                .iter()
                .filter(|u| match u.kind {
                    UnitKind::Quadrant { frame, prefix } => sampler
                        .bundle_of(frame, prefix)
                        .is_some_and(|(frames, _)| frames.len() >= 3),
                    _ => false,
                })
                .count();
            assert!(
                bundled > plan.len() / 4,
                "n = {n}: {bundled} units in bundles"
            );
            // The quadrant units add up the total (the F180 and F90 units, backtracked,
            // count the symmetric solutions apart).
            // A bundled unit is charged a share of its bundle's solutions, which are not
            // its own.
            let mut rng = Rng::new(5);
            let (mut solutions, mut shared) = (0.0, 0);
            for u in plan.units() {
                if matches!(u.kind, UnitKind::Quadrant { .. }) {
                    let charged = sampler.time_unit(u, &mut rng).work.solutions;
                    let own = prepared.run_unit(u, &NEVER).unwrap().solutions;
                    shared += usize::from((charged - own as f64).abs() > 0.5);
                    solutions += charged;
                }
            }
            assert!(
                shared > bundled / 2,
                "n = {n}: {shared} of {bundled} shared"
            );
            assert_eq!(
                solutions.round() as u128,
                known::lookup(n).unwrap().total,
                "n = {n}"
            );
        }
    }
}
