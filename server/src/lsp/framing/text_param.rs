//! Large document syncs decoded in one pass over the message, their texts straight
//! from the message's bytes (see [`json_string`]): serde_json would first unescape a
//! text into a scratch buffer and then copy that, 10 MB more for a 10 MB chat.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use tower_lsp_server::ls_types::notification::{
    DidChangeTextDocument, DidOpenTextDocument, Notification,
};
use tower_lsp_server::ls_types::{
    DidChangeTextDocumentParams, DidOpenTextDocumentParams, Range, TextDocumentContentChangeEvent,
    TextDocumentItem, Uri, VersionedTextDocumentIdentifier,
};

use super::json_string;

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

/// The params of a sync, decoded as its method says when the method came first (as
/// every client writes it), else left as written.
enum SyncParams<'a> {
    Open(Open<'a>),
    Change(Change<'a>),
    Raw(&'a RawValue),
}

/// A whole notification: a visitor that reads each member once, in the order written,
/// so the params of a 10 MB `didOpen` are scanned only once. An error for a duplicate
/// member or a missing one.
struct Whole<'a> {
    jsonrpc: Cow<'a, str>,
    method: Cow<'a, str>,
    has_id: bool,
    params: SyncParams<'a>,
}

impl<'de> Deserialize<'de> for Whole<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(WholeVisitor)
    }
}

struct WholeVisitor;

impl<'de> Visitor<'de> for WholeVisitor {
    type Value = Whole<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON-RPC notification")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Whole<'de>, A::Error> {
        let (mut jsonrpc, mut method, mut has_id, mut params) = (None, None, false, None);
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let fresh = match key.as_ref() {
                "jsonrpc" => jsonrpc
                    .replace(map.next_value::<Cow<'de, str>>()?)
                    .is_none(),
                "method" => method.replace(map.next_value::<Cow<'de, str>>()?).is_none(),
                "id" => {
                    map.next_value::<IgnoredAny>()?;
                    !std::mem::replace(&mut has_id, true)
                }
                "params" => {
                    let value = match method.as_deref() {
                        Some(DidOpenTextDocument::METHOD) => SyncParams::Open(map.next_value()?),
                        Some(DidChangeTextDocument::METHOD) => {
                            SyncParams::Change(map.next_value()?)
                        }
                        _ => SyncParams::Raw(map.next_value()?),
                    };
                    params.replace(value).is_none()
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    true
                }
            };
            if !fresh {
                return Err(de::Error::custom(format!("`{key}` twice")));
            }
        }
        match (jsonrpc, method, params) {
            (Some(jsonrpc), Some(method), Some(params)) => Ok(Whole {
                jsonrpc,
                method,
                has_id,
                params,
            }),
            _ => Err(de::Error::custom("a member is missing")),
        }
    }
}

/// A document sync, decoded; a `didOpen` with where its text's lines start.
pub(super) enum DocSync {
    Open(DidOpenTextDocumentParams, Vec<u32>),
    Change(DidChangeTextDocumentParams),
}

/// What became of a body given to [`sync`].
pub(super) enum Decoded {
    Sync(DocSync),
    /// Not a well-formed `didOpen` or `didChange` notification: the body, untouched,
    /// to go the usual way (its inspection answers or drops it).
    Other(Vec<u8>),
    /// A `didOpen` whose text is not a JSON string serde_json accepts (a lone
    /// surrogate): its body was used up finding that out.
    BadText,
}

/// A whole body decoded as a well-formed `didOpen` or `didChange` notification. A
/// large sync decoded here needs no inspection: it never reaches tower-lsp-server,
/// and the inspection would decode its text once more. The text of a `didOpen` is
/// decoded in `body`'s own bytes (see [`json_string::decode_in`]).
pub(super) fn sync(body: Vec<u8>) -> Decoded {
    let mut body = match super::open_text::decode(body) {
        Ok(decoded) => return decoded,
        Err(body) => body,
    };
    let (item, text) = match sync_in(&body) {
        Some(Found::Sync(sync)) => return Decoded::Sync(sync),
        Some(Found::Open(item, text)) => (item, text),
        Some(Found::WholeChange(text_document, text)) => {
            // Decoded in place too: a copy would be a second whole text beside the
            // message and the document's current one.
            return match json_string::decode_in(&mut body, text, &mut Vec::new()) {
                Ok(text) => Decoded::Sync(DocSync::Change(DidChangeTextDocumentParams {
                    text_document,
                    content_changes: vec![TextDocumentContentChangeEvent {
                        range: None,
                        range_length: None,
                        text,
                    }],
                })),
                Err(()) => Decoded::Other(body),
            };
        }
        None => return Decoded::Other(body),
    };
    let mut lines = vec![0];
    match json_string::decode_in(&mut body, text, &mut lines) {
        Ok(text) => Decoded::Sync(DocSync::Open(
            DidOpenTextDocumentParams {
                text_document: TextDocumentItem { text, ..item },
            },
            lines,
        )),
        Err(()) => Decoded::BadText,
    }
}

/// What [`sync_in`] found.
pub(super) enum Found {
    Sync(DocSync),
    /// A `didOpen`: its item with an empty text, and where the text's literal is.
    Open(TextDocumentItem, std::ops::Range<usize>),
    /// A `didChange` that replaces the whole text: where its literal is.
    WholeChange(VersionedTextDocumentIdentifier, std::ops::Range<usize>),
}

/// [`sync`] but for the text of a `didOpen`.
pub(super) fn sync_in(body: &[u8]) -> Option<Found> {
    let whole: Whole = serde_json::from_slice(body).ok()?;
    if whole.jsonrpc != "2.0" || whole.has_id {
        return None;
    }
    let params = match whole.params {
        SyncParams::Raw(raw) => match whole.method.as_ref() {
            // The params came before the method.
            DidOpenTextDocument::METHOD => SyncParams::Open(from_raw(raw)?),
            DidChangeTextDocument::METHOD => SyncParams::Change(from_raw(raw)?),
            _ => return None,
        },
        decoded => decoded,
    };
    match params {
        SyncParams::Open(open) => {
            let item = open.text_document;
            let literal = item.text.get().as_bytes();
            // The literal is a slice of `body`: where it starts, as an offset.
            let start = literal.as_ptr() as usize - body.as_ptr() as usize;
            let item_without_text = TextDocumentItem {
                uri: item.uri,
                language_id: item.language_id,
                version: item.version,
                text: String::new(),
            };
            Some(Found::Open(item_without_text, start..start + literal.len()))
        }
        SyncParams::Change(change) => match change.content_changes.as_slice() {
            [
                ContentChange {
                    range: None, text, ..
                },
            ] => {
                let literal = text.get().as_bytes();
                let start = literal.as_ptr() as usize - body.as_ptr() as usize;
                let range = start..start + literal.len();
                Some(Found::WholeChange(change.text_document, range))
            }
            _ => change_params(change).map(|c| Found::Sync(DocSync::Change(c))),
        },
        SyncParams::Raw(_) => None,
    }
}

fn from_raw<'a, T: Deserialize<'a>>(raw: &'a RawValue) -> Option<T> {
    serde_json::from_str(raw.get()).ok()
}

fn change_params(params: Change) -> Option<DidChangeTextDocumentParams> {
    let content_changes = params
        .content_changes
        .into_iter()
        .map(|c| {
            Some(TextDocumentContentChangeEvent {
                range: c.range,
                range_length: c.range_length,
                text: json_string::decode(c.text)?,
            })
        })
        .collect::<Option<_>>()?;
    Some(DidChangeTextDocumentParams {
        text_document: params.text_document,
        content_changes,
    })
}

#[cfg(test)]
#[path = "text_param_tests.rs"]
mod tests;
