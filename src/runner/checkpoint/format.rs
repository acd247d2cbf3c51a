//! The checkpoint's text format: the header line that says whose file it is, one record line
//! per finished unit, and their parsers, which refuse a file of another n, plan (with a hint
//! when another engine wrote it) or scope, and any record that is corrupted or conflicting.
//!
//! ```text
//! nqueens-checkpoint 1 n=16 plan=b7ce34cf89467108 plan_version=4 units=6487 scope=all program=0.1.0
//! 3232 2480 349596 10/5,0/6 98f495e7
//! ```
//!
//! The header names the format (1), the board size, the unit plan (its id and version: 4 is
//! the quadrant engine's, `count 16` above) and the scope (`all`, or `shard K/M` written
//! `shard_K/M`, or `shard K/M by bundles` written `shard_K/M_by_bundles` for a split by
//! bundles). Each record is `id solutions nodes residues digest`: the residues mod 13
//! and 15 of both counts and the low 32 bits of the FNV-1a digest of the text before it
//! (see [`super::super::record`]). Nothing here touches a file: [`super::file`] reads and
//! writes them.

use std::path::Path;

use super::KIND;
use crate::engine::plan::{Engine, UnitPlan, UnitResult};
use crate::runner::record::{check_value, fnv1a64, parse_u64, FileError, Problem};

pub(super) const MAGIC: &str = "nqueens-checkpoint";
pub(super) const FORMAT: &str = "1";

/// The one-line record of a unit, with its check values, newline included.
pub(super) fn record_line(id: u32, r: &UnitResult) -> String {
    let body = format!("{id} {} {} {}", r.solutions, r.nodes, check_value(r));
    format!("{body} {:08x}\n", fnv1a64(body.as_bytes()) as u32)
}

/// A checkpoint's header line, parsed once (the one parser: opening, `read` and the checks
/// all use it). On disk: `nqueens-checkpoint 1 n=16 plan=<hex> plan_version=4 units=6487
/// scope=all program=0.1.0`, with a space-free scope (`shard_3/8`). Fields other than the
/// magic word and the format are `key=value` in any order; a missing one reads as "?".
#[derive(Clone, Debug, PartialEq, Eq)]
struct Header {
    format: String,
    n: String,
    plan: String,
    plan_version: String,
    units: String,
    /// As the session names it: "all" or "shard K/M".
    scope: String,
    program: String,
}

impl Header {
    /// The header a checkpoint of `plan` over `scope` is written with.
    fn of(plan: &UnitPlan, scope: &str) -> Header {
        Header {
            format: FORMAT.into(),
            n: plan.n().to_string(),
            plan: plan.id_hex(),
            plan_version: plan.version().to_string(),
            units: plan.len().to_string(),
            scope: scope.into(),
            program: env!("CARGO_PKG_VERSION").into(),
        }
    }

    /// Parses a first line (without its newline).
    ///
    /// # Errors
    /// A line that does not start with the magic word.
    fn parse(line: &str) -> Result<Header, String> {
        let mut words = line.split(' ');
        if words.next() != Some(MAGIC) {
            return Err(format!(
                "not an nqueens checkpoint (expected a first line starting with '{MAGIC}')"
            ));
        }
        let format = words.next().unwrap_or("?").to_string();
        let field = |key: &str| {
            line.split(' ')
                .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
                .unwrap_or("?")
                .to_string()
        };
        Ok(Header {
            format,
            n: field("n"),
            plan: field("plan"),
            plan_version: field("plan_version"),
            units: field("units"),
            scope: field("scope").replace('_', " "),
            program: field("program"),
        })
    }
}

impl std::fmt::Display for Header {
    /// The line as written, newline included.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{MAGIC} {} n={} plan={} plan_version={} units={} scope={} program={}",
            self.format,
            self.n,
            self.plan,
            self.plan_version,
            self.units,
            self.scope.replace(' ', "_"),
            self.program
        )
    }
}

pub(super) fn header(plan: &UnitPlan, scope: &str) -> String {
    Header::of(plan, scope).to_string()
}

/// Checks a header line against the plan and scope; the program version is informative.
pub(super) fn check_header(
    path: &Path,
    line: &str,
    plan: &UnitPlan,
    scope: &str,
) -> Result<(), FileError> {
    let bad = |reason: String| Err(FileError::at(KIND, path, 1, Problem::OtherPlan, reason));
    let h = match Header::parse(line) {
        Ok(h) => h,
        Err(why) => return Err(FileError::at(KIND, path, 1, Problem::NotOurs, why)),
    };
    if h.format != FORMAT {
        return bad(format!(
            "unsupported checkpoint format (this program reads format {FORMAT})"
        ));
    }
    if h.n != plan.n().to_string() {
        return bad(format!("it is for n = {}, not n = {}", h.n, plan.n()));
    }
    if h.plan != plan.id_hex() || h.plan_version != plan.version().to_string() {
        let hint = match h
            .plan_version
            .parse()
            .ok()
            .and_then(Engine::from_plan_version)
        {
            Some(e) if e != plan.engine() => format!(
                "; it was started by the {} engine: resume it with --engine {}",
                e.name(),
                e.name()
            ),
            _ => "; finish it with the program that started it".to_string(),
        };
        return bad(format!(
            "it was written for unit plan {} (version {}), this count uses plan {} (version {}) for n = {}{hint}",
            h.plan,
            h.plan_version,
            plan.id_hex(),
            plan.version(),
            plan.n()
        ));
    }
    if h.scope != scope {
        // One shard of two splits: the split rule is the difference (see
        // `runner::schedule::SplitRule`), and `--split` chooses it.
        let base = |s: &str| s.split(" by ").next().unwrap_or("").to_string();
        let rule = h.scope.split(" by ").nth(1).unwrap_or("units");
        let hint = if base(&h.scope) == base(scope)
            && h.scope.starts_with("shard ")
            && ["units", "bundles"].contains(&rule)
        {
            format!(": it was split by {rule}, so resume it with --split {rule}")
        } else {
            String::new()
        };
        return bad(format!(
            "it records scope '{}', this command computes '{}'{hint}",
            h.scope, scope
        ));
    }
    Ok(())
}

/// Parses one record line (without its newline).
fn parse_record(line: &str, plan: &UnitPlan) -> Result<(u32, UnitResult), String> {
    let (body, digest) = line.rsplit_once(' ').ok_or("not a unit record")?;
    let want = format!("{:08x}", fnv1a64(body.as_bytes()) as u32);
    if digest != want {
        return Err(format!(
            "digest {digest} does not match the record (expected {want}): the file is corrupted"
        ));
    }
    let f: Vec<&str> = body.split(' ').collect();
    let [id, solutions, nodes, check] = f[..] else {
        return Err(format!("expected 5 fields, found {}", f.len() + 1));
    };
    let id = parse_u64("unit id", id)?;
    if id >= plan.len() as u64 {
        return Err(format!(
            "unit id {id} is outside the plan (0..{})",
            plan.len()
        ));
    }
    let r = UnitResult {
        solutions: parse_u64("solutions", solutions)?,
        nodes: parse_u64("nodes", nodes)?,
    };
    if check != check_value(&r) {
        return Err(format!(
            "check value {check} does not match the counts (expected {})",
            check_value(&r)
        ));
    }
    Ok((id as u32, r))
}

/// Parses the records that follow the header (line 2 on), refusing a unit recorded twice.
pub(super) fn parse_records<'a>(
    path: &Path,
    lines: impl Iterator<Item = &'a str>,
    plan: &UnitPlan,
) -> Result<Vec<Option<UnitResult>>, FileError> {
    let mut results = vec![None; plan.len()];
    for (i, line) in lines.enumerate() {
        let at = |reason: String| FileError::at(KIND, path, i + 2, Problem::Corrupt, reason);
        let (id, r) = parse_record(line, plan).map_err(at)?;
        match results[id as usize].replace(r) {
            // Two runs that both finished a unit wrote the same line: keep one.
            Some(old) if old == r && format!("{line}\n") == record_line(id, &r) => {}
            Some(_) => {
                return Err(at(format!(
                    "unit {id} is recorded twice, with different lines"
                )))
            }
            None => {}
        }
    }
    Ok(results)
}

/// Longest header line read before deciding whether a file is a checkpoint.
pub(super) const HEADER_MAX: usize = 1024;

/// Longest record line: id (10 digits), solutions and nodes (20 each), residues, digest.
const RECORD_MAX: usize = 80;

/// The most bytes a checkpoint of `plan` can hold: the header and two records per unit (a
/// unit may be recorded twice, byte-identically, by older versions running side by side).
pub(super) fn size_bound(plan: &UnitPlan) -> u64 {
    (HEADER_MAX + 2 * RECORD_MAX * plan.len()) as u64
}

/// The whole lines of `bytes` (up to the last newline) as text, and whether a torn line
/// followed them. Cut on raw bytes: a torn line may hold any bytes.
pub(super) fn whole_lines<'b>(path: &Path, bytes: &'b [u8]) -> Result<(&'b str, bool), FileError> {
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    match std::str::from_utf8(&bytes[..whole]) {
        Ok(text) => Ok((text, whole < bytes.len())),
        Err(e) => {
            let at = e.valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            Err(FileError::at(
                KIND,
                path,
                line,
                Problem::Corrupt,
                format!(
                    "byte 0x{:02x} is not text (UTF-8): the file is corrupted",
                    bytes[at]
                ),
            ))
        }
    }
}

/// The scope a header line names; a header without one is checked as one of the whole
/// plan (and refused).
pub(super) fn header_scope(first: &str) -> String {
    Header::parse(first)
        .ok()
        .map(|h| h.scope)
        .filter(|s| s != "?")
        .unwrap_or_else(|| "all".into())
}

/// The first line of a non-empty head of a file, if it is a whole line starting with the
/// magic word; otherwise the refusal (no prefix of a header is ours: the header is never
/// written in place, see [`super::file`]). `head` holds at most [`HEADER_MAX`] bytes.
pub(super) fn first_line<'h>(path: &Path, head: &'h [u8]) -> Result<&'h str, FileError> {
    let Some(end) = head.iter().position(|&b| b == b'\n') else {
        let what = if head.len() >= HEADER_MAX {
            format!("its first {HEADER_MAX} bytes hold no line")
        } else {
            "it holds no whole line".to_string()
        };
        return Err(FileError::at(
            KIND,
            path,
            1,
            Problem::NotOurs,
            format!("not an nqueens checkpoint ({what} starting with '{MAGIC} '); left untouched"),
        ));
    };
    std::str::from_utf8(&head[..end])
        .ok()
        .filter(|l| l.starts_with(MAGIC))
        .ok_or_else(|| {
            FileError::at(
                KIND,
                path,
                1,
                Problem::NotOurs,
                format!("not an nqueens checkpoint (expected a first line starting with '{MAGIC}'); left untouched"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::super::tests::temp;
    use super::super::Checkpoint;
    use super::*;

    #[test]
    fn the_header_is_written_as_before_and_reads_back() {
        let plan = UnitPlan::new(12);
        let line = header(&plan, "shard 3/8");
        let want = format!(
            "nqueens-checkpoint 1 n=12 plan={} plan_version={} units={} scope=shard_3/8 program={}\n",
            plan.id_hex(),
            plan.version(),
            plan.len(),
            env!("CARGO_PKG_VERSION")
        );
        assert_eq!(line, want);
        let h = Header::parse(line.trim_end()).unwrap();
        assert_eq!(h, Header::of(&plan, "shard 3/8"));
        assert!(Header::parse("nqueens-checkpoin 1 n=12").is_err());
        let odd = Header::parse("nqueens-checkpoint 1 n=99 plan_version=4").unwrap();
        assert_eq!((odd.n.as_str(), odd.scope.as_str()), ("99", "?"));
    }

    #[test]
    fn other_n_plan_or_scope_is_refused() {
        let p = temp("foreign");
        drop(Checkpoint::open(&p, &UnitPlan::new(8), "all").unwrap());
        let e = Checkpoint::open(&p, &UnitPlan::new(9), "all")
            .unwrap_err()
            .to_string();
        assert!(e.contains("n = 8, not n = 9"), "{e}");
        let e = Checkpoint::open(&p, &UnitPlan::new(8), "shard 0/2")
            .unwrap_err()
            .to_string();
        assert!(e.contains("scope"), "{e}");
        assert!(!e.contains("--split"), "{e}");
        // One shard of two splits: the refusal says which --split resumes it.
        let q = temp("split");
        drop(Checkpoint::open(&q, &UnitPlan::new(8), "shard 0/2").unwrap());
        let e = Checkpoint::open(&q, &UnitPlan::new(8), "shard 0/2 by bundles")
            .unwrap_err()
            .to_string();
        assert!(e.contains("resume it with --split units"), "{e}");
        std::fs::remove_file(&q).unwrap();
        drop(Checkpoint::open(&q, &UnitPlan::new(8), "shard 0/2 by bundles").unwrap());
        let first = std::fs::read_to_string(&q).unwrap();
        assert!(first.contains(" scope=shard_0/2_by_bundles "), "{first}");
        let e = Checkpoint::open(&q, &UnitPlan::new(8), "shard 0/2")
            .unwrap_err()
            .to_string();
        assert!(e.contains("resume it with --split bundles"), "{e}");
        std::fs::remove_file(q).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let plan = UnitPlan::new(8).id_hex();
        std::fs::write(&p, text.replace(&plan, "0123456789abcdef")).unwrap();
        let e = Checkpoint::open(&p, &UnitPlan::new(8), "all")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unit plan 0123456789abcdef"), "{e}");
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn corrupted_or_duplicated_records_are_refused() {
        let plan = UnitPlan::new(8);
        let p = temp("corrupt");
        let (c, _) = Checkpoint::open(&p, &plan, "all").unwrap();
        c.record(
            1,
            &UnitResult {
                solutions: 20,
                nodes: 30,
            },
        )
        .unwrap();
        drop(c);
        let good = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, good.replace(" 20 30 ", " 21 30 ")).unwrap();
        let e = Checkpoint::open(&p, &plan, "all").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("corrupted"), "{e}");
        let line = record_line(
            1,
            &UnitResult {
                solutions: 20,
                nodes: 30,
            },
        );
        // The same line twice (two runs finished the unit) is kept once; a different line
        // for the same unit is refused.
        std::fs::write(&p, format!("{good}{line}")).unwrap();
        assert_eq!(Checkpoint::open(&p, &plan, "all").unwrap().1.count(), 1);
        let other = record_line(
            1,
            &UnitResult {
                solutions: 21,
                nodes: 30,
            },
        );
        std::fs::write(&p, format!("{good}{other}")).unwrap();
        let e = Checkpoint::open(&p, &plan, "all").unwrap_err().to_string();
        assert!(e.contains("recorded twice"), "{e}");
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn a_torn_line_with_invalid_bytes_is_cut_on_raw_bytes() {
        let plan = UnitPlan::new(8);
        let p = temp("rawcut");
        drop(Checkpoint::open(&p, &plan, "all").unwrap());
        let whole = std::fs::read(&p).unwrap();
        let mut torn = whole.clone();
        torn.extend_from_slice(b"3 \xff\xfe\xfd 7");
        std::fs::write(&p, &torn).unwrap();
        let (_, rec) = Checkpoint::open(&p, &plan, "all").unwrap();
        assert!(rec.torn);
        assert_eq!(std::fs::read(&p).unwrap(), whole);
        // An invalid byte inside a whole line is refused, shown as hex.
        let mut bad = whole.clone();
        bad.extend_from_slice(b"1 \xff 3\n");
        std::fs::write(&p, &bad).unwrap();
        let e = Checkpoint::open(&p, &plan, "all").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("0xff"), "{e}");
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn oversized_counts_are_refused() {
        let plan = UnitPlan::new(8);
        let body = format!("1 {}0 3 0/0,3/3", u64::MAX);
        let line = format!("{body} {:08x}", fnv1a64(body.as_bytes()) as u32);
        assert!(parse_record(&line, &plan)
            .unwrap_err()
            .contains("does not fit"));
    }
}
