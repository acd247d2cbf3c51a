//! The frames of the quadrant engine: what is fixed before the halves of a board are
//! searched (the pre-placed middle queens of an odd board), the diagonal geometry every set
//! E of a frame shares (which diagonals cross both halves, the bits of a pattern mask), and
//! the symmetry weight of each set (the method and why each weight is exact: the module
//! doc of `quadrant`).

use super::super::symmetry::Transform;
use super::{MAX_N, MIN_N};

/// What is fixed before the halves are searched: the pre-placed middle queens of an odd
/// board (none for even n), and the symmetry rule that weighs each set E.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub(super) n: usize,
    /// Pre-placed queens (row, col).
    pub(super) pre: Vec<(u8, u8)>,
    /// Rows left to fill, ascending.
    pub(super) rows: Vec<u8>,
    /// Free columns of the west and east halves.
    pub(super) west: u64,
    pub(super) east: u64,
    /// How sets E are weighted.
    pub(super) rule: Rule,
    /// Diagonals (absolute up, down) no queen may take besides the pre-placed ones' own:
    /// the empty long diagonals of [`Frame::all_long`]'s frames; none in the plan's frames.
    /// Test-only: the plan's frames avoid nothing, and only the experiment of
    /// [`Frame::all_long`] sets it.
    #[cfg(test)]
    pub(super) avoid: (u64, u64),
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

    pub(super) fn new(n: usize, pre: Vec<(u8, u8)>, rule: Rule) -> Frame {
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
            #[cfg(test)]
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
    /// instead of 3.5e5 at n = 22), so the plan does not use it. At n = 26 and 28, where the
    /// plan's sets are long, it still takes about 1.4 and 1.6-2.0 times the CPU a solution
    /// (`long_frames_by_ratio`, another build and machine; the quadrant module doc).
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
            let Some(orbit) = orbit_size(n, &pre) else {
                continue;
            };
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
                Rule::Orbit(orbit)
            };
            let mut f = Frame::new(n, qs, rule);
            f.avoid = avoid;
            frames.push(f);
        }
        frames
    }

    /// The frames of an even board by its border queens, a second alternative to
    /// [`Rule::Even`] kept for its measurement (`border_frames_sampled` in the tests): the
    /// queens of the first and last rows and columns (3 or 4 queens; a corner queen serves a
    /// row and a column), as the backtracking engine's and the FPGA counts' pre-placement.
    /// The 8 symmetries map the border onto itself, so one placement per orbit is counted
    /// with the orbit's size as weight (every set E, [`Rule::Orbit`]). Exact (test
    /// `border_frames_count_the_known_values`), but each frame leaves n - 4 rows or so, so a
    /// board has about n^4 / 8 frames of C(n - 4, n/2 - 2) sets each: 7.0e8 sets at n = 22
    /// against the plan's 3.5e5 (see the quadrant module doc for the measurement).
    #[cfg(test)]
    pub fn all_border(n: u32) -> Vec<Frame> {
        assert!(
            n.is_multiple_of(2) && n >= 6,
            "border frames: even n >= 6, not {n}"
        );
        let n = n as usize;
        let m = n - 1;
        let mut frames = Vec::new();
        // a: column of row 0's queen, b: column of row m's, c: row of column 0's, d: row
        // of column m's. A corner queen is two of them at once: a = 0 exactly when c = 0.
        for a in 0..n {
            for b in 0..n {
                for c in 0..n {
                    for d in 0..n {
                        let corners = [
                            (a == 0, c == 0),
                            (a == m, d == 0),
                            (b == 0, c == m),
                            (b == m, d == m),
                        ];
                        if corners.iter().any(|&(x, y)| x != y) {
                            continue;
                        }
                        let mut pre = vec![(0, a), (m, b), (c, 0), (d, m)];
                        pre.sort_unstable();
                        pre.dedup();
                        let attacks = |p: (usize, usize), q: (usize, usize)| {
                            p.0 == q.0 || p.1 == q.1 || p.0.abs_diff(q.0) == p.1.abs_diff(q.1)
                        };
                        if (0..pre.len())
                            .any(|i| (i + 1..pre.len()).any(|j| attacks(pre[i], pre[j])))
                        {
                            continue;
                        }
                        let Some(orbit) = orbit_size(n, &pre) else {
                            continue;
                        };
                        let qs = pre.iter().map(|&(r, c)| (r as u8, c as u8)).collect();
                        frames.push(Frame::new(n, qs, Rule::Orbit(orbit)));
                    }
                }
            }
        }
        frames
    }

    /// The group of a two-queen frame of an odd board: the row r of its middle-column
    /// queen (r, h) and whether its middle-row queen (h, c) is west (c < h). None for the
    /// centre frame and even boards.
    ///
    /// Why frames group: two frames with the same r and the same side of c leave the same
    /// rows free, and the side away from c keeps all its h columns (its *full* side: east
    /// when c is west). The full side's patterns of a set E then differ between the frames
    /// only by the two diagonals of (h, c), which they must avoid: each frame's list is the
    /// list made without (h, c) ([`Frame::group_frame`]), less the patterns on those two
    /// diagonals ([`Frame::full_block`]), in the same order (the half searches only skip
    /// what a blocked diagonal forbids). Worked numbers: n = 23 keeps 55 two-queen frames
    /// in 10 groups of 10 down to 1, and a frame keeps 46% of its group's list.
    pub(super) fn group(&self) -> Option<(u8, bool)> {
        let h = (self.n / 2) as u8;
        match (self.rule, self.pre.as_slice()) {
            (Rule::Orbit(_), &[(_, c), (r, _)]) => Some((r, c < h)),
            _ => None,
        }
    }

    /// Whether the full side (see [`Frame::group`]) is the east half.
    pub(super) fn full_east(&self) -> bool {
        self.east.count_ones() as usize == self.n / 2
    }

    /// The frame of this frame's group: the same rows and columns, the middle-column queen
    /// alone pre-placed. Only its full side's patterns are used.
    pub(super) fn group_frame(&self) -> Frame {
        Frame {
            pre: self.pre[1..].to_vec(),
            ..self.clone()
        }
    }

    /// The diagonals of the middle-row queen as bits of a full-side pattern's mask: a
    /// pattern of the group's list belongs to this frame exactly when it takes none.
    ///
    /// A pattern's mask keeps absolute diagonal d at bit d - lo (up) and len + d - lo
    /// (down), lo = [`Frame::shared_lo`], on either side: the searches shift a side's
    /// diagonals by its first column c0 and then by lo - c0. A diagonal of (h, c) outside
    /// the shared range is one no queen of the full side can take (it is the other side's
    /// queen, so its diagonals reach the full side only through shared ones): dropping it
    /// drops nothing. Worked number: n = 7 (h = 3, lo = 4, len = 5), (3, 1): up-diagonal 4
    /// is bit 0, down-diagonal 1 - 3 + 6 = 4 is bit 5 + 0 = 5; block = 0b100001.
    pub(super) fn full_block(&self) -> u64 {
        let (r, c) = (u32::from(self.pre[0].0), u32::from(self.pre[0].1));
        let (lo, len) = (self.shared_lo(), self.shared_len());
        let mask = (1u64 << len) - 1;
        let up = (1u64 << (r + c)) >> lo & mask;
        let down = (1u64 << (c + self.n as u32 - 1 - r)) >> lo & mask;
        up | down << len
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
    pub(super) fn shared_lo(&self) -> u32 {
        (self.n - self.n / 2) as u32
    }

    /// Shared diagonals per direction: from the first east column to `n - 1 + last west
    /// column` (n - 1 for even n, n - 2 for odd n).
    pub(super) fn shared_len(&self) -> u32 {
        let h = (self.n / 2) as u32;
        (self.n as u32 - 1 + h - 1) - self.shared_lo() + 1
    }

    /// Bits of a pattern mask.
    pub fn bits(&self) -> u32 {
        2 * self.shared_len()
    }

    /// Diagonals of the pre-placed queens (absolute numbering: up r + c, down
    /// c - r + n - 1; below 2n - 1 <= 63).
    pub(super) fn pre_diagonals(&self) -> (u64, u64) {
        #[cfg(test)]
        let avoid = self.avoid;
        #[cfg(not(test))]
        let avoid = (0, 0);
        self.pre.iter().fold(avoid, |(u, d), &(r, c)| {
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

    /// Writes the rows four ways into `buf`: east-north, east-south, west-north,
    /// west-south (east by E, north above the middle), and returns where the last three
    /// parts start.
    pub(super) fn split_into(&self, e: u32, buf: &mut Vec<u8>) -> [usize; 3] {
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

/// The number of distinct images of the queens `pre` under the 8 symmetries, or None
/// unless `pre` (as a sorted set) is the smallest of them: the experiments' frames keep one
/// placement per orbit, weighted by its size.
#[cfg(test)]
fn orbit_size(n: usize, pre: &[(usize, usize)]) -> Option<u8> {
    let sorted = |mut v: Vec<(usize, usize)>| {
        v.sort_unstable();
        v
    };
    let me = sorted(pre.to_vec());
    let mut images: Vec<Vec<(usize, usize)>> = Transform::ALL
        .iter()
        .map(|t| sorted(pre.iter().map(|&q| t.apply(n, q)).collect()))
        .collect();
    if images.iter().any(|im| *im < me) {
        return None;
    }
    images.sort_unstable();
    images.dedup();
    Some(images.len() as u8)
}

fn sorted_pair(a: (usize, usize), b: (usize, usize)) -> [(usize, usize); 2] {
    if a <= b {
        [a, b]
    } else {
        [b, a]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gosper_lists_every_set_once() {
        assert_eq!(sets(4, 2).collect::<Vec<_>>(), [3, 5, 6, 9, 10, 12]);
        assert_eq!(sets(5, 0).collect::<Vec<_>>(), [0]);
        assert_eq!(sets(20, 10).count(), 184_756);
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
