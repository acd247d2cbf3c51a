//! The progress bar of a long count: units done of total, elapsed time, ETA and nodes per
//! second, on stderr only, and only when stderr is a terminal (and `--quiet` is not given).
//!
//! The bar advances by each unit's *estimated cost* ([`crate::engine::cost`]), not by one
//! per unit: units differ in cost by orders of magnitude, so counting them one each would make
//! the ETA swing as big and small units alternate.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::engine::cost;
use crate::{Engine, Unit, UnitResult};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::format::{grouped, si};

/// A progress display, possibly hidden; safe to update from worker threads.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// Estimated cost per unit id (empty when hidden).
    costs: Vec<u64>,
    units: usize,
    /// What the rate counts: the engine's work figure ("nodes" or "pairs").
    work: &'static str,
    done: AtomicUsize,
    nodes: AtomicU64,
    start: Instant,
}

impl Progress {
    /// A bar over `scope` (the units this command covers) of which `already` are done, shown
    /// only if `wanted` and stderr is a terminal.
    pub fn new(wanted: bool, n: u32, engine: Engine, scope: &[Unit], already: &[Unit]) -> Progress {
        let show = wanted && std::io::stderr().is_terminal();
        let mut costs = Vec::new();
        if show {
            costs = vec![0; scope.iter().map(|u| u.id as usize + 1).max().unwrap_or(0)];
            let est = cost::Estimator::new(n, engine);
            for u in scope {
                costs[u.id as usize] = est.of(u);
            }
        }
        let bar = show.then(|| {
            let total: u64 = costs.iter().sum();
            let done: u64 = already.iter().map(|u| costs[u.id as usize]).sum();
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "[{elapsed_precise}] {wide_bar} {percent:>3}%  {msg}  ETA {eta}",
                )
                .expect("valid template"),
            );
            bar.set_position(done);
            bar.reset_eta();
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        let p = Progress {
            bar,
            costs,
            units: scope.len(),
            work: engine.work(),
            done: AtomicUsize::new(already.len()),
            nodes: AtomicU64::new(0),
            start: Instant::now(),
        };
        p.message();
        p
    }

    fn message(&self) {
        if let Some(bar) = &self.bar {
            let secs = self.start.elapsed().as_secs_f64();
            let rate = if secs > 0.0 {
                self.nodes.load(Ordering::Relaxed) as f64 / secs
            } else {
                0.0
            };
            let done = self.done.load(Ordering::Relaxed) as u128;
            bar.set_message(format!(
                "{}/{} units  {}{}/s",
                grouped(done),
                grouped(self.units as u128),
                si(rate),
                self.work
            ));
        }
    }

    /// Records a finished unit.
    pub fn done(&self, unit: &Unit, r: &UnitResult) {
        if let Some(bar) = &self.bar {
            self.done.fetch_add(1, Ordering::Relaxed);
            self.nodes.fetch_add(r.nodes, Ordering::Relaxed);
            bar.inc(self.costs.get(unit.id as usize).copied().unwrap_or(0));
            self.message();
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
