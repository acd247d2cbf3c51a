//! `--engine` and `--max-memory`: which counting engine runs, and how much memory it may
//! take. Shared by `count`, `verify`, `bench` and `plan`.
//!
//! The quadrant engine's memory is its quadrant table (64 MB at n = 20 and 21, 550 MB at
//! n = 22 and 23; none above, where the quadrants are searched per set instead) plus, per
//! thread, the half-board pattern lists of one set E (about 4 MB at n = 20, growing about
//! 2.45x per n). A table that does not fit the limit is not built (the engine searches
//! instead, slower); a count whose lists would not fit is refused before it starts, with
//! one line, instead of being killed by the OOM killer halfway.

use crate::cli::error::usage;
use anyhow::bail;
use clap::{Args, ValueEnum};

use super::format::{bytes, grouped};
use crate::engine::plan::Engine;
use crate::engine::quadrant;
use crate::engine::Config;
use crate::runner::session::{units_within, BYTES_PER_UNIT};
use crate::UnitPlan;
use std::sync::atomic::AtomicBool;

/// The `--engine` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineChoice {
    /// Quadrant for 12 <= N <= 32 when it fits --max-memory, backtrack otherwise.
    Auto,
    /// Join quarter-board placements (meet in the middle): the fastest from N = 12 on.
    Quadrant,
    /// Bit-board backtracking over border constellations: any N, little memory.
    Backtrack,
}

/// Engine selection arguments.
#[derive(Args, Clone, Debug)]
pub struct EngineArgs {
    /// Counting engine: auto picks quadrant for 12 <= N <= 32 (the faster one there, 3-8x)
    /// when it fits --max-memory, and backtrack otherwise. Both give the same counts; unique
    /// counts always come from the same symmetric searches.
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: EngineChoice,
    /// Memory the count may use (the unit plan and, for the quadrant engine, its table and
    /// per-thread lists), e.g. 512M, 4G; a count that would not fit is refused.
    /// Default: 80% of the memory available when the count starts (/proc/meminfo), or 1G;
    /// never more than three quarters of the address-space limit (ulimit -v).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<u64>,
}

/// Largest `--max-memory`: 1 PiB.
const MAX_SIZE: u64 = 1 << 50;

/// Parses a size: a whole number of bytes with an optional K, M, G, T or P suffix (powers of
/// 1024; "KiB", "MB" and the like are read the same way).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let upper = t.to_ascii_uppercase();
    let body = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (digits, shift) = match body.chars().last() {
        Some('K') => (&body[..body.len() - 1], 10),
        Some('M') => (&body[..body.len() - 1], 20),
        Some('G') => (&body[..body.len() - 1], 30),
        Some('T') => (&body[..body.len() - 1], 40),
        Some('P') => (&body[..body.len() - 1], 50),
        _ => (body, 0),
    };
    let bad = || {
        format!(
            "'{}' is not a memory size: expected bytes or a number with K, M, G, T or P, e.g. 512M, 4G",
            super::args::shown(s)
        )
    };
    let value: u64 = digits.trim().parse().map_err(|_| bad())?;
    let total = value
        .checked_mul(1u64 << shift)
        .filter(|&v| v <= MAX_SIZE)
        .ok_or_else(|| {
            format!(
                "memory size {} is above the largest allowed, 1P",
                super::args::shown(s)
            )
        })?;
    if total == 0 {
        return Err("memory size 0 is too small: give at least a few megabytes, e.g. 64M".into());
    }
    Ok(total)
}

/// Memory available to the count and where the figure comes from: `--max-memory`, or 80%
/// of MemAvailable; in either case no more than three quarters of the address-space limit
/// (`ulimit -v`, RLIMIT_AS), which an allocation cannot pass whatever the machine has (the
/// other quarter is for the program, its thread stacks and the allocator's arenas).
pub fn memory_limit(max_memory: Option<u64>) -> (u64, &'static str) {
    let asked = match max_memory {
        Some(m) => (m, "allowed by --max-memory"),
        None => (
            std::fs::read_to_string("/proc/meminfo")
                .ok()
                .and_then(|m| {
                    m.lines()
                        .find_map(|l| l.strip_prefix("MemAvailable:"))
                        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                })
                .map_or(1 << 30, |kb| kb * 1024 / 10 * 8),
            "available (80% of free memory; see --max-memory)",
        ),
    };
    match address_space_limit() {
        Some(limit) if limit / 4 * 3 < asked.0 => (
            limit / 4 * 3,
            "the address-space limit (ulimit -v) leaves usable",
        ),
        _ => asked,
    }
}

/// The soft address-space limit of this process, if there is one.
fn address_space_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        rustix::process::getrlimit(rustix::process::Resource::As).current
    }
    #[cfg(not(unix))]
    {
        None
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
    /// What set the limit, as the end of "more than the 4.0 GiB ...".
    pub source: &'static str,
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
            source: "",
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
        match UnitPlan::build(n, self.engine, stop, max_units) {
            Ok(plan) => Ok(Some(plan)),
            Err(crate::Error::Stopped) => Ok(None),
            Err(crate::Error::PlanTooLarge { units }) => bail!(
                "n = {n} with the {} engine: its unit plan passed {} units, more than fit in the {} {} ({BYTES_PER_UNIT} bytes a unit{})",
                self.engine.name(),
                grouped(units as u128),
                bytes(self.limit),
                self.source,
                if self.list_bytes + self.table_bytes > 0 {
                    format!(
                        ", besides {} for the engine's table and lists",
                        bytes(self.list_bytes + self.table_bytes)
                    )
                } else {
                    String::new()
                },
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
    pub fn resolve(&self, n: u32, threads: usize) -> anyhow::Result<EnginePlan> {
        let (limit, source) = memory_limit(self.max_memory);
        let lists = Engine::Quadrant
            .list_bytes(n)
            .saturating_mul(threads as u64);
        let table = Engine::Quadrant
            .table_bytes(n)
            .filter(|&t| t + lists <= limit);
        let fits = lists <= limit;
        let engine = match self.engine {
            EngineChoice::Backtrack => Engine::Backtrack,
            EngineChoice::Auto if fits => Engine::auto(n),
            EngineChoice::Auto => Engine::Backtrack,
            EngineChoice::Quadrant => {
                if !Engine::Quadrant.supports(n) {
                    usage!(
                        "the quadrant engine counts n = {}..{}, not {n}: use --engine backtrack (or auto)",
                        quadrant::MIN_N,
                        quadrant::MAX_N
                    );
                }
                if !fits {
                    usage!(
                        "n = {n} with the quadrant engine needs about {} for its lists on {threads} thread(s), more than the {} {source}: use fewer --threads, a larger --max-memory, or --engine backtrack",
                        bytes(lists),
                        bytes(limit)
                    );
                }
                Engine::Quadrant
            }
        };
        let lists = if engine == Engine::Quadrant { lists } else { 0 };
        let table = table.filter(|_| engine == Engine::Quadrant);
        // What is left bounds the unit plan and the bookkeeping of its units, which grow
        // like n^5 (backtracking): a plan past it is refused while it is being made (see
        // `plan`), before anything else is allocated.
        let left = limit.saturating_sub(lists + table.unwrap_or(0));
        Ok(EnginePlan {
            engine,
            table_bytes: table.unwrap_or(0),
            list_bytes: lists,
            plan_budget: left,
            limit,
            source,
            config: Config {
                table_limit: table.unwrap_or(0),
                ..super::kernel::config()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4g"), Ok(4 << 30));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-1G").is_err());
        assert!(parse_size("2000T").unwrap_err().contains("largest"));
        // The largest allowed value, as the message names it, is accepted.
        assert_eq!(parse_size("1P"), Ok(1 << 50));
        assert_eq!(parse_size("1024T"), Ok(1 << 50));
        assert!(parse_size("2P")
            .unwrap_err()
            .contains("largest allowed, 1P"));
    }

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
    }

    #[test]
    fn a_small_shard_leaves_the_big_table_out_and_keeps_its_memory() {
        let roomy = EngineArgs {
            engine: EngineChoice::Auto,
            max_memory: Some(16 << 30),
        };
        let whole = roomy.resolve(24, 2).unwrap();
        assert!(whole.table_bytes > 4 << 30, "n = 24 builds the 5 GB table");
        let cpu = Engine::Quadrant.cpu_seconds(24);
        assert_eq!(whole.table_if_it_pays(24, cpu, 2), whole);
        let shard = whole.table_if_it_pays(24, cpu / 20_000.0, 2);
        assert_eq!((shard.table_bytes, shard.config.table_limit), (0, 0));
        assert_eq!(shard.plan_budget, whole.plan_budget + whole.table_bytes);
        assert_eq!(
            (shard.engine, shard.list_bytes),
            (whole.engine, whole.list_bytes)
        );
        // n = 22's table (550 MB) is built for any shard.
        let small = roomy.resolve(22, 2).unwrap();
        assert_eq!(small.table_if_it_pays(22, 1.0, 2), small);
    }
}
