//! Output hygiene shared by every parser: ANSI and control characters out, JSON lines in
//! (anything else becomes a notice), tool summaries, readable API errors, and answer
//! text in paragraphs.

use std::borrow::Cow;

use serde_json::Value;

use super::AgentEvent;
use super::json::ToolInput;

/// Longest piece of a foreign line quoted in a notice or summary, in characters.
const QUOTE_LIMIT: usize = 160;

/// `text` without ANSI escape sequences (CSI, OSC and two-byte escapes) and without
/// control characters other than tab and line feed: the answer lands in Markdown, where
/// a stray escape or carriage return is garbage.
pub fn sanitize(text: &str) -> String {
    if is_clean(text) {
        text.to_owned()
    } else {
        strip(text)
    }
}

/// [`sanitize`], borrowing `text` when there is nothing to remove.
pub fn sanitized(text: &str) -> Cow<'_, str> {
    if is_clean(text) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(strip(text))
    }
}

/// Whether [`sanitize`] would leave `text` unchanged: no control character other than tab
/// and line feed (C0, DEL, and C1, which UTF-8 writes as `C2 80`..`C2 9F`); ESC and the
/// C1 CSI that start escape sequences are control characters too.
///
/// Every piece of answer text goes through here, so it looks at 8 bytes at a time and
/// only at the bytes of a word that may hold one (a line feed, a tab, a `C2` lead byte).
fn is_clean(text: &str) -> bool {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    let bytes = text.as_bytes();
    let mut start = 0;
    for word in bytes.chunks_exact(8) {
        let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        // Nonzero when some byte is below 0x20, or is DEL or 0xC2 (exact as a whole,
        // though not byte by byte).
        let below = |n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGH;
        let equal = |b: u8| {
            let x = word ^ (ONES * u64::from(b));
            x.wrapping_sub(ONES) & !x & HIGH
        };
        if below(0x20) | equal(0x7f) | equal(0xc2) != 0 && !bytes_clean(bytes, start, start + 8) {
            return false;
        }
        start += 8;
    }
    bytes_clean(bytes, start, bytes.len())
}

/// [`is_clean`] for the bytes from `start` to `end` (the one after may be looked at).
fn bytes_clean(bytes: &[u8], start: usize, end: usize) -> bool {
    (start..end).all(|i| match bytes[i] {
        b'\t' | b'\n' => true,
        b if b < 0x20 || b == 0x7f => false,
        0xc2 => !matches!(bytes.get(i + 1), Some(0x80..=0x9f)),
        _ => true,
    })
}

/// The slow path of [`sanitize`], for text that has something to remove.
fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates, then one final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC (and the other string commands): up to BEL or ESC \.
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                // Two-byte escapes (ESC c, ESC =, ...): drop both.
                _ => {}
            },
            // C1 CSI, as some programs print it.
            '\u{9b}' => {
                for c in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        break;
                    }
                }
            }
            '\t' | '\n' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

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

/// The string at `pointer` in `value`, if there is one.
pub fn str_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.pointer(pointer).and_then(Value::as_str)
}

/// The input of a tool call, as JSON or as read by a parser.
pub trait ToolArguments {
    /// The first of the usual "what it acts on" parameters that is a string.
    fn argument(&self) -> Option<&str>;
}

/// The parameters [`ToolArguments::argument`] looks at, in order.
const ARGUMENT_KEYS: [&str; 9] = [
    "command",
    "file_path",
    "path",
    "absolute_path",
    "pattern",
    "url",
    "query",
    "prompt",
    "description",
];

impl ToolArguments for Value {
    fn argument(&self) -> Option<&str> {
        ARGUMENT_KEYS
            .iter()
            .find_map(|key| self.get(key).and_then(Value::as_str))
    }
}

impl ToolArguments for ToolInput<'_> {
    fn argument(&self) -> Option<&str> {
        // The same order as ARGUMENT_KEYS.
        [
            &self.command,
            &self.file_path,
            &self.path,
            &self.absolute_path,
            &self.pattern,
            &self.url,
            &self.query,
            &self.prompt,
            &self.description,
        ]
        .into_iter()
        .find_map(|value| value.get())
    }
}

/// A one-line summary of a tool call: `Bash: cargo test`. The argument shown is the
/// first of the usual "what it acts on" parameters, first line only.
pub fn tool_summary(name: &str, input: Option<&dyn ToolArguments>) -> String {
    let argument = input
        .and_then(ToolArguments::argument)
        .map(|text| text.lines().next().unwrap_or("").trim())
        .filter(|text| !text.is_empty());
    match argument {
        Some(argument) => {
            let argument = sanitized(argument);
            let mut summary = String::with_capacity(name.len() + 2 + argument.len());
            summary.push_str(name);
            summary.push_str(": ");
            push_quote(&mut summary, &argument);
            summary
        }
        None => sanitize(name),
    }
}

/// The first non-empty line of a tool's error output, clean and cut to the quote
/// limit, for the tool list (claude wraps some in `<tool_use_error>` tags).
pub fn error_line(text: &str) -> Option<String> {
    let text = sanitized(text);
    let line = text
        .lines()
        .map(|line| {
            line.replace("<tool_use_error>", "")
                .replace("</tool_use_error>", "")
        })
        .map(|line| line.trim().to_owned())
        .find(|line| !line.is_empty())?;
    Some(quote(&line))
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
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn sanitize_removes_escapes_and_control_characters() {
        assert_eq!(sanitize("\u{1b}[1;31mred\u{1b}[0m text"), "red text");
        assert_eq!(sanitize("\u{1b}]0;title\u{7}after"), "after");
        assert_eq!(sanitize("\u{1b}]8;;http://x\u{1b}\\link"), "link");
        assert_eq!(sanitize("a\rb\u{8}c\u{0}\td\n"), "abc\td\n");
        assert_eq!(sanitize("\u{9b}2Jclear"), "clear");
        assert_eq!(sanitize("dangling \u{1b}"), "dangling ");
        assert_eq!(sanitize("héllo · 世界"), "héllo · 世界");
    }

    #[test]
    fn the_clean_text_shortcut_changes_nothing() {
        // Every character below U+0800 (all control characters among them), alone and
        // between others: the shortcut is taken only where the full pass keeps the text.
        for c in (0..0x800).filter_map(char::from_u32) {
            // Short texts, and the character at every place in a word of longer ones.
            let long = (0..9).map(|pad| format!("{}{c} plain words é", "x".repeat(pad)));
            let short = [c.to_string(), format!("a{c}é\u{9f}b"), format!("{c}[1m·")];
            for text in short.into_iter().chain(long) {
                assert_eq!(sanitize(&text), strip(&text), "{text:?}");
                assert_eq!(sanitized(&text), strip(&text), "{text:?}");
                assert_eq!(is_clean(&text), strip(&text) == text, "{text:?}");
            }
        }
    }

    #[test]
    fn json_lines_and_everything_else() {
        assert_eq!(json_line("x", "  "), Ok(None));
        assert_eq!(
            json_line("x", r#"{"type":"a"}"#),
            Ok(Some(json!({"type": "a"})))
        );
        assert_eq!(
            json_line("claude", "\u{1b}[31mboom\u{1b}[0m"),
            Err(AgentEvent::Notice(
                "claude printed a line that is not a JSON event: boom".into()
            ))
        );
        assert!(json_line("x", "[1,2]").is_err());
        assert!(json_line("x", "{\"truncated\":").is_err());
    }

    #[test]
    fn quotes_are_cut_on_character_boundaries() {
        let long = "é".repeat(QUOTE_LIMIT + 5);
        let quoted = quote(&long);
        assert_eq!(quoted.chars().count(), QUOTE_LIMIT + 1);
        assert!(quoted.ends_with('…'));
        assert_eq!(quote("short"), "short");
    }

    #[test]
    fn tool_summaries_name_the_tool_and_what_it_acts_on() {
        let input = json!({"command": "echo hello-from-tool\necho more", "description": "x"});
        assert_eq!(
            tool_summary("Bash", Some(&input)),
            "Bash: echo hello-from-tool"
        );
        let input = json!({"file_path": "/src/main.rs"});
        assert_eq!(tool_summary("Read", Some(&input)), "Read: /src/main.rs");
        assert_eq!(tool_summary("TodoWrite", Some(&json!({}))), "TodoWrite");
        assert_eq!(tool_summary("Plan", None), "Plan");
    }

    #[test]
    fn tool_errors_keep_their_first_line() {
        assert_eq!(
            error_line("\n<tool_use_error>File does not exist.</tool_use_error>\nmore"),
            Some("File does not exist.".into())
        );
        assert_eq!(error_line(" \n "), None);
        assert_eq!(
            error_line(&"x".repeat(200)).map(|l| l.chars().count()),
            Some(QUOTE_LIMIT + 1)
        );
    }

    #[test]
    fn embedded_api_errors_become_readable() {
        let codex = r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "mock upstream failure"}}"#;
        assert_eq!(
            readable_error(codex),
            "invalid_request_error: mock upstream failure"
        );
        let gemini = r#"[API Error: {"type":"error","error":{"message":"mock upstream failure","code":400,"status":"INVALID_ARGUMENT"}}]"#;
        assert_eq!(
            readable_error(gemini),
            "[API Error: 400 INVALID_ARGUMENT: mock upstream failure]"
        );
        assert_eq!(readable_error(" plain {not json} "), "plain {not json}");
        assert_eq!(readable_error("} odd {"), "} odd {");
    }

    #[test]
    fn paragraphs_separate_blocks_but_not_chunks() {
        let mut p = Paragraphs::default();
        p.block_ends();
        assert_eq!(p.text("A"), Some(AgentEvent::Text("A".into())));
        assert_eq!(p.text("b"), Some(AgentEvent::Text("b".into())));
        assert_eq!(p.text(""), None);
        p.block_ends();
        assert_eq!(p.text("\nC"), Some(AgentEvent::Text("\n\nC".into())));
        assert!(p.wrote());
    }
}
