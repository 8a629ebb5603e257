//! Hover on the chat's title (the front matter's `title:`): what each member has spent
//! in the chat — answers, tokens, cost where its agent reports one — against its
//! budget, and the chat's total.

use std::fmt::Write as _;

use tower_lsp_server::ls_types::*;

use super::convert;
use super::state::Document;
use crate::conversation::usage::{Spent, amount_words, spent_by_member};
use crate::document::text::PositionEncoding;

pub fn hover(doc: &Document, text: &str, enc: PositionEncoding, offset: usize) -> Option<Hover> {
    let fm = doc.chat.front_matter.as_ref()?;
    let title = fm.title.as_ref()?;
    if !(title.range.start <= offset && offset <= title.range.end) {
        return None;
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: table(text, doc),
        }),
        range: Some(convert::range(&doc.text, &title.range, enc)),
    })
}

fn row(md: &mut String, who: &str, spent: &Spent, budget: &str) {
    let _ = writeln!(
        md,
        "| {who} | {} | {}/{} | {} | {budget} |",
        spent.turns,
        spent.input_tokens,
        spent.output_tokens,
        spent.cost_words()
    );
}

/// The usage table of the chat.
fn table(text: &str, doc: &Document) -> String {
    let (members, total) = spent_by_member(text, &doc.chat);
    let budgets = doc
        .chat
        .front_matter
        .as_ref()
        .map(|fm| fm.budget.as_slice())
        .unwrap_or_default();
    let mut md = String::from("**Usage in this chat**\n\n");
    if members.is_empty() {
        md.push_str("No answers yet.");
        return md;
    }
    md.push_str(
        "| member | answers | tokens in/out | cost | budget |\n| --- | --- | --- | --- | --- |\n",
    );
    for (member, spent) in &members {
        let budget = budgets
            .iter()
            .find(|b| b.member.value.eq_ignore_ascii_case(member))
            .map_or_else(|| "—".to_owned(), |b| amount_words(b.amount.value));
        row(&mut md, &format!("@{member}"), spent, &budget);
    }
    row(&mut md, "**all**", &total, "");
    md
}
