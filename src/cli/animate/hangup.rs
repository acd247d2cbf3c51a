//! Noticing that `animate`'s terminal has gone away (a closed window, a killed ssh session or
//! script(1)), so the program ends instead of running on, unseen, for ever.
//!
//! crossterm 0.29 cannot be trusted with this: once the terminal hangs up, `read` on it
//! returns 0 (end of file) or fails with EIO at once, every time, and crossterm's event
//! reader retries without end — `event::poll` never returns, not even at its timeout
//! (crossterm-rs/crossterm#793; the fix, #1067, is not released). A loop that waits in
//! `event::poll` therefore never sees its own stop flag, whatever signal arrives; that is how
//! orphaned `animate` processes ran at 100% CPU on deleted pseudo-terminals. So
//! [`terminal`](super::terminal) reads events on a thread of its own, and its drawing loop
//! asks [`Hangup`] every time round (at least every 50 ms):
//!
//! - SIGHUP, as a flag of its own (the kernel sends it to the terminal's session leader and
//!   foreground group; the exit code is then 129, not the 130 of SIGINT and SIGTERM);
//! - poll(2) on stdout, and on stdin when it is a terminal: a hung-up terminal reports
//!   POLLHUP (or POLLERR, POLLNVAL) even to a program in a session of its own (`setsid`),
//!   which no SIGHUP reaches, and even while it is paused and writes nothing.
//!
//! The loop itself also ends on a failed write and when the event thread ends (a read error).

use std::io;

#[cfg(unix)]
use std::sync::{
    atomic::{AtomicBool, Ordering},
    Arc,
};

/// Watches for the end of the terminal.
pub struct Hangup {
    #[cfg(unix)]
    signal: Arc<AtomicBool>,
}

impl Hangup {
    /// Starts watching: from here on SIGHUP raises a flag instead of ending the process.
    ///
    /// Call it after `ctrlc::set_handler`: signal-hook chains to the handler that was there
    /// before it, so SIGHUP still raises ctrlc's stop flag too.
    pub fn watch() -> io::Result<Hangup> {
        #[cfg(unix)]
        {
            let signal = Arc::new(AtomicBool::new(false));
            signal_hook::flag::register(signal_hook::consts::SIGHUP, Arc::clone(&signal))?;
            Ok(Hangup { signal })
        }
        #[cfg(not(unix))]
        Ok(Hangup {})
    }

    /// True once SIGHUP arrived or the terminal reports that it hung up.
    pub fn happened(&self) -> bool {
        #[cfg(unix)]
        {
            self.signal.load(Ordering::Relaxed) || terminal_hung_up()
        }
        #[cfg(not(unix))]
        false
    }
}

/// Asks the kernel, without waiting, whether stdout's terminal (or stdin's, which is where
/// crossterm reads keys when it is a terminal) has hung up. POLLHUP, POLLERR and POLLNVAL are
/// reported whatever events are asked for, so none are asked for.
#[cfg(unix)]
fn terminal_hung_up() -> bool {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    use std::io::IsTerminal;

    let (stdout, stdin) = (io::stdout(), io::stdin());
    let mut fds = vec![PollFd::new(&stdout, PollFlags::empty())];
    if stdin.is_terminal() {
        fds.push(PollFd::new(&stdin, PollFlags::empty()));
    }
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // An error (EINTR) says nothing about the terminal: the next round asks again.
    if poll(&mut fds, Some(&now)).unwrap_or(0) == 0 {
        return false;
    }
    let gone = PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL;
    fds.iter().any(|fd| fd.revents().intersects(gone))
}
