//! Shard files: the results of one shard's units as JSON (format version 2, or 3 where the
//! split was by bundles), with what a merge needs to accept them safely: n, the plan's id
//! and version, the shard and its split rule, and a digest over every field. Which units a shard holds is [`super::schedule`]; putting files
//! together is [`super::merge`].

use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::fifo::{self, Wait};
use super::record::{check_value, fnv1a64, read_bounded, Bounded, FileError, Problem};
use super::schedule::{ShardSpec, SplitRule};
use crate::engine::plan::{UnitPlan, UnitResult};

/// One unit's result in a shard file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitEntry {
    /// Unit id in the plan.
    pub id: u32,
    /// Unweighted solutions of the unit.
    pub solutions: u64,
    /// Search nodes of the unit.
    pub nodes: u64,
    /// Residues mod 13 and 15 of solutions and nodes: `s13/s15,n13/n15`.
    pub check: String,
}

/// A shard file: the results of one shard's units, with what is needed to merge it safely.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardFile {
    /// Always "nqueens-shard".
    pub format: String,
    /// Version of this file format: 2, or [`FORMAT_VERSION`] (3) for a split by bundles.
    pub format_version: u32,
    /// Version of the program that wrote it.
    pub program: String,
    /// Board size.
    pub n: u32,
    /// Unit plan id (hex) the unit ids refer to.
    pub plan_id: String,
    /// Unit plan version.
    pub plan_version: u32,
    /// Number of units in the whole plan.
    pub plan_units: usize,
    /// This shard's index (0-based).
    pub shard_index: u32,
    /// Number of shards in the split.
    pub shard_count: u32,
    /// How the split handed out units ([`SplitRule`]): written only for a split by
    /// bundles (format 3); a file without it was split unit by unit (format 2).
    #[serde(default, skip_serializing_if = "SplitRule::is_units")]
    pub split: SplitRule,
    /// Wall time of the shard's computation, seconds.
    pub seconds: f64,
    /// Worker threads used.
    pub threads: usize,
    /// Per-unit results, by id.
    pub units: Vec<UnitEntry>,
    /// FNV-1a digest (hex) of every other field (format 2; format 1 left out seconds,
    /// threads and the check values).
    pub digest: String,
}

/// Version of the shard file format: 2 has the digest over every field; 3 is 2 with the
/// split rule `bundles` (`"split": "bundles"`, in the digest too). A split unit by unit
/// still writes format 2, so every program that reads format 2 reads those files.
pub const FORMAT_VERSION: u32 = 3;

/// The format of a file of a split by `rule`.
fn format_of(rule: SplitRule) -> u32 {
    match rule {
        SplitRule::Units => 2,
        SplitRule::Bundles => FORMAT_VERSION,
    }
}

/// Bytes a shard file may take per unit it holds: the pretty JSON of one entry with
/// 20-digit counts is about 140 bytes.
const BYTES_PER_ENTRY: u64 = 200;

/// The largest shard file of a plan of `plan_units` units: 4 KiB for the fields and 200
/// bytes per unit (a shard holds at most every unit of its plan).
pub fn size_bound(plan_units: u64) -> u64 {
    4096u64.saturating_add(BYTES_PER_ENTRY.saturating_mul(plan_units))
}

/// The digest of a shard file: every field but the digest itself, in a fixed text form.
fn digest(f: &ShardFile) -> String {
    let mut text = format!(
        "{} {} {} {} {} {} {} {}/{} {:?} {}",
        f.format,
        f.format_version,
        f.program,
        f.n,
        f.plan_id,
        f.plan_version,
        f.plan_units,
        f.shard_index,
        f.shard_count,
        f.seconds.to_bits(),
        f.threads
    );
    if !f.split.is_units() {
        text.push_str(&format!(" split={}", f.split));
    }
    for u in &f.units {
        text.push_str(&format!(
            " {}:{}:{}:{}",
            u.id, u.solutions, u.nodes, u.check
        ));
    }
    format!("{:016x}", fnv1a64(text.as_bytes()))
}

impl ShardFile {
    /// Builds the shard file of `spec`, split by `split`, from its units' results (in id
    /// order).
    pub fn new(
        plan: &UnitPlan,
        spec: ShardSpec,
        split: SplitRule,
        results: &[(u32, UnitResult)],
        seconds: f64,
        threads: usize,
    ) -> ShardFile {
        let units: Vec<UnitEntry> = results
            .iter()
            .map(|&(id, r)| UnitEntry {
                id,
                solutions: r.solutions,
                nodes: r.nodes,
                check: check_value(&r),
            })
            .collect();
        let mut f = ShardFile {
            format: "nqueens-shard".into(),
            format_version: format_of(split),
            program: env!("CARGO_PKG_VERSION").into(),
            n: plan.n(),
            plan_id: plan.id_hex(),
            plan_version: plan.version(),
            plan_units: plan.len(),
            shard_index: spec.index,
            shard_count: spec.count,
            split,
            seconds,
            threads,
            digest: String::new(),
            units,
        };
        f.digest = digest(&f);
        f
    }

    /// Reads and checks one shard file on its own: format, digest, check values and the
    /// ranges of seconds and threads. The file may be a pipe (`merge <(ssh host cat s.json)`);
    /// it is read with a size bound: its first 64 KiB must name n and the plan's units
    /// (`plan_units`, which this program writes before the units), and the whole file may
    /// exceed neither [`size_bound`] of those units nor `max_bytes` (the caller's memory
    /// budget). A FIFO's writer is waited for as `wait` says.
    ///
    /// # Errors
    /// A [`FileError`] naming the file (also when `wait`'s stop flag ended the wait).
    pub fn read(path: &Path, wait: Wait<'_>, max_bytes: u64) -> Result<ShardFile, FileError> {
        let err = |problem, r: String| FileError::new("shard", path, problem, r);
        let corrupt = |r: String| err(Problem::Corrupt, r);
        let file = fifo::open_reader(path, wait).map_err(|e| FileError::io("shard", path, &e))?;
        let text = read_text(file, max_bytes).map_err(|(problem, why)| err(problem, why))?;
        let f: ShardFile = serde_json::from_str(&text)
            .map_err(|e| err(Problem::NotOurs, format!("not a valid shard file: {e}")))?;
        if f.format != "nqueens-shard" || !(2..=FORMAT_VERSION).contains(&f.format_version) {
            return Err(err(Problem::OtherPlan, format!(
                "unsupported format '{}' version {} (this program reads versions 2 and {FORMAT_VERSION}; version 1 came from nqueens before 0.1.1: recompute that shard)",
                f.format, f.format_version
            )));
        }
        if f.format_version != format_of(f.split) {
            return Err(corrupt(format!(
                "format version {} with split '{}': version 2 is split by units, {FORMAT_VERSION} by bundles",
                f.format_version, f.split
            )));
        }
        if f.digest != digest(&f) {
            return Err(corrupt(
                "digest mismatch: the file was edited or corrupted".into(),
            ));
        }
        if !f.seconds.is_finite() || f.seconds < 0.0 || f.seconds > 1e12 {
            return Err(corrupt(format!(
                "seconds {} is out of range: expected a finite time from 0 to 1e12",
                // 1e300 was written out in 301 digits.
                if f.seconds.abs() < 1e6 {
                    f.seconds.to_string()
                } else {
                    format!("{:e}", f.seconds)
                }
            )));
        }
        if f.threads == 0 || f.threads > crate::MAX_THREADS {
            return Err(corrupt(format!(
                "threads {} is out of range: expected 1 to {}",
                f.threads,
                crate::MAX_THREADS
            )));
        }
        for u in &f.units {
            let r = UnitResult {
                solutions: u.solutions,
                nodes: u.nodes,
            };
            if u.check != check_value(&r) {
                return Err(corrupt(format!(
                    "unit {}: check value {} does not match its counts",
                    u.id, u.check
                )));
            }
        }
        Ok(f)
    }
}

/// The whole number after `"key"` and a colon in the head of a JSON text, if any.
fn head_number(text: &str, key: &str) -> Option<u64> {
    let digits: String = text
        .split(&format!("\"{key}\""))
        .nth(1)?
        .trim_start_matches([' ', ':', '\n', '\t', '\r'])
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Reads a shard file's text with the bound of [`ShardFile::read`] ([`read_bounded`]).
///
/// A file of n = 64 with no other field named once made `merge` read up to 53.7 GB (the
/// bound of the largest plan of n = 64) from a FIFO; the head must now name the plan's
/// units too, and the memory budget caps the rest.
fn read_text(mut file: impl Read, max_bytes: u64) -> Result<String, (Problem, String)> {
    const HEAD: u64 = 64 * 1024;
    let limit = |head: &[u8]| {
        let text = String::from_utf8_lossy(head);
        // `"n": 16` in the pretty JSON that `count --out` writes (or `"n":16`).
        let n = head_number(&text, "n").filter(|n| (1..=u64::from(crate::MAX_N)).contains(n));
        let units = head_number(&text, "plan_units");
        match (n, units) {
            (Some(n), Some(units)) => {
                let bound = size_bound(units);
                Ok((n, units, bound.min(max_bytes)))
            }
            _ if (head.len() as u64) < HEAD => Ok((0, 0, HEAD)), // all of it is read: let
            // the JSON parser say what is wrong
            (None, _) => Err(format!(
                "not a shard file: its first {HEAD} bytes name no board size n"
            )),
            (Some(n), None) => Err(format!(
                "not a shard file: its first {HEAD} bytes name n = {n} but not the plan's units (plan_units), which a shard file names before its units"
            )),
        }
    };
    let mut head = (0, 0, 0);
    let bytes = read_bounded(&mut file, HEAD, |h| {
        limit(h).map(|found| {
            head = found;
            found.2
        })
    })
    .map_err(|e| match e {
        Bounded::Io(e) => (Problem::Io(e.kind()), e.to_string()),
        Bounded::Refused(why) => (Problem::NotOurs, why),
        Bounded::TooLarge(limit) => {
            let (n, units, _) = head;
            let why = if limit < size_bound(units) {
                format!("more than the {limit} bytes the memory limit leaves for it (see --max-memory)")
            } else {
                format!("larger than any shard of n = {n} with a plan of {units} units can be ({limit} bytes)")
            };
            (Problem::TooLarge, format!("{why}; refused without reading on"))
        }
    })?;
    String::from_utf8(bytes).map_err(|_| {
        (
            Problem::NotOurs,
            "not a valid shard file: not UTF-8 text".into(),
        )
    })
}
