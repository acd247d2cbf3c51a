//! Counts the solutions of one board size with the library, and checks the count against
//! the known table: `cargo run --release --example count -- 14`.

use nqueens::{known, Counter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: u32 = match std::env::args().nth(1) {
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
