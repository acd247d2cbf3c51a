//! The start of an MPI count: hellos, the node share, rank 0's offer of its plan, each
//! computing rank's answer, and rank 0's word to begin or end (see the module doc of
//! `runner::mpi` for the order and why).

use mpi::topology::SimpleCommunicator;
use mpi::traits::Communicator;

use super::wire::{self, Msg, Offer, PROTOCOL};
use super::MpiError;
use crate::engine::plan::{Engine, UnitPlan};
use crate::MAX_THREADS;

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
        match wire::receive(world, rank).map_err(MpiError::Protocol)? {
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
    pub threads: Vec<usize>,
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
        match wire::receive(world, rank).map_err(MpiError::Protocol)? {
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
    match wire::receive(world, 0).map_err(MpiError::Protocol)? {
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
        wire::receive(world, 0).map_err(MpiError::Protocol)?,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_check_names_what_differs() {
        let plan = UnitPlan::new(8);
        let offer = offer_of(&plan);
        assert_eq!(check_plan(&offer, &plan), Ok(()));
        let other_n = offer_of(&UnitPlan::new(9));
        assert!(check_plan(&other_n, &plan)
            .unwrap_err()
            .contains("not n = 9"));
        let other_engine = offer_of(&UnitPlan::with_engine(
            8,
            Engine::named("quadrant").unwrap(),
        ));
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
