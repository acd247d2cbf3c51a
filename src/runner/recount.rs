//! Runs units twice, for `verify N --units K` and `merge --recheck P --independent`: with
//! the engine ([`crate::engine::exec`]) and with the plain recount
//! ([`crate::engine::recount`]), each unit on one thread and timed (wall and the thread's
//! CPU clock), units spread over a pool of `threads`.
//!
//! Units are chosen here too: [`draw`] picks K of a plan's units with a seeded generator,
//! among all of them or among the cheapest by the plan's cost estimate (from n = 26 a
//! random unit takes hours to recount plainly; the cheapest take seconds to minutes).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use super::local::pool;
use crate::engine::exec::Prepared;
use crate::engine::plan::{Sum, Unit, UnitPlan, UnitResult};
use crate::engine::recount::{recount, Recount};
use crate::engine::rng::SplitMix64;
use crate::engine::{cost, Config, Error};

/// One unit counted both ways.
#[derive(Clone, Copy, Debug)]
pub struct Compared {
    /// The unit.
    pub unit: Unit,
    /// The engine's result.
    pub engine: UnitResult,
    /// Time the engine took for it on one thread: wall and CPU seconds.
    pub engine_time: Timed,
    /// The plain recount's result.
    pub plain: Recount,
    /// Time the plain recount took on one thread.
    pub plain_time: Timed,
}

/// How long something took on one thread.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timed {
    /// Wall-clock seconds.
    pub wall: f64,
    /// The thread's CPU seconds (its wall seconds where the system has no thread clock):
    /// on a machine shared with other work, the figure to compare.
    pub cpu: f64,
}

/// The calling thread's CPU clock, seconds (None where there is none to read).
fn thread_cpu() -> Option<f64> {
    #[cfg(unix)]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Some(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Runs `f` on this thread and times it.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Timed) {
    let (wall, cpu) = (Instant::now(), thread_cpu());
    let out = f();
    let wall = wall.elapsed().as_secs_f64();
    let cpu = match (cpu, thread_cpu()) {
        (Some(a), Some(b)) => b - a,
        _ => wall,
    };
    (out, Timed { wall, cpu })
}

impl Compared {
    /// Whether both ways found the same solutions (the only figure both compute: the
    /// engine's work figure belongs to its method).
    pub fn agrees(&self) -> bool {
        self.engine.solutions == self.plain.solutions
    }
}

/// Draws `k` distinct units of `plan` with SplitMix64 seeded by `seed` (a partial
/// Fisher–Yates shuffle), in the order drawn: among all units, or, with `cheapest` = Some(P),
/// among the P percent of the units of the total (not the F180 and F90 searches) with the
/// lowest cost estimate (at least `k` of them).
/// None if `stop` was raised while the estimates were made.
pub fn draw(
    plan: &UnitPlan,
    k: usize,
    seed: u64,
    cheapest: Option<f64>,
    stop: &AtomicBool,
) -> Option<Vec<Unit>> {
    let mut pool: Vec<Unit> = plan.units().to_vec();
    if let Some(percent) = cheapest {
        let costs = cost::estimates_until(plan, stop)?;
        // The total's units only: the F180 and F90 searches have the lowest estimates of
        // all and would fill a small share (at n = 26 the cheapest 0.001% drew them).
        pool.retain(|u| u.kind.feeds() == Sum::Total);
        pool.sort_by_key(|u| (costs[u.id as usize], u.id));
        let keep = ((pool.len() as f64 * percent / 100.0).ceil() as usize)
            .clamp(k.min(pool.len()), pool.len());
        pool.truncate(keep.max(1));
    }
    let mut rng = SplitMix64::new(seed);
    let k = k.min(pool.len());
    for i in 0..k {
        let j = i + rng.below((pool.len() - i) as u64) as usize;
        pool.swap(i, j);
    }
    pool.truncate(k);
    Some(pool)
}

/// Runs `units` of `plan` on `threads` threads, each unit by the engine under `config` and
/// by the plain recount, in the order given, telling `on_done` of each as it finishes;
/// Ok(None) if `stop` was raised first.
///
/// # Errors
/// The thread pool's.
pub fn compare(
    plan: &UnitPlan,
    units: &[Unit],
    threads: usize,
    config: &Config,
    stop: &AtomicBool,
    on_done: impl Fn(&Compared) + Sync,
) -> Result<Option<Vec<Compared>>, Error> {
    let n = plan.n();
    let pool = pool(threads)?;
    // What the units share, for this comparison only (dropped when it returns).
    let prepared = Prepared::with_config(n, config);
    Ok(pool.install(|| {
        // The engine's shared context (the quadrant table) is built before any unit is
        // timed: it is the whole plan's cost, not a unit's.
        prepared.prepare(units, stop)?;
        units
            .par_iter()
            .with_max_len(1)
            .map(|u| {
                let (engine, engine_time) = timed(|| prepared.run_unit(u, stop));
                let (plain, plain_time) = timed(|| recount(n, u, stop));
                let c = Compared {
                    unit: *u,
                    engine: engine?,
                    engine_time,
                    plain: plain?,
                    plain_time,
                };
                on_done(&c);
                Some(c)
            })
            .collect::<Option<Vec<_>>>()
    }))
}

/// Recounts `units` of n plainly on `threads` threads, in the order given; Ok(None) if
/// `stop` was raised first.
///
/// # Errors
/// The thread pool's.
pub fn recount_all(
    n: u32,
    units: &[Unit],
    threads: usize,
    stop: &AtomicBool,
) -> Result<Option<Vec<Recount>>, Error> {
    let pool = pool(threads)?;
    Ok(pool.install(|| {
        units
            .par_iter()
            .with_max_len(1)
            .map(|u| match stop.load(Ordering::Relaxed) {
                true => None,
                false => recount(n, u, stop),
            })
            .collect()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NEVER;
    use crate::Engine;

    fn quadrant() -> Engine {
        Engine::named("quadrant").expect("an engine")
    }

    #[test]
    fn a_draw_is_repeatable_distinct_and_within_the_cheapest() {
        let plan = UnitPlan::with_engine(14, quadrant());
        let a = draw(&plan, 20, 7, None, &NEVER).unwrap();
        assert_eq!(a, draw(&plan, 20, 7, None, &NEVER).unwrap());
        assert_ne!(a, draw(&plan, 20, 8, None, &NEVER).unwrap());
        let mut ids: Vec<u32> = a.iter().map(|u| u.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 20);
        let costs = cost::estimates(&plan);
        let mut sorted: Vec<u64> = plan
            .units()
            .iter()
            .filter(|u| u.kind.feeds() == Sum::Total)
            .map(|u| costs[u.id as usize])
            .collect();
        sorted.sort_unstable();
        let cut = sorted[(sorted.len() as f64 * 0.05).ceil() as usize - 1];
        for u in draw(&plan, 20, 7, Some(5.0), &NEVER).unwrap() {
            assert!(costs[u.id as usize] <= cut, "{u:?}");
            assert_eq!(u.kind.feeds(), Sum::Total, "{u:?}");
        }
        // More than the plan has: every unit once.
        assert_eq!(
            draw(&plan, usize::MAX, 1, None, &NEVER).unwrap().len(),
            plan.len()
        );
    }

    #[test]
    fn a_thread_is_timed_by_its_cpu() {
        let ((), t) = timed(|| std::thread::sleep(std::time::Duration::from_millis(50)));
        assert!(t.wall >= 0.05, "{t:?}");
        #[cfg(unix)]
        assert!(t.cpu < 0.04, "a sleeping thread takes no CPU: {t:?}");
    }

    #[test]
    fn both_ways_agree_on_drawn_units() {
        let plan = UnitPlan::with_engine(15, quadrant());
        let units = draw(&plan, 6, 3, None, &NEVER).unwrap();
        let got = compare(&plan, &units, 2, &Config::default(), &NEVER, |_| {})
            .unwrap()
            .unwrap();
        assert_eq!(got.len(), 6);
        assert!(got.iter().all(Compared::agrees), "{got:?}");
        let plain = recount_all(15, &units, 2, &NEVER).unwrap().unwrap();
        assert_eq!(
            plain.iter().map(|r| r.solutions).collect::<Vec<_>>(),
            got.iter().map(|c| c.plain.solutions).collect::<Vec<_>>()
        );
    }
}
