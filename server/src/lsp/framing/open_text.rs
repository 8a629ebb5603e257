//! A large `didOpen` decoded with one pass over its text. Decoded by serde_json, a
//! 10 MB text is read four times before the chat is parsed: serde_json skips over it
//! to find its end, checks it for UTF-8, then it is unescaped and checked again. Here
//! the members before it are walked to find where it starts (the method first, as
//! clients write it), it is unescaped in place up to its closing quote, and serde_json
//! decodes the message with an empty text in its place, which is short. On a 10 MB
//! chat of CJK text that saves about 20 ms before the first outline.

use super::json_string::{decode_found, literal_end};
use super::text_param::{Decoded, DocSync, Found, sync_in};
use tower_lsp_server::ls_types::{DidOpenTextDocumentParams, TextDocumentItem};

/// The method this is for; any other, or a message that names it after its params,
/// goes the way of every other sync.
const OPEN: &[u8] = b"textDocument/didOpen";

/// `body` decoded when it is a `didOpen` whose method comes before its params, or
/// given back untouched.
pub(super) fn decode(mut body: Vec<u8>) -> Result<Decoded, Vec<u8>> {
    let Some(open) = text_start(&body) else {
        return Err(body);
    };
    // The text is decoded over the start of the buffer: the members before it first.
    let before = body[..open].to_vec();
    let mut lines = vec![0];
    let decoded = decode_found(&mut body, open, &mut lines);
    let end = match decoded {
        Ok((_, end)) | Err(Some(end)) => end,
        // The text runs to the end of the message: no JSON, as it was.
        Err(None) => return Ok(Decoded::Other(before)),
    };
    let mut message = before;
    let empty_at = message.len();
    message.extend_from_slice(b"\"\"");
    message.extend_from_slice(&body[end..]);
    let found = sync_in(&message);
    let item = match found {
        Some(Found::Open(item, at)) if at == (empty_at..empty_at + 2) => item,
        // Not a well-formed `didOpen` after all: the message goes on as it was sent
        // (the text written again), to be answered or dropped as any other.
        _ => {
            return Ok(Decoded::Other(match decoded {
                Ok((len, _)) => with_text(&message, empty_at, &body[..len]),
                Err(_) => message,
            }));
        }
    };
    let text = match decoded {
        Ok((len, _)) => {
            body.truncate(len);
            String::from_utf8(body).ok()
        }
        Err(_) => None,
    };
    Ok(match text {
        Some(text) => Decoded::Sync(DocSync::Open(
            DidOpenTextDocumentParams {
                text_document: TextDocumentItem { text, ..item },
            },
            lines,
        )),
        None => Decoded::BadText,
    })
}

/// `message` with `text` as the literal in place of the empty one at `at`.
fn with_text(message: &[u8], at: usize, text: &[u8]) -> Vec<u8> {
    let mut out = message[..at].to_vec();
    let text = String::from_utf8_lossy(text);
    serde_json::to_writer(&mut out, &text).expect("a string is written into a Vec");
    out.extend_from_slice(&message[at + 2..]);
    out
}

/// Where the literal of `params.textDocument.text` starts (its opening quote), when the
/// message is an object whose `method`, before its `params`, is `didOpen`.
fn text_start(body: &[u8]) -> Option<usize> {
    let mut at = Cursor { bytes: body, at: 0 };
    let mut opens = false;
    at.member(b"params", |key, at| {
        if key == b"method" {
            opens = at.peek() == Some(b'"') && at.string() == Some(OPEN);
            Some(())
        } else {
            at.skip_value()
        }
    })?;
    if !opens {
        return None;
    }
    at.member(b"textDocument", |_, at| at.skip_value())?;
    at.member(b"text", |_, at| at.skip_value())?;
    (at.peek() == Some(b'"')).then_some(at.at)
}

/// A walk over a JSON text that only finds where things are: serde_json checks the
/// message afterwards.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    /// The next byte that is not white space, left unread.
    fn peek(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// In the object that starts here, the value of the first member named `key` (read
    /// as written, escapes and all), each member before it given to `other`.
    fn member(
        &mut self,
        key: &[u8],
        mut other: impl FnMut(&[u8], &mut Cursor<'a>) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let name = self.string()?;
            self.eat(b':')?;
            if name == key {
                return Some(());
            }
            other(name, self)?;
            self.eat(b',')?;
        }
    }

    /// The string that starts here, as written, without its quotes.
    fn string(&mut self) -> Option<&'a [u8]> {
        let start = self.at + 1;
        let end = literal_end(self.bytes, start)?;
        self.at = end;
        Some(&self.bytes[start..end - 1])
    }

    /// Past the value that starts here (a string, an object, an array, a scalar).
    fn skip_value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.string()?;
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.at += 1;
                }
                _ if depth > 0 => self.at += 1,
                _ => {
                    let rest = &self.bytes[self.at..];
                    let len = rest
                        .iter()
                        .position(|b| b",}] \t\r\n".contains(b))
                        .unwrap_or(rest.len());
                    if len == 0 {
                        return None;
                    }
                    self.at += len;
                }
            }
            if depth == 0 {
                return Some(());
            }
        }
    }
}

#[cfg(test)]
#[path = "open_text_tests.rs"]
mod tests;
