//! Help with how a chat routes: completion and hover in the front matter for
//! `routing:` (its five modes, each explained) and `chair:` (the team's members), and
//! hover on `Answer A` in a council's review or decision (whose answer it is).

use tower_lsp_server::ls_types::*;

use std::sync::Mutex;

use super::convert;
use super::state::{Document, State};
use crate::conversation::roster::Roster;
use crate::conversation::routing::{self, council};
use crate::document::ByteRange;
use crate::document::text::PositionEncoding;

/// The front matter key whose value is being typed at `offset`, and the range of
/// what was typed of it so far (from the value's start to `offset`).
fn value_being_typed<'t>(
    text: &'t str,
    doc: &Document,
    offset: usize,
) -> Option<(&'t str, ByteRange)> {
    let fm = doc.chat.front_matter.as_ref()?;
    if !(fm.block.yaml.start..=fm.block.yaml.end).contains(&offset) {
        return None;
    }
    let line_start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let line = &text[line_start..offset];
    let (key, rest) = line.split_once(':')?;
    if !matches!(key, "routing" | "chair") {
        return None;
    }
    let typed = rest.trim_start();
    if typed.contains(char::is_whitespace) {
        return None;
    }
    Some((key, offset - typed.len()..offset))
}

/// The values of `routing:` or `chair:` where one is being typed.
pub fn complete(
    state: &Mutex<State>,
    doc: &Document,
    text: &str,
    offset: usize,
    enc: PositionEncoding,
) -> Option<Vec<CompletionItem>> {
    let (key, typed) = value_being_typed(text, doc, offset)?;
    let range = convert::range(&doc.text, &typed, enc);
    let item = |label: &str, detail: &str, doc: &str| CompletionItem {
        label: label.to_owned(),
        kind: Some(CompletionItemKind::ENUM_MEMBER),
        detail: Some(detail.to_owned()),
        documentation: Some(Documentation::String(doc.to_owned())),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
            range,
            label.to_owned(),
        ))),
        ..CompletionItem::default()
    };
    let items = match key {
        "routing" => routing::MODES
            .iter()
            .map(|m| item(m.routing().as_str(), "routing", m.help()))
            .collect(),
        _ => {
            let team = doc.team(state).team;
            let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
            roster
                .members
                .iter()
                .map(|m| item(&m.handle, &m.agent, "writes the council's decision"))
                .collect()
        }
    };
    Some(items)
}

/// Hover on `Answer A` in a council's review or decision: whose answer it is.
fn letter_hover(
    doc: &Document,
    text: &str,
    roster: &Roster,
    offset: usize,
) -> Option<(ByteRange, String)> {
    let (range, answer) = council::answer_named_at(text, &doc.chat, roster, offset)?;
    let message = &doc.chat.messages[answer.index];
    let status = message.status_comment(text);
    let id = status.and_then(|s| s.id()).unwrap_or("?");
    let ended = status
        .and_then(|s| s.status())
        .map_or("no status", |s| s.as_str());
    let value = format!(
        "**Answer {}** — @{}'s answer in round 1 of this council ({id}, {ended}). The members were shown it by letter only.",
        answer.letter,
        message.handle(text)
    );
    Some((range, value))
}

/// Hover on the value of `routing:` (what the mode does) or `chair:` (what the chair
/// does, and whether it is a member), or on `Answer A` in a council's rounds.
pub fn hover(
    doc: &Document,
    text: &str,
    roster: &Roster,
    offset: usize,
    enc: PositionEncoding,
) -> Option<Hover> {
    if let Some((range, value)) = letter_hover(doc, text, roster, offset) {
        return Some(markdown(doc, &range, value, enc));
    }
    let fm = doc.chat.front_matter.as_ref()?;
    let on = |range: &ByteRange| range.start <= offset && offset <= range.end;
    let (range, value) = if let Some(routing) = fm.routing.as_ref().filter(|r| on(&r.range)) {
        let mode = routing.value;
        (
            routing.range.clone(),
            format!(
                "**routing: {}**\n\n{}",
                mode.as_str(),
                routing::mode(mode).help()
            ),
        )
    } else if let Some(chair) = fm.chair.as_ref().filter(|c| on(&c.range)) {
        let who = match roster.member(&chair.value) {
            Some(m) => format!("@{} ({})", m.handle, m.agent),
            None => format!("@{} — not a member of this team", chair.value),
        };
        let value = format!(
            "**chair: {who}**\n\nWith `routing: council`, writes the decision after the answers and the reviews, citing the answers by letter."
        );
        (chair.range.clone(), value)
    } else {
        return None;
    };
    Some(markdown(doc, &range, value, enc))
}

fn markdown(doc: &Document, range: &ByteRange, value: String, enc: PositionEncoding) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(convert::range(&doc.text, range, enc)),
    }
}
