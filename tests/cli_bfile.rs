//! CLI tests of OEIS b-files: `count A..B --format bfile` writes them, `verify --bfile FILE`
//! recounts them. B-files made by the program itself and by hand: a wrong value, a malformed
//! line, the other sequence, Windows line ends, terms beyond u64, a FIFO, a file too large.

mod common;

use std::path::PathBuf;

use common::{nqueens, succeeded};
use nqueens::known::TABLE;

/// A fresh empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("bfile", name)
}

/// Runs `nqueens args`; returns exit code, stdout, stderr.
fn run(args: &[&str]) -> (i32, String, String) {
    let out = nqueens().args(args).output().expect("the binary runs");
    (
        out.status.code().expect("an exit code"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `verify --bfile` of a b-file with the text `text`, plus `args`.
fn verify_text(name: &str, text: &str, args: &[&str]) -> (i32, String, String) {
    let dir = scratch(name);
    let file = dir.join("b.txt");
    std::fs::write(&file, text).unwrap();
    let mut all = vec!["verify", "--bfile", file.to_str().unwrap()];
    all.extend_from_slice(args);
    let result = run(&all);
    std::fs::remove_dir_all(dir).unwrap();
    result
}

#[test]
fn count_prints_a_bfile_and_nothing_else() {
    let (code, out, err) = run(&["count", "1..12", "--format", "bfile"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let want: String = TABLE[..12]
        .iter()
        .map(|k| format!("{} {}\n", k.n, k.total))
        .collect();
    assert_eq!(out, want);
    let (code, out, _) = run(&["count", "7..9", "--format", "bfile", "--sequence", "unique"]);
    assert_eq!((code, out.as_str()), (0, "7 6\n8 12\n9 46\n"));
    let (code, out, _) = run(&["count", "8", "--format", "bfile"]);
    assert_eq!((code, out.as_str()), (0, "8 92\n"));
}

#[test]
fn format_bfile_does_not_mix_with_json_or_long_count_options() {
    for extra in [&["--json"][..], &["--checkpoint", "x"], &["--mpi"]] {
        let mut args = vec!["count", "8", "--format", "bfile"];
        args.extend_from_slice(extra);
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(
            out.is_empty() && err.contains("cannot be used with"),
            "{err}"
        );
    }
}

#[test]
fn a_bfile_of_the_program_verifies_from_a_file_and_from_stdin() {
    let (_, bfile, _) = run(&[
        "count",
        "1..13",
        "--format",
        "bfile",
        "--sequence",
        "unique",
    ]);
    let (code, out, err) = verify_text("own", &bfile, &["--sequence", "unique"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(
        out.contains("13 terms, n = 1..13, checked as A002562"),
        "{out}"
    );
    assert!(
        out.contains(" 13                     9233                     9233  ok\n"),
        "{out}"
    );
    assert!(out.ends_with("13 ok, 0 MISMATCH, 0 skipped\n"), "{out}");

    let out = succeeded(
        nqueens()
            .args(["verify", "--bfile", "-", "--sequence", "unique"])
            .write_stdin(bfile),
    );
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .ends_with("13 ok, 0 MISMATCH, 0 skipped\n"));
}

#[test]
fn a_wrong_value_is_a_mismatch_naming_its_line() {
    // By hand, Windows line ends, comments, a blank line, a term beyond u64 past --max, n = 0.
    let text = "# A000170 by hand\r\n0 1\r\n\r\n1 1\r\n8 93\r\n9 352\r\n\
                # past --max\r\n30 1234567890123456789012345678901234567890\r\n70 1\r\n";
    let (code, out, err) = verify_text("wrong", text, &["--max", "10"]);
    assert_eq!((code, err.as_str()), (1, ""), "{out}");
    assert!(
        out.contains("  8                       93                       92  MISMATCH (line 5)\n"),
        "{out}"
    );
    assert!(
        out.contains("  9                      352                      352  ok\n"),
        "{out}"
    );
    assert!(
        out.contains("  0                        1                        1  ok\n"),
        "{out}"
    );
    assert!(
        out.contains(" 30 1234567890123456789012345678901234567890                        -  skipped (n > --max 10)\n"),
        "{out}"
    );
    assert!(out.contains(" 70                        1                        -  skipped (n > 64, beyond nqueens)\n"), "{out}");
    assert!(out.contains("3 ok, 1 MISMATCH, 2 skipped"), "{out}");
}

#[test]
fn a_malformed_line_is_exit_code_2_naming_it() {
    for (text, want) in [
        ("1 1\n2 0\n3 zero\n", "line 3: 'zero' is not a whole number"),
        ("# c\n1 1\n2\n", "line 3: expected 'n a(n)', found '2'"),
        ("4 2\n3 0\n", "line 2: n = 3 after n = 4 (line 1)"),
        ("# nothing\n", "no terms"),
    ] {
        let (code, out, err) = verify_text("malformed", text, &[]);
        assert_eq!(code, 2, "{text:?}: {err}");
        assert!(out.is_empty(), "{out}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("nqueens: b-file ") && err.contains(want),
            "{err}"
        );
    }
}

#[test]
fn a_bfile_of_the_other_sequence_gets_a_hint() {
    let (_, unique, _) = run(&[
        "count",
        "1..10",
        "--format",
        "bfile",
        "--sequence",
        "unique",
    ]);
    let (code, out, _) = verify_text("other", &unique, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("MISMATCH: these terms are A002562 (unique solutions), not A000170: try --sequence unique"),
        "{out}"
    );
    let (_, total, _) = run(&["count", "4..6", "--format", "bfile"]);
    let (code, out, _) = verify_text("other2", &total, &["--sequence", "unique"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("try --sequence total"), "{out}");
}

#[test]
fn reads_a_fifo_and_refuses_a_file_too_large() {
    let dir = scratch("fifo");
    let fifo = dir.join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(fifo, "1 1\n2 0\n3 0\n4 2\n").unwrap())
        };
        let (code, out, _) = run(&["verify", "--bfile", fifo.to_str().unwrap()]);
        writer.join().unwrap();
        assert_eq!(code, 0, "{out}");
        assert!(out.ends_with("4 ok, 0 MISMATCH, 0 skipped\n"), "{out}");
    } else {
        eprintln!("skipped the FIFO: mkfifo is not available");
    }
    let big = dir.join("big.txt");
    let line = "# padding padding padding padding padding padding padding padding\n";
    std::fs::write(&big, line.repeat((16 << 20) / line.len() + 1)).unwrap();
    let (code, _, err) = run(&["verify", "--bfile", big.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("larger than 16 MiB"), "{err}");
    let (code, _, err) = run(&["verify", "--bfile", dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("is a directory"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Issue 30: terms above `--max` were all "skipped" (exit code 0), though the program knows
/// every term to n = 27: a wrong a(18), a(25) or a(26) passed. They are compared with the
/// known table (and counted only up to --max).
#[test]
fn terms_above_max_are_compared_with_the_known_table() {
    let mut text = String::from("0 1\n");
    for k in TABLE.iter() {
        let value = match k.n {
            18 | 25 | 26 => k.total + 1,
            _ => k.total,
        };
        text.push_str(&format!("{} {value}\n", k.n));
    }
    text.push_str("28 1\n65 1\n");
    let (code, out, err) = verify_text("table", &text, &["--max", "8"]);
    assert_eq!((code, err.as_str()), (1, ""), "{out}");
    for n in [18, 25, 26] {
        let k = TABLE[n - 1].total;
        assert!(
            out.contains(&format!(
                "MISMATCH (line {}): the known value is {k}; not counted: n > --max 8",
                n + 1
            )),
            "n = {n}: {out}"
        );
    }
    assert!(
        out.contains(&format!(
            " 27 {:>24}                        -  ok (the known value; not counted: n > --max 8)\n",
            TABLE[26].total
        )),
        "{out}"
    );
    assert!(
        out.contains(
            " 28                        1                        -  skipped (n > --max 8)\n"
        ),
        "{out}"
    );
    // 0..8 counted, 9..27 less three by the table; 28 and 65 skipped.
    assert!(
        out.contains("25 ok (16 of them by the known table, not counted), 3 MISMATCH, 2 skipped (raise --max"),
        "{out}"
    );
}

/// Issue 30: rows past n = 64 are beyond the program: no "raise --max" for them.
#[test]
fn rows_past_64_alone_do_not_suggest_raising_max() {
    let (code, out, _) = verify_text("past64", "8 92\n65 1\n70 2\n", &["--max", "10"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("1 ok, 0 MISMATCH, 2 skipped\n"), "{out}");
    assert!(!out.contains("raise --max"), "{out}");
}

/// Issue 30: OEIS's b-file of A000170 starts with `0 1`; `count 0..B --format bfile` wrote
/// nothing (board size 0 refused), so the tool could not write it.
#[test]
fn a_bfile_from_zero_starts_with_the_empty_board() {
    let (code, out, err) = run(&["count", "0..5", "--format", "bfile"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(out, "0 1\n1 1\n2 0\n3 0\n4 2\n5 10\n");
    let (code, out, _) = run(&["count", "0", "--format", "bfile"]);
    assert_eq!((code, out.as_str()), (0, "0 1\n"));
    // It verifies as its own b-file.
    let (code, _, _) = verify_text("zero", "0 1\n1 1\n2 0\n", &[]);
    assert_eq!(code, 0);
    // Anywhere else n = 0 is still refused, and A002562 has no n = 0.
    for (args, says) in [
        (&["count", "0"][..], "between 1 and 64"),
        (&["count", "0..5"], "--format bfile"),
        (
            &["count", "0..5", "--format", "bfile", "--sequence", "unique"],
            "A002562 (--sequence unique) starts at n = 1",
        ),
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty() && err.contains(says), "{args:?}: {err}");
    }
}
