//! Dynamic scheduling of a unit plan over MPI ranks (feature `mpi`), on one plan that rank 0
//! chooses and every other rank proves it built.
//!
//! **Start.** Every computing rank (1..) says hello ([`hello`]: the protocol it speaks);
//! rank 0 reads every hello ([`greet`]) before anything collective, so a rank running
//! another program, or an nqueens of another protocol, is found instead of waited for.
//! Then all ranks learn how many ranks share their node ([`node_ranks`], MPI's
//! shared-memory communicator), which splits the node's memory between them. Rank 0
//! resolves the engine and builds the plan, then offers it ([`offer`]): n, the plan
//! version (which names the engine), the plan id, the number of units, the protocol and
//! the program version ([`wire::Offer`]); or, if it cannot start, tells every rank to go
//! home ([`cancel`]). Each computing rank builds exactly the offered plan (never one of its
//! own choosing) and answers ([`answer`]): it accepts, naming its thread count and its
//! table, only if the plan it built has the offered id, n, version and length; otherwise it
//! refuses with one line. Rank 0 reads every answer, then tells every rank to begin (all
//! accepted) or to end (some refused: rank 0 fails with the first refusal's reason). Every
//! rank ends on its own after that, so a refusal ends the job without `MPI_Abort`.
//!
//! **Count.** Rank 0 only schedules: it hands unit ids out largest-estimated-first
//! ([`super::schedule::largest_first`]), one run at a time, to whichever rank asks next, so
//! fast ranks take more units and the expensive units start first. A run is one unit, or,
//! where the quadrant engine counts the units of one frame group and one prefix together
//! (odd n up to 25), that bundle's units ([`super::schedule::runs`]: up to h - 1 of them),
//! which the slot counts as one batch: each set's full-side list is then searched once for
//! the group's frames (see `quadrant::Context::run_bundle`), the same solutions unit by
//! unit (the pairs tested follow the bundle's key).
//! Measured against one unit a message (AMD EPYC Zen 3, one computing rank of one thread,
//! the two builds one after the other): `count 19 --mpi` a median 0.755 of the worker's CPU
//! (5 rounds, 0.55-0.84), `count 21 --mpi` 0.858 (one round).
//! Ranks 1.. compute, each on T threads (`count --mpi --threads T`, default 1): a rank asks
//! for one run per idle thread ("slot"), so it has up to T runs in flight. Only a rank's
//! main thread calls MPI (no `MPI_THREAD_MULTIPLE` needed); its compute threads take runs
//! from a channel. A slot asks with ready (its first run), done (its run's results) or
//! abandoned (after a signal), and gets one answer: a run's unit ids, or quit, which
//! retires it; rank 0 knows every rank's T from its acceptance, so it knows how many quits
//! to send before it stops listening.
//!
//! **Checks.** Every message is decoded with its length, kind and words checked
//! ([`wire::Msg::decode`]); rank 0 accepts a result only for a unit it handed to that rank
//! and has not had back, a ready only while the rank has slots that have not asked, and
//! nothing from a rank whose slots have all quit; a computing rank accepts only a unit id
//! of the plan. A message that breaks these rules leaves the sender in a state the
//! receiver cannot know, so it is an [`MpiError::Protocol`]: one line, and the caller ends
//! the job with `MPI_Abort` rather than wait for a rank that may never answer. No message
//! makes a rank panic.
//!
//! Rank 0 waits for messages without spinning ([`wire::receive_idle`]): measured on the
//! 2-core AMD EPYC Zen 3 (2026-12-07, `mpirun --bind-to none -np 2`, one computing rank of
//! 2 threads, so rank 0 shares a core with it), `count 20 --mpi --threads 2` took 106.6 s
//! with rank 0 at 5.9 s of CPU, against 122.5 s and 95.5 s while rank 0 spun in a blocking
//! probe; `count 19` 29.3 and 32.3 s against 32.6 and 35.7 s (rank 0 1.9 s against 26-29 s).
//!
//! Every result passes through rank 0, which hands it to `on_done` (the checkpoint and the
//! progress bar), so `--checkpoint` works as in a local run. When `stop` is raised on rank 0
//! it hands out nothing more and tells each rank to quit at its next message; a rank whose own
//! stop flag is raised (mpirun forwards SIGTERM) abandons its unit.

mod start;
pub mod wire;

pub use start::{
    answer, cancel, describe, greet, hello, node_ranks, offer, opening, Answer, Crew, Opening,
};

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

use mpi::topology::{Rank, SimpleCommunicator};

use crate::engine::exec::Prepared;
use crate::engine::plan::{Unit, UnitPlan, UnitResult};
use crate::engine::Config;
use crate::MAX_THREADS;
use wire::{Finished, Msg, Offer};

/// Why an MPI count did not run.
#[derive(Debug)]
pub enum MpiError {
    /// Computing ranks refused rank 0's plan; every rank was told to end.
    Refused {
        /// The plan offered.
        offer: Offer,
        /// The first rank that refused.
        rank: Rank,
        /// Its reason, one line.
        reason: String,
        /// How many other ranks refused.
        others: usize,
    },
    /// A rank sent what the protocol does not allow at that point (or something that is
    /// not an nqueens message): its state is unknown, so the job must be aborted rather
    /// than waited for.
    Protocol(String),
}

impl fmt::Display for MpiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MpiError::Refused {
                offer,
                rank,
                reason,
                others,
            } => {
                write!(f, "rank {rank} refused {}: {reason}", describe(offer))?;
                match others {
                    0 => Ok(()),
                    1 => write!(f, "; 1 more rank refused"),
                    k => write!(f, "; {k} more ranks refused"),
                }
            }
            MpiError::Protocol(what) => write!(f, "{what}; ending the MPI job"),
        }
    }
}

impl std::error::Error for MpiError {}

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

/// A computing rank's slots, as rank 0 counts them.
#[derive(Clone, Copy, Debug, Default)]
struct Slots {
    /// Its threads (0: not a computing rank).
    threads: usize,
    /// Slots that asked for their first run of units.
    ready: usize,
    /// Slots told to quit.
    retired: usize,
}

/// What a message from a computing rank brought.
#[derive(Debug, PartialEq)]
enum Event {
    /// A slot's first request.
    Ready,
    /// The results of the units last handed to a slot.
    Finished(Vec<(Unit, UnitResult)>),
    /// Units abandoned after a signal.
    Abandoned,
}

/// Rank 0's book of the count: which slots are open, which unit is out with which rank.
/// It checks every message against the book, so a result is taken only for a unit handed
/// to that rank and not yet returned.
struct Ledger<'a> {
    plan: &'a UnitPlan,
    /// The runs still to hand out: a bundle's units, or one unit.
    next: std::slice::Iter<'a, Vec<Unit>>,
    ranks: Vec<Slots>,
    /// Unit id -> the rank it was handed to, until it comes back.
    out: HashMap<u32, Rank>,
    handed: usize,
}

impl<'a> Ledger<'a> {
    fn new(plan: &'a UnitPlan, runs: &'a [Vec<Unit>], crew: &Crew) -> Ledger<'a> {
        Ledger {
            plan,
            next: runs.iter(),
            ranks: crew
                .threads
                .iter()
                .map(|&threads| Slots {
                    threads,
                    ..Slots::default()
                })
                .collect(),
            out: HashMap::new(),
            handed: 0,
        }
    }

    /// True while some slot has not been told to quit.
    fn open(&self) -> bool {
        self.ranks.iter().any(|s| s.retired < s.threads)
    }

    /// Books a message from `rank`.
    fn take(&mut self, rank: Rank, msg: &Msg) -> Result<Event, String> {
        let slots = usize::try_from(rank)
            .ok()
            .and_then(|r| self.ranks.get_mut(r))
            .filter(|s| s.threads > 0)
            .ok_or_else(|| {
                format!(
                    "rank {rank}, not a computing rank of this count, sent a {} message",
                    msg.name()
                )
            })?;
        if slots.retired >= slots.threads {
            return Err(format!(
                "rank {rank} sent a {} message after each of its {} threads was told to quit",
                msg.name(),
                slots.threads
            ));
        }
        match *msg {
            Msg::Ready if slots.ready < slots.threads => {
                slots.ready += 1;
                Ok(Event::Ready)
            }
            Msg::Ready => Err(format!(
                "rank {rank} asked for more first units than its {} threads",
                slots.threads
            )),
            Msg::Done { ref results } => results
                .iter()
                .map(|r| {
                    let result = UnitResult {
                        solutions: r.solutions,
                        nodes: r.nodes,
                    };
                    Ok((self.back(rank, r.id)?, result))
                })
                .collect::<Result<_, _>>()
                .map(Event::Finished),
            Msg::Abandoned { ref ids } => ids
                .iter()
                .try_for_each(|&id| self.back(rank, id).map(drop))
                .map(|()| Event::Abandoned),
            _ => Err(format!(
                "rank {rank} sent a {} message during the count",
                msg.name()
            )),
        }
    }

    /// Unit `id` comes back from `rank`: it must be out with that rank.
    fn back(&mut self, rank: Rank, id: u64) -> Result<Unit, String> {
        let unit = u32::try_from(id)
            .ok()
            .filter(|i| self.out.get(i) == Some(&rank))
            .and_then(|i| self.plan.units().get(i as usize));
        match unit {
            Some(&u) => {
                self.out.remove(&u.id);
                Ok(u)
            }
            None => Err(format!(
                "rank {rank} returned unit {id}, which rank 0 had not handed to it or already had back (the plan has {} units)",
                self.plan.len()
            )),
        }
    }

    /// The answer to the slot of `rank` that just asked: its next run of units, or quit.
    fn answer(&mut self, rank: Rank, stop: bool) -> Msg {
        match self.next.next() {
            Some(run) if !stop => {
                for u in run {
                    self.out.insert(u.id, rank);
                }
                self.handed += run.len();
                Msg::Unit {
                    ids: run.iter().map(|u| u64::from(u.id)).collect(),
                }
            }
            _ => {
                if let Some(s) = usize::try_from(rank)
                    .ok()
                    .and_then(|r| self.ranks.get_mut(r))
                {
                    s.retired += 1;
                }
                Msg::Quit
            }
        }
    }
}

/// Rank 0, after [`offer`]: hands `runs` (in that order; each run's units to one slot, at
/// most [`wire::MAX_UNITS`] of them: see [`super::schedule::runs`]) to the `crew`, calling
/// `on_done` for each unit's result.
///
/// # Errors
/// [`MpiError::Protocol`] for a message the [`Ledger`] refuses (the caller aborts the job).
pub fn schedule<F>(
    world: &SimpleCommunicator,
    plan: &UnitPlan,
    runs: &[Vec<Unit>],
    crew: &Crew,
    stop: &AtomicBool,
    mut on_done: F,
) -> Result<Scheduled, MpiError>
where
    F: FnMut(&Unit, &UnitResult),
{
    debug_assert!(runs
        .iter()
        .all(|r| (1..=wire::MAX_UNITS).contains(&r.len())));
    let units: usize = runs.iter().map(Vec::len).sum();
    let mut ledger = Ledger::new(plan, runs, crew);
    let mut out = Scheduled {
        threads: crew.threads(),
        ..Scheduled::default()
    };
    while ledger.open() {
        let (rank, msg) = wire::receive_idle(world).map_err(MpiError::Protocol)?;
        match ledger.take(rank, &msg).map_err(MpiError::Protocol)? {
            Event::Finished(results) => {
                for (u, r) in &results {
                    on_done(u, r);
                }
                out.finished += results.len();
            }
            Event::Abandoned => out.interrupted = true,
            Event::Ready => {}
        }
        let reply = ledger.answer(rank, stop.load(Ordering::SeqCst));
        wire::send(world, rank, &reply);
    }
    out.interrupted |= out.finished < units || ledger.handed < units;
    Ok(out)
}

/// Ranks 1.., after [`answer`] said go: asks rank 0 for units of `plan` and runs them on
/// `threads` threads (1..=[`MAX_THREADS`]) until every thread is told to quit. The units
/// of one answer run on one thread as one batch (a bundle of the quadrant engine shares its
/// work: `Prepared::run_batch`).
///
/// # Errors
/// [`MpiError::Protocol`] if rank 0 answers with anything but a unit id of the plan or
/// quit; `stop` is then raised, so the compute threads abandon their units.
///
/// # Panics
/// If `threads` is 0 or above [`MAX_THREADS`] (the CLI bounds it).
pub fn work(
    world: &SimpleCommunicator,
    plan: &UnitPlan,
    config: &Config,
    stop: &AtomicBool,
    threads: usize,
) -> Result<(), MpiError> {
    assert!(
        (1..=MAX_THREADS).contains(&threads),
        "a rank has 1 to {MAX_THREADS} threads"
    );
    // One request for work: the answer is unit ids of the plan (checked here, so the
    // compute threads index the plan safely) or quit.
    let ask = |msg: &Msg| -> Result<Option<Vec<u64>>, String> {
        wire::send(world, 0, msg);
        match wire::receive(world, 0)?.1 {
            Msg::Unit { ids } => match ids.iter().find(|&&id| id >= plan.len() as u64) {
                None => Ok(Some(ids)),
                Some(id) => Err(format!(
                    "rank 0 sent unit {id}, outside the plan's {} units",
                    plan.len()
                )),
            },
            Msg::Quit => Ok(None),
            other => Err(format!(
                "rank 0 answered a {} message with a {} message",
                msg.name(),
                other.name()
            )),
        }
    };
    // What this rank's units share (the quadrant table), built once by the first unit
    // that needs it and dropped when the rank's work ends.
    let prepared = Prepared::with_config(plan.n(), config);
    let prepared = &prepared;
    let (to_do, ids) = mpsc::channel::<Vec<u64>>();
    let ids = Mutex::new(ids);
    let (finished, results) = mpsc::channel::<Msg>();
    let failure = std::thread::scope(|scope| {
        for _ in 0..threads {
            let (ids, finished) = (&ids, finished.clone());
            scope.spawn(move || loop {
                // The lock is held only to take an id; the channel closes when all slots quit.
                let next = ids.lock().unwrap_or_else(|p| p.into_inner()).recv();
                let Ok(ids) = next else { return };
                let units: Vec<Unit> = ids.iter().map(|&id| plan.units()[id as usize]).collect(); // checked by `ask`
                let msg = match prepared.run_batch(&units, stop) {
                    Some(results) => Msg::Done {
                        results: ids
                            .iter()
                            .zip(results)
                            .map(|(&id, r)| Finished {
                                id,
                                solutions: r.solutions,
                                nodes: r.nodes,
                            })
                            .collect(),
                    },
                    None => Msg::Abandoned { ids },
                };
                if finished.send(msg).is_err() {
                    return;
                }
            });
        }
        drop(finished);
        // Sends answered ids to the compute threads; how many runs that put in flight.
        let hand = |answer: Result<Option<Vec<u64>>, String>| -> Result<usize, String> {
            Ok(match answer? {
                Some(ids) => usize::from(to_do.send(ids).is_ok()),
                None => 0,
            })
        };
        // One ask per slot, then each result asks for the next run for its thread.
        let (mut in_flight, mut failure) = (0usize, None);
        for _ in 0..threads {
            match hand(ask(&Msg::Ready)) {
                Ok(k) => in_flight += k,
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        while failure.is_none() && in_flight > 0 {
            let Ok(msg) = results.recv() else { break };
            in_flight -= 1;
            match hand(ask(&msg)) {
                Ok(k) => in_flight += k,
                Err(e) => failure = Some(e),
            }
        }
        if failure.is_some() {
            stop.store(true, Ordering::SeqCst); // the units in flight are abandoned
        }
        drop(to_do); // every slot has quit (or the count failed): the compute threads return
        failure
    });
    failure.map_or(Ok(()), |e| Err(MpiError::Protocol(e)))
}

#[cfg(test)]
mod tests {
    use super::wire::PROTOCOL;
    use super::*;

    fn crew(threads: &[usize]) -> Crew {
        Crew {
            threads: threads.to_vec(),
            table_bytes: 0,
        }
    }

    #[test]
    fn the_ledger_takes_a_whole_count_of_two_ranks() {
        let plan = UnitPlan::new(8);
        // Runs of one unit and of three.
        let runs: Vec<Vec<Unit>> = plan
            .units()
            .chunks(3)
            .enumerate()
            .flat_map(|(i, c)| match i % 2 {
                0 => c.iter().map(|&u| vec![u]).collect(),
                _ => vec![c.to_vec()],
            })
            .collect();
        let crew = crew(&[0, 1, 2]);
        let mut book = Ledger::new(&plan, &runs, &crew);
        let mut out: Vec<(Rank, Vec<u64>)> = Vec::new();
        let mut done = 0;
        for rank in [1, 2, 2] {
            assert_eq!(book.take(rank, &Msg::Ready), Ok(Event::Ready));
            if let Msg::Unit { ids } = book.answer(rank, false) {
                out.push((rank, ids));
            }
        }
        let mut seen = Vec::new();
        while let Some((rank, ids)) = out.pop() {
            let results = ids
                .iter()
                .map(|&id| {
                    let r = plan.units()[id as usize].run(8);
                    Finished {
                        id,
                        solutions: r.solutions,
                        nodes: r.nodes,
                    }
                })
                .collect();
            let Ok(Event::Finished(back)) = book.take(rank, &Msg::Done { results }) else {
                panic!("a run's results are taken");
            };
            assert_eq!(back.len(), ids.len());
            done += back.len();
            seen.extend(back.iter().map(|(u, _)| u.id));
            if let Msg::Unit { ids } = book.answer(rank, false) {
                out.push((rank, ids));
            }
        }
        assert_eq!(done, plan.len());
        seen.sort_unstable();
        assert!(
            seen.iter().copied().eq(0..plan.len() as u32),
            "each unit once"
        );
        assert!(!book.open(), "every slot was told to quit");
        // Nothing more is taken from a rank whose slots all quit.
        let e = book.take(1, &Msg::Ready).unwrap_err();
        assert!(
            e.contains("after each of its 1 threads was told to quit"),
            "{e}"
        );
    }

    #[test]
    fn the_ledger_refuses_every_message_out_of_turn() {
        let plan = UnitPlan::new(8);
        let runs: Vec<Vec<Unit>> = plan.units().chunks(2).map(<[Unit]>::to_vec).collect();
        let crew = crew(&[0, 2, 1]);
        let mut book = Ledger::new(&plan, &runs, &crew);
        let result = |id| Finished {
            id,
            solutions: 1,
            nodes: 1,
        };
        let done = |id| Msg::Done {
            results: vec![result(id)],
        };
        // Not computing ranks: rank 0, a rank past the world.
        assert!(book.take(0, &Msg::Ready).is_err());
        assert!(book.take(7, &Msg::Ready).is_err());
        assert!(book.take(-1, &Msg::Ready).is_err());
        // A result for a unit never handed out, or outside the plan.
        assert!(book
            .take(1, &done(0))
            .unwrap_err()
            .contains("had not handed"));
        assert!(book.take(1, &done(u64::MAX)).is_err());
        assert!(book
            .take(1, &Msg::Abandoned { ids: vec![1 << 40] })
            .is_err());
        // More first requests than threads.
        assert_eq!(book.take(2, &Msg::Ready), Ok(Event::Ready));
        assert!(book
            .take(2, &Msg::Ready)
            .unwrap_err()
            .contains("more first units"));
        // A unit handed to rank 2 comes back from rank 1: refused; from rank 2 once: taken.
        let Msg::Unit { ids } = book.answer(2, false) else {
            panic!("a unit is left")
        };
        let [id, other] = ids[..] else {
            panic!("a run of two units")
        };
        assert!(book.take(1, &done(id)).is_err());
        assert!(book.take(2, &done(id)).is_ok());
        assert!(book
            .take(2, &done(id))
            .unwrap_err()
            .contains("already had back"));
        // One result twice in one message: the second is refused.
        let twice = Msg::Done {
            results: vec![result(other), result(other)],
        };
        assert!(book
            .take(2, &twice)
            .unwrap_err()
            .contains("already had back"));
        // Messages that belong to the start, or rank 0's own kinds.
        for m in [
            Msg::Hello { protocol: PROTOCOL },
            Msg::Go,
            Msg::Quit,
            Msg::Unit { ids: vec![0] },
            Msg::Accept {
                threads: 1,
                table_bytes: 0,
            },
        ] {
            assert!(book.take(1, &m).unwrap_err().contains("during the count"));
        }
    }

    #[test]
    fn a_stop_answers_quit() {
        let plan = UnitPlan::new(8);
        let runs: Vec<Vec<Unit>> = plan.units().iter().map(|&u| vec![u]).collect();
        let crew = crew(&[0, 1]);
        let mut book = Ledger::new(&plan, &runs, &crew);
        assert_eq!(book.take(1, &Msg::Ready), Ok(Event::Ready));
        assert_eq!(book.answer(1, true), Msg::Quit);
        assert!(!book.open());
    }
}
