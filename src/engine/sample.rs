//! The sampler `nqueens estimate` times a plan's units with: each engine's way of timing
//! one unit without running all of it, behind one call ([`Sampler::time_unit`]), so the
//! command only draws units and projects. A backtracking unit (and an F180/F90 search) is
//! timed whole; a quadrant unit too long to time whole is sampled in two more stages, one
//! of its sets and a share of that set's join (`quadrant::sample`).

use std::time::Instant;

use super::exec::Prepared;
use super::plan::{Unit, UnitKind, UnitPlan};
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

/// Times units of one plan on a [`Prepared`] (its configuration and context: the table the
/// sample uses, the lists' budget, the instruction set).
#[derive(Debug)]
pub struct Sampler<'a> {
    prepared: &'a Prepared,
    /// Seconds of one thread a sampled set's join may take (`estimate --budget`).
    budget: f64,
}

/// A worker's buffers, reused from unit to unit.
#[derive(Debug)]
pub struct SampleScratch(quadrant::Scratch);

impl<'a> Sampler<'a> {
    /// A sampler on `prepared` (whose context is built on first use: prepare it first to
    /// time that apart), joins timed within `budget` seconds each.
    pub fn new(prepared: &'a Prepared, budget: f64) -> Sampler<'a> {
        Sampler { prepared, budget }
    }

    /// A worker's buffers, warmed up on the smallest set of the plan's cheapest unit by
    /// `costs` (see `quadrant::sample::warm_up`), so that the first unit it times is not
    /// charged with growing them.
    pub fn scratch(&self, plan: &UnitPlan, costs: &[u64]) -> SampleScratch {
        let mut scratch = quadrant::Scratch::new(self.prepared.config().isa);
        let smallest = plan
            .units()
            .iter()
            .filter(|u| matches!(u.kind, UnitKind::Quadrant { .. }))
            .min_by_key(|u| costs[u.id as usize]);
        if let Some(&Unit {
            kind: UnitKind::Quadrant { frame, prefix },
            ..
        }) = smallest
        {
            let ctx = self.prepared.context(&NEVER).expect("never stopped");
            quadrant::sample::warm_up(ctx, frame, prefix, &mut scratch);
        }
        SampleScratch(scratch)
    }

    /// Estimated time of one unit, seconds of one thread, and where it went (zero figures
    /// for an engine that does not say).
    pub fn time_unit(
        &self,
        unit: &Unit,
        rng: &mut Rng,
        scratch: &mut SampleScratch,
    ) -> (f64, Work) {
        let UnitKind::Quadrant { frame, prefix } = unit.kind else {
            let t = Instant::now();
            // A backtracking unit runs whole.
            let _ = self.prepared.run_unit(unit, &NEVER);
            return (t.elapsed().as_secs_f64(), Work::default());
        };
        let ctx = self.prepared.context(&NEVER).expect("never stopped");
        quadrant::sample::time_unit(ctx, frame, prefix, self.budget, rng, &mut scratch.0)
    }
}
