//! The editor's pipes, read and written without tokio's blocking pool. tokio's stdin
//! and stdout do each read and write in a thread of the pool, through a buffer of up
//! to 2 MiB of their own (kept for good), and a pipe holds 64 KiB by default: a 10 MB
//! `didOpen` took 160 trips through the pool. When stdin and stdout are pipes, they
//! are read and written here as non-blocking pipes (epoll, straight into chatmd's own
//! buffers) widened to 1 MiB, which is what an unprivileged process may ask for by
//! default. Anything else (a terminal, a file) goes through tokio's stdin and stdout.

use tokio::io::{AsyncRead, AsyncWrite};

/// The size asked for; a smaller limit set by the system is asked for instead.
#[cfg(target_os = "linux")]
const WIDE: i32 = 1 << 20;

pub type Input = Box<dyn AsyncRead + Unpin + Send>;
pub type Output = Box<dyn AsyncWrite + Unpin + Send>;

/// The server's stdin and stdout. Must be called in the runtime (the pipes register
/// with its reactor).
pub fn stdio() -> (Input, Output) {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use tokio::net::unix::pipe;
        let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
        widen(stdin.as_fd(), "stdin");
        widen(stdout.as_fd(), "stdout");
        // `from_owned_fd` refuses what is not a pipe; a copy of the descriptor, so
        // the standard handles stay valid for anything else that holds them.
        let input = stdin
            .as_fd()
            .try_clone_to_owned()
            .and_then(pipe::Receiver::from_owned_fd);
        let output = stdout
            .as_fd()
            .try_clone_to_owned()
            .and_then(pipe::Sender::from_owned_fd);
        let input: Input = match input {
            Ok(pipe) => Box::new(pipe),
            Err(e) => {
                tracing::debug!("stdin is read through tokio: {e}");
                Box::new(tokio::io::stdin())
            }
        };
        let output: Output = match output {
            Ok(pipe) => Box::new(pipe),
            Err(e) => {
                tracing::debug!("stdout is written through tokio: {e}");
                Box::new(tokio::io::stdout())
            }
        };
        (input, output)
    }
    #[cfg(not(unix))]
    {
        (Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout()))
    }
}

/// Widens a pipe (either end may); anything else is left as it is.
#[cfg(unix)]
fn widen(fd: std::os::fd::BorrowedFd<'_>, name: &str) {
    #[cfg(target_os = "linux")]
    {
        use nix::fcntl::{FcntlArg, fcntl};
        let limit = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
            .map_or(WIDE, |max| max.min(WIDE));
        // Fails with EBADF or EINVAL when it is not a pipe: nothing to widen.
        match fcntl(fd, FcntlArg::F_SETPIPE_SZ(limit)) {
            Ok(size) => tracing::debug!("{name}: a pipe of {size} bytes"),
            Err(e) => tracing::debug!("{name} kept its size: {e}"),
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (fd, name);
}
