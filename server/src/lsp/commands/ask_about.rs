//! `chatmd.askAbout {uri, range, member?, chat?, text?}`: asks the team about a
//! selection in any file of the workspace. The selection (its text from `text`, else
//! from the file on disk) becomes a human message — a mention of `member`, a
//! `#file:path:lines` reference and the selection fenced — appended to `chat` (default:
//! the workspace's most recently changed `.chat.md`), and the message is sent.

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
    let chat_uri = match &args.chat {
        Some(chat) => chat.clone(),
        None => most_recent_chat(&root)?,
    };
    let relative = source
        .strip_prefix(&root)
        .ok()
        .and_then(Path::to_str)
        .ok_or_else(|| {
            Error::invalid_params(format!(
                "{} is outside the workspace {}: chatmd attaches files of the workspace only",
                source.display(),
                root.display()
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

/// The workspace's most recently changed chat.
fn most_recent_chat(root: &Path) -> Result<Uri> {
    let newest: Option<(std::time::SystemTime, PathBuf)> = crate::team::scan_chats(root)
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(&a.1)));
    let (_, path) = newest.ok_or_else(|| {
        Error::invalid_params(format!(
            "there is no .chat.md in the workspace {}: create one (chatmd.newChat) or pass `chat`",
            root.display()
        ))
    })?;
    Uri::from_file_path(&path).ok_or_else(|| failed(format!("{} has no URI", path.display())))
}
