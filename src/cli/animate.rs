//! `nqueens animate N`: the backtracking search shown step by step, the "dynamic graphics"
//! demo of the classic teaching programs.
//!
//! On a terminal it draws the board on the alternate screen after every step: queens
//! placed and removed, the row being tried highlighted with its attacked squares crossed
//! out, and a status line with the step and solution counts. The screen and cursor are
//! restored when the run ends, on an error and on Ctrl-C (the `ctrlc` crate turns SIGINT,
//! SIGTERM and SIGHUP into a flag that the loop checks between frames; raw signal handling
//! would need `unsafe`, which the crate forbids). When stdout is not a terminal it prints a
//! plain step log instead, with no delay:
//!
//! ```text
//! place 1 1
//! place 2 3
//! remove 2 3
//! …
//! solution 1: 2 4 1 3
//! done: 12 steps, 1 solution
//! ```
//!
//! Rows and columns in the log and on screen count from 1, like `--format perm`.

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;

use super::args::{parse_in, shown, Refused};
use super::render::one_based;
use super::Outcome;
use nqueens::{Step, Steps};

/// Largest n for `animate`: a 32-row board fills a terminal, and larger searches never
/// reach their first solution at a watchable speed.
pub const ANIMATE_MAX_N: u32 = 32;

/// Largest `--delay`, milliseconds.
pub const DELAY_MAX_MS: u64 = 60_000;

/// Arguments of `animate`.
#[derive(Args, Debug)]
pub struct AnimateArgs {
    /// Board size N (1..32).
    #[arg(value_name = "N", value_parser = parse_animate_n, allow_negative_numbers = true)]
    pub n: u32,
    /// Pause after each step, in milliseconds (ten times as long on a solution); only on a
    /// terminal, the step log is written at full speed.
    #[arg(long, value_name = "MS", default_value = "100", value_parser = parse_delay, allow_negative_numbers = true)]
    pub delay: u64,
    /// When to stop: at the first solution, after the whole search (all), or after K
    /// solutions.
    #[arg(long, value_name = "first|all|K", default_value = "first", value_parser = parse_until, allow_negative_numbers = true)]
    pub until: Until,
}

/// When the animation stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// After this many solutions (or at the end of the search, if it has fewer).
    Solutions(u64),
    /// At the end of the search.
    All,
}

impl Until {
    fn reached(self, found: u64) -> bool {
        matches!(self, Until::Solutions(k) if found >= k)
    }
}

/// Parses the board size of `animate`, 1..=[`ANIMATE_MAX_N`].
fn parse_animate_n(s: &str) -> Result<u32, String> {
    match parse_in(s, 1, i128::from(ANIMATE_MAX_N)) {
        Ok(v) => Ok(v as u32),
        Err(Refused::NotANumber) => Err(format!(
            "'{}' is not a board size: expected a whole number from 1 to {ANIMATE_MAX_N}",
            shown(s)
        )),
        Err(Refused::Below(v) | Refused::Above(v)) => Err(format!(
            "board size {v} is out of range: animate shows n from 1 to {ANIMATE_MAX_N}"
        )),
    }
}

/// Parses `--delay`, 0..=[`DELAY_MAX_MS`] milliseconds.
fn parse_delay(s: &str) -> Result<u64, String> {
    parse_in(s, 0, i128::from(DELAY_MAX_MS))
        .map(|ms| ms as u64)
        .map_err(|_| {
            format!(
                "'{}' is not a delay: expected milliseconds from 0 to {DELAY_MAX_MS}",
                shown(s)
            )
        })
}

/// Parses `--until`: first, all, or a solution count of at least 1.
fn parse_until(s: &str) -> Result<Until, String> {
    match s.trim() {
        "first" => Ok(Until::Solutions(1)),
        "all" => Ok(Until::All),
        t => match parse_in(t, 1, i128::from(u64::MAX)) {
            Ok(k) => Ok(Until::Solutions(k as u64)),
            Err(Refused::Below(0)) => Err(
                "stopping after 0 solutions shows nothing: use first, all or a count of at least 1"
                    .into(),
            ),
            Err(_) => Err(format!(
                "'{}' is not a stopping point: expected first, all or a count of at least 1",
                shown(s)
            )),
        },
    }
}

/// What a run counted.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    /// Placements plus removals.
    steps: u64,
    /// Solutions reached.
    solutions: u64,
}

impl Tally {
    fn summary(self) -> String {
        let plural = |k: u64| if k == 1 { "" } else { "s" };
        format!(
            "{} step{}, {} solution{}",
            self.steps,
            plural(self.steps),
            self.solutions,
            plural(self.solutions)
        )
    }
}

/// Runs `animate`.
pub fn run(a: &AnimateArgs) -> Outcome {
    let steps = Steps::new(a.n)?;
    if io::stdout().is_terminal() {
        animate_on_terminal(steps, a)
    } else {
        write_log(steps, a.until, &mut io::BufWriter::new(io::stdout().lock()))
    }
}

/// Counts one step and describes it as the log writes it: `place 2 4`, `remove 2 4`,
/// `solution 1: 2 4 1 3` (1-based).
fn record(step: Step, steps: &Steps, tally: &mut Tally) -> String {
    match step {
        Step::Place { row, col } | Step::Remove { row, col } => {
            tally.steps += 1;
            let verb = if matches!(step, Step::Place { .. }) {
                "place"
            } else {
                "remove"
            };
            format!("{verb} {} {}", row + 1, col + 1)
        }
        Step::Solution => {
            tally.solutions += 1;
            format!(
                "solution {}: {}",
                tally.solutions,
                one_based(steps.placed())
            )
        }
    }
}

/// The plain step log, for pipes and files.
fn write_log(mut steps: Steps, until: Until, out: &mut impl Write) -> Outcome {
    let mut tally = Tally::default();
    while let Some(step) = steps.next() {
        writeln!(out, "{}", record(step, &steps, &mut tally))?;
        if until.reached(tally.solutions) {
            break;
        }
    }
    writeln!(out, "done: {}", tally.summary())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Owns the terminal while the animation runs: alternate screen, hidden cursor. Dropping
/// it restores both, whichever way the run ends.
struct Screen {
    out: io::StdoutLock<'static>,
}

impl Screen {
    fn enter() -> io::Result<Screen> {
        let mut out = io::stdout().lock();
        out.write_all(b"\x1b[?1049h\x1b[?25l\x1b[2J")?; // alternate screen, hide cursor, clear
        out.flush()?;
        Ok(Screen { out })
    }

    fn show(&mut self, frame: &str) -> io::Result<()> {
        self.out.write_all(frame.as_bytes())?;
        self.out.flush()
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        // Reset colours, show the cursor, leave the alternate screen; nothing to do on error.
        let _ = self.out.write_all(b"\x1b[0m\x1b[?25h\x1b[?1049l");
        let _ = self.out.flush();
    }
}

/// Sleeps for `pause` in short slices, returning early (true) once `stop` is raised.
fn sleep_unless_stopped(pause: Duration, stop: &AtomicBool) -> bool {
    let end = Instant::now() + pause;
    loop {
        if stop.load(Ordering::Relaxed) {
            return true;
        }
        let now = Instant::now();
        if now >= end {
            return false;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(20)));
    }
}

/// The animation on a terminal.
fn animate_on_terminal(mut steps: Steps, a: &AnimateArgs) -> Outcome {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))
        .context("cannot install the Ctrl-C handler")?;
    let delay = Duration::from_millis(a.delay);
    let mut tally = Tally::default();
    let mut last_solution: Option<Vec<usize>> = None;
    let mut interrupted = false;
    {
        let mut screen = Screen::enter()?;
        screen.show(&frame(&steps, tally, "start", a))?;
        interrupted |= sleep_unless_stopped(delay, &stop);
        while !interrupted {
            let Some(step) = steps.next() else { break };
            let what = record(step, &steps, &mut tally);
            let pause = if step == Step::Solution {
                last_solution = Some(steps.placed().to_vec());
                delay * 10
            } else {
                delay
            };
            screen.show(&frame(&steps, tally, &what, a))?;
            interrupted |= sleep_unless_stopped(pause, &stop);
            if a.until.reached(tally.solutions) {
                break;
            }
        }
    } // the screen is restored here
    let mut out = io::stdout().lock();
    if let Some(p) = &last_solution {
        writeln!(out, "solution {}: {}", tally.solutions, one_based(p))?;
    }
    if interrupted {
        writeln!(out, "interrupted: {}", tally.summary())?;
        return Ok(ExitCode::from(130)); // the shell's code for a run stopped by SIGINT
    }
    writeln!(out, "done: {}", tally.summary())?;
    Ok(ExitCode::SUCCESS)
}

/// One frame: the board, with the row being tried highlighted, then the status lines.
/// Every line ends with "clear to end of line" so a shorter frame leaves no debris.
fn frame(steps: &Steps, tally: Tally, what: &str, a: &AnimateArgs) -> String {
    const RESET: &str = "\x1b[0m";
    let n = steps.n();
    let placed = steps.placed();
    let trying = (placed.len() < n).then_some(placed.len());
    // Attacked squares of the row being tried: a column or a diagonal of a placed queen.
    let attacked = |row: usize, col: usize| {
        placed
            .iter()
            .enumerate()
            .any(|(r, &c)| c == col || row - r == col.abs_diff(c))
    };
    let mut s = String::with_capacity(n * n * 24 + 400);
    s.push_str("\x1b[H"); // cursor home: draw over the previous frame
    let _ = writeln!(s, " {n}-queens backtracking search\x1b[K");
    for row in 0..n {
        s.push(' ');
        for col in 0..n {
            let dark = (row + col) % 2 == 1;
            // Backgrounds (256 colours): wooden light/dark, green for the row being tried.
            let bg = match (trying == Some(row), dark) {
                (false, false) => 223,
                (false, true) => 137,
                (true, false) => 151,
                (true, true) => 108,
            };
            let glyph = if placed.get(row) == Some(&col) {
                "\x1b[38;5;16m♛ "
            } else if trying == Some(row) && attacked(row, col) {
                "\x1b[38;5;124m× "
            } else {
                "  "
            };
            let _ = write!(s, "\x1b[48;5;{bg}m{glyph}");
        }
        let _ = writeln!(s, "{RESET}\x1b[K");
    }
    let row_text = trying.map_or("-".to_string(), |r| (r + 1).to_string());
    let _ = writeln!(
        s,
        " step {}   solutions {}   trying row {row_text}   last: {what}\x1b[K",
        tally.steps, tally.solutions
    );
    let until = match a.until {
        Until::All => "all solutions".to_string(),
        Until::Solutions(1) => "the first solution".to_string(),
        Until::Solutions(k) => format!("{k} solutions"),
    };
    let _ = writeln!(
        s,
        " delay {} ms, until {until}; Ctrl-C stops\x1b[K",
        a.delay
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stopping_points() {
        assert_eq!(parse_until("first"), Ok(Until::Solutions(1)));
        assert_eq!(parse_until("all"), Ok(Until::All));
        assert_eq!(parse_until("5"), Ok(Until::Solutions(5)));
        assert!(parse_until("0").unwrap_err().contains("at least 1"));
        assert!(parse_until("some").unwrap_err().contains("'some'"));
    }

    #[test]
    fn parses_sizes_and_delays_in_range() {
        assert_eq!(parse_animate_n("8"), Ok(8));
        assert_eq!(
            parse_animate_n("33"),
            Err("board size 33 is out of range: animate shows n from 1 to 32".into())
        );
        assert!(parse_animate_n("0").unwrap_err().contains("board size 0"));
        assert!(parse_animate_n("x")
            .unwrap_err()
            .contains("'x' is not a board size"));
        assert_eq!(
            (parse_delay("0"), parse_delay("60000")),
            (Ok(0), Ok(60_000))
        );
        for bad in ["60001", "-5", "fast"] {
            assert_eq!(
                parse_delay(bad),
                Err(format!(
                    "'{bad}' is not a delay: expected milliseconds from 0 to 60000"
                ))
            );
        }
        assert!(parse_until("-1")
            .unwrap_err()
            .contains("'-1' is not a stopping point"));
    }

    #[test]
    fn frame_highlights_the_row_being_tried() {
        let mut steps = Steps::new(4).unwrap();
        steps.next(); // place 1 1
        let args = AnimateArgs {
            n: 4,
            delay: 0,
            until: Until::All,
        };
        let f = frame(
            &steps,
            Tally {
                steps: 1,
                solutions: 0,
            },
            "place 1 1",
            &args,
        );
        assert!(f.contains("trying row 2"));
        assert_eq!(f.matches('♛').count(), 1);
        // Row 2 (index 1): columns 1 and 2 attacked by the queen at (1, 1), so two crosses.
        assert_eq!(f.matches('×').count(), 2);
    }
}
