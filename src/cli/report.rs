//! The report of one count, as `count`, `merge` and `count --mpi` print it (a text block,
//! a table row or a JSON line), its comparison with the known table, and the rough time
//! estimate behind the long-run warning.

use std::io::Write;
use std::time::Instant;

use serde::Serialize;

use super::engine::EnginePlan;
use super::error::{Done, Failure, Outcome};
use super::format::{bytes, duration, grouped, si};
use crate::engine::plan::Engine;
use crate::{known, runner, Counts, UnitPlan};

/// How a count compares with the known table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KnownCheck {
    /// Total, unique and orbit breakdown all equal the table.
    Match,
    /// Some value differs from the table.
    Mismatch,
    /// The table stops at n = 27.
    Unknown,
}

impl KnownCheck {
    /// Compares `c` with the table.
    pub fn of(c: &Counts) -> KnownCheck {
        match known::lookup(c.n) {
            None => KnownCheck::Unknown,
            Some(k) => {
                let orbits_ok = c.n == 1
                    || (k.orbits8, k.orbits4, k.orbits2) == (c.orbits8, c.orbits4, c.orbits2);
                if k.total == c.total && k.unique == c.unique && orbits_ok {
                    KnownCheck::Match
                } else {
                    KnownCheck::Mismatch
                }
            }
        }
    }

    fn text(self) -> &'static str {
        match self {
            KnownCheck::Match => "matches the known value",
            KnownCheck::Mismatch => "MISMATCH with the known value",
            KnownCheck::Unknown => "no known value (table ends at n = 27)",
        }
    }
}

/// One count, as printed by `--json`: the counts (n, total, unique, orbits8/4/2, fixed180,
/// fixed90, nodes, pairs_tested; see [`Counts`]) followed by how the count ran.
#[derive(Clone, Debug, Serialize)]
pub struct CountReport {
    /// The counts, as fields of the report itself.
    #[serde(flatten)]
    pub counts: Counts,
    /// Wall time of the count, seconds.
    pub seconds: f64,
    /// Search nodes per second of wall time (backtracking engine; with the quadrant
    /// engine only the F180/F90 searches place queens).
    pub nodes_per_second: f64,
    /// Half-board pattern pairs tested per second of wall time (quadrant engine; 0 with
    /// the backtracking engine).
    pub pairs_per_second: f64,
    /// The engine that computed the total: "quadrant" or "backtrack".
    pub engine: Engine,
    /// Version of the unit plan (2: backtrack, 4: quadrant; `Engine::plan_version`).
    pub plan_version: u32,
    /// Bytes of the quadrant engine's table (its largest allocation; 0 when none was built:
    /// backtracking, or the quadrants were searched).
    pub table_bytes: u64,
    /// Worker threads used.
    pub threads: usize,
    /// Work units in the plan.
    pub units: usize,
    /// Identity of the unit plan (hex).
    pub plan_id: String,
    /// Comparison with the known table: "match", "mismatch" or "unknown".
    pub known: KnownCheck,
    /// What the result rests on: program, plan, shard files and their digests, rechecks.
    pub certificate: Certificate,
}

/// What a result rests on, so that someone else can check it (issue 29: a Q(28) campaign
/// has no known value to compare with): the program and plan that computed it, every
/// shard file merged with its digest, every recheck with its seed, and whether a known
/// value confirmed it. Burnside's identities held, or there would be no report.
#[derive(Clone, Debug, Serialize)]
pub struct Certificate {
    /// Version of the program that printed this report.
    pub program: &'static str,
    /// Board size.
    pub n: u32,
    /// The engine of the plan.
    pub engine: Engine,
    /// Identity of the unit plan (hex).
    pub plan_id: String,
    /// Version of the unit plan.
    pub plan_version: u32,
    /// Units of the plan.
    pub plan_units: usize,
    /// The shard files merged, in the order given (empty for a count of the whole plan).
    pub shards: Vec<ShardRecord>,
    /// The rechecks passed before the result was accepted (a failed one refuses it).
    pub rechecks: Vec<RecheckRecord>,
    /// true: total, unique count and orbits equal the known values (OEIS A000170,
    /// A002562); false: they differ; null: no value is known (n > 27).
    pub known_value_confirms: Option<bool>,
}

/// One shard file of a merged result.
#[derive(Clone, Debug, Serialize)]
pub struct ShardRecord {
    /// The file, as given on the command line.
    pub file: String,
    /// Its shard, K/M.
    pub shard: String,
    /// Its FNV-1a digest (hex) over every other field.
    pub digest: String,
    /// Version of the program that wrote it.
    pub program: String,
    /// Units it holds.
    pub units: usize,
    /// Its wall time, seconds.
    pub seconds: f64,
    /// Its worker threads.
    pub threads: usize,
}

/// One recheck a merged result passed.
#[derive(Clone, Debug, Serialize)]
pub struct RecheckRecord {
    /// "engine" (`--recheck`: the units recomputed by the engine) or "independent"
    /// (`--recheck --independent`: recounted by the plain recount).
    pub method: &'static str,
    /// Percent of each file's units asked for.
    pub percent: f64,
    /// Seed of the choice (repeat it with --seed).
    pub seed: u64,
    /// Units recomputed.
    pub units: usize,
    /// Units whose result differed (always 0: a difference refuses the merge).
    pub differing: usize,
}

impl Certificate {
    /// The certificate of a count of `plan` with result `c`, no shards and no rechecks.
    pub fn of(c: &Counts, plan: &UnitPlan) -> Certificate {
        Certificate {
            program: env!("CARGO_PKG_VERSION"),
            n: plan.n(),
            engine: plan.engine(),
            plan_id: plan.id_hex(),
            plan_version: plan.version(),
            plan_units: plan.len(),
            shards: Vec::new(),
            rechecks: Vec::new(),
            known_value_confirms: match KnownCheck::of(c) {
                KnownCheck::Match => Some(true),
                KnownCheck::Mismatch => Some(false),
                KnownCheck::Unknown => None,
            },
        }
    }
}

impl CountReport {
    /// Builds the report of a finished count.
    pub fn new(c: &Counts, plan: &UnitPlan, seconds: f64, threads: usize) -> CountReport {
        CountReport {
            counts: *c,
            seconds,
            nodes_per_second: 0.0,
            pairs_per_second: 0.0,
            engine: plan.engine(),
            plan_version: plan.version(),
            table_bytes: 0,
            threads,
            units: plan.len(),
            plan_id: plan.id_hex(),
            known: KnownCheck::of(c),
            certificate: Certificate::of(c, plan),
        }
        .with_speed(c.nodes, c.pairs_tested)
    }

    /// Sets the speeds from the work this run computed (a resumed count took the rest from
    /// its checkpoint, in an earlier run's time).
    pub fn with_speed(mut self, nodes_this_run: u128, pairs_this_run: u128) -> CountReport {
        let per_second = |x: u128| {
            if self.seconds > 0.0 {
                x as f64 / self.seconds
            } else {
                0.0
            }
        };
        self.nodes_per_second = per_second(nodes_this_run);
        self.pairs_per_second = per_second(pairs_this_run);
        self
    }

    /// Records the size of the quadrant table the count used.
    pub fn with_table(mut self, bytes: u64) -> CountReport {
        self.table_bytes = bytes;
        self
    }

    /// The multi-line text block for a single count.
    pub fn text_block(&self) -> String {
        let mut s = String::new();
        let orbits = if self.counts.n == 1 {
            "one orbit of size 1".to_string()
        } else {
            format!(
                "size 8: {}   size 4: {}   size 2: {}",
                grouped(self.counts.orbits8),
                grouped(self.counts.orbits4),
                grouped(self.counts.orbits2)
            )
        };
        let labels = self.engine.labels();
        let table = match labels.no_table {
            Some(_) if self.table_bytes > 0 => format!("; table {}", bytes(self.table_bytes)),
            Some(none) => format!("; {none}"),
            None => String::new(),
        };
        let engine = format!("{} ({}{table})", self.engine.name(), labels.method);
        let mut rows = vec![
            ("n", self.counts.n.to_string()),
            ("total", grouped(self.counts.total)),
            ("unique", grouped(self.counts.unique)),
            ("orbits", orbits),
            ("engine", engine),
        ];
        if let Some(work) = labels.work_apart {
            rows.push((
                self.engine.work(),
                format!("{} {work}", grouped(self.counts.pairs_tested)),
            ));
            rows.push((
                "nodes",
                format!("{} (the F180/F90 searches)", grouped(self.counts.nodes)),
            ));
        } else {
            rows.push(("nodes", grouped(self.counts.nodes)));
        }
        rows.push(("time", duration(self.seconds)));
        let per_second = match labels.work_apart {
            Some(_) => self.pairs_per_second,
            None => self.nodes_per_second,
        };
        rows.push((
            "speed",
            format!("{}{}/s", si(per_second), self.engine.work()),
        ));
        rows.extend([
            ("threads", self.threads.to_string()),
            (
                "units",
                format!("{} (plan {})", grouped(self.units as u128), self.plan_id),
            ),
            ("known", self.known.text().to_string()),
        ]);
        for (k, v) in rows {
            s.push_str(&format!("{k:<8} {v}\n"));
        }
        s
    }

    /// The header of the one-row-per-n table.
    pub fn table_header() -> String {
        format!(
            "{:>3} {:>20} {:>19} {:>19} {:>8} {:>7} {:>20} {:>10}  {}",
            "n", "total", "unique", "orbits8", "orbits4", "orbits2", "nodes", "seconds", "known"
        )
    }

    /// The one-line message of a count that disagrees with the known table.
    pub fn mismatch_line(&self) -> String {
        let c = &self.counts;
        let known = crate::known::lookup(c.n).map_or(String::new(), |k| {
            format!(" (known: total {}, unique {})", k.total, k.unique)
        });
        format!(
            "n = {}: the count disagrees with the known value: total {}, unique {}{known}",
            c.n, c.total, c.unique
        )
    }

    /// One row of the table.
    pub fn table_row(&self) -> String {
        let known = match self.known {
            KnownCheck::Match => "ok",
            KnownCheck::Mismatch => "MISMATCH",
            KnownCheck::Unknown => "-",
        };
        format!(
            "{:>3} {:>20} {:>19} {:>19} {:>8} {:>7} {:>20} {:>10.3}  {}",
            self.counts.n,
            grouped(self.counts.total),
            grouped(self.counts.unique),
            grouped(self.counts.orbits8),
            grouped(self.counts.orbits4),
            grouped(self.counts.orbits2),
            grouped(self.counts.nodes),
            self.seconds,
            known
        )
    }
}

/// Rough wall time of a count on `threads` threads, for the long-run warning: the engine's
/// own time model ([`Engine::cpu_seconds`]) shared by all threads.
pub fn estimate_seconds(n: u32, threads: usize, engine: Engine) -> f64 {
    engine.cpu_seconds(n) / threads as f64
}

/// Counts one size with `engine` on `threads` threads and times it (plan building and the
/// quadrant table included).
///
/// # Errors
/// [`Failure::CheckFailed`] for a broken symmetry identity (a wrong count); any other
/// failure to count.
pub fn timed_count(
    n: u32,
    threads: usize,
    chosen: &EnginePlan,
) -> Result<(Counts, UnitPlan, f64), Failure> {
    let start = Instant::now();
    let plan = chosen
        .plan(n, &crate::engine::NEVER)?
        .expect("never stopped");
    let counts = runner::local::count_plan_with(&plan, threads, &chosen.config)?;
    Ok((counts, plan, start.elapsed().as_secs_f64()))
}

/// The report of a finished session (`count N`, `count N --mpi`), printed: its counts, its
/// speed over the work this run did (not what it resumed), the table it used (`count
/// --mpi`: the largest a computing rank built). A failed check on a mismatch with the table.
pub fn print_run(run: &runner::session::Run, table_bytes: u64, json: bool) -> Outcome {
    let counts = run.counts()?;
    let report = CountReport::new(&counts, &run.plan, run.seconds, run.threads)
        .with_speed(
            counts.nodes - run.resumed.nodes,
            counts.pairs_tested - run.resumed.pairs,
        )
        .with_table(table_bytes);
    print_single(&report, json, &mut super::error::stdout())
}

/// Prints one count's report (text block or JSON line); a failed check on a mismatch with
/// the table.
pub fn print_single(report: &CountReport, json: bool, out: &mut impl Write) -> Outcome {
    let text = if json {
        serde_json::to_string(report)? + "\n"
    } else {
        report.text_block()
    };
    let written = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    if report.known == KnownCheck::Mismatch {
        // The report on stdout says it too, but a script that reads only the exit code and
        // stderr (or sends stdout to a file, or closes the pipe early) must see why it
        // failed: exit 1 even when the report could not be written.
        return Err(Failure::check(report.mismatch_line()));
    }
    written?;
    Ok(Done::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_are_finite_and_small_for_small_boards() {
        for n in 1..=16 {
            let secs = estimate_seconds(n, 1, Engine::named("backtrack").unwrap());
            assert!(secs.is_finite() && secs <= 0.7, "n = {n}: {secs}");
        }
        assert!(estimate_seconds(64, 1, Engine::named("backtrack").unwrap()).is_finite());
    }

    #[test]
    fn quadrant_warnings_grow_with_n_and_match_the_estimates() {
        // n = 22 on 2 threads: 25 min, as `estimate 22 -t 2` measured 2,944 s of CPU
        // (src/engine/quadrant/model.rs, 2026-12-05, the Intel Xeon refit); 2.8 h before
        // the 2026-12-03 refits, 49 min after them, 42 min on 2026-12-04, 32 min after
        // `set::Swap` (Zen 4).
        let h = estimate_seconds(22, 2, Engine::named("quadrant").unwrap()) / 3600.0;
        assert!((0.37..0.45).contains(&h), "{h}");
        for n in 16..28 {
            assert!(
                estimate_seconds(n + 1, 1, Engine::named("quadrant").unwrap())
                    > estimate_seconds(n, 1, Engine::named("quadrant").unwrap())
            );
        }
    }
}
