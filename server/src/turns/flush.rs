//! Writing what a round's turns buffered: every turn's new text at its place, its
//! status comment when it changed, and the new text of its blocks (permission records,
//! the plan, tool lines) over them, as one edit; computed again when the document moved
//! on first. A plan or tool line the user edited is not written over: its new text
//! goes at the answer's end as a new block (`placed.rs`).

use super::anchors::Anchors;
use super::live::Live;
use super::placed::OnEdit;
use super::refind::{self, Found};
use super::{Applied, EditorPort, Edits, PortError};
use crate::document::ByteRange;
use crate::document::status::TurnStatus;

/// How many times in a row an edit may find the document moved on before the round
/// gives up (each retry follows a change the editor reported, so this is only reached
/// when an editor refuses every edit).
pub(super) const MAX_STALE: usize = 200;

pub(super) fn gave_up() -> PortError {
    PortError::Refused { times: MAX_STALE }
}

/// Writes everything the turns buffered; when the document moved on first, takes the
/// change in and writes again.
pub(super) async fn flush<P: EditorPort>(
    port: &mut P,
    live: &mut [Live],
    anchors: &mut Anchors,
) -> Result<(), PortError> {
    for t in live.iter_mut() {
        t.blocks.fold_unwritten(&mut t.pending);
    }
    for _ in 0..MAX_STALE {
        for change in port.changes().await? {
            anchors.apply(&change);
        }
        // A turn whose section is gone says so when it ends (its error).
        check_places(port, live, anchors);
        for t in live.iter_mut() {
            let anew: Vec<String> = t
                .blocks
                .rewrites()
                .filter(|(id, _, on_edit)| {
                    *on_edit == OnEdit::WriteAnew && anchors.block(id).is_some_and(|p| p.edited)
                })
                .map(|(id, _, _)| id.to_owned())
                .collect();
            for id in anew {
                anchors.forget(&id);
                t.write_anew(&id);
            }
        }
        let planned = plan(live, anchors, port.current_text());
        if planned.edits.is_empty() {
            return Ok(());
        }
        if port.apply(planned.edits).await? == Applied::Done {
            for (i, t) in live.iter_mut().enumerate() {
                // The blocks written land where this insert comes back.
                let at = anchors.get(i).end;
                for (block, within) in &planned.blocks[i] {
                    anchors.expect_block(block, at, within.clone());
                }
                t.blocks.rewritten(&planned.rewritten[i]);
                t.written_upto(planned.pending[i]);
            }
            return Ok(());
        }
    }
    Err(gave_up())
}

/// Checks every turn's places against the text before anything is written there
/// (`refind.rs`): a section found elsewhere by its id is written there; one that is
/// gone ends its turn. Only turns with something to write are checked (a finished
/// section the user deletes later is theirs to delete).
fn check_places<P: EditorPort>(port: &P, live: &mut [Live], anchors: &mut Anchors) {
    let Some(text) = port.current_text() else {
        return;
    };
    for (i, t) in live.iter_mut().enumerate() {
        let Some(id) = t.status.id().filter(|_| t.dirty()) else {
            continue;
        };
        match refind::check(text, anchors.get(i), id, t.at_line_start) {
            Found::Here => {}
            Found::Moved(places) => {
                // Not a warning: another program's rewrite of the file (read back as
                // one change across the status line) moves places this way, and this
                // is where they are put right.
                tracing::debug!(
                    member = t.member.as_str(),
                    id,
                    "a section's places were off: found again by its id"
                );
                anchors.replace(i, places);
            }
            Found::Gone => t.section_gone(),
        }
    }
}

/// One flush's edits, and per turn the blocks it writes (their places in the turn's
/// insert) and the blocks whose records it writes.
struct Planned {
    edits: Edits,
    blocks: Vec<Vec<(String, ByteRange)>>,
    rewritten: Vec<Vec<String>>,
    /// How much of each turn's buffered text goes in.
    pending: Vec<usize>,
}

/// The edits that write what every turn has buffered (nothing is taken from the turns:
/// an edit that does not land is computed again). `text` is the document the places
/// are in, when the port keeps it.
fn plan(live: &[Live], anchors: &Anchors, text: Option<&str>) -> Planned {
    let mut planned = Planned {
        edits: Vec::new(),
        blocks: vec![Vec::new(); live.len()],
        rewritten: vec![Vec::new(); live.len()],
        pending: live.iter().map(|t| t.pending.len()).collect(),
    };
    for (i, t) in live.iter().enumerate() {
        if t.gone {
            continue;
        }
        let places = anchors.get(i);
        if t.status_dirty {
            planned
                .edits
                .push((places.status.clone(), t.status.render()));
        }
        if t.status.status() == Some(TurnStatus::Skipped) && places.end > places.body_start {
            planned
                .edits
                .push((places.body_start..places.end, String::new()));
            continue;
        }
        for (block, text, _) in t.blocks.rewrites() {
            if let Some(place) = anchors.block(block) {
                planned
                    .edits
                    .push((place.range.clone(), with_eol(text, t.eol)));
                planned.rewritten[i].push(block.to_string());
            }
        }
        let after = text.and_then(|text| text.get(places.end..)).unwrap_or("");
        planned.pending[i] = whole_lines_before(&t.pending, after, t.blocks.unwritten().is_empty());
        let pending = &t.pending[..planned.pending[i]];
        if !pending.is_empty() {
            let text = with_eol(pending, t.eol);
            for (block, within) in t.blocks.unwritten() {
                let start = with_eol(&pending[..within.start], t.eol).len();
                let len = with_eol(&pending[within.clone()], t.eol).len();
                planned.blocks[i].push((block.clone(), start..start + len));
            }
            planned.edits.push((places.end..places.end, text));
        }
    }
    planned.edits.sort_by_key(|(r, _)| (r.start, r.end));
    planned
}

/// How much of `pending` to write before `after` (the text that follows the
/// answer's end): all of it, unless someone else's text follows on the same line
/// (the user started typing right where the answer ends): then whole lines only,
/// so their text never joins a line of the answer (a heading they typed stays a
/// heading). Text with a block in it goes whole (a block ends its line anyway).
fn whole_lines_before(pending: &str, after: &str, only_text: bool) -> usize {
    let joins = !after.is_empty() && !after.starts_with(['\n', '\r']);
    if !joins || !only_text || pending.ends_with('\n') {
        return pending.len();
    }
    pending.rfind('\n').map_or(0, |i| i + 1)
}

/// `text` (written with `\n`) with the document's line break.
fn with_eol(text: &str, eol: &str) -> String {
    match eol {
        "\n" => text.to_string(),
        eol => text.replace("\r\n", "\n").replace('\n', eol),
    }
}
