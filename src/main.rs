fn main() {
    let n: u32 = std::env::args().nth(1).unwrap().parse().unwrap();
    let t: usize = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(1);
    let start = std::time::Instant::now();
    let c = nqueens::count_with_threads(n, t).unwrap();
    println!("{:?} {:?}", c, start.elapsed());
}
