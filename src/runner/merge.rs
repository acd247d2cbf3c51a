//! Merging shard files into one count (only if they cover the plan exactly once),
//! `merge --status` (what a campaign's files cover so far, what is missing, what it will
//! still cost), and `merge --recheck`: recomputing a random share of their units, with the
//! engine or (`--independent`) with the plain recount.
//!
//! Every check that needs only the files' fields (n, plan id and version, the plan's size,
//! the split) is made before the plan is built, and the plan is built only within the
//! caller's budget of units: a file claiming n = 32 once made `merge` build that plan
//! (2.75 GB) whatever the memory limit.

use std::sync::atomic::AtomicBool;

use serde::Serialize;

use super::schedule::{Split, SplitRule};
use super::shard::{ShardFile, UnitEntry};
use crate::engine::counts::Tally;
use crate::engine::plan::{Engine, Unit, UnitPlan, UnitResult};
use crate::engine::rng::SplitMix64;
use crate::Error;

/// What every shard file of one split shares, read from a file's fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Campaign {
    /// Board size.
    pub n: u32,
    /// The engine whose plan the files' unit ids refer to.
    pub engine: Engine,
    /// Plan id (hex), as the files write it.
    pub plan_id: String,
    /// Plan version.
    pub plan_version: u32,
    /// Units of the whole plan.
    pub plan_units: usize,
    /// Number of shards in the split (M).
    pub shard_count: u32,
    /// How the split handed out units (in `merge --status --json` only where it is by
    /// bundles, as in the shard files).
    #[serde(skip_serializing_if = "SplitRule::is_units")]
    pub split: SplitRule,
}

impl Campaign {
    /// The campaign `f` (named `name`) belongs to.
    ///
    /// # Errors
    /// One line: an n or a plan version this program does not count.
    pub fn of(name: &str, f: &ShardFile) -> Result<Campaign, String> {
        let n = crate::check_n(u64::from(f.n)).map_err(|e| format!("shard {name}: {e}"))?;
        let engine = Engine::from_plan_version(f.plan_version)
            .filter(|e| e.supports(n))
            .ok_or_else(|| {
                format!(
                    "shard {name} uses unit plan version {}, which this program does not know (it knows {})",
                    f.plan_version,
                    known_versions()
                )
            })?;
        Ok(Campaign {
            n,
            engine,
            plan_id: f.plan_id.clone(),
            plan_version: f.plan_version,
            plan_units: f.plan_units,
            shard_count: f.shard_count,
            split: f.split,
        })
    }

    /// Why `f` (named `name`) is not a shard of this campaign's plan, in one line naming
    /// `first`, the file the campaign was read from; None if it is (the split is not
    /// compared: see [`Campaign::other_split`]).
    pub fn foreign(&self, name: &str, first: &str, f: &ShardFile) -> Option<String> {
        if f.n != self.n {
            return Some(format!(
                "shard {name} is for n = {}, but {first} is for n = {}",
                f.n, self.n
            ));
        }
        if f.plan_id != self.plan_id
            || f.plan_version != self.plan_version
            || f.plan_units != self.plan_units
        {
            return Some(format!(
                "shard {name} uses unit plan {} (version {}, {} units), {first} uses plan {} (version {}, {} units) for n = {}",
                f.plan_id, f.plan_version, f.plan_units, self.plan_id, self.plan_version, self.plan_units, self.n
            ));
        }
        None
    }

    /// Why `f` is not a shard of this campaign's split (another M, an index past it or
    /// another rule).
    pub fn other_split(&self, name: &str, first: &str, f: &ShardFile) -> Option<String> {
        if f.shard_count != self.shard_count {
            return Some(format!(
                "shard {name} is shard {}/{} of a split into {} shards, {first} of one into {}",
                f.shard_index, f.shard_count, f.shard_count, self.shard_count
            ));
        }
        if let Some(why) = self.other_rule(name, first, f) {
            return Some(why);
        }
        if f.shard_index >= f.shard_count {
            return Some(format!(
                "shard {name} names shard {}/{}, past the last shard {}/{}",
                f.shard_index,
                f.shard_count,
                f.shard_count - 1,
                f.shard_count
            ));
        }
        None
    }

    /// Why `f` is not of this campaign's split rule ([`SplitRule`]), if it is not.
    pub fn other_rule(&self, name: &str, first: &str, f: &ShardFile) -> Option<String> {
        (f.split != self.split).then(|| {
            format!(
                "shard {name} is of a split by {}, {first} of one by {}: count it again with --split {}",
                f.split, self.split, self.split
            )
        })
    }

    /// Builds the plan the files name, within `max_units` units (the memory the caller
    /// allows, described by `limit` for the message).
    ///
    /// # Errors
    /// One line: a plan larger than the budget (refused before it is built), a plan that
    /// is not this program's (more units than the files say, or another id), a split into
    /// more shards than the plan has units.
    pub fn plan(
        &self,
        max_units: usize,
        limit: &str,
        stop: &AtomicBool,
    ) -> Result<UnitPlan, String> {
        let n = self.n;
        if self.plan_units > max_units {
            return Err(format!(
                "n = {n}: the shards name a plan of {} units, more than fit in the {limit} ({} bytes a unit)",
                self.plan_units,
                super::session::BYTES_PER_UNIT
            ));
        }
        if self.shard_count as usize > self.plan_units {
            return Err(format!(
                "n = {n}: the shards name a split into {} shards, more than the plan's {} units",
                self.shard_count, self.plan_units
            ));
        }
        let plan = match UnitPlan::build(n, self.engine, stop, self.plan_units) {
            Ok(plan) => plan,
            Err(Error::PlanTooLarge { .. }) => {
                return Err(format!(
                    "n = {n}: the shards name a plan of {} units, but this program's plan of n = {n} ({} engine) has more: they were not written by this program's plan",
                    self.plan_units,
                    self.engine.name()
                ))
            }
            Err(e) => return Err(e.to_string()),
        };
        if plan.id_hex() != self.plan_id || plan.len() != self.plan_units {
            return Err(format!(
                "the shards use unit plan {} (version {}), this program uses plan {} (version {}) for n = {n}",
                self.plan_id,
                self.plan_version,
                plan.id_hex(),
                plan.version()
            ));
        }
        if self.split.for_plan(&plan) != self.split {
            return Err(format!(
                "n = {n}: the shards name a split by {}, but this plan has no bundles (its splits are by units)",
                self.split
            ));
        }
        let most = self.split.most_shards(&plan);
        if self.shard_count as usize > most {
            return Err(format!(
                "n = {n}: the shards name a split into {} shards by {}, more than the plan's {most} {}",
                self.shard_count, self.split, self.split
            ));
        }
        Ok(plan)
    }
}

/// The plan of a set of shard files that all name one plan: every file's fields are
/// compared with the first's before the plan is built (within `max_units`, see
/// [`Campaign::plan`]).
///
/// # Errors
/// One line naming the file at fault, or the plan's refusal.
pub fn plan_of(
    files: &[(String, ShardFile)],
    max_units: usize,
    limit: &str,
    stop: &AtomicBool,
) -> Result<UnitPlan, String> {
    let (first_name, first) = files.first().ok_or("no shard files given")?;
    let campaign = Campaign::of(first_name, first)?;
    for (name, f) in files {
        // Shards of two rules may still cover the plan once, but more likely overlap;
        // say so rather than name a unit in two files.
        let why = campaign.foreign(name, first_name, f);
        if let Some(why) = why.or_else(|| campaign.other_rule(name, first_name, f)) {
            return Err(why);
        }
    }
    campaign.plan(max_units, limit, stop)
}

/// Merges shard files of `plan` (see [`plan_of`]) into one tally, accepting the set only
/// if it covers every unit of the plan exactly once. `files` pairs each file's name with
/// its content.
///
/// # Errors
/// One line naming the file at fault: a unit outside the plan, a unit in two files, or
/// units that no file covers (naming the missing shard when it can).
pub fn merge(plan: &UnitPlan, files: &[(String, ShardFile)]) -> Result<Tally, String> {
    let mut owner: Vec<Option<usize>> = vec![None; plan.len()];
    let mut tally = Tally::default();
    for (i, (name, f)) in files.iter().enumerate() {
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
            tally.add(&plan.units()[u.id as usize].kind, &result(u));
        }
    }
    let missing: Vec<usize> = owner
        .iter()
        .enumerate()
        .filter(|(_, o)| o.is_none())
        .map(|(id, _)| id)
        .collect();
    if let Some(&id) = missing.first() {
        let m = files[0].1.shard_count;
        let mut have: Vec<u32> = files
            .iter()
            .filter(|(_, f)| f.shard_count == m)
            .map(|(_, f)| f.shard_index)
            .collect();
        have.sort_unstable();
        let absent = (0..m).filter(|k| have.binary_search(k).is_err());
        let absent: Vec<String> = absent.take(20).map(|k| format!("{k}/{m}")).collect();
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
    Ok(tally)
}

fn result(u: &UnitEntry) -> UnitResult {
    UnitResult {
        solutions: u.solutions,
        nodes: u.nodes,
    }
}

/// A shard file `merge --status` did not count, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refused {
    /// The file, as given.
    pub file: String,
    /// Why, in one line.
    pub reason: String,
}

/// A second file of a shard already counted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Duplicate {
    /// The file, as given.
    pub file: String,
    /// Its shard index.
    pub shard: u32,
    /// The file counted for that shard.
    pub same_shard_as: String,
    /// Whether its results differ from that file's (a conflict: one of them is wrong).
    pub conflict: bool,
    /// What the two files say, in one line.
    pub reason: String,
}

/// What a campaign's shard files cover so far (`merge --status`).
#[derive(Clone, Debug, Serialize)]
pub struct Status {
    /// n, the plan and the split (as fields of the status itself).
    #[serde(flatten)]
    pub campaign: Campaign,
    /// Shard indices with a valid file, ascending.
    pub valid: Vec<u32>,
    /// Shard indices with no valid file, ascending.
    pub missing: Vec<u32>,
    /// The files of a shard already counted.
    pub duplicated: Vec<Duplicate>,
    /// The files not counted, with why.
    pub refused: Vec<Refused>,
    /// Units in the valid files.
    pub units_done: usize,
    /// CPU time spent on the valid shards: each file's wall time times its threads,
    /// seconds (an upper bound: threads may have idled).
    pub cpu_seconds: f64,
    /// The sums of the valid shards so far: the weighted total, F180 and F90.
    pub partial: Partial,
    /// The plan's cost estimates of the missing shards' units over those of the valid
    /// shards' units.
    pub remaining_cost_ratio: f64,
    /// CPU time the missing shards will take, seconds: `cpu_seconds` times
    /// `remaining_cost_ratio` (null when nothing is done yet).
    pub remaining_cpu_seconds: Option<f64>,
}

/// Partial sums of a campaign.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Partial {
    /// Weighted total so far.
    pub total: u128,
    /// F180 so far.
    pub fixed180: u128,
    /// F90 so far.
    pub fixed90: u128,
}

impl Status {
    /// Every shard has a valid file.
    pub fn complete(&self) -> bool {
        self.missing.is_empty()
    }

    /// Two files of one shard disagree.
    pub fn conflicts(&self) -> bool {
        self.duplicated.iter().any(|d| d.conflict)
    }
}

/// The status of a campaign from its shard files, read or refused: the campaign is the one
/// most valid files name (the first among equals); the others are refused with why.
///
/// # Errors
/// One line: no file could be read, the plan is too large for `max_units` or not this
/// program's, or `stop` was raised.
pub fn status(
    files: &[(String, Result<ShardFile, String>)],
    max_units: usize,
    limit: &str,
    stop: &AtomicBool,
) -> Result<Status, String> {
    let mut refused = Vec::new();
    let mut candidates: Vec<(usize, Campaign)> = Vec::new();
    for (i, (name, f)) in files.iter().enumerate() {
        match f
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|f| Campaign::of(name, f))
        {
            Ok(c) => candidates.push((i, c)),
            Err(why) => refused.push((i, why)),
        }
    }
    // The campaign most files name; among equals, the first file's.
    let (first, campaign) = candidates
        .iter()
        .max_by_key(|(i, c)| {
            let votes = candidates.iter().filter(|(_, d)| d == c).count();
            (votes, std::cmp::Reverse(*i))
        })
        .cloned()
        .ok_or_else(|| match refused.first() {
            Some((_, why)) => format!(
                "no valid shard file among the {} given (first: {why})",
                files.len()
            ),
            None => "no shard files given".to_string(),
        })?;
    let first_name = &files[first].0;
    let plan = campaign.plan(max_units, limit, stop)?;
    let split =
        Split::of_until(&plan, campaign.shard_count, campaign.split, stop).ok_or("stopped")?;
    let m = campaign.shard_count as usize;
    let mut expected = vec![0usize; m];
    for &k in &split.shard {
        expected[k as usize] += 1;
    }
    let mut counted: Vec<Option<usize>> = vec![None; m];
    let mut duplicated = Vec::new();
    let mut tally = Tally::default();
    let (mut units_done, mut cpu_seconds) = (0usize, 0.0f64);
    for &(i, _) in &candidates {
        let (name, Ok(f)) = &files[i] else {
            unreachable!("candidates read")
        };
        let why = campaign
            .foreign(name, first_name, f)
            .or_else(|| campaign.other_split(name, first_name, f))
            .or_else(|| wrong_units(f, &split, expected[f.shard_index as usize]));
        if let Some(why) = why {
            refused.push((i, why));
            continue;
        }
        let k = f.shard_index as usize;
        if let Some(j) = counted[k] {
            let (kept_name, Ok(kept)) = &files[j] else {
                unreachable!("counted files read")
            };
            // A unit's work is compared only where it is the same on every machine and in
            // every run (see `work_is_portable`): a quadrant unit's pairs tested follow
            // the quadrant table and, at odd n, the sort key its bundle shared.
            let portable = |id: u32| {
                plan.units()
                    .get(id as usize)
                    .is_none_or(|u| u.kind.work_is_portable())
            };
            let differs = kept.units.iter().zip(&f.units).find(|(a, b)| {
                a.solutions != b.solutions || (a.nodes != b.nodes && portable(a.id))
            });
            let same_work = kept
                .units
                .iter()
                .zip(&f.units)
                .all(|(a, b)| a.nodes == b.nodes);
            let reason = match differs {
                None if same_work => {
                    format!("shard {k}/{m} again, with the same results as {kept_name}")
                }
                None => format!(
                    "shard {k}/{m} again, with the same solutions as {kept_name} (other pairs tested: the method's figure, not a result)"
                ),
                Some((a, b)) if a.solutions != b.solutions => format!(
                    "shard {k}/{m} again, with other results than {kept_name}: unit {} has {} solutions there, {} here",
                    a.id, a.solutions, b.solutions
                ),
                // A backtracking unit's nodes are the same in every run: other nodes with the
                // same solutions are still a conflict, and the line says which figure.
                Some((a, b)) => format!(
                    "shard {k}/{m} again, with other results than {kept_name}: unit {} has {} nodes there, {} here (the same {} solutions)",
                    a.id, a.nodes, b.nodes, a.solutions
                ),
            };
            duplicated.push(Duplicate {
                file: name.clone(),
                shard: k as u32,
                same_shard_as: kept_name.clone(),
                conflict: differs.is_some(),
                reason,
            });
            continue;
        }
        counted[k] = Some(i);
        units_done += f.units.len();
        cpu_seconds += f.seconds * f.threads as f64;
        for u in &f.units {
            tally.add(&plan.units()[u.id as usize].kind, &result(u));
        }
    }
    refused.sort_by_key(|&(i, _)| i);
    let (mut done_cost, mut missing_cost) = (0u128, 0u128);
    for (id, &k) in split.shard.iter().enumerate() {
        let c = u128::from(split.cost[id]);
        match counted[k as usize] {
            Some(_) => done_cost += c,
            None => missing_cost += c,
        }
    }
    let ratio = if done_cost > 0 {
        missing_cost as f64 / done_cost as f64
    } else {
        f64::INFINITY
    };
    let valid = (0..m as u32)
        .filter(|&k| counted[k as usize].is_some())
        .collect();
    let missing = (0..m as u32)
        .filter(|&k| counted[k as usize].is_none())
        .collect();
    Ok(Status {
        campaign,
        valid,
        missing,
        duplicated,
        refused: refused
            .into_iter()
            .map(|(i, reason)| Refused {
                file: files[i].0.clone(),
                reason,
            })
            .collect(),
        units_done,
        cpu_seconds,
        partial: Partial {
            total: tally.total,
            fixed180: tally.fixed180,
            fixed90: tally.fixed90,
        },
        remaining_cost_ratio: if ratio.is_finite() { ratio } else { 0.0 },
        remaining_cpu_seconds: (ratio.is_finite() && done_cost > 0).then_some(cpu_seconds * ratio),
    })
}

/// Why a shard file does not hold exactly its shard's units (None if it does).
fn wrong_units(f: &ShardFile, split: &Split, expected: usize) -> Option<String> {
    let k = f.shard_index;
    let mut last = None;
    for u in &f.units {
        let Some(&owner) = split.shard.get(u.id as usize) else {
            return Some(format!(
                "unit {} is outside the plan (0..{})",
                u.id,
                split.shard.len()
            ));
        };
        if owner != k {
            return Some(format!(
                "unit {} belongs to shard {owner}/{}, not to this file's {k}",
                u.id, f.shard_count
            ));
        }
        if last.is_some_and(|l| l >= u.id) {
            return Some(format!("unit {} is out of order or twice", u.id));
        }
        last = Some(u.id);
    }
    (f.units.len() != expected).then(|| {
        format!(
            "holds {} of the {expected} units of shard {k}/{}",
            f.units.len(),
            f.shard_count
        )
    })
}

/// Slurm's `--array` syntax for a list of ascending indices: runs of three or more as
/// `a-b`, the rest one by one: `[0, 2, 3, 4, 7]` -> `"0,2-4,7"`.
pub fn array_syntax(indices: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let mut j = i;
        while j + 1 < indices.len() && indices[j + 1] == indices[j] + 1 {
            j += 1;
        }
        match j - i {
            0 => parts.push(indices[i].to_string()),
            1 => parts.extend([indices[i].to_string(), indices[j].to_string()]),
            _ => parts.push(format!("{}-{}", indices[i], indices[j])),
        }
        i = j + 1;
    }
    parts.join(",")
}

/// The units `merge --recheck` recomputes: from each file, `percent` % of its units (at least
/// one, if it has any), chosen by a pseudo-random generator seeded with `seed` (SplitMix64),
/// so a recheck can be repeated exactly.
pub fn recheck_sample(files: &[(String, ShardFile)], percent: f64, seed: u64) -> Vec<(usize, u32)> {
    let mut rng = SplitMix64::new(seed);
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
            // `%`, not `below`: the same seed picks the same units as before rng.rs.
            let j = k + (rng.next_u64() % (len - k) as u64) as usize;
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

/// The units of a recheck's sample (file index, unit id), in its order.
fn sampled(plan: &UnitPlan, sample: &[(usize, u32)]) -> Vec<Unit> {
    sample
        .iter()
        .map(|&(_, id)| plan.units()[id as usize])
        .collect()
}

/// File `i`'s name and its entry of unit `id` (sampled from that file).
fn claimed(files: &[(String, ShardFile)], i: usize, id: u32) -> (&str, &UnitEntry) {
    let (name, f) = &files[i];
    let entry = f
        .units
        .iter()
        .find(|u| u.id == id)
        .expect("sampled from the file");
    (name, entry)
}

/// [`recheck`] by the plain recount ([`crate::engine::recount`]): the `sample` units of
/// `plan` counted again from their definition, by code that shares nothing of the
/// engine's half patterns, table, keys, parts, join or weights, and compared with the
/// files' solutions. Returns how many units were recounted.
///
/// # Errors
/// One line naming the first file and unit whose recount differs, or the thread-pool
/// error ([`Error::Stopped`] if `stop` was raised).
pub fn recheck_independent(
    plan: &UnitPlan,
    files: &[(String, ShardFile)],
    sample: &[(usize, u32)],
    threads: usize,
    stop: &AtomicBool,
) -> Result<usize, RecheckError> {
    let found = super::recount::recount_all(plan.n(), &sampled(plan, sample), threads, stop)
        .map_err(RecheckError::Failed)?
        .ok_or(RecheckError::Failed(Error::Stopped))?;
    for (&(i, id), plain) in sample.iter().zip(&found) {
        let (name, claimed) = claimed(files, i, id);
        if plain.solutions != claimed.solutions {
            return Err(RecheckError::Differs(format!(
                "shard {name}: unit {id} ({}) recounts independently to {} solutions, the file says {}: refusing the merge (a wrong count, by the engine or the file)",
                plan.units()[id as usize].kind.name(),
                plain.solutions,
                claimed.solutions
            )));
        }
    }
    Ok(sample.len())
}

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
    let units = sampled(plan, sample);
    let found = std::sync::Mutex::new(vec![None; plan.len()]);
    let never = std::sync::atomic::AtomicBool::new(false);
    let prepared = crate::engine::exec::Prepared::with_config(plan.n(), config);
    super::local::run_units_with(plan, &units, threads, &prepared, &never, |u, r| {
        found.lock().unwrap_or_else(|p| p.into_inner())[u.id as usize] = Some(*r);
    })
    .map_err(RecheckError::Failed)?;
    let found = found.into_inner().unwrap_or_else(|p| p.into_inner());
    for &(i, id) in sample {
        let (name, claimed) = claimed(files, i, id);
        let real = found[id as usize].expect("every sampled unit ran");
        // A unit whose work figure depends on the machine (a quadrant unit's pairs tested:
        // see `work_is_portable` on the unit's kind) is compared on its solutions only.
        let work_is_portable = plan.units()[id as usize].kind.work_is_portable();
        if real.solutions != claimed.solutions || (work_is_portable && real.nodes != claimed.nodes)
        {
            return Err(RecheckError::Differs(format!(
                "shard {name}: unit {id} recomputes to {} solutions and {} nodes, the file says {} and {}: refusing the merge (forged or corrupted result)",
                real.solutions, real.nodes, claimed.solutions, claimed.nodes
            )));
        }
    }
    Ok(sample.len())
}

/// The plan versions this program knows, as an error message lists them: "2 and 4".
fn known_versions() -> String {
    let v: Vec<String> = Engine::all()
        .iter()
        .map(|e| e.plan_version().to_string())
        .collect();
    match v.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => v.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_syntax_writes_runs_as_ranges() {
        assert_eq!(array_syntax(&[]), "");
        assert_eq!(array_syntax(&[5]), "5");
        assert_eq!(array_syntax(&[0, 2, 3, 4, 7]), "0,2-4,7");
        assert_eq!(array_syntax(&[1, 2, 9, 10, 11, 12]), "1,2,9-12");
        assert_eq!(array_syntax(&[0, 1, 2, 3]), "0-3");
    }
}
