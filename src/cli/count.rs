//! `nqueens count N|A..B`: exact counts with timing, checked against the known table; for
//! long counts a progress bar, Ctrl-C/SIGTERM handling, `--checkpoint` (resume), `--shard`
//! (one part of a split, written as a shard file) and `--mpi` (many ranks, rank 0 schedules).

use std::io::Write;

use anyhow::Context;

use super::error::{say, usage, Done, Failure, Outcome};
use super::format::{duration, grouped};
use super::options::{CountMode, CountOptions, Single, Sized};
use super::report::{estimate_seconds, print_run, timed_count};
use super::report::{CountReport, KnownCheck};
use super::session;
use crate::runner::schedule::{ShardSpec, SplitRule};
use crate::runner::session::Scope;
use crate::runner::shard::ShardFile;
use crate::runner::shown;
use crate::runner::{fifo, outfile};

/// Counts one N with the long-count options (checkpoint, shard, progress, signals).
fn run_single(s: &Single, o: &CountOptions) -> Outcome {
    let (n, chosen, threads) = (s.sized.n, &s.sized.chosen, o.threads);
    let Some(plan) = chosen.plan(n, session::stop_flag())? else {
        return Ok(session::stopped_early());
    };
    let scope = match s.shard.as_ref() {
        None => Scope::All,
        Some(&(spec, _)) => {
            let rule = s
                .split
                .map_or_else(|| SplitRule::auto(&plan, spec.count), |r| r.for_plan(&plan));
            check_shard_count(spec, rule, &plan)?;
            Scope::Shard(spec, rule)
        }
    };
    warn_if_long(
        n,
        threads,
        chosen.engine,
        s.shard.as_ref().map(|&(spec, _)| spec),
    );
    let Some(session) = session::open(plan, scope, chosen.config, s.checkpoint.as_deref())? else {
        return Ok(session::stopped_early());
    };
    let Some(run) = session::run(session, o.quiet, |s| s.run_local(threads))? else {
        return Ok(Done::Interrupted);
    };
    let (Some((spec, path)), Scope::Shard(_, rule)) = (&s.shard, scope) else {
        return print_run(&run, chosen.table_bytes, o.json);
    };
    let results = run.scope_results();
    let file = ShardFile::new(&run.plan, *spec, rule, &results, run.seconds, threads);
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
                        .map_err(Failure::Other)
                }
            },
        }
    }
    let nodes: u128 = results.iter().map(|(_, r)| u128::from(r.nodes)).sum();
    let line = format!(
        "n = {n}: shard {spec}{} has {} of {} units, {} {}, {}; written to {}",
        match rule {
            SplitRule::Units => String::new(),
            rule => format!(" (split by {rule})"),
        },
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
    Ok(Done::Ok)
}

/// Refuses a split into more shards than the plan has units (or bundles, split by
/// bundles): some shards would be empty, and a merge or `merge --status` would have to
/// account for every one of them.
fn check_shard_count(
    spec: ShardSpec,
    rule: SplitRule,
    plan: &crate::UnitPlan,
) -> Result<(), Failure> {
    let most = rule.most_shards(plan);
    if spec.count as usize > most {
        let more = match rule {
            SplitRule::Bundles if spec.count as usize <= plan.len() => {
                " by bundles, or use --split units"
            }
            _ => "",
        };
        usage!(
            "--shard {spec}: n = {} has {} {rule} (plan {}), so split it into at most {most} shards{more}",
            plan.n(),
            grouped(most as u128),
            plan.id_hex(),
        );
    }
    Ok(())
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
pub fn run(o: &CountOptions) -> Outcome {
    match &o.mode {
        CountMode::Single(s) => run_single(s, o),
        #[cfg(feature = "mpi")]
        CountMode::Mpi(m) => super::mpi::count(m, o),
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
            run_range(sizes, o)
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
    let mut out = super::error::stdout();
    if !o.json {
        writeln!(out, "{}", CountReport::table_header())?;
    }
    let mut failed = false;
    for &Sized { n, chosen } in sizes {
        let (counts, plan, secs) = match timed_count(n, threads, &chosen) {
            Ok(r) => r,
            // A broken identity is a failed check like a table mismatch (exit code 1),
            // said after the rows printed so far.
            Err(e @ Failure::CheckFailed(_)) => {
                out.flush()?;
                return Err(e);
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
            return Err(if failed {
                Failure::CheckFailed(None)
            } else {
                e.into()
            });
        }
    }
    if failed {
        Err(Failure::CheckFailed(None))
    } else {
        Ok(Done::Ok)
    }
}
