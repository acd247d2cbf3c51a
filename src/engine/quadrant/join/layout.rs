//! Where a join's masks go: both lists sorted into key buckets ([`bucket_sort`]), the west
//! masks each piece may meet counted per set of key bits ([`subset_sums`]), and the sorted
//! east list cut into the ranges its pieces are cut from ([`layout`]).

use super::LANES;

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

/// Sorts `items` into `out[..items.len()]` by `key` (counting sort), each item written as
/// `map` makes it; `start[b]..start[b + 1]` is bucket b.
///
/// Where its time goes (`perf record`, `count 25 --shard 123456/200000 -t 1`, Zen 4,
/// 2026-12-03, where this function is 19.6% of the CPU; its copy for the east list, 88%
/// of its samples): the keys 22%, the histogram 6%, and the scatter 72%, about half of
/// that `map` (the key's move, a byte-table lookup per
/// byte of the mask, see `key::BitOrder`) and the rest the store and the increment of
/// `next`. Tried and not kept, the same evening:
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
///   `count 25 --shard 123456/200000 -t 1` 1.105, 1.040, 0.996, 0.984. It stays baseline
///   code (see `isa`).
#[allow(clippy::too_many_arguments)] // the buffers are the joiner's, lent for one sort
pub(super) fn bucket_sort<T: Copy, U: Copy>(
    items: &[T],
    key: impl Fn(&T) -> usize,
    map: impl Fn(&T) -> U,
    buckets: usize,
    out: &mut Vec<U>,
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
        out.resize(items.len(), map(&items[0]));
    }
    for (x, &k) in items.iter().zip(keys.iter()) {
        let b = &mut next[usize::from(k)];
        out[*b] = map(x);
        *b += 1;
    }
}
