//! The user's private folder for chatmd's runtime files (chat locks, what chatmd
//! learned of the programs beside it): `/run/user/<uid>/chatmd` where that runtime
//! folder exists (`$XDG_RUNTIME_DIR` points to it), else `/tmp/chatmd-<uid>`. The
//! environment is not read: an editor started from a desktop and a terminal over ssh
//! must find the same folder. Each folder is made mode 0700, and one found there must
//! be the user's own and private: in `/tmp`, another user could have made it first.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The folder `name` in the user's private runtime folder, made if needed; the error
/// names the folder that could not be made or is not private.
pub fn private_folder(name: &str) -> Result<PathBuf, (PathBuf, std::io::Error)> {
    let uid = nix::unistd::getuid().as_raw();
    let runtime = PathBuf::from(format!("/run/user/{uid}"));
    let base = if runtime.is_dir() {
        runtime.join("chatmd")
    } else {
        PathBuf::from(format!("/tmp/chatmd-{uid}"))
    };
    let folder = base.join(name);
    for dir in [&base, &folder] {
        make_private(dir, uid).map_err(|error| (dir.clone(), error))?;
    }
    Ok(folder)
}

/// Makes `dir` (mode 0700) or checks that the one there is the user's own and private.
fn make_private(dir: &Path, uid: u32) -> std::io::Result<()> {
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
        return Err(std::io::Error::other(
            "it is not a private folder of this user (owned by another user, shared, or a link)",
        ));
    }
    Ok(())
}

/// FNV-1a: a stable hash (the names of runtime files must be the same in every process
/// and every version of chatmd).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}
