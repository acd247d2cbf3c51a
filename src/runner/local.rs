//! The local runner: all units of a plan on a rayon pool of `threads` threads.
//!
//! Units are handed out one at a time (`with_max_len(1)`): a unit is milliseconds of work
//! or more, so per-unit scheduling costs nothing measurable, and work stealing keeps every
//! thread busy until the last unit, whatever the spread of unit costs.

use rayon::prelude::*;

use crate::engine::counts::{Counts, Tally};
use crate::engine::plan::{Unit, UnitPlan, UnitResult};
use crate::Error;

/// Builds a rayon pool with exactly `threads` threads.
///
/// # Errors
/// [`Error::NoThreads`] for 0, [`Error::ThreadPool`] if the OS refuses threads.
pub fn pool(threads: usize) -> Result<rayon::ThreadPool, Error> {
    if threads == 0 {
        return Err(Error::NoThreads);
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))
}

/// Runs `units` of `plan` on `threads` threads, calling `on_done` (from worker threads, in
/// completion order) after each unit, and returns the tally of those units.
///
/// # Errors
/// As [`pool`].
pub fn run_units<F>(plan: &UnitPlan, units: &[Unit], threads: usize, on_done: F) -> Result<Tally, Error>
where
    F: Fn(&Unit, &UnitResult) + Sync,
{
    let n = plan.n() as usize;
    let tally = pool(threads)?.install(|| {
        units
            .par_iter()
            .with_max_len(1)
            .map(|u| {
                let r = u.run(n);
                on_done(u, &r);
                let mut t = Tally::default();
                t.add(&u.kind, &r);
                t
            })
            .reduce(Tally::default, |mut a, b| {
                a.merge(&b);
                a
            })
    });
    Ok(tally)
}

/// Counts every unit of `plan` on `threads` threads.
///
/// # Errors
/// As [`run_units`] and [`Tally::finish`].
pub fn count_plan(plan: &UnitPlan, threads: usize) -> Result<Counts, Error> {
    run_units(plan, plan.units(), threads, |_, _| {})?.finish(plan)
}
