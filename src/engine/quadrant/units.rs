//! How the quadrant engine's work is cut into units, and what a unit costs.
//!
//! A unit is one frame (the pre-placed middle queens of an odd board, nothing for an even
//! one) and a *prefix*: which of the frame's first `p` rows put their queen east. The unit
//! counts every set E of the frame that starts with that prefix (the other rows in every
//! way that leaves the right number of queens east). Units of one frame partition its sets
//! E, so the plan counts every solution once.
//!
//! `p` is [`EVEN_PREFIX_ROWS`] for even n and [`ODD_PREFIX_ROWS`] for odd n (odd boards
//! have many frames already), or every row on small boards. Worked numbers: n = 16 has one
//! unit per counted set E: 6,435 units; n = 20 fixes 17 of 20 rows: 46,252 units of 1 to 3
//! sets, about 45 per worker on 1,024 workers; n = 17 has 29 frames of 15 rows, 12 fixed:
//! 87,226 units. Prefixes whose every set is skipped by symmetry are not units.

use super::table::QuadrantTable;
use super::{sets, Frame};

/// Rows fixed by a unit's prefix on even boards.
pub const EVEN_PREFIX_ROWS: u32 = 17;
/// Rows fixed by a unit's prefix on odd boards.
pub const ODD_PREFIX_ROWS: u32 = 12;

/// Rows a unit's prefix fixes for a frame with `rows` free rows.
pub fn prefix_rows(n: u32, rows: u32) -> u32 {
    rows.min(if n.is_multiple_of(2) {
        EVEN_PREFIX_ROWS
    } else {
        ODD_PREFIX_ROWS
    })
}

impl Frame {
    /// The sets E of this frame whose first `p` rows are `prefix` (bit i: row
    /// `rows()[i]` is east), counted or not.
    pub fn sets_with_prefix(&self, p: u32, prefix: u32) -> impl Iterator<Item = u32> {
        let m = self.rows().len() as u32;
        let k = self.east_queens();
        let fixed = prefix.count_ones();
        let rest = (fixed <= k && k - fixed <= m - p).then(|| sets(m - p, k - fixed));
        rest.into_iter().flatten().map(move |r| prefix | r << p)
    }

    /// The prefixes of this frame's units: those with at least one counted set E.
    pub fn unit_prefixes(&self, n: u32) -> Vec<u32> {
        let m = self.rows().len() as u32;
        let p = prefix_rows(n, m);
        (0..1u32 << p)
            .filter(|&prefix| {
                self.sets_with_prefix(p, prefix)
                    .any(|e| self.weight(e).0 > 0)
            })
            .collect()
    }

    /// Estimated cost of counting set E: the product of the east and west halves' pattern
    /// candidates (north placements times south placements with complementary columns,
    /// before the diagonals between them are checked), the pairs the join will test up to
    /// the share the diagonal checks remove. 0 for a set that is not counted.
    pub fn estimate_set(&self, e: u32, table: &QuadrantTable) -> u64 {
        if self.weight(e).0 == 0 {
            return 0;
        }
        let (east, west) = self.split_rows(e);
        self.candidates(table, &east, self.east_cols())
            .saturating_mul(self.candidates(table, &west, self.west_cols()))
            .max(1)
    }

    /// Candidate patterns of one half: Σ over column sets C of the north rows of
    /// |table[north rows, C]| · |table[south rows, other columns]|.
    fn candidates(&self, table: &QuadrantTable, rows: &(Vec<u8>, Vec<u8>), cols: u32) -> u64 {
        let (north, south) = rows;
        let s0 = self.n as u32 - self.n as u32 / 2;
        let rows_n = north.iter().fold(0u32, |m, &r| m | 1 << r);
        let rows_s = south
            .iter()
            .fold(0u32, |m, &r| m | 1 << (u32::from(r) - s0));
        let k = north.len() as u32;
        let mut total = 0u64;
        let mut c = cols;
        loop {
            if c.count_ones() == k {
                let a = table.get(rows_n, c).len() as u64;
                let b = table.get(rows_s, cols ^ c).len() as u64;
                total += a * b;
            }
            if c == 0 {
                break;
            }
            c = (c - 1) & cols;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_partition_every_frame() {
        for n in [8u32, 9, 12, 13] {
            for f in Frame::all(n) {
                let m = f.rows().len() as u32;
                let p = prefix_rows(n, m);
                let mut seen: Vec<u32> = (0..1u32 << p)
                    .flat_map(|prefix| f.sets_with_prefix(p, prefix).collect::<Vec<_>>())
                    .collect();
                seen.sort_unstable();
                let all: Vec<u32> = sets(m, f.east_queens()).collect();
                assert_eq!(seen, all, "n = {n}");
            }
        }
    }

    #[test]
    fn a_prefix_fixing_every_row_is_one_set() {
        let f = &Frame::all(8)[0];
        assert_eq!(prefix_rows(8, 8), 8);
        assert_eq!(
            f.sets_with_prefix(8, 0b1111_0000).collect::<Vec<_>>(),
            [0b1111_0000]
        );
        // Five east queens of four: no set.
        assert_eq!(f.sets_with_prefix(8, 0b1111_1000).count(), 0);
    }
}
