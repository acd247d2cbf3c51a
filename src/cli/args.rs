//! Argument types shared by subcommands: board sizes, ranges, thread counts. Each parser
//! turns text into an engine value or a one-line reason.

use std::fmt;
use std::str::FromStr;

use nqueens::{MAX_N, MAX_THREADS};

/// A board size or an inclusive range of sizes: `16` or `10..14`.
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

/// Parses one board size, 1..=64.
pub fn parse_n(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let v: i128 = t.parse().map_err(|_| {
        format!("'{s}' is not a board size: expected a whole number from 1 to {MAX_N}")
    })?;
    if v < 1 || v > i128::from(MAX_N) {
        return Err(format!(
            "board size {v} is out of range: n must be between 1 and {MAX_N}"
        ));
    }
    Ok(v as u32)
}

impl FromStr for SizeRange {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.split_once("..") {
            None => {
                let n = parse_n(s)?;
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
                let (start, end) = (parse_n(a)?, parse_n(b)?);
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
    let v: i128 = s.trim().parse().map_err(|_| {
        format!("'{s}' is not a thread count: expected a whole number from 1 to {MAX_THREADS}")
    })?;
    if v < 1 {
        return Err(format!(
            "thread count {v} is invalid: use at least 1 thread"
        ));
    }
    if v > MAX_THREADS as i128 {
        return Err(format!(
            "thread count {v} is too large: use at most {MAX_THREADS} threads"
        ));
    }
    Ok(v as usize)
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
        assert!("0".parse::<SizeRange>().is_err());
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
