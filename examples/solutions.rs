//! Lists solutions: the first few of n in lexicographic order, the unique ones of a small
//! board, each checked, and one solution of a huge board built in O(n).
//! `cargo run --release --example solutions -- 8`.

use nqueens::{construct, is_solution, Solutions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    run(&args)
}

fn run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let n: u32 = args.first().map_or(Ok(8), |a| a.parse())?;
    // A solution is the column of the queen in each row.
    for s in Solutions::new(n)?.take(3) {
        assert!(is_solution(&s));
        println!("{s:?}");
    }
    let unique = Solutions::unique(n)?.count();
    println!("n = {n}: {unique} solutions up to symmetry");
    let big = construct(1_000_000).expect("every n >= 4 has a solution");
    assert!(is_solution(&big));
    println!("a solution of n = 1,000,000 starts {:?}", &big[..5]);
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
