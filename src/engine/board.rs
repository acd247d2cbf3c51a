//! Bit-board helpers shared by the searches: the mask of an n-column row, the single bits of
//! a mask, and a board that keeps its diagonals as 128-bit sets of diagonal indices (used
//! where queens land in rows far from the current one: the symmetric searches in
//! `symmetric.rs` and the cost probe in `cost.rs`).
//!
//! Diagonal indices: anti-diagonal `r + c = k` is bit `k` of `anti`, diagonal
//! `c - r + n - 1 = k` is bit `k` of `diag` (2n - 1 <= 127 of each); in row `r` they block
//! the columns `anti >> r` and `diag >> (n - 1 - r)`.

/// The cells of one row of an `n`-column board: the low `n` bits (all 64 for n = 64).
pub fn row_mask(n: usize) -> u64 {
    debug_assert!(n <= 64);
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The single bits of `mask`, lowest first: `0b1010 -> 0b0010, 0b1000`.
pub fn bits(mut mask: u64) -> impl Iterator<Item = u64> {
    std::iter::from_fn(move || {
        let bit = mask & mask.wrapping_neg(); // lowest set bit: 0b0110 -> 0b0010
        mask ^= bit;
        (bit != 0).then_some(bit)
    })
}

/// The column indices of the set bits of `mask`, lowest first: `0b1010 -> 1, 3`.
pub fn columns(mask: u64) -> impl Iterator<Item = usize> {
    bits(mask).map(|b| b.trailing_zeros() as usize)
}

/// Queens placed on an n×n board, as taken columns and taken diagonal indices (see the
/// module doc): placing a queen anywhere, in any order, is three ORs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiagBoard {
    /// Board size.
    pub n: usize,
    /// Taken columns.
    pub cols: u64,
    /// Taken anti-diagonals, bit `r + c`.
    pub anti: u128,
    /// Taken diagonals, bit `c - r + n - 1`.
    pub diag: u128,
}

impl DiagBoard {
    /// The empty board of size `n` (1..=64).
    pub fn new(n: usize) -> DiagBoard {
        debug_assert!((1..=64).contains(&n));
        DiagBoard {
            n,
            cols: 0,
            anti: 0,
            diag: 0,
        }
    }

    /// The board with a queen added at `(r, c)`.
    pub fn place(self, (r, c): (usize, usize)) -> DiagBoard {
        DiagBoard {
            cols: self.cols | 1 << c,
            anti: self.anti | 1 << (r + c),
            diag: self.diag | 1 << (c + self.n - 1 - r),
            ..self
        }
    }

    /// The cells of row `r` that no placed queen attacks.
    pub fn free(&self, r: usize) -> u64 {
        let blocked = self.cols | (self.anti >> r) as u64 | (self.diag >> (self.n - 1 - r)) as u64;
        row_mask(self.n) & !blocked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diag_board_blocks_column_and_both_diagonals() {
        let b = DiagBoard::new(5).place((2, 2));
        // Rows are not tracked: in its own row the queen blocks only its column.
        assert_eq!(b.free(2), 0b11011);
        assert_eq!(b.free(0), 0b11111 & !(0b00100 | 0b10000 | 0b00001));
        assert_eq!(b.free(1), 0b11111 & !(0b00100 | 0b01000 | 0b00010));
    }
}

/// The examples that were this module's doc tests (doc tests cannot reach `pub(crate)`
/// items).
#[cfg(test)]
mod examples {
    #[test]
    fn row_mask_example() {
        assert_eq!(crate::engine::board::row_mask(4), 0b1111);
        assert_eq!(crate::engine::board::row_mask(64), u64::MAX);
    }

    #[test]
    fn bits_example() {
        let v: Vec<u64> = crate::engine::board::bits(0b1010).collect();
        assert_eq!(v, [0b0010, 0b1000]);
    }
}
