//! Cross-checks of the fast engine: against the reference solver (the oracle), against the
//! known table, and of the unit plan's split.

use nqueens::{
    count_with_engine, count_with_threads, known, reference, Engine, UnitKind, UnitPlan,
};

#[test]
fn engine_equals_reference_for_n_up_to_10_at_1_2_and_3_threads() {
    for n in 1..=10u32 {
        let r = reference::count(n as usize);
        for threads in [1, 2, 3] {
            let c = count_with_threads(n, threads).unwrap();
            assert_eq!(
                c.total,
                u128::from(r.total),
                "total, n = {n}, {threads} threads"
            );
            assert_eq!(
                c.unique,
                u128::from(r.unique),
                "unique, n = {n}, {threads} threads"
            );
            if n > 1 {
                let orbits = [c.orbits8, c.orbits4, c.orbits2];
                let want = [r.orbits[0], r.orbits[1], r.orbits[2]].map(u128::from);
                assert_eq!(orbits, want, "orbits, n = {n}, {threads} threads");
            }
        }
    }
}

fn assert_matches_table(n: u32) {
    let k = known::lookup(n).unwrap();
    let c = nqueens::count(n).unwrap();
    assert_eq!((c.total, c.unique), (k.total, k.unique), "n = {n}");
    if n > 1 {
        assert_eq!(
            (c.orbits8, c.orbits4, c.orbits2),
            (k.orbits8, k.orbits4, k.orbits2),
            "n = {n}"
        );
        // Burnside's lemma, as `engine::counts` applies it (for n = 1 the reflections fix the
        // lone queen too, so the lemma has more terms).
        assert_eq!(
            c.total + 2 * c.fixed90 + c.fixed180,
            8 * c.unique,
            "n = {n}"
        );
    }
}

#[test]
fn engine_equals_known_table_up_to_13() {
    for n in 1..=13 {
        assert_matches_table(n);
    }
}

#[test]
#[ignore = "slow: cargo test --release -- --ignored"]
fn engine_equals_known_table_14_to_16() {
    for n in 14..=16 {
        assert_matches_table(n);
    }
}

#[test]
#[ignore = "slow (about a minute on 2 cores): cargo test --release -- --ignored"]
fn engine_equals_known_table_17_and_18() {
    for n in 17..=18 {
        assert_matches_table(n);
    }
}

#[test]
fn summing_the_units_one_by_one_gives_the_count() {
    // Every unit run on its own, weighted as the plan says, reproduces the total: the units
    // partition the solutions.
    for n in [8u32, 11, 12] {
        let plan = UnitPlan::new(n);
        let mut total = 0u128;
        for u in plan.units() {
            if let UnitKind::Border { weight, .. } = u.kind {
                total += u128::from(weight) * u128::from(u.run(n as usize).solutions);
            }
        }
        assert_eq!(total, known::lookup(n).unwrap().total, "n = {n}");
    }
}

#[test]
fn n16_has_at_least_256_units_and_none_above_2_percent_of_the_nodes() {
    let plan = UnitPlan::new(16);
    assert!(plan.len() >= 256, "{} units", plan.len());
    let nodes: Vec<u64> = plan.units().iter().map(|u| u.run(16).nodes).collect();
    let all: u64 = nodes.iter().sum();
    let max = *nodes.iter().max().unwrap();
    assert!(max * 50 <= all, "largest unit has {max} of {all} nodes");
}

#[test]
fn board_sizes_outside_1_to_64_are_refused() {
    assert!(matches!(
        nqueens::count(0),
        Err(nqueens::Error::BoardSize { n: 0, max: 64 })
    ));
    assert!(matches!(
        nqueens::count(65),
        Err(nqueens::Error::BoardSize { n: 65, max: 64 })
    ));
    assert!(matches!(
        count_with_threads(8, 0),
        Err(nqueens::Error::NoThreads)
    ));
}

#[test]
fn plan_for_n_32_is_built_with_distinct_borders() {
    // Counting n = 32 is out of reach, but its plan is quick and well-formed.
    let plan = UnitPlan::new(32);
    let mut borders: Vec<_> = plan
        .units()
        .iter()
        .filter_map(|u| match u.kind {
            UnitKind::Border { border, weight, .. } => {
                assert!([2, 4, 8].contains(&weight));
                Some(border)
            }
            _ => None,
        })
        .collect();
    // Units of one border are adjacent (one per first-row queen), so deduplicating the
    // adjacent copies and then the whole list finds no further repeats.
    borders.dedup();
    let len = borders.len();
    borders.sort();
    borders.dedup();
    assert_eq!(borders.len(), len);
    assert!(len > 10_000);
}

#[test]
fn thread_counts_beyond_the_cap_are_refused_before_any_thread_starts() {
    // 99999 made rayon start its silent maximum of 65,535 threads (past Linux's default
    // pid_max of 32,768); usize::MAX would also overflow the batch size (threads * 16).
    for threads in [nqueens::MAX_THREADS + 1, 99_999, usize::MAX] {
        assert_eq!(
            count_with_threads(8, threads),
            Err(nqueens::Error::TooManyThreads {
                threads,
                max: nqueens::MAX_THREADS
            })
        );
    }
    assert_eq!(count_with_threads(8, 0), Err(nqueens::Error::NoThreads));
}

/// The two engines must agree on everything: totals from independent methods, and the
/// same F180/F90 searches.
fn assert_engines_agree(n: u32, threads: usize) {
    let q = count_with_engine(n, threads, Engine::Quadrant).unwrap();
    let b = count_with_engine(n, threads, Engine::Backtrack).unwrap();
    assert_eq!(
        (q.total, q.unique, q.fixed180, q.fixed90),
        (b.total, b.unique, b.fixed180, b.fixed90),
        "n = {n}"
    );
    assert!(q.pairs_tested > 0 && b.pairs_tested == 0, "n = {n}");
}

#[test]
fn quadrant_engine_equals_backtracking_from_4_to_14() {
    for n in 4..=14 {
        assert_engines_agree(n, 2);
    }
}

#[test]
#[ignore = "slow (a few minutes on 2 cores): cargo test --release -- --ignored"]
fn quadrant_engine_equals_backtracking_from_15_to_18() {
    for n in 15..=18 {
        assert_engines_agree(n, 2);
    }
}

#[test]
fn the_engines_share_their_symmetric_units_result_for_result() {
    // Units that coincide (the F180 and F90 searches) give identical results, nodes included.
    for n in [9u32, 12] {
        let q = UnitPlan::with_engine(n, Engine::Quadrant);
        let b = UnitPlan::new(n);
        let symmetric = |p: &UnitPlan| {
            p.units()
                .iter()
                .filter(|u| matches!(u.kind, UnitKind::Fixed180 { .. } | UnitKind::Fixed90))
                .map(|u| (u.kind, u.run(n as usize)))
                .collect::<Vec<_>>()
        };
        assert_eq!(symmetric(&q), symmetric(&b), "n = {n}");
        assert_ne!(q.id(), b.id(), "the plans differ, so must their ids");
    }
}

#[test]
fn the_quadrant_engine_refuses_boards_it_cannot_count() {
    for n in [1u32, 3, 33, 64] {
        let e = count_with_engine(n, 1, Engine::Quadrant).unwrap_err();
        assert!(
            e.to_string().contains("quadrant engine counts n = 4..32"),
            "{e}"
        );
    }
}

#[test]
fn quadrant_units_summed_one_by_one_give_the_total() {
    let n = 13u32;
    let plan = UnitPlan::with_engine(n, Engine::Quadrant);
    let mut t = nqueens::Tally::default();
    for u in plan.units() {
        t.add(&u.kind, &u.run(n as usize));
    }
    assert_eq!(t.finish(&plan).unwrap().total, 73_712);
}
