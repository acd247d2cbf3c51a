//! Merging shard files into one count (only if they cover the plan exactly once), and
//! `merge --recheck`: recomputing a random share of their units.

use super::shard::ShardFile;
use crate::engine::counts::Tally;
use crate::engine::plan::{Engine, Unit, UnitKind, UnitPlan, UnitResult};

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
        // A quadrant unit's work figure (pattern pairs tested) depends on the order of its
        // pattern lists, which differs between a machine that built the quadrant table and
        // one that searched the quadrants (from n = 18: 39 of 60 units of one shard of
        // n = 18 differ, none in solutions): only its solutions are compared. Backtracking
        // and F180/F90 units count nodes the same way everywhere: both are compared.
        let work_is_portable = !matches!(plan.units()[id as usize].kind, UnitKind::Quadrant { .. });
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
