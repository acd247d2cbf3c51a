//! The independent recount: each unit of a plan counted again from its *definition*, by
//! plain bit-board backtracking, sharing no half-pattern, table, key, part, join or
//! weight code with the quadrant engine (`verify N --units K`, `merge --recheck P
//! --independent`).
//!
//! `merge --recheck` recomputes units with the engine that made them: it catches a flipped
//! bit or a forged file, not a bug of the engine. A bug of the engine that only the
//! frontier exercises (the h = 12 table, long moved keys, sets cut into parts) would give
//! the same wrong count twice. This module counts a unit another way, so such a bug shows
//! as a difference, unit by unit.
//!
//! # What a unit is, written plainly
//!
//! *Quadrant units* (`UnitKind::Quadrant { frame, prefix }`, after the module doc of the
//! quadrant engine). A frame is what an odd board pre-places: even n has one frame with no
//! queen; odd n = 2h + 1 has the centre frame (a queen on (h, h)) and then, for each column
//! c != h (ascending) and each row r != h (ascending) with |r - h| != |c - h|, the pair of
//! queens (h, c), (r, h) when it is the smallest of its images under the 8 symmetries of
//! the square (as a sorted pair of cells) — in that order, which is the plan's. The free
//! rows of a frame, ascending, are indexed 0..m; a set E is the free rows whose queen is
//! east (columns h.. for even n, h+1.. for odd n), with as many rows as the east half has
//! free columns. A unit is the sets whose first `p` indices are `prefix`, where p is 17
//! (even n <= 24), 12 (odd n <= 25), m - 2 (n = 26), m - 8 (n = 27), m (n >= 28), and
//! never more than m.
//!
//! Each set E counts its solutions — every queen of a row of E east, every other free row's
//! queen west, the frame's queens in place — times a weight, re-derived here from the
//! symmetry argument (the engine's own weight function is not called):
//!
//! - *Odd n, two middle queens*: the frame's orbit size (8, or 4 when a diagonal
//!   reflection fixes it), for every E.
//! - *Odd n, centre*: E counts only if it is the smallest of {E, rev E, Ē, rev Ē} (rev: row
//!   r -> n-1-r; Ē: the other free rows), with that class's size.
//! - *Even n*: E counts only if E <= rev E, with ns = 1 if E = rev E, else 2. Only solutions
//!   with no east queen on either long diagonal are counted; one with j west queens on
//!   long diagonals (j = 1, 2) weighs ns·2^j; one with none weighs ns·z, where z is 2, 1 or
//!   0 as min(E, rev E) is smaller than, equal to or larger than min(Ē, rev Ē).
//!
//! *Border units*: the solutions through the unit's pre-placed queens ([`Unit::preplaced`]),
//! by a plain backtracking of the whole board with those rows fixed (unweighted, as the
//! engine reports them). *F180 and F90 units*: the solutions fixed by the half or the
//! quarter turn (the F180 unit: with its row-0 queen in its column), by a backtracking that
//! places whole orbits of cells (2 or 4 at once), not the engine's searches.
//!
//! Only the solutions are compared: the engine's work figure (pairs tested, or its own
//! search's nodes) belongs to its method.
//!
//! # Cost
//!
//! A set is a backtracking of the whole board with every row's half fixed: about a
//! thousand nodes a solution, 100 to 200 million nodes a second on one core. Measured with
//! `verify N --units K -t 1` (CPU time of the unit's thread, Intel Xeon model 167): a
//! random unit of n = 20 takes 1.1 s (the engine 0.003 s), of n = 22 79 s (the engine
//! 0.08 s). Nodes a set grow about 26x per n + 2, so a random unit of n = 24 takes about
//! 2 hours, of n = 26 about 6 hours and of n = 28 about a week (extrapolated): from n = 24
//! only the cheapest units are practical (`--cheapest`; a unit of the cheapest 1% of
//! n = 26 took 6 min 22 s, of the cheapest 0.001% of n = 28 about 10 s).

use std::sync::atomic::{AtomicBool, Ordering};

use super::plan::{Unit, UnitKind};

/// What the plain recount of one unit found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recount {
    /// Solutions, weighted as the unit's result is (quadrant units: by the symmetry rule;
    /// the others unweighted).
    pub solutions: u64,
    /// Sets E counted (weight above 0; quadrant units only).
    pub sets: u32,
    /// Queens placed by the plain search.
    pub nodes: u64,
}

/// Counts `unit` of n's plan again, plainly; None if `stop` was raised first.
///
/// # Panics
/// If the unit is not one of n's plans' (a quadrant frame index past n's frames), or n is
/// outside 1..=64 (quadrant units: 4..=32).
pub fn recount(n: u32, unit: &Unit, stop: &AtomicBool) -> Option<Recount> {
    let n = n as usize;
    assert!((1..=64).contains(&n), "board size {n}");
    match unit.kind {
        UnitKind::Quadrant { frame, prefix } => {
            let frames = PlainFrame::all(n);
            let f = frames
                .get(frame as usize)
                .unwrap_or_else(|| panic!("n = {n} has {} frames, not {frame}", frames.len()));
            f.recount_unit(prefix, stop)
        }
        UnitKind::Border { .. } => {
            let mut allowed = vec![full(n); n];
            let mut pre_rows = 0u64;
            for (r, c) in unit.preplaced(n) {
                if pre_rows >> r & 1 == 1 {
                    allowed[r] = 0; // two pre-placed queens in one row: no solution
                } else {
                    allowed[r] = 1 << c;
                }
                pre_rows |= 1 << r;
            }
            let no_weights = vec![0; n];
            let mut s = Search::new(n, &allowed, &no_weights, stop);
            s.run()?;
            Some(Recount {
                solutions: s.by_long[0],
                sets: 0,
                nodes: s.nodes,
            })
        }
        UnitKind::Fixed180 { col } => Orbits::count(n, 2, Some(col as usize), stop),
        UnitKind::Fixed90 => Orbits::count(n, 4, None, stop),
    }
}

/// Every column of an n-board.
fn full(n: usize) -> u64 {
    if n == 64 {
        u64::MAX
    } else {
        (1 << n) - 1
    }
}

/// The symmetry rule of a frame, as the module doc states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Weighing {
    Even,
    Centre,
    Orbit(u64),
}

/// A frame as the module doc defines it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PlainFrame {
    n: usize,
    /// Pre-placed queens (row, column).
    pub(crate) pre: Vec<(usize, usize)>,
    /// Free rows, ascending.
    rows: Vec<usize>,
    /// Free columns of each half.
    west: u64,
    east: u64,
    rule: Weighing,
}

/// The 8 symmetries of the square, applied to a cell.
fn images(n: usize, (r, c): (usize, usize)) -> [(usize, usize); 8] {
    let m = n - 1;
    [
        (r, c),
        (c, m - r),
        (m - r, m - c),
        (m - c, r),
        (r, m - c),
        (m - r, c),
        (c, r),
        (m - c, m - r),
    ]
}

impl PlainFrame {
    /// The frames of n (4 <= n <= 32) in plan order.
    pub(crate) fn all(n: usize) -> Vec<PlainFrame> {
        assert!(
            (4..=32).contains(&n),
            "quadrant units exist for n = 4..=32, not {n}"
        );
        if n.is_multiple_of(2) {
            return vec![PlainFrame::new(n, vec![], Weighing::Even)];
        }
        let h = n / 2;
        let mut frames = vec![PlainFrame::new(n, vec![(h, h)], Weighing::Centre)];
        for c in 0..n {
            for r in 0..n {
                if c == h || r == h || r.abs_diff(h) == c.abs_diff(h) {
                    continue;
                }
                let sorted =
                    |a: (usize, usize), b: (usize, usize)| if a < b { [a, b] } else { [b, a] };
                let me = sorted((h, c), (r, h));
                let (ia, ib) = (images(n, me[0]), images(n, me[1]));
                let mut orbit: Vec<[(usize, usize); 2]> =
                    (0..8).map(|t| sorted(ia[t], ib[t])).collect();
                if orbit.iter().any(|im| *im < me) {
                    continue;
                }
                orbit.sort_unstable();
                orbit.dedup();
                frames.push(PlainFrame::new(
                    n,
                    me.to_vec(),
                    Weighing::Orbit(orbit.len() as u64),
                ));
            }
        }
        frames
    }

    fn new(n: usize, pre: Vec<(usize, usize)>, rule: Weighing) -> PlainFrame {
        let h = n / 2;
        let used: u64 = pre.iter().fold(0, |m, &(_, c)| m | 1 << c);
        let west = ((1u64 << h) - 1) & !used;
        let east = (full(n) & !((1u64 << (n - h)) - 1)) & !used;
        let rows = (0..n).filter(|r| pre.iter().all(|p| p.0 != *r)).collect();
        PlainFrame {
            n,
            pre,
            rows,
            west,
            east,
            rule,
        }
    }

    /// Rows a unit's prefix fixes (module doc).
    fn prefix_rows(&self) -> usize {
        let (n, m) = (self.n, self.rows.len());
        let p = match n {
            26 => m - 2,
            27 => m - 8,
            28.. => m,
            _ if n.is_multiple_of(2) => 17,
            _ => 12,
        };
        p.min(m)
    }

    /// The sets E of the unit with this prefix, as masks of absolute rows (bit r: row r
    /// is east): every way to choose the other rows that leaves the east half's number of
    /// rows east.
    fn unit_sets(&self, prefix: u32) -> Vec<u64> {
        let (m, p) = (self.rows.len(), self.prefix_rows());
        let k = self.east.count_ones();
        let fixed = prefix.count_ones();
        if fixed > k || u64::from(prefix) >> p != 0 {
            return Vec::new();
        }
        let to_rows = |index_mask: u64| {
            (0..m)
                .filter(|&i| index_mask >> i & 1 == 1)
                .fold(0u64, |e, i| e | 1 << self.rows[i])
        };
        (0u64..1 << (m - p))
            .filter(|rest| rest.count_ones() == k - fixed)
            .map(|rest| to_rows(u64::from(prefix) | rest << p))
            .collect()
    }

    /// North–south mirror of a row set: row r -> n-1-r.
    fn rev(&self, e: u64) -> u64 {
        (0..self.n)
            .filter(|&r| e >> r & 1 == 1)
            .fold(0, |x, r| x | 1 << (self.n - 1 - r))
    }

    /// The free rows not in e (east–west mirror of a row set).
    fn other(&self, e: u64) -> u64 {
        self.rows.iter().fold(0, |x, &r| x | 1 << r) & !e
    }

    /// The weight of each solution of set E by how many of its west queens sit on a long
    /// diagonal (index 0, 1, 2; even n only uses 1 and 2), all 0 when E is not counted.
    fn weights(&self, e: u64) -> [u64; 3] {
        match self.rule {
            Weighing::Orbit(w) => [w; 3],
            Weighing::Centre => {
                let mut class = [e, self.rev(e), self.other(e), self.rev(self.other(e))];
                if class.iter().any(|&x| x < e) {
                    return [0; 3];
                }
                class.sort_unstable();
                let size = 1 + class.windows(2).filter(|w| w[0] != w[1]).count() as u64;
                [size; 3]
            }
            Weighing::Even => {
                let r = self.rev(e);
                if e > r {
                    return [0; 3];
                }
                let ns = if e == r { 1 } else { 2 };
                let mine = e.min(r);
                let theirs = self.other(e).min(self.rev(self.other(e)));
                let z = match mine.cmp(&theirs) {
                    std::cmp::Ordering::Less => 2,
                    std::cmp::Ordering::Equal => 1,
                    std::cmp::Ordering::Greater => 0,
                };
                [ns * z, ns * 2, ns * 4]
            }
        }
    }

    /// Per row: the columns its queen may take in set E, and the cells on a long diagonal
    /// whose queens the weight counts (west rows of an even board).
    fn rows_of(&self, e: u64) -> (Vec<u64>, Vec<u64>) {
        let n = self.n;
        let mut allowed = vec![0u64; n];
        let mut long = vec![0u64; n];
        for &(r, c) in &self.pre {
            allowed[r] = 1 << c;
        }
        for &r in &self.rows {
            let on_long = 1u64 << r | 1u64 << (n - 1 - r);
            if e >> r & 1 == 1 {
                allowed[r] = self.east;
                if self.rule == Weighing::Even {
                    allowed[r] &= !on_long; // no east queen on a long diagonal
                }
            } else {
                allowed[r] = self.west;
                if self.rule == Weighing::Even {
                    long[r] = on_long;
                }
            }
        }
        (allowed, long)
    }

    /// Counts one set E (weighted); None if `stop` was raised.
    fn recount_set(&self, e: u64, stop: &AtomicBool) -> Option<(u64, u64)> {
        let w = self.weights(e);
        if w == [0; 3] {
            return Some((0, 0));
        }
        let (allowed, long) = self.rows_of(e);
        let mut s = Search::new(self.n, &allowed, &long, stop);
        s.run()?;
        let weighted = (0..3).map(|j| w[j] * s.by_long[j]).sum();
        Some((weighted, s.nodes))
    }

    /// Counts every set of the unit with this prefix.
    fn recount_unit(&self, prefix: u32, stop: &AtomicBool) -> Option<Recount> {
        let mut r = Recount::default();
        for e in self.unit_sets(prefix) {
            if self.weights(e) == [0; 3] {
                continue;
            }
            let (solutions, nodes) = self.recount_set(e, stop)?;
            r.solutions += solutions;
            r.nodes += nodes;
            r.sets += 1;
        }
        Some(r)
    }
}

/// Plain bit-board backtracking, row by row: `cols`, `diag_down` (shifted left each row)
/// and `diag_up` (shifted right); row r may use `allowed[r]`; every solution is tallied by
/// how many of its queens sit on their row's `long` cells.
struct Search<'a> {
    n: usize,
    allowed: &'a [u64],
    long: &'a [u64],
    stop: &'a AtomicBool,
    by_long: [u64; 3],
    nodes: u64,
    stopped: bool,
}

impl<'a> Search<'a> {
    fn new(n: usize, allowed: &'a [u64], long: &'a [u64], stop: &'a AtomicBool) -> Search<'a> {
        Search {
            n,
            allowed,
            long,
            stop,
            by_long: [0; 3],
            nodes: 0,
            stopped: false,
        }
    }

    /// Runs the search; None if it was stopped.
    fn run(&mut self) -> Option<()> {
        self.place(0, 0, 0, 0, 0);
        (!self.stopped).then_some(())
    }

    fn place(&mut self, row: usize, cols: u64, diag_down: u64, diag_up: u64, on_long: usize) {
        if row == self.n {
            self.by_long[on_long] += 1;
            return;
        }
        // The stop flag is read near the root only: a few thousand reads a set.
        if row < 4 && self.stop.load(Ordering::Relaxed) {
            self.stopped = true;
        }
        if self.stopped {
            return;
        }
        let mut free = self.allowed[row] & !(cols | diag_down | diag_up);
        while free != 0 {
            let bit = free & free.wrapping_neg(); // lowest free column
            free ^= bit;
            self.nodes += 1;
            let hits = usize::from(self.long[row] & bit != 0);
            self.place(
                row + 1,
                cols | bit,
                (diag_down | bit) << 1,
                (diag_up | bit) >> 1,
                on_long + hits,
            );
        }
    }
}

/// The solutions fixed by a rotation, found by placing whole orbits of cells: for the
/// lowest empty row, each column's cell and its images under the half turn (`turns` = 2)
/// or the quarter turns (4) are placed together, each checked against every queen placed
/// so far (rows, columns and both diagonals as absolute masks).
struct Orbits<'a> {
    n: usize,
    turns: usize,
    stop: &'a AtomicBool,
    found: u64,
    nodes: u64,
    stopped: bool,
}

impl Orbits<'_> {
    fn count(n: usize, turns: usize, first: Option<usize>, stop: &AtomicBool) -> Option<Recount> {
        let mut o = Orbits {
            n,
            turns,
            stop,
            found: 0,
            nodes: 0,
            stopped: false,
        };
        o.fill(Taken::default(), first);
        (!o.stopped).then_some(Recount {
            solutions: o.found,
            sets: 0,
            nodes: o.nodes,
        })
    }

    /// The cell's orbit under the rotations by 360/turns degrees.
    fn orbit(&self, (r, c): (usize, usize)) -> Vec<(usize, usize)> {
        let m = self.n - 1;
        let mut cells = match self.turns {
            2 => vec![(r, c), (m - r, m - c)],
            _ => vec![(r, c), (c, m - r), (m - r, m - c), (m - c, r)],
        };
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    fn fill(&mut self, taken: Taken, first: Option<usize>) {
        let Some(row) = (0..self.n).find(|&r| taken.rows >> r & 1 == 0) else {
            self.found += 1;
            return;
        };
        if row < 3 && self.stop.load(Ordering::Relaxed) {
            self.stopped = true;
        }
        if self.stopped {
            return;
        }
        for c in 0..self.n {
            if first.is_some_and(|f| f != c) {
                continue;
            }
            let mut t = taken;
            if self
                .orbit((row, c))
                .into_iter()
                .all(|cell| t.put(self.n, cell))
            {
                self.nodes += 1;
                self.fill(t, None);
            }
        }
    }
}

/// Rows, columns and diagonals (up: r + c; down: c - r + n - 1) holding a queen.
#[derive(Clone, Copy, Default)]
struct Taken {
    rows: u64,
    cols: u64,
    up: u128,
    down: u128,
}

impl Taken {
    /// Puts a queen on the cell if nothing attacks it.
    fn put(&mut self, n: usize, (r, c): (usize, usize)) -> bool {
        let (up, down) = (1u128 << (r + c), 1u128 << (c + n - 1 - r));
        if self.rows >> r & 1 == 1
            || self.cols >> c & 1 == 1
            || self.up & up != 0
            || self.down & down != 0
        {
            return false;
        }
        self.rows |= 1 << r;
        self.cols |= 1 << c;
        self.up |= up;
        self.down |= down;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plan::{Engine, UnitPlan};
    use crate::engine::{quadrant, NEVER};

    /// Every unit of the plan recounts to the engine's solutions.
    fn agrees_on(plan: &UnitPlan, units: impl Iterator<Item = usize>) {
        let n = plan.n();
        for i in units {
            let u = plan.units()[i];
            let plain = recount(n, &u, &NEVER).unwrap();
            let engine = u.run(n as usize);
            assert_eq!(plain.solutions, engine.solutions, "n = {n}, unit {u:?}");
        }
    }

    #[test]
    fn frames_are_the_engines() {
        for n in [5u32, 7, 9, 13, 17, 21] {
            let mine = PlainFrame::all(n as usize);
            let theirs = quadrant::Frame::all(n);
            assert_eq!(mine.len(), theirs.len(), "n = {n}");
            for (a, b) in mine.iter().zip(&theirs) {
                let mut pre: Vec<(usize, usize)> = b
                    .preplaced()
                    .iter()
                    .map(|&(r, c)| (r as usize, c as usize))
                    .collect();
                pre.sort_unstable();
                assert_eq!(a.pre, pre, "n = {n}");
            }
        }
    }

    #[test]
    fn every_unit_of_n_12_to_14_agrees_with_the_engine() {
        for n in 12..=14 {
            let plan = UnitPlan::with_engine(n, Engine::Quadrant);
            agrees_on(&plan, 0..plan.len());
        }
    }

    #[test]
    fn every_backtracking_unit_of_small_n_agrees_with_the_engine() {
        for n in 1..=10 {
            let plan = UnitPlan::with_engine(n, Engine::Backtrack);
            agrees_on(&plan, 0..plan.len());
        }
    }

    #[test]
    fn sampled_units_of_n_16_to_18_agree_with_the_engine() {
        for (n, step) in [(16u32, 97usize), (17, 1_499), (18, 1_999)] {
            let plan = UnitPlan::with_engine(n, Engine::Quadrant);
            // Every step-th unit, the last quadrant units of each frame among them by
            // chance only; the F180 and F90 units at the end.
            let len = plan.len();
            agrees_on(
                &plan,
                (0..len).step_by(step).chain(len - n as usize - 1..len),
            );
        }
    }

    #[test]
    fn the_plain_sum_over_a_whole_plan_is_the_known_total() {
        for n in [12u32, 13] {
            let plan = UnitPlan::with_engine(n, Engine::Quadrant);
            let total: u64 = plan
                .units()
                .iter()
                .filter(|u| matches!(u.kind, UnitKind::Quadrant { .. }))
                .map(|u| recount(n, u, &NEVER).unwrap().solutions)
                .sum();
            assert_eq!(
                u128::from(total),
                crate::engine::known::lookup(n).unwrap().total
            );
        }
    }

    #[test]
    fn a_wrong_weight_is_caught() {
        // Each rule with one weight changed: some unit of n = 12 / 13 recounts to other
        // solutions than the engine's. (Not a wrong weight: the even rule on the centre
        // frame, which gives the centre rule's weights, since the centre queen holds both
        // long diagonals and z·ns is then the size of {E, rev E, Ē, rev Ē}.)
        for (n, wrong) in [
            (12u32, Weighing::Orbit(2)), // the even board weighed as an orbit
            (12, Weighing::Centre),      // the even board without its long-diagonal rule
            (13, Weighing::Orbit(8)),    // the centre frame with a fixed weight
            (13, Weighing::Orbit(4)),
        ] {
            let plan = UnitPlan::with_engine(n, Engine::Quadrant);
            let mut frame = PlainFrame::all(n as usize).remove(0);
            frame.rule = wrong;
            let differs = plan.units().iter().any(|u| match u.kind {
                UnitKind::Quadrant { frame: 0, prefix } => {
                    frame.recount_unit(prefix, &NEVER).unwrap().solutions
                        != u.run(n as usize).solutions
                }
                _ => false,
            });
            assert!(differs, "n = {n}: {wrong:?} went unnoticed");
        }
        // An orbit frame of n = 13 with weight 4 instead of 8, or 8 instead of 4.
        let plan = UnitPlan::with_engine(13, Engine::Quadrant);
        let frames = PlainFrame::all(13);
        for (i, f) in frames.iter().enumerate().skip(1).take(6) {
            let Weighing::Orbit(w) = f.rule else {
                unreachable!()
            };
            let mut f = f.clone();
            f.rule = Weighing::Orbit(12 - w);
            let differs = plan.units().iter().any(|u| match u.kind {
                UnitKind::Quadrant { frame, prefix } if frame as usize == i => {
                    f.recount_unit(prefix, &NEVER).unwrap().solutions != u.run(13).solutions
                }
                _ => false,
            });
            assert!(differs, "frame {i}");
        }
    }

    #[test]
    fn symmetric_units_match_the_table() {
        // F180 and F90 from the table's orbit counts: F180 = 4p + 2r, F90 = 2r.
        for n in 1..=12u32 {
            let k = crate::engine::known::lookup(n).unwrap();
            let f180: u64 = (0..n as u8)
                .map(|col| {
                    Orbits::count(n as usize, 2, Some(col as usize), &NEVER)
                        .unwrap()
                        .solutions
                })
                .sum();
            let f90 = Orbits::count(n as usize, 4, None, &NEVER)
                .unwrap()
                .solutions;
            if n > 1 {
                assert_eq!(u128::from(f180), 4 * k.orbits4 + 2 * k.orbits2, "n = {n}");
                assert_eq!(u128::from(f90), 2 * k.orbits2, "n = {n}");
            } else {
                assert_eq!((f180, f90), (1, 1));
            }
        }
    }

    #[test]
    fn a_raised_stop_gives_up() {
        let plan = UnitPlan::with_engine(12, Engine::Quadrant);
        let stop = AtomicBool::new(true);
        for u in [plan.units()[0], plan.units()[plan.len() - 1]] {
            assert_eq!(recount(12, &u, &stop), None);
        }
    }
}
