//! Output hygiene shared by every parser: JSON lines in (anything else becomes a
//! notice), foreign text quoted short, readable API errors, and answer text in
//! paragraphs. Control characters come out in `sanitize`.

mod sanitize;

use std::borrow::Cow;

use serde_json::Value;

use super::AgentEvent;
use sanitize::{is_clean, strip};
pub use sanitize::{sanitize, sanitized};

/// Longest piece of a foreign line quoted in a notice or summary, in characters.
pub const QUOTE_LIMIT: usize = 160;

/// The notice for a stdout line (already trimmed) that is not a JSON object.
pub fn not_json(agent: &str, trimmed: &str) -> AgentEvent {
    AgentEvent::Notice(format!(
        "{agent} printed a line that is not a JSON event: {}",
        quote(&sanitized(trimmed))
    ))
}

/// One stdout line of a JSON-lines CLI, parsed. Blank lines give `Ok(None)`; a line that
/// is not a JSON object gives the notice to emit (never a panic, never an error).
pub fn json_line(agent: &str, line: &str) -> Result<Option<Value>, AgentEvent> {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(value) if value.is_object() => Ok(Some(value)),
        _ => Err(not_json(agent, trimmed)),
    }
}

/// `text` cut to [`QUOTE_LIMIT`] characters, with `…` when it was longer.
pub fn quote(text: &str) -> String {
    let mut out = String::new();
    push_quote(&mut out, text);
    out
}

/// Appends [`quote`] of `text` to `out`.
pub fn push_quote(out: &mut String, text: &str) {
    // Only a text of more than QUOTE_LIMIT bytes can have more characters than that.
    let cut = if text.len() > QUOTE_LIMIT {
        text.char_indices().nth(QUOTE_LIMIT).map(|(cut, _)| cut)
    } else {
        None
    };
    match cut {
        Some(cut) => {
            out.push_str(&text[..cut]);
            out.push('…');
        }
        None => out.push_str(text),
    }
}

/// `text` as a Markdown code span, fenced with more backticks than it holds (and
/// padded when it starts or ends with one).
pub fn code_span(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// The string at `pointer` in `value`, if there is one.
pub fn str_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.pointer(pointer).and_then(Value::as_str)
}

/// An API error body embedded as JSON in a CLI's message (codex and gemini pass the
/// provider's response through) made readable: the JSON object is replaced by
/// `code status type: message` from its `error` member. Other text is returned as is.
pub fn readable_error(message: &str) -> String {
    let message = sanitize(message);
    let (Some(start), Some(end)) = (message.find('{'), message.rfind('}')) else {
        return message.trim().to_owned();
    };
    if end < start {
        return message.trim().to_owned();
    }
    let Ok(body) = serde_json::from_str::<Value>(&message[start..=end]) else {
        return message.trim().to_owned();
    };
    let Some(inner) = str_at(&body, "/error/message") else {
        return message.trim().to_owned();
    };
    let label: Vec<String> = ["/error/code", "/error/status", "/error/type"]
        .iter()
        .filter_map(|pointer| match body.pointer(pointer)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
        .collect();
    let readable = if label.is_empty() {
        inner.to_owned()
    } else {
        format!("{}: {inner}", label.join(" "))
    };
    format!("{}{readable}{}", &message[..start], &message[end + 1..])
        .trim()
        .to_owned()
}

/// Puts a blank line between separate blocks of answer text (text before and after a
/// tool call, or two whole messages), so they do not run together in Markdown.
#[derive(Debug, Default)]
pub struct Paragraphs {
    wrote: bool,
    pending_break: bool,
}

impl Paragraphs {
    /// The next text starts a new block.
    pub fn block_ends(&mut self) {
        self.pending_break = self.wrote;
    }

    /// The next text starts a section of its own (a steered turn goes on after the
    /// user's message): no blank line before it.
    pub fn section_ends(&mut self) {
        self.pending_break = false;
    }

    /// `text` as the next piece of the answer, or `None` when it is empty.
    pub fn text(&mut self, text: &str) -> Option<AgentEvent> {
        self.push(Cow::Borrowed(text))
    }

    /// [`Paragraphs::text`] of a string that may already be owned, which then becomes
    /// the event's text without a copy.
    pub fn push(&mut self, text: Cow<'_, str>) -> Option<AgentEvent> {
        let text = if is_clean(&text) {
            text
        } else {
            Cow::Owned(strip(&text))
        };
        if text.is_empty() {
            return None;
        }
        let text = if std::mem::take(&mut self.pending_break) {
            let rest = text.trim_start_matches('\n');
            let mut joined = String::with_capacity(rest.len() + 2);
            joined.push_str("\n\n");
            joined.push_str(rest);
            joined
        } else {
            text.into_owned()
        };
        self.wrote = true;
        Some(AgentEvent::Text(text))
    }

    /// Whether any answer text was produced.
    pub fn wrote(&self) -> bool {
        self.wrote
    }
}

#[cfg(test)]
mod tests;
