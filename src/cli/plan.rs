//! `nqueens plan N`: the unit plan for external schedulers (ids, pre-placed queens, weights,
//! estimated costs), and with `--stats` its cost distribution and the makespan that greedy
//! largest-first list scheduling reaches on P workers, from estimated or measured costs.
//! The percentiles and the makespan replay are computed in [`crate::runner::stats`];
//! this file gathers the costs and formats.

use std::io::Write;

use anyhow::bail;
use serde::Serialize;

use super::error::{Done, Outcome};
use super::format::{duration, grouped};
use super::options::PlanOptions;
use super::report::estimate_seconds;
use crate::engine::cost;
use crate::engine::plan::Sum;
use crate::runner::shown;
use crate::runner::stats::{CostSpread, Makespan};
use crate::runner::{checkpoint, schedule};
use crate::UnitPlan;

/// One unit, as printed by `plan --json`.
#[derive(Serialize)]
struct UnitRow {
    /// Unit id.
    id: u32,
    /// "border", "fixed180" or "fixed90".
    kind: &'static str,
    /// Pre-placed queens, (row, column), 0-based.
    queens: Vec<(u8, u8)>,
    /// How many times the unit's solutions count toward its sum.
    weight: u8,
    /// Which sum the unit feeds: "total", "F180" or "F90".
    feeds: &'static str,
    /// Estimated cost, estimated search nodes.
    cost: u64,
}

/// The whole plan, as printed by `plan --json`.
#[derive(Serialize)]
struct PlanOut {
    /// Board size.
    n: u32,
    /// Plan id (hex).
    plan_id: String,
    /// Plan version.
    plan_version: u32,
    /// The units in id order.
    units: Vec<UnitRow>,
}

/// `plan --stats` output.
#[derive(Serialize)]
struct Stats {
    /// Board size.
    n: u32,
    /// Plan id (hex).
    plan_id: String,
    /// Units in the plan.
    units: usize,
    /// Projected CPU seconds of the whole count on one core of the calibration machine
    /// (the start-of-count warning's model; `nqueens estimate` measures this machine).
    projected_cpu_seconds: f64,
    /// Border units.
    border_units: usize,
    /// F180 and F90 units.
    symmetric_units: usize,
    /// "estimated" or "measured" (nodes from a checkpoint).
    costs: &'static str,
    /// Sum of unit costs, nodes.
    total: u128,
    /// Cost percentiles 50, 90, 99 and the maximum, nodes.
    p50: u64,
    /// 90th percentile.
    p90: u64,
    /// 99th percentile.
    p99: u64,
    /// Largest unit.
    max: u64,
    /// Largest unit's share of the total, percent.
    max_share_percent: f64,
    /// Makespan with units handed out largest-estimated-first, as `--mpi` and shards do.
    makespan: Vec<Makespan>,
}

fn unit_row(n: u32, u: &crate::Unit, cost: u64) -> UnitRow {
    let queens = u.listed_queens(n as usize);
    UnitRow {
        id: u.id,
        kind: u.kind.name(),
        queens,
        weight: u.kind.weight(),
        feeds: u.kind.feeds().name(),
        cost,
    }
}

fn stats(plan: &UnitPlan, a: &PlanOptions) -> anyhow::Result<Stats> {
    let order = schedule::largest_first(plan);
    let (costs, what): (Vec<u64>, &'static str) = match &a.costs {
        None => (order.iter().map(|&(_, c)| c).collect(), "estimated"),
        Some(path) => {
            // Compared with this plan from its header on: the plan a file names is never
            // built (issue 30: a header claiming n = 32 built that plan past --max-memory).
            let rec = checkpoint::read(path, plan)?;
            if rec.count() != plan.len() {
                bail!(
                    "checkpoint {} has {} of {} units: finish the count first",
                    shown::path(path),
                    rec.count(),
                    plan.len()
                );
            }
            let measured = order
                .iter()
                .map(|&(u, _)| rec.results[u.id as usize].expect("complete").nodes)
                .collect();
            (measured, "measured")
        }
    };
    let spread = CostSpread::of(&costs);
    let makespan = a
        .workers
        .iter()
        .map(|&w| Makespan::replay(&costs, w))
        .collect();
    let border_units = plan
        .units()
        .iter()
        .filter(|u| u.kind.feeds() == Sum::Total)
        .count();
    Ok(Stats {
        n: plan.n(),
        plan_id: plan.id_hex(),
        units: plan.len(),
        projected_cpu_seconds: estimate_seconds(plan.n(), 1, plan.engine()),
        border_units,
        symmetric_units: plan.len() - border_units,
        costs: what,
        total: spread.total,
        p50: spread.p50,
        p90: spread.p90,
        p99: spread.p99,
        max: spread.max,
        max_share_percent: spread.max_share_percent(),
        makespan,
    })
}

/// Runs `plan`.
pub fn run(a: &PlanOptions) -> Outcome {
    let chosen = a.chosen;
    let engine = chosen.engine;
    // No signal handler here: SIGTERM ends `plan` at once, so nothing need stop it.
    let plan = chosen
        .plan(a.n, &crate::engine::NEVER)?
        .expect("never stopped");
    let mut out = super::error::stdout();
    if a.stats {
        let s = stats(&plan, a)?;
        if a.json {
            writeln!(out, "{}", serde_json::to_string(&s)?)?;
            return Ok(Done::Ok);
        }
        let g = |x: u64| grouped(u128::from(x));
        writeln!(
            out,
            "n = {}: {} units ({} {}, {} F180/F90), plan {} (version {}, {} engine)",
            s.n,
            g(s.units as u64),
            g(s.border_units as u64),
            engine.labels().units,
            s.symmetric_units,
            s.plan_id,
            plan.version(),
            engine.name()
        )?;
        writeln!(
            out,
            "projected CPU time of the whole count: {} on one core of the calibration machine (an Intel Xeon model 167 core; `nqueens estimate {}` measures this one)",
            duration(s.projected_cpu_seconds),
            s.n
        )?;
        writeln!(
            out,
            "{} cost per unit, {}: median {}, p90 {}, p99 {}, max {} ({:.3}% of {})",
            s.costs,
            // An estimate may be in the engine's own unit (node equivalents), not nodes.
            if s.costs == "estimated" {
                engine.labels().estimate
            } else {
                engine.work()
            },
            g(s.p50),
            g(s.p90),
            g(s.p99),
            g(s.max),
            s.max_share_percent,
            grouped(s.total)
        )?;
        writeln!(
            out,
            "largest-first list scheduling ({} costs, units handed out by estimated cost):",
            s.costs
        )?;
        for m in &s.makespan {
            writeln!(
                out,
                "  {:>5} workers: makespan {:>20} {}, efficiency {:5.1}% (bound {:5.1}%)",
                m.workers,
                grouped(m.makespan),
                if s.costs == "estimated" {
                    engine.labels().estimate
                } else {
                    engine.work()
                },
                100.0 * m.efficiency,
                100.0 * m.bound
            )?;
        }
        return Ok(Done::Ok);
    }
    let costs = cost::estimates(&plan);
    let rows: Vec<UnitRow> = plan
        .units()
        .iter()
        .zip(costs)
        .map(|(u, c)| unit_row(a.n, u, c))
        .collect();
    if a.json {
        let p = PlanOut {
            n: a.n,
            plan_id: plan.id_hex(),
            plan_version: plan.version(),
            units: rows,
        };
        writeln!(out, "{}", serde_json::to_string(&p)?)?;
    } else {
        writeln!(out, "# n = {}, plan {} (version {}, {} engine), {} units; queens are (row,col), cost in estimated {}", a.n, plan.id_hex(), plan.version(), engine.name(), plan.len(), engine.labels().estimate)?;
        writeln!(
            out,
            "{:>7}  {:<8}  {:<32} {:>6}  {:>4}  {:>14}",
            "id", "kind", "queens", "weight", "sum", "cost"
        )?;
        for r in rows {
            let q: Vec<String> = r.queens.iter().map(|(r, c)| format!("({r},{c})")).collect();
            writeln!(
                out,
                "{:>7}  {:<8}  {:<32} {:>6}  {:>4}  {:>14}",
                r.id,
                r.kind,
                q.join(" "),
                r.weight,
                r.feeds,
                grouped(u128::from(r.cost))
            )?;
        }
    }
    Ok(Done::Ok)
}
