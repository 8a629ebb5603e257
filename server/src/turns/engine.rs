//! The turn engine: reads the chat, decides who answers, appends their sections, runs
//! their agents in parallel, streams the answers into the sections (coalesced, at most
//! one edit per document every 50 ms) and follows chains until nobody is due.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::anchors::{Anchors, Places};
use super::live::{Live, on_end, on_event};
use super::section::{self, Ending};
use super::{EditorPort, Level, PortError};
use crate::agents::{AgentEvent, Registry, parser_for, plan_turn};
use crate::conversation::output::OutputFilter;
use crate::conversation::prompt::{PromptRequest, build_prompt, role_loaded_by_cli};
use crate::conversation::roster::Roster;
use crate::conversation::routing::{self, Next};
use crate::document::ByteRange;
use crate::document::chat::Chat;
use crate::document::status::TurnStatus;
use crate::runner::RunOutcome;
use crate::team::{self, Team};

/// How often buffered answer text is written into the document.
const FLUSH_EVERY: Duration = Duration::from_millis(50);

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
pub async fn run<P: EditorPort>(port: &mut P, ctx: &Context) -> Result<Report, PortError> {
    let mut report = Report::default();
    let mut targets = ctx.targets.clone();
    loop {
        let text = port.text().await?;
        let chat = Chat::parse(&text);
        let team = load_team(ctx, &chat);
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        let next = match targets.take() {
            Some(asked) => explicit(&roster, asked),
            None => routing::next(&text, &chat, &roster),
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
        let Some(message) = routing::last_counting(&text, &chat) else {
            break;
        };
        let round = run_round(port, ctx, &text, &chat, &roster, message, &members).await?;
        let failed = round
            .iter()
            .any(|t| !matches!(t.status, TurnStatus::Done | TurnStatus::Skipped));
        report.turns.extend(round);
        if failed || ctx.cancel.is_cancelled() {
            break;
        }
    }
    if !report.turns.is_empty() {
        append_reply_stub(port, ctx).await?;
    }
    Ok(report)
}

fn load_team(ctx: &Context, chat: &Chat) -> Team {
    let fm_team = chat
        .front_matter
        .as_ref()
        .and_then(|fm| fm.team.as_ref())
        .map(|t| t.value.as_str());
    let folder = team::resolve_team_folder(&ctx.workspace_root, &ctx.chat_path, fm_team)
        .unwrap_or_else(|_| {
            ctx.chat_path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default()
        });
    team::load_team(&ctx.workspace_root, &folder)
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

enum Msg {
    Event(usize, AgentEvent),
    Ended(usize, RunOutcome),
}

async fn run_round<P: EditorPort>(
    port: &mut P,
    ctx: &Context,
    text: &str,
    chat: &Chat,
    roster: &Roster<'_>,
    message: usize,
    members: &[String],
) -> Result<Vec<TurnReport>, PortError> {
    let mut reports = Vec::new();
    let mut planned = Vec::new();
    for handle in members {
        let Some(member) = roster.member(handle) else {
            continue;
        };
        match plan(ctx, text, chat, roster, member, message) {
            Ok((invocation, entry)) => planned.push((member, invocation, entry)),
            Err(error) => {
                // Nothing was started: no section is written, the user is told why.
                port.notify(Level::Error, &format!("@{handle}: {error}"))
                    .await;
                reports.push(TurnReport {
                    member: member.handle.clone(),
                    status: TurnStatus::Error,
                    error: Some(error),
                });
            }
        }
    }
    if planned.is_empty() {
        return Ok(reports);
    }

    // Append every section at once, in the order the turns start.
    let first = section::next_turn_number(text, chat);
    let mut insert = String::new();
    let mut anchors = Anchors::default();
    let mut live = Vec::new();
    for (number, (member, _, _)) in (first..).zip(&planned) {
        let status = section::queued(&format!("t{number}"), &member.agent);
        let (piece, status_range, body) =
            section::new_section(&format!("{text}{insert}"), &member.handle, &status);
        let base = text.len() + insert.len();
        anchors.add(Places {
            status: base + status_range.start..base + status_range.end,
            body_start: base + body,
            end: base + body,
        });
        insert.push_str(&piece);
        live.push(Live {
            member: member.handle.clone(),
            status,
            status_dirty: true,
            filter: OutputFilter::new(),
            pending: String::new(),
            at_line_start: true,
            crlf: section::line_break(text) == "\r\n",
            answer: String::new(),
            tools: Vec::new(),
            ending: Ending::default(),
            started: Instant::now(),
            done: false,
        });
    }
    port.apply(vec![(text.len()..text.len(), insert)]).await?;

    let (tx, mut rx) = mpsc::channel::<Msg>(256);
    for (i, (_, invocation, entry)) in planned.into_iter().enumerate() {
        let tx = tx.clone();
        let cancel = ctx.cancel.child_token();
        tokio::spawn(async move {
            let (events_tx, mut events_rx) = mpsc::channel(256);
            let turn = crate::runner::run(invocation, parser_for(&entry), events_tx, cancel);
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
        live[i].started = Instant::now();
    }
    drop(tx);

    let mut tick = tokio::time::interval(FLUSH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    flush(port, &mut live, &mut anchors).await?;
    while live.iter().any(|t| !t.done) {
        tokio::select! {
            msg = rx.recv() => match msg {
                Some(Msg::Event(i, event)) => on_event(port, &mut live[i], event),
                Some(Msg::Ended(i, outcome)) => {
                    on_end(&mut live[i], &outcome);
                    flush(port, &mut live, &mut anchors).await?;
                    let t = &live[i];
                    if let Some(error) = &t.ending.error {
                        port.notify(Level::Error, &format!("@{}: {error}", t.member)).await;
                    }
                }
                None => break,
            },
            _ = tick.tick() => flush(port, &mut live, &mut anchors).await?,
        }
    }
    flush(port, &mut live, &mut anchors).await?;
    reports.extend(live.into_iter().map(|t| TurnReport {
        member: t.member,
        status: t.status.status().unwrap_or(TurnStatus::Error),
        error: t.ending.error,
    }));
    Ok(reports)
}

/// The command line of one member's turn, or why it cannot start.
fn plan(
    ctx: &Context,
    text: &str,
    chat: &Chat,
    roster: &Roster,
    member: &team::Member,
    message: usize,
) -> Result<(crate::agents::Invocation, crate::agents::AgentEntry), String> {
    let entry = ctx.registry.entry(&member.agent).ok_or_else(|| {
        format!(
            "no agent kind `{}` (claude, codex, gemini, or one from ~/.config/chatmd/agents.toml)",
            member.agent
        )
    })?;
    let request = PromptRequest {
        text,
        chat,
        roster,
        member,
        message,
        role_loaded_by_cli: role_loaded_by_cli(member, &ctx.workspace_root),
        since: None,
    };
    let prompt = build_prompt(&request).map_err(|e| e.to_string())?;
    let invocation = plan_turn(entry, member, &prompt.system, &prompt.body, None);
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
    Ok((invocation, entry.clone()))
}

fn program_exists(invocation: &crate::agents::Invocation) -> bool {
    let program = &invocation.program;
    if program.contains('/') {
        return invocation.cwd.join(program).exists();
    }
    match invocation.env.iter().rev().find(|(k, _)| k == "PATH") {
        Some((_, path)) => team::find_in(program, std::ffi::OsStr::new(path)).is_some(),
        None => team::find_on_path(program).is_some(),
    }
}

/// Writes every turn's buffered text at its place and its status comment if it
/// changed, as one edit.
async fn flush<P: EditorPort>(
    port: &mut P,
    live: &mut [Live],
    anchors: &mut Anchors,
) -> Result<(), PortError> {
    for (range, new_len) in port.external_changes().await? {
        anchors.apply(&range, new_len);
    }
    let mut edits: Vec<(ByteRange, String)> = Vec::new();
    for (i, t) in live.iter_mut().enumerate() {
        let places = anchors.get(i).clone();
        if t.status_dirty {
            edits.push((places.status.clone(), t.status.render()));
            t.status_dirty = false;
        }
        if t.status.status() == Some(TurnStatus::Skipped) && places.end > places.body_start {
            edits.push((places.body_start..places.end, String::new()));
        } else if !t.pending.is_empty() {
            t.at_line_start = t.pending.ends_with('\n');
            let mut text = std::mem::take(&mut t.pending);
            if t.crlf {
                text = text.replace("\r\n", "\n").replace('\n', "\r\n");
            }
            edits.push((places.end..places.end, text));
        }
    }
    if edits.is_empty() {
        return Ok(());
    }
    edits.sort_by_key(|(r, _)| (r.start, r.end));
    port.apply(edits.clone()).await?;
    anchors.apply_all(&edits);
    Ok(())
}

async fn append_reply_stub<P: EditorPort>(port: &mut P, ctx: &Context) -> Result<(), PortError> {
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
    port.apply(vec![(text.len()..text.len(), stub)]).await
}
