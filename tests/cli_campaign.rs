//! A campaign that proves its result (issue 29): `merge --status` on shard files in every
//! state (complete, missing, duplicated, refused), the independent recount
//! (`verify N --units K`, `merge --recheck P --independent`) and the certificate that
//! `merge --json` and `count --json` carry.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{failed_with, nqueens, succeeded};

fn scratch(name: &str) -> PathBuf {
    common::scratch("campaign", name)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Writes shard `k` of `m` of n into `dir/s{n}-{k}-of-{m}.json`.
fn shard(dir: &Path, n: u32, k: u32, m: u32) -> PathBuf {
    let p = dir.join(format!("s{n}-{k}-of-{m}.json"));
    succeeded(
        nqueens()
            .args(["count", &n.to_string(), "-q", "-t", "1", "--shard"])
            .arg(format!("{k}/{m}"))
            .arg("--out")
            .arg(&p),
    );
    p
}

/// Shard `spec` of n written to `dir/name` by the program from a checkpoint whose first
/// `forge` records were given one solution more (see `common::forged_shard`).
fn forged(dir: &Path, n: &str, spec: &str, name: &str, forge: usize) -> PathBuf {
    common::forged_shard(dir, n, spec, name, |i, s, n| (s + u64::from(i < forge), n))
}

/// `merge --status` (`--json` too if `json`) of `files`, ready to run.
fn status(files: &[&Path], json: bool) -> assert_cmd::Command {
    let mut c = nqueens();
    c.args(["merge", "--status"]);
    if json {
        c.arg("--json");
    }
    c.args(files);
    c
}

/// The line of `text` that starts with `label`.
fn line<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no line {label:?} in:\n{text}"))
}

#[test]
fn status_of_a_complete_campaign_exits_0_with_the_whole_total() {
    let d = scratch("complete");
    let files: Vec<PathBuf> = (0..4).map(|k| shard(&d, 12, k, 4)).collect();
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let o = succeeded(&mut status(&refs, false));
    let out = stdout(&o);
    assert_eq!(
        line(&out, "shards"),
        "shards     4 valid, 0 missing, 0 duplicated, 0 refused"
    );
    assert_eq!(line(&out, "valid"), "valid      0-3");
    assert!(
        line(&out, "partial").starts_with("partial    total 14,200 so far"),
        "{out}"
    );
    assert!(line(&out, "units").contains("(100.0%)"), "{out}");
    assert_eq!(line(&out, "remaining"), "remaining  none");
    assert_eq!(line(&out, "missing"), "missing none");
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn status_names_missing_shards_in_slurm_syntax_and_exits_3() {
    let d = scratch("missing");
    // 10 shards, of which 0, 2, 3, 4 and 8 are missing.
    let files: Vec<PathBuf> = [1, 5, 6, 7, 9]
        .iter()
        .map(|&k| shard(&d, 12, k, 10))
        .collect();
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let o = failed_with(&mut status(&refs, false), 3);
    let out = stdout(&o);
    assert_eq!(line(&out, "missing"), "missing 0,2-4,8");
    assert_eq!(line(&out, "valid"), "valid      1,5-7,9");
    // Half the shards: about as much CPU again, by the plan's estimates.
    let remaining = line(&out, "remaining");
    assert!(
        remaining.contains("of CPU") && remaining.contains("cost estimate"),
        "{out}"
    );
    let o = failed_with(&mut status(&refs, true), 3);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["missing"], serde_json::json!([0, 2, 3, 4, 8]));
    assert_eq!(v["valid"], serde_json::json!([1, 5, 6, 7, 9]));
    assert_eq!(v["shard_count"], 10);
    let ratio = v["remaining_cost_ratio"].as_f64().unwrap();
    assert!((0.5..2.0).contains(&ratio), "{ratio}");
    assert!(v["partial"]["total"].as_u64().unwrap() < 14_200);
    assert!(v["cpu_seconds"].as_f64().unwrap() >= 0.0);
    // Merging the same files is refused, naming the first missing shards.
    let o = failed_with(nqueens().arg("merge").args(&refs), 2);
    assert!(
        stderr(&o).contains("shard 0/10, 2/10, 3/10, 4/10, 8/10 not given"),
        "{}",
        stderr(&o)
    );
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn status_lists_duplicates_and_conflicts() {
    let d = scratch("dup");
    let files: Vec<PathBuf> = (0..3).map(|k| shard(&d, 11, k, 3)).collect();
    let copy = d.join("copy.json");
    fs::copy(&files[1], &copy).unwrap();
    let mut refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    refs.push(&copy);
    // A copy of a shard is no harm: the campaign is complete.
    let o = succeeded(&mut status(&refs, false));
    let out = stdout(&o);
    assert!(line(&out, "shards").contains("3 valid, 0 missing, 1 duplicated, 0 refused"));
    let dup = line(&out, "duplicate");
    assert!(
        dup.contains("copy.json")
            && dup.contains("same results as")
            && dup.contains("s11-1-of-3.json"),
        "{dup}"
    );
    // The same shard computed again (other threads, other time) is a duplicate too.
    let again = d.join("again.json");
    succeeded(
        nqueens()
            .args(["count", "11", "-q", "-t", "2", "--shard", "1/3", "--out"])
            .arg(&again),
    );
    refs.push(&again);
    let o = status(&refs, false).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "same results: {}", stdout(&o));
    // A file of that shard with other results (a forger's, digest and all) is a conflict:
    // one of the two is wrong, and status fails the check (exit 1), naming the unit.
    let bad = forged(&d, "11", "1/3", "forged.json", 1);
    refs.push(&bad);
    let o = status(&refs, false).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    let conflict = line(&out, "CONFLICT");
    assert!(
        conflict.contains("forged.json")
            && conflict.contains("other results than")
            && conflict.contains("unit"),
        "{conflict}"
    );
    assert!(stderr(&o).contains("disagree"), "{}", stderr(&o));
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn a_shard_again_with_other_pairs_tested_is_a_duplicate_not_a_conflict() {
    // A quadrant unit's pairs tested are its method's figure, not a result: they follow the
    // quadrant table (built or not, by the memory) and at odd n the sort key its bundle
    // shared, so the same shard counted again may test other numbers of pairs. With the
    // same solutions that is a duplicate; other solutions are still a conflict. n = 15:
    // the quadrant engine (the first records are quadrant units; the F180/F90 ones last).
    let d = scratch("pairs");
    let files: Vec<PathBuf> = (0..2).map(|k| shard(&d, 15, k, 2)).collect();
    let other = common::forged_shard(&d, "15", "1/2", "other.json", |i, s, n| {
        (s, n + u64::from(i < 5))
    });
    let mut refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    refs.push(&other);
    let o = succeeded(&mut status(&refs, false));
    let out = stdout(&o);
    let dup = line(&out, "duplicate");
    assert!(
        dup.contains("other.json") && dup.contains("same solutions as") && dup.contains("pairs"),
        "{dup}"
    );
    // `merge --status` of `refs`: exit code 1, and its CONFLICT line.
    let conflict_of = |refs: &[&Path]| {
        let o = status(refs, false).output().unwrap();
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        line(&out, "CONFLICT").to_string()
    };
    let bad = forged(&d, "15", "1/2", "forged.json", 1);
    refs.push(&bad);
    let conflict = conflict_of(&refs);
    assert!(
        conflict.contains("forged.json") && conflict.contains("solutions there"),
        "{conflict}"
    );
    // Every unit's work one higher and the same solutions: the F180/F90 units (backtracking,
    // whose nodes are the same in every run) make it a conflict, and the line says nodes.
    refs.pop();
    let nodes = common::forged_shard(&d, "15", "1/2", "nodes.json", |_, s, n| (s, n + 1));
    refs.push(&nodes);
    let conflict = conflict_of(&refs);
    assert!(
        conflict.contains("nodes.json")
            && conflict.contains("nodes there")
            && conflict.contains("(the same"),
        "{conflict}"
    );
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn status_refuses_foreign_corrupt_and_misplaced_files_with_reasons() {
    let d = scratch("refused");
    let files: Vec<PathBuf> = (0..3).map(|k| shard(&d, 11, k, 3)).collect();
    // Another n; another split of the same n; a corrupted file; not JSON at all.
    let n10 = d.join("n10.json");
    fs::rename(shard(&d, 10, 0, 1), &n10).unwrap();
    let m2 = d.join("m2.json");
    fs::rename(shard(&d, 11, 0, 2), &m2).unwrap();
    let bad = d.join("bad.json");
    let text = fs::read_to_string(&files[2]).unwrap();
    fs::write(&bad, text.replacen("\"seconds\": ", "\"seconds\": 1", 1)).unwrap();
    let junk = d.join("junk.json");
    fs::write(&junk, "my notes\n").unwrap();
    fs::remove_file(&files[2]).unwrap();
    let refs: Vec<&Path> = vec![&files[0], &files[1], &n10, &m2, &bad, &junk];
    let o = failed_with(&mut status(&refs, false), 3);
    let out = stdout(&o);
    assert!(
        line(&out, "shards").contains("2 valid, 1 missing, 0 duplicated, 4 refused"),
        "{out}"
    );
    let refused: Vec<&str> = out.lines().filter(|l| l.starts_with("refused")).collect();
    assert_eq!(refused.len(), 4, "{out}");
    for (file, why) in [
        ("n10.json", "n = 10"),
        ("m2.json", "split into 2 shards"),
        ("bad.json", "digest mismatch"),
        ("junk.json", "not a valid shard file"),
    ] {
        assert!(
            refused.iter().any(|l| l.contains(file) && l.contains(why)),
            "{file}: {why} not in {refused:?}"
        );
    }
    assert_eq!(line(&out, "missing"), "missing 2");
    // No valid file at all: one line, exit 2.
    let o = failed_with(&mut status(&[&junk, &bad], false), 2);
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("no valid shard file"), "{}", stderr(&o));
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn merge_json_is_a_certificate() {
    let d = scratch("certificate");
    let files: Vec<PathBuf> = (0..2).map(|k| shard(&d, 12, k, 2)).collect();
    let o = succeeded(
        nqueens()
            .args(["merge", "--json", "--recheck", "10", "--seed", "5"])
            .args(&files),
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // The fields of before stay.
    for k in [
        "n",
        "total",
        "unique",
        "plan_id",
        "plan_version",
        "known",
        "units",
    ] {
        assert!(!v[k].is_null(), "{k}");
    }
    let c = &v["certificate"];
    assert_eq!(c["program"], env!("CARGO_PKG_VERSION"));
    assert_eq!(c["plan_id"], v["plan_id"]);
    assert_eq!(c["plan_version"], 4);
    assert_eq!(c["engine"], "quadrant");
    assert_eq!(c["known_value_confirms"], true);
    let shards = c["shards"].as_array().unwrap();
    assert_eq!(shards.len(), 2);
    for (s, f) in shards.iter().zip(&files) {
        let file: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(f).unwrap()).unwrap();
        assert_eq!(s["digest"], file["digest"]);
        assert_eq!(s["shard"], format!("{}/2", file["shard_index"]));
    }
    assert_eq!(
        c["rechecks"],
        serde_json::json!([{"method": "engine", "percent": 10.0, "seed": 5, "units": c["rechecks"][0]["units"], "differing": 0}])
    );
    // With --independent, the plain recount's seed and units.
    let o = succeeded(
        nqueens()
            .args([
                "merge",
                "--json",
                "--recheck",
                "5",
                "--independent",
                "--seed",
                "9",
            ])
            .args(&files),
    );
    assert!(
        stderr(&o).contains("--recheck 5 --independent --seed 9): all match"),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["certificate"]["rechecks"][0]["method"], "independent");
    assert_eq!(v["certificate"]["rechecks"][0]["seed"], 9);
    // A whole count carries one too, with no shards, and says no known value past 27.
    let o = nqueens().args(["count", "12", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["certificate"]["shards"], serde_json::json!([]));
    assert_eq!(v["certificate"]["known_value_confirms"], true);
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn an_independent_recheck_catches_a_forged_count() {
    // A shard whose every unit claims one solution more, with valid check values and
    // digest (rebuilt by the program from a forged checkpoint): the plain recount names it.
    let d = scratch("forged");
    let p = forged(&d, "12", "0/1", "s.json", usize::MAX);
    let o = failed_with(
        nqueens()
            .args([
                "merge",
                "--recheck",
                "1",
                "--independent",
                "--seed",
                "3",
                "-t",
                "1",
            ])
            .arg(&p),
        1,
    );
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("s.json") && e.contains("recounts independently to"),
        "{e}"
    );
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn verify_units_compares_the_engine_with_the_plain_recount() {
    for n in ["13", "16"] {
        let o = succeeded(nqueens().args(["verify", n, "--units", "6", "--seed", "11", "-t", "2"]));
        let out = stdout(&o);
        assert!(out.contains("6 of 6 units agree"), "{out}");
        assert_eq!(
            out.lines().filter(|l| l.ends_with("  ok")).count(),
            6,
            "{out}"
        );
    }
    // JSON: the seed, and every unit's two results; the same seed draws the same units.
    let json = |extra: &[&str]| {
        let o = succeeded(
            nqueens()
                .args([
                    "verify", "14", "--units", "4", "--seed", "2", "--json", "-t", "1",
                ])
                .args(extra),
        );
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let v = json(&[]);
    assert_eq!(v["seed"], 2);
    assert_eq!(v["agree"], true);
    let units = v["units"].as_array().unwrap();
    assert_eq!(units.len(), 4);
    for u in units {
        assert_eq!(u["engine_solutions"], u["plain_solutions"]);
    }
    // Times differ from run to run; the units drawn do not.
    let ids = |v: &serde_json::Value| -> Vec<u64> {
        v["units"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["id"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(ids(&json(&[])), ids(&v));
    // --cheapest 5: every unit drawn is among the cheapest 5% of the plan's estimates.
    let cheap = json(&["--cheapest", "5"]);
    assert_eq!(cheap["cheapest_percent"], 5.0);
    // Without --units, N is refused in one line.
    let o = failed_with(nqueens().args(["verify", "14"]), 2);
    assert!(stderr(&o).contains("--units"), "{}", stderr(&o));
}

/// Shard `k` of `m` of n split by `rule` (`--split`), into `dir/{rule}-{k}-of-{m}.json`.
fn shard_by(dir: &Path, n: u32, k: u32, m: u32, rule: &str) -> PathBuf {
    let p = dir.join(format!("{rule}-{k}-of-{m}.json"));
    succeeded(
        nqueens()
            .args([
                "count",
                &n.to_string(),
                "-q",
                "-t",
                "1",
                "--split",
                rule,
                "--shard",
            ])
            .arg(format!("{k}/{m}"))
            .arg("--out")
            .arg(&p),
    );
    p
}

#[test]
fn odd_boards_split_by_bundles_and_a_campaign_keeps_one_rule() {
    let d = scratch("bundles");
    let json = |p: &Path| -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap()
    };
    // n = 15 into 3 shards: by bundles unless told otherwise (format 3 names the rule);
    // by units, format 2 as before, without the field.
    let auto: Vec<PathBuf> = (0..3).map(|k| shard(&d, 15, k, 3)).collect();
    let units: Vec<PathBuf> = (0..3).map(|k| shard_by(&d, 15, k, 3, "units")).collect();
    assert_eq!(json(&auto[0])["split"], "bundles");
    assert_eq!(json(&auto[0])["format_version"], 3);
    assert_eq!(json(&units[0])["format_version"], 2);
    assert!(json(&units[0]).get("split").is_none());
    assert_ne!(json(&auto[0])["units"], json(&units[0])["units"]);
    for set in [&auto, &units] {
        let o = succeeded(nqueens().arg("merge").args(set.iter()));
        assert!(stdout(&o).contains("total    2,279,184"), "{}", stdout(&o));
    }
    let o = succeeded(&mut status(&[&auto[0], &auto[1], &auto[2]], false));
    assert!(line(&stdout(&o), "n = 15").ends_with("in 3 shards, split by bundles"));
    // One file of the other rule in a campaign is refused, naming both rules.
    let o = failed_with(&mut status(&[&auto[0], &auto[1], &units[2]], false), 3);
    let text = stdout(&o);
    let refused = line(&text, "refused");
    assert!(
        refused.contains("is of a split by units") && refused.contains("--split bundles"),
        "{refused}"
    );
    // A file that claims the other rule without its format fails its check.
    let forged = d.join("forged.json");
    let text = fs::read_to_string(&units[1]).unwrap();
    let text = text.replacen(
        "\"shard_count\": 3,",
        "\"shard_count\": 3,\n  \"split\": \"bundles\",",
        1,
    );
    fs::write(&forged, text).unwrap();
    let o = failed_with(nqueens().args(["merge"]).arg(&forged), 2);
    assert!(
        stderr(&o).contains("version 2 is split by units"),
        "{}",
        stderr(&o)
    );
    // A checkpoint begun by units resumes only with --split units.
    let ck = d.join("units.ck");
    let out = d.join("resumed.json");
    let run = |rule: Option<&str>| {
        let mut c = nqueens();
        c.args([
            "count",
            "15",
            "-q",
            "-t",
            "1",
            "--shard",
            "1/3",
            "--checkpoint",
        ])
        .arg(&ck)
        .arg("--out")
        .arg(&out);
        if let Some(r) = rule {
            c.args(["--split", r]);
        }
        c
    };
    succeeded(&mut run(Some("units")));
    let o = failed_with(&mut run(None), 2);
    assert!(
        stderr(&o).contains("resume it with --split units"),
        "{}",
        stderr(&o)
    );
    succeeded(&mut run(Some("units")));
    assert_eq!(json(&out)["units"], json(&units[1])["units"]);
    // Too many shards for the bundles: refused, pointing at --split units.
    let o = failed_with(
        nqueens()
            .args([
                "count", "15", "--split", "bundles", "--shard", "0/30000", "--out",
            ])
            .arg(d.join("x.json")),
        2,
    );
    assert!(
        stderr(&o).contains("shards by bundles, or use --split units"),
        "{}",
        stderr(&o)
    );
    fs::remove_dir_all(d).unwrap();
}
