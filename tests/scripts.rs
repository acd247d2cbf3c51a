//! Tests of scripts/: `compare-bench.py` on the two committed fixture reports prints the
//! ratios they were built with (B = A's timings / 2 on 1 thread, / 2.5 on 2 threads), and
//! `scaling-chart.py` turns a report into an SVG with the ideal line and one point per
//! thread count. Needs `python3` (3.11, standard library only) on PATH.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn python(script: &str, args: &[&Path]) -> Output {
    Command::new("python3")
        .arg(root().join("scripts").join(script))
        .args(args)
        .output()
        .expect("python3 is on PATH")
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures").join(name)
}

/// The line of `text` that starts with `label`, split on whitespace.
fn row<'a>(text: &'a str, label: &str) -> Vec<&'a str> {
    let line = text
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no line {label:?} in:\n{text}"));
    line[label.len()..].split_whitespace().collect()
}

#[test]
fn compare_bench_prints_the_ratios_of_the_fixtures() {
    let out = python(
        "compare-bench.py",
        &[&fixture("bench-a.json"), &fixture("bench-b.json")],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // Per test: A median, B median, A/B.
    assert_eq!(row(&text, "n=14 threads=1"), ["0.2787", "0.1394", "2.00x"]);
    assert_eq!(row(&text, "n=14 threads=2"), ["0.2280", "0.0912", "2.50x"]);
    // Whole workload and scores (B/A).
    assert_eq!(row(&text, "threads=1")[2], "2.00x");
    assert_eq!(row(&text, "threads=2")[2], "2.50x");
    assert_eq!(row(&text, "single-thread"), ["12916.5", "25833.1", "2.00x"]);
    assert_eq!(
        row(&text, "multi-thread (2/2)"),
        ["15788.7", "39471.9", "2.50x"]
    );
    // Overall: geometric mean of 2.0 and 2.5 = sqrt(5) = 2.236.
    assert!(
        text.contains("overall: B is 2.24x as fast as A (geometric mean of 2 test ratios A/B)"),
        "{text}"
    );
}

#[test]
fn compare_bench_rejects_a_file_that_is_not_a_report() {
    let out = python(
        "compare-bench.py",
        &[&root().join("Cargo.toml"), &fixture("bench-b.json")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn scaling_chart_draws_ideal_line_and_points() {
    let svg = std::env::temp_dir().join(format!("nqueens-scaling-test-{}.svg", std::process::id()));
    let out = python("scaling-chart.py", &[&fixture("bench-a.json"), &svg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    std::fs::remove_file(&svg).ok();
    assert!(text.starts_with("<svg ") && text.trim_end().ends_with("</svg>"));
    assert!(text.contains(">ideal</text>"));
    assert_eq!(
        text.matches("<circle").count(),
        2,
        "one point per thread count"
    );
    assert!(text.contains("1.22x (61%)"), "label of the 2-thread point");
}
