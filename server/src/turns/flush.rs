//! Writing what a round's turns buffered: every turn's new text at its place, its
//! status comment when it changed, and the new text of its blocks (permission records,
//! the plan, tool lines) over them, as one edit; computed again when the document moved
//! on first. A plan or tool line the user edited is not written over: its new text
//! goes at the answer's end as a new block (`placed.rs`).

use super::anchors::Anchors;
use super::live::Live;
use super::placed::OnEdit;
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
        let planned = plan(live, anchors);
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
                t.written();
            }
            return Ok(());
        }
    }
    Err(gave_up())
}

/// One flush's edits, and per turn the blocks it writes (their places in the turn's
/// insert) and the blocks whose records it writes.
struct Planned {
    edits: Edits,
    blocks: Vec<Vec<(String, ByteRange)>>,
    rewritten: Vec<Vec<String>>,
}

/// The edits that write what every turn has buffered (nothing is taken from the turns:
/// an edit that does not land is computed again).
fn plan(live: &[Live], anchors: &Anchors) -> Planned {
    let mut planned = Planned {
        edits: Vec::new(),
        blocks: vec![Vec::new(); live.len()],
        rewritten: vec![Vec::new(); live.len()],
    };
    for (i, t) in live.iter().enumerate() {
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
        if !t.pending.is_empty() {
            let text = with_eol(&t.pending, t.eol);
            for (block, within) in t.blocks.unwritten() {
                let start = with_eol(&t.pending[..within.start], t.eol).len();
                let len = with_eol(&t.pending[within.clone()], t.eol).len();
                planned.blocks[i].push((block.clone(), start..start + len));
            }
            planned.edits.push((places.end..places.end, text));
        }
    }
    planned.edits.sort_by_key(|(r, _)| (r.start, r.end));
    planned
}

/// `text` (written with `\n`) with the document's line break.
fn with_eol(text: &str, eol: &str) -> String {
    match eol {
        "\n" => text.to_string(),
        eol => text.replace("\r\n", "\n").replace('\n', eol),
    }
}
