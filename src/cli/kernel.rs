//! `NQUEENS_KERNEL`: the one environment variable for users, turned into the engine's
//! instruction-set choice here (the engine itself reads no environment). The binary reads
//! two more, test hooks that only the tests set: `NQUEENS_TEST_PANIC_AFTER`
//! (`cli::animate::terminal`) and `NQUEENS_BENCH_CORRUPT_EXPECTED` (`cli::bench`).
//!
//! Unset or `auto`: the best code this CPU runs (x86-64-v3 where it can). `baseline`: the
//! build's own baseline code, to measure one against the other in one binary (the counts
//! are the same). Anything else is refused, so that a typo does not silently measure the
//! wrong code.

use crate::engine::isa::{Isa, BUILT_V3};
use crate::engine::Config;

use super::error::{say, usage, Failure};
use crate::runner::shown;

/// The environment variable.
pub const ENV: &str = "NQUEENS_KERNEL";

/// Whether the environment asked for the baseline code.
fn asks_baseline() -> bool {
    std::env::var_os(ENV).is_some_and(|v| v == "baseline")
}

/// Checks `NQUEENS_KERNEL` once at start-up (and warns where it can have no effect).
///
/// # Errors
/// A value other than `auto` or `baseline`, in one line.
pub fn check_env() -> Result<(), Failure> {
    match std::env::var_os(ENV) {
        None => {}
        Some(v) if v == "auto" => {}
        Some(v) if v == "baseline" && BUILT_V3 => say!(
            "warning: {ENV}=baseline has no effect on this build: it was built for the host CPU (x86-64-v3 features), so it has no baseline code"
        ),
        Some(v) if v == "baseline" => {}
        Some(v) => usage!(
            "{ENV} must be 'auto' or 'baseline', not '{}'",
            shown::value(&v.to_string_lossy())
        ),
    }
    Ok(())
}

/// The instruction set the environment asks for ([`check_env`] has refused anything else).
pub fn isa() -> Isa {
    if asks_baseline() {
        Isa::Baseline
    } else {
        Isa::best()
    }
}

/// The engine configuration of a run with no memory limit: the default table limit and
/// the instruction set of [`isa`].
pub fn config() -> Config {
    Config {
        isa: isa(),
        ..Config::default()
    }
}

/// The instruction set the hot loops run with and how it was chosen, as reports say it:
/// "x86-64-v3 (chosen at run time)", "baseline (NQUEENS_KERNEL=baseline)", ...
pub fn describe() -> String {
    isa().describe("NQUEENS_KERNEL=baseline")
}
