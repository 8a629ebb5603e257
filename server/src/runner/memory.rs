//! How much memory agent process groups use: the resident memory of every process in
//! each group, read from `/proc` in one pass (the cap on kept agents' memory asks it
//! after each answered turn).

use std::collections::HashMap;

/// The resident bytes of each process group in `groups` (0 for a group with no
/// process, or where there is no `/proc`): the sum over its processes, so pages they
/// share (the agent guard's binary with chatmd's) count once per process.
pub fn groups_memory(groups: &[i32]) -> Vec<u64> {
    let mut bytes: HashMap<i32, u64> = groups.iter().map(|&g| (g, 0)).collect();
    for (pid, _, group) in super::group::processes().into_iter().flatten() {
        if let Some(total) = bytes.get_mut(&group) {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status"));
            *total += status.as_deref().map_or(0, resident_bytes);
        }
    }
    groups.iter().map(|g| bytes[g]).collect()
}

/// The resident memory (`VmRSS`) of a `/proc/<pid>/status`; 0 for a process that has
/// none (a zombie).
fn resident_bytes(status: &str) -> u64 {
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_resident_memory_of_a_status() {
        let status = "Name:\tfake-agent\nVmPeak:\t  9000 kB\nVmRSS:\t    5120 kB\nThreads:\t1\n";
        assert_eq!(resident_bytes(status), 5 << 20);
        assert_eq!(resident_bytes("Name:\tzombie\nState:\tZ (zombie)\n"), 0);
    }

    #[test]
    fn this_process_group_uses_memory_and_a_missing_one_none() {
        let own = nix::unistd::getpgrp().as_raw();
        let sizes = groups_memory(&[own, i32::MAX]);
        assert!(sizes[0] > 0, "{sizes:?}");
        assert_eq!(sizes[1], 0);
    }
}
