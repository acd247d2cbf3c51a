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
//! The board is drawn two columns per square when it fits, one column per square (compact)
//! when only that fits, and otherwise one line says which size it needs; a resize redraws.
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
use crossterm::style::{Color, Print, ResetColor, SetBackgroundColor, SetForegroundColor};
use crossterm::terminal::{self, Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, queue};

use super::hangup::Hangup;
use super::signals::{self, Fatal};
use super::{record, AnimateArgs, Tally, DELAY_MAX_MS};
use crate::cli::render::one_based;
use crate::cli::{Done, Outcome};
use crate::{Step, Steps};

/// The keys, as the help line shows them.
pub const HELP: &str = "space pause/resume   n/→ step   +/- faster/slower   q/Esc quit";

/// Test hook: `NQUEENS_TEST_PANIC_AFTER=K` panics after K steps, so the tests can check that
/// a panic restores the terminal. Not documented in `--help`: it has no use but that.
const PANIC_HOOK_VAR: &str = "NQUEENS_TEST_PANIC_AFTER";

/// Size assumed when the terminal reports 0 x 0 (a pseudo-terminal nobody sized).
const FALLBACK_SIZE: (u16, u16) = (80, 24);

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

/// The state shown besides the board.
struct View<'a> {
    args: &'a AnimateArgs,
    tally: Tally,
    /// The last step, as the log writes it.
    what: String,
    delay_ms: u64,
    paused: bool,
    /// The search ended or reached `--until`: the next step ends the run.
    finished: bool,
}

/// Runs the animation on the terminal; prints the last solution and a summary once the
/// terminal is restored.
pub fn run(mut steps: Steps, a: &AnimateArgs) -> Outcome {
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

/// A 0 x 0 terminal size means "unknown" (a pseudo-terminal nobody sized).
fn usable((cols, rows): (u16, u16)) -> (u16, u16) {
    if cols == 0 || rows == 0 {
        FALLBACK_SIZE
    } else {
        (cols, rows)
    }
}

/// How the board fits a terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// Two columns per square.
    Full,
    /// One column per square.
    Compact,
    /// Not even compact fits: one line says which size is needed.
    TooSmall,
}

/// Lines besides the board: the title above, the status and the help line below.
const EXTRA_ROWS: usize = 3;

/// The terminal size (columns, rows) the board of `n` needs drawn `compact` or not: one
/// column of margin on the left.
fn needed(n: usize, compact: bool) -> (usize, usize) {
    let per_square = if compact { 1 } else { 2 };
    (1 + per_square * n, n + EXTRA_ROWS)
}

fn layout(n: usize, (cols, rows): (u16, u16)) -> Layout {
    let fits = |(c, r): (usize, usize)| c <= usize::from(cols) && r <= usize::from(rows);
    if fits(needed(n, false)) {
        Layout::Full
    } else if fits(needed(n, true)) {
        Layout::Compact
    } else {
        Layout::TooSmall
    }
}

/// Draws one frame and flushes it in one write.
fn show(out: &mut impl Write, steps: &Steps, view: &View, size: (u16, u16)) -> io::Result<()> {
    let mut buf = Vec::with_capacity(16 * 1024);
    frame(&mut buf, steps, view, size)?;
    out.write_all(&buf)?;
    out.flush()
}

/// One frame: the title line, the board (row being tried highlighted), the status and help
/// lines, each cut to the terminal's width so nothing wraps.
fn frame(buf: &mut Vec<u8>, steps: &Steps, view: &View, size: (u16, u16)) -> io::Result<()> {
    let n = steps.n();
    let cols = usize::from(size.0);
    let placed = steps.placed();
    let trying = (placed.len() < n).then_some(placed.len());
    let row_text = trying.map_or("-".to_string(), |r| (r + 1).to_string());
    let state = if view.paused {
        "   PAUSED"
    } else if view.finished {
        "   finishing"
    } else {
        ""
    };
    let title = format!(
        " {n}-queens backtracking search until {}   delay {} ms{state}",
        view.args.until.describe(),
        view.delay_ms
    );
    let status = format!(
        " step {}   solutions {}   trying row {row_text}   last: {}",
        view.tally.steps, view.tally.solutions, view.what
    );
    let help = format!(" {HELP}");
    let mut line = 0u16;
    let shape = layout(n, size);
    if shape == Layout::TooSmall {
        let (c, r) = needed(n, true);
        text(
            buf,
            &mut line,
            cols,
            &format!(
                " too small for {n} queens: need {c}x{r}, have {}x{}",
                size.0, size.1
            ),
        )?;
        for s in [status, help]
            .iter()
            .take(usize::from(size.1).saturating_sub(1))
        {
            text(buf, &mut line, cols, s)?;
        }
        return queue!(buf, Clear(ClearType::FromCursorDown));
    }
    text(buf, &mut line, cols, &title)?;
    // Attacked squares of the row being tried: a column or a diagonal of a placed queen.
    let attacked = |row: usize, col: usize| {
        placed
            .iter()
            .enumerate()
            .any(|(r, &c)| c == col || row - r == col.abs_diff(c))
    };
    let (queen, cross, empty) = match shape {
        Layout::Full => ("♛ ", "× ", "  "),
        _ => ("Q", "x", " "),
    };
    for row in 0..n {
        queue!(buf, cursor::MoveTo(0, line), Print(" "))?;
        for col in 0..n {
            let dark = (row + col) % 2 == 1;
            // Backgrounds (256 colours): wooden light/dark, green for the row being tried.
            let bg = match (trying == Some(row), dark) {
                (false, false) => 223,
                (false, true) => 137,
                (true, false) => 151,
                (true, true) => 108,
            };
            let (fg, glyph) = if placed.get(row) == Some(&col) {
                (16, queen)
            } else if trying == Some(row) && attacked(row, col) {
                (124, cross)
            } else {
                (16, empty)
            };
            queue!(
                buf,
                SetBackgroundColor(Color::AnsiValue(bg)),
                SetForegroundColor(Color::AnsiValue(fg)),
                Print(glyph)
            )?;
        }
        queue!(buf, ResetColor, Clear(ClearType::UntilNewLine))?;
        line += 1;
    }
    text(buf, &mut line, cols, &status)?;
    text(buf, &mut line, cols, &help)?;
    queue!(buf, Clear(ClearType::FromCursorDown))
}

/// Writes line `*line` of the screen: `s` cut to the width, the rest of the line cleared.
fn text(buf: &mut Vec<u8>, line: &mut u16, cols: usize, s: &str) -> io::Result<()> {
    queue!(
        buf,
        cursor::MoveTo(0, *line),
        Print(fit(s, cols)),
        Clear(ClearType::UntilNewLine)
    )?;
    *line += 1;
    Ok(())
}

/// `s` cut to `cols` characters (every character here is one column wide).
fn fit(s: &str, cols: usize) -> String {
    s.chars().take(cols).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::animate::Until;

    fn args(n: u32) -> AnimateArgs {
        AnimateArgs {
            n,
            delay: 0,
            until: Until::All,
            svg: None,
            max_frames: 1,
        }
    }

    /// The text of a frame: escape sequences dropped, a newline for each cursor move.
    fn text_of(buf: &[u8]) -> String {
        let s = String::from_utf8_lossy(buf);
        let mut out = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '\x1b' {
                out.push(c);
                continue;
            }
            chars.next(); // '['
            let mut last = ' ';
            for d in chars.by_ref() {
                last = d;
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
            if last == 'H' && !out.is_empty() {
                out.push('\n');
            }
        }
        out
    }

    fn frame_text(n: u32, moves: usize, size: (u16, u16), paused: bool) -> String {
        let a = args(n);
        let mut steps = Steps::new(n).unwrap();
        let mut tally = Tally::default();
        let mut what = "start".to_string();
        for _ in 0..moves {
            let step = steps.next().unwrap();
            what = record(step, &steps, &mut tally);
        }
        let view = View {
            args: &a,
            tally,
            what,
            delay_ms: 100,
            paused,
            finished: false,
        };
        let mut buf = Vec::new();
        frame(&mut buf, &steps, &view, size).unwrap();
        text_of(&buf)
    }

    #[test]
    fn full_frame_highlights_the_row_being_tried() {
        let f = frame_text(4, 1, (80, 24), false);
        assert!(f.contains("trying row 2"), "{f}");
        assert!(f.contains("last: place 1 1"), "{f}");
        assert_eq!(f.matches('♛').count(), 1);
        // Row 2 (index 1): columns 1 and 2 attacked by the queen at (1, 1), so two crosses.
        assert_eq!(f.matches('×').count(), 2);
        assert!(f.contains(HELP), "{f}");
        assert!(!f.contains("PAUSED"), "{f}");
        assert!(frame_text(4, 1, (80, 24), true).contains("PAUSED"));
    }

    #[test]
    fn frame_is_compact_or_a_one_line_notice_when_the_board_does_not_fit() {
        // 32 queens: full needs 65 x 35, compact 33 x 35.
        assert_eq!(layout(32, (65, 35)), Layout::Full);
        assert_eq!(layout(32, (64, 35)), Layout::Compact);
        assert_eq!(layout(32, (33, 34)), Layout::TooSmall);
        let f = frame_text(32, 3, (40, 40), false);
        // Queens in columns 1, 3, 5 of rows 1..3, one column per square.
        let rows: Vec<&str> = f.lines().skip(1).take(3).map(str::trim_end).collect();
        assert_eq!(rows, [" Q", "   Q", "     Q"], "{f}");
        assert!(!f.contains('♛'), "{f}");
        let f = frame_text(32, 3, (50, 20), false);
        assert!(
            f.starts_with(" too small for 32 queens: need 33x35, have 50x20\n"),
            "{f}"
        );
        assert!(f.contains(" step 3 "), "{f}");
        assert!(!f.contains('Q'), "{f}");
        // Every line fits the width: nothing wraps.
        for line in frame_text(32, 3, (20, 5), false).lines() {
            assert!(line.chars().count() <= 20, "{line}");
        }
    }

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
