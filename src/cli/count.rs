//! `nqueens count N|A..B`: exact counts with timing, checked against the known table; for
//! long counts a progress bar, Ctrl-C/SIGTERM handling, `--checkpoint` (resume), `--shard`
//! (one part of a split, written as a shard file) and `--mpi` (many ranks, rank 0 schedules).

use crate::cli::error::say;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use super::args::{parse_threads, SizeRange};
use super::bfile::{CountFormat, Sequence};
use super::engine::EngineArgs;
use super::error::Failure;
use super::format::{duration, grouped};
use super::options::{CountMode, CountOptions, MpiCount, Single, Sized};
use super::progress::Progress;
use super::report::{estimate_seconds, is_failed_check, print_single, timed_count};
use super::report::{CountReport, KnownCheck};
use super::session;
use super::Outcome;
use crate::runner::schedule::ShardSpec;
use crate::runner::session::Scope;
use crate::runner::shard::ShardFile;
use crate::runner::shown;
use crate::runner::{fifo, outfile};

/// Arguments of `count`.
#[derive(Args, Debug)]
pub struct CountArgs {
    /// Board size N (1..64), or an inclusive range A..B printed one row per N.
    #[arg(value_name = "N|A..B", allow_negative_numbers = true)]
    pub sizes: SizeRange,
    /// Worker threads (1..4096). Default: all logical cores.
    #[arg(short = 't', long, value_parser = parse_threads, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Print one JSON object per N (numbers as JSON numbers) instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar. (The bar is drawn on stderr, only when stderr is a terminal.)
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Record each finished unit in FILE and resume from it: run the same command again
    /// after Ctrl-C, SIGTERM, kill -9 or a crash. Single N only.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Compute only shard K of M (K is 0-based: 0..M-1, as $SLURM_ARRAY_TASK_ID with
    /// --array=0-(M-1)); needs --out. Merge the shard files with `nqueens merge`.
    #[arg(long, value_name = "K/M", requires = "out")]
    pub shard: Option<ShardSpec>,
    /// Where --shard writes its JSON shard file (written atomically at the end).
    #[arg(long, value_name = "FILE", requires = "shard")]
    pub out: Option<PathBuf>,
    /// Run under mpirun (a build with `--features mpi`, at least 2 ranks): rank 0 chooses
    /// the engine and unit plan from its own N, --engine and memory, and hands units to the
    /// other ranks as they finish; --checkpoint, --json and -q are rank 0's.
    ///
    /// Every other rank builds rank 0's plan and checks its id, or refuses (one line, exit
    /// 2, and rank 0 fails naming it): it refuses another N, an --engine other than auto
    /// that differs from rank 0's, another nqueens version, or a plan or lists that do not
    /// fit its memory. --threads T (default 1) and --max-memory are each rank's own; without
    /// --max-memory the ranks of a node split 80% of its free memory. Run one rank per node
    /// with --threads = its cores (one quadrant table per node).
    #[arg(long, conflicts_with_all = ["shard", "out"])]
    pub mpi: bool,
    /// Output format: text (the report), json (as --json) or bfile (an OEIS b-file of
    /// --sequence: `n a(n)` lines and nothing else; not with --json, --checkpoint, --shard
    /// or --mpi).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<CountFormat>,
    /// The sequence of --format bfile: total (A000170, the default) or unique (A002562).
    #[arg(long, value_enum, value_name = "SEQ", requires = "format")]
    pub sequence: Option<Sequence>,
    /// Engine selection.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Counts one N with the long-count options (checkpoint, shard, progress, signals).
fn run_single(s: &Single, o: &CountOptions) -> Outcome {
    let (n, chosen, threads) = (s.sized.n, &s.sized.chosen, o.threads);
    let scope = s
        .shard
        .as_ref()
        .map_or(Scope::All, |&(spec, _)| Scope::Shard(spec));
    let Some(plan) = chosen.plan(n, session::stop_flag())? else {
        return Ok(session::stopped_early());
    };
    if let Some(&(spec, _)) = s.shard.as_ref() {
        check_shard_count(spec, &plan)?;
    }
    warn_if_long(
        n,
        threads,
        chosen.engine,
        s.shard.as_ref().map(|&(spec, _)| spec),
    );
    let Some(session) = session::open(plan, scope, chosen.config, s.checkpoint.as_deref())? else {
        return Ok(session::stopped_early());
    };
    let progress = Progress::new(
        !o.quiet,
        n,
        session.plan().engine(),
        session.units(),
        &session.done(),
    );
    let run = session
        .on_done(|u, r| progress.done(u, r))
        .run_local(threads)?;
    progress.finish();
    if run.interrupted {
        return Ok(session::interrupted(&run));
    }
    let Some((spec, path)) = &s.shard else {
        let counts = run.counts()?;
        let report = CountReport::new(&counts, &run.plan, run.seconds, threads)
            .with_speed(
                counts.nodes - run.resumed.nodes,
                counts.pairs_tested - run.resumed.pairs,
            )
            .with_table(chosen.table_bytes);
        return print_single(&report, o.json, &mut crate::cli::error::stdout());
    };
    let results = run.scope_results();
    let file = ShardFile::new(&run.plan, *spec, &results, run.seconds, threads);
    let text = serde_json::to_string_pretty(&file)? + "\n";
    let to_stdout = path.as_os_str() == "-";
    if to_stdout {
        // The shard file itself: a closed pipe here loses the results, so it is a failed
        // write (exit 2), not the quiet end of a reader that had seen enough.
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|source| Failure::Write {
                what: "the shard file to standard output".into(),
                source,
            })?;
    } else {
        let wait = session::fifo_wait(session::stop_flag());
        match outfile::write_file(path, text.as_bytes(), wait) {
            Ok(()) => {}
            Err(e) => match fifo::stopped(&e) {
                Some(why) => return Ok(session::interrupted_output(&run, why)),
                None => {
                    return Err(e)
                        .with_context(|| format!("cannot write shard file {}", shown::path(path)))
                }
            },
        }
    }
    let nodes: u128 = results.iter().map(|(_, r)| u128::from(r.nodes)).sum();
    let line = format!(
        "n = {n}: shard {spec} has {} of {} units, {} {}, {}; written to {}",
        grouped(results.len() as u128),
        grouped(run.plan.len() as u128),
        grouped(nodes),
        run.plan.engine().work(),
        duration(run.seconds),
        if to_stdout {
            "standard output".into()
        } else {
            shown::path(path)
        }
    );
    if to_stdout {
        say!("nqueens: {line}");
    } else if let Err(e) = writeln!(std::io::stdout(), "{line}") {
        // The shard file is what matters, and it is written: a full or closed stdout only
        // loses this summary.
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            say!("nqueens: warning: cannot write to standard output ({e}); the shard file {} was written", shown::path(path));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses a split into more shards than the plan has units: some shards would be empty,
/// and a merge or `merge --status` would have to account for every one of them.
fn check_shard_count(spec: ShardSpec, plan: &crate::UnitPlan) -> anyhow::Result<()> {
    if spec.count as usize > plan.len() {
        crate::cli::error::usage!(
            "--shard {spec}: n = {} has {} units (plan {}), so split it into at most {} shards",
            plan.n(),
            grouped(plan.len() as u128),
            plan.id_hex(),
            plan.len()
        );
    }
    Ok(())
}

/// `count N --mpi` in a build without MPI.
#[cfg(not(feature = "mpi"))]
fn mpi_count(_m: &MpiCount, _o: &CountOptions) -> Outcome {
    crate::cli::error::usage!("this nqueens was built without MPI support: rebuild with `cargo build --release --features mpi`")
}

/// `count N --mpi`: rank 0 schedules and prints, the other ranks compute.
#[cfg(feature = "mpi")]
fn mpi_count(m: &MpiCount, o: &CountOptions) -> Outcome {
    super::mpi::count(m, o)
}

/// Warns on stderr when counting n, or one shard of it (about 1/M of the time: shards are
/// balanced by cost), will take more than an hour.
fn warn_if_long(n: u32, threads: usize, engine: crate::Engine, shard: Option<ShardSpec>) {
    let whole = estimate_seconds(n, threads, engine);
    let (est, what) = match shard {
        Some(s) => (
            whole / f64::from(s.count.max(1)),
            format!("shard {}/{} of n = {n}", s.index, s.count),
        ),
        None => (whole, format!("n = {n}")),
    };
    if est > 3600.0 {
        say!(
            "warning: counting {what} will take roughly {} on {threads} thread(s); Ctrl-C to stop",
            duration(est)
        );
    }
}

/// Runs `count`.
pub fn run(a: &CountArgs) -> Outcome {
    let o = CountOptions::from_args(a)?;
    match &o.mode {
        CountMode::Single(s) => run_single(s, &o),
        CountMode::Mpi(s) => mpi_count(s, &o),
        CountMode::Bfile {
            sizes,
            sequence,
            zero,
        } => {
            warn_range(sizes, o.threads);
            super::bfile::print_counts(sizes, *sequence, *zero, o.threads)
        }
        CountMode::Range(sizes) => {
            warn_range(sizes, o.threads);
            run_range(sizes, &o)
        }
    }
}

/// Warns about a range by its last n. (A single n is warned about once its plan is made:
/// a plan too large for memory is refused without a warning first.)
fn warn_range(sizes: &[Sized], threads: usize) {
    if let Some(last) = sizes.last().filter(|_| sizes.len() > 1) {
        warn_if_long(last.n, threads, last.chosen.engine, None);
    }
}

/// `count A..B`: one table row (or JSON line) per n.
fn run_range(sizes: &[Sized], o: &CountOptions) -> Outcome {
    let threads = o.threads;
    let mut out = crate::cli::error::stdout();
    if !o.json {
        writeln!(out, "{}", CountReport::table_header())?;
    }
    let mut failed = false;
    for &Sized { n, chosen } in sizes {
        let (counts, plan, secs) = match timed_count(n, threads, &chosen) {
            Ok(r) => r,
            // A broken identity is a failed check like a table mismatch: exit code 1.
            Err(e) if is_failed_check(&e) => {
                out.flush()?;
                say!("nqueens: {e}");
                return Ok(ExitCode::from(1));
            }
            Err(e) => return Err(e),
        };
        let report = CountReport::new(&counts, &plan, secs, threads).with_table(chosen.table_bytes);
        if report.known == KnownCheck::Mismatch {
            failed = true;
            say!("nqueens: {}", report.mismatch_line());
        }
        let row = if o.json {
            serde_json::to_string(&report)?
        } else {
            report.table_row()
        };
        if let Err(e) = writeln!(out, "{row}").and_then(|()| out.flush()) {
            // A failed check outranks the lost output (said on stderr already): exit 1.
            return if failed {
                Ok(ExitCode::from(1))
            } else {
                Err(e.into())
            };
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
