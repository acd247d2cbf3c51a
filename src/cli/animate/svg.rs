//! `animate N --svg FILE`: the search of the terminal animation as one self-contained
//! animated SVG, for slides and web pages. No script: CSS keyframes, which browsers play in
//! an `<img>` as well as inline.
//!
//! The board is drawn once; each step of the log (`place`, `remove`, `solution`) is one frame,
//! a `<g class="f">` holding the queens on the board after that step, the row being tried
//! (tinted green) and a status line. Every frame is hidden except during its own slot of
//! the loop: one shared `@keyframes` per slot length (--delay, ten times that on a solution)
//! shows it from 0% to its share of the loop, and its `animation-delay` is the start of
//! its slot. So the file grows with the number of steps only, about 0.3 KB per frame at
//! n = 8, and `--until` and `--max-frames` bound it.

use crate::cli::error::{usage, Done, Failure};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use super::{record, AnimateOptions, Tally};
use crate::cli::format::grouped;
use crate::cli::outfile;
use crate::cli::render::{svg_crown, svg_squares, SQUARE, SVG_CROWN_STYLE};
use crate::cli::session;
use crate::cli::Outcome;
use crate::runner::shown;
use crate::{Step, Steps};

/// Height of the status line under the board, px.
const STATUS: usize = 28;

/// Narrowest document, px: the status line ("step 1,234   solutions 0   remove 7 5", about
/// 280 px in 15 px sans-serif) must fit under the small boards too (n = 4 is 160 px wide; a
/// headless-Chromium screenshot showed its status cut off).
const MIN_WIDTH: usize = 320;

/// A solution stays on screen this many times --delay, as on the terminal.
const SOLUTION_HOLD: u64 = 10;

/// One frame: what the board holds after a step.
struct Frame {
    /// Columns of the queens, rows `0..placed.len()`.
    placed: Vec<usize>,
    /// The status line.
    text: String,
    /// A solution: held [`SOLUTION_HOLD`] times as long.
    solution: bool,
}

/// What the SVG shows, ready to write.
pub struct Animation {
    /// The document.
    pub svg: String,
    /// Frames (one per step of the log).
    pub frames: usize,
    /// What the search did.
    pub tally: Tally,
    /// Length of one loop, milliseconds.
    pub loop_ms: u64,
}

/// Writes the SVG of `a.n`'s search to `path` (`-`: stdout); on a file, says on stdout what
/// it wrote.
pub fn run(steps: Steps, a: &AnimateOptions, path: &Path) -> Outcome {
    // Nothing to save on a signal: it ends the run at once (also while a FIFO waits for its
    // reader; a FIFO is written in place, so no temporary file is left).
    let wait = session::fifo_wait(session::quit_on_signal());
    let anim = build(steps, a)?;
    outfile::write(path, anim.svg.as_bytes(), wait)?;
    if path.as_os_str() != "-" {
        writeln!(
            crate::cli::error::stdout(),
            "{}: {} frames, {}, {:.1} s per loop, {} bytes",
            shown::path(path),
            grouped(anim.frames as u128),
            anim.tally.summary(),
            anim.loop_ms as f64 / 1000.0,
            grouped(anim.svg.len() as u128)
        )?;
    }
    Ok(Done::Ok)
}

/// Runs the search up to `a.until` (at most `a.max_frames` steps) and builds the SVG.
///
/// # Errors
/// A delay of 0 (an SVG needs time between frames), or a search longer than the frame cap.
pub fn build(mut steps: Steps, a: &AnimateOptions) -> Result<Animation, Failure> {
    if a.delay == 0 {
        usage!("an SVG needs time between frames: use --delay of at least 1 ms with --svg");
    }
    let n = steps.n();
    let mut tally = Tally::default();
    let mut frames = Vec::new();
    while let Some(step) = steps.next() {
        if frames.len() as u64 == a.max_frames {
            // Frames are the lines of the step log: one per placement and removal, and one
            // per solution found.
            let how = if a.max_frames < super::MAX_FRAMES_LIMIT {
                format!(
                    "raise --max-frames (up to {}) or stop earlier with --until",
                    grouped(u128::from(super::MAX_FRAMES_LIMIT))
                )
            } else {
                "stop earlier with --until".to_string()
            };
            usage!(
                "the {n}-queens search until {} needs more than {} frames (one per line of \
                 the step log): {how}",
                a.until.describe(),
                grouped(u128::from(a.max_frames)),
            );
        }
        let what = record(step, &steps, &mut tally);
        let text = match step {
            Step::Solution => what,
            _ => format!(
                "step {}   solutions {}   {what}",
                tally.steps, tally.solutions
            ),
        };
        frames.push(Frame {
            placed: steps.placed().to_vec(),
            text,
            solution: step == Step::Solution,
        });
        if a.until.reached(tally.solutions) {
            break;
        }
    }
    let (svg, loop_ms) = document(n, &frames, a);
    Ok(Animation {
        svg,
        frames: frames.len(),
        tally,
        loop_ms,
    })
}

/// `part` of `whole` in percent, short: "0.4167", "90.9091".
fn percent(part: u64, whole: u64) -> String {
    let s = format!("{:.4}", 100.0 * part as f64 / whole as f64);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The SVG document and the length of its loop in milliseconds.
fn document(n: usize, frames: &[Frame], a: &AnimateOptions) -> (String, u64) {
    let side = n * SQUARE;
    let width = side.max(MIN_WIDTH);
    let height = side + STATUS;
    let slot = |f: &Frame| a.delay * if f.solution { SOLUTION_HOLD } else { 1 };
    let loop_ms: u64 = frames.iter().map(slot).sum::<u64>().max(1);
    let mut s = String::with_capacity(1000 + n * n * 40 + frames.len() * (120 + n * 40));
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
    );
    let _ = writeln!(
        s,
        "<title>{n} queens: the backtracking search until {}, {} frames, {} ms apart</title>",
        a.until.describe(),
        frames.len(),
        a.delay
    );
    // Frames are hidden but in their own slot; `step-end` holds each keyframe's value until
    // the next one, so a frame is visible from 0% to its share of the loop, then hidden.
    let _ = writeln!(
        s,
        "<style>\n\
         .f{{visibility:hidden;animation:s {loop_ms}ms step-end infinite}}\n\
         .f.w{{animation-name:w}}\n\
         @keyframes s{{0%{{visibility:visible}}{}%{{visibility:hidden}}}}\n\
         @keyframes w{{0%{{visibility:visible}}{}%{{visibility:hidden}}}}\n\
         .r{{fill:#5fa35f;fill-opacity:.45}}\n\
         text{{font:15px sans-serif;fill:#222}}\n\
         </style>",
        percent(a.delay, loop_ms),
        percent(a.delay * SOLUTION_HOLD, loop_ms)
    );
    let _ = writeln!(
        s,
        r#"<defs><path id="q" d="{}" {SVG_CROWN_STYLE}/></defs>"#,
        svg_crown(0, 0)
    );
    svg_squares(&mut s, n);
    let mut start = 0;
    for f in frames {
        let class = if f.solution { "f w" } else { "f" };
        let _ = write!(
            s,
            r#"<g class="{class}" style="animation-delay:{start}ms">"#
        );
        if f.placed.len() < n {
            let y = f.placed.len() * SQUARE;
            let _ = write!(
                s,
                r#"<rect class="r" y="{y}" width="{side}" height="{SQUARE}"/>"#
            );
        }
        for (row, &col) in f.placed.iter().enumerate() {
            let (x, y) = (col * SQUARE, row * SQUARE);
            let _ = write!(s, r##"<use href="#q" x="{x}" y="{y}"/>"##);
        }
        let _ = writeln!(s, r#"<text x="6" y="{}">{}</text></g>"#, side + 20, f.text);
        start += slot(f);
    }
    s.push_str("</svg>\n");
    (s, loop_ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::animate::Until;

    fn args(n: u32, until: Until, max_frames: u64) -> AnimateOptions {
        AnimateOptions {
            n,
            delay: 100,
            until,
            svg: None,
            max_frames,
        }
    }

    #[test]
    fn one_frame_per_step_of_the_log() {
        let a = args(4, Until::All, 1000);
        let anim = build(Steps::new(4).unwrap(), &a).unwrap();
        // 32 placements and removals and 2 solutions (the log of `animate 4 --until all`).
        assert_eq!(anim.frames, 34);
        assert_eq!(anim.svg.matches("<g class=\"f").count(), 34);
        assert_eq!(anim.svg.matches("<g class=\"f w\"").count(), 2);
        assert!(anim.svg.contains("solution 1: 2 4 1 3"));
        // 32 slots of 100 ms and 2 of 1000 ms; the last frame starts at 3400 - 100.
        assert_eq!(anim.loop_ms, 5200);
        assert!(anim.svg.contains("animation:s 5200ms"));
        assert!(anim.svg.contains("animation-delay:5100ms"));
        assert!(!anim.svg.contains("<script"));
    }

    #[test]
    fn the_frame_cap_refuses_a_longer_search() {
        let err = build(Steps::new(8).unwrap(), &args(8, Until::Solutions(1), 50))
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("needs more than 50 frames") && err.contains("--max-frames"),
            "{err}"
        );
        let mut a = args(4, Until::All, 34);
        assert!(build(Steps::new(4).unwrap(), &a).is_ok()); // exactly at the cap
        a.delay = 0;
        assert!(build(Steps::new(4).unwrap(), &a).is_err());
    }

    #[test]
    fn percentages_are_short() {
        assert_eq!(percent(100, 5200), "1.9231");
        assert_eq!(percent(1000, 2000), "50");
    }
}
