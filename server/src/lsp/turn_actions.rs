//! The chat commands offered where the cursor is: Send, Ask @x, Continue, Cancel @x,
//! Retry, Continue with @x (compare and council: an edit), Fork from here, and the
//! options of a permission request. Each carries its command or edit; nothing is
//! computed later in `codeAction/resolve`.

use std::sync::Mutex;

use serde_json::{Value, json};
use tower_lsp_server::ls_types::*;

use super::state::{Document, State, lock};
use super::{convert, ext};
use crate::conversation::actions;
use crate::conversation::roster::Roster;
use crate::conversation::routing::{self, Next, compare};
use crate::document::chat::Chat;
use crate::document::text::PositionEncoding;
use crate::turns::runs::Runs;

/// The title of the action that forks the chat at a message.
pub const FORK_TITLE: &str = "Fork from here";

pub fn command(title: &str, name: &str, argument: Value) -> Command {
    Command {
        title: title.to_string(),
        command: name.to_string(),
        arguments: Some(vec![argument]),
    }
}

fn action(title: String, name: &str, argument: Value) -> CodeAction {
    CodeAction {
        command: Some(command(&title, name, argument)),
        title,
        ..CodeAction::default()
    }
}

/// `@a, @b`
pub fn handles(members: &[String]) -> String {
    members
        .iter()
        .map(|m| format!("@{m}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the chat commands offered for a document depend on: its text, its team (as
/// a roster) and the turns running now.
pub struct Scope<'a> {
    pub text: &'a str,
    pub chat: &'a Chat,
    pub roster: Roster<'a>,
    pub running: &'a Runs,
    pub uri: &'a str,
}

/// Runs `offer` on the scope of a document that is a file (only files have a team);
/// nothing is offered for any other.
pub fn offered<T>(
    state: &Mutex<State>,
    doc: &Document,
    offer: impl FnOnce(Scope<'_>) -> Vec<T>,
) -> Vec<T> {
    if doc.path.is_none() {
        return Vec::new();
    }
    let team = doc.team(state).team;
    let running = lock(state).running.clone();
    let text = doc.flat();
    offer(Scope {
        text: &text,
        chat: &doc.chat,
        roster: Roster::new(&team, doc.chat.front_matter.as_ref()),
        running: &running,
        uri: doc.uri.as_str(),
    })
}

pub fn turn_actions(
    state: &Mutex<State>,
    doc: &Document,
    enc: PositionEncoding,
    range: Range,
) -> Vec<CodeAction> {
    offered(state, doc, |scope| actions_at(&scope, doc, enc, range))
}

fn actions_at(
    scope: &Scope,
    doc: &Document,
    enc: PositionEncoding,
    range: Range,
) -> Vec<CodeAction> {
    let (text, chat, uri) = (scope.text, scope.chat, scope.uri);
    let (roster, running) = (&scope.roster, scope.running);
    let is_running = |m: &str| running.is_running(uri, m);
    let mut out = Vec::new();

    if let Some(last) = routing::last_counting(text, chat) {
        let last_is_human = !roster.is_ai(chat.messages[last].handle(text));
        let next = if last_is_human {
            routing::next(text, chat, roster)
        } else {
            routing::continue_next(text, chat, roster)
        };
        match next {
            Next::Run(members) if last_is_human => out.push(action(
                format!("Send to {}", handles(&members)),
                ext::SEND,
                json!({ "uri": uri }),
            )),
            Next::Run(members) => out.push(action(
                format!("Continue (next: {})", handles(&members)),
                ext::NEXT,
                json!({ "uri": uri }),
            )),
            _ => {}
        }
    }
    for member in roster.members.iter().filter(|m| roster.is_ai(&m.handle)) {
        if is_running(&member.handle) {
            out.push(action(
                format!("Cancel @{}", member.handle),
                ext::CANCEL,
                json!({ "uri": uri, "member": member.handle }),
            ));
        } else {
            out.push(action(
                format!("Ask @{}", member.handle),
                ext::ASK,
                json!({ "uri": uri, "member": member.handle }),
            ));
        }
    }

    let line = range.start.line;
    if let Ok((member, _)) = actions::retry(text, chat, roster, line)
        && !is_running(&member)
    {
        out.push(action(
            format!("Retry @{member}"),
            ext::RETRY,
            json!({ "uri": uri, "line": line }),
        ));
    }
    let here = actions::message_on_line(text, chat, line);
    if let Some((member, (range, insert))) =
        here.and_then(|index| compare::continue_with(text, chat, roster, index))
    {
        // An edit, not a command: the user writes the message and sends it.
        let edit = TextEdit::new(convert::range(&doc.text, &range, enc), insert);
        let title = format!("Continue with @{member}");
        out.push(CodeAction {
            title,
            edit: Some(WorkspaceEdit {
                changes: Some(std::collections::HashMap::from([(
                    doc.uri.clone(),
                    vec![edit],
                )])),
                ..WorkspaceEdit::default()
            }),
            ..CodeAction::default()
        });
    }
    if here.is_some() {
        out.push(action(
            FORK_TITLE.into(),
            ext::FORK,
            json!({ "uri": uri, "line": line }),
        ));
    }
    let wanted = convert::byte_range(&doc.text, range, enc);
    for message in &chat.messages {
        for block in crate::conversation::waiting::open_requests(text, message) {
            let touches = block.range.start <= wanted.end && wanted.start <= block.range.end;
            if !touches {
                continue;
            }
            let request = &text[block.id.clone()];
            for option in &block.options {
                let label = &text[option.label.clone()];
                out.push(action(
                    format!("{} ({request})", capitalized(label)),
                    ext::ANSWER,
                    json!({ "uri": uri, "request": request, "option": label }),
                ));
            }
            // By kind: the agent's own "reject always" where it has one, else its
            // reject, with the rule kept in the front matter (few agents offer one).
            let labels: Vec<&str> = block
                .options
                .iter()
                .map(|o| &text[o.label.clone()])
                .collect();
            // A question (`@x asks …`) makes no rule: no "always" for it.
            let question = crate::document::permission::is_question(&text[block.text.clone()]);
            if !question
                && !labels
                    .iter()
                    .any(|l| l.eq_ignore_ascii_case("reject always"))
            {
                out.push(action(
                    format!("Reject always ({request})"),
                    ext::ANSWER,
                    json!({ "uri": uri, "request": request, "option": "reject_always" }),
                ));
            }
        }
    }
    out
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
