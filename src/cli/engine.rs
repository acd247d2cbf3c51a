//! `--engine` and `--max-memory`: which counting engine runs, and how much memory it may
//! take. Shared by `count`, `verify`, `bench` and `plan`.
//!
//! The quadrant engine's memory is its quadrant table (64 MB at n = 20 and 21, 550 MB at
//! n = 22 and 23, 5 GB at n = 25, built there only when a count is long enough for it to
//! pay, `Engine::table_pays`; none at n = 24, which counts faster without it, nor above,
//! where the quadrants are searched per set instead) plus, per thread, the half-board pattern lists of one set E (about 4 MB at
//! n = 20, growing about 2.75x per n above it; from n = 26 a set larger than the lists'
//! budget is counted in parts). A table that does not fit the limit is not built (the engine searches
//! instead, slower); a count whose lists would not fit is refused before it starts, with
//! one line, instead of being killed by the OOM killer halfway.

use anyhow::bail;

use super::args::{EngineArgs, EngineChoice};
use super::error::{usage, Failure};
use super::format::{bytes, grouped};
use crate::engine::plan::Engine;
use crate::engine::quadrant;
use crate::engine::Config;
use crate::runner::session::{units_within, BYTES_PER_UNIT};
use crate::UnitPlan;
use std::sync::atomic::AtomicBool;

impl EngineChoice {
    /// The engine this choice names; None for `auto`, which depends on n and the memory.
    pub fn engine(self) -> Option<Engine> {
        match self {
            EngineChoice::Auto => None,
            EngineChoice::Quadrant => Some(Engine::Quadrant),
            EngineChoice::Backtrack => Some(Engine::Backtrack),
        }
    }
}

/// What set a memory limit, as the end of "more than the 4.0 GiB ..." in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `--max-memory`.
    MaxMemory,
    /// 80% of MemAvailable, split evenly between the `shared_by` MPI ranks of this node
    /// (1 outside MPI).
    Available {
        /// Ranks of this node that split its memory.
        shared_by: u32,
    },
    /// Three quarters of the address-space limit (`ulimit -v`).
    AddressSpace,
    /// No limit (`EnginePlan::unlimited`).
    Unlimited,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::MaxMemory => f.write_str("allowed by --max-memory"),
            Source::Available { shared_by: 1 } => {
                f.write_str("available (80% of free memory; see --max-memory)")
            }
            Source::Available { shared_by } => write!(
                f,
                "available (80% of free memory, split between the {shared_by} MPI ranks of this node; see --max-memory)"
            ),
            Source::AddressSpace => f.write_str("the address-space limit (ulimit -v) leaves usable"),
            Source::Unlimited => f.write_str("allowed"),
        }
    }
}

/// Memory available to a count: `--max-memory`, or 80% of MemAvailable divided by
/// `shared_by` (the MPI ranks of this node, which each take their share; 1 otherwise); in
/// either case no more than three quarters of the address-space limit (`ulimit -v`,
/// RLIMIT_AS), which an allocation cannot pass whatever the machine has (the other quarter
/// is for the program, its thread stacks and the allocator's arenas). `--max-memory` is
/// this process's own and is not divided.
pub fn memory_limit(max_memory: Option<u64>, shared_by: u32) -> (u64, Source) {
    let asked = match max_memory {
        Some(m) => (m, Source::MaxMemory),
        None => (
            crate::runner::local::proc_size("/proc/meminfo", "MemAvailable")
                .map_or(1 << 30, |b| b / 10 * 8)
                / u64::from(shared_by.max(1)),
            Source::Available {
                shared_by: shared_by.max(1),
            },
        ),
    };
    match crate::runner::local::address_space_limit() {
        Some(limit) if limit / 4 * 3 < asked.0 => (limit / 4 * 3, Source::AddressSpace),
        _ => asked,
    }
}

/// What the engine choice resolves to for one count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnginePlan {
    /// The engine that runs.
    pub engine: Engine,
    /// Bytes of the quadrant table it builds (0: none).
    pub table_bytes: u64,
    /// Estimated bytes of its per-thread lists, all threads.
    pub list_bytes: u64,
    /// Bytes left for the unit plan and its bookkeeping.
    pub plan_budget: u64,
    /// The memory limit, and what set it (for messages).
    pub limit: u64,
    /// What set the limit.
    pub source: Source,
    /// What the engine runs under: a table limit that admits exactly the table above.
    pub config: Config,
}

impl EnginePlan {
    /// This plan without the quadrant table where building it would cost a run of about
    /// `cpu_seconds` more than it saves ([`Engine::table_pays`]): the same counts, the
    /// quadrants searched per set.
    pub fn table_if_it_pays(self, n: u32, cpu_seconds: f64, threads: usize) -> EnginePlan {
        if self.table_bytes == 0 || self.engine.table_pays(n, cpu_seconds, threads) {
            return self;
        }
        EnginePlan {
            table_bytes: 0,
            plan_budget: self.plan_budget.saturating_add(self.table_bytes),
            config: Config {
                table_limit: 0,
                ..self.config
            },
            ..self
        }
    }

    /// `engine` with no memory limit, for the fixed, small workloads of `bench`.
    pub fn unlimited(engine: Engine) -> EnginePlan {
        EnginePlan {
            engine,
            table_bytes: 0,
            list_bytes: 0,
            plan_budget: u64::MAX,
            limit: u64::MAX,
            source: Source::Unlimited,
            config: super::kernel::config(),
        }
    }

    /// The unit plan of n for this engine, within the memory left for it; None if a stop
    /// signal came first.
    ///
    /// # Errors
    /// One line naming the limit, for a plan that would not fit.
    pub fn plan(&self, n: u32, stop: &AtomicBool) -> anyhow::Result<Option<UnitPlan>> {
        let max_units = units_within(self.plan_budget);
        let besides = if self.list_bytes + self.table_bytes > 0 {
            format!(
                ", besides {} for the engine's table and lists",
                bytes(self.list_bytes + self.table_bytes)
            )
        } else {
            String::new()
        };
        match UnitPlan::build(n, self.engine, stop, max_units) {
            Ok(plan) => Ok(Some(plan)),
            Err(crate::Error::Stopped) => Ok(None),
            // Less than one unit's bytes: "its unit plan passed 0 units" said nothing.
            Err(crate::Error::PlanTooLarge { units: 0 }) => bail!(
                "n = {n} with the {} engine: the {} {} leaves no room for its unit plan ({BYTES_PER_UNIT} bytes a unit{besides}): give at least a few megabytes, e.g. --max-memory 64M",
                self.engine.name(),
                bytes(self.limit),
                self.source,
            ),
            Err(crate::Error::PlanTooLarge { units }) => bail!(
                "n = {n} with the {} engine: its unit plan passed {} units, more than fit in the {} {} ({BYTES_PER_UNIT} bytes a unit{besides})",
                self.engine.name(),
                grouped(units as u128),
                bytes(self.limit),
                self.source,
            ),
            Err(e) => Err(e.into()),
        }
    }
}

impl EngineArgs {
    /// Resolves the engine for n on `threads` threads, sets the quadrant table limit, and
    /// refuses a count that would not fit in memory.
    ///
    /// # Errors
    /// One line: the quadrant engine asked for an n it does not count, or a count whose
    /// lists would not fit `--max-memory`.
    pub fn resolve(&self, n: u32, threads: usize) -> Result<EnginePlan, Failure> {
        self.resolve_shared(n, threads, 1)
    }

    /// [`EngineArgs::resolve`] for one of `shared_by` MPI ranks of a node, which split the
    /// node's available memory evenly (an explicit `--max-memory` is the rank's own).
    ///
    /// # Errors
    /// As [`EngineArgs::resolve`].
    pub fn resolve_shared(
        &self,
        n: u32,
        threads: usize,
        shared_by: u32,
    ) -> Result<EnginePlan, Failure> {
        let (limit, source) = memory_limit(self.max_memory, shared_by);
        let lists = Engine::Quadrant
            .list_bytes(n)
            .saturating_mul(threads as u64);
        let engine = match self.engine.engine() {
            Some(asked) if !asked.supports(n) => {
                let (min, max) = asked.range();
                usage!(
                    "the {} engine counts n = {min}..{max}, not {n}: use --engine backtrack (or auto)",
                    asked.name()
                );
            }
            Some(asked) => asked,
            None if lists <= limit => Engine::auto(n),
            None => Engine::Backtrack,
        };
        // Sized for a whole count: no table where even that does not gain from it (n = 24,
        // see `Engine::table_pays`); a shard asks again for its share.
        Ok(
            EnginePlan::fit(engine, n, threads, limit, source, 0)?.table_if_it_pays(
                n,
                engine.cpu_seconds(n),
                threads,
            ),
        )
    }

    /// The memory this process may use for its part of a count: `--max-memory`, or its
    /// share of the available memory when `shared_by` MPI ranks split this node's.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub fn budget(&self, shared_by: u32) -> (u64, Source) {
        memory_limit(self.max_memory, shared_by)
    }
}

impl EnginePlan {
    /// `engine` (already chosen; it counts n) for n on `threads` threads within `limit`
    /// bytes: the quadrant lists must fit, the quadrant table is built only if it fits
    /// beside them and `plan_bytes` (the plan, where its size is known beforehand: an MPI
    /// rank's copy of rank 0's plan; 0 otherwise), and what is left bounds the unit plan.
    ///
    /// # Errors
    /// One line (a usage error) if the quadrant engine's lists do not fit.
    pub fn fit(
        engine: Engine,
        n: u32,
        threads: usize,
        limit: u64,
        source: Source,
        plan_bytes: u64,
    ) -> Result<EnginePlan, Failure> {
        let lists = engine.list_bytes(n).saturating_mul(threads as u64);
        if lists > limit {
            usage!(
                "n = {n} with the {} engine needs about {} for its lists on {threads} thread(s), more than the {} {source}: use fewer --threads, a larger --max-memory, or --engine backtrack",
                engine.name(),
                bytes(lists),
                bytes(limit)
            );
        }
        let table = engine
            .table_bytes(n)
            .filter(|&t| t.saturating_add(lists).saturating_add(plan_bytes) <= limit)
            .unwrap_or(0);
        // From n = 26 a set's lists can pass the 1 GiB a thread starts from: they are then
        // joined in parts (`quadrant::Frame::parts`), which costs time (fewer key bits, the
        // halves made again). Each thread may take up to half of what the table (and a plan
        // of known size) leaves, shared out, so that a machine with memory to spare joins
        // whole lists or fewer parts; the other half is for the unit plan and its records
        // (2.6 GB at n = 28).
        let t = threads.max(1) as u64;
        let least = lists / t;
        let room = limit.saturating_sub(table).saturating_sub(plan_bytes) / 2 / t;
        // n = 26 keeps its 1 GiB (at most 3 west parts, its east list whole): the halves and
        // sort of a part are not interruptible, and whole sets there made a stop take 4-5 s.
        let per_thread = if n >= 28 {
            room.clamp(least, engine.whole_list_bytes(n).max(least))
        } else {
            least
        };
        let lists = per_thread.saturating_mul(t);
        // What is left bounds the unit plan and the bookkeeping of its units, which grow
        // like n^5 (backtracking): a plan past it is refused while it is being made (see
        // `plan`), before anything else is allocated.
        Ok(EnginePlan {
            engine,
            table_bytes: table,
            list_bytes: lists,
            plan_budget: limit.saturating_sub(lists + table),
            limit,
            source,
            config: Config {
                table_limit: table,
                list_budget: per_thread.max(quadrant::LIST_BUDGET),
                ..super::kernel::config()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_quadrant_engine_refuses_what_it_cannot_count() {
        let a = EngineArgs {
            engine: EngineChoice::Quadrant,
            max_memory: Some(1 << 30),
        };
        assert!(a.resolve(3, 1).is_err());
        assert!(a.resolve(33, 1).is_err());
        assert_eq!(a.resolve(16, 2).unwrap().engine, Engine::Quadrant);
        let tight = EngineArgs {
            engine: EngineChoice::Quadrant,
            max_memory: Some(1 << 20),
        };
        let e = tight.resolve(24, 2).unwrap_err().to_string();
        assert!(e.contains("more than the"), "{e}");
        // 150M: too little for the quadrant lists of n = 24 on 2 threads (420 MB), enough
        // for the backtracking plan (at most 114.5 MiB).
        let auto = EngineArgs {
            engine: EngineChoice::Auto,
            max_memory: Some(150 << 20),
        };
        assert_eq!(auto.resolve(24, 2).unwrap().engine, Engine::Backtrack);
        let tiny = EngineArgs {
            engine: EngineChoice::Auto,
            max_memory: Some(1 << 20),
        };
        let chosen = tiny.resolve(24, 2).unwrap();
        let e = chosen
            .plan(24, &crate::engine::NEVER)
            .unwrap_err()
            .to_string();
        assert!(e.contains("its unit plan passed 8,192 units"), "{e}");
        // Less than one unit: no "passed 0 units".
        let one_byte = EngineArgs {
            engine: EngineChoice::Auto,
            max_memory: Some(1),
        };
        let e = one_byte
            .resolve(8, 1)
            .unwrap()
            .plan(8, &crate::engine::NEVER)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "n = 8 with the backtrack engine: the 1 B allowed by --max-memory leaves no room for its unit plan (128 bytes a unit): give at least a few megabytes, e.g. --max-memory 64M"
        );
    }

    #[test]
    fn list_budgets_grow_with_the_memory_allowed_from_n_28() {
        let with = |mem: u64, n: u32, threads: usize| {
            EngineArgs {
                engine: EngineChoice::Auto,
                max_memory: Some(mem),
            }
            .resolve(n, threads)
            .unwrap()
        };
        // n = 28: half of 8 GiB shared by 2 threads; 64 GiB on one thread holds whole sets.
        let small = with(8 << 30, 28, 2);
        assert_eq!(small.config.list_budget, 2 << 30);
        assert_eq!(small.list_bytes, 4 << 30);
        let roomy = with(64 << 30, 28, 1);
        assert_eq!(
            roomy.config.list_budget,
            Engine::Quadrant.whole_list_bytes(28)
        );
        // Too little memory for more than the 1 GiB a thread starts from: that, still.
        assert_eq!(
            with(3 << 30, 28, 2).config.list_budget,
            quadrant::LIST_BUDGET
        );
        // n = 26 keeps 1 GiB (a stop must not wait for a whole set's halves and sort).
        assert_eq!(
            with(64 << 30, 26, 2).config.list_budget,
            quadrant::LIST_BUDGET
        );
        // Below n = 26 no set comes near the budget: the lists' estimate, as before.
        let n24 = with(64 << 30, 24, 2);
        assert_eq!(n24.list_bytes, 2 * Engine::Quadrant.list_bytes(24));
        assert_eq!(n24.config.list_budget, quadrant::LIST_BUDGET);
    }

    #[test]
    fn ranks_of_one_node_split_its_free_memory_but_not_max_memory() {
        let auto = EngineArgs {
            engine: EngineChoice::Auto,
            max_memory: None,
        };
        let (alone, source) = auto.budget(1);
        let (third, shared) = auto.budget(3);
        if source == Source::AddressSpace {
            return; // ulimit -v sets both
        }
        // Free memory moves a little between the two reads.
        let ratio = 3.0 * third as f64 / alone as f64;
        assert!((0.9..1.1).contains(&ratio), "{third} x 3 against {alone}");
        assert_eq!(shared, Source::Available { shared_by: 3 });
        assert!(shared
            .to_string()
            .contains("split between the 3 MPI ranks of this node"));
        assert!(!source.to_string().contains("split"));
        let given = EngineArgs {
            engine: EngineChoice::Auto,
            max_memory: Some(1 << 30),
        };
        assert_eq!(given.budget(3), (1 << 30, Source::MaxMemory));
    }

    #[test]
    fn a_fixed_engine_keeps_room_for_a_plan_of_known_size_before_its_table() {
        let n = 14;
        let table = Engine::Quadrant.table_bytes(n).unwrap();
        let lists = Engine::Quadrant.list_bytes(n);
        let limit = table + lists + 1000;
        let fit = |plan_bytes| {
            EnginePlan::fit(Engine::Quadrant, n, 1, limit, Source::MaxMemory, plan_bytes).unwrap()
        };
        assert_eq!(fit(0).table_bytes, table);
        assert_eq!(fit(1000).table_bytes, table);
        let without = fit(1001);
        assert_eq!((without.table_bytes, without.config.table_limit), (0, 0));
        assert_eq!(without.plan_budget, limit - lists);
        // The lists must fit: no table stands in for them.
        assert!(EnginePlan::fit(Engine::Quadrant, n, 1, lists - 1, Source::MaxMemory, 0).is_err());
    }

    #[test]
    fn a_small_shard_leaves_the_big_table_out_and_keeps_its_memory() {
        let roomy = EngineArgs {
            engine: EngineChoice::Auto,
            max_memory: Some(16 << 30),
        };
        let whole = roomy.resolve(25, 2).unwrap();
        assert!(whole.table_bytes > 4 << 30, "n = 25 builds the 5 GB table");
        let cpu = Engine::Quadrant.cpu_seconds(25);
        assert_eq!(whole.table_if_it_pays(25, cpu, 2), whole);
        let shard = whole.table_if_it_pays(25, cpu / 200_000.0, 2);
        assert_eq!((shard.table_bytes, shard.config.table_limit), (0, 0));
        assert_eq!(shard.plan_budget, whole.plan_budget + whole.table_bytes);
        assert_eq!(
            (shard.engine, shard.list_bytes),
            (whole.engine, whole.list_bytes)
        );
        // n = 24 counts faster without it, even whole (see `quadrant::model::table_pays`):
        // `resolve`, which sizes a whole count, leaves it out and keeps its memory.
        let n24 = roomy.resolve(24, 2).unwrap();
        assert_eq!((n24.table_bytes, n24.config.table_limit), (0, 0));
        assert_eq!(n24.engine, Engine::Quadrant);
        // n = 22's table (550 MB) is built for any shard.
        let small = roomy.resolve(22, 2).unwrap();
        assert_eq!(small.table_if_it_pays(22, 1.0, 2), small);
    }
}
