//! The plain iterative bit-board search over the inner board of a border constellation
//! ([`InnerBoard`], built in `border.rs`). The counts use the interleaved, branch-free version of this search in `lanes.rs`
//! (2.3x faster); this plain loop is what the tests check that one against.
//!
//! The search tracks only the queens it places: `cols`, `diag_down` (shifted left one column
//! per row) and `diag_up` (shifted right), each shifted by the row distance to the next
//! searched row; the border queens are folded into the board's per-row `allowed` masks.

use super::border::InnerBoard;

impl InnerBoard {
    /// Counts the completions: returns `(solutions, nodes)`, where nodes is the number of
    /// queens the search placed (every partial placement it visited, the leaves included).
    #[cfg(test)]
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
    fn border_that_is_a_whole_solution_counts_once() {
        // n = 1: the single queen is on all four borders.
        assert_eq!(InnerBoard::new(1, &[(0, 0)]).count(), (1, 0));
    }
}
