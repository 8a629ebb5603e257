//! Test support for chatmd's end-to-end tests: an in-process LSP client that drives the real
//! server over in-memory pipes with real `Content-Length` framing, and the fake agent CLI.

pub mod fake_agent;
pub mod lsp_client;
pub mod sim_editor;
pub mod views;

pub use lsp_client::{DEFAULT_TIMEOUT, TestClient, file_path, file_uri};

/// Waits for `child` to exit, at most `limit`; past it the child is killed and reaped,
/// and `None` says it had to be. For tests that drive a program on a pseudo-terminal,
/// where `wait_with_output` cannot be used.
pub fn wait_or_kill(
    child: &mut std::process::Child,
    limit: std::time::Duration,
) -> Option<std::process::ExitStatus> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            return Some(status);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        // Polling: std has no wait with a timeout.
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Whether process `pid` is a chatmd's agent guard (`<guard> __agent-guard <pid>`): the
/// one child a server or `chatmd send` keeps for as long as it runs, which starts its
/// agents. Tests that look for processes left behind look below it.
pub fn is_agent_guard(pid: u32) -> bool {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    cmdline
        .split(|&b| b == 0)
        .nth(1)
        // `chatmd::runner::GUARD_ARG` (this library does not link chatmd).
        .is_some_and(|arg| arg == b"__agent-guard")
}
