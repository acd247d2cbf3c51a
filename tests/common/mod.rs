//! Shared helpers for the CLI tests.

/// The built `nqueens` binary, ready to take arguments.
pub fn nqueens() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("nqueens").expect("the nqueens binary is built by cargo test")
}

/// A command a test runs to its end: the binary through assert_cmd ([`nqueens`]), or a
/// `std` command (a shell that execs it, one with a redirected stdout).
pub trait Run: std::fmt::Debug {
    /// Runs it, capturing stdout and stderr (unless redirected), and waits for its end.
    fn run(&mut self) -> std::io::Result<std::process::Output>;
}

impl Run for assert_cmd::Command {
    fn run(&mut self) -> std::io::Result<std::process::Output> {
        self.output()
    }
}

impl Run for std::process::Command {
    fn run(&mut self) -> std::io::Result<std::process::Output> {
        self.output()
    }
}

/// Runs `cmd` to its end and asserts that it succeeded (exit code 0), showing the command,
/// how it ended and its stderr if not; returns its output. The one "run, check, show why"
/// sequence of the CLI tests: `let out = succeeded(nqueens().args(["count", "8"]));`.
#[allow(dead_code)] // not every test file runs a command that must succeed
#[track_caller]
pub fn succeeded(cmd: &mut impl Run) -> std::process::Output {
    let out = cmd.run().expect("the command starts");
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs `cmd` to its end and asserts that it exited with `code`, showing the command, how it
/// ended and its stderr if not; returns its output (for the test to read the message).
#[allow(dead_code)] // not every test file expects a failure
#[track_caller]
pub fn failed_with(cmd: &mut impl Run, code: i32) -> std::process::Output {
    let out = cmd.run().expect("the command starts");
    assert_eq!(
        out.status.code(),
        Some(code),
        "{cmd:?} ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A fresh, empty scratch directory for one test: `nqueens-SUITE-PID-NAME` in the temp
/// directory, removed first if an earlier run left it.
#[allow(dead_code)] // not every test file makes directories
pub fn scratch(suite: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("nqueens-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// FNV-1a, 64 bits, written out here (the program's copy is not public): the check value a
/// forger would recompute for a checkpoint record. Offset basis and prime are the
/// published ones (FNV-1a of "" is 0xcbf29ce484222325).
#[allow(dead_code)] // only the tests that forge records use it
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// True if this test process ignores SIGHUP, SIGINT or SIGTERM (`nohup cargo test`, a
/// background job of a script): the programs it starts inherit that, and the command then
/// keeps every signal's action, so a test of what SIGTERM does has nothing to test.
#[allow(dead_code)] // only the tests that send SIGTERM use it
pub fn stop_signals_ignored_here() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let ignored = status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .unwrap_or(0);
    // Bit s - 1 for signal s: SIGHUP 1, SIGINT 2, SIGTERM 15.
    [1, 2, 15].iter().any(|s| ignored & (1 << (s - 1)) != 0)
}

/// A checkpoint's text with every record's counts changed by `change(index, solutions,
/// nodes)`, check values and digests recomputed as a forger would (the header is kept).
#[allow(dead_code)] // only the tests that forge records use it
pub fn forge_checkpoint(text: &str, change: impl Fn(usize, u64, u64) -> (u64, u64)) -> String {
    let mut lines = text.lines();
    let mut forged = lines.next().unwrap_or("").to_string() + "\n";
    for (i, l) in lines.enumerate() {
        let f: Vec<&str> = l.split(' ').collect();
        let (s, n) = change(i, f[1].parse().unwrap(), f[2].parse().unwrap());
        let body = format!(
            "{} {s} {n} {}/{},{}/{}",
            f[0],
            s % 13,
            s % 15,
            n % 13,
            n % 15
        );
        let digest = fnv1a64(body.as_bytes()) as u32;
        forged.push_str(&format!("{body} {digest:08x}\n"));
    }
    forged
}

/// Shard `spec` of n written to `dir/name` by the program itself, from a checkpoint whose
/// records were changed by `change` (see [`forge_checkpoint`]): a shard file with valid
/// check values and digest and forged counts, as a forger or a broken counter would make.
#[allow(dead_code)] // only the tests that forge shards use it
pub fn forged_shard(
    dir: &std::path::Path,
    n: &str,
    spec: &str,
    name: &str,
    change: impl Fn(usize, u64, u64) -> (u64, u64),
) -> std::path::PathBuf {
    let ck = dir.join(format!("{name}.ck"));
    let p = dir.join(name);
    let run = || {
        succeeded(
            nqueens()
                .args(["count", n, "-q", "--shard", spec, "--checkpoint"])
                .arg(&ck)
                .arg("--out")
                .arg(&p),
        );
    };
    run();
    let text = std::fs::read_to_string(&ck).unwrap();
    std::fs::write(&ck, forge_checkpoint(&text, change)).unwrap();
    std::fs::remove_file(&p).unwrap();
    run();
    p
}
