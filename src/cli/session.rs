//! The command-line side of a long count, shared by `count` and `count --mpi`: the stop flag
//! raised by signals, opening a [`Session`] with its checkpoint (saying on stderr what it
//! resumes), the one pipeline that runs it ([`run`]: progress bar, run, the message of an
//! interrupted run). Also what a signal does in the commands that have nothing to save, and
//! how every command waits for a FIFO's other end.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use super::error::{say, Done};
use super::format::grouped;
use super::progress::Progress;
use crate::engine::Config;
use crate::runner::fifo::{Peer, Wait};
use crate::runner::session::{Run, Scope, Session};
use crate::runner::shown;
use crate::UnitPlan;

static STOP: AtomicBool = AtomicBool::new(false);

/// True once something watches [`STOP`] and ends cleanly when it is raised (a count).
static GRACEFUL: AtomicBool = AtomicBool::new(false);

/// Installs the one handler of Ctrl-C (SIGINT), SIGTERM and SIGHUP (`ctrlc` allows one).
fn install() {
    static HANDLER: OnceLock<()> = OnceLock::new();
    HANDLER.get_or_init(|| {
        let installed = ctrlc::set_handler(|| {
            if !GRACEFUL.load(Ordering::SeqCst) {
                // Nothing watches the flag: end now, as the signal's default action would,
                // but with the code of an interrupted run.
                say!("nqueens: interrupted");
                std::process::exit(130);
            }
            // A second signal means "now": the checkpoint is consistent after every line.
            if STOP.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            say!("nqueens: stopping: units in flight are abandoned (signal again to quit at once)");
        });
        if let Err(e) = installed {
            say!("nqueens: warning: cannot handle Ctrl-C ({e}); an interrupted count keeps its checkpoint but loses units in flight");
        }
    });
}

/// The stop flag raised by Ctrl-C (SIGINT), SIGTERM and SIGHUP: workers finish nothing
/// more, units in flight are abandoned, finished ones are kept.
pub fn stop_flag() -> &'static AtomicBool {
    GRACEFUL.store(true, Ordering::SeqCst);
    install();
    &STOP
}

/// The end of a run stopped before any unit ran (while the plan or a shard's units were
/// being made): exit code 130, as after SIGINT; a checkpoint is left as it was.
pub fn stopped_early() -> Done {
    say!("nqueens: interrupted before any unit ran; nothing was changed");
    Done::Interrupted
}

/// For commands with nothing to save (every command but a single count and animate on a
/// terminal; `cli::run` calls it first): Ctrl-C, SIGTERM and SIGHUP end the process at
/// once with code 130, as an interrupted count ends.
/// They would end it anyway (the default action), but with another code (143 for SIGTERM).
/// Returns the flag for [`fifo_wait`]; nothing raises it unless a count made it graceful.
///
/// Not where SIGINT, SIGTERM or SIGHUP is ignored or caught already when the program
/// starts (`nohup nqueens verify &` ignores SIGHUP, a background job of a script SIGINT):
/// the handler would make an ignored signal end the program, so then every signal keeps
/// its action.
pub fn quit_on_signal() -> &'static AtomicBool {
    if !stop_signal_taken() {
        install();
    }
    &STOP
}

/// True if SIGINT, SIGTERM or SIGHUP does not have its default action (see
/// [`quit_on_signal`]).
fn stop_signal_taken() -> bool {
    #[cfg(unix)]
    {
        let taken = not_default();
        [libc::SIGINT, libc::SIGTERM, libc::SIGHUP]
            .into_iter()
            .any(taken)
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Says what a FIFO named on the command line waits for, once it has waited a moment.
fn say_waiting(path: &Path, peer: Peer) {
    say!("nqueens: waiting for {peer} on {}", shown::path(path));
}

/// How a command opens a FIFO it was given: `stop` ends the wait, which is named on stderr.
pub fn fifo_wait(stop: &'static AtomicBool) -> Wait<'static> {
    Wait::new(stop, &say_waiting)
}

/// The session of a single-N count over `scope`, with its checkpoint opened, locked and
/// resumed; says on stderr what it resumes. None if a stop signal came while a shard's
/// units were being chosen.
pub fn open(
    plan: UnitPlan,
    scope: Scope,
    config: Config,
    checkpoint: Option<&Path>,
) -> anyhow::Result<Option<Session<'static>>> {
    let Some(session) = Session::new(plan, scope, stop_flag()) else {
        return Ok(None);
    };
    let session = session.with_config(config);
    let Some(path) = checkpoint else {
        return Ok(Some(session));
    };
    let session = session.with_checkpoint(path)?;
    if session.torn() {
        say!(
            "nqueens: {}: dropped a torn last line (a write cut short); that unit is redone",
            shown::path(path)
        );
    }
    let done = session.done().len();
    if done > 0 {
        say!(
            "nqueens: resuming from {}: {} of {} units already done",
            shown::path(path),
            grouped(done as u128),
            grouped(session.units().len() as u128)
        );
    }
    Ok(Some(session))
}

/// Tells that a finished run's shard file was not written (`why`: the wait for the FIFO's
/// reader was interrupted) and how to get it; returns exit code 130.
pub fn interrupted_output(run: &Run, why: &dyn std::fmt::Display) -> Done {
    match run.checkpoint_path() {
        Some(p) => say!("nqueens: {why}: the shard file was not written; all its units are saved in {}: run the same command again to write it", shown::path(p)),
        None => say!("nqueens: {why}: the shard file was not written and nothing was saved (use --checkpoint FILE to keep the units)"),
    }
    Done::Interrupted
}

/// Tells how an interrupted run can go on (exit code 130, as after SIGINT).
fn interrupted(run: &Run) {
    let (d, t) = (
        grouped(run.done() as u128),
        grouped(run.units.len() as u128),
    );
    match run.checkpoint_path() {
        Some(p) => say!("nqueens: interrupted: {d} of {t} units are saved in {}; run the same command again to resume", shown::path(p)),
        None => say!("nqueens: interrupted after {d} of {t} units; nothing was saved (use --checkpoint FILE to make a count resumable)"),
    }
}

/// The one pipeline of a long count, local (`count N`) or over MPI (rank 0 of
/// `count N --mpi`): a progress bar over the session's units (those resumed from its
/// checkpoint shown done), the run by `runner` (`Session::run_local` or
/// `Session::run_mpi`), the bar cleared before anything else is said, failed run or not.
/// Returns the run if it went to its end, None if a signal stopped it (said on stderr,
/// with how to resume).
///
/// # Errors
/// The runner's, as it returned it.
pub fn run<E>(
    session: Session<'_>,
    quiet: bool,
    runner: impl for<'s> FnOnce(Session<'s>) -> Result<Run, E>,
) -> Result<Option<Run>, E> {
    let plan = session.plan();
    let progress = Progress::new(
        !quiet,
        plan.n(),
        plan.engine(),
        session.units(),
        &session.done(),
    );
    let run = runner(session.on_done(|u, r| progress.done(u, r)));
    progress.finish(); // before any message, even a failed run's
    let run = run?;
    if run.interrupted {
        interrupted(&run);
        return Ok(None);
    }
    Ok(Some(run))
}

/// Which of the signals a program may catch do not have their default action here: those
/// ignored (`nohup` ignores SIGHUP; a shell ignores SIGINT and SIGQUIT in a background job
/// of a script) or caught already, as the `SigIgn` and `SigCgt` masks of
/// /proc/self/status say (bit k - 1 for signal k). Without /proc, SIGPIPE alone, which
/// Rust's runtime ignores before `main`. (`quit_on_signal` and `animate` leave those
/// signals as they found them.)
#[cfg(unix)]
pub(crate) fn not_default() -> impl Fn(i32) -> bool {
    let mask = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let mask = |field: &str| {
                let hex = status.lines().find_map(|l| l.strip_prefix(field))?;
                u64::from_str_radix(hex.trim(), 16).ok()
            };
            Some(mask("SigIgn:")? | mask("SigCgt:")?)
        })
        .unwrap_or(1 << (signal_hook::consts::SIGPIPE - 1));
    move |signal| (1..=64).contains(&signal) && mask & (1u64 << (signal - 1)) != 0
}
