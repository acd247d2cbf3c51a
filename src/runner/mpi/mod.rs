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
//! ([`super::schedule::largest_first`]), one at a time, to whichever rank asks next, so fast
//! ranks take more units and the expensive units start first. Ranks 1.. compute, each on
//! T threads (`count --mpi --threads T`, default 1): a rank asks for one unit per idle
//! thread ("slot"), so it has up to T units in flight. Only a rank's main thread calls MPI
//! (no `MPI_THREAD_MULTIPLE` needed); its compute threads take ids from a channel. A slot
//! asks with ready (its first unit), done (a result) or abandoned (after a signal), and
//! gets one answer: a unit id, or quit, which retires it; rank 0 knows every rank's T from
//! its acceptance, so it knows how many quits to send before it stops listening.
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
//! Every result passes through rank 0, which hands it to `on_done` (the checkpoint and the
//! progress bar), so `--checkpoint` works as in a local run. When `stop` is raised on rank 0
//! it hands out nothing more and tells each rank to quit at its next message; a rank whose own
//! stop flag is raised (mpirun forwards SIGTERM) abandons its unit.

pub mod wire;

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

use mpi::topology::{Rank, SimpleCommunicator};
use mpi::traits::Communicator;

use crate::engine::plan::{Engine, Unit, UnitPlan, UnitResult};
use crate::engine::{exec, Config};
use crate::MAX_THREADS;
use wire::{Msg, Offer, PROTOCOL};

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

/// "rank 0's plan (n = 14, quadrant engine, plan 0123456789abcdef)".
pub fn describe(offer: &Offer) -> String {
    let engine = Engine::from_plan_version(u32::try_from(offer.plan_version).unwrap_or(0))
        .map_or_else(
            || format!("plan version {}", offer.plan_version),
            |e| format!("{} engine", e.name()),
        );
    format!(
        "rank 0's plan (n = {}, {engine}, plan {:016x})",
        offer.n, offer.plan_id
    )
}

/// The offer of `plan`, as rank 0 sends it.
pub fn offer_of(plan: &UnitPlan) -> Offer {
    Offer {
        protocol: PROTOCOL,
        n: u64::from(plan.n()),
        plan_version: u64::from(plan.version()),
        plan_id: plan.id(),
        units: plan.len() as u64,
        program: env!("CARGO_PKG_VERSION").into(),
    }
}

/// Whether `plan` (built by a computing rank) is the plan `offer` names.
///
/// # Errors
/// One line naming the first field that differs.
pub fn check_plan(offer: &Offer, plan: &UnitPlan) -> Result<(), String> {
    let ours = offer_of(plan);
    if ours.n != offer.n || ours.plan_version != offer.plan_version {
        return Err(format!(
            "built n = {} plan version {}, not n = {} version {}",
            ours.n, ours.plan_version, offer.n, offer.plan_version
        ));
    }
    if ours.plan_id != offer.plan_id || ours.units != offer.units {
        return Err(format!(
            "built plan {:016x} with {} units, but rank 0's is {:016x} with {}: the two programs split the work differently",
            ours.plan_id, ours.units, offer.plan_id, offer.units
        ));
    }
    Ok(())
}

/// How many ranks of `world` share this rank's node (its shared-memory domain:
/// `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`). Collective: every rank calls it once,
/// after [`hello`] / [`greet`].
pub fn node_ranks(world: &SimpleCommunicator) -> u32 {
    let node = world.split_shared(world.rank());
    u32::try_from(node.size()).unwrap_or(1).max(1)
}

/// A computing rank's first message.
pub fn hello(world: &SimpleCommunicator) {
    wire::send(world, 0, &Msg::Hello { protocol: PROTOCOL });
}

/// Rank 0: reads every computing rank's hello.
///
/// # Errors
/// [`MpiError::Protocol`]: a rank that sent anything else, or speaks another protocol.
pub fn greet(world: &SimpleCommunicator) -> Result<(), MpiError> {
    for rank in 1..world.size() {
        match wire::receive(world, Some(rank)).map_err(MpiError::Protocol)? {
            (_, Msg::Hello { protocol }) if protocol == PROTOCOL => {}
            (_, Msg::Hello { protocol }) => {
                return Err(MpiError::Protocol(format!(
                    "rank {rank} speaks MPI protocol {protocol}, rank 0 speaks {PROTOCOL}: run the same nqueens on every rank"
                )))
            }
            (_, other) => {
                return Err(MpiError::Protocol(format!(
                    "rank {rank} began with a {} message, not a hello: is it the same nqueens?",
                    other.name()
                )))
            }
        }
    }
    Ok(())
}

/// Rank 0, when it cannot start (after [`greet`] and [`node_ranks`]): tells every
/// computing rank to end.
pub fn cancel(world: &SimpleCommunicator, reason: &str) {
    for rank in 1..world.size() {
        wire::send(
            world,
            rank,
            &Msg::Cancel {
                reason: reason.into(),
            },
        );
    }
}

/// The computing ranks that accepted rank 0's plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Crew {
    /// Threads (slots) of each rank, by rank (0 for rank 0).
    threads: Vec<usize>,
    /// The largest quadrant table a rank builds, bytes.
    pub table_bytes: u64,
}

impl Crew {
    /// Compute threads over all computing ranks.
    pub fn threads(&self) -> usize {
        self.threads.iter().sum()
    }
}

/// Rank 0: offers `plan` to every computing rank, reads every answer, and tells every rank
/// to begin (all accepted) or to end.
///
/// # Errors
/// [`MpiError::Refused`] if a rank refused (every rank was told to end);
/// [`MpiError::Protocol`] if a rank answered with anything but an acceptance with 1 to
/// [`MAX_THREADS`] threads or a refusal.
pub fn offer(world: &SimpleCommunicator, plan: &UnitPlan) -> Result<Crew, MpiError> {
    let offer = offer_of(plan);
    for rank in 1..world.size() {
        wire::send(world, rank, &Msg::Offer(offer.clone()));
    }
    let mut crew = Crew {
        threads: vec![0; world.size() as usize],
        table_bytes: 0,
    };
    let mut refused = Vec::new();
    for rank in 1..world.size() {
        match wire::receive(world, Some(rank)).map_err(MpiError::Protocol)? {
            (
                _,
                Msg::Accept {
                    threads,
                    table_bytes,
                },
            ) => {
                let threads = usize::try_from(threads)
                    .ok()
                    .filter(|t| (1..=MAX_THREADS).contains(t))
                    .ok_or_else(|| {
                        MpiError::Protocol(format!(
                            "rank {rank} accepted with {threads} threads (a rank has 1 to {MAX_THREADS})"
                        ))
                    })?;
                crew.threads[rank as usize] = threads;
                crew.table_bytes = crew.table_bytes.max(table_bytes);
            }
            (_, Msg::Refuse { reason }) => refused.push((rank, reason)),
            (_, other) => {
                return Err(MpiError::Protocol(format!(
                    "rank {rank} answered the offer with a {} message",
                    other.name()
                )))
            }
        }
    }
    let go = refused.is_empty();
    let others = refused.len().saturating_sub(1);
    for rank in 1..world.size() {
        wire::send(world, rank, if go { &Msg::Go } else { &Msg::End });
    }
    match refused.into_iter().next() {
        None => Ok(crew),
        Some((rank, reason)) => Err(MpiError::Refused {
            offer,
            rank,
            reason: crate::runner::shown::text(&reason),
            others,
        }),
    }
}

/// What rank 0 said after the hellos.
#[derive(Debug)]
pub enum Opening {
    /// The plan to build.
    Offer(Offer),
    /// Rank 0 cannot start (it says why).
    Cancel,
}

/// A computing rank: rank 0's offer, or its cancellation.
///
/// # Errors
/// [`MpiError::Protocol`] for any other message.
pub fn opening(world: &SimpleCommunicator) -> Result<Opening, MpiError> {
    match wire::receive(world, Some(0)).map_err(MpiError::Protocol)? {
        (_, Msg::Offer(offer)) => Ok(Opening::Offer(offer)),
        (_, Msg::Cancel { .. }) => Ok(Opening::Cancel),
        (_, other) => Err(MpiError::Protocol(format!(
            "rank 0 sent a {} message where its offer belongs",
            other.name()
        ))),
    }
}

/// How the start ended for a computing rank.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    /// Every rank accepted: run the units.
    Go,
    /// This rank accepted, another refused: the count does not begin.
    End,
    /// This rank refused, for this reason (one line); the count does not begin.
    Refused(String),
}

/// A computing rank: answers `offer` with the plan it built from it and the bytes of its
/// table (or why it could not), on `threads` threads, then waits for rank 0's word. It
/// accepts only if the plan it built is the offered one ([`check_plan`]).
///
/// # Errors
/// [`MpiError::Protocol`] if rank 0 then sends anything but begin or end, or begins
/// although this rank refused.
pub fn answer(
    world: &SimpleCommunicator,
    offer: &Offer,
    built: Result<(&UnitPlan, u64), String>,
    threads: usize,
) -> Result<Answer, MpiError> {
    let verdict =
        built.and_then(|(plan, table_bytes)| check_plan(offer, plan).map(|()| table_bytes));
    let msg = match &verdict {
        Ok(table_bytes) => Msg::Accept {
            threads: threads as u64,
            table_bytes: *table_bytes,
        },
        Err(reason) => Msg::Refuse {
            reason: reason.clone(),
        },
    };
    wire::send(world, 0, &msg);
    match (
        wire::receive(world, Some(0)).map_err(MpiError::Protocol)?,
        verdict,
    ) {
        ((_, Msg::Go), Ok(_)) => Ok(Answer::Go),
        ((_, Msg::End), Ok(_)) => Ok(Answer::End),
        ((_, Msg::End), Err(reason)) => Ok(Answer::Refused(reason)),
        ((_, other), _) => Err(MpiError::Protocol(format!(
            "rank 0 answered this rank's {} with a {} message",
            msg.name(),
            other.name()
        ))),
    }
}

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
    /// Slots that asked for their first unit.
    ready: usize,
    /// Slots told to quit.
    retired: usize,
}

/// What a message from a computing rank brought.
#[derive(Debug, PartialEq)]
enum Event {
    /// A slot's first request.
    Ready,
    /// A unit's result.
    Finished(Unit, UnitResult),
    /// A unit abandoned after a signal.
    Abandoned,
}

/// Rank 0's book of the count: which slots are open, which unit is out with which rank.
/// It checks every message against the book, so a result is taken only for a unit handed
/// to that rank and not yet returned.
struct Ledger<'a> {
    plan: &'a UnitPlan,
    next: std::slice::Iter<'a, Unit>,
    ranks: Vec<Slots>,
    /// Unit id -> the rank it was handed to, until it comes back.
    out: HashMap<u32, Rank>,
    handed: usize,
}

impl<'a> Ledger<'a> {
    fn new(plan: &'a UnitPlan, units: &'a [Unit], crew: &Crew) -> Ledger<'a> {
        Ledger {
            plan,
            next: units.iter(),
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
            Msg::Done {
                id,
                solutions,
                nodes,
            } => Ok(Event::Finished(
                self.back(rank, id)?,
                UnitResult { solutions, nodes },
            )),
            Msg::Abandoned { id } => self.back(rank, id).map(|_| Event::Abandoned),
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

    /// The answer to the slot of `rank` that just asked: its next unit, or quit.
    fn answer(&mut self, rank: Rank, stop: bool) -> Msg {
        match self.next.next() {
            Some(u) if !stop => {
                self.out.insert(u.id, rank);
                self.handed += 1;
                Msg::Unit {
                    id: u64::from(u.id),
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

/// Rank 0, after [`offer`]: hands `units` (in that order) to the `crew`, calling `on_done`
/// for each result.
///
/// # Errors
/// [`MpiError::Protocol`] for a message the [`Ledger`] refuses (the caller aborts the job).
pub fn schedule<F>(
    world: &SimpleCommunicator,
    plan: &UnitPlan,
    units: &[Unit],
    crew: &Crew,
    stop: &AtomicBool,
    mut on_done: F,
) -> Result<Scheduled, MpiError>
where
    F: FnMut(&Unit, &UnitResult),
{
    let mut ledger = Ledger::new(plan, units, crew);
    let mut out = Scheduled {
        threads: crew.threads(),
        ..Scheduled::default()
    };
    while ledger.open() {
        let (rank, msg) = wire::receive(world, None).map_err(MpiError::Protocol)?;
        match ledger.take(rank, &msg).map_err(MpiError::Protocol)? {
            Event::Finished(u, r) => {
                on_done(&u, &r);
                out.finished += 1;
            }
            Event::Abandoned => out.interrupted = true,
            Event::Ready => {}
        }
        let reply = ledger.answer(rank, stop.load(Ordering::SeqCst));
        wire::send(world, rank, &reply);
    }
    out.interrupted |= out.finished < units.len() || ledger.handed < units.len();
    Ok(out)
}

/// Ranks 1.., after [`answer`] said go: asks rank 0 for units of `plan` and runs them on
/// `threads` threads (1..=[`MAX_THREADS`]) until every thread is told to quit.
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
    // One request for work: the answer is a unit id of the plan (checked here, so the
    // compute threads index the plan safely) or quit.
    let ask = |msg: &Msg| -> Result<Option<u64>, String> {
        wire::send(world, 0, msg);
        match wire::receive(world, Some(0))?.1 {
            Msg::Unit { id } if id < plan.len() as u64 => Ok(Some(id)),
            Msg::Unit { id } => Err(format!(
                "rank 0 sent unit {id}, outside the plan's {} units",
                plan.len()
            )),
            Msg::Quit => Ok(None),
            other => Err(format!(
                "rank 0 answered a {} message with a {} message",
                msg.name(),
                other.name()
            )),
        }
    };
    let (to_do, ids) = mpsc::channel::<u64>();
    let ids = Mutex::new(ids);
    let (finished, results) = mpsc::channel::<Msg>();
    let failure = std::thread::scope(|scope| {
        for _ in 0..threads {
            let (ids, finished) = (&ids, finished.clone());
            scope.spawn(move || loop {
                // The lock is held only to take an id; the channel closes when all slots quit.
                let next = ids.lock().unwrap_or_else(|p| p.into_inner()).recv();
                let Ok(id) = next else { return };
                let unit = plan.units()[id as usize]; // checked by `ask`
                let msg = match exec::run_until_with(plan.n() as usize, &unit, config, stop) {
                    Some(r) => Msg::Done {
                        id,
                        solutions: r.solutions,
                        nodes: r.nodes,
                    },
                    None => Msg::Abandoned { id },
                };
                if finished.send(msg).is_err() {
                    return;
                }
            });
        }
        drop(finished);
        // Sends an answered id to the compute threads; how many units that put in flight.
        let hand = |answer: Result<Option<u64>, String>| -> Result<usize, String> {
            Ok(match answer? {
                Some(id) if to_do.send(id).is_ok() => 1,
                _ => 0,
            })
        };
        // One ask per slot, then each result asks for the next unit for its thread.
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
        let units = plan.units().to_vec();
        let crew = crew(&[0, 1, 2]);
        let mut book = Ledger::new(&plan, &units, &crew);
        let mut out: Vec<(Rank, u64)> = Vec::new();
        let mut done = 0;
        for rank in [1, 2, 2] {
            assert_eq!(book.take(rank, &Msg::Ready), Ok(Event::Ready));
            if let Msg::Unit { id } = book.answer(rank, false) {
                out.push((rank, id));
            }
        }
        while let Some((rank, id)) = out.pop() {
            let r = plan.units()[id as usize].run(8);
            let msg = Msg::Done {
                id,
                solutions: r.solutions,
                nodes: r.nodes,
            };
            assert!(matches!(book.take(rank, &msg), Ok(Event::Finished(..))));
            done += 1;
            if let Msg::Unit { id } = book.answer(rank, false) {
                out.push((rank, id));
            }
        }
        assert_eq!(done, plan.len());
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
        let units = plan.units().to_vec();
        let crew = crew(&[0, 2, 1]);
        let mut book = Ledger::new(&plan, &units, &crew);
        let done = |id| Msg::Done {
            id,
            solutions: 1,
            nodes: 1,
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
        assert!(book.take(1, &Msg::Abandoned { id: 1 << 40 }).is_err());
        // More first requests than threads.
        assert_eq!(book.take(2, &Msg::Ready), Ok(Event::Ready));
        assert!(book
            .take(2, &Msg::Ready)
            .unwrap_err()
            .contains("more first units"));
        // A unit handed to rank 2 comes back from rank 1: refused; from rank 2 once: taken.
        let Msg::Unit { id } = book.answer(2, false) else {
            panic!("a unit is left")
        };
        assert!(book.take(1, &done(id)).is_err());
        assert!(book.take(2, &done(id)).is_ok());
        assert!(book
            .take(2, &done(id))
            .unwrap_err()
            .contains("already had back"));
        // Messages that belong to the start, or rank 0's own kinds.
        for m in [
            Msg::Hello { protocol: PROTOCOL },
            Msg::Go,
            Msg::Quit,
            Msg::Unit { id: 0 },
            Msg::Accept {
                threads: 1,
                table_bytes: 0,
            },
        ] {
            assert!(book.take(1, &m).unwrap_err().contains("during the count"));
        }
    }

    #[test]
    fn a_stop_answers_quit_and_the_plan_check_names_what_differs() {
        let plan = UnitPlan::new(8);
        let units = plan.units().to_vec();
        let crew = crew(&[0, 1]);
        let mut book = Ledger::new(&plan, &units, &crew);
        assert_eq!(book.take(1, &Msg::Ready), Ok(Event::Ready));
        assert_eq!(book.answer(1, true), Msg::Quit);
        assert!(!book.open());

        let offer = offer_of(&plan);
        assert_eq!(check_plan(&offer, &plan), Ok(()));
        let other_n = offer_of(&UnitPlan::new(9));
        assert!(check_plan(&other_n, &plan)
            .unwrap_err()
            .contains("not n = 9"));
        let other_engine = offer_of(&UnitPlan::with_engine(8, Engine::Quadrant));
        assert!(check_plan(&other_engine, &plan).is_err());
        let forged = Offer {
            plan_id: offer.plan_id ^ 1,
            ..offer.clone()
        };
        assert!(check_plan(&forged, &plan)
            .unwrap_err()
            .contains("split the work differently"));
        assert!(describe(&offer).contains("n = 8, backtrack engine, plan "));
    }
}
