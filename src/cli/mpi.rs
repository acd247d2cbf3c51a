//! `nqueens count N --mpi` under mpirun: rank 0 opens the session (checkpoint, progress bar)
//! and schedules units dynamically over the other ranks, which compute (each on `--threads`
//! threads, default 1); rank 0 prints the result.

use crate::cli::error::usage;
use std::process::ExitCode;

use anyhow::bail;
use mpi::traits::Communicator;

use super::options::{CountOptions, Single};
use super::progress::Progress;
use super::report::{print_single, CountReport};
use super::session;
use super::Outcome;
use crate::runner::mpi as dist;
use crate::runner::session::Scope;
use crate::UnitPlan;

/// Runs `count n --mpi` with the engine the options resolved; each computing rank runs
/// `o.threads` units at once (default 1, for one rank per core). Its table size is reported
/// as the table each computing rank builds; every rank resolves its own from its memory (and
/// runs under its own `config`), so on unequal nodes this is rank 0's figure.
pub fn count(s: &Single, o: &CountOptions) -> Outcome {
    let (n, chosen) = (s.sized.n, &s.sized.chosen);
    let (engine, table_bytes) = (chosen.engine, chosen.table_bytes);
    let Some(universe) = mpi::initialize() else {
        bail!("MPI is already initialized");
    };
    let world = universe.world();
    if world.size() < 2 {
        usage!("--mpi needs at least 2 ranks (rank 0 only schedules): run it as mpirun -np 3 nqueens count {n} --mpi");
    }
    if world.rank() != 0 {
        dist::work(
            &world,
            &UnitPlan::with_engine(n, engine),
            &chosen.config,
            session::stop_flag(),
            o.threads,
        );
        return Ok(ExitCode::SUCCESS);
    }
    // Scope::All chooses no units, so a stop cannot end the opening early.
    let Some(session) = session::open(
        UnitPlan::with_engine(n, engine),
        Scope::All,
        chosen.config,
        s.checkpoint.as_deref(),
    )?
    else {
        return Ok(session::stopped_early());
    };
    let progress = Progress::new(
        !o.quiet,
        n,
        session.plan().engine(),
        session.units(),
        &session.done(),
    );
    let run = session
        .on_done(|u, r| progress.done(u, r))
        .run_mpi(&world)?;
    progress.finish();
    if run.interrupted {
        return Ok(session::interrupted(&run));
    }
    let counts = run.counts()?;
    let report = CountReport::new(&counts, &run.plan, run.seconds, run.threads)
        .with_speed(
            counts.nodes - run.resumed.nodes,
            counts.pairs_tested - run.resumed.pairs,
        )
        .with_table(table_bytes);
    print_single(&report, o.json, &mut crate::cli::error::stdout())
}
