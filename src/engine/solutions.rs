//! Lazy listings of N-Queens solutions: every solution in lexicographic order, one
//! representative per symmetry class, the backtracking search step by step, and an O(n)
//! validator.
//!
//! The counting engine never looks at a whole solution; learners and tools do. These
//! iterators work like a Python generator: an explicit-stack bit-board backtracking search
//! that stops at each solution, hands it out, and resumes where it left off on the next call.
//! Memory is O(n) whatever the number of solutions (n = 16 has 14,772,512 of them).
//!
//! Sources: the classic bit-board search (columns tried lowest first, so solutions come
//! out in lexicographic order of `perm[row] = col`); the symmetry bounds on the first queen
//! are the "corner distance" argument behind Takaken's method, written out in
//! [`Solutions::unique`].

use super::symmetry::Transform;
use super::Error;

/// The state of one row of the search: what the queens above it attack, and which of its
/// safe columns are still to try. Small and `Copy`, so the hot loop keeps the current row's
/// frame in registers and touches memory only to push or pop a row.
#[derive(Clone, Copy, Debug, Default)]
struct Frame {
    /// Columns holding a queen in the rows above.
    cols: u64,
    /// Cells attacked along down-right diagonals (shifted left one column per row).
    diag_down: u64,
    /// Cells attacked along down-left diagonals (shifted right one column per row).
    diag_up: u64,
    /// Safe columns not yet tried.
    free: u64,
}

impl Frame {
    /// Removes and returns the lowest untried column as a one-bit mask (`free != 0`).
    #[inline(always)]
    fn take_lowest(&mut self) -> u64 {
        debug_assert!(self.free != 0);
        let bit = self.free & self.free.wrapping_neg(); // lowest free column: 0b0110 -> 0b0010
        self.free ^= bit;
        bit
    }

    /// The frame of the row below after a queen goes on `bit`; its columns to try are the
    /// safe ones of `board` that `forbid` does not exclude.
    #[inline(always)]
    fn below(self, bit: u64, board: u64, forbid: u64) -> Frame {
        let cols = self.cols | bit;
        // Both diagonals move one column per row; bits shifted past the board are dropped
        // by the `board` mask (or fall off the end of the u64 for n = 64).
        let diag_down = (self.diag_down | bit) << 1;
        let diag_up = (self.diag_up | bit) >> 1;
        Frame {
            cols,
            diag_down,
            diag_up,
            free: board & !(cols | diag_down | diag_up | forbid),
        }
    }
}

/// The explicit stack shared by [`Solutions`] and [`Steps`]: a frame and a queen's column
/// per row. Fixed arrays of 64 (the largest board) indexed by `row & 63`, which the
/// compiler sees is in bounds, so the hot loop carries no bounds checks.
#[derive(Clone, Debug)]
struct Stack {
    /// Board size.
    n: usize,
    /// The low `n` bits: the columns of the board.
    board: u64,
    /// Per row: the frame as it was when the search left the row (its untried columns).
    frames: [Frame; 64],
    /// Per row: the column of the row's queen (valid for the rows on the board).
    perm: [usize; 64],
}

impl Stack {
    /// The empty board with every column of row 0 still to try.
    fn new(n: usize) -> Stack {
        debug_assert!((1..=64).contains(&n));
        let board = super::board::row_mask(n);
        let mut frames = [Frame::default(); 64];
        frames[0].free = board;
        Stack {
            n,
            board,
            frames,
            perm: [0; 64],
        }
    }

    /// The queens' columns, one per row.
    fn perm(&self) -> &[usize] {
        &self.perm[..self.n]
    }

    /// Takes the lowest untried safe column of `row` and records it as the row's queen, or
    /// returns `None` when the row is exhausted.
    fn take(&mut self, row: usize) -> Option<usize> {
        let frame = &mut self.frames[row & 63];
        if frame.free == 0 {
            return None;
        }
        let col = frame.take_lowest().trailing_zeros() as usize;
        self.perm[row & 63] = col;
        Some(col)
    }

    /// Opens row `row + 1` below the queen of `row`.
    fn descend(&mut self, row: usize) {
        debug_assert!(row + 1 < self.n);
        let bit = 1u64 << self.perm[row & 63];
        self.frames[(row + 1) & 63] = self.frames[row & 63].below(bit, self.board, 0);
    }
}

/// A lazy iterator over the solutions of the n-queens problem, in lexicographic order of
/// `perm[row] = col` (0-based columns).
///
/// Built by [`Solutions::new`] (every solution) or [`Solutions::unique`] (the smallest
/// solution of each symmetry class). Each call resumes the backtracking search where the
/// previous one stopped, so memory stays O(n) and a solution comes as soon as the search
/// reaches it: at once for small n, 0.5 s for n = 30, but more than 5 s for n = 36 and far
/// longer for some larger n (the lexicographically first solution lies behind long dead
/// ends); for one solution of a large board use [`construct`](crate::construct).
/// [`Solutions::next_solution`] lends the solution without allocating; the [`Iterator`]
/// implementation copies it into a `Vec`.
///
/// # Examples
/// ```
/// use nqueens::Solutions;
/// let all: Vec<Vec<usize>> = Solutions::new(4)?.collect();
/// assert_eq!(all, vec![vec![1, 3, 0, 2], vec![2, 0, 3, 1]]);
/// assert_eq!(Solutions::new(8)?.count(), 92);
/// assert_eq!(Solutions::unique(8)?.count(), 12);
/// # Ok::<(), nqueens::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Solutions {
    stack: Stack,
    /// The row of the next decision.
    row: usize,
    /// True: yield only canonical solutions (the smallest of their orbit).
    unique: bool,
    /// Per row, columns excluded by the symmetry bounds of [`Solutions::unique`].
    forbid: [u64; 64],
    /// Scratch: the inverse permutation of a complete candidate (`inv[col] = row`).
    inv: Vec<usize>,
}

impl Solutions {
    /// Every solution for `n`, in lexicographic order.
    ///
    /// # Errors
    /// [`Error::BoardSize`] unless `1 <= n <= 64`.
    pub fn new(n: u32) -> Result<Solutions, Error> {
        let n = super::check_n(u64::from(n))? as usize;
        Ok(Solutions {
            stack: Stack::new(n),
            row: 0,
            unique: false,
            forbid: [0; 64],
            inv: vec![0; n],
        })
    }

    /// One solution per symmetry class for `n`: the lexicographically smallest of its orbit
    /// under the 8 symmetries of the square, in lexicographic order. There are
    /// `nqueens::count(n)?.unique` of them (OEIS A002562).
    ///
    /// Pruning. The first entry of each of the 8 images of a solution `p` (with `m = n - 1`
    /// and `inv` the inverse permutation) is `p[0]`, `m - p[0]`, `p[m]`, `m - p[m]`,
    /// `inv[0]`, `m - inv[0]`, `inv[m]` or `m - inv[m]`: the distance of a corner to the
    /// nearest queen along one border edge. A canonical solution has the smallest first
    /// entry, so with `k = p[0]`: `k <= m - k` (row 0 tries only the left half), the queens
    /// of columns 0 and m sit in rows `k..=m-k`, and the last row's queen in columns
    /// `k..=m-k`. Those bounds cut the search; a complete candidate is then compared with
    /// its 7 images (no allocation) to settle ties. For n = 8, row 0 tries 4 columns of 8.
    ///
    /// # Examples
    /// ```
    /// let classes: Vec<Vec<usize>> = nqueens::Solutions::unique(6)?.collect();
    /// assert_eq!(classes, vec![vec![1, 3, 5, 0, 2, 4]]);
    /// # Ok::<(), nqueens::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::BoardSize`] unless `1 <= n <= 64`.
    pub fn unique(n: u32) -> Result<Solutions, Error> {
        let mut s = Solutions::new(n)?;
        let n = s.stack.n;
        s.unique = true;
        // Row 0: columns 0..=(n-1)/2, the left half including the middle column.
        s.stack.frames[0].free = s.stack.board >> (n - 1 - (n - 1) / 2);
        Ok(s)
    }

    /// The board size.
    pub fn n(&self) -> usize {
        self.stack.n
    }

    /// The next solution, lent without copying (`perm[row] = col`, 0-based), or `None` when
    /// the search is over (and on every later call).
    ///
    /// # Examples
    /// ```
    /// let mut s = nqueens::Solutions::new(8)?;
    /// assert_eq!(s.next_solution(), Some(&[0, 4, 7, 5, 2, 6, 1, 3][..]));
    /// # Ok::<(), nqueens::Error>(())
    /// ```
    pub fn next_solution(&mut self) -> Option<&[usize]> {
        if self.advance() {
            Some(self.stack.perm())
        } else {
            None
        }
    }

    /// Runs the search to the next solution; false when it is exhausted.
    fn advance(&mut self) -> bool {
        // Two copies of the loop, so the listing of every solution carries no symmetry test.
        if self.unique {
            self.advance_with::<true>()
        } else {
            self.advance_with::<false>()
        }
    }

    /// The search loop; `UNIQUE` adds the symmetry bounds and the canonical test.
    ///
    /// ```text
    /// frame = the current row's (in registers)
    /// loop:
    ///     no untried column: back up one row (reload its frame); at row 0: done
    ///     take the lowest untried column, record it in perm
    ///     last row: yield perm (save the frame: the next call resumes here)
    ///     below = the row below's frame; no safe column there: next column (dead end)
    ///     else: push the frame, frame = below
    /// ```
    #[inline(always)]
    fn advance_with<const UNIQUE: bool>(&mut self) -> bool {
        let (n, board) = (self.stack.n, self.stack.board);
        let mut row = self.row;
        let mut frame = self.stack.frames[row & 63];
        loop {
            if frame.free == 0 {
                if row == 0 {
                    self.stack.frames[0] = frame;
                    self.row = 0;
                    return false; // row 0 stays exhausted: later calls end here too
                }
                row -= 1;
                frame = self.stack.frames[row & 63];
                continue;
            }
            let bit = frame.take_lowest();
            self.stack.perm[row & 63] = bit.trailing_zeros() as usize;
            if row + 1 == n {
                if UNIQUE && !self.is_canonical() {
                    continue;
                }
                self.stack.frames[row & 63] = frame;
                self.row = row;
                return true;
            }
            if UNIQUE && row == 0 {
                self.bound_edges(bit.trailing_zeros() as usize);
            }
            let below = frame.below(
                bit,
                board,
                if UNIQUE {
                    self.forbid[(row + 1) & 63]
                } else {
                    0
                },
            );
            if below.free == 0 {
                continue; // a dead end: most nodes deep in the tree; nothing to push or pop
            }
            self.stack.frames[row & 63] = frame;
            row += 1;
            frame = below;
        }
    }

    /// Sets the symmetry bounds for a first queen in column `k` (see [`Solutions::unique`]).
    fn bound_edges(&mut self, k: usize) {
        let m = self.stack.n - 1;
        self.forbid.fill(0);
        if k == 0 {
            return; // the corner queen: every first entry is >= 0
        }
        let edges = 1u64 | (1u64 << m); // columns 0 and m
        for r in (1..k).chain(m + 1 - k..=m) {
            self.forbid[r] |= edges;
        }
        // Last row: only columns k..=m-k; m + 1 - k <= 63 because k >= 1.
        let below_k = (1u64 << k) - 1;
        let above = self.stack.board & !((1u64 << (m + 1 - k)) - 1);
        self.forbid[m] |= below_k | above;
    }

    /// True if the complete candidate in `perm` is not larger than any of its 7 images.
    fn is_canonical(&mut self) -> bool {
        let perm = self.stack.perm();
        for (row, &col) in perm.iter().enumerate() {
            self.inv[col] = row;
        }
        let inv = &self.inv;
        Transform::ALL[1..].iter().all(|&t| {
            // Lexicographic comparison, stopping at the first differing entry.
            (0..perm.len())
                .map(|i| (image_at(t, perm, inv, i), perm[i]))
                .find(|(a, b)| a != b)
                .is_none_or(|(image, own)| image > own)
        })
    }
}

impl Iterator for Solutions {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        self.next_solution().map(<[usize]>::to_vec)
    }

    /// Skips `k` solutions without copying them, then returns the next.
    fn nth(&mut self, k: usize) -> Option<Vec<usize>> {
        for _ in 0..k {
            if !self.advance() {
                return None;
            }
        }
        self.next()
    }
}

impl std::iter::FusedIterator for Solutions {}

/// Entry `i` of the image of `perm` under `t`, computed without building the image
/// (`inv` is the inverse permutation). Derived from [`Transform::apply`]: a queen at
/// `(r, c)` moves to `t(r, c)`; e.g. for `Rot90`, `(r, c) -> (c, m - r)`, so the image's
/// row `i` holds the queen of column `i`: `m - inv[i]`.
fn image_at(t: Transform, perm: &[usize], inv: &[usize], i: usize) -> usize {
    let m = perm.len() - 1;
    match t {
        Transform::Identity => perm[i],
        Transform::Rot90 => m - inv[i],
        Transform::Rot180 => m - perm[m - i],
        Transform::Rot270 => inv[m - i],
        Transform::MirrorColumns => m - perm[i],
        Transform::MirrorRows => perm[m - i],
        Transform::Transpose => inv[i],
        Transform::AntiTranspose => m - inv[m - i],
    }
}

/// One event of the backtracking search, as [`Steps`] reports it. Rows and columns are
/// 0-based.
///
/// ```
/// use nqueens::{Step, Steps};
/// // The search of n = 4 places (0, 0) first, and finds the solution [1, 3, 0, 2] first.
/// let steps: Vec<Step> = Steps::new(4)?.collect();
/// assert_eq!(steps[0], Step::Place { row: 0, col: 0 });
/// assert!(steps.iter().any(|s| matches!(s, Step::Solution { .. })));
/// # Ok::<(), nqueens::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A queen goes on a safe cell.
    Place {
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
    },
    /// A queen comes off again (its subtree is exhausted).
    Remove {
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
    },
    /// The board holds a solution ([`Steps::placed`] has all `n` queens).
    Solution,
}

/// The search of [`Solutions::new`] step by step: every placement and removal of a queen,
/// and each solution as it is reached, in the order the backtracking performs them. This is
/// what an animation of the search shows; it stops after the last removal.
///
/// Only safe cells are tried (the bit-board skips attacked columns), so a row with no safe
/// cell shows up as the removal of the queen above it.
///
/// # Examples
/// ```
/// use nqueens::{Step, Steps};
/// let steps: Vec<Step> = Steps::new(4)?.collect();
/// assert_eq!(steps.len(), 32 + 2); // 16 placements, 16 removals, 2 solutions
/// assert_eq!(steps[0], Step::Place { row: 0, col: 0 });
/// assert_eq!(steps[1], Step::Place { row: 1, col: 2 });
/// assert_eq!(steps[2], Step::Remove { row: 1, col: 2 });
/// # Ok::<(), nqueens::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Steps {
    stack: Stack,
    /// The row of the next decision.
    row: usize,
    /// Queens on the board.
    depth: usize,
    /// What the last row owes after a placement there: 2 = the solution event, then 1 = the
    /// removal of that queen, 0 = nothing.
    owed: u8,
}

impl Steps {
    /// The search for `n` from the empty board.
    ///
    /// # Errors
    /// [`Error::BoardSize`] unless `1 <= n <= 64`.
    pub fn new(n: u32) -> Result<Steps, Error> {
        let n = super::check_n(u64::from(n))? as usize;
        Ok(Steps {
            stack: Stack::new(n),
            row: 0,
            depth: 0,
            owed: 0,
        })
    }

    /// The board size.
    pub fn n(&self) -> usize {
        self.stack.n
    }

    /// The columns of the queens on the board now, for rows `0..placed().len()`.
    pub fn placed(&self) -> &[usize] {
        &self.stack.perm[..self.depth]
    }
}

impl Iterator for Steps {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        let last = self.stack.n - 1;
        match self.owed {
            2 => {
                self.owed = 1;
                return Some(Step::Solution);
            }
            1 => {
                self.owed = 0;
                self.depth -= 1;
                return Some(Step::Remove {
                    row: last,
                    col: self.stack.perm[last],
                });
            }
            _ => {}
        }
        let row = self.row;
        match self.stack.take(row) {
            Some(col) => {
                self.depth += 1;
                if row == last {
                    self.owed = 2;
                } else {
                    self.stack.descend(row);
                    self.row += 1;
                }
                Some(Step::Place { row, col })
            }
            None if row == 0 => None,
            None => {
                self.row -= 1;
                self.depth -= 1;
                Some(Step::Remove {
                    row: self.row,
                    col: self.stack.perm[self.row],
                })
            }
        }
    }
}

impl std::iter::FusedIterator for Steps {}

/// True if `perm` (`perm[row] = col`, 0-based) places `perm.len()` non-attacking queens:
/// every column in range and used once, no two queens on one diagonal. O(n) time with three
/// boolean arrays (columns, and the `row + col` and `row - col` diagonals), so it checks the
/// constructed solutions of [`construct`](crate::construct) for n in the millions.
///
/// # Examples
/// ```
/// assert!(nqueens::is_solution(&[1, 3, 0, 2]));
/// assert!(!nqueens::is_solution(&[0, 2, 1, 3])); // (1,2) and (2,1) share a diagonal
/// assert!(!nqueens::is_solution(&[0, 0, 0, 0]));
/// ```
pub fn is_solution(perm: &[usize]) -> bool {
    let n = perm.len();
    if n == 0 {
        return true; // the empty board
    }
    let mut cols = vec![false; n];
    let mut sums = vec![false; 2 * n - 1]; // row + col
    let mut diffs = vec![false; 2 * n - 1]; // row - col + n - 1
    for (row, &col) in perm.iter().enumerate() {
        if col >= n {
            return false;
        }
        let (sum, diff) = (row + col, row + (n - 1) - col);
        if cols[col] || sums[sum] || diffs[diff] {
            return false;
        }
        cols[col] = true;
        sums[sum] = true;
        diffs[diff] = true;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::known;
    use crate::engine::reference::{for_each_permutation, no_diagonal_attacks};
    use crate::engine::symmetry::canonical;

    /// Every solution by the reference method, sorted (lexicographic order).
    fn oracle(n: usize) -> Vec<Vec<usize>> {
        let mut all = Vec::new();
        for_each_permutation(n, &mut |p| {
            if no_diagonal_attacks(p) {
                all.push(p.to_vec());
            }
        });
        all.sort();
        all
    }

    #[test]
    fn lists_exactly_the_reference_solutions_in_lexicographic_order() {
        for n in 1..=9u32 {
            let listed: Vec<Vec<usize>> = Solutions::new(n).unwrap().collect();
            assert_eq!(listed, oracle(n as usize), "n = {n}");
        }
    }

    #[test]
    fn unique_lists_the_canonical_reference_solutions() {
        for n in 1..=9u32 {
            let listed: Vec<Vec<usize>> = Solutions::unique(n).unwrap().collect();
            let want: Vec<Vec<usize>> = oracle(n as usize)
                .into_iter()
                .filter(|p| canonical(p) == *p)
                .collect();
            assert_eq!(listed, want, "n = {n}");
        }
    }

    #[test]
    fn counts_match_the_known_table_up_to_12() {
        for n in 1..=12u32 {
            let k = known::lookup(n).unwrap();
            assert_eq!(
                Solutions::new(n).unwrap().count() as u128,
                k.total,
                "total, n = {n}"
            );
            assert_eq!(
                Solutions::unique(n).unwrap().count() as u128,
                k.unique,
                "unique, n = {n}"
            );
        }
    }

    #[test]
    fn image_at_agrees_with_transforming_the_whole_solution() {
        let perm = [0, 4, 7, 5, 2, 6, 1, 3];
        let mut inv = [0; 8];
        for (r, &c) in perm.iter().enumerate() {
            inv[c] = r;
        }
        for t in Transform::ALL {
            let lazy: Vec<usize> = (0..8).map(|i| image_at(t, &perm, &inv, i)).collect();
            assert_eq!(lazy, t.apply_to_solution(&perm), "{t:?}");
        }
    }

    #[test]
    fn iterators_stay_exhausted() {
        let mut s = Solutions::new(3).unwrap();
        assert_eq!(s.next(), None);
        assert_eq!(s.next(), None);
        let mut s = Solutions::new(1).unwrap();
        assert_eq!(s.next(), Some(vec![0]));
        assert_eq!(s.next(), None);
        let mut steps = Steps::new(1).unwrap();
        assert_eq!(steps.by_ref().count(), 3);
        assert_eq!(steps.next(), None);
    }

    #[test]
    fn nth_skips_in_order() {
        let all: Vec<Vec<usize>> = Solutions::new(8).unwrap().collect();
        for k in [0, 1, 45, 91] {
            assert_eq!(Solutions::new(8).unwrap().nth(k).as_ref(), Some(&all[k]));
        }
        assert_eq!(Solutions::new(8).unwrap().nth(92), None);
    }

    #[test]
    fn steps_reach_the_solutions_in_order_and_end_on_an_empty_board() {
        for n in 1..=8u32 {
            let mut steps = Steps::new(n).unwrap();
            let mut found = Vec::new();
            let mut balance = 0i64;
            while let Some(step) = steps.next() {
                match step {
                    Step::Place { row, .. } => {
                        balance += 1;
                        assert_eq!(steps.placed().len(), row + 1);
                    }
                    Step::Remove { row, .. } => {
                        balance -= 1;
                        assert_eq!(steps.placed().len(), row);
                    }
                    Step::Solution => found.push(steps.placed().to_vec()),
                }
            }
            assert_eq!(balance, 0);
            assert_eq!(
                found,
                Solutions::new(n).unwrap().collect::<Vec<_>>(),
                "n = {n}"
            );
        }
    }

    #[test]
    fn validator_accepts_solutions_and_rejects_attacks() {
        assert!(is_solution(&[]));
        assert!(is_solution(&[0]));
        assert!(is_solution(&[0, 4, 7, 5, 2, 6, 1, 3]));
        assert!(!is_solution(&[0, 1])); // diagonal
        assert!(!is_solution(&[1, 0])); // anti-diagonal
        assert!(!is_solution(&[0, 2, 4, 1, 3, 3])); // column used twice
        assert!(!is_solution(&[0, 4])); // column out of range
        for n in 1..=7 {
            for_each_permutation(n, &mut |p| {
                assert_eq!(is_solution(p), no_diagonal_attacks(p), "{p:?}")
            });
        }
    }
}
