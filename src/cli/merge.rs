//! `nqueens merge FILE...`: combines shard files into the count of N, accepting the set only
//! if it covers every unit of the plan exactly once, and prints what `count N` prints. With
//! `--recheck P` it first recomputes a random P% of each file's units (with the engine, or
//! with `--independent` by the plain recount) and refuses the set if one differs: the
//! digests catch accidents, not forgery. With `--status` it reports on a campaign in
//! progress instead: which shards are valid, missing, duplicated or refused, the partial
//! sums, the CPU time spent and still to spend, and the missing shards as a Slurm array.

use std::io::Write;

use anyhow::anyhow;

use super::engine::Source;
use super::error::{say, Done, Failure, Outcome};
use super::format::{bytes, duration, grouped};
use super::options::MergeOptions;
use super::report::{print_single, CountReport, RecheckRecord, ShardRecord};
use super::session;
use crate::runner::merge::{self, Status};
use crate::runner::schedule::SplitRule;
use crate::runner::session::units_within;
use crate::runner::shard::{size_bound, ShardFile};
use crate::runner::shown;

/// The memory a merge may use and what it has taken so far.
struct Budget {
    limit: u64,
    source: Source,
    used: u64,
}

impl Budget {
    fn left(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }

    /// Charges a file read: at most what its units can take (the text is dropped once
    /// parsed; the parsed entries take less).
    fn charge(&mut self, f: &ShardFile) {
        self.used = self.used.saturating_add(size_bound(f.units.len() as u64));
    }

    /// The message's words for what is left of the limit.
    fn describe(&self) -> String {
        format!(
            "{} left of the {} {}",
            bytes(self.left()),
            bytes(self.limit),
            self.source
        )
    }
}

/// Runs `merge`.
pub fn run(a: &MergeOptions) -> Outcome {
    // Nothing to save on a signal: it ends the run at once (also while a FIFO waits).
    let stop = session::quit_on_signal();
    let wait = session::fifo_wait(stop);
    let (limit, source) = a.memory;
    let mut budget = Budget {
        limit,
        source,
        used: 0,
    };
    if a.status {
        let mut files = Vec::with_capacity(a.files.len());
        for path in &a.files {
            let f = ShardFile::read(path, wait, budget.left()).map_err(|e| e.reason);
            if let Ok(f) = &f {
                budget.charge(f);
            }
            files.push((shown::path(path), f));
        }
        let max = units_within(budget.left());
        let st =
            merge::status(&files, max, &budget.describe(), stop).map_err(anyhow::Error::msg)?;
        return print_status(&st, a.json);
    }
    let mut files = Vec::with_capacity(a.files.len());
    for path in &a.files {
        let f = ShardFile::read(path, wait, budget.left()).map_err(anyhow::Error::from)?;
        budget.charge(&f);
        files.push((shown::path(path), f));
    }
    let max = units_within(budget.left());
    let plan = merge::plan_of(&files, max, &budget.describe(), stop).map_err(anyhow::Error::msg)?;
    let tally = merge::merge(&plan, &files).map_err(anyhow::Error::msg)?;
    let mut rechecks = Vec::new();
    if let Some(r) = a.recheck {
        let (percent, seed, threads) = (r.percent, r.seed, r.threads);
        let sample = merge::recheck_sample(&files, percent, seed);
        let checked = if r.independent {
            merge::recheck_independent(&plan, &files, &sample, threads, stop)
        } else {
            merge::recheck(&plan, &files, &sample, threads, &super::kernel::config())
        };
        let k = match checked {
            Ok(k) => k,
            // A unit that recomputes differently is a failed check (exit code 1).
            Err(merge::RecheckError::Differs(why)) => return Err(Failure::check(why)),
            Err(merge::RecheckError::Failed(e)) => return Err(e.into()),
        };
        let method = if r.independent {
            "independent"
        } else {
            "engine"
        };
        let how = if r.independent { " --independent" } else { "" };
        say!("nqueens: rechecked {k} units (--recheck {percent}{how} --seed {seed}): all match");
        rechecks.push(RecheckRecord {
            method,
            percent,
            seed,
            units: k,
            differing: 0,
        });
    }
    let counts = tally.finish(&plan)?;
    // Time and threads of a merged count: the shards' wall times and threads added up.
    let seconds: f64 = files.iter().map(|(_, f)| f.seconds).sum();
    let threads = files
        .iter()
        .try_fold(0usize, |t, (_, f)| t.checked_add(f.threads));
    let (Some(threads), true) = (threads, seconds.is_finite()) else {
        return Err(
            anyhow!("the shards' threads or seconds add up past what can be counted").into(),
        );
    };
    let mut report = CountReport::new(&counts, &plan, seconds, threads);
    report.certificate.rechecks = rechecks;
    report.certificate.shards = files
        .iter()
        .map(|(name, f)| ShardRecord {
            file: name.clone(),
            shard: format!("{}/{}", f.shard_index, f.shard_count),
            digest: f.digest.clone(),
            program: f.program.clone(),
            units: f.units.len(),
            seconds: f.seconds,
            threads: f.threads,
        })
        .collect();
    print_single(&report, a.json, &mut super::error::stdout())
}

/// Prints `merge --status` and returns its exit code: 0 complete, 3 shards missing, 1 two
/// files of one shard disagree.
fn print_status(st: &Status, json: bool) -> Outcome {
    let mut out = super::error::stdout();
    let missing = if st.missing.is_empty() {
        "none".to_string()
    } else {
        merge::array_syntax(&st.missing)
    };
    if json {
        writeln!(out, "{}", serde_json::to_string(st)?)?;
    } else {
        let c = &st.campaign;
        let m = c.shard_count;
        let list = |v: &[u32]| match v {
            [] => "none".to_string(),
            v => merge::array_syntax(v),
        };
        let mut lines = vec![
            format!(
                "n = {}: plan {} ({} engine, version {}, {} units) in {m} shards{}",
                c.n,
                c.plan_id,
                c.engine.name(),
                c.plan_version,
                grouped(c.plan_units as u128),
                // Named only where it is not the rule of every split before it existed.
                match c.split {
                    SplitRule::Units => String::new(),
                    rule => format!(", split by {rule}"),
                }
            ),
            format!(
                "shards     {} valid, {} missing, {} duplicated, {} refused",
                st.valid.len(),
                st.missing.len(),
                st.duplicated.len(),
                st.refused.len()
            ),
            format!("valid      {}", list(&st.valid)),
        ];
        for d in &st.duplicated {
            let tag = if d.conflict { "CONFLICT" } else { "duplicate" };
            lines.push(format!("{tag:<10} {}: {}", d.file, d.reason));
        }
        for r in &st.refused {
            lines.push(format!("refused    {}: {}", r.file, r.reason));
        }
        let share = st.units_done as f64 / c.plan_units.max(1) as f64 * 100.0;
        lines.push(format!(
            "units      {} of {} ({share:.1}%)",
            grouped(st.units_done as u128),
            grouped(c.plan_units as u128)
        ));
        lines.push(format!(
            "cpu        {} so far (each valid shard's wall time x its threads)",
            duration(st.cpu_seconds)
        ));
        lines.push(format!(
            "partial    total {} so far, F180 {}, F90 {} (weighted sums of the valid shards)",
            grouped(st.partial.total),
            grouped(st.partial.fixed180),
            grouped(st.partial.fixed90)
        ));
        let remaining = match st.remaining_cpu_seconds {
            _ if st.missing.is_empty() => "none".to_string(),
            Some(s) => format!(
                "about {} of CPU: the CPU so far x {:.3}, the plan's cost estimate of the missing shards' units over that of the valid shards' units",
                duration(s),
                st.remaining_cost_ratio
            ),
            None => "unknown: no valid shard yet".to_string(),
        };
        lines.push(format!("remaining  {remaining}"));
        lines.push(format!("missing {missing}"));
        for l in lines {
            writeln!(out, "{l}")?;
        }
    }
    out.flush()?;
    if st.conflicts() {
        Err(Failure::check(
            "two files of one shard disagree: see the CONFLICT lines",
        ))
    } else if st.complete() {
        Ok(Done::Ok)
    } else {
        Ok(Done::Incomplete)
    }
}
