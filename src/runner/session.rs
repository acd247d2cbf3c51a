//! A count session: everything that runs one board size's count, whoever computes it.
//!
//! A [`Session`] holds the unit plan, the scope (the whole plan or one shard), an optional
//! checkpoint (opened, locked for the whole run, and resumed: its recorded units are not run
//! again), the stop flag raised by signals, and a callback told of every finished unit (the
//! progress bar). [`Session::run_local`] runs the rest on a thread pool, `Session::run_mpi`
//! (feature `mpi`) hands it to MPI ranks; both return a [`Run`], which the caller turns into
//! counts, a shard file or an "interrupted" message. The CLI only builds a session and
//! formats its run.

use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::checkpoint::Checkpoint;
use super::record::FileError;
use super::schedule::{self, ShardSpec, SplitRule};
use crate::engine::counts::{Counts, Tally};
use crate::engine::exec::Prepared;
use crate::engine::plan::{Unit, UnitPlan, UnitResult};
use crate::engine::Config;
use crate::Error;

/// The part of a plan a session computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every unit.
    All,
    /// The units of one shard of a split by the rule given.
    Shard(ShardSpec, SplitRule),
}

impl fmt::Display for Scope {
    /// `all`, `shard K/M` (split by units, as every checkpoint before the rule existed
    /// records it) or `shard K/M by bundles`, as checkpoints record it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::All => write!(f, "all"),
            Scope::Shard(s, SplitRule::Units) => write!(f, "shard {s}"),
            Scope::Shard(s, rule) => write!(f, "shard {s} by {rule}"),
        }
    }
}

pub use super::local::{units_within, BYTES_PER_UNIT};

/// Why a session could not run to its end (an interruption by `stop` is not an error).
#[derive(Debug)]
pub enum SessionError {
    /// The engine refused (thread count, thread pool).
    Engine(Error),
    /// The checkpoint could not be written; the run stopped rather than compute results that
    /// cannot be kept.
    Checkpoint(FileError),
    /// A rank of an MPI run broke the protocol (the job must be aborted).
    #[cfg(feature = "mpi")]
    Mpi(super::mpi::MpiError),
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::Engine(e) => e.fmt(f),
            SessionError::Checkpoint(e) => write!(f, "cannot write {e}"),
            #[cfg(feature = "mpi")]
            SessionError::Mpi(e) => e.fmt(f),
        }
    }
}

// No `source`: the message already holds the inner error's, and a chain printed with `{:#}`
// would say it twice ("cannot write checkpoint c: No space left ...: checkpoint c: No space
// left ...").
impl std::error::Error for SessionError {}

/// The callback told of every unit that finishes during a run (from worker threads).
pub type DoneFn<'a> = dyn Fn(&Unit, &UnitResult) + Sync + 'a;

/// A boxed [`DoneFn`].
pub type OnDone<'a> = Box<DoneFn<'a>>;

/// One count in preparation: plan, scope, checkpoint, stop flag and progress callback.
pub struct Session<'a> {
    plan: UnitPlan,
    scope: Scope,
    units: Vec<Unit>,
    checkpoint: Option<Checkpoint>,
    results: Vec<Option<UnitResult>>,
    torn: bool,
    stop: &'a AtomicBool,
    on_done: Option<OnDone<'a>>,
    /// What the engines run under (the quadrant table's limit).
    config: Config,
}

impl<'a> Session<'a> {
    /// A session over `scope` of `plan`, stopped when `stop` is raised; None if it was
    /// raised while a shard's units were being chosen (that estimates the whole plan).
    pub fn new(plan: UnitPlan, scope: Scope, stop: &'a AtomicBool) -> Option<Session<'a>> {
        let units = match scope {
            Scope::All => plan.units().to_vec(),
            Scope::Shard(s, rule) => schedule::units_of_until(&plan, s, rule, stop)?,
        };
        let results = vec![None; plan.len()];
        Some(Session {
            plan,
            scope,
            units,
            checkpoint: None,
            results,
            torn: false,
            stop,
            on_done: None,
            config: Config::default(),
        })
    }

    /// Runs the units under `config` (default: [`Config::default`]).
    pub fn with_config(self, config: Config) -> Session<'a> {
        Session { config, ..self }
    }

    /// Opens (or creates) the checkpoint at `path`, takes its lock for the whole run and
    /// resumes the units recorded in it.
    ///
    /// # Errors
    /// As [`Checkpoint::open`]: a file that is not a checkpoint of this plan and scope, is
    /// corrupted, is not a regular file, or is locked by another process.
    pub fn with_checkpoint(mut self, path: &Path) -> Result<Session<'a>, FileError> {
        let (c, rec) = Checkpoint::open(path, &self.plan, &self.scope.to_string())?;
        self.results = rec.results;
        self.torn = rec.torn;
        self.checkpoint = Some(c);
        Ok(self)
    }

    /// Sets the callback told of every unit that finishes.
    pub fn on_done(mut self, f: impl Fn(&Unit, &UnitResult) + Sync + 'a) -> Session<'a> {
        self.on_done = Some(Box::new(f));
        self
    }

    /// The plan.
    pub fn plan(&self) -> &UnitPlan {
        &self.plan
    }

    /// The units of the scope, in id order.
    pub fn units(&self) -> &[Unit] {
        &self.units
    }

    /// The units of the scope already recorded in the checkpoint.
    pub fn done(&self) -> Vec<Unit> {
        self.partition().0
    }

    /// True if the checkpoint ended in a torn line, which was dropped (its unit is redone).
    pub fn torn(&self) -> bool {
        self.torn
    }

    fn partition(&self) -> (Vec<Unit>, Vec<Unit>) {
        self.units
            .iter()
            .partition(|u| self.results[u.id as usize].is_some())
    }

    /// Runs the units not yet done on `threads` local threads.
    ///
    /// # Errors
    /// [`SessionError::Engine`] for a refused thread count, [`SessionError::Checkpoint`] if
    /// a record could not be written.
    pub fn run_local(mut self, threads: usize) -> Result<Run, SessionError> {
        let start = Instant::now();
        let (done, todo) = self.partition();
        let resumed = self.work_of(&done);
        let (plan, stop) = (self.plan.clone(), self.stop);
        // What the count's units share (the quadrant table), built once for this count
        // and dropped when it ends.
        let prepared = Prepared::with_config(plan.n(), &self.config);
        let recorder = self.recorder();
        let summary =
            super::local::run_units_with(&plan, &todo, threads, &prepared, stop, |u, r| {
                recorder.record(u, r)
            });
        let (results, error) = recorder.into_parts();
        self.results = results;
        let interrupted = summary.map_err(SessionError::Engine)?.interrupted;
        self.finish(start, threads, resumed, interrupted, error)
    }

    /// Rank 0 of an MPI run: hands the units not yet done, largest estimated cost first, to
    /// the `crew` of ranks that accepted the plan (which run [`super::mpi::work`]); reports
    /// their compute threads, summed.
    ///
    /// # Errors
    /// As [`Session::run_local`], and [`SessionError::Mpi`] for a message that breaks the
    /// protocol.
    #[cfg(feature = "mpi")]
    pub fn run_mpi(
        mut self,
        world: &mpi::topology::SimpleCommunicator,
        crew: &super::mpi::Crew,
    ) -> Result<Run, SessionError> {
        let start = Instant::now();
        let (done, todo) = self.partition();
        let resumed = self.work_of(&done);
        let mut in_todo = vec![false; self.plan.len()];
        for u in &todo {
            in_todo[u.id as usize] = true;
        }
        let order: Vec<(Unit, u64)> = schedule::largest_first(&self.plan)
            .into_iter()
            .filter(|(u, _)| in_todo[u.id as usize])
            .collect();
        // A quadrant bundle's units go to one slot together, which counts them as one batch.
        let runs = schedule::runs(&self.plan, &order, super::mpi::wire::MAX_UNITS);
        let (plan, stop) = (self.plan.clone(), self.stop);
        let recorder = self.recorder();
        let s = super::mpi::schedule(world, &plan, &runs, crew, stop, |u, r| {
            recorder.record(u, r)
        });
        let (results, error) = recorder.into_parts();
        self.results = results;
        let s = s.map_err(SessionError::Mpi)?;
        self.finish(start, s.threads, resumed, s.interrupted, error)
    }

    /// The work of the units that already have a result (nodes and pairs apart).
    fn work_of(&self, units: &[Unit]) -> Tally {
        let mut t = Tally::default();
        for u in units {
            if let Some(r) = self.results[u.id as usize] {
                t.add(&u.kind, &r);
            }
        }
        t
    }

    /// A recorder shared by the workers, holding the results (`results` is left empty).
    fn recorder(&mut self) -> Recorder<'_> {
        let results = std::mem::take(&mut self.results);
        Recorder {
            checkpoint: self.checkpoint.as_ref(),
            results: Mutex::new(results),
            error: Mutex::new(None),
            stop: self.stop,
            on_done: self.on_done.as_deref(),
        }
    }

    /// Syncs the checkpoint and builds the run.
    fn finish(
        self,
        start: Instant,
        threads: usize,
        resumed: Tally,
        interrupted: bool,
        error: Option<std::io::Error>,
    ) -> Result<Run, SessionError> {
        let ckpt_error = |e: std::io::Error, c: &Checkpoint| {
            SessionError::Checkpoint(FileError::io("checkpoint", c.path(), &e))
        };
        if let Some(c) = &self.checkpoint {
            if let Some(e) = error {
                return Err(ckpt_error(e, c));
            }
            c.sync().map_err(|e| ckpt_error(e, c))?;
        }
        Ok(Run {
            interrupted,
            seconds: start.elapsed().as_secs_f64(),
            threads,
            resumed,
            plan: self.plan,
            units: self.units,
            results: self.results,
            checkpoint: self.checkpoint,
        })
    }
}

/// Where finished units go during a run: the checkpoint, the results, the callback.
struct Recorder<'s> {
    checkpoint: Option<&'s Checkpoint>,
    results: Mutex<Vec<Option<UnitResult>>>,
    error: Mutex<Option<std::io::Error>>,
    stop: &'s AtomicBool,
    on_done: Option<&'s DoneFn<'s>>,
}

impl Recorder<'_> {
    fn record(&self, u: &Unit, r: &UnitResult) {
        if let Some(c) = self.checkpoint {
            if let Err(e) = c.record(u.id, r) {
                // Stop rather than compute results that cannot be kept.
                self.error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(e);
                self.stop.store(true, Ordering::SeqCst);
            }
        }
        self.results.lock().unwrap_or_else(|p| p.into_inner())[u.id as usize] = Some(*r);
        if let Some(f) = self.on_done {
            f(u, r);
        }
    }

    fn into_parts(self) -> (Vec<Option<UnitResult>>, Option<std::io::Error>) {
        (
            self.results.into_inner().unwrap_or_else(|p| p.into_inner()),
            self.error.into_inner().unwrap_or_else(|p| p.into_inner()),
        )
    }
}

/// What a session's run produced. Holds the checkpoint (and its lock) until dropped.
pub struct Run {
    /// The plan.
    pub plan: UnitPlan,
    /// The units of the scope, in id order.
    pub units: Vec<Unit>,
    /// Result per unit id, for the units that finished (in this run or an earlier one).
    pub results: Vec<Option<UnitResult>>,
    /// True if a signal stopped the run before every unit of the scope finished.
    pub interrupted: bool,
    /// Wall time of this run, seconds.
    pub seconds: f64,
    /// Worker threads (local) or worker ranks (MPI) that computed (read by the MPI report).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub threads: usize,
    /// Work (nodes, pairs) of the units taken from the checkpoint (computed by an earlier
    /// run); its counts are not used.
    pub resumed: Tally,
    checkpoint: Option<Checkpoint>,
}

impl Run {
    /// How many units of the scope have a result.
    pub fn done(&self) -> usize {
        self.units
            .iter()
            .filter(|u| self.results[u.id as usize].is_some())
            .count()
    }

    /// The checkpoint's path, if the run had one.
    pub fn checkpoint_path(&self) -> Option<&Path> {
        self.checkpoint.as_ref().map(Checkpoint::path)
    }

    /// The results of the scope's units, in id order.
    ///
    /// # Panics
    /// If the run was interrupted (some unit has no result).
    pub fn scope_results(&self) -> Vec<(u32, UnitResult)> {
        self.units
            .iter()
            .map(|u| {
                let r = self.results[u.id as usize];
                (u.id, r.expect("every unit of a finished run has a result"))
            })
            .collect()
    }

    /// The counts of a finished run of the whole plan.
    ///
    /// # Errors
    /// [`Error::Inconsistent`] if Burnside's identities fail.
    ///
    /// # Panics
    /// If the run was interrupted.
    pub fn counts(&self) -> Result<Counts, Error> {
        let mut t = Tally::default();
        for (id, r) in self.scope_results() {
            t.add(&self.plan.units()[id as usize].kind, &r);
        }
        t.finish(&self.plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_run_counts_the_plan() {
        let never = AtomicBool::new(false);
        let run = Session::new(UnitPlan::new(10), Scope::All, &never)
            .unwrap()
            .run_local(2)
            .unwrap();
        assert!(!run.interrupted);
        assert_eq!(run.counts().unwrap().total, 724);
    }

    #[test]
    fn shards_cover_the_plan_once() {
        let never = AtomicBool::new(false);
        for (plan, rule) in [
            (UnitPlan::new(9), SplitRule::Units),
            (
                UnitPlan::with_engine(13, crate::Engine::Quadrant),
                SplitRule::Units,
            ),
            (
                UnitPlan::with_engine(13, crate::Engine::Quadrant),
                SplitRule::Bundles,
            ),
        ] {
            let mut ids = Vec::new();
            for index in 0..3 {
                let scope = Scope::Shard(ShardSpec { index, count: 3 }, rule);
                let run = Session::new(plan.clone(), scope, &never)
                    .unwrap()
                    .run_local(1)
                    .unwrap();
                ids.extend(run.scope_results().into_iter().map(|(id, _)| id));
            }
            ids.sort_unstable();
            assert_eq!(ids, (0..plan.len() as u32).collect::<Vec<_>>(), "{rule}");
        }
    }

    #[test]
    fn a_scope_names_its_split_rule_only_where_it_is_bundles() {
        let s = ShardSpec { index: 3, count: 8 };
        assert_eq!(Scope::Shard(s, SplitRule::Units).to_string(), "shard 3/8");
        assert_eq!(
            Scope::Shard(s, SplitRule::Bundles).to_string(),
            "shard 3/8 by bundles"
        );
    }
}
