//! `animate` on a terminal: an interactive program drawn with crossterm.
//!
//! It takes the terminal (raw mode, alternate screen, hidden cursor), redraws the board after
//! every step — queens placed and removed, the row being tried highlighted with its attacked
//! squares crossed out — and reads keys between steps:
//!
//! | key            | does                                   |
//! |----------------|----------------------------------------|
//! | space          | pause / resume                         |
//! | `n`, →         | one step (while paused)                |
//! | `+` / `-`      | halve / double the delay               |
//! | `q`, Esc       | quit (exit code 0)                     |
//! | Ctrl-C         | interrupt (exit code 130, as SIGINT)   |
//!
//! This file is the program's life cycle: taking the terminal and giving it back, signals,
//! keys and the loop that steps the search; what a frame shows is [`draw`](super::draw).
//!
//! The terminal is restored on every way out: the end of the search, `q`, Ctrl-C (a key in
//! raw mode), SIGINT and SIGTERM (the `ctrlc` crate turns them into a flag the loop checks at
//! least every 50 ms), every other signal that would end the process and can be caught
//! (SIGQUIT, SIGUSR1, SIGALRM, …: [`signals`](super::signals) turns each into a flag too; the
//! exit code is then 128 + its number), the end of the terminal (below), an error (the
//! [`Terminal`] guard's `Drop`) and a panic (a panic hook restores before the default message
//! is printed: the release build aborts on panic, so `Drop` would not run). Only SIGKILL, and
//! a fault such as SIGSEGV, leave it as it was.
//!
//! When the terminal goes away — SIGHUP, the terminal reporting a hang-up, a failed read of
//! its keys or a failed write to it — the program stops within 50 ms, restores what it can
//! (errors ignored), tries to print `hung up: …` and exits with code 129 (128 + SIGHUP, what
//! a shell reports for a program SIGHUP ended). Keys are read on a thread of their own, never
//! in the drawing loop: see [`hangup`](super::hangup) for why.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::style::ResetColor;
use crossterm::terminal::{self, Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, queue};

use super::draw::{show, usable, View, FALLBACK_SIZE};
use super::hangup::Hangup;
use super::signals::{self, Fatal};
use super::{record, AnimateOptions, Tally, DELAY_MAX_MS};
use crate::cli::render::one_based;
use crate::cli::{Done, Outcome};
use crate::{Step, Steps};

/// Test hook: `NQUEENS_TEST_PANIC_AFTER=K` panics after K steps, so the tests can check that
/// a panic restores the terminal. Not documented in `--help`: it has no use but that.
const PANIC_HOOK_VAR: &str = "NQUEENS_TEST_PANIC_AFTER";

/// Owns the terminal while the animation runs. Creating it switches to raw mode, the
/// alternate screen and a hidden cursor, and installs a panic hook that undoes that;
/// dropping it undoes that too.
struct Terminal;

impl Terminal {
    fn enter() -> io::Result<Terminal> {
        terminal::enable_raw_mode()?;
        let guard = Terminal; // from here on, every way out restores
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
        let mut out = io::stdout();
        queue!(
            out,
            EnterAlternateScreen,
            cursor::Hide,
            Clear(ClearType::All)
        )?;
        out.flush()?;
        Ok(guard)
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        // Unwinding from a panic (debug and test builds; release aborts): the hook has
        // restored the terminal and printed the message after that. Restoring again would
        // write escape codes after the message, and `take_hook` panics in a panicking
        // thread ("cannot modify the panic hook"), which turned the unwinding into an abort.
        if std::thread::panicking() {
            return;
        }
        restore();
        let _ = std::panic::take_hook(); // back to the default hook
    }
}

/// Colours off, cursor shown, main screen back, raw mode off. Errors are ignored: there is
/// nothing better to do on the way out (after SIGHUP the terminal is gone).
fn restore() {
    let mut out = io::stdout();
    let _ = queue!(out, ResetColor, cursor::Show, LeaveAlternateScreen);
    let _ = out.flush();
    let _ = terminal::disable_raw_mode();
}

/// How a run on the terminal ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// The search ended or reached `--until`.
    Finished,
    /// `q` or Esc.
    Quit,
    /// Ctrl-C, SIGINT or SIGTERM.
    Interrupted,
    /// The terminal went away: SIGHUP, a hang-up, a failed read or write.
    HungUp,
    /// Another signal that would have ended the process (see [`signals`]).
    Signal(i32),
}

impl End {
    /// The words the summary starts with, and the exit code.
    fn report(self) -> (String, u8) {
        match self {
            End::Finished => ("done".into(), 0),
            End::Quit => ("quit".into(), 0),
            End::Interrupted => ("interrupted".into(), 130), // the shell's code for SIGINT
            End::HungUp => ("hung up".into(), 129),          // and for SIGHUP
            // And 128 + its number for any other signal, as the shell reports one that ended
            // a program (the largest, SIGRTMAX, is 64 on Linux: the code fits).
            End::Signal(s) => (
                format!("terminated by {}", signals::name(s)),
                u8::try_from(128 + s).unwrap_or(u8::MAX),
            ),
        }
    }
}

/// What a key asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Pause,
    Step,
    Faster,
    Slower,
    Quit,
    Interrupt,
}

fn action(k: KeyEvent) -> Option<Action> {
    if k.kind == KeyEventKind::Release {
        return None;
    }
    if k.modifiers.contains(KeyModifiers::CONTROL) {
        return matches!(k.code, KeyCode::Char('c' | 'C')).then_some(Action::Interrupt);
    }
    match k.code {
        KeyCode::Char(' ') => Some(Action::Pause),
        KeyCode::Char('n' | 'N') | KeyCode::Right => Some(Action::Step),
        KeyCode::Char('+' | '=') => Some(Action::Faster), // '=' is '+' without shift
        KeyCode::Char('-' | '_') => Some(Action::Slower),
        KeyCode::Char('q' | 'Q') | KeyCode::Esc => Some(Action::Quit),
        _ => None,
    }
}

/// Runs the animation on the terminal; prints the last solution and a summary once the
/// terminal is restored.
pub fn run(mut steps: Steps, a: &AnimateOptions) -> Outcome {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))
        .context("cannot install the Ctrl-C handler")?;
    let hangup = Hangup::watch().context("cannot install the SIGHUP handler")?;
    let fatal = Fatal::watch().context("cannot install the signal handlers")?;
    let panic_after = std::env::var(PANIC_HOOK_VAR)
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    let mut view = View {
        args: a,
        tally: Tally::default(),
        what: "start".into(),
        delay_ms: a.delay,
        paused: false,
        finished: false,
    };
    let mut last_solution = None;
    let end = {
        let _terminal = Terminal::enter().context("cannot set up the terminal")?;
        let watch = Watch {
            stop: &stop,
            hangup: &hangup,
            fatal: &fatal,
            events: events(),
        };
        drive(
            &mut steps,
            &mut view,
            &watch,
            panic_after,
            &mut last_solution,
        )
    }; // the terminal is restored here
    let (word, code) = end.report();
    let printed = (|| {
        let mut out = io::stdout().lock();
        if let Some(p) = &last_solution {
            writeln!(out, "solution {}: {}", view.tally.solutions, one_based(p))?;
        }
        writeln!(out, "{word}: {}", view.tally.summary())?;
        out.flush()
    })();
    // The terminal is stdout: if it cannot take two lines, it is gone. Nothing to report to.
    let code = if printed.is_ok() { code } else { 129 };
    Ok(Done::Terminal(code))
}

/// Keys and resizes, read by crossterm on a thread of its own, so that the drawing loop
/// never waits inside crossterm (which never returns once the terminal is gone). The
/// thread ends after the first read error; it is still waiting for a key when the process
/// exits, which ends it.
fn events() -> Receiver<io::Result<Event>> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || loop {
        let event = event::read();
        let failed = event.is_err();
        if send.send(event).is_err() || failed {
            break;
        }
    });
    receive
}

/// What the drawing loop watches besides the clock: signals, the terminal, keys.
struct Watch<'a> {
    /// Ctrl-C, SIGINT, SIGTERM (and SIGHUP: `ctrlc` catches it too).
    stop: &'a AtomicBool,
    hangup: &'a Hangup,
    /// SIGQUIT, SIGUSR1, SIGALRM and the other signals that would end the process.
    fatal: &'a Fatal,
    events: Receiver<io::Result<Event>>,
}

/// The event loop: a step whenever the delay has passed (unless paused), keys and resizes
/// in between. A failed write to the terminal means it is gone.
///
/// Keys are read before every step, not only while waiting for one: at 0 ms a step is always
/// due, and a loop that read keys only while it waited never read one (not even `q` or
/// Ctrl-C). A look at the channel costs a few atomic loads, against the frame every step
/// draws.
fn drive(
    steps: &mut Steps,
    view: &mut View,
    watch: &Watch,
    panic_after: Option<u64>,
    last_solution: &mut Option<Vec<usize>>,
) -> End {
    let mut size = usable(terminal::size().unwrap_or(FALLBACK_SIZE));
    let mut out = io::stdout();
    if show(&mut out, steps, view, size).is_err() {
        return End::HungUp;
    }
    let mut due = Instant::now() + Duration::from_millis(view.delay_ms);
    loop {
        // SIGHUP also raises `stop`: ask about the terminal first.
        if watch.hangup.happened() {
            return End::HungUp;
        }
        if let Some(signal) = watch.fatal.caught() {
            return End::Signal(signal);
        }
        if watch.stop.load(Ordering::Relaxed) {
            return End::Interrupted;
        }
        let now = Instant::now();
        let mut step_now = !view.paused && now >= due;
        let event = if step_now {
            // A step is due: take a key if one is waiting, but do not wait for one.
            match watch.events.try_recv() {
                Ok(Ok(event)) => Some(event),
                Err(TryRecvError::Empty) => None,
                // The reader failed (end of file, EIO): the terminal is gone.
                Ok(Err(_)) | Err(TryRecvError::Disconnected) => return End::HungUp,
            }
        } else {
            // Wait in short slices so a signal or a hang-up is seen within 50 ms; paused,
            // the loop sleeps here, 50 ms at a time, until a key comes.
            let wait = if view.paused {
                Duration::from_millis(50)
            } else {
                (due - now).min(Duration::from_millis(50))
            };
            match watch.events.recv_timeout(wait) {
                Ok(Ok(event)) => Some(event),
                Err(RecvTimeoutError::Timeout) => continue,
                Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => return End::HungUp,
            }
        };
        if let Some(event) = event {
            // The key first: a step still due comes next time round.
            step_now = false;
            match event {
                Event::Key(k) => match action(k) {
                    Some(Action::Quit) => return End::Quit,
                    Some(Action::Interrupt) => return End::Interrupted,
                    Some(Action::Pause) => {
                        view.paused = !view.paused;
                        due = Instant::now() + Duration::from_millis(view.delay_ms);
                    }
                    Some(Action::Step) => step_now = view.paused,
                    Some(Action::Faster) => {
                        view.delay_ms /= 2;
                        due = due.min(Instant::now() + Duration::from_millis(view.delay_ms));
                    }
                    Some(Action::Slower) => {
                        view.delay_ms = (view.delay_ms * 2).clamp(1, DELAY_MAX_MS);
                    }
                    None => continue,
                },
                Event::Resize(cols, rows) => {
                    size = usable((cols, rows));
                    if queue!(out, Clear(ClearType::All)).is_err() {
                        return End::HungUp;
                    }
                }
                _ => continue,
            }
            if !step_now {
                if show(&mut out, steps, view, size).is_err() {
                    return End::HungUp;
                }
                continue;
            }
        }
        if view.finished {
            return End::Finished;
        }
        let Some(step) = steps.next() else {
            return End::Finished;
        };
        view.what = record(step, steps, &mut view.tally);
        let mut pause = Duration::from_millis(view.delay_ms);
        if step == Step::Solution {
            *last_solution = Some(steps.placed().to_vec());
            pause *= 10; // time to look at a solution
        }
        view.finished = view.args.until.reached(view.tally.solutions);
        if show(&mut out, steps, view, size).is_err() {
            return End::HungUp;
        }
        due = Instant::now() + pause;
        if panic_after.is_some_and(|k| view.tally.steps >= k) {
            panic!(
                "test panic after {} steps ({PANIC_HOOK_VAR})",
                view.tally.steps
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_actions() {
        let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
        assert_eq!(action(key(KeyCode::Char(' '))), Some(Action::Pause));
        assert_eq!(action(key(KeyCode::Right)), Some(Action::Step));
        assert_eq!(action(key(KeyCode::Char('n'))), Some(Action::Step));
        assert_eq!(action(key(KeyCode::Char('+'))), Some(Action::Faster));
        assert_eq!(action(key(KeyCode::Char('-'))), Some(Action::Slower));
        assert_eq!(action(key(KeyCode::Esc)), Some(Action::Quit));
        assert_eq!(action(key(KeyCode::Char('x'))), None);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action(ctrl_c), Some(Action::Interrupt));
    }
}
