//! Commands that create chat files: Fork from here and New Chat. Neither overwrites
//! a file; both ask the editor to show what they created.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{Value, json};
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use super::{failed, read};
use crate::conversation::actions;
use crate::conversation::roster::Roster;
use crate::document::chat::Chat;
use crate::lsp::state::{State, lock, team_of};
use crate::turns::file_port::create;

pub(super) async fn fork(
    client: &Client,
    state: &Mutex<State>,
    uri: &Uri,
    line: u32,
) -> Result<Value> {
    let (snapshot, path) = read(state, uri)?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("chat.chat.md");
    let forked = actions::fork(&snapshot.text, &snapshot.chat, line, name)
        .map_err(|e| Error::invalid_params(e.to_string()))?;
    let stem = name.strip_suffix(".chat.md").unwrap_or(name);
    let folder = path.parent().unwrap_or(Path::new("."));
    let created = create_unique(folder, &format!("{stem}-fork"), &forked)?;
    show(client, state, &created).await
}

pub(super) async fn new_chat(
    client: &Client,
    state: &Mutex<State>,
    folder: Option<&str>,
    title: Option<&str>,
) -> Result<Value> {
    let folder = match folder {
        // A URI (`file:///…`) or a plain path.
        Some(folder) => folder
            .parse::<Uri>()
            .ok()
            .filter(|u| u.scheme().as_str() == "file")
            .and_then(|u| u.to_file_path().map(|p| p.into_owned()))
            .unwrap_or_else(|| PathBuf::from(folder)),
        None => lock(state).root.clone().ok_or_else(|| {
            Error::invalid_params("chatmd.newChat needs `folder` when no workspace is open")
        })?,
    };
    if !folder.is_dir() {
        return Err(Error::invalid_params(format!(
            "{} is not a folder",
            folder.display()
        )));
    }
    let created = create_new_chat(state, &folder, title.unwrap_or("New chat"))?;
    show(client, state, &created).await
}

/// A new chat titled `title` in `folder` (its file name from the title, never over a
/// file), for the team of that folder; answers with its URI (`chatmd.askAbout`).
pub(super) fn create_chat(state: &Mutex<State>, folder: &Path, title: &str) -> Result<Uri> {
    let created = create_new_chat(state, folder, title)?;
    Uri::from_file_path(&created)
        .ok_or_else(|| Error::invalid_params(format!("{} has no URI", created.display())))
}

fn create_new_chat(state: &Mutex<State>, folder: &Path, title: &str) -> Result<PathBuf> {
    let probe = folder.join("new.chat.md");
    let team = team_of(state, Some(&probe), &Chat::default()).team;
    let human = Roster::new(&team, None).human;
    create_unique(
        folder,
        &actions::slug(title),
        &actions::new_chat(title, &human),
    )
}

/// Writes `text` to `<stem>.chat.md` in `folder`, or `<stem>-2.chat.md`, ... (never
/// over an existing file).
fn create_unique(folder: &Path, stem: &str, text: &str) -> Result<PathBuf> {
    create::create_unique(folder, stem, text).map_err(|e| match e {
        create::CreateError::TooMany { .. } => Error::invalid_params(e.to_string()),
        _ => failed(e.to_string()),
    })
}

/// Asks the editor to show a file chatmd created; answers with its URI.
async fn show(client: &Client, state: &Mutex<State>, path: &Path) -> Result<Value> {
    let uri = Uri::from_file_path(path)
        .ok_or_else(|| Error::invalid_params(format!("{} has no URI", path.display())))?;
    if lock(state).client_flags.show_document {
        let params = ShowDocumentParams {
            uri: uri.clone(),
            external: Some(false),
            take_focus: Some(true),
            selection: None,
        };
        let client = client.clone();
        // Not awaited here: the editor may open the file (and send didOpen) before it
        // answers, and this request holds a slot until then.
        tokio::spawn(async move {
            let _ = client.show_document(params).await;
        });
    }
    Ok(json!({ "uri": uri.as_str() }))
}
