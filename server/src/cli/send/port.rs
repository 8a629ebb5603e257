//! The chat as `chatmd send` runs it: the file on disk (`turns::file_port`), its turns
//! in the registry of what runs (`turns/runs`, which keeps the chat's lock up to date
//! with who answers), each answer teed to the terminal as it streams, retries on
//! stderr, and the messages for the user kept for the end.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::asking::Asking;
use crate::document::chat::Chat;
use crate::document::status::TurnStatus;
use crate::team::{Team, team_named};
use crate::turns::engine::load_team;
use crate::turns::file_port::FilePort;
use crate::turns::runs::{RunId, Runs};
use crate::turns::{
    Applied, Change, Context, EditorPort, Edits, Level, PortError, Snapshot, TurnError,
};

pub(super) struct SendPort {
    file: FilePort,
    /// This run in the registry of what runs: it holds the chat's lock.
    run: (Runs, RunId),
    /// Where streamed answers are teed (the terminal's stdout).
    tee: Box<dyn Write + Send>,
    /// The member whose text was teed last, to print a heading when it changes.
    teeing: Option<String>,
    /// Where progress lines go (`@reviewer: retrying (3/10): ...`): stderr.
    notes: Box<dyn Write + Send>,
    /// Messages for the user, in order (printed when the run ends).
    pub messages: Vec<(Level, String)>,
    /// How permission requests are answered.
    asking: Asking,
    /// The team read before the first round (the `--on-edit` check), with the
    /// front matter's `team:` it was read for: the first round runs with it rather
    /// than reading the same files again a millisecond later. Later rounds read the
    /// team anew, as an edit to it between rounds is theirs to see.
    read_before: Option<(Option<String>, Arc<Team>)>,
}

impl SendPort {
    pub fn new(
        file: FilePort,
        run: (Runs, RunId),
        tee: Box<dyn Write + Send>,
        notes: Box<dyn Write + Send>,
        asking: Asking,
    ) -> SendPort {
        SendPort {
            file,
            run,
            tee,
            teeing: None,
            notes,
            messages: Vec::new(),
            asking,
            read_before: None,
        }
    }

    /// The chat's team, read now and kept for the first round.
    pub fn team_before_the_round(&mut self, ctx: &Context, chat: &Chat) -> Arc<Team> {
        let team = Arc::new(load_team(ctx, chat));
        let named = team_named(chat).map(str::to_owned);
        self.read_before = Some((named, Arc::clone(&team)));
        team
    }

    /// Whether any answer text was teed to the terminal.
    pub fn teed(&self) -> bool {
        self.teeing.is_some()
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

impl Drop for SendPort {
    fn drop(&mut self) {
        // The chat's lock goes with the run.
        let (runs, run) = &self.run;
        runs.close_run(*run);
    }
}

impl EditorPort for SendPort {
    async fn snapshot(&mut self) -> Result<Snapshot, PortError> {
        self.file.snapshot().await
    }

    async fn apply(&mut self, edits: Edits) -> Result<Applied, PortError> {
        self.file.apply(edits).await
    }

    async fn notify(&mut self, level: Level, message: &str) {
        self.messages.push((level, message.to_string()));
    }

    async fn changes(&mut self) -> Result<Vec<Change>, PortError> {
        self.file.changes().await
    }

    fn current_text(&self) -> Option<&str> {
        self.file.current_text()
    }

    fn chat_team(&mut self, ctx: &Context, chat: &Chat) -> Arc<Team> {
        match self.read_before.take() {
            Some((named, team)) if named.as_deref() == team_named(chat) => team,
            _ => Arc::new(load_team(ctx, chat)),
        }
    }

    fn writes_are_costly(&self) -> bool {
        self.file.writes_are_costly()
    }

    fn begin_turn(&mut self, member: &str, cancel: &CancellationToken) -> Result<(), TurnError> {
        let (runs, run) = &self.run;
        runs.claim(*run, member, cancel)
    }

    fn end_turn(&mut self, member: &str, _status: TurnStatus, _error: Option<&TurnError>) {
        let (runs, run) = &self.run;
        runs.release(*run, member);
    }

    fn on_text(&mut self, member: &str, text: &str) {
        let out = &mut self.tee;
        if self.teeing.as_deref() != Some(member) {
            let _ = write!(out, "\n── @{member} ──\n");
            self.teeing = Some(member.to_string());
        }
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }

    fn permission_asked(
        &mut self,
        asked: crate::turns::Asked<'_>,
        answers: &crate::turns::Answers,
    ) {
        self.asking.ask(asked, answers);
    }

    fn on_retry(&mut self, member: &str, retry: &crate::agents::Retry) {
        let _ = writeln!(self.notes, "@{member}: {retry}");
        let _ = self.notes.flush();
    }
}
