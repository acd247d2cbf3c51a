//! `nqueens animate N`: the backtracking search shown step by step, the "dynamic graphics"
//! demo of the classic teaching programs, in three forms:
//!
//! - on a terminal ([`terminal`], its frames drawn by [`draw`]), an interactive program: the
//!   board redrawn after every step, keys to pause, step, speed up and quit, sized to the
//!   terminal;
//! - with `--svg FILE` ([`svg`]), the same search as one self-contained animated SVG for
//!   slides and web pages;
//! - otherwise (stdout is a pipe or a file) a plain step log, with no delay:
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
//! Rows and columns in the log, on screen and in the SVG count from 1, like `--format perm`.

mod draw;
mod hangup;
pub(crate) mod signals;
pub mod svg;
pub mod terminal;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::args::{parse_in, shown, Refused};
use super::render::one_based;
use super::Outcome;
use crate::{Step, Steps};

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
    /// Pause after each step, in milliseconds (ten times as long on a solution), on the
    /// terminal and between SVG frames; the step log is written at full speed.
    #[arg(long, value_name = "MS", default_value = "100", value_parser = parse_delay, allow_negative_numbers = true)]
    pub delay: u64,
    /// When to stop: at the first solution, after the whole search (all), or after K
    /// solutions.
    #[arg(long, value_name = "first|all|K", default_value = "first", value_parser = parse_until, allow_negative_numbers = true)]
    pub until: Until,
    /// Write the search as one animated SVG (CSS keyframes, no script) to FILE instead of
    /// animating the terminal; `-` is stdout. One frame per step, --delay apart.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Most frames (steps) an SVG may hold: a search that needs more is refused before
    /// anything is written (about 0.3 KB per frame at n = 8).
    #[arg(long, value_name = "K", default_value = "10000", value_parser = parse_max_frames, requires = "svg")]
    pub max_frames: u64,
}

/// Largest `--max-frames`: a million frames is a few hundred MB of SVG.
pub const MAX_FRAMES_LIMIT: u64 = 1_000_000;

/// When the animation stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// After this many solutions (or at the end of the search, if it has fewer).
    Solutions(u64),
    /// At the end of the search.
    All,
}

impl Until {
    /// True once `found` solutions are enough.
    pub fn reached(self, found: u64) -> bool {
        matches!(self, Until::Solutions(k) if found >= k)
    }

    /// "the first solution", "all solutions", "3 solutions": for status lines and titles.
    pub fn describe(self) -> String {
        match self {
            Until::All => "all solutions".to_string(),
            Until::Solutions(1) => "the first solution".to_string(),
            Until::Solutions(k) => format!("{k} solutions"),
        }
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

/// Parses `--max-frames`, 1..=[`MAX_FRAMES_LIMIT`].
fn parse_max_frames(s: &str) -> Result<u64, String> {
    parse_in(s, 1, i128::from(MAX_FRAMES_LIMIT))
        .map(|k| k as u64)
        .map_err(|_| {
            format!(
                "'{}' is not a frame count: expected a whole number from 1 to {MAX_FRAMES_LIMIT}",
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
pub struct Tally {
    /// Placements plus removals.
    pub steps: u64,
    /// Solutions reached.
    pub solutions: u64,
}

impl Tally {
    /// "12 steps, 1 solution".
    pub fn summary(self) -> String {
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
    if let Some(path) = &a.svg {
        svg::run(steps, a, path)
    } else if io::stdout().is_terminal() && !dumb_terminal() {
        terminal::run(steps, a)
    } else {
        write_log(
            steps,
            a.until,
            &mut io::BufWriter::new(crate::cli::error::stdout()),
        )
    }
}

/// True where `TERM=dumb` says the terminal moves no cursor and has no alternate screen
/// (an Emacs shell buffer, some CI logs): the step log is written there instead of the
/// animation, whose escape sequences such a terminal would show as text.
fn dumb_terminal() -> bool {
    std::env::var_os("TERM").is_some_and(|t| t == "dumb")
}

/// Counts one step and describes it as the log writes it: `place 2 4`, `remove 2 4`,
/// `solution 1: 2 4 1 3` (1-based).
pub fn record(step: Step, steps: &Steps, tally: &mut Tally) -> String {
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
}
