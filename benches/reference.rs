//! Criterion benches of the reference solver (the classic permutation filter, the oracle)
//! against the engine on one thread, for n = 8..10: how much the bit-board search and the
//! symmetry reduction buy. Every iteration checks its total against the known table.
//!
//!     cargo bench --bench reference

use std::time::Duration;

use criterion::{black_box, criterion_main, BenchmarkId, Criterion, SamplingMode};

/// n = 10 is 10! = 3.6 million permutations for the reference solver.
const SIZES: [u32; 3] = [8, 9, 10];

fn known_total(n: u32) -> u128 {
    nqueens::known::lookup(n)
        .expect("bench sizes are in the known table")
        .total
}

fn reference_vs_engine(c: &mut Criterion) {
    let mut group = c.benchmark_group("reference-vs-engine");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for n in SIZES {
        group.bench_with_input(BenchmarkId::new("reference", n), &n, |b, &n| {
            b.iter(|| {
                let r = nqueens::reference::count(black_box(n) as usize);
                assert_eq!(u128::from(r.total), known_total(n), "reference, n = {n}");
            })
        });
        group.bench_with_input(BenchmarkId::new("engine-1-thread", n), &n, |b, &n| {
            b.iter(|| {
                let c = nqueens::count_with_threads(black_box(n), 1).expect("n is valid");
                assert_eq!(c.total, known_total(n), "engine, n = {n}");
            })
        });
    }
    group.finish();
}

mod harness {
    #![allow(missing_docs)] // criterion_group! defines an undocumented `pub fn benches`
    criterion::criterion_group!(benches, super::reference_vs_engine);
}
criterion_main!(harness::benches);
