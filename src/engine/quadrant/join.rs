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

/// Reusable buffers of the join (one per worker).
#[derive(Debug, Default)]
pub struct Joiner {
    /// Chunk tables of every piece: `tables[((piece * chunks + c) * 32 + v) * LANES + b]`
    /// is the OR of the slices of the bits of value v of chunk c, for block b.
    tables: Vec<u64>,
    /// Valid east masks of each block of each piece.
    valid: Vec<u64>,
    /// Transposed slices of the piece being built: `slices[k * LANES + b]`.
    slices: Vec<u64>,
}

impl Joiner {
    /// The weighted number of disjoint (east, west) pairs; every mask uses bits `0..bits`.
    pub fn join(&mut self, east: &[u64], west: &[(u64, u32)], bits: u32) -> JoinStats {
        let tested = (east.len() * west.len()) as u64;
        if east.len() < MIN_SLICED {
            return JoinStats {
                pairs: join_naive(east, west),
                tested,
            };
        }
        let chunks = bits.div_ceil(CHUNK) as usize;
        let pieces = east.len().div_ceil(64 * LANES);
        self.build(east, bits, chunks, pieces);
        let table_len = chunks * 32 * LANES;
        let mut pairs = 0;
        for p in 0..pieces {
            let table = &self.tables[p * table_len..][..table_len];
            let valid: &[u64; LANES] = self.valid[p * LANES..][..LANES]
                .try_into()
                .expect("LANES words");
            for &(w, weight) in west {
                pairs += u64::from(weight) * count_piece(table, valid, chunks, w);
            }
        }
        JoinStats { pairs, tested }
    }

    /// Transposes the east masks piece by piece and builds each piece's chunk tables.
    fn build(&mut self, east: &[u64], bits: u32, chunks: usize, pieces: usize) {
        let table_len = chunks * 32 * LANES;
        self.tables.clear();
        self.tables.resize(pieces * table_len, 0);
        self.valid.clear();
        self.valid.resize(pieces * LANES, 0);
        for (p, piece) in east.chunks(64 * LANES).enumerate() {
            // Slices: bit j of slices[k * LANES + b] = bit k of mask 64 b + j.
            self.slices.clear();
            self.slices.resize(chunks * CHUNK as usize * LANES, 0);
            for (b, block) in piece.chunks(64).enumerate() {
                let mut t = [0u64; 64];
                t[..block.len()].copy_from_slice(block);
                transpose64(&mut t);
                for k in 0..bits as usize {
                    self.slices[k * LANES + b] = t[k];
                }
                self.valid[p * LANES + b] = u64::MAX >> (64 - block.len());
            }
            let table = &mut self.tables[p * table_len..][..table_len];
            for c in 0..chunks {
                let base = c * 32 * LANES;
                for v in 1..32usize {
                    let low = v.trailing_zeros() as usize; // the entry adds one slice
                    let prev = (v & (v - 1)) * LANES;
                    let k = c * CHUNK as usize + low;
                    for b in 0..LANES {
                        table[base + v * LANES + b] =
                            table[base + prev + b] | self.slices[k * LANES + b];
                    }
                }
            }
        }
    }
}

/// How many of one piece's east masks share no bit with `w`.
///
/// ```text
/// clash[0..LANES] = OR over chunks c of table[c][(w >> 5c) & 31]
/// count = Σ_b popcount(valid[b] & !clash[b])
/// ```
#[inline]
fn count_piece(table: &[u64], valid: &[u64; LANES], chunks: usize, w: u64) -> u64 {
    let mut clash = [0u64; LANES];
    let mut rest = w;
    for c in 0..chunks {
        let v = (rest & 31) as usize;
        rest >>= CHUNK;
        let entry = &table[(c * 32 + v) * LANES..][..LANES];
        for (x, e) in clash.iter_mut().zip(entry) {
            *x |= e;
        }
    }
    clash
        .iter()
        .zip(valid)
        .map(|(x, v)| u64::from((v & !x).count_ones()))
        .sum()
}

/// Transposes a 64×64 bit matrix in place: afterwards bit j of `m[k]` is what bit k of
/// `m[j]` was. Six rounds swap ever smaller blocks across the diagonal (32×32, 16×16, …,
/// 1×1), 32 word pairs each: 192 swaps instead of 4,096 single-bit moves.
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

    #[test]
    fn transpose_moves_every_bit_across_the_diagonal() {
        let orig: [u64; 64] =
            std::array::from_fn(|i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut t = orig;
        transpose64(&mut t);
        for j in 0..64 {
            for k in 0..64 {
                assert_eq!(t[k] >> j & 1, orig[j] >> k & 1, "bit {j},{k}");
            }
        }
    }

    #[test]
    fn sliced_join_equals_the_pair_loop() {
        for (seed, ne, nw, bits, density) in [
            (1, 0, 5, 10, 30),
            (2, 1, 1, 4, 50),
            (3, 63, 70, 12, 20),
            (4, 700, 300, 30, 25),
            (5, 200, 5000, 38, 30),
            (6, 90, 3000, 62, 15),
            (7, 300, 40000, 30, 35),
            (8, 512, 100, 20, 30),
            (9, 513, 100, 64, 20),
        ] {
            let east = masks(seed, ne, bits, density);
            let west: Vec<(u64, u32)> = masks(seed + 100, nw, bits, density)
                .into_iter()
                .enumerate()
                .map(|(i, w)| (w, [1, 2, 4, 0][i % 4]))
                .collect();
            assert_eq!(
                Joiner::default().join(&east, &west, bits).pairs,
                join_naive(&east, &west),
                "seed {seed}"
            );
        }
    }
}
