//! Dynamic scheduling of a unit plan over MPI ranks (feature `mpi`).
//!
//! Rank 0 only schedules: it hands unit ids out largest-estimated-first
//! ([`super::shard::largest_first`]), one at a time, to whichever rank asks next, so fast
//! ranks take more units and the expensive units start first. Ranks 1.. compute. Messages are
//! four u64 from a worker (`kind, id, solutions, nodes`; kind 0 = ready, 1 = result,
//! 2 = abandoned after a signal) and one u64 back (the next unit id, or [`QUIT`]).
//!
//! Every result passes through rank 0, which hands it to `on_done` (the checkpoint and the
//! progress bar), so `--checkpoint` works as in a local run. When `stop` is raised on rank 0
//! it hands out nothing more and tells each rank to quit at its next message; a rank whose own
//! stop flag is raised (mpirun forwards SIGTERM) abandons its unit.

use std::sync::atomic::{AtomicBool, Ordering};

use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, Destination, Source};

use crate::engine::exec;
use crate::engine::plan::{Unit, UnitPlan, UnitResult};

/// The reply that tells a worker rank to stop.
pub const QUIT: u64 = u64::MAX;

const READY: u64 = 0;
const RESULT: u64 = 1;
const ABANDONED: u64 = 2;

/// What the scheduler saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scheduled {
    /// Units whose results came back.
    pub finished: usize,
    /// True if `stop` ended the run before every unit was handed out and finished.
    pub interrupted: bool,
}

/// Rank 0: hands `units` (in that order) to ranks 1.., calling `on_done` for each result.
///
/// # Panics
/// If a worker sends a malformed message or an id outside the plan (a bug, not input).
pub fn schedule<F>(
    world: &SimpleCommunicator,
    plan: &UnitPlan,
    units: &[Unit],
    stop: &AtomicBool,
    mut on_done: F,
) -> Scheduled
where
    F: FnMut(&Unit, &UnitResult),
{
    let mut next = units.iter();
    let mut out = Scheduled::default();
    let mut active = world.size() - 1;
    let mut handed = 0usize;
    while active > 0 {
        let (msg, status) = world.any_process().receive_vec::<u64>();
        assert_eq!(msg.len(), 4, "worker message has 4 words");
        match msg[0] {
            RESULT => {
                let unit = plan
                    .units()
                    .get(msg[1] as usize)
                    .expect("unit id from a worker is in the plan");
                on_done(
                    unit,
                    &UnitResult {
                        solutions: msg[2],
                        nodes: msg[3],
                    },
                );
                out.finished += 1;
            }
            ABANDONED => out.interrupted = true,
            _ => {}
        }
        let reply = match next.next() {
            Some(u) if !stop.load(Ordering::SeqCst) => {
                handed += 1;
                u64::from(u.id)
            }
            _ => {
                active -= 1;
                QUIT
            }
        };
        world.process_at_rank(status.source_rank()).send(&reply);
    }
    out.interrupted |= out.finished < units.len() || handed < units.len();
    out
}

/// Ranks 1..: asks rank 0 for units and runs them until told to quit.
pub fn work(world: &SimpleCommunicator, plan: &UnitPlan, stop: &AtomicBool) {
    let root = world.process_at_rank(0);
    let mut msg = [READY, 0, 0, 0];
    loop {
        root.send(&msg[..]);
        let (id, _) = root.receive::<u64>();
        if id == QUIT {
            return;
        }
        let unit = plan.units()[id as usize];
        msg = match exec::run_until(plan.n() as usize, &unit, stop) {
            Some(r) => [RESULT, id, r.solutions, r.nodes],
            None => [ABANDONED, id, 0, 0],
        };
    }
}
