//! The `chatmd` binary: everything lives in the library so tests can reach it.

// The allocator: jemalloc by default (it gives a closed chat's memory back; glibc's
// keeps it), mimalloc when that feature is on, glibc's without either (the benchmark
// builds each to compare them; see docs/performance.md).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
#[cfg(all(feature = "jemalloc", not(feature = "mimalloc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    // `chatmd __agent-guard <pid>`: this process starts and guards a chatmd's agents.
    if let Some(code) = chatmd::runner::run_if_guard(std::env::args_os().skip(1)) {
        std::process::exit(code);
    }
    // Every agent this process starts dies with it, even when it is SIGKILLed. Through
    // /proc/self/exe, the guard is this very binary even if the file was replaced
    // (without /proc, agents start directly and die only with a clean exit).
    let this = std::path::Path::new("/proc/self/exe");
    // The language server runs for hours on large chats: its allocator set to give
    // freed memory back (see malloc.rs). Short commands keep it as it comes.
    if this.exists() && std::env::args_os().nth(1).as_deref() == Some(std::ffi::OsStr::new("lsp")) {
        chatmd::malloc::reexec_tuned(this, std::env::args_os().collect());
    }
    if this.exists() {
        chatmd::runner::guard_agents_with(this);
        // The small guard built beside this binary, used when it is of this build.
        if let Ok(exe) = std::fs::read_link(this) {
            chatmd::runner::prefer_small_guard(exe.with_file_name("chatmd-agent-guard"));
        }
    }
    chatmd::cli::main()
}
