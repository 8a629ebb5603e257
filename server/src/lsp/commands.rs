//! `workspace/executeCommand`: the chat commands, each taking one JSON object.
//! Commands that run turns return as soon as the turns have started; the turns go on
//! in a task of their own (an executeCommand that waited for an agent would hold one
//! of the server's few request slots for minutes).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;

mod answer;
mod ask_about;
mod new_files;
pub(super) mod queued;

use super::ext::{self, CommandArgs};
use super::port::LspPort;
use super::progress;
use super::state::{State, agent_kinds, lock, team_of};
use crate::conversation::actions;
use crate::conversation::roster::Roster;
use crate::conversation::routing;
use crate::turns::engine;
use crate::turns::runs::{self, SendRequest};
use crate::turns::{Edited, EditorPort, Snapshot, TurnError};

pub async fn execute(
    client: &Client,
    state: &Arc<Mutex<State>>,
    params: ExecuteCommandParams,
) -> Result<Option<Value>> {
    let args = CommandArgs::parse(&params)?;
    let value = match params.command.as_str() {
        ext::SEND => queued::send(client, state, args.uri()?, args.now == Some(true)).await?,
        ext::NEXT => {
            let uri = args.uri()?;
            let targets = continue_targets(state, &uri)?;
            start(client, state, uri, targets, None).await?
        }
        ext::ASK => {
            let targets = Some(vec![args.member()?]);
            start(client, state, args.uri()?, targets, None).await?
        }
        ext::CANCEL if args.queued == Some(true) => {
            queued::cancel(client, state, args.uri()?).await?
        }
        ext::CANCEL => cancel(client, state, &args.uri()?, args.member.as_deref()).await,
        ext::RETRY => retry(client, state, args.uri()?, args.line()?).await?,
        ext::FORK => new_files::fork(client, state, &args.uri()?, args.line()?).await?,
        ext::ANSWER => answer::answer(client, state, args).await?,
        ext::NEW_CHAT => {
            new_files::new_chat(client, state, args.folder.as_deref(), args.title.as_deref())
                .await?
        }
        ext::TRUST => super::trust::execute(client, state, args.uri()?).await?,
        ext::ASK_ABOUT => ask_about::ask_about(client, state, args).await?,
        ext::UNDO_CHANGE => super::changes::undo(client, state, args.uri()?, args.line()?).await?,
        ext::OPEN_CHANGE => super::changes::open(client, state, args.uri()?, args.line()?).await?,
        other => {
            return Err(Error::invalid_params(format!(
                "unknown command `{other}`; chatmd answers {}",
                ext::COMMANDS.join(", ")
            )));
        }
    };
    Ok(Some(value))
}

/// A request that was understood but failed (a file that cannot be read or written,
/// a chat that kept changing): LSP's `RequestFailed`, not the client's fault.
pub(super) fn failed(message: impl ToString) -> Error {
    Error {
        code: ErrorCode::ServerError(-32803),
        message: message.to_string().into(),
        data: None,
    }
}

pub(super) fn chat_path(uri: &Uri) -> Result<PathBuf> {
    super::convert::file_path(uri).ok_or_else(|| {
        Error::invalid_params(format!(
            "chatmd runs turns in files on this computer, and {} is not one: save the chat \
             as a .chat.md file first",
            uri.as_str()
        ))
    })
}

/// Starts the turns the chat calls for (or `targets`); answers with the members that
/// started, or why nobody did. `before` runs first in the same task (a retry takes
/// the old answer out).
async fn start(
    client: &Client,
    state: &Arc<Mutex<State>>,
    uri: Uri,
    targets: Option<Vec<String>>,
    before: Option<BeforeRun>,
) -> Result<Value> {
    let path = chat_path(&uri)?;
    let open = lock(state).documents.contains_key(&uri);
    if !open && !path.is_file() {
        return Err(Error::invalid_params(format!(
            "{} is neither open nor a file",
            path.display()
        )));
    }
    let registry = agent_kinds(state);
    let ctx = {
        let s = lock(state);
        runs::context(SendRequest {
            chat: path,
            around: s.root.clone(),
            targets,
            registry,
            agent_path: s.agent_path.clone(),
            user_config: s.user_config.clone(),
            runs: s.running.clone(),
        })
    };
    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    let outbox = progress::start(client.clone(), state.clone());
    let mut port = LspPort::new(
        client.clone(),
        state.clone(),
        uri.clone(),
        Some(outbox),
        Some(started_tx),
    );
    let task_client = client.clone();
    port.begin_run();
    let runs = lock(state).runs.clone();
    let task_state = state.clone();
    let task = runs.spawn(async move {
        let result = match before {
            Some(before) => before.run(&mut port).await,
            None => Ok(true),
        };
        let result = match result {
            Ok(true) => engine::run(&mut port, &ctx).await,
            // Nothing to do after all (a queued message someone else delivered).
            Ok(false) => Ok(engine::Report::default()),
            Err(why) => {
                port.notify(crate::turns::Level::Error, &why.to_string())
                    .await;
                Err(why)
            }
        };
        if let Err(error) = &result {
            task_client
                .show_message(MessageType::ERROR, format!("chatmd: {error}"))
                .await;
        }
        // Under the chat's name now: a rename during the run moved the count.
        let (task_uri, last) = port.end_run().await;
        drop(port);
        if last {
            queued::after_last_run(&task_state, task_uri);
        }
        result
    });
    if let Ok(members) = started_rx.await {
        return Ok(json!({ "members": members }));
    }
    // The run ended before any turn started: say why (the user was told already).
    let reason = match task.await {
        Ok(Ok(report)) => match report.stopped {
            Some(stopped) => stopped.to_string(),
            None => {
                let errors: Vec<String> = report
                    .turns
                    .iter()
                    .filter_map(|t| t.error.as_ref().map(|e| format!("@{}: {e}", t.member)))
                    .collect();
                errors.join("; ")
            }
        },
        Ok(Err(error)) => error.to_string(),
        Err(error) => format!("the run stopped unexpectedly: {error}"),
    };
    Ok(json!({ "members": [], "reason": reason }))
}

/// Continue: the members due next, a reached chain limit lifted; `None` lets the run
/// say why nobody is.
fn continue_targets(state: &Mutex<State>, uri: &Uri) -> Result<Option<Vec<String>>> {
    let (snapshot, path) = read(state, uri)?;
    let (text, chat) = (&*snapshot.text, &*snapshot.chat);
    let team = team_of(state, Some(&path), chat).team;
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    Ok(match routing::continue_next(text, chat, &roster) {
        routing::Next::Run(members) => Some(members),
        _ => None,
    })
}

async fn cancel(client: &Client, state: &Mutex<State>, uri: &Uri, member: Option<&str>) -> Value {
    let member = member.map(|m| m.trim_start_matches('@'));
    let running = lock(state).running.clone();
    let cancelled = running.cancel(uri.as_str(), member);
    if cancelled.is_empty() {
        let what = member.map_or("nothing is".to_string(), |m| format!("@{m} is not"));
        client
            .show_message(
                MessageType::INFO,
                format!("{what} answering in this chat: nothing to cancel"),
            )
            .await;
    }
    json!({ "cancelled": cancelled })
}

/// Something done to the document before a run, in the run's task.
enum BeforeRun {
    /// Take the old answer out (the range is found again on the text of the moment).
    TakeOut { member: String, line: u32 },
    /// Take the queued mark out of the queued message; `required`: without one, there
    /// is nothing to run (another run delivered it, or the user deleted it).
    Unqueue { required: bool },
    /// Append a human message with this body (`chatmd.askAbout`).
    Append { body: String },
}

impl BeforeRun {
    /// Whether the run goes on.
    async fn run(self, port: &mut LspPort) -> std::result::Result<bool, TurnError> {
        let (member, line) = match self {
            BeforeRun::TakeOut { member, line } => (member, line),
            BeforeRun::Unqueue { required } => {
                return Ok(queued::unmark(port).await? || !required);
            }
            BeforeRun::Append { body } => return append(port, &body).await.map(|()| true),
        };
        // The team is read before the edit is computed (the port is borrowed then).
        let chat = port.snapshot().await?.chat;
        let team = port.team(&chat);
        let taken = port.edit_until_applied(20, |snapshot| {
            let (text, chat) = (&*snapshot.text, &*snapshot.chat);
            let roster = Roster::new(&team, chat.front_matter.as_ref());
            let (found, range) = actions::retry(text, chat, &roster, line)?;
            if found != member {
                return Err(TurnError::AnswerMoved {
                    found,
                    member: member.clone(),
                });
            }
            Ok(Some((vec![(range, String::new())], ())))
        });
        match taken.await? {
            Edited::Applied(()) | Edited::Unneeded => Ok(true),
            Edited::GaveUp => Err(TurnError::KeptChanging { again: "retry" }),
        }
    }
}

/// Appends a human message with `body` at the end of the chat.
async fn append(port: &mut LspPort, body: &str) -> std::result::Result<(), TurnError> {
    let appended = port.edit_until_applied(20, |snapshot| {
        let (text, chat) = (&*snapshot.text, &*snapshot.chat);
        let human = chat
            .front_matter
            .as_ref()
            .map_or(crate::document::front_matter::DEFAULT_HUMAN, |fm| {
                fm.human()
            });
        let edit = crate::conversation::ask_about::append_edit(text, chat, human, body);
        Ok::<_, TurnError>(Some((vec![edit], ())))
    });
    match appended.await? {
        Edited::Applied(()) | Edited::Unneeded => Ok(()),
        Edited::GaveUp => Err(TurnError::KeptChanging { again: "ask" }),
    }
}

async fn retry(client: &Client, state: &Arc<Mutex<State>>, uri: Uri, line: u32) -> Result<Value> {
    let (snapshot, path) = read(state, &uri)?;
    let (text, chat) = (&*snapshot.text, &*snapshot.chat);
    let team = team_of(state, Some(&path), chat).team;
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let member = match actions::retry(text, chat, &roster, line) {
        Ok((member, _)) => member,
        Err(why) => return Ok(refused(client, why.into()).await),
    };
    if lock(state).running.is_running(uri.as_str(), &member) {
        return Ok(refused(client, TurnError::StillAnswering { member }).await);
    }
    let before = BeforeRun::TakeOut {
        member: member.clone(),
        line,
    };
    start(client, state, uri, Some(vec![member]), Some(before)).await
}

/// A run refused before it started: the user is told why, and so is the caller.
async fn refused(client: &Client, why: TurnError) -> Value {
    let why = why.to_string();
    client.show_message(MessageType::WARNING, &why).await;
    json!({ "members": [], "reason": why })
}

/// The chat as it is: the editor's text and parsed chat when it is open, else the
/// file's (parsed here).
pub(super) fn read(state: &Mutex<State>, uri: &Uri) -> Result<(Snapshot, PathBuf)> {
    let path = chat_path(uri)?;
    if let Some(doc) = lock(state).documents.get(uri) {
        let snapshot = Snapshot {
            text: doc.flat(),
            chat: doc.chat.clone(),
            version: i64::from(doc.version),
        };
        return Ok((snapshot, path));
    }
    let bytes =
        std::fs::read(&path).map_err(|e| failed(format!("cannot read {}: {e}", path.display())))?;
    let text =
        crate::document::decode(&bytes).map_err(|e| failed(format!("{}: {e}", path.display())))?;
    Ok((Snapshot::parse(text, 0), path))
}
