//! The fast path: several border searches interleaved in one loop, without a data-dependent
//! branch per node.
//!
//! # Why
//!
//! A plain backtracking loop (`InnerBoard::count`) takes a branch at every node whose
//! outcome depends on the data ("does this child have free cells?", "is this row
//! exhausted?"). Those branches are mispredicted about as often as not, and a misprediction
//! costs ~15–20 cycles; that, not arithmetic, is the cost of a node. Here every step of the
//! search is straight-line code. The stack holds only rows that still have candidates; a
//! step takes the lowest candidate of the top row, computes the child row, and moves the
//! stack pointer with arithmetic on booleans instead of jumps:
//!
//! ```text
//! (free, masks, depth) = stack[top]; bit = free & -free; rest = free ^ bit
//! stack[top].free = rest; placed[depth] += 1
//! child = allowed[depth+1] & !(cols | bit | (diag_down | bit) << s | (diag_up | bit) >> s)
//! stack[top + (rest != 0)] = (child, masks with bit, depth + 1)   // written even if dead
//! top += (rest != 0 && child != 0) - (rest == 0 && child == 0)
//! ```
//!
//! Every step places a queen: a row whose last candidate is taken is overwritten by its
//! child, so there are no empty "pop" steps. `allowed` is 0 past the last row, so the last
//! row's queens are counted (`placed[last]` = solutions) and never pushed.
//!
//! One such step is a chain of dependent operations (load, bit trick, shifts, compare, the
//! new depth, the next load), so one search alone would wait on its own latency. `LANES`
//! independent searches are therefore advanced in turn inside the same loop; their chains
//! do not depend on each other, so the CPU overlaps them. The only branch left is "did a
//! lane finish its work item?", which is rarely true and predicted well.
//!
//! Measured (n = 15, one thread, CPU time, 2-core Xeon): the plain loop 396 ms, this loop
//! 170 ms for the same 51.8 million nodes, 2.3x the node rate.
//!
//! # Work items
//!
//! Lanes take work items from a list: a work item is a row with candidates and the masks
//! above it, at first one per unit (its first-row queen). When a call has too few items to
//! keep the lanes busy to the end (a batch of one big unit, as for n >= 22 or an MPI rank),
//! the items are split by the queens of their next row, breadth first, until there are 64.
//! The last few items of a list run one at a time. Measured at n = 17, one thread: batches
//! of 256 units 4.38 s, of one unit (every unit split) 4.68 s.

use std::sync::atomic::{AtomicBool, Ordering};

use super::border::InnerBoard;
use crate::engine::board::bits;
use crate::engine::isa::{self, Isa};

/// Searches advanced together. Four keeps the chains of a Skylake-class core busy; more
/// lanes gain nothing measurable and cost cache space.
pub const LANES: usize = 4;

/// One entry of a lane's stack: a row with candidates left, and the masks above it.
#[derive(Clone, Copy, Default)]
struct Entry {
    free: u64,
    cols: u64,
    diag_down: u64,
    diag_up: u64,
    /// Search depth of this row (index into the board's per-depth tables).
    depth: u64,
}

/// One search in progress.
///
/// The stack holds only rows that still have candidates (`free != 0`); a row whose last
/// candidate is taken is replaced by its child instead of staying on the stack. So every
/// step places a queen (no empty "pop" steps), and the stack pointer moves by `+1` (child
/// alive, row has more candidates), `0` (one of them only) or `-1` (neither).
struct Lane {
    /// `stack[1..=top]`; `top == 0` means the task is done.
    stack: [Entry; 64],
    top: usize,
    /// Per depth `d`: allowed cells of depth `d + 1` (0 past the last row, so nothing is
    /// ever pushed there) and the row distance to it.
    allowed_next: [u64; 64],
    shift: [u32; 64],
    /// Queens placed at each depth during the current task; the last depth's count is the
    /// number of solutions, the sum is the number of nodes.
    placed: [u64; 64],
    rows: usize,
    /// Index of the board this lane works on.
    board: usize,
}

impl Lane {
    fn idle() -> Lane {
        Lane {
            stack: [Entry::default(); 64],
            top: 0,
            allowed_next: [0; 64],
            shift: [0; 64],
            placed: [0; 64],
            rows: 0,
            board: usize::MAX,
        }
    }

    /// Starts the work item `entry` (a row of board `index` with candidates left, and the
    /// masks of the queens above it).
    // Kept out of line (as is `harvest`): inlined into the interleaved loop they cost it
    // registers, measured 5% slower at n = 17.
    #[inline(never)]
    fn start(&mut self, index: usize, board: &InnerBoard, entry: Entry) {
        debug_assert!(entry.free != 0, "work items start on a row with candidates");
        let rows = board.rows;
        self.allowed_next[..rows].copy_from_slice(&board.allowed_by_level[2..rows + 2]);
        self.allowed_next[rows - 1] = 0;
        self.shift[..rows].copy_from_slice(&board.shift_by_level[1..rows + 1]);
        self.placed[..rows].fill(0);
        self.rows = rows;
        self.board = index;
        self.stack[1] = entry;
        self.top = 1;
    }

    /// One node of the search, with no data-dependent branch.
    #[inline(always)]
    fn step(&mut self) {
        // `& 63` keeps every index provably inside the arrays (stack and depth never exceed
        // 62 for n <= 64), so the compiler drops the bounds checks.
        let top = self.top & 63;
        let Entry {
            free,
            cols,
            diag_down,
            diag_up,
            depth,
        } = self.stack[top];
        let d = depth as usize & 63;
        let bit = free & free.wrapping_neg(); // lowest free column: 0b0110 -> 0b0010
        let rest = free ^ bit;
        self.stack[top].free = rest;
        self.placed[d] += 1;
        let s = self.shift[d];
        let cols = cols | bit;
        let diag_down = (diag_down | bit).wrapping_shl(s);
        let diag_up = (diag_up | bit).wrapping_shr(s);
        let child = self.allowed_next[d] & !(cols | diag_down | diag_up);
        // The child goes above this row if the row has candidates left, else in its place.
        // A dead child is written too (and then ignored): writing is cheaper than deciding.
        let more = usize::from(rest != 0);
        let alive = usize::from(child != 0);
        self.stack[(top + more) & 63] = Entry {
            free: child,
            cols,
            diag_down,
            diag_up,
            depth: depth + 1,
        };
        self.top = (top + (more & alive)).wrapping_sub((more | alive) ^ 1);
    }

    /// Adds the finished task's counts to `results` and clears them.
    #[inline(never)]
    fn harvest(&mut self, results: &mut [(u64, u64)]) {
        let placed = &self.placed[..self.rows];
        let r = &mut results[self.board];
        r.0 += placed[self.rows - 1];
        r.1 += placed.iter().sum::<u64>();
    }

    #[inline(always)]
    fn finish_alone(&mut self, results: &mut [(u64, u64)]) {
        while self.top != 0 {
            self.step();
        }
        self.harvest(results);
    }
}

/// One task: a board, and the cells its first searched row may use (one bit per unit).
pub type Task<'a> = (&'a InnerBoard, u64);

/// Counts the completions of every task with the lanes compiled for `isa`; returns
/// `(solutions, nodes)` per task, or `None` if `stop` was raised first.
pub fn count_tasks(tasks: &[Task], isa: Isa, stop: &AtomicBool) -> Option<Vec<(u64, u64)>> {
    #[cfg(target_arch = "x86_64")]
    if isa.runs_v3_twin() {
        // SAFETY: runs_v3_twin() is true only where is_x86_feature_detected! found every
        // feature count_tasks_v3 is compiled with.
        #[allow(unsafe_code)]
        return unsafe { count_tasks_v3(tasks, stop) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = isa; // one instruction set elsewhere: the build's own
    count_tasks_body(tasks, stop)
}

isa::v3_fn! {
    /// [`count_tasks`] compiled for x86-64-v3 ([`isa`]): `blsi`, `andn`, `shlx`/`shrx`.
    fn count_tasks_v3(tasks: &[Task], stop: &AtomicBool) -> Option<Vec<(u64, u64)>> {
        count_tasks_body(tasks, stop)
    }
}

/// The lanes, inlined into each instruction set's copy.
#[inline(always)]
fn count_tasks_body(tasks: &[Task], stop: &AtomicBool) -> Option<Vec<(u64, u64)>> {
    let mut results = vec![(0u64, 0u64); tasks.len()];
    // Lanes take one first-row queen at a time. Boards with fewer than two rows need no
    // search.
    let mut work: Vec<(usize, Entry)> = Vec::with_capacity(tasks.len());
    for (t, &(board, first)) in tasks.iter().enumerate() {
        let free = board.first_choices() & first;
        if board.rows < 2 {
            results[t] = board.count_from(first);
        } else if free != 0 {
            work.push((
                t,
                Entry {
                    free,
                    ..Entry::default()
                },
            ));
        }
    }
    // Too few items to keep the lanes busy to the end (a batch of one big unit, say): split
    // them by the queens of their next row, breadth first, until there are enough. The
    // queens placed by splitting are counted here; the lanes count the rest.
    const ENOUGH: usize = 16 * LANES;
    while work.len() < ENOUGH
        && work
            .iter()
            .any(|(t, e)| e.depth as usize + 2 < tasks[*t].0.rows)
    {
        let mut finer = Vec::with_capacity(work.len() * 8);
        for (t, e) in work {
            let board = tasks[t].0;
            let d = e.depth as usize;
            if d + 2 >= board.rows {
                finer.push((t, e));
                continue;
            }
            let s = board.shift_by_level[d + 1];
            for bit in bits(e.free) {
                results[t].1 += 1;
                let cols = e.cols | bit;
                let diag_down = (e.diag_down | bit) << s;
                let diag_up = (e.diag_up | bit) >> s;
                let free = board.allowed_by_level[d + 2] & !(cols | diag_down | diag_up);
                if free != 0 {
                    finer.push((
                        t,
                        Entry {
                            free,
                            cols,
                            diag_down,
                            diag_up,
                            depth: e.depth + 1,
                        },
                    ));
                }
            }
        }
        work = finer;
    }
    let mut next = work.iter();
    let mut lanes: [Lane; LANES] = std::array::from_fn(|_| Lane::idle());
    let mut filled = 0;
    for lane in lanes.iter_mut() {
        let Some(&(t, item)) = next.next() else { break };
        lane.start(t, tasks[t].0, item);
        filled += 1;
    }
    if filled == LANES {
        let mut rounds: u32 = 0;
        'interleaved: loop {
            for lane in lanes.iter_mut() {
                lane.step();
            }
            rounds = rounds.wrapping_add(1);
            if rounds.is_multiple_of(1 << 22) && stop.load(Ordering::Relaxed) {
                return None;
            }
            if lanes.iter().any(|l| l.top == 0) {
                for lane in lanes.iter_mut().filter(|l| l.top == 0) {
                    lane.harvest(&mut results);
                    match next.next() {
                        Some(&(t, item)) => lane.start(t, tasks[t].0, item),
                        None => {
                            lane.board = usize::MAX;
                            break 'interleaved;
                        }
                    }
                }
            }
        }
    }
    // The tail: finish what the lanes hold, then any work left, one search at a time.
    for lane in lanes.iter_mut().filter(|l| l.board != usize::MAX) {
        lane.finish_alone(&mut results);
    }
    let mut solo = Lane::idle();
    for &(t, item) in next {
        solo.start(t, tasks[t].0, item);
        solo.finish_alone(&mut results);
    }
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    Some(results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plan::{UnitKind, UnitPlan};

    /// The interleaved lanes agree with the plain loop on every border of several n, node
    /// counts included, and whatever the batch size.
    #[test]
    fn lanes_agree_with_the_plain_search() {
        let never = AtomicBool::new(false);
        for n in [4usize, 5, 8, 11, 12] {
            let boards = border_boards(n);
            // Whole boards, and boards restricted to one first-row queen.
            let mut tasks: Vec<Task> = boards.iter().map(|b| (b, u64::MAX)).collect();
            for b in &boards {
                tasks.push((b, b.first_choices() & b.first_choices().wrapping_neg()));
            }
            let plain: Vec<(u64, u64)> = tasks
                .iter()
                .map(|(b, first)| b.count_from(*first))
                .collect();
            for batch in [1, 3, 64] {
                let fast: Vec<(u64, u64)> = tasks
                    .chunks(batch)
                    .flat_map(|c| count_tasks(c, Isa::best(), &never).unwrap())
                    .collect();
                assert_eq!(fast, plain, "n = {n}, batch {batch}");
            }
        }
    }

    fn border_boards(n: usize) -> Vec<InnerBoard> {
        let mut boards: Vec<InnerBoard> = UnitPlan::new(n as u32)
            .units()
            .iter()
            .filter_map(|u| match u.kind {
                UnitKind::Border { border, .. } => Some(border.search_board(n)),
                _ => None,
            })
            .collect();
        boards.dedup_by(|a, b| a.same_as(b));
        boards
    }

    #[test]
    fn raised_stop_gives_none() {
        let boards = border_boards(10);
        let tasks: Vec<Task> = boards.iter().map(|b| (b, u64::MAX)).collect();
        assert!(count_tasks(&tasks, Isa::best(), &AtomicBool::new(true)).is_none());
    }
}
