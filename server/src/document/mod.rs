//! The pure document layer: text with LSP-compatible positions, the one line splitter
//! and set of fence rules, the fence-aware line scanner and the chat model. No I/O, no
//! async, no LSP types.

pub(crate) mod bytes;
pub mod chat;
mod columns;
mod edit;
mod fence;
mod flat_text;
pub mod foreign;
pub mod front_matter;
pub mod inline;
pub mod line_starts;
pub mod lines;
pub mod permission;
pub mod quoted;
pub mod references;
pub mod scanner;
pub mod status;
pub mod text;
pub mod units;

/// A byte range into a document's text.
pub type ByteRange = std::ops::Range<usize>;

/// Why bytes could not be read as a chat.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    #[error(
        "the file is not valid UTF-8: byte {offset} (line {line}, column {column}) is not part of a UTF-8 character; chatmd reads chats as UTF-8 — convert the file first (for example with `iconv -t UTF-8`)"
    )]
    InvalidUtf8 {
        offset: usize,
        line: usize,
        column: usize,
    },
}

/// Checks that `bytes` are UTF-8 before anything parses them; the error names the
/// first bad byte by line and column (1-based) so the user can find it.
pub fn decode(bytes: &[u8]) -> Result<&str, DecodeError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        let before = &bytes[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        DecodeError::InvalidUtf8 {
            offset,
            line,
            column: offset - line_start + 1,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_refused_with_its_place() {
        assert_eq!(decode(b"## @me\nhi"), Ok("## @me\nhi"));
        let err = decode(b"## @me\nab\xffc").unwrap_err();
        assert_eq!(
            err,
            DecodeError::InvalidUtf8 {
                offset: 9,
                line: 2,
                column: 3
            }
        );
        assert!(err.to_string().contains("line 2, column 3"));
    }
}
