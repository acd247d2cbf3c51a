//! The inner board of a border constellation, and the plain iterative bit-board search over
//! it. The counts use the interleaved, branch-free version of this search in `lanes.rs`
//! (2.3x faster); this plain loop is what the tests check that one against.
//!
//! A unit pre-places the four border queens (row 0, row n-1, column 0, column n-1; see
//! `plan.rs`). What is left is to place one queen in each remaining row `1..n-1` except the
//! rows of the left and right queens, in the columns that no border queen uses. The border
//! queens never move, so the cells they attack in each inner row are a constant per row; we
//! fold them into one `allowed` mask per depth, computed once per unit. The search itself
//! then tracks only the queens it places: `cols`, `diag_down` (shifted left one column per
//! row) and `diag_up` (shifted right). A skipped row is just a longer shift: the masks move
//! by the row distance between consecutive searched rows, 2 when the left or right queen's
//! row lies between them.
//!
//! Worked example, n = 8, border queens at (0,3), (7,4), (2,0), (5,7): searched rows are
//! 1, 3, 4, 6 (4 queens in the 4 free columns 1, 2, 5, 6), shifts 2, 1, 2. Row 1's allowed
//! mask drops columns 0, 7, 3, 4 (used), 2 and 4 (diagonals of (0,3)), 1 (of (2,0)), and
//! 3 (of (5,7)): 0b0110_0000 = columns 5 and 6.

/// The precomputed shape of one constellation's inner search.
#[derive(Clone, Debug)]
pub struct InnerBoard {
    /// Number of rows to fill (depths `0..rows`).
    pub(crate) rows: usize,
    /// The board row of depth 0 (0 if there is no row to search).
    first_row: usize,
    /// Per depth: the cells of that row not attacked by a border queen and not in a column a
    /// border queen holds.
    allowed: [u64; 64],
    /// Per depth `d`: the row distance from depth `d` to depth `d + 1` (1, 2 or 3).
    shift: [u32; 64],
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
        let board = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
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

    /// Counts the completions: returns `(solutions, nodes)`, where nodes is the number of
    /// queens the search placed (every partial placement it visited, the leaves included).
    pub fn count(&self) -> (u64, u64) {
        self.count_from(u64::MAX)
    }

    /// Counts the completions whose first searched row's queen is in `first` (a column
    /// mask). With no row to search (n = 1), the border alone is the one solution.
    pub fn count_from(&self, first: u64) -> (u64, u64) {
        match self.rows {
            0 => (1, 0),
            1 => {
                let leaves = u64::from((self.allowed[0] & first).count_ones());
                (leaves, leaves)
            }
            _ => self.search(first),
        }
    }

    /// The backtracking loop for two or more rows.
    ///
    /// ```text
    /// free[0] = allowed[0]; d = 0
    /// loop:
    ///   if free[d] empty: pop (stop at d = 0), continue
    ///   take the lowest bit of free[d]; place it; compute the next row's free cells
    ///   if the next row is the last one: add its free count (0 or 1) and stay at d
    ///   else if it has free cells: push
    /// ```
    /// The last row is never pushed: once `rows - 1` queens stand, exactly one column is
    /// left and the answer is whether that cell is free, a popcount of 0 or 1.
    fn search(&self, first: u64) -> (u64, u64) {
        let last = self.rows - 1;
        let mut cols = [0u64; 64];
        let mut diag_down = [0u64; 64];
        let mut diag_up = [0u64; 64];
        let mut free = [0u64; 64];
        let mut solutions = 0u64;
        let mut nodes = 0u64;
        let mut d = 0usize;
        free[0] = self.allowed[0] & first;
        loop {
            let f = free[d];
            if f == 0 {
                if d == 0 {
                    break;
                }
                d -= 1;
                continue;
            }
            let bit = f & f.wrapping_neg(); // lowest free column: 0b0110 -> 0b0010
            free[d] = f ^ bit;
            nodes += 1;
            let s = self.shift[d];
            let c = cols[d] | bit;
            // Diagonals move one column per row; bits pushed past the board edge are
            // dropped by the `allowed` mask (left) or shifted out of the word (right).
            let dd = (diag_down[d] | bit) << s;
            let du = (diag_up[d] | bit) >> s;
            let next = self.allowed[d + 1] & !(c | dd | du);
            if d + 1 == last {
                let leaves = u64::from(next.count_ones());
                solutions += leaves;
                nodes += leaves;
            } else if next != 0 {
                d += 1;
                cols[d] = c;
                diag_down[d] = dd;
                diag_up[d] = du;
                free[d] = next;
            }
        }
        (solutions, nodes)
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
    fn border_that_is_a_whole_solution_counts_once() {
        // n = 1: the single queen is on all four borders.
        assert_eq!(InnerBoard::new(1, &[(0, 0)]).count(), (1, 0));
    }
}
