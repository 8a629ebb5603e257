//! glibc's allocator settings for the long-running language server. As it comes,
//! glibc keeps what the server frees: up to 8 arenas a core, and a 10 MB chat's
//! buffers (its text, outline answers of several MB) below a threshold that grows
//! with every large block freed, so they are never given back. Measured on the
//! bench's 10 MB chat (docs/performance.md), 2 arenas and blocks of 128 KiB or more
//! mapped on their own (and the heap's top trimmed from 128 KiB) kept 25 MB less
//! after edits and after the close. A build with the feature `mimalloc` or
//! `jemalloc` uses that allocator and none of this; docs/performance.md has the
//! measurements of each and the choice.
//!
//! glibc reads these settings from the environment only as a process starts, and
//! setting them from inside (`mallopt`) needs `unsafe`, which this crate forbids: so
//! `chatmd lsp` runs itself once more with them set, unless the user set any of them.

use std::ffi::OsString;
use std::path::Path;

/// The settings, as glibc's environment variables.
pub const TUNED: [(&str, &str); 3] = [
    ("MALLOC_ARENA_MAX", "2"),
    ("MALLOC_MMAP_THRESHOLD_", "131072"),
    ("MALLOC_TRIM_THRESHOLD_", "131072"),
];

/// Set with them: they are chatmd's own, not the user's, and agents do not get them.
const MARKER: &str = "CHATMD_MALLOC_TUNED";

/// Runs `exe` (this binary) again with [`TUNED`] set and the same arguments, when
/// the settings are not in place yet and the user set none of them. Returns only when
/// it did not (or could not: then the server runs with glibc as it comes).
pub fn reexec_tuned(exe: &Path, args: Vec<OsString>) {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return;
    }
    let set = |key: &str| std::env::var_os(key).is_some();
    if set(MARKER) || TUNED.iter().any(|(key, _)| set(key)) {
        return;
    }
    use std::os::unix::process::CommandExt;
    let mut args = args.into_iter();
    let mut command = std::process::Command::new(exe);
    if let Some(name) = args.next() {
        command.arg0(name);
    }
    let error = command.args(args).envs(TUNED).env(MARKER, "1").exec();
    eprintln!("chatmd: could not restart with tuned malloc settings: {error}");
}

/// The variables to take out of the environment of a program chatmd starts: the
/// settings, when chatmd set them for itself.
pub fn own_variables() -> Vec<&'static str> {
    if std::env::var_os(MARKER).is_none() {
        return Vec::new();
    }
    TUNED.iter().map(|(key, _)| *key).chain([MARKER]).collect()
}
