//! `workspace/executeCommand`: the chat commands, each taking one JSON object.
//! Commands that run turns return as soon as the turns have started; the turns go on
//! in a task of their own (an executeCommand that waited for an agent would hold one
//! of the server's few request slots for minutes).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

mod new_files;

use super::ext::{self, CommandArgs};
use super::port::LspPort;
use super::progress;
use super::state::{State, agent_kinds, lock, team_of};
use crate::conversation::roster::Roster;
use crate::conversation::routing;
use crate::document::chat::Chat;
use crate::turns::engine::{self, Context};
use crate::turns::{Applied, EditorPort, actions};

pub async fn execute(
    client: &Client,
    state: &Arc<Mutex<State>>,
    params: ExecuteCommandParams,
) -> Result<Option<Value>> {
    let args = CommandArgs::parse(&params)?;
    let value = match params.command.as_str() {
        ext::SEND => start(client, state, args.uri()?, None, None).await?,
        ext::NEXT => {
            let uri = args.uri()?;
            let targets = continue_targets(state, &uri)?;
            start(client, state, uri, targets, None).await?
        }
        ext::ASK => {
            let targets = Some(vec![args.member()?]);
            start(client, state, args.uri()?, targets, None).await?
        }
        ext::CANCEL => cancel(client, state, &args.uri()?, args.member.as_deref()).await,
        ext::RETRY => retry(client, state, args.uri()?, args.line()?).await?,
        ext::FORK => new_files::fork(client, state, &args.uri()?, args.line()?).await?,
        ext::ANSWER => answer(client, state, args).await?,
        ext::NEW_CHAT => {
            new_files::new_chat(client, state, args.folder.as_deref(), args.title.as_deref())
                .await?
        }
        ext::TRUST => super::trust::execute(client, state, args.uri()?).await?,
        other => {
            return Err(Error::invalid_params(format!(
                "unknown command `{other}`; chatmd answers {}",
                ext::COMMANDS.join(", ")
            )));
        }
    };
    Ok(Some(value))
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
    let (root, agent_path, user_config) = {
        let s = lock(state);
        (
            s.root_for(&path),
            s.agent_path.clone(),
            s.user_config.clone(),
        )
    };
    let ctx = Context {
        workspace_root: root,
        chat_path: path,
        registry: agent_kinds(state),
        cancel: CancellationToken::new(),
        targets,
        agent_path,
        user_config,
    };
    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    let outbox = progress::start(client.clone(), state.clone());
    let mut port = LspPort::new(
        client.clone(),
        state.clone(),
        uri,
        Some(outbox),
        Some(started_tx),
    );
    let task_client = client.clone();
    let runs = lock(state).runs.clone();
    let task = runs.spawn(async move {
        if let Some(before) = before
            && let Err(why) = before.run(&mut port).await
        {
            port.notify(crate::turns::Level::Error, &why).await;
            return Err(why);
        }
        let result = engine::run(&mut port, &ctx).await;
        if let Err(error) = &result {
            task_client
                .show_message(MessageType::ERROR, format!("chatmd: {error}"))
                .await;
        }
        result.map_err(|e| e.to_string())
    });
    if let Ok(members) = started_rx.await {
        return Ok(json!({ "members": members }));
    }
    // The run ended before any turn started: say why (the user was told already).
    let reason = match task.await {
        Ok(Ok(report)) => report.stopped.unwrap_or_else(|| {
            let errors: Vec<String> = report
                .turns
                .iter()
                .filter_map(|t| t.error.as_ref().map(|e| format!("@{}: {e}", t.member)))
                .collect();
            errors.join("; ")
        }),
        Ok(Err(error)) => error,
        Err(error) => format!("the run stopped unexpectedly: {error}"),
    };
    Ok(json!({ "members": [], "reason": reason }))
}

/// Continue: the members due next, a reached chain limit lifted; `None` lets the run
/// say why nobody is.
fn continue_targets(state: &Mutex<State>, uri: &Uri) -> Result<Option<Vec<String>>> {
    let (text, path) = read(state, uri)?;
    let chat = Chat::parse(&text);
    let team = team_of(state, Some(&path), &chat).team;
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    Ok(match routing::continue_next(&text, &chat, &roster) {
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
}

impl BeforeRun {
    async fn run(self, port: &mut LspPort) -> std::result::Result<(), String> {
        let BeforeRun::TakeOut { member, line } = self;
        for _ in 0..20 {
            let text = port.text().await.map_err(|e| e.to_string())?;
            let chat = Chat::parse(&text);
            let team = port.team(&chat);
            let roster = Roster::new(&team, chat.front_matter.as_ref());
            let (found, range) = actions::retry(&text, &chat, &roster, line)?;
            if found != member {
                return Err(format!(
                    "the answer on that line is now @{found}'s, not @{member}'s"
                ));
            }
            match port.apply(vec![(range, String::new())]).await {
                Ok(Applied::Done) => return Ok(()),
                Ok(Applied::Stale) => continue,
                Err(e) => return Err(e.to_string()),
            }
        }
        Err("the chat kept changing; retry again".into())
    }
}

async fn retry(client: &Client, state: &Arc<Mutex<State>>, uri: Uri, line: u32) -> Result<Value> {
    let (text, path) = read(state, &uri)?;
    let chat = Chat::parse(&text);
    let team = team_of(state, Some(&path), &chat).team;
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let member = match actions::retry(&text, &chat, &roster, line) {
        Ok((member, _)) => member,
        Err(why) => {
            client.show_message(MessageType::WARNING, &why).await;
            return Ok(json!({ "members": [], "reason": why }));
        }
    };
    if lock(state).running.is_running(uri.as_str(), &member) {
        let why = format!("@{member} is still answering; cancel it first");
        client.show_message(MessageType::WARNING, &why).await;
        return Ok(json!({ "members": [], "reason": why }));
    }
    let before = BeforeRun::TakeOut {
        member: member.clone(),
        line,
    };
    start(client, state, uri, Some(vec![member]), Some(before)).await
}

/// The text of a chat: the editor's when it is open, else the file's.
pub(super) fn read(state: &Mutex<State>, uri: &Uri) -> Result<(String, PathBuf)> {
    let path = chat_path(uri)?;
    if let Some(doc) = lock(state).documents.get(uri) {
        return Ok((doc.flat().to_string(), path));
    }
    let bytes = std::fs::read(&path)
        .map_err(|e| Error::invalid_params(format!("cannot read {}: {e}", path.display())))?;
    let text = crate::document::decode(&bytes)
        .map_err(|e| Error::invalid_params(format!("{}: {e}", path.display())))?;
    Ok((text.to_string(), path))
}

/// Rewrites a permission block with the answer. No agent writes such blocks yet, nor
/// hears the answer: see `document::permission`.
async fn answer(client: &Client, state: &Arc<Mutex<State>>, args: CommandArgs) -> Result<Value> {
    let uri = args.uri()?;
    let request = args
        .request
        .clone()
        .ok_or_else(|| Error::invalid_params("chatmd.answer needs `request`: the request id"))?;
    let option = args.option.clone().ok_or_else(|| {
        Error::invalid_params("chatmd.answer needs `option`: e.g. \"allow once\"")
    })?;
    let mut port = LspPort::new(client.clone(), state.clone(), uri, None, None);
    for _ in 0..20 {
        let text = port
            .text()
            .await
            .map_err(|e| Error::invalid_params(e.to_string()))?;
        let chat = Chat::parse(&text);
        let edit = match actions::answer(&text, &chat, &request, &option) {
            Ok(edit) => edit,
            Err(why) => {
                client.show_message(MessageType::WARNING, &why).await;
                return Ok(json!({ "answered": false, "reason": why }));
            }
        };
        match port.apply(vec![edit]).await {
            Ok(Applied::Done) => return Ok(json!({ "answered": true, "option": option })),
            Ok(Applied::Stale) => continue,
            Err(e) => return Err(Error::invalid_params(e.to_string())),
        }
    }
    Err(Error::invalid_params(
        "the chat kept changing; answer again",
    ))
}
