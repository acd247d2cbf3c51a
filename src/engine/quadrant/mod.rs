//! The quadrant engine: counts the solutions of an n×n board without backtracking over the
//! whole board, by joining half-board patterns (meet in the middle). The method is
//! E. Kluev's (after an idea on the deepgreen NQueens pages); this is our own code.
//!
//! ```text
//!            west half     east half
//!          +-----------+-----------+
//!   north  |    NW     |    NE     |   rows in E put their queen east,
//!          |           |           |   the other rows put it west
//!          +-----------+-----------+
//!   south  |    SW     |    SE     |
//!          |           |           |
//!          +-----------+-----------+
//! ```
//!
//! # The method
//!
//! Every solution of an even board (n = 2h) puts h queens in the east half (columns h..n)
//! and h in the west half. Let E be the set of rows whose queen is east. For a fixed E, a
//! solution is a pair (east pattern, west pattern): h queens in the rows of E, in distinct
//! east columns, no two on a diagonal; the same for the other rows in the west. Rows and
//! columns of the two halves never meet, so the pair is a solution exactly when no diagonal
//! holds a queen of each half. Only *shared* diagonals, crossing both halves, can: n - 1 of
//! each direction, 2(n - 1) = 38 bits at n = 20. So
//!
//! `total = Σ_E #{(e, w) : e ∈ East(E), w ∈ West(E), e & w = 0}`
//!
//! where East(E) and West(E) are lists of diagonal masks made by a small search per half
//! ([`half`], from the quadrant [`table`]) and the count of disjoint pairs is the
//! bit-sliced, bucketed join ([`join`]). There are C(n, h) sets E (184,756 at n = 20);
//! [`units`] groups them into the plan's units.
//!
//! Odd boards (n = 2h + 1) first place the queens of the middle row and the middle column
//! (one queen in the centre, or two); the rest is four h×h quadrants as above, with those
//! queens' diagonals blocked. Every placement of the two middle queens is a [`Frame`].
//!
//! The files: `frame` (the frames, their diagonal geometry, groups and the symmetry weight
//! of each set), `set` (counting one set E, in parts when its lists are large, or a group's
//! frames together), [`half`], [`join`],
//! [`table`], [`units`] (the plan's units and their estimate), [`model`] (the cost, time and
//! memory models the rest of the crate asks `Engine` for), [`sample`] (`nqueens estimate`'s
//! sampling inside a unit), and this file: the engine's plan units and the [`Context`] a
//! count builds once and shares between its threads.
//!
//! # Symmetry, and why each factor is exact
//!
//! *Even n.* Three facts, each from a symmetry that maps solutions one-to-one:
//!
//! 1. The north–south mirror maps a solution with east rows E to one with east rows
//!    rev(E) (row r -> n-1-r). So we count only E <= rev(E) and double E < rev(E):
//!    92,504 instead of 184,756 sets at n = 20 (the 252 self-mirrored sets count once).
//! 2. Each long diagonal holds at most one queen. The main diagonal crosses NW and SE, the
//!    anti-diagonal NE and SW. Reflection in the main diagonal fixes the main diagonal cell
//!    by cell and swaps the anti-diagonal's NE and SW parts; reflection in the anti-diagonal
//!    does the converse. So the solutions with the main-diagonal queen in SE are as many as
//!    those with it in NW, and likewise NE and SW for the anti-diagonal. We count only
//!    solutions whose east half leaves both long diagonals empty (the east lists shrink to
//!    27% at n = 16) and weigh each west pattern by 2 for each long diagonal it occupies. This
//!    weighting is global (the reflections change E), but it commutes with fact 1: the
//!    north–south mirror maps the NW part of the main diagonal onto the SW part of the
//!    anti-diagonal, so the kept solutions and their weights are mirror-invariant.
//! 3. A solution with both long diagonals empty keeps that property under the east–west
//!    mirror, which maps E to its complement Ē. So for those west patterns (weight 1) the
//!    mirror classes {E, rev E} and {Ē, rev Ē} have equal counts: the class with the
//!    smaller representative counts them twice and the other skips them.
//!
//! Worked check, n = 8: 38 sets E of 70 are counted (32 mirror pairs once, the 6
//! self-mirrored sets alone); the weighted pairs sum to 92.
//!
//! *Odd n.* The two middle queens (h, c) and (r, h) form one of (n-1)(n-3) + 1 placements
//! (c = r = h: the centre); the 8 symmetries of the square permute them, and a symmetry
//! maps the solutions around one placement one-to-one onto those around its image. So one
//! placement per orbit is counted, weighted by the orbit size (8, or 4 when a diagonal
//! reflection fixes it): at n = 17, 29 frames instead of 225. The centre frame is fixed by
//! every symmetry; there the north–south and east–west mirrors map E to rev(E) and to the
//! complement, and each class {E, rev E, Ē, rev Ē} is counted once with its size.
//!
//! # Where the time goes, per n
//!
//! `nqueens estimate N --json` projects each figure below from its sample (its
//! `breakdown`). One core of a 2-core AMD EPYC (Zen 4, family 25 model 17, AVX-512
//! VPOPCNTDQ), `estimate N -t 1` (48 units; 12 a draw from n = 26, `--seconds 150`), the
//! other core busy with a single-threaded job from n = 22, 2026-12-04 (morning), build
//! 834ad75 (the sort by `pext`, see `join::layout::sort_pext`); the symmetry factor and the
//! pairs per found pair by whole counts (test `symmetry_factor`, n = 14..20),
//! machine-independent:
//!
//! | n | half patterns / sort / pair tests | pairs tested a solution | sets counted | east / west patterns a set (mean) | CPU a solution |
//! |---|---|---|---|---|---|
//! | 20 | 33 / 21 / 46% | 104 | 9.3e4 | 1.1e4 / 3.6e4 | 2.95 ns |
//! | 21 | 44 / 25 / 31% | 39 | 4.2e6 | 1.1e4 / 2.3e3 | 4.28 ns |
//! | 22 | 17 / 17 / 66% | 97 | 3.3e5 | 8.1e4 / 2.4e5 | 1.85 ns |
//! | 23 | 26 / 25 / 49% | 36 | 1.9e7 | 6.9e4 / 1.4e4 | 1.77 ns |
//! | 24 | 13 / 11 / 75% | 81 | 1.2e6 | 5.5e5 / 2.0e6 | 1.28 ns |
//! | 25 | 25 / 23 / 52% | 32 | 8.8e7 | 5.3e5 / 9.4e4 | 1.19 ns |
//! | 26 | 6 / 5 / 89% | 85 | 5.0e6 | 4.2e6 / 1.6e7 | 0.95 ns |
//! | 27 | 12 / 11 / 77% | 31 | 4.1e8 | 4.3e6 / 6.4e5 | 0.66 ns |
//! | 28 | 2.5 / 2.5 / 95% | 91 | 1.7e7 | 3.3e7 / 1.5e8 | 1.30 ns |
//!
//! The same runs the evening before (build 45b9c17) gave 3.31 and 5.20 ns at n = 20 and 21
//! and 2.18, 2.39, 1.51, 1.75, 1.37, 0.99 and 1.70 ns at n = 22..28. Most of that
//! difference is the machine (the build before this one, 871d134, gave 0.74 CPU-years at n
//! = 26 that morning against 0.97 the evening before); the sort by `pext`, paired the same
//! morning, cut a count's CPU by 7% at n = 23 and 25, 6% at n = 24 and 3-4% at n = 20 and
//! 26, and the sort's share at n = 25 (`perf`) from 21% to 13%.
//!
//! The first table's figures again on 2026-12-05 (same machine model, `estimate N -t 2
//! --seconds 60 --seed 100`, commit 33a2ac7, nothing else running; n = 28 `--seconds 300`,
//! seeds 7 and 1000), after the AVX2 pairing of the halves, the cheaper key choice, the
//! sparse joins' shorter keys and n = 24 without its table (the README's frontier table):
//!
//! | n | half patterns / sort / pair tests | pairs tested a solution | sets counted | east / west patterns a set (mean) | CPU a solution |
//! |---|---|---|---|---|---|
//! | 22 | 12 / 17 / 70% | 106 | 3.5e5 | 7.4e4 / 2.5e5 | 1.57 ns |
//! | 23 | 24 / 25 / 51% | 42 | 1.9e7 | 7.4e4 / 1.3e4 | 1.32 ns |
//! | 24 | 10 / 12 / 78% | 79 | 1.3e6 | 5.8e5 / 1.8e6 | 1.06 ns |
//! | 25 | 22 / 21 / 57% | 36 | 9.0e7 | 5.4e5 / 8.7e4 | 0.87 ns |
//! | 26 | 4 / 5 / 91% | 83 | 4.7e6 | 4.3e6 / 1.6e7 | 0.93 ns |
//! | 27 | 10 / 11 / 79% | 35 | 4.3e8 | 3.9e6 / 6.3e5 | 0.51 ns |
//! | 28 | 1 / 2 / 97% | 88-92 | 1.9e7 | 3.5e7-3.8e7 / 1.2e8-1.3e8 | 0.95 ns |
//!
//! (At n = 28 a sampled unit's CPU includes the first touch of its thread's GBs of lists:
//! on the KVM machine of these figures about 30 µs a 4 KiB page, 20-30 s of system time a
//! process. A count keeps its workers' lists between units and pays that once a thread.)
//!
//! Since then (2026-12-05, same machine, `estimate 22 -t 2 --seconds 60 --seed 100`, the
//! build before and this one one after the other): n = 22 **1.43 ns** (1.56 before), 68
//! pairs tested a solution instead of 106, the join 2,420 CPU-s instead of 2,982, the sort
//! 919 instead of 705. Sets of 32,768 to 131,072 east patterns whose west list is longer
//! now cut the west list into the join's pieces and stream the east list past them
//! (`set::Swap`): the pieces of a longer list share more key bits. The sort costs more
//! because the cut list is longer (the west patterns on both long diagonals appear twice,
//! for their double weight) and its key is chosen level by level (`join::key::greedy_key`;
//! without it the pairs rose 20% and the time 2%). Measured on shards (one per core, cores
//! swapped, the same solutions unit by unit): `count 22 --shard 77/200 -t 1` 0.875 and
//! 0.895 of the time; `count 23 --shard 1234/2000` 0.996 (few odd sets have the longer west
//! list); `count 20 -t 2` 0.99 and 1.00 (one after the other). Swapping smaller sets too
//! took n = 22 a further 5% lower but `count 20 -t 2` 3.6% higher (sets of 4,096 east
//! patterns and up), and swapping larger ones took `count 24 --shard 473/20000` 14% higher.
//! So from n = 22 the sets from 4,096 east patterns are swapped, and below n = 22 those
//! from 32,768: n = 22 shards 0.95-1.0 of the time again (paired), `estimate 22` 1.44 ns
//! (58 pairs tested a solution, the sort 1,000 CPU-s), 10 random shards of 1/200 1.45 ns
//! (each with the table's build). n = 22 is still above 1.2 ns: the join is now 60% of its
//! time and the halves and sort 40%.
//!
//! The same day on the issue's own machine model, an Intel Xeon model 167 (AVX-512
//! VPOPCNTDQ), the build 4b3068e and this one (bd1f2cb), `estimate N -t 2`: n = 22 1.32-1.47
//! ns (seed 100, two runs; the machine drifts) against 1.24-1.28 now; n = 23 1.29 against
//! 1.25-1.30. Paired (both builds at once, `-t 1` each, cores swapped, seed 100): n = 22
//! 0.936 and 0.979 of the CPU, n = 23 0.942 and 0.931. Three changes, none to what is
//! counted or tested: the join's chunk tables start on 64-byte lines (`join::west::
//! ChunkTable`: a table's placement in the heap had decided whether half its entries
//! straddled two lines, and a change that only moved an allocation once cost the west loop
//! 11% at n = 24), the level-by-level key keeps its buffers and each node's west counts
//! (`join::key::greedy_key`; it took about 5% of an n = 22 shard), and the halves' south
//! quarters start on lines too (`half::Quarters`). Now, seed 1 with the defaults, the same
//! machine: n = 24 69 CPU-hours (52-88; 1.09 ns, 80 pairs tested a solution), n = 25 573
//! hours (0.93 ns), n = 26 0.62 CPU-years (0.50-0.75; 0.88 ns), n = 27 3.83 (3.07-4.67;
//! 0.52 ns); n = 28 63.5-74.5 CPU-years (0.80-0.87 ns, five seeds, build e274f3c).
//!
//! Later that day (same machine model, commit ca464dd, `estimate N -t 2`; n = 22 and 23
//! `--seconds 60 --seed 100`, the rest seed 1 and the defaults), after four changes to how
//! the work is done (nothing counted or tested differs): a piece's transposes and chunk
//! tables in AVX2 written by hand (`join::west::transpose_v3`, `double_v3`: LLVM had
//! vectorized the tables' doubling across entries, with word transposes, and the two took
//! two fifths of the join's driver), the sort's scatter on slices (`layout::bucket_sort`),
//! the table's next lists prefetched (`half`), and cheaper swapped lists and sparse bucket
//! prefetches:
//!
//! | n | half patterns / sort / pair tests | pairs tested a solution | CPU | CPU a solution |
//! |---|---|---|---|---|
//! | 22 | 17 / 23 / 60% | 58 | 0.82 h (0.69-0.95) | 1.09 ns |
//! | 23 | 28 / 22 / 50% | 39 | 7.22 h (6.08-8.38) | 1.07 ns |
//! | 24 | 12 / 15 / 73% | 80 | 68.3 h (51.6-87.2) | 1.08 ns |
//! | 25 | 25 / 22 / 53% | 36 | 497 h (401-601) | 0.81 ns |
//! | 26 | 5 / 7 / 87% | 85 | 0.58 CPU-years (0.47-0.71) | 0.83 ns |
//! | 27 | 11 / 14 / 75% | 36 | 3.60 CPU-years (2.88-4.37) | 0.48 ns |
//! | 28 | 2 / 3 / 95% | 81 | 64.6 and 61.2 CPU-years (seeds 1, 2; 44.8-85.1) | 0.74-0.77 ns |
//!
//! Paired against the build before (both at once, `-t 1` each, seed 100): n = 22 0.93 and
//! 0.96 of the CPU, n = 23 0.86 and 0.90; alone, that build measured 1.19 and 1.21 ns at n
//! = 22 and 23 the same hour (and 1.34 and 1.33 an hour before: the machine drifts). Every
//! n from 22 to 28 now counts at 1.1 ns a solution or less on this machine; n = 27 is
//! still the cheapest (0.48 ns), and no n but 27 and 28 is at 0.8 ns.
//!
//! The next session (same machine, commit 074e29f: the weight multiplied from memory in
//! the AVX-512 west loop, groups of up to six pieces; see CHANGELOG.md), the same commands:
//! n = 22 1.11 ns, 23 1.01, 24 0.99 (62.8 h), 25 0.76, 26 0.79 (0.56 CPU-years), 27 0.46,
//! 28 0.75 (63.3 CPU-years); paired against the build before, n = 23 0.97, n = 24 0.98, n
//! = 26 0.99, n = 28 about 0.95, n = 22 0.99-1.04. With an unpacked entry's weight then
//! broadcast from memory too (14f72ae): n = 22 1.04 ns, n = 23 1.00. Above 0.8 ns: n = 22,
//! 23 and 24.
//!
//! The session after (commit 99b3e66: the join's driver told its west weights instead of
//! scanning for them, a group's members listed in place, the half search's placements
//! counting-sorted), the same commands at 16:36 UTC:
//!
//! | n | half patterns / sort / pair tests | pairs tested a solution | CPU | CPU a solution |
//! |---|---|---|---|---|
//! | 22 | 17 / 23 / 60% | 58 | 0.78 h (0.66-0.90) | 1.04 ns |
//! | 23 | 29 / 22 / 49% | 39 | 6.91 h (5.80-8.03) | 1.03 ns |
//! | 24 | 13 / 13 / 74% | 78 | 61.5 h (46.6-78.3) | 0.97 ns |
//! | 25 | 24 / 21 / 55% | 35 | 463 h (373-561) | 0.76 ns |
//! | 26 | 5 / 6 / 89% | 82 | 0.56 CPU-years (0.45-0.68) | 0.80 ns |
//! | 27 | 10 / 15 / 75% | 36 | 3.51 CPU-years (2.81-4.27) | 0.47 ns |
//! | 28 | 2 / 3 / 95% | 80-86 | 64.4 and 65.4 CPU-years (seeds 1, 2; 46.0-86.8) | 0.76-0.80 ns |
//!
//! Paired against 14f72ae: `count 26 --shard 162680/420000 -t 1` 0.966 and 0.964 of the
//! CPU, the n = 24 shard 0.972, 0.977 and 0.976, n = 20 to 23 0.2-0.7% above (within this
//! method's noise of about 1%). The machine, not the code, moved the unpaired figures 1-3%.
//!
//! The session after (e7e5c8d, same machine; the table not rerun) changed two rules of
//! which sets go which way, each measured paired on random shards as well as the usual
//! ones: joins whose west buckets average 64 masks or more are grouped even where the
//! west list is the shorter (`join::SPARSE_BELOW`: the n = 26 shard above 0.942 and 0.945,
//! random n = 26 and 28 shards unchanged), and sets of up to 524,288 east patterns are
//! joined swapped (`set::Swap`: n = 24 shards holding such sets 0.98-1.00). 512-bit pairs
//! of pieces were measured and not kept (`join`'s doc). The next (af7601d) runs a sparse
//! join's whole visit of a piece's buckets in one call of the west loop (`join::Submasks`):
//! `estimate N -t 1 --sample 200 --seconds 0 --seed 1`, paired, 0.941 of the CPU at n = 22,
//! 0.966 at n = 23, 0.983 at n = 24; n = 25 shard 0.963, n = 26 and n = 20 unchanged.
//!
//! On a CPU without AVX-512 (a 2-core AMD EPYC Zen 3, family 25 model 1: AVX2 and fast
//! `pext`, L1d 32 KiB and L2 512 KiB a core; 2026-12-06 11:55 UTC, commit c59adef, after
//! that day's AVX2 west loop and fill; the same commands, nothing else running):
//!
//! | n | half patterns / sort / pair tests | pairs tested a solution | CPU | CPU a solution | n = 27's price × |
//! |---|---|---|---|---|---|
//! | 22 | 14 / 25 / 61% | 59 | 1.10 h (0.93-1.28) | 1.47 ns | 2.4 |
//! | 23 | 24 / 26 / 50% | 39 | 9.57 h (7.83-11.4) | 1.42 ns | 2.3 |
//! | 24 | 9 / 10 / 80% | 76 | 3.7 days (2.8-4.8) | 1.41 ns | 2.3 |
//! | 25 | 19 / 21 / 60% | 36 | 26.1 days (20.4-32.4) | 1.02 ns | 1.7 |
//! | 26 | 3 / 4 / 92% | 84 | 0.91 CPU-years (0.73-1.11) | 1.29 ns | 2.1 |
//! | 27 | 8 / 11 / 80% | 36 | 4.58 CPU-years (3.58-5.69) | 0.62 ns | 1 |
//! | 28 | 1 / 2 / 97% | 88 | 95.7 CPU-years (76.6-116.6; `--seconds 300`, 255 units) | 1.14 ns | 1.8 |
//!
//! The pairs tested a solution belong to the code, not the CPU (the Xeon's table above:
//! 58, 39, 78, 35, 82, 36, 80-86); the time a tested pair does not: 14-15 ps in the joins
//! of n = 24 and 26, 18 at n = 23, 13-14 at n = 27 and 28 (the Xeon model 167: 9 at the
//! even n, 13 at n = 23). n = 23 and 25 already have what item 2 of issue 28 asks to
//! bring to every board (the 8 symmetries through the middle-queen frames, lists the
//! pre-placed queens shorten), and they still pay 2.3 and 1.7 times n = 27's price on
//! this machine (2.2 and 1.6 on the Xeon): within a parity the price falls with n,
//! because longer lists give each piece of the join more shared key bits and spread the
//! per-set costs (the halves, the sort) over more solutions. So n = 27's price is a
//! property of n = 27's list lengths, not only of its frames.
//!
//! Later that day (commit 9338743; the west loop reads a packed mask's chunks byte by byte
//! and the AVX2 copy counts the zeros of each clash, see `join::west::Packed` and
//! `count_west_avx2`), `estimate N -t 2 --seed 1` one after the other with the build before
//! (84a662e): n = 24 1.335 ns a solution against 1.408, n = 26 1.139 against 1.245 (2.2
//! and 1.8 times n = 27's price above). n = 22 and 23, whose sets are small, moved 0-3%
//! on paired shards. The table's commands with that build at 16:58-17:05 UTC (not paired:
//! the build before is the table's, run that morning): n = 22 1.43 ns, 23 1.33, 25 0.91
//! (23.1 days), 27 0.60 (4.5 CPU-years), 28 0.99 (83.5 CPU-years, 66.3-102.3; 266 units);
//! against n = 27, n = 22 to 28 now cost 2.4, 2.2, 2.2, 1.5, 1.9, 1 and 1.7 times.
//!
//! A lead for the odd boards' per-set costs, not built: two-queen frames whose
//! middle-column queen is in the same row, and whose middle-row queen is on the same side,
//! have the same rows; on the other side every column is free, so that side's lists (h
//! queens in h columns: the longer ones) differ between the frames only by the middle-row
//! queen's two diagonals. One such list a group, made and sorted once and filtered per
//! frame (a filter keeps the sorted order), would share that side's halves and sort
//! between the group's frames. With each orbit's representative chosen to fill the
//! groups, n = 23's 55 two-queen frames fall into 10 groups, n = 25's 66 into 11 and n =
//! 27's 78 into 12 (counted over the orbits). It needs units that span frames (a new plan
//! version) and one key for a group's sets.
//!
//! Measured since (2026-12-06 evening, AMD EPYC Zen 3; test `odd_groups_share`, `EXP_N=N
//! EXP_K=K`, K sets E sampled per group, the plan's own frames): the frames the plan
//! already keeps fall into such groups without choosing other representatives, of sizes
//! h - 1 down to 1 (n = 2h + 1; n = 21: 9 groups of 45 frames; n = 23: 10 of 55; n = 25:
//! 11 of 66),
//! and a frame keeps **46-47%** of its group's list (the two diagonals of a middle-row
//! queen near the middle cross most rows of the other side). So the list made once a group
//! is about twice one frame's, and the patterns a group makes and sorts fall to **0.50** of
//! today's at n = 21 and 23 and **0.43** at n = 25 (the shared list once a group, each
//! frame's short list apart). Timed the same way (made and sorted, one core, the short
//! side of the shared list included): n = 23 0.134 s a sample against 0.278 s for the
//! frames one by one, n = 25 0.717 against 1.349. Each frame would still filter the shared
//! sorted list (a pass that keeps the order) and sort its own short list. With the halves
//! and the sort at 44% of `count 23 --shard 1234/2000 -t 1` (`perf`, same day: the halves
//! 23%, the sort 21%, the west loops 35%) and 40% at n = 25, that is worth about 15-20% of
//! n = 23 and 25 and under 10% at n = 27, before the filter and any loss from one key a
//! group: n = 23 from 1.33 to about 1.1 ns a solution on this CPU. Not built: it needs
//! units of a group and a prefix (a new plan version, the estimate's model per group) and
//! the joiner taking a sorted list with its bucket starts.
//!
//! **Built since, for the halves** (2026-12-06 night, same machine; `Frame::group`,
//! `set::run_bundle`, [`Context::run_bundle`]): without a new plan. A frame's full-side
//! list is its group's list less the patterns on its middle-row queen's two diagonals, mask
//! for mask and in the same order (the half searches, table or not, only skip what a
//! blocked diagonal forbids; test `a_frames_full_list_is_its_groups_filtered`, every set of
//! n = 9..15). So the units of one group and one prefix, counted together, search each
//! set's full side once and filter it per frame (a branch-free pass), and every join is
//! the one the unit makes alone: each unit's solutions and tested pairs are unchanged
//! (test `a_bundle_counts_each_unit_as_alone`), and so are the plan, its units, shard
//! files, checkpoints and the independent recount. Groups of 1 or 2 frames search as before
//! (a group's list is about 2.2 frames' own). The local runner hands out a group's units of
//! one prefix in one batch where a bundle takes at most two minutes by the model (odd n up
//! to 25; from n = 27 a unit takes minutes, and a batch is what `kill -9` loses), and every
//! batch runs its units bundle by bundle wherever they stand in it (`exec::run_quadrant`).
//! Measured (test `bundles_timed`: random bundles of one group and prefix, counted unit by
//! unit and together, alternately first, one thread, the same results): n = 21 0.875 of the
//! time (200 bundles), n = 23 0.951 (80 bundles: the table's lookups make its halves
//! cheap), n = 25 without the table (the estimate's and a short shard's way) 0.743 and
//! 0.787 (6 and 8 bundles), but with its 5 GB table 1.007 (the same 8 bundles: 234.8 s unit
//! by unit, 236.4 s together; without the table 270.2 s and 212.7 s): a pattern looked up
//! costs about what the filter pays for it, a pass over a list 2.2 times the frame's. So
//! bundled, n = 25 would count about 9% faster without the table than today unbundled with
//! it (one comparison; `model::table_pays` unchanged, since long n = 25 counts run as shards
//! or under `--mpi`, which do not bundle). Whole counts, paired (both builds at once, one
//! per core, against b26feb4's build): `count 19 -t 1` 0.809 and 0.835 of the CPU, `count
//! 21 -t 1` 0.881 and 0.912 (848 s against 962 s, then 949 s against 1,041 s with the cores
//! swapped), the same pairs tested and the known totals. Shards kept the
//! split, so a shard's units (spread over the plan by cost) rarely shared a bundle, nor did
//! `--mpi`, which handed units out one at a time (both since: below). The sort is still per frame: sharing it
//! too needs one key a group (so a unit's tested pairs would change: a new plan version).
//!
//! **`--mpi` since** (2026-12-07, same machine): rank 0 hands a bundle's units to one slot
//! together (`runner::schedule::runs`, MPI protocol 2), which counts them as one batch; the
//! plan and every unit's result are unchanged, so checkpoints and certificates are too.
//! `count 19 --mpi` (one computing rank of one thread, the two builds one after the other,
//! 5 rounds) took a median 0.755 of the worker's CPU (0.55-0.84), more than the bundles
//! alone, since one unit a message also paid a round trip and a batch's fixed costs;
//! `count 21 --mpi` 0.858 (886.1 s against 1,033.0 s, one round). A
//! second draw of n = 25's bundles (`bundles_timed`, `EXP_SEED=11`, 8 bundles, the two
//! runs at once, one per core) gave with the table 0.909 (388.9 s unit by unit, 353.4 s
//! together) and without it 0.798 (454.3 s, 362.6 s): bundled, the table still saved 2.5%,
//! against 10% lost in the first draw, so `model::table_pays` stays as it is.
//!
//! **Shards since** (2026-12-07, same machine): a split of an odd n up to 25 hands out
//! whole bundles (`runner::schedule::SplitRule::Bundles`, where there are 32 a shard or
//! more), so a shard's runner counts each bundle's units together. Which units a shard holds
//! changes, so the rule is recorded (shard file format 3, the checkpoint's scope `shard K/M
//! by bundles`) and `merge` recomputes the split by it; a campaign begun unit by unit goes
//! on with `--split units`. Every unit's result is unchanged. Measured (the same build,
//! `--split units` against the default, both at once, one per core, cores swapped each
//! round, `-t 1`): a whole campaign of `count 19` in 8 shards 0.871, 0.826, 0.806, 0.922
//! of the CPU (median 0.85; 35.8-39.1 s against 40.3-47.3 s, the known total by both);
//! four shards of `count 23 --shard K/1000` (K = 17, 291, 505, 777; other units under each
//! rule, each shard a thousandth of the plan's estimated cost) 0.956 and 0.981 of the CPU,
//! summed over the four; one shard of `count 25 --shard 700/1500` (each run with the 5 GB
//! table) 0.994, as bundles with the table measured before.
//!
//! **The sort shared since** (2026-12-07 morning, same machine; `join::Joiner::share_east`,
//! `set::run_bundle`): a bundle also sorts each set's group list once, by one key, and
//! each frame's join filters its part out of the sorted list (the filter keeps the order
//! and counts each bucket's start) instead of sorting its own list by its own key. The
//! earlier note said this needed a new plan version because a unit's tested pairs change;
//! they need not be kept: a quadrant unit's pair count already depended on the machine
//! (table or not), and `merge --recheck` compares solutions only. The plan, its units and
//! every unit's solutions are unchanged. What one key a group costs, measured first (an
//! experiment on 30 random bundles of n = 23, each frame joined with its own key and with
//! the group's, the lists the same): 12.7% more pairs tested, the join and its sort 0.977
//! of the time (the group's key is not chosen again a frame). Measured (both builds at
//! once, one per core, cores swapped each round, `-t 1`, the same units, the solutions
//! unit by unit equal): `count 23 --shard 505/1000` 0.868, 0.866, 0.923, 0.808 of the CPU
//! (11.7% more pairs tested), `count 23 --shard 291/1000` 0.951, 0.915, 0.866, 0.892,
//! `count 21 --shard 5/30` 0.857, 0.856, 0.866, 0.855, `count 19` (whole) 0.905 and 0.902,
//! `count 25 --shard 700/1500` (with its 5 GB table; one round) 0.919 (1,109.9 s against
//! 1,208.4 s; 25% more pairs tested: the group's key costs more there). A first form
//! filtered each frame's list twice (unsorted in the half's place, then sorted in the
//! join's): 0.95 at n = 23; the filter of a group list of 1.4 MB (past this CPU's L2) is
//! the cost, so each frame's list is now only counted before the group's sort and
//! filtered once, into the join's buffer, after it. A key chosen for a frame's list
//! rather than the group's (whose masks take diagonals each frame blocks) might win back
//! part of the extra pairs: not tried. (`estimate` timed units one by one, so at odd n up
//! to 25 a count ran below its estimate by about these ratios; since the evening of
//! 2026-12-07 it times a drawn unit in its bundle, see `cli::estimate`'s doc.)
//!
//! Tried since and not kept (2026-12-07 afternoon, same machine, `count 23 --shard
//! 505/1000 -t 1` against the build above, both at once, one per core, cores swapped; the
//! same solutions unit by unit; that build tests 1.0566e12 pairs there): (1) the group's
//! key scored over every frame's join at once, each frame's west list made first and each
//! frame's blocked diagonals scoring nothing for it: 2.4% fewer pairs but 1.032 and 1.035
//! of the CPU, since every frame's east list was then counted (a pass over the group's
//! list, past L2) before the key, where only the first frame's was; (2) the same with the
//! key's length and its level-by-level choice set by the mean frame's lists instead of
//! the group's: 7.4% more pairs, 1.069 and 1.069 of the CPU; (3) the level-by-level key
//! (`join::key::greedy_key`) for every group list, however short: 2.3% fewer pairs,
//! 1.025 and 0.981; (4) the key chosen only by a frame whose west list holds 2,048 masks
//! or more (a short first list sets a short key for every frame): 0.3% fewer pairs. So
//! most of the group's extra pairs are the price of one key for frames whose lists
//! differ, not of how that key is chosen.
//!
//! Why n = 27 is cheap, and the other odd n are not:
//!
//! - *The join.* Odd boards test about a third of the pairs an even board tests per
//!   solution (27-39 against 80-130). Part of it is symmetry: the factor a count achieves
//!   (its solutions over the disjoint pairs it finds) is 7.6-7.7 on odd boards (almost every
//!   frame is an orbit of 8) against 5.9-6.0 on even ones (the north–south mirror on every
//!   set, the east–west mirror only for west patterns off both long diagonals). The rest is
//!   the join: odd frames test 161-372 pairs per pair found, even sets 631-792 (n = 14..20).
//!   (Not measured apart: the pre-placed middle queens take diagonals from both halves, and
//!   the key diagonals then separate a frame's compatible pairs better.)
//! - *The halves and the sort.* Odd frames cut the work into many more, smaller sets (a set
//!   of n = 23 joins 7e4 x 1.3e4 patterns, one of n = 22 7.6e4 x 2.2e5), and each set pays
//!   its half searches, key and sort once: at n = 21, 23 and 25 those take half the time, so
//!   the join's advantage is eaten up. Only at n = 27 are the lists long enough (4e6 east
//!   patterns) for the join to dominate again, and n = 27 gets both.
//!
//! The per-set fixed costs (2026-12-04 evening, same machine; the figures above are from
//! before): `perf record` of `count 23 --shard 1234/2000 -t 1` put the half patterns at
//! 21% of the samples, the sort at 15% and the key choice at 5%. Two changes cut them,
//! both with the same counts and tested pairs unit by unit: the quadrants are paired four
//! at a time with AVX2 on lists stored field by field and filled without branches
//! (`half::pair_avx2`), in the table's loop and in the searched one, and the key's
//! diagonal counts run 64 at once in byte counters (`join::key`). Paired (both builds at
//! once, one per core, swapped; the build before is eac3f71): that n = 23 shard 0.86 and
//! 0.89 of the CPU, `count 22 --shard 77/200` 0.95 and 0.91 (the halves only), `count 19
//! -t 1` 0.80 and 0.82 (n = 19's halves are most of its time), `estimate 24` 0.90-0.98 (4
//! seeds: its sets are searched, not looked up, there), `count 20 -t 2` 0.96 (one pair).
//! The sort's scatter kept its share: its hot increments wait on the scattered stores, and
//! two cursors did not help (`layout::bucket_sort`). Scaled by those ratios the table's
//! n = 22 and 23 rows would read about 1.7 and 1.55 ns: still above n = 27's 0.66.
//!
//! What 1.2 ns a solution would take at n = 22 and 23, from the breakdowns of `estimate N
//! -t 2 --seconds 60 --seed 100` (2026-12-04 night, commit 490990c; 1.62 and 1.61 ns) split
//! per pattern (an *item*: one east or west pattern of one set, made, then sorted):
//!
//! | n | items a set | items a solution | halves / sort, ns an item | halves + sort, ns a solution | join, ns a solution | pairs a solution × ps a pair |
//! |---|---|---|---|---|---|---|
//! | 22 | 3.2e5 | 0.042 | 4.8 / 6.8 | 0.49 | 1.13 | 106 × 10.7 |
//! | 23 | 8.7e4 | 0.069 | 4.7 / 6.1 | 0.74 | 0.85 | 37 × 23 |
//! | 24 | 2.4e6 | 0.013 | 8.6 / 10.4 | 0.25 | 0.92 | 79 × 11.7 |
//!
//! (n = 24's halves are searched, not looked up: the estimate does not build its table.)
//! At n = 22, testing as few pairs a solution as n = 24 would still leave 0.49 + 0.84 =
//! 1.33 ns: it needs both that and a cheaper sort. At n = 23 the pairs are few but cost
//! twice an even board's (its sparse joins: pieces of about 190 east masks meet about 950
//! west masks over many nearly empty buckets), and the halves and sort cost as much as the
//! join: 1.2 ns needs about half of each gone. The sort's counting passes already run near
//! the cost of their scattered stores (see `join::layout::bucket_sort`), so neither is a
//! tuning step; both need fewer items a solution, that is, another decomposition.
//! (The next night the sparse joins' shorter keys, `join::key::SPARSE_WEST`, took n = 23
//! to 1.38 ns by the same command: the join 0.66 ns, 41 pairs a solution at 16 ps each,
//! and the halves and sort 0.70 ns, now half of the time. n = 25: 0.91 ns, n = 27: 0.57.)
//!
//! (The n = 28 row: keys of up to 18 bits, 2026-12-04 afternoon, `estimate 28 -t 2
//! --seconds 420`, 168 units; that afternoon the machine ran the build before about 12%
//! slower than in the morning.)
//!
//! (Again that night, 372 units, `estimate 28 -t 2 --seconds 420 --seed 100`, commit
//! 549b0cf: 84.4 CPU-years, 68.3-101.8, **1.06 ns**, 90 pairs tested a solution, halves 1.2%
//! and sort 2.2% of the time. The code at n = 28 had changed little since the afternoon;
//! the difference is sampling and the machine. n = 24 the same night: 1.20 ns.)
//!
//! n = 28 tested more pairs a solution than n = 26 (116-137 against 85-94) whether its sets
//! were joined whole or in parts (same sample, lists of 1 GiB against lists sized from 18
//! GB: 135 and 121-134) while its keys stopped at 16 bits: a bucket held about 500 east
//! masks where the key rule aims at 64. Keys now grow past 16 bits while a bucket keeps 128
//! east masks (`WIDE_FROM`, `WIDE_BUCKET` in `join::key`): 18 bits for a mean n = 28 set
//! (3.3e7 east masks), 17 for a set of 1.2e7; below 8.4 million east masks (every set
//! below n = 26, most above) nothing changes. Paired (2026-12-04, Zen 4, the build before
//! and this one one after the other, same seeds): `estimate 28` 0.86 of the CPU-years
//! (median of 6 pairs, 0.72-1.01) and 22-38% fewer pairs tested a solution (now 86-124,
//! 91 on 168 units); one 5-minute unit (`count 28 --shard 485242/20060045`) -27% CPU and
//! -37% pairs; one 80-s unit (17-bit keys, two west parts) -10% pairs, -5% CPU at `-t 1`,
//! +7% at `-t 2`. Measured the day before on the same sets' sampled joins, sorts not timed:
//! 20 bits tested 26% fewer pairs than 16 but ran no faster (buckets of ~200 masks: a jump
//! into the west list per bucket), and at n = 26 (4e6 east masks, 64 a bucket at 16 bits)
//! 18 bits were 25% slower, hence the rule's 128. The counting sort into 2^18 buckets
//! costs more (the sort phase of `estimate 28` +20-35%, 2.5% of the time), and the sort
//! keeps 4-byte keys there (`SortKey`). A whole n = 28 shard spends 40% of its CPU
//! in the kernel (`count 28 --shard 18235793/20060045 -t 1`: 25 s user, 19-31 s system,
//! 1.4 million page faults for a 3.7 GB peak, on this KVM machine); keeping each thread's
//! lists across batches, or 2 MiB pages, is the lead there (the 2 MiB pages alone halved the
//! faults without lowering the system time).
//!
//! Where even boards lose (2026-12-03, `estimate` samples of 60, 40 and 16 units at n = 24,
//! 26, 28): half the time goes to sets whose west list is 4 or more times their east list
//! (the east list is the one cut to 27% by fact 2), and those test 2-4x the share of their
//! pairs (0.7-0.8% of east x west at n = 26 against 0.4%): a short east list gives its
//! pieces fewer shared key bits. Slicing the west list there instead (per weight class,
//! the east list streamed with each class's weight) tested 4.3x fewer pairs on one n = 26
//! shard but ran only 3% faster: the streamed list is then too short for 16-bit buckets
//! (30 masks each), and with keys sized for it the shard measured -12% to +5% (noise). Not
//! kept; a join whose cost follows its bucket visits as well as its pairs is the lead.
//!
//! Where even boards' extra pairs come from (2026-12-07 night, test `density_and_pruning`:
//! every counted set of n, each list as made, no set swapped, every west pattern of nonzero
//! weight counted once). Odd frames test 2x fewer pairs a pair found than even sets (above,
//! "Why n = 27 is cheap"). Split that into the lists' *density*, U / P (the disjoint pairs
//! found over all east × west pairs, which no join changes), and what the join's key
//! leaves to test, T / P (T / U is their ratio):
//!
//! | n | east / west patterns a set | density U / P | tested T / P | tested a pair found |
//! |---|---|---|---|---|
//! | 16 | 325 / 1,093 | 1.33e-3 | 1.00 | 752 |
//! | 17 | 329 / 86 | 2.67e-3 | 1.00 | 373 |
//! | 18 | 1,791 / 6,008 | 5.33e-4 | 0.422 | 793 |
//! | 19 | 1,795 / 408 | 1.13e-3 | 0.428 | 381 |
//! | 20 | 1.097e4 / 3.679e4 | 2.24e-4 | 0.141 | 631 |
//!
//! At n = 16 and 17, and 18 and 19, the east lists are as long and the key leaves the same
//! share (below n = 18 the keys prune almost nothing: T / P at least 0.997), so the whole
//! 2x is density. Split by the west patterns' class (joined class by class, same test):
//!
//! | n | west on | share of the west list | density | share of pairs found | share of pairs tested | tested a pair found |
//! |---|---|---|---|---|---|---|
//! | 18 | no long diagonal | 0.207 | 1.50e-4 | 0.044 | 0.191 | 3,461 |
//! | 18 | one | 0.557 | 4.19e-4 | 0.461 | 0.559 | 965 |
//! | 18 | both | 0.237 | 1.02e-3 | 0.495 | 0.250 | 402 |
//! | 20 | no long diagonal | 0.207 | 6.42e-5 | 0.045 | 0.154 | 2,190 |
//! | 20 | one | 0.555 | 1.74e-4 | 0.455 | 0.570 | 792 |
//! | 20 | both | 0.238 | 4.32e-4 | 0.501 | 0.276 | 348 |
//!
//! A west pattern on the long diagonals spends queens on diagonals no east pattern takes,
//! so it clashes with fewer east patterns: the patterns on both are about as dense as an
//! odd frame's lists. The others are not, and they are also the ones the plan counts in 2
//! of their 8 images (those on one long diagonal by facts 1 and 2; those on none by facts
//! 1 and 3 where z = 2, and in 4 of 8 in the few sets where z = 1) where the
//! both-diagonal ones are counted in 1. By weight (4, 2 and at most 2 for a found pair,
//! times fact 1's), the patterns on none are at most 3% of the solutions for 15-19% of the
//! pairs tested, those on one about 30% for 56-57%. So the unused symmetry (the
//! reflection in a one-diagonal queen's long diagonal, the transpose for the main one, and
//! the diagonal reflections for the solutions on neither) sits on the three quarters of
//! the pairs tested that find the fewest solutions. Counting those classes in 1 of 8
//! images at equal pruning would halve 72-75% of the pairs tested (n = 16-20, no set
//! swapped): 36-37.5% fewer, not the 25% the symmetry factor (by pairs found) suggests
//! (the bound in "Nor frames from the border queens" below). But pruning is not equal: a
//! join whose cut list is halved by class loses about one shared key bit (the transpose
//! below; by `set::Swap`'s model a halved cut list tests 2^-0.415 = 0.75 of the pairs, not
//! 0.5), which leaves about 18-19%. The transpose tried below did it with virtual key
//! bits, which pruned little; splitting each class's join instead (the east patterns whose
//! south columns put the solution's transpose first, joined with that class alone) is the
//! lead, not built. It pays only as far as its halved lists keep their key bits, and from
//! n = 22, where sets are swapped, these shares are not measured.
//!
//! Tried for even n and not kept (test `long_frames_sampled`): frames from the queens on the
//! two long diagonals (`Frame::all_long`, exact): 24%, 14% and 44% more pairs per
//! solution at n = 20, 22 and 24, and 2.5-3x the time (40x more sets); the earlier attempt
//! with two middle-column queens was 2x slower at n = 24 for the same reason: pre-placed
//! queens away from the middle block few shared diagonals, while multiplying the sets.
//!
//! Long frames again where their sets are long (2026-12-07 night, AMD EPYC Zen 3, test
//! `long_frames_by_ratio`: sets drawn uniformly from each scheme, one thread, no table for
//! either, every figure a solution by the sample's own solutions, so n = 28 needs no known
//! total). The reason for trying: the plan's n = 28 sets hold 3.5e7-3.8e7 east and
//! 1.2e8-1.3e8 west patterns (the Xeon table above), about 9 and 30 times n = 27's east list
//! (4e6), the longer of its two, so a scheme with more, shorter sets might lose nothing
//! there. At n = 28 the long frames have 1.27e9 sets against the plan's 4.0e7 (1.9e7 of
//! them counted) and about 1.7e7 patterns a set against 1.6e8. They lose less at n = 26
//! and 28 than at n = 24, but lose:
//!
//! | n | sets drawn (long / plan) | pairs tested a solution (long / plan) | patterns a solution | CPU a solution |
//! |---|---|---|---|---|
//! | 24 | 2,000 / 300 | 93.8 / 77.3 | 0.069 / 0.014 | 3.02 / 1.23 ns |
//! | 26 | 600 / 40 | 91.4 / 109.0 (84 by `estimate 26`) | 0.025 / 0.0057 | 1.88 / 1.35 ns |
//! | 28 | 80 / — | 107.5 / 88 (`estimate 28`, c59adef) | 0.0080 / about 0.0011 | 1.85 / 0.99 ns (`estimate 28 -t 2`, 9338743) |
//!
//! (n = 28's plan sets take about 150 s each, too long to draw here; its figures are the
//! estimates of this machine above: the pairs from the table of c59adef, the CPU from
//! 9338743, whose west loop changed how a pair is tested, not which; the patterns from the
//! Xeon table's list lengths. The estimate's path ran n = 24 and 26 at 1.34 and 1.14 ns,
//! 9% above and 16% below this test's, so n = 28's ratio is about 1.6-2.0. The long
//! sample's solutions come to 2.66e18, within the estimate's Q(28) of 2.65e18-2.68e18.
//! The plan's 40 sets at n = 26 are few: their solutions come 4.9% below Q(26), and their
//! 109 pairs a solution against the estimate's 84 suggest the long frames test about 9%
//! more, not fewer; either way they make 4.4 times the patterns. At n = 24 this sample
//! gives 21% more pairs, where the earlier measurement gave 44%: another build, machine
//! and sample.) They gain no symmetry over the plan: a placement with one long-diagonal
//! queen, (i, i) say, is fixed by the reflection in that diagonal, so its orbit has 4
//! placements, not 8, and each of its solutions is counted in 2 of its 8 images, as the
//! plan counts it (facts 1 and 2); the empty placement is counted in 2 of 8 (the plan:
//! facts 1 and 3), the two-queen ones in 1 of 8 (the plan: fact 1 and the weight 4). Both
//! leave the same transpose unused (see the transpose below). Whatever the long frames gain
//! is pruning by the pre-placed queens' diagonals, and at every n measured it is less than
//! the shorter lists lose.
//!
//! Nor frames from the border queens (`Frame::all_border`, exact; test
//! `border_frames_sampled`, 2026-12-05, Intel Xeon model 167, one thread, no table for
//! either, 3,000-4,000 sampled sets a scheme): the queens of the first and last rows and
//! columns, one placement per orbit of the 8 symmetries, as the backtracking engine and the
//! FPGA counts pre-place them. Every frame then leaves about n - 4 rows, so the sets
//! multiply by about n^4 / 8 frames and their lists shrink to a few hundred patterns:
//!
//! | n | frames | sets (plan / border) | patterns a solution | pairs tested a solution | time |
//! |---|---|---|---|---|---|
//! | 16 | 3,206 | 6.5e3 / 2.8e6 | 0.67 / 4.6 | 126 / 23 | 36x |
//! | 18 | 5,728 | 2.4e4 / 1.9e7 | 0.30 / 3.0 | 133 / 56 | 34x |
//! | 20 | 9,522 | 9.3e4 / 1.2e8 | 0.12 / 1.6 | 104 / 129 | 31x |
//! | 22 | 14,960 | 3.5e5 / 7.0e8 | 0.045 / 0.80 | 57 / 154 | 24x |
//!
//! At n = 22 every border set makes 18x the patterns a solution and tests 2.7x the pairs
//! (its short lists share few key bits). The bound on what any frame scheme can win at
//! even n is the symmetry left unused: the even rule achieves a factor of about 6.0, the
//! square's group 8, so at most 25% fewer pairs found at the same pruning (by pairs
//! tested up to 36-37.5%: "Where even boards' extra pairs come from"; n = 22's 1.04 ns would
//! become 0.78); the three schemes measured (middle columns, long diagonals, border) lose
//! 2x to 30x instead, all by the same mechanism, more and smaller sets.
//!
//! Also tried and not kept (2026-12-05, Zen 4, a prototype): *the transpose for the
//! solutions on one long diagonal.* Fact 2 uses a diagonal reflection only to move a long
//! diagonal's queen; the reflection that fixes that queen cell by cell (the transpose for
//! the main diagonal) goes unused, so a solution on exactly one long diagonal is counted
//! in 2 of its 8 images (one on both: in 1). The transpose maps a solution with east rows E
//! and south queens in columns S to one with east rows S and south columns E, so counting
//! a main-diagonal-only solution twice when S > E (as bit sets), never when S < E and once
//! when S = E is exact, and agrees with fact 1 if the anti-diagonal-only ones take the
//! mirrored rule (rev E against the north queens' columns). S is the east pattern's south
//! columns a (one value per run of south placements) with the west pattern's b, and a
//! alone decides unless it equals E's south part. Built as two virtual diagonals in the
//! long diagonals' bit positions (free since fact 2): an east pattern takes the main one
//! when a < E's south part, a main-only west pattern keeps its main bit and doubles its
//! weight (ties left out: the counts came out 0.1-2% high at n = 12-18). At n = 22
//! (`count 22 --shard 77/200 -t 1`) 56% of the east patterns then excluded the main-only
//! west patterns and 76% the anti-only ones (20% and 31% of the west list), yet the pairs
//! tested fell only 3% and the CPU rose 2.7% (paired, 2 rounds): the join saves by its
//! key, and a real diagonal, on in about 60% of each list's masks, prunes more than a
//! virtual one (by the key's score, both ranked below its 14th diagonal). As the first two
//! key bits: +17% pairs; as two extra key bits: -5% pairs and no faster (one run each).
//! Cutting the east list into its two classes would instead halve it, and a halved list
//! gives its pieces about one shared key bit fewer. So the symmetry a join can use is
//! only worth what its key can prune.
//!
//! Nor *the south rule* (2026-12-07 evening, AMD EPYC Zen 3, test `south_rule_sampled`;
//! exact, test `the_south_rule_counts_the_known_values`). Fact 2 may keep either part of
//! each long diagonal empty; the plan empties both east parts, so the east list shrinks to
//! 27% and the west list stays whole: the lists are unbalanced, which the doc above blames
//! for half of the even boards' time. Emptying both *south* parts instead (SE of the main
//! diagonal, SW of the anti-diagonal) cuts each list to about half, and the east–west
//! mirror (E to its complement) then keeps the rule, so it serves as fact 1 (E below its
//! complement, doubled; no set is its own complement) and the north–south mirror as fact
//! 3. The price is in the weights. Let z be fact 3's factor of the set (2, 1 or 0: the
//! pair of classes {E, Ē} and {rev E, rev Ē} counts the solutions off both long diagonals
//! in the class with the smaller representative, twice, or once where the two classes are
//! one). A pair then weighs 2 · (z, 2, 2, 4) by (east on the anti-diagonal, west on the
//! main diagonal): no product of an east and a west weight. So an east mask off the
//! anti-diagonal takes the free main-diagonal bit, and a west entry that carries that bit
//! pairs only with the east masks on the anti-diagonal. A west pattern on the main
//! diagonal goes in twice, without and with the bit (2 + 2); one off it goes in once
//! without the bit where z = 2, once with it where z = 0, and twice with weight 1 each
//! where z = 1. Counted over every set at n = 10 to 14 (a review's check), an east list
//! keeps 0.53 of the unconstrained patterns and the west entries come to 0.79, so the
//! lists' product is about 0.40 of the unconstrained lists' a counted set, against the
//! plan's 0.23-0.24 (east 0.27 × west 1.0 or 0.73 by z). The main-diagonal bit, a key
//! bit, prunes part of it. Uniform draws of E, both rules on the same sets with the
//! table, one thread:
//!
//! | n | sets drawn | pairs tested a solution (plan / plan unswapped / south) | CPU a solution |
//! |---|---|---|---|
//! | 20 | 1,500 | 103 / 103 / 130 | 3.14 / 3.12 / 3.54 ns |
//! | 22 | 1,500 | 62 / 114 / 134 | 1.68 / 2.06 / 2.35 ns |
//! | 24 | 300 | 66 / 67 / 97 | 1.10 / 1.12 / 1.53 ns |
//!
//! The south rule makes 13-19% fewer patterns a solution (the halves; its sort handles
//! more entries, the copies included) and, joined unswapped, tests 18-45% more pairs than
//! the plan's rule joined the same way (26-116% more than the plan's count, which swaps
//! n = 22's sets, `Swap`): less than its 1.7 times the list product, so the balance won
//! part of it back, but not enough. Of the four choices of fact 2 (the empty parts both
//! east, both west, both south or both north), north is the mirror image of south (the
//! north–south mirror maps E to rev E, list for list), and west of east in the counts
//! (not quite in cost: the weights sit on the west list). So the plan's choice is the
//! best of those measured; only this one encoding of the south rule was tried, joined
//! unswapped, at n = 20, 22 and 24 on one machine.

mod frame;
pub mod half;
pub mod join;
pub mod model;
pub mod sample;
mod set;
pub mod table;
pub mod units;

use std::sync::atomic::{AtomicBool, Ordering};

use table::QuadrantTable;

use super::engines::Labels;
use super::plan::UnitKind;
#[cfg(test)]
use super::Isa;
use super::{Config, Error};

pub use frame::{sets, Frame, Rule};
pub(crate) use set::SHARED_FROM;
pub use set::{Scratch, ScratchPool, SetResult, LIST_BUDGET};

/// Smallest board the engine accepts (smaller boards are instant by backtracking).
pub const MIN_N: u32 = 4;
/// Largest board the engine accepts: the shared diagonals of both directions must fit in a
/// u64 (2(n - 1) = 62 bits at n = 32).
pub const MAX_N: u32 = 32;

/// Version of the quadrant engine's splitting rule. 4: units of n >= 26 fix more rows
/// (minutes each, see `units::prefix_rows`) and shards are balanced by an estimate that
/// reads no table (version 3's depended on the machine's memory).
pub(crate) const PLAN_VERSION: u32 = 4;

/// How reports name the quadrant engine's figures.
pub(crate) const LABELS: Labels = Labels {
    method: "joins quarter-board placements",
    units: "quadrant",
    // The estimate is in node equivalents (`model::QUADRANT_SCALE`), not nodes.
    estimate: "node equivalents",
    work_apart: Some("half-board pattern pairs tested"),
    no_table: Some("no table: quadrants searched"),
    phases: true,
};

/// Pushes the quadrant units of n's plan: the units of each frame in frame order, by
/// ascending prefix (see [`units`]).
pub(crate) fn plan_units(
    n: u32,
    stop: &AtomicBool,
    push: &mut impl FnMut(UnitKind) -> Result<(), Error>,
) -> Result<(), Error> {
    let stopped = || stop.load(Ordering::Relaxed);
    for (i, f) in Frame::all(n).iter().enumerate() {
        if stopped() {
            return Err(Error::Stopped);
        }
        let prefixes = f.unit_prefixes_until(n, stop).ok_or(Error::Stopped)?;
        for prefix in prefixes {
            push(UnitKind::Quadrant {
                frame: i as u16,
                prefix,
            })?;
        }
        // A lazy list of prefixes ends early on a stop (see unit_prefixes_until).
        if stopped() {
            return Err(Error::Stopped);
        }
    }
    Ok(())
}

/// What every quadrant unit of one n needs: the frames, the prefix length and, when it fits
/// the memory allowed, the quadrant table. Built once per count (`exec::Prepared`) and
/// shared by its threads.
#[derive(Debug)]
pub struct Context {
    /// The frames, in plan order.
    pub frames: Vec<Frame>,
    /// Rows fixed by a unit's prefix, per frame: it depends on the frame's free rows (the
    /// centre frame of an odd board has one more than the others), so one figure for all
    /// frames would count the wrong sets (at n = 27: p = 18 for the centre, 17 for the rest).
    pub prefix_rows: Vec<u32>,
    /// The cost estimate's factors per frame (used to cut sets too large for memory).
    pub proxies: Vec<units::Proxy>,
    /// The quadrant table, or None where the quadrants are searched instead.
    pub table: Option<QuadrantTable>,
    /// Bytes of lists a set may hold per thread ([`Config::list_budget`]).
    pub list_budget: u64,
    /// Per frame, the index of the first frame of its group ([`Frame::group`]), or its own
    /// index where it has none: units of one group and one prefix are counted together
    /// ([`Context::run_bundle`]).
    pub group_of: Vec<u16>,
}

/// Default of [`Config::table_limit`]: 1 GiB, which holds the tables up to n = 23 (550 MB).
pub const DEFAULT_TABLE_LIMIT: u64 = 1 << 30;

/// Whether the engine builds the quadrant table for n under `config`'s limit.
pub(crate) fn uses_table(n: u32, config: &Config) -> bool {
    table::QuadrantTable::bytes(n / 2).is_some_and(|b| b <= config.table_limit)
}

impl Context {
    /// Builds the context of n under `config`: the frames, their estimate factors and, when
    /// `config.table_limit` admits it, the quadrant table (0.1 s at n = 20, 1 s at n = 22,
    /// about a minute at n = 24, 5 GB); None if `stop` was raised first.
    ///
    /// The caller owns it: a count builds one (`exec::Prepared`), shares it between its
    /// threads and drops it, table and all, when it ends; nothing is kept between counts.
    ///
    /// # Panics
    /// Unless `MIN_N <= n <= MAX_N`.
    pub fn build_until(n: u32, config: &Config, stop: &AtomicBool) -> Option<Context> {
        let frames = Frame::all(n);
        let proxies = frames.iter().map(units::Proxy::new).collect();
        let prefix_rows = frames
            .iter()
            .map(|f| units::prefix_rows(n, f.rows().len() as u32))
            .collect();
        let table = match uses_table(n, config) {
            true => Some(QuadrantTable::build_until(n / 2, stop)?),
            false => None,
        };
        let group_of = group_of(&frames);
        Some(Context {
            frames,
            prefix_rows,
            proxies,
            table,
            list_budget: config.list_budget,
            group_of,
        })
    }

    /// [`Context::build_until`] with the default [`Config`], to the end.
    #[cfg(test)]
    pub fn build(n: u32) -> Context {
        Context::build_until(n, &Config::default(), &super::NEVER).expect("never stopped")
    }

    /// Counts one unit (frame index and prefix); None if `stop` was raised first.
    pub fn run_unit(
        &self,
        frame: u16,
        prefix: u32,
        scratch: &mut Scratch,
        stop: &AtomicBool,
    ) -> Option<SetResult> {
        set::run_unit(
            &self.frames[frame as usize],
            &self.proxies[frame as usize],
            self.prefix_rows[frame as usize],
            prefix,
            self.table.as_ref(),
            self.list_budget,
            scratch,
            stop,
        )
    }
}

/// Per frame of `frames`, the index of the first frame of its group ([`Frame::group`]),
/// or its own index where it has none.
fn group_of(frames: &[Frame]) -> Vec<u16> {
    let first = |f: &Frame| {
        f.group()
            .and_then(|g| frames.iter().position(|x| x.group() == Some(g)))
    };
    frames
        .iter()
        .enumerate()
        .map(|(i, f)| first(f).unwrap_or(i) as u16)
        .collect()
}

/// Longest a bundle of units may take on one core, by the model (seconds): a runner's batch
/// grows to hold a whole bundle, and a batch is what a checkpoint records at once and what
/// `kill -9` loses.
const BUNDLE_SECONDS: f64 = 120.0;

/// The group of each frame of n's plan (as [`Context::group_of`]), for a runner to hand
/// out the units of one group and one prefix in one batch ([`Context::run_bundle`]); None
/// where units are best handed out alone: even n (no groups), and odd n whose groups'
/// units would take more than [`BUNDLE_SECONDS`] together by the model (n >= 27, where a
/// unit takes minutes), given the plan's `units`.
pub(crate) fn bundles(n: u32, units: usize) -> Option<Vec<u16>> {
    let h = n / 2;
    let bundle_secs = model::cpu_seconds(n) / units.max(1) as f64 * f64::from(h - 1);
    if bundle_secs > BUNDLE_SECONDS {
        return None;
    }
    frame_groups(n)
}

/// The group of each frame of n's plan (as [`Context::group_of`]) at every odd n the
/// engine counts, None at even n: a fact of the plan alone, unlike [`bundles`], which
/// also asks the time model. A split of shards by bundles (`runner::schedule::SplitRule`)
/// is recomputed by `merge` long after the shards ran, so it must not move when the
/// model is refitted.
pub(crate) fn frame_groups(n: u32) -> Option<Vec<u16>> {
    (n % 2 == 1 && (MIN_N..=MAX_N).contains(&n)).then(|| group_of(&Frame::all(n)))
}

impl Context {
    /// Counts the units (f, `prefix`) for each frame f of `frames`, which share one group
    /// (the same [`Context::group_of`]), together: each set's full-side list is searched
    /// and sorted once for them all (see `set::run_bundle`). One result per frame, with the
    /// solutions [`Context::run_unit`] gives (its pairs tested may differ: the sort's key
    /// is the group's); None if `stop` was raised first.
    ///
    /// # Panics
    /// If the frames are not of one group.
    pub fn run_bundle(
        &self,
        frames: &[u16],
        prefix: u32,
        scratch: &mut Scratch,
        stop: &AtomicBool,
    ) -> Option<Vec<SetResult>> {
        let Some(&first) = frames.first() else {
            return Some(Vec::new());
        };
        let one = self.group_of[first as usize];
        assert!(
            frames.iter().all(|&f| self.group_of[f as usize] == one),
            "run_bundle: frames of different groups"
        );
        let lead = &self.frames[first as usize];
        if lead.group().is_none() {
            // A frame with no group is its own bundle.
            return frames
                .iter()
                .map(|&f| self.run_unit(f, prefix, scratch, stop))
                .collect();
        }
        let with: Vec<(&Frame, &units::Proxy)> = frames
            .iter()
            .map(|&f| (&self.frames[f as usize], &self.proxies[f as usize]))
            .collect();
        set::run_bundle(
            &with,
            &lead.group_frame(),
            self.prefix_rows[first as usize],
            prefix,
            self.table.as_ref(),
            self.list_budget,
            scratch,
            stop,
        )
    }
}

/// Counts the total of board size n with the quadrant engine on one thread, its loops run
/// with `isa` (for tests and small n; the plan splits the same work into units).
#[cfg(test)]
pub fn count_total(n: u32, table: Option<&QuadrantTable>, isa: Isa) -> u128 {
    let mut scratch = Scratch::new(isa);
    let mut total = 0u128;
    for f in Frame::all(n) {
        for e in sets(f.rows().len() as u32, f.east_queens()) {
            total += u128::from(f.count_set(e, table, &mut scratch).solutions);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::known;

    #[test]
    fn totals_match_the_table() {
        for n in MIN_N..=12 {
            let table = QuadrantTable::build(n / 2);
            for t in [None, Some(&table)] {
                assert_eq!(
                    count_total(n, t, Isa::best()),
                    known::lookup(n).unwrap().total,
                    "n = {n}, table {}",
                    t.is_some()
                );
            }
        }
    }

    #[test]
    fn each_frames_units_cover_its_counted_sets_once() {
        // The centre frame of an odd board has one free row more than the others, so its
        // prefixes are longer at n = 11, 13 and 27 (a single prefix length once counted
        // half the sets of n = 27's other frames).
        for (n, frames) in [(9u32, 99usize), (11, 99), (13, 99), (27, 2)] {
            let ctx = Context::build(n);
            for (i, f) in ctx.frames.iter().enumerate().take(frames) {
                let counted = |e: &u32| f.weight(*e).0 > 0;
                let m = f.rows().len() as u32;
                let want = sets(m, f.east_queens()).filter(counted).count();
                let got: usize = f
                    .unit_prefixes(n)
                    .map(|prefix| {
                        f.sets_with_prefix(ctx.prefix_rows[i], prefix)
                            .filter(counted)
                            .count()
                    })
                    .sum();
                assert_eq!(got, want, "n = {n}, frame {i}");
            }
        }
    }
}
