//! Files that are never destroyed, runs that never hang, merges that do not trust blindly:
//! one test per fault of issue 8, each in its own scratch directory (FIFOs and links are made
//! there; no test writes to a system path).

mod common;

use std::fs;
use std::io::Read;
use std::os::unix::fs::{symlink, FileTypeExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{failed_with, nqueens, succeeded};

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("safety", name)
}

fn entries(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn mkfifo(p: &Path) {
    let ok = Command::new("mkfifo").arg(p).status().unwrap().success();
    assert!(ok, "mkfifo {}", p.display());
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs nqueens with `args` and a deadline: a run that hangs is killed and fails the test.
fn run_within(args: &[&str], secs: u64) -> Output {
    let bin = assert_cmd::cargo::cargo_bin("nqueens");
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(secs) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{args:?} hung for {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Asserts exit code 2 with one line on stderr containing every `want`.
fn assert_refused(o: &Output, want: &[&str]) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(want.iter().all(|w| e.contains(w)), "{e} lacks {want:?}");
}

/// `count 8 --checkpoint p`, ready to run.
fn count_8_with(p: &Path) -> assert_cmd::Command {
    let mut c = nqueens();
    c.args(["count", "8", "--checkpoint"]).arg(p);
    c
}

/// `count 10 --shard 0/1 --out path`, ready to run.
fn shard_to(path: &Path) -> assert_cmd::Command {
    let mut c = nqueens();
    c.args(["count", "10", "--shard", "0/1", "--out"]).arg(path);
    c
}

// 1. --out never replaces what is not a regular file.

#[test]
fn out_to_a_fifo_feeds_its_reader_and_keeps_the_fifo() {
    let d = scratch("fifo");
    let p = d.join("p");
    mkfifo(&p);
    let reader = {
        let p = p.clone();
        std::thread::spawn(move || {
            let mut s = String::new();
            fs::File::open(p).unwrap().read_to_string(&mut s).unwrap();
            s
        })
    };
    // A second name for the FIFO, to release the reader if the tool never opens it.
    fs::hard_link(&p, d.join("q")).unwrap();
    let out = p.to_str().unwrap();
    let o = run_within(&["count", "10", "--shard", "0/1", "--out", out], 60);
    if !reader.is_finished() {
        // O_NONBLOCK (Linux): opening for writing then never waits for a reader.
        use std::os::unix::fs::OpenOptionsExt;
        let _ = fs::OpenOptions::new()
            .write(true)
            .custom_flags(0o4000)
            .open(d.join("q"));
    }
    assert!(o.status.success(), "{}", stderr(&o));
    let got = reader.join().unwrap();
    assert!(got.contains("\"nqueens-shard\""), "{got}");
    assert!(fs::symlink_metadata(&p).unwrap().file_type().is_fifo());
    assert_eq!(entries(&d), ["p", "q"]);
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn out_to_a_symlink_replaces_its_target_and_keeps_the_link() {
    let d = scratch("link");
    fs::write(d.join("target.json"), "old").unwrap();
    symlink("target.json", d.join("link.json")).unwrap();
    symlink("made.json", d.join("dangling.json")).unwrap();
    succeeded(&mut shard_to(&d.join("link.json")));
    succeeded(&mut shard_to(&d.join("dangling.json")));
    for l in ["link.json", "dangling.json"] {
        assert!(fs::symlink_metadata(d.join(l))
            .unwrap()
            .file_type()
            .is_symlink());
    }
    for t in ["target.json", "made.json"] {
        let text = fs::read_to_string(d.join(t)).unwrap();
        assert!(text.contains("\"nqueens-shard\""), "{t}: {text}");
    }
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn out_dash_writes_the_shard_json_to_stdout() {
    let o = succeeded(nqueens().args(["count", "10", "--shard", "0/2", "--out", "-"]));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["format"], "nqueens-shard");
    assert!(stderr(&o).contains("written to standard output"));
    assert!(!Path::new("-").exists());
}

/// A character device node made in `d` with mknod (1, minor): `full` (7) or `zero` (5).
/// None when mknod is not permitted (not root): the test then has nothing to check.
fn char_device(d: &Path, name: &str, minor: u32) -> Option<PathBuf> {
    let p = d.join(name);
    let ok = Command::new("mknod")
        .arg(&p)
        .args(["c", "1", &minor.to_string()])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(p)
}

#[test]
fn out_to_a_full_character_device_fails_with_exit_2_and_keeps_the_node() {
    let d = scratch("chardev");
    let Some(full) = char_device(&d, "full", 7) else {
        return;
    };
    let o = shard_to(&full).output().unwrap();
    assert_refused(&o, &["cannot write shard file", "full"]);
    assert!(fs::metadata(&full).unwrap().file_type().is_char_device());
    assert_eq!(entries(&d), ["full"]);
    fs::remove_dir_all(d).unwrap();
}

// 2. No temporary file is left behind.

#[test]
fn failed_out_writes_leave_no_temporary_file() {
    let d = scratch("tmp");
    fs::create_dir(d.join("adir")).unwrap();
    assert_refused(
        &shard_to(&d.join("adir")).output().unwrap(),
        &["cannot write shard file", "adir"],
    );
    assert_refused(
        &shard_to(&d.join("no").join("such")).output().unwrap(),
        &["cannot write"],
    );
    assert_eq!(entries(&d), ["adir"]);
    assert!(entries(&d.join("adir")).is_empty());
    fs::remove_dir_all(d).unwrap();
}

// 3. and 4. --checkpoint refuses what is not a checkpoint, untouched, without hanging.

#[test]
fn checkpoint_refuses_notes_without_a_newline_and_keeps_them() {
    let d = scratch("notes");
    let p = d.join("notes.txt");
    fs::write(&p, "my notes").unwrap();
    let o = count_8_with(&p).output().unwrap();
    assert_refused(&o, &["notes.txt", "not an nqueens checkpoint"]);
    assert_eq!(fs::read_to_string(&p).unwrap(), "my notes");
    let binary: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
    fs::write(&p, &binary).unwrap();
    let o = count_8_with(&p).output().unwrap();
    assert_refused(&o, &["not an nqueens checkpoint"]);
    assert_eq!(fs::read(&p).unwrap(), binary);
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn checkpoint_refuses_a_fifo_at_once() {
    let d = scratch("ckfifo");
    let p = d.join("f");
    mkfifo(&p);
    let o = run_within(&["count", "8", "--checkpoint", p.to_str().unwrap()], 20);
    assert_refused(&o, &["a FIFO", "not a regular file"]);
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn checkpoint_refuses_a_character_device_without_reading_it() {
    let d = scratch("ckdev");
    let Some(zero) = char_device(&d, "zero", 5) else {
        return;
    };
    let o = run_within(&["count", "8", "--checkpoint", zero.to_str().unwrap()], 20);
    assert_refused(&o, &["a character device"]);
    assert!(fs::metadata(&zero).unwrap().file_type().is_char_device());
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn checkpoint_refuses_an_oversized_file() {
    let d = scratch("big");
    let p = d.join("c");
    succeeded(&mut count_8_with(&p));
    let mut text = fs::read_to_string(&p).unwrap();
    let line = text.lines().nth(1).unwrap().to_string() + "\n";
    text.push_str(&line.repeat(20_000));
    fs::write(&p, &text).unwrap();
    let o = count_8_with(&p).output().unwrap();
    assert_refused(&o, &["larger than any checkpoint"]);
    assert_eq!(fs::read_to_string(&p).unwrap(), text);
    fs::remove_dir_all(d).unwrap();
}

// 5. One process per checkpoint; an identical duplicate record is kept once.

#[test]
fn a_second_process_on_a_checkpoint_is_refused_naming_the_file() {
    let d = scratch("lock");
    let p = d.join("c.ckpt");
    succeeded(&mut count_8_with(&p));
    // This test process holds the lock, as a running count would.
    let f = fs::OpenOptions::new().read(true).open(&p).unwrap();
    f.try_lock().unwrap();
    let o = count_8_with(&p).output().unwrap();
    assert_refused(&o, &["c.ckpt", "another nqueens process"]);
    drop(f);
    succeeded(&mut count_8_with(&p));
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn a_record_written_twice_by_two_runs_is_kept_once() {
    let d = scratch("dup");
    let p = d.join("c");
    let ok = |p: &Path| succeeded(nqueens().args(["count", "9", "--checkpoint"]).arg(p));
    ok(&p);
    let text = fs::read_to_string(&p).unwrap();
    let dup = text.lines().nth(1).unwrap().to_string() + "\n";
    fs::write(&p, text + &dup).unwrap();
    let o = ok(&p);
    assert!(String::from_utf8_lossy(&o.stdout).contains("352"));
    fs::remove_dir_all(d).unwrap();
}

// 6. --out may not name the checkpoint.

#[test]
fn out_naming_the_checkpoint_is_refused_before_anything_runs() {
    let d = scratch("same");
    let c = d.join("c.ckpt");
    symlink("c.ckpt", d.join("alias")).unwrap();
    for out in [
        d.join("c.ckpt"),
        d.join(".").join("c.ckpt"),
        d.join("alias"),
    ] {
        let o = nqueens()
            .args(["count", "10", "--shard", "0/2", "--checkpoint"])
            .arg(&c)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert_refused(&o, &["names the --checkpoint file"]);
    }
    assert_eq!(entries(&d), ["alias"]);
    fs::remove_dir_all(d).unwrap();
}

// 8. Huge numbers are refused when parsed.

#[test]
fn huge_worker_and_run_counts_are_refused_with_one_line() {
    let o = run_within(&["plan", "10", "--stats", "--workers", "4294967296"], 20);
    assert_refused(&o, &["worker count 4294967296 is too large"]);
    let o = run_within(&["bench", "--quick", "--runs", "4294967296"], 20);
    assert_refused(&o, &["run count 4294967296 is too large"]);
}

#[test]
fn a_long_argument_is_echoed_once() {
    let long = "x".repeat(10_000);
    let o = failed_with(nqueens().args(["count", &long]), 2);
    let e = stderr(&o);
    assert!(e.len() < 400, "{} characters: {e}", e.len());
    assert!(e.contains("not a board size"), "{e}");
}

// 9., 10. and 11. merge checks every field, reads with a bound, and can recheck.

fn shard_json(d: &Path, n: &str, spec: &str, name: &str) -> PathBuf {
    let p = d.join(name);
    succeeded(
        nqueens()
            .args(["count", n, "--shard", spec, "--out"])
            .arg(&p),
    );
    p
}

/// Edits a shard file's JSON and recomputes nothing (the digest must catch it).
fn edit(p: &Path, f: impl Fn(&mut serde_json::Value)) {
    let mut v: serde_json::Value = serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap();
    f(&mut v);
    fs::write(p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn merge_digest_covers_seconds_and_threads() {
    let d = scratch("fields");
    for (field, value) in [
        ("seconds", serde_json::json!(-5.0)),
        ("seconds", serde_json::json!(1e308)),
        ("threads", serde_json::json!(u64::MAX)),
    ] {
        let p = shard_json(&d, "9", "0/1", "s.json");
        edit(&p, |v| v[field] = value.clone());
        let o = nqueens().arg("merge").arg(&p).output().unwrap();
        assert_refused(&o, &["s.json", "digest mismatch"]);
    }
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn merge_reads_a_pipe_and_refuses_endless_input() {
    let d = scratch("pipe");
    let p = shard_json(&d, "9", "0/1", "s.json");
    let bin = assert_cmd::cargo::cargo_bin("nqueens");
    let o = succeeded(Command::new("bash").arg("-c").arg(format!(
        "'{}' merge <(cat '{}')",
        bin.display(),
        p.display()
    )));
    assert!(String::from_utf8_lossy(&o.stdout).contains("352"));
    // A valid start, then far more than any shard of n = 9 (with its plan's 352 units)
    // can hold. (The head must name the plan's units since issue 30: without them a
    // file is refused after its first 64 KiB, see tests/cli_limits.rs.)
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "'{}' merge <(printf '{{\"format\": \"nqueens-shard\", \"n\": 9, \"plan_units\": 352, '; yes ' ')",
            bin.display()
        ))
        .output()
        .unwrap();
    assert_refused(&o, &["larger than any shard of n = 9"]);
    fs::remove_dir_all(d).unwrap();
}

/// Adds one solution to a unit that has some, recomputing its check value and the digest as
/// a forger would (the digest is the program's own function, reached through a round trip:
/// the forged file is rebuilt by `nqueens` itself from an edited checkpoint).
#[test]
fn merge_recheck_catches_a_forged_shard() {
    let d = scratch("forge");
    // Every record of the checkpoint gets its nodes +1 with valid check values; resuming
    // it writes a shard file with valid digests.
    let p = common::forged_shard(&d, "8", "0/1", "s.json", |_, s, n| (s, n + 1));
    // Without --recheck the merge passes (nodes are not in the known table) ...
    succeeded(nqueens().arg("merge").arg(&p));
    // ... with it, the forged unit is named.
    // A failed check, like a count that does not match the known value: exit code 1.
    let o = failed_with(
        nqueens()
            .args(["merge", "--recheck", "1", "--seed", "7"])
            .arg(&p),
        1,
    );
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    for w in ["s.json", "unit", "recomputes to", "refusing the merge"] {
        assert!(e.contains(w), "{e} lacks {w}");
    }
    assert!(!e.contains("--help"), "{e}");
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn merge_recheck_passes_honest_shards_and_says_so() {
    let d = scratch("honest");
    let a = shard_json(&d, "9", "0/2", "a.json");
    let b = shard_json(&d, "9", "1/2", "b.json");
    let o = succeeded(
        nqueens()
            .args(["merge", "--recheck", "10", "--seed", "1"])
            .arg(&a)
            .arg(&b),
    );
    assert!(stderr(&o).contains("all match"), "{}", stderr(&o));
    fs::remove_dir_all(d).unwrap();
}

/// Renaming over a file needs only the directory's permission: a user who may not write a
/// file must not be able to replace it with `--out` (as `>` could not). As root (CI) the
/// program runs as `nobody` through runuser(1); otherwise as the user, on a read-only file.
#[test]
fn out_refuses_a_file_this_user_may_not_write_and_keeps_it() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = scratch("perm");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap(); // no sticky bit
    let theirs = dir.join("theirs.json");
    fs::write(&theirs, "theirs").unwrap();
    fs::set_permissions(&theirs, fs::Permissions::from_mode(0o444)).unwrap();
    let root = fs::metadata(&theirs).unwrap().uid() == 0;
    let bin = assert_cmd::cargo::cargo_bin("nqueens");
    let args = ["count", "8", "--shard", "0/1", "--out"];
    let out = if root {
        let Some(mut nobody) = as_nobody() else {
            eprintln!("skipped: running as root without runuser(1) to drop to nobody");
            return;
        };
        nobody.args(args).arg(&theirs).output().unwrap()
    } else {
        Command::new(&bin).args(args).arg(&theirs).output().unwrap()
    };
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = stderr(&out);
    assert!(
        err.contains("ermission denied") && err.contains("left as it is"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&theirs).unwrap(), "theirs");
    assert_eq!(
        fs::metadata(&theirs).unwrap().uid(),
        if root {
            0
        } else {
            fs::metadata(&dir).unwrap().uid()
        }
    );
    assert_eq!(entries(&dir), ["theirs.json"], "no temporary file left");
    fs::remove_dir_all(dir).unwrap();
}

/// The binary run as the user `nobody` (through runuser(1)), when this test runs as root
/// and runuser is there.
fn as_nobody() -> Option<Command> {
    use std::os::unix::fs::MetadataExt;
    let root = fs::metadata("/proc/self").ok()?.uid() == 0;
    let runuser = ["/usr/sbin/runuser", "/sbin/runuser"]
        .into_iter()
        .map(Path::new)
        .find(|p| p.exists())?;
    root.then(|| {
        let mut c = Command::new(runuser);
        c.args(["-u", "nobody", "--"])
            .arg(assert_cmd::cargo::cargo_bin("nqueens"));
        c
    })
}

// Hostile pass, fault 4: a FIFO without its other end. The wait says once what it waits
// for, the other end may come late, and a signal ends the wait: exit 130 within a second,
// the FIFO kept, no temporary file.

/// A spawned nqueens whose stderr is collected as it comes; killed (by its pid) and reaped
/// when dropped, so a failing test leaves no process behind.
struct Running {
    child: std::process::Child,
    err: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Running {
    fn start(args: &[&str]) -> Running {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let err = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let (mut from, to) = (child.stderr.take().unwrap(), err.clone());
        std::thread::spawn(move || {
            let mut buf = [0; 256];
            while let Ok(k @ 1..) = from.read(&mut buf) {
                to.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..k]));
            }
        });
        Running { child, err }
    }

    fn stderr(&self) -> String {
        self.err.lock().unwrap().clone()
    }

    /// Waits until stderr holds `want`; panics (the drop kills the child) after `secs`.
    fn expect_stderr(&self, want: &str, secs: u64) {
        let start = Instant::now();
        while !self.stderr().contains(want) {
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "no '{want}' on stderr after {secs} s: {:?}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn signal(&self, name: &str) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args([&format!("-{name}"), &pid])
            .status();
        assert!(sent.unwrap().success(), "kill -{name} {pid}");
    }

    /// The exit code and how long it took to come; panics after `secs`.
    fn exit_within(&mut self, secs: u64) -> (Option<i32>, Duration) {
        let start = Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return (s.code(), start.elapsed());
            }
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "still running {secs} s later: {:?}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn stdout(&mut self) -> String {
        let mut s = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        s
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Opens `p` with O_NONBLOCK (Linux's value): never blocks, so a test cannot hang on it.
fn open_nonblocking(p: &Path, write: bool) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .read(!write)
        .write(write)
        .custom_flags(0o4000)
        .open(p)
}

#[test]
fn a_fifo_without_its_other_end_is_named_and_sigterm_ends_the_wait() {
    if common::stop_signals_ignored_here() {
        eprintln!("skipped: SIGHUP, SIGINT or SIGTERM is ignored where this test runs");
        return;
    }
    let d = scratch("fifowait");
    let f = d.join("f");
    mkfifo(&f);
    let (fs_, ck) = (f.to_str().unwrap(), d.join("ck"));
    let ck = ck.to_str().unwrap();
    let runs: [(&[&str], &str); 4] = [
        (&["animate", "6", "--svg", fs_], "reader"),
        (&["merge", fs_], "writer"),
        (&["verify", "--bfile", fs_], "writer"),
        (
            &[
                "count",
                "12",
                "--shard",
                "0/1",
                "--checkpoint",
                ck,
                "--out",
                fs_,
            ],
            "reader",
        ),
    ];
    for (args, peer) in runs {
        let mut run = Running::start(args);
        let waiting = format!("nqueens: waiting for a {peer} on {fs_}");
        run.expect_stderr(&waiting, 30);
        run.signal("TERM");
        let (code, took) = run.exit_within(10);
        let err = run.stderr();
        assert_eq!(code, Some(130), "{args:?}: {err}");
        assert!(took < Duration::from_secs(1), "{args:?} took {took:?}");
        assert_eq!(err.matches("nqueens: waiting for").count(), 1, "{err}");
        assert!(fs::symlink_metadata(&f).unwrap().file_type().is_fifo());
        let mut want = vec!["f"];
        if args[0] == "count" {
            want.insert(0, "ck");
            assert!(err.contains("all its units are saved in"), "{err}");
        }
        assert_eq!(entries(&d), want, "{args:?} left a file behind");
    }
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn a_fifo_whose_other_end_comes_late_is_served() {
    let d = scratch("fifolate");
    let f = d.join("f");
    mkfifo(&f);
    let fs_ = f.to_str().unwrap();
    // --out: the reader comes after the notice and gets the whole shard file.
    let mut run = Running::start(&["count", "9", "--shard", "0/1", "--out", fs_]);
    run.expect_stderr("waiting for a reader", 60);
    let mut got = String::new();
    let mut reader = open_nonblocking(&f, false).unwrap();
    let start = Instant::now();
    loop {
        let mut buf = [0; 4096];
        match reader.read(&mut buf) {
            Ok(0) if got.ends_with("}\n") => break,
            Ok(k) => got.push_str(&String::from_utf8_lossy(&buf[..k])),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("{e}"),
        }
        assert!(start.elapsed() < Duration::from_secs(20), "{got}");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(run.exit_within(20).0, Some(0), "{}", run.stderr());
    assert!(got.contains("\"nqueens-shard\""), "{got}");
    // merge: the writer comes after the notice.
    let shard = fs::read(shard_json(&d, "9", "0/1", "s.json")).unwrap();
    let mut run = Running::start(&["merge", fs_]);
    run.expect_stderr("waiting for a writer", 60);
    std::io::Write::write_all(&mut open_nonblocking(&f, true).unwrap(), &shard).unwrap();
    assert_eq!(run.exit_within(20).0, Some(0), "{}", run.stderr());
    assert!(run.stdout().contains("352"));
    assert!(fs::symlink_metadata(&f).unwrap().file_type().is_fifo());
    fs::remove_dir_all(d).unwrap();
}

// Hostile pass, fault 6: a legal long name (255 bytes) is written; the temporary file beside
// it has a short name of its own.

#[test]
fn out_svg_and_checkpoint_take_a_255_byte_file_name() {
    let d = scratch("longname");
    let [a, b, c] = ["a", "b", "c"].map(|x| x.repeat(255));
    succeeded(&mut shard_to(&d.join(&a)));
    assert!(fs::read_to_string(d.join(&a))
        .unwrap()
        .contains("\"nqueens-shard\""));
    succeeded(nqueens().args(["animate", "5", "--svg"]).arg(d.join(&b)));
    assert!(fs::read_to_string(d.join(&b)).unwrap().contains("<svg"));
    for _ in 0..2 {
        succeeded(&mut count_8_with(&d.join(&c)));
    }
    assert!(fs::read_to_string(d.join(&c))
        .unwrap()
        .starts_with("nqueens-checkpoint 1 n=8 "));
    assert_eq!(entries(&d), [a, b, c], "a temporary file was left");
    fs::remove_dir_all(d).unwrap();
}

// Hostile pass, fault 7: only an empty file or one that starts with a whole header line is
// taken as a checkpoint; a prefix of the header is someone else's file.

#[test]
fn checkpoint_refuses_a_prefix_of_its_header_and_keeps_it() {
    let d = scratch("prefix");
    let p = d.join("c");
    succeeded(&mut count_8_with(&p));
    let text = fs::read_to_string(&p).unwrap();
    let header = text.lines().next().unwrap();
    for prefix in ["n", "nq", "nqueens-checkpoint 1 n=8", header] {
        fs::write(&p, prefix).unwrap();
        let o = count_8_with(&p).output().unwrap();
        assert_refused(&o, &["not an nqueens checkpoint", "left untouched"]);
        assert_eq!(fs::read_to_string(&p).unwrap(), prefix);
    }
    assert_eq!(entries(&d), ["c"]);
    fs::remove_dir_all(d).unwrap();
}

#[test]
fn an_empty_checkpoint_behind_a_link_is_started_keeping_link_and_mode() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch("empty");
    fs::write(d.join("target"), "").unwrap();
    fs::set_permissions(d.join("target"), fs::Permissions::from_mode(0o640)).unwrap();
    symlink("target", d.join("link")).unwrap();
    succeeded(&mut count_8_with(&d.join("link")));
    assert!(fs::symlink_metadata(d.join("link"))
        .unwrap()
        .file_type()
        .is_symlink());
    let text = fs::read_to_string(d.join("target")).unwrap();
    assert!(text.starts_with("nqueens-checkpoint 1 n=8 "), "{text}");
    let mode = fs::metadata(d.join("target")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
    // Resumed, not started again.
    let o = count_8_with(&d.join("link")).output().unwrap();
    assert!(stderr(&o).contains("resuming from"), "{}", stderr(&o));
    assert_eq!(entries(&d), ["link", "target"]);
    fs::remove_dir_all(d).unwrap();
}

/// Shards of one count made on machines with and without the quadrant table pass a recheck
/// on either: the quadrant engine's tested-pair figure depends on the order of its pattern
/// lists (table or search), its solutions do not, and only those are rechecked for its units.
#[test]
fn merge_recheck_accepts_shards_made_with_and_without_the_table() {
    let d = scratch("tables");
    let with = shard_json(&d, "18", "1/2", "with.json");
    let without = d.join("without.json");
    // 8M: room for the plan and the lists, not for the 8 MiB table of n = 18.
    succeeded(
        nqueens()
            .args([
                "count",
                "18",
                "--shard",
                "0/2",
                "--max-memory",
                "8M",
                "--out",
            ])
            .arg(&without),
    );
    let o = succeeded(
        nqueens()
            .args(["merge", "--recheck", "2", "--seed", "1"])
            .arg(&without)
            .arg(&with),
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("666,090,624"), "{out}");
    fs::remove_dir_all(d).unwrap();
}

/// Where stderr goes in [`with_broken_stderr`].
#[derive(Clone, Copy, Debug)]
enum BrokenStderr {
    /// A pipe whose reader was closed before the program started: every write is EPIPE.
    ClosedPipe,
    /// `/dev/full`: every write is ENOSPC.
    Full,
}

/// Runs nqueens with `args`, stdout discarded and stderr `to`, sends SIGTERM after
/// `term_after` if given, and returns the exit code (None: killed by a signal).
fn with_broken_stderr(
    args: &[&str],
    to: BrokenStderr,
    term_after: Option<Duration>,
) -> Option<i32> {
    let err: Stdio = match to {
        BrokenStderr::ClosedPipe => {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            writer.into()
        }
        BrokenStderr::Full => fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
            .into(),
    };
    let bin = assert_cmd::cargo::cargo_bin("nqueens");
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .unwrap();
    if let Some(after) = term_after {
        std::thread::sleep(after);
        let sent = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        assert!(sent.unwrap().success());
    }
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code();
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("{args:?} still running 30 s later");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Issue 30, 1: `eprintln!` panics when stderr cannot be written, and the release build
/// aborts (exit code 134; 101 in this test build). Every message is now written without
/// panicking: the exit code is the run's own.
#[test]
fn a_failed_write_to_stderr_never_aborts() {
    let d = scratch("stderr");
    let shard = d.join("s.json");
    let shard = shard.to_str().unwrap();
    for to in [BrokenStderr::ClosedPipe, BrokenStderr::Full] {
        // A usage error, a clap error, a refused file: exit code 2.
        for args in [
            &["count", "99"][..],
            &["count", "8", "--thread", "2"],
            &["count", "1..3", "--checkpoint", shard],
            &["merge", "/nonexistent/s.json"],
        ] {
            assert_eq!(
                with_broken_stderr(args, to, None),
                Some(2),
                "{args:?} {to:?}"
            );
        }
        // A shard written to stdout says its summary on stderr: the file is what matters.
        assert_eq!(
            with_broken_stderr(
                &["count", "12", "-q", "--shard", "0/2", "--out", "-"],
                to,
                None
            ),
            Some(0),
            "{to:?}"
        );
        assert_eq!(
            with_broken_stderr(
                &["count", "12", "-q", "--shard", "0/2", "--out", shard],
                to,
                None
            ),
            Some(0),
            "{to:?}"
        );
        if common::stop_signals_ignored_here() {
            eprintln!("skipped the stops: SIGHUP, SIGINT or SIGTERM is ignored here");
            continue;
        }
        // A stopped count says "stopping" and "interrupted" on stderr: exit code 130.
        assert_eq!(
            with_broken_stderr(
                &["count", "19", "-t", "1", "-q", "--engine", "backtrack"],
                to,
                Some(Duration::from_millis(500))
            ),
            Some(130),
            "{to:?}"
        );
        // A command with nothing to save, stopped: exit code 130.
        assert_eq!(
            with_broken_stderr(
                &["verify", "--max", "22", "-t", "1"],
                to,
                Some(Duration::from_millis(500))
            ),
            Some(130),
            "{to:?}"
        );
    }
    fs::remove_dir_all(d).unwrap();
}

/// Issue 30, 8: as root, `--out` and `--svg` replaced another user's file by one of root's
/// (the checkpoint already gave a replaced file back to its owner). The replaced file keeps
/// its owner, group and mode.
#[test]
fn a_replaced_file_keeps_its_owner_and_mode() {
    use std::os::unix::fs::{chown, MetadataExt, PermissionsExt};
    let d = scratch("owner");
    if fs::metadata(&d).unwrap().uid() != 0 {
        eprintln!("skipped: only root can give a file to another user");
        return;
    }
    // nobody's ids: 65534 on Debian and most Linux systems.
    let (uid, gid) = (65534, 65534);
    let svg = d.join("owned.svg");
    let json = d.join("owned.json");
    for p in [&svg, &json] {
        fs::write(p, "k").unwrap();
        chown(p, Some(uid), Some(gid)).unwrap();
        fs::set_permissions(p, fs::Permissions::from_mode(0o600)).unwrap();
    }
    succeeded(nqueens().args(["animate", "6", "--svg"]).arg(&svg));
    succeeded(
        nqueens()
            .args(["count", "8", "-q", "--shard", "0/1", "--out"])
            .arg(&json),
    );
    for p in [&svg, &json] {
        let m = fs::metadata(p).unwrap();
        assert!(m.len() > 1, "{} was not replaced", p.display());
        assert_eq!((m.uid(), m.gid()), (uid, gid), "{}", p.display());
        assert_eq!(m.permissions().mode() & 0o7777, 0o600, "{}", p.display());
    }
    assert_eq!(entries(&d), ["owned.json", "owned.svg"]);
    fs::remove_dir_all(d).unwrap();
}

/// Issue 30, 10: `--out ro/f` in a directory this user may not write blamed the file
/// ("cannot write shard file ro/f: Permission denied"), which does not exist: the
/// directory is what refused, and the message names it.
#[test]
fn out_in_a_read_only_directory_names_the_directory() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let d = scratch("rodir");
    fs::set_permissions(&d, fs::Permissions::from_mode(0o755)).unwrap();
    let ro = d.join("ro");
    fs::create_dir(&ro).unwrap();
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
    let f = ro.join("f");
    let args = ["count", "8", "-q", "--shard", "0/1", "--out"];
    let root = fs::metadata(&d).unwrap().uid() == 0;
    let o = match as_nobody() {
        Some(mut nobody) => nobody.args(args).arg(&f).output().unwrap(),
        None if root => {
            eprintln!("skipped: running as root without runuser(1) to drop to nobody");
            fs::remove_dir_all(d).unwrap();
            return;
        }
        // This user cannot write a 555 directory either.
        None => nqueens().args(args).arg(&f).output().unwrap(),
    };
    let want = format!(
        "the directory {} does not let this user create files",
        ro.display()
    );
    assert_refused(&o, &[&want, "ermission denied"]);
    assert!(!f.exists());
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).unwrap();
    fs::remove_dir_all(d).unwrap();
}
