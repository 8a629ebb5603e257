//! One round of turns: the members answering one message, in parallel. Their sections
//! are appended at once, their agents run, and their answers stream into the sections
//! (at most one edit per document every 50 ms, plus one at the end of each turn).

use std::time::{Duration, Instant, SystemTime};

use tokio::sync::mpsc;
use tokio::time::sleep_until;
use tokio_util::sync::CancellationToken;

use super::anchors::{Anchors, Places};
use super::engine::{Context, TurnReport, plan};
use super::live::{Live, on_end, on_event};
use super::section::{self, Ending};
use super::{Applied, EditorPort, Level, PortError};
use crate::agents::{AgentEntry, AgentEvent, Invocation, configured_model};
use crate::conversation::output::OutputFilter;
use crate::conversation::roster::Roster;
use crate::document::ByteRange;
use crate::document::chat::Chat;
use crate::document::status::{StatusComment, TurnStatus};
use crate::runner::RunOutcome;
use crate::team::Member;

/// How often buffered answer text is written into the document.
const FLUSH_EVERY: Duration = Duration::from_millis(50);

/// How many times in a row an edit may find the document moved on before the round
/// gives up (each retry follows a change the editor reported, so this is only reached
/// when an editor refuses every edit).
const MAX_STALE: usize = 200;

enum Msg {
    Event(usize, AgentEvent),
    Ended(usize, RunOutcome),
}

struct Planned<'a> {
    member: &'a Member,
    invocation: Invocation,
    /// The turn as a new session, when `invocation` resumes one (`turns/resume.rs`).
    fallback: Option<Invocation>,
    entry: AgentEntry,
    cancel: CancellationToken,
}

/// What a round did.
pub(super) struct Round {
    /// How each turn that was tried ended.
    pub(super) turns: Vec<TurnReport>,
    /// Why members were not started (they are already answering).
    pub(super) refused: Vec<String>,
    /// The turn ids of the sections the round wrote: only these answers may hand the
    /// word on when the round ends.
    pub(super) ids: Vec<String>,
}

/// Runs `members`, each answering its message (an index into `chat`'s messages).
pub(super) async fn run_round<P: EditorPort>(
    port: &mut P,
    ctx: &Context,
    text: &str,
    chat: &Chat,
    roster: &Roster<'_>,
    members: &[(String, usize)],
) -> Result<Round, PortError> {
    let mut reports = Vec::new();
    let mut refused = Vec::new();
    let mut planned = Vec::new();
    for (handle, message) in members {
        let message = *message;
        let Some(member) = roster.member(handle) else {
            continue;
        };
        let cancel = ctx.cancel.child_token();
        if let Err(why) = port.begin_turn(&member.handle, &cancel) {
            port.notify(Level::Warning, &why).await;
            refused.push(why);
            continue;
        }
        match plan(ctx, text, chat, roster, member, message) {
            Ok((invocation, entry, fallback)) => planned.push(Planned {
                member,
                invocation,
                fallback,
                entry,
                cancel,
            }),
            Err(error) => {
                // Nothing was started: no section is written, the user is told why.
                port.notify(Level::Error, &format!("@{handle}: {error}"))
                    .await;
                port.end_turn(&member.handle, TurnStatus::Error, Some(&error));
                reports.push(TurnReport {
                    member: member.handle.clone(),
                    status: TurnStatus::Error,
                    error: Some(error),
                });
            }
        }
    }
    if planned.is_empty() {
        return Ok(Round {
            turns: reports,
            refused,
            ids: Vec::new(),
        });
    }
    let handles: Vec<String> = planned.iter().map(|p| p.member.handle.clone()).collect();
    port.round_starting(&handles);

    let (mut live, mut anchors) = match append_sections(port, &planned).await {
        Ok(appended) => appended,
        Err(error) => {
            for p in &planned {
                port.end_turn(
                    &p.member.handle,
                    TurnStatus::Error,
                    Some(&error.to_string()),
                );
            }
            return Err(error);
        }
    };

    let (tx, mut rx) = mpsc::channel::<Msg>(256);
    for (i, p) in planned.into_iter().enumerate() {
        // A CLI that never names its model (codex): the one its configuration asks for.
        let model = configured_model(&p.entry, &p.invocation);
        let tx = tx.clone();
        tokio::spawn(async move {
            let (events_tx, mut events_rx) = mpsc::channel(256);
            let turn = super::resume::run(p.invocation, p.fallback, &p.entry, events_tx, p.cancel);
            let forward = async {
                while let Some(event) = events_rx.recv().await {
                    if tx.send(Msg::Event(i, event)).await.is_err() {
                        break;
                    }
                }
            };
            // The end is sent only after every event of the turn: the forwarding ends
            // when the runner drops its sender.
            let (outcome, ()) = tokio::join!(turn, forward);
            let _ = tx.send(Msg::Ended(i, outcome)).await;
        });
        section::streaming(&mut live[i].status, SystemTime::now());
        if let Some(model) = model {
            live[i].status.set("model", model);
        }
        live[i].started = Instant::now();
    }
    drop(tx);

    let result = stream(port, &mut rx, &mut live, &mut anchors).await;
    for t in &live {
        if !t.reported {
            // The document could not be written: the turn ends with the error.
            let error = result.as_ref().err().map(ToString::to_string);
            port.end_turn(&t.member, TurnStatus::Error, error.as_deref());
        }
    }
    result?;
    let ids = live
        .iter()
        .filter_map(|t| t.status.id().map(str::to_owned))
        .collect();
    reports.extend(live.into_iter().map(|t| TurnReport {
        member: t.member,
        status: t.status.status().unwrap_or(TurnStatus::Error),
        error: t.ending.error,
    }));
    Ok(Round {
        turns: reports,
        refused,
        ids,
    })
}

/// Appends every section at once, in the order the turns start, at the end of the
/// document as it is when the edit lands.
async fn append_sections<P: EditorPort>(
    port: &mut P,
    planned: &[Planned<'_>],
) -> Result<(Vec<Live>, Anchors), PortError> {
    for _ in 0..MAX_STALE {
        let text = port.text().await?;
        let chat = Chat::parse(&text);
        let first = section::next_turn_number(&text, &chat);
        let mut insert = String::new();
        let mut places = Vec::new();
        let mut live = Vec::new();
        for (number, p) in (first..).zip(planned) {
            let mut status = section::queued(&format!("t{number}"), &p.member.agent);
            super::owner::Owner::this().stamp(&mut status); // whose process runs it
            let (piece, status_range, body) =
                section::new_section(&format!("{text}{insert}"), &p.member.handle, &status);
            let base = insert.len();
            places.push(Places {
                status: base + status_range.start..base + status_range.end,
                body_start: base + body,
                end: base + body,
            });
            insert.push_str(&piece);
            live.push(Live::new(p.member, status, &text));
        }
        if port.apply(vec![(text.len()..text.len(), insert)]).await? == Applied::Stale {
            continue;
        }
        // Place the anchors where the sections landed, then move them through what
        // happened after.
        let mut anchors = Anchors::default();
        let mut landed = false;
        for change in port.changes().await? {
            if !landed && change.ours {
                landed = true;
                let at = change.range.start;
                for p in &places {
                    anchors.add(Places {
                        status: at + p.status.start..at + p.status.end,
                        body_start: at + p.body_start,
                        end: at + p.end,
                    });
                }
            } else if landed {
                anchors.apply(&change);
            }
        }
        if !landed {
            return Err(PortError::Other(
                "the new sections were written but the editor did not report them".into(),
            ));
        }
        return Ok((live, anchors));
    }
    Err(gave_up())
}

fn gave_up() -> PortError {
    PortError::Other(format!(
        "the editor refused {MAX_STALE} edits in a row; the answer could not be written"
    ))
}

/// Streams every turn's events into its section until all turns have ended.
async fn stream<P: EditorPort>(
    port: &mut P,
    rx: &mut mpsc::Receiver<Msg>,
    live: &mut [Live],
    anchors: &mut Anchors,
) -> Result<(), PortError> {
    let mut last_flush = Instant::now();
    let mut next_flush = Some(tokio::time::Instant::now());
    while live.iter().any(|t| !t.reported) {
        tokio::select! {
            msg = rx.recv() => match msg {
                Some(Msg::Event(i, event)) => {
                    on_event(port, &mut live[i], event);
                    if next_flush.is_none() && live[i].dirty() {
                        // Write at once when the last write is long enough ago, so the
                        // first words show without waiting for a tick.
                        next_flush = Some((last_flush + FLUSH_EVERY).max(Instant::now()).into());
                    }
                }
                Some(Msg::Ended(i, outcome)) => {
                    on_end(&mut live[i], &outcome);
                    flush(port, live, anchors).await?;
                    last_flush = Instant::now();
                    next_flush = None;
                    finish_turn(port, &mut live[i]).await;
                }
                None => break,
            },
            () = sleep_until(next_flush.unwrap_or_else(tokio::time::Instant::now)), if next_flush.is_some() => {
                flush(port, live, anchors).await?;
                last_flush = Instant::now();
                next_flush = None;
            }
        }
    }
    flush(port, live, anchors).await?;
    for t in live.iter_mut().filter(|t| !t.reported) {
        // The runner task went away without an end (it cannot, but never leave a turn
        // streaming in the file).
        section::finished(
            &mut t.status,
            TurnStatus::Error,
            t.started.elapsed(),
            &Ending {
                error: Some("the turn ended without a result".into()),
                ..Ending::default()
            },
        );
        t.status_dirty = true;
    }
    flush(port, live, anchors).await?;
    for t in live.iter_mut() {
        finish_turn(port, t).await;
    }
    Ok(())
}

/// Tells the port (and through it the user) how a turn ended, once.
async fn finish_turn<P: EditorPort>(port: &mut P, t: &mut Live) {
    if t.reported || !t.done {
        return;
    }
    t.reported = true;
    let status = t.status.status().unwrap_or(TurnStatus::Error);
    if let Some(error) = &t.ending.error {
        port.notify(Level::Error, &format!("@{}: {error}", t.member))
            .await;
    }
    port.end_turn(&t.member, status, t.ending.error.as_deref());
}

/// Writes every turn's buffered text at its place and its status comment if it
/// changed, as one edit; when the document moved on first, takes the change in and
/// writes again.
async fn flush<P: EditorPort>(
    port: &mut P,
    live: &mut [Live],
    anchors: &mut Anchors,
) -> Result<(), PortError> {
    for _ in 0..MAX_STALE {
        for change in port.changes().await? {
            anchors.apply(&change);
        }
        let edits = pending_edits(live, anchors);
        if edits.is_empty() {
            return Ok(());
        }
        if port.apply(edits).await? == Applied::Done {
            for t in live.iter_mut() {
                t.written();
            }
            return Ok(());
        }
    }
    Err(gave_up())
}

/// The edits that write what every turn has buffered (nothing is taken from the turns:
/// an edit that does not land is computed again).
fn pending_edits(live: &[Live], anchors: &Anchors) -> Vec<(ByteRange, String)> {
    let mut edits: Vec<(ByteRange, String)> = Vec::new();
    for (i, t) in live.iter().enumerate() {
        let places = anchors.get(i);
        if t.status_dirty {
            edits.push((places.status.clone(), t.status.render()));
        }
        if t.status.status() == Some(TurnStatus::Skipped) && places.end > places.body_start {
            edits.push((places.body_start..places.end, String::new()));
        } else if !t.pending.is_empty() {
            let text = match t.eol {
                "\n" => t.pending.clone(),
                eol => t.pending.replace("\r\n", "\n").replace('\n', eol),
            };
            edits.push((places.end..places.end, text));
        }
    }
    edits.sort_by_key(|(r, _)| (r.start, r.end));
    edits
}

impl Live {
    fn new(member: &Member, status: StatusComment, text: &str) -> Live {
        Live {
            member: member.handle.clone(),
            status,
            status_dirty: true,
            filter: OutputFilter::new(),
            pending: String::new(),
            at_line_start: true,
            eol: section::line_break(text),
            answer: String::new(),
            cut: 0,
            tools: Vec::new(),
            denied: Vec::new(),
            allow: Vec::new(),
            agent: member.agent.clone(),
            args: member.args.clone(),
            ending: Ending::default(),
            started: Instant::now(),
            done: false,
            reported: false,
        }
    }

    fn dirty(&self) -> bool {
        self.status_dirty || !self.pending.is_empty()
    }

    /// Everything buffered is now in the document.
    fn written(&mut self) {
        self.status_dirty = false;
        if !self.pending.is_empty() {
            self.at_line_start = self.pending.ends_with('\n');
            self.pending.clear();
        }
    }
}
