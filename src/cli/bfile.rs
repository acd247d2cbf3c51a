//! OEIS b-files out and in: `count A..B --format bfile` writes one, `verify --bfile FILE`
//! checks one by counting again.
//!
//! A b-file lists one term of a sequence per line, `n a(n)`, in increasing n; lines starting
//! with `#` are comments (OEIS's "b-file" format, <https://oeis.org/SubmittingB-Files.html>).
//! The two sequences here are A000170 (all solutions, `--sequence total`, with a(0) = 1: the
//! empty board) and A002562 (solutions up to symmetry, `--sequence unique`).
//!
//! Reading is lenient about layout and strict about content: blank lines, comments, Windows
//! line ends and runs of spaces or tabs pass; anything else that is not two whole numbers, or
//! an n that does not increase, is a malformed file (exit code 2, naming the line). Values are
//! kept as decimal strings, so terms beyond u64 (or u128) compare exactly. The file is read
//! with a bound ([`MAX_BYTES`]), so a FIFO or a device that never ends cannot fill memory.

use std::io::{self, Read, Write};
use std::path::Path;

use anyhow::anyhow;

use super::args::parse::shown;
use super::args::{EngineArgs, Sequence};
use super::engine::EnginePlan;
use super::error::{say, Done, Failure, Outcome};
use super::options::Sized;
use crate::runner::fifo::{self, Wait};
use crate::runner::shown;
use crate::{known, Counts, MAX_N};

/// Largest b-file read: 16 MiB. The OEIS keeps b-files to 10,000 terms; this bound is there
/// so that `--bfile /dev/zero` ends with an error instead of filling memory.
pub const MAX_BYTES: u64 = 16 << 20;

impl Sequence {
    /// The OEIS number: "A000170" or "A002562".
    pub fn a_number(self) -> &'static str {
        match self {
            Sequence::Total => "A000170",
            Sequence::Unique => "A002562",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Sequence::Total => "total",
            Sequence::Unique => "unique",
        }
    }

    fn other(self) -> Sequence {
        match self {
            Sequence::Total => Sequence::Unique,
            Sequence::Unique => Sequence::Total,
        }
    }

    /// This sequence's term in `c`.
    pub fn of(self, c: &Counts) -> u128 {
        match self {
            Sequence::Total => c.total,
            Sequence::Unique => c.unique,
        }
    }

    /// The known term for `n`: the table for 1..=27, and 1 for n = 0 (the empty board is one
    /// solution, fixed by every symmetry).
    fn known(self, n: u64) -> Option<u128> {
        if n == 0 {
            return Some(1);
        }
        let k = known::lookup(u32::try_from(n).ok()?)?;
        Some(match self {
            Sequence::Total => k.total,
            Sequence::Unique => k.unique,
        })
    }
}

/// `count A..B --format bfile`: one `n a(n)` line per n, flushed as each count ends, and
/// nothing else on stdout; first `0 1` if `zero` (A000170's a(0), the empty board, which
/// OEIS's own b-file starts with). Exit code 1 (after the b-file, with a line on stderr) if
/// a count disagrees with the known table.
pub fn print_counts(sizes: &[Sized], seq: Sequence, zero: bool, threads: usize) -> Outcome {
    let mut out = super::error::stdout();
    if zero {
        writeln!(out, "0 1")?;
        out.flush()?;
    }
    let mut failed = false;
    for &Sized { n, chosen } in sizes {
        let c = count_with(n, threads, &chosen)?;
        let term = seq.of(&c);
        writeln!(out, "{n} {term}")?;
        out.flush()?;
        if seq.known(u64::from(n)).is_some_and(|k| k != term) {
            say!(
                "nqueens: n = {n}: {term} is not the known value of {}",
                seq.a_number()
            );
            failed = true;
        }
    }
    if failed {
        return Err(Failure::CheckFailed(None));
    }
    Ok(Done::Ok)
}

/// One term of a b-file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Line number in the file, from 1.
    pub line: usize,
    /// The index n.
    pub n: u64,
    /// The term as written, without leading zeros (`-` kept for a negative one).
    pub value: String,
}

/// Parses a b-file. Errors name the line: "line 4: expected 'n a(n)', found 'x'".
pub fn parse(bytes: &[u8]) -> Result<Vec<Row>, String> {
    let mut rows: Vec<Row> = Vec::new();
    // A UTF-8 byte-order mark, which some Windows editors put first, is not part of line 1.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = std::str::from_utf8(raw)
            .map_err(|_| format!("line {line}: not text (invalid UTF-8)"))?
            .trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [n, value] = fields[..] else {
            return Err(format!(
                "line {line}: expected 'n a(n)', found '{}'",
                shown(text)
            ));
        };
        let n = n
            .parse::<u64>()
            .ok()
            .filter(|_| n.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| {
                format!(
                    "line {line}: '{}' is not an index n (a whole number >= 0)",
                    shown(n)
                )
            })?;
        let value = normalize(value)
            .ok_or_else(|| format!("line {line}: '{}' is not a whole number", shown(value)))?;
        if let Some(last) = rows.last() {
            if n <= last.n {
                return Err(format!(
                    "line {line}: n = {n} after n = {} (line {}): a b-file lists n in increasing order",
                    last.n, last.line
                ));
            }
        }
        rows.push(Row { line, n, value });
    }
    if rows.is_empty() {
        return Err("no terms (only blank lines and comments)".into());
    }
    Ok(rows)
}

/// `s` without leading zeros if it is a whole number (`-` allowed), else `None`.
fn normalize(s: &str) -> Option<String> {
    let (sign, digits) = match s.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = digits.trim_start_matches('0');
    Some(if digits.is_empty() {
        "0".to_string()
    } else {
        format!("{sign}{digits}")
    })
}

/// Counts n on `threads` threads with the engine, table limit and instruction set of
/// `chosen`.
fn count_with(n: u32, threads: usize, chosen: &EnginePlan) -> Result<Counts, Failure> {
    Ok(crate::Counter::new(n)?
        .threads(threads)
        .engine(chosen.engine)
        .table_limit(chosen.config.table_limit)
        .instruction_set(chosen.config.isa)
        .count()?)
}

/// Reads at most [`MAX_BYTES`] of `path` (`-`: stdin); a larger file is an error. A FIFO's
/// writer is waited for as `wait` says.
pub fn read_bounded(path: &Path, wait: Wait<'_>) -> Result<Vec<u8>, Failure> {
    let name = shown::path(path);
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        // Named here: a bare I/O error would be taken for a failed write to stdout.
        io::stdin()
            .lock()
            .take(MAX_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| Failure::Read {
                what: "the b-file from standard input".into(),
                source,
            })?;
    } else {
        if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            return Err(anyhow!("cannot read b-file {name}: it is a directory").into());
        }
        fifo::open_reader(path, wait)
            .and_then(|f| f.take(MAX_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|source| Failure::Read {
                what: format!("b-file {name}"),
                source,
            })?;
    }
    if bytes.len() as u64 > MAX_BYTES {
        return Err(anyhow!(
            "b-file {name} is larger than {} MiB: not a b-file of N-Queens counts",
            MAX_BYTES >> 20
        )
        .into());
    }
    Ok(bytes)
}

/// If the rows that tell A000170 and A002562 apart (n = 4..=27, where the two differ) all
/// agree with the other sequence and not with `seq`, the hint to give.
fn wrong_sequence(rows: &[Row], seq: Sequence) -> Option<String> {
    let telling: Vec<&Row> = rows.iter().filter(|r| (4..=27).contains(&r.n)).collect();
    let agrees = |s: Sequence| {
        telling
            .iter()
            .all(|r| s.known(r.n).is_some_and(|k| k.to_string() == r.value))
    };
    let other = seq.other();
    (!telling.is_empty() && agrees(other) && !agrees(seq)).then(|| {
        format!(
            "these terms are {} ({} solutions), not {}: try --sequence {}",
            other.a_number(),
            other.name(),
            seq.a_number(),
            other.name()
        )
    })
}

/// The largest n of the known table (27).
fn known_max() -> u64 {
    known::TABLE
        .iter()
        .map(|k| u64::from(k.n))
        .max()
        .unwrap_or(0)
}

/// `verify --bfile FILE`: recounts every term with n <= `max`, compares the terms above it
/// that the known table holds (n <= 27) with the table, and reports each row as ok,
/// MISMATCH or skipped. Exit code 1 on a mismatch, 2 on a malformed file.
///
/// Before, terms above `--max` (default 17) were all "skipped": a wrong a(18), a(25) or
/// a(26) passed with exit code 0 though the program knows every term to n = 27.
pub fn verify(
    path: &Path,
    seq: Sequence,
    max: u32,
    threads: usize,
    engine: &EngineArgs,
) -> Outcome {
    // Nothing to save on a signal: it ends the run at once (also while a FIFO waits).
    let wait = super::session::fifo_wait(super::session::quit_on_signal());
    let rows = parse(&read_bounded(path, wait)?)
        .map_err(|e| anyhow!("b-file {}: {e}", shown::path(path)))?;
    let mut out = super::error::stdout();
    let (first, last) = (rows[0].n, rows[rows.len() - 1].n);
    writeln!(
        out,
        "b-file {}: {} terms, n = {first}..{last}, checked as {} ({} solutions): counted up to n = {max}, compared with the known table up to n = {}",
        shown::path(path),
        rows.len(),
        seq.a_number(),
        seq.name(),
        known_max()
    )?;
    if let Some(hint) = wrong_sequence(&rows, seq) {
        writeln!(out, "MISMATCH: {hint}")?;
        return Err(Failure::CheckFailed(None));
    }
    writeln!(out, "{:>3} {:>24} {:>24}  status", "n", "b-file", "counted")?;
    let (mut ok, mut bad, mut skipped) = (0, 0, 0);
    // Rows found ok by the table alone, and skipped rows a larger --max would count.
    let (mut by_table, mut countable) = (0, 0);
    for r in &rows {
        let counted = match r.n {
            0 => Some(1), // the empty board: one solution, its own class
            n if n > u64::from(max) || n > u64::from(MAX_N) => None,
            n => {
                let n = n as u32;
                Some(seq.of(&count_with(n, threads, &engine.resolve(n, threads)?)?))
            }
        };
        let not_counted = format!("not counted: n > --max {max}");
        let (shown, status) = match (counted, seq.known(r.n)) {
            (Some(c), _) if c.to_string() == r.value => {
                ok += 1;
                (c.to_string(), "ok".to_string())
            }
            (Some(c), _) => {
                bad += 1;
                (c.to_string(), format!("MISMATCH (line {})", r.line))
            }
            (None, Some(k)) if k.to_string() == r.value => {
                ok += 1;
                by_table += 1;
                (
                    "-".to_string(),
                    format!("ok (the known value; {not_counted})"),
                )
            }
            (None, Some(k)) => {
                bad += 1;
                (
                    "-".to_string(),
                    format!(
                        "MISMATCH (line {}): the known value is {k}; {not_counted}",
                        r.line
                    ),
                )
            }
            (None, None) if r.n > u64::from(MAX_N) => {
                skipped += 1;
                (
                    "-".to_string(),
                    format!("skipped (n > {MAX_N}, beyond nqueens)"),
                )
            }
            (None, None) => {
                skipped += 1;
                countable += 1;
                ("-".to_string(), format!("skipped (n > --max {max})"))
            }
        };
        writeln!(out, "{:>3} {:>24} {shown:>24}  {status}", r.n, r.value)?;
        out.flush()?;
    }
    write!(out, "{ok} ok")?;
    if by_table > 0 {
        write!(out, " ({by_table} of them by the known table, not counted)")?;
    }
    write!(out, ", {bad} MISMATCH, {skipped} skipped")?;
    // Only where a larger --max would count something: rows past n = 64 never are.
    if countable > 0 {
        write!(
            out,
            " (raise --max to count more; each n takes about 7 times as long as the one before)"
        )?;
    }
    writeln!(out)?;
    if bad > 0 {
        return Err(Failure::CheckFailed(None));
    }
    Ok(Done::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(line: usize, n: u64, value: &str) -> Row {
        Row {
            line,
            n,
            value: value.into(),
        }
    }

    #[test]
    fn parses_comments_blank_lines_crlf_and_huge_values() {
        let text = b"# A000170\r\n\r\n0 1\r\n1  1\n 2\t0 \n# note\n28 0012345678901234567890123456789012345678901234567890\n";
        assert_eq!(
            parse(text).unwrap(),
            [
                row(3, 0, "1"),
                row(4, 1, "1"),
                row(5, 2, "0"),
                row(7, 28, "12345678901234567890123456789012345678901234567890"),
            ]
        );
    }

    #[test]
    fn malformed_lines_are_named() {
        let err = |t: &str| parse(t.as_bytes()).unwrap_err();
        assert_eq!(err("1 1\n2 0\n3\n"), "line 3: expected 'n a(n)', found '3'");
        assert_eq!(err("1 1 1\n"), "line 1: expected 'n a(n)', found '1 1 1'");
        assert_eq!(err("1 one\n"), "line 1: 'one' is not a whole number");
        assert_eq!(
            err("+1 1\n"),
            "line 1: '+1' is not an index n (a whole number >= 0)"
        );
        assert_eq!(
            err("-1 1\n"),
            "line 1: '-1' is not an index n (a whole number >= 0)"
        );
        assert_eq!(
            err("# x\n5 10\n4 2\n"),
            "line 3: n = 4 after n = 5 (line 2): a b-file lists n in increasing order"
        );
        assert_eq!(
            err("# only\n\n"),
            "no terms (only blank lines and comments)"
        );
        assert_eq!(
            parse(b"1 1\n2 \xff\n").unwrap_err(),
            "line 2: not text (invalid UTF-8)"
        );
    }

    #[test]
    fn normalizes_values() {
        assert_eq!(normalize("007").as_deref(), Some("7"));
        assert_eq!(normalize("000").as_deref(), Some("0"));
        assert_eq!(normalize("-12").as_deref(), Some("-12"));
        assert_eq!(normalize("-"), None);
        assert_eq!(normalize("1e6"), None);
    }

    #[test]
    fn detects_the_other_sequence() {
        let unique = [row(1, 4, "1"), row(2, 5, "2"), row(3, 8, "12")];
        let hint = wrong_sequence(&unique, Sequence::Total).unwrap();
        assert_eq!(
            hint,
            "these terms are A002562 (unique solutions), not A000170: try --sequence unique"
        );
        assert_eq!(wrong_sequence(&unique, Sequence::Unique), None);
        let total = [row(1, 8, "92")];
        assert!(wrong_sequence(&total, Sequence::Unique)
            .unwrap()
            .contains("try --sequence total"));
        // n = 1..3 are the same in both; one wrong term is a mismatch, not the other sequence.
        assert_eq!(
            wrong_sequence(&[row(1, 1, "1"), row(2, 2, "0")], Sequence::Total),
            None
        );
        assert_eq!(
            wrong_sequence(&[row(1, 8, "92"), row(2, 9, "353")], Sequence::Total),
            None
        );
    }
}
