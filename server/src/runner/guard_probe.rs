//! Whether the small guard program beside chatmd speaks this build's arguments.
//!
//! Asking it means starting it (`<guard> __agent-guard-protocol`), which every
//! `chatmd send` did before its first agent: a whole process start, about 1.5 ms of a
//! send's overhead. The answer depends only on the guard's file, so it is asked once
//! per file: a yes is remembered as an empty file in the user's private runtime folder
//! (`guards/`), named by the file's device, inode, size, modification and change
//! times and the protocol asked for. A guard installed anew, or rewritten in place, is
//! another name (its change time moves with any write), and is asked again. Only the
//! user can write in that folder; what a wrong entry could do is start a guard that
//! does not understand the arguments, which then fails the turn with its usage line.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::private_folder::{fnv1a, private_folder};

/// The guard program at `path` as a path that stays this very file (its open file
/// under `/proc/self/fd`, which a started process inherits until its own program runs)
/// with the file kept open, when it answers `protocol_arg` with `protocol` (asked of
/// the program, or remembered from an earlier answer for this very file).
pub(super) fn pinned_if_ours(
    path: &Path,
    protocol_arg: &str,
    protocol: &str,
) -> Option<(PathBuf, std::fs::File)> {
    pinned_if_answers(path, protocol_arg, protocol, private_folder("guards").ok())
}

/// The same, with the answers remembered in `answers` (none: asked every time).
fn pinned_if_answers(
    path: &Path,
    protocol_arg: &str,
    protocol: &str,
    answers: Option<PathBuf>,
) -> Option<(PathBuf, std::fs::File)> {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).ok()?;
    let pinned = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    let remembered = answers
        .zip(file.metadata().ok())
        .map(|(folder, meta)| folder.join(answer_name(&meta, protocol)));
    if remembered.as_deref().is_some_and(|known| known.exists()) {
        return Some((pinned, file));
    }
    let answer = std::process::Command::new(&pinned)
        .arg(protocol_arg)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    match answer {
        Ok(out) if out.status.success() && out.stdout == protocol.as_bytes() => {
            if let Some(known) = remembered {
                // Not remembered (a read-only runtime folder): asked again next time.
                let _ = std::fs::File::create(known);
            }
            Some((pinned, file))
        }
        _ => {
            tracing::info!(
                guard = %path.display(),
                "the agent guard beside chatmd is of another build: chatmd guards its agents itself"
            );
            None
        }
    }
}

/// The name a yes from the guard file `meta` describes is remembered under.
fn answer_name(meta: &std::fs::Metadata, protocol: &str) -> String {
    let identity = format!(
        "{} {} {} {}.{} {}.{} {protocol}",
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec()
    );
    format!("{:016x}", fnv1a(identity.as_bytes()))
}

#[cfg(test)]
#[path = "guard_probe_tests.rs"]
mod tests;
