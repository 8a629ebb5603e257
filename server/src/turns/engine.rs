//! The turn engine: reads the chat, decides who answers, appends their sections, runs
//! their agents in parallel, streams the answers into the sections (coalesced, at most
//! one edit per document every 50 ms) and follows chains until nobody is due.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::section;
use super::{Applied, EditorPort, Level, PortError};
use crate::agents::{Invocation, Registry, plan_turn};
use crate::conversation::prompt::{PromptRequest, build_prompt, role_loaded_by_cli};
use crate::conversation::roster::Roster;
use crate::conversation::routing::{self, Next};
use crate::document::chat::Chat;
use crate::document::status::TurnStatus;
use crate::team::{self, Team};

/// What a run needs besides the document.
pub struct Context {
    /// The workspace root (config paths are contained in it).
    pub workspace_root: PathBuf,
    /// The chat file's path (its folder is the default team folder).
    pub chat_path: PathBuf,
    pub registry: Arc<Registry>,
    pub cancel: CancellationToken,
    /// Members asked explicitly (`--to`); otherwise the routing rules decide.
    pub targets: Option<Vec<String>>,
    /// Folders searched for agent CLIs before `PATH` (an editor's `agentPath`).
    pub agent_path: Option<std::ffi::OsString>,
    /// The user's own config folder: what they trust in workspaces.
    pub user_config: team::UserConfig,
}

/// How one turn ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnReport {
    pub member: String,
    pub status: TurnStatus,
    pub error: Option<String>,
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub turns: Vec<TurnReport>,
    /// Why the run stopped without (more) turns, when it did not simply finish.
    pub stopped: Option<String>,
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

/// Runs every turn the chat calls for, chains included, into `port`.
///
/// The first round answers what the user sent (or asked for); every later round is
/// an automatic continuation and follows only from the previous round's answers: a
/// message the user started meanwhile is a draft and is never sent by the engine.
/// Automatic rounds are bounded by `max_chain` whatever the messages contain.
pub async fn run<P: EditorPort>(port: &mut P, ctx: &Context) -> Result<Report, PortError> {
    let mut report = Report::default();
    let mut targets = ctx.targets.clone();
    // The turn ids the last round wrote; None before the first round.
    let mut last_round: Option<Vec<String>> = None;
    let mut automatic_rounds = 0u32;
    loop {
        let text = port.text().await?;
        let chat = Chat::parse(&text);
        let team = load_team(ctx, &chat);
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        let (next, asked_by) = match &last_round {
            None => {
                let Some(message) = routing::last_counting(&text, &chat) else {
                    let why = "the chat has no message yet: write one under `## @me`";
                    port.notify(Level::Warning, &format!("nobody to ask: {why}"))
                        .await;
                    report.stopped = Some(why.to_string());
                    break;
                };
                let next = match targets.take() {
                    Some(asked) => explicit(&roster, asked),
                    None => match interrupted(&text, &chat, message) {
                        Some(why) => Next::Nobody(why),
                        None => routing::next(&text, &chat, &roster),
                    },
                };
                let asked_by = match &next {
                    Next::Run(members) => vec![message; members.len()],
                    _ => Vec::new(),
                };
                (next, asked_by)
            }
            Some(ids) => {
                let answers = messages_with_ids(&text, &chat, ids);
                let max = chat.front_matter.as_ref().map_or(3, |fm| fm.max_chain());
                match routing::after_answers(&text, &chat, &roster, &answers) {
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
                let why = "this conversation has ended (`status: ended`, `[DONE]` or `/end`); set `status: open` in the front matter to go on";
                if report.turns.is_empty() {
                    port.notify(Level::Warning, why).await;
                    report.stopped = Some(why.to_string());
                }
                break;
            }
            Next::ChainLimit(max) => {
                let why =
                    format!("stopped after {max} agent-to-agent turns (`max_chain`); your turn");
                port.notify(Level::Info, &why).await;
                report.stopped = Some(why);
                break;
            }
            Next::Nobody(why) => {
                if report.turns.is_empty() {
                    port.notify(Level::Warning, &format!("nobody to ask: {why}"))
                        .await;
                    report.stopped = Some(why);
                }
                break;
            }
        };
        if last_round.is_some() {
            automatic_rounds += 1;
        }
        let asked: Vec<(String, usize)> = members.into_iter().zip(asked_by).collect();
        let round = super::round::run_round(port, ctx, &text, &chat, &roster, &asked).await?;
        if round.turns.is_empty() {
            // Every member was refused (already answering elsewhere in this chat).
            if report.stopped.is_none() {
                report.stopped = Some(round.refused.join("; "));
            }
            break;
        }
        let failed = round
            .turns
            .iter()
            .any(|t| !matches!(t.status, TurnStatus::Done | TurnStatus::Skipped));
        report.turns.extend(round.turns);
        last_round = Some(round.ids);
        if failed || ctx.cancel.is_cancelled() {
            break;
        }
    }
    if !report.turns.is_empty() {
        append_reply_stub(port, ctx).await?;
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

fn load_team(ctx: &Context, chat: &Chat) -> Team {
    team::locate(Some(&ctx.workspace_root), &ctx.chat_path, chat)
        .load(&ctx.user_config.load_trust())
}

fn explicit(roster: &Roster, asked: Vec<String>) -> Next {
    let mut out = Vec::new();
    for handle in asked {
        let handle = handle.trim_start_matches('@');
        match roster.member(handle) {
            Some(m) if !roster.is_human(handle) => out.push(m.handle.clone()),
            _ => return Next::Nobody(format!("@{handle} is not a member of this team")),
        }
    }
    Next::Run(out)
}

/// The command line of one member's turn, or why it cannot start; for a member that
/// resumes a session, also the same turn as a new session with the whole prompt, run
/// when the CLI cannot find the session (see `turns/resume.rs`).
pub(super) fn plan(
    ctx: &Context,
    text: &str,
    chat: &Chat,
    roster: &Roster,
    member: &team::Member,
    message: usize,
) -> Result<(Invocation, crate::agents::AgentEntry, Option<Invocation>), String> {
    if let Some(why) = roster.team.trust_refusal(&member.handle) {
        return Err(why);
    }
    let entry = ctx.registry.entry(&member.agent).ok_or_else(|| {
        format!(
            "no agent kind `{}` (claude, codex, gemini, or one from ~/.config/chatmd/agents.toml)",
            member.agent
        )
    })?;
    // A trusted `chatmd.toml` may name the program; the kind's protocol stays.
    let own_program = member
        .command
        .as_ref()
        .map(|program| crate::agents::AgentEntry {
            program: program.clone(),
            install_hint: None,
            ..entry.clone()
        });
    let entry = own_program.as_ref().unwrap_or(entry);
    let last = super::resume::session_to_resume(ctx, text, chat, member, entry, message);
    let prompt = |since: Option<usize>| {
        let request = PromptRequest {
            text,
            chat,
            roster,
            member,
            message,
            role_loaded_by_cli: role_loaded_by_cli(member, &ctx.workspace_root),
            since,
        };
        build_prompt(&request).map_err(|e| e.to_string())
    };
    let command = |since: Option<usize>, session: Option<&str>| -> Result<Invocation, String> {
        let prompt = prompt(since)?;
        let mut invocation = plan_turn(entry, member, &prompt.system, &prompt.body, session);
        if let Some(extra) = &ctx.agent_path {
            crate::agents::program::put_first_on_path(&mut invocation, extra);
        }
        Ok(invocation)
    };
    let (invocation, fallback) = match &last {
        Some(last) => (
            command(Some(last.since), Some(&last.session))?,
            Some(command(None, None)?),
        ),
        None => (command(None, None)?, None),
    };
    if !program_exists(&invocation) {
        let hint = invocation
            .install_hint
            .as_deref()
            .map(|h| format!(" Install it with `{h}`."))
            .unwrap_or_default();
        return Err(format!(
            "`{}` is not installed (not found on PATH).{hint}",
            invocation.program
        ));
    }
    Ok((invocation, entry.clone(), fallback))
}

fn program_exists(invocation: &Invocation) -> bool {
    use crate::agents::program::{ProgramError, find_invoked};
    // A path that is not an executable file is left for the runner to name.
    !matches!(
        find_invoked(invocation),
        Err(ProgramError::NotInstalled { .. } | ProgramError::NotFound { .. })
    )
}

async fn append_reply_stub<P: EditorPort>(port: &mut P, ctx: &Context) -> Result<(), PortError> {
    // A stub that keeps finding the document moved on is left out: it is a
    // convenience, and the user is typing anyway.
    for _ in 0..3 {
        let text = port.text().await?;
        let chat = Chat::parse(&text);
        if !chat.front_matter.as_ref().is_none_or(|fm| fm.reply_stub()) {
            return Ok(());
        }
        let team = load_team(ctx, &chat);
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        let last_is_human = chat
            .messages
            .last()
            .is_some_and(|m| !roster.is_ai(m.handle(&text)));
        if last_is_human {
            return Ok(());
        }
        let stub = section::reply_stub(&text, &roster.human);
        if port.apply(vec![(text.len()..text.len(), stub)]).await? == Applied::Done {
            return Ok(());
        }
    }
    Ok(())
}
