//! CLI tests for `count` and `verify`: output, `--json`, and every bad input of the
//! counting-engine issue.

mod common;

use common::{failed_with, nqueens, succeeded};

fn stdout_of(args: &[&str]) -> String {
    String::from_utf8(succeeded(nqueens().args(args)).stdout).unwrap()
}

#[test]
fn count_8_prints_92_and_12_and_matches_the_table() {
    let out = stdout_of(&["count", "8"]);
    assert!(out.contains("total    92\n"), "{out}");
    assert!(out.contains("unique   12\n"), "{out}");
    assert!(out.contains("size 8: 11   size 4: 1   size 2: 0"), "{out}");
    assert!(out.contains("matches the known value"), "{out}");
}

#[test]
fn count_1_prints_1_and_2_and_3_print_0() {
    assert!(stdout_of(&["count", "1"]).contains("total    1\n"));
    assert!(stdout_of(&["count", "2"]).contains("total    0\n"));
    assert!(stdout_of(&["count", "3"]).contains("total    0\n"));
}

#[test]
fn count_json_prints_numbers() {
    let out = stdout_of(&["count", "10", "--json", "--threads", "2"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["n"], 10);
    assert_eq!(v["total"], 724);
    assert_eq!(v["unique"], 92);
    assert_eq!(v["orbits8"], 89);
    assert_eq!(v["threads"], 2);
    assert!(v["nodes"].as_u64().unwrap() > 0);
    assert!(v["seconds"].is_number());
    assert_eq!(v["known"], "match");
}

#[test]
fn count_range_prints_one_row_per_n() {
    let out = stdout_of(&["count", "4..9"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "{out}"); // header + 6 rows
    assert!(
        lines[5].trim_start().starts_with("8 ") && lines[5].contains(" 92 "),
        "{out}"
    );
    assert!(lines[1..].iter().all(|l| l.ends_with("ok")), "{out}");
}

#[test]
fn count_range_json_prints_one_object_per_n() {
    let out = stdout_of(&["count", "1..6", "--json"]);
    let totals: Vec<u64> = out
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["total"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(totals, [1, 0, 0, 2, 10, 4]);
}

#[test]
fn verify_up_to_11_passes() {
    let out = stdout_of(&["verify", "--max", "11"]);
    assert_eq!(
        out.lines().filter(|l| l.ends_with("  ok")).count(),
        11,
        "{out}"
    );
    assert!(out.contains("all 11 rows ok"));
}

fn assert_usage_error(args: &[&str], mentions: &str) {
    let out = failed_with(nqueens().args(args), 2);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err.lines().count(),
        1,
        "{args:?}: one line wanted, got {err:?}"
    );
    assert!(
        err.contains(mentions),
        "{args:?}: {err:?} should mention {mentions:?}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn rejects_board_size_0() {
    assert_usage_error(&["count", "0"], "between 1 and 64");
}

#[test]
fn rejects_board_size_65() {
    assert_usage_error(&["count", "65"], "between 1 and 64");
}

#[test]
fn rejects_negative_board_size() {
    assert_usage_error(&["count", "-3"], "-3");
}

#[test]
fn rejects_text_as_board_size() {
    assert_usage_error(&["count", "abc"], "'abc' is not a board size");
}

#[test]
fn rejects_missing_board_size() {
    assert_usage_error(&["count"], "<N|A..B>");
}

#[test]
fn rejects_reversed_range() {
    assert_usage_error(&["count", "9..4"], "reversed");
}

#[test]
fn rejects_zero_threads() {
    assert_usage_error(&["count", "8", "--threads", "0"], "at least 1 thread");
}

#[test]
fn rejects_verify_max_0() {
    assert_usage_error(&["verify", "--max", "0"], "between 1 and 64");
}

/// Runs `nqueens args` with stdout on /dev/full (skipped where there is none).
fn into_full_disk(args: &[&str]) -> Option<(Option<i32>, String)> {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .ok()?;
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(args)
        .stdout(full)
        .output()
        .unwrap();
    Some((out.status.code(), String::from_utf8(out.stderr).unwrap()))
}

#[test]
fn a_full_disk_is_one_line_that_names_the_output_and_exit_2() {
    for args in [
        &["count", "8"][..],
        &["count", "4..6"],
        &["verify", "--max", "3"],
    ] {
        let Some((code, err)) = into_full_disk(args) else {
            return;
        };
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(
            err,
            "nqueens: cannot write to standard output: No space left on device (os error 28)\n",
            "{args:?}"
        );
    }
}

#[test]
fn help_and_version_that_cannot_be_written_fail() {
    for args in [&["--help"][..], &["--version"], &["count", "--help"]] {
        let Some((code, err)) = into_full_disk(args) else {
            return;
        };
        assert_eq!(code, Some(2), "{args:?}");
        assert!(
            err.starts_with("nqueens: cannot write to standard output"),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn no_subcommand_is_one_line_naming_the_subcommands() {
    assert_usage_error(
        &[],
        "a subcommand is required: one of count, verify, solutions, solve, animate, bench",
    );
}

#[test]
fn count_1_warns_about_nothing() {
    // The time estimate divided by Q(2) / Q(1) = 0: "roughly inf years" for n = 1.
    for args in [&["count", "1"][..], &["count", "1..1"], &["count", "1..3"]] {
        let out = succeeded(nqueens().args(args));
        assert_eq!(String::from_utf8(out.stderr).unwrap(), "", "{args:?}");
    }
}

#[test]
fn range_table_columns_line_up_with_the_header() {
    let out = stdout_of(&["count", "4..5"]);
    let lines: Vec<&str> = out.lines().collect();
    // Right edge of every right-aligned column (all but the last, "known").
    let edges = |line: &str| -> Vec<usize> {
        let mut edges = Vec::new();
        let bytes = line.as_bytes();
        for i in 0..bytes.len() {
            if bytes[i] != b' ' && bytes.get(i + 1).is_none_or(|&b| b == b' ') {
                edges.push(i + 1);
            }
        }
        edges.pop();
        edges
    };
    assert_eq!(edges(lines[0]).len(), 8, "{out}");
    for row in &lines[1..] {
        assert_eq!(edges(row), edges(lines[0]), "{out}");
    }
}

#[test]
fn count_64_warns_in_years_with_an_exponent() {
    // The warning comes before the (endless) count; kill the run as soon as it is read.
    use std::io::{BufRead, BufReader};
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["count", "64", "--threads", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let years = line
        .strip_prefix("warning: counting n = 64 will take roughly ")
        .and_then(|rest| rest.split_once(" years on 1 thread(s)"))
        .map(|(years, _)| years)
        .unwrap_or_else(|| panic!("{line}"));
    let (mantissa, exponent) = years.split_once('e').unwrap_or_else(|| panic!("{line}"));
    assert_eq!(mantissa.len(), 3, "one decimal: {line}");
    assert!(exponent.parse::<u32>().unwrap() >= 6, "{line}");
    assert!(line.len() < 120, "{line}");
}

#[test]
fn rejects_thread_counts_beyond_the_cap_before_starting_any() {
    // 99999 used to start rayon's maximum of 65,535 threads (more than Linux's default
    // pid_max) and report "threads 99999".
    assert_usage_error(
        &["count", "8", "--threads", "99999"],
        "thread count 99999 is too large: use at most 4096 threads",
    );
    assert_usage_error(&["verify", "-t", "99999999999999999999"], "too large");
}

#[test]
fn negative_option_values_are_named_not_unexpected() {
    // clap read "-1" as an unknown flag: "unexpected argument '-1' found".
    assert_usage_error(
        &["count", "8", "--threads", "-1"],
        "thread count -1 is invalid",
    );
    assert_usage_error(&["verify", "--max", "-1"], "board size -1 is out of range");
}

#[test]
fn rejects_open_and_three_dot_ranges_by_name() {
    assert_usage_error(&["count", "..5"], "range '..5' needs both ends");
    assert_usage_error(&["count", "3.."], "range '3..' needs both ends");
    assert_usage_error(&["count", "1...3"], "'1...3' is not a range");
    assert_usage_error(&["count", "1..65"], "board size 65 is out of range");
}

#[test]
fn unwritable_shard_file_is_named_in_the_error() {
    assert_usage_error(
        &[
            "count",
            "10",
            "--shard",
            "0/2",
            "--out",
            "/nonexistent-dir/shard.json",
        ],
        "cannot write shard file /nonexistent-dir/shard.json",
    );
}

/// `NQUEENS_KERNEL` picks the code of the hot loops in a portable build; a misspelt value
/// must not silently measure the other code.
#[test]
fn a_misspelt_kernel_variable_is_refused_and_the_valid_ones_count() {
    let out = failed_with(
        nqueens()
            .env("NQUEENS_KERNEL", "Baseline")
            .args(["count", "8"]),
        2,
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("nqueens: NQUEENS_KERNEL must be 'auto' or 'baseline', not 'Baseline'"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    for value in ["auto", "baseline"] {
        let out = succeeded(
            nqueens()
                .env("NQUEENS_KERNEL", value)
                .args(["count", "12", "--json"]),
        );
        let s = String::from_utf8(out.stdout).unwrap();
        assert!(s.contains("\"total\":14200"), "{value}: {s}");
    }
}

/// Issue 30: `count 12 --format json` was refused (`solutions --format json` works; count
/// wanted `--json`) by a message that did not say so. It is `--json`.
#[test]
fn format_json_is_json() {
    let json_of = |args: &[&str]| -> Vec<serde_json::Value> {
        let out = succeeded(nqueens().args(args));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let a = json_of(&["count", "8..9", "--format", "json", "-q"]);
    let b = json_of(&["count", "8..9", "--json", "-q"]);
    assert_eq!(a.len(), 2);
    for (x, y) in a.iter().zip(&b) {
        for field in ["n", "total", "unique", "orbits8", "plan_id", "known"] {
            assert_eq!(x[field], y[field], "{field}");
        }
    }
    assert_eq!(a[0]["total"], 92);
    let single = json_of(&["count", "10", "--format", "json", "-q"]);
    assert_eq!(single[0]["total"], 724);
    // Said twice is fine; against text it is a usage error naming both.
    assert_eq!(
        json_of(&["count", "8", "--format", "json", "--json"]).len(),
        1
    );
    assert_usage_error(
        &["count", "8", "--format", "text", "--json"],
        "'--format text' cannot be used with '--json'",
    );
    assert_usage_error(
        &["count", "8", "--format", "json", "--sequence", "unique"],
        "add --format bfile",
    );
}
