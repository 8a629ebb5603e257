//! The `chatmd` binary: everything lives in the library so tests can reach it.
fn main() -> std::process::ExitCode {
    // `chatmd __agent-guard ...`: this process stands between chatmd and one agent.
    if let Some(code) = chatmd::runner::run_if_guard(std::env::args_os().skip(1)) {
        std::process::exit(code);
    }
    // Every agent this process starts dies with it, even when it is SIGKILLed. Through
    // /proc/self/exe, the guard is this very binary even if the file was replaced
    // (without /proc, agents start directly and die only with a clean exit).
    let this = std::path::Path::new("/proc/self/exe");
    if this.exists() {
        chatmd::runner::guard_agents_with(this);
    }
    chatmd::cli::main()
}
