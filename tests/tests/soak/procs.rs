//! The server seen from outside, through `/proc`: its memory and the processes it left.

use std::time::{Duration, Instant};

/// The resident memory of a process, in KiB (`VmRSS` of `/proc/<pid>/status`).
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the server runs");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/<pid>/status")
}

/// The state and parent of a process, `None` when it is gone.
fn stat(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat[stat.rfind(')')? + 1..].split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((state, parent))
}

/// Whether a process runs (a zombie does not: it only waits for its parent).
pub fn alive(pid: u32) -> bool {
    stat(pid).is_some_and(|(state, _)| !matches!(state, 'Z' | 'X'))
}

/// The running descendants of `root` but its agent guard, each with its command line.
pub fn descendants(root: u32) -> Vec<(u32, String)> {
    let all: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            stat(pid)
                .filter(|(s, _)| !matches!(s, 'Z' | 'X'))
                .map(|(_, parent)| (pid, parent))
        })
        .collect();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            all.iter()
                .filter(|(_, p)| *p == parent)
                .map(|(pid, _)| *pid),
        );
        i += 1;
    }
    found[1..]
        .iter()
        // The server's agent guard runs as long as the server does; the agents it
        // started are listed.
        .filter(|&&pid| !chatmd_tests::is_agent_guard(pid))
        .map(|&pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            (pid, String::from_utf8_lossy(&cmdline).replace('\0', " "))
        })
        .collect()
}

/// Waits until `left()` is empty, checking every 20 ms for at most `within`; returns
/// what is still there then (empty: all gone).
pub async fn until_gone<T>(within: Duration, left: impl Fn() -> Vec<T>) -> Vec<T> {
    let deadline = Instant::now() + within;
    loop {
        let still = left();
        if still.is_empty() || Instant::now() >= deadline {
            return still;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
