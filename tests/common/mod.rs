//! Shared helpers for the CLI tests.

/// The built `nqueens` binary, ready to take arguments.
pub fn nqueens() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("nqueens").expect("the nqueens binary is built by cargo test")
}
