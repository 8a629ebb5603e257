//! A chat's own allow rules in the editor: a warning on each rule the user has not
//! trusted in this chat (it is left out until then, so the member asks), the quick fix
//! "Trust the permission rules of this chat…", and `chatmd.trust` on a chat, which
//! shows the rules and records them only when the user says Trust (at once for a
//! client without dialogs: running the command by name is the user's own act).
//! `chatmd.trust` on an agent CLI's settings file in a member's folder is here too.

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use super::diagnostics::to_diagnostic;
use super::ext;
use super::state::{Document, State, lock};
use crate::conversation::problems::Problem;
use crate::document::ByteRange;
use crate::document::chat::Chat;
use crate::document::text::PositionEncoding;
use crate::team::Severity;
use crate::team::trust::{ChatAllow, chat_allows, trust_command};

/// The code of a chat's allow rule waiting for trust.
pub const UNTRUSTED_RULE_CODE: &str = "untrusted-rule";

/// The quick fix's title.
const TRUST_TITLE: &str = "Trust the permission rules of this chat…";

/// The dialog's button that records the trust.
const TRUST_BUTTON: &str = "Trust";

/// A warning on each allow rule of the chat the user has not trusted in it.
pub fn problems(state: &Mutex<State>, doc: &Document) -> Vec<Problem> {
    let (Some(path), Some(front_matter)) = (&doc.path, doc.chat.front_matter.as_ref()) else {
        return Vec::new();
    };
    if chat_allows(front_matter).is_empty() {
        return Vec::new();
    }
    let trust = lock(state).user_config.load_trust();
    trust
        .held_back(path, front_matter)
        .iter()
        .map(|allow| Problem {
            range: allow.rule.pattern.range.start..allow.rule.decision.range.end,
            severity: Severity::Warning,
            code: UNTRUSTED_RULE_CODE,
            message: format!(
                "This rule would let @{} act without asking you, and a rule in a chat file \
                 applies only once you trust it in this chat: until then @{} asks you. \
                 Review the rules, then use the quick fix \"{TRUST_TITLE}\" or run `{}`",
                allow.member,
                allow.member,
                trust_command(path)
            ),
            fixes: Vec::new(),
        })
        .collect()
}

/// "Trust the permission rules of this chat…" where the requested range meets one
/// of the warnings, for a client that can ask the user first.
pub fn code_actions(
    state: &Mutex<State>,
    doc: &Document,
    enc: PositionEncoding,
    wanted: &ByteRange,
    found: &[Problem],
) -> Vec<CodeAction> {
    if !lock(state).client_flags.show_message_request {
        return Vec::new();
    }
    let diagnostics: Vec<Diagnostic> = found
        .iter()
        .filter(|p| p.code == UNTRUSTED_RULE_CODE)
        .filter(|p| p.range.start <= wanted.end && wanted.start <= p.range.end)
        .map(|p| to_diagnostic(&doc.text, p, enc))
        .collect();
    if diagnostics.is_empty() {
        return Vec::new();
    }
    vec![CodeAction {
        title: TRUST_TITLE.to_owned(),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(diagnostics),
        command: Some(Command {
            title: TRUST_TITLE.to_owned(),
            command: ext::TRUST.to_owned(),
            arguments: Some(vec![json!({ "uri": doc.uri.as_str() })]),
        }),
        ..Default::default()
    }]
}

/// `chatmd.trust` on a chat: its allow rules (as the editor has the chat, else as on
/// disk) are shown and recorded when the user agrees. Answers
/// `{"trusted": bool, "file": path}`.
pub async fn execute(
    client: &Client,
    state: &Arc<Mutex<State>>,
    uri: &Uri,
    path: &Path,
) -> Result<Value> {
    let open = lock(state).documents.get(uri).map(|d| d.chat.clone());
    let chat = match open {
        Some(chat) => chat,
        None => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                Error::invalid_params(format!("cannot read {}: {e}", path.display()))
            })?;
            Arc::new(Chat::parse(&text))
        }
    };
    let answer = |trusted: bool| json!({ "trusted": trusted, "file": path.display().to_string() });
    let (can_ask, user_config) = {
        let s = lock(state);
        (s.client_flags.show_message_request, s.user_config.clone())
    };
    let allows = chat
        .front_matter
        .as_ref()
        .map(chat_allows)
        .unwrap_or_default();
    if allows.is_empty() {
        let message = format!("{} has no allow rules to trust", path.display());
        client.show_message(MessageType::INFO, message).await;
        return Ok(answer(false));
    }
    let shown = listed(&allows);
    if can_ask {
        let question = format!(
            "Trust the permission rules of {}? They let agents act without asking you: \
             {shown}. Trust them only if you would give these answers yourself; a rule \
             added later needs your trust again.",
            path.display()
        );
        let buttons = [TRUST_BUTTON, "Cancel"]
            .map(|title| MessageActionItem {
                title: title.to_owned(),
                properties: Default::default(),
            })
            .to_vec();
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
                    trust_command(path)
                );
                client.show_message(MessageType::WARNING, message).await;
                return Ok(answer(false));
            }
        }
    }
    // The very rules the user was shown.
    user_config
        .trust_chat_rules(path, &allows)
        .map_err(|e| Error::invalid_params(e.to_string()))?;
    let message = format!(
        "Trusted the permission rules of {}: {shown}",
        path.display()
    );
    client.show_message(MessageType::INFO, message).await;
    super::trust::refresh(client, state).await;
    Ok(answer(true))
}

/// `chatmd.trust` on an agent's settings file (`.claude/settings.json`, …): its keys
/// that run programs are shown, and recorded when the user agrees.
pub async fn execute_settings(
    client: &Client,
    state: &Arc<Mutex<State>>,
    path: &Path,
) -> Result<Value> {
    let answer = |trusted: bool| json!({ "trusted": trusted, "file": path.display().to_string() });
    let Some(risky) = crate::team::agent_settings::risky_file(path) else {
        let message = format!("{} sets nothing that needs trust", path.display());
        client.show_message(MessageType::INFO, message).await;
        return Ok(answer(false));
    };
    let (can_ask, user_config) = {
        let s = lock(state);
        (s.client_flags.show_message_request, s.user_config.clone())
    };
    let keys = risky.keys.join(", ");
    if can_ask {
        let question = format!(
            "Trust {}? The agent CLI would then run or follow by itself: {keys}. Trust it \
             only if you know what these do; a change to them needs your trust again.",
            path.display()
        );
        let buttons = [TRUST_BUTTON, "Cancel"]
            .map(|title| MessageActionItem {
                title: title.to_owned(),
                properties: Default::default(),
            })
            .to_vec();
        let chosen = client
            .show_message_request(MessageType::WARNING, question, Some(buttons))
            .await;
        if !matches!(chosen, Ok(Some(item)) if item.title == TRUST_BUTTON) {
            return Ok(answer(false));
        }
    }
    user_config
        .trust_file(path, &risky.trusted_form)
        .map_err(|e| Error::invalid_params(e.to_string()))?;
    let message = format!("Trusted {}: {keys}", path.display());
    client.show_message(MessageType::INFO, message).await;
    super::trust::refresh(client, state).await;
    Ok(answer(true))
}

fn listed(allows: &[ChatAllow]) -> String {
    let shown: Vec<String> = allows.iter().map(ChatAllow::shown).collect();
    shown.join(", ")
}
