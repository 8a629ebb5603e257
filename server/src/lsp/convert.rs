//! The only place where domain positions become LSP positions and back
//! (texlab's to_proto / from_proto habit).

use tower_lsp_server::ls_types::{DiagnosticSeverity, Position, Range};

use crate::document::ByteRange;
use crate::document::text::{LineCol, PositionEncoding, Text};
use crate::team::Severity;

pub fn position(text: &Text, byte: usize, enc: PositionEncoding) -> Position {
    let lc = text.byte_to_position(byte, enc);
    Position::new(lc.line, lc.col)
}

pub fn range(text: &Text, r: &ByteRange, enc: PositionEncoding) -> Range {
    Range::new(position(text, r.start, enc), position(text, r.end, enc))
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
