//! The one-pass scan that turns lines into messages: headings, status comments,
//! permission blocks, code blocks, mentions and markers, all as absolute byte ranges.

use super::{CodeBlock, Message, Parts, StatusLine};
use crate::document::inline;
use crate::document::permission::{self, PermissionBlock};
use crate::document::scanner::{LineKind, Scanner};

pub(super) struct Scan {
    pub first_header: Option<usize>,
    pub preamble_code_blocks: Vec<CodeBlock>,
    pub messages: Vec<Message>,
}

/// The scan's working state: messages are built as mutable parts first.
struct Building {
    first_header: Option<usize>,
    preamble_code_blocks: Vec<CodeBlock>,
    messages: Vec<Parts>,
}

/// Scans `text` (which starts at absolute offset `base`) from the relative offset
/// `from`. `stop` is asked at every message heading (absolute offset) and ends the
/// scan before that heading when it returns true.
pub(super) fn scan(
    text: &str,
    base: usize,
    from: usize,
    mut stop: impl FnMut(usize) -> bool,
) -> Scan {
    let bytes = text.as_bytes();
    let mut out = Building {
        first_header: None,
        preamble_code_blocks: Vec::new(),
        messages: Vec::new(),
    };
    let mut open_code: Option<CodeBlock> = None;
    let mut expect_status = false;
    let mut permission: Option<PermissionBlock> = None;
    let mut end_of_scan = text.len();
    let scanner = Scanner::new(text, from);
    for line in scanner {
        if let LineKind::Heading { level: 2, content } = line.kind {
            let at = line.start + content;
            let handle_len = if bytes.get(at) == Some(&b'@') {
                inline::handle_len(&bytes[at + 1..line.end])
            } else {
                0
            };
            if handle_len > 0 {
                if stop(base + line.start) {
                    end_of_scan = line.start;
                    break;
                }
                finish_message(&mut out, &mut open_code, &mut permission, base + line.start);
                out.first_header.get_or_insert(base + line.start);
                out.messages.push(Parts {
                    range: base + line.start..base + text.len(),
                    header: base + line.start..base + line.end,
                    handle: base + at + 1..base + at + 1 + handle_len,
                    status: None,
                    body: base + line.next..base + text.len(),
                    mentions: Vec::new(),
                    markers: Vec::new(),
                    permissions: Vec::new(),
                    code_blocks: Vec::new(),
                });
                expect_status = true;
                continue;
            }
        }
        let in_message = !out.messages.is_empty();
        let line_text = &text[line.start..line.end];
        if expect_status {
            expect_status = false;
            if line_text.starts_with("<!-- chatmd") {
                let msg = out.messages.last_mut().expect("in a message");
                msg.status = Some(StatusLine {
                    range: base + line.start..base + line.end,
                    parsed: std::sync::OnceLock::new(),
                });
                msg.body.start = base + line.next;
                continue;
            }
        }
        match line.kind {
            LineKind::FenceOpen => {
                finish_permission(&mut out, &mut permission);
                open_code = Some(CodeBlock {
                    range: base + line.start..base + text.len(),
                    opening: base + line.start..base + line.end,
                    closed: false,
                });
            }
            LineKind::FenceClose => {
                if let Some(mut block) = open_code.take() {
                    block.range.end = base + line.end;
                    block.closed = true;
                    push_code_block(&mut out, block);
                }
            }
            LineKind::FencedCode | LineKind::IndentedCode | LineKind::Html | LineKind::Blank => {
                finish_permission(&mut out, &mut permission);
            }
            LineKind::Text
            | LineKind::Quote
            | LineKind::Heading { .. }
            | LineKind::NestedHeading => {
                if !in_message {
                    continue;
                }
                if let Some(block) = &mut permission {
                    if permission::extend(block, line_text, base + line.start) {
                        continue;
                    }
                    finish_permission(&mut out, &mut permission);
                }
                if line_text.as_bytes().first() == Some(&b'>')
                    && line_text.starts_with(permission::PREFIX)
                {
                    permission = permission::parse_first_line(line_text, base + line.start);
                    if permission.is_some() {
                        continue;
                    }
                }
                if memchr::memchr3(b'@', b'[', b'`', line_text.as_bytes()).is_some() {
                    let msg = out.messages.last_mut().expect("in a message");
                    inline::scan_line(
                        line_text,
                        base + line.start,
                        &mut msg.mentions,
                        &mut msg.markers,
                    );
                }
            }
        }
    }
    finish_message(
        &mut out,
        &mut open_code,
        &mut permission,
        base + end_of_scan,
    );
    if let Some(last) = out.messages.last_mut() {
        last.range.end = base + end_of_scan;
        last.body.end = last.range.end.max(last.body.start);
    }
    Scan {
        first_header: out.first_header,
        preamble_code_blocks: out.preamble_code_blocks,
        messages: out.messages.into_iter().map(Message::new).collect(),
    }
}

fn finish_permission(out: &mut Building, permission: &mut Option<PermissionBlock>) {
    if let Some(block) = permission.take()
        && let Some(msg) = out.messages.last_mut()
    {
        msg.permissions.push(block);
    }
}

fn push_code_block(out: &mut Building, block: CodeBlock) {
    match out.messages.last_mut() {
        Some(msg) => msg.code_blocks.push(block),
        None => out.preamble_code_blocks.push(block),
    }
}

/// Closes the current message at `end` (absolute): its range, body and any block
/// still open in it.
fn finish_message(
    out: &mut Building,
    open_code: &mut Option<CodeBlock>,
    permission: &mut Option<PermissionBlock>,
    end: usize,
) {
    finish_permission(out, permission);
    if let Some(mut block) = open_code.take() {
        block.range.end = end;
        push_code_block(out, block);
    }
    if let Some(last) = out.messages.last_mut() {
        last.range.end = end;
        last.body.end = end.max(last.body.start);
    }
}
