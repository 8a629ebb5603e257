//! The tolerant line parser behind [`super::StatusComment::parse`].

use std::borrow::Cow;

use super::{StatusError, is_valid_key};

/// The fields, borrowed from the line but for quoted values with escapes (a long chat
/// has 20k comments: no allocation per field).
type Fields<'a> = Vec<(&'a str, Cow<'a, str>)>;

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// Skips blanks from `pos`.
fn skip_blanks(line: &str, pos: usize) -> usize {
    let rest = &line[pos..];
    pos + (rest.len() - rest.trim_start_matches(is_blank).len())
}

pub(super) fn line(line: &str) -> Result<Fields<'_>, StatusError> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let open = indent;
    if indent > 3 || !line[open..].starts_with("<!--") {
        return Err(StatusError::NotAStatusComment);
    }
    let mut pos = skip_blanks(line, open + 4);
    let after_word = line[pos..].strip_prefix("chatmd").unwrap_or("x");
    if !(after_word.is_empty() || after_word.starts_with(is_blank) || after_word.starts_with("-->"))
    {
        return Err(StatusError::NotAStatusComment);
    }
    pos += "chatmd".len();
    let mut fields = Vec::new();
    loop {
        pos = skip_blanks(line, pos);
        let rest = &line[pos..];
        if rest.is_empty() {
            let end = line.trim_end().len();
            return Err(StatusError::MissingClose { range: open..end });
        }
        if let Some(after) = rest.strip_prefix("-->") {
            let trailing = after.trim();
            if trailing.is_empty() {
                return Ok(fields);
            }
            let start = pos + 3 + (after.len() - after.trim_start().len());
            return Err(StatusError::TextAfterClose {
                range: start..start + trailing.len(),
            });
        }
        let (key, value, next) = field(line, pos)?;
        fields.push((key, value));
        pos = next;
    }
}

/// Where an unquoted token starting at `pos` ends: at a blank, `-->` or the line end.
fn token_end(line: &str, pos: usize, stop_at_equals: bool) -> usize {
    // The stops are ASCII, so never a byte inside a multibyte char.
    let bytes = line.as_bytes();
    (pos..bytes.len())
        .find(|&i| match bytes[i] {
            b' ' | b'\t' => true,
            b'=' => stop_at_equals,
            b'-' => bytes[i..].starts_with(b"-->"),
            _ => false,
        })
        .unwrap_or(bytes.len())
}

/// One `key=value` at `pos`; returns it and where the next field may start.
fn field(line: &str, pos: usize) -> Result<(&str, Cow<'_, str>, usize), StatusError> {
    let key_end = token_end(line, pos, true);
    let key = &line[pos..key_end];
    if !line[key_end..].starts_with('=') {
        return Err(StatusError::MissingEquals {
            range: pos..key_end,
            token: key.to_owned(),
        });
    }
    if !is_valid_key(key) {
        let range = if key.is_empty() {
            key_end..key_end + 1
        } else {
            pos..key_end
        };
        return Err(StatusError::BadKey {
            range,
            key: key.to_owned(),
        });
    }
    let value_start = key_end + 1;
    if line[value_start..].starts_with('"') {
        let (value, end) = quoted(line, value_start)?;
        let rest = &line[end..];
        if !(rest.is_empty() || rest.starts_with(is_blank) || rest.starts_with("-->")) {
            let len = rest.chars().next().map_or(0, char::len_utf8);
            return Err(StatusError::TextAfterQuote {
                range: end..end + len,
            });
        }
        return Ok((key, value, end));
    }
    let value_end = token_end(line, value_start, false);
    Ok((key, Cow::Borrowed(&line[value_start..value_end]), value_end))
}

/// A quoted value whose `"` is at `start`: its text and the offset after its end quote.
fn quoted(line: &str, start: usize) -> Result<(Cow<'_, str>, usize), StatusError> {
    let inner = &line[start + 1..];
    // Without escapes the value is the text between the quotes.
    if let Some(close) = inner.find(['"', '\\'])
        && inner.as_bytes()[close] == b'"'
    {
        return Ok((Cow::Borrowed(&inner[..close]), start + 1 + close + 1));
    }
    let mut value = String::new();
    let mut chars = line[start + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((Cow::Owned(value), start + 1 + i + 1)),
            '\\' => {
                let Some((j, e)) = chars.next() else { break };
                match e {
                    '"' | '\\' | '>' | '!' => value.push(e),
                    'n' => value.push('\n'),
                    'r' => value.push('\r'),
                    't' => value.push('\t'),
                    'u' => {
                        let rest = &line[start + 1 + j + 1..];
                        match unicode_escape(rest) {
                            Some((c, len)) => {
                                value.push(c);
                                for _ in 0..len {
                                    chars.next();
                                }
                            }
                            None => value.push_str("\\u"),
                        }
                    }
                    other => {
                        value.push('\\');
                        value.push(other);
                    }
                }
            }
            c => value.push(c),
        }
    }
    Err(StatusError::UnterminatedQuote {
        range: start..line.len(),
    })
}

/// `{HEX}` at the start of `rest`: the char and the escape's length in bytes.
fn unicode_escape(rest: &str) -> Option<(char, usize)> {
    let inner = rest.strip_prefix('{')?;
    // At most 6 hex digits: look no further, so a long line stays linear.
    let close = inner.bytes().take(7).position(|b| b == b'}')?;
    let hex = &inner[..close];
    if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
    Some((c, close + 2))
}
