//! The fence-aware line scanner: splits Markdown into lines and classifies each one by
//! the CommonMark block rules that matter for finding message headings.
//!
//! It follows CommonMark for fenced code (backtick and tilde fences, fence length, 0–3
//! spaces of indent, info strings, an unclosed fence runs to the end), indented code,
//! HTML blocks and ATX headings, with a light container model: list items shift the
//! indentation that counts, and block quotes keep their own fence state so a fence
//! opened inside `>` never swallows the lines after the quote. It never allocates and
//! looks at each byte a small constant number of times. Lines are split by
//! [`super::lines`], fences follow [`super::fence`]; the rules for each line are in
//! [`classify`].

use super::ByteRange;
use super::fence::Fence;
use super::inline::is_handle_start;
use super::lines::Lines;

mod blocks;
mod classify;

/// What a line is, as far as the chat model cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// Only spaces and tabs.
    Blank,
    /// Ordinary Markdown content: paragraphs, list items, thematic breaks.
    Text,
    /// An ATX heading outside any container, with its level and where its text starts.
    Heading { level: u8, content: usize },
    /// An ATX heading inside a block quote or list item; never a message heading.
    NestedHeading,
    /// The opening line of a fenced code block.
    FenceOpen,
    /// A line inside a fenced code block.
    FencedCode,
    /// The closing line of a fenced code block.
    FenceClose,
    /// A line of indented (4-space) code.
    IndentedCode,
    /// A line of an HTML block (including `<!-- -->` comments).
    Html,
    /// A line of a block quote that is not code, including a plain line that
    /// continues the quote's paragraph lazily (without its own `>`).
    Quote,
}

impl LineKind {
    /// Whether the line's text is code (fenced or indented), where nothing is markup.
    pub fn is_code(self) -> bool {
        matches!(
            self,
            LineKind::FenceOpen
                | LineKind::FencedCode
                | LineKind::FenceClose
                | LineKind::IndentedCode
        )
    }
}

/// Where the `@` is when `line`, classified as `kind`, starts a message: a level-2
/// heading whose text starts with `@` and a handle (`## @reviewer`). The one test for
/// a message heading, wherever a line is judged.
pub fn message_at(line: &[u8], kind: LineKind) -> Option<usize> {
    let LineKind::Heading { level: 2, content } = kind else {
        return None;
    };
    let is_message = line.get(content) == Some(&b'@')
        && line.get(content + 1).is_some_and(|&b| is_handle_start(b));
    is_message.then_some(content)
}

/// One line of the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// Byte offset of the first byte of the line.
    pub start: usize,
    /// Byte offset just past the line's content, before its line break.
    pub end: usize,
    /// Byte offset just past the line break (equals `end` on the last line without one).
    pub next: usize,
    pub kind: LineKind,
}

impl Line {
    pub fn range(&self) -> ByteRange {
        self.start..self.end
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum HtmlEnd {
    /// Types 1–5: a line containing this (case-insensitive for type 1).
    Contains(&'static [u8]),
    /// Type 1 ends at any of the closing tags.
    RawTag,
    /// Types 6 and 7: a blank line.
    Blank,
}

/// The paragraph open at the end of a line, if any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Paragraph {
    #[default]
    None,
    Text,
    /// A block quote's: a plain line that continues it lazily is a line of the quote
    /// (CommonMark's lazy continuation), and is classified [`LineKind::Quote`].
    Quote,
}

/// Scanner state that carries from one line to the next.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanState {
    fence: Option<Fence>,
    quote_fence: Option<Fence>,
    html: Option<HtmlEnd>,
    paragraph: Paragraph,
    /// Content columns of the open list items, innermost last.
    lists: Vec<usize>,
}

impl ScanState {
    /// True when the next line starts outside every block: no open fence, HTML block,
    /// paragraph or list. A message heading always leaves the scanner in this state,
    /// which is what lets an incremental re-scan stop early.
    pub fn is_clean(&self) -> bool {
        self.fence.is_none()
            && self.quote_fence.is_none()
            && self.html.is_none()
            && self.paragraph == Paragraph::None
            && self.lists.is_empty()
    }

    /// The line that closes the block still open at this point, if any: a top-level
    /// code fence, or an HTML block that ends at a marker (`-->`, `?>`, `>`, `]]>`,
    /// a raw tag's end). Blocks that end at a blank line, and fences in a block quote
    /// or list item, end by themselves before the next message heading.
    pub fn closing_line(&self) -> Option<String> {
        if let Some(fence) = self.top_fence() {
            return Some(fence.closing_line());
        }
        match self.html? {
            HtmlEnd::Contains(pat) => Some(String::from_utf8_lossy(pat).into_owned()),
            // Any of the raw closers ends a raw block, whichever tag opened it.
            HtmlEnd::RawTag => Some("</pre>".to_string()),
            HtmlEnd::Blank => None,
        }
    }

    /// True while a block is open that only its own closing line ends: the block that
    /// [`ScanState::closing_line`] closes.
    pub fn awaits_closing_line(&self) -> bool {
        self.top_fence().is_some()
            || matches!(self.html, Some(HtmlEnd::Contains(_) | HtmlEnd::RawTag))
    }

    /// The code fence open at the top level (outside list items and block quotes).
    pub(super) fn top_fence(&self) -> Option<Fence> {
        self.fence.filter(|f| f.base == 0)
    }

    /// True while a fenced code block is open.
    pub fn in_fence(&self) -> bool {
        self.fence.is_some() || self.quote_fence.is_some()
    }
}

/// Iterates over the lines of `text` from `start`, classifying each.
pub struct Scanner<'a> {
    text: &'a [u8],
    lines: Lines<'a>,
    state: ScanState,
}

impl<'a> Scanner<'a> {
    pub fn new(text: &'a str, start: usize) -> Self {
        Scanner {
            text: text.as_bytes(),
            lines: Lines::from(text, start),
            state: ScanState::default(),
        }
    }

    pub fn state(&self) -> &ScanState {
        &self.state
    }

    /// Byte offset of the next line to be scanned.
    pub fn position(&self) -> usize {
        self.lines.position()
    }
}

impl Iterator for Scanner<'_> {
    type Item = Line;

    #[inline(always)]
    fn next(&mut self) -> Option<Line> {
        let line = self.lines.next()?;
        let kind = self.state.classify(&self.text[line.start..line.end]);
        Some(Line {
            start: line.start,
            end: line.end,
            next: line.next,
            kind,
        })
    }
}

#[cfg(test)]
mod tests;
