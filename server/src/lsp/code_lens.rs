//! Code lenses: ▶ Send above the last human message, ■ Cancel @x on a running turn, and
//! on a queued message who it waits for, · Send now · Cancel.

use std::sync::Mutex;

use serde_json::json;
use tower_lsp_server::ls_types::*;

use super::state::{Document, State, lock};
use super::turn_actions::{Scope, command, handles};
use super::{convert, ext, message_problems};
use crate::conversation::queue;
use crate::conversation::roster::Roster;
use crate::conversation::routing::{self, Next};
use crate::document::text::PositionEncoding;

/// The lenses of `doc`, read from its latest messages only (see
/// [`message_problems::lens_tail`]): a keystroke in a long chat does not copy or scan
/// its whole text for them.
pub fn code_lenses(state: &Mutex<State>, doc: &Document, enc: PositionEncoding) -> Vec<CodeLens> {
    if doc.path.is_none() {
        return Vec::new();
    }
    let team = doc.team(state).team;
    let running = lock(state).running.clone();
    let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
    let uri = doc.uri.as_str();
    let members: Vec<String> = running
        .list()
        .into_iter()
        .filter(|t| t.document == uri)
        .map(|t| t.member)
        .collect();
    let from = message_problems::lens_tail(doc, &team, &roster, &members);
    let chat = doc.chat.tail(from);
    let base = doc.chat.len - chat.len;
    let text = doc.text_from(base);
    let scope = Scope {
        text: &text,
        chat: &chat,
        roster,
        running: &running,
        uri,
    };
    lenses(&scope, doc, base, enc)
}

/// The lenses of `scope`, a chat of the text of `doc` from byte `base` on.
fn lenses(scope: &Scope, doc: &Document, base: usize, enc: PositionEncoding) -> Vec<CodeLens> {
    let (text, chat, uri) = (scope.text, scope.chat, scope.uri);
    let (roster, running) = (&scope.roster, scope.running);
    let mut lenses = Vec::new();
    let header_range = |i: usize| {
        let header = chat.messages[i].header();
        convert::range(&doc.text, &(header.start + base..header.end + base), enc)
    };

    let queued = queue::queued(text, chat, roster);
    if let Some(i) = queued {
        lenses.extend(queued_lenses(scope, header_range(i)));
    }
    if let Some(last) = routing::last_counting(text, chat)
        && queued != Some(last)
        && !roster.is_ai(chat.messages[last].handle(text))
        && let Next::Run(members) = routing::after_human(text, chat, roster, last)
        && !members.iter().any(|m| running.is_running(uri, m))
    {
        lenses.push(CodeLens {
            range: header_range(last),
            command: Some(command(
                &format!("▶ Send to {}", handles(&members)),
                ext::SEND,
                json!({ "uri": uri }),
            )),
            data: None,
        });
    }
    // The latest section of each running member.
    for turn in running.list().into_iter().filter(|t| t.document == uri) {
        let found = chat
            .messages
            .iter()
            .rposition(|m| m.handle(text) == turn.member);
        if let Some(i) = found {
            lenses.push(CodeLens {
                range: header_range(i),
                command: Some(command(
                    &format!("■ Cancel @{}", turn.member),
                    ext::CANCEL,
                    json!({ "uri": uri, "member": turn.member }),
                )),
                data: None,
            });
        }
    }
    lenses
}

/// "queued — will be sent when @x finishes", then Send now and Cancel (the mark only).
fn queued_lenses(scope: &Scope, range: Range) -> Vec<CodeLens> {
    let uri = scope.uri;
    let mut members: Vec<String> = scope
        .running
        .list()
        .into_iter()
        .filter(|t| t.document == uri)
        .map(|t| t.member)
        .collect();
    members.dedup();
    let waits = match members.len() {
        0 => "queued — will be sent when this round ends".to_owned(),
        1 => format!("queued — will be sent when {} finishes", handles(&members)),
        _ => format!("queued — will be sent when {} finish", handles(&members)),
    };
    let lens = |title: &str, name: &str, argument: serde_json::Value| CodeLens {
        range,
        command: Some(command(title, name, argument)),
        data: None,
    };
    vec![
        // Clicking the label shows where it stands: it does nothing.
        lens(&waits, "", json!({ "uri": uri })),
        lens("Send now", ext::SEND, json!({ "uri": uri, "now": true })),
        lens("Cancel", ext::CANCEL, json!({ "uri": uri, "queued": true })),
    ]
}
