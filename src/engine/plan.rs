//! The unit plan: a deterministic list of independent subproblems for one n, the seam
//! between the engine and every runner (local pool, checkpoints, shards, MPI).
//!
//! # How the work is split, and why it is exact
//!
//! Every solution (n >= 2) has exactly one queen on each border line: row 0, row n-1,
//! column 0 and column n-1 (a corner queen sits on two lines, and at most one corner is
//! taken, since any two corners share a line or a diagonal). Those four positions are the
//! solution's *border constellation*. The 8 symmetries of the square permute constellations,
//! and a symmetry maps the solutions with constellation C one-to-one onto those with its
//! image. So we keep one constellation per orbit, the lexicographically smallest image of
//! `(top, bottom, left, right)`, count its completions once, and weigh the count by the orbit
//! size `8 / |stabilizer|`:
//!
//! `total = Σ over canonical C of (8 / |Stab C|) · completions(C)`.
//!
//! This gives the total with 8-fold symmetry and no checks at the leaves. The unique count
//! comes from Burnside with two small extra searches (F180 and F90, see `symmetric.rs`),
//! which are units of the plan too.
//!
//! # Granularity
//!
//! A border is split further by the queen of the first row the kernel searches: one unit
//! per free cell there. Worked numbers: n = 16 has 3,206 canonical borders (3,157 of orbit
//! size 8, 42 of size 4, 7 of size 2) and 27,860 units (with the 16 half-turn units and the
//! quarter-turn unit), about 435 per thread on 64 cores; the largest unit holds 0.037% of
//! the 210 million nodes. n = 20 has 119,330 units, n = 27 has 748,029.

use super::kernel::{Cell, InnerBoard};
use super::lanes::count_tasks;
use super::symmetric::{count_fixed180, count_fixed90};
use super::symmetry::Transform;

/// Version of the splitting rule. Bump it whenever units, their order or their weights
/// change: checkpoints and shards record it (through the plan id) and refuse to mix plans.
pub const PLAN_VERSION: u32 = 2;

/// The four border queens of a solution: the column of the queen in row 0 (`top`) and in row
/// n-1 (`bottom`), the row of the queen in column 0 (`left`) and in column n-1 (`right`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Border {
    /// Column of the row-0 queen.
    pub top: u8,
    /// Column of the row-(n-1) queen.
    pub bottom: u8,
    /// Row of the column-0 queen.
    pub left: u8,
    /// Row of the column-(n-1) queen.
    pub right: u8,
}

impl Border {
    /// The distinct queens of this border (3 when a corner is taken, else 4).
    pub fn cells(&self, n: usize) -> Vec<Cell> {
        let m = n - 1;
        let mut cells = vec![
            (0, self.top as usize),
            (m, self.bottom as usize),
            (self.left as usize, 0),
            (self.right as usize, m),
        ];
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    /// The board the kernel searches for this (canonical) border: its half-turn image.
    ///
    /// Every image of a border has the same number of completions, so any one may be
    /// searched; they differ in cost. The canonical border has its queen nearest a corner in
    /// row 0, and a queen near a corner constrains few rows (one of its diagonals leaves the
    /// board at once). The search prunes best when its first rows are the constrained ones,
    /// so we turn the board upside down and meet that weak queen last. Measured: 0.61x the
    /// nodes of the upright search at n = 14, 15 and 16 (the best of all 8 images would be
    /// 0.57x).
    pub fn search_board(&self, n: usize) -> InnerBoard {
        InnerBoard::new(n, &self.image(n, Transform::Rot180).cells(n))
    }

    /// Reads the border back from a set of cells that has one queen on each border line.
    fn from_cells(n: usize, cells: &[Cell]) -> Border {
        let m = n - 1;
        let find = |pred: &dyn Fn(&Cell) -> bool, pick: fn(&Cell) -> usize| -> u8 {
            pick(
                cells
                    .iter()
                    .find(|c| pred(c))
                    .expect("one queen per border line"),
            ) as u8
        };
        Border {
            top: find(&|&(r, _)| r == 0, |&(_, c)| c),
            bottom: find(&|&(r, _)| r == m, |&(_, c)| c),
            left: find(&|&(_, c)| c == 0, |&(r, _)| r),
            right: find(&|&(_, c)| c == m, |&(r, _)| r),
        }
    }

    /// Whether these positions can be the border of a solution: each corner queen is shared
    /// by both of its lines, and no two distinct queens attack each other.
    fn is_valid(&self, n: usize) -> bool {
        let m = n - 1;
        let (t, b, l, r) = (
            self.top as usize,
            self.bottom as usize,
            self.left as usize,
            self.right as usize,
        );
        // A corner cell lies on two border lines; both must name that same queen.
        if (t == 0) != (l == 0)
            || (t == m) != (r == 0)
            || (b == 0) != (l == m)
            || (b == m) != (r == m)
        {
            return false;
        }
        let cells = self.cells(n);
        cells.iter().enumerate().all(|(i, &(r1, c1))| {
            cells[i + 1..]
                .iter()
                .all(|&(r2, c2)| r1 != r2 && c1 != c2 && r1.abs_diff(r2) != c1.abs_diff(c2))
        })
    }

    /// The border of the image of a solution with this border under `t`.
    pub fn image(&self, n: usize, t: Transform) -> Border {
        let cells: Vec<Cell> = self.cells(n).into_iter().map(|x| t.apply(n, x)).collect();
        Border::from_cells(n, &cells)
    }
}

/// What a unit computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnitKind {
    /// The completions of one canonical border constellation whose first searched row has
    /// its queen in column `first`, counted `weight` times (2, 4 or 8: the size of the
    /// border's orbit; 1 for n = 1).
    Border {
        /// The pre-placed border queens.
        border: Border,
        /// Column of the queen in the first row the kernel searches, on the searched
        /// (half-turned) board: see [`Border::search_board`] and [`Unit::preplaced`]. None
        /// when no row is left to search (n = 1).
        first: Option<u8>,
        /// Orbit size of the constellation: how many times its completions count.
        weight: u8,
    },
    /// The 180°-symmetric solutions whose row-0 queen is in column `col` (for F180).
    Fixed180 {
        /// Column of the row-0 queen.
        col: u8,
    },
    /// All 90°-symmetric solutions (for F90).
    Fixed90,
}

/// One independent subproblem of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    /// Position in the plan, `0..plan.len()`.
    pub id: u32,
    /// What to compute.
    pub kind: UnitKind,
}

/// What a unit found: raw counts, before any weight is applied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnitResult {
    /// Solutions found by this unit (unweighted).
    pub solutions: u64,
    /// Search nodes visited (queens placed).
    pub nodes: u64,
}

impl Unit {
    /// Runs the unit's search to the end. Pure computation; safe to call from any thread.
    pub fn run(&self, n: usize) -> UnitResult {
        self.run_until(n, &std::sync::atomic::AtomicBool::new(false))
            .expect("never stopped")
    }

    /// Runs the unit's search, giving up (None) soon after `stop` becomes true.
    pub fn run_until(&self, n: usize, stop: &std::sync::atomic::AtomicBool) -> Option<UnitResult> {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let (solutions, nodes) = match self.kind {
            UnitKind::Border { border, first, .. } => {
                // The interleaved kernel, which splits a lone unit by its second row.
                let board = border.search_board(n);
                count_tasks(&[(&board, first_mask(first))], stop)?[0]
            }
            UnitKind::Fixed180 { col } => count_fixed180(n, col as usize),
            UnitKind::Fixed90 => count_fixed90(n),
        };
        Some(UnitResult { solutions, nodes })
    }
}

/// The first-row mask of a border unit: one column, or every column when there is no row.
pub fn first_mask(first: Option<u8>) -> u64 {
    first.map_or(u64::MAX, |c| 1 << c)
}

impl Unit {
    /// The queens this unit places before searching, in the coordinates of the canonical
    /// border (row 0 is the row of `border.top`): the border queens and, for border units,
    /// the queen of the first searched row. Empty for the symmetric-count units.
    pub fn preplaced(&self, n: usize) -> Vec<Cell> {
        match self.kind {
            UnitKind::Border { border, first, .. } => {
                let mut cells = border.cells(n);
                if let Some(c) = first {
                    // The searched board is the half-turned one; turn the cell back.
                    let row = border.search_board(n).first_row();
                    cells.push(Transform::Rot180.apply(n, (row, c as usize)));
                    cells.sort_unstable();
                }
                cells
            }
            _ => Vec::new(),
        }
    }
}

/// The deterministic list of units for one board size.
#[derive(Clone, Debug)]
pub struct UnitPlan {
    n: u32,
    units: Vec<Unit>,
    id: u64,
}

impl UnitPlan {
    /// Builds the plan for `n` (1 <= n <= 64; the caller checks the range, e.g. with
    /// [`crate::check_n`]).
    ///
    /// Order: border units in ascending `(top, bottom, left, right)` and, within a border, by
    /// the column of the first searched row's queen; then the F180 units by column, then the
    /// F90 unit. Size grows like n^5: 27,860 units for n = 16, 748,029 for n = 27, about 94
    /// million (1.1 GB, 8 s to build) for n = 64.
    ///
    /// # Panics
    /// If `n` is 0 or above 64.
    pub fn new(n: u32) -> UnitPlan {
        assert!((1..=64).contains(&n), "board size {n} outside 1..=64");
        let nu = n as usize;
        let mut units = Vec::new();
        let mut push = |kind| {
            let id = units.len() as u32;
            units.push(Unit { id, kind });
        };
        for border in canonical_borders(nu) {
            let stabilizer = Transform::ALL
                .iter()
                .filter(|&&t| border.image(nu, t) == border)
                .count();
            let weight = (8 / stabilizer) as u8;
            let board = border.search_board(nu);
            if board.rows() == 0 {
                push(UnitKind::Border {
                    border,
                    first: None,
                    weight,
                });
            }
            // One unit per queen of the first searched row, in column order. A border with
            // no free cell there has no completion and no unit.
            let mut choices = board.first_choices();
            while choices != 0 {
                let col = choices.trailing_zeros() as u8;
                choices &= choices - 1;
                push(UnitKind::Border {
                    border,
                    first: Some(col),
                    weight,
                });
            }
        }
        for col in 0..n {
            push(UnitKind::Fixed180 { col: col as u8 });
        }
        push(UnitKind::Fixed90);
        let id = plan_hash(n, &units);
        UnitPlan { n, units, id }
    }

    /// The board size.
    pub fn n(&self) -> u32 {
        self.n
    }

    /// The units, in id order.
    pub fn units(&self) -> &[Unit] {
        &self.units
    }

    /// Number of units.
    pub fn len(&self) -> usize {
        self.units.len()
    }

    /// Always false: every plan has its F90 unit at least.
    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    /// The plan's identity: a 64-bit FNV-1a hash of the plan version, n and every unit.
    /// Two plans with the same id split the work the same way.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The plan id as 16 hex digits, as it appears in files.
    pub fn id_hex(&self) -> String {
        format!("{:016x}", self.id)
    }
}

/// Every valid border constellation that is the smallest of its 8 images.
fn canonical_borders(n: usize) -> Vec<Border> {
    let mut out = Vec::new();
    let range = 0..n as u8;
    for top in range.clone() {
        for bottom in range.clone() {
            for left in range.clone() {
                for right in range.clone() {
                    let b = Border {
                        top,
                        bottom,
                        left,
                        right,
                    };
                    if b.is_valid(n) && Transform::ALL.iter().all(|&t| b.image(n, t) >= b) {
                        out.push(b);
                    }
                }
            }
        }
    }
    out
}

/// FNV-1a over a canonical byte encoding of the plan; stable across platforms and builds.
fn plan_hash(n: u32, units: &[Unit]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(b"nqueens-plan");
    eat(&PLAN_VERSION.to_le_bytes());
    eat(&n.to_le_bytes());
    for u in units {
        eat(&u.id.to_le_bytes());
        match u.kind {
            UnitKind::Border {
                border: b,
                first,
                weight,
            } => eat(&[
                0,
                b.top,
                b.bottom,
                b.left,
                b.right,
                first.map_or(255, |c| c),
                weight,
            ]),
            UnitKind::Fixed180 { col } => eat(&[1, col]),
            UnitKind::Fixed90 => eat(&[2]),
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_is_deterministic() {
        let a = UnitPlan::new(12);
        let b = UnitPlan::new(12);
        assert_eq!(a.units(), b.units());
        assert_eq!(a.id(), b.id());
        assert_ne!(a.id(), UnitPlan::new(13).id());
    }

    #[test]
    fn ids_are_positions() {
        for (i, u) in UnitPlan::new(10).units().iter().enumerate() {
            assert_eq!(u.id as usize, i);
        }
    }

    #[test]
    fn border_orbits_cover_every_valid_border_once() {
        // Summing the orbit sizes of the canonical borders gives the number of valid borders.
        for n in 4..=9usize {
            let all = (0..n as u8)
                .flat_map(|t| (0..n as u8).map(move |b| (t, b)))
                .flat_map(|(t, b)| (0..n as u8).map(move |l| (t, b, l)))
                .flat_map(|(t, b, l)| {
                    (0..n as u8).map(move |r| Border {
                        top: t,
                        bottom: b,
                        left: l,
                        right: r,
                    })
                })
                .filter(|b| b.is_valid(n))
                .count();
            let weighted: usize = canonical_borders(n)
                .iter()
                .map(|b| {
                    8 / Transform::ALL
                        .iter()
                        .filter(|&&t| b.image(n, t) == *b)
                        .count()
                })
                .sum();
            assert_eq!(weighted, all, "n = {n}");
        }
    }

    #[test]
    fn preplaced_queens_do_not_attack_each_other() {
        let n = 9;
        for u in UnitPlan::new(n as u32).units() {
            let cells = u.preplaced(n);
            for (i, &(r1, c1)) in cells.iter().enumerate() {
                for &(r2, c2) in &cells[i + 1..] {
                    assert!(
                        r1 != r2 && c1 != c2 && r1.abs_diff(r2) != c1.abs_diff(c2),
                        "{u:?}: {cells:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn n16_plan_is_fine_grained() {
        let plan = UnitPlan::new(16);
        assert!(plan.len() >= 256, "{} units", plan.len());
    }
}
