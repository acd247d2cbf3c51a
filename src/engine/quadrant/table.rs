//! The quadrant table: every placement of non-attacking queens on an h×h square (any number
//! of queens, at most one per row and column), indexed by its row set and column set, each
//! stored as the two diagonal masks it takes. All four quadrants of a board are h×h squares
//! that differ only by a shift of the diagonal numbering, so one table serves them all, and
//! every set E of the engine looks its quadrants up instead of searching them again.
//!
//! Sizes (placements of queens on an h×h square, counted by the test below): 118,969 at
//! h = 8 (n = 16, 17), 7,535,369 at h = 10 (n = 20, 21: 60 MB), 66,807,234 at h = 11
//! (n = 22, 23: 534 MB), 633,443,407 at h = 12 (5 GB). [`QuadrantTable::bytes`] gives the
//! exact size before building; the engine searches the quadrants instead where the table
//! would not fit the memory allowed.
//!
//! Local numbering: a queen at (r, c) of the square takes up-diagonal `r + c` and
//! down-diagonal `c - r + h - 1`, both in `0..2h-1`.

use std::sync::atomic::{AtomicBool, Ordering};

/// Placements per (row set, column set).
#[derive(Debug)]
pub struct QuadrantTable {
    h: u32,
    /// `offsets[rows << h | cols] .. offsets[(rows << h | cols) + 1]` index `entries`.
    offsets: Vec<u32>,
    /// (up, down) diagonal masks of each placement.
    entries: Vec<(u32, u32)>,
}

/// Largest square side with a table: h = 12 (n = 24, 25) takes 5.1 GB, 64 MB of it
/// offsets; h = 13 would take about 50 GB, more than a cluster node has to spare, so from
/// n = 26 the quadrants are searched per set instead (at n = 24 a search already costs less
/// than the table, and n = 25 gains about 6% from it: see `Engine::table_pays`; the join,
/// not the half patterns, dominates there).
pub const MAX_TABLE_H: u32 = 12;

/// Placements of queens on an h×h square (any number), for the size estimate.
const PLACEMENTS: [u64; 13] = [
    1,
    2,
    5,
    18,
    87,
    462,
    2_635,
    16_870,
    118_969,
    915_442,
    7_535_369,
    66_807_234,
    633_443_407,
];

impl QuadrantTable {
    /// Bytes the table of side h takes (offsets and entries), or None above
    /// [`MAX_TABLE_H`].
    pub fn bytes(h: u32) -> Option<u64> {
        (h <= MAX_TABLE_H).then(|| {
            let offsets = ((1u64 << (2 * h)) + 1) * 4;
            offsets + PLACEMENTS[h as usize] * 8
        })
    }

    /// Builds the table of side h: one search counts the placements per key, a second
    /// fills them in.
    ///
    /// # Panics
    /// Above [`MAX_TABLE_H`].
    #[cfg(test)]
    pub fn build(h: u32) -> QuadrantTable {
        QuadrantTable::build_until(h, &crate::engine::NEVER).expect("never stopped")
    }

    /// `QuadrantTable::build`, giving up (None) soon after `stop` becomes true (h = 12
    /// takes a minute or two; the walk reads the flag at each placement of its first two
    /// rows, about 150 times per walk at h = 12).
    pub fn build_until(h: u32, stop: &AtomicBool) -> Option<QuadrantTable> {
        assert!(h <= MAX_TABLE_H, "quadrant table side {h}");
        let keys = 1usize << (2 * h);
        let mut offsets = vec![0u32; keys + 1];
        walk(h, stop, &mut |key, _, _| offsets[key + 1] += 1)?;
        for k in 0..keys {
            offsets[k + 1] += offsets[k];
        }
        let mut next = offsets.clone();
        let mut entries = vec![(0u32, 0u32); offsets[keys] as usize];
        walk(h, stop, &mut |key, up, down| {
            entries[next[key] as usize] = (up, down);
            next[key] += 1;
        })?;
        debug_assert_eq!(entries.len() as u64, PLACEMENTS[h as usize]);
        Some(QuadrantTable {
            h,
            offsets,
            entries,
        })
    }

    /// Side of the square.
    pub fn h(&self) -> u32 {
        self.h
    }

    /// Placements with exactly these rows and columns (local bit masks).
    #[inline]
    pub fn get(&self, rows: u32, cols: u32) -> &[(u32, u32)] {
        let key = (rows << self.h | cols) as usize;
        &self.entries[self.offsets[key] as usize..self.offsets[key + 1] as usize]
    }

    /// Bytes held.
    #[cfg(test)]
    pub fn heap_bytes(&self) -> u64 {
        (self.offsets.len() * 4 + self.entries.len() * 8) as u64
    }
}

/// Calls `f(rows << h | cols, up, down)` for every placement on the h×h square; None if
/// `stop` was raised before the end.
///
/// Generic in `f` rather than through `dyn FnMut`, so that each of the two walks of a build
/// has its callback inlined (the walk visits 67 million placements at h = 11, 633 million
/// at h = 12). Measured (Zen 4, `perf record` of `count 23 --shard 1234/2000 -t 1`, which
/// builds the h = 11 table): the build's samples 13,099 -> 10,477 (3.3 -> 2.6 s of CPU);
/// the shard, paired at once, 0.995 and 0.970.
fn walk<F: FnMut(usize, u32, u32)>(h: u32, stop: &AtomicBool, f: &mut F) -> Option<()> {
    struct Walk<'a> {
        h: u32,
        stop: &'a AtomicBool,
        stopped: bool,
    }
    fn go<F: FnMut(usize, u32, u32)>(
        w: &mut Walk,
        r: u32,
        rows: u32,
        cols: u32,
        up: u32,
        down: u32,
        f: &mut F,
    ) {
        let h = w.h;
        if r == h {
            f((rows << h | cols) as usize, up, down);
            return;
        }
        if r <= 2 && (w.stopped || w.stop.load(Ordering::Relaxed)) {
            w.stopped = true;
            return;
        }
        go(w, r + 1, rows, cols, up, down, f); // row r stays empty
                                               // Column c attacked if up-diagonal r + c or down-diagonal c - r + h - 1 is taken.
        let attacked = up >> r | down >> (h - 1 - r);
        let mut free = !(cols | attacked) & ((1 << h) - 1);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let c = bit.trailing_zeros();
            go(
                w,
                r + 1,
                rows | 1 << r,
                cols | bit,
                up | 1 << (r + c),
                down | 1 << (c + h - 1 - r),
                f,
            );
        }
    }
    let mut w = Walk {
        h,
        stop,
        stopped: false,
    };
    go(&mut w, 0, 0, 0, 0, 0, f);
    (!w.stopped).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_an_independent_count() {
        for h in 0..=8 {
            let t = QuadrantTable::build(h);
            assert_eq!(t.entries.len() as u64, PLACEMENTS[h as usize], "h = {h}");
            assert_eq!(Some(t.heap_bytes()), QuadrantTable::bytes(h));
        }
    }

    #[test]
    fn lookups_hold_only_matching_placements() {
        let t = QuadrantTable::build(4);
        // Rows {0, 2}, columns {0, 1}: (0,0)+(2,1) and (0,1)+(2,0).
        let e = t.get(0b0101, 0b0011);
        assert_eq!(e.len(), 2);
        // (0,0),(2,1): up 0 and 3, down 3 and 2.
        assert!(e.contains(&(0b1001, 0b1100)));
        assert!(t.get(0b0011, 0b0011).is_empty()); // adjacent rows, adjacent columns
        assert_eq!(t.get(0, 0), &[(0, 0)]);
    }
}
