//! Chat files written for other tools, and their conversion into chatmd.
//!
//! Four formats are recognised (see "Other formats" in the format design):
//!
//! - [`ForeignFormat::PercentCells`]: rusiaaman/chat.md, which uses the same `.chat.md`
//!   suffix, with `# %% user` / `# %% assistant` / `# %% system` / `# %% tool_execute`
//!   (and `# %% settings`) cells;
//! - [`ForeignFormat::GpNvim`]: gp.nvim, `💬:` (legacy `🗨:`) for the user and `🤖:` or
//!   `🤖:[Agent]` for the assistant, header lines before the first `---`;
//! - [`ForeignFormat::VimAi`]: vim-ai `.aichat`, `>>> user`, `>>> system`, `>>> include`,
//!   `>>> exec`, `<<< assistant`, `<<< thinking`, `<<< tool_call`, `<<< tool_response`,
//!   `<<< info`, with an optional `[chat]` INI header;
//! - [`ForeignFormat::LspAi`]: lsp-ai, `<|user|>` / `<|assistant|>` lines.
//!
//! [`detect`] decides, in one pass, whether a file is in one of these formats (never for a
//! real chatmd file); [`parse`] splits a file into messages; [`convert`] renders a full
//! chatmd document that keeps every line of the original.
//!
//! Markers count only at the start of a line and outside fenced code blocks (a minimal
//! CommonMark fence tracker: 0–3 spaces of indent, at least three backticks or tildes,
//! closed by a fence of the same character at least as long with nothing after it).
//! [`parse`] and [`convert`] add one recovery rule for a fence that cannot be closed
//! properly (typically a truncated answer): it ends at the first marker line inside it
//! (see `scan`). Lines end at `\r\n`, `\n` or a lone `\r`.
//!
//! Pure code: no I/O, no async, no LSP types. Nothing here panics on any input.

use std::ops::Range;

/// A chat format of another tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ForeignFormat {
    /// rusiaaman/chat.md: `# %% user` / `# %% assistant` / `# %% system` / `# %% tool_execute`.
    PercentCells,
    /// gp.nvim: `💬:` (also legacy `🗨:`) user, `🤖:` or `🤖:[Agent]` assistant, header
    /// lines before the first `---`.
    GpNvim,
    /// vim-ai: `>>> user`, `>>> system`, `<<< assistant`, `<<< thinking`, `>>> include`,
    /// `>>> exec`, `<<< tool_call`, `<<< tool_response`, `<<< info`, optional `[chat]` header.
    VimAi,
    /// lsp-ai: `<|user|>`, `<|assistant|>`.
    LspAi,
}

impl ForeignFormat {
    /// Every format, in the order used to break ties in [`detect`].
    pub const ALL: [ForeignFormat; 4] = [
        ForeignFormat::PercentCells,
        ForeignFormat::GpNvim,
        ForeignFormat::VimAi,
        ForeignFormat::LspAi,
    ];

    /// Human name for a diagnostic, e.g. "chat.md (`# %% user`)" or "gp.nvim".
    pub fn name(&self) -> &'static str {
        match self {
            ForeignFormat::PercentCells => "chat.md (`# %% user`)",
            ForeignFormat::GpNvim => "gp.nvim",
            ForeignFormat::VimAi => "vim-ai",
            ForeignFormat::LspAi => "lsp-ai",
        }
    }

    fn index(self) -> usize {
        match self {
            ForeignFormat::PercentCells => 0,
            ForeignFormat::GpNvim => 1,
            ForeignFormat::VimAi => 2,
            ForeignFormat::LspAi => 3,
        }
    }
}

/// A foreign format found by [`detect`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    /// The format.
    pub format: ForeignFormat,
    /// Byte range of the first role marker line of that format, without its line ending:
    /// where the diagnostic goes.
    pub marker: Range<usize>,
}

/// The role of a foreign message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// A system prompt.
    System,
    /// The human.
    User,
    /// The model.
    Assistant,
    /// Anything else, by its name in the foreign format: `tool_execute`, `settings`
    /// (chat.md); `include`, `exec`, `thinking`, `tool_call`, `tool_response`, `info` (vim-ai).
    Other(String),
}

/// One message of a foreign chat file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignMessage {
    /// Who wrote it.
    pub role: Role,
    /// Its text: the lines after the marker (and, for gp.nvim and lsp-ai, text on the
    /// marker line itself), without leading and trailing blank lines, joined with `\n`.
    pub text: String,
}

/// Finds out whether `text` is a chat file of another tool.
///
/// Never fires on a chatmd file: any `## @handle` message heading outside fenced code
/// makes the answer `None`. A format needs at least one user marker (for lsp-ai, one
/// `<|user|>` or `<|assistant|>` line). When several formats qualify, the one whose first
/// marker comes first wins. One pass over the lines, no allocation.
pub fn detect(text: &str) -> Option<Detection> {
    let mut fence = Fence::default();
    let mut first: [Option<Range<usize>>; 4] = [None, None, None, None];
    let mut has_user = [false; 4];
    for (start, line) in Lines::new(text) {
        // Most lines are decided by their first byte; only the ones that may be a fence,
        // a heading or a marker go further.
        let Some(&b0) = line.as_bytes().first() else {
            continue;
        };
        if fence.open.is_some() {
            if matches!(b0, b' ' | b'`' | b'~') {
                fence.step(line);
            }
            continue;
        }
        match b0 {
            b' ' | b'`' | b'~' => {
                if fence.step(line) == FenceStep::Outside && heading_at(line).is_some() {
                    return None;
                }
                continue;
            }
            b'#' => {
                if heading_at(line).is_some() {
                    return None;
                }
            }
            b'<' | b'>' | 0xF0 => {}
            _ => continue,
        }
        if let Some((format, marker)) = classify_any(line) {
            let i = format.index();
            if first[i].is_none() {
                first[i] = Some(start..start + line.len());
            }
            if marker.kind == Kind::User
                || (format == ForeignFormat::LspAi && marker.kind == Kind::Assistant)
            {
                has_user[i] = true;
            }
        }
    }
    let mut best: Option<Detection> = None;
    for format in ForeignFormat::ALL {
        let i = format.index();
        if !has_user[i] {
            continue;
        }
        if let Some(range) = first[i].clone() {
            if best.as_ref().is_none_or(|b| range.start < b.marker.start) {
                best = Some(Detection {
                    format,
                    marker: range,
                });
            }
        }
    }
    best
}

/// Splits `text`, read as `format`, into its preamble and its messages.
///
/// The preamble is the text before the first marker (gp.nvim header lines, the vim-ai
/// `[chat]` header, chat.md settings lines), without leading and trailing blank lines;
/// `None` when empty. For lsp-ai there is no preamble: text before the first marker is
/// the first user message (the conversation starts as user).
pub fn parse(text: &str, format: ForeignFormat) -> (Option<String>, Vec<ForeignMessage>) {
    let parsed = Parsed::new(text, format);
    let preamble = (!parsed.pre.is_empty()).then(|| parsed.pre.join("\n"));
    let messages = parsed
        .blocks
        .iter()
        .map(|block| ForeignMessage {
            role: match block.kind {
                Kind::System => Role::System,
                Kind::User => Role::User,
                Kind::Assistant => Role::Assistant,
                Kind::Settings => Role::Other("settings".to_owned()),
                Kind::Other(name, _) => Role::Other(name.to_owned()),
            },
            text: block.lines.join("\n"),
        })
        .collect();
    (preamble, messages)
}

/// Converts `text`, read as `format`, into a complete chatmd document.
///
/// - Front matter with `imported_from: <format name>`, and `title` when the file has one
///   (gp.nvim `# topic:`).
/// - A preamble: header text kept verbatim in a fenced block (gp.nvim header, vim-ai
///   `[chat]` options, chat.md settings), other text before the first marker, then each
///   system prompt under a `System prompt:` line.
/// - Each user message as `## @<human>`, each assistant message as `## @<assistant>`;
///   text after the role word on a marker line (gp.nvim `[Agent]`, vim-ai) stays on the
///   heading, where chatmd ignores it.
/// - Other roles become a collapsed `<details><summary>ROLE</summary>` block inside the
///   neighbouring message of their side (`>>>` roles with the human, `<<<` roles and
///   `tool_execute` with the assistant), or their own message of that side.
///
/// Nothing is lost: every non-marker line of the input appears in the output. A line
/// that would start a chatmd message (`## @x`) is escaped as `## \@x` (outside fenced
/// code); a fence left open by a message is closed at its end. CRLF input gives CRLF
/// output. `human` and `assistant` are handles (a leading `@` is allowed); an invalid one
/// falls back to `me` / `assistant`.
pub fn convert(text: &str, format: ForeignFormat, human: &str, assistant: &str) -> String {
    let parsed = Parsed::new(text, format);
    let human = handle_or(human, "me");
    let assistant = handle_or(assistant, "assistant");

    let mut preamble: Vec<Piece<'_>> = Vec::new();
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
    if let Some(title) = title {
        out.line(&format!("title: {}", yaml_scalar(&title)));
    }
    out.line(&format!("imported_from: {}", yaml_scalar(format.name())));
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
    if uses_crlf(text) {
        out.buf.replace('\n', "\r\n")
    } else {
        out.buf
    }
}

// ---------------------------------------------------------------------------------------
// Lines and fences

/// Lines of a text with the byte offset of their start. Lines end at `\r\n`, `\n` or a
/// lone `\r` (as for CommonMark and the document layer's rope), which a line excludes; a
/// final empty line (text ending in a line ending) is not yielded.
struct Lines<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines { text, pos: 0 }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.text.get(self.pos..)?;
        if rest.is_empty() {
            return None;
        }
        let start = self.pos;
        let bytes = rest.as_bytes();
        match find_line_end(bytes) {
            Some(i) => {
                let crlf = bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n');
                self.pos += i + if crlf { 2 } else { 1 };
                Some((start, &rest[..i]))
            }
            None => {
                self.pos = self.text.len();
                Some((start, rest))
            }
        }
    }
}

/// Index of the first `\n` or `\r` in `bytes`, eight bytes at a time (lines are often
/// short, and this beats a byte loop or a general-purpose search on them).
fn find_line_end(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const LF: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    const CR: u64 = 0x0d0d_0d0d_0d0d_0d0d;
    // Flags the zero bytes of `x`: the lowest flag is exact (borrows only produce false
    // flags above a real zero byte), so the lowest flag of the union is the first match.
    let zeros = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        let found = zeros(word ^ LF) | zeros(word ^ CR);
        if found != 0 {
            return Some(offset + (found.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map(|i| offset + i)
}

/// What a line is to the fence tracker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FenceStep {
    /// Ordinary line outside fenced code.
    Outside,
    /// Opening fence.
    Open,
    /// Line inside fenced code.
    Inside,
    /// Closing fence.
    Close,
}

/// Minimal CommonMark fenced-code tracker (top level only: no containers).
#[derive(Debug, Default, Clone, Copy)]
struct Fence {
    /// Fence character and length of the open fence.
    open: Option<(u8, usize)>,
}

impl Fence {
    fn step(&mut self, line: &str) -> FenceStep {
        match self.open {
            Some((ch, len)) => match fence_run(line) {
                Some((c, n, rest))
                    if c == ch && n >= len && rest.trim_matches([' ', '\t']).is_empty() =>
                {
                    self.open = None;
                    FenceStep::Close
                }
                _ => FenceStep::Inside,
            },
            None => match fence_run(line) {
                Some((c, n, rest)) if c == b'~' || !rest.contains('`') => {
                    self.open = Some((c, n));
                    FenceStep::Open
                }
                _ => FenceStep::Outside,
            },
        }
    }
}

/// A run of at least three backticks or tildes after 0–3 spaces: its character, its
/// length and the rest of the line.
fn fence_run(line: &str) -> Option<(u8, usize, &str)> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < 3 && b.get(i) == Some(&b' ') {
        i += 1;
    }
    let c = *b.get(i)?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let mut j = i;
    while b.get(j) == Some(&c) {
        j += 1;
    }
    (j - i >= 3).then(|| (c, j - i, &line[j..]))
}

/// If `line` is a chatmd message heading (`## @handle`, 0–3 spaces of indent), the byte
/// index of its `@`.
fn heading_at(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < 3 && b.get(i) == Some(&b' ') {
        i += 1;
    }
    if b.get(i) != Some(&b'#') || b.get(i + 1) != Some(&b'#') {
        return None;
    }
    i += 2;
    let gap = i;
    while matches!(b.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    if i == gap || b.get(i) != Some(&b'@') {
        return None;
    }
    b.get(i + 1)
        .is_some_and(u8::is_ascii_alphanumeric)
        .then_some(i)
}

/// Whether the first line ending of `text` is `\r\n`.
fn uses_crlf(text: &str) -> bool {
    let bytes = text.as_bytes();
    find_line_end(bytes).is_some_and(|i| bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n'))
}

// ---------------------------------------------------------------------------------------
// Markers

/// Which side of the conversation a role belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Human,
    Agent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    System,
    User,
    Assistant,
    /// chat.md `# %% settings`: options, kept in the preamble.
    Settings,
    /// Any other role, with its side.
    Other(&'static str, Side),
}

/// A role marker line.
#[derive(Debug, Clone, Copy)]
struct Marker<'a> {
    kind: Kind,
    /// Text after the role on the marker line that is not message text (gp.nvim
    /// `[Agent]`, vim-ai): kept on the chatmd heading.
    label: &'a str,
    /// Text on the marker line that is message text (gp.nvim, lsp-ai).
    content: &'a str,
}

const GP_USER: &str = "💬:";
const GP_USER_LEGACY: &str = "🗨:";
const GP_ASSISTANT: &str = "🤖:";

fn classify(line: &str, format: ForeignFormat) -> Option<Marker<'_>> {
    match format {
        ForeignFormat::PercentCells => percent_marker(line),
        ForeignFormat::GpNvim => gp_marker(line),
        ForeignFormat::VimAi => vim_marker(line),
        ForeignFormat::LspAi => lsp_marker(line),
    }
}

/// The marker of any format on `line`, dispatched on its first byte.
fn classify_any(line: &str) -> Option<(ForeignFormat, Marker<'_>)> {
    match *line.as_bytes().first()? {
        b'#' => percent_marker(line).map(|m| (ForeignFormat::PercentCells, m)),
        0xF0 => gp_marker(line).map(|m| (ForeignFormat::GpNvim, m)),
        b'>' => vim_marker(line).map(|m| (ForeignFormat::VimAi, m)),
        b'<' => vim_marker(line)
            .map(|m| (ForeignFormat::VimAi, m))
            .or_else(|| lsp_marker(line).map(|m| (ForeignFormat::LspAi, m))),
        _ => None,
    }
}

/// `# %% role` (also `#%% role`), role case-insensitive, nothing after it.
fn percent_marker(line: &str) -> Option<Marker<'_>> {
    let rest = line.strip_prefix('#')?.trim_start_matches([' ', '\t']);
    let rest = rest.strip_prefix("%%")?;
    let word = rest.trim_start_matches([' ', '\t']);
    if word.len() == rest.len() {
        return None;
    }
    let end = word.find(char::is_whitespace).unwrap_or(word.len());
    let (word, tail) = word.split_at(end);
    if !tail.trim().is_empty() {
        return None;
    }
    let kind = if word.eq_ignore_ascii_case("user") {
        Kind::User
    } else if word.eq_ignore_ascii_case("assistant") {
        Kind::Assistant
    } else if word.eq_ignore_ascii_case("system") {
        Kind::System
    } else if word.eq_ignore_ascii_case("tool_execute") {
        Kind::Other("tool_execute", Side::Agent)
    } else if word.eq_ignore_ascii_case("settings") {
        Kind::Settings
    } else {
        return None;
    };
    Some(Marker {
        kind,
        label: "",
        content: "",
    })
}

/// `💬: text`, `🗨: text`, `🤖:[Agent] text`.
fn gp_marker(line: &str) -> Option<Marker<'_>> {
    if let Some(rest) = line
        .strip_prefix(GP_USER)
        .or_else(|| line.strip_prefix(GP_USER_LEGACY))
    {
        return Some(Marker {
            kind: Kind::User,
            label: "",
            content: rest.trim(),
        });
    }
    let rest = line.strip_prefix(GP_ASSISTANT)?.trim_start();
    let (label, content) = match rest.find(']') {
        Some(i) if rest.starts_with('[') => (&rest[..=i], rest[i + 1..].trim()),
        _ => ("", rest.trim()),
    };
    Some(Marker {
        kind: Kind::Assistant,
        label,
        content,
    })
}

/// `>>> role` / `<<< role`, the role followed by the end of the line or whitespace.
fn vim_marker(line: &str) -> Option<Marker<'_>> {
    let (side, rest) = if let Some(rest) = line.strip_prefix(">>> ") {
        (Side::Human, rest)
    } else {
        (Side::Agent, line.strip_prefix("<<< ")?)
    };
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let (word, tail) = rest.split_at(end);
    let kind = match (side, word) {
        (Side::Human, "user") => Kind::User,
        (Side::Human, "system") => Kind::System,
        (Side::Human, "include") => Kind::Other("include", side),
        (Side::Human, "exec") => Kind::Other("exec", side),
        (Side::Agent, "assistant") => Kind::Assistant,
        (Side::Agent, "thinking") => Kind::Other("thinking", side),
        (Side::Agent, "tool_call") => Kind::Other("tool_call", side),
        (Side::Agent, "tool_response") => Kind::Other("tool_response", side),
        (Side::Agent, "info") => Kind::Other("info", side),
        _ => return None,
    };
    Some(Marker {
        kind,
        label: tail.trim(),
        content: "",
    })
}

/// `<|user|> text` / `<|assistant|> text`.
fn lsp_marker(line: &str) -> Option<Marker<'_>> {
    let (kind, rest) = if let Some(rest) = line.strip_prefix("<|user|>") {
        (Kind::User, rest)
    } else {
        (Kind::Assistant, line.strip_prefix("<|assistant|>")?)
    };
    Some(Marker {
        kind,
        label: "",
        content: rest.trim(),
    })
}

// ---------------------------------------------------------------------------------------
// Parsing

/// One message of the foreign file.
struct Block<'a> {
    kind: Kind,
    label: &'a str,
    /// Message text lines, blank lines at both ends removed.
    lines: Vec<&'a str>,
}

/// A foreign file split into the text before the first marker and its messages.
struct Parsed<'a> {
    /// Lines before the first marker, blank lines at both ends removed.
    pre: Vec<&'a str>,
    blocks: Vec<Block<'a>>,
}

/// Marker lines (by line index), outside fenced code, with one recovery rule for fences
/// that cannot be closed properly, which in a chat file mean a truncated answer: a fence
/// still open at the end of the text, or one followed (before its closing fence) by a line
/// that could only open a new fence of its kind (```` ```rust ```` inside ```` ``` ````),
/// is taken to end at the first marker line inside it. Restarts are budgeted so that the
/// work stays linear in the number of lines.
fn scan<'a>(lines: &[&'a str], format: ForeignFormat) -> Vec<(usize, Marker<'a>)> {
    let mut markers = Vec::new();
    let budget = lines.len().saturating_mul(4).saturating_add(64);
    let mut spent = 0usize;
    let mut from = 0;
    'scan: loop {
        let mut fence = Fence::default();
        let mut first_inside: Option<usize> = None;
        for (i, &line) in lines.iter().enumerate().skip(from) {
            spent += 1;
            let open = fence.open;
            match fence.step(line) {
                FenceStep::Outside => {
                    if let Some(marker) = classify(line, format) {
                        markers.push((i, marker));
                    }
                }
                FenceStep::Inside => match (first_inside, open) {
                    (Some(m), Some((c, n))) => {
                        if reopens(line, c, n) && spent + (lines.len() - m) <= budget {
                            from = m;
                            continue 'scan;
                        }
                    }
                    _ => {
                        if classify(line, format).is_some() {
                            first_inside = Some(i);
                        }
                    }
                },
                FenceStep::Close => first_inside = None,
                FenceStep::Open => {}
            }
        }
        match first_inside {
            Some(m) if fence.open.is_some() && spent + (lines.len() - m) <= budget => from = m,
            _ => return markers,
        }
    }
}

/// Whether `line`, inside a fence of `c` × `n`, could only be the opening fence of a new
/// block: same character, long enough to close, but with an info string.
fn reopens(line: &str, c: u8, n: usize) -> bool {
    matches!(
        fence_run(line),
        Some((c2, n2, rest)) if c2 == c && n2 >= n && !rest.trim().is_empty() && (c == b'~' || !rest.contains('`'))
    )
}

impl<'a> Parsed<'a> {
    fn new(text: &'a str, format: ForeignFormat) -> Self {
        let lines: Vec<&str> = Lines::new(text).map(|(_, line)| line).collect();
        let markers = scan(&lines, format);
        let first = markers.first().map_or(lines.len(), |&(i, _)| i);
        let mut pre = trim_blank(&lines[..first]).to_vec();
        let mut blocks = Vec::with_capacity(markers.len() + 1);
        if format == ForeignFormat::LspAi && !pre.is_empty() {
            blocks.push(Block {
                kind: Kind::User,
                label: "",
                lines: std::mem::take(&mut pre),
            });
        }
        for (n, &(i, marker)) in markers.iter().enumerate() {
            let end = markers.get(n + 1).map_or(lines.len(), |&(j, _)| j);
            let mut body = Vec::with_capacity(end - i);
            if !marker.content.is_empty() {
                body.push(marker.content);
            }
            body.extend_from_slice(&lines[i + 1..end]);
            blocks.push(Block {
                kind: marker.kind,
                label: marker.label,
                lines: trim_blank(&body).to_vec(),
            });
        }
        Parsed { pre, blocks }
    }
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

fn trim_blank<'s, 'a>(lines: &'s [&'a str]) -> &'s [&'a str] {
    let start = lines
        .iter()
        .position(|l| !is_blank(l))
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !is_blank(l))
        .map_or(start, |i| i + 1);
    &lines[start..end]
}

/// The title of a gp.nvim chat: its `# topic:` header line, unless still `?`.
fn gp_title(pre: &[&str]) -> Option<String> {
    pre.iter().find_map(|line| {
        let topic = line.strip_prefix("# topic:")?.trim();
        (!topic.is_empty() && topic != "?").then(|| topic.to_owned())
    })
}

// ---------------------------------------------------------------------------------------
// Rendering

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
        for c in one_line(label).chars() {
            match c {
                '&' => s.push_str("&amp;"),
                '<' => s.push_str("&lt;"),
                '>' => s.push_str("&gt;"),
                c => s.push(c),
            }
        }
    }
    s
}

/// Marker-line text for a heading or summary: control characters (a lone `\r` would end
/// the line) become spaces.
fn one_line(label: &str) -> String {
    label.replace(|c: char| c.is_control(), " ")
}

/// The output, with `\n` line endings.
#[derive(Default)]
struct Out {
    buf: String,
}

impl Out {
    fn line(&mut self, line: &str) {
        self.buf.push_str(line);
        self.buf.push('\n');
    }

    fn blank(&mut self) {
        self.buf.push('\n');
    }

    /// Message or preamble text: `## @x` lines outside fenced code are escaped as
    /// `## \@x`, and a fence still open at the end is closed.
    fn body(&mut self, lines: &[&str]) {
        let mut fence = Fence::default();
        for &line in lines {
            // A heading line is never a fence line, so it can be stepped like any other.
            let step = fence.step(line);
            match heading_at(line) {
                Some(at) if step == FenceStep::Outside => {
                    self.buf.push_str(&line[..at]);
                    self.buf.push('\\');
                    self.line(&line[at..]);
                }
                _ => self.line(line),
            }
        }
        if let Some((c, n)) = fence.open {
            self.line(&char::from(c).to_string().repeat(n));
        }
    }

    /// Lines kept verbatim in a fenced block that none of them can close.
    fn fenced(&mut self, info: &str, lines: &[&str]) {
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

/// `h` without a leading `@` if it is a valid handle, else `default`.
fn handle_or<'a>(h: &'a str, default: &'a str) -> &'a str {
    let h = h.trim();
    let h = h.strip_prefix('@').unwrap_or(h);
    let mut bytes = h.bytes();
    let valid = bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if valid { h } else { default }
}

/// A YAML scalar: plain when that is unambiguous, double-quoted otherwise.
fn yaml_scalar(s: &str) -> String {
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
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // No regression files: this module keeps its files to itself.
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn find_line_end_matches_a_naive_search(bytes in prop::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(0x0b), Just(0x0c), Just(0x8a), Just(0x8d), any::<u8>()], 0..40)) {
            prop_assert_eq!(find_line_end(&bytes), bytes.iter().position(|&b| b == b'\n' || b == b'\r'));
        }

        #[test]
        fn lines_end_at_crlf_lf_or_cr(text in "[a\r\n\u{e9}]{0,30}") {
            let ours: Vec<&str> = Lines::new(&text).map(|(_, line)| line).collect();
            let mut expected: Vec<&str> = text.split("\r\n").flat_map(|l| l.split(['\n', '\r'])).collect();
            if expected.last() == Some(&"") {
                expected.pop();
            }
            prop_assert_eq!(ours, expected);
            for (start, line) in Lines::new(&text) {
                prop_assert_eq!(&text[start..start + line.len()], line);
            }
        }
    }

    #[test]
    fn yaml_scalars() {
        assert_eq!(yaml_scalar("gp.nvim"), "gp.nvim");
        assert_eq!(
            yaml_scalar("Fix the parser (again)"),
            "Fix the parser (again)"
        );
        assert_eq!(yaml_scalar("yes"), "\"yes\"");
        assert_eq!(yaml_scalar("2024"), "\"2024\"");
        assert_eq!(yaml_scalar("a: b # c"), "\"a: b # c\"");
        assert_eq!(yaml_scalar("tab\there \u{7}"), "\"tab\\there \\u0007\"");
        assert_eq!(yaml_scalar(""), "\"\"");
    }

    #[test]
    fn scan_recovery_is_budgeted() {
        // Fences that are never closed (each shorter than the one before), each with a
        // marker inside: unbounded recovery would rescan to the end once per fence.
        let n = 300;
        let mut text = String::from("<|user|>\n");
        for k in 0..n {
            text.push_str(&"`".repeat(n + 3 - k));
            text.push_str("\n<|assistant|>\n");
        }
        let lines: Vec<&str> = Lines::new(&text).map(|(_, l)| l).collect();
        let markers = scan(&lines, ForeignFormat::LspAi);
        // The first few fences are recovered, then the budget (about four passes) is spent
        // and the rest is read strictly, as one fenced block.
        assert!(markers.len() > 2, "{}", markers.len());
        assert!(markers.len() < 20, "{}", markers.len());
        assert_eq!(markers[0].0, 0);
    }
}
