//! A piece of the join and the loops over west masks: the east masks of a piece, transposed
//! into bit slices ([`transpose64`]) and ORed into chunk tables ([`Piece`]), and the loop
//! that counts, for each west mask of a bucket, the masks of 1 to 6 pieces it does not clash
//! with ([`count_west`]: `count_west_plain`, portable popcounts, `count_west_avx2`, AVX2's
//! nibble tables, or `count_west_avx512`, AVX-512 `vpopcntq`), one copy per chunk count
//! and spread.

use super::{CHUNK, CHUNK_MASK, ENTRIES, LANES};
use crate::engine::isa::{self, Avx2, Avx512Popcount, Isa};

/// One piece of at most 256 east masks (64 × LANES), transposed, with its chunk tables.
#[derive(Debug, Default)]
pub(super) struct Piece {
    /// Chunk tables: `tables[c][LANES·v + b]` is the OR of the slices of the bits of value
    /// v of chunk c, for block b ([`ChunkTable`]).
    pub(super) tables: Vec<ChunkTable>,
    /// Valid east masks of each block.
    pub(super) valid: Vec<u64>,
    /// Transposed slices: `slices[k].0[b]`, each LANES words on a 32-byte boundary (read
    /// as one register, see [`ChunkTable`]).
    slices: Vec<Lanes>,
}

impl Piece {
    /// Transposes `east` (at most 256 masks) and builds its chunk tables, with AVX2 where
    /// `isa` has it ([`double_v3`]).
    #[inline(always)]
    pub(super) fn build(&mut self, east: &[u64], bits: u32, chunks: usize, isa: Isa) {
        // Every entry but the padding is written below, so the tables are not cleared: a
        // memset of 2 KiB a chunk was 2% of `count 25 --shard 123456/200000`.
        self.tables.resize(chunks, ChunkTable([0; TABLE_WORDS]));
        self.valid.clear();
        self.valid.resize(LANES, 0);
        // Slices: bit j of slices[k].0[b] = bit k of mask 64 b + j.
        self.slices.clear();
        self.slices
            .resize(chunks * CHUNK as usize, Lanes([0; LANES]));
        // Row j holds mask 64 b + j in lane b; the four blocks' 64×64 transposes then run
        // side by side, lane by lane, and row k is slice k.
        let mut rows = [Lanes([0; LANES]); 64];
        for (b, block) in east.chunks(64).enumerate() {
            for (row, &m) in rows.iter_mut().zip(block) {
                row.0[b] = m;
            }
            self.valid[b] = u64::MAX >> (64 - block.len());
        }
        isa::dispatch!(
            isa.v3_twin() => transpose_v3(&mut rows);
            else transpose_lanes(&mut rows)
        );
        self.slices[..bits as usize].copy_from_slice(&rows[..bits as usize]);
        // By doubling: after bit i, entries 0..2^(i+1) are done, entry v + 2^i being entry
        // v with slice 6c + i ORed in. Each entry is one OR of LANES words (one AVX2
        // register) over whole slices, with no bounds check; the loop by lowest set bit
        // it replaces (entry v = entry v & (v - 1) | one slice) ran word by word and was
        // two thirds of the join's driver at n = 25.
        isa::dispatch!(
            isa.v3_twin() => double_v3(&mut self.tables, &self.slices);
            else double(&mut self.tables, &self.slices)
        );
    }
}

/// Builds each chunk table from its CHUNK slices by doubling (see [`Piece::build`]), each
/// entry the OR of an earlier one and a slice by `or`.
#[inline(always)]
fn double_with(
    tables: &mut [ChunkTable],
    slices: &[Lanes],
    or: impl Fn(&[u64; LANES], &[u64; LANES]) -> [u64; LANES],
) {
    for (table, chunk) in tables.iter_mut().zip(slices.chunks_exact(CHUNK as usize)) {
        let entries = as_entries_mut(&mut table[..ENTRIES * LANES]);
        entries[0] = [0; LANES];
        for (i, slice) in chunk.iter().enumerate() {
            let (done, next) = entries.split_at_mut(1 << i);
            for (out, prev) in next[..1 << i].iter_mut().zip(done.iter()) {
                *out = or(prev, &slice.0);
            }
        }
    }
}

/// [`double_with`] word by word (the portable build's code).
#[inline(always)]
fn double(tables: &mut [ChunkTable], slices: &[Lanes]) {
    double_with(tables, slices, |a, b| std::array::from_fn(|w| a[w] | b[w]));
}

isa::v3_fn! {
    /// [`double_with`] with one AVX2 OR an entry. Why by hand: LLVM vectorized [`double`]'s loop
    /// across four entries at a time instead, turning each group of four into a 4×4
    /// transpose of words (`vpunpcklqdq`, `vperm2i128`), four ORs and the transpose back:
    /// the table build was a fifth of the join's driver at n = 23 (`perf`, 2026-12-05).
    /// Measured with [`transpose_v3`] (Intel Xeon model 167, both builds at once, one per
    /// core, swapped, the same shard files): `count 23 --shard 1234/2000 -t 1` 0.948, 0.943,
    /// 0.944 of the CPU; `count 22 --shard 77/200 -t 1` 0.975, 0.974, 0.960.
    fn double_v3(tables: &mut [ChunkTable], slices: &[Lanes]) {
        use isa::{words, ymm};
        use std::arch::x86_64::_mm256_or_si256;
        double_with(tables, slices, |a, b| words(_mm256_or_si256(ymm(a), ymm(b))));
    }
}

/// LANES words on a 32-byte boundary: one slice of a piece's transposed masks.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct Lanes([u64; LANES]);

/// `words` as entries of LANES words, to write (its length a multiple of LANES).
#[inline(always)]
fn as_entries_mut(words: &mut [u64]) -> &mut [[u64; LANES]] {
    let (entries, rest) = words.as_chunks_mut::<LANES>();
    debug_assert!(rest.is_empty());
    entries
}

/// One chunk table of a piece: for each value v of the chunk's 6 diagonal bits, the OR of
/// the slices of its set bits, per block, at words `LANES·v..LANES·v + LANES` ([`entry`]).
/// The last LANES words are padding: a spread west mask's byte b (at most 255, see
/// [`spread`]) reads words b..b + LANES, which the compiler then knows are in the table.
///
/// Aligned to 64 bytes, so that no entry (LANES words, 32 bytes, at a multiple of 32 bytes)
/// straddles two cache lines. As a plain array in a `Vec` a table started wherever the
/// allocator put the buffer (16-byte aligned; tables 2,080 bytes apart), so whether half
/// the entries straddled lines changed with the heap's history: a change elsewhere that
/// only moved an allocation (a buffer of the key choice) made the west loop 11% slower on
/// `count 24 --shard 473/20000 -t 1` (Intel Xeon model 167, 2026-12-05, `perf`: the same
/// pairs, 27,055 -> 29,967 samples in the west loop).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(super) struct ChunkTable([u64; TABLE_WORDS]);

impl std::ops::Deref for ChunkTable {
    type Target = [u64; TABLE_WORDS];
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for ChunkTable {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}
/// Words of a [`ChunkTable`].
const TABLE_WORDS: usize = ENTRIES * LANES + LANES;

/// The entry of value `v` (below [`ENTRIES`]) of a chunk table.
#[inline(always)]
pub(super) fn entry(table: &ChunkTable, v: usize) -> &[u64; LANES] {
    table[LANES * v..LANES * v + LANES]
        .try_into()
        .expect("LANES words")
}

/// A west mask as the sorted joins keep it: byte c holds LANES times the value of chunk c
/// (the word at which that value's entry starts in the chunk's table), so the west loop
/// reads each chunk's entry with one byte load and an address, without the shift and mask
/// per chunk that took about half its instructions ([`count_west`]). Worked
/// example: diagonals 0, 7 and 13 set (chunk values 1, 2 and 2) become bytes 4, 8, 8:
/// `0x08_08_04`. Holds the first [`SPREAD_CHUNKS`] chunks: joins whose own chunks are at
/// most that many are spread, so every join whose key moved
/// ([`moves`](super::key::moves); n <= 31) and the unmoved ones of at most 48 diagonals
/// (n <= 25).
#[inline(always)]
pub(super) fn spread(m: u64) -> u64 {
    (0..SPREAD_CHUNKS).fold(0, |out, c| {
        out | (((m >> (CHUNK as usize * c)) & CHUNK_MASK) * LANES as u64) << (8 * c)
    })
}

/// Chunks a spread west mask holds: one byte each.
pub(super) const SPREAD_CHUNKS: usize = 8;

/// Chunks a packed west mask holds ([`Packed`]): its top byte is its weight's class.
pub(super) const PACKED_CHUNKS: usize = SPREAD_CHUNKS - 1;

/// A west mask as a west loop reads it: its mask, and its weight given the join's table of
/// weight classes.
pub(super) trait WestEntry: Copy + 'static {
    /// The mask (spread or not); bits the loop does not read may hold anything.
    fn mask(self) -> u64;
    /// Byte `c` of the spread mask (see [`spread`]): LANES times chunk c's value. A
    /// [`Packed`] entry reads it from memory (see there); by default it is cut out of the
    /// mask in a register.
    #[inline(always)]
    fn spread_byte(&self, c: usize) -> usize {
        usize::from((self.mask() >> (8 * c)) as u8)
    }
    /// The weight, from `classes` where the entry holds only a class.
    fn weight(self, classes: &[u64; CLASSES]) -> u64;
    /// Whether the weight is read from a word of `classes` (so the AVX2 and AVX-512 loops
    /// broadcast the word into their multiply, `add_weighted`), not from a 32-bit field of
    /// the entry. Read only by those x86-64 loops.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    const FROM_CLASSES: bool;
}

/// Weights a packed join can tell apart (a set's west masks have at most three: its
/// symmetry weight z for a mask off both long diagonals, 2w or 4w on one or two).
pub(super) const CLASSES: usize = 4;

/// Where a [`Packed`] mask's class begins: its top two bits, so that the west loop reads
/// the class with one shift and no mask (bits 56 to 61 stay 0). With the weights as words
/// (`classes: &[u64; CLASSES]`) the AVX-512 loop then multiplies by the class's weight
/// straight from memory (`vpmuludq (classes, class, 8){1to4}`): 2 instructions a west
/// mask for its weight instead of 5 (shift, mask, load, broadcast, multiply). Paired
/// (Intel Xeon model 167, both builds at once, cores swapped, same shard files): `count 26
/// --shard 162680/420000 -t 1` 0.971, 0.986, 0.986; `count 24 --shard 473/20000 -t 1`
/// 0.981, 0.974, 0.983.
const CLASS_SHIFT: u32 = 64 - CLASSES.trailing_zeros();

impl WestEntry for (u64, u32) {
    #[inline(always)]
    fn mask(self) -> u64 {
        self.0
    }
    #[inline(always)]
    fn weight(self, _: &[u64; CLASSES]) -> u64 {
        u64::from(self.1)
    }
    const FROM_CLASSES: bool = false;
}

/// A spread west mask of at most [`PACKED_CHUNKS`] chunks with its weight's class in the
/// top byte: 8 bytes where `(mask, weight)` takes 16. The west loop streams these lists
/// from memory (a piece visits about 50,000 west masks in 500 buckets at n = 26, spread
/// over a list of 150 MB), and a loop over 16-byte entries measured 6.5 ns a mask from a
/// 16 MB list against 4.2 ns over 8-byte ones (1.6-2.1 ns either way from L2).
///
/// Kept as bytes, so that the west loop reads each chunk's byte straight from the list
/// (`movzbl 3(%rax), %r11d`, then the table entry at 8 times it: one load a chunk) rather
/// than loading the word and cutting each byte out with a shift and a mask: two or three
/// instructions a chunk, 14 of the 48 a west mask in the AVX2 copy for 6 chunks and 2
/// pieces, which x86-64 cores issue at most 6 a cycle; the copy for 7 chunks and 1 piece
/// now runs 29 a west mask. Measured with [`each_piece`] (AMD EPYC Zen 3, both builds at
/// once, one per core, cores swapped each round, the same shard files; the build before
/// is 84a662e), the CPU against that build: `count 26 --shard 162680/420000 -t 1` 0.957
/// and 0.940; `count 24 --shard 473/20000 -t 1` 0.987, 0.982, 0.970, 0.974; `count 23
/// --shard 1234/2000 -t 1` median 0.992 of 6 rounds; `count 22 --shard 77/200 -t 1` median
/// 1.007 of 10 (0.88-1.05, a noisy host); `count 28 --shard 17078054/20060045 -t 1` median
/// 0.980 of 7 (0.93-1.08). The bytes alone, against `each_piece` with the bytes cut out of
/// the word: n = 26 0.958 and 0.941, n = 24 0.966, 0.945 and 1.004. Not yet measured on a
/// CPU with AVX-512, whose loop reads the same bytes.
///
/// Tried and not kept (Zen 3, 2026-12-06, paired the same way): the unpacked sorted lists
/// (west lists below [`PACK_FROM`](super::PACK_FROM), most joins of n <= 23 and the odd
/// boards') kept as bytes too, with their 32-bit weight (16 bytes an entry as before):
/// `count 23 --shard 1234/2000` 0.975, 1.013, 1.027, 1.022 (12-byte entries: 1.018, 1.022,
/// 0.991, 1.003), `count 22 --shard 77/200` 0.98 (12-byte entries). The hottest copy at n =
/// 23 then read each chunk's byte from memory, and the west loops kept their 36% of the
/// samples (`perf record`). Not traced further; a likely reason is that each table
/// entry's load then waits on the byte's load, where the sparse joins' short buckets
/// leave the core fewer west masks to overlap.
#[derive(Clone, Copy, Debug)]
pub(super) struct Packed(pub(super) [u8; 8]);

impl Packed {
    /// The first [`PACKED_CHUNKS`] chunks of `spread_mask` with weight class `class`. (The
    /// top byte of a spread mask may hold a moved key chunk, which the loop never reads:
    /// it reads the join's own chunks, at most [`PACKED_CHUNKS`] when it packs.)
    #[inline(always)]
    pub(super) fn new(spread_mask: u64, class: usize) -> Packed {
        debug_assert!(class < CLASSES);
        Packed((spread_mask & (u64::MAX >> 8) | (class as u64) << CLASS_SHIFT).to_le_bytes())
    }
}

impl WestEntry for Packed {
    #[inline(always)]
    fn mask(self) -> u64 {
        u64::from_le_bytes(self.0)
    }
    #[inline(always)]
    fn spread_byte(&self, c: usize) -> usize {
        usize::from(self.0[c])
    }
    #[inline(always)]
    fn weight(self, classes: &[u64; CLASSES]) -> u64 {
        classes[usize::from(self.0[7] >> (CLASS_SHIFT - 56))]
    }
    const FROM_CLASSES: bool = true;
}

/// Calls `$f::<C, SPREAD, _>$args` for the `$chunks` and `$spread` given: 0..=11 chunks (64
/// bits / 6), spread masks up to [`SPREAD_CHUNKS`] (the last generic, the number of pieces,
/// is inferred from the arguments).
macro_rules! pick_west_loop {
    ($f:ident, $chunks:expr, $spread:expr, $args:tt) => {
        pick_west_loop!(@ $f, $chunks, $spread, $args; 0 1 2 3 4 5 6 7 8 9 10 11; 0 1 2 3 4 5 6 7 8)
    };
    (@ $f:ident, $chunks:expr, $spread:expr, $args:tt; $($c:literal)*; $($s:literal)*) => {
        match ($chunks, $spread) {
            $(($c, false) => $f::<$c, false, _, _> $args,)*
            $(($s, true) => $f::<$s, true, _, _> $args,)*
            _ => unreachable!("masks have at most 64 bits: 11 chunks, 8 spread"),
        }
    };
}

/// The west loop: Σ over the west masks w of the buckets `buckets` yields of weight(w) ·
/// (east masks of the `M` pieces that share no bit with w), each west mask read once for
/// all `M` pieces (the members of a group that visit the bucket, see
/// [`GROUP`](super::GROUP), or the one or two pieces of a sparse join's visit).
///
/// ```text
/// for each west mask w:
///     for each piece i: clash_i[0..LANES] = base_i | OR over chunks c of table_i[c][(w >> 6c) & 63]
///     pairs += weight(w) · Σ_i Σ_b popcount(valid_i[b] & !clash_i[b])
/// ```
///
/// `chunks` chunk tables (0..=11: 64 bits / 6; 0 when every diagonal is a moved key bit),
/// the west masks spread ([`spread`], at most 8 chunks) or not, with the popcounts
/// `popcounts` allows ([`Popcounts`]: AVX-512's, AVX2's or portable ones).
/// A fixed chunk count lets the compiler unroll the chunk loop and drop its bounds checks
/// (the value index is masked to 0..64 and the table array has exactly C entries): 25% of
/// the join's time at n = 18. A match rather than a function pointer, so that each copy is
/// inlined into the caller's instruction set ([`isa`]); it runs once per group and west
/// bucket. The byte of each chunk of w is read once for all pieces; only the table entries
/// differ. `uniform`: the weight of every west mask, where the caller knows one (the AVX2
/// loop then sums the counts before weighing them; the others ignore it).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
// `uniform` is read only by the x86-64 AVX2 loop.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub(super) fn count_west<'x, const M: usize, E: WestEntry>(
    chunks: usize,
    spread: bool,
    popcounts: Popcounts,
    tables: [&[ChunkTable]; M],
    valid: [&[u64; LANES]; M],
    buckets: &mut impl Buckets<'x, E, M>,
    classes: &[u64; CLASSES],
    uniform: Option<u64>,
) -> u64 {
    isa::dispatch!(
        popcounts.avx512 => count_west_avx512_any(chunks, spread, tables, valid, buckets, classes);
        else isa::dispatch!(
            popcounts.avx2 => count_west_avx2_any(chunks, spread, tables, valid, buckets, classes, uniform);
            else pick_west_loop!(count_west_plain, chunks, spread, (tables, valid, buckets, classes))
        )
    )
}

/// Which copy of the west loop counts ([`count_west`]): AVX-512's `vpopcntq` where
/// `avx512` holds its proof, else AVX2's nibble tables where `avx2` holds its proof, else
/// the portable `count_ones` of the build's own target.
#[derive(Clone, Copy, Debug)]
pub(super) struct Popcounts {
    pub(super) avx512: Option<Avx512Popcount>,
    pub(super) avx2: Option<Avx2>,
}

impl Popcounts {
    /// The best copy `isa` runs on this CPU (the AVX-512 one only where `avx512` allows).
    pub(super) fn of(isa: Isa, avx512: bool) -> Popcounts {
        Popcounts {
            avx512: isa.avx512_popcount().filter(|_| avx512),
            avx2: isa.avx2(),
        }
    }

    /// The portable loop only, whatever the CPU (for the tests).
    #[cfg(test)]
    pub(super) const PORTABLE: Popcounts = Popcounts {
        avx512: None,
        avx2: None,
    };
}

/// The west buckets a west loop counts, one after another: each bucket's masks and the
/// base of each of the `M` pieces (the east masks of the piece that clash with every mask
/// of the bucket, from the key chunks). A group's visit is one bucket ([`One`]); a sparse
/// join's piece runs its whole visit in one call (`join::Submasks`), so that a bucket of
/// one or two west masks does not pay a call, the loop's choice of copy, its registers'
/// set-up and its final sum.
pub(super) trait Buckets<'x, E: WestEntry, const M: usize> {
    /// The next bucket, or None when all have been counted.
    fn next(&mut self) -> Option<(&'x [E], [[u64; LANES]; M])>;
}

/// One bucket ([`Buckets`]).
pub(super) struct One<'x, E, const M: usize>(pub(super) Option<(&'x [E], [[u64; LANES]; M])>);

impl<'x, E: WestEntry, const M: usize> Buckets<'x, E, M> for One<'x, E, M> {
    #[inline(always)]
    fn next(&mut self) -> Option<(&'x [E], [[u64; LANES]; M])> {
        self.0.take()
    }
}

/// [`count_west`] with portable popcounts (`count_ones`), where no x86-64-v3 code runs: the
/// baseline build on a CPU without v3's features, or with v3 turned off (`Isa::Baseline`),
/// and every other architecture.
#[inline(always)]
fn count_west_plain<'x, const C: usize, const SPREAD: bool, const M: usize, E: WestEntry>(
    tables: [&[ChunkTable]; M],
    valid: [&[u64; LANES]; M],
    buckets: &mut impl Buckets<'x, E, M>,
    classes: &[u64; CLASSES],
) -> u64 {
    // Per-lane sums, added up once at the end: no horizontal sum per west mask.
    let tables = exact_tables::<C, M>(tables);
    let mut pairs = [0u64; LANES];
    while let Some((ws, base)) = buckets.next() {
        for entry in ws {
            let weight = entry.weight(classes);
            let mut free = [0u32; LANES];
            each_piece::<M>(|i| {
                let clash = clash::<C, SPREAD, E>(tables[i], entry, &base[i]);
                for ((f, x), v) in free.iter_mut().zip(&clash).zip(valid[i]) {
                    *f += (v & !x).count_ones();
                }
            });
            for (p, f) in pairs.iter_mut().zip(free) {
                *p += weight * u64::from(f);
            }
        }
    }
    pairs.iter().sum()
}

isa::v3_fn! {
    /// [`count_west`]'s AVX2 copy: the same choice of copy, each compiled with x86-64-v3's
    /// features.
    #[allow(clippy::too_many_arguments)]
    fn count_west_avx2_any<'x, const M: usize, E: WestEntry>(
        chunks: usize,
        spread: bool,
        tables: [&[ChunkTable]; M],
        valid: [&[u64; LANES]; M],
        buckets: &mut impl Buckets<'x, E, M>,
        classes: &[u64; CLASSES],
        uniform: Option<u64>,
    ) -> u64 {
        match uniform {
            Some(weight) => {
                pick_west_loop!(count_west_avx2_uniform, chunks, spread, (tables, valid, buckets, weight))
            }
            None => pick_west_loop!(count_west_avx2, chunks, spread, (tables, valid, buckets, classes)),
        }
    }
}

isa::v3_fn! {
    /// [`count_west`] with AVX2's popcounts written out: each byte of a piece's 256 free
    /// bits counted by two lookups of a 16-entry table (`vpshufb`, one per nibble), the
    /// byte counts of the `M` pieces added as bytes (at most 8 a piece, so 48 for six), and
    /// one `vpsadbw` a west mask sums each 64-bit lane's bytes. `count_west_plain`, the same
    /// sum as portable `count_ones`, is what LLVM compiles well only sometimes: in
    /// `join_v3` it vectorized some copies across four west masks at a time, each table
    /// entry then loaded as four words and shuffled into place, with registers spilled
    /// (`perf annotate` of `count 22 --shard 77/200` on an AMD EPYC Zen 3, whose join has
    /// no AVX-512: the join 69% of the samples, most of it in such a copy).
    fn count_west_avx2<'x, const C: usize, const SPREAD: bool, const M: usize, E: WestEntry>(
        tables: [&[ChunkTable]; M],
        valid: [&[u64; LANES]; M],
        buckets: &mut impl Buckets<'x, E, M>,
        classes: &[u64; CLASSES],
    ) -> u64 {
        use isa::words;
        use std::arch::x86_64::{_mm256_sad_epu8, _mm256_setzero_si256};
        let tables = exact_tables::<C, M>(tables);
        let zeros = zeros_table();
        let zero = _mm256_setzero_si256();
        let mut pairs = zero;
        while let Some((ws, base)) = buckets.next() {
            let base = with_invalid(base, valid);
            for entry in ws {
                let bytes = add_zeros::<C, SPREAD, M, E>(zeros, zero, tables, entry, &base);
                pairs = add_weighted(pairs, _mm256_sad_epu8(bytes, zero), *entry, classes);
            }
        }
        words(pairs).iter().sum()
    }
}

isa::v3_fn! {
    /// [`count_west_avx2`] where every west mask weighs `weight` (odd boards, and the
    /// swapped joins of even ones: `Joiner::expect_weights`): the byte counts of successive
    /// west masks add up in place and are summed (`vpsadbw`) only before a byte could pass
    /// 255, every 31 masks for one piece and every 5 for six (at most 8 zeros a byte and
    /// piece), and the weight multiplies the call's total once. So a west mask drops its
    /// weight's load, its multiply, its sum and its 64-bit add.
    ///
    /// Paired against the build before, which ran [`count_west_avx2`] for every list (AMD
    /// EPYC Zen 3, 2026-12-06, both builds at once, one per core, cores swapped each round,
    /// the same shard files, `-t 1`; the CPU of B over A, medians of 4 rounds): `count 20
    /// --shard 3/10` 0.986, `count 22 --shard 77/200` 0.993, `count 23 --shard 1234/2000`
    /// 0.995, `count 25 --shard 123456/200000` 0.993, `count 24 --shard 473/20000` 1.003,
    /// `count 26 --shard 162680/420000` (no uniform join) 1.000 of 6. A first form, with
    /// both loops in one function, gave 0.98 at n = 22 and 0.97 at n = 20. About 1% where
    /// the joins are uniform, so this tail of the loop is not what bounds it, and grouping
    /// a bucket's masks by weight class, so that the packed joins of even boards could do
    /// the same, would gain no more than this.
    fn count_west_avx2_uniform<'x, const C: usize, const SPREAD: bool, const M: usize, E: WestEntry>(
        tables: [&[ChunkTable]; M],
        valid: [&[u64; LANES]; M],
        buckets: &mut impl Buckets<'x, E, M>,
        weight: u64,
    ) -> u64 {
        use isa::words;
        use std::arch::x86_64::{_mm256_add_epi64, _mm256_sad_epu8, _mm256_setzero_si256};
        let tables = exact_tables::<C, M>(tables);
        let zeros = zeros_table();
        let zero = _mm256_setzero_si256();
        let per_sum = 255 / (8 * M);
        let (mut left, mut bytes, mut pairs) = (per_sum, zero, zero);
        while let Some((ws, base)) = buckets.next() {
            let base = with_invalid(base, valid);
            for entry in ws {
                bytes = add_zeros::<C, SPREAD, M, E>(zeros, bytes, tables, entry, &base);
                left -= 1;
                if left == 0 {
                    pairs = _mm256_add_epi64(pairs, _mm256_sad_epu8(bytes, zero));
                    (bytes, left) = (zero, per_sum);
                }
            }
        }
        pairs = _mm256_add_epi64(pairs, _mm256_sad_epu8(bytes, zero));
        weight * words(pairs).iter().sum::<u64>()
    }
}

/// Each piece's `base` with its invalid masks (past the end of a short piece) set, as if
/// they clashed with every west mask: the AVX2 loops count the zeros of a clash ([`Zeros`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn with_invalid<const M: usize>(
    base: [[u64; LANES]; M],
    valid: [&[u64; LANES]; M],
) -> [[u64; LANES]; M] {
    std::array::from_fn(|i| std::array::from_fn(|b| base[i][b] | !valid[i][b]))
}

/// The AVX2 loops' popcount: the zeros of each byte of a clash, by two lookups of a
/// 16-entry table (the bits clear in each value of a nibble, in both 128-bit halves, as
/// `vpshufb` looks up within each half). Counting the zeros, the east masks a west mask is
/// free of, with each piece's invalid masks set in its base ([`with_invalid`]), needs no
/// `valid` a piece in a register and no AND NOT a piece and west mask (15 instructions a
/// piece become 14, and a group of six no longer reads its valid words from the stack).
/// Paired against counting the ones of `valid & !clash` (AMD EPYC Zen 3, both builds at
/// once, cores swapped, the same shard files): `count 26 --shard 162680/420000 -t 1` 0.941
/// and 0.939 of the CPU, `count 24 --shard 473/20000` 0.988, 1.012, 0.985, 0.974, `count
/// 22 --shard 77/200` 0.930, 0.944, 1.045, 0.993; n = 23 (median 1.007 of 6) and the n =
/// 28 unit of `Packed`'s doc (0.974, 1.015) unchanged.
///
/// What any cheaper popcount could still win (a carry-save or Harley-Seal sum of the
/// clashes, say), bounded by leaving it out: a build whose loops add each clash's bytes
/// unchanged (no lookups, so its counts are wrong) against this one (AMD EPYC Zen 3,
/// 2026-12-07, both at once, one per core, cores swapped, `-t 1`): `count 24 --shard
/// 473/20000` 0.872, 0.966, 0.965 of the CPU, `count 22 --shard 77/200` 0.948, 0.971,
/// 0.952. So the lookups take 3.5-5% of a count by the medians (the first n = 24 pair
/// gave 12.8%); the rest of the loop is its chunk-table ([`ChunkTable`]) loads and ORs,
/// which such a sum keeps, and a popcount of half the instructions would win at most that,
/// perhaps half of it (not measured). Not built.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Zeros {
    table: std::arch::x86_64::__m256i,
    nibble: std::arch::x86_64::__m256i,
}

isa::v3_fn! {
    /// The table and the nibble mask of [`Zeros`].
    #[inline]
    fn zeros_table() -> Zeros {
        use std::arch::x86_64::{_mm256_set1_epi8, _mm256_setr_epi8};
        Zeros {
            table: _mm256_setr_epi8(
                4, 3, 3, 2, 3, 2, 2, 1, 3, 2, 2, 1, 2, 1, 1, 0, 4, 3, 3, 2, 3, 2, 2, 1, 3, 2, 2, 1,
                2, 1, 1, 0,
            ),
            nibble: _mm256_set1_epi8(0x0F),
        }
    }
}

isa::v3_fn! {
    /// `bytes` plus the zeros of each byte of the clashes of `entry` with the `M` pieces
    /// (`tables`, `base`), by [`Zeros`]' lookups.
    #[inline]
    fn add_zeros<const C: usize, const SPREAD: bool, const M: usize, E: WestEntry>(
        z: Zeros,
        mut bytes: std::arch::x86_64::__m256i,
        tables: [&[ChunkTable; C]; M],
        entry: &E,
        base: &[[u64; LANES]; M],
    ) -> std::arch::x86_64::__m256i {
        use isa::ymm;
        use std::arch::x86_64::{
            _mm256_add_epi8, _mm256_and_si256, _mm256_shuffle_epi8, _mm256_srli_epi16,
        };
        each_piece::<M>(|i| {
            let clash = ymm(&clash::<C, SPREAD, E>(tables[i], entry, &base[i]));
            let low = _mm256_shuffle_epi8(z.table, _mm256_and_si256(clash, z.nibble));
            let high = _mm256_srli_epi16::<4>(clash);
            let high = _mm256_shuffle_epi8(z.table, _mm256_and_si256(high, z.nibble));
            bytes = _mm256_add_epi8(bytes, _mm256_add_epi8(low, high));
        });
        bytes
    }
}

isa::avx512_popcount_fn! {
    /// [`count_west`]'s AVX-512 half: the same choice of copy, each compiled with the
    /// AVX-512 features (a call between functions of the same features needs no `unsafe`).
    #[allow(clippy::too_many_arguments)]
    fn count_west_avx512_any<'x, const M: usize, E: WestEntry>(
        chunks: usize,
        spread: bool,
        tables: [&[ChunkTable]; M],
        valid: [&[u64; LANES]; M],
        buckets: &mut impl Buckets<'x, E, M>,
        classes: &[u64; CLASSES],
    ) -> u64 {
        pick_west_loop!(count_west_avx512, chunks, spread, (tables, valid, buckets, classes))
    }
}

isa::avx512_popcount_fn! {
    /// [`count_west`] with the popcounts of a west mask's 256 pairs a piece in one AVX-512
    /// `vpopcntq` (on 256-bit registers, AVX-512VL) instead of AVX2's nibble tables: about
    /// six instructions fewer per west mask and piece. Measured (Intel Xeon model 167, 1
    /// thread, alternating): shard 7411/20000 of n = 24 14.00 / 13.95 -> 12.07 / 12.31 s
    /// (-13%), same solutions and tested pairs. Written with intrinsics rather than by
    /// compiling the join for AVX-512: with those features LLVM turned the loop's table
    /// lookups into gathers, and the join ran 40% slower.
    fn count_west_avx512<'x, const C: usize, const SPREAD: bool, const M: usize, E: WestEntry>(
        tables: [&[ChunkTable]; M],
        valid: [&[u64; LANES]; M],
        buckets: &mut impl Buckets<'x, E, M>,
        classes: &[u64; CLASSES],
    ) -> u64 {
        use isa::{words, ymm};
        use std::arch::x86_64::{
            _mm256_add_epi64, _mm256_andnot_si256, _mm256_popcnt_epi64, _mm256_setzero_si256,
        };
        // Four words as one 256-bit register (the compiler keeps them there).
        let valid = valid.map(|v| ymm(v));
        let tables = exact_tables::<C, M>(tables);
        let mut pairs = _mm256_setzero_si256();
        while let Some((ws, base)) = buckets.next() {
            for entry in ws {
                let mut free = _mm256_setzero_si256();
                each_piece::<M>(|i| {
                    let clash = ymm(&clash::<C, SPREAD, E>(tables[i], entry, &base[i]));
                    free = _mm256_add_epi64(free, _mm256_popcnt_epi64(_mm256_andnot_si256(clash, valid[i])));
                });
                pairs = add_weighted(pairs, free, *entry, classes);
            }
        }
        words(pairs).iter().sum()
    }
}

isa::v3_fn! {
    /// `pairs + weight(entry) · free`, lane by lane: the last step of the AVX2 and AVX-512
    /// west loops for each west mask (inlined into both; a function of v3's features may be
    /// called from one of AVX-512's).
    ///
    /// Each lane of `free` is below 2^9 (at most GROUP = 6 pieces of 64 masks) and a weight
    /// below 2^32: the low 32 bits multiply exactly. A class's weight is a word, broadcast
    /// within the multiply (see CLASS_SHIFT); an entry's own 32-bit weight is broadcast as
    /// eight copies straight from memory, whose even ones the multiply reads (a 64-bit
    /// broadcast of it went through a register).
    #[inline]
    fn add_weighted<E: WestEntry>(
        pairs: std::arch::x86_64::__m256i,
        free: std::arch::x86_64::__m256i,
        entry: E,
        classes: &[u64; CLASSES],
    ) -> std::arch::x86_64::__m256i {
        use std::arch::x86_64::{
            _mm256_add_epi64, _mm256_mul_epu32, _mm256_set1_epi32, _mm256_set1_epi64x,
        };
        let weight = match E::FROM_CLASSES {
            true => _mm256_set1_epi64x(entry.weight(classes) as i64),
            false => _mm256_set1_epi32(entry.weight(classes) as i32),
        };
        _mm256_add_epi64(pairs, _mm256_mul_epu32(free, weight))
    }
}

/// Calls `f(0)`, ..., `f(M - 1)`, written out one after another (M is at most
/// [`GROUP`](super::GROUP) = 6): the loops over a west mask's pieces, unrolled whatever
/// LLVM's cost model says. Left to it, a small change to the loop's body (reading a packed
/// mask's bytes from memory) turned 16 more of the 200-odd copies' piece loops into rolled
/// loops, each piece's table then read from the stack.
#[inline(always)]
fn each_piece<const M: usize>(mut f: impl FnMut(usize)) {
    const { assert!(M <= 6, "written out below for at most 6 pieces") };
    // Not a loop: a loop is what LLVM may leave rolled. Each `if` is decided at compile time.
    macro_rules! written_out {
        ($($i:literal)*) => {$(
            if M > $i {
                f($i);
            }
        )*};
    }
    written_out!(0 1 2 3 4 5);
}

/// Each piece's first `C` chunk tables as an array: the length check made once a call of
/// the west loop, not once a west mask (where the compiler leaves the loop over the
/// pieces rolled, it cannot hoist the check of the piece's own slice out of it).
#[inline(always)]
fn exact_tables<const C: usize, const M: usize>(
    tables: [&[ChunkTable]; M],
) -> [&[ChunkTable; C]; M] {
    tables.map(|t| t[..C].try_into().expect("a table a chunk"))
}

/// The east masks of the piece that clash with west mask `w`, per block: `base` ORed with
/// each chunk's table entry for w's value in that chunk (with `SPREAD`, w is [`spread`]:
/// chunk c's entry starts at the word byte c gives, so no shift and mask per chunk).
#[inline(always)]
fn clash<const C: usize, const SPREAD: bool, E: WestEntry>(
    tables: &[ChunkTable; C],
    w: &E,
    base: &[u64; LANES],
) -> [u64; LANES] {
    let mut clash = *base;
    for (c, table) in tables.iter().enumerate() {
        let entry: &[u64; LANES] = if SPREAD {
            let at = w.spread_byte(c);
            table[at..at + LANES].try_into().expect("padded")
        } else {
            entry(
                table,
                ((w.mask() >> (CHUNK as usize * c)) & CHUNK_MASK) as usize,
            )
        };
        for (x, e) in clash.iter_mut().zip(entry) {
            *x |= e;
        }
    }
    clash
}

/// [`transpose64`] of each lane of `rows` (lane b of row j is row j of matrix b).
#[inline(always)]
fn transpose_lanes(rows: &mut [Lanes; 64]) {
    for b in 0..LANES {
        let mut t: [u64; 64] = std::array::from_fn(|j| rows[j].0[b]);
        transpose64(&mut t);
        for (row, &slice) in rows.iter_mut().zip(&t) {
            row.0[b] = slice;
        }
    }
}

isa::v3_fn! {
    /// [`transpose_lanes`] with AVX2: each step of [`transpose64`] on all four lanes at
    /// once, one 256-bit register a row (192 swaps of a pair of rows, six operations each,
    /// for the four matrices; block by block, the compiler had vectorized each matrix's
    /// steps apart, at about a fifth of the join's driver at n = 23).
    fn transpose_v3(rows: &mut [Lanes; 64]) {
        use isa::{words, ymm};
        use std::arch::x86_64::{
            _mm256_and_si256, _mm256_set1_epi64x, _mm256_slli_epi64, _mm256_srli_epi64,
            _mm256_xor_si256,
        };
        // One step of transpose64: swap the high `W` bits of row i with the low `W` bits of
        // row i + W, for the rows i whose bit W is clear.
        macro_rules! step {
            ($w:literal, $mask:literal) => {{
                let mask = _mm256_set1_epi64x($mask as i64);
                for k in (0..64).step_by(2 * $w) {
                    for i in k..k + $w {
                        let (a, b) = (ymm(&rows[i].0), ymm(&rows[i + $w].0));
                        let t = _mm256_and_si256(
                            _mm256_xor_si256(_mm256_srli_epi64::<$w>(a), b),
                            mask,
                        );
                        rows[i].0 = words(_mm256_xor_si256(a, _mm256_slli_epi64::<$w>(t)));
                        rows[i + $w].0 = words(_mm256_xor_si256(b, t));
                    }
                }
            }};
        }
        step!(32, 0x0000_0000_FFFF_FFFFu64);
        step!(16, 0x0000_FFFF_0000_FFFFu64);
        step!(8, 0x00FF_00FF_00FF_00FFu64);
        step!(4, 0x0F0F_0F0F_0F0F_0F0Fu64);
        step!(2, 0x3333_3333_3333_3333u64);
        step!(1, 0x5555_5555_5555_5555u64);
    }
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

#[cfg(test)]
mod tests {
    use super::super::tests::{masks, weighted};
    use super::super::GROUP;
    use super::*;
    use crate::engine::isa::Isa;

    /// The west loop the join calls, against the pair loop: for 1 to 6 pieces at once, 0..=11
    /// chunk tables, west masks spread, packed or neither, and for each piece its own `base`
    /// of east masks that clash whatever the west mask (as a bucket's moved key chunks
    /// give). The portable loop runs as compiled for this test's own target, the AVX2 and
    /// AVX-512 copies where the CPU has their features (the join's suites run them inside
    /// each instruction set's copy of the join).
    #[test]
    fn the_west_loop_counts_as_the_pair_loop() {
        let mut loops = vec![("portable popcounts", Popcounts::PORTABLE)];
        match Isa::X86_64V3.avx2() {
            Some(_) => loops.push(("AVX2 popcounts", Popcounts::of(Isa::X86_64V3, false))),
            None => eprintln!("skipped: the AVX2 west loop (this CPU lacks x86-64-v3)"),
        }
        match Isa::X86_64V3.avx512_popcount() {
            Some(_) => loops.push(("AVX-512 popcounts", Popcounts::of(Isa::X86_64V3, true))),
            None => eprintln!(
                "skipped: the AVX-512 west loop (this CPU lacks AVX-512F, VL or VPOPCNTDQ)"
            ),
        }
        let bases: [[u64; LANES]; GROUP] = [
            [0x0F0F, 0, 1 << 63, 0],
            [0; LANES],
            [0xFFFF_0000, 0, 0, 0x10],
            [0, 0xF0, 0, 0],
            [0, 0, 0, 0xFF00_0000_0000_00FF],
            [1, 2, 3, 4],
        ];
        let classes = [1, 2, 4, 8];
        let wide = classes.map(u64::from);
        for chunks in 0..=11usize {
            let bits = (6 * chunks as u32).min(62);
            let west = weighted(masks(chunks as u64 + 70, 500, bits, 10), &classes);
            let mut pieces: [Piece; GROUP] = Default::default();
            let mut wants = [0u64; GROUP];
            // The same pairs with every west mask weighing 2 (class 1).
            let mut uniform_wants = [0u64; GROUP];
            for (i, (piece, want)) in pieces.iter_mut().zip(&mut wants).enumerate() {
                let east = masks(
                    chunks as u64 + 7 + i as u64,
                    [200, 256, 64, 130, 256, 17][i],
                    bits,
                    10,
                );
                piece.build(&east, bits, chunks, Isa::best());
                // East mask j is bit j % 64 of block j / 64.
                let free = |j: usize| bases[i][j / 64] >> (j % 64) & 1 == 0;
                *want = west
                    .iter()
                    .map(|&(w, weight)| {
                        let disjoint = (0..east.len()).filter(|&j| free(j) && east[j] & w == 0);
                        u64::from(weight) * disjoint.count() as u64
                    })
                    .sum();
                uniform_wants[i] = west
                    .iter()
                    .map(|&(w, _)| {
                        2 * (0..east.len())
                            .filter(|&j| free(j) && east[j] & w == 0)
                            .count() as u64
                    })
                    .sum();
                assert!(*want > 0, "{chunks} chunks: choose a lower density");
            }
            for spread_it in [false, true] {
                if spread_it && chunks > SPREAD_CHUNKS {
                    continue;
                }
                let ws: Vec<(u64, u32)> = west
                    .iter()
                    .map(|&(w, x)| (if spread_it { spread(w) } else { w }, x))
                    .collect();
                // Packed: the same spread masks, 8 bytes each, weights by class.
                let class = |x| classes.iter().position(|&c| c == x).unwrap();
                let packed: Vec<Packed> =
                    ws.iter().map(|&(w, x)| Packed::new(w, class(x))).collect();
                let packs = spread_it && chunks <= PACKED_CHUNKS;
                let ws_two: Vec<(u64, u32)> = ws.iter().map(|&(w, _)| (w, 2)).collect();
                let packed_two: Vec<Packed> = ws.iter().map(|&(w, _)| Packed::new(w, 1)).collect();
                for &(name, popcounts) in &loops {
                    let count = |m: usize, packed_too: bool, uniform: Option<u64>| -> u64 {
                        #[allow(clippy::too_many_arguments)]
                        fn run<const M: usize>(
                            pieces: &[Piece],
                            bases: &[[u64; LANES]; GROUP],
                            chunks: usize,
                            spread: bool,
                            popcounts: Popcounts,
                            ws: &[impl WestEntry],
                            classes: &[u64; CLASSES],
                            uniform: Option<u64>,
                        ) -> u64 {
                            let tables = std::array::from_fn(|i| &pieces[i].tables[..]);
                            let valid = std::array::from_fn(|i| {
                                pieces[i].valid[..LANES].try_into().unwrap()
                            });
                            let base: [[u64; LANES]; M] = std::array::from_fn(|i| bases[i]);
                            let mut one = One(Some((ws, base)));
                            count_west(
                                chunks, spread, popcounts, tables, valid, &mut one, classes,
                                uniform,
                            )
                        }
                        let (p, b, c, u) = (&pieces[..], &bases, chunks, uniform);
                        let (ws, packed) = match uniform {
                            Some(_) => (&ws_two, &packed_two),
                            None => (&ws, &packed),
                        };
                        match (m, packed_too) {
                            (1, false) => run::<1>(p, b, c, spread_it, popcounts, ws, &wide, u),
                            (2, false) => run::<2>(p, b, c, spread_it, popcounts, ws, &wide, u),
                            (3, false) => run::<3>(p, b, c, spread_it, popcounts, ws, &wide, u),
                            (4, false) => run::<4>(p, b, c, spread_it, popcounts, ws, &wide, u),
                            (5, false) => run::<5>(p, b, c, spread_it, popcounts, ws, &wide, u),
                            (6, false) => run::<6>(p, b, c, spread_it, popcounts, ws, &wide, u),
                            (1, true) => run::<1>(p, b, c, true, popcounts, packed, &wide, u),
                            (2, true) => run::<2>(p, b, c, true, popcounts, packed, &wide, u),
                            (3, true) => run::<3>(p, b, c, true, popcounts, packed, &wide, u),
                            (4, true) => run::<4>(p, b, c, true, popcounts, packed, &wide, u),
                            (5, true) => run::<5>(p, b, c, true, popcounts, packed, &wide, u),
                            _ => run::<6>(p, b, c, true, popcounts, packed, &wide, u),
                        }
                    };
                    for m in 1..=GROUP {
                        for uniform in [None, Some(2)] {
                            let want: u64 = match uniform {
                                None => wants[..m].iter().sum(),
                                Some(_) => uniform_wants[..m].iter().sum(),
                            };
                            let got = count(m, false, uniform);
                            assert_eq!(
                                got, want,
                                "{name}: {m} pieces, {chunks} chunks, spread {spread_it}, weight {uniform:?}"
                            );
                            if packs {
                                let got = count(m, true, uniform);
                                assert_eq!(got, want, "{name}: {m} pieces, {chunks} chunks, packed, weight {uniform:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn spread_puts_each_chunk_entry_word_in_its_byte() {
        // Diagonals 0, 7 and 13: chunk values 1, 2 and 2, entry words 4, 8 and 8.
        assert_eq!(spread(1 | 1 << 7 | 1 << 13), 0x08_08_04);
        // Every chunk value of all 8 chunks lands whole in its byte.
        let m = (0..8u64).fold(0, |m, c| m | (63 - c) << (6 * c));
        let s = spread(m);
        for c in 0..8 {
            assert_eq!((s >> (8 * c)) & 255, (63 - c) * LANES as u64, "chunk {c}");
        }
        assert_eq!(spread(u64::MAX >> 16), 0xFC_FC_FC_FC_FC_FC_FC_FC);
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

    /// The AVX2 transposes (four matrices side by side) and table doubling give what the
    /// portable ones do, bit for bit, on random rows and slices. Skipped without x86-64-v3.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_transpose_and_tables_are_the_portable_ones() {
        let Some(proof) = Isa::X86_64V3.v3_twin() else {
            eprintln!("skipped: this CPU has no x86-64-v3");
            return;
        };
        let mut rng = crate::engine::rng::SplitMix64::new(64);
        for _ in 0..20 {
            let rows: [Lanes; 64] =
                std::array::from_fn(|_| Lanes(std::array::from_fn(|_| rng.next_u64())));
            let (mut want, mut got) = (rows, rows);
            transpose_lanes(&mut want);
            isa::dispatch!(Some(proof) => transpose_v3(&mut got); else unreachable!());
            assert!(want.iter().zip(&got).all(|(a, b)| a.0 == b.0));
            for (j, row) in rows.iter().enumerate() {
                for (k, col) in want.iter().enumerate() {
                    for b in 0..LANES {
                        assert_eq!(
                            col.0[b] >> j & 1,
                            row.0[b] >> k & 1,
                            "lane {b}, bit {j},{k}"
                        );
                    }
                }
            }
            let chunks = 1 + rng.below(10) as usize;
            let slices = &want[..chunks * CHUNK as usize];
            let table = ChunkTable([u64::MAX; TABLE_WORDS]);
            let (mut want, mut got) = (vec![table; chunks], vec![table; chunks]);
            double(&mut want, slices);
            isa::dispatch!(Some(proof) => double_v3(&mut got, slices); else unreachable!());
            assert!(want.iter().zip(&got).all(|(a, b)| a.0 == b.0));
            // Entry v of chunk c is the OR of the slices of v's bits.
            let c = rng.below(chunks as u64) as usize;
            let v = rng.below(ENTRIES as u64) as usize;
            let or = (0..CHUNK as usize)
                .filter(|i| v >> i & 1 == 1)
                .fold([0u64; LANES], |acc, i| {
                    std::array::from_fn(|b| acc[b] | slices[CHUNK as usize * c + i].0[b])
                });
            assert_eq!(*entry(&want[c], v), or, "chunk {c}, value {v}");
        }
    }
}
