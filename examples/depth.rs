//! Diagnostic: per-depth node histogram and largest unit of a plan's border units
//! (`cargo run --release --example depth -- 16`).

use nqueens::engine::kernel::InnerBoard;
use nqueens::{UnitKind, UnitPlan};
fn main() {
    let n: u32 = std::env::args().nth(1).unwrap().parse().unwrap();
    let plan = UnitPlan::new(n);
    let mut hist = vec![0u64; 64];
    let mut max = 0;
    let mut tot = 0;
    for u in plan.units() {
        if let UnitKind::Border { border, .. } = u.kind {
            let b = InnerBoard::new(n as usize, &border.cells(n as usize));
            let (_, nodes) = b.count_hist(&mut hist);
            max = max.max(nodes);
            tot += nodes;
        }
    }
    println!(
        "units {} max unit {} ({:.3}%) total {}",
        plan.len(),
        max,
        100.0 * max as f64 / tot as f64,
        tot
    );
    for (d, h) in hist.iter().enumerate() {
        if *h > 0 {
            println!("depth {d}: {h}");
        }
    }
}
