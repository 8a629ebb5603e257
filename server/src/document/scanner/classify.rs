//! The scanner's step: how one line is classified from the state the lines before it
//! left, by the CommonMark block rules (fences, HTML blocks, headings, lists, quotes,
//! lazy continuation), with a fast path for the lines decided by their first bytes.

use super::blocks::{
    RAW_CLOSERS, atx_level, contains, contains_ignore_case, html_start, indentation,
    is_thematic_break, list_marker, starts_block,
};
use super::{HtmlEnd, LineKind, Paragraph, ScanState};
use crate::document::fence::Fence;

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
                        if fence.is_closed_by(line) {
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
                    if let Some(fence) = Fence::open(line, 0) {
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
                if rel < 4 && fence.is_closed_by(rest) {
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
                if let Some(fence) = Fence::open(rest, base) {
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
        if let Some(mut fence) = Fence::open(&item[item_first..], 0) {
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
            if indent < 4 && fence.is_closed_by(content) {
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
            && let Some(fence) = Fence::open(content, 0)
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
