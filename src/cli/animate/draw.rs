//! What `animate` shows on a terminal: one frame per step — a title line, the board with
//! the queens placed so far and the row being tried highlighted, its attacked squares crossed
//! out, then a status line and the keys — built in memory and written at once. Nothing here
//! takes or restores the terminal, or reads keys: that is [`terminal`](super::terminal).
//!
//! The board is drawn two columns per square when it fits, one column per square (compact)
//! when only that fits, and otherwise one line says which size it needs; a resize redraws.

use std::io::{self, Write};

use crossterm::style::{Color, Print, ResetColor, SetBackgroundColor, SetForegroundColor};
use crossterm::terminal::{Clear, ClearType};
use crossterm::{cursor, queue};

use super::{AnimateOptions, Tally};
use crate::Steps;

/// The keys, as the help line shows them.
pub(super) const HELP: &str = "space pause/resume   n/→ step   +/- faster/slower   q/Esc quit";

/// Size assumed when the terminal reports 0 x 0 (a pseudo-terminal nobody sized).
pub(super) const FALLBACK_SIZE: (u16, u16) = (80, 24);

/// The state shown besides the board.
pub(super) struct View<'a> {
    pub(super) args: &'a AnimateOptions,
    pub(super) tally: Tally,
    /// The last step, as the log writes it.
    pub(super) what: String,
    pub(super) delay_ms: u64,
    pub(super) paused: bool,
    /// The search ended or reached `--until`: the next step ends the run.
    pub(super) finished: bool,
}

/// A 0 x 0 terminal size means "unknown" (a pseudo-terminal nobody sized).
pub(super) fn usable((cols, rows): (u16, u16)) -> (u16, u16) {
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
pub(super) fn show(
    out: &mut impl Write,
    steps: &Steps,
    view: &View,
    size: (u16, u16),
) -> io::Result<()> {
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
    use crate::cli::animate::record;
    use crate::cli::animate::Until;

    fn args(n: u32) -> AnimateOptions {
        AnimateOptions {
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
}
