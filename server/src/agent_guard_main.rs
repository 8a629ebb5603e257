//! `chatmd-agent-guard`: the agent guard (`runner/guard.rs`) as a binary of its own. One
//! runs beside every chatmd that has started an agent, so it is kept small: the
//! `chatmd` binary as guard costs about 5 MB of RSS (its relocated data and
//! allocator), this one about 2 MB. chatmd uses it when it lies beside the `chatmd`
//! binary and is of the same build, else it is its own guard.

fn main() {
    let code = chatmd::runner::run_if_guard(std::env::args_os().skip(1)).unwrap_or_else(|| {
        eprintln!(
            "chatmd-agent-guard: chatmd starts this program to start its agents; it is not run by hand"
        );
        2
    });
    std::process::exit(code);
}
