//! Counting the solutions fixed by the half turn (F180) and by the quarter turn (F90).
//!
//! Burnside's lemma needs them: for n > 1 no solution is fixed by a reflection, so
//! `unique = (total + 2·F90 + F180) / 8` (the quarter turn and its inverse fix the same
//! solutions). A fixed solution is determined by a fraction of its queens, so these are small
//! searches next to the total: a 180°-symmetric solution by its top ⌊n/2⌋ rows (the queen at
//! (r, c) brings its twin at (n-1-r, n-1-c)), a 90°-symmetric one by a quarter of its queens.
//!
//! For F180 the diagonals are kept as sets of diagonal indices in a `u128` (the shared
//! [`DiagBoard`]), because the twins land in rows far below the current one.

use super::board::{columns, DiagBoard};

/// Number of 180°-symmetric solutions of size `n` whose row-0 queen is in column `first`.
///
/// Returns `(solutions, nodes)`.
pub(crate) fn count_fixed180(n: usize, first: usize) -> (u64, u64) {
    debug_assert!((1..=64).contains(&n) && first < n);
    let half = n / 2;
    if half == 0 {
        // n = 1: row 0 is the centre row; the lone queen is its own twin.
        return (u64::from(first == 0), 1);
    }
    let mut state = Half { half, nodes: 0 };
    // A queen and its twin must not attack each other: same anti-diagonal iff r + c = n - 1,
    // same diagonal iff r = c. Marking those two index values as taken forbids exactly that.
    // For odd n the centre cell must hold a queen (the middle row's queen is its own twin),
    // and its two diagonals are those same two indices.
    let mut board = DiagBoard::new(n);
    if n % 2 == 1 {
        board.cols |= 1 << half;
    }
    board.anti |= 1 << (n - 1);
    board.diag |= 1 << (n - 1);
    if board.free(0) & (1 << first) == 0 {
        return (0, 0);
    }
    let board = Half::place(board, 0, first);
    state.nodes += 1;
    let solutions = state.rows_from(1, board);
    (solutions, state.nodes)
}

struct Half {
    half: usize,
    nodes: u64,
}

impl Half {
    /// Places (r, c) and its twin (n-1-r, n-1-c).
    fn place(board: DiagBoard, r: usize, c: usize) -> DiagBoard {
        let m = board.n - 1;
        board.place((r, c)).place((m - r, m - c))
    }

    fn rows_from(&mut self, r: usize, board: DiagBoard) -> u64 {
        if r == self.half {
            return 1;
        }
        let mut solutions = 0;
        for c in columns(board.free(r)) {
            self.nodes += 1;
            solutions += self.rows_from(r + 1, Half::place(board, r, c));
        }
        solutions
    }
}

/// Number of 90°-symmetric solutions of size `n`. Returns `(solutions, nodes)`.
///
/// The quarter turn moves (r, c) to (c, n-1-r), so queens come in orbits of 4 cells (the
/// centre of an odd board is its own orbit and must hold a queen). Such solutions exist only
/// for n ≡ 0 or 1 (mod 4). The search fills rows top to bottom; placing a queen places its
/// whole orbit, so later rows are often already filled.
pub(crate) fn count_fixed90(n: usize) -> (u64, u64) {
    debug_assert!((1..=64).contains(&n));
    if n % 4 == 2 || n % 4 == 3 {
        return (0, 0);
    }
    let mut s = Quarter {
        n,
        row_of: vec![usize::MAX; n],
        col_used: vec![false; n],
        down: vec![false; 2 * n],
        up: vec![false; 2 * n],
        nodes: 0,
    };
    if n % 2 == 1 {
        let m = n / 2;
        s.set((m, m), true);
    }
    let solutions = s.rows_from(0);
    (solutions, s.nodes)
}

struct Quarter {
    n: usize,
    /// `row_of[r]`: the column of row r's queen, or `usize::MAX`.
    row_of: Vec<usize>,
    col_used: Vec<bool>,
    down: Vec<bool>,
    up: Vec<bool>,
    nodes: u64,
}

impl Quarter {
    fn orbit(&self, (r, c): (usize, usize)) -> [(usize, usize); 4] {
        let m = self.n - 1;
        [(r, c), (c, m - r), (m - r, m - c), (m - c, r)]
    }

    fn set(&mut self, (r, c): (usize, usize), on: bool) {
        self.row_of[r] = if on { c } else { usize::MAX };
        self.col_used[c] = on;
        self.down[c + self.n - 1 - r] = on;
        self.up[r + c] = on;
    }

    fn is_free(&self, (r, c): (usize, usize)) -> bool {
        self.row_of[r] == usize::MAX
            && !self.col_used[c]
            && !self.down[c + self.n - 1 - r]
            && !self.up[r + c]
    }

    fn rows_from(&mut self, mut r: usize) -> u64 {
        while r < self.n && self.row_of[r] != usize::MAX {
            r += 1;
        }
        if r == self.n {
            return 1;
        }
        let mut solutions = 0;
        for c in 0..self.n {
            let orbit = self.orbit((r, c));
            // Place the 4 cells one by one so that two cells of the orbit that attack each
            // other are caught too.
            let mut placed = 0;
            while placed < 4 && self.is_free(orbit[placed]) {
                self.set(orbit[placed], true);
                placed += 1;
            }
            if placed == 4 {
                self.nodes += 1;
                solutions += self.rows_from(r + 1);
            }
            for &cell in orbit[..placed].iter().rev() {
                self.set(cell, false);
            }
        }
        solutions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::known;

    fn fixed180(n: usize) -> u64 {
        (0..n).map(|c| count_fixed180(n, c).0).sum()
    }

    #[test]
    fn fixed_counts_match_the_orbit_table() {
        for n in 2..=14 {
            let k = known::lookup(n as u32).expect("n <= 27");
            assert_eq!(
                u128::from(count_fixed90(n).0),
                2 * k.orbits2,
                "F90, n = {n}"
            );
            assert_eq!(
                u128::from(fixed180(n)),
                4 * k.orbits4 + 2 * k.orbits2,
                "F180, n = {n}"
            );
        }
    }

    #[test]
    fn single_queen_board_is_fixed_by_both_turns() {
        assert_eq!(fixed180(1), 1);
        assert_eq!(count_fixed90(1).0, 1);
    }
}
