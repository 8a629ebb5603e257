//! The `text` of a large document sync, decoded straight from the message's bytes
//! into its one `String`. serde_json would first unescape it into a scratch buffer and
//! then copy that: for a 10 MB chat, 10 MB more at the moment the server's memory
//! peaks.

use serde::Deserialize;
use serde_json::value::RawValue;
use tower_lsp_server::ls_types::{
    DidChangeTextDocumentParams, DidOpenTextDocumentParams, Range, TextDocumentContentChangeEvent,
    TextDocumentItem, Uri, VersionedTextDocumentIdentifier,
};

/// A notification's params, the rest of it ignored.
#[derive(Deserialize)]
struct Params<P> {
    params: P,
}

/// `DidOpenTextDocumentParams` with the text left as written.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Open<'a> {
    #[serde(borrow)]
    text_document: Item<'a>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Item<'a> {
    uri: Uri,
    language_id: String,
    version: i32,
    #[serde(borrow)]
    text: &'a RawValue,
}

/// `DidChangeTextDocumentParams` with the texts left as written.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Change<'a> {
    text_document: VersionedTextDocumentIdentifier,
    #[serde(borrow)]
    content_changes: Vec<ContentChange<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ContentChange<'a> {
    range: Option<Range>,
    range_length: Option<u32>,
    #[serde(borrow)]
    text: &'a RawValue,
}

/// The params of a `didOpen` body; `None` when they do not decode.
pub(super) fn open(body: &[u8]) -> Option<DidOpenTextDocumentParams> {
    let Params::<Open> { params } = serde_json::from_slice(body).ok()?;
    let item = params.text_document;
    Some(DidOpenTextDocumentParams {
        text_document: TextDocumentItem {
            uri: item.uri,
            language_id: item.language_id,
            version: item.version,
            text: string(item.text)?,
        },
    })
}

/// The params of a `didChange` body; `None` when they do not decode.
pub(super) fn change(body: &[u8]) -> Option<DidChangeTextDocumentParams> {
    let Params::<Change> { params } = serde_json::from_slice(body).ok()?;
    let content_changes = params
        .content_changes
        .into_iter()
        .map(|c| {
            Some(TextDocumentContentChangeEvent {
                range: c.range,
                range_length: c.range_length,
                text: string(c.text)?,
            })
        })
        .collect::<Option<_>>()?;
    Some(DidChangeTextDocumentParams {
        text_document: params.text_document,
        content_changes,
    })
}

/// A JSON string literal (quotes included) decoded; `None` if it is not a string or
/// not one serde_json would accept (a lone surrogate, a bad escape).
fn string(raw: &RawValue) -> Option<String> {
    let inner = raw.get().strip_prefix('"')?.strip_suffix('"')?;
    let bytes = inner.as_bytes();
    let mut out = String::with_capacity(inner.len());
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &bytes[at..]) {
        out.push_str(&inner[at..at + found]);
        at += found + 1;
        let escape = *bytes.get(at)?;
        at += 1;
        match escape {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let (c, used) = unicode_escape(&inner[at..])?;
                out.push(c);
                at += used;
            }
            _ => return None,
        }
    }
    out.push_str(&inner[at..]);
    Some(out)
}

/// The char of `XXXX` (after `\u`), or of a surrogate pair `XXXX\uYYYY`, and how many
/// bytes it took.
fn unicode_escape(rest: &str) -> Option<(char, usize)> {
    let hex = |s: &str| {
        let digits = s.get(..4)?;
        digits
            .bytes()
            .all(|b| b.is_ascii_hexdigit())
            .then(|| u32::from_str_radix(digits, 16).ok())?
    };
    let first = hex(rest)?;
    match first {
        0xD800..=0xDBFF => {
            let low = hex(rest.get(4..)?.strip_prefix("\\u")?)?;
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

    /// Decoded here as serde_json decodes it, or refused where serde_json refuses it.
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
            r#""cut \"#,
        ];
        for literal in literals {
            let ours = serde_json::from_str::<&RawValue>(literal)
                .ok()
                .and_then(string);
            let theirs = serde_json::from_str::<String>(literal).ok();
            assert_eq!(ours, theirs, "{literal}");
        }
    }

    #[test]
    fn params_decode_as_their_types_do() {
        let open = r###"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.chat.md","languageId":"chatmd","version":3,"text":"## @me\nhi \"😀\"\r\n"}}}"###;
        let ours = open_params(open.as_bytes());
        let theirs: Params<DidOpenTextDocumentParams> = serde_json::from_str(open).unwrap();
        assert_eq!(ours, Some(theirs.params));

        let changed = r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.chat.md","version":4},"contentChanges":[{"text":"all\n"},{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":2}},"rangeLength":1,"text":"\u00e9"}]}}"#;
        let ours = change(changed.as_bytes());
        let theirs: Params<DidChangeTextDocumentParams> = serde_json::from_str(changed).unwrap();
        assert_eq!(ours, Some(theirs.params));

        let not_a_string = r#"{"params":{"textDocument":{"uri":"file:///a","languageId":"x","version":1,"text":7}}}"#;
        assert_eq!(open_params(not_a_string.as_bytes()), None);
    }

    fn open_params(body: &[u8]) -> Option<DidOpenTextDocumentParams> {
        open(body)
    }
}
