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

use super::error::{Done, Outcome};
use super::render::one_based;
use crate::{Step, Steps};

// The clap types and value parsers live with every other subcommand's in `cli::args`.
pub use super::args::parse::{Until, DELAY_MAX_MS, MAX_FRAMES_LIMIT};
pub use super::options::AnimateOptions;

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
pub fn run(a: &AnimateOptions) -> Outcome {
    let steps = Steps::new(a.n)?;
    if let Some(path) = &a.svg {
        svg::run(steps, a, path)
    } else if io::stdout().is_terminal() && !dumb_terminal() {
        terminal::run(steps, a)
    } else {
        write_log(
            steps,
            a.until,
            &mut io::BufWriter::new(super::error::stdout()),
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
    Ok(Done::Ok)
}
