//! Shards: a fixed split of a unit plan into M parts of about equal cost, computed
//! independently (a Slurm job array, GNU parallel, ssh), written as JSON shard files, and
//! merged back only if they cover the plan exactly once.
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
use std::collections::BinaryHeap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::record::{check_value, fnv1a64, FileError};
use crate::engine::cost;
use crate::engine::counts::Tally;
use crate::engine::plan::{Unit, UnitPlan, UnitResult, PLAN_VERSION};

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
/// # Examples
/// ```
/// use nqueens::runner::shard::list_schedule;
/// assert_eq!(list_schedule(&[5, 4, 3, 3], 2), (vec![0, 1, 1, 0], 8));
/// ```
pub fn list_schedule(costs: &[u64], workers: usize) -> (Vec<usize>, u128) {
    let workers = workers.max(1);
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
    let mut v: Vec<(Unit, u64)> = plan
        .units()
        .iter()
        .map(|u| (*u, cost::estimate(plan.n(), u)))
        .collect();
    v.sort_by_key(|&(u, c)| (Reverse(c), u.id));
    v
}

/// The units of shard `spec`, in id order.
pub fn units_of(plan: &UnitPlan, spec: ShardSpec) -> Vec<Unit> {
    let order = largest_first(plan);
    let costs: Vec<u64> = order.iter().map(|&(_, c)| c).collect();
    let (assigned, _) = list_schedule(&costs, spec.count as usize);
    let mut units: Vec<Unit> = order
        .iter()
        .zip(assigned)
        .filter(|&(_, w)| w == spec.index as usize)
        .map(|(&(u, _), _)| u)
        .collect();
    units.sort_by_key(|u| u.id);
    units
}

/// One unit's result in a shard file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitEntry {
    /// Unit id in the plan.
    pub id: u32,
    /// Unweighted solutions of the unit.
    pub solutions: u64,
    /// Search nodes of the unit.
    pub nodes: u64,
    /// Residues mod 13 and 15 of solutions and nodes: `s13/s15,n13/n15`.
    pub check: String,
}

/// A shard file: the results of one shard's units, with what is needed to merge it safely.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardFile {
    /// Always "nqueens-shard".
    pub format: String,
    /// Version of this file format (1).
    pub format_version: u32,
    /// Version of the program that wrote it.
    pub program: String,
    /// Board size.
    pub n: u32,
    /// Unit plan id (hex) the unit ids refer to.
    pub plan_id: String,
    /// Unit plan version.
    pub plan_version: u32,
    /// Number of units in the whole plan.
    pub plan_units: usize,
    /// This shard's index (0-based).
    pub shard_index: u32,
    /// Number of shards in the split.
    pub shard_count: u32,
    /// Wall time of the shard's computation, seconds.
    pub seconds: f64,
    /// Worker threads used.
    pub threads: usize,
    /// Per-unit results, by id.
    pub units: Vec<UnitEntry>,
    /// FNV-1a digest (hex) of n, plan id, shard and every unit's id and counts.
    pub digest: String,
}

fn digest(n: u32, plan_id: &str, index: u32, count: u32, units: &[UnitEntry]) -> String {
    let mut text = format!("{n} {plan_id} {index}/{count}");
    for u in units {
        text.push_str(&format!(" {}:{}:{}", u.id, u.solutions, u.nodes));
    }
    format!("{:016x}", fnv1a64(text.as_bytes()))
}

impl ShardFile {
    /// Builds the shard file of `spec` from its units' results (in id order).
    pub fn new(
        plan: &UnitPlan,
        spec: ShardSpec,
        results: &[(u32, UnitResult)],
        seconds: f64,
        threads: usize,
    ) -> ShardFile {
        let units: Vec<UnitEntry> = results
            .iter()
            .map(|&(id, r)| UnitEntry {
                id,
                solutions: r.solutions,
                nodes: r.nodes,
                check: check_value(&r),
            })
            .collect();
        ShardFile {
            format: "nqueens-shard".into(),
            format_version: 1,
            program: env!("CARGO_PKG_VERSION").into(),
            n: plan.n(),
            plan_id: plan.id_hex(),
            plan_version: PLAN_VERSION,
            plan_units: plan.len(),
            shard_index: spec.index,
            shard_count: spec.count,
            seconds,
            threads,
            digest: digest(plan.n(), &plan.id_hex(), spec.index, spec.count, &units),
            units,
        }
    }

    /// Reads and checks one shard file on its own: format, digest and check values.
    ///
    /// # Errors
    /// A [`FileError`] naming the file.
    pub fn read(path: &Path) -> Result<ShardFile, FileError> {
        let err = |r: String| FileError::new("shard", path, r);
        let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
        let f: ShardFile =
            serde_json::from_str(&text).map_err(|e| err(format!("not a valid shard file: {e}")))?;
        if f.format != "nqueens-shard" || f.format_version != 1 {
            return Err(err(format!(
                "unsupported format '{}' version {}",
                f.format, f.format_version
            )));
        }
        if f.digest != digest(f.n, &f.plan_id, f.shard_index, f.shard_count, &f.units) {
            return Err(err(
                "digest mismatch: the file was edited or corrupted".into()
            ));
        }
        for u in &f.units {
            let r = UnitResult {
                solutions: u.solutions,
                nodes: u.nodes,
            };
            if u.check != check_value(&r) {
                return Err(err(format!(
                    "unit {}: check value {} does not match its counts",
                    u.id, u.check
                )));
            }
        }
        Ok(f)
    }
}

/// Merges shard files into one tally, accepting the set only if it covers every unit of the
/// plan exactly once. `files` pairs each file's name with its content.
///
/// # Errors
/// One line naming the file at fault: another n or plan, a unit outside the plan, a unit in
/// two files, or units that no file covers (naming the missing shard when it can).
pub fn merge(files: &[(String, ShardFile)]) -> Result<(UnitPlan, Tally), String> {
    let (first_name, first) = files.first().ok_or("no shard files given")?;
    let n = crate::check_n(u64::from(first.n)).map_err(|e| format!("shard {first_name}: {e}"))?;
    let plan = UnitPlan::new(n);
    let mut owner: Vec<Option<usize>> = vec![None; plan.len()];
    let mut tally = Tally::default();
    for (i, (name, f)) in files.iter().enumerate() {
        if f.n != n {
            return Err(format!(
                "shard {name} is for n = {}, but {first_name} is for n = {n}",
                f.n
            ));
        }
        if f.plan_id != plan.id_hex() || f.plan_version != PLAN_VERSION {
            return Err(format!(
                "shard {name} uses unit plan {} (version {}), this program uses plan {} (version {PLAN_VERSION}) for n = {n}",
                f.plan_id,
                f.plan_version,
                plan.id_hex()
            ));
        }
        for u in &f.units {
            let slot = owner.get_mut(u.id as usize).ok_or_else(|| {
                format!(
                    "shard {name}: unit {} is outside the plan (0..{})",
                    u.id,
                    plan.len()
                )
            })?;
            if let Some(j) = slot.replace(i) {
                return Err(format!(
                    "unit {} is in both {} and {name} (duplicate shard?)",
                    u.id, files[j].0
                ));
            }
            tally.add(
                &plan.units()[u.id as usize].kind,
                &UnitResult {
                    solutions: u.solutions,
                    nodes: u.nodes,
                },
            );
        }
    }
    let missing: Vec<usize> = owner
        .iter()
        .enumerate()
        .filter(|(_, o)| o.is_none())
        .map(|(id, _)| id)
        .collect();
    if let Some(&id) = missing.first() {
        let m = first.shard_count;
        let have: Vec<u32> = files
            .iter()
            .filter(|(_, f)| f.shard_count == m)
            .map(|(_, f)| f.shard_index)
            .collect();
        let absent: Vec<String> = (0..m)
            .filter(|k| !have.contains(k))
            .map(|k| format!("{k}/{m}"))
            .collect();
        let which = if absent.is_empty() {
            String::new()
        } else {
            format!(" (shard {} not given)", absent.join(", "))
        };
        return Err(format!(
            "{} of {} units are not covered, first unit {id}{which}",
            missing.len(),
            plan.len()
        ));
    }
    Ok((plan, tally))
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
    }
}
