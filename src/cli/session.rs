//! The command-line side of a long count, shared by `count` and `count --mpi`: the stop flag
//! raised by signals, opening a [`Session`] with its checkpoint (saying on stderr what it
//! resumes), and the message of an interrupted run.

use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use super::format::grouped;
use nqueens::runner::session::{Run, Scope, Session};
use nqueens::UnitPlan;

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

/// The end of a run stopped before any unit ran (while the plan or a shard's units were
/// being made): exit code 130, as after SIGINT; a checkpoint is left as it was.
pub fn stopped_early() -> ExitCode {
    eprintln!("nqueens: interrupted before any unit ran; nothing was changed");
    ExitCode::from(130)
}

/// The session of a single-N count over `scope`, with its checkpoint opened, locked and
/// resumed; says on stderr what it resumes. None if a stop signal came while a shard's
/// units were being chosen.
pub fn open(
    plan: UnitPlan,
    scope: Scope,
    checkpoint: Option<&Path>,
) -> anyhow::Result<Option<Session<'static>>> {
    let Some(session) = Session::new(plan, scope, stop_flag()) else {
        return Ok(None);
    };
    let Some(path) = checkpoint else {
        return Ok(Some(session));
    };
    let session = session.with_checkpoint(path)?;
    if session.torn() {
        eprintln!(
            "nqueens: {}: dropped a torn last line (a write cut short); that unit is redone",
            path.display()
        );
    }
    let done = session.done().len();
    if done > 0 {
        eprintln!(
            "nqueens: resuming from {}: {} of {} units already done",
            path.display(),
            grouped(done as u128),
            grouped(session.units().len() as u128)
        );
    }
    Ok(Some(session))
}

/// Tells how an interrupted run can go on; returns exit code 130 (as after SIGINT).
pub fn interrupted(run: &Run) -> ExitCode {
    let (d, t) = (
        grouped(run.done() as u128),
        grouped(run.units.len() as u128),
    );
    match run.checkpoint_path() {
        Some(p) => eprintln!("nqueens: interrupted: {d} of {t} units are saved in {}; run the same command again to resume", p.display()),
        None => eprintln!("nqueens: interrupted after {d} of {t} units; nothing was saved (use --checkpoint FILE to make a count resumable)"),
    }
    ExitCode::from(130)
}
