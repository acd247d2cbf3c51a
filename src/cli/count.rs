//! `nqueens count N|A..B`: exact counts with timing, checked against the known table; for
//! long counts a progress bar, Ctrl-C/SIGTERM handling, `--checkpoint` (resume), `--shard`
//! (one part of a split, written as a shard file) and `--mpi` (many ranks, rank 0 schedules).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;
use serde::Serialize;

use super::args::{parse_threads, SizeRange};
use super::bfile::{CountFormat, Sequence};
use super::format::{duration, grouped, si};
use super::progress::Progress;
use super::{default_threads, Outcome};
use nqueens::engine::counts::Tally;
use nqueens::runner::checkpoint::{Checkpoint, Recorded};
use nqueens::runner::shard::{self, ShardFile, ShardSpec};
use nqueens::{known, runner, Counts, Unit, UnitPlan, UnitResult};

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
    /// Run under mpirun: rank 0 hands units to the other ranks as they finish (needs a
    /// build with `--features mpi` and at least 2 ranks). --checkpoint is kept by rank 0.
    #[arg(long, conflicts_with_all = ["shard", "out"])]
    pub mpi: bool,
    /// Output format: text (the report; --json for JSON lines) or bfile (an OEIS b-file of
    /// --sequence: `n a(n)` lines and nothing else).
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with_all = ["json", "checkpoint", "shard", "mpi"])]
    pub format: Option<CountFormat>,
    /// The sequence of --format bfile: total (A000170, the default) or unique (A002562).
    #[arg(long, value_enum, value_name = "SEQ", requires = "format")]
    pub sequence: Option<Sequence>,
}

/// How a count compares with the known table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KnownCheck {
    /// Total, unique and orbit breakdown all equal the table.
    Match,
    /// Some value differs from the table.
    Mismatch,
    /// The table stops at n = 27.
    Unknown,
}

impl KnownCheck {
    /// Compares `c` with the table.
    pub fn of(c: &Counts) -> KnownCheck {
        match known::lookup(c.n) {
            None => KnownCheck::Unknown,
            Some(k) => {
                let orbits_ok = c.n == 1
                    || (k.orbits8, k.orbits4, k.orbits2) == (c.orbits8, c.orbits4, c.orbits2);
                if k.total == c.total && k.unique == c.unique && orbits_ok {
                    KnownCheck::Match
                } else {
                    KnownCheck::Mismatch
                }
            }
        }
    }

    fn text(self) -> &'static str {
        match self {
            KnownCheck::Match => "matches the known value",
            KnownCheck::Mismatch => "MISMATCH with the known value",
            KnownCheck::Unknown => "no known value (table ends at n = 27)",
        }
    }
}

/// One count, as printed by `--json`: the counts (n, total, unique, orbits8/4/2, fixed180,
/// fixed90, nodes; see [`Counts`]) followed by how the count ran.
#[derive(Clone, Debug, Serialize)]
pub struct CountReport {
    /// The counts, as fields of the report itself.
    #[serde(flatten)]
    pub counts: Counts,
    /// Wall time of the count, seconds.
    pub seconds: f64,
    /// Search nodes per second of wall time.
    pub nodes_per_second: f64,
    /// Worker threads used.
    pub threads: usize,
    /// Work units in the plan.
    pub units: usize,
    /// Identity of the unit plan (hex).
    pub plan_id: String,
    /// Comparison with the known table: "match", "mismatch" or "unknown".
    pub known: KnownCheck,
}

impl CountReport {
    /// Builds the report of a finished count.
    pub fn new(c: &Counts, plan: &UnitPlan, seconds: f64, threads: usize) -> CountReport {
        CountReport {
            counts: *c,
            seconds,
            nodes_per_second: 0.0,
            threads,
            units: plan.len(),
            plan_id: plan.id_hex(),
            known: KnownCheck::of(c),
        }
        .with_speed(c.nodes)
    }

    /// Sets the speed from the nodes this run computed (a resumed count took the others from
    /// its checkpoint, in an earlier run's time).
    pub fn with_speed(mut self, nodes_this_run: u128) -> CountReport {
        self.nodes_per_second = if self.seconds > 0.0 {
            nodes_this_run as f64 / self.seconds
        } else {
            0.0
        };
        self
    }

    /// The multi-line text block for a single count.
    pub fn text_block(&self) -> String {
        let mut s = String::new();
        let orbits = if self.counts.n == 1 {
            "one orbit of size 1".to_string()
        } else {
            format!(
                "size 8: {}   size 4: {}   size 2: {}",
                grouped(self.counts.orbits8),
                grouped(self.counts.orbits4),
                grouped(self.counts.orbits2)
            )
        };
        let rows = [
            ("n", self.counts.n.to_string()),
            ("total", grouped(self.counts.total)),
            ("unique", grouped(self.counts.unique)),
            ("orbits", orbits),
            ("nodes", grouped(self.counts.nodes)),
            ("time", duration(self.seconds)),
            ("speed", format!("{}nodes/s", si(self.nodes_per_second))),
            ("threads", self.threads.to_string()),
            (
                "units",
                format!("{} (plan {})", grouped(self.units as u128), self.plan_id),
            ),
            ("known", self.known.text().to_string()),
        ];
        for (k, v) in rows {
            s.push_str(&format!("{k:<8} {v}\n"));
        }
        s
    }

    /// The header of the one-row-per-n table.
    pub fn table_header() -> String {
        format!(
            "{:>3} {:>20} {:>19} {:>19} {:>8} {:>7} {:>20} {:>10}  {}",
            "n", "total", "unique", "orbits8", "orbits4", "orbits2", "nodes", "seconds", "known"
        )
    }

    /// One row of the table.
    pub fn table_row(&self) -> String {
        let known = match self.known {
            KnownCheck::Match => "ok",
            KnownCheck::Mismatch => "MISMATCH",
            KnownCheck::Unknown => "-",
        };
        format!(
            "{:>3} {:>20} {:>19} {:>19} {:>8} {:>7} {:>20} {:>10.3}  {}",
            self.counts.n,
            grouped(self.counts.total),
            grouped(self.counts.unique),
            grouped(self.counts.orbits8),
            grouped(self.counts.orbits4),
            grouped(self.counts.orbits2),
            grouped(self.counts.nodes),
            self.seconds,
            known
        )
    }
}

/// Rough wall time of a count, for the long-run warning. Calibrated on a 2-core Xeon
/// (Sapphire Rapids class): n = 16 takes 0.7 s on one thread; from there the time grows like
/// the number of solutions (the known table's ratio Q(n)/Q(n-1), 6.5 at n = 17 rising to
/// 10.5 at n = 27), and by 10.6 per n beyond the table.
pub fn estimate_seconds(n: u32, threads: usize) -> f64 {
    let mut secs = 0.7;
    for k in 17..=n {
        secs *= match (known::lookup(k), known::lookup(k - 1)) {
            (Some(a), Some(b)) => a.total as f64 / b.total as f64,
            _ => 10.6,
        };
    }
    for k in (n + 1..=16).rev() {
        secs /= match (known::lookup(k), known::lookup(k - 1)) {
            // Q(2) = Q(3) = 0: a ratio of 0 would divide by zero (n = 1 was "inf years").
            (Some(a), Some(b)) if a.total > 0 && b.total > 0 => a.total as f64 / b.total as f64,
            _ => 8.0,
        };
    }
    secs / threads as f64
}

/// Counts one size on `threads` threads and times it.
pub fn timed_count(n: u32, threads: usize) -> anyhow::Result<(Counts, UnitPlan, f64)> {
    let start = Instant::now();
    let plan = UnitPlan::new(n);
    let counts = runner::local::count_plan(&plan, threads)?;
    Ok((counts, plan, start.elapsed().as_secs_f64()))
}

/// The stop flag raised by Ctrl-C (SIGINT), SIGTERM and SIGHUP: workers finish nothing
/// more, units in flight are abandoned, finished ones are kept.
pub fn stop_flag() -> &'static AtomicBool {
    static STOP: AtomicBool = AtomicBool::new(false);
    static HANDLER: OnceLock<()> = OnceLock::new();
    HANDLER.get_or_init(|| {
        // A second signal means "now": the checkpoint is consistent after every line.
        let installed = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("nqueens: stopping: units in flight are abandoned (signal again to quit at once)");
        });
        if let Err(e) = installed {
            eprintln!("nqueens: warning: cannot handle Ctrl-C ({e}); an interrupted count keeps its checkpoint but loses units in flight");
        }
    });
    &STOP
}

/// What a single-N run of part of a plan produced.
pub struct PartRun {
    /// Result per unit id, for the units of the scope that finished (now or before).
    pub results: Vec<Option<UnitResult>>,
    /// True if a signal stopped the run before every unit finished.
    pub interrupted: bool,
    /// Nodes of the units taken from the checkpoint (not computed by this run).
    pub resumed_nodes: u128,
    /// Wall time of this run, seconds.
    pub seconds: f64,
}

impl PartRun {
    /// Sums the results of `scope` (every one must be present).
    pub fn tally(&self, plan: &UnitPlan, scope: &[Unit]) -> Tally {
        let mut t = Tally::default();
        for u in scope {
            t.add(
                &plan.units()[u.id as usize].kind,
                &self.results[u.id as usize].expect("every unit of the scope finished"),
            );
        }
        t
    }
}

/// Opens the checkpoint (if any) and says on stderr what it resumes.
pub fn open_checkpoint(
    path: Option<&Path>,
    plan: &UnitPlan,
    scope: &str,
    scope_len: usize,
) -> anyhow::Result<(Option<Checkpoint>, Recorded)> {
    let Some(path) = path else {
        return Ok((
            None,
            Recorded {
                results: vec![None; plan.len()],
                torn: false,
            },
        ));
    };
    let (c, rec) = Checkpoint::open(path, plan, scope)?;
    if rec.torn {
        eprintln!(
            "nqueens: {}: dropped a torn last line (a write cut short); that unit is redone",
            path.display()
        );
    }
    if rec.count() > 0 {
        eprintln!(
            "nqueens: resuming from {}: {} of {} units already done",
            path.display(),
            grouped(rec.count() as u128),
            grouped(scope_len as u128)
        );
    }
    Ok((Some(c), rec))
}

/// Tells how an interrupted run can go on; returns exit code 130 (as after SIGINT).
pub fn interrupted(done: usize, total: usize, checkpoint: Option<&Path>) -> ExitCode {
    let (d, t) = (grouped(done as u128), grouped(total as u128));
    match checkpoint {
        Some(p) => eprintln!("nqueens: interrupted: {d} of {t} units are saved in {}; run the same command again to resume", p.display()),
        None => eprintln!("nqueens: interrupted after {d} of {t} units; nothing was saved (use --checkpoint FILE to make a count resumable)"),
    }
    ExitCode::from(130)
}

/// Runs the units of `scope` not yet in the checkpoint on local threads, recording each.
pub fn run_part(
    plan: &UnitPlan,
    scope: &[Unit],
    scope_name: &str,
    a: &CountArgs,
    threads: usize,
) -> anyhow::Result<PartRun> {
    let start = Instant::now();
    let stop = stop_flag();
    let (ckpt, rec) = open_checkpoint(a.checkpoint.as_deref(), plan, scope_name, scope.len())?;
    let (done, todo): (Vec<Unit>, Vec<Unit>) = scope
        .iter()
        .partition(|u| rec.results[u.id as usize].is_some());
    let resumed_nodes = rec.nodes();
    let progress = Progress::new(!a.quiet, plan.n(), scope, &done);
    let results = Mutex::new(rec.results);
    let write_error = Mutex::new(None);
    let summary = runner::local::run_units(plan, &todo, threads, stop, |u, r| {
        if let Some(c) = &ckpt {
            if let Err(e) = c.record(u.id, r) {
                // Stop rather than compute results that cannot be kept.
                write_error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(e);
                stop.store(true, Ordering::SeqCst);
            }
        }
        results.lock().unwrap_or_else(|p| p.into_inner())[u.id as usize] = Some(*r);
        progress.done(u, r);
    });
    progress.finish();
    if let Some(c) = &ckpt {
        c.sync()
            .with_context(|| format!("checkpoint {}", c.path().display()))?;
    }
    if let Some(e) = write_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        let path = ckpt
            .as_ref()
            .map(|c| c.path().display().to_string())
            .unwrap_or_default();
        bail!("cannot write checkpoint {path}: {e}");
    }
    let summary = summary?;
    Ok(PartRun {
        results: results.into_inner().unwrap_or_else(|p| p.into_inner()),
        interrupted: summary.interrupted,
        resumed_nodes,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Counts one N with the long-count options (checkpoint, shard, progress, signals).
fn run_long(
    n: u32,
    a: &CountArgs,
    threads: usize,
    out: &mut impl Write,
) -> anyhow::Result<ExitCode> {
    let plan = UnitPlan::new(n);
    let (scope, scope_name) = match a.shard {
        Some(s) => (shard::units_of(&plan, s), format!("shard {s}")),
        None => (plan.units().to_vec(), "all".to_string()),
    };
    let part = run_part(&plan, &scope, &scope_name, a, threads)?;
    if part.interrupted {
        let done = scope
            .iter()
            .filter(|u| part.results[u.id as usize].is_some())
            .count();
        return Ok(interrupted(done, scope.len(), a.checkpoint.as_deref()));
    }
    if let (Some(spec), Some(path)) = (a.shard, &a.out) {
        let results: Vec<(u32, UnitResult)> = scope
            .iter()
            .map(|u| (u.id, part.results[u.id as usize].expect("finished")))
            .collect();
        let file = ShardFile::new(&plan, spec, &results, part.seconds, threads);
        write_atomically(path, &serde_json::to_string_pretty(&file)?)
            .with_context(|| format!("cannot write shard file {}", path.display()))?;
        let nodes: u128 = results.iter().map(|(_, r)| u128::from(r.nodes)).sum();
        writeln!(
            out,
            "n = {n}: shard {spec} has {} of {} units, {} nodes, {}; written to {}",
            grouped(scope.len() as u128),
            grouped(plan.len() as u128),
            grouped(nodes),
            duration(part.seconds),
            path.display()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let counts = part.tally(&plan, &scope).finish(&plan)?;
    let report = CountReport::new(&counts, &plan, part.seconds, threads)
        .with_speed(counts.nodes - part.resumed_nodes);
    print_single(&report, a.json, out)
}

/// Prints one count's report (text block or JSON line); exit 1 on a mismatch with the table.
pub fn print_single(
    report: &CountReport,
    json: bool,
    out: &mut impl Write,
) -> anyhow::Result<ExitCode> {
    if json {
        writeln!(out, "{}", serde_json::to_string(report)?)?;
    } else {
        write!(out, "{}", report.text_block())?;
    }
    out.flush()?;
    Ok(if report.known == KnownCheck::Mismatch {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes `text` to a temporary file beside `path`, syncs it and renames it over `path`, so a
/// reader never sees half a file.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp{}", std::process::id()));
    let tmp = path.with_file_name(name);
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(text.as_bytes())?;
    f.write_all(b"\n")?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// `count N --mpi` in a build without MPI.
#[cfg(not(feature = "mpi"))]
fn mpi_count(_n: u32, _a: &CountArgs, _threads: usize) -> Outcome {
    bail!("this nqueens was built without MPI support: rebuild with `cargo build --release --features mpi`")
}

/// `count N --mpi`: rank 0 schedules and prints, the other ranks compute.
#[cfg(feature = "mpi")]
fn mpi_count(n: u32, a: &CountArgs, threads: usize) -> Outcome {
    super::mpi::count(n, a, threads)
}

/// True if `e` is a broken symmetry identity (a wrong count: exit code 1), not a failure to
/// count (exit code 2).
pub fn is_failed_check(e: &anyhow::Error) -> bool {
    matches!(
        e.downcast_ref::<nqueens::Error>(),
        Some(nqueens::Error::Inconsistent { .. })
    )
}

/// Runs `count`.
pub fn run(a: &CountArgs) -> Outcome {
    let threads = a.threads.unwrap_or_else(default_threads);
    let long = a.checkpoint.is_some() || a.shard.is_some() || a.mpi;
    if long && !a.sizes.is_single() {
        bail!(
            "--checkpoint, --shard and --mpi need a single N, not the range {}",
            a.sizes
        );
    }
    if a.mpi {
        return mpi_count(a.sizes.start, a, threads);
    }
    let est = estimate_seconds(a.sizes.end, threads);
    if est > 3600.0 {
        eprintln!(
            "warning: counting n = {} will take roughly {} on {threads} thread(s); Ctrl-C to stop",
            a.sizes.end,
            duration(est)
        );
    }
    if a.format == Some(CountFormat::Bfile) {
        return super::bfile::print_counts(a.sizes, a.sequence.unwrap_or_default(), threads);
    }
    let mut out = std::io::stdout().lock();
    if a.sizes.is_single() {
        return run_long(a.sizes.start, a, threads, &mut out);
    }
    if !a.json {
        writeln!(out, "{}", CountReport::table_header())?;
    }
    let mut failed = false;
    for n in a.sizes.iter() {
        let (counts, plan, secs) = match timed_count(n, threads) {
            Ok(r) => r,
            // A broken identity is a failed check like a table mismatch: exit code 1.
            Err(e) if is_failed_check(&e) => {
                out.flush()?;
                eprintln!("nqueens: {e}");
                return Ok(ExitCode::from(1));
            }
            Err(e) => return Err(e),
        };
        let report = CountReport::new(&counts, &plan, secs, threads);
        failed |= report.known == KnownCheck::Mismatch;
        if a.json {
            writeln!(out, "{}", serde_json::to_string(&report)?)?;
        } else {
            writeln!(out, "{}", report.table_row())?;
        }
        out.flush()?;
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_are_finite_and_small_for_small_boards() {
        for n in 1..=16 {
            let secs = estimate_seconds(n, 1);
            assert!(secs.is_finite() && secs <= 0.7, "n = {n}: {secs}");
        }
        assert!(estimate_seconds(64, 1).is_finite());
    }
}
