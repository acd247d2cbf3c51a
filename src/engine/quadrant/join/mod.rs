//! The join: for two lists of diagonal masks, `east` and `west` (a weight per west mask),
//! the weighted number of pairs with no diagonal in common:
//! `Σ_w weight(w) · #{e ∈ east : e & w = 0}`. This is the hot loop of the quadrant engine.
//!
//! Three ideas make it fast (the first two from E. Kluev's counter; our own code):
//!
//! * **Bit slicing.** The east masks (the shorter list: east halves on a long diagonal
//!   were dropped) are stored transposed, 64 at a time: `slice[k]` has bit j set when
//!   east mask j of the block has diagonal k. For a west mask w, the OR of `slice[k]` over
//!   the set bits k of w marks the east masks that clash with w, so `popcount(!OR)` counts
//!   64 pairs at once. [`LANES`] blocks are processed together so the ORs run on vector
//!   registers: a *piece* of up to 256 east masks.
//! * **Chunk tables.** Rather than one OR per set bit of w (about 11 at n = 16), the
//!   diagonals are cut into chunks of [`CHUNK`] bits and, for every chunk and every value
//!   of its bits, the OR of the slices of those bits is computed once per piece
//!   (`table[chunk][v]`, 64 values). A west mask then costs one OR per chunk, whatever its
//!   bits: 5 ORs at n = 16 (30 diagonals), 7 at n = 20, with no loop over bits. Building a
//!   table costs one OR per entry (`table[v] = table[v without its lowest bit] |
//!   slice[lowest bit]`), 5 × 64 × 4 words at n = 16, repaid after a few dozen west masks.
//!   A sorted west list is kept with each chunk's value in a byte of its own (`spread`),
//!   so the loop reads a table entry with a byte load instead of a shift and a mask.
//!   Lists below [`MIN_SLICED`] are compared pair by pair.
//! * **Keyed pieces.** Both lists are sorted by a few *key* diagonals, and each piece is
//!   cut from the sorted east list so that its masks share key bits; a west mask that takes
//!   one of those is skipped for the whole piece. Where to cut is chosen per join (see
//!   `layout`), so the key grows with the lists: 6 bits at n = 16, 16 at n = 24, where
//!   it removes about 98% of the pairs. This is what keeps the growth per n near the growth of
//!   the lists.
//!
//! * **West masks read once for a group of pieces, 8 bytes each.** From n = 24 a piece
//!   visits about 200 west buckets of 100-200 masks (n = 24 and 26), and its neighbours in
//!   the sorted list visit mostly the same ones. Up to [`GROUP`] consecutive pieces visit
//!   the union of their buckets together, each bucket's masks read once for the members
//!   that visit it; long west lists are sorted packed ([`west::Packed`]: the weight's class
//!   in the mask's free top byte).
//!
//! Measured and not kept (2026-12-01, AMD EPYC Zen 3, shard 7411/20000 of n = 24, one
//! thread): *slicing the longer list*. At n = 24 a set's west list is often ten times its
//! east list (0.19 million east and 2.8 million west masks), and a sorted list of L masks
//! gives its pieces about log2(L / 256) shared key bits, so cutting the pieces from the
//! west list tests a fifth of the pairs (one set: 8.7e9 -> 1.8e9). It still ran no faster
//! (that set 0.40 -> 0.38 s with sort; the whole shard 41 -> 46 s in the first form): the
//! east list streamed past the pieces is then too short for 16-bit buckets (3 masks each,
//! so a piece walks thousands of nearly empty buckets), and when instead each trie node's
//! east list is filtered once and shared by the node's pieces, the pieces are half empty (west masks of one weight per piece, 112
//! on average) and lose the key-chunk ORs, so each tested pair cost four times as much
//! (0.13 ns instead of 0.032). The sets that cost the most at n = 24 have lists of equal
//! length (about a million masks each), where swapping changes nothing. What helped
//! there, by an offline count on one such set: choosing each trie node's split diagonal
//! from that node's own masks instead of one key order for the whole join, 32% fewer
//! tested pairs (2.0e10 instead of 2.9e10 in the same model), and one key order chosen
//! level by level for the pruning summed over the nodes, 30% (2.07e10): the second is
//! what [`greedy_key`](key::greedy_key) does, since it keeps the buckets and chunk tables
//! as they are.
//!
//! Kept since (2026-12-05, Zen 4) for the sets where it pays: a set of 32,768 (4,096 from
//! n = 22) to 524,288 east patterns with a longer west list is joined with the roles
//! swapped (`set::Swap`, the west weights moved into the cut list by repeating its masks),
//! so that the east list streamed past the pieces is short but its buckets are not nearly
//! empty. At n = 22 that halves the pairs of those sets; past about a million east masks
//! (most sets of n >= 26) it still measured slower.
//!
//! Measured and not kept (2026-12-05 evening, Intel Xeon model 167, which has AVX-512
//! BF16/FP16, so a Sapphire Rapids class core): *512-bit pairs of pieces.* The chunk tables
//! of pieces 2p and 2p + 1 of a group interleaved, entry v of both in one 64-byte line, so
//! that where both pieces visit a bucket the west loop reads and ORs both entries as one
//! 512-bit register (`vporq`/`vpternlogq` from memory), and a lone piece its 256-bit half.
//! Timed alone (5 chunks, tables in L1, ns a west mask): six pieces 5.3-5.6 against
//! 3.9-4.4 as three pairs, four 3.2-3.3 against 2.6-2.8, two 1.8-1.9 against 1.7, one 1.26
//! against 1.76 as a half-empty pair (hence lone pieces stayed 256-bit). But the joins
//! read few west masks for a whole pair: counting each bucket visit's west masks by its
//! members, a pair both of whose pieces visit held 44% of the piece-reads at n = 24 and
//! 43% at n = 26 (`count 24 --shard 473/20000`, `count 26 --shard 162680/420000`), and at
//! n = 22 and 23 the sparse joins' lone pieces held 83-85% of all reads. Paired (both
//! builds at once, one per core, cores swapped, identical shard files): the n = 24 shard
//! 0.998, 0.984, 0.995, the n = 26 shard 0.979, 0.981, but `count 22 --shard 77/200 -t 1`
//! 1.043 and 1.044 (1.034 and 1.039 with pairs only in the dense joins): the interleaved
//! tables cost a lone piece twice the lines (the table build `double_v3` +35% of its
//! samples at n = 22), and Intel cores run 512-bit instructions on two vector ports where
//! 256-bit ones have three, which the 256-bit loops around them may pay too (not measured
//! apart). Not kept.
//!
//! * **A list shared by several joins** ([`Joiner::share_east`]): a frame group's frames
//!   (odd boards) join east lists that are each their group's list less the masks on two
//!   diagonals. The group's list is sorted once, by a key chosen for it, and each join
//!   takes its part by a filter that keeps the sorted order ([`Joiner::filter_shared`]),
//!   so only the (shorter) west list is sorted a join. See `set::run_bundle`.
//!
//! # Files
//!
//! This file has the API ([`Joiner`]: join, sample, keep) and the run of a join over its
//! pieces; [`key`] chooses the key diagonals and where they move, [`layout`] sorts the lists
//! into buckets and cuts the sorted east list into ranges, and [`west`] has a piece (its
//! transposed slices and chunk tables) and the west loops (portable, AVX2 and AVX-512 popcounts).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::engine::isa::{self, Isa};
use crate::engine::NEVER;

mod key;
mod layout;
mod west;

use key::{chunk_split, key_bits, BitOrder, Key, KeyTable, Trie};
#[cfg(target_arch = "x86_64")]
use layout::sort_pext;
use layout::{sort_lists, subset_sums, SortBuffers, Sorting};
use west::{
    count_west, entry, spread, Buckets, ChunkTable, One, Packed, Piece, Popcounts, WestEntry,
    CLASSES, PACKED_CHUNKS, SPREAD_CHUNKS,
};

/// Blocks of 64 east masks per piece (4 × 64 = 256 pairs per OR: one AVX2 register per
/// table entry). 4 rather than 8: smaller pieces share more key bits, so each visits fewer
/// west masks; measured 10% faster at n = 20 and 22 (Intel Xeon, x86-64-v3 code).
pub const LANES: usize = 4;
/// West lists from which the sorted list is packed ([`Packed`]): 4 MB of 16-byte entries,
/// past a core's L2. Shorter lists stay in cache, where the packed loop's class lookup costs
/// more than the bytes it saves: packing every list made `count 18 -t 1` about 8% slower
/// (Zen 4, the two builds at once, 4 rounds: 1.11, 0.98, 1.19, 1.07).
pub const PACK_FROM: usize = 1 << 18;
/// Pieces joined together: the unit of a join's sampling and of its `pieces` count. Up to
/// GROUP consecutive pieces of the sorted east list visit the union of their west buckets
/// together, and each bucket's west masks are read once for every member that visits it
/// ([`west::count_west`]).
///
/// Why: consecutive pieces share most of their key bits (they are neighbours in the sorted
/// list), so most of their buckets are the same. Measured (probe of every bucket visit,
/// `count 26 --shard 162680/420000 -t 1`, 2026-12-03): the pieces, one after the other,
/// read 2.9e10 west masks; the unions of groups of 2, 4 and 8 consecutive pieces hold
/// 2.1e10, 1.5e10 and 1.1e10 (n = 24, shard 4114/20000: 6.3e9 against 4.8e9, 3.6e9 and
/// 2.6e9). A read shared by m pieces pays its load, weight, multiply and loop once and
/// each chunk's byte once, and only the m table entries per chunk apart.
///
/// Measured (Zen 4, 1 thread, the build with pieces in twos and this one at once, one per
/// core, swapping cores; with [`PREFETCH_LINES`]): `count 26 --shard 162680/420000` -10.7%
/// and -9.8%, `count 24 --shard 4114/20000` -7.9% and -17%, `count 22 --shard 77/200` -5.5%
/// and -13.5%; same counts and tested pairs. Groups of 8 were 2% slower than groups of 4
/// at n = 24 (4 rounds): the west loop computes per piece, and 8 pieces' tables no longer
/// stay in L1. Sparse joins keep twos (see [`DENSE`]).
///
/// Six since (2026-12-05, Intel Xeon model 167, whose L1 of 48 KiB holds six pieces' five
/// 2-KiB chunk tables; paired: both builds at once, cores swapped, same shard files),
/// against four: `count 24 --shard 473/20000 -t 1` 0.977, 0.988, 0.979 (and 0.989, 0.983,
/// 0.988, 0.979 against six only for west lists of 2^18 masks and more); `count 26 --shard
/// 162680/420000 -t 1` 0.991, 0.994, 0.991; `estimate 28 -t 1 --sample 6 --seconds 0`,
/// seeds 1 to 5, 0.87, 1.04, 0.97, 0.92, 0.95 of the ns a solution (the sampled shares of
/// long joins vary, hence the spread); `count 22 --shard 77/200` and `count 23 --shard
/// 1234/2000` 1.00; but `count 20 --shard 3/10 -t 1` 1.013, 1.008, 1.007, 1.003, 1.012,
/// 1.005, 1.011 and `count 25 --shard 123456/200000 -t 1` 1.005, 1.010. Groups of 8
/// against 6: n = 24 0.994, 0.998, 0.994; n = 26 0.999, 1.000, 0.995; `estimate 28` 1.02
/// and 1.03.
///
/// On an AMD EPYC Zen 3 (L1d 32 KiB: six pieces' tables do not fit; AVX2 west loop; one
/// build reading the limit from the environment, paired, 2026-12-06): groups of 4 against
/// 6, `count 24 --shard 473/20000 -t 1` 1.004, 0.998, `count 26 --shard 162680/420000`
/// 0.998, 0.977; of 3, n = 24 1.018, 1.048; of 2, n = 24 1.107, 1.019. So fitting L1 buys
/// nothing there either: a west mask's reads shared by more pieces pay more than the
/// tables' misses cost.
pub const GROUP: usize = 6;
// `Shape::count` has an arm for each member count, 1 to 6: another GROUP needs others.
const _: () = assert!(GROUP == 6, "Shape::count's arms are for 1 to 6 members");
/// Cache lines of the next west bucket a group asks for while it counts the current one
/// (8 packed masks or 4 unpacked ones a line; see `isa::prefetch`). The hardware
/// prefetcher follows a bucket only after its first misses, and a bucket holds 100-200
/// masks at n = 24 and 26, so without this each bucket began with a wait on memory (the
/// west loop's hottest instruction, by `perf record` on `count 26 --shard
/// 162680/420000`). Measured (Zen 4, 1 thread, 2 builds at once, cores swapped): 4 lines
/// instead of 1, `count 24 --shard 4114/20000` -3.5% to -6% (4 rounds); 6 instead of 1,
/// `count 26 --shard 162680/420000` -9% and -7%; 12 lines as 4 at n = 24 (0.94-1.02), 32 as
/// 6 at n = 26 +1% and +2%.
const PREFETCH_LINES: usize = 6;
/// Joins whose west buckets hold fewer masks than this on average, or whose west list is
/// shorter than their east list (unless its buckets are long, see [`SPARSE_BELOW`]), keep
/// the pieces in twos of one range instead of groups ([`is_sparse`]):
/// there a bucket holds one or two west masks and the shared reads save little, while the
/// group loop's per-bucket work made `count 25 --shard 123456/200000` 8-16% slower and
/// `count 23 --shard 1234/2000` 5-11% (Zen 4, paired). With this rule odd boards measured
/// +1% to +2% at n = 23 and 27 and +2.5% to +10% at n = 25 against the build before groups;
/// without its second half, +3% to +18% at n = 25 and +6% to +8% at n = 27. Again after
/// [`Submasks`] (Intel Xeon model 167, 2026-12-06, paired): 4 or 16 instead, `count 22
/// --shard 77/200 -t 1` 0.999-1.007.
const DENSE: usize = 8;
/// A join whose west list is shorter than its east list is still grouped where its west
/// buckets hold this many masks or more on average ([`is_sparse`]). The rule for shorter
/// west lists was made for odd boards, whose frames' west lists are a fifth of their east
/// lists and whose buckets hold 20-30 west masks; but even boards from n = 26 have sets
/// whose two lists are both a few million masks long, the west one a little shorter, and
/// there a bucket of a 16-bit key holds 64-128 west masks, where groups pay as they do
/// for longer west lists. Keys below 16 bits stop while the east buckets hold 64 masks
/// (`key::MIN_BUCKET`), so below n = 26 no join with the shorter west list reaches 64.
/// Measured (Intel Xeon model 167, 2026-12-05, both builds at once, one per core, cores
/// swapped, identical shard files): `count 26 --shard 162680/420000 -t 1` 0.950 and 0.950
/// (the same with 32; 256: 0.95 of the old rule's time against 1.00); random shards of n
/// = 26 (K = 388857, 144422, 334626 of 420,000) 0.997-1.000, 0.998-1.002 and 0.993-0.996;
/// `estimate 26 -t 1 --sample 12 --seconds 0`, seeds 1 and 2, 0.999 and 1.018 of the CPU;
/// n = 28 shards 11112707 and 824790 of 20,060,045 1.004, 1.006 and 1.002, 0.998; and
/// below n = 26, where nothing changes, n = 22 to 25 and 27 within 0.5% (16 instead:
/// `count 25 --shard 123456/200000` 1.078 and 1.073).
const SPARSE_BELOW: usize = 64;

/// Whether a join of `east` and `west` masks with a key of `k` bits keeps its pieces in
/// twos of one range ([`DENSE`], [`SPARSE_BELOW`]) rather than in groups ([`GROUP`]).
fn is_sparse(east: usize, west: usize, k: usize) -> bool {
    let per_bucket = west >> k;
    per_bucket < DENSE || (west < east && per_bucket < SPARSE_BELOW)
}

/// How many key bits a group's union may have beyond its widest member's: the union's
/// submasks are listed to find the buckets (a bucket no member visits costs a few
/// instructions and no memory), so a member whose free bits differ much from the others'
/// starts the next group instead.
///
/// So most bucket visits have fewer members than the group: `perf` of `count 26 --shard
/// 162680/420000 -t 1` on an AMD EPYC Zen 3 (2026-12-06) put 60% of the west loop's
/// samples in its copies for one to three members, whose per-west-mask work (the load,
/// six chunk offsets, the `vpsadbw`, the weight) serves as few pieces. A tighter or
/// looser union did not pay there (one build reading the slack from the environment,
/// paired, the same shard files): 1 against 3, that n = 26 shard 0.964 (a slow round for
/// both) and 0.999, `count 24 --shard 473/20000 -t 1` 1.026, 0.907 (noisy); 5 against 3,
/// n = 26 1.029, 1.009, n = 24 0.964, 1.052.
const SLACK: u32 = 3;
/// Diagonal bits per chunk table (64 entries, 2 KiB: a piece's tables stay in L1). Six
/// rather than five (2026-12-02, Intel Xeon model 167, one thread, alternating): shard
/// 7411/20000 of n = 24 21.4 / 22.1 -> 18.3 / 18.8 s (a west mask: 6 table ORs instead of
/// 7), n = 18 3.92 -> 3.85 s, n = 22 and 25 about the same; eight was a third slower at n = 26.
pub const CHUNK: u32 = 6;
/// Entries of a chunk table.
const ENTRIES: usize = 1 << CHUNK;
/// A chunk's bits.
const CHUNK_MASK: u64 = ENTRIES as u64 - 1;
/// Shorter east lists are compared pair by pair.
pub const MIN_SLICED: usize = 32;

/// What a join did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JoinStats {
    /// Weighted number of disjoint pairs.
    pub pairs: u64,
    /// (east, west) pairs tested.
    pub tested: u64,
    /// Pieces of east masks the join has (see [`Joiner::join_sampled`]), counted in groups
    /// (up to [`GROUP`] pieces of up to 256 masks each, or twos where the join is sparse,
    /// see [`DENSE`]: the unit a sample picks).
    pub pieces: u64,
    /// Pieces that ran.
    pub pieces_run: u64,
}

/// Reusable buffers of the join (one per worker).
#[derive(Debug, Default)]
pub struct Joiner {
    /// The instruction set of the join's loop (see [`isa`]).
    isa: Isa,
    /// The pieces of the group being joined (see [`GROUP`]).
    pieces: [Piece; GROUP],
    /// The join's pieces, in order: 256 masks of a range each (see [`Cut`]).
    cuts: Vec<Cut>,
    /// The join's groups: `cuts[first..end]` for each `(first, end)`.
    groups: Vec<(usize, usize)>,
    /// Both lists sorted by bucket, with the start of each bucket (when there is more than
    /// one bucket: a single bucket is the input itself). The buffers keep their length
    /// between joins (see [`layout::bucket_sort`]).
    east: Vec<u64>,
    east_start: Vec<usize>,
    west: Vec<(u64, u32)>,
    west_start: Vec<usize>,
    /// The sorted west list packed ([`Packed`]: 8 bytes a mask, its weight's class in the
    /// top byte) where the join allows it (see `Arranged::packed`), instead of `west`.
    packed: Vec<Packed>,
    /// The weight of each class of a packed join.
    classes: [u32; CLASSES],
    /// The weights the caller says its west lists hold ([`Joiner::expect_weights`]).
    expected: Option<[u32; CLASSES]>,
    /// The bucket of each item being sorted.
    keys: Vec<u16>,
    /// The same for keys of more than 16 bits.
    wide_keys: Vec<u32>,
    /// The next free place of each bucket while sorting.
    next: Vec<usize>,
    /// West masks compatible with each set of key bits (see [`subset_sums`]).
    compatible: Vec<u64>,
    /// The ranges of sorted east masks cut into pieces (see [`layout::layout`]).
    ranges: Vec<(usize, usize)>,
    /// The key's byte tables (see [`KeyTable`]), of the masks as given and as moved (see
    /// [`BitOrder`]).
    key_table: Vec<(u32, [u32; 256])>,
    moved_key_table: Vec<(u32, [u32; 256])>,
    /// The buffers of the level-by-level key choice ([`key::greedy_key`]).
    trie: Trie,
    /// The join [`Joiner::keep`] arranged (its sorted lists are in the buffers above).
    kept: Option<Arranged>,
    /// An east list sorted once for several joins ([`Joiner::share_east`]).
    shared: Option<Shared>,
    /// Bucket starts a sort of a west list alone writes (a shared join's east starts are
    /// those of `filter_shared`).
    spare_start: Vec<usize>,
    /// A key to use instead of choosing one (tests of every key length and mask width).
    #[cfg(test)]
    forced_key: Option<Vec<u32>>,
    /// The shortest west list packed (see [`Joiner::pack_from`]).
    #[cfg(test)]
    pack_from: usize,
    /// The west loop keeps to AVX2's popcounts where the CPU has AVX-512's (the x86-64-v3
    /// implementation of the per-implementation tests).
    #[cfg(test)]
    no_avx512: bool,
}

impl Joiner {
    /// A joiner whose loop runs with `isa` (`Joiner::default()`: [`Isa::best`]).
    pub fn new(isa: Isa) -> Joiner {
        Joiner {
            isa,
            ..Joiner::default()
        }
    }

    /// A joiner that runs `imp` (its instruction set, and the AVX-512 west loop or not), for
    /// the per-implementation tests.
    #[cfg(test)]
    pub fn for_implementation(imp: isa::Implementation) -> Joiner {
        Joiner {
            isa: imp.isa(),
            no_avx512: !imp.avx512_popcount(),
            ..Joiner::default()
        }
    }

    /// The weighted number of disjoint (east, west) pairs; every mask uses bits `0..bits`.
    ///
    /// ```text
    /// order the diagonals by how often both lists take them; the first k are key bits
    /// sort east by its key bits (lexicographically) and bucket west by the same bits
    /// cut the sorted east list into ranges (see `layout`), each range into pieces of 256
    /// for each piece: common = the key bits every mask of the piece takes
    /// for each group of up to GROUP consecutive pieces (see GROUP):
    ///     build the pieces' chunk tables
    ///     for each west bucket v with v & common == 0 for some member, each mask w in it:
    ///         pairs += weight(w) · (east masks of those members disjoint from w)
    /// ```
    ///
    /// A west mask in a bucket that meets `common` clashes with every mask of the piece, so
    /// skipping it is exact. Sorting (rather than one piece list per east bucket) lets a
    /// piece span several buckets where they are small: 256 consecutive masks of a sorted
    /// list share their first log2(east / 256) key bits, so the key can grow with the
    /// lists while the pieces stay full. Worked numbers, n = 24: 0.7 million east and 2
    /// million west masks per set, 16 key bits; about 2% of the pairs are tested.
    #[cfg(test)]
    pub fn join(&mut self, east: &[u64], west: &[(u64, u32)], bits: u32) -> JoinStats {
        self.join_sampled(east, west, bits, Sample::ALL)
    }

    /// `Joiner::join` over only the pieces `sample` picks, for estimating a join's time
    /// from a part of it (`nqueens estimate`); `pieces` says how many there were and how
    /// many ran.
    pub fn join_sampled(
        &mut self,
        east: &[u64],
        west: &[(u64, u32)],
        bits: u32,
        sample: Sample,
    ) -> JoinStats {
        self.join_until(east, west, bits, sample, &NEVER)
            .expect("never stopped")
    }

    /// [`Joiner::join_sampled`], giving up (None) soon after `stop` becomes true: the flag
    /// is read once per piece (256 east masks against their west buckets, well under a
    /// millisecond), so a stop takes effect within a set at any n.
    pub fn join_until(
        &mut self,
        east: &[u64],
        west: &[(u64, u32)],
        bits: u32,
        sample: Sample,
        stop: &AtomicBool,
    ) -> Option<JoinStats> {
        self.dispatch(Work::Join(east, west, bits), sample, stop)
    }

    /// Sorts `east` once by a key chosen for it and `west` (a west list like those it will
    /// meet), for the joins [`Joiner::join_shared_until`] makes of parts of it. Replaces
    /// what an earlier call shared; with a key of no bit nothing is shared.
    pub fn share_east(&mut self, east: &[u64], west: &[(u64, u32)], bits: u32) {
        self.kept = None; // the sort below overwrites the kept lists' buffers
        let mut shared = self.shared.take().unwrap_or_default();
        shared.key = if east.len() < MIN_SLICED || west.is_empty() {
            Key::default()
        } else {
            self.key_for(east, west, bits)
        };
        shared.bits = bits;
        shared.filtered = None;
        if shared.key.bits.is_empty() {
            return;
        }
        let order = (shared.key.moved > 0)
            .then(|| BitOrder::new(bits, &shared.key.bits[..shared.key.moved]));
        let how = Sorting {
            buckets: 1 << shared.key.bits.len(),
            spread: false,
            classes: None,
        };
        let into = SortBuffers {
            east: &mut shared.masks,
            east_start: &mut shared.start,
            west: &mut self.west,
            packed: &mut self.packed,
            west_start: &mut self.west_start,
            next: &mut self.next,
            keys: &mut self.keys,
            wide_keys: &mut self.wide_keys,
        };
        Self::sort(
            self.isa,
            &mut self.key_table,
            east,
            &[],
            &shared.key,
            order.as_ref(),
            bits,
            &how,
            into,
        );
        shared.masks.truncate(east.len());
        self.shared = Some(shared);
    }

    /// Drops the list [`Joiner::share_east`] sorted.
    pub fn unshare(&mut self) {
        if let Some(s) = &mut self.shared {
            s.key = Key::default();
            s.filtered = None;
        }
    }

    /// Leaves the shared list's masks that avoid `block` in the joiner's sorted east list,
    /// for [`Joiner::join_shared_until`]; returns how many. The filter keeps the sorted
    /// order, so each bucket's start is counted as it goes. A moved mask avoids the moved
    /// block exactly when the mask avoids the block: the move permutes the diagonals.
    ///
    /// # Panics
    /// If nothing is shared.
    pub fn filter_shared(&mut self, block: u64) -> usize {
        let shared = self.shared.as_mut().expect("filter_shared: nothing shared");
        assert!(!shared.key.bits.is_empty(), "filter_shared: nothing shared");
        let moved = match shared.key.moved {
            0 => block,
            m => {
                let order = BitOrder::new(shared.bits, &shared.key.bits[..m]);
                (0..shared.bits)
                    .filter(|&d| block >> d & 1 == 1)
                    .fold(0, |acc, d| acc | 1u64 << order.place[d as usize])
            }
        };
        self.kept = None; // the filter overwrites the kept east list
        let count = filter_buckets(shared, moved, &mut self.east, &mut self.east_start);
        shared.filtered = Some((block, count));
        count
    }

    /// Whether a list is shared for joins of `bits` diagonals.
    pub fn is_shared(&self, bits: u32) -> bool {
        self.shared
            .as_ref()
            .is_some_and(|s| s.bits == bits && !s.key.bits.is_empty())
    }

    /// Whether [`Joiner::join_shared_until`] can join an east list of `east` masks of the
    /// shared list with a west list of `west`.
    pub fn shares(&self, bits: u32, east: usize, west: usize) -> bool {
        self.is_shared(bits) && east >= MIN_SLICED && west > 0
    }

    /// [`Joiner::join_until`] of the `east` masks of the shared list that avoid `block`,
    /// in its order ([`Joiner::share_east`]), and `west`: the east list is not sorted
    /// again, only filtered from the sorted shared one, and the join uses the shared key.
    ///
    /// # Panics
    /// Unless [`Joiner::shares`] says it can, or if `east` is not the number of the shared
    /// masks that avoid `block`.
    pub fn join_shared_until(
        &mut self,
        east: usize,
        block: u64,
        west: &[(u64, u32)],
        bits: u32,
        sample: Sample,
        stop: &AtomicBool,
    ) -> Option<JoinStats> {
        assert!(
            self.shares(bits, east, west.len()),
            "join_shared_until: nothing shared"
        );
        self.dispatch(Work::Shared(east, block, west, bits), sample, stop)
    }

    /// Sorts and lays out both lists as `Joiner::join` would, and keeps them in the
    /// joiner, for [`Joiner::join_kept`]; returns the number of pieces of the join. Replaces
    /// what an earlier call kept.
    ///
    /// This is for `nqueens estimate`, which times a join's pieces apart from its fixed
    /// part: a sampled join at n = 28 sorts 50 million masks in about 0.5 s and then runs a
    /// few pilots and a sample of its pieces; with one sort instead of one per pilot the
    /// sort was no longer 38% of `estimate 28`'s time.
    pub fn keep(&mut self, east: &[u64], west: &[(u64, u32)], bits: u32) -> u64 {
        self.dispatch(Work::Keep(east, west, bits), Sample::ALL, &NEVER)
            .expect("never stopped")
            .pieces
    }

    /// The pieces `sample` picks of the join of the lists that [`Joiner::keep`] kept:
    /// `join_kept(e, w, s)` after `keep(e, w, b)` is `join_sampled(e, w, b, s)` without its
    /// sort. The same lists must be passed again (a list with one bucket is not copied).
    ///
    /// # Panics
    /// If nothing was kept, or the lists' lengths differ from the kept ones.
    pub fn join_kept(&mut self, east: &[u64], west: &[(u64, u32)], sample: Sample) -> JoinStats {
        self.dispatch(Work::Kept(east, west), sample, &NEVER)
            .expect("never stopped")
    }

    /// Runs `work` with the joiner's instruction set.
    fn dispatch(&mut self, work: Work, sample: Sample, stop: &AtomicBool) -> Option<JoinStats> {
        isa::dispatch!(
            self.isa.v3_twin() => self.join_v3(work, sample, stop);
            else self.join_body(work, sample, stop)
        )
    }

    isa::v3_fn! {
        /// `Joiner::join` compiled for x86-64-v3 ([`isa`]): popcnt, and AVX2 for the ORs.
        fn join_v3(&mut self, work: Work, sample: Sample, stop: &AtomicBool) -> Option<JoinStats> {
            self.join_body(work, sample, stop)
        }
    }

    /// The join, inlined into each instruction set's copy.
    #[inline(always)]
    fn join_body(&mut self, work: Work, sample: Sample, stop: &AtomicBool) -> Option<JoinStats> {
        let (east, west, bits, keep) = match work {
            Work::Join(east, west, bits) => (east, west, bits, false),
            Work::Keep(east, west, bits) => (east, west, bits, true),
            Work::Shared(east, block, west, bits) => {
                self.kept = None;
                let arranged = self.arrange_shared(east, block, west, bits);
                return self.run(&[], west, arranged, sample, stop);
            }
            Work::Kept(east, west) => {
                let kept = self.kept.expect("Joiner::keep before Joiner::join_kept");
                assert!(
                    (east.len(), west.len()) == (kept.east, kept.west),
                    "join_kept: not the lists Joiner::keep kept"
                );
                return self.run(east, west, kept, sample, stop);
            }
        };
        self.kept = None;
        if let Some(s) = &mut self.shared {
            s.filtered = None; // the sort below overwrites the filtered east list
        }
        let arranged = self.arrange(east, west, bits);
        if keep {
            self.kept = Some(arranged);
            return Some(JoinStats {
                pieces: arranged.pieces,
                ..JoinStats::default()
            });
        }
        self.run(east, west, arranged, sample, stop)
    }

    /// The fixed part of a join: picks the key, sorts both lists by it into the joiner's
    /// buffers (with one bucket the input is used as it is) and cuts the sorted east list
    /// into ranges (`self.ranges`).
    #[inline(always)]
    fn arrange(&mut self, east: &[u64], west: &[(u64, u32)], bits: u32) -> Arranged {
        let naive = east.len() < MIN_SLICED || west.is_empty();
        let key = if naive {
            Key::default()
        } else {
            self.key_for(east, west, bits)
        };
        self.arrange_with(east, east.len(), west, bits, key, false)
    }

    /// [`Joiner::arrange`] with the shared list's key, and its sorted masks that avoid
    /// `block` as the sorted east list ([`Joiner::join_shared_until`]).
    #[inline(always)]
    fn arrange_shared(
        &mut self,
        east: usize,
        block: u64,
        west: &[(u64, u32)],
        bits: u32,
    ) -> Arranged {
        let shared = self.shared.as_ref().expect("join_shared_until checked it");
        assert_eq!(
            shared.filtered,
            Some((block, east)),
            "join_shared_until: not the list filter_shared made"
        );
        let key = Key::new(shared.key.bits.clone(), bits);
        self.arrange_with(&[], east, west, bits, key, true)
    }

    /// [`Joiner::arrange`] with its key chosen; where `shared`, the east list of `east_len`
    /// masks is the one [`Joiner::filter_shared`] left sorted (`east` is then empty and the
    /// key is the shared one's).
    #[inline(always)]
    fn arrange_with(
        &mut self,
        east: &[u64],
        east_len: usize,
        west: &[(u64, u32)],
        bits: u32,
        key: Key,
        shared: bool,
    ) -> Arranged {
        let mut arranged = Arranged {
            sparse: false,
            east: east_len,
            west: west.len(),
            bits,
            k: 0,
            naive: east_len < MIN_SLICED || west.is_empty(),
            sorted: false,
            pieces: 1,
            moved: 0,
            spread: false,
            packed: false,
        };
        let k = key.bits.len();
        arranged.k = k;
        let order = (key.moved > 0).then(|| BitOrder::new(bits, &key.bits[..key.moved]));
        arranged.moved = key.moved;
        let buckets = 1usize << k;
        // Sorted west masks are kept spread where their own chunks fit ([`spread`]), and
        // packed where a byte is left for their weight's class and there are at most
        // CLASSES weights (a set's join has at most three).
        let own = chunk_split(bits, key.moved).0;
        arranged.spread = buckets > 1 && own <= SPREAD_CHUNKS;
        arranged.packed = arranged.spread
            && own <= PACKED_CHUNKS
            && west.len() >= self.pack_from()
            && self.weight_classes(west);
        // The pieces read the key of the moved masks: the same key bits, where they moved.
        let moved: Vec<u32> = key
            .bits
            .iter()
            .map(|&d| order.as_ref().map_or(d, |o| u32::from(o.place[d as usize])))
            .collect();
        KeyTable::new(&moved, &mut self.moved_key_table);
        if buckets > 1 {
            let how = Sorting {
                buckets,
                spread: arranged.spread,
                classes: arranged.packed.then_some(self.classes),
            };
            // A shared east list is already sorted and filtered (`Joiner::filter_shared`):
            // the sort of the west list alone leaves it, its bucket starts included.
            let into = SortBuffers {
                east: &mut self.east,
                east_start: match shared {
                    false => &mut self.east_start,
                    true => &mut self.spare_start,
                },
                west: &mut self.west,
                packed: &mut self.packed,
                west_start: &mut self.west_start,
                next: &mut self.next,
                keys: &mut self.keys,
                wide_keys: &mut self.wide_keys,
            };
            let east = if shared { &[] } else { east };
            let (isa, order) = (self.isa, order.as_ref());
            Self::sort(
                isa,
                &mut self.key_table,
                east,
                west,
                &key,
                order,
                bits,
                &how,
                into,
            );
            arranged.sorted = true;
        }
        if arranged.naive {
            return arranged;
        }
        // Where the pieces go: ranges of the sorted east list (see `layout`).
        self.ranges.clear();
        if buckets == 1 {
            self.ranges.push((0, east_len));
        } else {
            let compatible = &mut self.compatible;
            compatible.clear();
            compatible.extend(self.west_start.windows(2).map(|w| (w[1] - w[0]) as u64));
            subset_sums(compatible, k);
            layout::layout(&self.east_start, k, compatible, &mut self.ranges);
        }
        // Groups pay where the buckets are long; where they hold a few masks (odd boards'
        // frames, whose west lists are shorter than their east lists) the pieces go in twos
        // of the same range as before groups, which measured faster there (see GROUP).
        arranged.sparse = is_sparse(east_len, west.len(), k);
        if arranged.sparse {
            arranged.pieces = self
                .ranges
                .iter()
                .map(|&(lo, hi)| (hi - lo).div_ceil(2 * 64 * LANES) as u64)
                .sum();
            return arranged;
        }
        // The pieces: 256 masks of a range each, with the key bits none of them takes.
        let keys = KeyTable {
            parts: &self.moved_key_table,
        };
        let full = (1usize << k) - 1;
        let sorted: &[u64] = if arranged.sorted {
            &self.east[..east_len]
        } else {
            east
        };
        self.cuts.clear();
        for &(lo, hi) in &self.ranges {
            for at in (lo..hi).step_by(64 * LANES) {
                let end = (at + 64 * LANES).min(hi);
                self.cuts.push(Cut {
                    lo: at,
                    hi: end,
                    free: free_bits(&keys, full, &sorted[at..end]),
                });
            }
        }
        group(&self.cuts, &mut self.groups);
        arranged.pieces = self.groups.len() as u64;
        arranged
    }

    /// Sorts `east` and `west` by `key` into `into` (see [`sort_pext`] and [`sort_lists`]).
    #[allow(clippy::too_many_arguments)] // the sort's, and the joiner's table buffer
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))] // `bits`: pext's
    #[inline(always)]
    fn sort(
        isa: Isa,
        key_table: &mut Vec<(u32, [u32; 256])>,
        east: &[u64],
        west: &[(u64, u32)],
        key: &Key,
        order: Option<&BitOrder>,
        bits: u32,
        how: &Sorting,
        into: SortBuffers,
    ) {
        // The byte tables of the key and of its move are made only where they sort:
        // the `pext` sort reads tables of its own (`key::PextKeys`).
        isa::dispatch!(
            isa.fast_pext() => sort_pext(east, west, key, order, bits, how, into);
            else {
                let keys_by_byte = KeyTable::new(&key.bits, key_table);
                let by_byte = order.map(BitOrder::byte_tables);
                let apply = |m: u64| by_byte.as_ref().map_or(m, |o| o.apply(m));
                sort_lists(east, west, |m| keys_by_byte.key(m), apply, spread, how, into)
            }
        );
    }

    /// Tells the joins that follow which weights their west lists hold (at most
    /// [`CLASSES`]; repeated and unused ones allowed). Until it is told, each packed join
    /// reads its west list once to find them, a pass over millions of masks at n >= 24 (2%
    /// of `count 24 --shard 473/20000 -t 1`).
    ///
    /// # Panics
    /// If more than [`CLASSES`] weights are given. A weight of a west list that is not
    /// among them panics in its sort.
    pub fn expect_weights(&mut self, weights: &[u32]) {
        let mut classes = [0; CLASSES];
        classes[..weights.len()].copy_from_slice(weights);
        self.expected = Some(classes);
    }

    /// Whether `west` has at most [`CLASSES`] distinct weights; if so they are in
    /// `self.classes` (unused classes weigh 0).
    fn weight_classes(&mut self, west: &[(u64, u32)]) -> bool {
        if let Some(classes) = self.expected {
            debug_assert!(west.iter().all(|w| classes.contains(&w.1)));
            self.classes = classes;
            return true;
        }
        let mut classes = [0u32; CLASSES];
        let mut used = 0;
        for &(_, weight) in west {
            if classes[..used].contains(&weight) {
                continue;
            }
            if used == CLASSES {
                return false;
            }
            classes[used] = weight;
            used += 1;
        }
        self.classes = classes;
        true
    }

    /// The shortest west list packed: [`PACK_FROM`], or in tests what the test asks (by
    /// default every list, so that the suites run the packed loops on short lists).
    fn pack_from(&self) -> usize {
        #[cfg(test)]
        return self.pack_from.min(PACK_FROM);
        #[cfg(not(test))]
        PACK_FROM
    }

    /// The key of a join ([`key_bits`]), or in tests the forced one.
    fn key_for(&mut self, east: &[u64], west: &[(u64, u32)], bits: u32) -> Key {
        #[cfg(test)]
        if let Some(key) = &self.forced_key {
            return Key::new(key.clone(), bits);
        }
        key_bits(east, west, bits, &mut self.trie)
    }

    /// The pieces of an arranged join of `east` and `west` (the sorted copies in the
    /// joiner's buffers are used where `arrange` made them).
    #[inline(always)]
    fn run(
        &mut self,
        east: &[u64],
        west: &[(u64, u32)],
        a: Arranged,
        sample: Sample,
        stop: &AtomicBool,
    ) -> Option<JoinStats> {
        let whole = [0, a.west];
        let (east, west, west_start): (&[u64], &[(u64, u32)], &[usize]) = if a.sorted {
            // A packed join's west masks are in `self.packed` (below), not in `self.west`.
            let west = if a.packed { &[] } else { &self.west[..a.west] };
            (&self.east[..a.east], west, &self.west_start)
        } else {
            (east, west, &whole)
        };
        if a.naive {
            let run = sample.picks(0);
            return Some(JoinStats {
                pairs: if run { join_naive(east, west) } else { 0 },
                tested: if run {
                    (east.len() * west.len()) as u64
                } else {
                    0
                },
                pieces: 1,
                pieces_run: u64::from(run),
            });
        }
        let (own, kc) = chunk_split(a.bits, a.moved);
        let chunks = own + kc;
        // The moved key bits are in the last `kc` chunk tables (see `BitOrder`); each west
        // mask of a bucket takes the same value in them, the bucket's. The bucket's first
        // `a.moved` key bits (the top of v), padded at their low end to whole chunks, give
        // slot j's value at bits 6(kc - 1 - j)...
        let pad = CHUNK as usize * kc - a.moved;
        let mut stats = JoinStats::default();
        let isa = self.isa;
        // The per-implementation tests run the v3 join with AVX2's popcounts on an AVX-512
        // CPU too ([`Joiner::for_implementation`]).
        #[cfg(not(test))]
        let popcounts = Popcounts::of(self.isa, true);
        #[cfg(test)]
        let popcounts = Popcounts::of(self.isa, !self.no_avx512);
        // Everything a bucket's count needs, in a struct with inlined methods rather than
        // closures: a closure is a function of its own, compiled for the build's target
        // unless LLVM inlines it, and the ones this had (the bucket count, with the west
        // loops inlined, and the key chunks' base) were not, so on a CPU without AVX-512
        // the west loop ran as x86-64 baseline code (SSE2, popcounts by shifts) inside
        // `join_v3` (see `isa`).
        let shape = Shape {
            own,
            kc,
            pad,
            unmoved: a.k - a.moved,
            spread: a.spread,
            popcounts,
            packed: a.packed.then(|| &self.packed[..a.west]),
            west,
            west_start,
            classes: &self.classes.map(u64::from),
            uniform: self.expected.and_then(|[a, b, c, d]| {
                (a == b && b == c && (d == 0 || d == a)).then_some(u64::from(a))
            }),
        };
        // The AVX2 loop weighs a uniform join's pairs once a call, trusting the caller's
        // weights (a packed list's are checked in its sort).
        debug_assert!(shape
            .uniform
            .is_none_or(|u| west.iter().all(|w| u64::from(w.1) == u)));
        let pieces = &mut self.pieces;
        if a.sparse {
            let keys = KeyTable {
                parts: &self.moved_key_table,
            };
            let full = (1usize << a.k) - 1;
            let mut index = 0u64;
            for &(lo, hi) in &self.ranges {
                for two in east[lo..hi].chunks(2 * 64 * LANES) {
                    stats.pieces += 1;
                    index += 1;
                    if !sample.picks(index - 1) {
                        continue;
                    }
                    if stop.load(Ordering::Relaxed) {
                        return None;
                    }
                    stats.pieces_run += 1;
                    let (ma, mb) = two.split_at(two.len().min(64 * LANES));
                    let fa = free_bits(&keys, full, ma);
                    pieces[0].build(ma, a.span(), chunks, isa);
                    if mb.is_empty() {
                        shape.visit(&pieces[..], [0], fa, ma.len(), &mut stats);
                        continue;
                    }
                    pieces[1].build(mb, a.span(), chunks, isa);
                    let fb = free_bits(&keys, full, mb);
                    if fb == fa {
                        shape.visit(&pieces[..], [0, 1], fa, two.len(), &mut stats);
                    } else {
                        shape.visit(&pieces[..], [0], fa, ma.len(), &mut stats);
                        shape.visit(&pieces[..], [1], fb, mb.len(), &mut stats);
                    }
                }
            }
            return Some(stats);
        }
        for (index, &(first, end)) in self.groups.iter().enumerate() {
            stats.pieces += 1;
            if !sample.picks(index as u64) {
                continue;
            }
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            stats.pieces_run += 1;
            let cuts = &self.cuts[first..end];
            let mut union = 0;
            for (piece, cut) in pieces.iter_mut().zip(cuts) {
                piece.build(&east[cut.lo..cut.hi], a.span(), chunks, isa);
                union |= cut.free;
            }
            let pieces = &pieces[..cuts.len()];
            // The buckets any member visits, each read once for the members that visit it
            // (v within the member's free key bits); descending, as `v = (v - 1) & union`
            // lists the submasks of `union`.
            // The union's bits each member does not visit, and whether there are none (the
            // members all visit the same buckets: no test per bucket).
            let mut outside = [0usize; GROUP];
            let mut sizes = [0usize; GROUP];
            for (i, cut) in cuts.iter().enumerate() {
                outside[i] = union & !cut.free;
                sizes[i] = cut.hi - cut.lo;
            }
            let same = outside.iter().all(|&o| o == 0);
            // Every member, until a bucket that not all visit rewrites the list in place
            // (a copy of the list per bucket was 3% of an n = 24 shard: the copy's wide
            // load waited on the narrow stores that had just written the list).
            let mut members = [0usize; GROUP];
            for (i, a) in members.iter_mut().enumerate() {
                *a = i;
            }
            let (mut m, mut masks) = (cuts.len(), sizes.iter().sum());
            let mut v = union;
            loop {
                // The members that visit v, without a branch per member (which bucket a
                // member visits follows no pattern the branch predictor could learn).
                if !same {
                    (m, masks) = (0, 0);
                    for i in 0..cuts.len() {
                        let inside = v & outside[i] == 0;
                        members[m] = i;
                        m += usize::from(inside);
                        masks += sizes[i] * usize::from(inside);
                    }
                }
                if m > 0 {
                    let (lo, hi) = (west_start[v], west_start[v + 1]);
                    // The next bucket's first lines start loading while this one is counted
                    // (see `isa::prefetch` and PREFETCH_LINES).
                    if v != 0 {
                        shape.prefetch((v - 1) & union, PREFETCH_LINES);
                    }
                    if lo < hi {
                        stats.tested += (masks * (hi - lo)) as u64;
                        stats.pairs += shape.count(pieces, &members[..m], v);
                    }
                }
                if v == 0 {
                    break;
                }
                v = (v - 1) & union;
            }
        }
        Some(stats)
    }
}

/// A piece of a join: east masks `lo..hi` of the sorted list (at most 256, within one
/// range of the layout), and the key bits none of them takes (`free`): the piece visits the
/// west buckets whose key is within `free`.
#[derive(Clone, Copy, Debug)]
struct Cut {
    lo: usize,
    hi: usize,
    free: usize,
}

/// Cuts `cuts` into groups of up to [`GROUP`] consecutive pieces, `(first, end)` each: a
/// piece joins the group before it unless that would make the group's union of free key
/// bits more than [`SLACK`] bits wider than its widest member.
fn group(cuts: &[Cut], groups: &mut Vec<(usize, usize)>) {
    groups.clear();
    let mut first = 0;
    while first < cuts.len() {
        let mut union = cuts[first].free;
        let mut widest = union.count_ones();
        let mut end = first + 1;
        while end < cuts.len() && end - first < GROUP {
            let free = cuts[end].free;
            let wider = widest.max(free.count_ones());
            if (union | free).count_ones() > wider + SLACK {
                break;
            }
            union |= free;
            widest = wider;
            end += 1;
        }
        groups.push((first, end));
        first = end;
    }
}

/// What counting a bucket of an arranged join takes, beyond the pieces: where the chunk
/// tables and key chunks are, the sorted west list and its buckets, and the west loop's
/// instruction set. Its methods are inlined into the join (see `Joiner::run`).
struct Shape<'x> {
    /// The join's own chunk tables; the `kc` key chunks follow them (see `chunk_split`).
    own: usize,
    kc: usize,
    /// Zero bits below the moved key bits in the key chunks, and the key bits not moved.
    pad: usize,
    unmoved: usize,
    spread: bool,
    popcounts: Popcounts,
    packed: Option<&'x [Packed]>,
    west: &'x [(u64, u32)],
    west_start: &'x [usize],
    classes: &'x [u64; CLASSES],
    /// The weight of every west mask, where the caller told one ([`Joiner::expect_weights`]).
    uniform: Option<u64>,
}

impl Shape<'_> {
    /// The OR of a piece's key chunk entries for bucket v: the east masks of the piece
    /// that clash with every west mask of the bucket (each takes the bucket's value in
    /// the moved key bits). The bucket's moved key bits (the top of v), padded at their
    /// low end to whole chunks, give key slot j's value at bits 6(kc - 1 - j)...
    #[inline(always)]
    fn base(&self, key_tables: &[ChunkTable], v: usize) -> [u64; LANES] {
        let mut base = [0u64; LANES];
        let padded = (v >> self.unmoved) << self.pad;
        for (j, table) in key_tables.iter().enumerate() {
            let at = CHUNK as usize * (self.kc - 1 - j);
            let entry = entry(table, (padded >> at) & CHUNK_MASK as usize);
            for (x, e) in base.iter_mut().zip(entry) {
                *x |= e;
            }
        }
        base
    }

    /// The weighted disjoint pairs of bucket v's west masks with the pieces `members`
    /// (1 to [`GROUP`] indices into `pieces`).
    #[inline(always)]
    fn count(&self, pieces: &[Piece], members: &[usize], v: usize) -> u64 {
        match members.len() {
            1 => self.count_m::<1>(pieces, members, v),
            2 => self.count_m::<2>(pieces, members, v),
            3 => self.count_m::<3>(pieces, members, v),
            4 => self.count_m::<4>(pieces, members, v),
            5 => self.count_m::<5>(pieces, members, v),
            _ => self.count_m::<6>(pieces, members, v),
        }
    }

    /// [`Shape::count`] for `M` members.
    #[inline(always)]
    fn count_m<const M: usize>(&self, pieces: &[Piece], members: &[usize], v: usize) -> u64 {
        let (lo, hi) = (self.west_start[v], self.west_start[v + 1]);
        // Plain loops rather than `array::from_fn`, which was not inlined here (5% of the
        // time at n = 25, where a bucket holds one or two west masks).
        let mut tables: [&[ChunkTable]; M] = [&[]; M];
        let mut valid: [&[u64; LANES]; M] = [&[0; LANES]; M];
        let mut base = [[0u64; LANES]; M];
        for j in 0..M {
            let piece = &pieces[members[j]];
            tables[j] = &piece.tables[..self.own];
            valid[j] = piece.valid.first_chunk().expect("LANES words");
            base[j] = self.base(&piece.tables[self.own..], v);
        }
        match self.packed {
            Some(p) => count_west(
                self.own,
                true,
                self.popcounts,
                tables,
                valid,
                &mut One(Some((&p[lo..hi], base))),
                self.classes,
                self.uniform,
            ),
            None => count_west(
                self.own,
                self.spread,
                self.popcounts,
                tables,
                valid,
                &mut One(Some((&self.west[lo..hi], base))),
                self.classes,
                self.uniform,
            ),
        }
    }

    /// Asks for the first `lines` cache lines of bucket v (see `isa::prefetch` and
    /// [`PREFETCH_LINES`]): 8 packed masks or 4 unpacked ones a line.
    #[inline(always)]
    fn prefetch(&self, v: usize, lines: usize) {
        let (at, to) = (self.west_start[v], self.west_start[v + 1]);
        match self.packed {
            Some(p) => {
                for i in (at..to.min(at + 8 * lines)).step_by(8) {
                    isa::prefetch(&p[i]);
                }
            }
            None => {
                for i in (at..to.min(at + 4 * lines)).step_by(4) {
                    isa::prefetch(&self.west[i]);
                }
            }
        }
    }

    /// A sparse join's pieces `members` (of `masks` east masks in all) against every west
    /// bucket whose key is within `free`, in descending order (`v = (v - 1) & free` lists
    /// the submasks of `free`), the next bucket's first line asked for ahead: the whole
    /// visit in one west loop ([`Submasks`]).
    #[inline(always)]
    fn visit<const M: usize>(
        &self,
        pieces: &[Piece],
        members: [usize; M],
        free: usize,
        masks: usize,
        stats: &mut JoinStats,
    ) {
        let mut tables: [&[ChunkTable]; M] = [&[]; M];
        let mut keys: [&[ChunkTable]; M] = [&[]; M];
        let mut valid: [&[u64; LANES]; M] = [&[0; LANES]; M];
        for j in 0..M {
            let piece = &pieces[members[j]];
            (tables[j], keys[j]) = piece.tables.split_at(self.own);
            valid[j] = piece.valid.first_chunk().expect("LANES words");
        }
        // The west list as the join keeps it: packed (always spread) or not.
        let (pairs, read) = match self.packed {
            Some(p) => self.visit_list(p, true, tables, valid, keys, free),
            None => self.visit_list(self.west, self.spread, tables, valid, keys, free),
        };
        stats.pairs += pairs;
        stats.tested += (masks * read) as u64;
    }

    /// [`Shape::visit`] on the west list `ws`: the pairs, and the west masks read.
    #[inline(always)]
    fn visit_list<E: WestEntry, const M: usize>(
        &self,
        ws: &[E],
        spread: bool,
        tables: [&[ChunkTable]; M],
        valid: [&[u64; LANES]; M],
        keys: [&[ChunkTable]; M],
        free: usize,
    ) -> (u64, usize) {
        let mut buckets = Submasks::new(self, ws, keys, free);
        let pairs = count_west(
            self.own,
            spread,
            self.popcounts,
            tables,
            valid,
            &mut buckets,
            self.classes,
            self.uniform,
        );
        (pairs, buckets.read)
    }
}

/// The west buckets a sparse join's piece (or two pieces of the same free key bits)
/// visits, for one west loop ([`Buckets`]): those whose key is within `free`, in descending
/// order, each with its members' bases, the next bucket's first line asked for ahead.
///
/// A sparse join's bucket holds one or two west masks (n = 22 and 23: pieces of about 190
/// east masks meet about 950 west masks over many nearly empty buckets), so what a bucket
/// costs beyond its masks decides its time: with a call of the west loop per bucket, each
/// paid the call, the loop's choice of copy, loading its registers and a final sum; now
/// the bucket loop runs inside the west loop's copy. Measured (Intel Xeon model 167,
/// 2026-12-05, both builds at once, one per core, cores swapped, identical shard files,
/// `-t 1`): `count 22 --shard 77/200` 0.960, 0.959; `count 23 --shard 1234/2000` 0.974,
/// 0.972; `count 24 --shard 9428/20000` 0.964, 0.960; `count 25 --shard 123456/200000`
/// 0.964, 0.962; `count 26 --shard 388857/420000` 0.997 and `count 20 --shard 3/10` 0.986,
/// 1.014 (their joins are grouped).
///
/// Counted since (2026-12-06, every bucket these visits passed, by a probe not kept): in
/// `count 23 --shard 1234/2000 -t 1` 85% of the buckets held west masks and 84% of those
/// held 5 or more; in `count 22 --shard 77/200`, 61% and 76%. So "one or two" above does
/// not hold for these shards (not traced which change filled the buckets).
///
/// Prefetching the next bucket's first line only (no loop): measured against
/// [`Shape::prefetch`]'s loop (Intel Xeon model 167, paired, same shard files): `count 22
/// --shard 77/200 -t 1` 0.980, 0.985, 0.982 (its swapped sets' joins are sparse); `count 23
/// --shard 1234/2000 -t 1` 0.996, 1.001, 0.992.
///
/// The buckets' masks gathered instead, and counted 256 at a time with the key chunks as
/// chunks (a spread mask holds its bucket's key chunks): four masks copied from every
/// bucket whatever its size, so no branch per bucket and no base. Measured and not kept
/// (same machine, 2026-12-06, paired, same shard files): `count 22 --shard 77/200 -t 1`
/// 1.087, 1.127; `count 23 --shard 1234/2000 -t 1` 1.031, 1.033.
struct Submasks<'a, E, const M: usize> {
    shape: &'a Shape<'a>,
    ws: &'a [E],
    /// The members' key chunk tables (see [`Shape::base`]).
    keys: [&'a [ChunkTable]; M],
    free: usize,
    /// The next bucket, or None after bucket 0.
    v: Option<usize>,
    /// West masks in the buckets counted so far.
    read: usize,
}

impl<'a, E, const M: usize> Submasks<'a, E, M> {
    #[inline(always)]
    fn new(shape: &'a Shape<'a>, ws: &'a [E], keys: [&'a [ChunkTable]; M], free: usize) -> Self {
        Submasks {
            shape,
            ws,
            keys,
            free,
            v: Some(free),
            read: 0,
        }
    }
}

impl<'a, E: WestEntry, const M: usize> Buckets<'a, E, M> for Submasks<'a, E, M> {
    #[inline(always)]
    fn next(&mut self) -> Option<(&'a [E], [[u64; LANES]; M])> {
        let start = self.shape.west_start;
        loop {
            let v = self.v?;
            self.v = (v != 0).then(|| (v - 1) & self.free);
            if let Some(x) = self.v.and_then(|next| self.ws.get(start[next])) {
                isa::prefetch(x);
            }
            let (lo, hi) = (start[v], start[v + 1]);
            if lo < hi {
                self.read += hi - lo;
                let mut base = [[0u64; LANES]; M];
                for (b, keys) in base.iter_mut().zip(self.keys) {
                    *b = self.shape.base(keys, v);
                }
                return Some((&self.ws[lo..hi], base));
            }
        }
    }
}

/// The key bits none of `masks` takes (of the `full` key), through the key's byte tables:
/// the west buckets a piece of these masks visits.
#[inline(always)]
fn free_bits(keys: &KeyTable, full: usize, masks: &[u64]) -> usize {
    full & !keys.key(masks.iter().fold(u64::MAX, |acc, &m| acc & m))
}

/// What the join is asked to do (see [`Joiner::dispatch`]).
#[derive(Clone, Copy)]
enum Work<'x> {
    /// Sort and join two lists (a count).
    Join(&'x [u64], &'x [(u64, u32)], u32),
    /// Sort and lay out two lists and keep them ([`Joiner::keep`]).
    Keep(&'x [u64], &'x [(u64, u32)], u32),
    /// Run pieces of the kept join of these lists ([`Joiner::join_kept`]).
    Kept(&'x [u64], &'x [(u64, u32)]),
    /// Sort a west list by the shared key and join it with the `usize` masks of the shared
    /// list that avoid the block, which [`Joiner::filter_shared`] left sorted
    /// ([`Joiner::join_shared_until`]).
    Shared(usize, u64, &'x [(u64, u32)], u32),
}

/// The masks of `shared` that avoid `block` (both moved), in order, into `east`, with the
/// start of each bucket in `start`; returns how many.
fn filter_buckets(
    shared: &Shared,
    block: u64,
    east: &mut Vec<u64>,
    start: &mut Vec<usize>,
) -> usize {
    let buckets = shared.start.len() - 1;
    if east.len() < shared.masks.len() {
        east.resize(shared.masks.len(), 0);
    }
    start.clear();
    start.reserve(buckets + 1);
    let mut at = 0;
    for b in 0..buckets {
        start.push(at);
        for &m in &shared.masks[shared.start[b]..shared.start[b + 1]] {
            east[at] = m;
            at += usize::from(m & block == 0);
        }
    }
    start.push(at);
    at
}

/// An east list sorted once by one key for the joins of several west lists, each with the
/// part of it that avoids some diagonals ([`Joiner::share_east`]): the lists of a frame
/// group's frames, which are their group's list less each frame's blocked diagonals.
#[derive(Debug, Default)]
struct Shared {
    key: Key,
    bits: u32,
    /// The list sorted by `key` and moved, as [`Joiner::arrange`] sorts an east list.
    masks: Vec<u64>,
    start: Vec<usize>,
    /// The block and count of the part [`Joiner::filter_shared`] left in the joiner's
    /// sorted east list, until a join of other lists overwrites it.
    filtered: Option<(u64, usize)>,
}

/// A join's lists after [`Joiner::arrange`].
#[derive(Clone, Copy, Debug)]
struct Arranged {
    /// Few west masks a bucket (see `group`).
    sparse: bool,
    /// Lengths of the lists.
    east: usize,
    west: usize,
    /// Diagonal bits of the masks.
    bits: u32,
    /// Key bits (0: one bucket).
    k: usize,
    /// Joined pair by pair (a short east list).
    naive: bool,
    /// The lists were sorted into the joiner's buffers.
    sorted: bool,
    /// Key bits moved: the first `moved` of the `k` ([`moves`](key::moves)); the chunk tables of a
    /// piece follow from it ([`chunk_split`]).
    moved: usize,
    /// The sorted west masks are spread ([`spread`]).
    spread: bool,
    /// The sorted west masks are packed ([`Packed`]) into the joiner's `packed` list.
    packed: bool,
    /// Pieces of the join.
    pieces: u64,
}

impl Arranged {
    /// Bit positions the masks use: `bits`, or six per chunk once the key moved (the last
    /// chunk of the other diagonals and of the key may be partial and keep six places).
    fn span(&self) -> u32 {
        if self.moved == 0 {
            self.bits
        } else {
            let (own, slots) = chunk_split(self.bits, self.moved);
            CHUNK * (own + slots) as u32
        }
    }
}

/// Which pieces of a join run: every piece, or one in `stride` from `offset` (see
/// [`Joiner::join_sampled`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Run piece i (a group, see [`JoinStats::pieces`]) when i % stride == offset.
    pub stride: u64,
    /// The first piece that runs.
    pub offset: u64,
}

impl Sample {
    /// Every piece: the whole join.
    pub const ALL: Sample = Sample {
        stride: 1,
        offset: 0,
    };

    #[inline(always)]
    fn picks(self, index: u64) -> bool {
        index % self.stride.max(1) == self.offset
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
    use crate::engine::isa::{check_property, suite_per_implementation};
    use proptest::prelude::{any, prop_assert_eq};

    #[test]
    fn groups_take_up_to_six_neighbours_whose_union_stays_near_the_widest() {
        let frees = [
            0b1111,
            0b1111,
            0b0111,
            0b1111,
            0b1111,
            0b1111, // six pieces: the group is full
            0b1111,
            0b1111_0000, // 8 bits of union against 4 + SLACK: a new group
            0b1111_0000,
            0, // visits bucket 0 only, which the others visit too
        ];
        let cuts: Vec<Cut> = frees
            .iter()
            .enumerate()
            .map(|(i, &free)| Cut {
                lo: 256 * i,
                hi: 256 * i + 256,
                free,
            })
            .collect();
        let mut groups = vec![(7, 7)];
        group(&cuts, &mut groups);
        assert_eq!(groups, [(0, 6), (6, 7), (7, 10)]);
        group(&[], &mut groups);
        assert!(groups.is_empty());
    }

    /// Worked sizes of the sets the rule is about (mean list lengths per set; see
    /// `quadrant` module doc): odd boards' frames keep their twos, even boards' sets with the
    /// longer west list are grouped, and so are the n = 26 sets whose two lists are both
    /// millions long, the west one a little shorter.
    #[test]
    fn joins_are_grouped_where_their_west_buckets_are_long() {
        // n = 23: 74,000 east and 13,000 west masks, 9 key bits (25 west masks a bucket).
        assert!(is_sparse(74_000, 13_000, 9));
        // n = 22 and 24: longer west lists, 11 and 16 key bits.
        assert!(!is_sparse(81_000, 240_000, 11));
        assert!(!is_sparse(550_000, 2_000_000, 16));
        // n = 26, both lists long: 16 key bits, 68 or 61 west masks a bucket.
        assert!(!is_sparse(4_600_000, 4_450_000, 16));
        assert!(is_sparse(4_600_000, 4_000_000, 16));
        // A few west masks a bucket: twos whichever list is longer.
        assert!(is_sparse(100_000, 1_000_000, 17));
    }

    /// A small deterministic generator (xorshift), so the test needs no crate: `count`
    /// masks of `bits` diagonals, each set with probability `density`%.
    pub(super) fn masks(seed: u64, count: usize, bits: u32, density: u32) -> Vec<u64> {
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

    /// West masks weighted in turn by `weights`.
    pub(super) fn weighted(masks: Vec<u64>, weights: &[u32]) -> Vec<(u64, u32)> {
        let cycle = weights.iter().cycle();
        masks.into_iter().zip(cycle).map(|(m, &w)| (m, w)).collect()
    }

    // Every suite below once per implementation of the join's loop: baseline code, the
    // x86-64-v3 twin with AVX2's popcounts, and the twin with the AVX-512 popcount loop,
    // each against the pair loop (`join_naive`), skipped where the CPU lacks it.
    suite_per_implementation! {
        [Baseline, X86_64V3, Avx512Popcount]

        /// Any lists, any widths up to 64 bits, any weights: the sliced, bucketed join
        /// agrees with the pair loop (lists up to 3,000 east masks reach the buckets).
        fn join_agrees_with_the_pair_loop(imp: Implementation) {
            let strategy = (
                1u32..=64,
                proptest::collection::vec(any::<u64>(), 0..3000),
                proptest::collection::vec((any::<u64>(), 0u32..9), 0..300),
                0u32..4,
            );
            check_property(imp, file!(), 64, strategy, |(bits, east, west, sparse)| {
                // Random u64s clash almost always; AND a few together to make sparse masks.
                let keep = |m: u64, salt: u64| {
                    let m = m & (u64::MAX >> (64 - bits));
                    (0..sparse).fold(m, |m, i| m & m.rotate_left(7 * i + salt as u32 + 1))
                };
                let east: Vec<u64> = east.iter().map(|&m| keep(m, 1)).collect();
                let west: Vec<(u64, u32)> = west.iter().map(|&(m, w)| (keep(m, 2), w)).collect();
                prop_assert_eq!(
                    Joiner::for_implementation(imp).join(&east, &west, bits).pairs,
                    join_naive(&east, &west)
                );
                Ok(())
            });
        }

        /// West lists long enough for groups (see `GROUP`, `DENSE`): up to six pieces
        /// visit the union of their buckets, some members not every bucket of it; whole,
        /// and as the three samples of a stride of 3, the count is the pair loop's.
        fn grouped_joins_equal_the_pair_loop(imp: Implementation) {
            let mut joiner = Joiner::for_implementation(imp);
            for &(seed, ne, nw, bits, density) in
                &[(41, 3000, 60_000, 40, 25), (42, 1500, 30_000, 46, 20)]
            {
                let east = masks(seed, ne, bits, density);
                let west = weighted(masks(seed + 100, nw, bits, density), &[1, 2, 4]);
                let want = join_naive(&east, &west);
                assert_eq!(joiner.join(&east, &west, bits).pairs, want, "seed {seed}");
                let pieces = joiner.keep(&east, &west, bits);
                let kept = joiner.kept.expect("kept");
                assert!(!kept.sparse && kept.k >= 4, "seed {seed}: {kept:?}");
                assert!(pieces < joiner.cuts.len() as u64, "seed {seed}: no group of two");
                let (cuts, groups) = (&joiner.cuts, &joiner.groups);
                let mixed = |&(first, end): &(usize, usize)| {
                    cuts[first..end].iter().any(|c| c.free != cuts[first].free)
                };
                assert!(groups.iter().any(mixed), "seed {seed}: every group's members alike");
                let parts: u64 = (0..3)
                    .map(|offset| {
                        let sample = Sample { stride: 3, offset };
                        joiner.join_kept(&east, &west, sample).pairs
                    })
                    .sum();
                assert_eq!(parts, want, "seed {seed}: samples");
            }
        }

        /// A list shared once ([`Joiner::share_east`]) and joined as its masks that avoid
        /// each of several blocks of two diagonals, with west lists of its own each (a frame
        /// group's frames): every count is the pair loop's of the filtered list, with the
        /// keys the lists take (too short to move) and a forced key of 14 bits (moved at 46
        /// and 60 diagonals).
        fn a_shared_list_joins_as_each_of_its_filtered_lists(imp: Implementation) {
            let mut joiner = Joiner::for_implementation(imp);
            for &(seed, ne, nw, bits, density) in
                &[(51, 6000, 400, 30, 30), (52, 8000, 2500, 46, 20), (53, 5000, 900, 60, 15)]
            {
                let group = masks(seed, ne, bits, density);
                let first = weighted(masks(seed + 100, nw, bits, density), &[3]);
                // These lists take keys of under 12 bits, which never move (`key::moves`):
                // the second round forces a key of 14, which moves at 46 and 60 diagonals.
                for forced in [None, Some((3..17).collect::<Vec<u32>>())] {
                    joiner.forced_key = forced.clone();
                    joiner.share_east(&group, &first, bits);
                    assert!(joiner.is_shared(bits) && !joiner.is_shared(bits + 1), "seed {seed}");
                    let moved = joiner.shared.as_ref().map_or(0, |s| s.key.moved);
                    if forced.is_some() && bits >= 46 {
                        assert!(moved > 0, "seed {seed}: the forced key moves");
                    }
                    for (i, d) in [(0u32, 1u32), (2, 17), (bits - 1, bits - 2), (5, 5)].into_iter().enumerate() {
                        let block = 1u64 << d.0 | 1u64 << d.1;
                        let east: Vec<u64> = group.iter().copied().filter(|m| m & block == 0).collect();
                        let west = match i {
                            0 => first.clone(),
                            _ => weighted(masks(seed + 200 + i as u64, nw / i, bits, density), &[1, 2]),
                        };
                        assert!(joiner.shares(bits, east.len(), west.len()), "seed {seed}, {d:?}");
                        assert_eq!(joiner.filter_shared(block), east.len(), "seed {seed}, {d:?}");
                        let got = joiner
                            .join_shared_until(east.len(), block, &west, bits, Sample::ALL, &NEVER)
                            .expect("never stopped");
                        assert_eq!(got.pairs, join_naive(&east, &west), "seed {seed}, block {d:?}");
                        // The same lists joined alone count the same pairs.
                        // A join of other lists in between leaves the shared list as it was (its
                        // filtered part is filtered again).
                        assert_eq!(joiner.join(&east, &west, bits).pairs, got.pairs, "seed {seed}");
                    }
                    joiner.unshare();
                    assert!(!joiner.is_shared(bits), "seed {seed}: unshared");
                }
                joiner.forced_key = None;
            }
        }

        /// One joiner for all cases, as a worker keeps it from set to set: its buffers keep
        /// their length from a larger join (40,000 masks) into smaller ones and back.
        fn sliced_join_equals_the_pair_loop(imp: Implementation) {
            let mut joiner = Joiner::for_implementation(imp);
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
                let west = weighted(masks(seed + 100, nw, bits, density), &[1, 2, 4, 0]);
                let want = join_naive(&east, &west);
                assert_eq!(joiner.join(&east, &west, bits).pairs, want, "seed {seed}");
                assert_eq!(
                    Joiner::for_implementation(imp).join(&east, &west, bits).pairs,
                    want,
                    "seed {seed}, fresh joiner"
                );
            }
        }

        /// Forced keys of 12-18 bits (moved whole, with a padded last slot, or in whole
        /// chunks only, or not at all) on masks of 12-62 diagonals, spread (up to 8 own
        /// chunks) or not, through `join` and `keep` / `join_kept`.
        fn every_key_length_and_width_joins_as_the_pair_loop(imp: Implementation) {
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            for &bits in &[12u32, 14, 24, 33, 46, 47, 48, 56, 58, 60, 62] {
                for k in 12..=(key::MAX_KEY_BITS as usize).min(bits as usize) {
                    // k distinct diagonals in a scrambled order.
                    let mut key: Vec<u32> = (0..bits).collect();
                    for i in (1..key.len()).rev() {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        key.swap(i, (x % (i as u64 + 1)) as usize);
                    }
                    key.truncate(k);
                    let seed = u64::from(bits) * 100 + k as u64;
                    let density = if bits <= 24 { 12 } else { 6 };
                    let east = masks(seed, 3_000, bits, density);
                    let west = weighted(masks(seed + 1, 400, bits, density), &[1, 2, 4]);
                    let mut joiner = Joiner {
                        forced_key: Some(key),
                        ..Joiner::for_implementation(imp)
                    };
                    let want = join_naive(&east, &west);
                    assert!(want > 0, "bits {bits}, k {k}: choose a lower density");
                    let got = joiner.join(&east, &west, bits);
                    assert_eq!(got.pairs, want, "bits {bits}, k {k}");
                    assert_eq!(got.pieces, got.pieces_run);
                    joiner.keep(&east, &west, bits);
                    let a = joiner.kept.expect("kept");
                    assert_eq!(a.moved, key::moves(bits, k), "bits {bits}, k {k}");
                    assert_eq!(a.spread, chunk_split(bits, a.moved).0 <= SPREAD_CHUNKS);
                    // Three weights: packed wherever a byte is left for the class.
                    let own = chunk_split(bits, a.moved).0;
                    assert_eq!(a.packed, a.spread && own <= PACKED_CHUNKS, "bits {bits}");
                    let kept = joiner.join_kept(&east, &west, Sample::ALL);
                    assert_eq!(kept.pairs, want, "kept: bits {bits}, k {k}");
                    // The same lists unpacked, as a count keeps lists below PACK_FROM.
                    joiner.pack_from = usize::MAX;
                    assert_eq!(joiner.join(&east, &west, bits).pairs, want, "unpacked");
                    joiner.keep(&east, &west, bits);
                    assert!(!joiner.kept.expect("kept").packed, "bits {bits}, k {k}");
                    joiner.pack_from = 0;
                    // Five weights are more classes than a packed mask holds: not packed,
                    // the same count.
                    let west5 = weighted(masks(seed + 1, 400, bits, density), &[1, 2, 3, 5, 7]);
                    let want5 = join_naive(&east, &west5);
                    assert_eq!(joiner.join(&east, &west5, bits).pairs, want5, "bits {bits}");
                    joiner.keep(&east, &west5, bits);
                    assert!(!joiner.kept.expect("kept").packed, "bits {bits}, k {k}");
                }
            }
        }

        /// East lists of 70,000 masks take keys of 11 bits, which do not move (MOVE_FROM);
        /// from GREEDY_FROM east masks the key is chosen level by level, has 12 bits and
        /// moves (`BitOrder`), but not at 62 diagonals (no room). Forced keys of every
        /// length are in `every_key_length_and_width_joins_as_the_pair_loop`.
        ///
        /// The west list is a few hundred masks repeated to the east list's length: a
        /// dense join (a shorter west list takes the sparse rule's shorter key,
        /// `key::SPARSE_WEST`), whose pairs are the short list's times the repeats.
        fn keys_of_whole_chunks_move_the_chunks_and_keep_the_count(imp: Implementation) {
            let mut joiner = Joiner::for_implementation(imp);
            for &(seed, ne, nw, bits, density, moved) in &[
                (31, 70_000, 400, 46, 25, false),
                (32, 70_000, 300, 60, 20, false),
                (33, 70_000, 300, 62, 20, false),
                (34, 140_000, 200, 33, 30, true),
                (35, 140_000, 150, 46, 25, true),
                (36, 140_000, 100, 62, 20, false),
            ] {
                let east = masks(seed, ne, bits, density);
                let short = weighted(masks(seed + 100, nw, bits, density), &[1, 2, 4]);
                let repeats = ne.div_ceil(nw);
                let west: Vec<(u64, u32)> = (0..repeats).flat_map(|_| short.clone()).collect();
                let key = key_bits(&east, &west, bits, &mut Trie::default());
                assert!(key.bits.len() >= 10, "seed {seed}: key of {}", key.bits.len());
                assert_eq!(key.moved > 0, moved, "seed {seed}: {key:?}");
                let want = join_naive(&east, &short) * repeats as u64;
                assert_eq!(joiner.join(&east, &west, bits).pairs, want, "seed {seed}");
                let pieces = joiner.keep(&east, &west, bits);
                let sample = Sample {
                    stride: 3,
                    offset: 2,
                };
                assert_eq!(
                    joiner.join_kept(&east, &west, sample),
                    Joiner::for_implementation(imp).join_sampled(&east, &west, bits, sample),
                    "seed {seed}"
                );
                assert_eq!(joiner.join_kept(&east, &west, Sample::ALL).pairs, want);
                // Groups of up to GROUP pieces of 256: 70,000 masks are 274 pieces.
                assert!(pieces > 100 / GROUP as u64, "seed {seed}");
            }
        }

        /// One sort, then several samples of its pieces (`nqueens estimate`): each sample
        /// gives what a fresh sampled join of the same lists gives, the samples of a stride
        /// add up to the whole join, for lists that are sorted (8,000 east masks), in one
        /// bucket (600) and joined pair by pair (20).
        fn a_kept_join_runs_the_pieces_a_sampled_join_runs(imp: Implementation) {
            let mut kept = Joiner::for_implementation(imp);
            let cases = [(21, 8000, 6000, 40), (22, 600, 900, 30), (23, 20, 50, 20)];
            for &(seed, ne, nw, bits) in &cases {
                let east = masks(seed, ne, bits, 25);
                let west = weighted(masks(seed + 100, nw, bits, 25), &[1, 2, 4]);
                let want = join_naive(&east, &west);
                let pieces = kept.keep(&east, &west, bits);
                let whole = Joiner::for_implementation(imp).join(&east, &west, bits);
                assert_eq!(pieces, whole.pieces, "seed {seed}");
                assert_eq!(whole.pairs, want, "seed {seed}");
                for sample in [
                    Sample::ALL,
                    Sample {
                        stride: 3,
                        offset: 1,
                    },
                    Sample {
                        stride: 7,
                        offset: 0,
                    },
                    Sample {
                        stride: u64::MAX,
                        offset: u64::MAX - 1,
                    },
                ] {
                    let fresh =
                        Joiner::for_implementation(imp).join_sampled(&east, &west, bits, sample);
                    assert_eq!(kept.join_kept(&east, &west, sample), fresh, "seed {seed}");
                }
                let by_thirds: u64 = (0..3)
                    .map(|offset| kept.join_kept(&east, &west, Sample { stride: 3, offset }).pairs)
                    .sum();
                assert_eq!(by_thirds, want, "seed {seed}");
            }
        }

        /// A raised stop flag ends a sliced join (one bucket or sorted) before its first
        /// piece.
        fn a_raised_stop_gives_none(imp: Implementation) {
            let stop = AtomicBool::new(true);
            for &(ne, bits) in &[(MIN_SLICED, 20), (600, 30), (8000, 40)] {
                let east = masks(ne as u64, ne, bits, 25);
                let west = weighted(masks(7, 500, bits, 25), &[1]);
                let mut joiner = Joiner::for_implementation(imp);
                let got = joiner.join_until(&east, &west, bits, Sample::ALL, &stop);
                assert_eq!(got, None, "{ne} east masks");
            }
        }
    }
}
