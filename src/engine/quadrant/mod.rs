//! The quadrant engine: counts the solutions of an n×n board without backtracking over the
//! whole board, by joining half-board patterns (meet in the middle). The method is
//! E. Kluev's (after an idea on the deepgreen NQueens pages); this is our own code.
//!
//! ```text
//!            west half     east half
//!          +-----------+-----------+
//!   north  |    NW     |    NE     |   rows in E put their queen east,
//!          |           |           |   the other rows put it west
//!          +-----------+-----------+
//!   south  |    SW     |    SE     |
//!          |           |           |
//!          +-----------+-----------+
//! ```
//!
//! # The method
//!
//! Every solution of an even board (n = 2h) puts h queens in the east half (columns h..n)
//! and h in the west half. Let E be the set of rows whose queen is east. For a fixed E, a
//! solution is a pair (east pattern, west pattern): h queens in the rows of E, in distinct
//! east columns, no two on a diagonal; the same for the other rows in the west. Rows and
//! columns of the two halves never meet, so the pair is a solution exactly when no diagonal
//! holds a queen of each half. Only *shared* diagonals, crossing both halves, can: n - 1 of
//! each direction, 2(n - 1) = 38 bits at n = 20. So
//!
//! `total = Σ_E #{(e, w) : e ∈ East(E), w ∈ West(E), e & w = 0}`
//!
//! where East(E) and West(E) are lists of diagonal masks made by a small search per half
//! ([`half`], from the quadrant [`table`]) and the count of disjoint pairs is the
//! bit-sliced, bucketed join ([`join`]). There are C(n, h) sets E (184,756 at n = 20);
//! [`units`] groups them into the plan's units.
//!
//! Odd boards (n = 2h + 1) first place the queens of the middle row and the middle column
//! (one queen in the centre, or two); the rest is four h×h quadrants as above, with those
//! queens' diagonals blocked. Every placement of the two middle queens is a [`Frame`].
//!
//! # Symmetry, and why each factor is exact
//!
//! *Even n.* Three facts, each from a symmetry that maps solutions one-to-one:
//!
//! 1. The north–south mirror maps a solution with east rows E to one with east rows
//!    rev(E) (row r -> n-1-r). So we count only E <= rev(E) and double E < rev(E):
//!    92,504 instead of 184,756 sets at n = 20 (the 252 self-mirrored sets count once).
//! 2. Each long diagonal holds at most one queen. The main diagonal crosses NW and SE, the
//!    anti-diagonal NE and SW. Reflection in the main diagonal fixes the main diagonal cell
//!    by cell and swaps the anti-diagonal's NE and SW parts; reflection in the anti-diagonal
//!    does the converse. So the solutions with the main-diagonal queen in SE are as many as
//!    those with it in NW, and likewise NE and SW for the anti-diagonal. We count only
//!    solutions whose east half leaves both long diagonals empty (the east lists shrink to
//!    27% at n = 16) and weigh each west pattern by 2 for each long diagonal it occupies. This
//!    weighting is global (the reflections change E), but it commutes with fact 1: the
//!    north–south mirror maps the NW part of the main diagonal onto the SW part of the
//!    anti-diagonal, so the kept solutions and their weights are mirror-invariant.
//! 3. A solution with both long diagonals empty keeps that property under the east–west
//!    mirror, which maps E to its complement Ē. So for those west patterns (weight 1) the
//!    mirror classes {E, rev E} and {Ē, rev Ē} have equal counts: the class with the
//!    smaller representative counts them twice and the other skips them.
//!
//! Worked check, n = 8: 38 sets E of 70 are counted (32 mirror pairs once, the 6
//! self-mirrored sets alone); the weighted pairs sum to 92.
//!
//! *Odd n.* The two middle queens (h, c) and (r, h) form one of (n-1)(n-3) + 1 placements
//! (c = r = h: the centre); the 8 symmetries of the square permute them, and a symmetry
//! maps the solutions around one placement one-to-one onto those around its image. So one
//! placement per orbit is counted, weighted by the orbit size (8, or 4 when a diagonal
//! reflection fixes it): at n = 17, 29 frames instead of 225. The centre frame is fixed by
//! every symmetry; there the north–south and east–west mirrors map E to rev(E) and to the
//! complement, and each class {E, rev E, Ē, rev Ē} is counted once with its size.
//!
//! # Where the time goes, per n
//!
//! `nqueens estimate N --json` projects each figure below from its sample (its
//! `breakdown`). One core of a 2-core AMD EPYC (Zen 4, family 25 model 17, AVX-512
//! VPOPCNTDQ), `estimate N -t 1` (48 units; 12 from n = 26), 2026-12-03, the other core
//! busy with a single-threaded job; the symmetry factor and the pairs per found pair by
//! whole counts (test `symmetry_factor`, n = 14..20), machine-independent:
//!
//! | n | half patterns / sort / pair tests | pairs tested a solution | sets counted | east / west patterns a set (mean) | CPU a solution |
//! |---|---|---|---|---|---|
//! | 20 | 27 / 26 / 47% | 103 | 9.3e4 | 1.1e4 / 3.6e4 | 3.9 ns |
//! | 21 | 37 / 23 / 40% | 39 | 4.2e6 | 1.1e4 / 2.3e3 | 5.4 ns |
//! | 22 | 14 / 19 / 67% | 102 | 3.7e5 | 7.6e4 / 2.2e5 | 2.4 ns |
//! | 23 | 21 / 28 / 52% | 37 | 2.0e7 | 7.1e4 / 1.3e4 | 3.1 ns |
//! | 24 | 13 / 13 / 74% | 80 | 1.2e6 | 5.5e5 / 2.0e6 | 1.9 ns |
//! | 25 | 25 / 24 / 51% | 32 | 8.9e7 | 5.3e5 / 9.4e4 | 2.1 ns |
//! | 26 | 5 / 6 / 89% | 94 | 4.6e6 | 3.7e6 / 2.1e7 | 2.2 ns |
//! | 27 | 14 / 16 / 70% | 27 | 3.8e8 | 4.1e6 / 7.9e5 | 1.0 ns |
//! | 28 | 1 / 2 / 97% | 116 | 1.9e7 | 5.5e7 / 7.4e7 | 1.9 ns |
//!
//! Why n = 27 is cheap, and the other odd n are not:
//!
//! - *The join.* Odd boards test about a third of the pairs an even board tests per
//!   solution (27-39 against 80-130). Part of it is symmetry: the factor a count achieves
//!   (its solutions over the disjoint pairs it finds) is 7.6-7.7 on odd boards (almost every
//!   frame is an orbit of 8) against 5.9-6.0 on even ones (the north–south mirror on every
//!   set, the east–west mirror only for west patterns off both long diagonals). The rest is
//!   the join: odd frames test 161-372 pairs per pair found, even sets 631-792 (n = 14..20).
//!   (Not measured apart: the pre-placed middle queens take diagonals from both halves, and
//!   the key diagonals then separate a frame's compatible pairs better.)
//! - *The halves and the sort.* Odd frames cut the work into many more, smaller sets (a set
//!   of n = 23 joins 7e4 x 1.3e4 patterns, one of n = 22 7.6e4 x 2.2e5), and each set pays
//!   its half searches, key and sort once: at n = 21, 23 and 25 those take half the time, so
//!   the join's advantage is eaten up. Only at n = 27 are the lists long enough (4e6 east
//!   patterns) for the join to dominate again, and n = 27 gets both.
//!
//! n = 28 tests more pairs a solution than n = 26 (116-135 against 94) whether its sets are
//! joined whole or in parts (same sample, lists of 1 GiB against lists sized from 18 GB:
//! 135 and 121-134): its keys stop at 16 bits (`join::MAX_KEY_BITS`, u16 keys), so a bucket
//! holds about 800 east masks where the key rule aims at 64; wider keys are the next lead.
//!
//! Tried for even n and not kept (test `long_frames_sampled`): frames from the queens on the
//! two long diagonals ([`Frame::all_long`], exact): 24%, 14% and 44% more pairs per
//! solution at n = 20, 22 and 24, and 2.5-3x the time (40x more sets); the earlier attempt
//! with two middle-column queens was 2x slower at n = 24 for the same reason: pre-placed
//! queens away from the middle block few shared diagonals, while multiplying the sets.

pub mod half;
pub mod join;
pub mod table;
pub mod units;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use half::{Half, HalfScratch, HalfStats, MaskList, Part};
use join::Joiner;
use table::QuadrantTable;

use super::symmetry::Transform;
use super::{Config, Isa, NEVER};

/// Smallest board the engine accepts (smaller boards are instant by backtracking).
pub const MIN_N: u32 = 4;
/// Largest board the engine accepts: the shared diagonals of both directions must fit in a
/// u64 (2(n - 1) = 62 bits at n = 32).
pub const MAX_N: u32 = 32;

/// What is fixed before the halves are searched: the pre-placed middle queens of an odd
/// board (none for even n), and the symmetry rule that weighs each set E.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    n: usize,
    /// Pre-placed queens (row, col).
    pre: Vec<(u8, u8)>,
    /// Rows left to fill, ascending.
    rows: Vec<u8>,
    /// Free columns of the west and east halves.
    west: u64,
    east: u64,
    /// How sets E are weighted.
    rule: Rule,
    /// Diagonals (absolute up, down) no queen may take besides the pre-placed ones' own:
    /// the empty long diagonals of [`Frame::all_long`]'s frames; none in the plan's frames.
    avoid: (u64, u64),
}

/// The symmetry rule of a frame (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Even n: north–south mirror on E, long-diagonal weights, east–west mirror for the
    /// patterns off both long diagonals.
    Even,
    /// Odd n, centre queen: one E per class {E, rev E, Ē, rev Ē}, weighted by its size.
    Centre,
    /// Odd n, two middle queens: every E, weighted by the frame's orbit size.
    Orbit(u8),
}

impl Frame {
    /// The frames of board size n, in plan order.
    ///
    /// # Panics
    /// Unless `MIN_N <= n <= MAX_N`.
    pub fn all(n: u32) -> Vec<Frame> {
        assert!((MIN_N..=MAX_N).contains(&n), "quadrant engine: n = {n}");
        let n = n as usize;
        if n.is_multiple_of(2) {
            return vec![Frame::new(n, vec![], Rule::Even)];
        }
        let h = n / 2;
        let mut frames = vec![Frame::new(n, vec![(h as u8, h as u8)], Rule::Centre)];
        // The two middle queens (h, c) and (r, h), c != h, r != h, not on one diagonal;
        // keep the smallest image of each orbit.
        for c in (0..n).filter(|&c| c != h) {
            for r in (0..n).filter(|&r| r != h && r.abs_diff(h) != c.abs_diff(h)) {
                let pair = sorted_pair((h, c), (r, h));
                let images: Vec<[(usize, usize); 2]> = Transform::ALL
                    .iter()
                    .map(|t| sorted_pair(t.apply(n, pair[0]), t.apply(n, pair[1])))
                    .collect();
                if images.iter().any(|im| *im < pair) {
                    continue;
                }
                let mut distinct = images.clone();
                distinct.sort_unstable();
                distinct.dedup();
                let pre = vec![(h as u8, c as u8), (r as u8, h as u8)];
                frames.push(Frame::new(n, pre, Rule::Orbit(distinct.len() as u8)));
            }
        }
        frames
    }

    fn new(n: usize, pre: Vec<(u8, u8)>, rule: Rule) -> Frame {
        let h = n / 2;
        let (west_end, east_start) = (h, n - h); // odd n: column h is the middle
        let mut west = (1u64 << west_end) - 1;
        let mut east = ((1u64 << n) - 1) & !((1u64 << east_start) - 1);
        let mut rows: Vec<u8> = (0..n as u8).collect();
        for &(r, c) in &pre {
            rows.retain(|&x| x != r);
            west &= !(1 << c);
            east &= !(1 << c);
        }
        Frame {
            n,
            pre,
            rows,
            west,
            east,
            rule,
            avoid: (0, 0),
        }
    }

    /// The frames of an even board by its long-diagonal queens, an alternative to
    /// [`Rule::Even`] kept for its measurement (`long_frames_sampled` in the tests): each long
    /// diagonal holds at most one queen, so a solution has one of n(n - 2) + 2n + 1
    /// placements of those queens (none, main only, anti only, both); the 8 symmetries
    /// permute them, so one per orbit is counted with the orbit's size as weight, the
    /// empty placement with the centre frame's mirror classes. Exact (the tests count
    /// n = 4..18 with it), but slower: at n = 20, 22 and 24 it tests 24%, 14% and 44% more
    /// pairs per solution and takes 2.5-3x the time (many more, much smaller sets: 1.4e7
    /// instead of 3.5e5 at n = 22), so the plan does not use it.
    #[cfg(test)]
    pub fn all_long(n: u32) -> Vec<Frame> {
        let n = n as usize;
        let m = n - 1;
        let long = 1u64 << m; // up-diagonal n-1 (anti), down-diagonal n-1 (main)
        let mut frames = Vec::new();
        // Configurations: main queen at (i, i) or none, anti queen at (j, m - j) or none.
        let mut configs: Vec<Vec<(usize, usize)>> = vec![vec![]];
        for i in 0..n {
            configs.push(vec![(i, i)]);
            configs.push(vec![(i, m - i)]);
            for j in 0..n {
                if i != j && i != m - j {
                    configs.push(vec![(i, i), (j, m - j)]);
                }
            }
        }
        for pre in configs {
            let key = |t: &Transform| {
                let mut v: Vec<(usize, usize)> = pre.iter().map(|&q| t.apply(n, q)).collect();
                v.sort_unstable();
                v
            };
            let mut me = pre.clone();
            me.sort_unstable();
            let mut images: Vec<Vec<(usize, usize)>> = Transform::ALL.iter().map(key).collect();
            if images.iter().any(|im| *im < me) {
                continue;
            }
            images.sort_unstable();
            images.dedup();
            let on_main = pre.iter().any(|&(r, c)| r == c);
            let on_anti = pre.iter().any(|&(r, c)| r + c == m);
            let avoid = (
                if on_anti { 0 } else { long },
                if on_main { 0 } else { long },
            );
            let qs: Vec<(u8, u8)> = pre.iter().map(|&(r, c)| (r as u8, c as u8)).collect();
            let rule = if pre.is_empty() {
                Rule::Centre
            } else {
                Rule::Orbit(images.len() as u8)
            };
            let mut f = Frame::new(n, qs, rule);
            f.avoid = avoid;
            frames.push(f);
        }
        frames
    }

    /// The pre-placed queens (row, column), for the independent recount's test that it
    /// finds the same frames.
    #[cfg(test)]
    pub fn preplaced(&self) -> &[(u8, u8)] {
        &self.pre
    }

    /// Rows to fill (the bits of a set E index this list).
    pub fn rows(&self) -> &[u8] {
        &self.rows
    }

    /// Queens that go east: the size of every set E.
    pub fn east_queens(&self) -> u32 {
        self.east.count_ones()
    }

    /// First shared diagonal: the first east column. Up-diagonals r + c of the east half
    /// start there, and so do down-diagonals c - r + n - 1 (east c >= h, r <= n - 1).
    fn shared_lo(&self) -> u32 {
        (self.n - self.n / 2) as u32
    }

    /// Shared diagonals per direction: from the first east column to `n - 1 + last west
    /// column` (n - 1 for even n, n - 2 for odd n).
    fn shared_len(&self) -> u32 {
        let h = (self.n / 2) as u32;
        (self.n as u32 - 1 + h - 1) - self.shared_lo() + 1
    }

    /// Bits of a pattern mask.
    pub fn bits(&self) -> u32 {
        2 * self.shared_len()
    }

    /// Diagonals of the pre-placed queens (absolute numbering: up r + c, down
    /// c - r + n - 1; below 2n - 1 <= 63).
    fn pre_diagonals(&self) -> (u64, u64) {
        self.pre.iter().fold(self.avoid, |(u, d), &(r, c)| {
            let (r, c) = (r as usize, c as usize);
            (u | 1u64 << (r + c), d | 1u64 << (c + self.n - 1 - r))
        })
    }

    /// The weight of set E (bits index [`Frame::rows`]) and, for even n, of its patterns
    /// that avoid both long diagonals. (0, 0) when E is not counted.
    pub fn weight(&self, e: u32) -> (u32, u32) {
        let m = self.rows.len() as u32;
        // m rows, 1 <= m <= 32 (a shift of 1 by 32 would overflow at n = 32).
        let full = u32::MAX >> (32 - m);
        // Row index i <-> row rows[i]; the row sets of Even and Centre frames are mirror
        // symmetric, so the north–south mirror reverses the m index bits.
        let rev = |x: u32| x.reverse_bits() >> (32 - m);
        match self.rule {
            Rule::Orbit(w) => (u32::from(w), u32::from(w)),
            Rule::Centre => {
                let orbit = [e, rev(e), full & !e, rev(full & !e)];
                if orbit.iter().any(|&x| x < e) {
                    return (0, 0);
                }
                let mut distinct = orbit.to_vec();
                distinct.sort_unstable();
                distinct.dedup();
                (distinct.len() as u32, distinct.len() as u32)
            }
            Rule::Even => {
                let r = rev(e);
                if e > r {
                    return (0, 0);
                }
                let ns = if e == r { 1 } else { 2 };
                let canon = |x: u32| x.min(rev(x));
                let (mine, mirror) = (canon(e), canon(full & !e));
                let z = match mine.cmp(&mirror) {
                    std::cmp::Ordering::Less => 2,
                    std::cmp::Ordering::Equal => 1,
                    std::cmp::Ordering::Greater => 0,
                };
                (ns, ns * z)
            }
        }
    }

    /// Counts the solutions with east rows `e` (bits index [`Frame::rows`]), weighted by
    /// the frame's symmetry rule.
    pub fn count_set(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        scratch: &mut Scratch,
    ) -> SetResult {
        self.count_set_until(e, table, scratch, &NEVER)
            .expect("never stopped")
    }

    /// [`Frame::count_set`], giving up (None) soon after `stop` becomes true (the join reads
    /// it once per piece; the half searches before it take a few percent of a set).
    ///
    /// A set whose pattern lists would pass [`LIST_BUDGET`] is counted in parts (see
    /// [`Frame::parts`]).
    pub fn count_set_until(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        scratch: &mut Scratch,
        stop: &AtomicBool,
    ) -> Option<SetResult> {
        let parts = self.parts(e);
        self.count_set_in_parts(e, table, parts, scratch, stop)
    }

    /// [`Frame::count_set_until`] with the set's lists cut into `(east, west)` parts.
    ///
    /// The count of disjoint pairs is a sum over pairs of patterns, so it is the sum over
    /// (east part, west part) of the pairs between the two parts: each east part is made
    /// once and joined with each west part in turn, every west part made again for each
    /// east part. The halves take a few percent of a set's time at the frontier, where
    /// sets are cut, so making them again costs little; memory is that of one part of each.
    pub fn count_set_in_parts(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        (east_parts, west_parts): (u32, u32),
        scratch: &mut Scratch,
        stop: &AtomicBool,
    ) -> Option<SetResult> {
        let mut res = SetResult::default();
        let (east_parts, west_parts) = (east_parts.max(1), west_parts.max(1));
        for i in 0..east_parts {
            let east = Part {
                index: i,
                of: east_parts,
            };
            for j in 0..west_parts {
                let west = Part {
                    index: j,
                    of: west_parts,
                };
                // The east part is made once, with its first west part.
                res.merge(&self.prepare_part(e, table, scratch, east, west, j == 0));
                if scratch.east.is_empty() {
                    break; // nothing to join with this east part
                }
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let joined = scratch.joiner.join_until(
                    scratch.east.as_slice(),
                    &scratch.west,
                    self.bits(),
                    join::Sample::ALL,
                    stop,
                )?;
                res.solutions += joined.pairs;
                res.tested += joined.tested;
            }
        }
        Some(res)
    }

    /// How many parts set E's east and west lists are cut into (see
    /// [`Frame::count_set_in_parts`]): enough that each side's part, at the pattern counts
    /// [`units::Proxy`] estimates, takes at most [`LIST_BUDGET`]. That estimate
    /// (pair-independence) runs high: measured on 12 sets each at n = 20, 22, 24 (frame 0)
    /// and 25 (frame 3), its mean ratio to the real counts was 4.4, 4.6, 4.8 and 2.9 for the
    /// east lists and 2.3, 3.0, 3.5 and 2.7 for the west ones, rising slowly with n; so a
    /// part estimated at the budget holds about a quarter to a third of it, and both sides
    /// together stay under it even where the estimate is twice as good. The west list is
    /// cut first in effect: it holds more bytes per pattern, and cutting it costs the join
    /// nothing, while a shorter east list gets fewer key bits (see `join`). Worked numbers:
    /// n <= 25, one part each (no set's estimate reaches the budget); n = 26, up to 3 west
    /// parts; n = 28, up to about 25 west and 4 east parts (estimated on 3,000 sets).
    pub fn parts(&self, e: u32) -> (u32, u32) {
        self.parts_with(&units::Proxy::new(self), e, LIST_BUDGET)
    }

    /// [`Frame::parts`] with this frame's estimate factors already made, for lists of at
    /// most `budget` bytes (at least [`LIST_BUDGET`]: a smaller one is taken as it).
    pub fn parts_with(&self, proxy: &units::Proxy, e: u32, budget: u64) -> (u32, u32) {
        let budget = budget.max(LIST_BUDGET);
        // Below n = 22 no set can need cutting (n = 21: 10! west patterns of 40 bytes are
        // 145 MB): skip the estimate, which would cost 1-3% of a set at n = 16-18.
        let [most_west, most_east] = proxy.most();
        let budget = budget as f64;
        if most_west * WEST_BYTES <= budget && most_east * EAST_BYTES <= budget {
            return (1, 1);
        }
        let [west, east] = proxy.halves(self, e);
        let part =
            |patterns: f64, bytes: f64| ((patterns * bytes) / budget).ceil().clamp(1.0, MAX_PARTS);
        // Integer results of the IEEE basic operations only (deterministic everywhere);
        // clamped, so the casts cannot overflow.
        (part(east, EAST_BYTES) as u32, part(west, WEST_BYTES) as u32)
    }

    /// Joins the pattern lists [`Frame::prepare_set`] left in `scratch`, or only the pieces
    /// `sample` picks (for `nqueens estimate`, which times a part of a join).
    pub fn join_prepared(&self, scratch: &mut Scratch, sample: join::Sample) -> join::JoinStats {
        scratch
            .joiner
            .join_sampled(scratch.east.as_slice(), &scratch.west, self.bits(), sample)
    }

    /// Sorts the lists [`Frame::prepare_part`] left in `scratch` and keeps them for
    /// [`Frame::join_kept`] (`nqueens estimate`: one sort, then several samples of the
    /// pieces); returns the number of pieces of the join.
    pub fn keep_prepared(&self, scratch: &mut Scratch) -> u64 {
        scratch
            .joiner
            .keep(scratch.east.as_slice(), &scratch.west, self.bits())
    }

    /// The pieces `sample` picks of the join [`Frame::keep_prepared`] kept.
    pub fn join_kept(&self, scratch: &mut Scratch, sample: join::Sample) -> join::JoinStats {
        scratch
            .joiner
            .join_kept(scratch.east.as_slice(), &scratch.west, sample)
    }

    /// The first half of [`Frame::count_set`]: both halves' pattern lists, left in
    /// `scratch` for [`Frame::join_prepared`] (the east list is empty when there is nothing
    /// to join). Returns the work done (no solutions yet).
    #[cfg(test)]
    pub fn prepare_set(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        scratch: &mut Scratch,
    ) -> SetResult {
        self.prepare_part(e, table, scratch, Part::WHOLE, Part::WHOLE, true)
    }

    /// [`Frame::prepare_set`] for one east part and one west part. The east list already in
    /// `scratch` (of the same set and part) is kept unless `new_east`.
    pub fn prepare_part(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        scratch: &mut Scratch,
        east_part: Part,
        west_part: Part,
        new_east: bool,
    ) -> SetResult {
        let (weight, z_weight) = self.weight(e);
        let mut res = SetResult::default();
        if new_east {
            scratch.east.clear();
        }
        scratch.west.clear();
        if weight == 0 {
            scratch.east.clear();
            return res;
        }
        let rows = &mut scratch.rows;
        let [a, b, c] = self.split_into(e, rows);
        let (east_n, rest) = rows.split_at(a);
        let (east_s, rest) = rest.split_at(b - a);
        let (west_n, west_s) = rest.split_at(c - b);
        let h = self.n / 2;

        let (pre_up, pre_down) = self.pre_diagonals();
        let half = |c0: u32, cols: u64, (avoid_up, avoid_down): (u64, u64)| Half {
            n: self.n,
            cols: cols >> c0,
            pre_up: (pre_up | avoid_up) >> c0,
            pre_down: (pre_down | avoid_down) >> c0,
            shared_lo: self.shared_lo() - c0,
            shared_len: self.shared_len(),
            h: h as u32,
        };
        // Even n keeps only east halves off both long diagonals (module doc, fact 2): the
        // anti-diagonal is up-diagonal n - 1, the main diagonal down-diagonal n - 1.
        let long = 1u64 << (self.n - 1);
        let east_avoid = if self.rule == Rule::Even {
            (long, long)
        } else {
            (0, 0)
        };
        if new_east {
            let se = half(self.shared_lo(), self.east, east_avoid).patterns_part(
                east_n,
                east_s,
                table,
                east_part,
                &mut scratch.half,
                &mut scratch.east,
            );
            res.add_half(se);
        }
        if scratch.east.is_empty() {
            return res;
        }
        let mut west_masks = std::mem::take(&mut scratch.west_masks);
        west_masks.clear();
        let sw = half(0, self.west, (0, 0)).patterns_part(
            west_n,
            west_s,
            table,
            west_part,
            &mut scratch.half,
            &mut west_masks,
        );
        res.add_half(sw);
        let len = self.shared_len();
        if self.rule == Rule::Even {
            // The long diagonals: up-diagonal n - 1 (anti) and down-diagonal n - 1 (main),
            // bit n - 1 - lo of each direction.
            let anti = 1u64 << (self.n as u32 - 1 - self.shared_lo());
            let main = anti << len;
            let long = anti | main;
            scratch.west.reserve(west_masks.len());
            for &w in west_masks.as_slice() {
                // Two bits to count: two tests rather than a popcount, which a portable
                // build does in a dozen operations (this loop was 13% of n = 18).
                let on_long = u32::from(w & anti != 0) + u32::from(w & main != 0);
                let wt = if on_long == 0 {
                    z_weight
                } else {
                    weight << on_long
                };
                if wt > 0 {
                    // No east pattern uses the long diagonals now: drop them from w.
                    scratch.west.push((w & !long, wt));
                }
            }
        } else {
            scratch
                .west
                .extend(west_masks.as_slice().iter().map(|&w| (w, weight)));
        }
        scratch.west_masks = west_masks;
        res
    }
}

impl Frame {
    /// Writes the rows four ways into `buf`: east-north, east-south, west-north,
    /// west-south (east by E, north above the middle), and returns where the last three
    /// parts start.
    fn split_into(&self, e: u32, buf: &mut Vec<u8>) -> [usize; 3] {
        let h = (self.n / 2) as u8;
        buf.clear();
        let mut starts = [0; 3];
        for (part, (side, north)) in [(1, true), (1, false), (0, true), (0, false)]
            .into_iter()
            .enumerate()
        {
            if part > 0 {
                starts[part - 1] = buf.len();
            }
            buf.extend(
                self.rows
                    .iter()
                    .enumerate()
                    .filter(|&(i, &r)| e >> i & 1 == side && (r < h) == north)
                    .map(|(_, &r)| r),
            );
        }
        starts
    }
}

fn sorted_pair(a: (usize, usize), b: (usize, usize)) -> [(usize, usize); 2] {
    if a <= b {
        [a, b]
    } else {
        [b, a]
    }
}

/// Reusable buffers of one worker, with the instruction set its loops run with
/// (`Scratch::default()`: [`Isa::best`](crate::engine::Isa::best)).
#[derive(Debug, Default)]
pub struct Scratch {
    rows: Vec<u8>,
    joiner: Joiner,
    half: HalfScratch,
    east: MaskList,
    west: Vec<(u64, u32)>,
    west_masks: MaskList,
}

impl Scratch {
    /// Patterns of the east and west lists [`Frame::prepare_part`] left (`nqueens
    /// estimate` reports the list sizes).
    pub fn list_lens(&self) -> (usize, usize) {
        (self.east.len(), self.west.len())
    }

    /// Empty buffers for a worker whose join and table lookups run with `isa`.
    pub fn new(isa: Isa) -> Scratch {
        Scratch {
            joiner: Joiner::new(isa),
            half: HalfScratch::new(isa),
            ..Scratch::default()
        }
    }
}

/// What counting one or more sets E produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetResult {
    /// Solutions, already weighted by the symmetry rule.
    pub solutions: u64,
    /// Queens placed by the half-board searches.
    pub placements: u64,
    /// Half-board patterns found (east and west).
    pub patterns: u64,
    /// (east, west) pattern pairs tested by the join.
    pub tested: u64,
}

impl SetResult {
    fn add_half(&mut self, s: HalfStats) {
        self.placements += s.placements;
        self.patterns += s.patterns;
    }

    /// Adds another result.
    pub fn merge(&mut self, o: &SetResult) {
        self.solutions += o.solutions;
        self.placements += o.placements;
        self.patterns += o.patterns;
        self.tested += o.tested;
    }
}

/// Every set E of a frame with `k` of its `m` rows east (Gosper's hack: the next larger
/// integer with the same number of set bits).
pub fn sets(m: u32, k: u32) -> impl Iterator<Item = u32> {
    let first = if k == 0 { 0 } else { (1u32 << k) - 1 };
    let limit = 1u64 << m;
    let mut next = Some(first).filter(|_| k <= m);
    std::iter::from_fn(move || {
        let x = next?;
        next = if x == 0 {
            None
        } else {
            let low = x & x.wrapping_neg(); // lowest set bit
            let ripple = x as u64 + low as u64; // carries through the lowest run of ones
            let ones = ((x as u64 ^ ripple) >> 2) / low as u64; // that run, moved down
            let y = ripple | ones;
            (y < limit).then_some(y as u32)
        };
        Some(x)
    })
}

/// Counts the sets E of one unit: those of `frame` whose first `p` rows are `prefix`
/// (see [`units`]); None if `stop` was raised first (a unit of n = 26 takes minutes: the
/// flag is read between sets and inside each join).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_unit(
    frame: &Frame,
    proxy: &units::Proxy,
    p: u32,
    prefix: u32,
    table: Option<&QuadrantTable>,
    list_budget: u64,
    scratch: &mut Scratch,
    stop: &AtomicBool,
) -> Option<SetResult> {
    let mut res = SetResult::default();
    for e in frame.sets_with_prefix(p, prefix) {
        let parts = frame.parts_with(proxy, e, list_budget);
        res.merge(&frame.count_set_in_parts(e, table, parts, scratch, stop)?);
    }
    Some(res)
}

/// What every quadrant unit of one n needs: the frames, the prefix length and, when it fits
/// the memory allowed, the quadrant table. Built once per n and shared by all threads.
#[derive(Debug)]
pub struct Context {
    /// Board size.
    pub n: u32,
    /// The frames, in plan order.
    pub frames: Vec<Frame>,
    /// Rows fixed by a unit's prefix, per frame: it depends on the frame's free rows (the
    /// centre frame of an odd board has one more than the others), so one figure for all
    /// frames would count the wrong sets (at n = 27: p = 18 for the centre, 17 for the rest).
    pub prefix_rows: Vec<u32>,
    /// The cost estimate's factors per frame (used to cut sets too large for memory).
    pub proxies: Vec<units::Proxy>,
    /// The quadrant table, or None where the quadrants are searched instead.
    pub table: Option<QuadrantTable>,
    /// Bytes of lists a set may hold per thread ([`Config::list_budget`]).
    pub list_budget: u64,
}

/// Bytes of pattern lists one set E may hold at once (east and west lists with the join's
/// sorted copies); a set that would pass it is counted in parts ([`Frame::parts`]). 1 GiB:
/// no set below n = 26 comes near it (the largest at n = 24 hold about 200 MB), and a
/// thread of n = 28 stays near it instead of the 12 GB or more one whole set needs.
pub const LIST_BUDGET: u64 = 1 << 30;

/// Bytes per east pattern while its set is joined: the list and its sorted copy.
const EAST_BYTES: f64 = 16.0;
/// Bytes per west pattern: its mask as found, the weighted list and the sorted copy.
const WEST_BYTES: f64 = 40.0;
/// Most parts per side (4,096 x 1/4 GiB: far more than any set of n <= 32 needs).
const MAX_PARTS: f64 = 4096.0;

/// Default of [`Config::table_limit`]: 1 GiB, which holds the tables up to n = 23 (550 MB).
pub const DEFAULT_TABLE_LIMIT: u64 = 1 << 30;

/// Whether the engine builds the quadrant table for n under `config`'s limit.
pub(crate) fn uses_table(n: u32, config: &Config) -> bool {
    table::QuadrantTable::bytes(n / 2).is_some_and(|b| b <= config.table_limit)
}

/// The shared context of n with the default [`Config`], built on first use (the table
/// takes 0.1 s at n = 20, 1 s at n = 22).
///
/// # Panics
/// Unless `MIN_N <= n <= MAX_N`.
#[cfg(test)]
pub fn context(n: u32) -> Arc<Context> {
    context_until(n, &Config::default(), &NEVER).expect("never stopped")
}

/// The shared context of n under `config`, giving up (None) soon after `stop` becomes true
/// (the h = 12 table takes a minute or two to build).
///
/// One context is kept, a cache rather than configuration: it is what the last call built,
/// and is replaced when n changes or when `config` asks for a table where it has none, or
/// for none where it has one (a range of counts, or two counts under different limits).
pub(crate) fn context_until(n: u32, config: &Config, stop: &AtomicBool) -> Option<Arc<Context>> {
    static CACHE: Mutex<Option<Arc<Context>>> = Mutex::new(None);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let with_table = uses_table(n, config);
    if let Some(c) = cache.as_ref().filter(|c| {
        c.n == n && c.table.is_some() == with_table && c.list_budget == config.list_budget
    }) {
        return Some(Arc::clone(c));
    }
    *cache = None; // free the old table before building the new one
    let frames = Frame::all(n);
    let proxies = frames.iter().map(units::Proxy::new).collect();
    let prefix_rows = frames
        .iter()
        .map(|f| units::prefix_rows(n, f.rows.len() as u32))
        .collect();
    let table = match with_table {
        true => Some(QuadrantTable::build_until(n / 2, stop)?),
        false => None,
    };
    let c = Arc::new(Context {
        n,
        frames,
        prefix_rows,
        proxies,
        table,
        list_budget: config.list_budget,
    });
    *cache = Some(Arc::clone(&c));
    Some(c)
}

impl Context {
    /// Counts one unit (frame index and prefix); None if `stop` was raised first.
    pub fn run_unit(
        &self,
        frame: u16,
        prefix: u32,
        scratch: &mut Scratch,
        stop: &AtomicBool,
    ) -> Option<SetResult> {
        run_unit(
            &self.frames[frame as usize],
            &self.proxies[frame as usize],
            self.prefix_rows[frame as usize],
            prefix,
            self.table.as_ref(),
            self.list_budget,
            scratch,
            stop,
        )
    }
}

/// Counts the total of board size n with the quadrant engine on one thread, its loops run
/// with `isa` (for tests and small n; the plan splits the same work into units).
#[cfg(test)]
pub fn count_total(n: u32, table: Option<&QuadrantTable>, isa: Isa) -> u128 {
    let mut scratch = Scratch::new(isa);
    let mut total = 0u128;
    for f in Frame::all(n) {
        for e in sets(f.rows.len() as u32, f.east_queens()) {
            total += u128::from(f.count_set(e, table, &mut scratch).solutions);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::known;

    fn profile(
        frames: &[Frame],
        n: u32,
        table: Option<&QuadrantTable>,
    ) -> (u128, SetResult, f64, usize) {
        let mut scratch = Scratch::new(Isa::best());
        let mut total = 0u128;
        let mut all = SetResult::default();
        let mut sets_counted = 0;
        let t = std::time::Instant::now();
        for f in frames {
            for e in sets(f.rows.len() as u32, f.east_queens()) {
                if f.weight(e).0 == 0 {
                    continue;
                }
                sets_counted += 1;
                let r = f.count_set(e, table, &mut scratch);
                total += u128::from(r.solutions);
                all.merge(&r);
            }
        }
        let _ = n;
        (total, all, t.elapsed().as_secs_f64(), sets_counted)
    }

    #[test]
    #[ignore]
    fn per_solution_profile() {
        for n in 13u32..=19 {
            let table = QuadrantTable::build(n / 2);
            let q = known::lookup(n).unwrap().total as f64;
            let r = profile(&Frame::all(n), n, Some(&table));
            println!("n={n} sets {} tested/sol {:.2} patterns/sol {:.4} placements/sol {:.3} ns/sol {:.2} mean pairs/set {:.0}",
                r.3, r.1.tested as f64 / q, r.1.patterns as f64 / q, r.1.placements as f64 / q, r.2 * 1e9 / q, r.1.tested as f64 / r.3 as f64);
        }
    }

    /// Sampled total tested pairs, solutions and seconds of a scheme's frames.
    fn sampled(
        frames: &[Frame],
        samples: usize,
        table: Option<&QuadrantTable>,
        seed: u64,
    ) -> (f64, f64, f64, f64, f64) {
        let mut scratch = Scratch::new(Isa::best());
        let counted: Vec<Vec<u32>> = frames
            .iter()
            .map(|f| {
                sets(f.rows.len() as u32, f.east_queens())
                    .filter(|&e| f.weight(e).0 > 0)
                    .collect()
            })
            .collect();
        let total_sets: usize = counted.iter().map(|v| v.len()).sum();
        let (mut tested, mut sols, mut secs, mut pats) = (0.0, 0.0, 0.0, 0.0);
        let mut x = seed;
        for (fi, f) in frames.iter().enumerate() {
            let c = &counted[fi];
            if c.is_empty() {
                continue;
            }
            let k = ((samples as f64 * c.len() as f64 / total_sets as f64).ceil() as usize).max(1);
            let (mut t, mut so, mut se, mut pa) = (0.0, 0.0, 0.0, 0.0);
            for _ in 0..k {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let e = c[(x >> 33) as usize % c.len()];
                let clock = std::time::Instant::now();
                let r = f.count_set(e, table, &mut scratch);
                se += clock.elapsed().as_secs_f64();
                t += r.tested as f64;
                so += r.solutions as f64;
                pa += r.patterns as f64;
            }
            let scale = c.len() as f64 / k as f64;
            tested += t * scale;
            sols += so * scale;
            secs += se * scale;
            pats += pa * scale;
        }
        (tested, sols, secs, pats, total_sets as f64)
    }

    #[test]
    #[ignore]
    fn long_frames_sampled() {
        let n: u32 = std::env::var("EXP_N").unwrap().parse().unwrap();
        let k: usize = std::env::var("EXP_K").unwrap().parse().unwrap();
        let q = known::lookup(n).unwrap().total as f64;
        for (name, frames) in [("old", Frame::all(n)), ("long", Frame::all_long(n))] {
            let r = sampled(&frames, k, None, 7);
            println!("n={n} {name}: sets {:.3e} sols/Q {:.3} tested/sol {:.1} patterns/sol {:.4} ns/sol {:.2} frames {}",
                r.4, r.1 / q, r.0 / q, r.3 / q, r.2 * 1e9 / q, frames.len());
        }
    }

    #[test]
    #[ignore]
    fn symmetry_factor() {
        for n in 14u32..=20 {
            let table = QuadrantTable::build(n / 2);
            let mut scratch = Scratch::default();
            let (mut w, mut u, mut t, mut hit_w1, mut tested_w1) = (0u64, 0u64, 0u64, 0u64, 0u64);
            let _ = (&mut hit_w1, &mut tested_w1);
            for f in Frame::all(n) {
                for e in sets(f.rows.len() as u32, f.east_queens()) {
                    if f.weight(e).0 == 0 {
                        continue;
                    }
                    f.prepare_set(e, Some(&table), &mut scratch);
                    if scratch.east.is_empty() {
                        continue;
                    }
                    let j = f.join_prepared(&mut scratch, join::Sample::ALL);
                    w += j.pairs;
                    t += j.tested;
                    for x in scratch.west.iter_mut() {
                        x.1 = 1;
                    }
                    u += f.join_prepared(&mut scratch, join::Sample::ALL).pairs;
                }
            }
            let q = known::lookup(n).unwrap().total;
            println!("n={n} weighted {w} (Q {q}) unweighted {u} factor {:.3} tested/found {:.2} tested/sol {:.2}", w as f64 / u as f64, t as f64 / u as f64, t as f64 / q as f64);
        }
    }

    #[test]
    #[ignore]
    fn long_frames_experiment() {
        for n in [4u32, 6, 8, 10, 12, 14, 16, 18] {
            let table = QuadrantTable::build(n / 2);
            let want = known::lookup(n).unwrap().total;
            let old = profile(&Frame::all(n), n, Some(&table));
            let new_frames = Frame::all_long(n);
            let new = profile(&new_frames, n, Some(&table));
            println!("n={n} want {want} old {} new {} | frames {} | sets {} vs {} | tested {} vs {} ({:.2}) | patterns {} vs {} | time {:.3} vs {:.3}",
                old.0, new.0, new_frames.len(), old.3, new.3, old.1.tested, new.1.tested,
                new.1.tested as f64 / old.1.tested.max(1) as f64, old.1.patterns, new.1.patterns, old.2, new.2);
        }
    }

    #[test]
    fn gosper_lists_every_set_once() {
        assert_eq!(sets(4, 2).collect::<Vec<_>>(), [3, 5, 6, 9, 10, 12]);
        assert_eq!(sets(5, 0).collect::<Vec<_>>(), [0]);
        assert_eq!(sets(20, 10).count(), 184_756);
    }

    #[test]
    fn totals_match_the_table() {
        for n in MIN_N..=12 {
            let table = QuadrantTable::build(n / 2);
            for t in [None, Some(&table)] {
                assert_eq!(
                    count_total(n, t, Isa::best()),
                    known::lookup(n).unwrap().total,
                    "n = {n}, table {}",
                    t.is_some()
                );
            }
        }
    }

    #[test]
    fn a_set_counted_in_parts_counts_the_same() {
        // Every set of n = 8..13 (even and odd frames), with and without the table, cut
        // into parts of each side: the solutions are those of the whole set.
        let stop = AtomicBool::new(false);
        let mut scratch = Scratch::default();
        for n in 8u32..=13 {
            let table = QuadrantTable::build(n / 2);
            for t in [None, Some(&table)] {
                for f in Frame::all(n) {
                    for e in sets(f.rows.len() as u32, f.east_queens()) {
                        let whole = f.count_set(e, t, &mut scratch);
                        for parts in [(1, 3), (2, 1), (3, 5), (7, 2)] {
                            let cut = f
                                .count_set_in_parts(e, t, parts, &mut scratch, &stop)
                                .unwrap();
                            assert_eq!(
                                cut.solutions,
                                whole.solutions,
                                "n = {n}, set {e:b}, parts {parts:?}, table {}",
                                t.is_some()
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_parts_of_a_half_split_its_patterns() {
        // The patterns of parts 0..k of one half are those of the whole half, each once.
        let f = &Frame::all(12)[0];
        let table = QuadrantTable::build(6);
        let mut scratch = Scratch::default();
        for e in sets(12, 6).take(200) {
            let mut whole = Vec::new();
            f.prepare_set(e, Some(&table), &mut scratch);
            whole.extend(scratch.west.iter().copied());
            if scratch.east.is_empty() {
                continue;
            }
            let east = scratch.east.as_slice().to_vec();
            let mut cut = Vec::new();
            for j in 0..4 {
                let west = Part { index: j, of: 4 };
                f.prepare_part(e, Some(&table), &mut scratch, Part::WHOLE, west, true);
                assert_eq!(scratch.east.as_slice(), east.as_slice());
                cut.extend(scratch.west.iter().copied());
            }
            whole.sort_unstable();
            cut.sort_unstable();
            assert_eq!(cut, whole, "set {e:b}");
        }
    }

    #[test]
    fn only_sets_beyond_the_budget_are_cut() {
        // n <= 24: one part each for every set tried; a set of n = 28: the west list is
        // cut (about 1.7e8 patterns in a mean set).
        for n in [16u32, 20, 24] {
            let f = &Frame::all(n)[0];
            let m = f.rows.len() as u32;
            for e in sets(m, f.east_queens()).step_by(997).take(50) {
                assert_eq!(f.parts(e), (1, 1), "n = {n}, set {e:b}");
            }
        }
        let f = &Frame::all(28)[0];
        let e = sets(28, 14).nth(20_000_000).unwrap();
        let (east, west) = f.parts(e);
        assert!(west > 1 && east >= 1, "n = 28: {east} x {west} parts");
        // A larger budget cuts the same set into fewer parts; a smaller one is taken as
        // the 1 GiB every thread may hold.
        let proxy = units::Proxy::new(f);
        let (e8, w8) = f.parts_with(&proxy, e, 8 << 30);
        assert!(e8 * w8 < east * west, "8 GiB: {e8} x {w8} parts");
        assert_eq!(f.parts_with(&proxy, e, 1 << 20), (east, west));
    }

    #[test]
    fn each_frames_units_cover_its_counted_sets_once() {
        // The centre frame of an odd board has one free row more than the others, so its
        // prefixes are longer at n = 11, 13 and 27 (a single prefix length once counted
        // half the sets of n = 27's other frames).
        for (n, frames) in [(9u32, 99usize), (11, 99), (13, 99), (27, 2)] {
            let ctx = context(n);
            for (i, f) in ctx.frames.iter().enumerate().take(frames) {
                let counted = |e: &u32| f.weight(*e).0 > 0;
                let m = f.rows().len() as u32;
                let want = sets(m, f.east_queens()).filter(counted).count();
                let got: usize = f
                    .unit_prefixes(n)
                    .map(|prefix| {
                        f.sets_with_prefix(ctx.prefix_rows[i], prefix)
                            .filter(counted)
                            .count()
                    })
                    .sum();
                assert_eq!(got, want, "n = {n}, frame {i}");
            }
        }
    }

    #[test]
    fn odd_frames_cover_every_middle_placement() {
        for n in [5u32, 7, 9, 17] {
            let frames = Frame::all(n);
            let covered: u32 = frames
                .iter()
                .map(|f| match f.rule {
                    Rule::Orbit(w) => u32::from(w),
                    _ => 1,
                })
                .sum();
            let m = n - 1;
            assert_eq!(covered, m * (m - 2) + 1, "n = {n}");
        }
        assert_eq!(Frame::all(17).len(), 29);
    }
}
