//! The few Linux calls chatmd needs that neither the standard library nor `nix` wraps,
//! each behind a safe function. chatmd itself forbids `unsafe` (the workspace's lint);
//! this crate is where the exceptions live, one system call per `unsafe` block.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};

/// A read lease on a file, given back when dropped.
///
/// Linux grants a read lease only while no process has the file open for writing
/// (`fcntl(F_SETLEASE, F_RDLCK)` fails with `EAGAIN` otherwise), and while it is held a
/// process that opens the file for writing waits (up to `/proc/sys/fs/lease-break-time`)
/// until it is given back. So what is read under the lease is a file no program is in
/// the middle of writing, and stays so until the lease is dropped. Hold it briefly.
#[derive(Debug)]
pub struct ReadLease<'a> {
    fd: BorrowedFd<'a>,
}

/// Takes a read lease on `file`, which must be open for reading only.
///
/// Errors: `EAGAIN`/`WouldBlock` when some process has the file open for writing;
/// `EACCES` when the file is not the user's own; `EINVAL` or `ENOSYS` where the file
/// system or the kernel has no leases (NFS, some FUSE file systems); `Unsupported` off
/// Linux.
pub fn read_lease(file: &File) -> io::Result<ReadLease<'_>> {
    let fd = file.as_fd();
    lease::take(fd)?;
    Ok(ReadLease { fd })
}

impl Drop for ReadLease<'_> {
    fn drop(&mut self) {
        lease::give_back(self.fd);
    }
}

#[cfg(target_os = "linux")]
mod lease {
    use super::*;
    use std::os::fd::AsRawFd;

    /// `F_SETSIG` (Linux's `<asm-generic/fcntl.h>`; the libc crate does not name it).
    const F_SETSIG: libc::c_int = 10;

    pub(super) fn take(fd: BorrowedFd<'_>) -> io::Result<()> {
        // A writer that opens the file while the lease is held makes the kernel signal
        // the holder, with SIGIO by default, whose default action ends the process. SIGURG
        // is ignored by default, and chatmd handles neither.
        // SAFETY: F_SETSIG takes an int; `fd` is a descriptor borrowed for the call.
        if unsafe { libc::fcntl(fd.as_raw_fd(), F_SETSIG, libc::SIGURG) } == -1 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: F_SETLEASE takes an int; `fd` is a descriptor borrowed for the call.
        if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETLEASE, libc::F_RDLCK) } == -1 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    pub(super) fn give_back(fd: BorrowedFd<'_>) {
        // Closing the descriptor would give the lease back too; the lease is given back
        // here so that it is held no longer than the borrow that took it.
        // SAFETY: F_SETLEASE takes an int; `fd` is a descriptor borrowed for the call.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETLEASE, libc::F_UNLCK) };
    }
}

#[cfg(not(target_os = "linux"))]
mod lease {
    use super::*;

    pub(super) fn take(_fd: BorrowedFd<'_>) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }

    pub(super) fn give_back(_fd: BorrowedFd<'_>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_nobody_writes_is_leased_and_one_open_for_writing_is_not() {
        let dir = std::env::temp_dir().join(format!("chatmd-os-lease-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("chat.md");
        std::fs::write(&path, "## @me\nhello\n").unwrap();
        let reader = File::open(&path).unwrap();
        match read_lease(&reader) {
            Ok(lease) => drop(lease),
            // A file system without leases (tmpfs has them; NFS does not) proves nothing here.
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => return,
            Err(e) => panic!("no lease on a file nobody writes: {e}"),
        }
        let writer = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let refused = read_lease(&reader).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::WouldBlock, "{refused}");
        drop(writer);
        drop(read_lease(&reader).expect("a lease once the writer closed the file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
