//! Half-board patterns: every way to put one queen in each row of a row set, in distinct
//! columns of one half of the board, with no two queens (nor a pre-placed queen) on one
//! diagonal. Each pattern is kept only as the set of *shared* diagonals it occupies: the
//! diagonals that also cross the other half, the only ones through which the two halves
//! can clash (see the module doc of `quadrant`).
//!
//! A half is built from its two quadrants: the north rows' placements (any columns of the
//! half) and the south rows' placements, each found by a small search, then paired when
//! their column sets are complementary and their diagonals do not clash. Searching the half
//! row by row instead would repeat each south search once per north placement: at n = 16
//! that placed 94 million queens for 15 million patterns, 77% of the engine's time.
//!
//! Diagonal numbering, relative to the half's first column `c0`: a queen at (r, c) takes
//! the up-diagonal `r + c - c0` and the down-diagonal `c - c0 - r + n - 1`. In row r the
//! columns (relative to c0) attacked along up-diagonals are `up >> r`, and along
//! down-diagonals `down >> (n - 1 - r)`: shifting by the row turns a diagonal index into a
//! column, so the rows of a quadrant need not be consecutive. Indices stay below
//! `n - 1 + h + h - 1 <= 62` for n <= 32, so every mask is a u64.

use super::table::QuadrantTable;
use crate::engine::isa::{self, Isa};

/// What a half-board search did, for the engine's honest work figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HalfStats {
    /// Quadrant placements enumerated: searched (queens placed), or read from the table.
    pub placements: u64,
    /// Complete half-board patterns found.
    pub patterns: u64,
}

/// Cache lines of the next column set's north and south lists asked for while a half is
/// paired from the table (8 placements a line). `perf` of `count 23 --shard 1234/2000 -t 1`
/// (Intel Xeon model 167, 2026-12-05): the load of the south list's placements held 13.5%
/// of the table walk's samples, the north list's 4%. Paired (both builds at once, cores
/// swapped, same shard files): that shard 0.980, 0.991, 0.988 with 4 lines, and 8 lines
/// 0.993, 0.995, 1.000 of 4. From h = 10 as well, n = 21 (`count 21 --shard 37/100`)
/// measured 0.997 and 0.996: no gain there, so the rule starts at 11 ([`PREFETCH_FROM`]).
const PREFETCH_LINES: usize = 8;
/// The smallest table side whose lists are prefetched: 11 (n = 22 and 23, 550 MB). The
/// table of h = 9 (n = 18 and 19, 5 MB) stays in cache, where asking cost `count 19 -t 1`
/// 6-7% (paired).
const PREFETCH_FROM: u32 = 11;

/// A placement of queens in some rows of a quadrant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Partial {
    /// Columns used, relative to the half's first column.
    cols: u64,
    /// Up-diagonals taken (relative numbering).
    up: u64,
    /// Down-diagonals taken (relative numbering).
    down: u64,
}

/// A quadrant placement read from the table, in the half's relative numbering, with the
/// shared part of its diagonals precomputed.
#[derive(Clone, Copy, Debug)]
struct Quarter {
    up: u64,
    down: u64,
    shared: u64,
}

/// The south placements of one column set, as [`Quarter`]s stored field by field (so that
/// the AVX2 loop loads four of each with one instruction). The fields' buffers never
/// shrink and reach at least one [`Quarters::BLOCK`] past the list: a block that runs past
/// `len` reads old words, which the pairing never keeps.
///
/// Each field starts on a 64-byte line (its buffer is 7 words longer, and the field begins
/// where the line does), so that no block of four straddles two lines. Where a buffer began
/// wherever the allocator put it (16-byte aligned) half the blocks could (see
/// `join::west::ChunkTable` for what such a lottery cost the join).
#[derive(Debug, Default)]
struct Quarters {
    /// The buffers of up, down and shared, and where each field starts in its buffer.
    bufs: [Vec<u64>; 3],
    start: [usize; 3],
    len: usize,
}

impl Quarters {
    /// Placements an AVX2 register holds.
    const BLOCK: usize = 4;

    /// The three fields' buffers, at least `len` + [`Quarters::BLOCK`] words each, to be
    /// written from 0 (and the list's length then set).
    fn room(&mut self, len: usize) -> [&mut [u64]; 3] {
        let need = len + Self::BLOCK;
        if self.bufs[0].len() < need + 7 {
            for (v, start) in self.bufs.iter_mut().zip(&mut self.start) {
                v.resize(need + 7, 0);
                *start = v.as_ptr().align_offset(64).min(7);
            }
        }
        self.len = 0;
        let [up, down, shared] = &mut self.bufs;
        let [a, b, c] = self.start;
        [&mut up[a..], &mut down[b..], &mut shared[c..]]
    }

    /// The fields up, down and shared, each at least `len` + [`Quarters::BLOCK`] words.
    #[inline(always)]
    fn fields(&self) -> [&[u64]; 3] {
        std::array::from_fn(|i| &self.bufs[i][self.start[i]..])
    }
}

/// Appends `a`'s pairing with every placement of `south` (padded) to `buf` from `kept`:
/// each candidate written, kept if the two share no diagonal (about one in four is, which
/// a branch would mispredict). Returns the new length. `buf` has room for
/// `kept + south.len` masks.
#[inline(always)]
fn pair_scalar(a: Quarter, south: &Quarters, buf: &mut [u64], mut kept: usize) -> usize {
    let n = south.len;
    let [ups, downs, shareds] = south.fields();
    for ((&up, &down), &shared) in ups[..n].iter().zip(&downs[..n]).zip(&shareds[..n]) {
        buf[kept] = a.shared | shared;
        kept += usize::from((a.up & up) | (a.down & down) == 0);
    }
    kept
}

/// For each 4-bit mask m of kept 64-bit lanes, the 32-bit lanes that move the kept ones
/// to the front, in order (`vpermd`'s indices): worked, m = 0b1010 keeps lanes 1 and 3,
/// so its row starts 2, 3, 6, 7 (the rest 0, never kept).
#[cfg(target_arch = "x86_64")]
const COMPRESS4: [[i32; 8]; 16] = {
    let mut rows = [[0i32; 8]; 16];
    let mut m = 0;
    while m < 16 {
        let (mut to, mut lane) = (0usize, 0i32);
        while lane < 4 {
            if m >> lane & 1 == 1 {
                rows[m][2 * to] = 2 * lane;
                rows[m][2 * to + 1] = 2 * lane + 1;
                to += 1;
            }
            lane += 1;
        }
        m += 1;
    }
    rows
};

isa::v3_fn! {
    /// [`pair_scalar`] four south placements at a time with AVX2: the four clash tests in
    /// one register, the kept masks moved to the front by `vpermd` with a row of
    /// [`COMPRESS4`] and stored as one block of 4 (the words past the kept ones are
    /// overwritten by the next block). `buf` has room for `kept + south.len + 4` masks.
    ///
    /// Measured (Zen 4, `count 23 --shard 1234/2000 -t 1`, two builds at once, cores
    /// swapped, 2026-12-04): this loop took 0.975 and 0.988 of the scalar loop's time on
    /// the same field-by-field lists; an AVX-512 copy (eight at a time, `vpcompressq`)
    /// took the same as this one (0.996 and 1.002), so there is none. Before it, the same
    /// shard's halves were 21% of its samples (the loop over 24-byte structs, pushed one
    /// by one), 13% after: the shard's CPU fell to 0.92 with the AVX-512 copy and the
    /// structs split into fields, and to 0.93 of that with the branch-free filling.
    #[inline]
    fn pair_avx2(a: Quarter, south: &Quarters, buf: &mut [u64], mut kept: usize) -> usize {
        use std::arch::x86_64::{
            __m256i, _mm256_and_si256, _mm256_castsi256_pd, _mm256_cmpeq_epi64,
            _mm256_movemask_pd, _mm256_or_si256, _mm256_set1_epi64x, _mm256_setzero_si256,
        };
        // One block of the padded lists (the type below asks for exactly four lanes).
        const B: usize = Quarters::BLOCK;
        // Four words as one register (one load), and back (one store).
        let load = |v: &[u64]| -> __m256i {
            isa::ymm(v.try_into().expect("a whole block"))
        };
        let store = |x: __m256i, out: &mut [u64]| out.copy_from_slice(&isa::words(x));
        let (au, ad, ash) = (
            _mm256_set1_epi64x(a.up as i64),
            _mm256_set1_epi64x(a.down as i64),
            _mm256_set1_epi64x(a.shared as i64),
        );
        let [ups, downs, shareds] = south.fields();
        for i in (0..south.len).step_by(B) {
            let r = i..i + B;
            let clash = _mm256_or_si256(
                _mm256_and_si256(load(&ups[r.clone()]), au),
                _mm256_and_si256(load(&downs[r.clone()]), ad),
            );
            let free = _mm256_cmpeq_epi64(clash, _mm256_setzero_si256());
            let mut keep = _mm256_movemask_pd(_mm256_castsi256_pd(free)) as usize;
            // Lanes past the list's end (the padding) are never kept.
            if south.len - i < B {
                keep &= (1 << (south.len - i)) - 1;
            }
            let masks = _mm256_or_si256(load(&shareds[r]), ash);
            store(compress(masks, keep), &mut buf[kept..kept + B]);
            kept += keep.count_ones() as usize;
        }
        kept
    }
}

/// Writes the south placements `ss` of one column set (local numbering) into `fields`
/// (up, down and shared; each at least `ss.len()` + [`Quarters::BLOCK`] words) in `half`'s
/// relative numbering, the rows starting at `s0`, keeping those off the pre-placed queens'
/// diagonals; returns how many it kept. Branch-free: each is written, and kept or
/// overwritten by the next. A plain loop, not `extend`: an iterator adapter is compiled out
/// of line once, for the baseline, and would miss the v3 twin (see `isa`).
#[inline(always)]
fn fill_scalar(half: &Half, s0: u32, ss: &[(u32, u32)], fields: [&mut [u64]; 3]) -> usize {
    let [ups, downs, shareds] = fields;
    let (pre_up, pre_down) = (half.pre_up, half.pre_down);
    let mut len = 0;
    for &(u, d) in ss {
        let (up, down) = (u64::from(u) << s0, u64::from(d));
        (ups[len], downs[len]) = (up, down);
        shareds[len] = half.shared(up, down);
        len += usize::from((up & pre_up) | (down & pre_down) == 0);
    }
    len
}

isa::v3_fn! {
    /// The lanes of `x` that `keep` marks (bit i for 64-bit lane i) moved to the front, in
    /// order, by `vpermd` with a row of [`COMPRESS4`]; the other lanes hold anything.
    #[inline]
    fn compress(x: std::arch::x86_64::__m256i, keep: usize) -> std::arch::x86_64::__m256i {
        use std::arch::x86_64::{_mm256_permutevar8x32_epi32, _mm256_set_epi32};
        let [i0, i1, i2, i3, i4, i5, i6, i7] = COMPRESS4[keep];
        let order = _mm256_set_epi32(i7, i6, i5, i4, i3, i2, i1, i0);
        _mm256_permutevar8x32_epi32(x, order)
    }
}

isa::v3_fn! {
    /// [`fill_scalar`] four placements at a time with AVX2: one load of four (up, down)
    /// pairs, the shifts and masks of [`Half::shared`] and the test against the pre-placed
    /// queens on four lanes, and the kept lanes of each field moved to the front
    /// ([`compress`]) and stored as a block of four (the words past the kept ones are
    /// overwritten by the next block); the last `ss.len() % 4` as the scalar loop does.
    ///
    /// Why: at n = 17 the scalar loop, about 35 instructions a placement with its bounds
    /// checks and with values reloaded from the stack, was 30% of the half patterns'
    /// samples, which were 76% of `count 17 -t 1` (AMD EPYC Zen 3, `perf record`).
    #[inline]
    fn fill_avx2(half: &Half, s0: u32, ss: &[(u32, u32)], fields: [&mut [u64]; 3]) -> usize {
        use std::arch::x86_64::{
            __m256i, _mm256_and_si256, _mm256_castsi256_pd, _mm256_cmpeq_epi64,
            _mm256_movemask_pd, _mm256_or_si256, _mm256_set1_epi64x, _mm256_set_epi32,
            _mm256_setzero_si256, _mm256_sll_epi64, _mm256_srl_epi64, _mm256_srli_epi64,
            _mm_cvtsi64_si128,
        };
        const B: usize = Quarters::BLOCK;
        let [ups, downs, shareds] = fields;
        let store = |x: __m256i, out: &mut [u64]| out.copy_from_slice(&isa::words(x));
        let wide = |x: u64| _mm256_set1_epi64x(x as i64);
        let (pre_up, pre_down) = (wide(half.pre_up), wide(half.pre_down));
        let low = wide(u64::from(u32::MAX));
        let mask = wide((1u64 << half.shared_len) - 1);
        // Shift counts (the same for every lane).
        let count = |c: u32| _mm_cvtsi64_si128(i64::from(c));
        let (by_s0, by_lo, by_len) = (count(s0), count(half.shared_lo), count(half.shared_len));
        let blocks = ss.chunks_exact(B);
        let rest = blocks.remainder();
        let mut len = 0;
        for b in blocks {
            // Lane i: placement i's up in its low 32 bits, its down in its high 32 bits.
            let x = _mm256_set_epi32(
                b[3].1 as i32, b[3].0 as i32, b[2].1 as i32, b[2].0 as i32,
                b[1].1 as i32, b[1].0 as i32, b[0].1 as i32, b[0].0 as i32,
            );
            let up = _mm256_sll_epi64(_mm256_and_si256(x, low), by_s0);
            let down = _mm256_srli_epi64::<32>(x);
            let u = _mm256_and_si256(_mm256_srl_epi64(up, by_lo), mask);
            let d = _mm256_and_si256(_mm256_srl_epi64(down, by_lo), mask);
            let shared = _mm256_or_si256(u, _mm256_sll_epi64(d, by_len));
            let clash = _mm256_or_si256(
                _mm256_and_si256(up, pre_up),
                _mm256_and_si256(down, pre_down),
            );
            let free = _mm256_cmpeq_epi64(clash, _mm256_setzero_si256());
            let keep = _mm256_movemask_pd(_mm256_castsi256_pd(free)) as usize;
            store(compress(up, keep), &mut ups[len..len + B]);
            store(compress(down, keep), &mut downs[len..len + B]);
            store(compress(shared, keep), &mut shareds[len..len + B]);
            len += keep.count_ones() as usize;
        }
        let [ups, downs, shareds] = [&mut ups[len..], &mut downs[len..], &mut shareds[len..]];
        len + fill_scalar(half, s0, rest, [ups, downs, shareds])
    }
}

/// Which of a half's patterns to make: those whose north quadrant takes a column set `c`
/// with `Part::holds(c)`. The parts of one count split the patterns into `of` disjoint lists
/// (every pattern has one north column set), so that a set E whose lists would not fit in
/// memory can be joined part by part (see `Frame::count_set_until`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// This part, `0..of`.
    pub index: u32,
    /// How many parts.
    pub of: u32,
}

impl Part {
    /// All patterns.
    pub const WHOLE: Part = Part { index: 0, of: 1 };

    /// Whether patterns with north column set `c` (relative to the half) are in this part.
    /// Column sets are spread by a multiplicative hash rather than taken in ranges: the
    /// sets of one size are few (70 of 8 columns), and neighbouring ones have similar list
    /// lengths, so ranges would give parts of very different sizes.
    #[inline(always)]
    pub fn holds(self, c: u64) -> bool {
        self.of <= 1
            || (c.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % u64::from(self.of)
                == u64::from(self.index)
    }
}

/// One half's search problem.
#[derive(Clone, Copy, Debug)]
pub struct Half {
    /// Board size.
    pub n: usize,
    /// Free columns of this half, relative to `c0` (bit i = column c0 + i).
    pub cols: u64,
    /// Up-diagonals blocked by pre-placed queens (relative numbering).
    pub pre_up: u64,
    /// Down-diagonals blocked by pre-placed queens (relative numbering).
    pub pre_down: u64,
    /// First shared diagonal, in relative numbering (the same for both directions).
    pub shared_lo: u32,
    /// Number of shared diagonals of each direction.
    pub shared_len: u32,
    /// Side of the quadrants (n / 2); south rows start at n - h.
    pub h: u32,
}

/// A list of masks whose buffer never shrinks. The branch-free pattern loop writes every
/// candidate and keeps about one in four, so it needs room for all of them first; a `Vec`
/// would clear that room on every call (`resize` writes zeros: 6% of the time at n = 17),
/// this list only when the buffer grows past its largest size so far.
#[derive(Debug, Default)]
pub struct MaskList {
    buf: Vec<u64>,
    len: usize,
}

impl MaskList {
    /// Empties the list (keeping its buffer).
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Number of masks.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list has no mask.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The masks.
    pub fn as_slice(&self) -> &[u64] {
        &self.buf[..self.len]
    }

    /// Appends a mask (the tests' lists; the searches write through [`MaskList::room`]).
    #[cfg(test)]
    pub fn push(&mut self, m: u64) {
        if self.len == self.buf.len() {
            self.buf.push(m);
        } else {
            self.buf[self.len] = m;
        }
        self.len += 1;
    }

    /// Appends the masks of `from` that take none of the bits `block`, in their order, and
    /// returns how many. Branch-free as the searches' loops are: every mask is written and
    /// the end moves only past the kept ones (a group's full list keeps about half its
    /// masks for each frame, so a branch would mispredict often).
    pub fn extend_avoiding(&mut self, from: &[u64], block: u64) -> usize {
        let start = self.len;
        let buf = self.room(from.len());
        let mut at = start;
        for &m in from {
            buf[at] = m;
            at += usize::from(m & block == 0);
        }
        self.truncate_to(at);
        at - start
    }

    /// The whole buffer, at least `extra` words longer than the list, to write candidates
    /// past the end; [`MaskList::truncate_to`] then says how many were kept.
    #[inline(always)]
    fn room(&mut self, extra: usize) -> &mut [u64] {
        let need = self.len + extra;
        if self.buf.len() < need {
            self.buf.resize(need, 0);
        }
        &mut self.buf
    }

    /// Sets the length after writing through [`MaskList::room`] (at most the buffer's).
    #[inline(always)]
    fn truncate_to(&mut self, len: usize) {
        debug_assert!(len <= self.buf.len());
        self.len = len;
    }
}

/// Reusable buffers of the half searches.
#[derive(Debug, Default)]
pub struct HalfScratch {
    /// The instruction set of the table lookups (see [`isa`]).
    isa: Isa,
    north: Vec<Partial>,
    south: Vec<Partial>,
    /// The counting sort's output and counters ([`sort_by_cols`]).
    sorted: Vec<Partial>,
    counts: Vec<usize>,
    quarters: Quarters,
}

/// Sorts `items` by `key`, a subset of the columns `all`, through `spare` (a counting sort
/// on the column set, at most 2^14 buckets at n = 28): where the quadrants are searched
/// (n >= 24 in shards), `sort_unstable_by_key` here was 2.3% of `count 24 --shard
/// 473/20000 -t 1` (perf). Stable, so the order within a column set is the search's.
fn sort_by_cols(
    items: &mut Vec<Partial>,
    spare: &mut Vec<Partial>,
    counts: &mut Vec<usize>,
    all: u64,
    key: impl Fn(&Partial) -> u64,
) {
    let buckets = all as usize + 1;
    counts.clear();
    counts.resize(buckets + 1, 0);
    for p in items.iter() {
        counts[key(p) as usize + 1] += 1;
    }
    for b in 0..buckets {
        counts[b + 1] += counts[b];
    }
    spare.clear();
    spare.resize(items.len(), Partial::default());
    for p in items.iter() {
        let at = &mut counts[key(p) as usize];
        spare[*at] = *p;
        *at += 1;
    }
    std::mem::swap(items, spare);
}

impl HalfScratch {
    /// Empty buffers whose table lookups run with `isa` (`default()`: [`Isa::best`]).
    pub fn new(isa: Isa) -> HalfScratch {
        HalfScratch {
            isa,
            ..HalfScratch::default()
        }
    }
}

impl Half {
    /// Appends the shared-diagonal mask of every pattern with a queen in each of `north`
    /// and `south` (rows, ascending; north rows all above south rows) to `out`:
    /// up-diagonals in bits `0..shared_len`, down-diagonals in bits `shared_len..`.
    #[cfg(test)]
    pub fn patterns(
        &self,
        north: &[u8],
        south: &[u8],
        table: Option<&QuadrantTable>,
        scratch: &mut HalfScratch,
        out: &mut MaskList,
    ) -> HalfStats {
        self.patterns_part(north, south, table, Part::WHOLE, scratch, out)
    }

    /// `Half::patterns`, only those of `part`.
    pub fn patterns_part(
        &self,
        north: &[u8],
        south: &[u8],
        table: Option<&QuadrantTable>,
        part: Part,
        scratch: &mut HalfScratch,
        out: &mut MaskList,
    ) -> HalfStats {
        let mut stats = HalfStats::default();
        if north.len() + south.len() != self.cols.count_ones() as usize {
            return stats; // a column would stay empty: no pattern
        }
        if let Some(t) = table {
            debug_assert_eq!(t.h(), self.h);
            let before = out.len();
            stats.placements = self.patterns_from_table(t, north, south, part, scratch, out);
            stats.patterns = (out.len() - before) as u64;
            return stats;
        }
        scratch.north.clear();
        scratch.south.clear();
        let start = Partial {
            cols: 0,
            up: 0,
            down: 0,
        };
        self.place(north, start, &mut scratch.north, &mut stats);
        scratch.north.retain(|p| part.holds(p.cols));
        if scratch.north.is_empty() {
            return stats;
        }
        self.place(south, start, &mut scratch.south, &mut stats);
        // Pair north and south placements with complementary column sets: sort the north
        // ones by their complement and the south ones by their columns, then walk both.
        let all = self.cols;
        let (sorted, counts) = (&mut scratch.sorted, &mut scratch.counts);
        sort_by_cols(&mut scratch.north, sorted, counts, all, |p| all ^ p.cols);
        sort_by_cols(&mut scratch.south, sorted, counts, all, |p| p.cols);
        let before = out.len();
        isa::dispatch!(
            scratch.isa.v3_twin() => self.merge_v3(scratch, out);
            else self.merge_body(scratch, out, pair_scalar)
        );
        stats.patterns = (out.len() - before) as u64;
        stats
    }

    isa::v3_fn! {
        /// [`Half::merge_body`] compiled for x86-64-v3 ([`isa`]), pairing with AVX2.
        fn merge_v3(&self, scratch: &mut HalfScratch, out: &mut MaskList) {
            self.merge_body(scratch, out, |a, s, buf, kept| pair_avx2(a, s, buf, kept))
        }
    }

    /// Appends the pairs of the searched north and south placements (sorted by their
    /// complement and by their columns) with complementary column sets to `out`, walking
    /// both lists; each run of south placements with one column set is paired as the
    /// table's loop pairs them (`pair`, branch-free: a branch here mispredicted, the loop's
    /// two hottest instructions at n = 25 followed it).
    #[inline(always)]
    fn merge_body(
        &self,
        scratch: &mut HalfScratch,
        out: &mut MaskList,
        mut pair: impl FnMut(Quarter, &Quarters, &mut [u64], usize) -> usize,
    ) {
        let all = self.cols;
        let (ns, ss) = (&scratch.north, &scratch.south);
        let quarter = |p: &Partial| Quarter {
            up: p.up,
            down: p.down,
            shared: self.shared(p.up, p.down),
        };
        let (mut i, mut j) = (0, 0);
        while i < ns.len() && j < ss.len() {
            let want = all ^ ns[i].cols;
            match want.cmp(&ss[j].cols) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    let j_end = j + ss[j..].iter().take_while(|s| s.cols == want).count();
                    // The run's placements field by field (a plain loop: see the table's).
                    let south = &mut scratch.quarters;
                    let [ups, downs, shareds] = south.room(j_end - j);
                    for (k, b) in ss[j..j_end].iter().enumerate() {
                        let q = quarter(b);
                        (ups[k], downs[k], shareds[k]) = (q.up, q.down, q.shared);
                    }
                    south.len = j_end - j;
                    let south = &scratch.quarters;
                    while i < ns.len() && all ^ ns[i].cols == want {
                        let mut kept = out.len();
                        let buf = out.room(south.len + Quarters::BLOCK);
                        kept = pair(quarter(&ns[i]), south, buf, kept);
                        out.truncate_to(kept);
                        i += 1;
                    }
                    j = j_end;
                }
            }
        }
    }

    /// The same patterns, with the quadrants looked up in the table instead of searched.
    ///
    /// A north placement with local (up, down) takes relative diagonals (up, down + n - h)
    /// (its rows are the board's rows, its columns start at c0); a south one, whose rows
    /// start at s = n - h, takes (up + s, down). For every column set C of the north rows,
    /// the south rows must take exactly the other free columns.
    fn patterns_from_table(
        &self,
        t: &QuadrantTable,
        north: &[u8],
        south: &[u8],
        part: Part,
        scratch: &mut HalfScratch,
        out: &mut MaskList,
    ) -> u64 {
        isa::dispatch!(
            scratch.isa.v3_twin() => self.patterns_v3(t, north, south, part, scratch, out);
            else self.patterns_body(t, north, south, part, scratch, out, pair_scalar, fill_scalar)
        )
    }

    isa::v3_fn! {
        /// [`Half::patterns_from_table`] compiled for x86-64-v3 ([`isa`]).
        fn patterns_v3(
            &self,
            t: &QuadrantTable,
            north: &[u8],
            south: &[u8],
            part: Part,
            scratch: &mut HalfScratch,
            out: &mut MaskList,
        ) -> u64 {
            self.patterns_body(
                t,
                north,
                south,
                part,
                scratch,
                out,
                |a, s, buf, kept| pair_avx2(a, s, buf, kept),
                |half, s0, ss, fields| fill_avx2(half, s0, ss, fields),
            )
        }
    }

    /// The table lookups, inlined into each instruction set's copy, with its way of
    /// pairing a north placement with the south ones (`pair_scalar`'s contract) and of
    /// filling a column set's south placements (`fill_scalar`'s). A build whose own target
    /// is x86-64-v3 has no twin, so it runs the scalar pair and fill compiled for v3: the
    /// AVX2 loops run only in the portable build, chosen at run time.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)] // the seven of patterns_part, the pairing and the fill
    fn patterns_body(
        &self,
        t: &QuadrantTable,
        north: &[u8],
        south: &[u8],
        part: Part,
        scratch: &mut HalfScratch,
        out: &mut MaskList,
        mut pair: impl FnMut(Quarter, &Quarters, &mut [u64], usize) -> usize,
        mut fill: impl FnMut(&Half, u32, &[(u32, u32)], [&mut [u64]; 3]) -> usize,
    ) -> u64 {
        let n = self.n as u32;
        let s0 = n - self.h;
        let rows_n = north.iter().fold(0u32, |m, &r| m | 1 << r);
        let rows_s = south
            .iter()
            .fold(0u32, |m, &r| m | 1 << (u32::from(r) - s0));
        let cols = self.cols as u32;
        let k = north.len() as u32;
        let (pre_up, pre_down) = (self.pre_up, self.pre_down);
        let mut read = 0u64;
        // The column sets c of the north quadrant, descending: the next one after `c`.
        let wanted = |c: u32| c.count_ones() == k && part.holds(u64::from(c));
        let after = |mut c: u32| {
            while c != 0 {
                c = (c - 1) & cols; // next smaller subset of the free columns
                if wanted(c) {
                    return Some(c);
                }
            }
            None
        };
        let mut next = if wanted(cols) {
            Some(cols)
        } else {
            after(cols)
        };
        let far = t.h() >= PREFETCH_FROM;
        while let Some(c) = next {
            next = after(c);
            // The next column set's two lists start loading while this one is paired: they
            // lie far apart in the table (hundreds of MB at n = 23), a few lines each, and
            // the walk meets each one cold (see PREFETCH_LINES).
            if let Some(c) = next.filter(|_| far) {
                for list in [t.get(rows_n, c), t.get(rows_s, cols ^ c)] {
                    for at in (0..list.len().min(8 * PREFETCH_LINES)).step_by(8) {
                        isa::prefetch(&list[at]);
                    }
                }
            }
            let ns = t.get(rows_n, c);
            let ss = t.get(rows_s, cols ^ c);
            read += (ns.len() + ss.len()) as u64;
            if !ns.is_empty() && !ss.is_empty() {
                // The south placements in relative numbering, off the blocked diagonals,
                // with their shared diagonals (shared() is bitwise, so a pattern's
                // shared mask is the OR of its two quadrants'): `fill_scalar` or
                // `fill_avx2`, each inlined into its copy of this function.
                let south = &mut scratch.quarters;
                south.len = fill(self, s0, ss, south.room(ss.len()));
                let south = &scratch.quarters;
                let mut kept = out.len();
                let buf = out.room(ns.len() * south.len + Quarters::BLOCK);
                for &(u, d) in ns {
                    let (up, down) = (u64::from(u), u64::from(d) << s0);
                    if (up & pre_up) | (down & pre_down) != 0 {
                        continue;
                    }
                    let shared = self.shared(up, down);
                    kept = pair(Quarter { up, down, shared }, south, buf, kept);
                }
                out.truncate_to(kept);
            }
        }
        read
    }

    /// Places a queen in each of `rows` (any free columns, no shared diagonal) on top of
    /// `p`, pushing every complete placement.
    fn place(&self, rows: &[u8], p: Partial, out: &mut Vec<Partial>, stats: &mut HalfStats) {
        let Some((&r, rest)) = rows.split_first() else {
            out.push(p);
            return;
        };
        let r = r as u32;
        let up = p.up | self.pre_up;
        let down = p.down | self.pre_down;
        // Column i attacked if up-diagonal r + i or down-diagonal i - r + n - 1 is taken.
        let attacked = (up >> r) | (down >> (self.n as u32 - 1 - r));
        let mut free = self.cols & !p.cols & !attacked;
        while free != 0 {
            let bit = free & free.wrapping_neg(); // lowest free column: 0b0110 -> 0b0010
            free ^= bit;
            stats.placements += 1;
            let i = bit.trailing_zeros();
            let next = Partial {
                cols: p.cols | bit,
                up: p.up | 1 << (r + i),
                down: p.down | 1 << (i + self.n as u32 - 1 - r),
            };
            self.place(rest, next, out, stats);
        }
    }

    /// The shared part of a pattern's diagonals, packed into one u64.
    #[inline(always)]
    fn shared(&self, up: u64, down: u64) -> u64 {
        let mask = (1u64 << self.shared_len) - 1;
        let u = (up >> self.shared_lo) & mask;
        let d = (down >> self.shared_lo) & mask;
        u | d << self.shared_len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::isa::{check_property, suite_per_implementation};
    use proptest::prelude::{any, prop_assert_eq};

    /// The oracle: every pattern of `half` with a queen in each of `north` and `south`, by
    /// trying every assignment of the free columns to those rows (k! of them) and keeping
    /// the ones with no two queens, nor a queen and a blocked diagonal, on one diagonal and
    /// whose north columns are in `part`; each as its shared diagonals, packed as
    /// [`Half::patterns`] packs them (up-diagonals from bit 0, down-diagonals from bit
    /// `shared_len`), sorted.
    fn every_placement(half: &Half, north: &[u8], south: &[u8], part: Part) -> Vec<u64> {
        let n = half.n as u32;
        let rows: Vec<u32> = north.iter().chain(south).map(|&r| u32::from(r)).collect();
        let cols: Vec<u32> = (0..64).filter(|&i| half.cols >> i & 1 == 1).collect();
        let mut found = Vec::new();
        if rows.len() != cols.len() {
            return found; // a column or a row would stay empty
        }
        // Column of each row, as a permutation of `cols`, built one row at a time.
        fn assign(
            i: usize,
            cols: &[u32],
            used: &mut Vec<bool>,
            at: &mut Vec<u32>,
            f: &mut dyn FnMut(&[u32]),
        ) {
            if i == cols.len() {
                f(at);
                return;
            }
            for c in 0..cols.len() {
                if !used[c] {
                    used[c] = true;
                    at.push(cols[c]);
                    assign(i + 1, cols, used, at, f);
                    at.pop();
                    used[c] = false;
                }
            }
        }
        let (lo, len) = (half.shared_lo, half.shared_len);
        let mut check = |at: &[u32]| {
            let ups: Vec<u32> = rows.iter().zip(at).map(|(&r, &c)| r + c).collect();
            let downs: Vec<u32> = rows.iter().zip(at).map(|(&r, &c)| c + n - 1 - r).collect();
            let distinct = |d: &[u32]| (0..d.len()).all(|i| !d[i + 1..].contains(&d[i]));
            let blocked = |d: &[u32], pre: u64| d.iter().any(|&x| pre >> x & 1 == 1);
            let north_cols = at[..north.len()].iter().fold(0u64, |m, &c| m | 1 << c);
            if !distinct(&ups)
                || !distinct(&downs)
                || blocked(&ups, half.pre_up)
                || blocked(&downs, half.pre_down)
                || !part.holds(north_cols)
            {
                return;
            }
            let mut shared = 0u64;
            for (&u, &d) in ups.iter().zip(&downs) {
                if (lo..lo + len).contains(&u) {
                    shared |= 1 << (u - lo);
                }
                if (lo..lo + len).contains(&d) {
                    shared |= 1 << (len + d - lo);
                }
            }
            found.push(shared);
        };
        let mut used = vec![false; cols.len()];
        assign(0, &cols, &mut used, &mut Vec::new(), &mut check);
        found.sort_unstable();
        found
    }

    // The half patterns once per instruction set (the half patterns have no AVX-512 copy):
    // from the quadrant table (the leaf with an x86-64-v3 twin) and from the quadrant search
    // (no twin), each against every placement.
    suite_per_implementation! {
        [Baseline, X86_64V3]

        /// Any board size up to 17 (quadrant tables of side 2 to 8), any free columns, any
        /// north and south rows, blocked diagonals, window of shared diagonals and part:
        /// the patterns from the table and from the search are those of the oracle.
        fn patterns_are_every_placement(imp: Implementation) {
            let tables: Vec<QuadrantTable> = (0..=8).map(QuadrantTable::build).collect();
            let found = std::cell::Cell::new(0);
            let strategy = (
                (4usize..=17, any::<u8>(), any::<u8>(), any::<u8>()),
                (any::<[u64; 4]>(), 0u32..16, 1u32..=32, 1u32..=3, any::<u32>()),
            );
            check_property(imp, file!(), 128, strategy, |(board, others)| {
                let (n, cols, north, south) = board;
                let ([a, b, c, d], shared_lo, shared_len, of, index) = others;
                let h = n as u32 / 2;
                let s0 = n as u32 - h;
                let all = (1u64 << h) - 1;
                let cols = u64::from(cols) & all;
                let k = cols.count_ones() as usize;
                // North rows from 0..h, south rows from s0..n, as many as free columns: the
                // rows of `north`, then those of `south`, then any south rows left.
                let mut north: Vec<u8> = (0..h as u8).filter(|&r| north >> r & 1 == 1).collect();
                north.truncate(k);
                let want_south = k - north.len();
                let south_rows = (0..h as u8).filter(|&r| south >> r & 1 == 1);
                let rest = (0..h as u8).filter(|&r| south >> r & 1 == 0);
                let mut south: Vec<u8> =
                    south_rows.chain(rest).take(want_south).map(|r| r + s0 as u8).collect();
                south.sort_unstable();
                let half = Half {
                    n,
                    cols,
                    // Sparse blocked diagonals, below n + h (where the queens' are).
                    pre_up: a & b & (u64::MAX >> (64 - n as u32 - h)),
                    pre_down: c & d & (u64::MAX >> (64 - n as u32 - h)),
                    shared_lo,
                    shared_len,
                    h,
                };
                let part = Part { index: index % of, of };
                let want = every_placement(&half, &north, &south, part);
                found.set(found.get() + u32::from(!want.is_empty()));
                let mut scratch = HalfScratch::new(imp.isa());
                for table in [Some(&tables[h as usize]), None] {
                    let mut out = MaskList::default();
                    out.push(u64::MAX); // patterns are appended to what the list holds
                    let stats =
                        half.patterns_part(&north, &south, table, part, &mut scratch, &mut out);
                    let mut got = out.as_slice()[1..].to_vec();
                    prop_assert_eq!(stats.patterns, got.len() as u64);
                    got.sort_unstable();
                    prop_assert_eq!(&got, &want, "table {}", table.is_some());
                }
                Ok(())
            });
            assert!(found.get() >= 16, "{} of 128 cases had patterns", found.get());
        }
    }

    /// The AVX2 fill against the scalar one, field by field and in order: south lists of 0
    /// to 13 placements (whole blocks of four, and every tail), words of 32 random bits,
    /// blocked diagonals that keep from none to all of them, shifts `s0` of 0 to 31 and
    /// windows of shared diagonals anywhere. (`patterns_are_every_placement` checks the
    /// fill inside whole patterns, but its south lists are mostly shorter than a block.)
    #[test]
    fn the_avx2_fill_keeps_what_the_scalar_fill_keeps() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut kept_some = [false; 2]; // a block with some lanes kept, and some dropped
        for case in 0..2000u32 {
            let len = case as usize % 14;
            let ss: Vec<(u32, u32)> = (0..len).map(|_| (next() as u32, next() as u32)).collect();
            let s0 = case % 32;
            // Blocked diagonals of 0, 1, 2 or 3 random words ANDed: from none to most kept.
            // No blocked diagonal for k = 0, else the AND of k random words (sparser as k
            // grows).
            let sparse = |next: &mut dyn FnMut() -> u64, k: u32| match k {
                0 => 0,
                _ => (0..k).fold(u64::MAX, |m, _| m & next()),
            };
            let half = Half {
                n: 32,
                cols: 0xFFFF,
                pre_up: sparse(&mut next, case / 32 % 4),
                pre_down: sparse(&mut next, case / 128 % 4),
                shared_lo: (next() % 32) as u32,
                shared_len: (next() % 32 + 1) as u32,
                h: 16,
            };
            let fill = |avx2: bool| -> Option<(usize, [Vec<u64>; 3])> {
                let mut q = Quarters::default();
                let fields = q.room(ss.len());
                let kept = if avx2 {
                    isa::dispatch!(
                        Isa::X86_64V3.avx2() => fill_avx2(&half, s0, &ss, fields);
                        else return None
                    )
                } else {
                    fill_scalar(&half, s0, &ss, fields)
                };
                Some((kept, q.fields().map(|f| f[..kept].to_vec())))
            };
            let want = fill(false).expect("the scalar fill");
            let Some(got) = fill(true) else {
                eprintln!("skipped: the AVX2 fill (this CPU lacks x86-64-v3)");
                return;
            };
            assert_eq!(got, want, "case {case}: {len} placements, s0 {s0}");
            if len >= 4 {
                kept_some[0] |= want.0 > 0;
                kept_some[1] |= want.0 < len;
            }
        }
        assert_eq!(kept_some, [true, true], "choose other blocked diagonals");
    }

    /// The east half of n = 4: columns 2 and 3; shared diagonals 2..5 in absolute
    /// numbering, 0..3 relative to column 2.
    fn east_of_4() -> Half {
        Half {
            n: 4,
            cols: 0b11,
            pre_up: 0,
            pre_down: 0,
            shared_lo: 0,
            shared_len: 3,
            h: 2,
        }
    }

    #[test]
    fn rows_two_apart_take_both_columns_both_ways() {
        // Rows 0 and 2: (0,2),(2,3) and (0,3),(2,2); neither pair shares a diagonal.
        let mut out = MaskList::default();
        let s = east_of_4().patterns(&[0], &[2], None, &mut HalfScratch::default(), &mut out);
        assert_eq!((s.patterns, out.len()), (2, 2));
        // (0,2),(2,3): up 2 and 5 (5 is not shared), down 2-0+3 = 5 (not shared) and
        // 3-2+3 = 4: relative up bit 0, relative down bit 2.
        assert!(out.as_slice().contains(&(0b001 | 0b100 << 3)));
    }

    #[test]
    fn adjacent_rows_cannot_use_adjacent_columns() {
        let mut out = MaskList::default();
        let s = east_of_4().patterns(&[0], &[1], None, &mut HalfScratch::default(), &mut out);
        assert_eq!(s.patterns, 0);
        assert!(out.is_empty());
    }

    #[test]
    fn a_column_left_empty_gives_no_pattern() {
        let mut out = MaskList::default();
        let s = east_of_4().patterns(&[0], &[], None, &mut HalfScratch::default(), &mut out);
        assert_eq!((s.patterns, s.placements), (0, 0));
    }
}
