//! Long counts through the CLI: checkpoint and resume after SIGINT and SIGKILL, torn and
//! foreign checkpoints, shards and merge, and the plan.

mod common;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{failed_with, nqueens, succeeded};
use nqueens::{Engine, UnitPlan};

/// A fresh path in the temp directory, unique to this test process and name.
fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("nqueens-cli-long-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

/// The lines of `count`'s text output that must not depend on how the count was run
/// (time, speed and threads do).
fn result_lines(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|l| {
            ["n ", "total", "unique", "orbits", "nodes", "units", "known"]
                .iter()
                .any(|k| l.starts_with(k))
        })
        .map(str::to_string)
        .collect()
}

fn count_lines(args: &[&str]) -> Vec<String> {
    result_lines(&succeeded(nqueens().args(args)).stdout)
}

fn lines_in(path: &PathBuf) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// Starts `count 16 --threads 1 --checkpoint path` and waits until at least `units` units
/// are recorded (or the child has finished).
fn start_count_16(path: &PathBuf, units: usize) -> Child {
    let bin = assert_cmd::cargo::cargo_bin("nqueens");
    let mut child = Command::new(bin)
        .args(["count", "16", "--threads", "1", "--checkpoint"])
        .arg(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while lines_in(path) < units + 1
        && child.try_wait().unwrap().is_none()
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

/// Resumes a checkpoint of n = 16 and checks the exact known result and a complete file.
fn resume_gives_known_count_16(path: &PathBuf) {
    let lines = count_lines(&[
        "count",
        "16",
        "--threads",
        "2",
        "--checkpoint",
        path.to_str().unwrap(),
    ]);
    assert!(
        lines.contains(&"total    14,772,512".to_string()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"unique   1,846,955".to_string()),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("known") && l.contains("matches")),
        "{lines:?}"
    );
    assert_eq!(
        lines_in(path),
        UnitPlan::with_engine(16, Engine::auto(16)).len() + 1,
        "header + one line per unit"
    );
}

#[test]
fn count_resumes_after_sigint_with_the_exact_count() {
    let path = temp("sigint.ckpt");
    let child = start_count_16(&path, 20);
    let pid = child.id().to_string();
    let _ = Command::new("kill").args(["-INT", &pid]).status();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        // Stopped: the finished units are kept and the message says how to resume.
        Some(130) => {
            assert!(
                stderr.contains("run the same command again to resume"),
                "{stderr}"
            );
            assert!(out.stdout.is_empty(), "no result printed when interrupted");
            assert!(
                lines_in(&path) > 1
                    && lines_in(&path) <= UnitPlan::with_engine(16, Engine::auto(16)).len()
            );
        }
        // The count finished before the signal arrived: it must be complete and right.
        Some(0) => assert!(result_lines(&out.stdout).contains(&"total    14,772,512".to_string())),
        other => panic!("unexpected exit {other:?}: {stderr}"),
    }
    resume_gives_known_count_16(&path);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn count_resumes_after_sigkill_with_the_exact_count() {
    let path = temp("sigkill.ckpt");
    let mut child = start_count_16(&path, 20);
    let _ = child.kill(); // SIGKILL: no handler runs, only what is in the file survives.
    let _ = child.wait();
    assert!(lines_in(&path) > 1);
    resume_gives_known_count_16(&path);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn torn_last_line_is_redone() {
    let path = temp("torn.ckpt");
    let p = path.to_str().unwrap();
    let full = count_lines(&["count", "12", "--checkpoint", p]);
    let text = std::fs::read_to_string(&path).unwrap();
    // Cut the last record in the middle, as a kill during its write would.
    let cut = text.len() - 7;
    std::fs::write(&path, &text[..cut]).unwrap();
    let out = succeeded(nqueens().args(["count", "12", "--checkpoint", p]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("torn"));
    assert_eq!(result_lines(&out.stdout), full);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap().lines().count(),
        text.lines().count()
    );
    std::fs::remove_file(path).unwrap();
}

#[test]
fn checkpoint_of_another_n_plan_or_corrupted_is_refused() {
    let path = temp("foreign.ckpt");
    let p = path.to_str().unwrap();
    count_lines(&["count", "11", "--checkpoint", p]);
    let err = |args: &[&str]| {
        let out = failed_with(nqueens().args(args), 2);
        let e = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(e.lines().count(), 1, "one line: {e}");
        e
    };
    assert!(err(&["count", "12", "--checkpoint", p]).contains("n = 11, not n = 12"));
    let good = std::fs::read_to_string(&path).unwrap();
    let plan = UnitPlan::new(11).id_hex();
    std::fs::write(&path, good.replacen(&plan, "00000000000000ff", 1)).unwrap();
    assert!(err(&["count", "11", "--checkpoint", p]).contains("unit plan 00000000000000ff"));
    // Change one count in the third line: its check values no longer match.
    let mut lines: Vec<String> = good.lines().map(str::to_string).collect();
    let mut f: Vec<String> = lines[2].split(' ').map(str::to_string).collect();
    f[2] = (f[2].parse::<u64>().unwrap() + 1).to_string();
    lines[2] = f.join(" ");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    assert!(err(&["count", "11", "--checkpoint", p]).contains("line 3"));
    std::fs::write(&path, "hello\n").unwrap();
    assert!(err(&["count", "11", "--checkpoint", p]).contains("not an nqueens checkpoint"));
    std::fs::remove_file(path).unwrap();
}

/// Writes the M shards of n and returns their paths.
fn shards(n: u32, m: u32, tag: &str) -> Vec<PathBuf> {
    (0..m)
        .map(|k| {
            let path = temp(&format!("{tag}-{n}-{k}-of-{m}.json"));
            let spec = format!("{k}/{m}");
            succeeded(nqueens().args([
                "count",
                &n.to_string(),
                "--shard",
                &spec,
                "--out",
                path.to_str().unwrap(),
            ]));
            path
        })
        .collect()
}

#[test]
fn merged_shards_equal_the_count_for_several_m() {
    let whole = count_lines(&["count", "12"]);
    for m in [1, 2, 3, 7] {
        let paths = shards(12, m, "merge");
        let out = succeeded(nqueens().arg("merge").args(&paths));
        assert_eq!(result_lines(&out.stdout), whole, "m = {m}");
        for p in paths {
            std::fs::remove_file(p).unwrap();
        }
    }
}

#[test]
fn merge_json_equals_count_json_counts() {
    let paths = shards(10, 2, "json");
    let out = nqueens()
        .arg("merge")
        .arg("--json")
        .args(&paths)
        .output()
        .unwrap();
    let merged: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let out = nqueens().args(["count", "10", "--json"]).output().unwrap();
    let counted: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for k in [
        "n", "total", "unique", "orbits8", "orbits4", "orbits2", "nodes", "plan_id", "known",
    ] {
        assert_eq!(merged[k], counted[k], "{k}");
    }
    for p in paths {
        std::fs::remove_file(p).unwrap();
    }
}

#[test]
fn missing_duplicate_foreign_and_tampered_shards_are_named() {
    let paths = shards(11, 3, "bad");
    // Merging `set` fails with one line that contains every string of `want`.
    let fails = |set: &[&PathBuf], want: &[&str]| {
        let out = failed_with(nqueens().arg("merge").args(set), 2);
        let e = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(want.iter().all(|w| e.contains(w)), "{e} lacks {want:?}");
    };
    let name = |p: &PathBuf| p.to_str().unwrap().to_string();
    fails(&[&paths[0], &paths[1]], &["shard 2/3 not given"]);
    fails(
        &[&paths[0], &paths[1], &paths[1], &paths[2]],
        &[&name(&paths[1]), "both"],
    );
    let other = shards(10, 1, "bad");
    fails(
        &[&paths[0], &paths[1], &paths[2], &other[0]],
        &[&name(&other[0]), "n = 10"],
    );
    // Tamper: change one unit's solutions (keeping valid JSON).
    let text = std::fs::read_to_string(&paths[1]).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let s = v["units"][0]["solutions"].as_u64().unwrap();
    v["units"][0]["solutions"] = (s + 195).into(); // same residues mod 13 and 15: the digest catches it
    std::fs::write(&paths[1], v.to_string()).unwrap();
    let all: Vec<&PathBuf> = paths.iter().collect();
    fails(&all, &[&name(&paths[1]), "digest"]);
    // A count that does not fit in 64 bits is not read at all.
    std::fs::write(
        &paths[1],
        text.replacen(
            &format!("\"solutions\": {s}"),
            "\"solutions\": 18446744073709551616",
            1,
        ),
    )
    .unwrap();
    fails(&all, &[&name(&paths[1]), "not a valid shard file"]);
    for p in paths.into_iter().chain(other) {
        std::fs::remove_file(p).unwrap();
    }
}

#[test]
fn shard_needs_out_and_a_single_n() {
    failed_with(nqueens().args(["count", "12", "--shard", "0/2"]), 2);
    let out = failed_with(nqueens().args(["count", "10..12", "--checkpoint", "x"]), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("single N"));
    let out = nqueens()
        .args(["count", "12", "--shard", "2/2", "--out", "x"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("0-based"));
}

#[test]
fn count_without_a_terminal_prints_no_progress() {
    let out = succeeded(nqueens().args(["count", "11"]));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn plan_lists_every_unit() {
    let plan = UnitPlan::new(9);
    let out = nqueens().args(["plan", "9", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["units"].as_array().unwrap().len(), plan.len());
    assert_eq!(v["plan_id"], plan.id_hex());
    let out = nqueens().args(["plan", "9"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().count(),
        plan.len() + 2
    );
}

#[test]
fn plan_stats_replays_measured_costs() {
    let path = temp("stats.ckpt");
    count_lines(&["count", "12", "--checkpoint", path.to_str().unwrap()]);
    let p = path.to_str().unwrap();
    let out = succeeded(nqueens().args([
        "plan",
        "12",
        "--stats",
        "--json",
        "--workers",
        "1,4",
        "--costs",
        p,
    ]));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["costs"], "measured");
    let counted: serde_json::Value = serde_json::from_slice(
        &nqueens()
            .args(["count", "12", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    // A unit's measured cost is its work: pairs tested (quadrant units) or nodes (the
    // F180/F90 searches).
    let work = counted["nodes"].as_u64().unwrap() + counted["pairs_tested"].as_u64().unwrap();
    assert_eq!(
        v["total"].as_u64(),
        Some(work),
        "the measured costs are the units' work"
    );
    // One worker runs everything back to back: efficiency 1.
    assert_eq!(v["makespan"][0]["efficiency"], 1.0);
    failed_with(
        nqueens().args(["plan", "13", "--stats", "--costs", path.to_str().unwrap()]),
        2,
    );
    std::fs::remove_file(path).unwrap();
}

#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_flag_explains_how_to_build_it() {
    let out = failed_with(nqueens().args(["count", "8", "--mpi"]), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--features mpi"));
}

#[test]
fn shard_checkpoint_records_its_scope() {
    let ck = temp("shard.ckpt");
    let out = temp("shard-out.json");
    let (c, o) = (ck.to_str().unwrap(), out.to_str().unwrap());
    let args = [
        "count",
        "11",
        "--shard",
        "1/2",
        "--checkpoint",
        c,
        "--out",
        o,
    ];
    succeeded(nqueens().args(args));
    let first = std::fs::read_to_string(&out).unwrap();
    // Same shard again: everything comes from the checkpoint, same units and counts.
    succeeded(nqueens().args(args));
    let again: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(again["units"], first["units"]);
    // The whole count, or another shard, must not take this shard's checkpoint.
    for args in [
        vec!["count", "11", "--checkpoint", c],
        vec![
            "count",
            "11",
            "--shard",
            "0/2",
            "--checkpoint",
            c,
            "--out",
            o,
        ],
    ] {
        let res = failed_with(nqueens().args(&args), 2);
        assert!(String::from_utf8_lossy(&res.stderr).contains("scope 'shard 1/2'"));
    }
    std::fs::remove_file(ck).unwrap();
    std::fs::remove_file(out).unwrap();
}
