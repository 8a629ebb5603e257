//! One chat of the soak: its turns in order, where it stands, and the user's typing
//! while its answers stream (each piece remembered for the final checks).

use std::ops::Range;
use std::path::Path;

use chatmd_tests::sim_editor::{At, SimEditor};
use serde_json::json;

use super::plan::{Fault, Rng, Turn};

/// Where a chat stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Its next turn is due: the message is written (or finished), then sent.
    Ready,
    /// Sent; its section has no final status yet.
    Running,
    /// Its section has its final status; the next turn waits until the server no
    /// longer lists the member as answering here.
    Ending,
    /// Its last turn ended.
    Finished,
}

/// A section of the document: its status comment and its body (up to the next
/// heading or the end).
pub struct Section {
    pub agent: String,
    pub status: String,
    /// The `error=` of the status comment.
    pub error: Option<String>,
    pub body: Range<usize>,
}

/// The sections of `text`, in order (read without a regex: this runs for every
/// edit, and the soak must keep up with the server).
pub fn sections(text: &str) -> Vec<Section> {
    const START: &str = "<!-- chatmd id=";
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(START).map(|i| from + i) {
        let Some(end) = text[at..].find(" -->\n").map(|i| at + i) else {
            break;
        };
        let comment = &text[at..end];
        let field = |key: &str| {
            comment
                .split(' ')
                .find_map(|w| w.strip_prefix(key))
                .unwrap_or_default()
                .to_string()
        };
        let error = comment
            .find(" error=\"")
            .map(|i| comment[i + 8..].trim_end_matches('"').to_string());
        let start = end + " -->\n".len();
        let body_end = text[start..]
            .find("\n## @")
            .map_or(text.len(), |i| start + i);
        out.push(Section {
            agent: field("agent="),
            status: field("status="),
            error,
            body: start..body_end,
        });
        from = start;
    }
    out
}

pub struct Chat {
    pub index: usize,
    pub uri: String,
    pub turns: Vec<Turn>,
    /// The turn running, or due next.
    pub current: usize,
    pub phase: Phase,
    /// The final status each turn's section showed, as it ended.
    pub ended: Vec<String>,
    /// The turn whose message is in the document, not yet sent.
    written: Option<usize>,
    cancel_sent: bool,
    message_marked: bool,
    /// The next message's pieces not typed yet (the first is its heading), while the
    /// current turn streams: a draft.
    draft: Vec<String>,
    /// The text the last [`Chat::observe`] looked at.
    seen: String,
    /// Markers typed at the end of the title line, in order.
    pub title_markers: Vec<String>,
    /// Markers typed after Send at the end of a message: (marker, the message's last line).
    pub message_markers: Vec<(String, String)>,
    /// Markers typed into a streaming answer: (marker, its turn).
    pub body_markers: Vec<(String, usize)>,
    /// Every message typed, whole.
    pub messages: Vec<String>,
    pub drafts: usize,
    markers: usize,
}

impl Chat {
    pub fn new(index: usize, uri: String, turns: Vec<Turn>) -> Chat {
        Chat {
            index,
            uri,
            turns,
            current: 0,
            phase: Phase::Ready,
            ended: Vec::new(),
            written: Some(0),
            cancel_sent: false,
            message_marked: false,
            draft: Vec::new(),
            seen: String::new(),
            title_markers: Vec::new(),
            message_markers: Vec::new(),
            body_markers: Vec::new(),
            messages: Vec::new(),
            drafts: 0,
            markers: 0,
        }
    }

    pub fn title(&self) -> String {
        format!("# Soak {} notes:", self.index)
    }

    /// The chat as it is opened: a title and the first turn's message.
    pub fn initial_text(&self, records: &Path) -> String {
        format!(
            "---\ntitle: Soak {}\n---\n{}\n\n## @me\n{}",
            self.index,
            self.title(),
            self.turns[0].message(records)
        )
    }

    pub fn turn(&self) -> &Turn {
        &self.turns[self.current]
    }

    fn marker(&mut self, kind: char) -> String {
        self.markers += 1;
        format!("«{kind}{}·{}»", self.index, self.markers)
    }

    /// Writes the current turn's message (the rest of the draft, or all of it) unless
    /// it is there, and sends it.
    pub async fn send(&mut self, editor: &mut SimEditor, records: &Path) {
        let message = self.turn().message(records);
        if !self.draft.is_empty() {
            // The draft begun while the last answer streamed: finish it.
            for piece in std::mem::take(&mut self.draft) {
                editor.type_text(&self.uri, At::End, &piece).await;
            }
            self.messages.push(format!("\n## @me\n{message}"));
        } else if self.written != Some(self.current) {
            let text = editor.text(&self.uri);
            let heading = if text.ends_with("\n## @me\n") {
                ""
            } else if text.ends_with("\n\n") {
                "## @me\n"
            } else if text.ends_with('\n') {
                "\n## @me\n"
            } else {
                "\n\n## @me\n"
            };
            let whole = format!("{heading}{message}");
            editor.type_text(&self.uri, At::End, &whole).await;
            self.messages.push(whole);
        }
        self.written = Some(self.current);
        let answer = editor
            .command("chatmd.send", json!({"uri": self.uri}))
            .await
            .unwrap_or_else(|e| panic!("Send in chat {} failed: {e}", self.index));
        assert_eq!(
            answer["members"],
            json!([self.turn().member]),
            "Send in chat {} for turn {}: {answer}\n{}",
            self.index,
            self.turn().tag,
            editor.text(&self.uri)
        );
        self.phase = Phase::Running;
        self.seen.clear();
        self.cancel_sent = false;
        self.message_marked = false;
    }

    /// Looks at the current turn's section: ends it when its status is final, and
    /// cancels it when the plan says the user does (once its agent runs). Returns
    /// whether a turn ended.
    pub async fn observe(&mut self, editor: &mut SimEditor, records: &Path) -> bool {
        if self.phase != Phase::Running {
            return false;
        }
        let cancel_due = self.turn().fault == Fault::Cancel && !self.cancel_sent;
        if editor.text(&self.uri) == self.seen && !cancel_due {
            return false;
        }
        let text = editor.text(&self.uri).to_string();
        self.seen.clone_from(&text);
        let all = sections(&text);
        let Some(section) = all.get(self.current) else {
            return false;
        };
        match section.status.as_str() {
            "queued" | "streaming" => {
                // The agent runs once it recorded its run (and its child's pid): the
                // answer may not show yet (an editor that skips stale edits shows it
                // late), but the cancel cannot come before the child is known.
                let turn = self.turn();
                let written =
                    |path: std::path::PathBuf| std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
                let started = written(turn.record(records))
                    && (!turn.grandchild || written(turn.grandchild_pid(records)));
                if cancel_due && started {
                    self.cancel_sent = true;
                    let answer = editor
                        .command("chatmd.cancel", json!({"uri": self.uri}))
                        .await;
                    assert_eq!(
                        answer,
                        Ok(json!({"cancelled": [self.turn().member]})),
                        "cancel of {}",
                        self.turn().tag
                    );
                }
                false
            }
            status => {
                self.ended.push(status.to_string());
                self.phase = if self.current + 1 == self.turns.len() {
                    Phase::Finished
                } else {
                    Phase::Ending
                };
                true
            }
        }
    }

    /// The member is no longer answering here: the next turn is due.
    pub fn released(&mut self) {
        self.current += 1;
        self.phase = Phase::Ready;
    }

    /// Sent and not released yet: the member the server may still list.
    pub fn waiting_for_release(&self) -> Option<&'static str> {
        (self.phase == Phase::Ending).then(|| self.turn().member)
    }

    /// Before the editor handles an edit of this chat while its turn streams, the
    /// user may type: at the end of the title, at the end of the message just sent,
    /// into the answer, or the next message at the end (a draft). The edit is then
    /// stale. Returns how many pieces were typed.
    pub async fn type_some(
        &mut self,
        editor: &mut SimEditor,
        rng: &mut Rng,
        records: &Path,
    ) -> usize {
        if self.phase != Phase::Running {
            return 0;
        }
        let mut typed = 0;
        if rng.percent(6) {
            let marker = self.marker('t');
            let at = editor
                .text(&self.uri)
                .find("\n\n## @me")
                .expect("the first message");
            self.type_at(editor, at, &marker).await;
            self.title_markers.push(marker);
            typed += 1;
        }
        if !self.message_marked && rng.percent(8) {
            self.message_marked = true;
            let line = self.turn().last_line();
            let marker = self.marker('m');
            let text = editor.text(&self.uri);
            let at = text.find(&line).expect("the message") + line.len();
            self.type_at(editor, at, &marker).await;
            self.message_markers.push((marker, line));
            typed += 1;
        }
        if rng.percent(8) {
            let text = editor.text(&self.uri);
            if let Some(section) = sections(text).get(self.current) {
                // Anywhere in the answer but inside an earlier marker.
                let mut places = Vec::new();
                let mut inside = false;
                for (i, c) in text[section.body.clone()].char_indices() {
                    if !inside {
                        places.push(section.body.start + i);
                    }
                    inside = (inside || c == '«') && c != '»';
                }
                places.push(section.body.end);
                let at = places[rng.below(places.len())];
                let marker = self.marker('b');
                self.type_at(editor, at, &marker).await;
                self.body_markers.push((marker, self.current));
                typed += 1;
            }
        }
        // The next message goes below the answer once its section is there (typed
        // before, it stays above the section, which is then the last message).
        let answering = sections(editor.text(&self.uri)).len() > self.current;
        if answering && self.current + 1 < self.turns.len() && rng.percent(15) {
            if self.draft.is_empty() && self.written != Some(self.current + 1) {
                self.draft = draft_pieces(rng, &self.turns[self.current + 1].message(records));
                self.written = Some(self.current + 1);
                self.drafts += 1;
            }
            if !self.draft.is_empty() {
                let piece = self.draft.remove(0);
                editor.type_text(&self.uri, At::End, &piece).await;
                typed += 1;
                if self.draft.is_empty() {
                    let message = self.turns[self.current + 1].message(records);
                    self.messages.push(format!("\n## @me\n{message}"));
                }
            }
        }
        typed
    }

    async fn type_at(&self, editor: &mut SimEditor, at: usize, text: &str) {
        editor.place_cursor(&self.uri, at);
        editor.type_text(&self.uri, At::Cursor, text).await;
    }
}

/// The next message typed in pieces: its heading first (so the chat's last message
/// is the user's from the start), then the text cut at one or two random places.
fn draft_pieces(rng: &mut Rng, message: &str) -> Vec<String> {
    let mut pieces = vec!["\n## @me\n".to_string()];
    let mut rest = message;
    for _ in 0..rng.below(3) {
        let cut = (1..rest.len())
            .filter(|&i| rest.is_char_boundary(i))
            .collect::<Vec<_>>();
        if cut.is_empty() {
            break;
        }
        let at = cut[rng.below(cut.len())];
        pieces.push(rest[..at].to_string());
        rest = &rest[at..];
    }
    pieces.push(rest.to_string());
    pieces
}
