//! Shared helpers for the CLI tests.

/// The built `nqueens` binary, ready to take arguments.
pub fn nqueens() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("nqueens").expect("the nqueens binary is built by cargo test")
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
