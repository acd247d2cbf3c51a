//! CLI tests of `nqueens bench`: the JSON report has every field, the counts are checked
//! (the test hook makes the check fail, exit 1), bad input is one line with exit 2.
//! Most tests use the hidden `--tiny` preset (milliseconds); one runs `--quick` once.

mod common;

use common::{failed_with, nqueens, succeeded};
use serde_json::Value;

/// Runs `nqueens bench ARGS`, which must succeed: its stdout and stderr.
fn bench_text(args: &[&str]) -> (String, String) {
    let out = succeeded(nqueens().arg("bench").args(args));
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Runs `nqueens bench ARGS --json`, which must succeed: the parsed report.
fn bench_json(args: &[&str]) -> Value {
    let out = succeeded(nqueens().arg("bench").args(args).arg("--json"));
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON report")
}

/// The value at a dotted path in `v`, e.g. `at(&r, "tests.0.n")`; panics naming a missing field.
fn at<'a>(v: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(v, |v, key| {
        let next = match key.parse::<usize>() {
            Ok(i) => v.get(i),
            Err(_) => v.get(key),
        };
        next.unwrap_or_else(|| panic!("field {path} is missing in {v}"))
    })
}

/// The `kind` of every warning of a report.
fn warning_kinds(r: &Value) -> Vec<&str> {
    let warnings = at(r, "warnings").as_array().expect("warnings is a list");
    warnings
        .iter()
        .map(|w| at(w, "kind").as_str().expect("kind is a string"))
        .collect()
}

/// The thread count of every scaling row of a report.
fn scaling_threads(r: &Value) -> Vec<u64> {
    let rows = at(r, "scaling").as_array().expect("scaling is a list");
    rows.iter()
        .map(|s| at(s, "threads").as_u64().expect("threads is a number"))
        .collect()
}

fn f64_at(v: &Value, path: &str) -> f64 {
    at(v, path)
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number"))
}

const TOP_LEVEL: [&str; 16] = [
    "report_format",
    "workload",
    "score_definition",
    "machine",
    "instruction_set",
    "runs",
    "warmup_runs",
    "unix_time_seconds",
    "tests",
    "scaling",
    "single_thread_score",
    "multi_thread_score",
    "multi_threads",
    "speedup",
    "efficiency",
    "warnings",
];
const WORKLOAD: [&str; 8] = [
    "id",
    "version",
    "preset",
    "sizes",
    "repeat",
    "engine",
    "plan_version",
    "solutions_per_run",
];
const MACHINE: [&str; 10] = [
    "cpu_model",
    "logical_cores",
    "physical_cores",
    "os",
    "kernel",
    "arch",
    "target_features",
    "program",
    "profile",
    "load_average",
];
const TEST: [&str; 13] = [
    "n",
    "threads",
    "total",
    "unique",
    "nodes",
    "pairs_tested",
    "counts_per_run",
    "units",
    "plan_id",
    "time",
    "nodes_per_second",
    "pairs_per_second",
    "solutions_per_second",
];
const TIME: [&str; 5] = [
    "runs_seconds",
    "median_seconds",
    "min_seconds",
    "max_seconds",
    "spread",
];
const SCALING: [&str; 7] = [
    "threads",
    "time",
    "nodes_per_second",
    "solutions_per_second",
    "score",
    "speedup",
    "efficiency",
];

/// Asserts that the object `v` has exactly the fields `keys`.
fn assert_fields(v: &Value, keys: &[&str], what: &str) {
    let mut have: Vec<&str> = v
        .as_object()
        .unwrap_or_else(|| panic!("{what} is not an object"))
        .keys()
        .map(String::as_str)
        .collect();
    let mut want = keys.to_vec();
    have.sort_unstable();
    want.sort_unstable();
    assert_eq!(have, want, "fields of {what}");
}

/// Asserts the whole layout of a report: every field present, no unknown one.
fn assert_report_layout(r: &Value) {
    assert_fields(r, &TOP_LEVEL, "the report");
    assert_fields(at(r, "workload"), &WORKLOAD, "workload");
    assert_fields(at(r, "machine"), &MACHINE, "machine");
    for t in at(r, "tests").as_array().expect("tests is a list") {
        assert_fields(t, &TEST, "a test");
        assert_fields(at(t, "time"), &TIME, "a test's time");
    }
    for s in at(r, "scaling").as_array().expect("scaling is a list") {
        assert_fields(s, &SCALING, "a scaling row");
        assert_fields(at(s, "time"), &TIME, "a scaling row's time");
    }
    for w in at(r, "warnings").as_array().expect("warnings is a list") {
        assert_fields(w, &["kind", "message"], "a warning");
    }
}

#[test]
fn bench_tiny_json_has_every_field_and_checked_counts() {
    let r = bench_json(&["--tiny", "--runs", "3", "--threads", "1,2"]);
    assert_report_layout(&r);
    assert_eq!(at(&r, "workload.id"), "nq-tiny-1");
    assert_eq!(at(&r, "workload.sizes"), &serde_json::json!([10, 11, 12]));
    assert_eq!(
        at(&r, "workload.solutions_per_run").as_u64(),
        Some(724 + 2680 + 14200)
    );
    assert_eq!(at(&r, "runs").as_u64(), Some(3));
    assert!(at(&r, "score_definition")
        .as_str()
        .unwrap()
        .contains("runs per hour"));
    let tests = at(&r, "tests").as_array().unwrap();
    assert_eq!(tests.len(), 6, "3 sizes on 2 thread counts");
    for t in tests {
        let n = at(t, "n").as_u64().unwrap() as u32;
        assert_eq!(
            at(t, "total").as_u64().map(u128::from),
            Some(nqueens::known::lookup(n).unwrap().total)
        );
        assert_eq!(at(t, "time.runs_seconds").as_array().unwrap().len(), 3);
        let (min, med, max) = (
            f64_at(t, "time.min_seconds"),
            f64_at(t, "time.median_seconds"),
            f64_at(t, "time.max_seconds"),
        );
        assert!(0.0 < min && min <= med && med <= max, "{min} {med} {max}");
    }
    assert_eq!(scaling_threads(&r), [1, 2]);
    let scaling = at(&r, "scaling").as_array().unwrap();
    assert_eq!(f64_at(&scaling[0], "speedup"), 1.0);
    let single = f64_at(&r, "single_thread_score");
    assert!((single - 3600.0 / f64_at(&scaling[0], "time.median_seconds")).abs() < 1e-6 * single);
    assert_eq!(at(&r, "multi_threads").as_u64(), Some(2));
    // Every tiny run is far under 50 ms: the report must say so.
    let kinds = warning_kinds(&r);
    assert!(kinds.contains(&"short_run"), "{kinds:?}");
}

#[test]
fn bench_quick_json_parses_and_warns_about_one_run() {
    let r = bench_json(&["--quick", "--runs", "1"]);
    assert_report_layout(&r);
    assert_eq!(at(&r, "workload.id"), "nq-quick-4-quadrant");
    assert_eq!(at(&r, "workload.engine"), "quadrant");
    assert_eq!(at(&r, "workload.preset"), "quick");
    assert_eq!(at(&r, "tests.0.total").as_u64(), Some(14_772_512));
    // Each timed run counts n = 16 four times (long enough to time; version 4).
    assert_eq!(at(&r, "workload.repeat").as_u64(), Some(4));
    assert_eq!(at(&r, "tests.0.counts_per_run").as_u64(), Some(4));
    assert_eq!(
        at(&r, "workload.solutions_per_run").as_u64(),
        Some(4 * 14_772_512)
    );
    let kinds = warning_kinds(&r);
    assert!(kinds.contains(&"few_runs"), "{kinds:?}");
}

#[test]
fn bench_text_report_has_scores_and_scaling_table() {
    let (text, stderr) = bench_text(&["--tiny", "--runs", "1", "--threads", "1"]);
    for want in [
        "workload  nq-tiny-1",
        "cpu ",
        "single-thread score",
        "multi-thread score",
        "scaling (whole workload)",
        "runs per hour",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    assert!(stderr.contains("warning: only 1 timed run"), "{stderr}");
}

#[test]
fn bench_warns_when_threads_exceed_logical_cores() {
    let too_many = (num_cpus::get() + 1).to_string();
    let r = bench_json(&["--tiny", "--runs", "1", "--threads", &too_many]);
    let kinds = warning_kinds(&r);
    assert!(kinds.contains(&"oversubscribed"), "{kinds:?}");
    assert_eq!(
        scaling_threads(&r),
        [1, num_cpus::get() as u64 + 1],
        "1 thread is always the baseline"
    );
}

#[test]
fn bench_fails_with_exit_1_when_a_count_is_wrong() {
    let out = failed_with(
        nqueens()
            .args(["bench", "--tiny", "--runs", "1", "--json"])
            .env("NQUEENS_BENCH_CORRUPT_EXPECTED", "1"),
        1,
    );
    assert!(out.stdout.is_empty(), "no report for a failed benchmark");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("benchmark failed: wrong count for n = 10"),
        "{stderr}"
    );
}

#[test]
fn bench_rejects_bad_input_with_one_line_and_exit_2() {
    for (args, says) in [
        (&["--runs", "0"][..], "run count 0"),
        (&["--threads", "0"][..], "thread count 0"),
        (&["--threads", "a,b"][..], "'a' is not a thread count"),
        (&["--threads", "2,"][..], "is not a thread count"),
        (&["--quick", "--heavy"][..], "cannot be used with"),
        (&["--runs", "-1"][..], "'-1' is not a run count"),
        (&["--threads", "1,-2"][..], "thread count -2 is invalid"),
        (&["--threads", "1,99999"][..], "at most 4096 threads"),
    ] {
        let out = failed_with(nqueens().arg("bench").args(args), 2);
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn bench_help_states_the_score_definition() {
    let out = nqueens().args(["bench", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("workload runs per hour"), "{help}");
    assert!(help.contains("--quick") && help.contains("--heavy") && help.contains("--runs"));
    assert!(!help.contains("--tiny"), "the test preset stays hidden");
}

#[test]
fn fixtures_have_the_layout_of_a_real_report() {
    for name in ["bench-a.json", "bench-b.json"] {
        let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_report_layout(&v);
    }
}

/// `bench` printed its report with `println!`, which panics (and aborts: exit 134, a
/// backtrace) when stdout is full or closed.
#[test]
fn bench_reports_a_full_disk_in_one_line_and_a_closed_pipe_quietly() {
    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        for json in [false, true] {
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"));
            cmd.args(["bench", "--tiny", "--runs", "1"]);
            if json {
                cmd.arg("--json");
            }
            let out = failed_with(cmd.stdout(full.try_clone().unwrap()), 2);
            let stderr = String::from_utf8(out.stderr).unwrap();
            let last = stderr.lines().last().unwrap_or_default();
            assert_eq!(
                last,
                "nqueens: cannot write to standard output: No space left on device (os error 28)",
                "{stderr}"
            );
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
    }
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["bench", "--tiny", "--runs", "1", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // closed before the report is written
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("nqueens:"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bench_times_the_thread_counts_in_turn() {
    // Run 1 on every thread count, then run 2: the progress says each round is done before
    // any test's summary line (version 3 finished all 1-thread runs first). Sizes go one
    // after another (n = 10 before n = 11).
    let (_, stderr) = bench_text(&["--tiny", "--runs", "2", "--threads", "1,2"]);
    let at = |s: &str| {
        stderr
            .find(s)
            .unwrap_or_else(|| panic!("no {s:?} in:\n{stderr}"))
    };
    let (one, two) = (
        at("n = 10: run 1 of 2 done on every thread count"),
        at("n = 10: run 2 of 2 done on every thread count"),
    );
    assert!(one < two, "{stderr}");
    assert!(two < at("n = 11: run 1 of 2"), "{stderr}");
    assert!(at("n = 12: run 2 of 2") < at("threads = 1 "), "{stderr}");
}

/// Issue 30: comparing two reports needed `scripts/compare-bench.py` from the repository,
/// which `cargo install` users do not have. `bench --compare` prints the same tables (the
/// fixtures are B = A's timings / 2 on 1 thread and / 2.5 on 2 threads).
#[test]
fn bench_compare_prints_the_ratios_of_the_fixtures() {
    let fixture = |name: &str| format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let (a, b) = (fixture("bench-a.json"), fixture("bench-b.json"));
    let out = succeeded(nqueens().args(["bench", "--compare", &a, &b]));
    let text = String::from_utf8(out.stdout).unwrap();
    let row = |label: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no line {label:?} in:\n{text}"));
        line[label.len()..]
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(row("n=14 threads=1"), ["0.2787", "0.1394", "2.00x"]);
    assert_eq!(row("n=14 threads=2"), ["0.2280", "0.0912", "2.50x"]);
    assert_eq!(row("threads=1")[2], "2.00x");
    assert_eq!(row("threads=2")[2], "2.50x");
    assert_eq!(row("single-thread"), ["12916.5", "25833.1", "2.00x"]);
    assert_eq!(row("multi-thread (2/2)"), ["15788.7", "39471.9", "2.50x"]);
    assert!(
        text.contains("overall: B is 2.24x as fast as A (geometric mean of 2 test ratios A/B)"),
        "{text}"
    );
    // Not a report, a missing file, a directory, one file only: exit code 2, one line.
    let cargo_toml = format!("{}/Cargo.toml", env!("CARGO_MANIFEST_DIR"));
    for (args, says) in [
        (vec![cargo_toml.as_str(), b.as_str()], "cannot read"),
        (
            vec!["/nonexistent/a.json", b.as_str()],
            "cannot read /nonexistent/a.json",
        ),
        (vec!["/", b.as_str()], "it is a directory"),
        (vec![a.as_str()], "2 values required"),
    ] {
        let out = failed_with(nqueens().args(["bench", "--compare"]).args(&args), 2);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // Nothing else goes with it.
    failed_with(nqueens().args(["bench", "--quick", "--compare", &a, &b]), 2);
}
