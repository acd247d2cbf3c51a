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
use std::io::Read;
use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::slice::ParallelSliceMut;
use serde::{Deserialize, Serialize};

use super::fifo::{self, Wait};
use super::record::{check_value, fnv1a64, read_bounded, Bounded, FileError};
use crate::engine::counts::Tally;
use crate::engine::plan::{Engine, Unit, UnitPlan, UnitResult};
use crate::engine::{cost, NEVER};

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
    largest_first_until(plan, &NEVER).expect("never stopped")
}

/// [`largest_first`], giving up (None) soon after `stop` becomes true.
pub fn largest_first_until(plan: &UnitPlan, stop: &AtomicBool) -> Option<Vec<(Unit, u64)>> {
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
pub fn units_of(plan: &UnitPlan, spec: ShardSpec) -> Vec<Unit> {
    units_of_until(plan, spec, &NEVER).expect("never stopped")
}

/// [`units_of`], giving up (None) soon after `stop` becomes true.
pub fn units_of_until(plan: &UnitPlan, spec: ShardSpec, stop: &AtomicBool) -> Option<Vec<Unit>> {
    let order = largest_first_until(plan, stop)?;
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let costs: Vec<u64> = order.iter().map(|&(_, c)| c).collect();
    let (assigned, _) = list_schedule(&costs, spec.count as usize);
    let mut units: Vec<Unit> = order
        .iter()
        .zip(assigned)
        .filter(|&(_, w)| w == spec.index as usize)
        .map(|(&(u, _), _)| u)
        .collect();
    units.sort_by_key(|u| u.id);
    Some(units)
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
    /// FNV-1a digest (hex) of every other field (format 2; format 1 left out seconds,
    /// threads and the check values).
    pub digest: String,
}

/// Version of the shard file format: 2 has the digest over every field.
pub const FORMAT_VERSION: u32 = 2;

/// The largest shard file read: 4 KiB plus 200 bytes per unit a plan of n = 64 could have
/// (units grow like n^5; n^5/4 bounds them: 27,860 <= 262,144 for n = 16). In practice the
/// bound of the file's own n applies, see [`ShardFile::read`].
pub fn size_bound(n: u32) -> u64 {
    let n = u64::from(n);
    4096 + 200 * (n.pow(5) / 4 + n + 1)
}

/// The digest of a shard file: every field but the digest itself, in a fixed text form.
fn digest(f: &ShardFile) -> String {
    let mut text = format!(
        "{} {} {} {} {} {} {} {}/{} {:?} {}",
        f.format,
        f.format_version,
        f.program,
        f.n,
        f.plan_id,
        f.plan_version,
        f.plan_units,
        f.shard_index,
        f.shard_count,
        f.seconds.to_bits(),
        f.threads
    );
    for u in &f.units {
        text.push_str(&format!(
            " {}:{}:{}:{}",
            u.id, u.solutions, u.nodes, u.check
        ));
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
        let mut f = ShardFile {
            format: "nqueens-shard".into(),
            format_version: FORMAT_VERSION,
            program: env!("CARGO_PKG_VERSION").into(),
            n: plan.n(),
            plan_id: plan.id_hex(),
            plan_version: plan.version(),
            plan_units: plan.len(),
            shard_index: spec.index,
            shard_count: spec.count,
            seconds,
            threads,
            digest: String::new(),
            units,
        };
        f.digest = digest(&f);
        f
    }

    /// Reads and checks one shard file on its own: format, digest, check values and the
    /// ranges of seconds and threads. The file may be a pipe (`merge <(ssh host cat s.json)`);
    /// it is read with a size bound: the first 64 KiB must name n, and the whole file may not
    /// exceed [`size_bound`] of that n. A FIFO's writer is waited for as `wait` says.
    ///
    /// # Errors
    /// A [`FileError`] naming the file (also when `wait`'s stop flag ended the wait).
    pub fn read(path: &Path, wait: Wait<'_>) -> Result<ShardFile, FileError> {
        let err = |r: String| FileError::new("shard", path, r);
        let file = fifo::open_reader(path, wait).map_err(|e| err(e.to_string()))?;
        let text = read_text(file).map_err(err)?;
        let f: ShardFile =
            serde_json::from_str(&text).map_err(|e| err(format!("not a valid shard file: {e}")))?;
        if f.format != "nqueens-shard" || f.format_version != FORMAT_VERSION {
            return Err(err(format!(
                "unsupported format '{}' version {} (this program reads version {FORMAT_VERSION}; version 1 came from nqueens before 0.1.1: recompute that shard)",
                f.format, f.format_version
            )));
        }
        if f.digest != digest(&f) {
            return Err(err(
                "digest mismatch: the file was edited or corrupted".into()
            ));
        }
        if !f.seconds.is_finite() || f.seconds < 0.0 || f.seconds > 1e12 {
            return Err(err(format!(
                "seconds {} is out of range: expected a finite time from 0 to 1e12",
                f.seconds
            )));
        }
        if f.threads == 0 || f.threads > crate::MAX_THREADS {
            return Err(err(format!(
                "threads {} is out of range: expected 1 to {}",
                f.threads,
                crate::MAX_THREADS
            )));
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

/// Reads a shard file's text with the bound of [`ShardFile::read`] ([`read_bounded`]).
fn read_text(mut file: impl Read) -> Result<String, String> {
    const HEAD: u64 = 64 * 1024;
    let limit = |head: &[u8]| {
        let text = String::from_utf8_lossy(head);
        // `"n": 16` in the pretty JSON that `count --out` writes (or `"n":16`).
        let n = text
            .split("\"n\"")
            .nth(1)
            .and_then(|rest| {
                let digits: String = rest
                    .trim_start_matches([' ', ':', '\n', '\t', '\r'])
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                digits.parse::<u32>().ok()
            })
            .filter(|n| (1..=crate::MAX_N).contains(n));
        match n {
            Some(n) => Ok((n, size_bound(n))),
            None if head.len() as u64 >= HEAD => Err(format!(
                "not a shard file: its first {HEAD} bytes name no board size n"
            )),
            // Small: all of it is read; let the JSON parser say what is wrong.
            None => Ok((0, HEAD)),
        }
    };
    let mut n = 0;
    let bytes = read_bounded(&mut file, HEAD, |head| {
        limit(head).map(|(found, bound)| {
            n = found;
            bound
        })
    })
    .map_err(|e| match e {
        Bounded::Io(e) => e.to_string(),
        Bounded::Refused(why) => why,
        Bounded::TooLarge(limit) => format!(
            "larger than any shard of n = {n} can be ({limit} bytes); refused without reading on"
        ),
    })?;
    String::from_utf8(bytes).map_err(|_| "not a valid shard file: not UTF-8 text".into())
}

impl ShardFile {
    /// The results of this file's units, for rechecking.
    pub fn results(&self) -> Vec<(u32, UnitResult)> {
        self.units
            .iter()
            .map(|u| {
                (
                    u.id,
                    UnitResult {
                        solutions: u.solutions,
                        nodes: u.nodes,
                    },
                )
            })
            .collect()
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
    let engine = Engine::from_plan_version(first.plan_version)
        .filter(|e| e.supports(n))
        .ok_or_else(|| {
            format!(
                "shard {first_name} uses unit plan version {}, which this program does not know (it knows {} and {})",
                first.plan_version,
                Engine::Backtrack.plan_version(),
                Engine::Quadrant.plan_version()
            )
        })?;
    let plan = UnitPlan::with_engine(n, engine);
    let mut owner: Vec<Option<usize>> = vec![None; plan.len()];
    let mut tally = Tally::default();
    for (i, (name, f)) in files.iter().enumerate() {
        if f.n != n {
            return Err(format!(
                "shard {name} is for n = {}, but {first_name} is for n = {n}",
                f.n
            ));
        }
        if f.plan_id != plan.id_hex() || f.plan_version != plan.version() {
            return Err(format!(
                "shard {name} uses unit plan {} (version {}), this program uses plan {} (version {}) for n = {n}",
                f.plan_id,
                f.plan_version,
                plan.id_hex(),
                plan.version()
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

/// The units `merge --recheck` recomputes: from each file, `percent` % of its units (at least
/// one, if it has any), chosen by a pseudo-random generator seeded with `seed` (SplitMix64),
/// so a recheck can be repeated exactly.
pub fn recheck_sample(files: &[(String, ShardFile)], percent: f64, seed: u64) -> Vec<(usize, u32)> {
    let mut state = seed;
    let mut next = move || {
        // SplitMix64 (Steele, Lea, Flood 2014).
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut picked = Vec::new();
    for (i, (_, f)) in files.iter().enumerate() {
        let len = f.units.len();
        if len == 0 {
            continue;
        }
        let want = ((len as f64 * percent / 100.0).ceil() as usize).clamp(1, len);
        // A partial Fisher-Yates shuffle of the positions.
        let mut pos: Vec<usize> = (0..len).collect();
        for k in 0..want {
            let j = k + (next() % (len - k) as u64) as usize;
            pos.swap(k, j);
            picked.push((i, f.units[pos[k]].id));
        }
    }
    picked
}

/// Why a recheck did not pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecheckError {
    /// A unit recomputes to another result than its file says: the message names the file
    /// and the unit (a failed check, not a failure to check).
    Differs(String),
    /// The units could not be recomputed (the thread pool).
    Failed(crate::Error),
}

impl std::fmt::Display for RecheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecheckError::Differs(why) => f.write_str(why),
            RecheckError::Failed(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RecheckError {}

/// Recomputes the `sample` units (file index, unit id) of `plan` on `threads` threads under
/// `config` and compares them with the files. Returns how many units were rechecked.
///
/// # Errors
/// One line naming the first file and unit whose recomputed result differs, or the
/// thread-pool error.
pub fn recheck(
    plan: &UnitPlan,
    files: &[(String, ShardFile)],
    sample: &[(usize, u32)],
    threads: usize,
    config: &crate::engine::Config,
) -> Result<usize, RecheckError> {
    let units: Vec<Unit> = sample
        .iter()
        .map(|&(_, id)| plan.units()[id as usize])
        .collect();
    let found = std::sync::Mutex::new(vec![None; plan.len()]);
    let never = std::sync::atomic::AtomicBool::new(false);
    super::local::run_units_with(plan, &units, threads, config, &never, |u, r| {
        found.lock().unwrap_or_else(|p| p.into_inner())[u.id as usize] = Some(*r);
    })
    .map_err(RecheckError::Failed)?;
    let found = found.into_inner().unwrap_or_else(|p| p.into_inner());
    for &(i, id) in sample {
        let (name, f) = &files[i];
        let claimed = f
            .units
            .iter()
            .find(|u| u.id == id)
            .expect("sampled from the file");
        let real = found[id as usize].expect("every sampled unit ran");
        if (real.solutions, real.nodes) != (claimed.solutions, claimed.nodes) {
            return Err(RecheckError::Differs(format!(
                "shard {name}: unit {id} recomputes to {} solutions and {} nodes, the file says {} and {}: refusing the merge (forged or corrupted result)",
                real.solutions, real.nodes, claimed.solutions, claimed.nodes
            )));
        }
    }
    Ok(sample.len())
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
