//! `nqueens merge FILE...`: combines shard files into the count of N, accepting the set only
//! if it covers every unit of the plan exactly once, and prints what `count N` prints.

use std::path::PathBuf;

use clap::Args;

use super::report::{print_single, CountReport};
use super::Outcome;
use nqueens::runner::shard::{self, ShardFile};

/// Arguments of `merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Shard files written by `count N --shard K/M --out FILE`, all of one N.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Print the result as one JSON object (as `count --json`).
    #[arg(long)]
    pub json: bool,
}

/// Runs `merge`.
pub fn run(a: &MergeArgs) -> Outcome {
    let mut files = Vec::with_capacity(a.files.len());
    for path in &a.files {
        files.push((path.display().to_string(), ShardFile::read(path)?));
    }
    let (plan, tally) = shard::merge(&files).map_err(anyhow::Error::msg)?;
    let counts = tally.finish(&plan)?;
    // Time and threads of a merged count: the shards' wall times and threads added up.
    let seconds = files.iter().map(|(_, f)| f.seconds).sum();
    let threads = files.iter().map(|(_, f)| f.threads).sum();
    print_single(
        &CountReport::new(&counts, &plan, seconds, threads),
        a.json,
        &mut std::io::stdout().lock(),
    )
}
