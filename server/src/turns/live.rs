//! One running turn as the engine tracks it: the status comment it will write, the
//! answer filtered for the chat, tool activity (one entry per call, updated as it
//! ends), the blocks written in the answer's flow (`flow.rs`, `placed.rs`), retries,
//! refused actions, and how the turn ended.

use std::time::{Instant, SystemTime};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::asks::{Answers, Ask, Asked};
use super::flow::{Kind, Thinking};
use super::placed::Blocks;
use super::{EditorPort, TurnError};
use crate::agents::{AgentEvent, CallView, Denial, Retry, RunningTotals, SessionCommand};
use crate::conversation::blocks::{self, ToolEntry};
use crate::conversation::output::OutputFilter;
use crate::conversation::running::SessionReport;
use crate::conversation::section::{self, Ending};
use crate::conversation::seen::SEEN_KEY;
use crate::document::status::{StatusComment, TurnStatus};

use crate::team::{Member, Thoughts};

/// The most answer text one turn writes into the chat; the rest is left out, with a
/// note. Real answers are tens of KiB; a 50 MB one went whole into the chat.
pub(super) const MAX_ANSWER: usize = 1 << 20;

/// One running turn, as the engine tracks it.
pub(super) struct Live {
    pub(super) member: String,
    /// The `seen=` record of the turn as a new session, should the session it resumes
    /// be lost (`conversation::seen`).
    pub(super) fallback_seen: Option<String>,
    pub(super) status: StatusComment,
    pub(super) status_dirty: bool,
    pub(super) filter: OutputFilter,
    pub(super) pending: String,
    /// Whether everything written so far ends a line (a section must end with one).
    pub(super) at_line_start: bool,
    /// The document's line break (LF, CRLF or CR): the answer is written with it too.
    pub(super) eol: &'static str,
    pub(super) answer: String,
    /// Bytes of answer left out past [`MAX_ANSWER`].
    pub(super) cut: usize,
    pub(super) tools: Vec<ToolEntry>,
    /// What the agent was not allowed to do, and the arguments that would allow it.
    pub(super) denied: Vec<Denial>,
    pub(super) allow: Vec<String>,
    /// The member's `agent` and `args`, for the "not allowed" hint.
    pub(super) agent: String,
    pub(super) args: Vec<String>,
    /// How the turn ended, for its status comment (its `error` is written from
    /// `error` when the turn ends).
    pub(super) ending: Ending,
    /// Why the turn failed, once it did.
    pub(super) error: Option<TurnError>,
    pub(super) started: Instant,
    pub(super) done: bool,
    /// The port was told how the turn ended.
    pub(super) reported: bool,
    /// The permission requests the agent made (`asks.rs`).
    pub(super) asks: Vec<Ask>,
    /// The blocks written with an id, which may be rewritten (`placed.rs`).
    pub(super) blocks: Blocks,
    /// Commands for the agent's session (answers to its requests); `None` until it runs.
    pub(super) commands: Option<mpsc::Sender<SessionCommand>>,
    /// A queued message was sent to the session and its answer is awaited (`steer.rs`).
    pub(super) steering: bool,
    /// How many line breaks end what is already in the document (at most 2).
    pub(super) written_breaks: usize,
    /// Something was written into the body (words or a block).
    pub(super) flowed: bool,
    /// The kind of block written last, when nothing came after it.
    pub(super) last_block: Option<Kind>,
    /// The block with an id that ends what the turn wrote (nothing but `tail_after`
    /// line breaks after it): its text may still change, and with it how it ends.
    pub(super) tail: Option<String>,
    pub(super) tail_after: usize,
    /// Whether the member's thoughts are shown (folded) or left out.
    pub(super) thoughts: Thoughts,
    /// The thoughts block being written, if one is open.
    pub(super) thinking: Option<Thinking>,
    /// Bytes of thoughts written (they count toward [`MAX_ANSWER`] with the answer).
    pub(super) thought_len: usize,
    /// The tool calls of an ACP agent, each as it stands, in the order they came.
    pub(super) calls: Vec<CallView>,
    /// Ends the agent's run (the turn's section is gone).
    pub(super) cancel: Option<CancellationToken>,
    /// The turn's section is no longer in the document: nothing more is written.
    pub(super) gone: bool,
    /// Which reports are the session's running totals, and its previous ones (`usage.rs`).
    pub(super) running: RunningTotals,
    pub(super) session_report: SessionReport,
    /// The files the agent wrote through chatmd (`files.rs`), and where it may write.
    pub(super) changed: Vec<super::files::ChangedFile>,
    pub(super) file_roots: Vec<std::path::PathBuf>,
}

impl Live {
    /// A turn of `member` about to be queued with `status`, in a document whose line
    /// break is `eol`.
    pub(super) fn new(member: &Member, status: StatusComment, eol: &'static str) -> Live {
        let who = (member.agent.clone(), member.args.clone(), member.thoughts);
        Live::of(member.handle.clone(), who, status, eol)
    }

    /// [`Live::new`] for the member `handle` whose `agent`, `args` and `thoughts` are
    /// given.
    pub(super) fn of(
        handle: String,
        (agent, args, thoughts): (String, Vec<String>, Thoughts),
        status: StatusComment,
        eol: &'static str,
    ) -> Live {
        Live {
            member: handle,
            fallback_seen: None,
            status,
            status_dirty: true,
            filter: OutputFilter::new(),
            pending: String::new(),
            at_line_start: true,
            eol,
            answer: String::new(),
            cut: 0,
            tools: Vec::new(),
            denied: Vec::new(),
            allow: Vec::new(),
            agent,
            args,
            ending: Ending::default(),
            error: None,
            started: Instant::now(),
            done: false,
            reported: false,
            asks: Vec::new(),
            blocks: Blocks::default(),
            commands: None,
            steering: false,
            written_breaks: 1,
            flowed: false,
            last_block: None,
            tail: None,
            tail_after: 0,
            thoughts,
            thinking: None,
            thought_len: 0,
            calls: Vec::new(),
            cancel: None,
            gone: false,
            running: RunningTotals::default(),
            session_report: SessionReport::default(),
            changed: Vec::new(),
            file_roots: Vec::new(),
        }
    }

    /// The agent was started; `model` is the one its configuration asks for, when
    /// the CLI never names it.
    pub(super) fn start(&mut self, model: Option<String>) {
        section::streaming(&mut self.status, SystemTime::now());
        if let Some(model) = model {
            self.status.set("model", model);
        }
        self.started = Instant::now();
    }

    pub(super) fn dirty(&self) -> bool {
        !self.gone && (self.status_dirty || !self.pending.is_empty() || self.blocks.dirty())
    }

    /// The turn's section is gone from the document: the agent is stopped, and
    /// nothing of the turn is written anywhere from now on.
    pub(super) fn section_gone(&mut self) {
        self.gone = true;
        self.pending.clear();
        self.status_dirty = false;
        self.blocks.drop_unwritten();
        if let Some(cancel) = &self.cancel {
            cancel.cancel();
        }
        let id = self.status.id().unwrap_or("?").to_owned();
        self.error = Some(TurnError::SectionGone {
            member: self.member.clone(),
            id,
        });
    }

    /// The first `n` bytes of the buffered text are now in the document (all of it
    /// when `n` is its length), and the status comment and blocks as buffered.
    pub(super) fn written_upto(&mut self, n: usize) {
        if n >= self.pending.len() {
            return self.written();
        }
        let rest = self.pending.split_off(n);
        self.written();
        self.pending = rest;
    }

    /// Everything buffered is now in the document.
    pub(super) fn written(&mut self) {
        self.status_dirty = false;
        self.blocks.written();
        if !self.pending.is_empty() {
            self.written_breaks = self.trailing_breaks();
            self.at_line_start = self.pending.ends_with('\n');
            self.pending.clear();
        }
    }

    /// The turn's runner went away without an end: the turn failed.
    pub(super) fn lost(&mut self) {
        self.done = true;
        self.error = Some(TurnError::NoResult);
        self.finish(TurnStatus::Error);
    }

    /// Writes how the turn ended into its status comment.
    pub(super) fn finish(&mut self, status: TurnStatus) {
        self.ending.error = self.error.as_ref().map(ToString::to_string);
        let total = self.tokens_share();
        section::finished(
            &mut self.status,
            status,
            self.started.elapsed(),
            &self.ending,
        );
        self.keep_session_tokens(total);
        self.status_dirty = true;
    }
}

impl Live {
    /// An event of the agent, taken into the turn (`port` shows the text and retries
    /// where it can, and hears of permission requests, whose answers go to `answers`).
    pub(super) fn on_event<P: EditorPort>(
        &mut self,
        port: &mut P,
        event: AgentEvent,
        answers: &Answers,
    ) {
        let t = self;
        match event {
            AgentEvent::Started { session, model } => {
                if let Some(model) = model {
                    t.status.set("model", model);
                }
                if let Some(session) = session {
                    t.status.set("session", session);
                }
                t.status_dirty = true;
            }
            AgentEvent::Model(model) => {
                t.status.set("model", model);
                t.status_dirty = true;
            }
            AgentEvent::Mode(mode) => {
                t.status.set("mode", mode);
                t.status_dirty = true;
            }
            AgentEvent::Text(piece) => {
                let room = MAX_ANSWER.saturating_sub(t.answer.len() + t.thought_len);
                let whole = within(&piece, room);
                t.cut += piece.len() - whole.len();
                // After a block, the blank line is ours.
                let kept = t.before_text(whole);
                if kept.is_empty() {
                    return;
                }
                t.flowed = true;
                port.on_text(&t.member, kept);
                t.answer.push_str(kept);
                let safe = t.filter.push(kept);
                t.pending.push_str(&safe);
            }
            AgentEvent::Tool {
                id,
                summary,
                status,
                detail,
            } => blocks::record_tool(&mut t.tools, id, summary, status, detail),
            AgentEvent::Retry(retry) => {
                tracing::debug!(member = t.member.as_str(), "{retry}");
                port.on_retry(&t.member, &retry);
                t.status.set("retry", retry_value(&retry, &t.status));
                t.status_dirty = true;
            }
            AgentEvent::Denied { denials, allow } => {
                t.denied.extend(denials);
                for arg in allow {
                    // `--allowedTools` once, each rule once, over several reports.
                    if !t.allow.contains(&arg) {
                        t.allow.push(arg);
                    }
                }
            }
            AgentEvent::Usage(usage) => t.ending.usage = Some(usage),
            AgentEvent::Done { stop_reason, usage } => {
                t.ending.stop = stop_reason;
                if usage.is_some() {
                    t.ending.usage = usage;
                }
            }
            AgentEvent::Failed { message } => t.error = Some(TurnError::Agent(message)),
            AgentEvent::Notice(note) => tracing::debug!(member = t.member.as_str(), "{note}"),
            AgentEvent::SessionNotFound { message } => {
                // The turn runs again as a new session (turns/resume.rs); the status says so.
                tracing::info!(member = t.member.as_str(), "{message}");
                t.status.set("resume", "lost");
                t.session_report = SessionReport::default();
                if let Some(seen) = t.fallback_seen.take() {
                    t.status.set(SEEN_KEY, seen);
                }
                t.status_dirty = true;
            }
            AgentEvent::SessionNotResumable => {
                // Every turn of such a member is a new session given the file as it is
                // then: no record, so no edit is ever reported as one it saw.
                t.status.remove(SEEN_KEY);
                t.status.remove(crate::conversation::prompt::HELD_KEY);
                t.fallback_seen = None;
                t.status_dirty = true;
            }
            AgentEvent::Permission(request) => {
                let block = t.ask(*request);
                let Some(ask) = t.asks.last() else { return };
                let asked = Asked {
                    member: &t.member,
                    block: &block,
                    request: &ask.request,
                };
                port.permission_asked(asked, answers);
                port.waiting_changed(&t.member, true);
            }
            AgentEvent::Thought(piece) => t.thought(&piece),
            AgentEvent::Plan(entries) => t.plan(&entries),
            AgentEvent::Call(call) => t.call(*call),
            AgentEvent::Cost(cost) => t.cost(cost),
            AgentEvent::Context(usage) => t.context(usage),
            AgentEvent::RunningTotals(running) => t.running = running,
            // Kept by the editor side (completion, diagnostics), not written into the turn.
            AgentEvent::Commands(_) | AgentEvent::Options(_) | AgentEvent::LoginNeeded { .. } => {
                port.agent_told(&t.member, &event)
            }
            // The round moves the turn to a new section (`steer.rs`); only its log here.
            AgentEvent::Steered { outcome, .. } => {
                tracing::debug!(member = t.member.as_str(), "steering: {outcome}");
            }
            // The round serves file requests (`files.rs`).
            AgentEvent::File(_) => {}
        }
    }
}

/// The start of `piece` that fits in `room` bytes, cut at a character.
pub(super) fn within(piece: &str, room: usize) -> &str {
    if piece.len() <= room {
        return piece;
    }
    let mut end = room;
    while !piece.is_char_boundary(end) {
        end -= 1;
    }
    &piece[..end]
}

/// Where an answer was cut, at its end.
fn cut_note(cut: usize) -> String {
    format!(
        "\n> **Cut** — the answer passed {} MiB, the most chatmd writes into a chat; \
         its last {cut} bytes are left out.\n",
        MAX_ANSWER >> 20
    )
}

/// The `retry` value of the status comment: `3/10` when the CLI counts its attempts,
/// else how many retries were seen.
fn retry_value(retry: &Retry, status: &StatusComment) -> String {
    match (retry.attempt, retry.max) {
        (Some(attempt), Some(max)) => format!("{attempt}/{max}"),
        (Some(attempt), None) => attempt.to_string(),
        _ => {
            let seen = status
                .get("retry")
                .and_then(|v| v.split('/').next()?.parse::<u64>().ok())
                .unwrap_or(0);
            (seen + 1).to_string()
        }
    }
}

mod ending;
mod usage;

#[cfg(test)]
mod tests;
