//! Where a join's masks go: both lists sorted into key buckets ([`sort_lists`], with
//! `pext` where it is fast: [`sort_pext`]), the west masks each piece may meet counted per
//! set of key bits ([`subset_sums`]), and the sorted east list cut into the ranges its
//! pieces are cut from ([`layout`]).

#[cfg(target_arch = "x86_64")]
use super::key::{BitOrder, Key, PextKeys};
use super::west::{Packed, CLASSES};
use super::LANES;
use crate::engine::isa;

/// Turns west bucket sizes into `s[m]` = the west masks in buckets v ⊆ m (the subset sums,
/// or zeta transform, over k key bits: k · 2^k additions), so that the west masks a piece
/// must visit, those whose key bits avoid the piece's `common` bits, are `s[!common]`.
pub(super) fn subset_sums(s: &mut [u64], k: usize) {
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
pub(super) fn layout(
    east_start: &[usize],
    k: usize,
    compatible: &[u64],
    out: &mut Vec<(usize, usize)>,
) {
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

/// A bucket number as [`bucket_sort`] keeps it between its passes: u16 where a join has
/// at most 2^16 buckets (keys of up to 16 bits: every join but the longest of n >= 26),
/// u32 past that (see `key::WIDE_FROM`), so that the narrower keys keep the bytes the key
/// pass writes, and the histogram and scatter read, as they were.
pub(super) trait SortKey: Copy {
    /// The stored form of bucket `key` (below the join's bucket count).
    fn new(key: usize) -> Self;
    /// The bucket.
    fn get(self) -> usize;
}

impl SortKey for u16 {
    #[inline(always)]
    fn new(key: usize) -> u16 {
        key as u16
    }
    #[inline(always)]
    fn get(self) -> usize {
        usize::from(self)
    }
}

impl SortKey for u32 {
    #[inline(always)]
    fn new(key: usize) -> u32 {
        key as u32
    }
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }
}

/// Sorts `items` into `out[..items.len()]` by `key` (counting sort), each item written as
/// `map` makes it; `start[b]..start[b + 1]` is bucket b.
///
/// Where its time went with the byte tables (`perf record`, `count 25 --shard
/// 123456/200000 -t 1`, Zen 4, 2026-12-03, where this function was 19.6% of the CPU; its
/// copy for the east list, 88% of its samples): the keys 22%, the histogram 6%, and the
/// scatter 72%, about half of that `map` (the key's move, a byte-table lookup per byte of
/// the mask, see `key::BitOrder`) and the rest the store and the increment of `next`. The
/// keys and the move are what [`sort_pext`] makes cheaper. Tried and not kept, the same
/// evening:
/// - *Two passes*, by the key's top bits (at most 256 places written at once) and then
///   each top bucket through a spill buffer by its low byte, so that no store lands in one
///   of 65,536 places far apart. Timed alone (16-byte items, 2^16 uniform or clustered
///   keys, buffers warm, ns an item one pass -> two): 0.5 million items 6.0 -> 6.8 and 7.0
///   -> 9.4; 2 million 9.6 -> 10.7 and 10.2 -> 11.1; 16 million 10.8 -> 10.5 and 13.6 ->
///   10.8; 60 million 20.7 -> 15.6 and 14.3 -> 12.3. So it pays only past about 16 million
///   items (n = 28's lists, where the sort is 5% of a count), and there the sort phase of
///   the same sampled sets of `estimate 28` measured 1.018 and 0.996 of the one-pass time
///   (not traced; the page faults of growing buffers, which that timing includes on the
///   KVM machine, are the likely reason). At n = 25 this function's share stayed 19.6% ->
///   19.9%.
/// - *Inlined into the join's x86-64-v3 twin* (`#[inline(always)]`): no gain. At n = 25
///   (one `perf record` each) the join driver with the sort inlined took 2.57 times the
///   west loop's samples, against 2.17 for the driver and this function apart; paired,
///   `count 25 --shard 123456/200000 -t 1` 1.105, 1.040, 0.996, 0.984. (Since
///   [`sort_pext`] it is inlined there anyway, which measured no loss either.)
///
/// - *The two halves of the list counted and placed side by side*, each with counters of
///   its own (2026-12-04, Zen 4): the scatter's increment held 31% of `sort_pext`'s
///   samples at n = 23, as if each waited for the store of the one before into the same
///   bucket. `count 23 --shard 1234/2000 -t 1`, both builds at once, cores swapped: 0.988
///   and 0.997; the samples stayed on the increments, so the wait is the scattered stores'
///   cache misses (the store before the increment), not the chain.
/// - *Runs of equal keys followed in a register* in both passes (the count and the place
///   written back to memory only when the key changes), 2026-12-04 late, with n = 23's
///   sparse joins at 9-bit keys (256-512 buckets, in cache): `count 23 --shard 1234/2000
///   -t 1` 1.06 and 1.08 of the CPU. The runs are short there, and the branch mispredicts.
/// - *`next` as u32* (2026-12-06, Intel Xeon model 167, paired): half the bytes of the
///   scatter's most used array; `count 22 --shard 77/200 -t 1` 1.007, 0.999, 1.001,
///   `count 23 --shard 1234/2000 -t 1` 1.011, 1.005.
/// - *Four items a step, their cursors all read before any is written back* (an item's
///   place its cursor plus the items of the group before it with the same key; the count
///   likewise), so that a run of equal keys waits for one store-to-load forward a group
///   instead of one an item (2026-12-06, AMD EPYC Zen 3, where `perf` of that n = 23 shard
///   put 27% of `sort_pext`'s samples on the east scatter's increment; same lists bit for
///   bit): `count 23 --shard 1234/2000 -t 1` 0.977, 1.020, 0.955, 0.992, 1.001 (and one
///   round of 1.17 while the host was slow), `count 22 --shard 77/200 -t 1` 0.998, 1.011.
///   No gain: as on Zen 4 the wait is the stores' misses, not the chain.
///
/// It is `#[inline(always)]` so that [`sort_pext`] has a copy with `pext` inlined; the
/// byte-table sort ([`sort_lists`] as the join calls it) is inlined into the join's
/// twins with it.
#[allow(clippy::too_many_arguments)] // the buffers are the joiner's, lent for one sort
#[inline(always)]
pub(super) fn bucket_sort<T: Copy, U: Copy, K: SortKey>(
    items: &[T],
    key: impl Fn(&T) -> usize,
    map: impl Fn(&T) -> U,
    buckets: usize,
    out: &mut Vec<U>,
    start: &mut Vec<usize>,
    next: &mut Vec<usize>,
    keys: &mut Vec<K>,
) {
    keys.clear();
    keys.extend(items.iter().map(|x| K::new(key(x)))); // each key computed once
    start.clear();
    start.resize(buckets + 1, 0);
    count_keys(keys, start);
    for b in 0..buckets {
        start[b + 1] += start[b];
    }
    next.clear();
    next.extend_from_slice(&start[..buckets]);
    // `out` keeps its length from earlier sorts: only its growth is filled (with a copy of
    // the first item) before every place below `items.len()` is overwritten once. Filling
    // all of it each time (a copy of the input) was 5% of the time at n = 20.
    if out.len() < items.len() {
        out.resize(items.len(), map(&items[0]));
    }
    scatter(
        items,
        keys,
        map,
        &mut out[..items.len()],
        &mut next[..buckets],
    );
}

/// The count of [`bucket_sort`]: `start[k + 1]` raised by one for each key k. On a slice
/// for the reason [`scatter`] is: on the `Vec` the loop reloaded its pointer and length
/// after each increment (10 instructions an item in [`sort_pext`]'s copies, 7 on the
/// slice).
#[inline(always)]
fn count_keys<K: SortKey>(keys: &[K], start: &mut [usize]) {
    for &k in keys {
        start[k.get() + 1] += 1;
    }
}

/// The scatter of [`bucket_sort`]: each item, mapped, to the next free place of its bucket.
/// A function of its own so that `out` and `next` are slices the compiler knows apart
/// (`&mut` arguments): written inline on the `Vec`s, the loop reloaded both `Vec`s' pointer
/// and length, and the `pext` masks, after every store (27 instructions an item in the
/// east copy of [`sort_pext`] at n = 23; 23 on the slices).
#[inline(always)]
fn scatter<T, U, K: SortKey>(
    items: &[T],
    keys: &[K],
    map: impl Fn(&T) -> U,
    out: &mut [U],
    next: &mut [usize],
) {
    for (x, &k) in items.iter().zip(keys) {
        let b = &mut next[k.get()];
        out[*b] = map(x);
        *b += 1;
    }
}

/// What a join's sort makes: `buckets` buckets; the west masks spread
/// ([`spread`](super::west::spread)) or not, and packed with these weight classes
/// ([`Packed`]) or kept as (mask, weight).
pub(super) struct Sorting {
    pub(super) buckets: usize,
    pub(super) spread: bool,
    pub(super) classes: Option<[u32; CLASSES]>,
}

/// The joiner's buffers, lent to one sort of both lists (see [`bucket_sort`]).
pub(super) struct SortBuffers<'a> {
    pub(super) east: &'a mut Vec<u64>,
    pub(super) east_start: &'a mut Vec<usize>,
    pub(super) west: &'a mut Vec<(u64, u32)>,
    pub(super) packed: &'a mut Vec<Packed>,
    pub(super) west_start: &'a mut Vec<usize>,
    pub(super) next: &'a mut Vec<usize>,
    pub(super) keys: &'a mut Vec<u16>,
    pub(super) wide_keys: &'a mut Vec<u32>,
}

/// Sorts both lists of a join into `into` by `key`, each mask moved by `apply` (the key
/// bits to their chunk slots, see [`BitOrder`]) and, for the west list as `how` says, spread
/// by `spread` and packed. The three functions are a mask's bit shuffles, by byte tables
/// (`KeyTable`, `BitOrder::apply`, `west::spread`) or by `pext` ([`sort_pext`]).
#[inline(always)]
pub(super) fn sort_lists(
    east: &[u64],
    west: &[(u64, u32)],
    key: impl Fn(u64) -> usize,
    apply: impl Fn(u64) -> u64,
    spread: impl Fn(u64) -> u64,
    how: &Sorting,
    into: SortBuffers,
) {
    // One copy of the sorts per width of the stored keys (see [`SortKey`]).
    macro_rules! sort_with {
        ($keys:expr) => {{
            let buckets = how.buckets;
            bucket_sort(
                east,
                |&e| key(e),
                |&e| apply(e),
                buckets,
                into.east,
                into.east_start,
                into.next,
                $keys,
            );
            match how.classes {
                Some(classes) => {
                    let class = |weight: u32| {
                        classes
                            .iter()
                            .position(|&c| c == weight)
                            .expect("every weight has its class")
                    };
                    bucket_sort(
                        west,
                        |w| key(w.0),
                        |&(w, weight)| Packed::new(spread(apply(w)), class(weight)),
                        buckets,
                        into.packed,
                        into.west_start,
                        into.next,
                        $keys,
                    );
                }
                None => bucket_sort(
                    west,
                    |w| key(w.0),
                    |&(w, weight)| {
                        let w = apply(w);
                        (if how.spread { spread(w) } else { w }, weight)
                    },
                    buckets,
                    into.west,
                    into.west_start,
                    into.next,
                    $keys,
                ),
            }
        }};
    }
    if how.buckets > 1 << 16 {
        sort_with!(into.wide_keys)
    } else {
        sort_with!(into.keys)
    }
}

/// The bytes [`spread`](super::west::spread) puts a mask's chunks in: the low 6 bits of each.
#[cfg(target_arch = "x86_64")]
const SPREAD_DEPOSIT: u64 = 0x3F3F_3F3F_3F3F_3F3F;
const _: () = assert!(
    LANES == 4 && super::CHUNK == 6,
    "sort_pext spreads by << 2 into 6-bit bytes"
);

isa::v3_fn! {
    /// [`sort_lists`] with the bit shuffles done by BMI2's `pext` and `pdep` instead of
    /// byte tables ([`PextKeys`]), for CPUs where they are fast
    /// ([`Isa::fast_pext`](crate::engine::isa::Isa::fast_pext)): a mask's key is one `pext`
    /// and two lookups (the byte tables: one per byte of the mask that holds key bits, six
    /// at n = 22); its move two `pext`s and two lookups (up to seven); its spread one `pdep`
    /// of the mask's 48 low bits into the low 6 bits of each byte, times LANES (a shift by 2:
    /// chunk values below 64 times 4 stay below 256), where the tables took eight shifts,
    /// masks and multiplies. Same sorted lists, bit for bit.
    ///
    /// Measured (AMD EPYC Zen 4, 2026-12-04, user + system CPU of the whole command, the
    /// build before and this one alternated, `-t 2`, median of the pairs' ratios):
    /// `count 25 --shard 123456/200000` 0.932 (4 pairs; 6 more the day before, 0.915),
    /// `count 24 --shard 4114/20000` 0.944 (3), `count 23 --shard 1234/2000` 0.933 (3),
    /// `count 26 --shard 162680/420000` 0.965 (5 pairs, 0.88-1.12), `count 20` 0.965 (3).
    /// `perf record` of the n = 25 shard (`-t 1`): the sort 20.7% of the CPU before, 13.4%
    /// now, half of it the scatter's stores and increments. The sort phase of `estimate
    /// 28`'s sampled sets (seeds 1 and 2, the same units both ways): 3.78 -> 2.21 and 3.55
    /// -> 2.55 projected CPU-years; at n = 28 the sort is 2-3% of a count.
    pub(super) fn sort_pext(
        east: &[u64],
        west: &[(u64, u32)],
        key: &Key,
        order: Option<&BitOrder>,
        bits: u32,
        how: &Sorting,
        into: SortBuffers,
    ) {
        use std::arch::x86_64::{_pdep_u64, _pext_u64};
        // Keys of up to 16 bits (all but the longest joins) look up two byte tables, wider
        // ones three.
        macro_rules! sort_with {
            ($tables:literal) => {{
                let p = PextKeys::<$tables>::new(&key.bits, key.moved, bits, order);
                sort_lists(
                    east,
                    west,
                    |m| p.key(_pext_u64(m, p.key_mask)),
                    |m| _pext_u64(m, p.rest_mask) | p.moved(_pext_u64(m, p.moved_mask)),
                    |m| _pdep_u64(m, SPREAD_DEPOSIT) << 2,
                    how,
                    into,
                )
            }};
        }
        if key.bits.len() <= 16 {
            sort_with!(2)
        } else {
            sort_with!(3)
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::engine::isa::Isa;
    use crate::engine::quadrant::join::key::{chunk_split, moves, KeyTable, MAX_KEY_BITS};
    use crate::engine::quadrant::join::west::{spread, WestEntry};
    use crate::engine::rng::SplitMix64;

    /// The joiner's buffers, one set per sort compared.
    #[derive(Default, Debug, PartialEq)]
    struct Buffers {
        east: Vec<u64>,
        east_start: Vec<usize>,
        west: Vec<(u64, u32)>,
        packed: Vec<u64>,
        west_start: Vec<usize>,
    }

    fn sort_into(out: &mut Buffers, sort: impl FnOnce(SortBuffers)) {
        let (mut packed, mut next, mut keys, mut wide_keys) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        sort(SortBuffers {
            east: &mut out.east,
            east_start: &mut out.east_start,
            west: &mut out.west,
            packed: &mut packed,
            west_start: &mut out.west_start,
            next: &mut next,
            keys: &mut keys,
            wide_keys: &mut wide_keys,
        });
        out.packed = packed.iter().map(|&p| p.mask()).collect();
    }

    /// The bucket sort is the stable sort by key, and each bucket's start is where its
    /// keys begin: lists of 0 to 1,001 items, keys in runs (as the half searches emit
    /// them) or scattered, in 1 to 4,096 buckets, with both widths of stored keys, the
    /// buffers reused from sort to sort.
    #[test]
    fn bucket_sort_is_the_stable_sort_by_key() {
        /// Sorts (key, position) items by key, with keys stored as K.
        fn sort_by<K: SortKey>(
            items: &[(usize, usize)],
            buckets: usize,
            (out, start, next): (&mut Vec<(usize, usize)>, &mut Vec<usize>, &mut Vec<usize>),
            keys: &mut Vec<K>,
        ) {
            bucket_sort(items, |x| x.0, |x| *x, buckets, out, start, next, keys);
        }
        let mut rng = SplitMix64::new(151);
        let (mut out, mut start, mut next, mut keys, mut wide) = (
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::<u16>::new(),
            Vec::<u32>::new(),
        );
        for len in [0usize, 1, 2, 3, 4, 255, 256, 1000, 1001] {
            for buckets in [1usize, 2, 7, 4096] {
                for runs in [false, true] {
                    // (key, position) items: the position tells the order within a bucket.
                    let mut key = 0;
                    let items: Vec<(usize, usize)> = (0..len)
                        .map(|i| {
                            if !runs || rng.below(8) == 0 {
                                key = rng.below(buckets as u64) as usize;
                            }
                            (key, i)
                        })
                        .collect();
                    let mut want = items.clone();
                    want.sort_by_key(|x| x.0); // stable
                    for wide_keys in [false, true] {
                        if wide_keys {
                            sort_by(
                                &items,
                                buckets,
                                (&mut out, &mut start, &mut next),
                                &mut wide,
                            );
                        } else {
                            sort_by(
                                &items,
                                buckets,
                                (&mut out, &mut start, &mut next),
                                &mut keys,
                            );
                        }
                        assert_eq!(&out[..len], &want[..], "{len} items, {buckets} buckets");
                        assert_eq!(start.len(), buckets + 1);
                        for (b, &at) in start[..buckets].iter().enumerate() {
                            let first = want.iter().position(|x| x.0 >= b).unwrap_or(len);
                            assert_eq!(at, first, "bucket {b} of {buckets}, {len} items");
                        }
                        assert_eq!(start[buckets], len);
                    }
                }
            }
        }
    }

    /// `sort_pext` sorts as `sort_lists` does with the shuffles written bit by bit (the
    /// key bit i of a mask is its diagonal `key[i]`, at bit k - 1 - i; a moved mask has
    /// each diagonal d at `order.place[d]`; a spread one chunk c of 6 bits, times LANES, in
    /// byte c): random keys of 12 to 18 diagonals (two byte tables or three) of masks of 12 to 62, moved as the join
    /// moves them, with and without spreading and packing. Skipped where the CPU's `pext`
    /// is not fast (the join never runs it there).
    #[test]
    fn sort_pext_sorts_as_the_bit_by_bit_shuffles_do() {
        if Isa::X86_64V3.fast_pext().is_none() {
            eprintln!("skipped: this CPU has no fast pext (or no x86-64-v3)");
            return;
        }
        let mut rng = SplitMix64::new(28);
        for case in 0..60 {
            let bits = 12 + rng.below(51) as u32;
            let k = (12 + rng.below(u64::from(MAX_KEY_BITS) - 11) as usize).min(bits as usize);
            assert!(k <= MAX_KEY_BITS as usize);
            let mut diagonals: Vec<u32> = (0..bits).collect();
            for i in 0..k {
                let j = i + rng.below(u64::from(bits) - i as u64) as usize;
                diagonals.swap(i, j);
            }
            let key = Key::new(diagonals[..k].to_vec(), bits);
            assert_eq!(key.moved, moves(bits, k));
            let order = (key.moved > 0).then(|| BitOrder::new(bits, &key.bits[..key.moved]));
            let all = u64::MAX >> (64 - bits);
            let mut list = |len: usize| -> Vec<u64> {
                (0..len)
                    .map(|_| rng.next_u64() & rng.next_u64() & all)
                    .collect()
            };
            let east = list(3000);
            let west: Vec<(u64, u32)> = list(2000)
                .into_iter()
                .zip([1, 2, 4].into_iter().cycle())
                .collect();
            let own = chunk_split(bits, key.moved).0;
            let how = Sorting {
                buckets: 1 << k,
                spread: own <= 8 && case % 3 != 0,
                classes: (own <= 7 && case % 3 == 1).then_some([1, 2, 4, 0]),
            };
            let naive_key = |m: u64| {
                (0..k)
                    .filter(|&i| m >> key.bits[i] & 1 == 1)
                    .fold(0usize, |acc, i| acc | 1 << (k - 1 - i))
            };
            let naive_apply = |m: u64| match &order {
                None => m,
                Some(o) => (0..bits)
                    .filter(|&d| m >> d & 1 == 1)
                    .fold(0u64, |acc, d| acc | 1 << o.place[d as usize]),
            };
            let naive_spread = |m: u64| {
                (0..8).fold(0u64, |acc, c| {
                    acc | ((m >> (6 * c) & 63) * LANES as u64) << (8 * c)
                })
            };
            let mut want = Buffers::default();
            sort_into(&mut want, |into| {
                sort_lists(
                    &east,
                    &west,
                    naive_key,
                    naive_apply,
                    naive_spread,
                    &how,
                    into,
                )
            });
            let mut tables = Buffers::default();
            let mut buf = Vec::new();
            let keys_by_byte = KeyTable::new(&key.bits, &mut buf);
            let by_byte = order.as_ref().map(BitOrder::byte_tables);
            let apply = |m: u64| by_byte.as_ref().map_or(m, |o| o.apply(m));
            sort_into(&mut tables, |into| {
                sort_lists(
                    &east,
                    &west,
                    |m| keys_by_byte.key(m),
                    apply,
                    spread,
                    &how,
                    into,
                )
            });
            assert_eq!(tables, want, "case {case}: the byte tables");
            let mut pext = Buffers::default();
            sort_into(&mut pext, |into| {
                let order = order.as_ref();
                isa::dispatch!(
                    Isa::X86_64V3.fast_pext() => sort_pext(&east, &west, &key, order, bits, &how, into);
                    else unreachable!("checked above")
                )
            });
            assert_eq!(pext, want, "case {case}: bits {bits}, {key:?}");
        }
    }
}
