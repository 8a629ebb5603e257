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
    /// A line of a block quote that is not code.
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
struct Fence {
    ch: u8,
    len: usize,
    /// Indentation of the container the fence lives in (list item content column).
    base: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HtmlEnd {
    /// Types 1–5: a line containing this (case-insensitive for type 1).
    Contains(&'static [u8]),
    /// Type 1 ends at any of the closing tags.
    RawTag,
    /// Types 6 and 7: a blank line.
    Blank,
}

/// Scanner state that carries from one line to the next.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanState {
    fence: Option<Fence>,
    quote_fence: Option<Fence>,
    html: Option<HtmlEnd>,
    in_paragraph: bool,
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
            && !self.in_paragraph
            && self.lists.is_empty()
    }

    /// True while a fenced code block is open.
    pub fn in_fence(&self) -> bool {
        self.fence.is_some() || self.quote_fence.is_some()
    }
}

/// Iterates over the lines of `text` from `start`, classifying each.
pub struct Scanner<'a> {
    text: &'a [u8],
    pos: usize,
    state: ScanState,
}

impl<'a> Scanner<'a> {
    pub fn new(text: &'a str, start: usize) -> Self {
        Scanner {
            text: text.as_bytes(),
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

    fn classify(&mut self, line: &[u8]) -> LineKind {
        let st = &mut self.state;
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
            st.in_paragraph = false;
            return LineKind::Blank;
        }

        // Leave list items whose content column this line does not reach, unless the
        // line is a lazy continuation of a paragraph.
        if st.lists.last().is_some_and(|&c| indent < c) {
            if st.in_paragraph && indent < 4 && !starts_block(rest) {
                return LineKind::Text;
            }
            while st.lists.last().is_some_and(|&c| indent < c) {
                st.lists.pop();
            }
        }
        let base = st.lists.last().copied().unwrap_or(0);
        let rel = indent.saturating_sub(base);

        if rel >= 4 {
            if st.in_paragraph {
                return LineKind::Text;
            }
            return LineKind::IndentedCode;
        }

        match rest[0] {
            b'`' | b'~' => {
                if let Some(fence) = opening_fence(rest, base) {
                    st.fence = Some(fence);
                    st.in_paragraph = false;
                    return LineKind::FenceOpen;
                }
            }
            b'#' => {
                if let Some(level) = atx_level(rest) {
                    st.in_paragraph = false;
                    if !st.lists.is_empty() {
                        return LineKind::NestedHeading;
                    }
                    let mut content = first + level as usize;
                    while content < line.len() && (line[content] == b' ' || line[content] == b'\t')
                    {
                        content += 1;
                    }
                    return LineKind::Heading { level, content };
                }
            }
            b'<' => {
                if let Some(end) = html_start(rest, st.in_paragraph) {
                    st.in_paragraph = false;
                    let done = match end {
                        HtmlEnd::Blank => false,
                        HtmlEnd::Contains(pat) => contains(&rest[1..], pat),
                        HtmlEnd::RawTag => {
                            RAW_CLOSERS.iter().any(|p| contains_ignore_case(rest, p))
                        }
                    };
                    if !done {
                        st.html = Some(end);
                    }
                    return LineKind::Html;
                }
            }
            b'>' => return self.classify_quote(rest),
            b'-' | b'+' | b'*' | b'0'..=b'9' => {
                if let Some(width) = list_marker(rest) {
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
                        st.in_paragraph = false;
                        return LineKind::FenceOpen;
                    }
                    if atx_level(&item[item_first..]).is_some() {
                        st.in_paragraph = false;
                        return LineKind::NestedHeading;
                    }
                    st.in_paragraph = !item[item_first..].is_empty();
                    return LineKind::Text;
                }
            }
            _ => {}
        }
        st.in_paragraph = !is_thematic_break(rest);
        LineKind::Text
    }

    /// Classifies a block-quote line: its own fences count, nothing in it is a message.
    fn classify_quote(&mut self, rest: &[u8]) -> LineKind {
        let st = &mut self.state;
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
            st.in_paragraph = false;
            return LineKind::Quote;
        }
        if indent >= 4 && !st.in_paragraph {
            return LineKind::IndentedCode;
        }
        if indent < 4
            && let Some(fence) = opening_fence(content, 0)
        {
            st.quote_fence = Some(fence);
            st.in_paragraph = false;
            return LineKind::FenceOpen;
        }
        if indent < 4 && atx_level(content).is_some() {
            st.in_paragraph = false;
            return LineKind::NestedHeading;
        }
        st.in_paragraph = true;
        LineKind::Quote
    }
}

impl Iterator for Scanner<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        let text = self.text;
        let start = self.pos;
        if start >= text.len() {
            return None;
        }
        let (end, next) = match memchr::memchr2(b'\n', b'\r', &text[start..]) {
            Some(i) => {
                let end = start + i;
                if text[end] == b'\r' && text.get(end + 1) == Some(&b'\n') {
                    (end, end + 2)
                } else {
                    (end, end + 1)
                }
            }
            None => (text.len(), text.len()),
        };
        self.pos = next;
        let kind = self.classify(&text[start..end]);
        Some(Line {
            start,
            end,
            next,
            kind,
        })
    }
}

/// Columns of leading indentation (tabs to the next multiple of 4) and the byte index
/// of the first non-blank byte (the line's length when it is blank).
fn indentation(line: &[u8]) -> (usize, usize) {
    let mut col = 0;
    for (i, &b) in line.iter().enumerate() {
        match b {
            b' ' => col += 1,
            b'\t' => col += 4 - col % 4,
            _ => return (col, i),
        }
    }
    (col, line.len())
}

fn run_length(s: &[u8], ch: u8) -> usize {
    s.iter().take_while(|&&b| b == ch).count()
}

fn opening_fence(rest: &[u8], base: usize) -> Option<Fence> {
    let ch = *rest.first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = run_length(rest, ch);
    if len < 3 {
        return None;
    }
    // A backtick fence's info string may not contain backticks (it would be inline code).
    if ch == b'`' && rest[len..].contains(&b'`') {
        return None;
    }
    Some(Fence { ch, len, base })
}

fn is_closing_fence(rest: &[u8], fence: Fence) -> bool {
    let len = run_length(rest, fence.ch);
    len >= fence.len && rest[len..].iter().all(|&b| b == b' ' || b == b'\t')
}

fn atx_level(rest: &[u8]) -> Option<u8> {
    let level = run_length(rest, b'#');
    if !(1..=6).contains(&level) {
        return None;
    }
    match rest.get(level) {
        None | Some(b' ') | Some(b'\t') => Some(level as u8),
        _ => None,
    }
}

/// Whether a line (after its indentation) starts a block that interrupts a paragraph.
fn starts_block(rest: &[u8]) -> bool {
    match rest[0] {
        b'`' | b'~' => opening_fence(rest, 0).is_some(),
        b'#' => atx_level(rest).is_some(),
        b'>' => true,
        b'<' => html_start(rest, true).is_some(),
        b'-' | b'+' | b'*' | b'0'..=b'9' | b'_' => {
            is_thematic_break(rest) || list_marker(rest).is_some()
        }
        _ => false,
    }
}

fn is_thematic_break(rest: &[u8]) -> bool {
    let ch = rest[0];
    if ch != b'-' && ch != b'*' && ch != b'_' {
        return false;
    }
    let mut count = 0;
    for &b in rest {
        if b == ch {
            count += 1;
        } else if b != b' ' && b != b'\t' {
            return false;
        }
    }
    count >= 3
}

/// Width of a list marker plus the spaces after it (the item's content column relative
/// to the marker), or None when the line does not start a list item.
fn list_marker(rest: &[u8]) -> Option<usize> {
    let marker = match rest[0] {
        b'-' | b'+' | b'*' => {
            if is_thematic_break(rest) {
                return None;
            }
            1
        }
        _ => {
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 || digits > 9 || !matches!(rest.get(digits), Some(b'.' | b')')) {
                return None;
            }
            digits + 1
        }
    };
    match rest.get(marker) {
        None => Some(marker + 1),
        Some(b' ' | b'\t') => {
            let spaces = run_length(&rest[marker..], b' ');
            // Five or more spaces: the content is indented code and starts one column in.
            if spaces >= 5 || marker + spaces == rest.len() {
                Some(marker + 1)
            } else {
                Some(marker + spaces.max(1))
            }
        }
        _ => None,
    }
}

const RAW_TAGS: [&[u8]; 4] = [b"script", b"pre", b"style", b"textarea"];
const RAW_CLOSERS: [&[u8]; 4] = [b"</script>", b"</pre>", b"</style>", b"</textarea>"];
const BLOCK_TAGS: &[&[u8]] = &[
    b"address",
    b"article",
    b"aside",
    b"base",
    b"basefont",
    b"blockquote",
    b"body",
    b"caption",
    b"center",
    b"col",
    b"colgroup",
    b"dd",
    b"details",
    b"dialog",
    b"dir",
    b"div",
    b"dl",
    b"dt",
    b"fieldset",
    b"figcaption",
    b"figure",
    b"footer",
    b"form",
    b"frame",
    b"frameset",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"head",
    b"header",
    b"hr",
    b"html",
    b"iframe",
    b"legend",
    b"li",
    b"link",
    b"main",
    b"menu",
    b"menuitem",
    b"nav",
    b"noframes",
    b"ol",
    b"optgroup",
    b"option",
    b"p",
    b"param",
    b"search",
    b"section",
    b"summary",
    b"table",
    b"tbody",
    b"td",
    b"tfoot",
    b"th",
    b"thead",
    b"title",
    b"tr",
    b"track",
    b"ul",
];

/// The CommonMark HTML block start conditions; `rest` starts with `<`.
fn html_start(rest: &[u8], in_paragraph: bool) -> Option<HtmlEnd> {
    let after = &rest[1..];
    if after.starts_with(b"!--") {
        return Some(HtmlEnd::Contains(b"-->"));
    }
    if after.starts_with(b"?") {
        return Some(HtmlEnd::Contains(b"?>"));
    }
    if after.starts_with(b"![CDATA[") {
        return Some(HtmlEnd::Contains(b"]]>"));
    }
    if after.first() == Some(&b'!') && after.get(1).is_some_and(u8::is_ascii_alphabetic) {
        return Some(HtmlEnd::Contains(b">"));
    }
    let closing = after.first() == Some(&b'/');
    let name_start = if closing { &after[1..] } else { after };
    let name_len = name_start
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
        .count();
    if name_len == 0 || !name_start[0].is_ascii_alphabetic() {
        return None;
    }
    let name = &name_start[..name_len];
    let tail = &name_start[name_len..];
    let ends_name =
        |t: &[u8]| matches!(t.first(), None | Some(b' ' | b'\t' | b'>')) || t.starts_with(b"/>");
    if !closing && RAW_TAGS.iter().any(|t| t.eq_ignore_ascii_case(name)) && ends_name(tail) {
        return Some(HtmlEnd::RawTag);
    }
    if BLOCK_TAGS.iter().any(|t| t.eq_ignore_ascii_case(name)) && ends_name(tail) {
        return Some(HtmlEnd::Blank);
    }
    // Type 7: a complete open or closing tag alone on the line; cannot interrupt a paragraph.
    if !in_paragraph && is_complete_tag(tail, closing) {
        return Some(HtmlEnd::Blank);
    }
    None
}

/// Whether `tail` (what follows a tag name) finishes a tag and then only whitespace.
fn is_complete_tag(tail: &[u8], closing: bool) -> bool {
    let close = if closing {
        let ws = tail.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if tail.get(ws) != Some(&b'>') {
            return false;
        }
        ws + 1
    } else {
        // Attributes: accept anything without another `<` up to a `>` that is not
        // inside quotes.
        let mut quote = None;
        let mut end = None;
        for (i, &b) in tail.iter().enumerate() {
            match (quote, b) {
                (Some(q), _) if b == q => quote = None,
                (Some(_), _) => {}
                (None, b'"' | b'\'') => {
                    // A quote only starts an attribute value after `=`.
                    if i > 0 && tail[i - 1] == b'=' {
                        quote = Some(b)
                    } else {
                        return false;
                    }
                }
                (None, b'<') => return false,
                (None, b'>') => {
                    end = Some(i + 1);
                    break;
                }
                _ => {}
            }
        }
        match end {
            Some(e)
                if !tail.is_empty()
                    && (tail[0].is_ascii_whitespace() || tail[0] == b'>' || tail[0] == b'/') =>
            {
                e
            }
            _ => return false,
        }
    };
    tail[close..].iter().all(|b| *b == b' ' || *b == b'\t')
}

fn contains(hay: &[u8], pat: &[u8]) -> bool {
    memchr::memmem::find(hay, pat).is_some()
}

fn contains_ignore_case(hay: &[u8], pat: &[u8]) -> bool {
    hay.windows(pat.len()).any(|w| w.eq_ignore_ascii_case(pat))
}

#[cfg(test)]
mod tests;
