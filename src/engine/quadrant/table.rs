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
//!
//! 2 MiB pages (the machine's transparent huge pages set to `always` instead of
//! `madvise`, 2026-12-06, Intel Xeon model 167) did not speed the lookups up: `count 23
//! --shard 1234/2000 -t 1` took 15.26 s of user time against 15.54, and two such shards at
//! once 1.5 s of system time each against 0.1 (the kernel finding the pages).

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

    /// Builds the table of side h, row set by row set (see [`QuadrantTable::build_until`]).
    ///
    /// # Panics
    /// Above [`MAX_TABLE_H`].
    #[cfg(test)]
    pub fn build(h: u32) -> QuadrantTable {
        QuadrantTable::build_until(h, &crate::engine::NEVER).expect("never stopped")
    }

    /// `QuadrantTable::build`, giving up (None) soon after `stop` becomes true (the build
    /// reads the flag once per row set: 4,096 times at h = 12, which takes about ten
    /// seconds).
    ///
    /// Row set by row set, in key order: every placement of one row set is found (queens
    /// in exactly those rows, see [`place`]), counted by column set, and written to the
    /// end of `entries` by a counting sort, so that all of one row set's offsets and
    /// entries are written together. The keys are `rows << h | cols`, so a row set's
    /// offsets are 2^h consecutive words (8 KiB at h = 11) and its entries one stretch
    /// (33,000 placements a row set on average at h = 11).
    ///
    /// It was one walk of the whole square (each row empty or given a queen), twice: once
    /// counting the placements per key, once filling them in. That shared the search of
    /// the first rows between row sets, but each placement then wrote to a random place of
    /// a 16 MB count array and of 534 MB of entries (h = 11). Timed alone (Intel Xeon
    /// model 167, 2026-12-06, twice each): h = 11 2.2-2.3 s before, 1.01 s now; h = 12
    /// 28.5-33 s before, 10.2-10.5 s now. The old build was 14% of the samples of `count 23
    /// --shard 1234/2000 -t 1` (`perf`); that shard, paired, now takes 0.89-0.91 of the CPU.
    /// The entries of one key come in the same order both ways (the columns of its rows,
    /// lowest first), so the counts and the pairs tested are the same.
    pub fn build_until(h: u32, stop: &AtomicBool) -> Option<QuadrantTable> {
        assert!(h <= MAX_TABLE_H, "quadrant table side {h}");
        let side = 1usize << h;
        let mut offsets = vec![0u32; (side << h) + 1];
        let mut entries: Vec<(u32, u32)> = Vec::with_capacity(PLACEMENTS[h as usize] as usize);
        // One row set's placements as (cols, up, down), and its counts per column set.
        let mut found = Vec::new();
        let mut starts = vec![0u32; side + 1];
        for rows in 0..side as u32 {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            found.clear();
            place(h, rows, (0, 0, 0), &mut found);
            starts.fill(0);
            for &(cols, _, _) in &found {
                starts[cols as usize + 1] += 1;
            }
            for c in 0..side {
                starts[c + 1] += starts[c];
            }
            let base = entries.len();
            let block = (rows as usize) << h;
            for (offset, &start) in offsets[block..block + side].iter_mut().zip(&starts) {
                *offset = (base + start as usize) as u32;
            }
            entries.resize(base + found.len(), (0, 0));
            for &(cols, up, down) in &found {
                let at = &mut starts[cols as usize];
                entries[base + *at as usize] = (up, down);
                *at += 1;
            }
        }
        offsets[side << h] = entries.len() as u32;
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

/// Pushes `(cols, up, down)` for every placement of one queen in each of the rows `rows`
/// of the h×h square on top of `(cols, up, down)` = `at`, the rows lowest first and each
/// row's free columns lowest first (local numbering: a queen at (r, c) takes up-diagonal
/// `r + c` and down-diagonal `c - r + h - 1`).
fn place(h: u32, rows: u32, at: (u32, u32, u32), out: &mut Vec<(u32, u32, u32)>) {
    let (cols, up, down) = at;
    if rows == 0 {
        out.push(at); // only the empty row set: the calls below pass at least one row
        return;
    }
    // The lowest row, and the others: rows 0b0110 -> r = 1, rest 0b0100.
    let r = rows.trailing_zeros();
    let rest = rows & (rows - 1);
    // Column c attacked if up-diagonal r + c or down-diagonal c - r + h - 1 is taken.
    let attacked = up >> r | down >> (h - 1 - r);
    let mut free = !(cols | attacked) & ((1 << h) - 1);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        let c = bit.trailing_zeros();
        let next = (cols | bit, up | 1 << (r + c), down | 1 << (c + h - 1 - r));
        // The last row's placements are pushed here rather than by a call each.
        match rest {
            0 => out.push(next),
            _ => place(h, rest, next, out),
        }
    }
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

    /// Every list of the tables of side 1 to 6 against an independent enumeration: each
    /// assignment of the key's columns to its rows (in the order of the columns taken by
    /// the rows, lowest row first, lexicographically), kept when no two of its queens
    /// share a diagonal, in that order.
    #[test]
    fn every_list_is_every_placement_in_column_order() {
        fn orders(cols: &[u32], k: usize, at: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
            if at.len() == k {
                out.push(at.clone());
                return;
            }
            for &c in cols {
                if !at.contains(&c) {
                    at.push(c);
                    orders(cols, k, at, out);
                    at.pop();
                }
            }
        }
        for h in 1..=6u32 {
            let t = QuadrantTable::build(h);
            for rows in 0..1u32 << h {
                for cols in 0..1u32 << h {
                    let mut want = Vec::new();
                    if rows.count_ones() == cols.count_ones() {
                        let rs: Vec<u32> = (0..h).filter(|r| rows >> r & 1 == 1).collect();
                        let cs: Vec<u32> = (0..h).filter(|c| cols >> c & 1 == 1).collect();
                        let mut all = Vec::new();
                        orders(&cs, cs.len(), &mut Vec::new(), &mut all);
                        for at in all {
                            let ups: Vec<u32> = rs.iter().zip(&at).map(|(r, c)| r + c).collect();
                            let downs: Vec<u32> =
                                rs.iter().zip(&at).map(|(r, c)| c + h - 1 - r).collect();
                            let distinct =
                                |d: &[u32]| (0..d.len()).all(|i| !d[i + 1..].contains(&d[i]));
                            if distinct(&ups) && distinct(&downs) {
                                let mask = |d: &[u32]| d.iter().fold(0u32, |m, x| m | 1 << x);
                                want.push((mask(&ups), mask(&downs)));
                            }
                        }
                    }
                    assert_eq!(
                        t.get(rows, cols),
                        &want[..],
                        "h {h} rows {rows:b} cols {cols:b}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_raised_stop_gives_no_table() {
        let stop = AtomicBool::new(true);
        assert!(QuadrantTable::build_until(4, &stop).is_none());
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
