//! Criterion benches of the counting engine: `count_with_threads(n, 1)` (serial) and on all
//! logical cores (parallel) for a few board sizes. Every iteration checks the total against
//! the known table (`nqueens::known`), so a fast wrong engine cannot post a good figure.
//!
//! Samples are few and short (10 samples, flat sampling) so that a full `cargo bench` takes
//! about a minute: these benches catch regressions between commits; `nqueens bench` is the
//! CPU benchmark with a fixed workload.
//!
//!     cargo bench --bench count              # all
//!     cargo bench --bench count -- serial/14 # one

use std::time::Duration;

use criterion::{black_box, criterion_main, BenchmarkId, Criterion, SamplingMode};

/// Board sizes: n = 16 is about 0.7 s on one thread of a 2-core Xeon, each smaller n about
/// 6x less.
const SIZES: [u32; 5] = [12, 13, 14, 15, 16];

/// Counts `n` on `threads` threads and checks the total.
fn count_checked(n: u32, threads: usize) {
    let c = nqueens::count_with_threads(black_box(n), threads).expect("n and threads are valid");
    let known = nqueens::known::lookup(n).expect("bench sizes are in the known table");
    assert_eq!(c.total, known.total, "n = {n} on {threads} thread(s)");
}

fn count(c: &mut Criterion) {
    let all = num_cpus::get();
    let mut group = c.benchmark_group("count");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in SIZES {
        group.bench_with_input(BenchmarkId::new("serial", n), &n, |b, &n| {
            b.iter(|| count_checked(n, 1))
        });
        let parallel = format!("parallel-{all}-threads");
        group.bench_with_input(BenchmarkId::new(parallel, n), &n, |b, &n| {
            b.iter(|| count_checked(n, all))
        });
    }
    group.finish();
}

mod harness {
    #![allow(missing_docs)] // criterion_group! defines an undocumented `pub fn benches`
    criterion::criterion_group!(benches, super::count);
}
criterion_main!(harness::benches);
