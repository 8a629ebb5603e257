//! For the property tests of what the server keeps across edits: a generated edit
//! applied alike to a document and to the plain text that models it.

use crate::document::text::PositionEncoding;

use super::state::Document;

/// The nearest byte at or before `at` where an edit can start or end: a char
/// boundary, not between the `\r` and `\n` of a `\r\n` (no position names it).
pub fn boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) || (text[..at].ends_with('\r') && text[at..].starts_with('\n'))
    {
        at -= 1;
    }
    at
}

/// Replaces the bytes `start..end` of the document with `insert`, as an editor's
/// `didChange` with a range in `enc` does.
pub fn edit(doc: &mut Document, start: usize, end: usize, insert: &str, enc: PositionEncoding) {
    let range = (
        doc.text.byte_to_position(start, enc),
        doc.text.byte_to_position(end, enc),
    );
    doc.apply_change(Some(range), insert, enc);
}

/// Replaces `len` bytes from about `at` (moved to where an edit can start and end)
/// with `insert`, in the document and in `model` alike.
pub fn edit_both(
    doc: &mut Document,
    model: &mut String,
    (at, len): (usize, usize),
    insert: &str,
    enc: PositionEncoding,
) {
    let start = boundary(model, at);
    let end = boundary(model, start + len).max(start);
    edit(doc, start, end, insert, enc);
    model.replace_range(start..end, insert);
}
