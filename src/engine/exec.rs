//! The unit dispatcher: runs units of a plan whatever their kind. Every runner (the local
//! pool, MPI ranks, `merge --recheck`) calls this module and nothing below it, so runners never
//! know which engine or kernel computed a unit.
//!
//! A batch of units is split by kind: the border units together go to the interleaved lanes
//! kernel (`lanes.rs`), which keeps its lanes busy across units; the small symmetric searches
//! (`symmetric.rs`) run one by one. A new engine plugs in with its unit kinds in
//! [`UnitKind`] and one arm in [`run_batch_with`].

use std::sync::atomic::{AtomicBool, Ordering};

use super::border::{Border, InnerBoard};
use super::lanes::{count_tasks, Task};
use super::plan::{Unit, UnitKind, UnitResult};
use super::quadrant;
use super::symmetric::{count_fixed180, count_fixed90};
use super::{Config, Isa};

/// Runs a batch of units of the plan for `n` under the caller's `config` (the quadrant
/// table's limit, the instruction set), returning one result per unit in order, or `None` if
/// `stop` was raised before the batch finished (nothing of it is then reported).
pub fn run_batch_with(
    n: usize,
    units: &[Unit],
    config: &Config,
    stop: &AtomicBool,
) -> Option<Vec<UnitResult>> {
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut borders = BorderBatch::default();
    for u in units {
        if let UnitKind::Border { border, first, .. } = u.kind {
            borders.push(n, border, first);
        }
    }
    let mut border_results = borders.run(config.isa, stop)?.into_iter();
    let quadrant = match units
        .iter()
        .any(|u| matches!(u.kind, UnitKind::Quadrant { .. }))
    {
        true => Some(quadrant::context_until(n as u32, config, stop)?),
        false => None,
    };
    let mut scratch = quadrant::Scratch::new(config.isa);
    let solo = |(solutions, nodes): (u64, u64)| {
        (!stop.load(Ordering::Relaxed)).then_some(UnitResult { solutions, nodes })
    };
    units
        .iter()
        .map(|u| match u.kind {
            UnitKind::Border { .. } => border_results.next(),
            UnitKind::Fixed180 { col } => solo(count_fixed180(n, col as usize)),
            UnitKind::Fixed90 => solo(count_fixed90(n)),
            UnitKind::Quadrant { frame, prefix } => {
                let ctx = quadrant
                    .as_ref()
                    .expect("built for a batch with quadrant units");
                let r = ctx.run_unit(frame, prefix, &mut scratch, stop)?;
                solo((r.solutions, r.tested))
            }
        })
        .collect()
}

/// Builds what `units` share before any of them runs (the quadrant context, with its
/// table, for a batch with quadrant units), so that a caller timing units one by one does
/// not charge the first with it; None if `stop` was raised first.
pub fn prepare_with(n: usize, units: &[Unit], config: &Config, stop: &AtomicBool) -> Option<()> {
    if units
        .iter()
        .any(|u| matches!(u.kind, UnitKind::Quadrant { .. }))
    {
        quadrant::context_until(n as u32, config, stop)?;
    }
    Some(())
}

/// Runs one unit, giving up (None) soon after `stop` becomes true.
pub fn run_until(n: usize, unit: &Unit, stop: &AtomicBool) -> Option<UnitResult> {
    run_until_with(n, unit, &Config::default(), stop)
}

/// [`run_until`] under the caller's `config`.
pub fn run_until_with(
    n: usize,
    unit: &Unit,
    config: &Config,
    stop: &AtomicBool,
) -> Option<UnitResult> {
    run_batch_with(n, std::slice::from_ref(unit), config, stop).map(|r| r[0])
}

impl Unit {
    /// Runs the unit's search to the end. Pure computation; safe to call from any thread.
    pub fn run(&self, n: usize) -> UnitResult {
        run_until(n, self, &AtomicBool::new(false)).expect("never stopped")
    }
}

/// The border units of a batch, as work for the lanes kernel. Consecutive units of one
/// border share its board: it is built once.
#[derive(Default)]
struct BorderBatch {
    boards: Vec<(Border, InnerBoard)>,
    /// Per unit: its board (index into `boards`) and its first-row column mask.
    firsts: Vec<(usize, u64)>,
}

impl BorderBatch {
    fn push(&mut self, n: usize, border: Border, first: Option<u8>) {
        if self.boards.last().is_none_or(|(b, _)| *b != border) {
            self.boards.push((border, border.search_board(n)));
        }
        // One column, or every column when there is no row to search (n = 1).
        let mask = first.map_or(u64::MAX, |c| 1 << c);
        self.firsts.push((self.boards.len() - 1, mask));
    }

    fn run(&self, isa: Isa, stop: &AtomicBool) -> Option<Vec<UnitResult>> {
        let tasks: Vec<Task> = self
            .firsts
            .iter()
            .map(|&(b, first)| (&self.boards[b].1, first))
            .collect();
        let found = count_tasks(&tasks, isa, stop)?;
        Some(
            found
                .into_iter()
                .map(|(solutions, nodes)| UnitResult { solutions, nodes })
                .collect(),
        )
    }
}

/// [`run_batch_with`] with the default configuration.
#[cfg(test)]
pub fn run_batch(n: usize, units: &[Unit], stop: &AtomicBool) -> Option<Vec<UnitResult>> {
    run_batch_with(n, units, &Config::default(), stop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plan::UnitPlan;

    #[test]
    fn a_batch_equals_its_units_run_alone() {
        let plan = UnitPlan::new(9);
        let never = AtomicBool::new(false);
        let batch = run_batch(9, plan.units(), &never).unwrap();
        for (u, r) in plan.units().iter().zip(&batch) {
            assert_eq!(u.run(9), *r, "{u:?}");
        }
    }

    #[test]
    fn raised_stop_runs_nothing() {
        let plan = UnitPlan::new(8);
        assert_eq!(run_batch(8, plan.units(), &AtomicBool::new(true)), None);
    }
}
