//! The schedule of a plan: shard membership and list scheduling.
//!
//! A shard is a fixed split of a unit plan into M parts of about equal cost, computed
//! independently (a Slurm job array, GNU parallel, ssh), written as a shard file
//! ([`super::shard`]) and merged back ([`super::merge`]) only if the files cover the plan
//! exactly once.
//!
//! # Split policy
//!
//! Shard indices are 0-based: `K/M` with `0 <= K < M`, so a Slurm array `--array=0-(M-1)`
//! passes `$SLURM_ARRAY_TASK_ID` straight through (as does a Kubernetes indexed job's
//! `$JOB_COMPLETION_INDEX`). Units go to shards by greedy list scheduling on the estimated
//! cost ([`crate::engine::cost`]): largest first, each to the least loaded shard, ties to
//! the lower index. The assignment depends only on n and the plan, so every shard computes
//! the same split without talking to the others. Worked number: n = 16 into 8 shards gives
//! 8 lists of 640 or 641 units whose estimated costs differ by under 1%.
//!
//! The same [`list_schedule`] replays measured unit costs for `nqueens plan --stats` (the
//! makespan a dynamic scheduler such as `--mpi` would reach on P workers).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::slice::ParallelSliceMut;

use crate::engine::plan::{Unit, UnitKind, UnitPlan};
use crate::engine::{cost, quadrant, NEVER};
use crate::Engine;

/// Shard K of M, 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    /// This shard, `0..count`.
    pub index: u32,
    /// Number of shards, at least 1.
    pub count: u32,
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for ShardSpec {
    type Err = String;

    /// Parses `K/M`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || {
            format!("'{s}' is not a shard: expected K/M with 0 <= K < M, e.g. 0/8 (K is 0-based)")
        };
        let (k, m) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (
            k.trim().parse().map_err(|_| bad())?,
            m.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 {
            return Err(format!("shard count 0 in '{s}': use at least 1 shard"));
        }
        if index >= count {
            return Err(format!("shard index {index} is out of range in '{s}': K is 0-based, so use 0..{} for M = {count}", count - 1));
        }
        Ok(ShardSpec { index, count })
    }
}

/// Greedy list scheduling: hands `costs` out in the given order, each to the worker that is
/// free first (ties to the lowest worker). Returns each job's worker and the makespan.
///
/// Workers past the number of jobs never get one (each job goes to an idle worker, the
/// lowest first), so they are not made: `count 8 --shard 0/4294967295` once allocated
/// 137 GB for the heap of idle shards.
pub fn list_schedule(costs: &[u64], workers: usize) -> (Vec<usize>, u128) {
    let workers = workers.clamp(1, costs.len().max(1));
    let mut free_at: BinaryHeap<Reverse<(u128, usize)>> =
        (0..workers).map(|w| Reverse((0, w))).collect();
    let mut assigned = Vec::with_capacity(costs.len());
    for &c in costs {
        let Reverse((t, w)) = free_at.pop().expect("at least one worker");
        assigned.push(w);
        free_at.push(Reverse((t + u128::from(c), w)));
    }
    let makespan = free_at
        .into_iter()
        .map(|Reverse((t, _))| t)
        .max()
        .unwrap_or(0);
    (assigned, makespan)
}

/// The plan's units, largest estimated cost first (ties by id): the order in which shards
/// are filled and a dynamic scheduler hands units out.
pub fn largest_first(plan: &UnitPlan) -> Vec<(Unit, u64)> {
    largest_first_until(plan, &NEVER).expect("never stopped")
}

/// [`largest_first`], giving up (None) soon after `stop` becomes true.
pub(crate) fn largest_first_until(plan: &UnitPlan, stop: &AtomicBool) -> Option<Vec<(Unit, u64)>> {
    let mut v: Vec<(Unit, u64)> = plan
        .units()
        .iter()
        .copied()
        .zip(cost::estimates_until(plan, stop)?)
        .collect();
    v.par_sort_unstable_by_key(|&(u, c)| (Reverse(c), u.id));
    Some(v)
}

/// The units of shard `spec`, in id order.
#[cfg(test)]
pub fn units_of(plan: &UnitPlan, spec: ShardSpec) -> Vec<Unit> {
    units_of_until(plan, spec, &NEVER).expect("never stopped")
}

/// `units_of`, giving up (None) soon after `stop` becomes true.
pub(crate) fn units_of_until(
    plan: &UnitPlan,
    spec: ShardSpec,
    stop: &AtomicBool,
) -> Option<Vec<Unit>> {
    let split = Split::of_until(plan, spec.count, stop)?;
    Some(
        plan.units()
            .iter()
            .filter(|u| split.shard[u.id as usize] == spec.index)
            .copied()
            .collect(),
    )
}

/// Which units a runner hands out together: where the quadrant engine counts the units of
/// one frame group and one prefix together (odd n up to 25, see `quadrant::bundles` and
/// `Prepared::run_batch`), a unit's bundle; elsewhere none.
pub(crate) struct Bundles {
    /// The group of each frame of the plan.
    group_of: Vec<u16>,
}

impl Bundles {
    /// The bundles of `plan`, or None where its units are best handed out alone.
    pub(crate) fn of(plan: &UnitPlan) -> Option<Bundles> {
        match plan.engine() {
            Engine::Quadrant => quadrant::bundles(plan.n(), plan.len()),
            Engine::Backtrack => None,
        }
        .map(|group_of| Bundles { group_of })
    }

    /// The bundle of `u`: equal for the units of one group and one prefix, and for no other
    /// two units.
    pub(crate) fn key(&self, u: &Unit) -> (u8, u16, u32) {
        match u.kind {
            UnitKind::Quadrant { frame, prefix } => (0, self.group_of[frame as usize], prefix),
            _ => (1, 0, u.id),
        }
    }
}

/// The runs a dynamic scheduler (`--mpi`) hands out, each to one worker: the units of
/// `order` (with their estimated costs, largest first), a bundle's units in one run of at
/// most `most` ([`Bundles`]), the runs largest estimated total first (ties in the order of
/// their first unit); where there are no bundles, each unit alone, in the order given.
/// Worked numbers: n = 23's 228,208 units make 44,518 runs of up to 10 units (the frames of
/// its largest group), n = 25's 274,160 make 48,935 of up to 11.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))] // the MPI runner's, and the tests'
pub fn runs(plan: &UnitPlan, order: &[(Unit, u64)], most: usize) -> Vec<Vec<Unit>> {
    let most = most.max(1);
    let Some(bundles) = Bundles::of(plan) else {
        return order.iter().map(|&(u, _)| vec![u]).collect();
    };
    let mut open: HashMap<(u8, u16, u32), usize> = HashMap::new();
    let mut runs: Vec<(u128, Vec<Unit>)> = Vec::new();
    for &(u, cost) in order {
        let key = bundles.key(&u);
        let at = match open.get(&key) {
            Some(&at) if runs[at].1.len() < most => at,
            _ => {
                runs.push((0, Vec::new()));
                open.insert(key, runs.len() - 1);
                runs.len() - 1
            }
        };
        runs[at].0 += u128::from(cost);
        runs[at].1.push(u);
    }
    runs.sort_by_key(|r| Reverse(r.0)); // stable: ties keep their order
    runs.into_iter().map(|(_, run)| run).collect()
}

/// The split of a plan into M shards: each unit's shard and estimated cost, by unit id.
#[derive(Clone, Debug)]
pub struct Split {
    /// The shard of each unit.
    pub shard: Vec<u32>,
    /// The estimated cost of each unit ([`cost::estimates`]).
    pub cost: Vec<u64>,
}

impl Split {
    /// The split of `plan` into `count` shards; None if `stop` was raised first.
    pub(crate) fn of_until(plan: &UnitPlan, count: u32, stop: &AtomicBool) -> Option<Split> {
        let order = largest_first_until(plan, stop)?;
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let costs: Vec<u64> = order.iter().map(|&(_, c)| c).collect();
        let (assigned, _) = list_schedule(&costs, count as usize);
        let mut split = Split {
            shard: vec![0; plan.len()],
            cost: vec![0; plan.len()],
        };
        for (&(u, c), w) in order.iter().zip(assigned) {
            split.shard[u.id as usize] = w as u32;
            split.cost[u.id as usize] = c;
        }
        Some(split)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_zero_based_specs() {
        assert_eq!(
            "0/8".parse::<ShardSpec>(),
            Ok(ShardSpec { index: 0, count: 8 })
        );
        assert!("8/8".parse::<ShardSpec>().unwrap_err().contains("0-based"));
        assert!("1/0".parse::<ShardSpec>().is_err());
        assert!("x".parse::<ShardSpec>().is_err());
    }

    #[test]
    fn runs_hand_out_each_unit_once_and_a_bundle_together() {
        for n in [13u32, 14] {
            let plan = UnitPlan::with_engine(n, Engine::Quadrant);
            let order = largest_first(&plan);
            let bundles = Bundles::of(&plan);
            assert_eq!(bundles.is_some(), n % 2 == 1, "n = {n}");
            for most in [1, 3, 32] {
                let runs = runs(&plan, &order, most);
                let mut ids: Vec<u32> = runs.iter().flatten().map(|u| u.id).collect();
                ids.sort_unstable();
                assert!(ids.iter().copied().eq(0..plan.len() as u32), "n = {n}");
                assert!(runs.iter().all(|r| (1..=most).contains(&r.len())));
                let cost = |r: &Vec<Unit>| -> u64 { r.iter().map(|u| cost::estimate(n, u)).sum() };
                assert!(
                    runs.windows(2).all(|w| cost(&w[0]) >= cost(&w[1])),
                    "largest first"
                );
                let Some(b) = &bundles else {
                    // Even n: each unit alone, in the order given.
                    assert!(runs.iter().map(|r| r[0]).eq(order.iter().map(|&(u, _)| u)));
                    continue;
                };
                assert!(runs
                    .iter()
                    .all(|r| r.iter().all(|u| b.key(u) == b.key(&r[0]))));
                if most == 32 {
                    // Every bundle whole: as many runs as bundles, some of several units.
                    let keys: std::collections::HashSet<_> =
                        plan.units().iter().map(|u| b.key(u)).collect();
                    assert_eq!(runs.len(), keys.len(), "n = {n}");
                    assert!(runs.iter().any(|r| r.len() >= 3));
                }
            }
        }
    }

    #[test]
    fn shards_partition_the_plan() {
        let plan = UnitPlan::new(12);
        for m in [1, 2, 3, 7] {
            let mut ids: Vec<u32> = (0..m)
                .flat_map(|k| units_of(&plan, ShardSpec { index: k, count: m }))
                .map(|u| u.id)
                .collect();
            ids.sort_unstable();
            assert_eq!(ids, (0..plan.len() as u32).collect::<Vec<_>>(), "m = {m}");
        }
    }

    #[test]
    fn shards_are_cost_balanced() {
        let plan = UnitPlan::new(16);
        let loads: Vec<u64> = (0..8)
            .map(|k| {
                units_of(&plan, ShardSpec { index: k, count: 8 })
                    .iter()
                    .map(|u| cost::estimate(16, u))
                    .sum()
            })
            .collect();
        let (lo, hi) = (*loads.iter().min().unwrap(), *loads.iter().max().unwrap());
        assert!((hi - lo) as f64 <= 0.01 * hi as f64, "{loads:?}");
    }

    #[test]
    fn list_schedule_is_greedy() {
        assert_eq!(list_schedule(&[], 3).1, 0);
        assert_eq!(list_schedule(&[7, 1, 1, 1], 2).1, 7);
        assert_eq!(list_schedule(&[3, 3, 3], 1).1, 9);
        // More workers than jobs: the same schedule, without a heap of idle workers.
        assert_eq!(list_schedule(&[4, 2, 1], usize::MAX), (vec![0, 1, 2], 4));
    }
}

/// The examples that were this module's doc tests (doc tests cannot reach `pub(crate)`
/// items).
#[cfg(test)]
mod examples {
    #[test]
    fn list_schedule_example() {
        use crate::runner::schedule::list_schedule;
        assert_eq!(list_schedule(&[5, 4, 3, 3], 2), (vec![0, 1, 1, 0], 8));
    }
}
