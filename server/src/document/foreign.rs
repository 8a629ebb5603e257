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
//! The text is read as the chat reads it: lines end at `\r\n`, `\n` or a lone `\r`
//! ([`super::lines`]), front matter is skipped as [`super::chat::Chat::parse`] skips it,
//! and every line after it goes through the chat's own scanner ([`super::scanner`]), so
//! detection and conversion see exactly the code fences, HTML blocks and message headings
//! a chat would.
//! Markers count only at the start of a line that the scanner does not read as code.
//! Two exceptions, in [`parse`] and [`convert`] (see `parsing::scan`):
//! - rusiaaman/chat.md splits at every `# %% role` line, code fence or not (its parser
//!   is one regular expression), so its cells are split the same way;
//! - a code fence that cannot be closed properly (typically a truncated answer) ends at
//!   the first marker line inside it, and an HTML block (an unclosed `<!--`) ends at the
//!   next marker line. [`unclosed_blocks`] lists both for a diagnostic.
//!
//! Pure code: no I/O, no async, no LSP types. Nothing here panics on any input.

mod conversion;
mod detection;
mod markers;
mod parsing;
pub(crate) mod render;

use super::front_matter;
use super::lines::Lines;
use super::scanner::LineKind;
use markers::Kind;
use parsing::Parsed;
use std::ops::Range;

/// The handle of a converted chat's answers. gp.nvim, vim-ai, lsp-ai and chat.md call a
/// model's API themselves: no member of a team ran those answers, and none has a session
/// to continue, so they keep a handle of their own, which a team can take as a member
/// (a folder `assistant/` with a role file).
pub const ASSISTANT_HANDLE: &str = "assistant";

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
/// Never fires on a chatmd file: any `## @handle` line that the chat reads as a message
/// heading (by its own scanner, from the same state) makes the answer `None`, unless it
/// comes after a foreign assistant marker (`# %% assistant`, `🤖:`, `<<< ...`,
/// `<|assistant|>`): there it is a heading the model wrote in its answer (`## @media
/// queries`), which the conversion escapes, and a chatmd file has no such marker before
/// its first message heading. A format
/// needs at least one user marker (for lsp-ai, one `<|user|>` or `<|assistant|>` line).
/// When several formats qualify, the one whose first marker comes first wins. One pass
/// of the chat's scanner over the lines.
pub fn detect(text: &str) -> Option<Detection> {
    detection::detect(text)
}

/// Whether `prefix`, the start of a text, already settles that the text is in no
/// foreign format, whatever follows: [`detect`] gave up at a chatmd heading in it (or
/// its front matter says the chat was imported). An editor then need not read the rest
/// of a long chat to know it.
pub fn ruled_out_by(prefix: &str) -> bool {
    matches!(detection::verdict(prefix), detection::Verdict::RuledOut)
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
/// - Front matter: the file's own front matter, kept line for line, then
///   `imported_from: <format name>` and `title` when the file has one (gp.nvim `# topic:`),
///   unless its front matter already sets them.
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
/// that would start a chatmd message (`## @x`, where the chat reads it as a heading) is
/// escaped as `## \@x`; a code fence or HTML block left open by a message is closed at
/// its end. CRLF input gives CRLF output. `human` and `assistant` are handles (a leading `@` is allowed); an invalid one
/// falls back to `me` / `assistant`.
pub fn convert(text: &str, format: ForeignFormat, human: &str, assistant: &str) -> String {
    conversion::convert(text, format, human, assistant)
}

/// Byte ranges of the lines that open a code fence or an HTML block (such as `<!--`)
/// which a marker line of `format` ends before their own closing line. The converter
/// closes each at the end of its message (so nothing after it is hidden); the editor
/// shows a diagnostic on each, since the writer may have meant it to end elsewhere.
pub fn unclosed_blocks(text: &str, format: ForeignFormat) -> Vec<Range<usize>> {
    Parsed::new(text, format).cut
}

/// Whether `text`'s front matter has the key `imported_from`: the chat was converted
/// already, and markers of other tools quoted in it are its text.
fn is_imported(text: &str) -> bool {
    front_matter::locate(text).is_some_and(|block| {
        let yaml = &text[block.yaml];
        Lines::new(yaml).any(|line| sets_key(&yaml[line.range()], "imported_from"))
    })
}

/// Whether a top-level YAML line sets `key`.
fn sets_key(line: &str, key: &str) -> bool {
    line.strip_prefix(key)
        .is_some_and(|rest| rest.trim_start().starts_with(':'))
}

/// Where the chat's scanner starts on `text`: after its front matter, if it has any.
fn body_start(text: &str) -> usize {
    front_matter::locate(text).map_or(0, |block| block.range.end)
}

/// Whether a line the chat's scanner read as `kind` may be a marker: it is not code. An
/// HTML block does not hide a marker (the foreign tools know no HTML): an unclosed
/// `<!--` in one message must not swallow the rest of the chat.
fn may_be_marker(kind: LineKind) -> bool {
    !kind.is_code()
}

/// The lines of `text`, each with the byte offset of its start, without line breaks.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    Lines::new(text).map(|line| (line.start, &text[line.range()]))
}
