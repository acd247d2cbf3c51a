//! The options layer: a subcommand's clap arguments turned, once, into typed options — what
//! to do, on which engine for each n, where the output goes — before anything runs or
//! prints. Every usage check of the combination is made here, and each n's engine, table
//! and memory budget is resolved here exactly once (`EngineArgs::resolve`, which reads the
//! machine's memory); the run functions take these values, never the clap structs. The
//! exception is `count --mpi` ([`MpiCount`]): only rank 0 resolves the engine, once MPI has
//! said which rank this is and how many ranks share the node's memory (`cli::mpi`).
//! (hyperfine's `Options` and ripgrep's `HiArgs` play this part in theirs.)

use std::path::PathBuf;

use super::bfile::{CountFormat, Sequence};
use super::count::CountArgs;
use super::default_threads;
use super::engine::{EngineArgs, EnginePlan};
use super::error::usage;
use crate::runner::outfile;
use crate::runner::schedule::ShardSpec;
use crate::runner::shown;
use crate::MAX_N;

/// What `count` does.
#[derive(Debug)]
pub enum CountMode {
    /// `count A..B`: a table row or JSON line per n.
    Range(Vec<Sized>),
    /// `count ... --format bfile`: one b-file term per n, of `sequence`; `0 1` first if the
    /// range starts at 0 (the empty board, A000170's first term).
    Bfile {
        /// The sizes counted (from 1).
        sizes: Vec<Sized>,
        /// The sequence written.
        sequence: Sequence,
        /// The range starts at n = 0.
        zero: bool,
    },
    /// `count N`: one report, resumable with a checkpoint, or one shard of the plan.
    Single(Single),
    /// `count N --mpi`: rank 0 schedules over the other ranks.
    Mpi(MpiCount),
}

/// One n with the engine it runs on.
#[derive(Debug, Clone, Copy)]
pub struct Sized {
    /// The board size.
    pub n: u32,
    /// The engine, table and budgets resolved for it.
    pub chosen: EnginePlan,
}

/// A single count and its long-count options.
#[derive(Debug)]
pub struct Single {
    /// The board size and its engine.
    pub sized: Sized,
    /// `--checkpoint FILE`.
    pub checkpoint: Option<PathBuf>,
    /// `--shard K/M --out FILE` (`-`: standard output).
    pub shard: Option<(ShardSpec, PathBuf)>,
}

/// `count N --mpi`, not yet resolved: rank 0 resolves the engine, its plan and its budget
/// once MPI tells it how many ranks share its node; the other ranks take rank 0's plan and
/// check it against these values (see `cli::mpi`).
#[derive(Debug)]
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub struct MpiCount {
    /// The board size this rank was given.
    pub n: u32,
    /// `--engine` and `--max-memory` as given to this rank.
    pub engine: EngineArgs,
    /// `--checkpoint FILE` (rank 0's is the one kept).
    pub checkpoint: Option<PathBuf>,
}

/// `count`'s options.
#[derive(Debug)]
pub struct CountOptions {
    /// What to do.
    pub mode: CountMode,
    /// Worker threads: of this process, or with `--mpi` of each computing rank.
    pub threads: usize,
    /// JSON instead of text.
    pub json: bool,
    /// No progress bar.
    pub quiet: bool,
}

impl CountOptions {
    /// The options of `a`.
    ///
    /// # Errors
    /// A usage error for options that do not go together; an engine that cannot count an
    /// n, or a count that would not fit the memory allowed (every n of a range is checked
    /// before anything is printed: `count 1..5 --engine quadrant` is refused whole).
    pub fn from_args(a: &CountArgs) -> anyhow::Result<CountOptions> {
        // --format json is --json; bfile goes with no other output or long-count option.
        let other = [
            ("--json", a.json),
            ("--checkpoint", a.checkpoint.is_some()),
            ("--shard", a.shard.is_some()),
            ("--mpi", a.mpi),
        ];
        match a.format {
            Some(CountFormat::Bfile) => {
                if let Some((name, _)) = other.iter().find(|(_, given)| *given) {
                    usage!("the argument '--format bfile' cannot be used with '{name}': a b-file holds 'n a(n)' lines and nothing else");
                }
            }
            Some(CountFormat::Text) if a.json => {
                usage!("the argument '--format text' cannot be used with '--json'");
            }
            _ => {}
        }
        if a.sequence.is_some() && a.format != Some(CountFormat::Bfile) {
            usage!("--sequence chooses the sequence of a b-file: add --format bfile");
        }
        if a.mpi && !cfg!(feature = "mpi") {
            usage!("this nqueens was built without MPI support: rebuild with `cargo build --release --features mpi`");
        }
        let zero = a.sizes.start == 0;
        if zero && a.format != Some(CountFormat::Bfile) {
            usage!(
                "board size 0 is out of range: n must be between 1 and {MAX_N} (n = 0, the empty board, is only the first term of a b-file: count 0..B --format bfile)"
            );
        }
        if zero && a.sequence == Some(Sequence::Unique) {
            usage!(
                "A002562 (--sequence unique) starts at n = 1: its b-file has no n = 0; count 1..{} instead",
                a.sizes.end.max(1)
            );
        }
        let single = a.sizes.is_single();
        let long = a.checkpoint.is_some() || a.shard.is_some() || a.mpi;
        if long && !single {
            usage!(
                "--checkpoint, --shard and --mpi need a single N, not the range {}",
                a.sizes
            );
        }
        if let (Some(out), Some(ckpt)) = (&a.out, &a.checkpoint) {
            if out.as_os_str() != "-" && outfile::same_file(out, ckpt) {
                usage!(
                    "--out {} names the --checkpoint file: the shard file would overwrite the checkpoint; give another file",
                    shown::path(out)
                );
            }
        }
        // MPI ranks run one unit each unless --threads says more (one rank per core).
        let threads = match (a.mpi, a.threads) {
            (_, Some(t)) => t,
            (true, None) => 1,
            (false, None) => default_threads(),
        };
        if a.mpi {
            return Ok(CountOptions {
                mode: CountMode::Mpi(MpiCount {
                    n: a.sizes.start, // a single N: checked above
                    engine: a.engine.clone(),
                    checkpoint: a.checkpoint.clone(),
                }),
                threads,
                json: a.json,
                quiet: a.quiet,
            });
        }
        let sizes = a
            .sizes
            .iter()
            .filter(|&n| n > 0)
            .map(|n| {
                Ok(Sized {
                    n,
                    chosen: a.engine.resolve(n, threads)?,
                })
            })
            .collect::<anyhow::Result<Vec<Sized>>>()?;
        let long_count = |sized: Sized| {
            // A shard of M is about 1/M of the count's time (shards are balanced by cost):
            // a small one does not build a table that would take longer than it saves.
            let sized = match a.shard {
                Some(spec) => Sized {
                    chosen: sized.chosen.table_if_it_pays(
                        sized.n,
                        sized.chosen.engine.cpu_seconds(sized.n) / f64::from(spec.count.max(1)),
                        threads,
                    ),
                    ..sized
                },
                None => sized,
            };
            Single {
                sized,
                checkpoint: a.checkpoint.clone(),
                shard: a.shard.zip(a.out.clone()),
            }
        };
        let mode = if a.format == Some(CountFormat::Bfile) {
            CountMode::Bfile {
                sizes,
                sequence: a.sequence.unwrap_or_default(),
                zero,
            }
        } else if single {
            CountMode::Single(long_count(sizes[0]))
        } else {
            CountMode::Range(sizes)
        };
        Ok(CountOptions {
            mode,
            threads,
            json: a.json || a.format == Some(CountFormat::Json),
            quiet: a.quiet,
        })
    }
}
