//! Go to definition on `@handle`: the member's role file.

use std::sync::Mutex;

use tower_lsp_server::ls_types::*;

use super::convert;
use super::state::{Document, State};
use crate::document::text::PositionEncoding;

pub fn definition(
    state: &Mutex<State>,
    doc: &Document,
    enc: PositionEncoding,
    position: Position,
) -> Option<GotoDefinitionResponse> {
    let text = doc.flat();
    let offset = convert::offset(&doc.text, position, enc);
    let range = doc.chat.handle_at(offset)?;
    let handle = text[range].trim_start_matches('@').to_string();
    let team = doc.team(state).team;
    let role = team.member(&handle)?.role_file.clone()?;
    let uri = Uri::from_file_path(role)?;
    Some(GotoDefinitionResponse::Scalar(Location::new(
        uri,
        Range::default(),
    )))
}
