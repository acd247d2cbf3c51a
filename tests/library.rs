//! The library as a Rust user sees it: only the public API, every count checked against the
//! known table (OEIS A000170, A002562) or another engine.

use std::sync::atomic::AtomicBool;

use nqueens::Tally;
use nqueens::{construct, is_solution, known, Counter, Engine, Error, Solutions, UnitPlan};

#[test]
fn counter_counts_the_known_values_with_either_engine() {
    for n in 1..=13 {
        let k = known::lookup(n).unwrap();
        for engine in [Engine::Backtrack, Engine::Quadrant] {
            if !engine.supports(n) {
                continue;
            }
            let c = Counter::new(n)
                .unwrap()
                .threads(2)
                .engine(engine)
                .count()
                .unwrap();
            assert_eq!(
                (c.total, c.unique),
                (k.total, k.unique),
                "n = {n} {engine:?}"
            );
        }
    }
}

#[test]
fn counter_refuses_what_it_cannot_do() {
    assert!(matches!(Counter::new(0), Err(Error::BoardSize { .. })));
    assert!(matches!(Counter::new(65), Err(Error::BoardSize { .. })));
    let c = Counter::new(10).unwrap();
    assert_eq!(c.threads(0).count(), Err(Error::NoThreads));
    assert!(matches!(
        c.engine(Engine::Quadrant).threads(1).count(),
        Ok(counts) if counts.total == 724
    ));
    assert!(matches!(
        Counter::new(40).unwrap().engine(Engine::Quadrant).count(),
        Err(Error::EngineRange { .. })
    ));
    // The backtracking plan of n = 40 has millions of units: far over 1 MiB.
    assert!(matches!(
        Counter::new(40).unwrap().memory_limit(1 << 20).count(),
        Err(Error::PlanTooLarge { .. })
    ));
    let stop = AtomicBool::new(true);
    assert_eq!(
        Counter::new(15).unwrap().stop(&stop).count(),
        Err(Error::Stopped)
    );
}

#[test]
fn units_run_anywhere_add_up_to_the_count() {
    for engine in [Engine::Backtrack, Engine::Quadrant] {
        let plan = UnitPlan::with_engine(12, engine);
        let mut tally = Tally::default();
        // In reverse order, as workers may send them.
        for u in plan.units().iter().rev() {
            tally.add(&u.kind, &u.run(12));
        }
        let c = tally.finish(&plan).unwrap();
        assert_eq!((c.total, c.unique), (14_200, 1_787), "{engine:?}");
    }
}

#[test]
fn a_missing_unit_breaks_an_identity_or_the_table() {
    let plan = UnitPlan::new(10);
    let results: Vec<_> = plan.units().iter().map(|u| u.run(10)).collect();
    let lost = results.iter().position(|r| r.solutions > 0).unwrap();
    let mut tally = Tally::default();
    for (u, r) in plan.units().iter().zip(&results) {
        if u.id as usize != lost {
            tally.add(&u.kind, r);
        }
    }
    // Either Burnside's identity fails, or the total is short of the known 724.
    let partial = tally.finish(&plan);
    assert!(
        partial.as_ref().map_or(true, |c| c.total < 724),
        "{partial:?}"
    );
}

#[test]
fn a_tally_without_every_unit_is_a_typed_error() {
    // Issue 30, 9: an empty tally finished as a count of 0.
    let plan = UnitPlan::new(12);
    let e = Tally::default().finish(&plan).unwrap_err();
    assert_eq!(
        e,
        nqueens::Error::IncompleteTally {
            n: 12,
            added: 0,
            units: plan.len() as u64
        }
    );
    assert!(e.to_string().contains("exactly once"), "{e}");
}

#[test]
fn solutions_and_construct_give_checked_boards() {
    for n in 1..=9u32 {
        let k = known::lookup(n).unwrap();
        let all: Vec<Vec<usize>> = Solutions::new(n).unwrap().collect();
        assert_eq!(all.len() as u128, k.total as u128, "n = {n}");
        assert!(all.iter().all(|s| is_solution(s)));
        assert_eq!(
            Solutions::unique(n).unwrap().count() as u128,
            k.unique as u128
        );
    }
    for n in [4usize, 5, 8, 1000, 100_003] {
        assert!(is_solution(&construct(n).unwrap()), "n = {n}");
    }
    assert_eq!(construct(3), None);
}
