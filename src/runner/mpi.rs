//! Dynamic scheduling of a unit plan over MPI ranks (feature `mpi`).
//!
//! Rank 0 only schedules: it hands unit ids out largest-estimated-first
//! ([`super::schedule::largest_first`]), one at a time, to whichever rank asks next, so fast
//! ranks take more units and the expensive units start first. Ranks 1.. compute, each on
//! T threads (`count --mpi --threads T`, default 1): a rank asks for one unit per idle
//! thread, so it has up to T units in flight. Only a rank's main thread calls MPI (no
//! `MPI_THREAD_MULTIPLE` needed); its compute threads take ids from a channel.
//!
//! Messages are four u64 from a worker (`kind, id, solutions, nodes`; kind 0 = ready,
//! 1 = result, 2 = abandoned after a signal) and one u64 back (the next unit id, or
//! [`QUIT`]). Each message asks for work for one thread ("slot") and gets one reply; a slot
//! retires on its `QUIT`. A rank's first message is a ready whose second word announces its
//! other T − 1 slots, so rank 0 knows how many `QUIT`s to send before it stops listening.
//!
//! Every result passes through rank 0, which hands it to `on_done` (the checkpoint and the
//! progress bar), so `--checkpoint` works as in a local run. When `stop` is raised on rank 0
//! it hands out nothing more and tells each rank to quit at its next message; a rank whose own
//! stop flag is raised (mpirun forwards SIGTERM) abandons its unit.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, Destination, Source};

use crate::engine::plan::{Unit, UnitPlan, UnitResult};
use crate::engine::{exec, Config};
use crate::MAX_THREADS;

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
    /// Compute threads over all worker ranks.
    pub threads: usize,
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
    // Slots still to retire: one per rank until its first message announces the rest.
    let mut active = usize::try_from(world.size() - 1).unwrap_or(0);
    out.threads = active;
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
            READY => {
                let more = usize::try_from(msg[1]).expect("slot count fits usize");
                assert!(
                    more < MAX_THREADS,
                    "a rank has at most {MAX_THREADS} threads"
                );
                active += more;
                out.threads += more;
            }
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

/// Ranks 1..: asks rank 0 for units and runs them on `threads` threads (1..=[`MAX_THREADS`])
/// until every thread is told to quit.
///
/// # Panics
/// If `threads` is 0 or above [`MAX_THREADS`] (the CLI bounds it), or rank 0 sends an id
/// outside the plan.
pub fn work(
    world: &SimpleCommunicator,
    plan: &UnitPlan,
    config: &Config,
    stop: &AtomicBool,
    threads: usize,
) {
    assert!(
        (1..=MAX_THREADS).contains(&threads),
        "a rank has 1 to {MAX_THREADS} threads"
    );
    let root = world.process_at_rank(0);
    // One request for work: the reply is a unit id or QUIT.
    let ask = |msg: [u64; 4]| -> Option<u64> {
        root.send(&msg[..]);
        let (id, _) = root.receive::<u64>();
        (id != QUIT).then_some(id)
    };
    let (to_do, ids) = mpsc::channel::<u64>();
    let ids = Mutex::new(ids);
    let (finished, results) = mpsc::channel::<[u64; 4]>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (ids, finished) = (&ids, finished.clone());
            scope.spawn(move || loop {
                // The lock is held only to take an id; the channel closes when all slots quit.
                let next = ids.lock().expect("no compute thread panics").recv();
                let Ok(id) = next else { return };
                let unit = plan.units()[id as usize];
                let msg = match exec::run_until_with(plan.n() as usize, &unit, config, stop) {
                    Some(r) => [RESULT, id, r.solutions, r.nodes],
                    None => [ABANDONED, id, 0, 0],
                };
                if finished.send(msg).is_err() {
                    return;
                }
            });
        }
        // One ask per slot; the first announces the other threads - 1 slots.
        let mut in_flight = 0usize;
        for slot in 0..threads {
            let more = if slot == 0 { threads as u64 - 1 } else { 0 };
            if let Some(id) = ask([READY, more, 0, 0]) {
                to_do.send(id).expect("compute threads wait for ids");
                in_flight += 1;
            }
        }
        // Each result asks for the next unit for the thread that finished.
        while in_flight > 0 {
            let msg = results.recv().expect("a compute thread holds a unit");
            in_flight -= 1;
            if let Some(id) = ask(msg) {
                to_do.send(id).expect("compute threads wait for ids");
                in_flight += 1;
            }
        }
        drop(to_do); // every slot has quit: the compute threads return
    });
}
