//! A port for unit tests of the engine, its rounds and live turns without a server or
//! a file: it holds the document's text, records every edit that lands, every message
//! and every turn's beginning and end, and lets a test script someone else's changes
//! (made just before one of the engine's edits, which then finds the document moved
//! on) and edits refused without a change (an editor answering for an older version).

use tokio_util::sync::CancellationToken;

use super::{Applied, Change, EditorPort, Edits, Level, PortError, Snapshot, TurnError};
use crate::document::ByteRange;
use crate::document::status::TurnStatus;

type When = Box<dyn Fn(&Edits) -> bool + Send>;
type Make = Box<dyn FnOnce(&str) -> (ByteRange, String) + Send>;

/// Someone else's change, made just before the first edit `when` matches.
struct Scripted {
    when: When,
    change: Make,
}

#[derive(Default)]
pub struct RecordingPort {
    text: String,
    version: i64,
    /// Changes since the last `snapshot` or `changes`.
    pending: Vec<Change>,
    script: Vec<Scripted>,
    /// How many edits to answer `Stale` without any change.
    refuse: usize,
    /// Every edit that landed, in order.
    pub edits: Vec<Edits>,
    /// How many edits found the document moved on (or were refused).
    pub stale: usize,
    /// Every message to the user.
    pub notes: Vec<(Level, String)>,
    /// Turns and rounds as the port was told: `begin a`, `round a b`, `end a done`,
    /// `end a error: <why>`.
    pub turns: Vec<String>,
    /// Whether the port says its writes are costly (as a file does).
    pub costly_writes: bool,
}

impl RecordingPort {
    pub fn new(text: &str) -> RecordingPort {
        RecordingPort {
            text: text.to_string(),
            ..RecordingPort::default()
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Before the first edit that `when` matches, someone else changes the text as
    /// `change` says (from the text of the moment): that edit is answered `Stale`.
    pub fn before_edit(
        &mut self,
        when: impl Fn(&Edits) -> bool + Send + 'static,
        change: impl FnOnce(&str) -> (ByteRange, String) + Send + 'static,
    ) {
        self.script.push(Scripted {
            when: Box::new(when),
            change: Box::new(change),
        });
    }

    /// Answers the next `n` edits `Stale` with nothing changed.
    pub fn refuse(&mut self, n: usize) {
        self.refuse = n;
    }

    /// Someone else replaces `range` with `text` now.
    fn theirs(&mut self, range: ByteRange, text: &str) {
        self.text.replace_range(range.clone(), text);
        self.pending.push(Change::theirs(range, text.len()));
        self.version += 1;
    }
}

impl EditorPort for RecordingPort {
    fn current_text(&self) -> Option<&str> {
        Some(&self.text)
    }

    fn writes_are_costly(&self) -> bool {
        self.costly_writes
    }

    async fn snapshot(&mut self) -> Result<Snapshot, PortError> {
        self.pending.clear();
        Ok(Snapshot::parse(self.text.as_str(), self.version))
    }

    async fn apply(&mut self, edits: Edits) -> Result<Applied, PortError> {
        if let Some(i) = self.script.iter().position(|s| (s.when)(&edits)) {
            let scripted = self.script.remove(i);
            let (range, text) = (scripted.change)(&self.text);
            self.theirs(range, &text);
            self.stale += 1;
            return Ok(Applied::Stale);
        }
        if self.refuse > 0 {
            self.refuse -= 1;
            self.stale += 1;
            return Ok(Applied::Stale);
        }
        for (range, text) in edits.iter().rev() {
            self.text.replace_range(range.clone(), text);
            self.pending.push(Change {
                range: range.clone(),
                new_len: text.len(),
                ours: true,
            });
        }
        self.version += 1;
        self.edits.push(edits);
        Ok(Applied::Done)
    }

    async fn notify(&mut self, level: Level, message: &str) {
        self.notes.push((level, message.to_string()));
    }

    async fn changes(&mut self) -> Result<Vec<Change>, PortError> {
        Ok(std::mem::take(&mut self.pending))
    }

    fn begin_turn(&mut self, member: &str, _cancel: &CancellationToken) -> Result<(), TurnError> {
        self.turns.push(format!("begin {member}"));
        Ok(())
    }

    fn permission_asked(&mut self, asked: super::Asked<'_>, _answers: &super::Answers) {
        self.turns
            .push(format!("asked {} {}", asked.member, asked.block));
    }

    fn round_starting(&mut self, members: &[String]) {
        self.turns.push(format!("round {}", members.join(" ")));
    }

    fn end_turn(&mut self, member: &str, status: TurnStatus, error: Option<&TurnError>) {
        self.turns.push(match error {
            Some(error) => format!("end {member} {}: {error}", status.as_str()),
            None => format!("end {member} {}", status.as_str()),
        });
    }
}

/// `text` with what changes from run to run in status comments (`started`, `took`,
/// `host`, `pid`) shown as `…`.
pub fn masked(text: &str) -> String {
    let mut out = String::new();
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match word.split_once('=') {
            Some((key @ ("started" | "took" | "host" | "pid"), _)) => {
                out.push_str(key);
                out.push_str("=…");
            }
            _ => out.push_str(word),
        }
    }
    out
}

/// A turn of `member` (its agent named `agent` in the status) streaming into its new
/// section at the end of the port's text, started.
pub(super) async fn started_turn(
    port: &mut RecordingPort,
    member: &crate::team::Member,
    agent: &str,
) -> (super::live::Live, super::anchors::Anchors) {
    use super::anchors::{Anchors, Places};
    let status = crate::conversation::section::queued("t1", agent);
    let text = port.text().to_string();
    let (piece, status_range, body) =
        crate::conversation::section::section_after(&text, "\n", &member.handle, &status);
    let base = text.len();
    port.apply(vec![(base..base, piece)]).await.unwrap();
    port.changes().await.unwrap();
    let mut anchors = Anchors::default();
    anchors.add(Places {
        status: base + status_range.start..base + status_range.end,
        body_start: base + body,
        end: base + body,
    });
    let mut live = super::live::Live::new(member, status, "\n");
    live.start(None);
    (live, anchors)
}
