//! The unit plan: a deterministic list of independent subproblems for one n, the seam
//! between the engine and every runner (local pool, checkpoints, shards, MPI).
//!
//! # How the work is split, and why it is exact
//!
//! Every solution (n >= 2) has exactly one queen on each border line: row 0, row n-1,
//! column 0 and column n-1 (a corner queen sits on two lines, and at most one corner is
//! taken, since any two corners share a line or a diagonal). Those four positions are the
//! solution's *border constellation*. The 8 symmetries of the square permute constellations,
//! and a symmetry maps the solutions with constellation C one-to-one onto those with its
//! image. So we keep one constellation per orbit, the lexicographically smallest image of
//! `(top, bottom, left, right)`, count its completions once, and weigh the count by the orbit
//! size `8 / |stabilizer|`:
//!
//! `total = Σ over canonical C of (8 / |Stab C|) · completions(C)`.
//!
//! This gives the total with 8-fold symmetry and no checks at the leaves. The unique count
//! comes from Burnside with two small extra searches (F180 and F90, see `symmetric.rs`),
//! which are units of the plan too.
//!
//! # Granularity
//!
//! A border is split further by the queen of the first row the kernel searches: one unit
//! per free cell there. Worked numbers: n = 16 has 3,206 canonical borders (3,157 of orbit
//! size 8, 42 of size 4, 7 of size 2) and 27,860 units (with the 16 half-turn units and the
//! quarter-turn unit), about 435 per thread on 64 cores; the largest unit holds 0.037% of
//! the 210 million nodes. n = 20 has 119,330 units, n = 27 has 748,029.
//!
//! # Two engines, two plans
//!
//! The plan above is the backtracking engine's (plan version 2). The quadrant engine
//! (`quadrant`, plan version 4) has its own units: one frame (the pre-placed middle queens
//! of an odd board) and a prefix of its east rows each, whose solutions arrive already
//! weighted; its F180 and F90 units are the same searches as above. A plan knows its
//! [`Engine`]; runners, files and reports see only units.

pub use super::backtrack::border::Border;
use super::digest::{fnv1a64_more, FNV_OFFSET};
pub use super::engines::Engine;
use super::symmetry::Transform;
use super::{backtrack, quadrant};

use super::Error;
use super::NEVER;
use std::sync::atomic::AtomicBool;

/// What a unit computes.
///
/// ```
/// use nqueens::{Engine, UnitKind, UnitPlan};
/// let plan = UnitPlan::with_engine(14, Engine::Quadrant);
/// // The quadrant engine's plan: quadrant units for the total, and backtracking searches
/// // for the solutions the half and quarter turns fix.
/// let quadrant = |k: &UnitKind| matches!(k, UnitKind::Quadrant { .. });
/// let symmetric = |k: &UnitKind| matches!(k, UnitKind::Fixed180 { .. } | UnitKind::Fixed90);
/// assert!(plan.units().iter().any(|u| quadrant(&u.kind)));
/// assert!(plan.units().iter().any(|u| symmetric(&u.kind)));
/// assert!(plan.units().iter().all(|u| quadrant(&u.kind) || symmetric(&u.kind)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UnitKind {
    /// The completions of one canonical border constellation whose first searched row has
    /// its queen in column `first`, counted `weight` times (2, 4 or 8: the size of the
    /// border's orbit; 1 for n = 1).
    Border {
        /// The pre-placed border queens.
        border: Border,
        /// Column of the queen in the first row the kernel searches, on the searched
        /// (half-turned) board: see [`Unit::preplaced`]. None
        /// when no row is left to search (n = 1).
        first: Option<u8>,
        /// Orbit size of the constellation: how many times its completions count.
        weight: u8,
    },
    /// The 180°-symmetric solutions whose row-0 queen is in column `col` (for F180).
    Fixed180 {
        /// Column of the row-0 queen.
        col: u8,
    },
    /// All 90°-symmetric solutions (for F90).
    Fixed90,
    /// Quadrant engine: the sets E of east rows of frame `frame` (see
    /// `quadrant::Frame::all`) whose first rows are `prefix`, counted with their symmetry
    /// weights already applied (the weights vary inside a unit, so the unit's own weight
    /// is 1).
    Quadrant {
        /// Index of the frame in `Frame::all(n)`.
        frame: u16,
        /// East (1) or west (0) for each of the frame's first rows.
        prefix: u32,
    },
}

/// Which sum of the count a unit's (weighted) solutions feed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sum {
    /// The total (A000170).
    Total,
    /// F180, the solutions fixed by the half turn.
    Fixed180,
    /// F90, the solutions fixed by the quarter turn.
    Fixed90,
}

impl Sum {
    /// The name used in `plan` listings: "total", "F180" or "F90".
    pub fn name(self) -> &'static str {
        match self {
            Sum::Total => "total",
            Sum::Fixed180 => "F180",
            Sum::Fixed90 => "F90",
        }
    }
}

impl UnitKind {
    /// The kind's name in `plan` listings: "border", "fixed180" or "fixed90".
    pub fn name(&self) -> &'static str {
        match self {
            UnitKind::Border { .. } => "border",
            UnitKind::Fixed180 { .. } => "fixed180",
            UnitKind::Fixed90 => "fixed90",
            UnitKind::Quadrant { .. } => "quadrant",
        }
    }

    /// How many times the unit's solutions count toward its sum.
    pub fn weight(&self) -> u8 {
        match *self {
            UnitKind::Border { weight, .. } => weight,
            UnitKind::Fixed180 { .. } | UnitKind::Fixed90 | UnitKind::Quadrant { .. } => 1,
        }
    }

    /// Whether the unit's work figure is the same on every machine, so that a recount
    /// (`merge --recheck`) may compare it. A quadrant unit's (pattern pairs tested) is not:
    /// it depends on the order of its pattern lists, which differs between a machine that
    /// built the quadrant table and one that searched the quadrants (from n = 18: 39 of 60
    /// units of one shard of n = 18 differ, none in solutions), and at odd n up to 25 on
    /// the frames counted with it (a bundle sorts its group's list by one key). Backtracking
    /// and F180/F90 units count nodes the same way everywhere.
    pub(crate) fn work_is_portable(&self) -> bool {
        !matches!(self, UnitKind::Quadrant { .. })
    }

    /// A quadrant unit's frame and prefix (what `verify --json` lists of it); None for the
    /// other kinds.
    pub(crate) fn frame_and_prefix(&self) -> Option<(u16, u32)> {
        match *self {
            UnitKind::Quadrant { frame, prefix } => Some((frame, prefix)),
            _ => None,
        }
    }

    /// The sum the unit's solutions feed.
    pub fn feeds(&self) -> Sum {
        match self {
            UnitKind::Border { .. } | UnitKind::Quadrant { .. } => Sum::Total,
            UnitKind::Fixed180 { .. } => Sum::Fixed180,
            UnitKind::Fixed90 => Sum::Fixed90,
        }
    }
}

/// One independent subproblem of a plan: runs anywhere, in any order.
///
/// ```
/// let plan = nqueens::UnitPlan::new(9);
/// let unit = plan.units()[0];
/// assert_eq!(unit.id, 0);
/// assert_eq!(unit.run(9), unit.run(9)); // deterministic
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    /// Position in the plan, `0..plan.len()`.
    pub id: u32,
    /// What to compute.
    pub kind: UnitKind,
}

/// What a unit found: raw counts, before any weight is applied.
///
/// ```
/// let plan = nqueens::UnitPlan::new(8);
/// let found: u64 = plan.units().iter().map(|u| u.run(8).solutions).sum();
/// assert!(found > 0 && found < 92); // unweighted: the symmetry reduction's share
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnitResult {
    /// Solutions found by this unit (unweighted).
    pub solutions: u64,
    /// Work done. Backtracking units (border, F180, F90): search nodes, i.e. queens placed.
    /// Quadrant units: (east, west) half-board pattern pairs tested by the join. The plan's
    /// engine says which; [`crate::Tally`] sums them apart.
    pub nodes: u64,
}

impl Unit {
    /// The queens this unit places before searching, in the coordinates of the canonical
    /// border (row 0 is the row of `border.top`): the border queens and, for border units,
    /// the queen of the first searched row. Empty for the symmetric-count units.
    pub fn preplaced(&self, n: usize) -> Vec<(usize, usize)> {
        match self.kind {
            UnitKind::Border { border, first, .. } => {
                let mut cells = border.cells(n);
                if let Some(c) = first {
                    // The searched board is the half-turned one; turn the cell back.
                    let row = border.search_board(n).first_row();
                    cells.push(Transform::Rot180.apply(n, (row, c as usize)));
                    cells.sort_unstable();
                }
                cells
            }
            _ => Vec::new(),
        }
    }
}

impl Unit {
    /// The queens a `plan` listing shows for this unit: [`Unit::preplaced`], and the F180
    /// unit's row-0 queen (fixed by the unit, though its search places it itself).
    pub(crate) fn listed_queens(&self, n: usize) -> Vec<(u8, u8)> {
        match self.kind {
            UnitKind::Fixed180 { col } => vec![(0, col)],
            _ => self
                .preplaced(n)
                .into_iter()
                .map(|(r, c)| (r as u8, c as u8))
                .collect(),
        }
    }
}

/// The deterministic list of units for one board size: the same units, ids and plan id on
/// every machine (shards and checkpoints name them).
///
/// ```
/// use nqueens::{Tally, UnitPlan};
/// let plan = UnitPlan::new(11);
/// assert_eq!(plan.id_hex(), UnitPlan::new(11).id_hex());
/// let mut tally = Tally::default();
/// for u in plan.units().iter().rev() {
///     tally.add(&u.kind, &u.run(11)); // any order
/// }
/// assert_eq!(tally.finish(&plan)?.total, 2_680);
/// # Ok::<(), nqueens::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct UnitPlan {
    n: u32,
    engine: Engine,
    units: Vec<Unit>,
    id: u64,
}

impl UnitPlan {
    /// Builds the **backtracking** plan for `n` ([`Engine::Backtrack`]; 1 <= n <= 64, the
    /// caller checks the range, e.g. with [`crate::check_n`]).
    ///
    /// This is not the plan `nqueens count N` and [`crate::count`] run from n = 12 to 32:
    /// they pick the engine with [`Engine::auto`], the quadrant engine there, whose plan is
    /// `UnitPlan::with_engine(n, Engine::auto(n))`. Both plans give the same counts; their
    /// units, ids and plan ids differ, so a scheduler that hands units to `count --shard`
    /// or to other machines builds the plan of the engine they run.
    ///
    /// ```
    /// use nqueens::{Engine, UnitPlan};
    /// assert_eq!(UnitPlan::new(20).len(), 119_330); // backtracking
    /// let plan = UnitPlan::with_engine(20, Engine::auto(20)); // what `count 20` runs
    /// assert_eq!((plan.engine(), plan.len()), (Engine::Quadrant, 53_273));
    /// ```
    ///
    /// Order: border units in ascending `(top, bottom, left, right)` and, within a border, by
    /// the column of the first searched row's queen; then the F180 units by column, then the
    /// F90 unit. Size grows like n^5: 27,860 units for n = 16, 748,029 for n = 27, about 94
    /// million (1.1 GB, 8 s to build) for n = 64.
    ///
    /// # Panics
    /// If `n` is 0 or above 64.
    pub fn new(n: u32) -> UnitPlan {
        UnitPlan::with_engine(n, Engine::Backtrack)
    }

    /// Builds the plan of `engine` for `n`.
    ///
    /// The quadrant plan: the units of each frame in frame order, by ascending prefix (see
    /// `quadrant::units`), then the same F180 and F90 units as the backtracking plan.
    ///
    /// # Panics
    /// If the engine does not support `n` (see [`Engine::supports`]).
    pub fn with_engine(n: u32, engine: Engine) -> UnitPlan {
        match UnitPlan::build(n, engine, &NEVER, usize::MAX) {
            Ok(plan) => plan,
            Err(e) => panic!("{e}"),
        }
    }

    /// [`UnitPlan::with_engine`] for plans that may not fit in memory or be wanted to the
    /// end: at most `max_units` units (a caller's memory budget, see
    /// `runner::session::BYTES_PER_UNIT`), grown with fallible allocation, reading `stop`
    /// as it goes. The plan's size is known only by making it (the backtracking plan grows
    /// like n^5: 94 million units at n = 64, seconds to build), so a plan over budget is
    /// refused as soon as it passes the budget, before anything else is allocated.
    ///
    /// # Errors
    /// [`Error::EngineRange`] for an n the engine does not count, [`Error::PlanTooLarge`]
    /// past `max_units`, [`Error::OutOfMemory`] if the list cannot be allocated,
    /// [`Error::Stopped`] if `stop` was raised.
    pub fn build(
        n: u32,
        engine: Engine,
        stop: &AtomicBool,
        max_units: usize,
    ) -> Result<UnitPlan, Error> {
        if !engine.supports(n) {
            let (min, max) = engine.range();
            return Err(Error::EngineRange {
                n,
                engine: engine.name(),
                min,
                max,
            });
        }
        let mut units: Vec<Unit> = Vec::new();
        let mut push = |kind| -> Result<(), Error> {
            if units.len() >= max_units {
                return Err(Error::PlanTooLarge { units: max_units });
            }
            units.try_reserve(1).map_err(|_| Error::OutOfMemory {
                what: "the unit plan",
                bytes: (units.len() as u64 + 1) * 2 * size_of::<Unit>() as u64,
            })?;
            let id = units.len() as u32;
            units.push(Unit { id, kind });
            Ok(())
        };
        // The engine's own units (each engine's module builds them), then the symmetric
        // searches every plan shares.
        match engine {
            Engine::Backtrack => backtrack::plan_units(n, stop, &mut push)?,
            Engine::Quadrant => quadrant::plan_units(n, stop, &mut push)?,
        }
        for col in 0..n {
            push(UnitKind::Fixed180 { col: col as u8 })?;
        }
        push(UnitKind::Fixed90)?;
        let id = plan_hash(n, engine, &units);
        Ok(UnitPlan {
            n,
            engine,
            units,
            id,
        })
    }

    /// The engine whose plan this is.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The plan version (of the engine's splitting rule).
    pub fn version(&self) -> u32 {
        self.engine.plan_version()
    }

    /// The board size.
    pub fn n(&self) -> u32 {
        self.n
    }

    /// The units, in id order.
    pub fn units(&self) -> &[Unit] {
        &self.units
    }

    /// Number of units.
    pub fn len(&self) -> usize {
        self.units.len()
    }

    /// Always false: every plan has its F90 unit at least.
    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    /// The plan's identity: a 64-bit FNV-1a hash of the plan version, n and every unit.
    /// Two plans with the same id split the work the same way.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The plan id as 16 hex digits, as it appears in files.
    pub fn id_hex(&self) -> String {
        format!("{:016x}", self.id)
    }
}

/// FNV-1a over a canonical byte encoding of the plan; stable across platforms and builds.
fn plan_hash(n: u32, engine: Engine, units: &[Unit]) -> u64 {
    let mut h = FNV_OFFSET;
    let mut eat = |bytes: &[u8]| h = fnv1a64_more(h, bytes);
    eat(b"nqueens-plan");
    eat(&engine.plan_version().to_le_bytes());
    eat(&n.to_le_bytes());
    for u in units {
        eat(&u.id.to_le_bytes());
        match u.kind {
            UnitKind::Border {
                border: b,
                first,
                weight,
            } => eat(&[
                0,
                b.top,
                b.bottom,
                b.left,
                b.right,
                first.map_or(255, |c| c),
                weight,
            ]),
            UnitKind::Fixed180 { col } => eat(&[1, col]),
            UnitKind::Fixed90 => eat(&[2]),
            UnitKind::Quadrant { frame, prefix } => {
                eat(&[3]);
                eat(&frame.to_le_bytes());
                eat(&prefix.to_le_bytes());
            }
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_is_deterministic() {
        let a = UnitPlan::new(12);
        let b = UnitPlan::new(12);
        assert_eq!(a.units(), b.units());
        assert_eq!(a.id(), b.id());
        assert_ne!(a.id(), UnitPlan::new(13).id());
    }

    #[test]
    fn ids_are_positions() {
        for (i, u) in UnitPlan::new(10).units().iter().enumerate() {
            assert_eq!(u.id as usize, i);
        }
    }

    #[test]
    fn preplaced_queens_do_not_attack_each_other() {
        let n = 9;
        for u in UnitPlan::new(n as u32).units() {
            let cells = u.preplaced(n);
            for (i, &(r1, c1)) in cells.iter().enumerate() {
                for &(r2, c2) in &cells[i + 1..] {
                    assert!(
                        r1 != r2 && c1 != c2 && r1.abs_diff(r2) != c1.abs_diff(c2),
                        "{u:?}: {cells:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_plan_past_its_budget_is_refused() {
        let len = UnitPlan::new(12).len();
        assert_eq!(
            UnitPlan::build(12, Engine::Backtrack, &NEVER, len - 1).unwrap_err(),
            Error::PlanTooLarge { units: len - 1 }
        );
        let exact = UnitPlan::build(12, Engine::Backtrack, &NEVER, len).unwrap();
        assert_eq!(exact.id(), UnitPlan::new(12).id());
    }

    #[test]
    fn a_raised_stop_builds_no_plan() {
        let stop = AtomicBool::new(true);
        for engine in [Engine::Backtrack, Engine::Quadrant] {
            assert_eq!(
                UnitPlan::build(16, engine, &stop, usize::MAX).unwrap_err(),
                Error::Stopped
            );
        }
        assert!(matches!(
            UnitPlan::build(3, Engine::Quadrant, &NEVER, usize::MAX),
            Err(Error::EngineRange { .. })
        ));
    }

    #[test]
    fn n16_plan_is_fine_grained() {
        let plan = UnitPlan::new(16);
        assert!(plan.len() >= 256, "{} units", plan.len());
    }
}
