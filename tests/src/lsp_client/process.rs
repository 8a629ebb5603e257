//! The server as a process of its own (`chatmd lsp`), behind the same client: for tests
//! that watch the server from outside, its memory and the processes it starts.

use std::process::{ExitStatus, Stdio};

use tokio::process::Command;

use super::TestClient;

impl TestClient {
    /// Starts `command` (a language server on stdio, e.g. `chatmd lsp`) and returns a
    /// client connected to its stdin and stdout, and the process id. The process is
    /// killed when the client is dropped; [`TestClient::shutdown`] fails unless it exits
    /// with 0 after `exit`. Must run inside a tokio runtime.
    pub fn spawn_process(mut command: Command) -> std::io::Result<(TestClient, u32)> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let pid = child.id().expect("a process just started has an id");
        let mut stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let client = TestClient::spawn(move |mut input, mut output| async move {
            // The client's frames go to the process as they come; the server's end is
            // when its output closes and the process has exited.
            let to_process = tokio::spawn(async move {
                let _ = tokio::io::copy(&mut input, &mut stdin).await;
            });
            let _ = tokio::io::copy(&mut stdout, &mut output).await;
            drop(output);
            let status = child.wait().await;
            to_process.abort();
            check_exit(status);
        });
        Ok((client, pid))
    }
}

fn check_exit(status: std::io::Result<ExitStatus>) {
    match status {
        Ok(status) if status.success() => {}
        Ok(status) => panic!("the server process ended with {status}"),
        Err(error) => panic!("waiting for the server process failed: {error}"),
    }
}
