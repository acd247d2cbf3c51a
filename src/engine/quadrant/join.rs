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
//! what [`greedy_key`] does, since it keeps the buckets and chunk tables as they are.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::engine::isa::{self, Isa};
use crate::engine::NEVER;

/// Blocks of 64 east masks per piece (4 × 64 = 256 pairs per OR: one AVX2 register per
/// table entry). 4 rather than 8: smaller pieces share more key bits, so each visits fewer
/// west masks; measured 10% faster at n = 20 and 22 (Intel Xeon, x86-64-v3 code).
pub const LANES: usize = 4;
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
    /// Pieces of east masks the join has (see [`Joiner::join_sampled`]).
    pub pieces: u64,
    /// Pieces that ran.
    pub pieces_run: u64,
}

/// Largest key: 2^16 west buckets (and trie levels of the east list, see [`layout`]).
const MAX_KEY_BITS: u32 = 16;
/// A piece's masks: the key stops where the east buckets would average a quarter of this
/// (deeper levels could not fill a piece, so [`layout`] would not use them).
const MIN_BUCKET: usize = 64 * LANES;

/// Shorter east lists are joined unsorted: at n = 16 (a few hundred east masks per set)
/// the sort and the key cost more than they save (measured).
const KEY_FROM: usize = 1024;

/// Reusable buffers of the join (one per worker).
#[derive(Debug, Default)]
pub struct Joiner {
    /// The instruction set of the join's loop (see [`isa`]).
    isa: Isa,
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
    keys: Vec<u16>,
    /// The next free place of each bucket while sorting.
    next: Vec<usize>,
    /// West masks compatible with each set of key bits (see [`subset_sums`]).
    compatible: Vec<u64>,
    /// The ranges of sorted east masks cut into pieces (see [`layout`]).
    ranges: Vec<(usize, usize)>,
    /// The key's byte tables (see [`KeyTable`]), of the masks as given and as moved (see
    /// [`BitOrder`]).
    key_table: Vec<(u32, [u16; 256])>,
    moved_key_table: Vec<(u32, [u16; 256])>,
    /// The join [`Joiner::keep`] arranged (its sorted lists are in the buffers above).
    kept: Option<Arranged>,
    /// A key to use instead of choosing one (tests of every key length and mask width).
    #[cfg(test)]
    forced_key: Option<Vec<u32>>,
}

impl Joiner {
    /// A joiner whose loop runs with `isa` (`Joiner::default()`: [`Isa::best`]).
    pub fn new(isa: Isa) -> Joiner {
        Joiner {
            isa,
            ..Joiner::default()
        }
    }

    /// The weighted number of disjoint (east, west) pairs; every mask uses bits `0..bits`.
    ///
    /// ```text
    /// order the diagonals by how often both lists take them; the first k are key bits
    /// sort east by its key bits (lexicographically) and bucket west by the same bits
    /// cut the sorted east list into ranges (see `layout`), each range into pieces of 256
    /// for each piece:
    ///     common = the key bits every mask of the piece takes
    ///     build the piece's chunk tables
    ///     for each west bucket v with v & common == 0, for each west mask w in it:
    ///         pairs += weight(w) · (east masks of the piece disjoint from w)
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

    /// [`Joiner::join`] over only the pieces `sample` picks, for estimating a join's time
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

    /// Sorts and lays out both lists as [`Joiner::join`] would, and keeps them in the
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
        #[cfg(target_arch = "x86_64")]
        if self.isa.runs_v3_twin() {
            // SAFETY: runs_v3_twin() is true only where is_x86_feature_detected! found every
            // feature join_v3 is compiled with.
            #[allow(unsafe_code)]
            return unsafe { self.join_v3(work, sample, stop) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = self.isa; // one instruction set elsewhere: the build's own
        self.join_body(work, sample, stop)
    }

    isa::v3_fn! {
        /// [`Joiner::join`] compiled for x86-64-v3 ([`isa`]): popcnt, and AVX2 for the ORs.
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
        let mut arranged = Arranged {
            east: east.len(),
            west: west.len(),
            bits,
            k: 0,
            naive: east.len() < MIN_SLICED || west.is_empty(),
            sorted: false,
            pieces: 1,
            moved: 0,
            spread: false,
        };
        let key = if arranged.naive {
            Key::default()
        } else {
            self.key_for(east, west, bits)
        };
        let k = key.bits.len();
        arranged.k = k;
        let order = (key.moved > 0).then(|| BitOrder::new(bits, &key.bits[..key.moved]));
        arranged.moved = key.moved;
        let buckets = 1usize << k;
        // Sorted west masks are kept spread where their own chunks fit ([`spread`]).
        arranged.spread = buckets > 1 && chunk_split(bits, key.moved).0 <= SPREAD_CHUNKS;
        let apply = |m: u64| order.as_ref().map_or(m, |o| o.apply(m));
        // The pieces read the key of the moved masks: the same key bits, where they moved.
        let moved: Vec<u32> = key
            .bits
            .iter()
            .map(|&d| order.as_ref().map_or(d, |o| u32::from(o.place[d as usize])))
            .collect();
        KeyTable::new(&moved, &mut self.moved_key_table);
        let keys_by_byte = KeyTable::new(&key.bits, &mut self.key_table);
        let key_of = |m: u64| keys_by_byte.key(m);
        if buckets > 1 {
            let keys = &mut self.keys;
            bucket_sort(
                east,
                |&e| key_of(e),
                |&e| apply(e),
                buckets,
                &mut self.east,
                &mut self.east_start,
                &mut self.next,
                keys,
            );
            bucket_sort(
                west,
                |w| key_of(w.0),
                |&(w, weight)| {
                    let w = apply(w);
                    (if arranged.spread { spread(w) } else { w }, weight)
                },
                buckets,
                &mut self.west,
                &mut self.west_start,
                &mut self.next,
                keys,
            );
            arranged.sorted = true;
        }
        if arranged.naive {
            return arranged;
        }
        // Where the pieces go: ranges of the sorted east list (see `layout`).
        self.ranges.clear();
        if buckets == 1 {
            self.ranges.push((0, east.len()));
        } else {
            let compatible = &mut self.compatible;
            compatible.clear();
            compatible.extend(self.west_start.windows(2).map(|w| (w[1] - w[0]) as u64));
            subset_sums(compatible, k);
            layout(&self.east_start, k, compatible, &mut self.ranges);
        }
        arranged.pieces = self
            .ranges
            .iter()
            .map(|&(lo, hi)| (hi - lo).div_ceil(64 * LANES) as u64)
            .sum();
        arranged
    }

    /// The key of a join ([`key_bits`]), or in tests the forced one.
    fn key_for(&self, east: &[u64], west: &[(u64, u32)], bits: u32) -> Key {
        #[cfg(test)]
        if let Some(key) = &self.forced_key {
            return Key::new(key.clone(), bits);
        }
        key_bits(east, west, bits)
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
            (&self.east[..a.east], &self.west[..a.west], &self.west_start)
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
        let keys_by_byte = KeyTable {
            parts: &self.moved_key_table,
        };
        let key_of = |m: u64| keys_by_byte.key(m);
        let (own, kc) = chunk_split(a.bits, a.moved);
        let chunks = own + kc;
        // The moved key bits are in the last `kc` chunk tables (see `BitOrder`); each west
        // mask of a bucket takes the same value in them, the bucket's. The bucket's first
        // `a.moved` key bits (the top of v), padded at their low end to whole chunks, give
        // slot j's value at bits 6(kc - 1 - j)...
        let pad = CHUNK as usize * kc - a.moved;
        let full = (1usize << a.k) - 1;
        let mut stats = JoinStats::default();
        #[cfg(target_arch = "x86_64")]
        let avx512 = self.isa.runs_avx512_popcount();
        #[cfg(not(target_arch = "x86_64"))]
        let avx512 = false;
        let piece = &mut self.piece;
        let mut index = 0u64;
        for &(lo, hi) in &self.ranges {
            for masks in east[lo..hi].chunks(64 * LANES) {
                stats.pieces += 1;
                index += 1;
                if !sample.picks(index - 1) {
                    continue;
                }
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                stats.pieces_run += 1;
                let common = masks.iter().fold(u64::MAX, |acc, &m| acc & m);
                piece.build(masks, a.span(), chunks);
                let (tables, key_tables) = piece.tables[..chunks].split_at(own);
                let valid: &[u64; LANES] = piece.valid[..LANES].try_into().expect("LANES words");
                // West buckets v with v & common == 0: the submasks of the other key bits.
                let free = full & !key_of(common);
                let mut v = free;
                loop {
                    let ws = &west[west_start[v]..west_start[v + 1]];
                    if !ws.is_empty() {
                        // Key slot j holds key bits 6j..6j+6, bits 6(kc-1-j).. of v << pad.
                        let mut base = [0u64; LANES];
                        let padded = (v >> (a.k - a.moved)) << pad;
                        for (j, table) in key_tables.iter().enumerate() {
                            let at = CHUNK as usize * (kc - 1 - j);
                            let entry = entry(table, (padded >> at) & CHUNK_MASK as usize);
                            for (x, e) in base.iter_mut().zip(entry) {
                                *x |= e;
                            }
                        }
                        stats.tested += (masks.len() * ws.len()) as u64;
                        stats.pairs +=
                            count_west_any(own, a.spread, avx512, tables, valid, ws, &base);
                    }
                    if v == 0 {
                        break;
                    }
                    v = (v - 1) & free;
                }
            }
        }
        Some(stats)
    }
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
}

/// A join's lists after [`Joiner::arrange`].
#[derive(Clone, Copy, Debug)]
struct Arranged {
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
    /// Key bits moved: the first `moved` of the `k` ([`moves`]); the chunk tables of a
    /// piece follow from it ([`chunk_split`]).
    moved: usize,
    /// The sorted west masks are spread ([`spread`]).
    spread: bool,
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

/// The key of a mask by table lookup, a byte at a time.
///
/// Key bit i of a mask is diagonal `key[i]`, placed at bit k - 1 - i: the first key bit is
/// the most significant, so sorting by key is sorting by the bits in order. Gathering 16
/// bits one by one costs four operations each per mask (and every mask of both lists is
/// keyed); instead, for each byte of the masks that holds key bits, a table of 256 entries
/// gives that byte's part of the key, and the key is the OR of one entry per such byte.
/// Worked numbers, n = 22: 42 diagonal bits, 16 key bits spread over 6 bytes: 6 lookups
/// instead of 64 operations; building the tables (6 × 256 entries) is repaid by the first
/// 100 masks of a list of more than 1,024 ([`KEY_FROM`]).
struct KeyTable<'a> {
    /// (byte index, the key bits of each value of that byte).
    parts: &'a [(u32, [u16; 256])],
}

impl<'a> KeyTable<'a> {
    fn new(key: &[u32], buf: &'a mut Vec<(u32, [u16; 256])>) -> KeyTable<'a> {
        let k = key.len();
        buf.clear();
        for byte in 0..8u32 {
            let mine: Vec<(usize, u32)> = key
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b / 8 == byte)
                .map(|(i, &b)| (k - 1 - i, b % 8))
                .collect();
            if mine.is_empty() {
                continue;
            }
            let mut part = [0u16; 256];
            for (v, entry) in part.iter_mut().enumerate() {
                *entry = mine
                    .iter()
                    .filter(|&&(_, bit)| v >> bit & 1 == 1)
                    .fold(0u16, |acc, &(place, _)| acc | 1 << place);
            }
            buf.push((byte, part));
        }
        KeyTable { parts: buf }
    }

    #[inline(always)]
    fn key(&self, m: u64) -> usize {
        self.parts.iter().fold(0usize, |acc, (byte, part)| {
            acc | usize::from(part[(m >> (8 * byte)) as usize & 255])
        })
    }
}

/// Turns west bucket sizes into `s[m]` = the west masks in buckets v ⊆ m (the subset sums,
/// or zeta transform, over k key bits: k · 2^k additions), so that the west masks a piece
/// must visit, those whose key bits avoid the piece's `common` bits, are `s[!common]`.
fn subset_sums(s: &mut [u64], k: usize) {
    for i in 0..k {
        let bit = 1usize << i;
        for m in 0..s.len() {
            if m & bit != 0 {
                s[m] += s[m ^ bit];
            }
        }
    }
}

/// What a piece costs beyond its west masks (building its chunk tables), in west masks.
const PIECE_COST: u64 = 128;

/// Cuts the sorted east list into ranges, each then cut into pieces of 256, so that the
/// join visits as few west masks as it can.
///
/// The sorted list is a binary trie on the key bits (the first key bit splits it in two,
/// the next splits each half, ...). A node's masks can be one range, whose pieces all take
/// at least the key bits set on the path to the node; or each child can be laid out apart,
/// so the child whose next bit is set visits fewer west masks, at the price of pieces that
/// are not full. Cost of a range = its pieces × (west masks compatible with the path + a
/// piece's own cost); each node takes the cheaper choice, from the leaves up. This is never
/// worse than either extreme (one piece list per full key, as a plain bucket join does, or
/// one sorted list cut every 256 masks). Worked numbers, a mean set at n = 22: pairs
/// tested 1.86e9 with 6 key buckets of pieces of 512, 0.82e9 with this layout (16 key
/// bits, pieces of 256); 27 ms instead of 36 ms per set on one Xeon core.
fn layout(east_start: &[usize], k: usize, compatible: &[u64], out: &mut Vec<(usize, usize)>) {
    fn go(
        depth: usize,
        prefix: usize,
        k: usize,
        east_start: &[usize],
        compatible: &[u64],
        out: &mut Vec<(usize, usize)>,
    ) -> u64 {
        let shift = k - depth;
        let (lo, hi) = (
            east_start[prefix << shift],
            east_start[(prefix + 1) << shift],
        );
        if lo == hi {
            return 0;
        }
        let full = (1usize << k) - 1;
        let ones = prefix << shift; // the key bits set on the path
        let pieces = (hi - lo).div_ceil(64 * LANES) as u64;
        let whole = pieces * (compatible[full & !ones] + PIECE_COST);
        if depth == k || pieces == 0 {
            out.push((lo, hi));
            return whole;
        }
        let mark = out.len();
        let split = go(depth + 1, prefix << 1, k, east_start, compatible, out)
            + go(depth + 1, prefix << 1 | 1, k, east_start, compatible, out);
        if split < whole {
            split
        } else {
            out.truncate(mark);
            out.push((lo, hi));
            whole
        }
    }
    go(0, 0, k, east_start, compatible, out);
}

/// Which pieces of a join run: every piece, or one in `stride` from `offset` (see
/// [`Joiner::join_sampled`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Run piece i when i % stride == offset.
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

/// One piece of at most 256 east masks (64 × LANES), transposed, with its chunk tables.
#[derive(Debug, Default)]
struct Piece {
    /// Chunk tables: `tables[c][LANES·v + b]` is the OR of the slices of the bits of value
    /// v of chunk c, for block b ([`ChunkTable`]).
    tables: Vec<ChunkTable>,
    /// Valid east masks of each block.
    valid: Vec<u64>,
    /// Transposed slices: `slices[k * LANES + b]`.
    slices: Vec<u64>,
}

impl Piece {
    /// Transposes `east` (at most 256 masks) and builds its chunk tables.
    #[inline(always)]
    fn build(&mut self, east: &[u64], bits: u32, chunks: usize) {
        self.tables.clear();
        self.tables.resize(chunks, [0; TABLE_WORDS]);
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
            for v in 1..ENTRIES {
                let low = v.trailing_zeros() as usize; // the entry adds one slice
                let k = c * CHUNK as usize + low;
                let prev = *entry(table, v & (v - 1));
                for (b, word) in table[LANES * v..LANES * v + LANES].iter_mut().enumerate() {
                    *word = prev[b] | self.slices[k * LANES + b];
                }
            }
        }
    }
}

/// Sorts `items` into `out[..items.len()]` by `key` (counting sort), each item written as
/// `map` makes it; `start[b]..start[b + 1]` is bucket b.
#[allow(clippy::too_many_arguments)] // the buffers are the joiner's, lent for one sort
fn bucket_sort<T: Copy>(
    items: &[T],
    key: impl Fn(&T) -> usize,
    map: impl Fn(&T) -> T,
    buckets: usize,
    out: &mut Vec<T>,
    start: &mut Vec<usize>,
    next: &mut Vec<usize>,
    keys: &mut Vec<u16>,
) {
    keys.clear();
    keys.extend(items.iter().map(|x| key(x) as u16)); // each key computed once
    start.clear();
    start.resize(buckets + 1, 0);
    for &k in keys.iter() {
        start[usize::from(k) + 1] += 1;
    }
    for b in 0..buckets {
        start[b + 1] += start[b];
    }
    next.clear();
    next.extend_from_slice(&start[..buckets]);
    // `out` keeps its length from earlier sorts: only its growth is filled (with a copy of
    // the first item) before every place below `items.len()` is overwritten once. Filling
    // all of it each time (a copy of the input) was 5% of the time at n = 20.
    if out.len() < items.len() {
        out.resize(items.len(), items[0]);
    }
    for (x, &k) in items.iter().zip(keys.iter()) {
        let b = &mut next[usize::from(k)];
        out[*b] = map(x);
        *b += 1;
    }
}

/// A join's key: its diagonals, the most significant first, and how many of them move.
#[derive(Debug, Default)]
struct Key {
    /// Key bit i is diagonal `bits[i]`.
    bits: Vec<u32>,
    /// The first `moved` key bits move to the last chunk slots, key bits 6j..6j+6 to slot
    /// j of them, whatever their diagonals ([`BitOrder`]).
    moved: usize,
}

impl Key {
    /// A key of `bits`, moved where moving saves a table OR per west mask ([`moves`]).
    fn new(key: Vec<u32>, diagonals: u32) -> Key {
        let moved = moves(diagonals, key.len());
        Key { bits: key, moved }
    }
}

/// How many of the k key bits on masks of `bits` diagonals move ([`BitOrder`]): the whole
/// key where the other diagonals then need fewer chunks than all of them (a west mask
/// costs that many table ORs, and its bucket's key chunks are ORed once per bucket) and
/// the chunks fit 64 places; else its whole chunks of six, where those fit; else none.
/// Every west mask of a bucket has the bucket's key bits, so the key's chunks need no OR
/// per mask. Worked numbers: n = 24, 46 diagonals, a key of 16: 5 chunks of the other 30
/// and 3 key slots (6, 6 and 4 bits), 5 ORs per west mask instead of 8; n = 22, 42
/// diagonals and keys of 12-14 bits, 5 instead of 7; n = 31, 60 diagonals and a key of 16:
/// the whole key would take 8 + 3 chunks (66 places), so its first 12 bits move (8 + 2
/// chunks, 60 places: 8 ORs instead of 10); n = 32, 62 diagonals: 9 + 2 chunks, none.
fn moves(bits: u32, k: usize) -> usize {
    if k < MOVE_FROM {
        return 0;
    }
    let c = CHUNK as usize;
    let fits = |m: usize| {
        let (own, slots) = chunk_split(bits, m);
        own < chunk_split(bits, 0).0 && c * (own + slots) <= 64
    };
    [k, k / c * c].into_iter().find(|&m| fits(m)).unwrap_or(0)
}

/// The chunk tables of a piece whose masks have `bits` diagonals, the first `moved` key
/// bits of them moved ([`BitOrder`]): (chunks of the other diagonals, chunk slots of the
/// moved key bits). Worked numbers: (46, 16) -> (5, 3); (46, 0) -> (8, 0).
fn chunk_split(bits: u32, moved: usize) -> (usize, usize) {
    let c = CHUNK as usize;
    ((bits as usize - moved).div_ceil(c), moved.div_ceil(c))
}

/// Fewest key bits that move (see [`moves`]). Moving costs a table lookup per byte of
/// every mask of both lists; below 12 key bits (n <= 21) it did not pay: with every key
/// moved, count 18 -t 1 took 4.29-4.36 s against 3.52-3.66 s, and count 20 --shard 3/40
/// 3.90-3.98 s against 3.35-3.49 s (Intel Xeon model 167, alternating, 2026-12-02).
const MOVE_FROM: usize = 12;

/// How many of `masks` take each diagonal, into `f`.
fn diagonal_counts(masks: impl Iterator<Item = u64>, f: &mut [u64; 64]) {
    f.fill(0);
    for m in masks {
        let mut rest = m;
        while rest != 0 {
            f[rest.trailing_zeros() as usize] += 1;
            rest &= rest - 1;
        }
    }
}

/// Picks the key diagonals, in order, as many as leave about MIN_BUCKET / 4 east masks per
/// bucket. A key bit prunes the pairs where both masks have it, so below [`GREEDY_FROM`]
/// east masks (keys of at most 11 bits) diagonals are scored by the product of the two
/// lists' shares (from a sample of at most 256 masks per side); from there the key is
/// chosen level by level ([`greedy_key`]).
///
/// The key's diagonals then move to chunks of their own where that saves table ORs
/// ([`moves`]); moving changes where bits are, not which diagonals are key bits, so the
/// pairs tested are the same.
fn key_bits(east: &[u64], west: &[(u64, u32)], bits: u32) -> Key {
    let mut want = 0;
    if east.len() < KEY_FROM {
        return Key::default(); // sorting would cost more than it saves
    }
    while want < MAX_KEY_BITS && east.len() >> want >= MIN_BUCKET / 4 {
        want += 1;
    }
    if want == 0 {
        return Key::default();
    }
    if east.len() >= GREEDY_FROM {
        return Key::new(greedy_key(east, west, bits, want), bits);
    }
    let (mut fe, mut fw) = ([0u64; 64], [0u64; 64]);
    diagonal_counts(
        east.iter().step_by(east.len().div_ceil(256)).copied(),
        &mut fe,
    );
    diagonal_counts(
        west.iter()
            .step_by(west.len().div_ceil(256))
            .map(|&(w, _)| w),
        &mut fw,
    );
    let mut key: Vec<u32> = (0..bits).collect();
    key.sort_by_key(|&d| std::cmp::Reverse(fe[d as usize] * fw[d as usize]));
    key.truncate(want as usize);
    Key::new(key, bits)
}

/// East lists from which the key is chosen level by level ([`greedy_key`]): from n = 24
/// (n = 22 and 23 have few such sets; there it measured -2% pairs, the same time).
const GREEDY_FROM: usize = 1 << 17;

/// The key of a long join, chosen level by level on a sample (2,048 east and 512 west
/// masks): the sorted east list is a trie on the key bits, and a key bit prunes, in each
/// node, the pairs whose east mask is in the node, takes the bit, and meets a west mask
/// compatible with the node's path that takes it too. So level i takes the diagonal that
/// prunes most summed over the nodes the first i bits made (each sampled node's east
/// masks times its compatible west masks that take the diagonal), not the diagonal the
/// whole lists take most often: diagonals are correlated (a queen on one up-diagonal makes
/// its neighbours likelier), so the best second bit depends on the first. The key then
/// moves to chunk slots of its own ([`moves`], [`BitOrder`]). Measured (AMD EPYC Zen 3, one
/// thread): tested pairs -31% on shard 7411/20000 of n = 24 (34.0 s against 35.7 s, two
/// runs each) and -36% on 15093/20000 (37.4 s against 45.9 s); `estimate 26` 3.3 and 3.4
/// CPU-years against 3.1 and 3.1; same solutions unit by unit. The sample's cost (at most
/// 2,048 east masks per level, split among the nodes) is inside those times.
fn greedy_key(east: &[u64], west: &[(u64, u32)], bits: u32, want: u32) -> Vec<u32> {
    let es: Vec<u64> = east
        .iter()
        .step_by(east.len().div_ceil(2048))
        .copied()
        .collect();
    let ws: Vec<u64> = west
        .iter()
        .step_by(west.len().div_ceil(512))
        .map(|w| w.0)
        .collect();
    let mut key: Vec<u32> = Vec::new();
    let mut taken = 0u64;
    let mut nodes: Vec<(Vec<u64>, Vec<u64>)> = vec![(es, ws)];
    let (mut fe, mut fw) = ([0u64; 64], [0u64; 64]);
    for _ in 0..want {
        let mut score = [0u64; 64];
        for (e, w) in &nodes {
            diagonal_counts(e.iter().copied(), &mut fe);
            diagonal_counts(w.iter().copied(), &mut fw);
            for b in 0..64 {
                score[b] += fe[b] * fw[b];
            }
        }
        let Some(b) = (0..bits)
            .filter(|&b| taken >> b & 1 == 0)
            .max_by_key(|&b| (score[b as usize], std::cmp::Reverse(b)))
        else {
            break;
        };
        key.push(b);
        taken |= 1 << b;
        let bit = 1u64 << b;
        let mut next = Vec::with_capacity(nodes.len() * 2);
        for (e, w) in nodes {
            let (e1, e0): (Vec<u64>, Vec<u64>) = e.iter().partition(|&&x| x & bit != 0);
            if !e1.is_empty() {
                let w0: Vec<u64> = w.iter().copied().filter(|&x| x & bit == 0).collect();
                next.push((e1, w0));
            }
            if !e0.is_empty() {
                next.push((e0, w));
            }
        }
        nodes = next;
    }
    key
}

/// Moves the key bits into the last chunk slots, key bit 6j + t at bit 5 - t of slot
/// `own + j` (a last key slot of r < 6 bits leaves its low 6 - r places empty), and every
/// other diagonal, in order, into the first places, so that a piece's tables for the key
/// are its last ones and a west bucket ORs them once; the key's chunks are any diagonals.
/// A mask moves by one table lookup per byte.
struct BitOrder {
    place: [u8; 64],
    tables: Vec<(u32, [u64; 256])>,
}

impl BitOrder {
    fn new(bits: u32, key: &[u32]) -> BitOrder {
        let moved = key.len();
        let (own, slots) = chunk_split(bits, moved);
        assert!(
            CHUNK as usize * (own + slots) <= 64,
            "moved key past 64 bits"
        );
        let mut place = [u8::MAX; 64];
        for (i, &d) in key.iter().enumerate() {
            let (j, t) = (i / CHUNK as usize, i % CHUNK as usize);
            place[d as usize] = (CHUNK as usize * (own + j) + CHUNK as usize - 1 - t) as u8;
        }
        let mut next = 0u8;
        for p in place.iter_mut().take(bits as usize) {
            if *p == u8::MAX {
                *p = next;
                next += 1;
            }
        }
        let tables = (0..bits.div_ceil(8))
            .map(|byte| {
                let mut t = [0u64; 256];
                for (v, entry) in t.iter_mut().enumerate() {
                    for b in 0..8 {
                        let d = 8 * byte as usize + b;
                        if v >> b & 1 == 1 && d < bits as usize {
                            *entry |= 1 << place[d];
                        }
                    }
                }
                (byte, t)
            })
            .collect();
        BitOrder { place, tables }
    }

    #[inline(always)]
    fn apply(&self, m: u64) -> u64 {
        self.tables.iter().fold(0, |out, (byte, t)| {
            out | t[(m >> (8 * byte)) as usize & 255]
        })
    }
}

/// One chunk table of a piece: for each value v of the chunk's 6 diagonal bits, the OR of
/// the slices of its set bits, per block, at words `LANES·v..LANES·v + LANES` ([`entry`]).
/// The last LANES words are padding: a spread west mask's byte b (at most 255, see
/// [`spread`]) reads words b..b + LANES, which the compiler then knows are in the table.
type ChunkTable = [u64; TABLE_WORDS];
/// Words of a [`ChunkTable`].
const TABLE_WORDS: usize = ENTRIES * LANES + LANES;

/// The entry of value `v` (below [`ENTRIES`]) of a chunk table.
#[inline(always)]
fn entry(table: &ChunkTable, v: usize) -> &[u64; LANES] {
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
/// most that many are spread, so every join whose key moved ([`moves`]; n <= 31) and the
/// unmoved ones of at most 48 diagonals (n <= 25).
#[inline(always)]
fn spread(m: u64) -> u64 {
    (0..SPREAD_CHUNKS).fold(0, |out, c| {
        out | (((m >> (CHUNK as usize * c)) & CHUNK_MASK) * LANES as u64) << (8 * c)
    })
}

/// Chunks a spread west mask holds: one byte each.
const SPREAD_CHUNKS: usize = 8;

/// Calls `$f::<C, SPREAD>$args` for the `$chunks` and `$spread` given: 0..=11 chunks (64
/// bits / 6), spread masks up to [`SPREAD_CHUNKS`].
macro_rules! pick_west_loop {
    ($f:ident, $chunks:expr, $spread:expr, $args:tt) => {
        pick_west_loop!(@ $f, $chunks, $spread, $args; 0 1 2 3 4 5 6 7 8 9 10 11; 0 1 2 3 4 5 6 7 8)
    };
    (@ $f:ident, $chunks:expr, $spread:expr, $args:tt; $($c:literal)*; $($s:literal)*) => {
        match ($chunks, $spread) {
            $(($c, false) => $f::<$c, false> $args,)*
            $(($s, true) => $f::<$s, true> $args,)*
            _ => unreachable!("masks have at most 64 bits: 11 chunks, 8 spread"),
        }
    };
}

/// [`count_west`] for `chunks` chunk tables (0..=11: 64 bits / 6; 0 when every diagonal
/// is a moved key bit), the west masks spread ([`spread`], at most 8 chunks) or not, with
/// AVX-512 popcounts where `avx512` ([`Isa::runs_avx512_popcount`]). A fixed chunk count
/// lets the compiler unroll the chunk loop and drop its bounds checks (the value index is
/// masked to 0..64 and the table array has exactly C entries): 25% of the join's time at
/// n = 18. A match rather than a function pointer, so that each copy is inlined into the
/// caller's instruction set ([`isa`]); it runs once per piece and west bucket.
#[inline(always)]
fn count_west_any(
    chunks: usize,
    spread: bool,
    avx512: bool,
    tables: &[ChunkTable],
    valid: &[u64; LANES],
    ws: &[(u64, u32)],
    base: &[u64; LANES],
) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if avx512 {
        // SAFETY: `avx512` is Isa::runs_avx512_popcount(), true only where
        // is_x86_feature_detected! found every feature count_west_avx512_any is compiled
        // with (isa::avx512_popcount_fn).
        #[allow(unsafe_code)]
        return unsafe { count_west_avx512_any(chunks, spread, tables, valid, ws, base) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = avx512; // no AVX-512 copy elsewhere
    pick_west_loop!(count_west, chunks, spread, (tables, valid, ws, base))
}

/// Σ over west masks w of weight(w) · (east masks of the piece that share no bit with w).
///
/// ```text
/// for each west mask w:
///     clash[0..LANES] = base | OR over chunks c of table[c][(w >> 6c) & 63]
///     pairs += weight(w) · Σ_b popcount(valid[b] & !clash[b])
/// ```
#[inline(always)]
fn count_west<const C: usize, const SPREAD: bool>(
    tables: &[ChunkTable],
    valid: &[u64; LANES],
    ws: &[(u64, u32)],
    base: &[u64; LANES],
) -> u64 {
    let tables: &[ChunkTable; C] = tables.try_into().expect("one table per chunk");
    // Per-lane sums, added up once at the end: no horizontal sum per west mask.
    let mut pairs = [0u64; LANES];
    for &(w, weight) in ws {
        let clash = clash::<C, SPREAD>(tables, w, base);
        for ((p, x), v) in pairs.iter_mut().zip(&clash).zip(valid) {
            *p += u64::from(weight) * u64::from((v & !x).count_ones());
        }
    }
    pairs.iter().sum()
}

isa::avx512_popcount_fn! {
    /// [`count_west_any`]'s AVX-512 half: the same choice of copy, each compiled with the
    /// AVX-512 features (a call between functions of the same features needs no `unsafe`).
    fn count_west_avx512_any(
        chunks: usize,
        spread: bool,
        tables: &[ChunkTable],
        valid: &[u64; LANES],
        ws: &[(u64, u32)],
        base: &[u64; LANES],
    ) -> u64 {
        pick_west_loop!(count_west_avx512, chunks, spread, (tables, valid, ws, base))
    }
}

isa::avx512_popcount_fn! {
    /// [`count_west`] with the popcounts of a west mask's 256 pairs in one AVX-512
    /// `vpopcntq` (on 256-bit registers, AVX-512VL) instead of AVX2's nibble tables: about
    /// six instructions fewer per west mask. Measured (Intel Xeon model 167, 1 thread,
    /// alternating): shard 7411/20000 of n = 24 14.00 / 13.95 -> 12.07 / 12.31 s (-13%),
    /// same solutions and tested pairs. Written with intrinsics rather than by compiling
    /// the join for AVX-512: with those features LLVM turned the loop's table lookups into
    /// gathers, and the join ran 40% slower.
    fn count_west_avx512<const C: usize, const SPREAD: bool>(
        tables: &[ChunkTable],
        valid: &[u64; LANES],
        ws: &[(u64, u32)],
        base: &[u64; LANES],
    ) -> u64 {
        use std::arch::x86_64::{
            _mm256_add_epi64, _mm256_andnot_si256, _mm256_extract_epi64, _mm256_mul_epu32,
            _mm256_popcnt_epi64, _mm256_set1_epi64x, _mm256_set_epi64x, _mm256_setzero_si256,
        };
        let tables: &[ChunkTable; C] = tables.try_into().expect("one table per chunk");
        // Four words as one 256-bit register (the compiler keeps them there).
        let lanes = |x: &[u64; LANES]| {
            let [a, b, c, d] = x.map(|w| w as i64);
            _mm256_set_epi64x(d, c, b, a)
        };
        let valid = lanes(valid);
        let mut pairs = _mm256_setzero_si256();
        for &(w, weight) in ws {
            let clash = lanes(&clash::<C, SPREAD>(tables, w, base));
            let free = _mm256_popcnt_epi64(_mm256_andnot_si256(clash, valid));
            let weight = _mm256_set1_epi64x(i64::from(weight));
            // Each lane's count is below 2^7 and a weight below 2^32: the low 32 bits
            // multiply exactly.
            pairs = _mm256_add_epi64(pairs, _mm256_mul_epu32(free, weight));
        }
        [
            _mm256_extract_epi64::<0>(pairs),
            _mm256_extract_epi64::<1>(pairs),
            _mm256_extract_epi64::<2>(pairs),
            _mm256_extract_epi64::<3>(pairs),
        ]
        .iter()
        .map(|&p| p as u64)
        .sum()
    }
}

/// The east masks of the piece that clash with west mask `w`, per block: `base` ORed with
/// each chunk's table entry for w's value in that chunk (with `SPREAD`, w is [`spread`]:
/// chunk c's entry starts at the word byte c gives, so no shift and mask per chunk).
#[inline(always)]
fn clash<const C: usize, const SPREAD: bool>(
    tables: &[ChunkTable; C],
    w: u64,
    base: &[u64; LANES],
) -> [u64; LANES] {
    let mut clash = *base;
    for (c, table) in tables.iter().enumerate() {
        let entry: &[u64; LANES] = if SPREAD {
            let at = usize::from((w >> (8 * c)) as u8);
            table[at..at + LANES].try_into().expect("padded")
        } else {
            entry(table, ((w >> (CHUNK as usize * c)) & CHUNK_MASK) as usize)
        };
        for (x, e) in clash.iter_mut().zip(entry) {
            *x |= e;
        }
    }
    clash
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
    fn a_kept_join_runs_the_pieces_a_sampled_join_runs() {
        // One sort, then several samples of its pieces (`nqueens estimate`): each sample
        // gives what a fresh sampled join of the same lists gives, for lists that are
        // sorted (8,000 east masks), in one bucket (600) and joined pair by pair (20).
        let mut kept = Joiner::default();
        for &(seed, ne, nw, bits) in &[(21, 8000, 6000, 40), (22, 600, 900, 30), (23, 20, 50, 20)] {
            let east = masks(seed, ne, bits, 25);
            let west: Vec<(u64, u32)> = masks(seed + 100, nw, bits, 25)
                .into_iter()
                .enumerate()
                .map(|(i, w)| (w, [1, 2, 4][i % 3]))
                .collect();
            let pieces = kept.keep(&east, &west, bits);
            let whole = Joiner::default().join(&east, &west, bits);
            assert_eq!(pieces, whole.pieces, "seed {seed}");
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
                let fresh = Joiner::default().join_sampled(&east, &west, bits, sample);
                assert_eq!(kept.join_kept(&east, &west, sample), fresh, "seed {seed}");
            }
            assert_eq!(
                kept.join_kept(&east, &west, Sample::ALL).pairs,
                join_naive(&east, &west)
            );
        }
    }

    #[test]
    fn keys_of_whole_chunks_move_the_chunks_and_keep_the_count() {
        // East lists of 70,000 masks take keys of 11 bits, which do not move (MOVE_FROM);
        // from GREEDY_FROM east masks the key is chosen level by level, has 12 bits and
        // moves (`BitOrder`), but not at 62 diagonals (no room). Forced keys of every
        // length are in `every_key_length_and_width_joins_as_the_pair_loop`.
        let mut joiner = Joiner::default();
        for &(seed, ne, nw, bits, density, moved) in &[
            (31, 70_000, 400, 46, 25, false),
            (32, 70_000, 300, 60, 20, false),
            (33, 70_000, 300, 62, 20, false),
            (34, 140_000, 200, 33, 30, true),
            (35, 140_000, 150, 46, 25, true),
            (36, 140_000, 100, 62, 20, false),
        ] {
            let east = masks(seed, ne, bits, density);
            let west: Vec<(u64, u32)> = masks(seed + 100, nw, bits, density)
                .into_iter()
                .enumerate()
                .map(|(i, w)| (w, [1, 2, 4][i % 3]))
                .collect();
            let key = key_bits(&east, &west, bits);
            assert!(
                key.bits.len() >= 10,
                "seed {seed}: key of {}",
                key.bits.len()
            );
            assert_eq!(key.moved > 0, moved, "seed {seed}: {key:?}");
            let want = join_naive(&east, &west);
            assert_eq!(joiner.join(&east, &west, bits).pairs, want, "seed {seed}");
            let pieces = joiner.keep(&east, &west, bits);
            let sample = Sample {
                stride: 3,
                offset: 2,
            };
            assert_eq!(
                joiner.join_kept(&east, &west, sample),
                Joiner::default().join_sampled(&east, &west, bits, sample),
                "seed {seed}"
            );
            assert!(pieces > 100, "seed {seed}");
        }
    }

    #[test]
    fn moves_the_whole_key_or_its_whole_chunks_where_they_fit() {
        assert_eq!(moves(46, 16), 16); // n = 24: 5 own chunks + 3 slots
        assert_eq!(moves(42, 13), 13); // n = 22
        assert_eq!(moves(46, 11), 0); // below MOVE_FROM
        assert_eq!(moves(60, 12), 12); // 8 + 2 chunks
        assert_eq!(moves(60, 16), 12); // 8 + 3 chunks do not fit: the first two chunks
        assert_eq!(moves(56, 13), 12);
        assert_eq!(moves(62, 16), 0); // 9 + 2 chunks: 66 places
        assert_eq!(moves(14, 14), 14); // no own chunk left
        assert_eq!(moves(48, 12), 12);
    }

    #[test]
    fn every_key_length_and_width_joins_as_the_pair_loop() {
        // Forced keys of 12-16 bits (moved whole, with a padded last slot, or in whole
        // chunks only, or not at all) on masks of 12-62 diagonals, spread (up to 8 own
        // chunks) or not, through `join` and `keep` / `join_kept`.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for &bits in &[12u32, 14, 24, 33, 46, 47, 48, 56, 58, 60, 62] {
            for k in 12..=16usize.min(bits as usize) {
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
                let west: Vec<(u64, u32)> = masks(seed + 1, 400, bits, density)
                    .into_iter()
                    .enumerate()
                    .map(|(i, w)| (w, [1, 2, 4][i % 3]))
                    .collect();
                let mut joiner = Joiner {
                    forced_key: Some(key),
                    ..Joiner::default()
                };
                let want = join_naive(&east, &west);
                assert!(want > 0, "bits {bits}, k {k}: choose a lower density");
                let got = joiner.join(&east, &west, bits);
                assert_eq!(got.pairs, want, "bits {bits}, k {k}");
                assert_eq!(got.pieces, got.pieces_run);
                joiner.keep(&east, &west, bits);
                let a = joiner.kept.expect("kept");
                assert_eq!(a.moved, moves(bits, k), "bits {bits}, k {k}");
                assert_eq!(a.spread, chunk_split(bits, a.moved).0 <= SPREAD_CHUNKS);
                let kept = joiner.join_kept(&east, &west, Sample::ALL);
                assert_eq!(kept.pairs, want, "kept: bits {bits}, k {k}");
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx512_west_loop_counts_as_the_avx2_one() {
        if !Isa::X86_64V3.runs_avx512_popcount() {
            eprintln!("skipped: this CPU has no AVX-512 VPOPCNTDQ (the loop never runs here)");
            return;
        }
        for chunks in 0..=11usize {
            let bits = (6 * chunks as u32).min(62);
            let east = masks(chunks as u64 + 7, 200, bits, 10);
            let west: Vec<(u64, u32)> = masks(chunks as u64 + 70, 500, bits, 10)
                .into_iter()
                .enumerate()
                .map(|(i, w)| (w, [1, 2, 4, 8][i % 4]))
                .collect();
            let mut piece = Piece::default();
            piece.build(&east, bits, chunks);
            let valid: &[u64; LANES] = piece.valid[..LANES].try_into().unwrap();
            let base = [0x0F0F, 0, 1 << 63, 0];
            for spread_it in [false, true] {
                if spread_it && chunks > SPREAD_CHUNKS {
                    continue;
                }
                let ws: Vec<(u64, u32)> = west
                    .iter()
                    .map(|&(w, x)| (if spread_it { spread(w) } else { w }, x))
                    .collect();
                let args = (chunks, spread_it, &piece.tables[..], valid, &ws[..], &base);
                let avx2 = count_west_any(args.0, args.1, false, args.2, args.3, args.4, args.5);
                let avx512 = count_west_any(args.0, args.1, true, args.2, args.3, args.4, args.5);
                assert_eq!(avx512, avx2, "{chunks} chunks, spread {spread_it}");
                assert!(avx2 > 0, "{chunks} chunks: choose a lower density");
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
    fn bit_order_moves_key_chunks_last_and_every_diagonal_has_one_place() {
        // 46 diagonals, a key of 16 any diagonals: key bits 6j..6j+6 at slot 5 + j, the
        // first of each at the slot's top bit, the last slot's 4 bits at its bits 5..2; the
        // other 30 diagonals fill bits 0..30, in order.
        let key = [9, 12, 13, 10, 15, 14, 8, 7, 17, 18, 36, 16, 35, 19, 6, 38];
        let order = BitOrder::new(46, &key);
        assert_eq!(chunk_split(46, key.len()), (5, 3));
        assert_eq!(chunk_split(46, 0), (8, 0));
        assert_eq!(order.place[9], 35); // key bit 0: slot 5, bit 5
        assert_eq!(order.place[14], 30); // key bit 5: slot 5, bit 0
        assert_eq!(order.place[8], 41); // key bit 6: slot 6, bit 5
        assert_eq!(order.place[16], 36); // key bit 11: slot 6, bit 0
        assert_eq!(order.place[35], 47); // key bit 12: slot 7, bit 5
        assert_eq!(order.place[38], 44); // key bit 15: slot 7, bit 2
        assert_eq!(order.place[0], 0);
        assert_eq!(order.place[11], 6); // after 0..=5 (places 0..6); 6..=10 are key bits
        assert_eq!(order.place[45], 29); // the last of the other 30
        let places: std::collections::BTreeSet<u8> = order.place[..46].iter().copied().collect();
        assert_eq!(places.len(), 46, "one place per diagonal");
        assert!(places.iter().all(|&p| p < 48 && !(42..44).contains(&p)));
        for d in 0..46 {
            assert_eq!(order.apply(1 << d), 1 << order.place[d], "diagonal {d}");
        }
        let m = 0x2AAA_AAAA_AAAAu64 & ((1 << 46) - 1);
        assert_eq!(order.apply(m).count_ones(), m.count_ones());
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
