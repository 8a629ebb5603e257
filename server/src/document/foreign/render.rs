//! Writes chatmd text: message bodies with `## @x` escaped and open blocks closed,
//! verbatim fenced blocks, one-line labels and YAML scalars.

use crate::document::quoted::{control_as_u4, quoted};
use crate::document::scanner::{ScanState, message_at};

/// Marker-line text for a heading or summary: control characters (a lone `\r` would end
/// the line) become spaces.
pub(crate) fn one_line(label: &str) -> String {
    label.replace(|c: char| c.is_control(), " ")
}

/// `s` as HTML text (for a `<summary>`): `&`, `<` and `>` escaped.
pub(crate) fn html_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// The output, with `\n` line endings.
#[derive(Default)]
pub(crate) struct Out {
    pub(crate) buf: String,
}

impl Out {
    pub(crate) fn line(&mut self, line: &str) {
        self.buf.push_str(line);
        self.buf.push('\n');
    }

    pub(crate) fn blank(&mut self) {
        self.buf.push('\n');
    }

    /// Message or preamble text: `## @x` lines that the chat would take for message
    /// headings are escaped as `## \@x`, and a block still open at the end (a code
    /// fence, an HTML comment) is closed. Both are judged by the chat's own scanner, so
    /// nothing in the text can run into the next message or start one.
    pub(crate) fn body(&mut self, lines: &[&str]) {
        let mut state = ScanState::default();
        for &line in lines {
            let kind = state.classify(line.as_bytes());
            match message_at(line.as_bytes(), kind) {
                Some(at) => {
                    self.buf.push_str(&line[..at]);
                    self.buf.push('\\');
                    self.line(&line[at..]);
                }
                None => self.line(line),
            }
        }
        if let Some(close) = state.closing_line() {
            self.line(&close);
        }
    }

    /// Lines kept verbatim in a fenced block that none of them can close.
    pub(crate) fn fenced(&mut self, info: &str, lines: &[&str]) {
        let longest = lines
            .iter()
            .map(|l| longest_run(l, b'`'))
            .max()
            .unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        self.line(&format!("{fence}{info}"));
        for line in lines {
            self.line(line);
        }
        self.line(&fence);
    }
}

fn longest_run(line: &str, c: u8) -> usize {
    let mut best = 0;
    let mut run = 0;
    for &b in line.as_bytes() {
        if b == c {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

/// A YAML scalar for a converted chat's front matter: plain only when any YAML reader
/// (1.1's `yes` and `no` included) takes it for this very string, double-quoted
/// otherwise. Stricter than the front matter editor's `yaml_scalar`, which must keep
/// what a user wrote plain: a converted file is new text, and other tools read it.
pub(crate) fn yaml_scalar(s: &str) -> String {
    let plain = s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && !s.ends_with(' ')
        && s.chars().all(|c| {
            c.is_alphanumeric() || matches!(c, ' ' | '_' | '.' | ',' | '(' | ')' | '/' | '+' | '-')
        })
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
        );
    if plain {
        return s.to_owned();
    }
    quoted(s, control_as_u4)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing: a message that opened an HTML comment (or a `<pre>`) and never
    /// closed it hid every later message of the converted chat inside it.
    #[test]
    fn an_html_block_left_open_is_closed_before_the_next_message() {
        use crate::document::chat::Chat;
        use crate::document::foreign::{ForeignFormat, convert};
        let text = "💬: <!-- draft\n## @x\n\n🤖: <pre>\ncode\n\n💬: thanks\n";
        let out = convert(text, ForeignFormat::GpNvim, "me", "assistant");
        assert!(out.ends_with(
            "## @me\n<!-- draft\n## @x\n-->\n\n## @assistant\n<pre>\ncode\n</pre>\n\n## @me\nthanks\n"
        ));
        let chat = Chat::parse(&out);
        let handles: Vec<&str> = chat.messages.iter().map(|m| m.handle(&out)).collect();
        assert_eq!(handles, ["me", "assistant", "me"], "{out}");
    }

    #[test]
    fn yaml_scalars() {
        // Plain where every YAML reader takes it for that string, quoted otherwise.
        let plain = ["gp.nvim", "Fix the parser (again)"];
        assert_eq!(plain.map(yaml_scalar), plain);
        let ambiguous = ["yes", "2024", "a: b # c", ""];
        assert_eq!(
            ambiguous.map(yaml_scalar),
            ambiguous.map(|s| format!("\"{s}\""))
        );
        assert_eq!(yaml_scalar("tab\there \u{7}"), "\"tab\\there \\u0007\"");
    }
}
