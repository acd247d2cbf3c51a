//! `nqueens solve N`: one solution for any board size up to ten million, by the O(n)
//! construction of `crate::construct`, checked by the O(n) validator before it is printed.

use crate::cli::error::say;
use crate::cli::error::usage;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

use clap::Args;

use super::args::{parse_in, shown, Refused};
use super::render::{parse_format, Format, Renderer, PICTURE_MAX_N};
use super::Outcome;
use crate::{construct, is_solution};

/// Largest n for `solve`: 10,000,000 rows take 80 MB for the solution, 50 MB for the check
/// and 79 MB of `perm` text; measured 0.3 s and 174 MB peak on a 2-core Xeon.
pub const SOLVE_MAX_N: usize = 10_000_000;

/// Arguments of `solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Board size N (1..10000000; 2 and 3 have no solution).
    #[arg(value_name = "N", value_parser = parse_big_n, allow_negative_numbers = true)]
    pub n: usize,
    /// Output format: perm (1-based columns), lisp, tuple (0-based), json, or for N <= 64
    /// board, unicode, svg.
    #[arg(short, long, value_name = "F", value_parser = parse_format, default_value = "perm")]
    pub format: Format,
}

/// Parses a board size for `solve`, 1..=10,000,000.
fn parse_big_n(s: &str) -> Result<usize, String> {
    match parse_in(s, 1, SOLVE_MAX_N as i128) {
        Ok(v) => Ok(v as usize),
        Err(Refused::NotANumber) => Err(format!(
            "'{}' is not a board size: expected a whole number from 1 to {SOLVE_MAX_N}",
            shown(s)
        )),
        Err(Refused::Below(v) | Refused::Above(v)) => Err(format!(
            "board size {v} is out of range: n must be between 1 and {SOLVE_MAX_N}"
        )),
    }
}

/// Runs `solve`.
pub fn run(a: &SolveArgs) -> Outcome {
    let n = a.n;
    if a.format.is_picture() && n > PICTURE_MAX_N {
        usage!(
            "--format {} draws boards up to n = {PICTURE_MAX_N}, not {n}: use perm, lisp, tuple or json",
            a.format.name()
        );
    }
    let Some(perm) = construct(n) else {
        usage!("n = {n} has no solution: none exists for n = 2 and n = 3");
    };
    if !is_solution(&perm) {
        say!("nqueens: the construction for n = {n} is not a valid solution (a bug); nothing printed");
        return Ok(ExitCode::from(1));
    }
    let mut out = BufWriter::with_capacity(1 << 16, crate::cli::error::stdout());
    Renderer::new(a.format).write(&mut out, &perm, None)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_board_sizes_up_to_ten_million() {
        assert_eq!(parse_big_n("10000000"), Ok(10_000_000));
        assert!(parse_big_n("10000001")
            .unwrap_err()
            .contains("between 1 and 10000000"));
        assert!(parse_big_n("0").is_err());
        assert!(parse_big_n("ten").unwrap_err().contains("'ten'"));
    }
}
