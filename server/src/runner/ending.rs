//! How a turn's process is brought to its end once the streaming stopped: let it exit
//! by itself within a grace (stdin closed, after a SIGTERM when it must stop), then
//! SIGKILL the group; and, when it exited by itself, let the session have the last word.

use std::process::ExitStatus;

use nix::sys::signal::Signal;
use std::time::Duration;

use tokio::time::{Instant, sleep_until};

use crate::agents::{ExitInfo, Session};

use super::turn::{AFTER_KILL, Stop, Turn};
use super::{Ended, Settings};

/// When a process whose stdin was just closed is asked to stop and when its group is
/// killed: one rule for a turn's process and a kept (warm) one, so that an agent that
/// saves its session as it exits gets its whole grace either way (a kept claude
/// adapter ended with the runner's 2 s grace lost the session's cost record).
pub(super) struct EndPlan {
    /// When the group gets SIGTERM (`None`: never, it is left to exit by itself).
    pub terminate_at: Option<Instant>,
    /// When the group is SIGKILLed whatever it does.
    pub deadline: Instant,
    /// Whether the agent writes its session as it exits: then what the leader started
    /// has the rest of the grace to empty the group.
    pub saving: bool,
}

impl EndPlan {
    /// The plan from now, SIGTERMing after `terminate_after` (at once for
    /// `Some(ZERO)`, never for `None`).
    pub(super) fn new(
        settings: &Settings,
        session: &dyn Session,
        terminate_after: Option<Duration>,
    ) -> EndPlan {
        let start = Instant::now();
        let deadline = start + settings.grace.max(session.exit_grace());
        EndPlan {
            terminate_at: terminate_after.map(|after| (start + after).min(deadline)),
            deadline,
            saving: !session.exit_grace().is_zero(),
        }
    }
}

impl Turn<'_> {
    /// Winds the process down the way `stop` calls for. Returns how the turn ended,
    /// or `None` when the process exited by itself (then [`Turn::finish`] decides).
    pub(super) async fn settle(&mut self, stop: Stop) -> Option<Ended> {
        match stop {
            Stop::Answered(ended) => {
                let linger = self.session.linger();
                self.wind_down(linger).await;
                Some(ended)
            }
            Stop::Cancelled => {
                self.wind_down(Some(Duration::ZERO)).await;
                Some(Ended::Cancelled)
            }
            Stop::Idle(idle) => {
                self.wind_down(Some(Duration::ZERO)).await;
                Some(Ended::IdleTimeout(idle))
            }
            Stop::Total => {
                self.wind_down(Some(Duration::ZERO)).await;
                Some(Ended::TotalTimeout(self.limits.total))
            }
            Stop::Exited => {
                // The answer is over; whatever the leader left running goes with it
                // (and closes the stderr it may hold).
                self.input.close();
                self.group.kill_and_wait(Instant::now() + AFTER_KILL).await;
                None
            }
        }
    }

    /// Closes stdin (an agent that waits for its end exits by itself) and lets the
    /// leader exit within the grace, SIGTERMing the group once `terminate_after` has
    /// passed (at once for `Some(ZERO)`, never for `None`), reading and discarding its
    /// output meanwhile so it cannot block on a full pipe; then SIGKILLs the group and
    /// reaps the leader.
    async fn wind_down(&mut self, terminate_after: Option<Duration>) {
        self.input.close();
        self.stdout.discard();
        let plan = EndPlan::new(&self.settings, self.session.as_ref(), terminate_after);
        let (deadline, terminate_at) = (plan.deadline, plan.terminate_at);
        let mut terminated = false;
        let grace = sleep_until(deadline);
        tokio::pin!(grace);
        while self.leader.is_none() {
            if !terminated && terminate_at.is_some_and(|at| at <= Instant::now()) {
                self.group.signal(Signal::SIGTERM);
                terminated = true;
            }
            let stop_at = terminate_at.filter(|_| !terminated);
            let ask_to_stop = sleep_until(stop_at.unwrap_or(deadline));
            tokio::select! {
                biased;
                status = self.child.wait() => self.leader = Some(status.ok()),
                read = self.stdout.fill(), if self.stdout_open => {
                    self.stdout_open = matches!(read, Ok(true));
                    self.stdout.discard();
                }
                () = ask_to_stop, if stop_at.is_some() => {}
                () = &mut grace => break,
            }
        }
        if (terminated || plan.saving) && self.leader.is_some() {
            // The rest of the grace is for what the leader started (an `npx` wrapper
            // exits at once; the agent under it may need the time). claude-agent-acp
            // exits before the Claude Code it ran has written the session's cost
            // record: killed then, the record was lost in 2 of 6 matrix runs.
            self.group.wait_empty(deadline).await;
        }
        self.group.signal(Signal::SIGKILL);
        if self.leader.is_none() {
            let status = tokio::time::timeout(AFTER_KILL, self.child.wait()).await;
            self.leader = Some(status.ok().and_then(Result::ok));
        }
    }

    /// The process exited by itself: the session has the last word, and when it says
    /// nothing the exit status decides.
    pub(super) async fn finish(&mut self, exit: &ExitInfo, status: Option<ExitStatus>) -> Ended {
        self.session.finish(exit, &mut self.outbox);
        let (answered, _) = self.flush().await;
        answered.unwrap_or_else(|| self.account(exit, status))
    }
}
