//! The allocator's settings for the long-running language server, which opens,
//! edits and closes chats of tens of MB for hours. Measured on a 10 MB chat opened,
//! edited and closed (docs/performance.md, `hostile_input/after_close.rs`):
//!
//! - jemalloc (the default build) keeps freed pages for 10 s and purges them only
//!   while it allocates: a closed chat left 100 MB over idle. With dirty and muzzy
//!   decay 0 it gives them back as it frees: idle + 4 MB, no slower per keystroke.
//! - mimalloc (feature `mimalloc`) likewise, with purges at once and its arenas
//!   committed as used: idle + 5 to 6 MB.
//! - glibc (`--no-default-features`) keeps what the server frees in its arenas even
//!   with 2 arenas and large blocks mapped on their own (idle + 80 MB after the
//!   close); only `malloc_trim` gives it back, which needs `unsafe`.
//!
//! The allocators read these settings from the environment only as a process starts,
//! and setting them from inside needs `unsafe`, which this crate forbids: so
//! `chatmd lsp` runs itself once more with them set, unless the user set any of them.

use std::ffi::OsString;
use std::path::Path;

/// The settings, as the allocator's environment variables (jemalloc's are read with
/// the prefix tikv-jemalloc-sys builds it with).
#[cfg(feature = "mimalloc")]
pub const TUNED: &[(&str, &str)] = &[
    ("MIMALLOC_PURGE_DELAY", "0"),
    ("MIMALLOC_ARENA_EAGER_COMMIT", "0"),
];
#[cfg(all(feature = "jemalloc", not(feature = "mimalloc")))]
pub const TUNED: &[(&str, &str)] = &[("_RJEM_MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0")];
/// glibc: 2 arenas, blocks of 128 KiB or more mapped on their own, the heap's top
/// trimmed from 128 KiB (as it comes: 8 arenas a core, thresholds that grow).
#[cfg(not(any(feature = "mimalloc", feature = "jemalloc")))]
pub const TUNED: &[(&str, &str)] = &[
    ("MALLOC_ARENA_MAX", "2"),
    ("MALLOC_MMAP_THRESHOLD_", "131072"),
    ("MALLOC_TRIM_THRESHOLD_", "131072"),
];

/// Set with them: they are chatmd's own, not the user's, and agents do not get them.
const MARKER: &str = "CHATMD_MALLOC_TUNED";

/// Runs `exe` (this binary) again with [`TUNED`] set and the same arguments, when
/// the settings are not in place yet and the user set none of them. Returns only when
/// it did not (or could not: then the server runs with the allocator as it comes).
pub fn reexec_tuned(exe: &Path, args: Vec<OsString>) {
    let glibc = !cfg!(any(feature = "mimalloc", feature = "jemalloc"));
    if glibc && !cfg!(all(target_os = "linux", target_env = "gnu")) {
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
    let error = command
        .args(args)
        .envs(TUNED.iter().copied())
        .env(MARKER, "1")
        .exec();
    eprintln!("chatmd: could not restart with the allocator's settings: {error}");
}

/// The variables to take out of the environment of a program chatmd starts: the
/// settings, when chatmd set them for itself.
pub fn own_variables() -> Vec<&'static str> {
    if std::env::var_os(MARKER).is_none() {
        return Vec::new();
    }
    TUNED.iter().map(|(key, _)| *key).chain([MARKER]).collect()
}
