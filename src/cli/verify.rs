//! `nqueens verify`: counts n = 1..MAX and checks each row three ways: the known table
//! (A000170, A002562, orbit breakdown), Burnside's identities (checked inside every count),
//! and for n <= 10 the independent reference solver. `verify N --units K` instead counts K
//! random units of N's plan twice, with the engine and with the plain recount
//! (`engine::recount`), and compares them unit by unit: the check that reaches the
//! frontier, where no known value does.

use std::io::Write;

use serde::Serialize;

use super::args::EngineArgs;
use super::error::{say, Done, Failure, Outcome};
use super::format::{fine_duration, grouped};
use super::options::{clock_seed, UnitsCheck, VerifyMode, VerifyOptions};
use super::report::{timed_count, KnownCheck};
use super::session;
use crate::reference;
use crate::runner::recount::{self, Compared};

/// Largest n checked against the reference solver (10! = 3.6 million permutations).
pub const REFERENCE_MAX: u32 = 10;

/// Runs `verify`.
pub fn run(o: &VerifyOptions) -> Outcome {
    let threads = o.threads;
    match &o.mode {
        VerifyMode::Table { max } => verify_table(*max, threads, &o.engine),
        VerifyMode::Units(u) => verify_units(u, threads, &o.engine),
        VerifyMode::Bfile {
            path,
            sequence,
            max,
        } => super::bfile::verify(path, *sequence, *max, threads, &o.engine),
    }
}

/// `verify [--max MAX]`: one row per n = 1..=MAX, each checked three ways.
fn verify_table(max: u32, threads: usize, engine: &EngineArgs) -> Outcome {
    let mut out = super::error::stdout();
    writeln!(
        out,
        "{:>3} {:>20} {:>19} {:>9} {:>9} {:>9}  status",
        "n", "total", "unique", "burnside", "reference", "known"
    )?;
    let mut bad = 0;
    for n in 1..=max {
        // Burnside's identities are checked inside every count; a failure is a failed check
        // there. Any other error (the OS refusing threads) is no failed check: it ends the run.
        let chosen = engine.resolve(n, threads)?;
        let (burnside, counts) = match timed_count(n, threads, &chosen) {
            Ok((c, _, _)) => ("ok", Some(c)),
            Err(Failure::CheckFailed(why)) => {
                say!("n = {n}: {}", why.as_deref().unwrap_or("a check failed"));
                ("FAILED", None)
            }
            Err(e) => return Err(e),
        };
        let (total, unique, known, refc) = match &counts {
            Some(c) => {
                let known = KnownCheck::of(c);
                let refc = if n <= REFERENCE_MAX {
                    let r = reference::count(n as usize);
                    let agree = u128::from(r.total) == c.total && u128::from(r.unique) == c.unique;
                    if agree {
                        "ok"
                    } else {
                        "MISMATCH"
                    }
                } else {
                    "-"
                };
                (grouped(c.total), grouped(c.unique), known, refc)
            }
            None => ("?".into(), "?".into(), KnownCheck::Unknown, "-"),
        };
        let known_s = match known {
            KnownCheck::Match => "ok",
            KnownCheck::Mismatch => "MISMATCH",
            KnownCheck::Unknown => "-",
        };
        let row_ok = burnside == "ok" && refc != "MISMATCH" && known != KnownCheck::Mismatch;
        if !row_ok {
            bad += 1;
        }
        let status = if row_ok { "ok" } else { "MISMATCH" };
        writeln!(
            out,
            "{n:>3} {total:>20} {unique:>19} {burnside:>9} {refc:>9} {known_s:>9}  {status}"
        )?;
        out.flush()?;
    }
    if bad > 0 {
        writeln!(out, "{bad} of {max} rows failed")?;
        out.flush()?;
        // Said on stderr too, for scripts that keep only the exit code and stderr.
        Err(Failure::check(format!(
            "verify: {bad} of {max} rows failed"
        )))
    } else {
        writeln!(out, "all {max} rows ok")?;
        Ok(Done::Ok)
    }
}

/// One unit of `verify N --units K`, as `--json` prints it.
#[derive(Serialize)]
struct UnitCheck {
    /// Unit id.
    id: u32,
    /// "quadrant", "border", "fixed180" or "fixed90".
    kind: &'static str,
    /// Quadrant units: the frame's index.
    frame: Option<u16>,
    /// Quadrant units: the prefix (bit i: the frame's free row i is east).
    prefix: Option<u32>,
    /// Quadrant units: sets E the plain recount counted (weight above 0).
    sets: Option<u32>,
    /// The engine's solutions (weighted as the unit reports them).
    engine_solutions: u64,
    /// The plain recount's.
    plain_solutions: u64,
    /// Queens the plain recount placed (its work; the engine's work figure is of another
    /// kind and not compared).
    plain_nodes: u64,
    /// Wall seconds the engine took, one thread.
    engine_seconds: f64,
    /// Wall seconds the plain recount took, one thread.
    plain_seconds: f64,
    /// CPU seconds of the engine's thread for the unit.
    engine_cpu_seconds: f64,
    /// CPU seconds of the plain recount's thread.
    plain_cpu_seconds: f64,
    /// Both found the same solutions.
    agree: bool,
}

/// `verify N --units K --json`.
#[derive(Serialize)]
struct UnitsReport {
    /// Board size.
    n: u32,
    /// The plan's engine.
    engine: crate::Engine,
    /// Plan id (hex).
    plan_id: String,
    /// Plan version.
    plan_version: u32,
    /// Units in the plan.
    plan_units: usize,
    /// Seed of the draw.
    seed: u64,
    /// `--cheapest`: the share of the cheapest units drawn from, percent (null: all).
    cheapest_percent: Option<f64>,
    /// Version of this program.
    program: &'static str,
    /// The units, in the order drawn.
    units: Vec<UnitCheck>,
    /// Every unit agrees.
    agree: bool,
}

fn unit_check(c: &Compared) -> UnitCheck {
    let (frame, prefix, sets) = match c.unit.kind.frame_and_prefix() {
        Some((frame, prefix)) => (Some(frame), Some(prefix), Some(c.plain.sets)),
        None => (None, None, None),
    };
    UnitCheck {
        id: c.unit.id,
        kind: c.unit.kind.name(),
        frame,
        prefix,
        sets,
        engine_solutions: c.engine.solutions,
        plain_solutions: c.plain.solutions,
        plain_nodes: c.plain.nodes,
        engine_seconds: c.engine_time.wall,
        plain_seconds: c.plain_time.wall,
        engine_cpu_seconds: c.engine_time.cpu,
        plain_cpu_seconds: c.plain_time.cpu,
        agree: c.agrees(),
    }
}

fn unit_line(u: &UnitCheck) -> String {
    let opt = |x: Option<u64>| x.map_or("-".to_string(), |v| v.to_string());
    format!(
        "{:>9} {:<8} {:>5} {:>10} {:>4} {:>20} {:>20} {:>10} {:>10}  {}",
        u.id,
        u.kind,
        opt(u.frame.map(u64::from)),
        u.prefix.map_or("-".to_string(), |p| format!("{p:#x}")),
        opt(u.sets.map(u64::from)),
        grouped(u128::from(u.engine_solutions)),
        grouped(u128::from(u.plain_solutions)),
        fine_duration(u.engine_cpu_seconds),
        fine_duration(u.plain_cpu_seconds),
        if u.agree { "ok" } else { "DIFFERS" }
    )
}

/// `verify N --units K`: K units drawn from N's plan, counted by the engine and by the
/// plain recount, compared unit by unit.
fn verify_units(a: &UnitsCheck, threads: usize, engine: &EngineArgs) -> Outcome {
    let (n, k) = (a.n, a.units);
    let chosen = engine.resolve(n, threads)?;
    let stop = session::stop_flag();
    let Some(plan) = chosen.plan(n, stop)? else {
        return Ok(session::stopped_early());
    };
    let seed = a.seed.unwrap_or_else(|| {
        let s = clock_seed();
        say!("nqueens: drawing units with --seed {s}");
        s
    });
    if n >= 26 && a.cheapest.is_none() {
        say!("nqueens: warning: a random unit of n = {n} takes hours or more to recount plainly; --cheapest draws among the cheapest 1%");
    }
    let Some(units) = recount::draw(&plan, k, seed, a.cheapest, stop) else {
        return Ok(session::stopped_early());
    };
    let mut out = super::error::stdout();
    let among = match a.cheapest {
        Some(p) => format!("among the cheapest {p}% by the plan's cost estimate"),
        None => "among all units".to_string(),
    };
    if !a.json {
        writeln!(
            out,
            "n = {n}: plan {} ({} engine, version {}, {} units); {} unit{} drawn with --seed {seed} {among}",
            plan.id_hex(),
            plan.engine().name(),
            plan.version(),
            grouped(plan.len() as u128),
            units.len(),
            if units.len() == 1 { "" } else { "s" }
        )?;
        writeln!(
            out,
            "{:>9} {:<8} {:>5} {:>10} {:>4} {:>20} {:>20} {:>10} {:>10}  status",
            "unit",
            "kind",
            "frame",
            "prefix",
            "sets",
            "engine solutions",
            "plain solutions",
            "engine cpu",
            "plain cpu"
        )?;
        out.flush()?;
    }
    drop(out); // the workers print each unit as it finishes
    let compared = recount::compare(&plan, &units, threads, &chosen.config, stop, |c| {
        if !a.json {
            let line = format!("{}\n", unit_line(&unit_check(c)));
            // A closed stdout is reported at the end, by the summary's write.
            let _ = std::io::stdout().write_all(line.as_bytes());
        }
    })?;
    let mut out = super::error::stdout();
    let Some(compared) = compared else {
        say!("nqueens: interrupted: the units finished so far are printed above");
        return Ok(Done::Interrupted);
    };
    let checks: Vec<UnitCheck> = compared.iter().map(unit_check).collect();
    let differing: Vec<(u32, u64, u64)> = checks
        .iter()
        .filter(|c| !c.agree)
        .map(|c| (c.id, c.engine_solutions, c.plain_solutions))
        .collect();
    if a.json {
        let report = UnitsReport {
            n,
            engine: plan.engine(),
            plan_id: plan.id_hex(),
            plan_version: plan.version(),
            plan_units: plan.len(),
            seed,
            cheapest_percent: a.cheapest,
            program: env!("CARGO_PKG_VERSION"),
            agree: differing.is_empty(),
            units: checks,
        };
        writeln!(out, "{}", serde_json::to_string(&report)?)?;
    } else {
        let mean = |f: fn(&Compared) -> f64| {
            compared.iter().map(f).sum::<f64>() / compared.len().max(1) as f64
        };
        let (engine, plain) = (mean(|c| c.engine_time.cpu), mean(|c| c.plain_time.cpu));
        writeln!(
            out,
            "{} of {} units agree; mean CPU time a unit: engine {}, plain recount {} ({:.1}x)",
            compared.len() - differing.len(),
            compared.len(),
            fine_duration(engine),
            fine_duration(plain),
            plain / engine.max(1e-9)
        )?;
    }
    out.flush()?;
    if let Some(&(id, engine, plain)) = differing.first() {
        // Said on stderr too, for scripts that keep only the exit code and stderr.
        return Err(Failure::check(format!(
            "verify: {} of {} units differ (first: unit {id}, engine {engine} solutions, plain recount {plain})",
            differing.len(),
            compared.len(),
        )));
    }
    Ok(Done::Ok)
}
