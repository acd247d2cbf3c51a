//! `nqueens solutions N` (alias `list`): streams the solutions of n in lexicographic order,
//! all of them or one per symmetry class, in any output format; or picks one uniformly at
//! random.
//!
//! The listing is the engine's lazy iterator written through a `BufWriter`: constant memory,
//! and `nqueens solutions 16 | head` stops the search as soon as `head` closes the pipe.

use std::hash::{BuildHasher, Hasher};
use std::io::{BufWriter, Write};

use anyhow::Context;

use super::error::{say, usage, Done, Failure, Outcome};
use super::options::{Pick, SolutionsOptions};
use super::render::{Format, Renderer};
use crate::engine::rng::SplitMix64;
use crate::Solutions;

/// Largest n for `--random`: it counts the solutions with the fast engine, draws an index
/// and walks the listing to it, on average half of it. Measured on a 2-core Xeon (CPU time):
/// the whole walk takes 1.5 s for n = 15 and 9.8 s for n = 16, plus 2.7 s to count n = 16,
/// so n = 16 takes about 8 s on average; n = 17 would take about a minute.
pub const RANDOM_MAX_N: u32 = 16;

/// Runs `solutions`.
pub fn run(a: &SolutionsOptions) -> Outcome {
    let n = a.n;
    let mut solutions = if a.unique {
        Solutions::unique(n)?
    } else {
        Solutions::new(n)?
    };
    let mut out = BufWriter::with_capacity(1 << 16, super::error::stdout());
    let mut render = Renderer::new(a.format);
    let written = match a.pick {
        Pick::Random(seed) => {
            let (index, perm) = draw(&mut solutions, a.unique, seed)?;
            render.write(&mut out, &perm, Some(index))?;
            1
        }
        Pick::First(limit) => {
            let mut index = 0;
            while index < limit {
                let Some(perm) = solutions.next_solution() else {
                    break;
                };
                render.write(&mut out, perm, Some(index))?;
                index += 1;
            }
            index
        }
    };
    out.flush()?;
    if written == 0 && a.format == Format::Svg {
        usage!("n = {n} has no solution, so there is no board to draw (solutions exist for n = 1 and n >= 4)");
    }
    Ok(Done::Ok)
}

/// Draws one solution of `solutions` uniformly: counts them with the fast engine, draws an
/// index below the count, and walks the listing to it. Returns the index and the solution.
fn draw(
    solutions: &mut Solutions,
    unique: bool,
    seed: Option<u64>,
) -> Result<(u64, Vec<usize>), Failure> {
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
