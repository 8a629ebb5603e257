//! One warm member's turn: on the member's kept process when it serves the turn
//! ([`Runs::take_kept`](crate::turns::runs::Runs::take_kept): its session, or a new one
//! on its connection), else cold as `turns/resume.rs` runs it (resume or fork of the
//! session, a new one when the agent lost it), with the process kept afterwards when
//! the turn is answered. A headless claude member's cold turn is in `claude.rs`.

use tokio::sync::mpsc::{Receiver, Sender};
use tokio_util::sync::CancellationToken;

use super::WarmTurn;
use crate::agents::acp::AcpSession;
use crate::agents::{AgentEntry, AgentEvent, Invocation, SessionCommand, Stdin};
use crate::runner::{self, Caller, RunOutcome};
use crate::turns::resume::Resuming;

/// Runs the turn planned as `invocation` (with `fallback`, the same turn as a new
/// session, when it continues `resuming`) for `warm`'s member.
pub(in crate::turns) async fn run_turn(
    warm: WarmTurn,
    (invocation, fallback, resuming): (Invocation, Option<Invocation>, Option<Resuming>),
    entry: &AgentEntry,
    events: Sender<AgentEvent>,
    commands: &mut Receiver<SessionCommand>,
    cancel: CancellationToken,
) -> RunOutcome {
    let caller = Caller {
        events,
        commands,
        cancel,
    };
    let runs = &warm.runs;
    let further = entry.adapter.further_prompts();
    let (invocation, fallback) = match further {
        Some(further) => super::headless::reading_prompts(further, invocation, fallback),
        None => (invocation, fallback),
    };
    let mut kept = runs.take_kept(&warm.wanted).await;
    // A turn that starts afresh runs on the kept connection only when the agent can
    // make a new session there.
    if warm.wanted.afresh
        && let Some(refused) = kept.take_if(|kept| !kept.afresh())
    {
        refused.end().await;
    }
    if let Some(kept) = kept {
        tracing::debug!(member = %warm.wanted.key.member, "the member's turn runs on its warm process");
        let (outcome, kept) = runner::run_kept(kept, &invocation, caller, true).await;
        if let Some(kept) = kept {
            runs.keep(&warm.wanted, kept);
        }
        return outcome;
    }
    if further.is_some() {
        return super::headless::run_cold(&warm, (invocation, fallback, resuming), entry, caller)
            .await;
    }
    let (invocation, session) = match (fallback, resuming, invocation.stdin.clone()) {
        (Some(fallback), Some(resuming), Stdin::Prompt(since)) => {
            let acp = AcpSession::for_turn(&fallback);
            let acp = match resuming.fork {
                true => acp.forking(resuming.session, since),
                false => acp.resuming(resuming.session, since),
            };
            (fallback, acp)
        }
        (Some(fallback), _, _) => {
            let acp = AcpSession::for_turn(&fallback);
            (fallback, acp)
        }
        (None, _, _) => {
            let acp = AcpSession::for_turn(&invocation);
            (invocation, acp)
        }
    };
    let session = Box::new(session.staying_open());
    let (outcome, kept) =
        runner::run_session_keeping(invocation, session, caller, Default::default(), true).await;
    if let Some(kept) = kept {
        runs.keep(&warm.wanted, kept);
    }
    outcome
}
