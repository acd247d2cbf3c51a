//! `nqueens merge FILE...`: combines shard files into the count of N, accepting the set only
//! if it covers every unit of the plan exactly once, and prints what `count N` prints. With
//! `--recheck P` it first recomputes a random P% of each file's units and refuses the set if
//! one differs: the digests catch accidents, not forgery.

use crate::cli::error::say;
use crate::cli::error::Failure;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::bail;
use clap::Args;

use super::args::{parse_percent, parse_threads};
use super::report::{print_single, CountReport};
use super::session;
use super::{default_threads, Outcome};
use crate::runner::merge;
use crate::runner::shard::ShardFile;
use crate::runner::shown;

/// Arguments of `merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Shard files written by `count N --shard K/M --out FILE`, all of one N (pipes too:
    /// `<(ssh host cat s.json)`).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Print the result as one JSON object (as `count --json`).
    #[arg(long)]
    pub json: bool,
    /// Recompute P percent (0..100) of each file's units, at least one per file, chosen at
    /// random, and refuse the merge if any differs. For shards from machines you do not
    /// control.
    #[arg(long, value_name = "P", value_parser = parse_percent)]
    pub recheck: Option<f64>,
    /// Seed of the --recheck choice (printed on stderr), to repeat a recheck. Default: from
    /// the clock.
    #[arg(long, value_name = "S", requires = "recheck")]
    pub seed: Option<u64>,
    /// Worker threads for --recheck (1..4096). Default: all logical cores.
    #[arg(short = 't', long, value_parser = parse_threads, requires = "recheck")]
    pub threads: Option<usize>,
}

/// Runs `merge`.
pub fn run(a: &MergeArgs) -> Outcome {
    // Nothing to save on a signal: it ends the run at once (also while a FIFO waits).
    let wait = session::fifo_wait(session::quit_on_signal());
    let mut files = Vec::with_capacity(a.files.len());
    for path in &a.files {
        files.push((shown::path(path), ShardFile::read(path, wait)?));
    }
    let (plan, tally) = merge::merge(&files).map_err(anyhow::Error::msg)?;
    if let Some(percent) = a.recheck {
        let seed = a.seed.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        });
        let sample = merge::recheck_sample(&files, percent, seed);
        let threads = a.threads.unwrap_or_else(default_threads);
        let k = match merge::recheck(&plan, &files, &sample, threads, &super::kernel::config()) {
            Ok(k) => k,
            // A unit that recomputes differently is a failed check (exit code 1).
            Err(merge::RecheckError::Differs(why)) => return Err(Failure::CheckFailed(why).into()),
            Err(merge::RecheckError::Failed(e)) => return Err(e.into()),
        };
        say!("nqueens: rechecked {k} units (--recheck {percent} --seed {seed}): all match");
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
    print_single(
        &CountReport::new(&counts, &plan, seconds, threads),
        a.json,
        &mut crate::cli::error::stdout(),
    )
}
