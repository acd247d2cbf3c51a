//! Messages a careless script or a hostile user provokes: each is one line on stderr that
//! names the right stream or file, shows a path's control characters escaped (a newline must
//! not cut the message, an escape sequence must not reach the terminal), shortens a huge
//! path, says a failed known-value check on stderr, and says an error's reason once.

mod common;

use std::fs;
use std::path::PathBuf;
use std::process::Output;

use common::{failed_with, nqueens, succeeded};

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("messages", name)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// One line on stderr, no raw control character in it, and every word of `says`.
fn assert_one_clean_line(o: &Output, says: &[&str]) {
    let err = stderr(o);
    assert!(!o.status.success(), "{err}");
    let line = err.strip_suffix('\n').unwrap_or(&err);
    assert!(!line.contains('\n'), "more than one line: {err:?}");
    assert!(
        !line.chars().any(char::is_control),
        "a raw control character: {err:?}"
    );
    for s in says {
        assert!(err.contains(s), "{s:?} not in {err:?}");
    }
}

#[test]
fn a_newline_in_a_path_or_value_does_not_cut_the_message() {
    let d = scratch("newline");
    let bad = d.join("no\nsuch").join("f");
    let bad = bad.to_str().unwrap();
    for args in [
        vec!["merge", bad],
        vec!["count", "8", "--engine", "quad\nrant"],
        vec!["count", "8", "--checkpoint", bad],
        vec!["count", "8", "--shard", "0/1", "--out", bad],
        vec!["animate", "5", "--svg", bad],
        vec!["verify", "--bfile", bad],
        vec!["plan", "8", "--stats", "--costs", bad],
    ] {
        let o = nqueens().args(&args).output().unwrap();
        let want = if args.contains(&"quad\nrant") {
            "quad\\nrant"
        } else {
            "no\\nsuch"
        };
        assert_one_clean_line(&o, &[want]);
    }
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn escape_sequences_in_paths_never_reach_the_terminal() {
    let d = scratch("escape");
    let red = d.join("\u{1b}[31mRED\u{1b}[2J");
    let red = red.to_str().unwrap();
    for args in [
        vec!["verify", "--bfile", red],
        vec!["merge", red],
        vec!["plan", "8", "--stats", "--costs", red],
    ] {
        let o = nqueens().args(&args).output().unwrap();
        assert_one_clean_line(&o, &["\\u{1b}[31mRED"]);
    }
    // A checkpoint in a directory that does not exist, named with escapes.
    let ck = d.join("\u{1b}[2J").join("c");
    let o = nqueens()
        .args(["count", "8", "--checkpoint"])
        .arg(&ck)
        .output()
        .unwrap();
    assert_one_clean_line(&o, &["\\u{1b}[2J"]);
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn huge_paths_and_values_are_shortened() {
    let long = "x".repeat(10_000);
    for args in [
        vec!["merge", long.as_str()],
        vec!["count", "8", "--engine", long.as_str()],
        vec!["verify", "--bfile", long.as_str()],
    ] {
        let o = nqueens().args(&args).output().unwrap();
        assert_one_clean_line(&o, &["(10000 characters)"]);
        assert!(stderr(&o).len() < 400, "{}", stderr(&o));
    }
}

/// Runs `nqueens args` with its stdout a pipe whose reader is gone before it writes.
fn with_stdout_closed(args: &[&str]) -> Output {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn a_failed_read_of_stdin_names_stdin() {
    let d = scratch("stdin");
    let o = failed_with(
        std::process::Command::new(env!("CARGO_BIN_EXE_nqueens"))
            .args(["verify", "--bfile", "-"])
            .stdin(fs::File::open(&d).unwrap()),
        2,
    );
    assert_one_clean_line(&o, &["standard input"]);
    assert!(!stderr(&o).contains("standard output"), "{}", stderr(&o));
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn a_count_that_disagrees_with_the_table_says_so_on_stderr() {
    let d = scratch("forged");
    let ck = d.join("c");
    succeeded(
        nqueens()
            .args(["count", "8", "--engine", "backtrack", "--checkpoint"])
            .arg(&ck),
    );
    // Unit 0 of n = 8 has orbit size 8: one more solution there adds 8 to the total and
    // keeps Burnside's identity (total + 2·F90 + F180 divisible by 8), so only the known
    // table can tell. The record's check value is recomputed as a forger would.
    let text = fs::read_to_string(&ck).unwrap();
    let mut out = String::new();
    for (i, l) in text.lines().enumerate() {
        let f: Vec<&str> = l.split(' ').collect();
        if i == 0 || f[0] != "0" {
            out.push_str(l);
            out.push('\n');
            continue;
        }
        let (s, n): (u64, u64) = (f[1].parse::<u64>().unwrap() + 1, f[2].parse().unwrap());
        let body = format!("0 {s} {n} {}/{},{}/{}", s % 13, s % 15, n % 13, n % 15);
        let digest = common::fnv1a64(body.as_bytes()) as u32;
        out.push_str(&format!("{body} {digest:08x}\n"));
    }
    fs::write(&ck, out).unwrap();
    let o = failed_with(
        nqueens()
            .args(["count", "8", "--engine", "backtrack", "--checkpoint"])
            .arg(&ck),
        1,
    );
    let err = stderr(&o);
    assert!(
        err.contains("n = 8: the count disagrees with the known value: total 100")
            && err.contains("(known: total 92, unique 12)"),
        "{err}"
    );
    // Still exit code 1 when the reader of stdout is gone before the report is written.
    let ck_arg = ck.to_str().unwrap();
    let o = with_stdout_closed(&[
        "count",
        "8",
        "--engine",
        "backtrack",
        "--checkpoint",
        ck_arg,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("disagrees with the known value"),
        "{}",
        stderr(&o)
    );
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn an_error_says_its_reason_once() {
    // 400 threads under a 200 MB address space: the OS refused the thread pool ("cannot
    // start the thread pool: ... (os error 11)"); since issue 30 the pool is refused before
    // a thread is made (a refused thread could abort the process). `estimate` built its
    // own pool and said the OS error twice ("... (os error 11): ... (os error 11)").
    for args in ["count 14 -t 400 -q", "estimate 12 -t 400"] {
        let o = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v 200000 && exec \"$0\" {args}"))
            .arg(env!("CARGO_BIN_EXE_nqueens"))
            .output()
            .unwrap();
        assert_one_clean_line(&o, &["cannot start 400 threads"]);
        let err = stderr(&o);
        assert_eq!(err.matches("ulimit -v 200000").count(), 1, "{err}");
        assert_eq!(err.matches("(os error").count(), 0, "{err}");
    }
}

/// Only a usage error points to `--help`; a refused file or a failed write says what failed
/// and nothing more (the exit code is 2 for both).
#[test]
fn only_usage_errors_point_to_the_help() {
    let d = scratch("kinds");
    let ck = d.join("n12.ckpt");
    succeeded(
        nqueens()
            .args(["count", "12", "-q", "--checkpoint"])
            .arg(&ck),
    );
    // A checkpoint of another n: the file is refused, the command line was fine.
    let o = failed_with(nqueens().args(["count", "13", "--checkpoint"]).arg(&ck), 2);
    assert_one_clean_line(&o, &["n12.ckpt", "n = 12"]);
    assert!(!stderr(&o).contains("--help"), "{}", stderr(&o));
    // Options that do not go together: a usage error.
    let o = failed_with(
        nqueens().args(["count", "1..3", "--checkpoint"]).arg(&ck),
        2,
    );
    assert_one_clean_line(&o, &["single N", "(see 'nqueens count --help')"]);
    // A full disk on standard output names standard output, once.
    if let Ok(full) = fs::OpenOptions::new().write(true).open("/dev/full") {
        let o = failed_with(
            std::process::Command::new(env!("CARGO_BIN_EXE_nqueens"))
                .args(["count", "8"])
                .stdout(full),
            2,
        );
        assert_one_clean_line(&o, &["cannot write to standard output"]);
        assert!(!stderr(&o).contains("--help"), "{}", stderr(&o));
    }
    fs::remove_dir_all(d).unwrap();
}

/// `count N --shard K/M --out -` whose reader closed the pipe has lost its shard file: that
/// is a failed write (exit code 2, said on stderr), not the quiet end that a closed pipe is
/// for a listing (`solutions 12 | head`).
#[test]
fn a_shard_file_lost_to_a_closed_pipe_is_an_error() {
    // The reader is gone before the file is written.
    let o = with_stdout_closed(&["count", "16", "--shard", "0/2", "--out", "-", "-q"]);
    assert_one_clean_line(&o, &["shard file", "standard output"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A listing cut short by its reader ends quietly.
    let o = with_stdout_closed(&["solutions", "12"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
}

// Issue 30: a new user's frictions and a fourth hostile pass's messages.

/// Runs `nqueens args` and returns its output.
fn run(args: &[&str]) -> Output {
    nqueens().args(args).output().unwrap()
}

#[test]
fn clap_errors_keep_their_tips_and_point_to_the_subcommands_help() {
    // Before: "unexpected argument '--thread' found (see 'nqueens --help')", no tip.
    let o = failed_with(nqueens().args(["count", "12", "--thread", "2"]), 2);
    assert_one_clean_line(
        &o,
        &[
            "unexpected argument '--thread'",
            "a similar argument exists: '--threads'",
            "(see 'nqueens count --help')",
        ],
    );
    let o = run(&["count", "12", "--engine", "fast"]);
    assert_one_clean_line(
        &o,
        &[
            "invalid value 'fast'",
            "[possible values: auto, quadrant, backtrack]",
            "(see 'nqueens count --help')",
        ],
    );
    let o = run(&["cuont", "12"]);
    assert_one_clean_line(
        &o,
        &[
            "unrecognized subcommand 'cuont'",
            "a similar subcommand exists: 'count'",
            "(see 'nqueens --help')",
        ],
    );
    // An alias names its subcommand; so does a usage error of our own.
    assert_one_clean_line(
        &run(&["list", "8", "--bogus"]),
        &["(see 'nqueens solutions --help')"],
    );
    assert_one_clean_line(
        &run(&["solutions", "8", "--format", "svg"]),
        &["draws one board", "(see 'nqueens solutions --help')"],
    );
    // The escaping of echoed values holds with the tips kept.
    assert_one_clean_line(
        &run(&["count", "8", "--engine", "quad\trant"]),
        &["quad\\trant", "[possible values"],
    );
}

#[test]
fn negative_values_reach_the_options_own_check() {
    // Before: "unexpected argument '-1' found" for each.
    for (args, says) in [
        (
            &["estimate", "12", "--budget", "-1"][..],
            "'-1' is not a time budget",
        ),
        (
            &["estimate", "12", "--budget", "-inf"],
            "'-inf' is not a time budget",
        ),
        (&["estimate", "12", "--seed", "-1"], "'-1' is not a seed"),
        (
            &["estimate", "12", "--sample", "-3"],
            "--sample -3 is too small",
        ),
        (
            &["count", "8", "--max-memory", "-5"],
            "memory size -5 is negative",
        ),
        (&["plan", "-3"], "board size -3 is out of range"),
        (
            &["plan", "8", "--stats", "--workers", "-1"],
            "--workers -1 is invalid",
        ),
        (
            &["animate", "5", "--svg", "x.svg", "--max-frames", "-2"],
            "'-2' is not a frame count",
        ),
    ] {
        let o = failed_with(nqueens().args(args), 2);
        assert_one_clean_line(&o, &[says]);
        assert!(!stderr(&o).contains("unexpected argument"), "{args:?}");
    }
}

#[test]
fn bidirectional_controls_are_escaped_like_esc() {
    // U+202E (right-to-left override) was echoed raw: the terminal showed the rest of the
    // line reversed.
    let d = scratch("bidi");
    let bad = d.join("x\u{202e}gpj").join("c");
    let o = nqueens()
        .args(["count", "8", "--checkpoint"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_one_clean_line(&o, &["x\\u{202e}gpj"]);
    assert!(!stderr(&o).contains('\u{202e}'), "{}", stderr(&o));
    for args in [
        vec!["count", "8", "--engine", "a\u{202e}b"],
        vec!["merge", "s\u{2067}.json"],
    ] {
        let o = run(&args);
        let err = stderr(&o);
        assert!(
            !err.contains('\u{202e}') && !err.contains('\u{2067}'),
            "{args:?}: {err}"
        );
        assert!(err.contains("\\u{"), "{args:?}: {err}");
    }
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn a_missing_costs_file_says_no_such_file() {
    // Before: "checkpoint nonexist: entity not found".
    let o = run(&["plan", "8", "--stats", "--costs", "nonexist"]);
    assert_one_clean_line(&o, &["nonexist", "no such file"]);
    assert!(!stderr(&o).contains("entity"), "{}", stderr(&o));
}

#[test]
fn a_max_memory_below_one_unit_says_so() {
    // Before: "its unit plan passed 0 units, more than fit in the 1 B allowed".
    let o = run(&["count", "8", "--max-memory", "1"]);
    assert_one_clean_line(
        &o,
        &["1 B allowed by --max-memory", "no room for its unit plan"],
    );
    assert!(!stderr(&o).contains("passed 0 units"), "{}", stderr(&o));
}

#[test]
fn an_absurd_shard_time_is_shown_in_a_few_characters() {
    // A shard file whose `seconds` is 1e300, its digest recomputed as a forger would: the
    // refusal printed the number in 301 digits.
    let d = scratch("seconds");
    let p = d.join("s.json");
    succeeded(
        nqueens()
            .args(["count", "8", "-q", "--shard", "0/1", "--out"])
            .arg(&p),
    );
    let mut v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
    v["seconds"] = serde_json::json!(1e300);
    let f = |k: &str| v[k].to_string().trim_matches('"').to_string();
    let mut text = format!(
        "{} {} {} {} {} {} {} {}/{} {:?} {}",
        f("format"),
        f("format_version"),
        f("program"),
        f("n"),
        f("plan_id"),
        f("plan_version"),
        f("plan_units"),
        f("shard_index"),
        f("shard_count"),
        1e300f64.to_bits(),
        f("threads")
    );
    for u in v["units"].as_array().unwrap() {
        text.push_str(&format!(
            " {}:{}:{}:{}",
            u["id"],
            u["solutions"],
            u["nodes"],
            u["check"].as_str().unwrap()
        ));
    }
    v["digest"] = serde_json::json!(format!("{:016x}", common::fnv1a64(text.as_bytes())));
    fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let o = nqueens().arg("merge").arg(&p).output().unwrap();
    assert_one_clean_line(&o, &["seconds 1e300 is out of range"]);
    assert!(stderr(&o).len() < 200, "{}", stderr(&o));
    fs::remove_dir_all(d).unwrap();
}
