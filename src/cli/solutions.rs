//! `nqueens solutions N` (alias `list`): streams the solutions of n in lexicographic order,
//! all of them or one per symmetry class, in any output format; or picks one uniformly at
//! random.
//!
//! The listing is the engine's lazy iterator written through a `BufWriter`: constant memory,
//! and `nqueens solutions 16 | head` stops the search as soon as `head` closes the pipe.

use crate::cli::error::usage;
use std::hash::{BuildHasher, Hasher};
use std::io::{BufWriter, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use super::args::{parse_in, parse_n, parse_seed, shown, Refused};
use super::render::{parse_format, Format, Renderer};
use super::Outcome;
use crate::cli::error::say;
use crate::engine::rng::SplitMix64;
use crate::Solutions;

/// Largest n for `--random`: it counts the solutions with the fast engine, draws an index
/// and walks the listing to it, on average half of it. Measured on a 2-core Xeon (CPU time):
/// the whole walk takes 1.5 s for n = 15 and 9.8 s for n = 16, plus 2.7 s to count n = 16,
/// so n = 16 takes about 8 s on average; n = 17 would take about a minute.
pub const RANDOM_MAX_N: u32 = 16;

/// Arguments of `solutions`.
#[derive(Args, Debug)]
pub struct SolutionsArgs {
    /// Board size N (1..64).
    #[arg(value_name = "N", value_parser = parse_n, allow_negative_numbers = true)]
    pub n: u32,
    /// Output format: perm (1-based columns), lisp, tuple (0-based), board, unicode, json,
    /// svg (one board).
    #[arg(short, long, value_name = "F", value_parser = parse_format, default_value = "perm")]
    pub format: Format,
    /// List one solution per symmetry class: the lexicographically smallest of its 8
    /// rotations and reflections.
    #[arg(short, long)]
    pub unique: bool,
    /// Stop after K solutions.
    #[arg(long, value_name = "K", value_parser = parse_limit, allow_negative_numbers = true, conflicts_with_all = ["first", "random"])]
    pub limit: Option<u64>,
    /// Only the first solution in lexicographic order (the same as --limit 1). Still a
    /// search: 0.5 s for N = 30, more than 5 s for N = 36 to 48 (measured); 'solve N' builds
    /// one solution of any size at once.
    #[arg(long, conflicts_with = "random")]
    pub first: bool,
    /// One solution drawn uniformly at random (every solution, or with --unique every
    /// class, equally likely). For N <= 16.
    #[arg(long)]
    pub random: bool,
    /// Seed of --random: the same seed draws the same solution. Default: a fresh seed.
    #[arg(long, value_name = "S", value_parser = parse_seed, allow_negative_numbers = true, requires = "random")]
    pub seed: Option<u64>,
}

/// Parses `--limit`, at least 1.
fn parse_limit(s: &str) -> Result<u64, String> {
    match parse_in(s, 1, i128::from(u64::MAX)) {
        Ok(k) => Ok(k as u64),
        Err(Refused::Below(0)) => Err("a limit of 0 lists nothing: use at least 1".into()),
        Err(_) => Err(format!(
            "'{}' is not a count: expected a whole number from 1 to {}",
            shown(s),
            u64::MAX
        )),
    }
}

/// Runs `solutions`.
pub fn run(a: &SolutionsArgs) -> Outcome {
    let n = a.n;
    let single = a.first || a.random || a.limit == Some(1);
    if a.format == Format::Svg && !single {
        usage!("--format svg draws one board: add --first, --random or --limit 1");
    }
    let mut solutions = if a.unique {
        Solutions::unique(n)?
    } else {
        Solutions::new(n)?
    };
    let mut out = BufWriter::with_capacity(1 << 16, crate::cli::error::stdout());
    let mut render = Renderer::new(a.format);
    let written = if a.random {
        let (index, perm) = draw(&mut solutions, a.unique, a.seed)?;
        render.write(&mut out, &perm, Some(index))?;
        1
    } else {
        let limit = if a.first {
            1
        } else {
            a.limit.unwrap_or(u64::MAX)
        };
        let mut index = 0;
        while index < limit {
            let Some(perm) = solutions.next_solution() else {
                break;
            };
            render.write(&mut out, perm, Some(index))?;
            index += 1;
        }
        index
    };
    out.flush()?;
    if written == 0 && a.format == Format::Svg {
        usage!("n = {n} has no solution, so there is no board to draw (solutions exist for n = 1 and n >= 4)");
    }
    Ok(ExitCode::SUCCESS)
}

/// Draws one solution of `solutions` uniformly: counts them with the fast engine, draws an
/// index below the count, and walks the listing to it. Returns the index and the solution.
fn draw(
    solutions: &mut Solutions,
    unique: bool,
    seed: Option<u64>,
) -> anyhow::Result<(u64, Vec<usize>)> {
    let n = solutions.n() as u32;
    if n > RANDOM_MAX_N {
        usage!(
            "--random needs n <= {RANDOM_MAX_N}, not {n}: it walks the listing to a random index; for one solution of a large board use 'nqueens solve {n}'"
        );
    }
    let counts = crate::count(n)?;
    let total = if unique { counts.unique } else { counts.total };
    if total == 0 {
        usage!("n = {n} has no solution to draw (solutions exist for n = 1 and n >= 4)");
    }
    let total = u64::try_from(total).expect("n <= 16 has fewer than 2^64 solutions");
    let index = match seed {
        Some(seed) => SplitMix64::new(seed).below(total),
        None => {
            // Said, so that the board can be drawn again (it never was).
            let seed = fresh_seed();
            let index = SplitMix64::new(seed).below(total);
            say!("nqueens: drew solution {index} of {total} with --seed {seed} (give it to draw the same one again)");
            index
        }
    };
    let k = usize::try_from(index).expect("index below a count that fits in memory-sized walks");
    let perm = solutions
        .nth(k)
        .with_context(|| format!("the listing of n = {n} ended before index {index} of {total}"))?;
    Ok((index, perm))
}

/// A seed that differs from run to run: std's `RandomState` keys come from the operating
/// system's random source, so hashing nothing with them gives a random number, no extra
/// crate needed.
fn fresh_seed() -> u64 {
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_a_limit_of_zero() {
        assert!(parse_limit("0").unwrap_err().contains("at least 1"));
        assert_eq!(parse_limit("3"), Ok(3));
        assert!(parse_limit("-1")
            .unwrap_err()
            .contains("'-1' is not a count"));
    }

    #[test]
    fn parses_seeds_and_names_the_range_on_error() {
        assert_eq!(parse_seed("0"), Ok(0));
        assert_eq!(parse_seed("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            parse_seed("abc"),
            Err(
                "'abc' is not a seed: expected a whole number from 0 to 18446744073709551615"
                    .into()
            )
        );
        assert!(parse_seed("-1").unwrap_err().contains("'-1'"));
    }
}
