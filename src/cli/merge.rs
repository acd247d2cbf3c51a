//! `nqueens merge FILE...`: combines shard files into the count of N, accepting the set only
//! if it covers every unit of the plan exactly once, and prints what `count N` prints. With
//! `--recheck P` it first recomputes a random P% of each file's units (with the engine, or
//! with `--independent` by the plain recount) and refuses the set if one differs: the
//! digests catch accidents, not forgery. With `--status` it reports on a campaign in
//! progress instead: which shards are valid, missing, duplicated or refused, the partial
//! sums, the CPU time spent and still to spend, and the missing shards as a Slurm array.

use crate::cli::error::say;
use crate::cli::error::Failure;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::bail;
use clap::Args;

use super::args::{parse_percent, parse_threads};
use super::engine::{memory_limit, parse_size};
use super::format::{bytes, duration, grouped};
use super::report::{print_single, CountReport, RecheckRecord, ShardRecord};
use super::session;
use super::{default_threads, Outcome};
use crate::runner::merge::{self, Status};
use crate::runner::session::units_within;
use crate::runner::shard::{size_bound, ShardFile};
use crate::runner::shown;

/// Arguments of `merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Shard files written by `count N --shard K/M --out FILE`, all of one N (pipes too:
    /// `<(ssh host cat s.json)`).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Print the result as one JSON object (as `count --json`, with a certificate: the
    /// shards' digests and the rechecks' seeds).
    #[arg(long)]
    pub json: bool,
    /// Report on a campaign in progress instead of merging: shards valid, missing,
    /// duplicated and refused (with why), units and CPU time so far, the partial sums, the
    /// CPU time still to spend, and the line `missing K,K,K-K` (Slurm --array syntax).
    /// Exit 0 when every shard is there, 3 when some are missing, 1 when two files of one
    /// shard disagree.
    #[arg(long, conflicts_with = "recheck")]
    pub status: bool,
    /// Recompute P percent (0..100) of each file's units, at least one per file, chosen at
    /// random, and refuse the merge if any differs. For shards from machines you do not
    /// control.
    #[arg(long, value_name = "P", value_parser = parse_percent)]
    pub recheck: Option<f64>,
    /// With --recheck: recount the units by the plain recount (plain backtracking of each
    /// unit's definition, sharing no code with the quadrant engine's patterns, table, join
    /// or weights) instead of the engine, to catch a bug of the engine, not only a forged
    /// or corrupted file. Slow: see `nqueens verify N --units K` for what a unit costs.
    #[arg(long, requires = "recheck")]
    pub independent: bool,
    /// Seed of the --recheck choice (printed on stderr), to repeat a recheck. Default: from
    /// the clock.
    #[arg(long, value_name = "S", requires = "recheck")]
    pub seed: Option<u64>,
    /// Worker threads for --recheck (1..4096). Default: all logical cores.
    #[arg(short = 't', long, value_parser = parse_threads, requires = "recheck")]
    pub threads: Option<usize>,
    /// Memory the merge may use for the files and the unit plan, e.g. 512M, 4G; files or a
    /// plan that would not fit are refused. Default: 80% of the memory available (as
    /// `count`).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<u64>,
}

/// The memory a merge may use and what it has taken so far.
struct Budget {
    limit: u64,
    source: super::engine::Source,
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
pub fn run(a: &MergeArgs) -> Outcome {
    // Nothing to save on a signal: it ends the run at once (also while a FIFO waits).
    let stop = session::quit_on_signal();
    let wait = session::fifo_wait(stop);
    let (limit, source) = memory_limit(a.max_memory, 1);
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
        let f = ShardFile::read(path, wait, budget.left())?;
        budget.charge(&f);
        files.push((shown::path(path), f));
    }
    let max = units_within(budget.left());
    let plan = merge::plan_of(&files, max, &budget.describe(), stop).map_err(anyhow::Error::msg)?;
    let tally = merge::merge(&plan, &files).map_err(anyhow::Error::msg)?;
    let mut rechecks = Vec::new();
    if let Some(percent) = a.recheck {
        let seed = a.seed.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        });
        let sample = merge::recheck_sample(&files, percent, seed);
        let threads = a.threads.unwrap_or_else(default_threads);
        let checked = if a.independent {
            merge::recheck_independent(&plan, &files, &sample, threads, stop)
        } else {
            merge::recheck(&plan, &files, &sample, threads, &super::kernel::config())
        };
        let k = match checked {
            Ok(k) => k,
            // A unit that recomputes differently is a failed check (exit code 1).
            Err(merge::RecheckError::Differs(why)) => return Err(Failure::CheckFailed(why).into()),
            Err(merge::RecheckError::Failed(e)) => return Err(e.into()),
        };
        let method = if a.independent {
            "independent"
        } else {
            "engine"
        };
        let how = if a.independent { " --independent" } else { "" };
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
        bail!("the shards' threads or seconds add up past what can be counted");
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
    print_single(&report, a.json, &mut crate::cli::error::stdout())
}

/// Prints `merge --status` and returns its exit code: 0 complete, 3 shards missing, 1 two
/// files of one shard disagree.
fn print_status(st: &Status, json: bool) -> Outcome {
    let mut out = crate::cli::error::stdout();
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
                "n = {}: plan {} ({} engine, version {}, {} units) in {m} shards",
                c.n,
                c.plan_id,
                c.engine.name(),
                c.plan_version,
                grouped(c.plan_units as u128)
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
    Ok(if st.conflicts() {
        say!("nqueens: two files of one shard disagree: see the CONFLICT lines");
        ExitCode::from(1)
    } else if st.complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}
