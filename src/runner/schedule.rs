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
//! the lower index. The assignment depends only on n, the plan and the split rule (below),
//! so every shard computes the same split without talking to the others. Worked number: n
//! = 16 into 8 shards gives 8 lists of 640 or 641 units whose estimated costs differ by
//! under 1%.
//!
//! Odd boards up to n = 25 are split by *bundles* instead ([`SplitRule::Bundles`]): the
//! units of one frame group and one prefix go to one shard together, so that the shard's
//! runner counts them as one bundle (each set's full half searched once for the group, see
//! `quadrant::bundles`). Split unit by unit, a shard's units are spread over the plan by
//! cost and rarely share a bundle. The rule is part of the split, so a shard file and a
//! shard's checkpoint name it, and `merge` recomputes the split by the files' rule. Which
//! rule a count chooses by default asks the time model ([`SplitRule::auto`]); the split by
//! a given rule does not.
//!
//! The same [`list_schedule`] replays measured unit costs for `nqueens plan --stats` (the
//! makespan a dynamic scheduler such as `--mpi` would reach on P workers).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::slice::ParallelSliceMut;
use serde::{Deserialize, Serialize};

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

/// How a split hands a plan's units to its shards ([`Split`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SplitRule {
    /// Unit by unit, largest estimated cost first, each to the least loaded shard: every
    /// split of even n, the automatic one of n >= 27 ([`SplitRule::auto`]), every split
    /// before 2026-12-07, and the rule of a shard file or checkpoint that names none.
    #[default]
    Units,
    /// Whole bundles, largest estimated total first, each to the least loaded shard: the
    /// units of one frame group and one prefix (odd n, [`Bundles`]) stay together, so the
    /// shard counts them as one bundle. Where a plan has no bundles (even n, the
    /// backtracking engine) it is the same split as [`SplitRule::Units`], and is named so.
    Bundles,
}

impl SplitRule {
    /// The rule as `--split` and the files name it: `units` or `bundles`.
    pub fn name(self) -> &'static str {
        match self {
            SplitRule::Units => "units",
            SplitRule::Bundles => "bundles",
        }
    }

    /// Whether this is the default rule (for serde: a file of the unit rule does not write
    /// it, and reads as before).
    pub fn is_units(&self) -> bool {
        *self == SplitRule::Units
    }

    /// The rule a split of `plan` into `count` shards uses when none is asked for: by
    /// bundles where the plan's runner counts bundles (odd n up to 25) and there are at
    /// least [`BUNDLES_A_SHARD`] bundles a shard on average, else by units. It asks the
    /// time model (`quadrant::bundles`), so two program versions may choose differently
    /// for one campaign: the files record the rule, and a campaign run by two versions
    /// names it with `--split` (a merge refuses a file of the other rule, naming it).
    pub fn auto(plan: &UnitPlan, count: u32) -> SplitRule {
        match Bundles::of(plan) {
            Some(b) if b.count(plan) >= BUNDLES_A_SHARD.saturating_mul(count as usize) => {
                SplitRule::Bundles
            }
            _ => SplitRule::Units,
        }
    }

    /// This rule as it applies to `plan`: [`SplitRule::Bundles`] becomes
    /// [`SplitRule::Units`] where the plan has no bundles (the same split).
    pub fn for_plan(self, plan: &UnitPlan) -> SplitRule {
        match self {
            SplitRule::Bundles if Bundles::of_split(plan).is_none() => SplitRule::Units,
            rule => rule,
        }
    }

    /// The most shards a split of `plan` by this rule may have: one unit, or one bundle,
    /// each at least.
    pub fn most_shards(self, plan: &UnitPlan) -> usize {
        match (self, Bundles::of_split(plan)) {
            (SplitRule::Bundles, Some(b)) => b.count(plan),
            _ => plan.len(),
        }
    }
}

impl fmt::Display for SplitRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Bundles a shard gets at least, on average, for [`SplitRule::auto`] to split by bundles:
/// with fewer, the largest bundles (up to h - 1 units) would unbalance the shards. Worked
/// numbers: n = 23's 44,518 bundles split by bundles into up to 1,391 shards, n = 25's
/// 48,935 into up to 1,529; a split into more goes unit by unit.
pub const BUNDLES_A_SHARD: usize = 32;

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

/// The units of shard `spec` split by `rule`, in id order.
#[cfg(test)]
pub fn units_of(plan: &UnitPlan, spec: ShardSpec, rule: SplitRule) -> Vec<Unit> {
    units_of_until(plan, spec, rule, &NEVER).expect("never stopped")
}

/// `units_of`, giving up (None) soon after `stop` becomes true.
pub(crate) fn units_of_until(
    plan: &UnitPlan,
    spec: ShardSpec,
    rule: SplitRule,
    stop: &AtomicBool,
) -> Option<Vec<Unit>> {
    let split = Split::of_until(plan, spec.count, rule, stop)?;
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
    /// The bundles of `plan`, or None where its units are best handed out alone (by the
    /// engine's time model: odd n up to 25, see `quadrant::bundles`).
    pub(crate) fn of(plan: &UnitPlan) -> Option<Bundles> {
        match plan.engine() {
            Engine::Quadrant => quadrant::bundles(plan.n(), plan.len()),
            Engine::Backtrack => None,
        }
        .map(|group_of| Bundles { group_of })
    }

    /// The bundles of a split by [`SplitRule::Bundles`]: those of every odd n, whatever
    /// the time model says (`quadrant::frame_groups`), so that a merge recomputes the
    /// split the shards ran.
    pub(crate) fn of_split(plan: &UnitPlan) -> Option<Bundles> {
        match plan.engine() {
            Engine::Quadrant => quadrant::frame_groups(plan.n()),
            Engine::Backtrack => None,
        }
        .map(|group_of| Bundles { group_of })
    }

    /// How many bundles `plan` has.
    pub(crate) fn count(&self, plan: &UnitPlan) -> usize {
        let keys: std::collections::HashSet<_> = plan.units().iter().map(|u| self.key(u)).collect();
        keys.len()
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
    let Some(bundles) = Bundles::of(plan) else {
        return order.iter().map(|&(u, _)| vec![u]).collect();
    };
    gather(&bundles, order, most)
        .into_iter()
        .map(|(_, run)| run)
        .collect()
}

/// The units of `order` (with their estimated costs, largest first) gathered by bundle,
/// at most `most` units a run, with each run's estimated total: the runs largest total
/// first, ties in the order of their first unit.
fn gather(bundles: &Bundles, order: &[(Unit, u64)], most: usize) -> Vec<(u128, Vec<Unit>)> {
    let most = most.max(1);
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
    runs
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
    /// The split of `plan` into `count` shards by `rule`; None if `stop` was raised first.
    ///
    /// By bundles, the runs are whole bundles ([`gather`] without a limit) and list
    /// scheduling hands out runs instead of units, each run's units to one shard. Worked
    /// numbers, n = 23 into 1,000 shards: 44,518 runs of 1 to 10 units, about 45 a shard
    /// (228 units).
    pub(crate) fn of_until(
        plan: &UnitPlan,
        count: u32,
        rule: SplitRule,
        stop: &AtomicBool,
    ) -> Option<Split> {
        let order = largest_first_until(plan, stop)?;
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let mut split = Split {
            shard: vec![0; plan.len()],
            cost: vec![0; plan.len()],
        };
        for &(u, c) in &order {
            split.cost[u.id as usize] = c;
        }
        match (rule, Bundles::of_split(plan)) {
            (SplitRule::Bundles, Some(bundles)) => {
                let runs = gather(&bundles, &order, usize::MAX);
                let costs: Vec<u64> = runs
                    .iter()
                    .map(|r| u64::try_from(r.0).unwrap_or(u64::MAX))
                    .collect();
                let (assigned, _) = list_schedule(&costs, count as usize);
                for ((_, run), w) in runs.iter().zip(assigned) {
                    for u in run {
                        split.shard[u.id as usize] = w as u32;
                    }
                }
            }
            // Unit by unit, without a run of one a unit: n = 28's plan has 20 million.
            _ => {
                let costs: Vec<u64> = order.iter().map(|&(_, c)| c).collect();
                let (assigned, _) = list_schedule(&costs, count as usize);
                for (&(u, _), w) in order.iter().zip(assigned) {
                    split.shard[u.id as usize] = w as u32;
                }
            }
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
    fn a_split_by_bundles_keeps_each_bundle_in_one_shard() {
        for n in [13u32, 15] {
            let plan = UnitPlan::with_engine(n, Engine::Quadrant);
            let b = Bundles::of_split(&plan).expect("odd n has bundles");
            let never = AtomicBool::new(false);
            for m in [1u32, 2, 5, 16] {
                let split = Split::of_until(&plan, m, SplitRule::Bundles, &never).unwrap();
                let mut shard_of = HashMap::new();
                for u in plan.units() {
                    let k = split.shard[u.id as usize];
                    assert!(k < m);
                    let first = *shard_of.entry(b.key(u)).or_insert(k);
                    assert_eq!(first, k, "n = {n}, m = {m}: a bundle in two shards");
                    assert_eq!(split.cost[u.id as usize], cost::estimate(n, u));
                }
                // Balanced as list scheduling of whole bundles promises: no shard above
                // the mean by more than the largest bundle.
                let mut load = vec![0u128; m as usize];
                let mut bundle = HashMap::<_, u128>::new();
                for u in plan.units() {
                    let c = u128::from(split.cost[u.id as usize]);
                    load[split.shard[u.id as usize] as usize] += c;
                    *bundle.entry(b.key(u)).or_default() += c;
                }
                let mean = load.iter().sum::<u128>() / u128::from(m);
                let largest = bundle.values().max().copied().unwrap();
                assert!(
                    load.iter().all(|&l| l <= mean + largest),
                    "n = {n}, m = {m}"
                );
                // The units rule is the split of before: units largest first, list
                // scheduled one by one.
                let units = Split::of_until(&plan, m, SplitRule::Units, &never).unwrap();
                let order = largest_first(&plan);
                let costs: Vec<u64> = order.iter().map(|&(_, c)| c).collect();
                let (assigned, _) = list_schedule(&costs, m as usize);
                for (&(u, _), w) in order.iter().zip(assigned) {
                    assert_eq!(units.shard[u.id as usize], w as u32);
                }
            }
        }
    }

    #[test]
    fn the_automatic_rule_bundles_only_odd_plans_with_enough_bundles_a_shard() {
        let odd = UnitPlan::with_engine(15, Engine::Quadrant);
        let bundles = Bundles::of(&odd).unwrap().count(&odd);
        assert!(
            bundles < odd.len() / 2,
            "{bundles} bundles of {} units",
            odd.len()
        );
        assert_eq!(SplitRule::Bundles.most_shards(&odd), bundles);
        assert_eq!(SplitRule::Units.most_shards(&odd), odd.len());
        let most = (bundles / BUNDLES_A_SHARD) as u32;
        assert_eq!(SplitRule::auto(&odd, 1), SplitRule::Bundles);
        assert_eq!(SplitRule::auto(&odd, most), SplitRule::Bundles);
        assert_eq!(SplitRule::auto(&odd, most + 1), SplitRule::Units);
        assert_eq!(SplitRule::Bundles.for_plan(&odd), SplitRule::Bundles);
        for even in [
            UnitPlan::with_engine(14, Engine::Quadrant),
            UnitPlan::with_engine(15, Engine::Backtrack),
        ] {
            assert_eq!(SplitRule::auto(&even, 1), SplitRule::Units);
            assert_eq!(SplitRule::Bundles.for_plan(&even), SplitRule::Units);
            assert_eq!(SplitRule::Bundles.most_shards(&even), even.len());
        }
    }

    #[test]
    fn shards_partition_the_plan() {
        let plan = UnitPlan::new(12);
        for m in [1, 2, 3, 7] {
            let mut ids: Vec<u32> = (0..m)
                .flat_map(|k| units_of(&plan, ShardSpec { index: k, count: m }, SplitRule::Units))
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
                units_of(&plan, ShardSpec { index: k, count: 8 }, SplitRule::Units)
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
