//! `NQUEENS_KERNEL`: the one environment variable the program reads, turned into the
//! engine's instruction-set choice here (the engine itself reads no environment).
//!
//! Unset or `auto`: the best code this CPU runs (x86-64-v3 where it can). `baseline`: the
//! build's own baseline code, to measure one against the other in one binary (the counts
//! are the same). Anything else is refused, so that a typo does not silently measure the
//! wrong code.

use nqueens::engine::isa::{self, Isa};

use super::args::shown;

/// The environment variable.
pub const ENV: &str = "NQUEENS_KERNEL";

/// Whether the environment asked for the baseline code.
fn asks_baseline() -> bool {
    std::env::var_os(ENV).is_some_and(|v| v == "baseline")
}

/// Applies `NQUEENS_KERNEL` to the engine, once at start-up.
///
/// # Errors
/// A value other than `auto` or `baseline`, in one line.
pub fn apply_env() -> anyhow::Result<()> {
    match std::env::var_os(ENV) {
        None => {}
        Some(v) if v == "auto" => {}
        Some(v) if v == "baseline" => {
            if isa::BUILT_V3 {
                eprintln!(
                    "warning: {ENV}=baseline has no effect on this build: it was built for the host CPU (x86-64-v3 features), so it has no baseline code"
                );
            } else {
                // Always possible in a build that is not v3 throughout.
                isa::set(Isa::Baseline);
            }
        }
        Some(v) => anyhow::bail!(
            "{ENV} must be 'auto' or 'baseline', not '{}'",
            shown(&v.to_string_lossy())
        ),
    }
    Ok(())
}

/// The instruction set the hot loops run with and how it was chosen, as reports say it:
/// "x86-64-v3 (chosen at run time)", "baseline (NQUEENS_KERNEL=baseline)", ...
pub fn describe() -> String {
    if asks_baseline() {
        isa::describe_set_by("NQUEENS_KERNEL=baseline")
    } else {
        isa::describe()
    }
}
