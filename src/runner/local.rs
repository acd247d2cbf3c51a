//! The local runner: units of a plan on a rayon pool of `threads` threads.
//!
//! Units are handed out in batches of up to 256 (`batch_size`: enough batches for work
//! stealing, at most about half a second of work each by the engine's unit-time model), one
//! batch at a time (`with_max_len(1)`), so scheduling costs nothing measurable and work
//! stealing keeps every thread busy until the last batch, whatever the spread of unit
//! costs. Every batch runs on the count's one [`Prepared`] (what its units share, the
//! quadrant table among it), which the caller owns.
//!
//! Odd boards up to n = 25 order their quadrant units by frame group and prefix and cut
//! batches only between bundles (`batches`): the units of one group and one prefix then run
//! in one batch, which searches each set's longer half once for all of them
//! (`quadrant::Context::run_bundle`; `count 19 -t 1` about 0.82 of the CPU). A unit's
//! solutions do not depend on its batch (its pairs tested do: a bundle sorts by one key for
//! its frames, and a bundle cut short by a resume counts its frames' lists apart).

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::schedule::Bundles;
use crate::engine::counts::{Counts, Tally};
use crate::engine::exec::Prepared;
use crate::engine::plan::{Unit, UnitPlan, UnitResult};
use crate::engine::Config;
use crate::Error;

/// Bytes a count holds per unit of its plan, at most: the plan (12), the session's scope and
/// results (36), the schedule of a shard (the estimates and their order, 40) and the
/// progress bar's weights. Measured peaks: 54 bytes per unit after choosing a shard of the
/// quadrant plan of n = 25 (274,160 units), 88 after a run over the whole backtracking plan
/// of n = 24; 128 leaves room. A memory budget B allows plans of B / 128 units.
pub const BYTES_PER_UNIT: u64 = 128;

/// The most units whose plan and records fit in `bytes` (see [`BYTES_PER_UNIT`]), as
/// `UnitPlan::build` takes them.
pub fn units_within(bytes: u64) -> usize {
    usize::try_from(bytes / BYTES_PER_UNIT).unwrap_or(usize::MAX)
}

/// Stack of each pool thread: std's default (2 MiB), set explicitly so that
/// [`THREAD_BYTES`] holds whatever `RUST_MIN_STACK` says.
const THREAD_STACK: usize = 2 << 20;

/// Address space one pool thread takes, at most: its stack, the guard page, the signal
/// stack std maps for every thread when it starts (`SIGSTKSZ` and a guard page) and its
/// thread-local data, rounded up.
pub const THREAD_BYTES: u64 = THREAD_STACK as u64 + (256 << 10);

/// The soft address-space limit of this process (`ulimit -v`, RLIMIT_AS), if there is one.
pub fn address_space_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        rustix::process::getrlimit(rustix::process::Resource::As).current
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A size in a /proc file of `Name:   value kB` lines (`/proc/meminfo`,
/// `/proc/self/status`), in bytes; None if the file or the field is not there.
pub fn proc_size(file: &str, field: &str) -> Option<u64> {
    std::fs::read_to_string(file).ok().and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    })
}

/// Bytes of address space this process has mapped now (VmSize; 0 where there is no
/// `/proc`).
fn address_space_used() -> u64 {
    proc_size("/proc/self/status", "VmSize").unwrap_or(0)
}

/// The most pool threads the address-space limit admits: their stacks may take a quarter
/// of what the limit leaves unmapped (the rest is the count's: its plan, table and lists
/// are budgeted from three quarters of the limit). None without a limit.
///
/// Why there is a bound: a thread whose stack was mapped maps its signal stack when it
/// starts, and if that fails std aborts the whole process ("failed to allocate an
/// alternative stack"), which no error path can catch. Without the bound, `ulimit -v
/// 4000000; nqueens count 8 -t 4096` usually ended with "cannot start the thread pool",
/// and aborted in about one run of ten: the threads created before the one refused were
/// still starting when the address space ran out. Worked number: under `ulimit -v
/// 4000000` about 430 threads.
pub fn threads_within_address_space() -> Option<usize> {
    let limit = address_space_limit()?;
    let room = limit.saturating_sub(address_space_used()) / 4;
    Some(usize::try_from(room / THREAD_BYTES).unwrap_or(usize::MAX))
}

/// Builds a rayon pool with exactly `threads` threads.
///
/// The threads are started one after the other, each running before the next is created,
/// so that a refused thread leaves no thread behind that has yet to map its signal stack
/// (see [`threads_within_address_space`]).
///
/// # Errors
/// [`Error::NoThreads`] for 0, [`Error::TooManyThreads`] above
/// [`MAX_THREADS`](crate::MAX_THREADS), [`Error::ThreadsOverAddressSpace`] above what the
/// address-space limit admits, [`Error::ThreadPool`] if the OS refuses threads.
pub fn pool(threads: usize) -> Result<rayon::ThreadPool, Error> {
    if threads == 0 {
        return Err(Error::NoThreads);
    }
    if threads > crate::MAX_THREADS {
        return Err(Error::TooManyThreads {
            threads,
            max: crate::MAX_THREADS,
        });
    }
    if let Some(max) = threads_within_address_space().filter(|&max| threads > max) {
        return Err(Error::ThreadsOverAddressSpace {
            threads,
            max,
            limit: address_space_limit().unwrap_or(u64::MAX),
        });
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(THREAD_STACK)
        .spawn_handler(|thread| {
            let mut b = std::thread::Builder::new();
            if let Some(name) = thread.name() {
                b = b.name(name.to_owned());
            }
            if let Some(size) = thread.stack_size() {
                b = b.stack_size(size);
            }
            let (started, running) = std::sync::mpsc::sync_channel(1);
            b.spawn(move || {
                let _ = started.send(());
                thread.run();
            })?;
            // The thread runs (its signal stack is mapped) before the next one is made.
            let _ = running.recv();
            Ok(())
        })
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))
}

/// What a run of some units produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunSummary {
    /// Tally of the units that finished.
    pub tally: Tally,
    /// How many units finished (each was reported to `on_done`).
    pub finished: usize,
    /// True if `stop` was raised before every unit finished.
    pub interrupted: bool,
}

/// Runs `units` of `plan` on `threads` threads, calling `on_done` (from worker threads, in
/// completion order) after each finished unit.
///
/// When `stop` becomes true, units not yet started are skipped and units in flight are
/// abandoned (not reported); the summary covers exactly the reported units, so a caller that
/// records `on_done` results (a checkpoint) can resume by running the rest.
///
/// # Errors
/// As [`pool`].
#[cfg(test)]
pub fn run_units<F>(
    plan: &UnitPlan,
    units: &[Unit],
    threads: usize,
    stop: &AtomicBool,
    on_done: F,
) -> Result<RunSummary, Error>
where
    F: Fn(&Unit, &UnitResult) + Sync,
{
    let prepared = Prepared::new(plan.n());
    run_units_with(plan, units, threads, &prepared, stop, on_done)
}

/// `run_units` on the count's `prepared` units (its engine configuration and, once built,
/// the quadrant context: the caller builds it once per count and drops it with the count).
///
/// # Errors
/// As [`pool`].
pub fn run_units_with<F>(
    plan: &UnitPlan,
    units: &[Unit],
    threads: usize,
    prepared: &Prepared,
    stop: &AtomicBool,
    on_done: F,
) -> Result<RunSummary, Error>
where
    F: Fn(&Unit, &UnitResult) + Sync,
{
    let pool = pool(threads)?;
    let batch = batch_size(plan.engine().unit_seconds(plan.n()), units.len(), threads);
    let (units, batches) = batches(plan, units, batch);
    let summary = pool.install(|| {
        batches
            .par_iter()
            .with_max_len(1)
            .map(|range| {
                let chunk = &units[range.clone()];
                let mut s = RunSummary::default();
                if stop.load(Ordering::Relaxed) {
                    s.interrupted = true;
                    return s;
                }
                match prepared.run_batch(chunk, stop) {
                    Some(results) => {
                        for (u, r) in chunk.iter().zip(&results) {
                            on_done(u, r);
                            s.tally.add(&u.kind, r);
                        }
                        s.finished = chunk.len();
                    }
                    None => s.interrupted = true,
                }
                s
            })
            .reduce(RunSummary::default, |mut a, b| {
                a.tally.merge(&b.tally);
                a.finished += b.finished;
                a.interrupted |= b.interrupted;
                a
            })
    });
    Ok(summary)
}

/// The batches of `units`: ranges of `batch` units, or, where the quadrant engine counts
/// the units of one frame group and one prefix together (odd n up to 25, see
/// `quadrant::bundles`), of whole bundles: the units ordered by (group, prefix, frame) and
/// each batch closed at the first bundle boundary from `batch` units on. A unit's
/// solutions do not depend on its batch, so the order changes only which work is shared
/// (and the pairs tested, a method's figure: see `UnitKind::work_is_portable`).
fn batches(plan: &UnitPlan, units: &[Unit], batch: usize) -> (Vec<Unit>, Vec<Range<usize>>) {
    let mut units = units.to_vec();
    let Some(bundles) = Bundles::of(plan) else {
        let ranges = (0..units.len())
            .step_by(batch.max(1))
            .map(|at| at..(at + batch.max(1)).min(units.len()))
            .collect();
        return (units, ranges);
    };
    let key = |u: &Unit| bundles.key(u);
    units.sort_by_key(|u| (key(u), u.id));
    let mut ranges = Vec::new();
    let mut start = 0;
    for at in 1..=units.len() {
        let boundary = at == units.len() || key(&units[at]) != key(&units[at - 1]);
        if boundary && at - start >= batch {
            ranges.push(start..at);
            start = at;
        }
    }
    if start < units.len() {
        ranges.push(start..units.len());
    }
    (units, ranges)
}

/// Units per batch, for units of about `unit_secs` seconds each (the engine's model,
/// `Engine::unit_seconds`).
///
/// Enough batches for work stealing to balance the threads (>= 16 per thread); at most 256
/// units, beyond which the backtracking lanes gain nothing; and about half a second of
/// work at most, because a batch is also what a checkpoint records at once and what
/// `kill -9` loses. Small batches stay efficient: the lanes kernel splits a batch of few
/// units by their next rows to fill its lanes (n = 17 on one thread: 4.68 s with batches of
/// one unit against 4.38 s with batches of 256).
///
/// Worked numbers, 2 threads, units of 23 µs at n = 16 growing 6x per n (the model both
/// engines use today): n = 16, 27,860 units -> 256 per batch (109 batches); n = 20, about
/// 30 ms per unit -> 16; n >= 22 -> 1.
fn batch_size(unit_secs: f64, units: usize, threads: usize) -> usize {
    let by_time = (0.5 / unit_secs).clamp(1.0, 256.0) as usize;
    (units / threads.saturating_mul(16)).clamp(1, by_time)
}

/// Counts every unit of `plan` on `threads` threads under the caller's engine `config`.
///
/// # Errors
/// As [`run_units_with`] and [`Tally::finish`].
pub fn count_plan_with(plan: &UnitPlan, threads: usize, config: &Config) -> Result<Counts, Error> {
    let never = AtomicBool::new(false);
    let prepared = Prepared::with_config(plan.n(), config);
    run_units_with(plan, plan.units(), threads, &prepared, &never, |_, _| {})?
        .tally
        .finish(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plan::UnitKind;
    use crate::engine::quadrant;
    use crate::Engine;

    #[cfg(target_os = "linux")]
    #[test]
    fn proc_sizes_are_read_in_bytes() {
        let vm = proc_size("/proc/self/status", "VmSize").unwrap();
        assert!(vm > 1 << 20 && vm.is_multiple_of(1024), "{vm}");
        assert_eq!(proc_size("/proc/self/status", "NoSuchField"), None);
        assert_eq!(proc_size("/nonexistent", "VmSize"), None);
    }

    #[test]
    fn batches_shrink_as_units_grow() {
        let secs = |n| crate::Engine::auto(8).unit_seconds(n);
        assert_eq!(batch_size(secs(16), 27_860, 2), 256);
        assert_eq!(batch_size(secs(16), 27_860, 64), 27);
        assert_eq!(batch_size(secs(20), 119_330, 2), 16);
        assert_eq!(batch_size(secs(27), 748_029, 2), 1);
        assert_eq!(batch_size(secs(8), 10, 4), 1);
    }

    #[test]
    fn batches_cover_every_unit_once_and_keep_bundles_whole() {
        // Odd n: the units of one group and prefix stand in one batch; even n: batches of
        // the size asked, in the order given. Every unit once either way.
        for n in [13u32, 14, 15] {
            let plan = UnitPlan::with_engine(n, Engine::Quadrant);
            let bundled = quadrant::bundles(n, plan.len());
            assert_eq!(bundled.is_some(), n % 2 == 1, "n = {n}");
            // A shard's units: every third.
            let some: Vec<Unit> = plan.units().iter().copied().step_by(3).collect();
            for batch in [1, 5, 64] {
                let (units, ranges) = batches(&plan, &some, batch);
                let mut ids: Vec<u32> = ranges
                    .iter()
                    .flat_map(|r| &units[r.clone()])
                    .map(|u| u.id)
                    .collect();
                ids.sort_unstable();
                assert_eq!(
                    ids,
                    some.iter().map(|u| u.id).collect::<Vec<_>>(),
                    "n = {n}"
                );
                let bundle_of = |u: &Unit| match (u.kind, &bundled) {
                    (UnitKind::Quadrant { frame, prefix }, Some(g)) => {
                        Some((g[frame as usize], prefix))
                    }
                    _ => None,
                };
                let mut seen = std::collections::HashMap::new();
                for (i, r) in ranges.iter().enumerate() {
                    assert!(r.len() >= batch.min(units.len()) || i == ranges.len() - 1);
                    for u in &units[r.clone()] {
                        if let Some(b) = bundle_of(u) {
                            assert_eq!(*seen.entry(b).or_insert(i), i, "n = {n}: {b:?} split");
                        }
                    }
                }
                if bundled.is_none() {
                    assert!(ranges.iter().all(|r| r.len() <= batch), "n = {n}");
                }
            }
        }
    }

    #[test]
    fn raised_stop_runs_nothing() {
        let plan = UnitPlan::new(10);
        let stop = AtomicBool::new(true);
        let s = run_units(&plan, plan.units(), 2, &stop, |_, _| {
            panic!("no unit may run")
        })
        .unwrap();
        assert_eq!((s.finished, s.interrupted), (0, true));
    }

    #[test]
    fn units_partition_the_search() {
        // Running the plan in two halves and merging gives the full count.
        let plan = UnitPlan::new(11);
        let never = AtomicBool::new(false);
        let (a, b) = plan.units().split_at(plan.len() / 2);
        let mut t = run_units(&plan, a, 1, &never, |_, _| {}).unwrap().tally;
        t.merge(&run_units(&plan, b, 2, &never, |_, _| {}).unwrap().tally);
        assert_eq!(t.finish(&plan).unwrap().total, 2680);
    }
}
