//! The options layer ("high args"): each subcommand's clap arguments (`cli::args`) turned,
//! once, into a typed options value — what to do, on which engine for each n, where the
//! output goes, every default filled in — before anything runs or prints. Every usage check
//! of a combination of arguments is made here; the run functions take these values, never
//! the clap structs. (hyperfine's `Options` and ripgrep's `HiArgs` play this part in theirs.)
//!
//! `count` resolves each n's engine, table and memory budget here exactly once
//! (`EngineArgs::resolve`, which reads the machine's memory). The exceptions keep the
//! engine arguments and resolve later: `count --mpi` (`MpiCount`): only rank 0 resolves
//! the engine, once MPI has said which rank this is and how many ranks share the node's
//! memory (`cli::mpi`); `verify`, which resolves each n as it reaches it (a table of rows
//! is printed up to the first n that cannot be counted); and `bench` and `estimate`, whose
//! resolution depends on the workload or on a fallback they word themselves.

use std::path::PathBuf;

use super::args::parse::Until;
use super::args::{
    AnimateArgs, BenchArgs, CountArgs, CountFormat, EngineArgs, EstimateArgs, MergeArgs, PlanArgs,
    Sequence, SolutionsArgs, SolveArgs, SplitArg, VerifyArgs,
};
use super::engine::{memory_limit, EnginePlan, Source};
use super::error::{usage, Failure};
use super::render::{Format, PICTURE_MAX_N};
use crate::runner::outfile;
use crate::runner::schedule::{ShardSpec, SplitRule};
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
    /// `count N --mpi`: rank 0 schedules over the other ranks (only a build with MPI makes
    /// this mode: any other refuses `--mpi` first).
    #[cfg(feature = "mpi")]
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
    /// `--split`: the rule asked for, None for `auto` (see `SplitRule::auto`).
    pub split: Option<SplitRule>,
}

/// `count N --mpi`, not yet resolved: rank 0 resolves the engine, its plan and its budget
/// once MPI tells it how many ranks share its node; the other ranks take rank 0's plan and
/// check it against these values (see `cli::mpi`).
#[derive(Debug)]
#[cfg(feature = "mpi")]
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
    pub fn from_args(a: &CountArgs) -> Result<CountOptions, Failure> {
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
        #[cfg(feature = "mpi")]
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
            .collect::<Result<Vec<Sized>, Failure>>()?;
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
                split: match a.split {
                    None | Some(SplitArg::Auto) => None,
                    Some(SplitArg::Units) => Some(SplitRule::Units),
                    Some(SplitArg::Bundles) => Some(SplitRule::Bundles),
                },
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

/// The default thread count: every logical core.
pub fn default_threads() -> usize {
    num_cpus::get().max(1)
}

/// What `verify` does.
#[derive(Debug)]
pub enum VerifyMode {
    /// `verify [--max MAX]`: count n = 1..=MAX and check each row three ways.
    Table {
        /// The largest n.
        max: u32,
    },
    /// `verify N --units K`: K units of N's plan, counted twice and compared.
    Units(UnitsCheck),
    /// `verify --bfile FILE`: recount the terms of a b-file.
    Bfile {
        /// The b-file (`-`: standard input).
        path: PathBuf,
        /// The sequence it holds.
        sequence: Sequence,
        /// Terms with n above this are compared with the known table, not counted.
        max: u32,
    },
}

/// `verify N --units K`.
#[derive(Debug)]
pub struct UnitsCheck {
    /// The board size.
    pub n: u32,
    /// Units to draw.
    pub units: usize,
    /// `--seed`; None: from the clock (and said on stderr).
    pub seed: Option<u64>,
    /// `--cheapest P`: draw among the P percent of units with the lowest cost estimate.
    pub cheapest: Option<f64>,
    /// One JSON object instead of text.
    pub json: bool,
}

/// `verify`'s options.
#[derive(Debug)]
pub struct VerifyOptions {
    /// What to check.
    pub mode: VerifyMode,
    /// Worker threads.
    pub threads: usize,
    /// `--engine` and `--max-memory`, resolved for each n as verify reaches it.
    pub engine: EngineArgs,
}

impl VerifyOptions {
    /// The options of `a` (clap has checked which arguments go together).
    pub fn from_args(a: &VerifyArgs) -> VerifyOptions {
        let mode = match (a.n, a.units, &a.bfile) {
            (Some(n), Some(k), _) => VerifyMode::Units(UnitsCheck {
                n,
                units: k as usize,
                seed: a.seed,
                cheapest: a.cheapest,
                json: a.json,
            }),
            (_, _, Some(path)) => VerifyMode::Bfile {
                path: path.clone(),
                sequence: a.sequence.unwrap_or_default(),
                max: a.max,
            },
            _ => VerifyMode::Table { max: a.max },
        };
        VerifyOptions {
            mode,
            threads: a.threads.unwrap_or_else(default_threads),
            engine: a.engine.clone(),
        }
    }
}

/// Which solutions `solutions` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// The first `limit` in lexicographic order (all: `u64::MAX`).
    First(u64),
    /// One drawn uniformly at random with `seed` (None: a fresh seed, said on stderr).
    Random(Option<u64>),
}

/// `solutions`' options.
#[derive(Debug)]
pub struct SolutionsOptions {
    /// The board size.
    pub n: u32,
    /// The output format.
    pub format: Format,
    /// One solution per symmetry class.
    pub unique: bool,
    /// Which solutions.
    pub pick: Pick,
}

impl SolutionsOptions {
    /// The options of `a`.
    ///
    /// # Errors
    /// A usage error for `--format svg` with more than one board to draw.
    pub fn from_args(a: &SolutionsArgs) -> Result<SolutionsOptions, Failure> {
        let pick = if a.random {
            Pick::Random(a.seed)
        } else if a.first {
            Pick::First(1)
        } else {
            Pick::First(a.limit.unwrap_or(u64::MAX))
        };
        if a.format == Format::Svg && !matches!(pick, Pick::First(1) | Pick::Random(_)) {
            usage!("--format svg draws one board: add --first, --random or --limit 1");
        }
        Ok(SolutionsOptions {
            n: a.n,
            format: a.format,
            unique: a.unique,
            pick,
        })
    }
}

/// `solve`'s options.
#[derive(Debug)]
pub struct SolveOptions {
    /// The board size.
    pub n: usize,
    /// The output format (a picture only up to [`PICTURE_MAX_N`]).
    pub format: Format,
}

impl SolveOptions {
    /// The options of `a`.
    ///
    /// # Errors
    /// A usage error for a picture format of a board larger than [`PICTURE_MAX_N`].
    pub fn from_args(a: &SolveArgs) -> Result<SolveOptions, Failure> {
        if a.format.is_picture() && a.n > PICTURE_MAX_N {
            usage!(
                "--format {} draws boards up to n = {PICTURE_MAX_N}, not {}: use perm, lisp, tuple or json",
                a.format.name(),
                a.n
            );
        }
        Ok(SolveOptions {
            n: a.n,
            format: a.format,
        })
    }
}

/// The workload `bench` runs (see `cli::bench` for each one's sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// The default, nq-std.
    Standard,
    /// `--quick`, nq-quick.
    Quick,
    /// `--heavy`, nq-heavy.
    Heavy,
    /// `--tiny` (hidden, for the test suite), nq-tiny.
    Tiny,
}

/// `bench`'s options.
#[derive(Debug)]
pub enum BenchOptions {
    /// `bench --compare A.json B.json`.
    Compare(PathBuf, PathBuf),
    /// A benchmark run.
    Run(BenchRun),
}

/// A benchmark run.
#[derive(Debug)]
pub struct BenchRun {
    /// The workload.
    pub preset: Preset,
    /// The thread counts to measure: sorted, without repeats, always starting with 1.
    pub thread_counts: Vec<usize>,
    /// Timed runs per size and thread count.
    pub runs: usize,
    /// The report as JSON.
    pub json: bool,
    /// `--engine` and `--max-memory`, resolved for the workload's largest n.
    pub engine: EngineArgs,
}

impl BenchOptions {
    /// The options of `a` (clap has refused `--compare` with the run's arguments).
    pub fn from_args(a: &BenchArgs) -> BenchOptions {
        if let Some([x, y]) = a.compare.as_deref() {
            return BenchOptions::Compare(x.clone(), y.clone());
        }
        let preset = match (a.quick, a.heavy, a.tiny) {
            (true, _, _) => Preset::Quick,
            (_, true, _) => Preset::Heavy,
            (_, _, true) => Preset::Tiny,
            _ => Preset::Standard,
        };
        let mut thread_counts = match &a.threads {
            Some(list) => list.0.clone(),
            None => vec![default_threads()],
        };
        thread_counts.push(1);
        thread_counts.sort_unstable();
        thread_counts.dedup();
        BenchOptions::Run(BenchRun {
            preset,
            thread_counts,
            runs: a.runs,
            json: a.json,
            engine: a.engine.clone(),
        })
    }
}

/// `merge --recheck`.
#[derive(Debug, Clone, Copy)]
pub struct Recheck {
    /// Percent of each file's units to recompute.
    pub percent: f64,
    /// By the plain recount instead of the engine.
    pub independent: bool,
    /// Seed of the choice (`--seed`, or from the clock).
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
}

/// `merge`'s options.
#[derive(Debug)]
pub struct MergeOptions {
    /// The shard files, in the order given.
    pub files: Vec<PathBuf>,
    /// JSON instead of text.
    pub json: bool,
    /// `--status`: report on the campaign instead of merging.
    pub status: bool,
    /// `--recheck`, if asked.
    pub recheck: Option<Recheck>,
    /// The memory the merge may use, and what set that limit.
    pub memory: (u64, Source),
}

impl MergeOptions {
    /// The options of `a` (clap has refused `--status` with `--recheck`).
    pub fn from_args(a: &MergeArgs) -> MergeOptions {
        let recheck = a.recheck.map(|percent| Recheck {
            percent,
            independent: a.independent,
            seed: a.seed.unwrap_or_else(clock_seed),
            threads: a.threads.unwrap_or_else(default_threads),
        });
        MergeOptions {
            files: a.files.clone(),
            json: a.json,
            status: a.status,
            recheck,
            memory: memory_limit(a.max_memory, 1),
        }
    }
}

/// A seed from the clock, for a draw whose seed was not given (the command says it).
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The n from which `estimate` draws 12 units at a time and, by default, samples for
/// [`FRONTIER_SECONDS`]: a sampled unit there costs a second or more (its set's half
/// searches and sort), and its time varies from unit to unit by a factor of ten.
const FRONTIER: u32 = 26;
/// The n from which `estimate` draws 6 units at a time: a sampled unit of n = 28 costs 2-3 s
/// of a thread (its set's half searches and sort, 0.4-1.2 s each, and a second of its join),
/// and the first one on each thread 4-5 s more (the first touch of its GBs of lists), so a
/// draw of 12 on 2 cores lasts 10-20 s and only two fit in the default time. Draws of 6 fit
/// five: 30 units instead of 24 (2026-12-04, Zen 4, seeds 1 and 5: 95% intervals of -33% /
/// +39% and -28% / +33%, against -32% / +38% and -34% / +41% with draws of 12; draws of 8,
/// three of them: -38% / +46% and -28% / +33%). (Since 2026-12-05 the threads take the
/// draws' units one at a time, so no draw's end idles a thread, and the size of a draw no
/// longer decides how much of the time is used: see `estimate::time_units`.)
const SMALL_DRAWS_FROM: u32 = 28;
/// `estimate`'s default time from [`FRONTIER`], seconds (the whole command): at n = 26 six
/// draws of 12 units on 2 cores (1.3 s of CPU a unit, 2026-12-03, Zen 4), a 95% interval of
/// -23% / +25% with the drift allowance (`estimate::DRIFT`), within a minute; at n = 27 two
/// draws in 46 s (-26% / +29%); at n = 28 five draws of 6 (see [`SMALL_DRAWS_FROM`]). Since
/// the draws no longer sort the plan each time (`estimate::Strata`), n = 26 makes 11 draws
/// in 52 s (-20% / +22%, seed 1, 2026-12-04 night).
const FRONTIER_SECONDS: f64 = 55.0;
/// `estimate`'s default sampling time below [`FRONTIER`], seconds: at small n one draw
/// times only milliseconds of work, which a single interrupt can double.
const MIN_SAMPLING: f64 = 4.0;

/// `estimate`'s options.
#[derive(Debug)]
pub struct EstimateOptions {
    /// The board size.
    pub n: u32,
    /// Units to time per draw (strata): `--sample`, or 48 (12 from n = 26, 6 from n = 28).
    pub sample: u32,
    /// Seconds the whole estimate may take: units are timed while the next is expected to
    /// end in time (the first draw always whole, see `estimate::time_units`): `--seconds`, or 4 (55 from n = 26 without `--sample`).
    pub seconds: f64,
    /// Seed of the first draw.
    pub seed: u64,
    /// Threads that time units at once.
    pub threads: usize,
    /// Seconds of one thread each sampled set's join may take.
    pub budget: f64,
    /// JSON instead of text.
    pub json: bool,
    /// `--engine` and `--max-memory` (resolved by `estimate`, which words its own refusal
    /// of the backtracking fallback).
    pub engine: EngineArgs,
}

impl EstimateOptions {
    /// The options of `a`.
    pub fn from_args(a: &EstimateArgs) -> EstimateOptions {
        EstimateOptions {
            n: a.n,
            sample: a.sample.unwrap_or(if a.n >= SMALL_DRAWS_FROM {
                6
            } else if a.n >= FRONTIER {
                12
            } else {
                48
            }),
            seconds: a
                .seconds
                .unwrap_or(if a.n >= FRONTIER && a.sample.is_none() {
                    FRONTIER_SECONDS
                } else {
                    MIN_SAMPLING
                }),
            seed: a.seed,
            threads: a.threads.unwrap_or_else(default_threads),
            budget: a.budget,
            json: a.json,
            engine: a.engine.clone(),
        }
    }
}

/// `plan`'s options.
#[derive(Debug)]
pub struct PlanOptions {
    /// The board size.
    pub n: u32,
    /// JSON instead of text.
    pub json: bool,
    /// `--stats`: statistics instead of the units.
    pub stats: bool,
    /// `--costs CHECKPOINT`: measured costs for the statistics.
    pub costs: Option<PathBuf>,
    /// Worker counts of the makespan estimates.
    pub workers: Vec<usize>,
    /// The engine, as `count` would pick it on this machine's cores.
    pub chosen: EnginePlan,
}

impl PlanOptions {
    /// The options of `a`.
    ///
    /// # Errors
    /// An engine that cannot count n, or lists that would not fit the memory allowed.
    pub fn from_args(a: &PlanArgs) -> Result<PlanOptions, Failure> {
        Ok(PlanOptions {
            n: a.n,
            json: a.json,
            stats: a.stats,
            costs: a.costs.clone(),
            workers: a.workers.clone(),
            chosen: a.engine.resolve(a.n, default_threads())?,
        })
    }
}

/// `animate`'s options: the board, the pace, when to stop and where the frames go.
#[derive(Clone, Debug)]
pub struct AnimateOptions {
    /// The board size (1..32, checked by its parser).
    pub n: u32,
    /// Milliseconds after each step (ten times as long on a solution).
    pub delay: u64,
    /// When the search stops.
    pub until: Until,
    /// Write one animated SVG here (`-`: stdout) instead of animating the terminal.
    pub svg: Option<PathBuf>,
    /// Most frames the SVG may hold (only with `svg`).
    pub max_frames: u64,
}

impl AnimateOptions {
    /// The options of `a` (its parsers already bounded every value).
    pub fn from_args(a: &AnimateArgs) -> AnimateOptions {
        AnimateOptions {
            n: a.n,
            delay: a.delay,
            until: a.until,
            svg: a.svg.clone(),
            max_frames: a.max_frames,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::{command, Cli, Command};
    use clap::FromArgMatches;

    /// The parsed subcommand of `nqueens ARGS...`.
    fn parsed(args: &[&str]) -> Command {
        let argv = std::iter::once("nqueens").chain(args.iter().copied());
        let m = command()
            .try_get_matches_from(argv)
            .expect("valid arguments");
        Cli::from_arg_matches(&m).expect("valid arguments").command
    }

    #[test]
    fn count_options_refuse_what_does_not_go_together() {
        let Command::Count(a) = parsed(&["count", "4..6", "--checkpoint", "c"]) else {
            panic!("count");
        };
        let e = CountOptions::from_args(&a).unwrap_err();
        assert!(
            matches!(&e, Failure::Usage(why) if why.contains("need a single N")),
            "{e}"
        );
        let Command::Count(a) = parsed(&["count", "0..3"]) else {
            panic!("count");
        };
        assert!(matches!(
            CountOptions::from_args(&a),
            Err(Failure::Usage(_))
        ));
        let Command::Count(a) = parsed(&["count", "0..3", "--format", "bfile", "-t", "1"]) else {
            panic!("count");
        };
        let o = CountOptions::from_args(&a).unwrap();
        assert!(
            matches!(o.mode, CountMode::Bfile { zero: true, ref sizes, .. } if sizes.len() == 3)
        );
        assert_eq!(o.threads, 1);
    }

    #[test]
    fn verify_options_name_one_mode() {
        let Command::Verify(a) = parsed(&["verify", "14", "--units", "3", "--seed", "5"]) else {
            panic!("verify");
        };
        let o = VerifyOptions::from_args(&a);
        assert!(matches!(
            o.mode,
            VerifyMode::Units(UnitsCheck {
                n: 14,
                units: 3,
                seed: Some(5),
                ..
            })
        ));
        let Command::Verify(a) = parsed(&["verify", "--bfile", "b.txt", "--max", "9"]) else {
            panic!("verify");
        };
        assert!(matches!(
            VerifyOptions::from_args(&a).mode,
            VerifyMode::Bfile {
                sequence: Sequence::Total,
                max: 9,
                ..
            }
        ));
        let Command::Verify(a) = parsed(&["verify", "-t", "3"]) else {
            panic!("verify");
        };
        let o = VerifyOptions::from_args(&a);
        assert!(matches!(o.mode, VerifyMode::Table { max: 17 }));
        assert_eq!(o.threads, 3);
    }

    #[test]
    fn bench_measures_one_thread_first_and_each_count_once() {
        let Command::Bench(a) = parsed(&["bench", "--quick", "-t", "4,2,4"]) else {
            panic!("bench");
        };
        let BenchOptions::Run(run) = BenchOptions::from_args(&a) else {
            panic!("a run");
        };
        assert_eq!(run.thread_counts, [1, 2, 4]);
        assert_eq!(run.preset, Preset::Quick);
    }

    #[test]
    fn solutions_draw_svg_of_one_board_only() {
        let Command::Solutions(a) = parsed(&["solutions", "8", "-f", "svg"]) else {
            panic!("solutions");
        };
        assert!(matches!(
            SolutionsOptions::from_args(&a),
            Err(Failure::Usage(why)) if why.contains("draws one board")
        ));
        let Command::Solutions(a) = parsed(&["solutions", "8", "-f", "svg", "--limit", "1"]) else {
            panic!("solutions");
        };
        assert_eq!(
            SolutionsOptions::from_args(&a).unwrap().pick,
            Pick::First(1)
        );
        let Command::Solutions(a) = parsed(&["solutions", "8", "--random", "--seed", "7"]) else {
            panic!("solutions");
        };
        assert_eq!(
            SolutionsOptions::from_args(&a).unwrap().pick,
            Pick::Random(Some(7))
        );
    }

    #[test]
    fn estimate_samples_fewer_units_from_n_26() {
        let Command::Estimate(a) = parsed(&["estimate", "26"]) else {
            panic!("estimate");
        };
        assert_eq!(EstimateOptions::from_args(&a).sample, 12);
        let Command::Estimate(a) = parsed(&["estimate", "28"]) else {
            panic!("estimate");
        };
        assert_eq!(EstimateOptions::from_args(&a).sample, 6);
        let Command::Estimate(a) = parsed(&["estimate", "16", "--sample", "5"]) else {
            panic!("estimate");
        };
        assert_eq!(EstimateOptions::from_args(&a).sample, 5);
    }
}
