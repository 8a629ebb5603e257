//! The only place where domain positions become LSP positions and back
//! (texlab's to_proto / from_proto habit).

use std::path::PathBuf;

use tower_lsp_server::ls_types::{DiagnosticSeverity, Position, Range, Uri};

use crate::document::ByteRange;
use crate::document::line_starts::LineStarts;
use crate::document::text::{LineCol, PositionEncoding, Text};
use crate::team::Severity;

/// The local path of a `file:` URI. `None` for any other scheme (`untitled:`,
/// `http:`...): ls-types reads the path of any URI as a local path, so
/// `http://host/a.chat.md` would be `/a.chat.md` and `untitled:Untitled-1` a file in
/// the server's working folder.
pub fn file_path(uri: &Uri) -> Option<PathBuf> {
    if !uri.scheme().as_str().eq_ignore_ascii_case("file") {
        return None;
    }
    let host = uri.authority().map(|a| a.host()).unwrap_or_default();
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let path = uri.to_file_path()?.into_owned();
    path.is_absolute().then_some(path)
}

pub fn position(text: &Text, byte: usize, enc: PositionEncoding) -> Position {
    let lc = text.byte_to_position(byte, enc);
    Position::new(lc.line, lc.col)
}

pub fn range(text: &Text, r: &ByteRange, enc: PositionEncoding) -> Range {
    Range::new(position(text, r.start, enc), position(text, r.end, enc))
}

/// [`range`] through a table of line starts, for many ranges of one version.
pub fn range_at(starts: &LineStarts<'_>, r: &ByteRange, enc: PositionEncoding) -> Range {
    let at = |byte| {
        let lc = starts.position(byte, enc);
        Position::new(lc.line, lc.col)
    };
    Range::new(at(r.start), at(r.end))
}

pub fn line_col(p: Position) -> LineCol {
    LineCol {
        line: p.line,
        col: p.character,
    }
}

pub fn offset(text: &Text, p: Position, enc: PositionEncoding) -> usize {
    text.position_to_byte(line_col(p), enc)
}

pub fn byte_range(text: &Text, r: Range, enc: PositionEncoding) -> ByteRange {
    let a = offset(text, r.start, enc);
    let b = offset(text, r.end, enc);
    a.min(b)..a.max(b)
}

pub fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
        Severity::Hint => DiagnosticSeverity::HINT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_file_uris_have_a_path() {
        let path = |uri: &str| file_path(&uri.parse::<Uri>().unwrap());
        let local = [
            ("file:///ws/a.chat.md", "/ws/a.chat.md"),
            ("FILE:///ws/a.chat.md", "/ws/a.chat.md"),
            ("file://localhost/ws/a%20b.chat.md", "/ws/a b.chat.md"),
        ];
        for (uri, want) in local {
            assert_eq!(path(uri), Some(PathBuf::from(want)), "{uri}");
        }
        let elsewhere = [
            "untitled:Untitled-1",
            "untitled:/ws/a.chat.md",
            "http://example.com/a.chat.md",
            "vscode-remote://ssh-remote+h/ws/a.chat.md",
            "file://otherhost/ws/a.chat.md",
        ];
        for uri in elsewhere {
            assert_eq!(path(uri), None, "{uri}");
        }
    }
}
