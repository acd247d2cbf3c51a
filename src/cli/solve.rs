//! `nqueens solve N`: one solution for any board size up to ten million, by the O(n)
//! construction of `crate::construct`, checked by the O(n) validator before it is printed.

use std::io::{BufWriter, Write};

use super::error::{usage, Done, Failure, Outcome};
use super::options::SolveOptions;
use super::render::Renderer;
use crate::{construct, is_solution};

/// Runs `solve`.
pub fn run(a: &SolveOptions) -> Outcome {
    let n = a.n;
    let Some(perm) = construct(n) else {
        usage!("n = {n} has no solution: none exists for n = 2 and n = 3");
    };
    if !is_solution(&perm) {
        return Err(Failure::check(format!(
            "the construction for n = {n} is not a valid solution (a bug); nothing printed"
        )));
    }
    let mut out = BufWriter::with_capacity(1 << 16, super::error::stdout());
    Renderer::new(a.format).write(&mut out, &perm, None)?;
    out.flush()?;
    Ok(Done::Ok)
}
