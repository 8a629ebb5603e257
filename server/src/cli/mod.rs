//! The command line: `chatmd lsp`, `chatmd members`, `--version`, `--help`.

/// Runs the command line and returns the process exit code.
pub fn main() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}
