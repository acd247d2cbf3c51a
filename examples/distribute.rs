//! Distributes a count yourself: take the unit plan of n, run its units wherever you like
//! (here: round-robin over "workers" that could be machines, each returning its results),
//! and add the results up; the tally checks Burnside's identities when it finishes.
//! `cargo run --release --example distribute -- 13 3`.

use nqueens::Tally;
use nqueens::{known, Engine, Prepared, UnitPlan};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    run(&args)
}

fn run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let mut args = args.iter();
    let n: u32 = args.next().map_or(Ok(12), |a| a.parse())?;
    let workers: usize = args.next().map_or(Ok(3), |a| a.parse())?;
    let plan = UnitPlan::with_engine(n, Engine::auto(n));
    // Each worker takes every `workers`-th unit and sends back (unit id, result) pairs. It
    // prepares once what its units share (the quadrant engine's table), not once a unit.
    let results: Vec<Vec<_>> = (0..workers.max(1))
        .map(|w| {
            let prepared = Prepared::new(n);
            plan.units()
                .iter()
                .skip(w)
                .step_by(workers.max(1))
                .map(|u| (u.id, prepared.run(u)))
                .collect()
        })
        .collect();
    // Back home: every unit's result, added up once.
    let mut tally = Tally::default();
    for (id, r) in results.iter().flatten() {
        tally.add(&plan.units()[*id as usize].kind, r);
    }
    let counts = tally.finish(&plan)?;
    println!(
        "n = {n}: {} units on {workers} workers: {} solutions, {} unique",
        plan.len(),
        counts.total,
        counts.unique
    );
    if let Some(k) = known::lookup(n) {
        assert_eq!((counts.total, counts.unique), (k.total, k.unique));
    }
    Ok(())
}

// `cargo test` runs the examples too (`test = true` in Cargo.toml): each with its defaults.
#[cfg(test)]
mod tests {
    #[test]
    fn runs_with_its_defaults() {
        super::run(&[]).unwrap();
    }
}
