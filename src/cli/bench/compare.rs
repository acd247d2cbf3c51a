//! `nqueens bench --compare A.json B.json`: two `bench --json` reports side by side,
//! machine A against machine B. (It was `scripts/compare-bench.py`, which users of
//! `cargo install` do not have; the script stays for the repository's own use and prints the
//! same tables.)
//!
//! For every test (board size n on a thread count) present in both reports: the two median
//! wall times and the ratio A / B, i.e. how many times faster B is (2.00x: B takes half the
//! time; 0.50x: B is twice as slow). Then the same for the whole workload on each thread
//! count, the single- and multi-thread scores (ratio B / A, the same sense), and overall the
//! geometric mean of the per-test ratios. Reports of another workload or program version
//! are compared all the same, with a warning on stderr (their scores do not compare).
//!
//! The reports are read as JSON values, field by field, so a report of another version of
//! the program is read as far as it has the fields used here; each file is read with a
//! bound ([`MAX_BYTES`]).

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::Path;

use anyhow::{anyhow, bail, Context};
use serde_json::Value;

use crate::cli::error::say;
use crate::cli::error::{Done, Outcome};
use crate::runner::shown;

/// The `report_format` of the reports this reads.
const REPORT_FORMAT: u64 = 1;

/// Largest report read: 16 MiB (a report of a 1,000-thread sweep is about 1 MB).
const MAX_BYTES: u64 = 16 << 20;

/// One report and the name of its file, for messages.
struct Report {
    name: String,
    json: Value,
}

impl Report {
    /// Reads and checks the report at `path`.
    fn read(path: &Path) -> anyhow::Result<Report> {
        let name = shown::path(path);
        let cannot = |why: String| anyhow!("cannot read {name}: {why}");
        if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            return Err(cannot("it is a directory".into()));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| cannot(e.to_string()))?;
        if bytes.len() as u64 > MAX_BYTES {
            return Err(cannot(format!(
                "larger than {} MiB: not a bench report",
                MAX_BYTES >> 20
            )));
        }
        let json: Value = serde_json::from_slice(&bytes)
            .map_err(|e| cannot(format!("{e} (a nqueens bench --json report?)")))?;
        let format = json.get("report_format");
        if format.and_then(Value::as_u64) != Some(REPORT_FORMAT) {
            return Err(cannot(format!(
                "report_format is {}, expected {REPORT_FORMAT} (a nqueens bench --json report)",
                format.map_or("missing".to_string(), |v| shown::value(&v.to_string()))
            )));
        }
        Ok(Report { name, json })
    }

    /// The value at `path` (fields joined by '.'), or an error naming it.
    fn at<'a>(&self, v: &'a Value, path: &str) -> anyhow::Result<&'a Value> {
        path.split('.')
            .try_fold(v, |v, key| v.get(key))
            .ok_or_else(|| anyhow!("cannot read {}: no field '{path}'", self.name))
    }

    fn num(&self, v: &Value, path: &str) -> anyhow::Result<f64> {
        self.at(v, path)?
            .as_f64()
            .ok_or_else(|| anyhow!("cannot read {}: '{path}' is not a number", self.name))
    }

    fn whole(&self, v: &Value, path: &str) -> anyhow::Result<u64> {
        self.at(v, path)?
            .as_u64()
            .ok_or_else(|| anyhow!("cannot read {}: '{path}' is not a whole number", self.name))
    }

    fn text(&self, path: &str) -> anyhow::Result<String> {
        let v = self.at(&self.json, path)?;
        Ok(shown::value(&match v.as_str() {
            Some(s) => s.to_string(),
            None => v.to_string(),
        }))
    }

    fn list(&self, path: &str) -> anyhow::Result<&Vec<Value>> {
        self.at(&self.json, path)?
            .as_array()
            .ok_or_else(|| anyhow!("cannot read {}: '{path}' is not a list", self.name))
    }

    /// The first line about the report: "A: CPU, cores, program, workload, runs".
    fn describe(&self, label: &str) -> anyhow::Result<String> {
        Ok(format!(
            "{label}: {}, {} logical / {} physical cores, {}, workload {}, {} runs",
            self.text("machine.cpu_model")?,
            self.text("machine.logical_cores")?,
            self.text("machine.physical_cores")?,
            self.text("machine.program")?,
            self.text("workload.id")?,
            self.text("runs")?
        ))
    }

    /// The tests, as ((n, threads), median seconds).
    fn tests(&self) -> anyhow::Result<Vec<((u64, u64), f64)>> {
        self.list("tests")?
            .iter()
            .map(|t| {
                Ok((
                    (self.whole(t, "n")?, self.whole(t, "threads")?),
                    self.num(t, "time.median_seconds")?,
                ))
            })
            .collect()
    }
}

/// `a / b` as "2.00x", or "-" when it means nothing (a time of 0 or a missing figure).
fn ratio(a: f64, b: f64) -> Option<f64> {
    let r = a / b;
    (r.is_finite() && r > 0.0).then_some(r)
}

fn ratio_text(r: Option<f64>) -> String {
    r.map_or("-".to_string(), |r| format!("{r:.2}x"))
}

/// The comparison of `a` and `b` as text; warnings about what does not compare go to
/// `warn`.
fn compare(a: &Report, b: &Report, warn: &mut dyn FnMut(String)) -> anyhow::Result<String> {
    let (wa, wb) = (a.text("workload.id")?, b.text("workload.id")?);
    if wa != wb {
        warn(format!(
            "different workloads ({wa} vs {wb}): scores are not comparable, matching tests are"
        ));
    }
    let (pa, pb) = (a.text("machine.program")?, b.text("machine.program")?);
    if pa != pb {
        warn(format!(
            "different programs ({pa} vs {pb}): differences may come from the engine, not the CPU"
        ));
    }
    for (label, r) in [("A", a), ("B", b)] {
        if let Some(list) = r.json.get("warnings").and_then(Value::as_array) {
            for w in list {
                // Whole (a shown value is cut at 100 characters), without control or
                // hidden characters (a report is a file from elsewhere).
                let m: String = w
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .chars()
                    .map(|c| {
                        if c.is_control() || shown::is_hidden(c) {
                            '?'
                        } else {
                            c
                        }
                    })
                    .collect();
                warn(format!("{label}: {m}"));
            }
        }
    }
    let mut s = String::new();
    writeln!(s, "{}", a.describe("A")?)?;
    writeln!(s, "{}", b.describe("B")?)?;
    writeln!(s)?;
    writeln!(
        s,
        "{:<22} {:>11} {:>11} {:>8}",
        "test", "A median s", "B median s", "A/B"
    )?;
    let (ta, tb) = (a.tests()?, b.tests()?);
    let mut ratios = Vec::new();
    for &((n, threads), x) in &ta {
        let Some(&(_, y)) = tb.iter().find(|(k, _)| *k == (n, threads)) else {
            writeln!(s, "n={n} threads={threads:<9} only in A")?;
            continue;
        };
        let r = ratio(x, y);
        ratios.extend(r);
        let label = format!("n={n} threads={threads}");
        writeln!(s, "{label:<22} {x:>11.4} {y:>11.4} {:>8}", ratio_text(r))?;
    }
    let mut only_b: Vec<(u64, u64)> = tb
        .iter()
        .map(|&(k, _)| k)
        .filter(|k| !ta.iter().any(|(j, _)| j == k))
        .collect();
    only_b.sort_unstable();
    for (n, threads) in only_b {
        writeln!(s, "n={n} threads={threads:<9} only in B")?;
    }
    if ratios.is_empty() {
        bail!(
            "{} and {} have no test in common (same n on the same thread count)",
            a.name,
            b.name
        );
    }
    writeln!(s)?;
    writeln!(
        s,
        "{:<22} {:>11} {:>11} {:>8}",
        "workload", "A median s", "B median s", "A/B"
    )?;
    let scaling_b = b.list("scaling")?;
    for row in a.list("scaling")? {
        let threads = a.whole(row, "threads")?;
        let other = scaling_b
            .iter()
            .find(|r| b.whole(r, "threads").ok() == Some(threads));
        if let Some(other) = other {
            let (x, y) = (
                a.num(row, "time.median_seconds")?,
                b.num(other, "time.median_seconds")?,
            );
            let label = format!("threads={threads}");
            writeln!(
                s,
                "{label:<22} {x:>11.4} {y:>11.4} {:>8}",
                ratio_text(ratio(x, y))
            )?;
        }
    }
    writeln!(s)?;
    writeln!(
        s,
        "{:<22} {:>11} {:>11} {:>8}",
        "score (runs/hour)", "A", "B", "B/A"
    )?;
    let (sa, sb) = (
        a.num(&a.json, "single_thread_score")?,
        b.num(&b.json, "single_thread_score")?,
    );
    writeln!(
        s,
        "{:<22} {sa:>11.1} {sb:>11.1} {:>8}",
        "single-thread",
        ratio_text(ratio(sb, sa))
    )?;
    let (ma, mb) = (
        a.num(&a.json, "multi_thread_score")?,
        b.num(&b.json, "multi_thread_score")?,
    );
    let label = format!(
        "multi-thread ({}/{})",
        a.text("multi_threads")?,
        b.text("multi_threads")?
    );
    writeln!(
        s,
        "{label:<22} {ma:>11.1} {mb:>11.1} {:>8}",
        ratio_text(ratio(mb, ma))
    )?;
    let (ua, ub) = (a.num(&a.json, "speedup")?, b.num(&b.json, "speedup")?);
    writeln!(
        s,
        "{:<22} {:>11} {:>11}",
        "speed-up",
        format!("{ua:.2}x"),
        format!("{ub:.2}x")
    )?;
    let (ea, eb) = (a.num(&a.json, "efficiency")?, b.num(&b.json, "efficiency")?);
    writeln!(
        s,
        "{:<22} {:>10.1}% {:>10.1}%",
        "parallel efficiency",
        ea * 100.0,
        eb * 100.0
    )?;
    writeln!(s)?;
    let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
    writeln!(
        s,
        "overall: B is {geo:.2}x as fast as A (geometric mean of {} test ratios A/B)",
        ratios.len()
    )?;
    Ok(s)
}

/// Runs `bench --compare A B`: the comparison on stdout, warnings on stderr.
///
/// # Errors
/// A report that cannot be read (not a file, not JSON, not a bench report, a field
/// missing), or two reports with no test in common: exit code 2.
pub fn run(a: &Path, b: &Path) -> Outcome {
    let (a, b) = (Report::read(a)?, Report::read(b)?);
    let text = compare(&a, &b, &mut |w| say!("warning: {w}")).context("bench --compare")?;
    let mut out = crate::cli::error::stdout();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(Done::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Report {
        Report::read(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures")
                .join(name),
        )
        .unwrap()
    }

    #[test]
    fn a_report_against_itself_is_1x_everywhere() {
        let a = fixture("bench-a.json");
        let mut warnings = Vec::new();
        let text = compare(&a, &a, &mut |w| warnings.push(w)).unwrap();
        assert!(
            text.contains("overall: B is 1.00x as fast as A (geometric mean of 2 test ratios A/B)"),
            "{text}"
        );
        assert!(!text.contains("only in"), "{text}");
        assert!(warnings
            .iter()
            .all(|w| w.starts_with("A: ") || w.starts_with("B: ")));
    }

    #[test]
    fn ratios_of_nothing_are_dashes() {
        assert_eq!(ratio_text(ratio(1.0, 0.0)), "-");
        assert_eq!(ratio_text(ratio(0.0, 1.0)), "-");
        assert_eq!(ratio_text(ratio(1.0, 2.0)), "0.50x");
    }
}
