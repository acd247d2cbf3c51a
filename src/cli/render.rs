//! The output formats of `solutions` and `solve`: number lists (`perm`, `lisp`, `tuple`),
//! pictures (`board`, `unicode`, `svg`) and JSON lines.
//!
//! A [`Renderer`] writes one solution at a time into a reused buffer and hands the bytes to
//! the caller's writer, so a listing streams: nothing is collected, memory stays constant
//! in the number of solutions, and `perm` output of n = 14 (365,596 lines) costs about as
//! much as the search. The number formats follow the classic teaching programs: 1-based
//! columns row by row (`1 5 8 6 3 7 2 4`), or Python's 0-based tuple.

use std::io::{self, Write};

use clap::ValueEnum;
use serde::Serialize;

/// The widest board that `board`, `unicode` and `svg` draw.
pub const PICTURE_MAX_N: usize = 64;

/// How a solution is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// 1-based column of the queen in each row: `2 4 1 3`.
    Perm,
    /// The same as a Lisp list: `(2 4 1 3)`.
    Lisp,
    /// 0-based columns as a Python tuple: `(1, 3, 0, 2)`.
    Tuple,
    /// A text board, `Q` for a queen and `.` for an empty square, a blank line between boards.
    Board,
    /// A chequered board: `♛` on `□` light and `■` dark squares, a blank line between boards.
    Unicode,
    /// One JSON object per line: `{"n":4,"index":0,"columns":[1,3,0,2]}` (0-based columns).
    Json,
    /// An SVG picture of one board (chequered squares, drawn queens).
    Svg,
}

impl Format {
    /// The format's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Perm => "perm",
            Format::Lisp => "lisp",
            Format::Tuple => "tuple",
            Format::Board => "board",
            Format::Unicode => "unicode",
            Format::Json => "json",
            Format::Svg => "svg",
        }
    }

    /// True for the formats that draw the board, which stop at [`PICTURE_MAX_N`].
    pub fn is_picture(self) -> bool {
        matches!(self, Format::Board | Format::Unicode | Format::Svg)
    }
}

/// Parses `--format`, with a one-line error naming every format (clap's own message for a
/// value enum puts the possible values on a second line, which `main` does not print).
pub fn parse_format(s: &str) -> Result<Format, String> {
    Format::from_str(s.trim(), true).map_err(|_| {
        let names: Vec<&str> = Format::value_variants().iter().map(|f| f.name()).collect();
        format!("unknown format '{s}': expected one of {}", names.join(", "))
    })
}

/// One solution as a JSON line of `--format json`.
#[derive(Serialize)]
struct SolutionRecord<'a> {
    /// Board size (queens).
    n: usize,
    /// Position of this solution in the listing's lexicographic order, from 0 (absent for
    /// `solve`, which constructs instead of listing).
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<u64>,
    /// The column of the queen in each row, from row 0, 0-based.
    columns: &'a [usize],
}

/// Writes solutions in one format, keeping what a stream of them needs (the blank line
/// between boards) and a buffer reused for every solution.
#[derive(Debug)]
pub struct Renderer {
    format: Format,
    buf: Vec<u8>,
    written: u64,
}

impl Renderer {
    /// A renderer for `format` that has written nothing yet.
    pub fn new(format: Format) -> Renderer {
        Renderer {
            format,
            buf: Vec::with_capacity(256),
            written: 0,
        }
    }

    /// Writes one solution (`perm[row] = col`, 0-based); `index` is its position in a
    /// listing, shown by `json`.
    ///
    /// # Errors
    /// The writer's errors (a closed pipe among them).
    pub fn write(
        &mut self,
        out: &mut impl Write,
        perm: &[usize],
        index: Option<u64>,
    ) -> io::Result<()> {
        let buf = &mut self.buf;
        buf.clear();
        let between_boards = self.written > 0;
        match self.format {
            Format::Perm => numbers(buf, perm, 1, ("", " ", "")),
            Format::Lisp => numbers(buf, perm, 1, ("(", " ", ")")),
            Format::Tuple if perm.len() == 1 => numbers(buf, perm, 0, ("(", "", ",)")), // Python: (0,)
            Format::Tuple => numbers(buf, perm, 0, ("(", ", ", ")")),
            Format::Board | Format::Unicode => {
                if between_boards {
                    buf.push(b'\n');
                }
                let glyphs = if self.format == Format::Board {
                    ["Q", ".", "."]
                } else {
                    ["♛", "□", "■"]
                };
                board(buf, perm, glyphs);
            }
            Format::Json => {
                let record = SolutionRecord {
                    n: perm.len(),
                    index,
                    columns: perm,
                };
                serde_json::to_writer(&mut *buf, &record).map_err(io::Error::from)?;
                buf.push(b'\n');
            }
            Format::Svg => svg(buf, perm),
        }
        self.written += 1;
        out.write_all(buf)
    }
}

/// Appends `x` in decimal; the hot path of `perm` output, so no `fmt` machinery.
fn push_uint(buf: &mut Vec<u8>, mut x: usize) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// Appends the columns plus `base` (0 or 1) as one line: `open`, the numbers separated by
/// `sep`, `close`, newline.
fn numbers(buf: &mut Vec<u8>, perm: &[usize], base: usize, (open, sep, close): (&str, &str, &str)) {
    buf.extend_from_slice(open.as_bytes());
    for (i, &col) in perm.iter().enumerate() {
        if i > 0 {
            buf.extend_from_slice(sep.as_bytes());
        }
        push_uint(buf, col + base);
    }
    buf.extend_from_slice(close.as_bytes());
    buf.push(b'\n');
}

/// The 1-based columns separated by spaces (`2 4 1 3`), as `perm` prints them.
pub fn one_based(perm: &[usize]) -> String {
    let mut buf = Vec::new();
    numbers(&mut buf, perm, 1, ("", " ", ""));
    buf.pop(); // the newline
    String::from_utf8(buf).expect("digits and spaces are ASCII")
}

/// Appends a board, one line per row, cells separated by a space: `glyphs` is the queen,
/// the light square and the dark square (row 0, column 0 is light, as a8 is in chess).
fn board(buf: &mut Vec<u8>, perm: &[usize], [queen, light, dark]: [&str; 3]) {
    let n = perm.len();
    for (row, &col) in perm.iter().enumerate() {
        for c in 0..n {
            if c > 0 {
                buf.push(b' ');
            }
            let glyph = if c == col {
                queen
            } else if (row + c) % 2 == 0 {
                light
            } else {
                dark
            };
            buf.extend_from_slice(glyph.as_bytes());
        }
        buf.push(b'\n');
    }
}

/// Side of one square in the SVG, in pixels.
pub const SQUARE: usize = 40;

/// Appends the empty board of an SVG picture: the light background, then the dark squares.
pub fn svg_squares(s: &mut String, n: usize) {
    use std::fmt::Write as _;
    let side = n * SQUARE;
    let _ = writeln!(
        s,
        r##"<rect width="{side}" height="{side}" fill="#f0d9b5"/>"##
    );
    let _ = writeln!(s, r##"<g fill="#b58863">"##);
    for row in 0..n {
        for col in (0..n).filter(|c| (row + c) % 2 == 1) {
            let (x, y) = (col * SQUARE, row * SQUARE);
            let _ = writeln!(
                s,
                r#"<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}"/>"#
            );
        }
    }
    s.push_str("</g>\n");
}

/// Paint of the crowns ([`svg_crown`]): dark with a white outline, visible on both colours.
pub const SVG_CROWN_STYLE: &str =
    r##"fill="#222222" stroke="#ffffff" stroke-width="1.5" stroke-linejoin="round""##;

/// The path data of a queen's crown in the square whose top-left corner is (x, y): a
/// five-point crown from (7,28) to (33,28) and a base bar below it, in a 40 px square.
pub fn svg_crown(x: usize, y: usize) -> String {
    let (x, y) = (x + 7, y + 28);
    format!("M{x} {y}l-3 -16l8 8l2 -11l6 9l6 -9l2 11l8 -8l-3 16zm0 3h26v4h-26z")
}

/// Appends an SVG document of one board: light background, dark squares, and a crown for
/// each queen (dark with a white outline, visible on both colours). Colours are the usual
/// wooden-board pair #f0d9b5 / #b58863.
fn svg(buf: &mut Vec<u8>, perm: &[usize]) {
    use std::fmt::Write as _;
    let n = perm.len();
    let side = n * SQUARE;
    let mut s = String::with_capacity(200 + n * n * 30);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{side}" height="{side}" viewBox="0 0 {side} {side}">"#
    );
    let _ = writeln!(s, "<title>{n} queens: {}</title>", one_based(perm));
    svg_squares(&mut s, n);
    let _ = writeln!(s, "<g {SVG_CROWN_STYLE}>");
    for (row, &col) in perm.iter().enumerate() {
        let _ = writeln!(
            s,
            r#"<path d="{}"/>"#,
            svg_crown(col * SQUARE, row * SQUARE)
        );
    }
    s.push_str("</g>\n</svg>\n");
    buf.extend_from_slice(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(format: Format, perms: &[&[usize]]) -> String {
        let mut r = Renderer::new(format);
        let mut out = Vec::new();
        for (i, p) in perms.iter().enumerate() {
            r.write(&mut out, p, Some(i as u64)).unwrap();
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn number_formats_of_the_first_8_queens_solution() {
        let p: &[usize] = &[0, 4, 7, 5, 2, 6, 1, 3];
        assert_eq!(render(Format::Perm, &[p]), "1 5 8 6 3 7 2 4\n");
        assert_eq!(render(Format::Lisp, &[p]), "(1 5 8 6 3 7 2 4)\n");
        assert_eq!(render(Format::Tuple, &[p]), "(0, 4, 7, 5, 2, 6, 1, 3)\n");
        assert_eq!(render(Format::Tuple, &[&[0]]), "(0,)\n");
        assert_eq!(
            render(Format::Json, &[p]),
            "{\"n\":8,\"index\":0,\"columns\":[0,4,7,5,2,6,1,3]}\n"
        );
    }

    #[test]
    fn pushes_every_digit() {
        let mut buf = Vec::new();
        for x in [0, 9, 10, 64, 10_000_000, usize::MAX] {
            buf.clear();
            push_uint(&mut buf, x);
            assert_eq!(String::from_utf8(buf.clone()).unwrap(), x.to_string());
        }
    }

    #[test]
    fn parses_formats_case_insensitively_and_names_them_all_on_error() {
        assert_eq!(parse_format("SVG"), Ok(Format::Svg));
        for f in Format::value_variants() {
            assert_eq!(parse_format(f.name()), Ok(*f));
        }
        assert_eq!(
            parse_format("xml"),
            Err("unknown format 'xml': expected one of perm, lisp, tuple, board, unicode, json, svg".into())
        );
    }
}
