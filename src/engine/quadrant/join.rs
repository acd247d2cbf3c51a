//! The join: for two lists of diagonal masks, `east` and `west` (a weight per west mask),
//! the weighted number of pairs with no diagonal in common:
//! `Σ_w weight(w) · #{e ∈ east : e & w = 0}`. This is the hot loop of the quadrant engine.
//!
//! Two ideas make it fast (both from E. Kluev's counter; our own code):
//!
//! * **Bit slicing.** The east masks (the shorter list: east halves on a long diagonal
//!   were dropped) are stored transposed, 64 at a time: `slice[k]` has bit j set when
//!   east mask j of the block has diagonal k. For a west mask w, the OR of `slice[k]` over
//!   the set bits k of w marks the east masks that clash with w, so `popcount(!OR)` counts
//!   64 pairs at once. [`LANES`] blocks are processed together so the ORs run on vector
//!   registers: a *piece* of up to 512 east masks.
//! * **Chunk tables.** Rather than one OR per set bit of w (about 11 at n = 16), the
//!   diagonals are cut into chunks of [`CHUNK`] bits and, for every chunk and every value
//!   of its bits, the OR of the slices of those bits is computed once per piece
//!   (`table[chunk][v]`, 32 values). A west mask then costs one OR per chunk, whatever its
//!   bits: 6 ORs at n = 16 (30 diagonals), 8 at n = 20, with no loop over bits. Building a
//!   table costs one OR per entry (`table[v] = table[v without its lowest bit] |
//!   slice[lowest bit]`), 6 × 32 × 8 words at n = 16, repaid after a few dozen west masks.
//!   Lists below [`MIN_SLICED`] are compared pair by pair.

use crate::engine::isa;

/// Blocks of 64 east masks per piece (8 × 64 = 512 pairs per OR: two AVX2 or one
/// AVX-512 register per table entry).
pub const LANES: usize = 8;
/// Diagonal bits per chunk table (32 entries).
pub const CHUNK: u32 = 5;
/// Shorter east lists are compared pair by pair.
pub const MIN_SLICED: usize = 32;

/// What a join did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JoinStats {
    /// Weighted number of disjoint pairs.
    pub pairs: u64,
    /// (east, west) pairs tested.
    pub tested: u64,
}

/// Largest key: 2^6 buckets per side.
const MAX_KEY_BITS: u32 = 6;
/// East masks wanted per bucket, on average: a piece costs the same whether it holds 512
/// masks or 1.
const MIN_BUCKET: usize = 64 * LANES;

/// Reusable buffers of the join (one per worker).
#[derive(Debug, Default)]
pub struct Joiner {
    /// The piece being joined.
    piece: Piece,
    /// Both lists sorted by bucket, with the start of each bucket (when there is more than
    /// one bucket: a single bucket is the input itself). The buffers keep their length
    /// between joins (see [`bucket_sort`]).
    east: Vec<u64>,
    east_start: Vec<usize>,
    west: Vec<(u64, u32)>,
    west_start: Vec<usize>,
    /// The bucket of each item being sorted.
    keys: Vec<u8>,
}

impl Joiner {
    /// The weighted number of disjoint (east, west) pairs; every mask uses bits `0..bits`.
    ///
    /// ```text
    /// sort both lists into buckets by their key diagonals
    /// for each east bucket u, for each piece of 512 east masks in it:
    ///     build the piece's chunk tables
    ///     for each west bucket v with u & v == 0, for each west mask w in it:
    ///         pairs += weight(w) · (east masks of the piece disjoint from w)
    /// ```
    pub fn join(&mut self, east: &[u64], west: &[(u64, u32)], bits: u32) -> JoinStats {
        #[cfg(target_arch = "x86_64")]
        if isa::v3() {
            // SAFETY: isa::v3() is true only where is_x86_feature_detected! found every
            // feature join_v3 is compiled with.
            #[allow(unsafe_code)]
            return unsafe { self.join_v3(east, west, bits) };
        }
        self.join_body(east, west, bits)
    }

    isa::v3_fn! {
        /// [`Joiner::join`] compiled for x86-64-v3 ([`isa`]): popcnt, and AVX2 for the ORs.
        fn join_v3(&mut self, east: &[u64], west: &[(u64, u32)], bits: u32) -> JoinStats {
            self.join_body(east, west, bits)
        }
    }

    /// The join, inlined into each instruction set's copy.
    #[inline(always)]
    fn join_body(&mut self, east: &[u64], west: &[(u64, u32)], bits: u32) -> JoinStats {
        if east.len() < MIN_SLICED || west.is_empty() {
            return JoinStats {
                pairs: join_naive(east, west),
                tested: (east.len() * west.len()) as u64,
            };
        }
        let key = key_bits(east, west, bits);
        let buckets = 1usize << key.len();
        let key_of = |m: u64| {
            key.iter()
                .enumerate()
                .fold(0usize, |acc, (i, &k)| acc | (((m >> k) & 1) as usize) << i)
        };
        let whole = ([0, east.len()], [0, west.len()]);
        let ((east, east_start), (west, west_start)) = if buckets == 1 {
            ((east, &whole.0[..]), (west, &whole.1[..])) // nothing to sort
        } else {
            let keys = &mut self.keys;
            bucket_sort(
                east,
                |&e| key_of(e),
                buckets,
                &mut self.east,
                &mut self.east_start,
                keys,
            );
            bucket_sort(
                west,
                |w| key_of(w.0),
                buckets,
                &mut self.west,
                &mut self.west_start,
                keys,
            );
            (
                (&self.east[..east.len()], self.east_start.as_slice()),
                (&self.west[..west.len()], self.west_start.as_slice()),
            )
        };

        let chunks = bits.div_ceil(CHUNK) as usize;
        let full = buckets - 1;
        let mut stats = JoinStats::default();
        let piece = &mut self.piece;
        for u in 0..buckets {
            let (lo, hi) = (east_start[u], east_start[u + 1]);
            for piece_start in (lo..hi).step_by(64 * LANES) {
                let piece_end = hi.min(piece_start + 64 * LANES);
                piece.build(&east[piece_start..piece_end], bits, chunks);
                let tables = &piece.tables[..chunks];
                let valid: &[u64; LANES] = piece.valid[..LANES].try_into().expect("LANES words");
                // West buckets v with u & v == 0: the submasks of !u, downwards.
                let free = full & !u;
                let mut v = free;
                loop {
                    let ws = &west[west_start[v]..west_start[v + 1]];
                    stats.tested += ((piece_end - piece_start) * ws.len()) as u64;
                    stats.pairs += count_west_any(chunks, tables, valid, ws);
                    if v == 0 {
                        break;
                    }
                    v = (v - 1) & free;
                }
            }
        }
        stats
    }
}

/// One piece of at most 512 east masks, transposed, with its chunk tables.
#[derive(Debug, Default)]
struct Piece {
    /// Chunk tables: `tables[c][v][b]` is the OR of the slices of the bits of value v of
    /// chunk c, for block b.
    tables: Vec<ChunkTable>,
    /// Valid east masks of each block.
    valid: Vec<u64>,
    /// Transposed slices: `slices[k * LANES + b]`.
    slices: Vec<u64>,
}

impl Piece {
    /// Transposes `east` (at most 512 masks) and builds its chunk tables.
    #[inline(always)]
    fn build(&mut self, east: &[u64], bits: u32, chunks: usize) {
        self.tables.clear();
        self.tables.resize(chunks, [[0; LANES]; 32]);
        self.valid.clear();
        self.valid.resize(LANES, 0);
        // Slices: bit j of slices[k * LANES + b] = bit k of mask 64 b + j.
        self.slices.clear();
        self.slices.resize(chunks * CHUNK as usize * LANES, 0);
        for (b, block) in east.chunks(64).enumerate() {
            let mut t = [0u64; 64];
            t[..block.len()].copy_from_slice(block);
            transpose64(&mut t);
            for (k, &slice) in t.iter().enumerate().take(bits as usize) {
                self.slices[k * LANES + b] = slice;
            }
            self.valid[b] = u64::MAX >> (64 - block.len());
        }
        for (c, table) in self.tables.iter_mut().enumerate() {
            for v in 1..32usize {
                let low = v.trailing_zeros() as usize; // the entry adds one slice
                let k = c * CHUNK as usize + low;
                let prev = table[v & (v - 1)];
                for (b, entry) in table[v].iter_mut().enumerate() {
                    *entry = prev[b] | self.slices[k * LANES + b];
                }
            }
        }
    }
}

/// Sorts `items` into `out[..items.len()]` by `key` (counting sort); `start[b]..start[b + 1]`
/// is bucket b.
fn bucket_sort<T: Copy>(
    items: &[T],
    key: impl Fn(&T) -> usize,
    buckets: usize,
    out: &mut Vec<T>,
    start: &mut Vec<usize>,
    keys: &mut Vec<u8>,
) {
    keys.clear();
    keys.extend(items.iter().map(|x| key(x) as u8)); // each key computed once
    start.clear();
    start.resize(buckets + 1, 0);
    for &k in keys.iter() {
        start[usize::from(k) + 1] += 1;
    }
    for b in 0..buckets {
        start[b + 1] += start[b];
    }
    let mut next = [0usize; 1 << MAX_KEY_BITS];
    next[..buckets].copy_from_slice(&start[..buckets]);
    // `out` keeps its length from earlier sorts: only its growth is filled (with a copy of
    // the first item) before every place below `items.len()` is overwritten once. Filling
    // all of it each time (a copy of the input) was 5% of the time at n = 20.
    if out.len() < items.len() {
        out.resize(items.len(), items[0]);
    }
    for (x, &k) in items.iter().zip(keys.iter()) {
        let b = &mut next[usize::from(k) & ((1 << MAX_KEY_BITS) - 1)];
        out[*b] = *x;
        *b += 1;
    }
}

/// Picks the key diagonals: those taken most often on both sides (a key bit prunes the
/// pairs where both masks have it: the product of the two shares), as many as leave about
/// MIN_BUCKET east masks per bucket. Frequencies come from a sample of at most 256 masks
/// per side.
fn key_bits(east: &[u64], west: &[(u64, u32)], bits: u32) -> Vec<u32> {
    let mut want = 0;
    while want < MAX_KEY_BITS && east.len() >> (want + 1) >= MIN_BUCKET {
        want += 1;
    }
    if want == 0 {
        return Vec::new();
    }
    let freq = |masks: &mut dyn Iterator<Item = u64>| {
        let mut f = [0u64; 64];
        for m in masks {
            let mut rest = m;
            while rest != 0 {
                f[rest.trailing_zeros() as usize] += 1;
                rest &= rest - 1;
            }
        }
        f
    };
    let fe = freq(&mut east.iter().step_by(east.len().div_ceil(256)).copied());
    let fw = freq(
        &mut west
            .iter()
            .step_by(west.len().div_ceil(256))
            .map(|&(w, _)| w),
    );
    let mut order: Vec<u32> = (0..bits).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(fe[k as usize] * fw[k as usize]));
    order.truncate(want as usize);
    order
}

/// One chunk table of a piece: for each value of the chunk's 5 diagonal bits, the OR of the
/// slices of its set bits, per block.
type ChunkTable = [[u64; LANES]; 32];

/// [`count_west`] for `chunks` chunk tables (1..=13: 64 bits / 5). A fixed chunk count lets
/// the compiler unroll the chunk loop and drop its bounds checks (the value index is masked
/// to 0..32 and the table array has exactly C entries): 25% of the join's time at n = 18.
/// A match rather than a function pointer, so that each copy is inlined into the caller's
/// instruction set ([`isa`]); it runs once per piece and west bucket.
#[inline(always)]
fn count_west_any(
    chunks: usize,
    tables: &[ChunkTable],
    valid: &[u64; LANES],
    ws: &[(u64, u32)],
) -> u64 {
    macro_rules! pick {
        ($($c:literal)*) => {
            match chunks {
                $($c => count_west::<$c>(tables, valid, ws),)*
                _ => unreachable!("masks have at most 64 bits: 13 chunks"),
            }
        };
    }
    pick!(1 2 3 4 5 6 7 8 9 10 11 12 13)
}

/// Σ over west masks w of weight(w) · (east masks of the piece that share no bit with w).
///
/// ```text
/// for each west mask w:
///     clash[0..LANES] = OR over chunks c of table[c][(w >> 5c) & 31]
///     pairs += weight(w) · Σ_b popcount(valid[b] & !clash[b])
/// ```
#[inline(always)]
fn count_west<const C: usize>(
    tables: &[ChunkTable],
    valid: &[u64; LANES],
    ws: &[(u64, u32)],
) -> u64 {
    let tables: &[ChunkTable; C] = tables.try_into().expect("one table per chunk");
    // Per-lane sums, added up once at the end: no horizontal sum per west mask.
    let mut pairs = [0u64; LANES];
    for &(w, weight) in ws {
        let mut clash = [0u64; LANES];
        for (c, table) in tables.iter().enumerate() {
            let entry = &table[((w >> (CHUNK as usize * c)) & 31) as usize];
            for (x, e) in clash.iter_mut().zip(entry) {
                *x |= e;
            }
        }
        for ((p, x), v) in pairs.iter_mut().zip(&clash).zip(valid) {
            *p += u64::from(weight) * u64::from((v & !x).count_ones());
        }
    }
    pairs.iter().sum()
}

/// Transposes a 64×64 bit matrix in place: afterwards bit j of `m[k]` is what bit k of
/// `m[j]` was. Six rounds swap ever smaller blocks across the diagonal (32×32, 16×16, …,
/// 1×1), 32 word pairs each: 192 swaps instead of 4,096 single-bit moves.
#[inline(always)]
fn transpose64(m: &mut [u64; 64]) {
    let mut width = 32;
    let mut mask = 0x0000_0000_FFFF_FFFFu64;
    while width != 0 {
        let mut k = 0;
        while k < 64 {
            for i in k..k + width {
                // Swap the high `width` bits of m[i] with the low `width` bits of m[i + width].
                let t = ((m[i] >> width) ^ m[i + width]) & mask;
                m[i] ^= t << width;
                m[i + width] ^= t;
            }
            k += 2 * width;
        }
        width /= 2;
        mask ^= mask << width;
    }
}

/// The same sum by testing every pair: the oracle of the tests.
pub fn join_naive(east: &[u64], west: &[(u64, u32)]) -> u64 {
    west.iter()
        .map(|&(w, weight)| u64::from(weight) * east.iter().filter(|&&e| e & w == 0).count() as u64)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so the test needs no crate.
    fn masks(seed: u64, count: usize, bits: u32, density: u32) -> Vec<u64> {
        let mut x = seed | 1;
        (0..count)
            .map(|_| {
                let mut m = 0;
                for k in 0..bits {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if x % 100 < u64::from(density) {
                        m |= 1 << k;
                    }
                }
                m
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Any lists, any widths up to 64 bits, any weights: the sliced, bucketed join
        /// agrees with the pair loop (lists up to 3,000 east masks reach the buckets).
        #[test]
        fn join_agrees_with_the_pair_loop(
            bits in 1u32..=64,
            east in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..3000),
            west in proptest::collection::vec((proptest::prelude::any::<u64>(), 0u32..9), 0..300),
            sparse in 0u32..4,
        ) {
            // Random u64s clash almost always; AND a few together to make sparse masks.
            let keep = |m: u64, salt: u64| {
                let m = m & (u64::MAX >> (64 - bits));
                (0..sparse).fold(m, |m, i| m & m.rotate_left(7 * i + salt as u32 + 1))
            };
            let east: Vec<u64> = east.iter().map(|&m| keep(m, 1)).collect();
            let west: Vec<(u64, u32)> = west.iter().map(|&(m, w)| (keep(m, 2), w)).collect();
            proptest::prop_assert_eq!(
                Joiner::default().join(&east, &west, bits).pairs,
                join_naive(&east, &west)
            );
        }
    }

    #[test]
    fn transpose_moves_every_bit_across_the_diagonal() {
        let orig: [u64; 64] =
            std::array::from_fn(|i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut t = orig;
        transpose64(&mut t);
        for (j, row) in orig.iter().enumerate() {
            for (k, col) in t.iter().enumerate() {
                assert_eq!(col >> j & 1, row >> k & 1, "bit {j},{k}");
            }
        }
    }

    #[test]
    fn sliced_join_equals_the_pair_loop() {
        // One joiner for all cases, as a worker keeps it from set to set: its buffers keep
        // their length from a larger join (40,000 masks) into smaller ones and back.
        let mut joiner = Joiner::default();
        let cases = [
            (1, 0, 5, 10, 30),
            (2, 1, 1, 4, 50),
            (3, 63, 70, 12, 20),
            (4, 700, 300, 30, 25),
            (5, 200, 5000, 38, 30),
            (6, 90, 3000, 62, 15),
            (7, 300, 40000, 30, 35),
            (8, 512, 100, 20, 30),
            (9, 513, 100, 64, 20),
            (10, 5000, 3000, 38, 30),
            (11, 40000, 500, 40, 25),
            (12, 5000, 0, 38, 30),
        ];
        for &(seed, ne, nw, bits, density) in cases.iter().chain(cases.iter().rev()) {
            let east = masks(seed, ne, bits, density);
            let west: Vec<(u64, u32)> = masks(seed + 100, nw, bits, density)
                .into_iter()
                .enumerate()
                .map(|(i, w)| (w, [1, 2, 4, 0][i % 4]))
                .collect();
            let want = join_naive(&east, &west);
            assert_eq!(joiner.join(&east, &west, bits).pairs, want, "seed {seed}");
            assert_eq!(
                Joiner::default().join(&east, &west, bits).pairs,
                want,
                "seed {seed}, fresh joiner"
            );
        }
    }
}
