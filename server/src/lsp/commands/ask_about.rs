//! `chatmd.askAbout {uri, range, member?, chat?, newChat?, text?}`: asks the team about
//! a selection in any file of the workspace. The selection (its text from `text`, else
//! from the file on disk) becomes a human message — a mention of `member`, a
//! `#file:path:lines` reference and the selection fenced — appended to `chat` (default:
//! the workspace's most recently changed `.chat.md`; with `newChat`, a new chat beside
//! it), and the message is sent; while the chat's members answer, it is queued as a
//! message the user sent then would be.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use super::{BeforeRun, failed, start};
use crate::conversation::ask_about::{Selection, message_body};
use crate::document::text::Text;
use crate::lsp::convert;
use crate::lsp::ext::CommandArgs;
use crate::lsp::state::{State, lock};

pub(super) async fn ask_about(
    client: &Client,
    state: &Arc<Mutex<State>>,
    args: CommandArgs,
) -> Result<Value> {
    let source_uri = args.uri()?;
    let source = convert::file_path(&source_uri).ok_or_else(|| {
        Error::invalid_params(format!(
            "{} is not a file on this computer: save it first",
            source_uri.as_str()
        ))
    })?;
    let range = args.range.ok_or_else(|| {
        Error::invalid_params("chatmd.askAbout needs `range`: the selection in `uri`")
    })?;
    let (root, encoding) = {
        let s = lock(state);
        (s.root_for(&source), s.encoding)
    };
    // Where the question goes, decided before anything is written: a new chat only
    // where a team can answer it.
    let target = match (&args.chat, args.new_chat == Some(true)) {
        (Some(chat), false) => Target::Chat(chat.clone(), super::chat_path(chat)?),
        (None, false) => {
            let path = most_recent_chat_path(&root).ok_or_else(|| no_chat(&root))?;
            let uri = Uri::from_file_path(&path)
                .ok_or_else(|| failed(format!("{} has no URI", path.display())))?;
            Target::Chat(uri, path)
        }
        (chat, true) => {
            let folder = match chat {
                Some(chat) => super::chat_path(chat)?.parent().map(Path::to_path_buf),
                None => {
                    most_recent_chat_path(&root).and_then(|p| p.parent().map(Path::to_path_buf))
                }
            };
            let folder = folder.unwrap_or_else(|| root.clone());
            nobody_in(state, &folder)?;
            Target::NewChatIn(folder)
        }
    };
    // The `#file:` path is read against the chat's workspace root when the message
    // is sent: written against the same root.
    let chat_root = lock(state).root_for(&target.path());
    let relative = source
        .strip_prefix(&chat_root)
        .ok()
        .and_then(Path::to_str)
        .ok_or_else(|| {
            Error::invalid_params(format!(
                "{} is outside the workspace {} of the chat {}: chatmd attaches files of the workspace only",
                source.display(),
                chat_root.display(),
                target.path().display()
            ))
        })?
        .replace('\\', "/");
    let text = match &args.text {
        Some(text) => text.clone(),
        None => selected_text(&source, range, encoding)?,
    };
    let last_line = if range.end.line > range.start.line && range.end.character == 0 {
        range.end.line
    } else {
        range.end.line + 1
    };
    let selection = Selection {
        path: &relative,
        first_line: u64::from(range.start.line) + 1,
        last_line: u64::from(last_line.max(range.start.line + 1)),
        text: &text,
    };
    let member = args.member.as_deref().map(|m| m.trim_start_matches('@'));
    let body = message_body(&selection, member);
    let chat_uri = match target {
        Target::Chat(uri, _) => uri,
        Target::NewChatIn(folder) => {
            super::new_files::create_chat(state, &folder, &selection.title())?
        }
    };
    let delivery = lock(state).running.delivery(chat_uri.as_str(), false);
    if delivery == crate::turns::runs::Delivery::Queue {
        let mut answer =
            super::queued::append_queued(client, state, chat_uri.clone(), &body).await?;
        answer["chat"] = Value::from(chat_uri.as_str());
        return Ok(answer);
    }
    let targets = member.map(|m| vec![m.to_owned()]);
    let mut answer = start(
        client,
        state,
        chat_uri.clone(),
        targets,
        Some(BeforeRun::Append { body }),
    )
    .await?;
    answer["chat"] = Value::from(chat_uri.as_str());
    Ok(answer)
}

/// The text of `range` in the file at `path`, positions in the negotiated encoding.
fn selected_text(
    path: &Path,
    range: Range,
    encoding: crate::document::text::PositionEncoding,
) -> Result<String> {
    let bytes =
        std::fs::read(path).map_err(|e| failed(format!("cannot read {}: {e}", path.display())))?;
    let content = String::from_utf8(bytes)
        .map_err(|_| Error::invalid_params(format!("{} is not UTF-8 text", path.display())))?;
    let text = Text::new(&content);
    let start = convert::offset(&text, range.start, encoding);
    let end = convert::offset(&text, range.end, encoding).max(start);
    Ok(content[start..end].to_owned())
}

/// Where a question goes: an existing chat, or a new one in a folder.
enum Target {
    Chat(Uri, PathBuf),
    NewChatIn(PathBuf),
}

impl Target {
    /// The chat's path (for a new chat, one in its folder: the root is the same).
    fn path(&self) -> PathBuf {
        match self {
            Target::Chat(_, path) => path.clone(),
            Target::NewChatIn(folder) => folder.join("new.chat.md"),
        }
    }
}

/// Why there is no chat to ask in: said so that a newcomer knows what to do.
fn no_chat(root: &Path) -> Error {
    Error::invalid_params(format!(
        "there is no .chat.md in the workspace {}: make a team with `chatmd init team` \
         (it writes a first chat, team/first.chat.md), or ask in a new chat of a team folder",
        root.display()
    ))
}

/// Refuses a new chat in `folder` when nobody there could answer it: no stray chat
/// file is left behind for a question that cannot run.
fn nobody_in(state: &Mutex<State>, folder: &Path) -> Result<()> {
    let chat = crate::document::chat::Chat::parse("");
    let found =
        crate::lsp::state::team_of(state, Some(folder.join("new.chat.md").as_path()), &chat);
    if found.team.members.is_empty() {
        return Err(Error::invalid_params(format!(
            "nobody to ask: {} has no team (no member folders). Make one with \
             `chatmd init team` in the workspace {}, then ask again",
            folder.display(),
            found.root.display()
        )));
    }
    Ok(())
}

fn most_recent_chat_path(root: &Path) -> Option<PathBuf> {
    crate::team::scan_chats(root)
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(&a.1)))
        .map(|(_, path)| path)
}
