//! Code lenses: ▶ Send above the last human message, ■ Cancel @x on a running turn.

use std::sync::Mutex;

use serde_json::json;
use tower_lsp_server::ls_types::*;

use super::state::{Document, State};
use super::turn_actions::{Scope, command, handles, offered};
use super::{convert, ext};
use crate::conversation::routing::{self, Next};
use crate::document::text::PositionEncoding;

pub fn code_lenses(state: &Mutex<State>, doc: &Document, enc: PositionEncoding) -> Vec<CodeLens> {
    offered(state, doc, |scope| lenses(&scope, doc, enc))
}

fn lenses(scope: &Scope, doc: &Document, enc: PositionEncoding) -> Vec<CodeLens> {
    let (text, chat, uri) = (scope.text, scope.chat, scope.uri);
    let (roster, running) = (&scope.roster, scope.running);
    let mut lenses = Vec::new();
    let header_range = |i: usize| convert::range(&doc.text, &chat.messages[i].header(), enc);

    if let Some(last) = routing::last_counting(text, chat)
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
