//! `nqueens count N --mpi` under mpirun: rank 0 chooses the plan, opens the session
//! (checkpoint, progress bar), schedules units dynamically over the other ranks, which
//! compute (each on `--threads` threads, default 1), and prints the result.
//!
//! One plan for every rank (the exchange is `runner::mpi`'s): rank 0 alone resolves the
//! engine from its own N, `--engine` and memory, builds the plan and offers it; every other
//! rank builds exactly that plan and checks its id, or refuses. What a computing rank's own
//! options mean:
//!
//! - N must be rank 0's, and `--engine` either `auto` or the engine rank 0 chose: otherwise
//!   the rank refuses, naming both values.
//! - `--threads` and `--max-memory` are the rank's own: its compute threads, and the memory
//!   it may take for its copy of the plan, its per-thread lists and the quadrant table. It
//!   refuses when the plan or the lists do not fit; a table that does not fit is left out
//!   (the rank searches each set's quadrants instead: the same counts, slower) and the rank
//!   says so on one line. The table changes no count, so each node decides its own.
//! - Without `--max-memory`, the ranks of one node (MPI's shared-memory communicator says how
//!   many) split 80% of its available memory evenly, rank 0 included: run one rank per node
//!   with `--threads` = its cores, so that each node builds one table:
//!   `mpirun --map-by node -np $((NODES + 1)) nqueens count N --mpi --threads CORES` places
//!   rank 0 beside one computing rank on the first node and one computing rank on each
//!   other node (OpenMPI 4.1 refuses `--map-by ppr:1:node` with NODES + 1 ranks).
//! - `--checkpoint`, `--json` and `-q` are rank 0's; the other ranks ignore theirs.
//! - The program version must be rank 0's.
//!
//! A refusal is one line on that rank's stderr (exit 2), and one on rank 0's naming the rank
//! and its reason (exit 2); every rank ends on its own, without `MPI_Abort`. A message that
//! breaks the protocol (another program, a corrupted message) is one line, then
//! `MPI_Abort` with code 2: its sender may never answer, so it is not waited for.

use anyhow::anyhow;
use mpi::topology::SimpleCommunicator;
use mpi::traits::Communicator;

use super::engine::EnginePlan;
use super::error::{one_line, say, usage, Done, Failure, Outcome};
use super::format::bytes;
use super::options::{CountOptions, MpiCount};
use super::report::print_run;
use super::session;
use crate::runner::mpi::{self as dist, wire::Offer, Answer, MpiError, Opening};
use crate::runner::session::{Scope, Session, SessionError, BYTES_PER_UNIT};
use crate::runner::shown;
use crate::{Engine, UnitPlan};

/// Runs `count n --mpi` on this rank.
pub fn count(m: &MpiCount, o: &CountOptions) -> Outcome {
    let Some(universe) = mpi::initialize() else {
        return Err(Failure::Other(anyhow!("MPI is already initialized")));
    };
    let world = universe.world();
    if world.size() < 2 {
        usage!("--mpi needs at least 2 ranks (rank 0 only schedules): run it as mpirun -np 3 nqueens count {} --mpi", m.n);
    }
    let run = if world.rank() == 0 {
        lead(&world, m, o)
    } else {
        follow(&world, m, o)
    };
    // Say why while MPI is still up: once a rank has finalized (when `universe` is dropped)
    // and exits with an error, mpirun may end the others before they have said theirs.
    run.map_err(|e| {
        let (failure, abort) = match e {
            Broken::Protocol(e) => (Failure::Other(e), true),
            Broken::Failure(f) => (f, false),
        };
        failure.say("nqueens count --help");
        if abort {
            // The rank that broke the protocol may never answer: end the job.
            world.abort(2);
        }
        Failure::Said(Box::new(failure))
    })
}

/// How a rank's run failed: a message that broke the protocol, after which no rank can be
/// waited for (the job is aborted), or any other failure.
enum Broken {
    /// A protocol error, with the context that names this rank.
    Protocol(anyhow::Error),
    /// Anything else.
    Failure(Failure),
}

impl<E: Into<Failure>> From<E> for Broken {
    fn from(e: E) -> Broken {
        Broken::Failure(e.into())
    }
}

/// A refusal is a usage error (exit 2, "see --help", where the rules are); a protocol error
/// ends the job.
fn mpi_error(e: MpiError) -> Broken {
    match e {
        MpiError::Refused { .. } => Broken::Failure(Failure::Usage(e.to_string())),
        MpiError::Protocol(_) => Broken::Protocol(e.into()),
    }
}

/// Rank 0: the plan, the offer, the schedule, the report.
fn lead(world: &SimpleCommunicator, m: &MpiCount, o: &CountOptions) -> Result<Done, Broken> {
    dist::greet(world).map_err(mpi_error)?;
    let shared_by = dist::node_ranks(world);
    let session = match open(m, o, shared_by) {
        Ok(Some(s)) => s,
        Ok(None) => {
            dist::cancel(world, "rank 0 was interrupted before the count began");
            return Ok(session::stopped_early());
        }
        Err(e) => {
            dist::cancel(world, "rank 0 could not start (it says why)");
            return Err(e.into());
        }
    };
    let crew = dist::offer(world, session.plan()).map_err(mpi_error)?;
    let run = session::run(session, o.quiet, |s| s.run_mpi(world, &crew)).map_err(|e| match e {
        SessionError::Mpi(e) => mpi_error(e),
        other => other.into(),
    })?;
    let Some(run) = run else {
        return Ok(Done::Interrupted);
    };
    // The table figure is the largest a computing rank builds (each builds its own, as its
    // memory allows).
    Ok(print_run(&run, crew.table_bytes, o.json)?)
}

/// Rank 0's session: its engine from its own options and its share of the node's memory,
/// the plan within that memory, the checkpoint. None if a stop signal came first.
fn open(
    m: &MpiCount,
    o: &CountOptions,
    shared_by: u32,
) -> Result<Option<Session<'static>>, Failure> {
    let chosen = m.engine.resolve_shared(m.n, o.threads, shared_by)?;
    let Some(plan) = chosen.plan(m.n, session::stop_flag())? else {
        return Ok(None);
    };
    Ok(session::open(
        plan,
        Scope::All,
        chosen.config,
        m.checkpoint.as_deref(),
    )?)
}

/// A computing rank: rank 0's plan, built and checked, then its units.
fn follow(world: &SimpleCommunicator, m: &MpiCount, o: &CountOptions) -> Result<Done, Broken> {
    let rank = world.rank();
    // This rank's message names it: several ranks may say theirs.
    let mpi_error = |e: MpiError| match mpi_error(e) {
        Broken::Protocol(e) => Broken::Protocol(e.context(format!("rank {rank}"))),
        refused => refused,
    };
    dist::hello(world);
    let shared_by = dist::node_ranks(world);
    let offer = match dist::opening(world).map_err(mpi_error)? {
        Opening::Offer(offer) => offer,
        // Rank 0 says why; this rank did nothing wrong.
        Opening::Cancel => return Ok(Done::Ok),
    };
    let built = build(&offer, m, o.threads, shared_by, rank);
    let shown = built
        .as_ref()
        .map(|(plan, chosen)| (plan, chosen.table_bytes))
        .map_err(Clone::clone);
    match (
        dist::answer(world, &offer, shown, o.threads).map_err(mpi_error)?,
        built,
    ) {
        (Answer::Go, Ok((plan, chosen))) => {
            dist::work(
                world,
                &plan,
                &chosen.config,
                session::stop_flag(),
                o.threads,
            )
            .map_err(mpi_error)?;
            Ok(Done::Ok)
        }
        (Answer::Refused(reason), _) => Err(Broken::Failure(Failure::Usage(format!(
            "rank {rank} refuses {}: {reason}",
            dist::describe(&offer)
        )))),
        // Another rank refused: rank 0 says which.
        _ => Ok(Done::Ok),
    }
}

/// A computing rank's judgement of rank 0's offer: the plan it names, built with the engine
/// it names within this rank's memory, and the engine plan (table, lists) it runs under;
/// or, one line, why this rank will not.
fn build(
    offer: &Offer,
    m: &MpiCount,
    threads: usize,
    shared_by: u32,
    rank: i32,
) -> Result<(UnitPlan, EnginePlan), String> {
    let program = env!("CARGO_PKG_VERSION");
    if offer.program != program {
        return Err(format!(
            "runs nqueens {program}, but rank 0 runs {}: run the same nqueens on every rank",
            shown::value(&offer.program)
        ));
    }
    let engine = u32::try_from(offer.plan_version)
        .ok()
        .and_then(Engine::from_plan_version)
        .ok_or_else(|| {
            format!(
                "rank 0's plan version {} is not one this nqueens builds",
                offer.plan_version
            )
        })?;
    if offer.n != u64::from(m.n) {
        return Err(format!(
            "given n = {}, but rank 0 counts n = {}: give every rank the same N",
            m.n, offer.n
        ));
    }
    let asked = m.engine.engine.engine().unwrap_or(engine);
    if asked != engine {
        return Err(format!(
            "given --engine {}, but rank 0 counts with --engine {}: give every rank the same --engine (or auto)",
            asked.name(),
            engine.name()
        ));
    }
    let (limit, source) = m.engine.budget(shared_by);
    let whole = engine.cpu_seconds(m.n);
    // The plan is needed, the table only saves time: room is kept for the plan first.
    let plan_bytes = offer.units.saturating_mul(BYTES_PER_UNIT);
    let chosen = EnginePlan::fit(engine, m.n, threads, limit, source, plan_bytes)
        .map_err(|e| one_line(&e.to_string()))?;
    let plan = chosen
        .plan(m.n, session::stop_flag())
        .map_err(|e| one_line(&format!("{e:#}")))?
        .ok_or("interrupted while it built the plan")?;
    if let Some(table) = engine
        .table_bytes(m.n)
        .filter(|_| chosen.table_bytes == 0 && engine.table_pays(m.n, whole, threads))
    {
        say!(
            "nqueens: warning: rank {rank}: the quadrant table of n = {} ({}) does not fit beside the plan and lists in the {} {source}: this rank searches each set's quadrants instead (the same counts, slower)",
            m.n,
            bytes(table),
            bytes(limit)
        );
    }
    // As `count` alone: no table where it does not pay even for a whole count (n = 24).
    Ok((plan, chosen.table_if_it_pays(m.n, whole, threads)))
}
