//! Finds where a scalar's source text ends. yaml-rust2 gives only the start of each
//! node, so the end is found here by scanning the text, bounded by the next event.

use crate::document::ByteRange;
use yaml_rust2::scanner::TScalarStyle;

/// What is known about a scalar when its extent is computed (offsets into `src`).
pub(super) struct ScalarAt<'a> {
    pub src: &'a str,
    /// The scanner's position for the scalar (for block scalars, the first content line).
    pub start: usize,
    /// Where the next event starts; the scalar cannot reach past it.
    pub bound: usize,
    /// The end of the previous sibling (or key, or the parent's start).
    pub prev_end: usize,
    pub in_flow: bool,
    pub style: TScalarStyle,
    /// The scalar's value as the scanner read it.
    pub value: &'a str,
}

/// The scalar's range in `src`: the text as written, quotes and block header included.
pub(super) fn extent(at: &ScalarAt) -> ByteRange {
    let src = at.src;
    let bound = at.bound.clamp(at.start, src.len());
    match at.style {
        TScalarStyle::Plain if at.value.is_empty() => empty_value(src, at.prev_end),
        TScalarStyle::Plain => {
            let end = folded_end(src, at.start, bound, at.value)
                .unwrap_or_else(|| plain_end(src, at.start, bound, at.in_flow));
            at.start..end
        }
        TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted => {
            let quote = if matches!(at.style, TScalarStyle::SingleQuoted) {
                '\''
            } else {
                '"'
            };
            if src[at.start..].starts_with(quote) {
                at.start..quoted_end(src, at.start, quote)
            } else {
                at.start..plain_end(src, at.start, bound, at.in_flow)
            }
        }
        TScalarStyle::Literal | TScalarStyle::Folded => block(src, at, bound),
    }
}

/// The source range of an alias `*name` starting at `start`.
pub(super) fn alias(src: &str, start: usize) -> ByteRange {
    let len = src[start..]
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c.is_whitespace() || ",[]{}".contains(c))
        .map_or(src.len() - start, |(i, _)| i);
    start..start + len
}

/// An omitted value (`key:` or `- `): an empty range just after its indicator, the
/// first `:`, `-` or `?` after the previous node (blanks and comments skipped).
fn empty_value(src: &str, prev_end: usize) -> ByteRange {
    let prev_end = prev_end.min(src.len());
    let mut in_comment = false;
    for (i, c) in src[prev_end..].char_indices() {
        match c {
            '\n' | '\r' => in_comment = false,
            _ if in_comment || c == ' ' || c == '\t' => {}
            '#' => in_comment = true,
            ':' | '-' | '?' => {
                let pos = prev_end + i + 1;
                return pos..pos;
            }
            _ => break,
        }
    }
    prev_end..prev_end
}

fn is_blank_or_end(c: Option<char>) -> bool {
    c.is_none_or(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))
}

/// The end of a plain scalar read as `value`: just after the last of `value`'s
/// characters, matched against the source from `start`. A plain scalar has no escapes;
/// reading it only folds its line breaks and drops the blanks around them, so the
/// source's non-blank characters are `value`'s, in order. That holds across
/// continuation lines that look like indicators (`  - a` under `title: x`), which no
/// scan of the source alone can tell apart. yaml-rust2 also skips a comment on a line
/// it reads as blank (`\t# c`, a tab in the indentation) and goes on with the scalar:
/// such a comment is skipped here too. `None` if the source does not match within
/// `bound` (then `plain_end` guesses).
fn folded_end(src: &str, start: usize, bound: usize, value: &str) -> Option<usize> {
    let is_blank = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
    let mut source = src.get(start..bound)?.char_indices().peekable();
    let mut after_blank = false;
    let mut end = None;
    for want in value.chars().filter(|&c| !is_blank(c)) {
        loop {
            let (i, c) = source.next()?;
            if c == want {
                end = Some(start + i + c.len_utf8());
                after_blank = false;
                break;
            } else if c == '#' && after_blank {
                while source.next_if(|&(_, c)| c != '\n' && c != '\r').is_some() {}
            } else if !is_blank(c) {
                return None;
            }
            after_blank = is_blank(c);
        }
    }
    end
}

/// The end of a plain scalar: its last content character before a comment, a `: `
/// indicator, a flow indicator (in flow context), the next line's `- `, or `bound`.
fn plain_end(src: &str, start: usize, bound: usize, in_flow: bool) -> usize {
    let text = &src[start..bound];
    let mut end = 0;
    let mut after_space = false;
    let mut line_start = false;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        match c {
            '\n' | '\r' => {
                after_space = true;
                line_start = true;
                continue;
            }
            ' ' | '\t' => {
                after_space = true;
                continue;
            }
            '#' if after_space => break,
            '-' | '?' | ':' if line_start && is_blank_or_end(next) => break,
            '-' | '.' if line_start && is_doc_marker(&text[i..]) => break,
            ':' if i > 0
                && (is_blank_or_end(next)
                    || (in_flow && next.is_some_and(|n| ",[]{}".contains(n)))) =>
            {
                break;
            }
            ',' | '[' | ']' | '{' | '}' if in_flow => break,
            _ => {}
        }
        after_space = false;
        line_start = false;
        end = i + c.len_utf8();
    }
    if end == 0 {
        // Never empty: a plain scalar has at least one character.
        end = text.chars().next().map_or(0, char::len_utf8);
    }
    start + end
}

fn is_doc_marker(text: &str) -> bool {
    (text.starts_with("---") || text.starts_with("..."))
        && is_blank_or_end(text[3..].chars().next())
}

/// The end of a quoted scalar opened at `start`, just after its closing quote (or the
/// end of the text if it has none, which the scanner would have rejected).
fn quoted_end(src: &str, start: usize, quote: char) -> usize {
    let mut chars = src[start..].char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        if quote == '"' && c == '\\' {
            chars.next();
        } else if c == quote {
            if quote == '\'' && chars.peek().is_some_and(|&(_, n)| n == '\'') {
                chars.next();
            } else {
                return start + i + 1;
            }
        }
    }
    src.len()
}

/// A literal or folded scalar: from its `|`/`>` header through its last non-blank
/// content line (content is what is indented at least as much as the first line).
fn block(src: &str, at: &ScalarAt, bound: usize) -> ByteRange {
    let header = find_header(src, at.prev_end.min(at.start), at.start);
    let header_end = src[header..]
        .find(|c: char| c.is_whitespace())
        .map_or(src.len(), |i| header + i);
    if at.value.is_empty() {
        return header..header_end.max(header + 1).min(src.len());
    }
    // `start` is the first content character; its column is the content indentation.
    let first_line = src[..at.start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let indent = at.start - first_line;
    let mut end = at.start;
    let mut line = first_line;
    while line < bound {
        let line_end = src[line..]
            .find(['\n', '\r'])
            .map_or(src.len(), |i| line + i);
        let text = &src[line..line_end];
        let trimmed = text.trim_end_matches([' ', '\t']);
        let content = trimmed.trim_start_matches(' ');
        if !content.is_empty() {
            if trimmed.len() - content.len() < indent {
                break;
            }
            end = line + trimmed.len();
        }
        line = next_line(src, line_end);
    }
    header..end.min(bound).max(header_end)
}

/// The first `|` or `>` in `src[from..to]` outside comments, or `to` if none.
fn find_header(src: &str, from: usize, to: usize) -> usize {
    let mut after_space = true;
    let mut in_comment = false;
    for (i, c) in src[from..to].char_indices() {
        match c {
            '\n' | '\r' => in_comment = false,
            '#' if after_space => in_comment = true,
            '|' | '>' if !in_comment => return from + i,
            _ => {}
        }
        after_space = c.is_whitespace();
    }
    to
}

fn next_line(src: &str, line_end: usize) -> usize {
    if src[line_end..].starts_with("\r\n") {
        line_end + 2
    } else if line_end < src.len() {
        line_end + 1
    } else {
        src.len()
    }
}
