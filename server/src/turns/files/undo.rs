//! What "Undo @x's changes" needs after the turn is over: for each file a turn
//! changed, what it held before the turn's first write and after its last, kept in
//! `.chatmd/changes/` under the workspace root (one JSON file per chat, turn and file;
//! docs/format.md). The section shows the change; the record is what takes it back.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::conversation::diff::regions;
use crate::document::ByteRange;

/// The folder of the records, under the workspace root.
pub const CHANGES_FOLDER: &str = ".chatmd/changes";

/// One file a turn changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeRecord {
    pub chat: PathBuf,
    /// The turn's id (`t3`).
    pub turn: String,
    pub member: String,
    pub path: PathBuf,
    /// The path as the section shows it.
    pub shown: String,
    /// `None`: the turn created the file.
    pub before: Option<String>,
    pub after: String,
}

impl ChangeRecord {
    /// Where the record of `path` changed by `turn` in `chat` is kept.
    pub fn location(workspace: &Path, chat: &Path, turn: &str, shown: &str) -> PathBuf {
        let mut hash = Sha256::new();
        for part in [
            chat.to_string_lossy().as_bytes(),
            turn.as_bytes(),
            shown.as_bytes(),
        ] {
            hash.update(part);
            hash.update([0]);
        }
        let name: String = hash.finalize()[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        workspace.join(CHANGES_FOLDER).join(format!("{name}.json"))
    }

    pub fn save(&self, workspace: &Path) -> Result<(), String> {
        let path = ChangeRecord::location(workspace, &self.chat, &self.turn, &self.shown);
        let json = serde_json::to_string(self).map_err(|e| e.to_string())?;
        super::write_atomically(&path, &json)
    }

    /// The record of `shown` changed by `turn` in `chat`, if one was kept.
    pub fn load(workspace: &Path, chat: &Path, turn: &str, shown: &str) -> Option<ChangeRecord> {
        let path = ChangeRecord::location(workspace, chat, turn, shown);
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
    }
}

/// What a region of the agent's `after` becomes in the undone text.
enum Back<'a> {
    /// The agent's change: what the file held before it.
    Before(&'a str),
    /// The user's change: their text, this range of the file as it is now.
    Theirs(ByteRange),
}

/// The text that takes the turn's change out of `current` (the file as it is now,
/// `None` when it is gone): `Ok(None)` when the file is to be deleted (the turn
/// created it and nothing else changed). The user's own changes elsewhere in the file
/// stay; a change of theirs to the lines the agent wrote refuses the undo.
pub fn undone_text(record: &ChangeRecord, current: Option<&str>) -> Result<Option<String>, String> {
    let conflict = || {
        format!(
            "{} changed since @{} wrote it; undo by hand",
            record.shown, record.member
        )
    };
    let Some(current) = current else {
        return Err(conflict());
    };
    if current == record.after {
        return Ok(record.before.clone());
    }
    let before = record.before.as_deref().ok_or_else(conflict)?;
    let agent = regions(before, &record.after);
    let user = regions(&record.after, current);
    // A user change on a line the agent changed makes the undo ambiguous: the agent's
    // regions are widened to their whole lines of `after`.
    let after = record.after.as_str();
    let line_start = |at: usize| after[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = |at: usize| after[at..].find('\n').map_or(after.len(), |i| at + i + 1);
    let touches = user.iter().any(|u| {
        agent.iter().any(|a| {
            let (start, end) = (line_start(a.new.start), line_end(a.new.end));
            if u.old.is_empty() {
                // Typing at the very start of the line is a line of the user's above it.
                start < u.old.start && u.old.start < end
            } else {
                u.old.start < end && start < u.old.end
            }
        })
    });
    if touches {
        return Err(conflict());
    }
    // Walk `after`'s regions in order: the agent's go back to `before`'s text, the
    // user's stay as they are in `current`.
    let mut out = String::new();
    let (mut at_after, mut at_current) = (0usize, 0usize);
    let mut all: Vec<(ByteRange, Back<'_>)> = agent
        .iter()
        .map(|a| (a.new.clone(), Back::Before(&before[a.old.clone()])))
        .chain(
            user.iter()
                .map(|u| (u.old.clone(), Back::Theirs(u.new.clone()))),
        )
        .collect();
    all.sort_by_key(|(range, _)| range.start);
    for (range, back) in all {
        out.push_str(&record.after[at_after..range.start]);
        at_current += range.start - at_after;
        match back {
            Back::Before(old) => {
                out.push_str(old);
                at_current += range.len();
            }
            Back::Theirs(theirs) => {
                out.push_str(&current[theirs.clone()]);
                at_current = theirs.end;
            }
        }
        at_after = range.end;
    }
    out.push_str(&record.after[at_after..]);
    debug_assert_eq!(current.len() - at_current, record.after.len() - at_after);
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn record(before: Option<&str>, after: &str) -> ChangeRecord {
        ChangeRecord {
            chat: "/w/a.chat.md".into(),
            turn: "t3".into(),
            member: "reviewer".into(),
            path: "/w/src/pay.rs".into(),
            shown: "src/pay.rs".into(),
            before: before.map(str::to_owned),
            after: after.into(),
        }
    }

    #[test]
    fn undo_restores_the_file_and_keeps_the_users_other_lines() {
        let r = record(Some("a\nb\nc\nd\ne\n"), "a\nB\nc\nd\ne\n");
        assert_eq!(
            undone_text(&r, Some("a\nB\nc\nd\ne\n")),
            Ok(Some("a\nb\nc\nd\ne\n".into()))
        );
        assert_eq!(
            undone_text(&r, Some("a\nB\nc\nd\nE!\n")),
            Ok(Some("a\nb\nc\nd\nE!\n".into()))
        );
        assert_eq!(
            undone_text(&r, Some("a\nBx\nc\nd\ne\n")),
            Err("src/pay.rs changed since @reviewer wrote it; undo by hand".into())
        );
    }

    #[test]
    fn undo_of_a_created_file_deletes_it_unless_it_changed() {
        let r = record(None, "new\n");
        assert_eq!(undone_text(&r, Some("new\n")), Ok(None));
        assert!(undone_text(&r, Some("new\nmore\n")).is_err());
        assert!(undone_text(&r, None).is_err());
    }
}
