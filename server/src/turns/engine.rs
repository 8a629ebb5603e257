//! The turn engine: reads the chat, decides who answers, has each round of them
//! answer (`round.rs`) and follows chains until nobody is due.

use super::round::{self, TurnReport};
use super::{Context, Edited, EditorPort, Level, PortError, TurnError};
use crate::conversation::queue;
use crate::conversation::roster::Roster;
use crate::conversation::routing::{self, Next};
use crate::conversation::section;
use crate::document::chat::Chat;
use crate::document::status::TurnStatus;
use crate::team::{self, Team};

/// What a run did.
#[derive(Debug, Default)]
pub struct Report {
    pub turns: Vec<TurnReport>,
    /// Why the run stopped without (more) turns, when it did not simply finish.
    pub stopped: Option<Stopped>,
}

impl Report {
    pub fn all_succeeded(&self) -> bool {
        !self.turns.is_empty()
            && self
                .turns
                .iter()
                .all(|t| matches!(t.status, TurnStatus::Done | TurnStatus::Skipped))
    }
}

/// Why a run stopped without (more) turns.
#[derive(Debug, thiserror::Error)]
pub enum Stopped {
    #[error("the chat has no message yet: write one under `## @me`")]
    NoMessage,
    #[error(
        "this conversation has ended (`status: ended`, `[DONE]` or `/end`); set `status: open` in the front matter to go on"
    )]
    Ended,
    #[error("stopped after {0} agent-to-agent turns (`max_chain`); your turn")]
    ChainLimit(u32),
    /// Nobody is due to speak (the routing rules' reason).
    #[error("{0}")]
    Nobody(String),
    /// A member asked for cannot answer (not a member of the team).
    #[error(transparent)]
    Asked(TurnError),
    /// Every member was refused (already answering, or the chat is busy).
    #[error("{}", join(.0))]
    Refused(Vec<TurnError>),
}

fn join(errors: &[TurnError]) -> String {
    let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
    all.join("; ")
}

/// Runs every turn the chat calls for, chains included, into `port`.
///
/// The first round answers what the user sent (or asked for); every later round is
/// an automatic continuation and follows only from the previous round's answers: a
/// message the user started meanwhile is a draft and is never sent by the engine.
/// Automatic rounds are bounded by `max_chain` whatever the messages contain.
pub async fn run<P: EditorPort>(port: &mut P, ctx: &Context) -> Result<Report, TurnError> {
    let mut report = Report::default();
    let mut targets = ctx.targets.clone();
    // The turn ids the last round wrote; None before the first round.
    let mut last_round: Option<Vec<String>> = None;
    let mut automatic_rounds = 0u32;
    // The team the last round ran with: the reply stub after it is written for it.
    let mut last_team = None;
    loop {
        let snapshot = port.snapshot().await?;
        let (text, chat) = (&*snapshot.text, &*snapshot.chat);
        // Once per round, from the server's cache in the editor.
        let team = port.chat_team(ctx, chat);
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        let (next, asked_by) = match &last_round {
            None => {
                let Some(message) = routing::last_counting(text, chat) else {
                    let why = Stopped::NoMessage;
                    port.notify(Level::Warning, &format!("nobody to ask: {why}"))
                        .await;
                    report.stopped = Some(why);
                    break;
                };
                let next = match targets.take() {
                    Some(asked) => match explicit(&roster, asked) {
                        Ok(members) => Next::Run(members),
                        Err(error) => {
                            port.notify(Level::Warning, &format!("nobody to ask: {error}"))
                                .await;
                            report.stopped = Some(Stopped::Asked(error));
                            break;
                        }
                    },
                    // A mode whose rounds follow from the file (council) goes on from
                    // them, an interrupted answer left out.
                    None => match interrupted(text, chat, message) {
                        Some(why) if !routing::mode_of(chat).rounds_from_file() => {
                            Next::Nobody(why)
                        }
                        _ => routing::next(text, chat, &roster),
                    },
                };
                let asked_by = match &next {
                    Next::Run(members) => vec![message; members.len()],
                    _ => Vec::new(),
                };
                (next, asked_by)
            }
            // The user's queued message comes before any hand-off between agents: it
            // is delivered once this run ends.
            Some(_) if queue::queued(text, chat, &roster).is_some() => (
                Next::Nobody("a queued message waits".to_owned()),
                Vec::new(),
            ),
            // A mode whose rounds follow from the file (a council, bounded by its
            // three rounds rather than `max_chain`) decides the next one itself (a
            // queued message, above, stops it).
            Some(ids) if routing::mode_of(chat).rounds_from_file() => {
                match messages_with_ids(text, chat, ids).first() {
                    Some(&at) => {
                        let (notes, next) =
                            routing::mode_of(chat).next_round(text, chat, &roster, at);
                        for note in notes {
                            port.notify(Level::Info, &note).await;
                        }
                        next
                    }
                    None => (Next::Nobody("the round wrote nothing".into()), Vec::new()),
                }
            }
            Some(ids) => {
                let answers = messages_with_ids(text, chat, ids);
                let max = chat.front_matter.as_ref().map_or(3, |fm| fm.max_chain());
                match routing::after_answers(text, chat, &roster, &answers) {
                    (Next::Run(_), _) if automatic_rounds >= max => {
                        (Next::ChainLimit(max), Vec::new())
                    }
                    decided => decided,
                }
            }
        };
        let members = match next {
            Next::Run(members) => members,
            Next::Ended => {
                if report.turns.is_empty() {
                    let why = Stopped::Ended;
                    port.notify(Level::Warning, &why.to_string()).await;
                    report.stopped = Some(why);
                }
                break;
            }
            Next::ChainLimit(max) => {
                let why = Stopped::ChainLimit(max);
                port.notify(Level::Info, &why.to_string()).await;
                report.stopped = Some(why);
                break;
            }
            Next::Nobody(why) => {
                if report.turns.is_empty() {
                    port.notify(Level::Warning, &format!("nobody to ask: {why}"))
                        .await;
                    report.stopped = Some(Stopped::Nobody(why));
                }
                break;
            }
        };
        if last_round.is_some() {
            automatic_rounds += 1;
        }
        let asked: Vec<(String, usize)> = members.into_iter().zip(asked_by).collect();
        let round = round::run_round(port, ctx, &snapshot, &roster, &asked).await?;
        last_team = Some(team.clone());
        if round.turns.is_empty() {
            // Every member was refused (already answering elsewhere in this chat).
            if report.stopped.is_none() {
                report.stopped = Some(Stopped::Refused(round.refused));
            }
            break;
        }
        // A council goes on without a member that failed (it is left out of the later
        // rounds); a cancelled turn stops it, as any failure stops a chain.
        let goes_on = routing::mode_of(&snapshot.chat).goes_on_after_failure();
        let failed = round.turns.iter().any(|t| match t.status {
            TurnStatus::Done | TurnStatus::Skipped => false,
            TurnStatus::Cancelled => true,
            _ => !goes_on,
        });
        report.turns.extend(round.turns);
        last_round = Some(round.ids);
        if failed || ctx.cancel.is_cancelled() {
            break;
        }
    }
    if let Some(team) = last_team.filter(|_| !report.turns.is_empty()) {
        append_reply_stub(port, &team).await?;
    }
    Ok(report)
}

/// Why nothing follows from the message at `index`: an answer that was interrupted
/// (its process was killed, or crashed) is partial, and hands the word to nobody.
fn interrupted(text: &str, chat: &Chat, index: usize) -> Option<String> {
    let message = &chat.messages[index];
    let comment = message.status_comment(text)?;
    (comment.status()? == TurnStatus::Interrupted).then(|| {
        let handle = message.handle(text);
        format!(
            "the last answer (@{handle}, {}) was interrupted before it ended, and a partial answer hands the word to nobody: ask @{handle} again or write your next message",
            comment.id().unwrap_or("?")
        )
    })
}

/// The indices of the messages whose status comments carry `ids`, in document order
/// (a section whose status comment the user deleted no longer counts as the round's).
fn messages_with_ids(text: &str, chat: &Chat, ids: &[String]) -> Vec<usize> {
    chat.messages
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            m.status_comment(text)
                .and_then(|c| c.id().map(|id| ids.iter().any(|i| i == id)))
                .unwrap_or(false)
        })
        .map(|(i, _)| i)
        .collect()
}

/// The team of the chat, as turns read it.
pub(crate) fn load_team(ctx: &Context, chat: &Chat) -> Team {
    team::locate(Some(&ctx.workspace_root), &ctx.chat_path, chat)
        .load(&ctx.user_config.load_trust())
}

/// The members asked for by name, or the first that is not an agent of the team.
fn explicit(roster: &Roster, asked: Vec<String>) -> Result<Vec<String>, TurnError> {
    let mut out = Vec::new();
    for handle in asked {
        let handle = handle.trim_start_matches('@');
        match roster.member(handle) {
            Some(m) if !roster.is_human(handle) => out.push(m.handle.clone()),
            _ => {
                return Err(TurnError::NotAMember {
                    handle: handle.to_string(),
                });
            }
        }
    }
    Ok(out)
}

async fn append_reply_stub<P: EditorPort>(port: &mut P, team: &Team) -> Result<(), PortError> {
    // A stub that keeps finding the document moved on is left out: it is a
    // convenience, and the user is typing anyway. Tries enough to get past another
    // program saving the chat over and over (each try waits for the file to settle).
    let stub = port.edit_until_applied(20, |snapshot| {
        let (text, chat) = (&*snapshot.text, &*snapshot.chat);
        if !chat.front_matter.as_ref().is_none_or(|fm| fm.reply_stub()) {
            return Ok::<_, PortError>(None);
        }
        let roster = Roster::new(team, chat.front_matter.as_ref());
        let last_is_human = chat
            .messages
            .last()
            .is_some_and(|m| !roster.is_ai(m.handle(text)));
        if last_is_human {
            return Ok(None);
        }
        let stub = section::reply_stub(text, &roster.human);
        Ok(Some((vec![(text.len()..text.len(), stub)], ())))
    });
    let _: Edited<()> = stub.await?;
    Ok(())
}
