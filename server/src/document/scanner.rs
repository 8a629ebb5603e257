//! The fence-aware line scanner: splits Markdown into lines and classifies each one by
//! the CommonMark block rules that matter for finding message headings.
//!
//! It follows CommonMark for fenced code (backtick and tilde fences, fence length, 0–3
//! spaces of indent, info strings, an unclosed fence runs to the end), indented code,
//! HTML blocks and ATX headings, with a light container model: list items shift the
//! indentation that counts, and block quotes keep their own fence state so a fence
//! opened inside `>` never swallows the lines after the quote. It never allocates and
//! looks at each byte a small constant number of times.

use super::ByteRange;

mod blocks;
mod breaks;

use blocks::{
    RAW_CLOSERS, atx_level, contains, contains_ignore_case, html_start, indentation,
    is_closing_fence, is_thematic_break, list_marker, opening_fence, starts_block,
};
use breaks::Breaks;

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
pub(super) struct Fence {
    pub(super) ch: u8,
    pub(super) len: usize,
    /// Indentation of the container the fence lives in (list item content column).
    pub(super) base: usize,
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
        if let Some(fence) = self.fence.filter(|f| f.base == 0) {
            return Some(String::from(fence.ch as char).repeat(fence.len));
        }
        match self.html? {
            HtmlEnd::Contains(pat) => Some(String::from_utf8_lossy(pat).into_owned()),
            // Any of the raw closers ends a raw block, whichever tag opened it.
            HtmlEnd::RawTag => Some("</pre>".to_string()),
            HtmlEnd::Blank => None,
        }
    }

    /// True while a fenced code block is open.
    pub fn in_fence(&self) -> bool {
        self.fence.is_some() || self.quote_fence.is_some()
    }
}

/// A heading of `level` whose `#`s start at `first`: its text starts after them and
/// the blanks that follow.
#[inline(always)]
fn heading(line: &[u8], first: usize, level: u8) -> LineKind {
    let after = first + level as usize;
    let blanks = line[after..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    LineKind::Heading {
        level,
        content: after + blanks,
    }
}

/// First bytes that start nothing but paragraph text: not blank, and not the start of
/// a fence, heading, HTML block, block quote, list item or thematic break.
const PLAIN_START: [bool; 256] = {
    let mut t = [true; 256];
    let special = b" \t`~#<>-+*_0123456789";
    let mut i = 0;
    while i < special.len() {
        t[special[i] as usize] = false;
        i += 1;
    }
    t
};

/// Iterates over the lines of `text` from `start`, classifying each.
pub struct Scanner<'a> {
    text: &'a [u8],
    pos: usize,
    breaks: Breaks,
    state: ScanState,
}

impl<'a> Scanner<'a> {
    pub fn new(text: &'a str, start: usize) -> Self {
        let bytes = text.as_bytes();
        Scanner {
            text: bytes,
            breaks: Breaks::new(start),
            pos: start,
            state: ScanState::default(),
        }
    }

    pub fn state(&self) -> &ScanState {
        &self.state
    }

    /// Byte offset of the next line to be scanned.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl ScanState {
    /// Classifies the next line (without its line break) and advances the state: the
    /// scanner's step, usable on its own for text that arrives line by line.
    #[inline(always)]
    pub fn classify(&mut self, line: &[u8]) -> LineKind {
        // Most lines are decided from their first bytes here: lines inside a top-level
        // fence, and lines that start at column 0 outside any fence or HTML block
        // (blank lines, plain text, headings, list items, fences, HTML, quotes). The
        // rest take the general path.
        if let Some(fence) = self.fence {
            // Inside a top-level fence, only a line that starts with the fence character
            // or up to 3 spaces before it can close it. (A block quote's fence never
            // coexists with it.)
            if fence.base == 0 {
                let inside = match line.first() {
                    None => true,
                    Some(b'\t') => true,
                    Some(b' ') => line.starts_with(b"    "),
                    Some(&b) if b == fence.ch => {
                        self.quote_fence = None;
                        if is_closing_fence(line, fence) {
                            self.fence = None;
                            return LineKind::FenceClose;
                        }
                        return LineKind::FencedCode;
                    }
                    Some(_) => true,
                };
                if inside {
                    self.quote_fence = None;
                    return LineKind::FencedCode;
                }
            }
        } else if self.html.is_none() {
            match line.first() {
                None => {
                    self.quote_fence = None;
                    self.paragraph = Paragraph::None;
                    return LineKind::Blank;
                }
                Some(&b) if PLAIN_START[b as usize] => {
                    // Not `>`: a fence in a block quote ends. In a list item, a plain line
                    // at column 0 continues its paragraph lazily or closes every item.
                    self.quote_fence = None;
                    return match self.paragraph {
                        Paragraph::None => {
                            self.lists.clear();
                            self.paragraph = Paragraph::Text;
                            LineKind::Text
                        }
                        Paragraph::Text => LineKind::Text,
                        Paragraph::Quote => LineKind::Quote,
                    };
                }
                Some(b'#') => {
                    // An ATX heading at column 0 closes every list item and quote.
                    if let Some(level) = atx_level(line) {
                        self.quote_fence = None;
                        self.lists.clear();
                        self.paragraph = Paragraph::None;
                        return heading(line, 0, level);
                    }
                }
                Some(b'-' | b'+' | b'*' | b'0'..=b'9') => {
                    // A list item at column 0 closes every other item and quote.
                    if let Some(width) = list_marker(line) {
                        self.quote_fence = None;
                        self.lists.clear();
                        return self.list_item(line, 0, 0, width);
                    }
                }
                Some(b'`' | b'~') => {
                    // So does a fence at column 0.
                    if let Some(fence) = opening_fence(line, 0) {
                        self.quote_fence = None;
                        self.lists.clear();
                        self.fence = Some(fence);
                        self.paragraph = Paragraph::None;
                        return LineKind::FenceOpen;
                    }
                }
                // A block quote closes every list item; it keeps its own fence state.
                Some(b'>') => return self.classify_quote(line),
                Some(b'<') if self.lists.is_empty() => {
                    self.quote_fence = None;
                    if let Some(kind) = self.html_line(line) {
                        return kind;
                    }
                    return self.paragraph_line();
                }
                Some(_) => {}
            }
        }
        self.classify_slow(line)
    }

    /// The general case of [`ScanState::classify`].
    #[inline(never)]
    fn classify_slow(&mut self, line: &[u8]) -> LineKind {
        let st = self;
        let (indent, first) = indentation(line);
        let rest = &line[first..];
        let blank = rest.is_empty();

        // A fenced code block inside a block quote ends with the quote.
        if st.quote_fence.is_some() && !(indent < 4 && rest.first() == Some(&b'>')) {
            st.quote_fence = None;
        }

        if let Some(fence) = st.fence {
            if !blank && indent < fence.base {
                // The list item holding the fence ended; the fence ends with it.
                st.fence = None;
                st.lists.retain(|&c| c <= indent);
            } else {
                let rel = indent.saturating_sub(fence.base);
                if rel < 4 && is_closing_fence(rest, fence) {
                    st.fence = None;
                    return LineKind::FenceClose;
                }
                return LineKind::FencedCode;
            }
        }

        if let Some(end) = st.html {
            let done = match end {
                HtmlEnd::Blank => blank,
                HtmlEnd::Contains(pat) => contains(line, pat),
                HtmlEnd::RawTag => RAW_CLOSERS.iter().any(|p| contains_ignore_case(line, p)),
            };
            if end == HtmlEnd::Blank && blank {
                st.html = None;
                return LineKind::Blank;
            }
            if done {
                st.html = None;
            }
            return LineKind::Html;
        }

        if blank {
            st.paragraph = Paragraph::None;
            return LineKind::Blank;
        }

        // Leave list items whose content column this line does not reach, unless the
        // line is a lazy continuation of a paragraph.
        if st.lists.last().is_some_and(|&c| indent < c) {
            if st.paragraph != Paragraph::None && indent < 4 && !starts_block(rest) {
                return st.paragraph_line();
            }
            while st.lists.last().is_some_and(|&c| indent < c) {
                st.lists.pop();
            }
        }
        let base = st.lists.last().copied().unwrap_or(0);
        let rel = indent.saturating_sub(base);

        if rel >= 4 {
            if st.paragraph != Paragraph::None {
                return st.paragraph_line();
            }
            return LineKind::IndentedCode;
        }

        match rest[0] {
            b'`' | b'~' => {
                if let Some(fence) = opening_fence(rest, base) {
                    st.fence = Some(fence);
                    st.paragraph = Paragraph::None;
                    return LineKind::FenceOpen;
                }
            }
            b'#' => {
                if let Some(level) = atx_level(rest) {
                    st.paragraph = Paragraph::None;
                    if !st.lists.is_empty() {
                        return LineKind::NestedHeading;
                    }
                    return heading(line, first, level);
                }
            }
            b'<' => {
                if let Some(kind) = st.html_line(rest) {
                    return kind;
                }
            }
            b'>' => return st.classify_quote(rest),
            b'-' | b'+' | b'*' | b'0'..=b'9' => {
                if let Some(width) = list_marker(rest) {
                    return st.list_item(line, indent, first, width);
                }
            }
            _ => {}
        }
        if is_thematic_break(rest) {
            st.paragraph = Paragraph::None;
            return LineKind::Text;
        }
        st.paragraph_line()
    }

    /// A line of paragraph text: it continues the open paragraph (a block quote's,
    /// lazily) or starts one.
    #[inline(always)]
    fn paragraph_line(&mut self) -> LineKind {
        match self.paragraph {
            Paragraph::None => {
                self.paragraph = Paragraph::Text;
                LineKind::Text
            }
            Paragraph::Text => LineKind::Text,
            Paragraph::Quote => LineKind::Quote,
        }
    }

    /// Classifies a line that may start an HTML block (`rest`, after the indentation,
    /// starts with `<`), or returns None when it does not.
    #[inline(always)]
    fn html_line(&mut self, rest: &[u8]) -> Option<LineKind> {
        let end = html_start(rest, self.paragraph != Paragraph::None)?;
        self.paragraph = Paragraph::None;
        let done = match end {
            HtmlEnd::Blank => false,
            // Most such blocks are one-line comments (status comments among them) that
            // end with their closer: look there first.
            HtmlEnd::Contains(pat) => {
                (rest.len() > pat.len() && rest.ends_with(pat)) || contains(&rest[1..], pat)
            }
            HtmlEnd::RawTag => RAW_CLOSERS.iter().any(|p| contains_ignore_case(rest, p)),
        };
        if !done {
            self.html = Some(end);
        }
        Some(LineKind::Html)
    }

    /// Classifies a line that starts a list item: its marker, `width` bytes with the
    /// blanks after it, starts at byte `first`, column `indent`.
    #[inline(always)]
    fn list_item(&mut self, line: &[u8], indent: usize, first: usize, width: usize) -> LineKind {
        let st = self;
        let content = indent + width;
        while st.lists.last().is_some_and(|&c| c > indent) {
            st.lists.pop();
        }
        st.lists.push(content);
        let item = &line[(first + width).min(line.len())..];
        let (_, item_first) = indentation(item);
        if let Some(mut fence) = opening_fence(&item[item_first..], 0) {
            fence.base = content;
            st.fence = Some(fence);
            st.paragraph = Paragraph::None;
            return LineKind::FenceOpen;
        }
        if atx_level(&item[item_first..]).is_some() {
            st.paragraph = Paragraph::None;
            return LineKind::NestedHeading;
        }
        st.paragraph = if item[item_first..].is_empty() {
            Paragraph::None
        } else {
            Paragraph::Text
        };
        LineKind::Text
    }

    /// Classifies a block-quote line: its own fences count, nothing in it is a message.
    fn classify_quote(&mut self, rest: &[u8]) -> LineKind {
        let st = self;
        st.lists.clear();
        // Strip every `>` marker (nested quotes) and one optional space after each.
        let mut inner = rest;
        while let Some((&b'>', after)) = inner.split_first() {
            inner = after;
            if let Some((&b' ', after)) = inner.split_first() {
                inner = after;
            }
            let (ind, f) = indentation(inner);
            if ind < 4 && inner.get(f) == Some(&b'>') {
                inner = &inner[f..];
            }
        }
        let (indent, first) = indentation(inner);
        let content = &inner[first..];
        if let Some(fence) = st.quote_fence {
            if indent < 4 && is_closing_fence(content, fence) {
                st.quote_fence = None;
                return LineKind::FenceClose;
            }
            return LineKind::FencedCode;
        }
        if content.is_empty() {
            st.paragraph = Paragraph::None;
            return LineKind::Quote;
        }
        if indent >= 4 && st.paragraph == Paragraph::None {
            return LineKind::IndentedCode;
        }
        if indent < 4
            && let Some(fence) = opening_fence(content, 0)
        {
            st.quote_fence = Some(fence);
            st.paragraph = Paragraph::None;
            return LineKind::FenceOpen;
        }
        if indent < 4 && atx_level(content).is_some() {
            st.paragraph = Paragraph::None;
            return LineKind::NestedHeading;
        }
        st.paragraph = Paragraph::Quote;
        LineKind::Quote
    }
}

impl Iterator for Scanner<'_> {
    type Item = Line;

    #[inline(always)]
    fn next(&mut self) -> Option<Line> {
        let text = self.text;
        let start = self.pos;
        if start >= text.len() {
            return None;
        }
        let (end, next) = self
            .breaks
            .next_line(text)
            .unwrap_or((text.len(), text.len()));
        self.pos = next;
        let kind = self.state.classify(&text[start..end]);
        Some(Line {
            start,
            end,
            next,
            kind,
        })
    }
}

#[cfg(test)]
mod tests;
