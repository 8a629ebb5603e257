//! One round of turns: the members answering one message, in parallel. Their sections
//! are appended at once, their agents run, and their answers stream into the sections
//! (at most one edit per document every 50 ms, plus one at the end of each turn).

use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio::time::sleep_until;
use tokio_util::sync::CancellationToken;

use super::anchors::Anchors;
use super::asks::PermissionAnswer;
use super::attach::AttachError;
use super::files::FilePlace;
use super::flush::flush;
use super::live::Live;
use super::plan::{Planned, plan};
use super::policy::{Policy, write_rule};
use super::{Context, EditorPort, Level, PortError, Snapshot, TurnError};
use crate::agents::{AgentEvent, configured_model};
use crate::conversation::attached::Attachment;
use crate::conversation::roster::Roster;
use crate::document::status::TurnStatus;
use crate::runner::RunOutcome;
use crate::team::Member;

/// How often buffered answer text is written into the document.
const FLUSH_EVERY: Duration = Duration::from_millis(50);
/// How long a port whose writes are costly (a file) waits to write that a turn started
/// when nothing else is to be written with it.
pub(super) const FIRST_STATE_WAIT: Duration = Duration::from_secs(1);

enum Msg {
    Event(usize, AgentEvent),
    Ended(usize, RunOutcome),
}

/// A member's turn that may start: its command line and the token that cancels it.
pub(super) struct Ready<'a> {
    pub(super) member: &'a Member,
    pub(super) planned: Planned,
    pub(super) cancel: CancellationToken,
}

/// How one turn ended. Every error here was told to the user already (through
/// [`EditorPort::notify`]) when the turn ended.
#[derive(Debug)]
pub struct TurnReport {
    pub member: String,
    pub status: TurnStatus,
    pub error: Option<TurnError>,
}

/// What a round did.
pub(super) struct Round {
    /// How each turn that was tried ended.
    pub(super) turns: Vec<TurnReport>,
    /// Why members were not started (they are already answering).
    pub(super) refused: Vec<TurnError>,
    /// The turn ids of the sections the round wrote: only these answers may hand the
    /// word on when the round ends.
    pub(super) ids: Vec<String>,
}

/// Runs `members`, each answering its message (an index into the snapshot's messages).
pub(super) async fn run_round<P: EditorPort>(
    port: &mut P,
    ctx: &Context,
    snapshot: &Snapshot,
    roster: &Roster<'_>,
    members: &[(String, usize)],
) -> Result<Round, TurnError> {
    let mut reports = Vec::new();
    let mut refused = Vec::new();
    let mut ready = Vec::new();
    let mut attached: Vec<(usize, Result<Vec<Attachment>, AttachError>)> = Vec::new();
    for (handle, message) in members {
        let message = *message;
        if !attached.iter().any(|(m, _)| *m == message) {
            let read = super::attach::of_message(port, ctx, snapshot, roster, message).await;
            attached.push((message, read));
        }
        let attachments = attached.iter().find(|(m, _)| *m == message).map(|(_, a)| a);
        let Some(member) = roster.member(handle) else {
            continue;
        };
        let cancel = ctx.cancel.child_token();
        if let Err(why) = port.begin_turn(&member.handle, &cancel) {
            port.notify(Level::Warning, &why.to_string()).await;
            refused.push(why);
            continue;
        }
        let over = crate::conversation::budget::over_budget(&snapshot.text, &snapshot.chat, handle);
        let planned = match (over, attachments) {
            (Some(over), _) => Err(TurnError::OverBudget(over.message())),
            (None, Some(Err(error))) => Err(TurnError::Attach(error.clone())),
            (None, Some(Ok(list))) => plan(ctx, snapshot, roster, member, message, list),
            (None, None) => plan(ctx, snapshot, roster, member, message, &[]),
        };
        if let Ok(Planned {
            notice: Some(notice),
            ..
        }) = &planned
        {
            port.notify(Level::Warning, notice).await;
        }
        match planned {
            Ok(planned) => ready.push(Ready {
                member,
                planned,
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
    if ready.is_empty() {
        return Ok(Round {
            turns: reports,
            refused,
            ids: Vec::new(),
        });
    }
    let handles: Vec<String> = ready.iter().map(|p| p.member.handle.clone()).collect();
    port.round_starting(&handles);

    let asked = members.iter().map(|(_, m)| *m).max().unwrap_or_default();
    let (mut live, mut anchors) =
        match super::sections_place::append_sections(port, &ready, snapshot, asked).await {
            Ok(appended) => appended,
            Err(error) => {
                let error = TurnError::Port(error);
                for p in &ready {
                    port.end_turn(&p.member.handle, TurnStatus::Error, Some(&error));
                }
                return Err(error);
            }
        };

    let (tx, mut rx) = mpsc::channel::<Msg>(256);
    for (i, p) in ready.into_iter().enumerate() {
        // A CLI that never names its model (codex): the one its configuration asks for.
        let Planned {
            invocation,
            fallback,
            session,
            entry,
            warm,
            ..
        } = p.planned;
        let model = configured_model(&entry, &invocation);
        let tx = tx.clone();
        let cancel = p.cancel;
        let (commands_tx, mut commands) = mpsc::channel(16);
        live[i].commands = Some(commands_tx);
        // The member's own folder was trusted with its configuration: writes there are
        // the member's work even where it lies outside the workspace.
        live[i].file_roots = vec![ctx.workspace_root.clone(), invocation.cwd.clone()];
        live[i].cancel = Some(cancel.clone());
        tokio::spawn(async move {
            let (events_tx, mut events_rx) = mpsc::channel(256);
            let turn = async {
                match warm {
                    Some(warm) => {
                        let planned = (invocation, fallback, session);
                        let (tx, commands) = (events_tx, &mut commands);
                        super::warm::run_turn(warm, planned, &entry, tx, commands, cancel).await
                    }
                    None => {
                        let turn = (invocation, fallback, session);
                        super::resume::run(turn, &entry, events_tx, &mut commands, cancel).await
                    }
                }
            };
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
        live[i].start(model);
    }
    drop(tx);

    let mut policy = Policy::new(snapshot.chat.front_matter.as_ref(), roster.team, ctx);
    let place = FilePlace {
        workspace: ctx.workspace_root.clone(),
        chat: ctx.chat_path.clone(),
    };
    let streamed = stream(
        port,
        &mut rx,
        (&mut live, &mut anchors),
        (&mut policy, &place),
        roster,
    )
    .await;
    if let Err(error) = streamed {
        // The document could not be written: the turns not reported end with the error.
        let error = TurnError::Port(error);
        for t in live.iter().filter(|t| !t.reported) {
            port.end_turn(&t.member, TurnStatus::Error, Some(&error));
        }
        return Err(error);
    }
    let ids = live
        .iter()
        .filter_map(|t| t.status.id().map(str::to_owned))
        .collect();
    reports.extend(live.into_iter().map(|t| TurnReport {
        member: t.member,
        status: t.status.status().unwrap_or(TurnStatus::Error),
        error: t.error,
    }));
    Ok(Round {
        turns: reports,
        refused,
        ids,
    })
}

/// Streams every turn's events into its section until all turns have ended, and
/// takes the answers to their permission requests.
async fn stream<P: EditorPort>(
    port: &mut P,
    rx: &mut mpsc::Receiver<Msg>,
    (live, anchors): (&mut [Live], &mut Anchors),
    (policy, place): (&mut Policy, &FilePlace),
    roster: &Roster<'_>,
) -> Result<(), PortError> {
    let (answers, mut answered) = mpsc::channel::<PermissionAnswer>(16);
    let (steers, mut steer_asked) = mpsc::unbounded_channel::<String>();
    for t in live.iter() {
        port.steerable(&t.member, &steers);
    }
    let mut last_flush = Instant::now();
    // An editor shows at once that the turns started; a file waits for more to write.
    let first = if port.writes_are_costly() {
        FIRST_STATE_WAIT
    } else {
        Duration::ZERO
    };
    let mut next_flush = Some(tokio::time::Instant::now() + first);
    while live.iter().any(|t| !t.reported) {
        tokio::select! {
            Some(answer) = answered.recv() => {
                // The block is in the document before its record goes over it.
                flush(port, live, anchors).await?;
                last_flush = Instant::now();
                let waited = waiting_members(live);
                let learned = super::asks::take_answer(live, answer).await;
                for member in waited.difference(&waiting_members(live)) {
                    port.waiting_changed(member, false);
                }
                if let Some((member, rule, decision)) = learned {
                    // The next matching request is answered by it, this turn too.
                    policy.learn(&member, &rule, decision);
                    write_rule(port, anchors, &member, &rule, decision).await?;
                }
                next_flush = Some((last_flush + FLUSH_EVERY).into());
            }
            Some(member) = steer_asked.recv() => {
                // What the turns wrote so far goes in before the message is read.
                flush(port, live, anchors).await?;
                last_flush = Instant::now();
                super::steer::request(port, live, anchors, roster, &member).await?;
            }
            msg = rx.recv() => match msg {
                Some(Msg::Event(i, AgentEvent::Steered { injected, outcome })) => {
                    tracing::debug!(member = live[i].member.as_str(), "steering: {outcome}");
                    super::steer::answered(port, live, anchors, roster, (i, injected)).await?;
                    last_flush = Instant::now();
                }
                Some(Msg::Event(i, AgentEvent::Permission(request))) => {
                    match live[i].ask_by_policy(request, policy) {
                        Ok(command) => {
                            if let Some(commands) = &live[i].commands {
                                let _ = commands.send(command).await;
                            }
                        }
                        Err(request) => {
                            live[i].on_event(port, AgentEvent::Permission(request), &answers);
                        }
                    }
                    if next_flush.is_none() {
                        next_flush = Some((last_flush + FLUSH_EVERY).max(Instant::now()).into());
                    }
                }
                Some(Msg::Event(i, AgentEvent::File(request))) => {
                    // What the turn wrote so far goes in before the file's line.
                    flush(port, live, anchors).await?;
                    super::files::serve(port, &mut live[i], *request, place).await;
                    last_flush = Instant::now();
                    next_flush = Some((last_flush + FLUSH_EVERY).into());
                }
                Some(Msg::Event(i, event)) => {
                    live[i].on_event(port, event, &answers);
                    if live[i].dirty() {
                        // Write at once when the last write is long enough ago, so the
                        // first words show without waiting for a tick (nor for a later
                        // write already planned).
                        let at = (last_flush + FLUSH_EVERY).max(Instant::now()).into();
                        next_flush = Some(next_flush.map_or(at, |planned| planned.min(at)));
                    }
                }
                Some(Msg::Ended(i, outcome)) => {
                    live[i].on_end(&outcome);
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
        t.lost();
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
    if let Some(error) = &t.error {
        port.notify(Level::Error, &format!("@{}: {error}", t.member))
            .await;
    }
    port.end_turn(&t.member, status, t.error.as_ref());
}

/// The members whose turns wait for an answer to a permission request.
fn waiting_members(live: &[Live]) -> std::collections::BTreeSet<String> {
    live.iter()
        .filter(|t| t.status.status() == Some(TurnStatus::Waiting))
        .map(|t| t.member.clone())
        .collect()
}
