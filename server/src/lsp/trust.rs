//! Workspace trust in the editor: a warning on chats whose team has settings waiting
//! for trust, the "Trust this chatmd.toml…" code action, and `chatmd.trust`, which
//! shows what the file would run (`window/showMessageRequest`) and records it only when
//! the user says Trust. Clients without dialogs (Helix) run `chatmd.trust` by name: the
//! command itself is the user's explicit act, like `chatmd trust` in a terminal.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use super::diagnostics::to_diagnostic;
use super::state::{Document, State, lock};
use super::{convert, ext};
use crate::conversation::problems::Problem;
use crate::document::ByteRange;
use crate::document::text::PositionEncoding;
use crate::team::trust::{TrustItem, key_list, trust_command};
use crate::team::{CONFIG_FILE_NAME, Severity, Team, UNTRUSTED_CODE, trust_summary};

/// The dialog's button that records the trust.
const TRUST_BUTTON: &str = "Trust";

/// One warning per untrusted `chatmd.toml` of the team, at `top` of the chat.
pub fn chat_problems(team: &Team, top: &ByteRange) -> Vec<Problem> {
    team.untrusted
        .iter()
        .map(|config| {
            let members: Vec<String> = config
                .members()
                .iter()
                .map(|handle| format!("@{handle} ({})", key_list(&config.keys_of(handle))))
                .collect();
            // Allow rules left out only make the members ask: they still run.
            let until_then = if config.items.iter().any(|i| i.key.blocks_member()) {
                "these members are not run until then"
            } else {
                "until then these members ask you instead"
            };
            Problem {
                range: top.clone(),
                severity: Severity::Warning,
                code: UNTRUSTED_CODE,
                message: format!(
                    "{} sets {} that apply only once you trust the file; {until_then}. \
                     Review it, then use the quick fix \"Trust…\" or run `{}`",
                    config.file.display(),
                    members.join(", "),
                    trust_command(&config.file)
                ),
                fixes: Vec::new(),
            }
        })
        .collect()
}

/// "Trust this chatmd.toml…" on a `chatmd.toml` that waits for trust (where the
/// requested range meets one of its settings), and "Trust <file>…" on a chat whose
/// team waits (at its warning). Only for clients that can ask the user first.
pub fn code_actions(
    state: &Mutex<State>,
    doc: &Document,
    enc: PositionEncoding,
    wanted: &ByteRange,
    chat_problems: &[Problem],
    team: &Team,
) -> Vec<CodeAction> {
    if !lock(state).client_flags.show_message_request {
        return Vec::new();
    }
    let overlaps = |r: &ByteRange| r.start <= wanted.end && wanted.start <= r.end;
    let Some(path) = &doc.path else {
        return Vec::new();
    };
    if is_config(path) {
        let root = lock(state).root_for(path);
        let text = doc.flat();
        let items = trust_summary(&root, path, &text).unwrap_or_default();
        if items.is_empty() || user_trust(state).trusts_file(path, text.as_bytes()) {
            return Vec::new();
        }
        let diagnostics: Vec<Diagnostic> = items
            .iter()
            .filter(|item| overlaps(&item.range))
            .map(|item| Diagnostic {
                range: convert::range(&doc.text, &item.range, enc),
                severity: Some(DiagnosticSeverity::WARNING),
                code: Some(NumberOrString::String(UNTRUSTED_CODE.to_owned())),
                source: Some("chatmd".to_owned()),
                ..Default::default()
            })
            .collect();
        if diagnostics.is_empty() {
            return Vec::new();
        }
        return vec![action("Trust this chatmd.toml…", path, diagnostics)];
    }
    let diagnostics: Vec<Diagnostic> = chat_problems
        .iter()
        .filter(|p| p.code == UNTRUSTED_CODE && overlaps(&p.range))
        .map(|p| to_diagnostic(&doc.text, p, enc))
        .collect();
    if diagnostics.is_empty() {
        return Vec::new();
    }
    let root = lock(state).root_for(path);
    team.untrusted
        .iter()
        .map(|config| {
            let shown = config.file.strip_prefix(&root).unwrap_or(&config.file);
            let title = format!("Trust {}…", shown.display());
            action(&title, &config.file, diagnostics.clone())
        })
        .collect()
}

fn action(title: &str, file: &Path, diagnostics: Vec<Diagnostic>) -> CodeAction {
    let uri = Uri::from_file_path(file).map(|u| u.as_str().to_owned());
    CodeAction {
        title: title.to_owned(),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(diagnostics),
        command: Some(Command {
            title: title.to_owned(),
            command: ext::TRUST.to_owned(),
            arguments: Some(vec![json!({ "uri": uri })]),
        }),
        ..Default::default()
    }
}

pub(super) fn is_config(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name == CONFIG_FILE_NAME)
}

fn user_trust(state: &Mutex<State>) -> crate::team::UserTrust {
    let config = lock(state).user_config.clone();
    config.load_trust()
}

/// `chatmd.trust {uri}`: shows what the file sets that needs trust and records it when
/// the user agrees (or at once for a client without dialogs). Answers
/// `{"trusted": bool, "file": path}`.
pub async fn execute(client: &Client, state: &Arc<Mutex<State>>, uri: Uri) -> Result<Value> {
    let path: PathBuf = uri
        .to_file_path()
        .map(|p| p.into_owned())
        .ok_or_else(|| Error::invalid_params("chatmd.trust works on files: give a file: URI"))?;
    if crate::team::is_chat_file(&path) {
        return super::trust_chat::execute(client, state, &uri, &path).await;
    }
    if crate::team::agent_settings::is_agent_settings(&path) {
        return super::trust_chat::execute_settings(client, state, &path).await;
    }
    if !is_config(&path) {
        return Err(Error::invalid_params(format!(
            "chatmd.trust takes the URI of a {CONFIG_FILE_NAME}, a chat or an agent's settings \
             file, not {}",
            path.display()
        )));
    }
    let bytes = std::fs::read(&path)
        .map_err(|e| Error::invalid_params(format!("cannot read {}: {e}", path.display())))?;
    let text = String::from_utf8_lossy(&bytes);
    let (root, can_ask, user_config) = {
        let s = lock(state);
        (
            s.root_for(&path),
            s.client_flags.show_message_request,
            s.user_config.clone(),
        )
    };
    let answer = |trusted: bool| json!({ "trusted": trusted, "file": path.display().to_string() });
    let items = trust_summary(&root, &path, &text)
        .map_err(|why| Error::invalid_params(format!("{}: {why}; fix it first", path.display())))?;
    if user_config.load_trust().trusts_file(&path, &bytes) {
        let message = format!("{} is already trusted", path.display());
        client.show_message(MessageType::INFO, message).await;
        return Ok(answer(true));
    }
    if can_ask {
        let question = format!(
            "Trust {}? chatmd would then run, on Send: {}. Trust it only if you know what \
             these do; a change to the file needs your trust again.",
            path.display(),
            summary(&items)
        );
        let buttons = vec![
            MessageActionItem {
                title: TRUST_BUTTON.to_owned(),
                properties: Default::default(),
            },
            MessageActionItem {
                title: "Cancel".to_owned(),
                properties: Default::default(),
            },
        ];
        let chosen = client
            .show_message_request(MessageType::WARNING, question, Some(buttons))
            .await;
        match chosen {
            Ok(Some(item)) if item.title == TRUST_BUTTON => {}
            Ok(_) => return Ok(answer(false)),
            Err(error) => {
                tracing::warn!("the client could not ask about trust: {error}");
                let message = format!(
                    "chatmd could not ask you; run `{}` in a terminal",
                    trust_command(&path)
                );
                client.show_message(MessageType::WARNING, message).await;
                return Ok(answer(false));
            }
        }
    }
    // The hash of the very text the user was shown: a file changed meanwhile stays
    // untrusted.
    user_config
        .trust_file(&path, &bytes)
        .map_err(|e| Error::invalid_params(e.to_string()))?;
    let message = format!("Trusted {}: {}", path.display(), summary(&items));
    client.show_message(MessageType::INFO, message).await;
    refresh(client, state).await;
    Ok(answer(true))
}

/// `@bob: command = "x", env A = "1"; @tester: …`, or that nothing needs trust.
fn summary(items: &[TrustItem]) -> String {
    let mut members: Vec<(&str, Vec<&str>)> = Vec::new();
    for item in items {
        let lines = item.shown.iter().map(String::as_str);
        match members
            .iter_mut()
            .find(|(m, _)| m.eq_ignore_ascii_case(&item.member))
        {
            Some((_, shown)) => shown.extend(lines),
            None => members.push((&item.member, lines.collect())),
        }
    }
    if members.is_empty() {
        return "nothing that runs programs (no command, args, env or home)".to_owned();
    }
    members
        .iter()
        .map(|(member, shown)| format!("@{member}: {}", shown.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Teams are read again with the new trust, and every open document's diagnostics
/// (with the team's problems on `chatmd.toml`) are published again.
pub(super) async fn refresh(client: &Client, state: &Arc<Mutex<State>>) {
    let open: Vec<(Uri, i32)> = {
        let mut s = lock(state);
        s.forget_teams();
        s.documents
            .values()
            .map(|d| (d.uri.clone(), d.version))
            .collect()
    };
    for (uri, version) in open {
        super::diagnostics::publish(client.clone(), state.clone(), uri, version, false).await;
    }
}

/// Drops the cached teams when the trust store changed since they were read (the
/// user ran `chatmd trust` in a terminal).
pub fn forget_teams_if_trust_changed(state: &Mutex<State>) {
    let store = lock(state).user_config.trust_store();
    let stamp = store
        .and_then(|p| std::fs::metadata(p).ok())
        .and_then(|m| m.modified().ok());
    let mut s = lock(state);
    if s.trust_stamp != stamp {
        s.trust_stamp = stamp;
        s.forget_teams();
    }
}
