//! CommonMark block-start rules used by the scanner: indentation, ATX headings,
//! thematic breaks, list markers and the seven kinds of HTML block (fences are in
//! [`crate::document::fence`]).

use super::HtmlEnd;
use crate::document::fence::{Fence, run_length};

/// Columns of leading indentation (tabs to the next multiple of 4) and the byte index
/// of the first non-blank byte (the line's length when it is blank).
pub(super) fn indentation(line: &[u8]) -> (usize, usize) {
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

pub(super) fn atx_level(rest: &[u8]) -> Option<u8> {
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
pub(super) fn starts_block(rest: &[u8]) -> bool {
    match rest[0] {
        b'`' | b'~' => Fence::open(rest, 0).is_some(),
        b'#' => atx_level(rest).is_some(),
        b'>' => true,
        b'<' => html_start(rest, true).is_some(),
        b'-' | b'+' | b'*' | b'0'..=b'9' | b'_' => {
            is_thematic_break(rest) || list_marker(rest).is_some()
        }
        _ => false,
    }
}

pub(super) fn is_thematic_break(rest: &[u8]) -> bool {
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
pub(super) fn list_marker(rest: &[u8]) -> Option<usize> {
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

pub(super) const RAW_TAGS: [&[u8]; 4] = [b"script", b"pre", b"style", b"textarea"];
pub(super) const RAW_CLOSERS: [&[u8]; 4] = [b"</script>", b"</pre>", b"</style>", b"</textarea>"];
pub(super) const BLOCK_TAGS: &[&[u8]] = &[
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
pub(super) fn html_start(rest: &[u8], in_paragraph: bool) -> Option<HtmlEnd> {
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
pub(super) fn is_complete_tag(tail: &[u8], closing: bool) -> bool {
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

/// Short needles in short lines: find the needle's last byte with memchr and compare
/// the rest in place — cheaper than building a memmem searcher for every line.
pub(super) fn contains(hay: &[u8], pat: &[u8]) -> bool {
    let Some((&last, head)) = pat.split_last() else {
        return true;
    };
    let mut from = head.len();
    while from < hay.len() {
        let Some(i) = memchr::memchr(last, &hay[from..]) else {
            return false;
        };
        let end = from + i;
        if &hay[end - head.len()..end] == head {
            return true;
        }
        from = end + 1;
    }
    false
}

pub(super) fn contains_ignore_case(hay: &[u8], pat: &[u8]) -> bool {
    hay.windows(pat.len()).any(|w| w.eq_ignore_ascii_case(pat))
}

#[cfg(test)]
mod tests {
    use super::contains;

    #[test]
    fn contains_finds_short_needles() {
        assert!(contains(b"<!-- x -->", b"-->"));
        assert!(contains(b"-->", b"-->"));
        assert!(!contains(b"->", b"-->"));
        assert!(!contains(b"- ->", b"-->"));
        assert!(contains(b"a?>", b"?>"));
        assert!(contains(b"x", b""));
        assert!(!contains(b"", b">"));
        assert!(contains(b">>>", b">"));
    }
}
