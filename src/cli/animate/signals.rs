//! The other signals that would end `animate` on the spot, caught so that the terminal is
//! restored first.
//!
//! `ctrlc` turns SIGINT and SIGTERM into the stop flag and [`hangup`](super::hangup) watches
//! SIGHUP. Every other signal whose default action ends the process — `kill -QUIT`, `-USR1`,
//! `-ALRM`, a CPU-time limit, a real-time signal — used to end it at once, leaving the
//! terminal on the alternate screen, in raw mode, with the cursor hidden. [`Fatal`] turns
//! each of them into a flag holding its number; the drawing loop checks it as often as the
//! others (at least every 50 ms), restores the terminal, prints its summary and exits with
//! 128 + the signal's number.
//!
//! Exiting with that code rather than raising the signal again with its default action is
//! what the program already does for SIGINT, SIGTERM (130) and SIGHUP (129): a shell reports
//! the same `$?` either way, and the summary line says which signal it was. What is lost is
//! the core dump SIGQUIT and SIGABRT would have left (where core dumps are enabled).
//!
//! Left as they are:
//! - SIGKILL, which cannot be caught;
//! - SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP and SIGSYS, which report a fault of the
//!   program's own instructions: a handler that only raises a flag returns to the faulting
//!   instruction, which faults again, for ever (signal-hook refuses the first, third and
//!   fourth outright);
//! - every signal whose action is not the default when `animate` starts: one ignored (Rust's
//!   runtime ignores SIGPIPE, a shell's background job SIGINT and SIGQUIT) cannot end the
//!   program, and catching it would make it able to; one with a handler already (a profiler
//!   loaded with `LD_PRELOAD` on SIGPROF) is someone else's, and this flag would end the
//!   program the first time it came;
//! - signals whose default action is not to end the process (SIGCHLD, SIGWINCH, SIGTSTP, …;
//!   SIGIO and SIGPWR only end it on Linux and Android, so only there are they caught).

use std::io;

#[cfg(unix)]
use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Arc,
};

/// Watches for the signals of the module doc.
pub struct Fatal {
    #[cfg(unix)]
    caught: Arc<AtomicUsize>,
}

impl Fatal {
    /// Starts watching: from here on each of those signals stores its number instead of
    /// ending the process.
    pub fn watch() -> io::Result<Fatal> {
        #[cfg(unix)]
        {
            let caught = Arc::new(AtomicUsize::new(0)); // 0: none yet (no signal is 0)
            let taken = not_default();
            for signal in catchable() {
                if !taken(signal) {
                    let number = usize::try_from(signal).expect("signal numbers are positive");
                    signal_hook::flag::register_usize(signal, Arc::clone(&caught), number)?;
                }
            }
            Ok(Fatal { caught })
        }
        #[cfg(not(unix))]
        Ok(Fatal {})
    }

    /// The number of the last of those signals that arrived, if one did.
    pub fn caught(&self) -> Option<i32> {
        #[cfg(unix)]
        {
            match self.caught.load(Ordering::Relaxed) {
                0 => None,
                signal => i32::try_from(signal).ok(),
            }
        }
        #[cfg(not(unix))]
        None
    }
}

/// `SIGUSR1`, `SIGRTMIN+3` (as kill(1) names them), or `signal 99` for one without a name.
pub fn name(signal: i32) -> String {
    #[cfg(unix)]
    if let Some(name) = signal_hook::low_level::signal_name(signal) {
        return name.to_string();
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let (min, max) = (libc::SIGRTMIN(), libc::SIGRTMAX());
        match signal {
            libc::SIGPWR => return "SIGPWR".into(),
            libc::SIGSTKFLT => return "SIGSTKFLT".into(),
            s if s == min => return "SIGRTMIN".into(),
            s if s == max => return "SIGRTMAX".into(),
            s if (min..max).contains(&s) => return format!("SIGRTMIN+{}", s - min),
            _ => {}
        }
    }
    format!("signal {signal}")
}

/// The signals that end the process by default and can be caught without harm (module doc).
#[cfg(unix)]
fn catchable() -> Vec<i32> {
    use signal_hook::consts::signal::*;

    let mut all = vec![
        SIGQUIT, SIGABRT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
    ];
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        all.extend([SIGIO, libc::SIGPWR, libc::SIGSTKFLT]);
        // The real-time signals the C library leaves to programs (glibc keeps 32 and 33).
        all.extend(libc::SIGRTMIN()..=libc::SIGRTMAX());
    }
    all
}

/// Which signals are ignored or caught already (lives beside the command's own signal
/// handling, which needs it too, so that it imports nothing of `animate`).
#[cfg(unix)]
pub(crate) use crate::cli::session::not_default;

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn sigpipe_stays_ignored_and_faults_are_not_caught() {
        // The test harness is a Rust program too: its runtime ignores SIGPIPE.
        assert!(not_default()(libc::SIGPIPE));
        let all = catchable();
        for fault in [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE] {
            assert!(!all.contains(&fault), "{fault}");
        }
        for ended in [
            libc::SIGQUIT,
            libc::SIGUSR1,
            libc::SIGALRM,
            libc::SIGRTMAX(),
        ] {
            assert!(all.contains(&ended), "{ended}");
        }
        assert_eq!(name(libc::SIGUSR1), "SIGUSR1");
        assert_eq!(name(libc::SIGRTMIN() + 2), "SIGRTMIN+2");
        assert_eq!(name(99), "signal 99");
    }
}
