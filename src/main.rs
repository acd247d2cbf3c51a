//! The `nqueens` binary. The command lives in the library's `cli` module (built with the
//! default `cli` feature, which carries the command's dependencies), so that everything
//! else in the library can stay `pub(crate)`: see `src/architecture.md`.

fn main() -> std::process::ExitCode {
    nqueens::cli::entry::main()
}
