//! Argument types shared by subcommands: board sizes, ranges, thread counts. Each parser
//! turns text into an engine value or a one-line reason.

use std::fmt;
use std::str::FromStr;

use crate::{MAX_N, MAX_THREADS};

/// A board size or an inclusive range of sizes: `16` or `10..14`. The start may be 0 (the
/// empty board), which only a b-file lists (`count 0..18 --format bfile` writes OEIS's
/// first line, `0 1`); `count` refuses it otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeRange {
    /// First size.
    pub start: u32,
    /// Last size (inclusive).
    pub end: u32,
}

impl SizeRange {
    /// The sizes in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> {
        self.start..=self.end
    }

    /// True for a single size.
    pub fn is_single(&self) -> bool {
        self.start == self.end
    }
}

impl fmt::Display for SizeRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_single() {
            write!(f, "{}", self.start)
        } else {
            write!(f, "{}..{}", self.start, self.end)
        }
    }
}

/// Why a whole number was refused by [`parse_in`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Not a whole number at all.
    NotANumber,
    /// Below the range (the value, saturated at i128::MIN).
    Below(i128),
    /// Above the range (the value, saturated at i128::MAX).
    Above(i128),
}

/// The one parser of bounded whole numbers: `s` (spaces trimmed) as an integer in
/// `lo..=hi`. Callers word the three refusals (each option keeps its own message).
/// Digits too many for i128 count as above (or below) the range, not as "not a number".
pub fn parse_in(s: &str, lo: i128, hi: i128) -> Result<i128, Refused> {
    let t = s.trim();
    let v = match t.parse::<i128>() {
        Ok(v) => v,
        Err(_) => {
            let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(Refused::NotANumber);
            }
            if t.starts_with('-') {
                i128::MIN
            } else {
                i128::MAX
            }
        }
    };
    if v < lo {
        Err(Refused::Below(v))
    } else if v > hi {
        Err(Refused::Above(v))
    } else {
        Ok(v)
    }
}

/// An argument as echoed in an error: control characters escaped, long ones shortened (see
/// `crate::runner::shown`).
pub fn shown(s: &str) -> String {
    crate::runner::shown::value(s)
}

/// Parses one board size, 1..=64.
pub fn parse_n(s: &str) -> Result<u32, String> {
    match parse_in(s, 1, i128::from(MAX_N)) {
        Ok(v) => Ok(v as u32),
        Err(Refused::NotANumber) => Err(format!(
            "'{}' is not a board size: expected a whole number from 1 to {MAX_N}",
            shown(s)
        )),
        Err(Refused::Below(v) | Refused::Above(v)) => Err(format!(
            "board size {v} is out of range: n must be between 1 and {MAX_N}"
        )),
    }
}

/// [`parse_n`], or 0 (see [`SizeRange`]).
fn parse_n_or_0(s: &str) -> Result<u32, String> {
    match parse_in(s, 0, 0) {
        Ok(_) => Ok(0),
        Err(_) => parse_n(s),
    }
}

/// The most workers `plan --stats --workers` simulates (each is a heap entry).
pub const MAX_WORKERS: usize = 1 << 20;

/// Parses a worker count of `plan --stats`, 1..=[`MAX_WORKERS`].
pub fn parse_workers(s: &str) -> Result<usize, String> {
    match parse_in(s, 1, MAX_WORKERS as i128) {
        Ok(v) => Ok(v as usize),
        Err(Refused::NotANumber) => Err(format!(
            "'{}' is not a worker count: expected a whole number from 1 to {MAX_WORKERS}",
            shown(s)
        )),
        Err(Refused::Below(v)) => Err(format!(
            "--workers {v} is invalid: give worker counts of at least 1"
        )),
        Err(Refused::Above(v)) => Err(format!(
            "worker count {v} is too large: simulate at most {MAX_WORKERS} workers"
        )),
    }
}

/// Parses `--seed`: any 64-bit number (clap's own parser says only "invalid digit found in
/// string", without the range).
pub fn parse_seed(s: &str) -> Result<u64, String> {
    parse_in(s, 0, i128::from(u64::MAX))
        .map(|v| v as u64)
        .map_err(|_| {
            format!(
                "'{}' is not a seed: expected a whole number from 0 to {}",
                shown(s),
                u64::MAX
            )
        })
}

/// Parses a percentage, 0..=100 (decimals allowed).
pub fn parse_percent(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!(
            "'{}' is not a percentage: expected a number from 0 to 100",
            shown(s)
        )),
    }
}

impl FromStr for SizeRange {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.split_once("..") {
            None => {
                let n = parse_n_or_0(s)?;
                Ok(SizeRange { start: n, end: n })
            }
            Some((a, b)) => {
                let b = b.strip_prefix('=').unwrap_or(b);
                if a.trim().is_empty() || b.trim().is_empty() {
                    return Err(format!(
                        "range '{s}' needs both ends: write A..B with 1 <= A <= B <= {MAX_N}"
                    ));
                }
                if b.starts_with('.') {
                    return Err(format!("'{s}' is not a range: write A..B or A..=B"));
                }
                let (start, end) = (parse_n_or_0(a)?, parse_n(b)?);
                if start > end {
                    return Err(format!(
                        "range {start}..{end} is reversed: write {end}..{start}"
                    ));
                }
                Ok(SizeRange { start, end })
            }
        }
    }
}

/// Parses a thread count, 1..=[`MAX_THREADS`] (the library's cap; see its doc).
pub fn parse_threads(s: &str) -> Result<usize, String> {
    match parse_in(s, 1, MAX_THREADS as i128) {
        Ok(v) => Ok(v as usize),
        Err(Refused::NotANumber) => Err(format!(
            "'{}' is not a thread count: expected a whole number from 1 to {MAX_THREADS}",
            shown(s)
        )),
        Err(Refused::Below(v)) => Err(format!(
            "thread count {v} is invalid: use at least 1 thread"
        )),
        Err(Refused::Above(v)) => Err(format!(
            "thread count {v} is too large: use at most {MAX_THREADS} threads"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_and_ranges() {
        assert_eq!(
            "16".parse::<SizeRange>(),
            Ok(SizeRange { start: 16, end: 16 })
        );
        assert_eq!(
            "4..8".parse::<SizeRange>(),
            Ok(SizeRange { start: 4, end: 8 })
        );
        assert_eq!(
            "4..=8".parse::<SizeRange>(),
            Ok(SizeRange { start: 4, end: 8 })
        );
        // 0 is a b-file's first term: `count` refuses it elsewhere.
        assert_eq!("0".parse::<SizeRange>(), Ok(SizeRange { start: 0, end: 0 }));
        assert_eq!(
            "0..3".parse::<SizeRange>(),
            Ok(SizeRange { start: 0, end: 3 })
        );
        assert!("3..0".parse::<SizeRange>().is_err());
        assert!("65".parse::<SizeRange>().is_err());
        assert!("-3".parse::<SizeRange>().is_err());
        assert!("abc".parse::<SizeRange>().is_err());
        assert!("9..4"
            .parse::<SizeRange>()
            .unwrap_err()
            .contains("reversed"));
        for open in ["..5", "3..", "..", "3..="] {
            let e = open.parse::<SizeRange>().unwrap_err();
            assert!(e.contains("needs both ends"), "{open}: {e}");
        }
        assert_eq!(
            "1...3".parse::<SizeRange>().unwrap_err(),
            "'1...3' is not a range: write A..B or A..=B"
        );
    }

    #[test]
    fn parses_thread_counts_from_1_to_the_cap() {
        assert_eq!(parse_threads("1"), Ok(1));
        assert_eq!(parse_threads("4096"), Ok(MAX_THREADS));
        assert!(parse_threads("0")
            .unwrap_err()
            .contains("at least 1 thread"));
        assert!(parse_threads("-2").unwrap_err().contains("thread count -2"));
        assert_eq!(
            parse_threads("4097"),
            Err("thread count 4097 is too large: use at most 4096 threads".into())
        );
        assert!(parse_threads("99999999999999999999")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_threads("two").unwrap_err().contains("'two'"));
    }
}
