//! How the quadrant engine's work is cut into units, and what a unit costs.
//!
//! A unit is one frame (the pre-placed middle queens of an odd board, nothing for an even
//! one) and a *prefix*: which of the frame's first `p` rows put their queen east. The unit
//! counts every set E of the frame that starts with that prefix (the other rows in every
//! way that leaves the right number of queens east). Units of one frame partition its sets
//! E, so the plan counts every solution once.
//!
//! `p` is [`EVEN_PREFIX_ROWS`] for even n and [`ODD_PREFIX_ROWS`] for odd n (odd boards
//! have many frames already), or every row on small boards. Worked numbers (`nqueens plan N
//! --stats`, whose totals add the F180/F90 units): n = 16 has one unit per counted set E:
//! 6,470 units; n = 20 fixes 17 of 20 rows: 53,252 units of 1 to 3 sets, about 52 per
//! worker on 1,024 workers; n = 17 has 29 frames of 15 rows, 12 fixed: 85,885 units.
//! Prefixes whose every set is skipped by symmetry are not units.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{sets, Frame, Rule};

/// How often listing a frame's unit prefixes reads the stop flag: every 4,096 prefixes or
/// sets (well under a millisecond).
const STOP_EVERY: u32 = 1 << 12;

/// Rows fixed by a unit's prefix on even boards up to n = 24.
pub const EVEN_PREFIX_ROWS: u32 = 17;
/// Rows fixed by a unit's prefix on odd boards up to n = 25.
pub const ODD_PREFIX_ROWS: u32 = 12;

/// Rows a unit's prefix fixes for a frame with `rows` free rows.
///
/// Units should take seconds to minutes of one core at every n, so that a pre-empted
/// cluster job loses little and a dynamic scheduler can balance. A set E costs about 7.5x
/// more per n (its two pattern lists each grow about 2.7x), so the free rows shrink with n.
/// Measured on one core of an Intel Xeon (Sapphire Rapids class), mean per set: n = 24
/// 1.3 s, n = 25 0.14 s (two middle queens pre-placed), n = 26 about 80 s. So n = 24 keeps
/// 7 free rows (at most 35 sets, under a minute), n = 25 keeps 11 (at most 462 small
/// sets, about a minute), n = 26 leaves 2 (at most 2 sets), n = 27 leaves 8 and n = 28
/// none (one set per unit, minutes each: 4 minutes of one core at the median and 23 at p99
/// by `nqueens estimate 28` on an Intel Xeon model 167; the largest unit the plan allows
/// without splitting a set).
pub fn prefix_rows(n: u32, rows: u32) -> u32 {
    let p = match n {
        ..=24 if n.is_multiple_of(2) => EVEN_PREFIX_ROWS,
        ..=25 => ODD_PREFIX_ROWS,
        26 => rows.saturating_sub(2),
        27 => rows.saturating_sub(8),
        _ => rows,
    };
    rows.min(p)
}

impl Frame {
    /// The sets E of this frame whose first `p` rows are `prefix` (bit i: row
    /// `rows()[i]` is east), counted or not.
    pub fn sets_with_prefix(&self, p: u32, prefix: u32) -> impl Iterator<Item = u32> {
        let m = self.rows().len() as u32;
        let k = self.east_queens();
        let fixed = prefix.count_ones();
        let rest = (p <= m && fixed <= k && k - fixed <= m - p).then(|| sets(m - p, k - fixed));
        rest.into_iter().flatten().map(move |r| prefix | r << p)
    }

    /// The prefixes of this frame's units without a stop flag (the tests).
    #[cfg(test)]
    pub fn unit_prefixes(&self, n: u32) -> Box<dyn Iterator<Item = u32> + '_> {
        self.unit_prefixes_until(n, &crate::engine::NEVER)
            .expect("never stopped")
    }

    /// The prefixes of this frame's units: those with at least one counted set E,
    /// ascending; None once `stop` is raised (read every [`STOP_EVERY`] prefixes or sets:
    /// one frame can take seconds, n = 32 lists 601 million sets).
    ///
    /// Where prefixes outnumber the sets (n >= 26), the counted sets are listed and their
    /// prefixes kept instead of trying every prefix: the same list. Where a prefix fixes
    /// every row (n >= 28) the prefixes are the counted sets themselves, in the ascending
    /// order they are made, and are handed out one by one: a list of them all is 160 MB
    /// at n = 28 and 2.4 GB at n = 32, which a plan built within a small budget (a file
    /// claiming n = 32 to `merge`) must not allocate before its first unit. That iterator
    /// ends early once `stop` is raised: the caller reads the flag after it.
    pub fn unit_prefixes_until<'a>(
        &'a self,
        n: u32,
        stop: &'a AtomicBool,
    ) -> Option<Box<dyn Iterator<Item = u32> + 'a>> {
        let m = self.rows().len() as u32;
        let p = prefix_rows(n, m);
        Some(if p + 4 < m || p <= 20 {
            Box::new(self.prefixes_tried(p, stop)?.into_iter())
        } else if p == m {
            Box::new(
                self.counted_sets()
                    .enumerate()
                    .take_while(move |&(i, _)| {
                        i % STOP_EVERY as usize != 0 || !stop.load(Ordering::Relaxed)
                    })
                    .map(|(_, e)| e),
            )
        } else {
            Box::new(self.prefixes_of_sets(p, stop)?.into_iter())
        })
    }

    /// The counted sets, ascending: the prefixes when a prefix fixes every row.
    fn counted_sets(&self) -> impl Iterator<Item = u32> + '_ {
        let m = self.rows().len() as u32;
        sets(m, self.east_queens()).filter(|&e| self.weight(e).0 > 0)
    }

    /// The prefixes of `p` rows with a counted set, by trying each of the 2^p.
    fn prefixes_tried(&self, p: u32, stop: &AtomicBool) -> Option<Vec<u32>> {
        let mut v = Vec::new();
        for prefix in 0..1u32 << p {
            if prefix % STOP_EVERY == 0 && stop.load(Ordering::Relaxed) {
                return None;
            }
            if self
                .sets_with_prefix(p, prefix)
                .any(|e| self.weight(e).0 > 0)
            {
                v.push(prefix);
            }
        }
        Some(v)
    }

    /// The same list, from the counted sets.
    fn prefixes_of_sets(&self, p: u32, stop: &AtomicBool) -> Option<Vec<u32>> {
        let m = self.rows().len() as u32;
        let low = if p == 32 { u32::MAX } else { (1u32 << p) - 1 };
        let mut v: Vec<u32> = Vec::new();
        for (i, e) in sets(m, self.east_queens()).enumerate() {
            if i % STOP_EVERY as usize == 0 && stop.load(Ordering::Relaxed) {
                return None;
            }
            if self.weight(e).0 > 0 {
                v.push(e & low);
            }
        }
        v.sort_unstable();
        v.dedup();
        Some(v)
    }

    /// Estimated cost of a unit: the sum of [`Proxy::set`] over its sets, from at
    /// most [`PROXY_SAMPLE`] of them spread evenly over the unit (scaled up), so that a
    /// shard job can estimate a whole plan in a second.
    pub fn estimate_unit(&self, proxy: &Proxy, p: u32, prefix: u32) -> f64 {
        self.sum_over_unit(p, prefix, |e| proxy.set(self, e))
    }

    /// The unit's weight in `nqueens estimate`'s draw: the sum of [`Proxy::draw_weight`]
    /// over its sets, spread and scaled as in [`Frame::estimate_unit`].
    pub fn draw_weight_unit(&self, proxy: &Proxy, p: u32, prefix: u32) -> f64 {
        self.sum_over_unit(p, prefix, |e| proxy.draw_weight(self, e))
    }

    /// `set(e)` summed over the counted sets of unit (`p`, `prefix`), from at most
    /// [`PROXY_SAMPLE`] of them spread evenly over the unit, scaled up.
    fn sum_over_unit(&self, p: u32, prefix: u32, set: impl Fn(u32) -> f64) -> f64 {
        let mut sets = [0u32; PROXY_SAMPLE];
        let mut total = 0usize;
        // Keep every step-th set; the step doubles (keeping every other kept one) when
        // the sample is full, so the kept sets stay evenly spread without a list of all.
        let (mut step, mut kept) = (1usize, 0usize);
        for (i, e) in self.sets_with_prefix(p, prefix).enumerate() {
            total += 1;
            if i % step != 0 {
                continue;
            }
            if kept == PROXY_SAMPLE {
                for j in 0..PROXY_SAMPLE / 2 {
                    sets[j] = sets[2 * j];
                }
                kept = PROXY_SAMPLE / 2;
                step *= 2;
                if i % step != 0 {
                    continue;
                }
            }
            sets[kept] = e;
            kept += 1;
        }
        if kept == 0 {
            return 0.0;
        }
        let sum: f64 = sets[..kept]
            .iter()
            .filter(|&&e| self.weight(e).0 > 0)
            .map(|&e| set(e))
            .sum();
        sum * total as f64 / kept as f64
    }
}

/// The smallest n whose sets `estimate` draws by [`Proxy::draw_weight`]'s `E²·W³`: below
/// it units hold many sets and are mostly timed whole, and at n = 24 the power fitted worse
/// than the cost estimate (coefficient of variation 0.44-0.57 against 0.42).
pub const DRAW_WEIGHT_FROM: u32 = 26;

/// Sets of a unit whose estimate is computed (the rest are taken as like them).
pub const PROXY_SAMPLE: usize = 16;

/// Pattern pairs one half pattern costs to make, in the estimate (measured at n = 20: the
/// half searches take 30% of a set's time, about 4,000 join pair tests per pattern).
pub const PATTERN_PAIRS: f64 = 4096.0;

/// What [`Proxy::set`] precomputes per frame.
#[derive(Clone, Debug)]
pub struct Proxy {
    /// `clash[side][d]`: 1 − the share of the side's free column pairs that are d apart.
    clash: [[f64; 64]; 2],
    /// `blocked[side][i]`: free cells of row `rows[i]` in the side on a pre-placed queen's
    /// diagonal (or a long one the east half avoids).
    blocked: [Vec<f64>; 2],
    /// k! for each side's k free columns.
    fact: [f64; 2],
}

impl Proxy {
    /// The precomputed factors of `frame`.
    pub fn new(frame: &Frame) -> Proxy {
        let n = frame.n;
        let cols = [frame.west, frame.east];
        let mut clash = [[1.0; 64]; 2];
        let mut blocked = [Vec::new(), Vec::new()];
        let mut fact = [1.0; 2];
        for side in 0..2 {
            let c = cols[side];
            let k = c.count_ones();
            for i in 1..=k {
                fact[side] *= f64::from(i);
            }
            let pairs = f64::from(k * k.saturating_sub(1) / 2).max(1.0);
            let mut at = [0u32; 64];
            for a in 0..n {
                for b in a + 1..n {
                    if c >> a & c >> b & 1 == 1 {
                        at[b - a] += 1;
                    }
                }
            }
            for d in 1..64 {
                clash[side][d] = 1.0 - f64::from(at[d]) / pairs;
            }
            for &r in &frame.rows {
                let r = r as usize;
                let mut hit = 0u64;
                for &(pr, pc) in &frame.pre {
                    let (pr, pc) = (pr as usize, pc as usize);
                    let d = r.abs_diff(pr);
                    if pc >= d {
                        hit |= 1 << (pc - d);
                    }
                    hit |= (1u64 << (pc + d)) & ((1u64 << n) - 1);
                }
                if side == 1 && frame.rule == Rule::Even {
                    hit |= 1 << (n - 1 - r) | 1 << r; // the long diagonals
                }
                let b = f64::from((hit & c).count_ones());
                blocked[side].push(1.0 - b / f64::from(k.max(1)));
            }
        }
        Proxy {
            clash,
            blocked,
            fact,
        }
    }

    /// Estimated cost of counting set E, in pair equivalents: a pure function of the frame
    /// and E (no table, no machine: the same on every node of a cluster, whatever its
    /// memory), computed with IEEE additions, multiplications and divisions only, whose
    /// results are the same on every platform. Callers skip the sets that are not counted
    /// (weight 0).
    ///
    /// The join tests east × west pattern pairs and the half searches cost per pattern, so
    /// a set costs about `E·W + PATTERN_PAIRS·(E + W)`, where E and W are the pattern counts
    /// of the two halves. Each is approximated as if the queens' columns were a random
    /// permutation with independent clashes: for k rows in k free columns,
    ///
    /// `k! · Π_{row pairs} (1 − p(d)) · Π_{rows} (1 − blocked / k)`
    ///
    /// where p(d) is the share of column pairs at distance d (two queens d rows apart
    /// clash on a diagonal exactly when their columns are d apart) and `blocked` counts the
    /// row's free cells on a pre-placed queen's diagonal (and, for the east half of an even
    /// board, on a long diagonal, which it must avoid). Worked number, n = 20: the estimate
    /// of a set ranks like its measured time (see the tests); its scale is calibrated once,
    /// in `cost`.
    pub fn set(&self, frame: &Frame, e: u32) -> f64 {
        let [w, east] = self.halves(frame, e);
        east * w + PATTERN_PAIRS * (east + w)
    }

    /// Set E's weight in `nqueens estimate`'s draw (the set, and its unit, are drawn with
    /// probability proportional to it): on even boards from [`DRAW_WEIGHT_FROM`] `E²·W³` of
    /// the estimated pattern counts, elsewhere [`Proxy::set`]. (On odd boards it does not
    /// hold: `estimate 27` drawn by it gave an interval of 0 to 28 CPU-years.) Any positive weight keeps the estimate
    /// unbiased; the closer it follows the time, the narrower the interval.
    ///
    /// Why not `E·W`: a set's time grows faster than its pairs, because the larger lists
    /// belong to the less constrained sets, whose masks share fewer key bits and whose
    /// pieces therefore skip fewer west buckets. Measured (2026-12-03, Zen 4, `estimate`
    /// samples of 40, 60 and 32 units at n = 26, 24, 28, each set's time against these
    /// counts): a least-squares fit of log time gives exponents 2.35 / 3.0 at n = 26 and
    /// 2.3 / 2.9 at n = 28 (1.4 / 2.1 at n = 24, whose units hold 20 sets and are timed
    /// whole); with `E²·W³` the spread of time / weight (its coefficient of variation)
    /// fell from 0.70 to 0.52 at n = 26 and from 1.10 to 0.63 at n = 28, so the same
    /// interval needs about half the units. (The estimated counts themselves are good:
    /// their logs correlate 0.99 with the real list lengths; the product `E·W` is what
    /// misses.)
    pub fn draw_weight(&self, frame: &Frame, e: u32) -> f64 {
        if frame.n < DRAW_WEIGHT_FROM as usize || frame.rule != Rule::Even {
            return self.set(frame, e);
        }
        let [w, east] = self.halves(frame, e);
        // At least the smallest positive number: a set of weight 0 would never be drawn,
        // and the estimate would miss its time.
        (east * east * w * w * w).max(f64::MIN_POSITIVE)
    }

    /// Upper bounds of [`Proxy::halves`] over every set of the frame, [west, east]: the
    /// permutations of each side's free columns (every other factor is at most 1).
    pub fn most(&self) -> [f64; 2] {
        self.fact
    }

    /// The estimated pattern counts of set E's halves, [west, east] (the factors of
    /// [`Proxy::set`]; used to cut a set too large for memory, `Frame::parts`).
    ///
    /// The factors of each side are multiplied in a fixed order (for each row i: its
    /// `blocked` factor, then the clash factor of each later row of its side, in row order),
    /// so the result is the same to the last bit on every platform: shard membership
    /// depends on it. The later rows of i's side are visited as the set bits of a mask
    /// rather than by testing every later row: the test's branch went either way at random
    /// (half the rows are east), and this function was a third of `plan 28 --stats`.
    pub fn halves(&self, frame: &Frame, e: u32) -> [f64; 2] {
        let rows = &frame.rows;
        let m = rows.len();
        let all = (1u64 << m) - 1; // m <= 32 rows
        let east = u64::from(e) & all;
        let mut half = [self.fact[0], self.fact[1]];
        for (i, &a) in rows.iter().enumerate() {
            let side = (east >> i & 1) as usize;
            let clash = &self.clash[side];
            let mut acc = half[side] * self.blocked[side][i];
            let mine = if side == 1 { east } else { all & !east };
            let mut later = mine & !((2u64 << i) - 1);
            while later != 0 {
                let j = later.trailing_zeros() as usize;
                acc *= clash[usize::from(rows[j] - a)];
                later &= later - 1;
            }
            half[side] = acc;
        }
        half
    }

    /// [`Proxy::halves`] as the definition reads (every later row tested), for the test
    /// that the two agree to the last bit.
    #[cfg(test)]
    fn halves_plain(&self, frame: &Frame, e: u32) -> [f64; 2] {
        let rows = &frame.rows;
        let mut half = [self.fact[0], self.fact[1]];
        for (i, &a) in rows.iter().enumerate() {
            let side = (e >> i & 1) as usize;
            half[side] *= self.blocked[side][i];
            for (j, &b) in rows.iter().enumerate().skip(i + 1) {
                if (e >> j & 1) as usize == side {
                    half[side] *= self.clash[side][usize::from(b - a)];
                }
            }
        }
        half
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draw_weights_are_e2_w3_on_even_frontier_boards_and_the_cost_elsewhere() {
        // n = 26: the estimated counts' E²·W³, positive, and not the cost E·W + ... .
        let f = &Frame::all(26)[0];
        let proxy = Proxy::new(f);
        let counted: Vec<u32> = sets(f.rows().len() as u32, f.east_queens())
            .filter(|&e| f.weight(e).0 > 0)
            .take(50)
            .collect();
        assert!(!counted.is_empty());
        for &e in &counted {
            let [w, east] = proxy.halves(f, e);
            let d = proxy.draw_weight(f, e);
            assert!(d > 0.0, "set {e:#x}");
            assert_eq!(
                d,
                (east * east * w * w * w).max(f64::MIN_POSITIVE),
                "set {e:#x}"
            );
            assert_ne!(d, proxy.set(f, e), "set {e:#x}");
        }
        // Odd boards, and even ones below DRAW_WEIGHT_FROM, keep the cost estimate.
        for n in [24, 25, 27] {
            let f = &Frame::all(n)[1.min(Frame::all(n).len() - 1)];
            let proxy = Proxy::new(f);
            let e = sets(f.rows().len() as u32, f.east_queens())
                .find(|&e| f.weight(e).0 > 0)
                .expect("a counted set");
            assert_eq!(proxy.draw_weight(f, e), proxy.set(f, e), "n = {n}");
        }
    }

    /// The mask walk of `halves` gives the same bits as the plain double loop, on every
    /// frame of an even and an odd board and at n = 28 (the 32-row bound's neighbourhood).
    #[test]
    fn halves_agree_with_the_plain_loop_to_the_last_bit() {
        for n in [12u32, 13, 20, 27, 28, 32] {
            for f in Frame::all(n).iter().take(4) {
                let proxy = Proxy::new(f);
                let m = f.rows().len() as u32;
                let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(n);
                for _ in 0..200 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let e = (x as u32) & (u32::MAX >> (32 - m));
                    let (a, b) = (proxy.halves(f, e), proxy.halves_plain(f, e));
                    assert_eq!(
                        a.map(f64::to_bits),
                        b.map(f64::to_bits),
                        "n = {n}, e = {e:#x}"
                    );
                }
            }
        }
    }

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
    fn a_raised_stop_ends_the_listing_of_prefixes() {
        let stop = std::sync::atomic::AtomicBool::new(true);
        let f = &Frame::all(12)[0];
        let m = f.rows().len() as u32;
        assert_eq!(f.prefixes_tried(m / 2, &stop), None);
        assert_eq!(f.prefixes_of_sets(m, &stop), None);
        assert!(f.unit_prefixes_until(12, &stop).is_none());
        // From n = 28 the prefixes are made lazily: the list ends at once instead.
        let f = &Frame::all(28)[0];
        let lazy = f.unit_prefixes_until(28, &stop).expect("lazy");
        assert_eq!(lazy.count(), 0);
    }

    #[test]
    fn prefixes_fixing_every_row_are_the_counted_sets_in_order() {
        let never = std::sync::atomic::AtomicBool::new(false);
        for n in [12u32, 13] {
            for f in Frame::all(n) {
                let m = f.rows().len() as u32;
                assert_eq!(prefix_rows(n, m), m);
                assert_eq!(
                    Some(f.counted_sets().collect::<Vec<_>>()),
                    f.prefixes_of_sets(m, &never)
                );
            }
        }
    }

    #[test]
    fn both_ways_of_listing_prefixes_agree() {
        for n in [10u32, 11, 12, 13] {
            for f in Frame::all(n) {
                let m = f.rows().len() as u32;
                for p in [m / 2, m - 2, m] {
                    assert_eq!(
                        f.prefixes_tried(p, &crate::engine::NEVER),
                        f.prefixes_of_sets(p, &crate::engine::NEVER),
                        "n = {n}, p = {p}"
                    );
                }
            }
        }
    }

    #[test]
    fn units_stay_small_at_the_frontier() {
        // At most 35 sets per unit at n = 24, 2 at n = 26, 1 at n = 28.
        for (n, most) in [(24u32, 35u64), (26, 2), (28, 1)] {
            let f = &Frame::all(n)[0];
            let m = f.rows().len() as u32;
            let free = m - prefix_rows(n, m);
            let widest = (0..=free).map(|k| binomial(free, k)).max().unwrap();
            assert_eq!(widest, most, "n = {n}");
        }
        assert_eq!(prefix_rows(22, 22), EVEN_PREFIX_ROWS);
        assert_eq!(prefix_rows(23, 21), ODD_PREFIX_ROWS);
    }

    fn binomial(n: u32, k: u32) -> u64 {
        (0..k).fold(1u64, |acc, i| acc * u64::from(n - i) / u64::from(i + 1))
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
