//! Benchmarks of the solution listing: the lazy search alone, and the search with `perm`
//! output into a sink (what `nqueens solutions 14 > /dev/null` does minus the write system
//! calls). Each iteration asserts the known count.

use std::io::{self, BufWriter, Write};

use criterion::{criterion_main, Criterion};
use nqueens::Solutions;

/// Counts the solutions by walking the lending iterator (no allocation per solution).
fn walk(n: u32, unique: bool) -> u64 {
    let mut s = if unique {
        Solutions::unique(n)
    } else {
        Solutions::new(n)
    }
    .expect("n is in range");
    let mut found = 0;
    while s.next_solution().is_some() {
        found += 1;
    }
    found
}

/// Writes every solution as 1-based columns, the `perm` format, into a sink.
fn write_perm(n: u32) -> u64 {
    let mut out = BufWriter::with_capacity(1 << 16, io::sink());
    let mut s = Solutions::new(n).expect("n is in range");
    let mut found = 0;
    while let Some(p) = s.next_solution() {
        for (i, c) in p.iter().enumerate() {
            let sep = if i + 1 == p.len() { '\n' } else { ' ' };
            write!(out, "{}{sep}", c + 1).expect("a sink never fails");
        }
        found += 1;
    }
    out.flush().expect("a sink never fails");
    found
}

fn listing(c: &mut Criterion) {
    let mut g = c.benchmark_group("listing");
    g.sample_size(10);
    g.bench_function("walk 12", |b| {
        b.iter(|| assert_eq!(walk(12, false), 14_200))
    });
    g.bench_function("walk 14", |b| {
        b.iter(|| assert_eq!(walk(14, false), 365_596))
    });
    g.bench_function("walk unique 14", |b| {
        b.iter(|| assert_eq!(walk(14, true), 45_752))
    });
    g.bench_function("perm via fmt 12", |b| {
        b.iter(|| assert_eq!(write_perm(12), 14_200))
    });
    g.finish();
}

/// `criterion_group!` defines a public function it cannot document.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::listing);
}
criterion_main!(group::benches);
