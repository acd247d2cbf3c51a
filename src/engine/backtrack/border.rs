//! Border constellations (the backtracking engine's unit geometry) and the inner board a
//! constellation leaves to search: which rows are searched, which cells each may use, how far
//! apart they are. Pure geometry; the searches over it are `kernel.rs` (plain) and `lanes.rs`
//! (interleaved), run through `engine::exec`.
//!
//! A unit pre-places the four border queens (row 0, row n-1, column 0, column n-1; see
//! `plan.rs`). What is left is to place one queen in each remaining row `1..n-1` except the
//! rows of the left and right queens, in the columns that no border queen uses. The border
//! queens never move, so the cells they attack in each inner row are a constant per row; we
//! fold them into one `allowed` mask per depth, computed once per unit. A skipped row is just
//! a longer shift: the masks move by the row distance between consecutive searched rows, 2
//! when the left or right queen's row lies between them.
//!
//! Worked example, n = 8, border queens at (0,3), (7,4), (2,0), (5,7): searched rows are
//! 1, 3, 4, 6 (4 queens in the 4 free columns 1, 2, 5, 6), shifts 2, 1, 2. Row 1's allowed
//! mask drops columns 0, 7, 3, 4 (used), 2 and 4 (diagonals of (0,3)), 1 (of (2,0)), and
//! 3 (of (5,7)): 0b0110_0000 = columns 5 and 6.

use crate::engine::board::{columns, row_mask};
use crate::engine::symmetry::Transform;
use crate::engine::Error;

/// The precomputed shape of one constellation's inner search.
#[derive(Clone, Debug)]
pub struct InnerBoard {
    /// Number of rows to fill (depths `0..rows`).
    pub(crate) rows: usize,
    /// The board row of depth 0 (0 if there is no row to search).
    first_row: usize,
    /// Per depth: the cells of that row not attacked by a border queen and not in a column a
    /// border queen holds.
    pub(crate) allowed: [u64; 64],
    /// Per depth `d`: the row distance from depth `d` to depth `d + 1` (1, 2 or 3).
    pub(crate) shift: [u32; 64],
    /// The same two tables indexed by stack level (`depth + 1`; level 0 is the empty
    /// stack), the layout the interleaved search in `lanes.rs` uses.
    pub(crate) allowed_by_level: [u64; 64],
    pub(crate) shift_by_level: [u32; 64],
}

/// A cell on an n×n board.
pub type Cell = (usize, usize);

impl InnerBoard {
    /// Builds the inner search for `n` with the given border queens (already checked to be
    /// one queen per border line and non-attacking).
    ///
    /// # Panics
    /// If `n` is 0 or above 64 (the masks are `u64`).
    pub fn new(n: usize, border: &[Cell]) -> InnerBoard {
        assert!((1..=64).contains(&n), "board size {n} outside 1..=64");
        let board = row_mask(n);
        let mut used_cols = 0u64;
        for &(_, c) in border {
            used_cols |= 1 << c;
        }
        let searched: Vec<usize> = (1..n.saturating_sub(1))
            .filter(|&r| border.iter().all(|&(qr, _)| qr != r))
            .collect();
        let mut allowed = [0u64; 64];
        let mut shift = [0u32; 64];
        for (d, &r) in searched.iter().enumerate() {
            let mut blocked = used_cols;
            for &(qr, qc) in border {
                let dist = r.abs_diff(qr);
                if qc + dist < n {
                    blocked |= 1 << (qc + dist);
                }
                if qc >= dist {
                    blocked |= 1 << (qc - dist);
                }
            }
            allowed[d] = board & !blocked;
            if let Some(&next) = searched.get(d + 1) {
                shift[d] = (next - r) as u32;
            }
        }
        let mut allowed_by_level = [0u64; 64];
        let mut shift_by_level = [0u32; 64];
        allowed_by_level[1..].copy_from_slice(&allowed[..63]);
        shift_by_level[1..].copy_from_slice(&shift[..63]);
        let first_row = searched.first().copied().unwrap_or(0);
        InnerBoard {
            rows: searched.len(),
            first_row,
            allowed,
            shift,
            allowed_by_level,
            shift_by_level,
        }
    }

    /// True if both boards search the same rows with the same allowed cells.
    #[cfg(test)]
    pub(crate) fn same_as(&self, other: &InnerBoard) -> bool {
        self.rows == other.rows && self.allowed == other.allowed && self.shift == other.shift
    }

    /// Number of rows the search fills.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The board row the search starts in.
    pub fn first_row(&self) -> usize {
        self.first_row
    }

    /// The cells the first searched row may use (empty if there is no row to search).
    pub fn first_choices(&self) -> u64 {
        if self.rows == 0 {
            0
        } else {
            self.allowed[0]
        }
    }
}

/// The four border queens of a solution: the column of the queen in row 0 (`top`) and in row
/// n-1 (`bottom`), the row of the queen in column 0 (`left`) and in column n-1 (`right`).
/// The backtracking engine's units ([`crate::UnitKind::Border`]) each fix one.
///
/// ```
/// use nqueens::{Engine, Tally, UnitKind, UnitPlan};
/// let plan = UnitPlan::with_engine(8, Engine::Backtrack);
/// let mut tally = Tally::default();
/// for u in plan.units() {
///     if let UnitKind::Border { border, .. } = u.kind {
///         // A corner queen sits in a row and a column at once.
///         assert!(border.top < 8 && border.bottom < 8 && border.left < 8 && border.right < 8);
///     }
///     tally.add(&u.kind, &u.run(8));
/// }
/// assert_eq!(tally.finish(&plan)?.total, 92);
/// # Ok::<(), nqueens::Error>(())
/// ```
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
    pub(crate) fn cells(&self, n: usize) -> Vec<Cell> {
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
    pub(crate) fn search_board(&self, n: usize) -> InnerBoard {
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

/// One border unit: its border, the column of the first searched row's queen (None when
/// no row is left to search), and the border's orbit size. The plan makes it a
/// `UnitKind::Border` (this module does not know the plan's types: the plan uses it).
pub type BorderUnit = (Border, Option<u8>, u8);

/// The border units of the plan for `n`, in plan order: canonical borders in ascending
/// `(top, bottom, left, right)` and, within a border, one unit per queen of the first
/// searched row, by column (a border with no free cell there has no completion and no unit;
/// n = 1 has one unit with no row to search).
pub fn border_units(
    n: usize,
    stopped: impl Fn() -> bool,
    push: &mut impl FnMut(BorderUnit) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut result = Ok(());
    canonical_borders(n, &stopped, &mut |border| {
        let stabilizer = Transform::ALL
            .iter()
            .filter(|&&t| border.image(n, t) == border)
            .count();
        let weight = (8 / stabilizer) as u8;
        let board = border.search_board(n);
        let units = (board.rows() == 0).then_some(None).into_iter();
        let firsts = columns(board.first_choices()).map(|c| Some(c as u8));
        result = units
            .chain(firsts)
            .try_for_each(|first| push((border, first, weight)));
        result.is_ok()
    });
    result?;
    if stopped() {
        return Err(Error::Stopped);
    }
    Ok(())
}

/// Calls `visit` with every valid border constellation that is the smallest of its 8
/// images, in ascending order, until it returns false or `stopped()` (read once per top
/// queen: n^3 borders apart, a tenth of a second at n = 64).
fn canonical_borders(
    n: usize,
    stopped: &impl Fn() -> bool,
    visit: &mut impl FnMut(Border) -> bool,
) {
    let range = 0..n as u8;
    for top in range.clone() {
        if stopped() {
            return;
        }
        for bottom in range.clone() {
            for left in range.clone() {
                for right in range.clone() {
                    let b = Border {
                        top,
                        bottom,
                        left,
                        right,
                    };
                    if b.is_valid(n)
                        && Transform::ALL.iter().all(|&t| b.image(n, t) >= b)
                        && !visit(b)
                    {
                        return;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_example_in_module_doc() {
        let b = InnerBoard::new(8, &[(0, 3), (7, 4), (2, 0), (5, 7)]);
        assert_eq!(b.rows, 4);
        assert_eq!(&b.shift[..3], &[2, 1, 2]);
        assert_eq!(b.allowed[0], 0b0110_0000);
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
            let mut borders = Vec::new();
            canonical_borders(n, &|| false, &mut |b| {
                borders.push(b);
                true
            });
            let weighted: usize = borders
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
}
