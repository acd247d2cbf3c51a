//! CLI tests of `solutions` (alias `list`), `solve` and `animate`: every format pinned for a
//! small board, listings checked against the library's counts and validator, the animation's
//! step log written out by hand, and the one-line errors of bad input. `animate` on a terminal
//! and as an SVG: `cli_animate.rs`.

mod common;

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::{failed_with, nqueens, succeeded};

/// Runs `nqueens args`, expects success, returns stdout.
fn stdout_of(args: &[&str]) -> String {
    let out = succeeded(nqueens().args(args));
    assert!(
        out.stderr.is_empty(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("output is UTF-8")
}

/// Runs `nqueens args`, expects exit code 2 and a one-line error; returns that line.
fn error_of(args: &[&str]) -> String {
    let out = failed_with(nqueens().args(args), 2);
    assert!(out.stdout.is_empty(), "{args:?}");
    let err = String::from_utf8(out.stderr).expect("errors are UTF-8");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("nqueens: "), "{err}");
    err
}

/// Parses `perm` output (1-based columns) into 0-based solutions.
fn parse_perm(text: &str) -> Vec<Vec<usize>> {
    text.lines()
        .map(|l| {
            l.split(' ')
                .map(|c| c.parse::<usize>().expect("a column") - 1)
                .collect()
        })
        .collect()
}

#[test]
fn solutions_4_as_perm() {
    assert_eq!(stdout_of(&["solutions", "4"]), "2 4 1 3\n3 1 4 2\n");
}

#[test]
fn list_is_an_alias_of_solutions() {
    assert_eq!(stdout_of(&["list", "4"]), "2 4 1 3\n3 1 4 2\n");
}

#[test]
fn solutions_4_as_lisp() {
    assert_eq!(
        stdout_of(&["solutions", "4", "--format", "lisp"]),
        "(2 4 1 3)\n(3 1 4 2)\n"
    );
}

#[test]
fn solutions_5_as_tuple() {
    let want = "\
(0, 2, 4, 1, 3)
(0, 3, 1, 4, 2)
(1, 3, 0, 2, 4)
(1, 4, 2, 0, 3)
(2, 0, 3, 1, 4)
(2, 4, 1, 3, 0)
(3, 0, 2, 4, 1)
(3, 1, 4, 2, 0)
(4, 1, 3, 0, 2)
(4, 2, 0, 3, 1)
";
    assert_eq!(stdout_of(&["solutions", "5", "-f", "tuple"]), want);
}

#[test]
fn solutions_4_as_board() {
    let want = "\
. Q . .
. . . Q
Q . . .
. . Q .

. . Q .
Q . . .
. . . Q
. Q . .
";
    assert_eq!(stdout_of(&["solutions", "4", "--format", "board"]), want);
}

#[test]
fn solutions_4_as_unicode() {
    let want = "\
□ ♛ □ ■
■ □ ■ ♛
♛ ■ □ ■
■ □ ♛ □

□ ■ ♛ ■
♛ □ ■ □
□ ■ □ ♛
■ ♛ ■ □
";
    assert_eq!(stdout_of(&["solutions", "4", "--format", "unicode"]), want);
}

#[test]
fn solutions_5_as_json_lines() {
    let want = "\
{\"n\":5,\"index\":0,\"columns\":[0,2,4,1,3]}
{\"n\":5,\"index\":1,\"columns\":[0,3,1,4,2]}
";
    assert_eq!(
        stdout_of(&["solutions", "5", "--format", "json", "--limit", "2"]),
        want
    );
}

#[test]
fn first_solution_of_4_as_svg() {
    let want = r##"<svg xmlns="http://www.w3.org/2000/svg" width="160" height="160" viewBox="0 0 160 160">
<title>4 queens: 2 4 1 3</title>
<rect width="160" height="160" fill="#f0d9b5"/>
<g fill="#b58863">
<rect x="40" y="0" width="40" height="40"/>
<rect x="120" y="0" width="40" height="40"/>
<rect x="0" y="40" width="40" height="40"/>
<rect x="80" y="40" width="40" height="40"/>
<rect x="40" y="80" width="40" height="40"/>
<rect x="120" y="80" width="40" height="40"/>
<rect x="0" y="120" width="40" height="40"/>
<rect x="80" y="120" width="40" height="40"/>
</g>
<g fill="#222222" stroke="#ffffff" stroke-width="1.5" stroke-linejoin="round">
<path d="M47 28l-3 -16l8 8l2 -11l6 9l6 -9l2 11l8 -8l-3 16zm0 3h26v4h-26z"/>
<path d="M127 68l-3 -16l8 8l2 -11l6 9l6 -9l2 11l8 -8l-3 16zm0 3h26v4h-26z"/>
<path d="M7 108l-3 -16l8 8l2 -11l6 9l6 -9l2 11l8 -8l-3 16zm0 3h26v4h-26z"/>
<path d="M87 148l-3 -16l8 8l2 -11l6 9l6 -9l2 11l8 -8l-3 16zm0 3h26v4h-26z"/>
</g>
</svg>
"##;
    assert_eq!(
        stdout_of(&["solutions", "4", "--first", "--format", "svg"]),
        want
    );
}

#[test]
fn every_listed_solution_is_valid_distinct_sorted_and_counted() {
    for n in 1..=10u32 {
        let listed = parse_perm(&stdout_of(&["solutions", &n.to_string()]));
        assert!(
            listed
                .iter()
                .all(|p| p.len() == n as usize && nqueens::is_solution(p)),
            "n = {n}"
        );
        assert!(
            listed.windows(2).all(|w| w[0] < w[1]),
            "n = {n}: strictly increasing, so distinct"
        );
        assert_eq!(
            listed.len() as u128,
            nqueens::count(n).unwrap().total,
            "n = {n}"
        );
    }
}

#[test]
fn unique_lists_one_board_per_symmetry_class() {
    for n in 1..=10u32 {
        let listed = parse_perm(&stdout_of(&["solutions", &n.to_string(), "--unique"]));
        assert_eq!(
            listed.len() as u128,
            nqueens::count(n).unwrap().unique,
            "n = {n}"
        );
        let mut classes = HashSet::new();
        for p in &listed {
            assert!(nqueens::is_solution(p));
            assert_eq!(
                &nqueens::canonical(p),
                p,
                "n = {n}: each is the smallest of its orbit"
            );
            // No two listed boards are images of each other: their orbits are disjoint.
            for t in nqueens::Transform::ALL {
                let image = t.apply_to_solution(p);
                assert!(
                    image == *p || !listed.contains(&image),
                    "n = {n}: {p:?} and {image:?}"
                );
            }
            classes.insert(nqueens::canonical(p));
        }
        assert_eq!(classes.len(), listed.len());
    }
}

#[test]
fn limit_and_first_cut_the_listing() {
    assert_eq!(
        stdout_of(&["solutions", "8", "--limit", "3"]),
        "1 5 8 6 3 7 2 4\n1 6 8 3 7 4 2 5\n1 7 4 6 8 2 5 3\n"
    );
    assert_eq!(
        stdout_of(&["solutions", "8", "--first"]),
        "1 5 8 6 3 7 2 4\n"
    );
    assert_eq!(
        stdout_of(&["solutions", "4", "--limit", "50"])
            .lines()
            .count(),
        2
    );
    assert_eq!(
        stdout_of(&["solutions", "3"]),
        "",
        "no solutions: no output, success"
    );
}

#[test]
fn random_with_a_seed_is_reproducible_and_valid() {
    let a = stdout_of(&["solutions", "8", "--random", "--seed", "7"]);
    assert_eq!(a, stdout_of(&["solutions", "8", "--random", "--seed", "7"]));
    let p = parse_perm(&a);
    assert_eq!(p.len(), 1);
    assert!(nqueens::is_solution(&p[0]));
    // Different seeds can draw different solutions: ten seeds give more than one of 92.
    let drawn: HashSet<String> = (0..10)
        .map(|s| stdout_of(&["solutions", "8", "--random", "--seed", &s.to_string()]))
        .collect();
    assert!(drawn.len() > 1, "{drawn:?}");
}

/// Issue 30: `--random` without `--seed` never said which seed it drew, so the board
/// could not be drawn again. It says so on stderr (stdout holds only the board).
#[test]
fn random_without_a_seed_says_the_seed_it_drew() {
    let out = succeeded(nqueens().args(["solutions", "8", "--random"]));
    let err = String::from_utf8(out.stderr).unwrap();
    let seed = err
        .split("--seed ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap_or_else(|| panic!("no seed in {err:?}"));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        stdout_of(&["solutions", "8", "--random", "--seed", seed])
    );
}

#[test]
fn random_json_names_the_drawn_index() {
    let line = stdout_of(&["solutions", "8", "--random", "--seed", "7", "-f", "json"]);
    let index: usize = line
        .split("\"index\":")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .unwrap()
        .parse()
        .unwrap();
    let all = parse_perm(&stdout_of(&["solutions", "8"]));
    let columns: Vec<String> = all[index].iter().map(usize::to_string).collect();
    assert!(
        line.contains(&format!("\"columns\":[{}]", columns.join(","))),
        "{line}"
    );
}

#[test]
fn random_unique_draws_a_canonical_board() {
    let p = parse_perm(&stdout_of(&[
        "solutions",
        "8",
        "--unique",
        "--random",
        "--seed",
        "3",
    ]));
    assert_eq!(nqueens::canonical(&p[0]), p[0]);
}

#[test]
fn closing_the_pipe_early_exits_quietly() {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["solutions", "12"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap(); // then dropped
    let out = child.wait_with_output().unwrap();
    assert_eq!(first, "1 3 5 8 10 12 6 11 2 7 9 4\n");
    assert!(out.status.success(), "{:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn solve_8_by_construction() {
    assert_eq!(stdout_of(&["solve", "8"]), "2 4 6 8 3 1 7 5\n");
    assert_eq!(
        stdout_of(&["solve", "8", "-f", "tuple"]),
        "(1, 3, 5, 7, 2, 0, 6, 4)\n"
    );
    assert_eq!(
        stdout_of(&["solve", "4", "-f", "json"]),
        "{\"n\":4,\"columns\":[1,3,0,2]}\n"
    );
    assert_eq!(
        stdout_of(&["solve", "4", "-f", "board"]),
        ". Q . .\n. . . Q\nQ . . .\n. . Q .\n"
    );
}

#[test]
fn solve_prints_valid_solutions_for_large_n() {
    for n in [4usize, 5, 6, 7, 8, 9, 64, 1000, 100_003] {
        let p = parse_perm(&stdout_of(&["solve", &n.to_string()]));
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].len(), n);
        assert!(nqueens::is_solution(&p[0]), "n = {n}");
    }
}

#[test]
fn animate_4_logs_the_whole_search() {
    // Rows and columns from 1. Row 2 of the first branch has safe columns 3 and 4 only.
    let want = "\
place 1 1
place 2 3
remove 2 3
place 2 4
place 3 2
remove 3 2
remove 2 4
remove 1 1
place 1 2
place 2 4
place 3 1
place 4 3
solution 1: 2 4 1 3
remove 4 3
remove 3 1
remove 2 4
remove 1 2
place 1 3
place 2 1
place 3 4
place 4 2
solution 2: 3 1 4 2
remove 4 2
remove 3 4
remove 2 1
remove 1 3
place 1 4
place 2 1
place 3 3
remove 3 3
remove 2 1
place 2 2
remove 2 2
remove 1 4
done: 32 steps, 2 solutions
";
    assert_eq!(stdout_of(&["animate", "4", "--until", "all"]), want);
}

#[test]
fn animate_stops_at_the_first_solution_by_default() {
    let log = stdout_of(&["animate", "4"]);
    assert!(
        log.ends_with("place 4 3\nsolution 1: 2 4 1 3\ndone: 12 steps, 1 solution\n"),
        "{log}"
    );
    let log = stdout_of(&["animate", "6", "--until", "2"]);
    assert!(
        log.contains("solution 2: ") && !log.contains("solution 3: "),
        "{log}"
    );
}

#[test]
fn animate_1_logs_one_step_in_the_singular() {
    assert_eq!(
        stdout_of(&["animate", "1"]),
        "place 1 1\nsolution 1: 1\ndone: 1 step, 1 solution\n"
    );
}

#[test]
fn rejects_board_sizes_0_and_65_and_text() {
    assert!(error_of(&["solutions", "0"]).contains("between 1 and 64"));
    assert!(error_of(&["solutions", "65"]).contains("between 1 and 64"));
    assert!(error_of(&["list", "eight"]).contains("'eight'"));
    assert!(error_of(&["solve", "0"]).contains("between 1 and 10000000"));
    assert!(error_of(&["solve", "10000001"]).contains("between 1 and 10000000"));
    assert!(error_of(&["animate", "33"]).contains("from 1 to 32"));
}

#[test]
fn rejects_unknown_format() {
    let err = error_of(&["solutions", "8", "--format", "xml"]);
    assert!(
        err.contains("'xml'") && err.contains("perm, lisp, tuple, board, unicode, json, svg"),
        "{err}"
    );
    error_of(&["solve", "8", "-f", "png"]);
}

#[test]
fn rejects_meaningless_counts() {
    assert!(error_of(&["solutions", "8", "--limit", "0"]).contains("at least 1"));
    assert!(error_of(&["animate", "8", "--until", "0"]).contains("at least 1"));
    assert!(error_of(&["animate", "8", "--until", "never"]).contains("'never'"));
    assert!(error_of(&["animate", "8", "--delay", "-5"]).contains("'-5'"));
    // Negative values were "unexpected argument '-1' found"; seeds had clap's bare
    // "invalid digit found in string".
    assert!(error_of(&["solutions", "8", "--limit", "-1"]).contains("'-1' is not a count"));
    assert!(error_of(&["animate", "8", "--until", "-1"]).contains("'-1' is not a stopping point"));
    for seed in ["-1", "abc", "18446744073709551616"] {
        let err = error_of(&["solutions", "8", "--random", "--seed", seed]);
        assert!(
            err.contains(&format!(
                "'{seed}' is not a seed: expected a whole number from 0 to 18446744073709551615"
            )),
            "{err}"
        );
    }
}

#[test]
fn rejects_conflicting_and_orphan_options() {
    error_of(&["solutions", "8", "--first", "--limit", "2"]);
    error_of(&["solutions", "8", "--random", "--first"]);
    assert!(error_of(&["solutions", "8", "--seed", "1"]).contains("--random"));
}

#[test]
fn rejects_svg_of_many_boards_and_of_none() {
    assert!(error_of(&["solutions", "8", "-f", "svg"]).contains("one board"));
    assert!(error_of(&["solutions", "3", "--first", "-f", "svg"]).contains("no solution"));
}

#[test]
fn rejects_boards_too_wide_to_draw_and_boards_without_solutions() {
    assert!(error_of(&["solve", "65", "-f", "board"]).contains("up to n = 64"));
    assert!(error_of(&["solve", "1000", "-f", "svg"]).contains("up to n = 64"));
    assert!(error_of(&["solve", "3"]).contains("no solution"));
    assert!(error_of(&["solutions", "2", "--random"]).contains("no solution"));
}

#[test]
fn rejects_random_beyond_its_practical_limit() {
    let err = error_of(&["solutions", "17", "--random"]);
    assert!(
        err.contains("n <= 16") && err.contains("nqueens solve 17"),
        "{err}"
    );
}
