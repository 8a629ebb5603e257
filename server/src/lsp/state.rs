//! The server's state: open documents (text, parsed chat, version), the negotiated
//! position encoding, the workspace root, cached teams and agent kinds, and the chat
//! index. The team of a chat and where a member's CLI is are asked here, through the
//! one rule of `team::locate` and `agents::program`, with what is cached.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use tower_lsp_server::ls_types::Uri;

use crate::agents::Registry;
use crate::agents::program::{self, ProgramError};
use crate::document::chat::Chat;
use crate::document::text::{PositionEncoding, Text};
use crate::team::{self, Member, Team};

pub use super::chat_team::{ChatTeam, team_of};
pub use super::shared_text::{Part, TextFrom};

/// An open document.
#[derive(Clone)]
pub struct Document {
    pub uri: Uri,
    pub path: Option<PathBuf>,
    pub version: i32,
    pub text: Text,
    pub chat: Arc<Chat>,
    /// The text as one string, made on first use after an edit (as opened, the text
    /// is one string already): requests read `&str` slices without walking the rope.
    /// Shared by the snapshots of one version: the diagnostics and the code lenses
    /// after a keystroke each took a snapshot, and each copied the whole text.
    flat: Arc<OnceLock<Arc<String>>>,
    /// The outline of this version, serialized: an editor asks for it again and again
    /// (shared by the snapshots of one version, so the first request fills it).
    outline_json: Arc<OnceLock<Arc<Vec<u8>>>>,
    /// What the outline and the folds need of each message, kept across edits.
    pub(super) pieces: super::pieces::SharedPieces,
    /// What each message contributes to the diagnostics, kept across edits.
    pub(super) checks: super::message_problems::SharedChecks,
    /// What the `seen=` check needs of each message, kept across edits.
    pub(super) seen: super::seen_kept::SharedSeen,
    /// The text from a message on to the end, as last read ([`Document::text_from`]),
    /// carried over edits before it.
    tail: Arc<std::sync::Mutex<KeptTail>>,
    /// The diagnostics last published for this document's versions, and the edits
    /// since; this version's place among those edits.
    pub(super) published: Arc<super::published::Published>,
    pub(super) edits: u64,
    /// The text of the last large message read ([`Document::part`]) in this version, or
    /// what the edit's re-parse read around it.
    large_part: Arc<std::sync::Mutex<KeptPart>>,
    /// The chat's team as this version's features found it ([`Document::team`]).
    team: Arc<OnceLock<ChatTeam>>,
}

/// A message from this size on is read once per version however many requests read
/// it (the outline's piece, its checks, its `seen=` facts). Small in unit tests, so
/// that their short chats take the same path.
const LARGE_PART: usize = if cfg!(test) { 8 } else { 64 << 10 };

/// Where a kept text starts in the document, and the text.
type KeptPart = Option<(usize, Arc<String>)>;

/// Where the text read last started, and the text from there to the end.
type KeptTail = Option<(usize, Arc<String>)>;

impl Document {
    pub fn new(uri: Uri, version: i32, text: String) -> Document {
        // The editor's string itself, no copy, no rope until the first edit.
        Document::with_text(uri, version, Text::from_string(text))
    }

    pub fn with_text(uri: Uri, version: i32, text: Text) -> Document {
        let path = super::convert::file_path(&uri);
        let chat = Arc::new(match text.as_flat() {
            Some(flat) => Chat::parse(flat),
            None => Chat::parse(&text.to_string()),
        });
        Document {
            uri,
            path,
            version,
            chat,
            text,
            flat: Arc::default(),
            outline_json: Arc::default(),
            pieces: Default::default(),
            checks: Default::default(),
            seen: Default::default(),
            tail: Arc::default(),
            published: Arc::default(),
            edits: 0,
            large_part: Arc::default(),
            team: Arc::default(),
        }
    }

    /// The chat's team for this version's features, found once: after a keystroke the
    /// diagnostics and the code lenses each need it, and finding it reads the team's
    /// files (for a client that watches none, every member's role and settings files).
    pub fn team(&self, state: &Mutex<State>) -> ChatTeam {
        let find = || team_of(state, self.path.as_deref(), &self.chat);
        self.team.get_or_init(find).clone()
    }

    /// The text of bytes `range` (a message's): in place as opened, else read into
    /// `buf`, or, for a large message, shared by the requests of this version (a key in
    /// a 1 MB answer had each request copy it out of the rope).
    pub fn part<'a>(&'a self, range: std::ops::Range<usize>, buf: &'a mut String) -> Part<'a> {
        if let Some(part) = self.text.as_flat().and_then(|flat| flat.get(range.clone())) {
            return Part::Borrowed(part);
        }
        if range.len() < LARGE_PART {
            self.text.slice_into(range, buf);
            return Part::Borrowed(buf.as_str());
        }
        let mut kept = self.large_part.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((from, text)) = kept.as_ref()
            && let Some(at) = range.start.checked_sub(*from)
            && at + range.len() <= text.len()
        {
            return Part::Shared {
                text: text.clone(),
                at: at..at + range.len(),
            };
        }
        let text = Arc::new(self.text.slice(range.clone()));
        *kept = Some((range.start, text.clone()));
        Part::Shared {
            at: 0..text.len(),
            text,
        }
    }

    /// The text from byte `base` to the end. The code lenses and the waits read the
    /// latest messages after every keystroke; a keystroke before them (in a long chat,
    /// mostly) leaves them as they were, and a large answer is not copied again.
    pub fn text_from(&self, base: usize) -> TextFrom {
        if let Some(flat) = self.text.as_flat() {
            let skip = base.min(flat.len());
            if flat.is_char_boundary(skip) {
                return TextFrom {
                    text: flat.clone(),
                    skip,
                };
            }
        }
        let mut kept = self.tail.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((from, text)) = kept.as_ref()
            && let Some(skip) = base.checked_sub(*from)
            && text.is_char_boundary(skip)
        {
            return TextFrom {
                text: text.clone(),
                skip,
            };
        }
        let text = Arc::new(self.text.slice(base..self.text.len_bytes()));
        *kept = Some((base, text.clone()));
        TextFrom { text, skip: 0 }
    }

    /// The serialized outline of this version, made by `make` on first use.
    pub fn outline_json(&self, make: impl FnOnce() -> Arc<Vec<u8>>) -> Arc<Vec<u8>> {
        self.outline_json.get_or_init(make).clone()
    }

    /// The whole text as a string (cheap after the first call per version).
    pub fn flat(&self) -> Arc<String> {
        if let Some(flat) = self.text.as_flat() {
            return flat.clone();
        }
        self.flat
            .get_or_init(|| Arc::new(self.text.to_string()))
            .clone()
    }

    /// Applies one LSP content change and re-parses incrementally.
    pub fn apply_change(
        &mut self,
        range: Option<(
            crate::document::text::LineCol,
            crate::document::text::LineCol,
        )>,
        new_text: &str,
        encoding: PositionEncoding,
    ) -> crate::document::text::Edit {
        let edit = self.text.apply_change(range, new_text, encoding);
        match self.published.edited(self.edits, edit.start) {
            Some(edits) => self.edits = edits,
            // Another copy of the document was edited: its publications are not ours.
            None => (self.published, self.edits) = (Arc::default(), 0),
        }
        let text = &self.text;
        // The re-parse reads the edited message out of the rope; its readers in this
        // version (the outline's piece, the checks, the `seen=` facts) read that text
        // instead of copying a large message once more.
        let read = std::cell::RefCell::new(None);
        let reparsed = Arc::make_mut(&mut self.chat).reparse(&edit, text.len_bytes(), |r| {
            let part = Arc::new(text.slice(r.clone()));
            *read.borrow_mut() = Some((r.start, part.clone()));
            part
        });
        let read = read
            .into_inner()
            .filter(|(_, part)| part.len() >= LARGE_PART && part.len() < text.len_bytes());
        self.pieces.edited(reparsed);
        self.checks.edited(reparsed);
        self.seen.edited(reparsed);
        self.flat = Arc::default();
        self.outline_json = Arc::default();
        self.team = Arc::default();
        self.large_part = Arc::new(std::sync::Mutex::new(read));
        // The tail read last is this version's too when the edit was before it (older
        // snapshots keep theirs).
        let tail = self.tail.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let moved = tail.filter(|(from, _)| edit.old_end <= *from);
        self.tail =
            Arc::new(std::sync::Mutex::new(moved.map(|(from, text)| {
                (from.wrapping_add_signed(edit.delta()), text)
            })));
        edit
    }
}

/// When a file on disk was read: its modification time and size.
pub type OutlineStamp = (Option<std::time::SystemTime>, u64);

/// What the client said it can do, as far as the server cares.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClientFlags {
    pub dynamic_watchers: bool,
    /// `window/workDoneProgress/create` may be sent.
    pub work_done_progress: bool,
    /// `window/showDocument` may be sent.
    pub show_document: bool,
    /// The editor answers `applied: true` for an edit it skipped for an older
    /// version (Neovim), so a missing echo is found out sooner.
    pub skips_stale_edits: bool,
    /// The editor keeps a file's last line break apart from its text and adds it
    /// back after text inserted past the last line (Neovim): text appended at the end
    /// is sent without its own final line break.
    pub adds_final_line_break: bool,
    /// `window/showMessageRequest` may be sent (the client shows dialogs).
    pub show_message_request: bool,
    /// The client pulls diagnostics (`textDocument/diagnostic`, LSP 3.17): the waits of
    /// the workspace's chats go there rather than into the published diagnostics.
    pub pull_diagnostics: bool,
    /// The client re-pulls when asked (`workspace/diagnostic/refresh`).
    pub diagnostic_refresh: bool,
    /// The client answers `chatmd/readBuffer` (an agent reads its unsaved buffers).
    pub read_buffer: bool,
    /// The client's `workspace/applyEdit` creates files (`resourceOperations` holds
    /// `create`: VS Code, Neovim; not eglot).
    pub creates_files: bool,
    /// … and deletes them (`delete`).
    pub deletes_files: bool,
}

#[derive(Default)]
pub struct State {
    pub encoding: PositionEncoding,
    /// How much of a long chat the outline lists one by one, and its folds (the
    /// client's `rangeLimit` too).
    pub outline: super::outline_window::Shown,
    pub folds: super::outline_window::Shown,
    pub root: Option<PathBuf>,
    /// What the client said it can do.
    pub client_flags: ClientFlags,
    /// Folders searched for agent CLIs before `PATH` (initialization option
    /// `agentPath`): editors started from a desktop often lack the shell's `PATH`.
    pub agent_path: Option<std::ffi::OsString>,
    /// Ask permission requests in the editor's dialog too (`permissionDialog`).
    pub permission_dialog: bool,
    pub documents: HashMap<Uri, Document>,
    /// Teams by team folder, loaded on first use and dropped when their files change.
    pub teams: HashMap<PathBuf, Arc<Team>>,
    /// Every `.chat.md` in the workspace, for workspace symbols.
    pub chats: Vec<PathBuf>,
    /// Whether `chats` holds the start-up scan's result yet.
    pub chats_scanned: bool,
    /// Where a chat whose last run ended is sent, to deliver its queued message.
    pub deliveries: Option<tokio::sync::mpsc::UnboundedSender<Uri>>,
    /// Closed chats whose waits were published (to clear them once nothing waits).
    pub waiting_shown: std::collections::HashSet<PathBuf>,
    /// Outlines of chats on disk, by path, with the (mtime, size) they were read at.
    pub outlines: HashMap<PathBuf, (OutlineStamp, Arc<super::symbols::FileOutline>)>,
    /// Files that got team problems published, per team folder, so they can be cleared.
    pub team_problem_files: HashMap<PathBuf, Vec<Uri>>,
    /// Change journals of documents turns are writing into.
    pub journals: HashMap<Uri, super::journal::Journal>,
    /// Chats and folders the editor renamed: where turns find their chat again.
    pub renames: super::port::Renames,
    /// The texts chat files had on disk while turns wrote into them, by fingerprint:
    /// a chat opened with one of them is an older copy of the file.
    pub disk_texts: super::port::DiskTexts,
    /// Agent kinds (built in and the user's `agents.toml`), read on first use.
    pub agent_kinds: Option<Arc<Registry>>,
    /// What members' agents told about themselves (commands, settings, logins).
    pub told: super::told::Told,
    /// The runs of turns going on, their turns, and the members' processes kept
    /// between turns (`turns/runs`: the one registry).
    pub running: crate::turns::runs::Runs,
    /// The tasks that run turns into documents, so an ending server can wait for them
    /// to write how their turns ended.
    pub runs: tokio_util::task::TaskTracker,
    pub shutting_down: bool,
    /// What the framing layer does for the handlers: large results and syncs.
    pub bypass: super::framing::Bypass,
    /// The user's own config folder: what they trust in workspaces.
    pub user_config: team::UserConfig,
    /// When the trust store last changed, as the cached teams saw it.
    pub trust_stamp: Option<std::time::SystemTime>,
}

impl State {
    /// The team files changed (or what the user trusts did): every team is found and
    /// read again, the open documents' too.
    pub fn forget_teams(&mut self) {
        self.teams.clear();
        for doc in self.documents.values_mut() {
            doc.team = Arc::default();
        }
    }

    /// The workspace root used for a file: [`team::workspace_root`] with the editor's
    /// workspace folder.
    pub fn root_for(&self, path: &Path) -> PathBuf {
        let folder = path.parent().unwrap_or(Path::new(""));
        team::workspace_root(self.root.as_deref(), folder)
    }
}

/// The agent kinds: the built-ins and the user's `agents.toml`, read once.
pub fn agent_kinds(state: &Mutex<State>) -> Arc<Registry> {
    if let Some(kinds) = lock(state).agent_kinds.clone() {
        return kinds;
    }
    let (kinds, problems) = Registry::load(None);
    for problem in problems {
        tracing::warn!("{problem}");
    }
    let kinds = Arc::new(kinds);
    lock(state).agent_kinds = Some(kinds.clone());
    kinds
}

/// Where `member`'s CLI is, by the rule turns use (`agents::program`): its program in
/// the editor's `agentPath`, then on `PATH`.
pub fn find_cli(state: &Mutex<State>, member: &Member) -> Result<PathBuf, ProgramError> {
    let kinds = agent_kinds(state);
    let Some(entry) = kinds.entry(&member.agent) else {
        return Err(ProgramError::NotInstalled {
            program: member.agent.clone(),
        });
    };
    let agent_path = lock(state).agent_path.clone();
    program::find_member_program(entry, member, agent_path.as_deref())
}

/// Locks the state; a panic elsewhere must not take the whole server down with it.
pub fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
