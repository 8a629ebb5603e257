//! JSON string literals decoded by chatmd itself, as serde_json decodes them (and
//! refused where it refuses them), for the texts of large document syncs: serde_json
//! would unescape a 10 MB text into a scratch buffer and copy that, and the text of a
//! `didOpen` is decoded here in the very buffer the message was read into.

use std::ops::Range;

use serde_json::value::RawValue;

/// A JSON string literal (quotes included) decoded; `None` if it is not a string or
/// not one serde_json would accept (a lone surrogate, a bad escape).
pub(super) fn decode(raw: &RawValue) -> Option<String> {
    let literal = raw.get().as_bytes();
    let mut buf = literal.to_vec();
    decode_in(&mut buf, 0..literal.len(), &mut Vec::new()).ok()
}

/// Decodes the literal at `literal` (quotes included) of `buf` into `buf` itself: the
/// text moves to the start of the buffer, which is cut after it. A literal that does
/// not decode leaves `buf` unusable (`Err`). `lines` gets where the text's lines start
/// after the first, by the rope's rule (`\n`, `\r`, `\r\n`): a JSON string holds no
/// raw line break, so each is an escape, found here anyway (a table of the lines of
/// a 10 MB chat found in a pass of its own took 2 ms).
pub(super) fn decode_in(
    buf: &mut Vec<u8>,
    literal: Range<usize>,
    lines: &mut Vec<u32>,
) -> Result<String, ()> {
    let (open, close) = (literal.start, literal.end.checked_sub(1).ok_or(())?);
    if literal.len() < 2 || buf[open] != b'"' || buf[close] != b'"' {
        return Err(());
    }
    // Every escape is longer than what it stands for, so `write` never passes `read`.
    let (mut read, mut write) = (open + 1, 0);
    loop {
        let run_end = memchr::memchr(b'\\', &buf[read..close]).map_or(close, |at| read + at);
        buf.copy_within(read..run_end, write);
        write += run_end - read;
        if run_end == close {
            break;
        }
        let escape = *buf
            .get(run_end + 1)
            .filter(|_| run_end + 1 < close)
            .ok_or(())?;
        read = run_end + 2;
        let plain = match escape {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let (c, used) = unicode_escape(&buf[read..close]).ok_or(())?;
                read += used;
                let len = c.len_utf8();
                c.encode_utf8(&mut buf[write..write + len]);
                write += len;
                if matches!(c, '\n' | '\r') {
                    line_break(buf, write, lines);
                }
                continue;
            }
            _ => return Err(()),
        };
        buf[write] = plain;
        write += 1;
        if matches!(plain, b'\n' | b'\r') {
            line_break(buf, write, lines);
        }
    }
    buf.truncate(write);
    String::from_utf8(std::mem::take(buf)).map_err(|_| ())
}

/// Notes the line break just written before `end`: a line starts at `end`, unless the
/// break is the `\n` of a `\r\n`, whose line started after the `\r` was noted.
fn line_break(buf: &[u8], end: usize, lines: &mut Vec<u32>) {
    let start = u32::try_from(end).unwrap_or(u32::MAX);
    if buf[end - 1] == b'\n' && end >= 2 && buf[end - 2] == b'\r' {
        if let Some(last) = lines.last_mut() {
            *last = start;
        }
    } else {
        lines.push(start);
    }
}

/// The char of `XXXX` (after `\u`), or of a surrogate pair `XXXX\uYYYY`, and how many
/// bytes it took.
fn unicode_escape(rest: &[u8]) -> Option<(char, usize)> {
    let hex = |s: &[u8]| {
        let digits = s.get(..4)?;
        digits.iter().try_fold(0u32, |n, &b| {
            let digit = char::from(b).to_digit(16)?;
            Some(n * 16 + digit)
        })
    };
    let first = hex(rest)?;
    match first {
        0xD800..=0xDBFF => {
            let low = hex(rest.get(4..)?.strip_prefix(b"\\u")?)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return None;
            }
            let c = 0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00);
            Some((char::from_u32(c)?, 10))
        }
        0xDC00..=0xDFFF => None,
        _ => Some((char::from_u32(first)?, 4)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// Where the lines start, as the table of a text as opened finds them.
    fn line_starts(text: &str) -> Vec<u32> {
        crate::document::text::Text::from_string(text.to_owned()).line_starts()
    }

    /// Decoded here as serde_json decodes it, or refused where serde_json refuses it;
    /// in place, after other bytes (as a literal inside a message).
    #[test]
    fn strings_decode_as_serde_json_decodes_them() {
        let literals = [
            r#""""#,
            r#""plain text""#,
            r#""line\nbreak\r\n\ttab \"quoted\" back\\slash \/ \b\f""#,
            r#""é😀 漢字 raw""#,
            r#""\u00e9\u6f22\ud83d\ude00 \u0000 \u2028""#,
            r#""ends with an escape\n""#,
            r#""\ud83d alone""#,
            r#""\ude00 alone""#,
            r#""\ud83d\u0041""#,
            r#""\x bad escape""#,
            r#""\u12 short""#,
            r#""\u+123""#,
            r#""\u00E9 upper""#,
            r#""\r\n\r\r\n\n\u000d\u000a\r\u000a\n\r""#,
            r#""cut \"#,
        ];
        for literal in literals {
            let ours = serde_json::from_str::<&RawValue>(literal)
                .ok()
                .and_then(decode);
            let theirs = serde_json::from_str::<String>(literal).ok();
            assert_eq!(ours, theirs, "{literal}");
            let mut buf = format!(r#"{{"text":{literal}}}"#).into_bytes();
            let at = 8..8 + literal.len();
            let mut lines = Vec::new();
            let decoded = decode_in(&mut buf, at, &mut lines).ok();
            assert_eq!(decoded, theirs, "{literal} in place");
            if let Some(text) = decoded {
                assert_eq!(lines, line_starts(&text)[1..], "{literal}");
            }
        }
    }
}
