//! The agent's stdin: a pipe fed by a task of its own, so that a child that does not
//! read cannot block the turn, and closed when the session says so (a headless CLI
//! reads its prompt to the end of file) or when the turn ends.

use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;

/// The writing end of the agent's stdin. Unbounded: every write answers a line the
/// agent printed or a command of the user, so the queue holds no more than they asked.
pub(super) struct Input {
    queue: Option<UnboundedSender<Vec<u8>>>,
    task: Option<JoinHandle<()>>,
}

impl Input {
    /// The writer of `pipe`; without a pipe (stdin on `/dev/null`) writes go nowhere.
    pub(super) fn new(pipe: Option<ChildStdin>) -> Input {
        match pipe {
            Some(pipe) => {
                let (queue, pending) = unbounded_channel();
                Input {
                    queue: Some(queue),
                    task: Some(tokio::spawn(feed(pipe, pending))),
                }
            }
            None => Input {
                queue: None,
                task: None,
            },
        }
    }

    /// Queues `bytes`; they are dropped once stdin is closed.
    pub(super) fn write(&mut self, bytes: Vec<u8>) {
        let sent = match &self.queue {
            Some(queue) => queue.send(bytes).is_ok(),
            None => false,
        };
        if !sent {
            tracing::debug!("the agent's stdin is closed; input dropped");
        }
    }

    /// Closes stdin once what is queued is written.
    pub(super) fn close(&mut self) {
        self.queue = None;
    }

    /// Stops writing at once (the turn is over; the process group is gone).
    pub(super) fn abort(&mut self) {
        self.queue = None;
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Writes what is queued until the queue closes, then drops the pipe, which closes
/// the agent's stdin. A child that exits without reading breaks the pipe, which only
/// ends this task.
async fn feed(mut pipe: ChildStdin, mut pending: UnboundedReceiver<Vec<u8>>) {
    while let Some(bytes) = pending.recv().await {
        if let Err(error) = pipe.write_all(&bytes).await {
            if error.kind() != std::io::ErrorKind::BrokenPipe {
                tracing::debug!(%error, "writing to the agent's stdin failed");
            }
            return;
        }
    }
}
