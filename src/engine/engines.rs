//! The counting engines: the one enum naming them, and the one place that dispatches each
//! question about an engine to that engine's module (`backtrack`, `quadrant`). Runners and
//! the command ask an [`Engine`] (its plan version, its time and memory models, its labels,
//! its batch size); they never match on it.
//!
//! Adding an engine: its module under `src/engine/` (its plan builder, unit kind, batch
//! run, cost and time models, sampler), a variant here with one arm in each match below,
//! and its `--engine` name in `cli::engine`. Nothing in `runner` or `cli` else changes.

use super::{backtrack, quadrant};

/// A counting engine: how the total is computed. (F180 and F90 are backtracking searches
/// in both.) More engines may come: the enum is `#[non_exhaustive]`.
///
/// ```
/// use nqueens::{Counter, Engine};
/// assert_eq!(Engine::auto(8).name(), "backtrack");
/// let fast = Engine::auto(20);
/// assert_eq!(fast.name(), "quadrant");
/// assert!(!fast.supports(40)); // 4..=32
/// let c = Counter::new(13)?.engine(fast).threads(2).count()?;
/// assert_eq!(c.total, 73_712);
/// # Ok::<(), nqueens::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Engine {
    /// Bit-board backtracking over border constellations (`lanes`, `kernel`).
    Backtrack,
    /// Joins of quarter-board placements (`quadrant`).
    Quadrant,
}

/// Smallest n where `auto` picks the quadrant engine: below it both take milliseconds, and
/// backtracking, with no table to build, is as fast (measured at n = 12: 2 ms each).
pub const AUTO_QUADRANT_FROM: u32 = 12;

/// How reports name an engine's figures (`Engine::labels`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Labels {
    /// What the engine does, in a few words ("border constellations").
    pub method: &'static str,
    /// What its main units are called in a plan's summary ("border", "quadrant").
    pub units: &'static str,
    /// The unit of its cost estimates ("nodes", or "node equivalents" for an engine whose
    /// estimate is scaled to read like nodes).
    pub estimate: &'static str,
    /// Where its work figure is not nodes: what that figure counts, reported apart from the
    /// F180/F90 searches' nodes ("half-board pattern pairs tested").
    pub work_apart: Option<&'static str>,
    /// Where it can build a table: what a report says when it built none.
    pub no_table: Option<&'static str>,
    /// Whether its sampler (`nqueens estimate`) says where a unit's time goes.
    pub phases: bool,
}

impl Engine {
    /// Every engine, in plan-version order.
    pub fn all() -> &'static [Engine] {
        &[Engine::Backtrack, Engine::Quadrant]
    }

    /// The engine with this lower-case name ([`Engine::name`]), if any.
    ///
    /// ```
    /// use nqueens::Engine;
    /// assert_eq!(Engine::named("quadrant"), Some(Engine::auto(20)));
    /// assert_eq!(Engine::named("gpu"), None);
    /// ```
    pub fn named(name: &str) -> Option<Engine> {
        Engine::all().iter().copied().find(|e| e.name() == name)
    }

    /// The faster engine for n: quadrant from n = 12 (`AUTO_QUADRANT_FROM`) to its largest
    /// n (32), backtracking elsewhere.
    pub fn auto(n: u32) -> Engine {
        if (AUTO_QUADRANT_FROM..=quadrant::MAX_N).contains(&n) {
            Engine::Quadrant
        } else {
            Engine::Backtrack
        }
    }

    /// Whether the engine can count board size n.
    pub fn supports(self, n: u32) -> bool {
        let (min, max) = self.range();
        (min..=max).contains(&n)
    }

    /// The smallest and largest n the engine counts.
    pub fn range(self) -> (u32, u32) {
        match self {
            Engine::Backtrack => (1, super::MAX_N),
            Engine::Quadrant => (quadrant::MIN_N, quadrant::MAX_N),
        }
    }

    /// Lower-case name, as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Backtrack => "backtrack",
            Engine::Quadrant => "quadrant",
        }
    }

    /// What the `nodes` figure of this engine's unit results counts, as reports name it:
    /// "nodes" (queens placed by the backtracking search) or "pairs" (half-board pattern
    /// pairs the quadrant join tested). A quadrant plan's few F180/F90 units still count
    /// nodes, under 0.1% of its work from n = 16, so a sum over its units is "pairs" too
    /// (the count report gives the two apart).
    pub fn work(self) -> &'static str {
        match self {
            Engine::Backtrack => "nodes",
            Engine::Quadrant => "pairs",
        }
    }

    /// How reports name this engine's figures.
    pub(crate) fn labels(self) -> Labels {
        match self {
            Engine::Backtrack => backtrack::LABELS,
            Engine::Quadrant => quadrant::LABELS,
        }
    }

    /// The plan version of this engine's splitting rule.
    pub fn plan_version(self) -> u32 {
        match self {
            Engine::Backtrack => backtrack::PLAN_VERSION,
            Engine::Quadrant => quadrant::PLAN_VERSION,
        }
    }

    /// The engine whose plans have this version.
    pub fn from_plan_version(version: u32) -> Option<Engine> {
        Engine::all()
            .iter()
            .copied()
            .find(|e| e.plan_version() == version)
    }

    /// Rough CPU seconds of a whole count of n with this engine (each engine's model is in
    /// its module: `backtrack::cpu_seconds`, `quadrant::model`).
    pub fn cpu_seconds(self, n: u32) -> f64 {
        match self {
            Engine::Backtrack => backtrack::cpu_seconds(n),
            Engine::Quadrant => quadrant::model::cpu_seconds(n),
        }
    }

    /// Bytes of work lists one thread holds at n, at most (0 for backtracking, whose state
    /// is a few hundred bytes of stack; the quadrant engine's: `quadrant::model`).
    pub fn list_bytes(self, n: u32) -> u64 {
        match self {
            Engine::Backtrack => 0,
            Engine::Quadrant => quadrant::model::list_bytes(n),
        }
    }

    /// [`Engine::list_bytes`] without the cut into parts: what one thread's lists take
    /// when every set is joined whole (quadrant, n = 26: about 2.6 GB; n = 28: about 20 GB).
    pub fn whole_list_bytes(self, n: u32) -> u64 {
        match self {
            Engine::Backtrack => 0,
            Engine::Quadrant => quadrant::model::whole_list_bytes(n),
        }
    }

    /// Whether building this engine's table for n pays for itself in a run of about
    /// `cpu_seconds` of counting on `threads` threads (a shard of the plan, say); true for
    /// an engine or an n without a table to build.
    pub fn table_pays(self, n: u32, cpu_seconds: f64, threads: usize) -> bool {
        match self {
            Engine::Backtrack => true,
            Engine::Quadrant => quadrant::model::table_pays(n, cpu_seconds, threads),
        }
    }

    /// Bytes of the table this engine builds for n when the memory allows (None: it builds
    /// none at this n; the quadrant table exists up to h = 12, n = 25).
    pub fn table_bytes(self, n: u32) -> Option<u64> {
        match self {
            Engine::Backtrack => None,
            Engine::Quadrant => quadrant::table::QuadrantTable::bytes(n / 2),
        }
    }

    /// Rough seconds of one unit of this engine's plan of n on one core: what the local
    /// runner sizes its batches by (`runner::local`).
    pub(crate) fn unit_seconds(self, n: u32) -> f64 {
        match self {
            Engine::Backtrack => backtrack::unit_seconds(n),
            Engine::Quadrant => quadrant::model::unit_seconds(n),
        }
    }
}
