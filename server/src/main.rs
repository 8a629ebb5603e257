//! The `chatmd` binary: everything lives in the library so tests can reach it.
fn main() -> std::process::ExitCode {
    // `chatmd __agent-guard ...`: this process stands between chatmd and one agent.
    if let Some(code) = chatmd::runner::run_if_guard(std::env::args_os().skip(1)) {
        std::process::exit(code);
    }
    // Every agent this process starts dies with it, even when it is SIGKILLed. Through
    // /proc/self/exe, the guard is this very binary even if the file was replaced.
    chatmd::runner::guard_agents_with("/proc/self/exe");
    chatmd::cli::main()
}
