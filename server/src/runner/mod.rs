//! The process runner: executes one agent turn that an adapter described (an
//! [`Invocation`] and its [`Session`]): feeds the session the agent's output and the
//! caller's commands, writes what the session writes to the agent's stdin, streams the
//! session's events, and ends the turn with no process left behind. Also the signals
//! that end the whole process (`signals.rs`), shared by `chatmd send` and `chatmd lsp`.

mod ending;
mod error;
mod group;
mod guard;
mod guard_client;
#[cfg(target_os = "linux")]
mod guard_loop;
mod guard_probe;
mod guard_wire;
mod input;
mod kept;
pub mod lines;
mod memory;
mod private_folder;
mod record;
mod redact;
mod resolve;
pub(crate) mod signals;
mod stderr;
mod stream;
mod turn;

pub use record::RECORD_VAR;

use std::fmt;
use std::time::Duration;

use tokio::sync::mpsc::Sender;
use tokio_util::sync::CancellationToken;

use crate::agents::{AgentEvent, ExitInfo, Headless, Invocation, OutputParser};
use crate::document::units;

pub use error::RunError;
pub use guard::{GUARD_ARG, guard_agents_with, prefer_small_guard, run_if_guard};
pub use guard_client::start_early as start_guard_early;
pub use kept::{Kept, run_kept};
pub use memory::groups_memory;
pub use private_folder::{fnv1a, private_folder};
pub use turn::{Caller, run_session, run_session_keeping};

/// How a turn ended and what it cost.
#[derive(Debug)]
pub struct RunOutcome {
    pub ended: Ended,
    /// How the process exited (`code: None` when killed by a signal); `None` when it
    /// was never spawned.
    pub exit: Option<ExitInfo>,
    pub stats: Stats,
}

impl RunOutcome {
    /// Whether the agent finished its answer.
    pub fn is_success(&self) -> bool {
        matches!(self.ended, Ended::Completed)
    }
}

/// Why a turn is over.
#[derive(Debug)]
pub enum Ended {
    /// The agent finished its answer (the session emitted `Done`, or, for a CLI without
    /// a completion event, the process exited with code 0).
    Completed,
    /// The agent failed: the session's `Failed` message, or the runner's account of
    /// the exit (code or signal, and the last stderr line).
    Failed(String),
    /// The turn was cancelled (the token, or a `Cancel` command), whether the agent
    /// ended it its own way or was stopped.
    Cancelled,
    /// Nothing on stdout for this long.
    IdleTimeout(Duration),
    /// The turn took this long in all.
    TotalTimeout(Duration),
    /// Nothing was spawned.
    SpawnFailed(RunError),
}

impl fmt::Display for Ended {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ended::Completed => f.write_str("the agent finished its answer"),
            Ended::Failed(message) => f.write_str(message),
            Ended::Cancelled => f.write_str("the turn was cancelled"),
            Ended::IdleTimeout(idle) => write!(
                f,
                "the agent printed nothing for {} (idle timeout); it was stopped",
                units::duration(*idle)
            ),
            Ended::TotalTimeout(total) => write!(
                f,
                "the turn took longer than {} (total timeout); the agent was stopped",
                units::duration(*total)
            ),
            Ended::SpawnFailed(error) => write!(f, "{error}"),
        }
    }
}

/// What went through the runner. Its own memory is bounded: one read chunk, the
/// partial-line buffer (`peak_line_buffer`, at most `Settings::max_line`), the line
/// being parsed, and the stderr tail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub stdout_bytes: u64,
    /// Lines given to the session.
    pub lines: u64,
    /// Lines over `Settings::max_line`, skipped with a `Notice`.
    pub skipped_long_lines: u64,
    /// The longest line given to the session, in bytes.
    pub longest_line: usize,
    /// The most the partial-line buffer held (lines that spanned reads).
    pub peak_line_buffer: usize,
    pub stderr_bytes: u64,
    pub elapsed: Duration,
}

/// The runner's own knobs (the turn's limits are in the invocation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// After a completion event, or after SIGTERM, how long the process has to exit
    /// by itself before the group is SIGKILLed.
    pub grace: Duration,
    /// Longest stdout line given to the session; a longer one is skipped.
    pub max_line: usize,
    /// Bytes and lines of stderr kept for error messages.
    pub stderr_tail_bytes: usize,
    pub stderr_tail_lines: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            grace: Duration::from_secs(2),
            max_line: 16 * 1024 * 1024,
            stderr_tail_bytes: 64 * 1024,
            stderr_tail_lines: 50,
        }
    }
}

/// Runs one turn of a headless CLI (a line parser, as a [`Headless`] session) with the
/// default [`Settings`] and no commands; see [`run_session`].
pub async fn run(
    invocation: Invocation,
    parser: Box<dyn OutputParser>,
    events: Sender<AgentEvent>,
    cancel: CancellationToken,
) -> RunOutcome {
    run_with(invocation, parser, events, cancel, Settings::default()).await
}

/// [`run`] with explicit [`Settings`].
pub async fn run_with(
    invocation: Invocation,
    parser: Box<dyn OutputParser>,
    events: Sender<AgentEvent>,
    cancel: CancellationToken,
    settings: Settings,
) -> RunOutcome {
    // Nobody sends commands: the sender is dropped at once.
    let (_, mut commands) = tokio::sync::mpsc::channel(1);
    let caller = Caller {
        events,
        commands: &mut commands,
        cancel,
    };
    run_session(
        invocation,
        Box::new(Headless::new(parser)),
        caller,
        settings,
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_limit() {
        assert_eq!(
            Ended::IdleTimeout(Duration::from_secs(600)).to_string(),
            "the agent printed nothing for 10 min (idle timeout); it was stopped"
        );
    }
}
