//! `nqueens verify`: counts n = 1..MAX and checks each row three ways: the known table
//! (A000170, A002562, orbit breakdown), Burnside's identities (checked inside every count),
//! and for n <= 10 the independent reference solver.

use crate::cli::error::say;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::args::{parse_n, parse_threads};
use super::bfile::Sequence;
use super::engine::EngineArgs;
use super::format::grouped;
use super::report::{is_failed_check, timed_count, KnownCheck};
use super::{default_threads, Outcome};
use crate::reference;

/// Largest n checked against the reference solver (10! = 3.6 million permutations).
pub const REFERENCE_MAX: u32 = 10;

/// Arguments of `verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Largest n to check. Default: 17 (2 s on 2 cores; 18 takes about 5 s).
    #[arg(long, value_parser = parse_n, default_value = "17", allow_negative_numbers = true)]
    pub max: u32,
    /// Worker threads (1..4096). Default: all logical cores.
    #[arg(short = 't', long, value_parser = parse_threads, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Check an OEIS b-file instead of the table: recount each term with n <= --max and
    /// report it as ok, MISMATCH or skipped. `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    pub bfile: Option<PathBuf>,
    /// The sequence of --bfile: total (A000170, the default) or unique (A002562).
    #[arg(long, value_enum, value_name = "SEQ", requires = "bfile")]
    pub sequence: Option<Sequence>,
    /// Engine selection (auto: the quadrant engine from n = 12 on). To cross-check the two
    /// engines, run verify once with each.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Runs `verify`.
pub fn run(a: &VerifyArgs) -> Outcome {
    let threads = a.threads.unwrap_or_else(default_threads);
    if let Some(path) = &a.bfile {
        return super::bfile::verify(
            path,
            a.sequence.unwrap_or_default(),
            a.max,
            threads,
            &a.engine,
        );
    }
    let mut out = crate::cli::error::stdout();
    writeln!(
        out,
        "{:>3} {:>20} {:>19} {:>9} {:>9} {:>9}  status",
        "n", "total", "unique", "burnside", "reference", "known"
    )?;
    let mut bad = 0;
    for n in 1..=a.max {
        // Burnside's identities are checked inside every count; a failure is an error there.
        // Any other error (the OS refusing threads) is no failed check: it ends the run.
        let chosen = a.engine.resolve(n, threads)?;
        let (burnside, counts) = match timed_count(n, threads, &chosen) {
            Ok((c, _, _)) => ("ok", Some(c)),
            Err(e) if is_failed_check(&e) => {
                say!("n = {n}: {e}");
                ("FAILED", None)
            }
            Err(e) => return Err(e),
        };
        let (total, unique, known, refc) = match &counts {
            Some(c) => {
                let known = KnownCheck::of(c);
                let refc = if n <= REFERENCE_MAX {
                    let r = reference::count(n as usize);
                    let agree = u128::from(r.total) == c.total && u128::from(r.unique) == c.unique;
                    if agree {
                        "ok"
                    } else {
                        "MISMATCH"
                    }
                } else {
                    "-"
                };
                (grouped(c.total), grouped(c.unique), known, refc)
            }
            None => ("?".into(), "?".into(), KnownCheck::Unknown, "-"),
        };
        let known_s = match known {
            KnownCheck::Match => "ok",
            KnownCheck::Mismatch => "MISMATCH",
            KnownCheck::Unknown => "-",
        };
        let row_ok = burnside == "ok" && refc != "MISMATCH" && known != KnownCheck::Mismatch;
        if !row_ok {
            bad += 1;
        }
        let status = if row_ok { "ok" } else { "MISMATCH" };
        writeln!(
            out,
            "{n:>3} {total:>20} {unique:>19} {burnside:>9} {refc:>9} {known_s:>9}  {status}"
        )?;
        out.flush()?;
    }
    if bad > 0 {
        writeln!(out, "{bad} of {} rows failed", a.max)?;
        out.flush()?;
        // Said on stderr too, for scripts that keep only the exit code and stderr.
        say!("nqueens: verify: {bad} of {} rows failed", a.max);
        Ok(ExitCode::from(1))
    } else {
        writeln!(out, "all {} rows ok", a.max)?;
        Ok(ExitCode::SUCCESS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_broken_identity_counts_as_a_failed_row() {
        // A thread pool the OS refused was reported as "FAILED ... MISMATCH", exit 1.
        let broken = crate::Error::Inconsistent {
            n: 8,
            detail: "F90 = 1 is odd".into(),
        };
        assert!(is_failed_check(&broken.into()));
        let refused = crate::Error::ThreadPool("Resource temporarily unavailable".into());
        assert!(!is_failed_check(&refused.into()));
        assert!(!is_failed_check(&anyhow::anyhow!("other")));
    }
}
