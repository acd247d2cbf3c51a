//! The backtracking engine: bit-board backtracking over border constellations. Its plan
//! (version 2) has one unit per canonical border constellation and first-row queen
//! (`plan.rs` explains why that is exact), weighted by the constellation's orbit size; a
//! batch of its units runs interleaved in the lanes kernel.
//!
//! - `border`: the constellations and the inner board each leaves to search;
//! - `lanes`: the interleaved, branch-free search the counts use;
//! - `kernel`: the plain search the tests check the lanes against.
//!
//! What the rest of the engine asks of it (through `Engine`, `exec` and `cost`): its units,
//! a batch's results, a unit's cost estimate, and its time model.

pub mod border;
pub mod kernel;
pub mod lanes;

use std::sync::atomic::{AtomicBool, Ordering};

use border::{border_units, Border, InnerBoard};
use lanes::{count_tasks, Task};

use super::board::{columns, DiagBoard};
use super::engines::Labels;
use super::known;
use super::plan::{Unit, UnitKind, UnitResult};
use super::symmetry::Transform;
use super::{Error, Isa};

/// Version of the backtracking engine's splitting rule. Bump it whenever units, their order
/// or their weights change: checkpoints and shards record it (through the plan id) and
/// refuse to mix plans.
pub(crate) const PLAN_VERSION: u32 = 2;

/// How reports name the backtracking engine's figures.
pub(crate) const LABELS: Labels = Labels {
    method: "border constellations",
    units: "border",
    estimate: "nodes",
    work_apart: None,
    no_table: None,
    phases: false,
};

/// Pushes the border units of n's plan, in plan order (see `border::border_units`).
pub(crate) fn plan_units(
    n: u32,
    stop: &AtomicBool,
    push: &mut impl FnMut(UnitKind) -> Result<(), Error>,
) -> Result<(), Error> {
    let stopped = || stop.load(Ordering::Relaxed);
    border_units(n as usize, stopped, &mut |(border, first, weight)| {
        push(UnitKind::Border {
            border,
            first,
            weight,
        })
    })
}

/// The border units of a batch, as work for the lanes kernel. Consecutive units of one
/// border share its board: it is built once.
#[derive(Default)]
pub(crate) struct BorderBatch {
    boards: Vec<(Border, InnerBoard)>,
    /// Per unit: its board (index into `boards`) and its first-row column mask.
    firsts: Vec<(usize, u64)>,
}

impl BorderBatch {
    /// The border units of `units`, in order (the other kinds are left out).
    pub(crate) fn of(n: usize, units: &[Unit]) -> BorderBatch {
        let mut batch = BorderBatch::default();
        for u in units {
            if let UnitKind::Border { border, first, .. } = u.kind {
                batch.push(n, border, first);
            }
        }
        batch
    }

    fn push(&mut self, n: usize, border: Border, first: Option<u8>) {
        if self.boards.last().is_none_or(|(b, _)| *b != border) {
            self.boards.push((border, border.search_board(n)));
        }
        // One column, or every column when there is no row to search (n = 1).
        let mask = first.map_or(u64::MAX, |c| 1 << c);
        self.firsts.push((self.boards.len() - 1, mask));
    }

    /// Runs the batch's units interleaved; their results in order, or None if `stop` was
    /// raised first.
    pub(crate) fn run(&self, isa: Isa, stop: &AtomicBool) -> Option<Vec<UnitResult>> {
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

/// Inner rows the probe of [`estimate`] searches before extrapolating.
pub const PROBE_ROWS: usize = 3;

/// Growth per inner row below the probe.
pub const GROWTH: f64 = 2.0;

/// The cost estimate of a border unit, in estimated search nodes (see `cost`'s module doc).
///
/// A border unit's search places one queen per inner row. Its cost is dominated by how many
/// partial placements survive the first rows and how much room they leave below. So we run
/// the unit's search for the first [`PROBE_ROWS`] inner rows only and weigh each surviving
/// placement by the free cells it leaves in every deeper row (zero if a row has none: that
/// subtree is dead; else the fourth root of the product of the free counts), then scale by
/// [`GROWTH`] per row not probed (units with a corner queen have one more inner row):
///
/// `estimate = scale(n) · Σ_live (Π_rows free)^(1/4) · GROWTH^(rows − PROBE_ROWS)`
///
/// A unit is one first-row queen of a border (plan version 2): the probe starts below it,
/// on the half-turned board the kernel searches.
pub(crate) fn estimate(n: usize, unit: &Unit) -> f64 {
    // Probe the board the kernel searches: the half-turned one (see
    // `Border::search_board`), with the unit's first-row queen placed.
    let queens: Vec<(usize, usize)> = unit
        .preplaced(n)
        .into_iter()
        .map(|cell| Transform::Rot180.apply(n, cell))
        .collect();
    if n < 3 {
        return 1.0;
    }
    let rows: Vec<usize> = (1..n - 1)
        .filter(|&r| queens.iter().all(|&(qr, _)| qr != r))
        .collect();
    let mut board = DiagBoard::new(n);
    for &q in &queens {
        board = board.place(q);
    }
    let depth = PROBE_ROWS.min(rows.len());
    let weight = probe(&board, &rows[..depth], &rows[depth..]);
    // Calibration: the sum over a plan is within a factor 2 of the real nodes, n = 12..16.
    let scale = 0.0144 * 0.6f64.powi(n as i32 - 16);
    scale * weight * GROWTH.powi((rows.len() - depth) as i32)
}

/// Sums over the placements of one queen per row of `probe` the weight of what they leave:
/// 0 if a row of `rest` has no free cell, else the fourth root of the product of the free
/// counts of the rows of `rest`.
fn probe(board: &DiagBoard, probe_rows: &[usize], rest: &[usize]) -> f64 {
    let Some((&r, deeper)) = probe_rows.split_first() else {
        let mut w = 1.0;
        for &r in rest {
            let f = board.free(r).count_ones();
            if f == 0 {
                return 0.0;
            }
            w *= f64::from(f);
        }
        return w.sqrt().sqrt();
    };
    let mut total = 0.0;
    for c in columns(board.free(r)) {
        total += probe(&board.place((r, c)), deeper, rest);
    }
    total
}

/// Rough CPU seconds of a whole backtracking count of n, calibrated on a 2-core Xeon
/// (Sapphire Rapids class): n = 16 takes 0.7 s on one thread; from there the time grows
/// like the number of solutions (see [`scaled_from_16`]).
pub(crate) fn cpu_seconds(n: u32) -> f64 {
    scaled_from_16(0.7, n)
}

/// A time of `secs16` at n = 16 carried to n by the known table's ratios Q(n)/Q(n-1) (6.5
/// at n = 17 rising to 10.5 at n = 27), and by 10.6 per n beyond the table (8 per n below
/// n = 16 where a ratio is undefined). Shared by the engines' models outside their
/// measured ranges.
pub(crate) fn scaled_from_16(secs16: f64, n: u32) -> f64 {
    let mut secs = secs16;
    for k in 17..=n {
        secs *= match (known::lookup(k), known::lookup(k - 1)) {
            (Some(a), Some(b)) => a.total as f64 / b.total as f64,
            _ => 10.6,
        };
    }
    for k in (n + 1..=16).rev() {
        secs /= match (known::lookup(k), known::lookup(k - 1)) {
            // Q(2) = Q(3) = 0: a ratio of 0 would divide by zero (n = 1 was "inf years").
            (Some(a), Some(b)) if a.total > 0 && b.total > 0 => a.total as f64 / b.total as f64,
            _ => 8.0,
        };
    }
    secs
}

/// Rough seconds of one unit of the backtracking plan of n on one core: about 23 µs at
/// n = 16 on one Xeon core and about 6x more per n (the count grows ~8x per n, the number
/// of units ~1.4x).
pub(crate) fn unit_seconds(n: u32) -> f64 {
    23e-6 * 6f64.powi(n as i32 - 16)
}
