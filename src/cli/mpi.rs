//! `nqueens count N --mpi` under mpirun: rank 0 schedules units dynamically, keeps the
//! checkpoint and progress bar and prints the result; the other ranks compute.

use std::process::ExitCode;

use anyhow::bail;
use mpi::traits::Communicator;

use super::count::{interrupted, open_checkpoint, print_single, stop_flag, CountArgs, CountReport};
use super::progress::Progress;
use super::Outcome;
use nqueens::engine::counts::Tally;
use nqueens::runner::{mpi as dist, shard};
use nqueens::{Unit, UnitPlan};

/// Runs `count n --mpi`.
pub fn count(n: u32, a: &CountArgs, _threads: usize) -> Outcome {
    let Some(universe) = mpi::initialize() else {
        bail!("MPI is already initialized");
    };
    let world = universe.world();
    if world.size() < 2 {
        bail!("--mpi needs at least 2 ranks (rank 0 only schedules): run it as mpirun -np 3 nqueens count {n} --mpi");
    }
    let plan = UnitPlan::new(n);
    let stop = stop_flag();
    if world.rank() != 0 {
        dist::work(&world, &plan, stop);
        return Ok(ExitCode::SUCCESS);
    }
    let start = std::time::Instant::now();
    let (ckpt, mut rec) = open_checkpoint(a.checkpoint.as_deref(), &plan, "all", plan.len())?;
    let order: Vec<Unit> = shard::largest_first(&plan)
        .into_iter()
        .map(|(u, _)| u)
        .collect();
    let (done, todo): (Vec<Unit>, Vec<Unit>) = order
        .iter()
        .partition(|u| rec.results[u.id as usize].is_some());
    let resumed_nodes = rec.nodes();
    let progress = Progress::new(!a.quiet, n, plan.units(), &done);
    let mut write_error = None;
    let s = dist::schedule(&world, &plan, &todo, stop, |u, r| {
        if let Some(c) = &ckpt {
            if let Err(e) = c.record(u.id, r) {
                write_error.get_or_insert(e);
                stop.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        rec.results[u.id as usize] = Some(*r);
        progress.done(u, r);
    });
    progress.finish();
    if let Some(c) = &ckpt {
        c.sync()?;
    }
    if let Some(e) = write_error {
        bail!("cannot write the checkpoint: {e}");
    }
    if s.interrupted {
        return Ok(interrupted(
            rec.count(),
            plan.len(),
            a.checkpoint.as_deref(),
        ));
    }
    let mut tally = Tally::default();
    for u in plan.units() {
        tally.add(
            &u.kind,
            &rec.results[u.id as usize].expect("every unit finished"),
        );
    }
    let counts = tally.finish(&plan)?;
    let workers = (world.size() - 1) as usize;
    let report = CountReport::new(&counts, &plan, start.elapsed().as_secs_f64(), workers)
        .with_speed(counts.nodes - resumed_nodes);
    print_single(&report, a.json, &mut std::io::stdout().lock())
}
