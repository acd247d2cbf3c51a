//! Counts the solutions of one board size with the library, and checks the count against
//! the known table: `cargo run --release --example count -- 14`.

use nqueens::{known, Counter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    run(&args)
}

fn run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let n: u32 = match args.first() {
        Some(a) => a.parse()?,
        None => 12,
    };
    let counts = Counter::new(n)?.threads(2).count()?;
    println!(
        "n = {n}: {} solutions, {} unique",
        counts.total, counts.unique
    );
    if let Some(k) = known::lookup(n) {
        assert_eq!((counts.total, counts.unique), (k.total, k.unique));
        println!("matches the known value (OEIS A000170, A002562)");
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
