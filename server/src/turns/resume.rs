//! Resume with a way back. A member that resumes (the default) continues the session of its
//! latest answer (unless that session belongs to the chat this one was forked from);
//! when the CLI cannot find the session any more, the same turn runs again at once as a
//! new session with the whole prompt, into the same section, and its status comment
//! says `resume=lost`.

use std::path::Path;

use tokio::sync::mpsc::{self, Receiver, Sender};
use tokio_util::sync::CancellationToken;

use super::Context;
use crate::agents::acp::AcpSession;
use crate::agents::session_id::session_id_problem;
use crate::agents::{
    AgentEntry, AgentEvent, Invocation, Session, SessionCommand, Stdin, session_for,
};
use crate::conversation::resume::{LastSession, last_session, sessions};
use crate::conversation::seen::{changed, message_hash};
use crate::document::chat::Chat;
use crate::runner::{self, RunOutcome};
use crate::team::Member;

/// The session `member` continues to answer message `message`, if it resumes at all:
/// `resume` not turned off, a built-in CLI (or an ACP agent), and an earlier answer of the
/// same kind of CLI (the same agent name, for ACP) with a session.
pub(super) fn session_to_resume(
    ctx: &Context,
    text: &str,
    chat: &Chat,
    member: &Member,
    entry: &AgentEntry,
    message: usize,
) -> Option<LastSession> {
    let kind = entry.adapter.kind();
    let acp = entry.adapter.sessions_per_name();
    if !resumes(member, entry) {
        return None;
    }
    let same_kind = |agent: &str| {
        if acp {
            agent == member.agent
        } else {
            ctx.registry.entry(agent).and_then(|e| e.adapter.kind()) == kind
        }
    };
    let last = last_session(text, chat, &member.handle, message, same_kind)?;
    let forked_from = chat
        .front_matter
        .as_ref()
        .and_then(|fm| fm.forked_from.as_ref());
    if let Some(original) = forked_from {
        let folder = ctx.chat_path.parent().unwrap_or(Path::new("."));
        if shared_with(&folder.join(&original.value), &last.session) {
            return None;
        }
    }
    Some(last)
}

/// The session of this chat's original (the chat it was forked from) that `member`'s
/// first turn here may branch off with ACP's `session/fork`, instead of starting a
/// session of its own: the one of its latest answer here, when the original names it
/// last in that same answer, after the same messages. Its native history is then
/// exactly this chat's prefix; one the original went on with after the fork point
/// holds messages this chat does not have, and one that saw a message since edited
/// (its `seen=` records) holds the earlier version: neither is forked. Only for an ACP member
/// that resumes; the agent must offer `session/fork` (else the turn starts afresh).
pub(super) fn session_to_fork(
    ctx: &Context,
    text: &str,
    chat: &Chat,
    member: &Member,
    entry: &AgentEntry,
    message: usize,
) -> Option<LastSession> {
    if !entry.adapter.forks() || !resumes(member, entry) {
        return None;
    }
    let original = chat.front_matter.as_ref()?.forked_from.as_ref()?;
    let folder = ctx.chat_path.parent().unwrap_or(Path::new("."));
    let original = std::fs::read_to_string(folder.join(&original.value)).ok()?;
    let last = last_session(text, chat, &member.handle, message, |a| a == member.agent)?;
    // A message the session saw in an earlier version (its `seen=` records) would still
    // read that way in a forked session.
    let unchanged = changed(text, chat, &member.handle, &last).is_empty();
    let usable = refused(entry, &last).is_none();
    (usable && unchanged && same_history(text, chat, &original, &last)).then_some(last)
}

/// Whether the session of `last` (an answer in `text`) is named last in `original` by
/// the same answer, after the same messages (by their hashes, as `seen=` counts them).
fn same_history(text: &str, chat: &Chat, original: &str, last: &LastSession) -> bool {
    let theirs = Chat::parse(original);
    let named_last = theirs
        .messages
        .iter()
        .rposition(|m| m.status_comment(original).and_then(|c| c.session()) == Some(&last.session));
    if named_last != Some(last.since) {
        return false;
    }
    let hashes = |text: &str, chat: &Chat| -> Vec<String> {
        chat.messages[..=last.since]
            .iter()
            .map(|m| message_hash(text, m))
            .collect()
    };
    hashes(text, chat) == hashes(original, &theirs)
}

/// Why the session of `last` is not passed to `entry`'s agent: it is not an id that
/// agent issues (a status comment is text anyone can write; `agents::session_id`).
/// `None` when it may be resumed.
pub(super) fn refused(entry: &AgentEntry, last: &LastSession) -> Option<String> {
    let agent = entry.adapter.kind().map_or("acp", |kind| kind.name());
    session_id_problem(agent, &last.session)
}

/// Whether `member`'s turns continue its session: `resume` (on unless the member
/// turns it off), and an agent that can ([`crate::agents::Adapter::can_resume`]).
pub(super) fn resumes(member: &Member, entry: &AgentEntry) -> bool {
    member.resume && entry.adapter.can_resume()
}

/// Whether the chat at `original` (the one this chat was forked from) names `session`,
/// or cannot be read (then it may). Continuing such a session would carry the
/// original's later turns into the fork, and the fork's turns into the original's
/// session: the fork's first turn of each member starts a session of its own instead.
fn shared_with(original: &Path, session: &str) -> bool {
    match std::fs::read_to_string(original) {
        Ok(text) => sessions(&text).iter().any(|s| s == session),
        Err(_) => true,
    }
}

/// The session a turn goes on from: continued (`session/resume`, or the CLI's own
/// resume), or branched off with `session/fork` (ACP; the chat is a fork of the one
/// the session belongs to).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Resuming {
    pub session: String,
    pub fork: bool,
}

/// Runs one turn of `entry`'s session (see [`runner::run_session`]), taking its
/// commands (answers to permission requests) from `commands`; with a `fallback` (the
/// same turn as a new session, with the whole prompt), runs that when the CLI reports
/// that it cannot find the session it was to resume. The first attempt's events are
/// held back until it has shown it got going (text, a tool, the end), so that a lost
/// session leaves nothing behind but the [`AgentEvent::SessionNotFound`] that marks
/// the status.
pub(super) async fn run(
    turn: (Invocation, Option<Invocation>, Option<Resuming>),
    entry: &AgentEntry,
    events: Sender<AgentEvent>,
    commands: &mut Receiver<SessionCommand>,
    cancel: CancellationToken,
) -> RunOutcome {
    let caller = runner::Caller {
        events,
        commands,
        cancel,
    };
    run_keeping(turn, entry, caller, false).await.0
}

/// [`run`], and with `keep`, the process of an answered turn still running for the
/// member's next turn (a warm headless claude: `turns/warm`).
pub(super) async fn run_keeping(
    (invocation, fallback, session): (Invocation, Option<Invocation>, Option<Resuming>),
    entry: &AgentEntry,
    caller: runner::Caller<'_>,
    keep: bool,
) -> (RunOutcome, Option<runner::Kept>) {
    let runner::Caller {
        events,
        commands,
        cancel,
    } = caller;
    let Some(fallback) = fallback else {
        let agent = session_for(entry, &invocation);
        return attempt(invocation, agent, events, commands, cancel, keep).await;
    };
    if let Some(session) = session.filter(|_| entry.adapter.falls_back_in_process()) {
        // An ACP agent tells in the same process whether it still has the session, and
        // goes on as a new one when not: one run, with both prompts.
        let Stdin::Prompt(since) = invocation.stdin else {
            let agent = session_for(entry, &fallback);
            return attempt(fallback, agent, events, commands, cancel, keep).await;
        };
        let acp = AcpSession::for_turn(&fallback);
        let agent = Box::new(match session.fork {
            true => acp.forking(session.session, since),
            false => acp.resuming(session.session, since),
        });
        return attempt(fallback, agent, events, commands, cancel, keep).await;
    }
    let (tx, mut rx) = mpsc::channel(256);
    let agent = session_for(entry, &invocation);
    let first = attempt(invocation, agent, tx, commands, cancel.clone(), keep);
    let forward = async {
        let mut held = Vec::new();
        let mut going = false;
        while let Some(event) = rx.recv().await {
            match event {
                AgentEvent::SessionNotFound { .. } if !going => {
                    // The rest of this attempt (its `Failed`) is not the turn's outcome.
                    let _ = events.send(event).await;
                    while rx.recv().await.is_some() {}
                    return true;
                }
                AgentEvent::Started { .. }
                | AgentEvent::RunningTotals(_)
                | AgentEvent::Notice(_)
                    if !going =>
                {
                    held.push(event)
                }
                // A retry is shown at once (the user waits on it) but is no sign that
                // the session was found: a lost one may still be reported after it.
                AgentEvent::Retry(_) if !going => {
                    let _ = events.send(event).await;
                }
                event => {
                    going = true;
                    for event in held.drain(..).chain([event]) {
                        let _ = events.send(event).await;
                    }
                }
            }
        }
        for event in held {
            let _ = events.send(event).await;
        }
        false
    };
    let ((outcome, kept), lost) = tokio::join!(first, forward);
    if !lost || cancel.is_cancelled() {
        return (outcome, kept);
    }
    tracing::info!(
        agent = entry.name.as_str(),
        "the session to resume is gone; running the turn as a new session"
    );
    if let Some(kept) = kept {
        // Not reached: a lost session's run fails, and only answered turns are kept.
        kept.end().await;
    }
    let agent = session_for(entry, &fallback);
    attempt(fallback, agent, events, commands, cancel, keep).await
}

/// One run of `session` with the default runner settings, its process kept after an
/// answered turn with `keep`.
async fn attempt(
    invocation: Invocation,
    session: Box<dyn Session>,
    events: Sender<AgentEvent>,
    commands: &mut Receiver<SessionCommand>,
    cancel: CancellationToken,
    keep: bool,
) -> (RunOutcome, Option<runner::Kept>) {
    let caller = runner::Caller {
        events,
        commands,
        cancel,
    };
    runner::run_session_keeping(invocation, session, caller, Default::default(), keep).await
}
