//! Counting one set E of a frame: both halves' pattern lists (`half`), weighted by the
//! frame's symmetry rule, then the join of disjoint pairs (`join`); a set whose lists would
//! not fit [`LIST_BUDGET`] is counted in parts. Also the hooks `nqueens estimate` times a
//! set with (its halves, its join's fixed part and a sample of its pieces, apart).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::half::{Half, HalfScratch, HalfStats, MaskList, Part};
use super::join::{self, Joiner};
use super::table::QuadrantTable;
use super::{units, Frame, Rule};
use crate::engine::{Isa, NEVER};

/// Bytes of pattern lists one set E may hold at once (east and west lists with the join's
/// sorted copies); a set that would pass it is counted in parts ([`Frame::parts`]). 1 GiB:
/// no set below n = 26 comes near it (the largest at n = 24 hold about 200 MB), and a
/// thread of n = 28 stays near it instead of the 12 GB or more one whole set needs.
pub const LIST_BUDGET: u64 = 1 << 30;

/// Bytes per east pattern while its set is joined: the list and its sorted copy.
const EAST_BYTES: f64 = 16.0;
/// Bytes per west pattern: its mask as found, the weighted list and the sorted copy.
const WEST_BYTES: f64 = 40.0;
/// Most parts per side (4,096 x 1/4 GiB: far more than any set of n <= 32 needs).
const MAX_PARTS: f64 = 4096.0;

impl Frame {
    /// Counts the solutions with east rows `e` (bits index [`Frame::rows`]), weighted by
    /// the frame's symmetry rule.
    pub fn count_set(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        scratch: &mut Scratch,
    ) -> SetResult {
        self.count_set_until(e, table, scratch, &NEVER)
            .expect("never stopped")
    }

    /// [`Frame::count_set`], giving up (None) soon after `stop` becomes true (the join reads
    /// it once per piece; the half searches before it take a few percent of a set).
    ///
    /// A set whose pattern lists would pass [`LIST_BUDGET`] is counted in parts (see
    /// [`Frame::parts`]).
    pub fn count_set_until(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        scratch: &mut Scratch,
        stop: &AtomicBool,
    ) -> Option<SetResult> {
        let parts = self.parts(e);
        self.count_set_in_parts(e, table, parts, scratch, stop)
    }

    /// [`Frame::count_set_until`] with the set's lists cut into `(east, west)` parts.
    ///
    /// The count of disjoint pairs is a sum over pairs of patterns, so it is the sum over
    /// (east part, west part) of the pairs between the two parts: each east part is made
    /// once and joined with each west part in turn, every west part made again for each
    /// east part. The halves take a few percent of a set's time at the frontier, where
    /// sets are cut, so making them again costs little; memory is that of one part of each.
    pub fn count_set_in_parts(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        (east_parts, west_parts): (u32, u32),
        scratch: &mut Scratch,
        stop: &AtomicBool,
    ) -> Option<SetResult> {
        let mut res = SetResult::default();
        let (east_parts, west_parts) = (east_parts.max(1), west_parts.max(1));
        for i in 0..east_parts {
            let east = Part {
                index: i,
                of: east_parts,
            };
            for j in 0..west_parts {
                let west = Part {
                    index: j,
                    of: west_parts,
                };
                // The east part is made once, with its first west part.
                res.merge(&self.prepare_part(e, table, scratch, east, west, j == 0));
                if scratch.east.is_empty() {
                    break; // nothing to join with this east part
                }
                self.join_into(&mut res, scratch, stop, None)?;
            }
        }
        Some(res)
    }

    /// Counts set E whole (one part a side), the full side's list filtered from its
    /// group's where `full` is given ([`run_bundle`]).
    fn count_whole(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        full: Option<Full>,
        scratch: &mut Scratch,
        stop: &AtomicBool,
        mut clock: Option<&mut BundleSet>,
    ) -> Option<SetResult> {
        let whole = Part::WHOLE;
        let mut res = self.prepare_with(e, table, scratch, whole, whole, true, full);
        if let Some(c) = clock.as_deref_mut() {
            let (east, west) = scratch.list_lens();
            c.east += (east + scratch.east_unmade) as u64;
            c.west += west as u64;
        }
        match full {
            Some(list) if scratch.east_unmade > 0 => {
                self.join_shared_into(&mut res, list, scratch, stop, clock)?
            }
            _ if scratch.east.is_empty() => {}
            _ => self.join_into(&mut res, scratch, stop, clock)?,
        }
        Some(res)
    }

    /// [`Frame::join_into`] where the east list is the group's `list` less this frame's
    /// blocked diagonals: the group's list is sorted once, by a key chosen for it and the
    /// first frame's west list, and each frame's join filters the sorted list
    /// ([`Joiner::share_east`]).
    fn join_shared_into(
        &self,
        res: &mut SetResult,
        list: Full,
        scratch: &mut Scratch,
        stop: &AtomicBool,
        mut clock: Option<&mut BundleSet>,
    ) -> Option<()> {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let bits = self.bits();
        let east_len = std::mem::take(&mut scratch.east_unmade);
        let joiner = &mut scratch.joiner;
        if !joiner.is_shared(bits) && !scratch.west.is_empty() {
            // The group's first join: its list sorted by a key chosen for it and this
            // frame's west list, then this frame's part of it.
            let start = clock.is_some().then(Instant::now);
            joiner.share_east(list.masks, &scratch.west, bits);
            if joiner.is_shared(bits) {
                joiner.filter_shared(list.block);
            }
            if let (Some(start), Some(c)) = (start, clock.as_deref_mut()) {
                lap(start, &mut c.sort);
            }
        }
        if !joiner.shares(bits, east_len, scratch.west.len()) {
            // A join too short to sort, or a group list with no key: made and joined alone.
            list.filter_into(&mut scratch.east);
            return self.join_into(res, scratch, stop, clock);
        }
        joiner.expect_weights(&scratch.weights);
        // Timed (`nqueens estimate`'s bundles) as a whole: the sort of the west list and
        // the layout with the pair tests, since the join that takes a shared list is not
        // cut in two as `Joiner::keep` cuts the others (that cut, in the join's own code,
        // cost counts 1.5% at n = 23 by where it moved the loops).
        let start = clock.is_some().then(Instant::now);
        let joined = joiner.join_shared_until(
            east_len,
            list.block,
            &scratch.west,
            bits,
            join::Sample::ALL,
            stop,
        )?;
        if let (Some(start), Some(c)) = (start, clock) {
            lap(start, &mut c.join);
        }
        res.solutions += joined.pairs;
        res.tested += joined.tested;
        Some(())
    }

    /// Joins the lists [`Frame::prepare_part`] left in `scratch`, adding the pairs found
    /// and tested to `res`; None if `stop` was raised first.
    fn join_into(
        &self,
        res: &mut SetResult,
        scratch: &mut Scratch,
        stop: &AtomicBool,
        clock: Option<&mut BundleSet>,
    ) -> Option<()> {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let (joiner, sliced, streamed) = scratch.oriented();
        let joined = match clock {
            // Timed by phase (`nqueens estimate`'s bundles): kept, then its pieces.
            Some(c) => {
                let start = Instant::now();
                joiner.keep(sliced, streamed, self.bits());
                lap(start, &mut c.sort);
                let start = Instant::now();
                let joined = joiner.join_kept(sliced, streamed, join::Sample::ALL);
                lap(start, &mut c.join);
                joined
            }
            None => joiner.join_until(sliced, streamed, self.bits(), join::Sample::ALL, stop)?,
        };
        res.solutions += joined.pairs;
        res.tested += joined.tested;
        Some(())
    }

    /// The full side's patterns of set E ([`Frame::group`]; this is a group's frame) into
    /// `out`.
    fn full_side(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        scratch: &mut Scratch,
        out: &mut MaskList,
    ) -> HalfStats {
        let [a, b, c] = self.split_into(e, &mut scratch.rows);
        let rows = &scratch.rows;
        let (c0, cols, north, south) = match self.full_east() {
            true => (self.shared_lo(), self.east, &rows[..a], &rows[a..b]),
            false => (0, self.west, &rows[b..c], &rows[c..]),
        };
        let half = self.half(c0, cols, (0, 0));
        half.patterns_part(north, south, table, Part::WHOLE, &mut scratch.half, out)
    }

    /// The search problem of the half whose first column is `c0` and free columns `cols`,
    /// the diagonals `avoid` (absolute up, down) blocked besides the pre-placed queens'.
    fn half(&self, c0: u32, cols: u64, (avoid_up, avoid_down): (u64, u64)) -> Half {
        let (pre_up, pre_down) = self.pre_diagonals();
        Half {
            n: self.n,
            cols: cols >> c0,
            pre_up: (pre_up | avoid_up) >> c0,
            pre_down: (pre_down | avoid_down) >> c0,
            shared_lo: self.shared_lo() - c0,
            shared_len: self.shared_len(),
            h: (self.n / 2) as u32,
        }
    }

    /// How many parts set E's east and west lists are cut into (see
    /// [`Frame::count_set_in_parts`]): enough that each side's part, at the pattern counts
    /// [`units::Proxy`] estimates, takes at most [`LIST_BUDGET`]. That estimate
    /// (pair-independence) runs high: measured on 12 sets each at n = 20, 22, 24 (frame 0)
    /// and 25 (frame 3), its mean ratio to the real counts was 4.4, 4.6, 4.8 and 2.9 for the
    /// east lists and 2.3, 3.0, 3.5 and 2.7 for the west ones, rising slowly with n; so a
    /// part estimated at the budget holds about a quarter to a third of it, and both sides
    /// together stay under it even where the estimate is twice as good. The west list is
    /// cut first in effect: it holds more bytes per pattern, and cutting it costs the join
    /// nothing, while a shorter east list gets fewer key bits (see `join`). Worked numbers:
    /// n <= 25, one part each (no set's estimate reaches the budget); n = 26, up to 3 west
    /// parts; n = 28, up to about 25 west and 4 east parts (estimated on 3,000 sets).
    pub fn parts(&self, e: u32) -> (u32, u32) {
        self.parts_with(&units::Proxy::new(self), e, LIST_BUDGET)
    }

    /// [`Frame::parts`] with this frame's estimate factors already made, for lists of at
    /// most `budget` bytes (at least [`LIST_BUDGET`]: a smaller one is taken as it).
    pub fn parts_with(&self, proxy: &units::Proxy, e: u32, budget: u64) -> (u32, u32) {
        let budget = budget.max(LIST_BUDGET);
        // Below n = 22 no set can need cutting (n = 21: 10! west patterns of 40 bytes are
        // 145 MB): skip the estimate, which would cost 1-3% of a set at n = 16-18.
        let [most_west, most_east] = proxy.most();
        let budget = budget as f64;
        if most_west * WEST_BYTES <= budget && most_east * EAST_BYTES <= budget {
            return (1, 1);
        }
        let [west, east] = proxy.halves(self, e);
        let part =
            |patterns: f64, bytes: f64| ((patterns * bytes) / budget).ceil().clamp(1.0, MAX_PARTS);
        // Integer results of the IEEE basic operations only (deterministic everywhere);
        // clamped, so the casts cannot overflow.
        (part(east, EAST_BYTES) as u32, part(west, WEST_BYTES) as u32)
    }

    /// Joins the pattern lists `Frame::prepare_set` left in `scratch`, or only the pieces
    /// `sample` picks (for `nqueens estimate`, which times a part of a join).
    pub fn join_prepared(&self, scratch: &mut Scratch, sample: join::Sample) -> join::JoinStats {
        let (joiner, sliced, streamed) = scratch.oriented();
        joiner.join_sampled(sliced, streamed, self.bits(), sample)
    }

    /// Sorts the lists [`Frame::prepare_part`] left in `scratch` and keeps them for
    /// [`Frame::join_kept`] (`nqueens estimate`: one sort, then several samples of the
    /// pieces); returns the number of pieces of the join.
    pub fn keep_prepared(&self, scratch: &mut Scratch) -> u64 {
        let (joiner, sliced, streamed) = scratch.oriented();
        joiner.keep(sliced, streamed, self.bits())
    }

    /// The pieces `sample` picks of the join [`Frame::keep_prepared`] kept.
    pub fn join_kept(&self, scratch: &mut Scratch, sample: join::Sample) -> join::JoinStats {
        let (sliced, streamed) = scratch.swap.lists(&scratch.east, &scratch.west);
        scratch.joiner.join_kept(sliced, streamed, sample)
    }

    /// The first half of [`Frame::count_set`]: both halves' pattern lists, left in
    /// `scratch` for [`Frame::join_prepared`] (the east list is empty when there is nothing
    /// to join). Returns the work done (no solutions yet).
    #[cfg(test)]
    pub fn prepare_set(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        scratch: &mut Scratch,
    ) -> SetResult {
        self.prepare_part(e, table, scratch, Part::WHOLE, Part::WHOLE, true)
    }

    /// `Frame::prepare_set` for one east part and one west part. The east list already in
    /// `scratch` (of the same set and part) is kept unless `new_east`.
    pub fn prepare_part(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        scratch: &mut Scratch,
        east_part: Part,
        west_part: Part,
        new_east: bool,
    ) -> SetResult {
        self.prepare_with(e, table, scratch, east_part, west_part, new_east, None)
    }

    /// [`Frame::prepare_part`], the full side's list taken from its group's (`full`:
    /// filtered, not searched) where given; whole lists only.
    #[allow(clippy::too_many_arguments)] // prepare_part's six and the group's list
    fn prepare_with(
        &self,
        e: u32,
        table: Option<&QuadrantTable>,
        scratch: &mut Scratch,
        east_part: Part,
        west_part: Part,
        new_east: bool,
        full: Option<Full>,
    ) -> SetResult {
        debug_assert!(full.is_none() || (east_part, west_part) == (Part::WHOLE, Part::WHOLE));
        let full_east = self.full_east();
        let (full_e, full_w) = match full {
            Some(f) if full_east => (Some(f), None),
            f => (None, f),
        };
        let (weight, z_weight) = self.weight(e);
        let mut res = SetResult::default();
        scratch.east_unmade = 0;
        if new_east {
            scratch.east.clear();
        }
        scratch.west.clear();
        scratch.swap.on = false;
        if weight == 0 {
            scratch.east.clear();
            return res;
        }
        let rows = &mut scratch.rows;
        let [a, b, c] = self.split_into(e, rows);
        let (east_n, rest) = rows.split_at(a);
        let (east_s, rest) = rest.split_at(b - a);
        let (west_n, west_s) = rest.split_at(c - b);
        let half = |c0: u32, cols: u64, avoid: (u64, u64)| self.half(c0, cols, avoid);
        // Even n keeps only east halves off both long diagonals (module doc, fact 2): the
        // anti-diagonal is up-diagonal n - 1, the main diagonal down-diagonal n - 1.
        let long = 1u64 << (self.n - 1);
        let east_avoid = if self.rule == Rule::Even {
            (long, long)
        } else {
            (0, 0)
        };
        if new_east {
            let se = match full_e {
                // The group's list sorted once (`Frame::join_shared_into`): this frame's
                // part of it filtered into the joiner, sorted; before the group's first
                // join (which sorts it) only counted. Made unsorted only if needed.
                Some(f) if self.full_east() => {
                    scratch.east.clear();
                    scratch.east_unmade = match scratch.joiner.is_shared(self.bits()) {
                        true => scratch.joiner.filter_shared(f.block),
                        false => f.count(),
                    };
                    HalfStats {
                        placements: 0,
                        patterns: scratch.east_unmade as u64,
                    }
                }
                Some(f) => f.filter_into(&mut scratch.east),
                None => half(self.shared_lo(), self.east, east_avoid).patterns_part(
                    east_n,
                    east_s,
                    table,
                    east_part,
                    &mut scratch.half,
                    &mut scratch.east,
                ),
            };
            res.add_half(se);
        }
        let east_len = scratch.east.len() + scratch.east_unmade;
        if east_len == 0 {
            return res;
        }
        let mut west_masks = std::mem::take(&mut scratch.west_masks);
        west_masks.clear();
        // In a set whose west patterns off both long diagonals weigh 0 (fact 3), those are
        // made and then dropped below. Making only the others (the half's pairing told to
        // pair a north placement off the main diagonal only with the south placements on
        // the anti-diagonal, stored first) measured no gain (2026-12-06, Intel Xeon model
        // 167, paired: `count 18` 0.975-1.018, `count 16` 0-12% slower): they are about a
        // quarter of half the sets' west lists, and the extra pass over the south
        // placements costs what they save.
        let sw = match full_w {
            Some(f) => f.filter_into(&mut west_masks),
            None => half(0, self.west, (0, 0)).patterns_part(
                west_n,
                west_s,
                table,
                west_part,
                &mut scratch.half,
                &mut west_masks,
            ),
        };
        res.add_half(sw);
        let len = self.shared_len();
        // Each west mask's weight by how many long diagonals it takes (module doc, facts 2
        // and 3); odd boards weigh every mask of a set alike.
        let ((anti, main), weights) = if self.rule == Rule::Even {
            // The long diagonals: up-diagonal n - 1 (anti) and down-diagonal n - 1 (main),
            // bit n - 1 - lo of each direction. No east pattern uses them: they are dropped
            // from the west masks.
            let anti = 1u64 << (self.n as u32 - 1 - self.shared_lo());
            let main = anti << len;
            ((anti, main), [z_weight, weight << 1, weight << 2])
        } else {
            ((0, 0), [weight; 3])
        };
        let long = anti | main;
        // Two bits to count: two tests rather than a popcount, which a portable build does
        // in a dozen operations (this loop was 13% of n = 18).
        let on_long = |w: u64| usize::from(w & anti != 0) + usize::from(w & main != 0);
        scratch.weights = weights;
        let masks = west_masks.as_slice();
        let swap = Swap::pays(self.n, east_len, masks.len(), weights);
        #[cfg(test)]
        let swap = scratch.force_swap.unwrap_or(swap);
        if swap {
            if let Some(f) = full_e.filter(|_| scratch.east_unmade > 0) {
                f.filter_into(&mut scratch.east);
                scratch.east_unmade = 0;
            }
            scratch
                .swap
                .fill(masks, on_long, long, weights, &scratch.east);
        } else {
            scratch.west.reserve(masks.len());
            for &w in masks {
                let wt = weights[on_long(w)];
                if wt > 0 {
                    scratch.west.push((w & !long, wt));
                }
            }
        }
        scratch.west_masks = west_masks;
        res
    }
}

/// A group's full-side list of one set E, made once for the group's frames (see
/// [`Frame::group`]), and the bits a frame's patterns must avoid ([`Frame::full_block`]).
#[derive(Clone, Copy, Debug)]
struct Full<'a> {
    masks: &'a [u64],
    block: u64,
}

impl Full<'_> {
    /// Writes this frame's patterns of the group's list into `out` (cleared): the work of
    /// a half search, without its placements.
    fn filter_into(self, out: &mut MaskList) -> HalfStats {
        out.clear();
        HalfStats {
            placements: 0,
            patterns: out.extend_avoiding(self.masks, self.block) as u64,
        }
    }

    /// How many of the group's patterns are this frame's (a pass that writes nothing).
    fn count(self) -> usize {
        self.masks.iter().filter(|&&m| m & self.block == 0).count()
    }
}

/// Fewest frames that share a group's list ([`run_bundle`]): a frame keeps about 46% of
/// it, so the group's search costs about 2.2 frames' own, and pays from 3 frames.
pub(crate) const SHARED_FROM: usize = 3;

/// Counts the units (frame, `prefix`) of `frames`, one group's ([`Frame::group`]; the
/// group's frame `group` with the middle-column queen alone), one result per frame in
/// order; None if `stop` was raised first.
///
/// For each set E the group's full-side list is searched once and each frame filters it
/// instead of searching its own: the frame's list is then the one its own search makes,
/// mask for mask and in order, so each unit's solutions are those of [`run_unit`]. Only
/// the half searches' placements differ (the group's search is charged to the first
/// frame). A set some frame would cut into parts is counted frame by frame (none below
/// n = 26). Worth: a group's list is about twice a frame's (n = 23: a frame keeps 46% of
/// it), made once for up to h - 1 frames.
///
/// Where the full side is the east list (every group the plans of n = 19..25 make), the
/// group's list is also *sorted* once: by a key chosen for it and the first frame's west
/// list ([`Joiner::share_east`]), and each frame's join takes its part of the sorted list
/// (a filter that keeps the order, [`Joiner::filter_shared`]) instead of sorting its own
/// list by a key of its own. So a unit's tested pairs depend on the frames counted with
/// it (n = 23: about 13% more pairs tested than with each frame's own key); its solutions
/// do not. A pair count is a method's figure, not a result: `merge --recheck` compares
/// solutions only (`UnitKind::work_is_portable`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_bundle(
    frames: &[(&Frame, &units::Proxy)],
    group: &Frame,
    p: u32,
    prefix: u32,
    table: Option<&QuadrantTable>,
    list_budget: u64,
    scratch: &mut Scratch,
    stop: &AtomicBool,
) -> Option<Vec<SetResult>> {
    let mut res = vec![SetResult::default(); frames.len()];
    let Some(&(first, _)) = frames.first() else {
        return Some(res);
    };
    let set = Bundle {
        frames,
        group,
        table,
        list_budget,
    };
    let mut full = std::mem::take(&mut scratch.full);
    let done = (|| {
        for e in first.sets_with_prefix(p, prefix) {
            set.count(e, &mut full, &mut res, scratch, stop, None)?;
        }
        Some(())
    })();
    scratch.full = full;
    done.map(|()| res)
}

/// The frames of a bundle ([`run_bundle`]) and what counting a set of theirs needs.
struct Bundle<'a> {
    frames: &'a [(&'a Frame, &'a units::Proxy)],
    /// The group's frame (the middle-column queen alone).
    group: &'a Frame,
    table: Option<&'a QuadrantTable>,
    list_budget: u64,
}

impl Bundle<'_> {
    /// Adds set `e` of each frame to that frame's result in `res` (by position), the
    /// group's list made into `full`; None if `stop` was raised first.
    fn count(
        &self,
        e: u32,
        full: &mut MaskList,
        res: &mut [SetResult],
        scratch: &mut Scratch,
        stop: &AtomicBool,
        mut clock: Option<&mut BundleSet>,
    ) -> Option<()> {
        let (frames, table) = (self.frames, self.table);
        let parts = self.parts(e);
        if !self.shares(&parts) {
            for ((r, (f, _)), &parts) in res.iter_mut().zip(frames).zip(&parts) {
                r.merge(&f.count_set_in_parts(e, table, parts, scratch, stop)?);
            }
            return Some(());
        }
        full.clear();
        res[0].add_half(self.group.full_side(e, table, scratch, full));
        scratch.joiner.unshare();
        for (r, (f, _)) in res.iter_mut().zip(frames) {
            let list = Full {
                masks: full.as_slice(),
                block: f.full_block(),
            };
            let c = clock.as_deref_mut();
            r.merge(&f.count_whole(e, table, Some(list), scratch, stop, c)?);
        }
        scratch.joiner.unshare();
        Some(())
    }

    /// The parts each frame cuts set `e` into ([`Frame::parts_with`]).
    fn parts(&self, e: u32) -> Vec<(u32, u32)> {
        self.frames
            .iter()
            .map(|(f, proxy)| f.parts_with(proxy, e, self.list_budget))
            .collect()
    }

    /// Whether the frames share the group's list for a set cut into `parts` by each frame:
    /// from [`SHARED_FROM`] frames, each counting the set whole.
    fn shares(&self, parts: &[(u32, u32)]) -> bool {
        self.frames.len() >= SHARED_FROM && parts.iter().all(|&p| p == (1, 1))
    }
}

/// What a bundle's frames did on one set, timed by phase ([`time_bundle_set`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BundleSet {
    /// Seconds of the half searches (the group's, and each frame's search of its other
    /// side and filter of the group's sorted list, but the first frame's), the joins'
    /// fixed part (the group's key and sort, with the first frame's filter; a frame's own
    /// sort of its west list and its layout count as pair tests, see
    /// [`Frame::join_shared_into`]) and their pair tests.
    pub halves: f64,
    pub sort: f64,
    pub join: f64,
    /// Everything the frames counted, summed.
    pub counted: SetResult,
    /// The frames' east and west patterns, summed.
    pub east: u64,
    pub west: u64,
}

/// Counts set `e` of the units (frame, prefix) of a bundle as [`run_bundle`] does and says
/// where the time went (`nqueens estimate`, which draws one set of a unit and must time
/// what a count does: the group's list searched and sorted once for its frames). None
/// where the frames would not share the list (fewer than [`SHARED_FROM`], or a set cut
/// into parts): each unit is then counted as alone, and timed so.
pub(crate) fn time_bundle_set(
    frames: &[(&Frame, &units::Proxy)],
    group: &Frame,
    e: u32,
    table: Option<&QuadrantTable>,
    list_budget: u64,
    scratch: &mut Scratch,
) -> Option<BundleSet> {
    let set = Bundle {
        frames,
        group,
        table,
        list_budget,
    };
    if !set.shares(&set.parts(e)) {
        return None;
    }
    let mut full = std::mem::take(&mut scratch.full);
    let mut res = vec![SetResult::default(); frames.len()];
    let mut timed = BundleSet::default();
    let start = Instant::now();
    set.count(e, &mut full, &mut res, scratch, &NEVER, Some(&mut timed))
        .expect("never stopped");
    let secs = start.elapsed().as_secs_f64();
    scratch.full = full;
    res.iter().for_each(|r| timed.counted.merge(r));
    timed.halves = (secs - timed.sort - timed.join).max(0.0);
    Some(timed)
}

/// Adds the seconds since `start` to `phase`.
fn lap(start: Instant, phase: &mut f64) {
    *phase += start.elapsed().as_secs_f64();
}

/// Reusable buffers of one worker, with the instruction set its loops run with
/// (`Scratch::default()`: [`Isa::best`](crate::engine::Isa::best)).
#[derive(Debug, Default)]
pub struct Scratch {
    rows: Vec<u8>,
    joiner: Joiner,
    half: HalfScratch,
    east: MaskList,
    west: Vec<(u64, u32)>,
    west_masks: MaskList,
    /// A group's full-side list ([`run_bundle`]).
    full: MaskList,
    /// Masks of the east list counted but not made: the join filters them from the
    /// group's sorted list ([`Frame::join_shared_into`]).
    east_unmade: usize,
    /// The weights of the west masks by the long diagonals they take (none, one, both).
    weights: [u32; 3],
    /// The lists with their roles swapped, where that pays ([`Swap`]).
    swap: Swap,
    /// Whether to swap every set's lists or none, whatever pays (tests: no set below n =
    /// 20 is long enough to be swapped).
    #[cfg(test)]
    force_swap: Option<bool>,
}

impl Scratch {
    /// Patterns of the east and west lists [`Frame::prepare_part`] left (`nqueens
    /// estimate` reports the list sizes).
    pub fn list_lens(&self) -> (usize, usize) {
        let west = match self.swap.on {
            true => self.swap.patterns,
            false => self.west.len(),
        };
        (self.east.len(), west)
    }

    /// The joiner and the two lists it takes for the set [`Frame::prepare_part`] left:
    /// (east, west) as made, or swapped where that pays ([`Swap`]); the joiner knows the
    /// weights of the streamed list.
    fn oriented(&mut self) -> (&mut Joiner, &[u64], &[(u64, u32)]) {
        let (sliced, streamed) = self.swap.lists(&self.east, &self.west);
        let weights = match self.swap.on {
            true => [Swap::repeats(self.weights).0; 3],
            false => self.weights,
        };
        self.joiner.expect_weights(&weights);
        (&mut self.joiner, sliced, streamed)
    }

    /// Empty buffers for a worker whose join and table lookups run with `isa`.
    pub fn new(isa: Isa) -> Scratch {
        Scratch {
            joiner: Joiner::new(isa),
            half: HalfScratch::new(isa),
            ..Scratch::default()
        }
    }
}

/// A set's lists with their roles swapped: the west patterns cut into the join's pieces
/// and the east ones streamed past them.
///
/// Why: the join tests, for each piece of 256 masks of the list it cuts, the masks of the
/// other list that avoid the key bits the piece's masks share, and 256 consecutive masks
/// of a sorted list of L share about log2(L / 256) key bits. So the longer list should be
/// the one cut. Even boards make the east list the shorter (fact 2 of the module doc keeps
/// only east halves off both long diagonals): at n = 22 a set has about 7.4e4 east and
/// 2.5e5 west patterns. Cutting the west list there tested half the pairs (`count 22
/// --shard 77/200 -t 1`: 7.2e11 instead of 1.4e12, every set swapped, weights left out,
/// 2026-12-05). Worked number, the model's: L^-0.585 pairs per cut mask (a shared key
/// bit prunes a third of the other list), so cutting a list 3.4 times longer tests
/// 3.4^0.585 = 2.0 times fewer pairs.
///
/// Measured (Zen 4, 2026-12-05, the build before and this one at once, one per core,
/// cores swapped; the same solutions unit by unit): `count 22 --shard 77/200 -t 1` 0.875
/// and 0.895 of the time, 9.1e11 pairs instead of 1.4e12; `estimate 22 -t 2 --seconds 60
/// --seed 100` 0.917 (one after the other); `count 23 --shard 1234/2000` 0.996; `count 20
/// -t 2` 0.99 and 1.00 (one after the other). Which sets: see [`Swap::pays`]'s bounds.
///
/// The join weighs only the streamed list's masks, so the west weights move into the cut
/// list by repetition: with a the smallest west weight, a mask of weight k·a appears k
/// times, and every east mask is streamed with weight a. The count is the same: Σ over
/// west masks of k·a times its disjoint east masks. On even boards k is 1 or 2: the
/// patterns on one long diagonal, and those on neither where fact 3 keeps them, weigh the
/// least, those on both twice that (module doc, facts 2 and 3), so the cut list is longer
/// than the west list by the share of patterns on both; only the sets that fact 3 maps
/// onto their own class have k = 1, 2 and 4. Odd boards weigh all of a set's masks alike
/// (k = 1).
#[derive(Debug, Default)]
struct Swap {
    /// Whether the lists below are the set's join.
    on: bool,
    /// The west masks, each repeated by its weight over the smallest: `sliced[..len]`
    /// (the buffer keeps its length, so that it is not cleared for each set).
    sliced: Vec<u64>,
    len: usize,
    /// West patterns with a nonzero weight.
    patterns: usize,
    /// The east masks, each with the smallest west weight.
    streamed: Vec<(u64, u32)>,
}

impl Swap {
    /// Sets whose west list has at least this many times the east list's patterns are
    /// swapped. Half and twice this measured the same (`count 22 --shard 77/200 -t 1`,
    /// paired, 2 rounds each: 0.974 and 1.021, 1.037 and 0.981).
    const RATIO: usize = 1;
    /// Shortest east list swapped below n = 22. Measured (Zen 4, paired): from 4,096 east
    /// patterns `count 22 --shard 77/200` took 0.95 of the time it takes with this bound,
    /// but `count 20 -t 2` 1.036 of the build before (from 16,384: 0.96 and 1.024; from
    /// this bound: 1.00). Why n = 20's sets of that size lose is not measured.
    const STREAMED_LEAST: usize = 1 << 15;
    /// Shortest east list swapped from n = 22: `count 22 --shard 77/200` 0.959 and 0.963
    /// of the time with [`Swap::STREAMED_LEAST`], `count 24 --shard 473/20000` 0.988 and
    /// 0.996 (Zen 4, paired).
    const STREAMED_LEAST_22: usize = 1 << 12;
    /// Longest east list swapped. Measured (Zen 4, paired): with every set swapped, `count
    /// 24 --shard 473/20000 -t 1` took 1.14 times as long as the build before (the sparse
    /// pieces in twos and keys chosen for a short streamed list; groups of pieces there
    /// measured 5% slower still); with sets up to 2^17 swapped, 0.99 (0.999 up to 2^18);
    /// `count 22 --shard 77/200` took the same time as with no upper bound. 2^19 since
    /// (Intel Xeon model 167, 2026-12-05, paired, against 2^17): the random n = 24 shards
    /// `count 24 --shard K/20000 -t 1` whose sets it changes, K = 17776 0.989 and 0.985, K
    /// = 13704 0.984 and 0.995, K = 473 0.999 and 1.002 (2^18 at K = 17776: 0.994, 0.999;
    /// 2^20: 1.023, 1.026); K = 9428 and 12273, n = 25 and n = 26 (K = 388857, 162680)
    /// have no set it changes. Sets this long are found from n = 24 on.
    const STREAMED_MOST: usize = 1 << 19;
    /// Longest list swapped (with its repeats): 32 MiB, and as much again for its sorted
    /// copy. A swapped set holds 24 more bytes per east pattern than [`EAST_BYTES`] (its
    /// copy with a weight, sorted) and as many per west pattern as [`WEST_BYTES`] (two
    /// repeats of 8 bytes, sorted, instead of 16 bytes and its sorted copy), at most 100 MB
    /// more: well inside [`LIST_BUDGET`], which no set below n = 26 comes near.
    const MOST: usize = 1 << 22;

    /// Whether a set of `east` east and `west` west patterns weighted by `weights` is
    /// joined swapped.
    fn pays(n: usize, east: usize, west: usize, weights: [u32; 3]) -> bool {
        let repeats = Self::repeats(weights).1.into_iter().max().unwrap_or(0);
        let least_east = match n {
            ..=21 => Self::STREAMED_LEAST,
            _ => Self::STREAMED_LEAST_22,
        };
        (least_east..=Self::STREAMED_MOST).contains(&east)
            && west >= Self::RATIO * east
            && west * repeats <= Self::MOST
    }

    /// The least nonzero weight of `weights` and each weight's repeats: the weight over
    /// the least (0 for a weight of 0).
    fn repeats(weights: [u32; 3]) -> (u32, [usize; 3]) {
        let least = weights
            .iter()
            .copied()
            .filter(|&w| w > 0)
            .min()
            .unwrap_or(1);
        // The weights are a, 2a and 4a (even boards; the sets fact 3 maps onto their own
        // class give a, 2a, 4a, the others 2a or 0, 2a, 4a) or a alone.
        debug_assert!(weights.iter().all(|&w| w % least == 0 && w / least <= 4));
        (least, weights.map(|w| (w / least) as usize))
    }

    /// Makes the swapped lists of `east` and the west masks `west`, each without the bits
    /// `drop` and weighted `weights[class(mask)]` (0 drops a mask): each mask repeated by
    /// its weight over the least nonzero one, the east masks streamed with that least
    /// weight.
    fn fill(
        &mut self,
        west: &[u64],
        class: impl Fn(u64) -> usize,
        drop: u64,
        weights: [u32; 3],
        east: &MaskList,
    ) {
        let (least, repeats) = Self::repeats(weights);
        // Room for every repeat and the last mask's four copies: at most `MOST` + 4 words
        // (`Swap::pays`).
        let widest = repeats.iter().copied().max().unwrap_or(1);
        let most = west.len() * widest + 4;
        if self.sliced.len() < most {
            self.sliced.resize(most, 0);
        }
        // As many copies written for every mask as the most repeated takes (2, or 4 in the
        // sets fact 3 maps onto their own class), the next mask's copies written over the
        // unused ones: no branch on the weight (which a branch would mispredict).
        let out = &mut self.sliced[..most];
        let (at, patterns) = match widest {
            ..=2 => repeat::<2>(out, west, class, drop, repeats),
            _ => repeat::<4>(out, west, class, drop, repeats),
        };
        self.len = at;
        self.patterns = patterns;
        self.streamed.clear();
        self.streamed
            .extend(east.as_slice().iter().map(|&m| (m, least)));
        self.on = true;
    }

    /// The lists the join takes: these if on, else `east` and `west` as made.
    fn lists<'a>(
        &'a self,
        east: &'a MaskList,
        west: &'a [(u64, u32)],
    ) -> (&'a [u64], &'a [(u64, u32)]) {
        match self.on {
            true => (&self.sliced[..self.len], &self.streamed),
            false => (east.as_slice(), west),
        }
    }
}

/// Writes each mask of `west` without the bits `drop`, `repeats[class(mask)]` times (at most
/// `W`), into `out`, which has room for them and `W` words more; returns the words written
/// and the masks written at least once. `W` copies are stored for every mask and the next
/// mask's overwrite the unused ones (see [`Swap::fill`]).
#[inline(always)]
fn repeat<const W: usize>(
    out: &mut [u64],
    west: &[u64],
    class: impl Fn(u64) -> usize,
    drop: u64,
    repeats: [usize; 3],
) -> (usize, usize) {
    let (mut at, mut patterns) = (0, 0);
    for &m in west {
        out[at..at + W].fill(m & !drop);
        let r = repeats[class(m)];
        debug_assert!(r <= W);
        at += r;
        patterns += usize::from(r > 0);
    }
    (at, patterns)
}

/// Workers' buffers kept between batches (or sampled units): each worker takes one, or
/// makes one when none is kept, and puts it back when done, so the pool holds at most one
/// per worker that ran at once, and their GBs of lists at n = 28 are not given back to the
/// system and faulted in again page by page for the next unit.
#[derive(Debug, Default)]
pub struct ScratchPool(Mutex<Vec<Scratch>>);

impl ScratchPool {
    /// A kept worker's buffers, if any.
    pub fn take(&self) -> Option<Scratch> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }

    /// Keeps a worker's buffers for the next taker.
    pub fn put(&self, scratch: Scratch) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(scratch);
    }
}

/// What counting one or more sets E produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetResult {
    /// Solutions, already weighted by the symmetry rule.
    pub solutions: u64,
    /// Queens placed by the half-board searches.
    pub placements: u64,
    /// Half-board patterns found (east and west).
    pub patterns: u64,
    /// (east, west) pattern pairs tested by the join.
    pub tested: u64,
}

impl SetResult {
    fn add_half(&mut self, s: HalfStats) {
        self.placements += s.placements;
        self.patterns += s.patterns;
    }

    /// Adds another result.
    pub fn merge(&mut self, o: &SetResult) {
        self.solutions += o.solutions;
        self.placements += o.placements;
        self.patterns += o.patterns;
        self.tested += o.tested;
    }
}

/// Counts the sets E of one unit: those of `frame` whose first `p` rows are `prefix`
/// (see [`units`]); None if `stop` was raised first (a unit of n = 26 takes minutes: the
/// flag is read between sets and inside each join).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_unit(
    frame: &Frame,
    proxy: &units::Proxy,
    p: u32,
    prefix: u32,
    table: Option<&QuadrantTable>,
    list_budget: u64,
    scratch: &mut Scratch,
    stop: &AtomicBool,
) -> Option<SetResult> {
    let mut res = SetResult::default();
    for e in frame.sets_with_prefix(p, prefix) {
        let parts = frame.parts_with(proxy, e, list_budget);
        res.merge(&frame.count_set_in_parts(e, table, parts, scratch, stop)?);
    }
    Some(res)
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::known;
    use crate::engine::quadrant::sets;

    fn profile(
        frames: &[Frame],
        n: u32,
        table: Option<&QuadrantTable>,
    ) -> (u128, SetResult, f64, usize) {
        let mut scratch = Scratch::new(Isa::best());
        let mut total = 0u128;
        let mut all = SetResult::default();
        let mut sets_counted = 0;
        let t = std::time::Instant::now();
        for f in frames {
            for e in sets(f.rows.len() as u32, f.east_queens()) {
                if f.weight(e).0 == 0 {
                    continue;
                }
                sets_counted += 1;
                let r = f.count_set(e, table, &mut scratch);
                total += u128::from(r.solutions);
                all.merge(&r);
            }
        }
        let _ = n;
        (total, all, t.elapsed().as_secs_f64(), sets_counted)
    }

    #[test]
    #[ignore]
    fn per_solution_profile() {
        for n in 13u32..=19 {
            let table = QuadrantTable::build(n / 2);
            let q = known::lookup(n).unwrap().total as f64;
            let r = profile(&Frame::all(n), n, Some(&table));
            println!("n={n} sets {} tested/sol {:.2} patterns/sol {:.4} placements/sol {:.3} ns/sol {:.2} mean pairs/set {:.0}",
                r.3, r.1.tested as f64 / q, r.1.patterns as f64 / q, r.1.placements as f64 / q, r.2 * 1e9 / q, r.1.tested as f64 / r.3 as f64);
        }
    }

    /// One set counted and timed: tested pairs, solutions, seconds, patterns.
    fn timed(f: &Frame, e: u32, table: Option<&QuadrantTable>, scratch: &mut Scratch) -> [f64; 4] {
        let clock = std::time::Instant::now();
        let r = f.count_set(e, table, scratch);
        let secs = clock.elapsed().as_secs_f64();
        [r.tested as f64, r.solutions as f64, secs, r.patterns as f64]
    }

    fn add(sum: &mut [f64; 4], x: [f64; 4]) {
        for (s, x) in sum.iter_mut().zip(x) {
            *s += x;
        }
    }

    /// Sampled total tested pairs, solutions and seconds of a scheme's frames.
    fn sampled(
        frames: &[Frame],
        samples: usize,
        table: Option<&QuadrantTable>,
        seed: u64,
    ) -> (f64, f64, f64, f64, f64) {
        let mut scratch = Scratch::new(Isa::best());
        let counted: Vec<Vec<u32>> = frames
            .iter()
            .map(|f| {
                sets(f.rows.len() as u32, f.east_queens())
                    .filter(|&e| f.weight(e).0 > 0)
                    .collect()
            })
            .collect();
        let total_sets: usize = counted.iter().map(|v| v.len()).sum();
        let (mut tested, mut sols, mut secs, mut pats) = (0.0, 0.0, 0.0, 0.0);
        let mut x = seed;
        for (fi, f) in frames.iter().enumerate() {
            let c = &counted[fi];
            if c.is_empty() {
                continue;
            }
            let k = ((samples as f64 * c.len() as f64 / total_sets as f64).ceil() as usize).max(1);
            let mut sum = [0.0; 4];
            for _ in 0..k {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let e = c[(x >> 33) as usize % c.len()];
                add(&mut sum, timed(f, e, table, &mut scratch));
            }
            let [t, so, se, pa] = sum;
            let scale = c.len() as f64 / k as f64;
            tested += t * scale;
            sols += so * scale;
            secs += se * scale;
            pats += pa * scale;
        }
        (tested, sols, secs, pats, total_sets as f64)
    }

    /// Experiment: the *south rule* of an even board. Fact 2 may keep, for each long
    /// diagonal, either of its two halves empty; the plan keeps the east half off both
    /// (east lists 27% long, west lists whole). Keeping the *south* half off both (SE part
    /// of the main diagonal, SW part of the anti-diagonal) cuts each list about in half
    /// instead, and the east–west mirror (E -> complement) then keeps the rule, so it
    /// plays fact 1's part (E < Ē, doubled); the north–south mirror plays fact 3's for
    /// the solutions off both long diagonals. A pair's weight is then 2 · (z, 2, 2, 4) by
    /// (east on the anti-diagonal, west on the main), not a product: the east mask takes
    /// the (free) main-diagonal bit when it is off the anti-diagonal, and a west mask
    /// with that bit pairs only with the east masks on the anti-diagonal.
    fn south_set(
        f: &Frame,
        e: u32,
        table: Option<&QuadrantTable>,
        scratch: &mut Scratch,
        lists: &mut (MaskList, MaskList, Vec<u64>, Vec<(u64, u32)>),
    ) -> [f64; 6] {
        let clock = std::time::Instant::now();
        let m = f.rows.len() as u32;
        let full = u32::MAX >> (32 - m);
        let rev = |x: u32| x.reverse_bits() >> (32 - m);
        if e > full & !e {
            return [0.0; 6];
        }
        let canon = |x: u32| x.min(full & !x);
        let z = match canon(e).cmp(&canon(rev(e))) {
            std::cmp::Ordering::Less => 2,
            std::cmp::Ordering::Equal => 1,
            std::cmp::Ordering::Greater => 0,
        };
        let (east, west_masks, em, west) = lists;
        let [a, b, c] = f.split_into(e, &mut scratch.rows);
        let rows = &scratch.rows;
        let (east_n, rest) = rows.split_at(a);
        let (east_s, rest) = rest.split_at(b - a);
        let (west_n, west_s) = rest.split_at(c - b);
        let long = 1u64 << (f.n - 1);
        east.clear();
        west_masks.clear();
        let se = f.half(f.shared_lo(), f.east, (0, long)).patterns_part(
            east_n,
            east_s,
            table,
            Part::WHOLE,
            &mut scratch.half,
            east,
        );
        let sw = f.half(0, f.west, (long, 0)).patterns_part(
            west_n,
            west_s,
            table,
            Part::WHOLE,
            &mut scratch.half,
            west_masks,
        );
        let anti = 1u64 << (f.n as u32 - 1 - f.shared_lo());
        let main = anti << f.shared_len();
        em.clear();
        em.extend(
            east.as_slice()
                .iter()
                .map(|&m| if m & anti == 0 { m | main } else { m }),
        );
        west.clear();
        for &w in west_masks.as_slice() {
            if w & main != 0 {
                west.push((w & !main, 2));
                west.push((w, 2));
            } else {
                match z {
                    2 => west.push((w, 2)),
                    0 => west.push((w | main, 2)),
                    _ => {
                        west.push((w, 1));
                        west.push((w | main, 1));
                    }
                }
            }
        }
        let r = if em.is_empty() || west.is_empty() {
            join::JoinStats::default()
        } else {
            scratch.joiner.join(em, west, f.bits())
        };
        let secs = clock.elapsed().as_secs_f64();
        [
            r.tested as f64,
            2.0 * r.pairs as f64,
            secs,
            (se.patterns + sw.patterns) as f64,
            em.len() as f64,
            west.len() as f64,
        ]
    }

    #[test]
    fn the_south_rule_counts_the_known_values() {
        let mut scratch = Scratch::default();
        let mut lists = Default::default();
        for n in [4u32, 6, 8, 10, 12, 14] {
            let table = QuadrantTable::build(n / 2);
            let f = &Frame::all(n)[0];
            let mut total = 0.0;
            for e in sets(f.rows.len() as u32, f.east_queens()) {
                total += south_set(f, e, Some(&table), &mut scratch, &mut lists)[1];
            }
            assert_eq!(total as u128, known::lookup(n).unwrap().total, "n = {n}");
        }
    }

    /// `EXP_N=22 EXP_K=2000`: the plan's rule and the south rule on the same uniformly
    /// drawn sets E (each rule counts about half of them), with the table.
    #[test]
    #[ignore]
    fn south_rule_sampled() {
        let (n, k, q) = experiment();
        let table = QuadrantTable::build(n / 2);
        let f = &Frame::all(n)[0];
        let m = f.rows.len();
        let binom = |m: u64, k: u64| (0..k).fold(1u64, |acc, i| acc * (m - i) / (i + 1));
        let total = binom(m as u64, u64::from(f.east_queens())) as f64;
        let mut scratch = Scratch::new(Isa::best());
        let mut plain = Scratch::new(Isa::best());
        plain.force_swap = Some(false);
        let mut south = Scratch::new(Isa::best());
        let mut lists = Default::default();
        let mut sums = [[0.0f64; 6]; 3];
        let mut next = draws(std::env::var("EXP_SEED").map_or(7, |s| s.parse().unwrap()));
        for i in 0..k {
            let e = random_set(f, &mut next);
            let mut runs: [[f64; 6]; 3] = [[0.0; 6]; 3];
            // Alternate which rule runs first.
            for r in 0..3 {
                let which = (r + i) % 3;
                runs[which] = match which {
                    0 | 1 => {
                        let s = if which == 0 { &mut scratch } else { &mut plain };
                        let clock = std::time::Instant::now();
                        let res = f.count_set(e, Some(&table), s);
                        let secs = clock.elapsed().as_secs_f64();
                        let (el, wl) = s.list_lens();
                        [
                            res.tested as f64,
                            res.solutions as f64,
                            secs,
                            res.patterns as f64,
                            el as f64,
                            wl as f64,
                        ]
                    }
                    _ => south_set(f, e, Some(&table), &mut south, &mut lists),
                };
            }
            for (s, r) in sums.iter_mut().zip(runs) {
                add6(s, r);
            }
        }
        let scale = total / k as f64;
        for (name, s) in ["plan", "plan unswapped", "south"].iter().zip(sums) {
            println!(
                "n={n} {name}: sols/Q {:.4} tested/sol {:.1} patterns/sol {:.4} ns/sol {:.3} east/west list {:.3e}/{:.3e}",
                s[1] * scale / q,
                s[0] * scale / q,
                s[3] * scale / q,
                s[2] * scale * 1e9 / q,
                s[4] / k as f64,
                s[5] / k as f64
            );
        }
    }

    /// The experiments' random draws: a 64-bit linear congruential generator (Knuth's
    /// MMIX constants) from `seed`, its top 53 bits a draw. The documented samples were
    /// drawn with it (seed 7), so it stays as it is.
    fn draws(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 11
        }
    }

    /// A uniformly random set E of frame `f`: the first k of a shuffle of its m rows.
    fn random_set(f: &Frame, next: &mut impl FnMut() -> u64) -> u32 {
        let m = f.rows.len();
        let mut idx: Vec<u32> = (0..m as u32).collect();
        for i in 0..f.east_queens() as usize {
            let j = i + (next() % (m - i) as u64) as usize;
            idx.swap(i, j);
        }
        idx[..f.east_queens() as usize]
            .iter()
            .fold(0u32, |a, &i| a | 1 << i)
    }

    fn add6(sum: &mut [f64; 6], x: [f64; 6]) {
        for (s, x) in sum.iter_mut().zip(x) {
            *s += x;
        }
    }

    /// The board (EXP_N), the sets to sample (EXP_K) and the board's known total.
    fn experiment() -> (u32, usize, f64) {
        let n: u32 = std::env::var("EXP_N").unwrap().parse().unwrap();
        let k: usize = std::env::var("EXP_K").unwrap().parse().unwrap();
        (n, k, known::lookup(n).unwrap().total as f64)
    }

    #[test]
    #[ignore]
    fn long_frames_sampled() {
        let (n, k, q) = experiment();
        for (name, frames) in [("old", Frame::all(n)), ("long", Frame::all_long(n))] {
            let r = sampled(&frames, k, None, 7);
            println!("n={n} {name}: sets {:.3e} sols/Q {:.3} tested/sol {:.1} patterns/sol {:.4} ns/sol {:.2} frames {}",
                r.4, r.1 / q, r.0 / q, r.3 / q, r.2 * 1e9 / q, frames.len());
        }
    }

    /// Long-diagonal frames at boards without a known total (even EXP_N up to 28): EXP_K sets
    /// drawn uniformly from them (and from the plan's with EXP_PLAN=K2), each figure a
    /// solution by the sample's own solutions, so no known total is needed.
    #[test]
    #[ignore]
    fn long_frames_by_ratio() {
        let n: u32 = std::env::var("EXP_N").unwrap().parse().unwrap();
        let k: usize = std::env::var("EXP_K").unwrap().parse().unwrap();
        let plan_k: usize = std::env::var("EXP_PLAN").map_or(0, |v| v.parse().unwrap());
        assert!(
            n.is_multiple_of(2),
            "long-diagonal frames are for even boards, not {n}"
        );
        let long = Frame::all_long(n);
        let mut runs = vec![("long", sampled_uniform(&long, k, 7), long.len())];
        if plan_k > 0 {
            runs.push(("plan", sampled_uniform(&Frame::all(n), plan_k, 7), 1));
        }
        for (name, r, frames) in runs {
            let (tested, sols, secs, pats, sets) = r;
            println!("n={n} {name}: frames {frames} sets {sets:.3e} solutions {sols:.4e} tested/sol {:.1} patterns/sol {:.5} ns/sol {:.3}",
                tested / sols, pats / sols, secs * 1e9 / sols);
        }
    }

    /// [`sampled`] for schemes with too many sets to list: `samples` sets drawn uniformly
    /// from all of them (a frame by its share of the sets, then a random E of it).
    fn sampled_uniform(frames: &[Frame], samples: usize, seed: u64) -> (f64, f64, f64, f64, f64) {
        let binom = |m: u64, k: u64| (0..k).fold(1u64, |acc, i| acc * (m - i) / (i + 1));
        let sizes: Vec<u64> = frames
            .iter()
            .map(|f| binom(f.rows.len() as u64, u64::from(f.east_queens())))
            .collect();
        let total: u64 = sizes.iter().sum();
        let mut scratch = Scratch::new(Isa::best());
        let mut sum = [0.0; 4];
        let mut next = draws(seed);
        for _ in 0..samples {
            let mut pick = next() % total;
            let fi = sizes
                .iter()
                .position(|&s| {
                    let here = pick < s;
                    pick = pick.wrapping_sub(s);
                    here
                })
                .unwrap();
            let f = &frames[fi];
            let e = random_set(f, &mut next);
            add(&mut sum, timed(f, e, None, &mut scratch));
        }
        let [tested, sols, secs, pats] = sum;
        let scale = total as f64 / samples as f64;
        (
            tested * scale,
            sols * scale,
            secs * scale,
            pats * scale,
            total as f64,
        )
    }

    #[test]
    fn border_frames_count_the_known_values() {
        // Every set of every border frame (Frame::all_border), n = 6..12: the known totals.
        let mut scratch = Scratch::default();
        for n in [6u32, 8, 10, 12] {
            let mut total = 0u128;
            for f in Frame::all_border(n) {
                for e in sets(f.rows.len() as u32, f.east_queens()) {
                    total += u128::from(f.count_set(e, None, &mut scratch).solutions);
                }
            }
            assert_eq!(total, known::lookup(n).unwrap().total, "n = {n}");
        }
    }

    #[test]
    #[ignore]
    fn border_frames_sampled() {
        let (n, k, q) = experiment();
        let plan = sampled(&Frame::all(n), k, None, 7);
        let border_frames = Frame::all_border(n);
        let border = sampled_uniform(&border_frames, k, 7);
        for (name, r, frames) in [("plan", plan, 1), ("border", border, border_frames.len())] {
            println!("n={n} {name}: sets {:.3e} sols/Q {:.3} tested/sol {:.1} patterns/sol {:.4} ns/sol {:.2} frames {frames}",
                r.4, r.1 / q, r.0 / q, r.3 / q, r.2 * 1e9 / q);
        }
    }

    /// Calls `f` with every counted set of every frame of n, its lists prepared (with the
    /// quadrant table) in `scratch`; sets with nothing to join are skipped.
    fn each_prepared_set(
        n: u32,
        table: &QuadrantTable,
        scratch: &mut Scratch,
        mut f: impl FnMut(&Frame, &mut Scratch),
    ) {
        for frame in Frame::all(n) {
            for e in sets(frame.rows.len() as u32, frame.east_queens()) {
                if frame.weight(e).0 == 0 {
                    continue;
                }
                frame.prepare_set(e, Some(table), scratch);
                if !scratch.east.is_empty() {
                    f(&frame, scratch);
                }
            }
        }
    }

    #[test]
    #[ignore]
    fn symmetry_factor() {
        for n in 14u32..=20 {
            let table = QuadrantTable::build(n / 2);
            let mut scratch = Scratch::default();
            let (mut w, mut u, mut t, mut hit_w1, mut tested_w1) = (0u64, 0u64, 0u64, 0u64, 0u64);
            let _ = (&mut hit_w1, &mut tested_w1);
            each_prepared_set(n, &table, &mut scratch, |f, scratch| {
                let j = f.join_prepared(scratch, join::Sample::ALL);
                w += j.pairs;
                t += j.tested;
                for x in scratch.west.iter_mut() {
                    x.1 = 1;
                }
                scratch.weights = [1; 3];
                u += f.join_prepared(scratch, join::Sample::ALL).pairs;
            });
            let q = known::lookup(n).unwrap().total;
            println!("n={n} weighted {w} (Q {q}) unweighted {u} factor {:.3} tested/found {:.2} tested/sol {:.2}", w as f64 / u as f64, t as f64 / u as f64, t as f64 / q as f64);
        }
    }

    /// Where even boards' extra pairs come from: over every counted set of n = EXP_N (no
    /// lists swapped), the candidate pairs P = Σ |east| · |west| (west patterns of nonzero
    /// weight), the disjoint pairs found U (unweighted) and the pairs tested T. U / P is the
    /// lists' own density of compatible pairs, which no join changes; T / P is what the
    /// join's key leaves to test; T / U, their ratio, is the pairs tested a pair found.
    #[test]
    #[ignore]
    fn density_and_pruning() {
        let n: u32 = std::env::var("EXP_N").unwrap().parse().unwrap();
        let table = QuadrantTable::build(n / 2);
        let mut scratch = Scratch {
            force_swap: Some(false),
            ..Scratch::default()
        };
        let (mut p, mut u, mut t, mut sets_n, mut east_n, mut west_n) =
            (0f64, 0f64, 0f64, 0f64, 0f64, 0f64);
        // Per class of west pattern (on no, one or both long diagonals), each class joined
        // alone: patterns, candidate pairs, pairs found, pairs tested.
        let by_class = n.is_multiple_of(2);
        let mut classes = [[0f64; 4]; 3];
        each_prepared_set(n, &table, &mut scratch, |f, scratch| {
            // Unswapped, the west list holds only patterns of nonzero weight.
            let weights = scratch.weights;
            for x in scratch.west.iter_mut() {
                x.1 = 1;
            }
            let west = scratch.west.len() as f64;
            scratch.weights = [1; 3];
            let j = f.join_prepared(scratch, join::Sample::ALL);
            p += scratch.east.len() as f64 * west;
            u += j.pairs as f64;
            t += j.tested as f64;
            sets_n += 1.0;
            east_n += scratch.east.len() as f64;
            west_n += west;
            if by_class {
                // Even boards: the west patterns by the long diagonals they take, from the
                // masks as made (the west list drops those bits; their places as in
                // `prepare_with`). The next set makes its lists anew.
                let anti = 1u64 << (n - 1 - f.shared_lo());
                let long = anti | anti << f.shared_len();
                let made: Vec<u64> = scratch.west_masks.as_slice().to_vec();
                for (c, class) in classes.iter_mut().enumerate() {
                    scratch.west = made
                        .iter()
                        .filter(|&&w| (w & long).count_ones() as usize == c)
                        .filter(|_| weights[c] > 0)
                        .map(|&w| (w & !long, 1))
                        .collect();
                    if scratch.west.is_empty() {
                        continue;
                    }
                    let j = f.join_prepared(scratch, join::Sample::ALL);
                    class[0] += scratch.west.len() as f64;
                    class[1] += scratch.east.len() as f64 * scratch.west.len() as f64;
                    class[2] += j.pairs as f64;
                    class[3] += j.tested as f64;
                }
            }
        });
        println!(
            "n={n}: sets {sets_n:.3e} east/set {:.3e} west/set {:.3e} density U/P {:.3e} kept T/P {:.3e} tested/found {:.1}",
            east_n / sets_n, west_n / sets_n, u / p, t / p, t / u
        );
        let found: f64 = classes.iter().map(|x| x[2]).sum();
        let tested: f64 = classes.iter().map(|x| x[3]).sum();
        for (c, [w, p, u, t]) in classes.iter().enumerate().filter(|x| x.1[1] > 0.0) {
            println!(
                "  west on {c} long diagonals: share of west {:.3} density {:.3e} share of pairs found {:.3} share of pairs tested {:.3} tested/found {:.1}",
                w / west_n,
                u / p,
                u / found,
                t / tested,
                t / u
            );
        }
    }

    /// The lead of the module doc's "odd boards' per-set costs": two-queen frames with the
    /// same middle-column queen (r, h) and the middle-row queen (h, c) on the same side share
    /// their rows, and their full side (h queens in h columns) differs only by the two
    /// diagonals of (h, c). Measures, over `EXP_K` sampled sets of each such group, the
    /// share of the group's list without (h, c) (`shared`) that each frame keeps, and the
    /// time of making and sorting both lists (`prepare_set` + `keep_prepared`).
    #[test]
    #[ignore]
    fn odd_groups_share() {
        let (n, k, _) = experiment();
        let h = n as u8 / 2;
        let table = QuadrantTable::build(n / 2);
        let mut groups: std::collections::BTreeMap<(u8, bool), Vec<Frame>> = Default::default();
        for f in Frame::all(n).into_iter().filter(|f| f.pre.len() == 2) {
            let key = (f.pre[1].0, f.pre[0].1 < h);
            groups.entry(key).or_default().push(f);
        }
        let mut scratch = Scratch::default();
        // Seconds to make and sort set e's lists of frame f, and their lengths.
        let mut made_and_sorted = |f: &Frame, e: u32| {
            let clock = std::time::Instant::now();
            f.prepare_set(e, Some(&table), &mut scratch);
            let (east, west) = scratch.list_lens();
            if east > 0 {
                f.keep_prepared(&mut scratch);
            }
            (clock.elapsed().as_secs_f64(), east, west)
        };
        let mut x = 99u64;
        let (mut kept, mut shared, mut short, mut frames_full, mut once) =
            (0.0, 0.0, 0.0, 0.0, 0.0);
        let (mut t_frames, mut t_shared) = (0.0, 0.0);
        let mut sizes = Vec::new();
        for g in groups.values() {
            sizes.push(g.len());
            let mut s = g[0].clone();
            s.pre = vec![g[0].pre[1]];
            let full_east = s.east.count_ones() == u32::from(h);
            let m = s.rows.len() as u32;
            let all: Vec<u32> = sets(m, s.east_queens()).collect();
            for _ in 0..k {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let e = all[(x >> 33) as usize % all.len()];
                let (secs, se, sw) = made_and_sorted(&s, e);
                t_shared += secs;
                let s_full = if full_east { se } else { sw } as f64;
                once += s_full;
                for f in g {
                    assert_eq!(f.rows, s.rows);
                    let (secs, fe, fw) = made_and_sorted(f, e);
                    t_frames += secs;
                    let (full, other) = if full_east { (fe, fw) } else { (fw, fe) };
                    kept += full as f64;
                    frames_full += full as f64;
                    short += other as f64;
                    shared += s_full;
                }
            }
        }
        let frames: usize = sizes.iter().sum();
        println!(
            "n={n} groups {} frames {frames} sizes {sizes:?}: a frame keeps {:.3} of its group's \
             full list; full {:.3e} short {:.3e} patterns a frame and set; shared list once a \
             group: {:.3} of the frames' items; time halves+sort: frames {:.3} s, shared list \
             once a group {:.3} s",
            groups.len(),
            kept / shared,
            frames_full / (frames * k) as f64,
            short / (frames * k) as f64,
            (once + short) / (frames_full + short),
            t_frames,
            t_shared
        );
    }

    #[test]
    #[ignore]
    fn long_frames_experiment() {
        for n in [4u32, 6, 8, 10, 12, 14, 16, 18] {
            let table = QuadrantTable::build(n / 2);
            let want = known::lookup(n).unwrap().total;
            let old = profile(&Frame::all(n), n, Some(&table));
            let new_frames = Frame::all_long(n);
            let new = profile(&new_frames, n, Some(&table));
            println!("n={n} want {want} old {} new {} | frames {} | sets {} vs {} | tested {} vs {} ({:.2}) | patterns {} vs {} | time {:.3} vs {:.3}",
                old.0, new.0, new_frames.len(), old.3, new.3, old.1.tested, new.1.tested,
                new.1.tested as f64 / old.1.tested.max(1) as f64, old.1.patterns, new.1.patterns, old.2, new.2);
        }
    }

    #[test]
    fn a_set_counted_in_parts_counts_the_same() {
        // Every set of n = 8..13 (even and odd frames), with and without the table, cut
        // into parts of each side: the solutions are those of the whole set.
        let stop = AtomicBool::new(false);
        let mut scratch = Scratch::default();
        for n in 8u32..=13 {
            let table = QuadrantTable::build(n / 2);
            for t in [None, Some(&table)] {
                for f in Frame::all(n) {
                    for e in sets(f.rows.len() as u32, f.east_queens()) {
                        let whole = f.count_set(e, t, &mut scratch);
                        for parts in [(1, 3), (2, 1), (3, 5), (7, 2)] {
                            let cut = f
                                .count_set_in_parts(e, t, parts, &mut scratch, &stop)
                                .unwrap();
                            assert_eq!(
                                cut.solutions,
                                whole.solutions,
                                "n = {n}, set {e:b}, parts {parts:?}, table {}",
                                t.is_some()
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_frames_full_list_is_its_groups_filtered() {
        // Every two-queen frame of n = 9..15 and every set, searched with and without the
        // table: the group's full-side list less the patterns on the middle-row queen's
        // diagonals is the frame's own list, mask for mask and in order (run_bundle's
        // joins then count run_unit's solutions).
        let mut scratch = Scratch::default();
        let mut full = MaskList::default();
        for n in (9u32..=15).step_by(2) {
            let table = QuadrantTable::build(n / 2);
            let mut checked = 0;
            for t in [None, Some(&table)] {
                for f in Frame::all(n).into_iter().filter(|f| f.group().is_some()) {
                    let group = f.group_frame();
                    for e in sets(f.rows.len() as u32, f.east_queens()) {
                        f.prepare_set(e, t, &mut scratch);
                        let own: Vec<u64> = match f.full_east() {
                            true => scratch.east.as_slice().to_vec(),
                            false => scratch.west_masks.as_slice().to_vec(),
                        };
                        full.clear();
                        group.full_side(e, t, &mut scratch, &mut full);
                        let mut kept = MaskList::default();
                        Full {
                            masks: full.as_slice(),
                            block: f.full_block(),
                        }
                        .filter_into(&mut kept);
                        assert_eq!(kept.as_slice(), own, "n = {n}, {:?}, set {e:b}", f.pre);
                        checked += usize::from(!own.is_empty() && own.len() < full.len());
                    }
                }
            }
            assert!(checked > 100, "n = {n}: {checked} sets filtered something");
        }
    }

    /// Times `EXP_K` random (group, prefix) bundles of n = `EXP_N` counted unit by unit
    /// and together (`Context::run_bundle`), alternating which goes first, on one thread.
    #[test]
    #[ignore]
    fn bundles_timed() {
        let (n, k, _) = experiment();
        let stop = AtomicBool::new(false);
        let mut scratch = Scratch::default();
        // EXP_TABLE=1: with the quadrant table whatever its size (n = 24, 25: 5 GB); 0:
        // without it at any n.
        let config = crate::engine::Config {
            table_limit: match std::env::var("EXP_TABLE").as_deref() {
                Ok("1") => u64::MAX,
                Ok("0") => 0,
                _ => crate::engine::Config::default().table_limit,
            },
            ..Default::default()
        };
        let ctx = crate::engine::quadrant::Context::build_until(n, &config, &NEVER).unwrap();
        println!("table: {}", ctx.table.is_some());
        let mut bundles: std::collections::BTreeMap<u16, Vec<u16>> = Default::default();
        for (i, &g) in ctx.group_of.iter().enumerate() {
            bundles.entry(g).or_default().push(i as u16);
        }
        // Bundles drawn with probability by their frames (a random unit's bundle).
        let frames: Vec<&Vec<u16>> = bundles
            .values()
            .flat_map(|b| std::iter::repeat_n(b, b.len()))
            .collect();
        let (mut alone, mut together, mut big) = (0.0, 0.0, (0.0, 0.0));
        let mut x: u64 = std::env::var("EXP_SEED").map_or(7, |s| s.parse().unwrap());
        for i in 0..k {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let b = frames[(x >> 33) as usize % frames.len()];
            let prefixes: Vec<u32> = ctx.frames[b[0] as usize].unit_prefixes(n).collect();
            let prefix = prefixes[(x >> 17) as usize % prefixes.len()];
            let mut one = |by_unit: bool| {
                let clock = std::time::Instant::now();
                let r: Vec<u64> = match by_unit {
                    true => b
                        .iter()
                        .map(|&f| ctx.run_unit(f, prefix, &mut scratch, &stop).unwrap())
                        .map(|r| r.solutions)
                        .collect(),
                    // Solutions only: a shared sort's key is the group's, so the pairs
                    // tested differ from a unit's alone.
                    false => ctx
                        .run_bundle(b, prefix, &mut scratch, &stop)
                        .unwrap()
                        .iter()
                        .map(|r| r.solutions)
                        .collect(),
                };
                (clock.elapsed().as_secs_f64(), r)
            };
            let ((ta, ra), (tb, rb)) = match i % 2 {
                0 => (one(true), one(false)),
                _ => {
                    let b = one(false);
                    (one(true), b)
                }
            };
            assert_eq!(ra, rb);
            alone += ta;
            together += tb;
            if b.len() >= SHARED_FROM {
                big.0 += ta;
                big.1 += tb;
            }
        }
        println!(
            "n={n} {k} bundles: unit by unit {alone:.2} s, together {together:.2} s, ratio \
             {:.3}; bundles of {SHARED_FROM} or more frames {:.2} s, {:.2} s, ratio {:.3}",
            together / alone,
            big.0,
            big.1,
            big.1 / big.0
        );
    }

    #[test]
    fn a_bundle_counts_each_unit_as_alone() {
        // Every group of n = 11, 13, 15 and 17 with each seventh of its unit prefixes, all
        // its frames and a part of them together: each frame's solutions are those of its
        // unit run alone. Its tested pairs too where its join is not shared (lists too
        // short: n <= 15); from n = 17 some are shared, with the group's key.
        let stop = AtomicBool::new(false);
        let mut scratch = Scratch::default();
        for n in [11u32, 13, 15, 17] {
            let mut shared = 0;
            let ctx = crate::engine::quadrant::Context::build(n);
            let mut bundles: std::collections::BTreeMap<u16, Vec<u16>> = Default::default();
            for (i, &g) in ctx.group_of.iter().enumerate() {
                bundles.entry(g).or_default().push(i as u16);
            }
            assert!(bundles.values().any(|b| b.len() >= 3), "n = {n}");
            for frames in bundles.values() {
                let f = &ctx.frames[frames[0] as usize];
                for prefix in f.unit_prefixes(n).step_by(7) {
                    let alone: Vec<SetResult> = frames
                        .iter()
                        .map(|&i| ctx.run_unit(i, prefix, &mut scratch, &stop).unwrap())
                        .collect();
                    for take in [frames.len(), frames.len().div_ceil(2)] {
                        let some = &frames[frames.len() - take..];
                        let together = ctx.run_bundle(some, prefix, &mut scratch, &stop).unwrap();
                        for (r, a) in together.iter().zip(&alone[frames.len() - take..]) {
                            assert_eq!(
                                r.solutions, a.solutions,
                                "n = {n}, frames {some:?}, prefix {prefix:b}"
                            );
                            assert!(n >= 17 || r.tested == a.tested, "n = {n}: shared");
                            shared += usize::from(r.tested != a.tested);
                        }
                    }
                }
            }
            assert!(n < 17 || shared > 0, "n = {n}: no join was shared");
        }
    }

    #[test]
    fn a_timed_bundle_set_counts_what_its_units_count() {
        // `nqueens estimate`'s way of timing a bundle (one set of it, its joins clocked by
        // phase): on every set of a few prefixes of n = 17's groups of three frames or
        // more, the solutions and lists of the frames' sets counted alone, and time in
        // the joins' two phases.
        let n = 17;
        let ctx = crate::engine::quadrant::Context::build(n);
        let mut scratch = Scratch::default();
        let mut bundles: std::collections::BTreeMap<u16, Vec<u16>> = Default::default();
        for (i, &g) in ctx.group_of.iter().enumerate() {
            bundles.entry(g).or_default().push(i as u16);
        }
        let (mut timed, mut sorted) = (0, 0);
        for frames in bundles.values() {
            let with: Vec<(&Frame, &units::Proxy)> = frames
                .iter()
                .map(|&i| (&ctx.frames[i as usize], &ctx.proxies[i as usize]))
                .collect();
            let (lead, p) = (with[0].0, ctx.prefix_rows[frames[0] as usize]);
            let group = lead.group_frame();
            for prefix in lead.unit_prefixes(n).step_by(11) {
                for e in lead.sets_with_prefix(p, prefix) {
                    let got = time_bundle_set(
                        &with,
                        &group,
                        e,
                        ctx.table.as_ref(),
                        LIST_BUDGET,
                        &mut scratch,
                    );
                    let Some(got) = got else {
                        assert!(frames.len() < SHARED_FROM, "frames {frames:?}");
                        continue;
                    };
                    let (mut want, mut lists) = (0, (0, 0));
                    for (f, _) in &with {
                        want += f.count_set(e, ctx.table.as_ref(), &mut scratch).solutions;
                        let (east, west) = scratch.list_lens();
                        lists = (lists.0 + east as u64, lists.1 + west as u64);
                    }
                    assert_eq!(got.counted.solutions, want, "frames {frames:?}, set {e:b}");
                    assert_eq!((got.east, got.west), lists, "frames {frames:?}, set {e:b}");
                    assert!(got.join > 0.0, "{got:?}");
                    timed += 1;
                    sorted += usize::from(got.sort > 0.0);
                }
            }
        }
        assert!(
            timed > 50 && sorted > 0,
            "{timed} sets timed, {sorted} sorted"
        );
    }

    #[test]
    fn a_swapped_join_counts_the_same() {
        // Every set of n = 8..14 (odd frames, and even sets with weights 2a and 4a, or a,
        // 2a and 4a), with and without the table, joined as made and swapped: the same
        // solutions set by set, and the known totals.
        let (mut made, mut swapped) = (Scratch::default(), Scratch::default());
        made.force_swap = Some(false);
        swapped.force_swap = Some(true);
        for n in 8u32..=14 {
            let table = QuadrantTable::build(n / 2);
            for t in [None, Some(&table)] {
                let (mut total, mut joins_swapped) = (0, 0);
                for f in Frame::all(n) {
                    for e in sets(f.rows.len() as u32, f.east_queens()) {
                        let want = f.count_set(e, t, &mut made);
                        let got = f.count_set(e, t, &mut swapped);
                        assert_eq!(got.solutions, want.solutions, "n = {n}, set {e:b}");
                        assert!(!made.swap.on);
                        // The swapped lists hold every weighted west pattern.
                        assert_eq!(swapped.list_lens(), made.list_lens(), "n = {n}");
                        joins_swapped += usize::from(swapped.swap.on);
                        // `nqueens estimate`'s path: the lists kept, then every piece.
                        f.prepare_set(e, t, &mut swapped);
                        if !swapped.east.is_empty() {
                            f.keep_prepared(&mut swapped);
                            let kept = f.join_kept(&mut swapped, join::Sample::ALL);
                            assert_eq!(kept.pairs, want.solutions, "n = {n}, set {e:b}");
                        }
                        total += u128::from(got.solutions);
                    }
                }
                assert_eq!(total, known::lookup(n).unwrap().total, "n = {n}");
                assert!(joins_swapped > 10, "n = {n}: {joins_swapped} swapped");
            }
        }
    }

    #[test]
    fn swapping_takes_only_the_sets_it_shortens() {
        let w = [2, 2, 4];
        // n = 22's mean set (7.4e4 east, 2.5e5 west patterns) is swapped, and from n = 22
        // a set the size of n = 20's mean (1.1e4 and 3.6e4); at n = 20 not. n = 24's mean
        // set (5.8e5 and 1.8e6) is not, but a smaller n = 24 set (3e5 and 9e5) is; nor a
        // west list shorter than its east list, nor one whose repeats would pass 4
        // million masks.
        assert!(Swap::pays(22, 74_000, 250_000, w));
        assert!(Swap::pays(22, 11_000, 36_000, w));
        assert!(!Swap::pays(20, 11_000, 36_000, w));
        assert!(Swap::pays(20, 40_000, 120_000, w));
        assert!(!Swap::pays(22, 3_000, 36_000, w));
        assert!(!Swap::pays(22, 580_000, 1_800_000, w));
        assert!(Swap::pays(24, 300_000, 900_000, w));
        assert!(!Swap::pays(22, 100_000, 90_000, w));
        assert!(!Swap::pays(22, 100_000, 2_500_000, w));
        assert!(Swap::pays(22, 100_000, 2_000_000, w));
        // Weights a, 2a and 4a repeat a mask up to 4 times.
        assert!(!Swap::pays(22, 100_000, 2_000_000, [1, 2, 4]));
        assert!(!Swap::pays(22, 0, 1, w));
    }

    #[test]
    fn the_parts_of_a_half_split_its_patterns() {
        // The patterns of parts 0..k of one half are those of the whole half, each once.
        let f = &Frame::all(12)[0];
        let table = QuadrantTable::build(6);
        let mut scratch = Scratch::default();
        for e in sets(12, 6).take(200) {
            let mut whole = Vec::new();
            f.prepare_set(e, Some(&table), &mut scratch);
            whole.extend(scratch.west.iter().copied());
            if scratch.east.is_empty() {
                continue;
            }
            let east = scratch.east.as_slice().to_vec();
            let mut cut = Vec::new();
            for j in 0..4 {
                let west = Part { index: j, of: 4 };
                f.prepare_part(e, Some(&table), &mut scratch, Part::WHOLE, west, true);
                assert_eq!(scratch.east.as_slice(), east.as_slice());
                cut.extend(scratch.west.iter().copied());
            }
            whole.sort_unstable();
            cut.sort_unstable();
            assert_eq!(cut, whole, "set {e:b}");
        }
    }

    #[test]
    fn only_sets_beyond_the_budget_are_cut() {
        // n <= 24: one part each for every set tried; a set of n = 28: the west list is
        // cut (about 1.7e8 patterns in a mean set).
        for n in [16u32, 20, 24] {
            let f = &Frame::all(n)[0];
            let m = f.rows.len() as u32;
            for e in sets(m, f.east_queens()).step_by(997).take(50) {
                assert_eq!(f.parts(e), (1, 1), "n = {n}, set {e:b}");
            }
        }
        let f = &Frame::all(28)[0];
        let e = sets(28, 14).nth(20_000_000).unwrap();
        let (east, west) = f.parts(e);
        assert!(west > 1 && east >= 1, "n = 28: {east} x {west} parts");
        // A larger budget cuts the same set into fewer parts; a smaller one is taken as
        // the 1 GiB every thread may hold.
        let proxy = units::Proxy::new(f);
        let (e8, w8) = f.parts_with(&proxy, e, 8 << 30);
        assert!(e8 * w8 < east * west, "8 GiB: {e8} x {w8} parts");
        assert_eq!(f.parts_with(&proxy, e, 1 << 20), (east, west));
    }
}
