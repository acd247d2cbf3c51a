//! The join's key: which diagonals the lists are sorted by ([`key_bits`], level by level for
//! long lists in [`greedy_key`]), how a mask's key is read a byte at a time ([`KeyTable`]),
//! and where the key bits move so that a west bucket ORs their chunk tables once
//! ([`moves`], [`chunk_split`], [`BitOrder`]).

use super::{CHUNK, LANES};

/// Largest key: 2^18 west buckets (and trie levels of the east list, see
/// [`layout`](super::layout::layout)). Keys pass [`WIDE_FROM`] bits only for the longest
/// lists (n = 28).
pub(super) const MAX_KEY_BITS: u32 = 18;
/// Key bits past which a bucket must keep [`WIDE_BUCKET`] east masks rather than a quarter
/// of [`MIN_BUCKET`].
const WIDE_FROM: u32 = 16;
/// East masks a bucket keeps on average for each key bit past [`WIDE_FROM`]. Why wider
/// keys only there: a bit past 16 halves the buckets again, and the counting sort then
/// scatters into 2^17 or 2^18 places; at n = 26 (east lists of about 4 million masks, 64
/// a bucket at 16 bits) 18-bit keys made the sampled joins 25% slower (2026-12-03), while
/// at n = 28 (3.3e7 east masks a set, 500 a bucket at 16 bits) they tested 23% fewer pairs
/// and the joins ran 8-14% faster. Worked numbers: 3.3e7 >> 17 = 251 and >> 18 = 125, so
/// a mean n = 28 set takes 18 bits; 4.2e6 >> 16 = 64, so n = 26 stays at 16.
const WIDE_BUCKET: usize = 128;
/// A piece's masks: the key stops where the east buckets would average a quarter of this
/// (deeper levels could not fill a piece, so [`layout`](super::layout::layout) would not
/// use them).
///
/// A quarter of a piece (64 east masks a bucket) measured best again at n = 24 (2026-12-04,
/// Zen 4, `count 24 --shard 4114/20000 -t 1`, one build with the target set from the
/// environment, both runs at once, one per core, swapped): 32 a bucket (one more key bit)
/// 1.05 of the CPU (4 rounds, 1.03-1.10), 16 a bucket 1.13 (2 rounds), 128 a bucket 0.996
/// (4 rounds, 0.95-1.00: noise). Again on an Intel Xeon model 167 (2026-12-06, after
/// `join::Submasks`, paired): 32 a bucket, `count 24 --shard K/20000 -t 1` K = 9428 0.982,
/// 0.990, K = 17776 1.033, 1.045, K = 473 1.075, 1.062; 128, K = 9428 1.063, 1.066.
const MIN_BUCKET: usize = 64 * LANES;
/// West masks a bucket keeps on average in a *sparse* join, one whose west list is shorter
/// than its east list (odd boards' frames: a set of n = 23 joins about 74,000 east masks
/// with 13,000 west ones): the key stops before its buckets would average fewer. With the
/// east rule alone (64 east masks a bucket) a mean set of n = 23, 25 and 27 took 11, 14
/// and 16 key bits and its west buckets held about 6, 6 and 10 masks, so a piece paid a
/// step of its bucket walk for every few masks it tested (n = 23: 23 ps a tested pair,
/// against 11-12 on even boards). With this rule they take 9, 12 and 15 bits (about 25,
/// 23 and 20 west masks a bucket). More pairs are tested (n = 27: 36-37 a solution instead of 30-31),
/// each far more cheaply. Even boards' sparse sets (a few at n = 26 and 28, with millions
/// of west masks) keep their keys of 16-18 bits within a bit.
///
/// Measured (2026-12-04, Zen 4, both builds at once, one per core, swapped; CPU of the
/// whole command), first as 256 east masks a bucket in sparse joins, which gives the same
/// keys for the mean odd set: against the build before, `count 23 --shard 1234/2000 -t 1`
/// 0.82 and 0.82 (128 east masks a bucket: 0.92; 1,024: 4.5% slower than 256), `count 25
/// --shard 123456/200000 -t 1` 0.76 and 0.77 (512: 1.02 of 256), `count 21 --shard 37/100
/// -t 1` 0.89 and 0.87, `count 19 -t 1` 0.91 and 0.92, `estimate 27 -t 1` seeds 1 and 2
/// 0.84 and 0.87 (0.63 -> 0.53 ns a solution; 512: 0.96 of 256, one seed). That form also
/// cut the keys of n = 28's sparse sets to 14 bits (`estimate 28 -t 1` seed 1: 1.08 of the
/// CPU, 3% more pairs tested), hence the rule by west masks; this form: see CHANGELOG.md.
/// Dense joins keep the east rule: at n = 22 (`count 22 --shard 77/200`) 256 east masks a
/// bucket measured 1.00 and 0.99, 128 0.99 and 0.94, and at n = 24 see [`MIN_BUCKET`].
/// Again (Intel Xeon model 167, 2026-12-06, paired): 64 instead, `count 23 --shard
/// 1234/2000 -t 1` 0.98-1.00 but `count 25 --shard 123456/200000 -t 1` 1.036, 1.030; 16 and
/// 128, n = 23 1.02-1.05.
const SPARSE_WEST: usize = 32;

/// Shorter east lists are joined unsorted: at n = 16 (a few hundred east masks per set)
/// the sort and the key cost more than they save (measured).
const KEY_FROM: usize = 1024;

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
pub(super) struct KeyTable<'a> {
    /// (byte index, the key bits of each value of that byte).
    pub(super) parts: &'a [(u32, [u32; 256])],
}

impl<'a> KeyTable<'a> {
    pub(super) fn new(key: &[u32], buf: &'a mut Vec<(u32, [u32; 256])>) -> KeyTable<'a> {
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
            let mut part = [0u32; 256];
            for (v, entry) in part.iter_mut().enumerate() {
                *entry = mine
                    .iter()
                    .filter(|&&(_, bit)| v >> bit & 1 == 1)
                    .fold(0u32, |acc, &(place, _)| acc | 1 << place);
            }
            buf.push((byte, part));
        }
        KeyTable { parts: buf }
    }

    #[inline(always)]
    pub(super) fn key(&self, m: u64) -> usize {
        self.parts.iter().fold(0usize, |acc, (byte, part)| {
            acc | part[(m >> (8 * byte)) as usize & 255] as usize
        })
    }
}

/// A join's key: its diagonals, the most significant first, and how many of them move.
#[derive(Debug, Default)]
pub(super) struct Key {
    /// Key bit i is diagonal `bits[i]`.
    pub(super) bits: Vec<u32>,
    /// The first `moved` key bits move to the last chunk slots, key bits 6j..6j+6 to slot
    /// j of them, whatever their diagonals ([`BitOrder`]).
    pub(super) moved: usize,
}

impl Key {
    /// A key of `bits`, moved where moving saves a table OR per west mask ([`moves`]).
    pub(super) fn new(key: Vec<u32>, diagonals: u32) -> Key {
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
pub(super) fn moves(bits: u32, k: usize) -> usize {
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
pub(super) fn chunk_split(bits: u32, moved: usize) -> (usize, usize) {
    let c = CHUNK as usize;
    ((bits as usize - moved).div_ceil(c), moved.div_ceil(c))
}

/// Fewest key bits that move (see [`moves`]). Moving costs a table lookup per byte of
/// every mask of both lists; below 12 key bits (n <= 21) it did not pay: with every key
/// moved, count 18 -t 1 took 4.29-4.36 s against 3.52-3.66 s, and count 20 --shard 3/40
/// 3.90-3.98 s against 3.35-3.49 s (Intel Xeon model 167, alternating, 2026-12-02).
const MOVE_FROM: usize = 12;

/// How many of `masks` take each diagonal, into `f`.
///
/// Counted 64 diagonals at once in byte counters: byte j of `acc[i]` counts diagonal 8j +
/// i, so a mask adds `(m >> i) & 0x0101..01` to each of the eight words (worked: m = 0b110
/// adds 1 to byte 0 of `acc[1]` and of `acc[2]`), and the bytes are added to `f` every 255
/// masks, before one can overflow. That is 24 branch-free word operations a mask, against
/// one increment of `f` (a chain through memory) and one mispredicted loop exit per set bit:
/// the key choice took 5% of `count 23 --shard 1234/2000` that way (`perf`).
fn diagonal_counts(masks: impl Iterator<Item = u64>, f: &mut [u64; 64]) {
    const LOW_BITS: u64 = 0x0101_0101_0101_0101;
    f.fill(0);
    let mut acc = [0u64; 8];
    let flush = |acc: &mut [u64; 8], f: &mut [u64; 64]| {
        for (i, a) in acc.iter_mut().enumerate() {
            for j in 0..8 {
                f[8 * j + i] += *a >> (8 * j) & 0xFF;
            }
            *a = 0;
        }
    };
    let mut pending = 0;
    for m in masks {
        for (i, a) in acc.iter_mut().enumerate() {
            *a += (m >> i) & LOW_BITS;
        }
        pending += 1;
        if pending == 255 {
            flush(&mut acc, f);
            pending = 0;
        }
    }
    flush(&mut acc, f);
}

/// Picks the key diagonals, in order, as many as leave about MIN_BUCKET / 4 east masks per
/// bucket, and where the west list is the shorter, as leave about [`SPARSE_WEST`] west
/// masks per bucket, whichever is fewer. A key bit prunes the pairs where both masks have it, so below [`GREEDY_FROM`]
/// east masks (keys of at most 11 bits) diagonals are scored by the product of the two
/// lists' shares (from a sample of at most 256 masks per side); from there the key is
/// chosen level by level ([`greedy_key`]).
///
/// The key's diagonals then move to chunks of their own where that saves table ORs
/// ([`moves`]); moving changes where bits are, not which diagonals are key bits, so the
/// pairs tested are the same.
pub(super) fn key_bits(east: &[u64], west: &[(u64, u32)], bits: u32, trie: &mut Trie) -> Key {
    let mut want = 0;
    if east.len() < KEY_FROM {
        return Key::default(); // sorting would cost more than it saves
    }
    // The lengths' half of the join's sparse rule (`is_sparse`): a shorter west list takes
    // the shorter key even where its long buckets then get grouped (`SPARSE_BELOW`).
    let sparse = west.len() < east.len();
    let per_bucket = |bits: u32| {
        if bits < WIDE_FROM {
            MIN_BUCKET / 4
        } else {
            WIDE_BUCKET
        }
    };
    while want < MAX_KEY_BITS
        && east.len() >> want >= per_bucket(want)
        && (!sparse || west.len() >> want >= SPARSE_WEST)
    {
        want += 1;
    }
    if want == 0 {
        return Key::default();
    }
    if east.len() >= GREEDY_FROM {
        return Key::new(greedy_key(east, west, bits, want, trie), bits);
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
/// (n = 22 and 23 have few such sets; there it measured -2% pairs, the same time). Again
/// (Intel Xeon model 167, 2026-12-06, paired): 2^15, `count 23 --shard 1234/2000 -t 1`
/// 1.099, 1.104 (n = 22 and 24 0.993-0.999); 2^19, `count 24 --shard 9428/20000 -t 1`
/// 1.010, 1.015.
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
///
/// How it is computed: a node's compatible west masks are a list of its own, so each node
/// carries that list's diagonal counts; a node whose east masks lack the new bit keeps its
/// parent's list and counts as they are, and only a node whose masks take it gets a new,
/// filtered list (appended to one buffer) and counts it once. The east sample is
/// partitioned in place, node by node. Before (2026-12-05) every node's two lists were
/// new `Vec`s and both were counted again at every level: with up to 2,048 nodes a level
/// that was thousands of allocations a set, and the key choice took about 5% of `count 22
/// --shard 77/200` (`perf`: the key 2.4%, the counts 1.5%, malloc and free 2-3%). The
/// key is the same (test `the_greedy_key_is_the_node_by_node_one`). Measured (Intel Xeon
/// model 167, both builds at once, one per core, swapped; the same pairs unit by unit),
/// against the build before with its chunk tables aligned too (see `west::ChunkTable`):
/// `count 24 --shard 473/20000 -t 1` 0.995 and 0.985; against the build before as it was,
/// `count 22 --shard 77/200 -t 1` 0.960, 0.963, 0.964 and `count 23 --shard 1234/2000 -t 1`
/// 0.938, 0.925, of which the alignment alone gave 0.993 and 0.954, 0.947.
pub(super) fn greedy_key(
    east: &[u64],
    west: &[(u64, u32)],
    bits: u32,
    want: u32,
    trie: &mut Trie,
) -> Vec<u32> {
    let Trie {
        es,
        ws,
        nodes,
        next,
    } = trie;
    es.clear();
    es.extend(east.iter().step_by(east.len().div_ceil(2048)).copied());
    ws.clear();
    ws.extend(west.iter().step_by(west.len().div_ceil(512)).map(|w| w.0));
    nodes.clear();
    nodes.push(Node::new(0..es.len(), 0..ws.len(), ws));
    let mut key: Vec<u32> = Vec::new();
    let mut taken = 0u64;
    let mut fe = [0u64; 64];
    for _ in 0..want {
        let mut score = [0u64; 64];
        for node in nodes.iter() {
            let e = &es[node.e.clone()];
            if e.len() <= FEW {
                // A few masks: their bits one by one, not 64 counters filled and flushed.
                for &m in e {
                    let mut m = m;
                    while m != 0 {
                        let b = m.trailing_zeros() as usize;
                        score[b] += u64::from(node.counts[b]);
                        m &= m - 1;
                    }
                }
            } else {
                diagonal_counts(e.iter().copied(), &mut fe);
                for b in 0..64 {
                    score[b] += fe[b] * u64::from(node.counts[b]);
                }
            }
        }
        let Some(b) = best_bit(&score, bits, taken) else {
            break;
        };
        key.push(b);
        taken |= 1 << b;
        let bit = 1u64 << b;
        next.clear();
        for node in nodes.iter() {
            // The node's east masks that take the bit first, the others after.
            let e = &mut es[node.e.clone()];
            let mut ones = 0;
            for i in 0..e.len() {
                if e[i] & bit != 0 {
                    e.swap(i, ones);
                    ones += 1;
                }
            }
            let (lo, hi) = (node.e.start, node.e.end);
            if ones > 0 {
                let from = ws.len();
                for i in node.w.clone() {
                    let w = ws[i];
                    if w & bit == 0 {
                        ws.push(w);
                    }
                }
                // A node with no compatible west mask scores nothing, nor do its children:
                // it is left out.
                if ws.len() > from {
                    next.push(Node::new(lo..lo + ones, from..ws.len(), ws));
                }
            }
            if lo + ones < hi {
                next.push(Node {
                    e: lo + ones..hi,
                    ..node.clone()
                });
            }
        }
        std::mem::swap(nodes, next);
    }
    key
}

/// The diagonal below `bits` not yet `taken` with the highest score (ties: the lowest).
fn best_bit(score: &[u64; 64], bits: u32, taken: u64) -> Option<u32> {
    (0..bits)
        .filter(|&b| taken >> b & 1 == 0)
        .max_by_key(|&b| (score[b as usize], std::cmp::Reverse(b)))
}

/// The buffers of [`greedy_key`], kept by the joiner from set to set, so that a set's key
/// choice allocates nothing once they have grown (the west lists the trie appends reach
/// MBs at n = 24).
#[derive(Debug, Default)]
pub(super) struct Trie {
    /// The sampled east masks, partitioned in place node by node.
    es: Vec<u64>,
    /// The sampled west masks, then every filtered list the trie made, end to end.
    ws: Vec<u64>,
    /// This level's nodes and the next level's.
    nodes: Vec<Node>,
    next: Vec<Node>,
}

/// A node of [`greedy_key`]'s trie: its sampled east masks `es[e]`, its compatible west
/// masks `ws[w]` and their diagonal counts (at most 512 masks: u16).
#[derive(Clone, Debug)]
struct Node {
    e: std::ops::Range<usize>,
    w: std::ops::Range<usize>,
    counts: [u16; 64],
}

impl Node {
    fn new(e: std::ops::Range<usize>, w: std::ops::Range<usize>, ws: &[u64]) -> Node {
        let mut wide = [0u64; 64];
        diagonal_counts(ws[w.clone()].iter().copied(), &mut wide);
        Node {
            e,
            w,
            counts: wide.map(|c| c as u16),
        }
    }
}

/// Nodes of at most this many sampled east masks add their bits to the score one by one
/// ([`greedy_key`]).
const FEW: usize = 8;

/// Moves the key bits into the last chunk slots, key bit 6j + t at bit 5 - t of slot
/// `own + j` (a last key slot of r < 6 bits leaves its low 6 - r places empty), and every
/// other diagonal, in order, into the first places, so that a piece's tables for the key
/// are its last ones and a west bucket ORs them once; the key's chunks are any diagonals.
/// A mask moves by `pext` ([`PextKeys`]) or by one table lookup per byte ([`ByteMove`]).
pub(super) struct BitOrder {
    /// Where each diagonal goes.
    pub(super) place: [u8; 64],
    bits: u32,
}

impl BitOrder {
    pub(super) fn new(bits: u32, key: &[u32]) -> BitOrder {
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
        BitOrder { place, bits }
    }

    /// The move's byte tables, for the sort without fast `pext`: up to 8 tables of 256
    /// words (16 KiB), made only where that sort runs (a join of n = 19 lasts about as
    /// long as making them a few times).
    pub(super) fn byte_tables(&self) -> ByteMove {
        let bits = self.bits;
        let tables = (0..bits.div_ceil(8))
            .map(|byte| {
                let mut t = [0u64; 256];
                for (v, entry) in t.iter_mut().enumerate() {
                    for b in 0..8 {
                        let d = 8 * byte as usize + b;
                        if v >> b & 1 == 1 && d < bits as usize {
                            *entry |= 1 << self.place[d];
                        }
                    }
                }
                (byte, t)
            })
            .collect();
        ByteMove { tables }
    }
}

/// A [`BitOrder`]'s move by one table lookup per byte of the mask.
pub(super) struct ByteMove {
    tables: Vec<(u32, [u64; 256])>,
}

impl ByteMove {
    #[inline(always)]
    pub(super) fn apply(&self, m: u64) -> u64 {
        self.tables.iter().fold(0, |out, (byte, t)| {
            out | t[(m >> (8 * byte)) as usize & 255]
        })
    }
}

/// A mask's key and its move ([`KeyTable`] and [`BitOrder`] of the same key) by BMI2's
/// `pext`, for CPUs where it is fast ([`Isa::fast_pext`](crate::engine::isa::Isa::fast_pext)):
/// `pext(m, mask)` gathers the bits of `m` under `mask` into the low bits, in order, in
/// three cycles whatever the mask. The diagonals that do not move keep their order, so
/// `pext(m, rest_mask)` is already their part of the move; the key bits (at most
/// [`MAX_KEY_BITS`], gathered the same way) are then put in key order, and the moved ones in
/// their chunk slots, by `T` lookups in tables of 256 entries indexed by the gathered bits
/// (a byte each: `T` = 2 for keys of up to 16 bits, 3 for wider ones), where the byte
/// tables take one lookup per byte of the mask that holds key bits (up to 8 for the move).
///
/// Worked example, masks of 20 diagonals and the key diagonals 9, 3, 5 (key bits 2, 1, 0:
/// the first is the most significant), all of them moved. `key_mask` is bits 3, 5 and 9;
/// for a mask with diagonals 3 and 9, `pext` gives 0b101 (diagonal 3 is the lowest bit
/// gathered, 9 the highest) and `key[0][0b101]` is key bits 1 and 2, 0b110. `rest_mask`
/// is the other 17 diagonals: `pext` puts 0, 1, 2 at places 0, 1, 2, then 4 at 3, 6 at 4,
/// ..., 19 at 16, as [`BitOrder`] does; `moved[0][0b101]` holds the places it gives
/// diagonals 3 and 9 (22 and 23: key bits 1 and 0 of the slot at 18..24).
#[cfg(target_arch = "x86_64")]
pub(super) struct PextKeys<const T: usize> {
    /// The key's diagonals.
    pub(super) key_mask: u64,
    /// The key bits of the gathered key diagonals, by each byte of them, lowest first.
    key: [[u32; 256]; T],
    /// The moved key diagonals (none where the key does not move).
    pub(super) moved_mask: u64,
    /// The diagonals that keep their order (every bit where nothing moves, so that `pext`
    /// returns the mask as it is).
    pub(super) rest_mask: u64,
    /// The places of the gathered moved diagonals, by each byte of them, lowest first.
    moved: [[u64; 256]; T],
}

#[cfg(target_arch = "x86_64")]
impl<const T: usize> PextKeys<T> {
    /// The key `key` on masks of `bits` diagonals, its first `moved` bits moved where
    /// `order` (made of them, see [`BitOrder::new`]) puts them; `order` is None where none move.
    ///
    /// # Panics
    /// If the key has more than `8 T` or [`MAX_KEY_BITS`] bits.
    pub(super) fn new(
        key: &[u32],
        moved: usize,
        bits: u32,
        order: Option<&BitOrder>,
    ) -> PextKeys<T> {
        assert!(
            key.len() <= (MAX_KEY_BITS as usize).min(8 * T),
            "a key of {} bits in {T} byte tables",
            key.len()
        );
        let k = key.len();
        let mask_of = |ds: &[u32]| ds.iter().fold(0u64, |m, &d| m | 1 << d);
        let key_mask = mask_of(key);
        let position = |d: u32| key.iter().position(|&x| x == d).expect("a key diagonal");
        let key_of = gathered::<T>(key_mask, |d| 1 << (k - 1 - position(d)));
        let (moved_mask, rest_mask, moved) = match order {
            Some(o) => {
                let moved_mask = mask_of(&key[..moved]);
                let all = u64::MAX >> (64 - bits);
                let places = gathered::<T>(moved_mask, |d| 1 << o.place[d as usize]);
                (moved_mask, all & !moved_mask, places)
            }
            None => (0, u64::MAX, [[0; 256]; T]),
        };
        PextKeys {
            key_mask,
            // Key bits are below 2^MAX_KEY_BITS.
            key: key_of.map(|t| t.map(|x| x as u32)),
            moved_mask,
            rest_mask,
            moved,
        }
    }

    /// The key of a mask gathered by `pext(m, key_mask)`.
    #[inline(always)]
    pub(super) fn key(&self, gathered: u64) -> usize {
        let mut key = 0;
        for (h, table) in self.key.iter().enumerate() {
            key |= table[(gathered >> (8 * h)) as usize & 255];
        }
        key as usize
    }

    /// The moved key bits of a mask gathered by `pext(m, moved_mask)`, in their places.
    #[inline(always)]
    pub(super) fn moved(&self, gathered: u64) -> u64 {
        let mut out = 0;
        for (h, table) in self.moved.iter().enumerate() {
            out |= table[(gathered >> (8 * h)) as usize & 255];
        }
        out
    }
}

/// The `T` tables of [`PextKeys`] for the diagonals of `mask` (at most 8 `T`), gathered
/// in increasing order: entry v of table h is the OR of `place(d)` over the gathered bits
/// j set in v (bits 8h..8h+8 of the gathered value), d the j-th lowest diagonal of `mask`.
#[cfg(target_arch = "x86_64")]
fn gathered<const T: usize>(mask: u64, place: impl Fn(u32) -> u64) -> [[u64; 256]; T] {
    let diagonals: Vec<u32> = (0..64).filter(|&d| mask >> d & 1 == 1).collect();
    assert!(
        diagonals.len() <= 8 * T,
        "{} diagonals gathered in {T} tables",
        diagonals.len()
    );
    let mut out = [[0u64; 256]; T];
    for (h, table) in out.iter_mut().enumerate() {
        for (v, entry) in table.iter_mut().enumerate() {
            for (j, &d) in diagonals.iter().enumerate().skip(8 * h).take(8) {
                if v >> (j - 8 * h) & 1 == 1 {
                    *entry |= place(d);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::SplitMix64;

    /// [`greedy_key`] as it was before 2026-12-05 (two new lists a node and level, both
    /// counted again): the oracle of the one kept.
    fn greedy_key_by_vecs(east: &[u64], west: &[(u64, u32)], bits: u32, want: u32) -> Vec<u32> {
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
            let Some(b) = best_bit(&score, bits, taken) else {
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

    /// The level-by-level key is the same whichever way its nodes are kept: lists of 0 to
    /// 5,000 masks (every sample size, and nodes from one mask to hundreds), bits on with
    /// probabilities from 5% to 60% and correlated between neighbouring diagonals (as a
    /// queen on one diagonal makes its neighbours likelier), keys of 1 to 18 bits.
    #[test]
    fn the_greedy_key_is_the_node_by_node_one() {
        let mut rng = SplitMix64::new(20_261_205);
        // One trie for every case, as a joiner keeps it from set to set.
        let mut trie = Trie::default();
        for case in 0..120 {
            let bits = 20 + rng.below(43) as u32;
            let all = u64::MAX >> (64 - bits);
            let density = 1 + rng.below(4);
            let mask = |rng: &mut SplitMix64| {
                let mut m = rng.next_u64();
                for _ in 0..density {
                    m &= rng.next_u64() | rng.next_u64() << 1;
                }
                m & all
            };
            let lens = [0usize, 1, 7, 300, 2048, 5000];
            let (ne, nw) = (lens[case % 6], lens[(case / 6) % 6]);
            let east: Vec<u64> = (0..ne).map(|_| mask(&mut rng)).collect();
            let west: Vec<(u64, u32)> = (0..nw).map(|_| (mask(&mut rng), 1)).collect();
            let want = 1 + rng.below(18) as u32;
            if east.is_empty() || west.is_empty() {
                continue; // the join never keys an empty list
            }
            assert_eq!(
                greedy_key(&east, &west, bits, want, &mut trie),
                greedy_key_by_vecs(&east, &west, bits, want),
                "case {case}: {ne} east, {nw} west, {bits} bits, {want} wanted"
            );
        }
    }

    /// The byte counters agree with counting bit by bit, across the flushes every 255
    /// masks (lists of 0 to 1,000 masks, dense and sparse, the top diagonal included).
    #[test]
    fn diagonal_counts_are_the_bit_by_bit_counts() {
        let mut rng = SplitMix64::new(136);
        for len in [0, 1, 254, 255, 256, 510, 511, 1000] {
            for dense in [false, true] {
                let masks: Vec<u64> = (0..len)
                    .map(|_| {
                        let m = rng.next_u64();
                        if dense {
                            m | 1 << 63
                        } else {
                            m & rng.next_u64() & rng.next_u64()
                        }
                    })
                    .collect();
                let mut want = [0u64; 64];
                for &m in &masks {
                    for (d, w) in want.iter_mut().enumerate() {
                        *w += m >> d & 1;
                    }
                }
                let mut got = [7u64; 64]; // overwritten, not added to
                diagonal_counts(masks.iter().copied(), &mut got);
                assert_eq!(got, want, "{len} masks, dense {dense}");
            }
        }
    }

    /// The key's length follows the lists: 64 east masks a bucket in a dense join; in a
    /// sparse one (the west list the shorter) also at least SPARSE_WEST west masks a bucket.
    /// Worked numbers, a mean set of n = 23 (74,000 east and 13,000 west masks, 44
    /// diagonals): 74,000 >> 10 = 72 east masks a bucket, so 11 bits with a west list as
    /// long; 13,000 >> 8 = 50 west masks a bucket and >> 9 = 25, so 9 bits with its own.
    #[test]
    fn sparse_joins_stop_the_key_where_the_west_buckets_would_thin_out() {
        let mut rng = SplitMix64::new(23);
        let mut list = |len: usize| -> Vec<u64> {
            (0..len)
                .map(|_| rng.next_u64() & rng.next_u64() & ((1 << 44) - 1))
                .collect()
        };
        let east = list(74_000);
        let weighted = |masks: Vec<u64>| masks.into_iter().map(|m| (m, 1)).collect::<Vec<_>>();
        let dense = weighted(list(74_000));
        let sparse = weighted(list(13_000));
        assert_eq!(
            key_bits(&east, &dense, 44, &mut Trie::default()).bits.len(),
            11
        );
        assert_eq!(
            key_bits(&east, &sparse, 44, &mut Trie::default())
                .bits
                .len(),
            9
        );
        // A west list one mask shorter than the east list is sparse, and at these
        // lengths its west buckets stop the key no earlier than the east rule does.
        let almost = weighted(list(73_999));
        assert_eq!(
            key_bits(&east, &almost, 44, &mut Trie::default())
                .bits
                .len(),
            11
        );
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
    fn bit_order_moves_key_chunks_last_and_every_diagonal_has_one_place() {
        // 46 diagonals, a key of 16 any diagonals: key bits 6j..6j+6 at slot 5 + j, the
        // first of each at the slot's top bit, the last slot's 4 bits at its bits 5..2; the
        // other 30 diagonals fill bits 0..30, in order.
        let key = [9, 12, 13, 10, 15, 14, 8, 7, 17, 18, 36, 16, 35, 19, 6, 38];
        let order = BitOrder::new(46, &key);
        let by_byte = order.byte_tables();
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
            assert_eq!(by_byte.apply(1 << d), 1 << order.place[d], "diagonal {d}");
        }
        let m = 0x2AAA_AAAA_AAAAu64 & ((1 << 46) - 1);
        assert_eq!(by_byte.apply(m).count_ones(), m.count_ones());
    }
}
