//! Limits a hostile or careless user reaches: counts whose plan cannot fit in memory (refused
//! in one line before anything is allocated, also under an address-space limit set in the
//! child), and stops that must take effect within about a second at any n (during the
//! plan, the shard split, the quadrant table's build and a long quadrant unit).

mod common;

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::nqueens;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_nqueens"))
}

/// Runs the binary with `args` under `ulimit -v KB` (setrlimit(RLIMIT_AS) in the child
/// shell, which then execs the program), so the machine itself is never limited.
fn under_address_limit(kb: u64, args: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kb} && exec \"$0\" {args}"))
        .arg(bin())
        .output()
        .expect("sh runs")
}

/// Asserts a refusal: exit code 2 and one line on stderr with every word of `says`, no
/// abort and no allocation failure.
fn assert_refused(out: &Output, says: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    for s in says {
        assert!(err.contains(s), "{s:?} not in: {err}");
    }
    assert!(!err.contains("memory allocation"), "{err}");
}

#[test]
fn plans_that_cannot_fit_the_address_space_are_refused_before_they_are_built() {
    // 4 GB of address space: the plans of n = 52..64 (up to 15.6 GiB) do not fit.
    for args in ["count 58 -q", "count 52 -q", "plan 64 --stats"] {
        let out = under_address_limit(4_000_000, args);
        assert_refused(&out, &["unit plan", "ulimit -v"]);
    }
    // The quadrant engine at n = 32 with a limit far above the address space.
    let out = under_address_limit(
        4_000_000,
        "count 32 --engine quadrant -t 1 --max-memory 1T -q",
    );
    assert_refused(&out, &["ulimit -v"]);
}

#[test]
fn max_memory_bounds_the_plan_too() {
    let out = nqueens()
        .args([
            "count",
            "64",
            "--engine",
            "backtrack",
            "--max-memory",
            "512M",
            "-q",
        ])
        .output()
        .unwrap();
    assert_refused(&out, &["unit plan", "512.0 MiB allowed by --max-memory"]);
}

#[test]
fn the_largest_max_memory_the_help_names_is_accepted() {
    let out = nqueens()
        .args(["count", "8", "--max-memory", "1P"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("92"));
    let out = nqueens()
        .args(["count", "8", "--max-memory", "2P"])
        .output()
        .unwrap();
    assert_refused(&out, &["largest allowed, 1P"]);
}

/// Starts the binary with `args`, sends SIGTERM after `after`, and returns how long the
/// program took to exit after it, with its exit code and stderr.
fn stop_after(args: &[&str], after: Duration) -> (Duration, Option<i32>, String) {
    let mut child: Child = Command::new(bin())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    let sent = Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // Wait at most 20 s, then kill it for good so that no test leaves a process behind.
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = sent.elapsed();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (took, status.code(), err)
}

fn assert_stops_quickly(args: &[&str], after: Duration) -> String {
    let (took, code, err) = stop_after(args, after);
    assert!(
        took < Duration::from_secs(3),
        "{args:?} took {took:?} to stop; stderr: {err}"
    );
    assert_eq!(code, Some(130), "{args:?}: {err}");
    err
}

#[test]
fn a_stop_ends_a_long_quadrant_unit_at_once() {
    // A unit of n = 26 takes about a minute of one core (2 sets of ~25 s). The plan takes
    // its first second or two (a stop there takes up to a second); by 6 s units run.
    assert_stops_quickly(
        &["count", "26", "--engine", "quadrant", "-t", "2", "-q"],
        Duration::from_secs(6),
    );
}

#[test]
fn a_stop_ends_the_quadrant_tables_build_at_once() {
    // The h = 12 table of n = 24 (5 GB) takes a minute or more to build.
    assert_stops_quickly(
        &[
            "count",
            "24",
            "--engine",
            "quadrant",
            "-t",
            "1",
            "--max-memory",
            "8G",
            "-q",
        ],
        Duration::from_secs(2),
    );
}

#[test]
fn a_stop_ends_the_choice_of_a_shards_units_at_once() {
    let out = std::env::temp_dir().join(format!("nqueens-limits-{}-s.json", std::process::id()));
    // The backtracking estimates of n = 27's 748,029 units take about a minute of 2 cores.
    let err = assert_stops_quickly(
        &[
            "count",
            "27",
            "--engine",
            "backtrack",
            "--shard",
            "0/100",
            "--out",
            out.to_str().unwrap(),
            "-q",
        ],
        Duration::from_secs(2),
    );
    assert!(err.contains("before any unit ran"), "{err}");
    assert!(!out.exists(), "no shard file is written by a stopped run");
}
