//! The value parsers of the command line: board sizes, ranges, thread counts, memory sizes,
//! seeds, percentages... Each turns text into a typed value or a one-line reason that names
//! the value and the range it should be in (clap's own parsers say "invalid digit found in
//! string"). Every bounded whole number goes through [`parse_in`].

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
pub fn parse_n_or_0(s: &str) -> Result<u32, String> {
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

/// Parses a number from `lo` to `hi` (decimals allowed), or says that `s` is not `what`
/// and which `unit`s it takes: "'x' is not a percentage: expected a number from 0 to 100".
fn parse_real_in(s: &str, lo: f64, hi: f64, what: &str, unit: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        _ => Err(format!(
            "'{}' is not {what}: expected {unit} from {lo} to {hi}",
            shown(s)
        )),
    }
}

/// Parses a percentage, 0..=100 (decimals allowed).
pub fn parse_percent(s: &str) -> Result<f64, String> {
    parse_real_in(s, 0.0, 100.0, "a percentage", "a number")
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

/// Largest `--max-memory`: 1 PiB.
const MAX_SIZE: u64 = 1 << 50;

/// Parses a size: a whole number of bytes with an optional K, M, G, T or P suffix (powers of
/// 1024; "KiB", "MB" and the like are read the same way).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let upper = t.to_ascii_uppercase();
    let body = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (digits, shift) = match body.chars().last() {
        Some('K') => (&body[..body.len() - 1], 10),
        Some('M') => (&body[..body.len() - 1], 20),
        Some('G') => (&body[..body.len() - 1], 30),
        Some('T') => (&body[..body.len() - 1], 40),
        Some('P') => (&body[..body.len() - 1], 50),
        _ => (body, 0),
    };
    let bad = || {
        format!(
            "'{}' is not a memory size: expected bytes or a number with K, M, G, T or P, e.g. 512M, 4G",
            shown(s)
        )
    };
    if let Some(magnitude) = digits.trim().strip_prefix('-') {
        if !magnitude.is_empty() && magnitude.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "memory size {} is negative: give at least a few megabytes, e.g. 64M",
                shown(t)
            ));
        }
    }
    let value: u64 = digits.trim().parse().map_err(|_| bad())?;
    let total = value
        .checked_mul(1u64 << shift)
        .filter(|&v| v <= MAX_SIZE)
        .ok_or_else(|| format!("memory size {} is above the largest allowed, 1P", shown(s)))?;
    if total == 0 {
        return Err("memory size 0 is too small: give at least a few megabytes, e.g. 64M".into());
    }
    Ok(total)
}

/// A comma-separated list of thread counts, e.g. `1,2,4`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadCounts(pub Vec<usize>);

impl FromStr for ThreadCounts {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let counts = s
            .split(',')
            .map(parse_threads)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ThreadCounts(counts))
    }
}

/// Parses `--runs`: at least 1.
pub fn parse_runs(s: &str) -> Result<usize, String> {
    match parse_in(s, 1, MAX_RUNS as i128) {
        Ok(v) => Ok(v as usize),
        Err(Refused::Below(0)) => {
            Err("run count 0 is invalid: use at least 1 run (3 or more to trust the spread)".into())
        }
        Err(Refused::NotANumber | Refused::Below(_)) => Err(format!(
            "'{}' is not a run count: expected a whole number of at least 1",
            shown(s)
        )),
        Err(Refused::Above(v)) => Err(format!(
            "run count {v} is too large: use at most {MAX_RUNS} runs"
        )),
    }
}

/// The most timed runs `bench --runs` accepts (each run is a count; the times are kept).
pub const MAX_RUNS: usize = 10_000;

/// Parses the share of `--cheapest`: a percentage above 0.
pub fn parse_share(s: &str) -> Result<f64, String> {
    match parse_percent(s)? {
        p if p > 0.0 => Ok(p),
        _ => Err("--cheapest 0 draws from no unit: give a percentage above 0".into()),
    }
}

/// Most units a sample may time.
pub const MAX_SAMPLE: u32 = 100_000;

pub fn parse_sample(s: &str) -> Result<u32, String> {
    match parse_in(s, 2, i128::from(MAX_SAMPLE)) {
        Ok(v) => Ok(v as u32),
        Err(Refused::NotANumber) => Err(format!(
            "'{}' is not a sample size: expected a whole number from 2 to {MAX_SAMPLE}",
            shown(s)
        )),
        Err(Refused::Below(v)) => Err(format!(
            "--sample {v} is too small: an interval needs at least 2 units"
        )),
        Err(Refused::Above(v)) => Err(format!(
            "--sample {v} is too large: time at most {MAX_SAMPLE} units"
        )),
    }
}

pub fn parse_budget(s: &str) -> Result<f64, String> {
    parse_real_in(s, 0.01, 3600.0, "a time budget", "seconds")
}

/// Parses `estimate --seconds`: 0 to a day.
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    parse_real_in(s, 0.0, 86400.0, "a sampling time", "seconds")
}

/// Parses `--limit`, at least 1.
pub fn parse_limit(s: &str) -> Result<u64, String> {
    match parse_in(s, 1, i128::from(u64::MAX)) {
        Ok(k) => Ok(k as u64),
        Err(Refused::Below(0)) => Err("a limit of 0 lists nothing: use at least 1".into()),
        Err(_) => Err(format!(
            "'{}' is not a count: expected a whole number from 1 to {}",
            shown(s),
            u64::MAX
        )),
    }
}

/// Largest n for `solve`: 10,000,000 rows take 80 MB for the solution, 50 MB for the check
/// and 79 MB of `perm` text; measured 0.3 s and 174 MB peak on a 2-core Xeon.
pub const SOLVE_MAX_N: usize = 10_000_000;

/// Parses a board size for `solve`, 1..=10,000,000.
pub fn parse_big_n(s: &str) -> Result<usize, String> {
    match parse_in(s, 1, SOLVE_MAX_N as i128) {
        Ok(v) => Ok(v as usize),
        Err(Refused::NotANumber) => Err(format!(
            "'{}' is not a board size: expected a whole number from 1 to {SOLVE_MAX_N}",
            shown(s)
        )),
        Err(Refused::Below(v) | Refused::Above(v)) => Err(format!(
            "board size {v} is out of range: n must be between 1 and {SOLVE_MAX_N}"
        )),
    }
}

/// Largest n for `animate`: a 32-row board fills a terminal, and larger searches never
/// reach their first solution at a watchable speed.
pub const ANIMATE_MAX_N: u32 = 32;

/// Largest `--delay`, milliseconds.
pub const DELAY_MAX_MS: u64 = 60_000;

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

/// Parses the board size of `animate`, 1..=[`ANIMATE_MAX_N`].
pub fn parse_animate_n(s: &str) -> Result<u32, String> {
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
pub fn parse_delay(s: &str) -> Result<u64, String> {
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
pub fn parse_max_frames(s: &str) -> Result<u64, String> {
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
pub fn parse_until(s: &str) -> Result<Until, String> {
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

    #[test]
    fn parses_thread_lists() {
        assert_eq!(
            "1,2,4".parse::<ThreadCounts>(),
            Ok(ThreadCounts(vec![1, 2, 4]))
        );
        assert_eq!("8".parse::<ThreadCounts>(), Ok(ThreadCounts(vec![8])));
        assert!("0"
            .parse::<ThreadCounts>()
            .unwrap_err()
            .contains("thread count 0"));
        assert!("a,b".parse::<ThreadCounts>().unwrap_err().contains("'a'"));
        assert!("1,,2".parse::<ThreadCounts>().is_err());
    }

    #[test]
    fn rejects_zero_runs() {
        assert_eq!(parse_runs("3"), Ok(3));
        assert!(parse_runs("0").unwrap_err().contains("run count 0"));
        assert!(parse_runs("x").is_err());
    }

    #[test]
    fn rejects_a_limit_of_zero() {
        assert!(parse_limit("0").unwrap_err().contains("at least 1"));
        assert_eq!(parse_limit("3"), Ok(3));
        assert!(parse_limit("-1")
            .unwrap_err()
            .contains("'-1' is not a count"));
    }

    #[test]
    fn parses_seeds_and_names_the_range_on_error() {
        assert_eq!(parse_seed("0"), Ok(0));
        assert_eq!(parse_seed("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            parse_seed("abc"),
            Err(
                "'abc' is not a seed: expected a whole number from 0 to 18446744073709551615"
                    .into()
            )
        );
        assert!(parse_seed("-1").unwrap_err().contains("'-1'"));
    }

    #[test]
    fn parses_board_sizes_up_to_ten_million() {
        assert_eq!(parse_big_n("10000000"), Ok(10_000_000));
        assert!(parse_big_n("10000001")
            .unwrap_err()
            .contains("between 1 and 10000000"));
        assert!(parse_big_n("0").is_err());
        assert!(parse_big_n("ten").unwrap_err().contains("'ten'"));
    }

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4g"), Ok(4 << 30));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
        assert_eq!(
            parse_size("-5").unwrap_err(),
            "memory size -5 is negative: give at least a few megabytes, e.g. 64M"
        );
        assert!(parse_size("-1G").unwrap_err().contains("negative"));
        assert!(parse_size("2000T").unwrap_err().contains("largest"));
        // The largest allowed value, as the message names it, is accepted.
        assert_eq!(parse_size("1P"), Ok(1 << 50));
        assert_eq!(parse_size("1024T"), Ok(1 << 50));
        assert!(parse_size("2P")
            .unwrap_err()
            .contains("largest allowed, 1P"));
    }

    #[test]
    fn parses_stopping_points() {
        assert_eq!(parse_until("first"), Ok(Until::Solutions(1)));
        assert_eq!(parse_until("all"), Ok(Until::All));
        assert_eq!(parse_until("5"), Ok(Until::Solutions(5)));
        assert!(parse_until("0").unwrap_err().contains("at least 1"));
        assert!(parse_until("some").unwrap_err().contains("'some'"));
    }
}
