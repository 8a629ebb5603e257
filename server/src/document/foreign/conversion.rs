//! Arranges a parsed foreign file as a chatmd document for [`super::convert`]: front
//! matter, a preamble, and messages with other roles folded into `<details>` blocks.

use super::ForeignFormat;
use super::markers::{Kind, Side};
use super::parsing::{Parsed, trim_blank};
use super::render::{Out, html_text, one_line, yaml_scalar};
use crate::document::lines::line_break;

/// See [`super::convert`].
pub(super) fn convert(text: &str, format: ForeignFormat, human: &str, assistant: &str) -> String {
    let parsed = Parsed::new(text, format);
    let human = handle_or(human, "me");
    let assistant = handle_or(assistant, "assistant");

    let mut preamble: Vec<Piece<'_>> = Vec::new();
    if !parsed.unread_front.is_empty() {
        preamble.push(Piece::Fenced("yaml", &parsed.unread_front));
    }
    let mut title = None;
    if !parsed.pre.is_empty() {
        let pre = parsed.pre.as_slice();
        match format {
            ForeignFormat::GpNvim => {
                title = gp_title(pre);
                match pre.iter().position(|l| l.starts_with("---")) {
                    Some(dash) => {
                        preamble.push(Piece::Fenced("text", trim_blank(&pre[..=dash])));
                        let rest = trim_blank(&pre[dash + 1..]);
                        if !rest.is_empty() {
                            preamble.push(Piece::Text(rest));
                        }
                    }
                    None => preamble.push(Piece::Text(pre)),
                }
            }
            ForeignFormat::VimAi => {
                let is_header = |l: &&str| matches!(l.trim(), "[chat]" | "[chat-options]");
                if pre.iter().any(is_header) {
                    preamble.push(Piece::Fenced("ini", pre));
                } else {
                    preamble.push(Piece::Text(pre));
                }
            }
            ForeignFormat::PercentCells => preamble.push(Piece::Fenced("text", pre)),
            ForeignFormat::LspAi => preamble.push(Piece::Text(pre)),
        }
    }

    let mut messages: Vec<OutMessage<'_>> = Vec::new();
    let mut pending: Vec<(Side, Part<'_>)> = Vec::new();
    for block in &parsed.blocks {
        match block.kind {
            Kind::System => preamble.push(Piece::System(block.label, &block.lines)),
            Kind::Settings => preamble.push(Piece::Fenced("toml", &block.lines)),
            Kind::User | Kind::Assistant => {
                let side = if block.kind == Kind::User {
                    Side::Human
                } else {
                    Side::Agent
                };
                let mut parts = flush_pending(&mut messages, &mut pending, Some(side));
                if !block.lines.is_empty() {
                    parts.push(Part::Text(&block.lines));
                }
                messages.push(OutMessage {
                    side,
                    label: block.label,
                    parts,
                });
            }
            Kind::Other(name, side) => {
                let part = Part::Details(summary(name, block.label), &block.lines);
                match messages.last_mut() {
                    Some(last) if pending.is_empty() && last.side == side => last.parts.push(part),
                    _ => pending.push((side, part)),
                }
            }
        }
    }
    let rest = flush_pending(&mut messages, &mut pending, None);
    debug_assert!(rest.is_empty());

    let mut out = Out::default();
    out.line("---");
    // The file's own front matter is kept as it is, and the keys the conversion adds
    // go after it unless the file already sets them.
    for line in &parsed.yaml {
        out.line(line);
    }
    let has_key = |key: &str| parsed.yaml.iter().any(|l| super::sets_key(l, key));
    if let Some(title) = title.filter(|_| !has_key("title")) {
        out.line(&format!("title: {}", yaml_scalar(&title)));
    }
    if !has_key("imported_from") {
        out.line(&format!("imported_from: {}", yaml_scalar(format.name())));
    }
    out.line("---");
    for piece in &preamble {
        out.blank();
        match piece {
            Piece::Text(lines) => out.body(lines),
            Piece::Fenced(info, lines) => out.fenced(info, lines),
            Piece::System(label, lines) => {
                if label.is_empty() {
                    out.line("System prompt:");
                } else {
                    out.line(&format!("System prompt ({}):", one_line(label)));
                }
                if !lines.is_empty() {
                    out.blank();
                    out.body(lines);
                }
            }
        }
    }
    for message in &messages {
        out.blank();
        let handle = match message.side {
            Side::Human => human,
            Side::Agent => assistant,
        };
        if message.label.is_empty() {
            out.line(&format!("## @{handle}"));
        } else {
            out.line(&format!("## @{handle} {}", one_line(message.label)));
        }
        for (i, part) in message.parts.iter().enumerate() {
            if i > 0 {
                out.blank();
            }
            match part {
                Part::Text(lines) => out.body(lines),
                Part::Details(summary, lines) => {
                    out.line(&format!("<details><summary>{summary}</summary>"));
                    out.blank();
                    if !lines.is_empty() {
                        out.body(lines);
                        out.blank();
                    }
                    out.line("</details>");
                }
            }
        }
    }
    if line_break(text) == "\r\n" {
        out.buf.replace('\n', "\r\n")
    } else {
        out.buf
    }
}

/// The title of a gp.nvim chat: its `# topic:` header line, unless still `?`.
fn gp_title(pre: &[&str]) -> Option<String> {
    pre.iter().find_map(|line| {
        let topic = line.strip_prefix("# topic:")?.trim();
        (!topic.is_empty() && topic != "?").then(|| topic.to_owned())
    })
}

/// A part of the preamble.
enum Piece<'a> {
    /// Text, escaped like a message body.
    Text(&'a [&'a str]),
    /// Text kept verbatim in a fenced block with this info string.
    Fenced(&'static str, &'a [&'a str]),
    /// A system prompt, with the label from its marker line.
    System(&'a str, &'a [&'a str]),
}

/// A part of a chatmd message.
enum Part<'a> {
    Text(&'a [&'a str]),
    /// A collapsed block for another role: summary (HTML-escaped) and text.
    Details(String, &'a [&'a str]),
}

struct OutMessage<'a> {
    side: Side,
    label: &'a str,
    parts: Vec<Part<'a>>,
}

/// Empties `pending` (other-role blocks waiting for a message of their side): its last
/// run of blocks of side `next` is returned, to open the next message; every other run
/// becomes a message of its own side.
fn flush_pending<'a>(
    messages: &mut Vec<OutMessage<'a>>,
    pending: &mut Vec<(Side, Part<'a>)>,
    next: Option<Side>,
) -> Vec<Part<'a>> {
    let mut runs: Vec<(Side, Vec<Part<'a>>)> = Vec::new();
    for (side, part) in pending.drain(..) {
        match runs.last_mut() {
            Some((s, parts)) if *s == side => parts.push(part),
            _ => runs.push((side, vec![part])),
        }
    }
    let keep = match runs.last() {
        Some((side, _)) if Some(*side) == next => runs.pop().map(|(_, parts)| parts),
        _ => None,
    };
    for (side, parts) in runs {
        messages.push(OutMessage {
            side,
            label: "",
            parts,
        });
    }
    keep.unwrap_or_default()
}

fn summary(name: &str, label: &str) -> String {
    let mut s = String::from(name);
    if !label.is_empty() {
        s.push(' ');
        s.push_str(&html_text(&one_line(label)));
    }
    s
}

/// `h` without a leading `@` if it is a valid handle, else `default`.
fn handle_or<'a>(h: &'a str, default: &'a str) -> &'a str {
    let h = h.trim();
    let h = h.strip_prefix('@').unwrap_or(h);
    let mut bytes = h.bytes();
    let valid = bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if valid { h } else { default }
}
