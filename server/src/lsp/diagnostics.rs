//! Diagnostics: the chat's problems published for the editor, plus the team's own
//! problems (malformed `chatmd.toml`, unreadable role files) on the files they are in.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::*;

use super::convert;
use super::state::{ChatTeam, Document, State, agent_kinds, lock};
use crate::agents::Registry;
use crate::agents::program::{self, ProgramError};
use crate::conversation::problems::{CliLookup, Problem};
use crate::conversation::roster::Roster;
use crate::document::line_starts::LineStarts;
use crate::document::text::{PositionEncoding, Text};
use crate::team::{Member, Team};

/// How long a burst of keystrokes may go on before diagnostics are computed.
const DEBOUNCE: Duration = Duration::from_millis(40);

/// The most problems shown for one document; one more diagnostic says how many are
/// not. Nobody reads a thousand, and 100k pasted `@word`s made 100k diagnostics (and
/// 1.1 GB of code actions).
pub const MAX_PROBLEMS: usize = 1000;

/// Whether a member's CLI is installed, by the rule turns use ([`super::state::find_cli`]), from the
/// agent kinds and `agentPath` as they were when the check began: the checks run per
/// message with the kept slots out of their place, and read nothing of the state.
pub(super) struct Installed {
    kinds: Arc<Registry>,
    agent_path: Option<std::ffi::OsString>,
}

impl Installed {
    /// The server's answer to whether members' CLIs are installed.
    pub(super) fn of(state: &Mutex<State>) -> Installed {
        Installed {
            kinds: agent_kinds(state),
            agent_path: lock(state).agent_path.clone(),
        }
    }
}

impl CliLookup for Installed {
    fn missing(&self, member: &Member) -> Option<(ProgramError, Option<String>)> {
        let entry = self.kinds.entry(&member.agent)?;
        let error =
            program::find_member_program(entry, member, self.agent_path.as_deref()).err()?;
        // The kind's install hint is for its own program, not a member's `command`.
        let hint = entry
            .install_hint
            .clone()
            .filter(|_| member.command.is_none());
        Some((error, hint))
    }
}

/// The problems of an open document.
pub fn problems_of(state: &Mutex<State>, doc: &Document) -> (Vec<Problem>, Arc<Team>) {
    let ChatTeam {
        team,
        refused: team_error,
        root,
    } = doc.team(state);
    let roster = Roster::new(&team, doc.chat.front_matter.as_ref());
    let checked = super::message_problems::chat_problems(
        doc,
        &team,
        &roster,
        &Installed::of(state),
        MAX_PROBLEMS,
    );
    // The few checks below that read the whole chat apply only to some chats (a
    // budget, a member that resumes its session, a member logged out); a chat without
    // them is never copied into one string.
    let flat = std::cell::OnceCell::new();
    let text = || flat.get_or_init(|| doc.flat()).as_str();
    let mut found = checked.problems;
    // Problems about folders (a member folder linked out of the workspace, a name that
    // is not a valid handle) have no file to show them in: the chat shows them.
    let top = doc
        .chat
        .front_matter
        .as_ref()
        .map_or(0..0, |fm| fm.block.range.start..fm.block.range.start + 3);
    for p in team
        .problems
        .iter()
        .filter(|p| p.file.is_dir() && p.severity <= crate::team::Severity::Warning)
    {
        found.push(Problem {
            range: top.clone(),
            severity: p.severity,
            code: "team",
            message: format!("{}: {}", p.file.display(), p.message),
            fixes: Vec::new(),
        });
    }
    found.extend(super::trust::chat_problems(&team, &top));
    found.extend(super::trust_chat::problems(state, doc));
    found.extend(last_message_references(doc, &roster, &root));
    let chat = &doc.chat;
    if chat
        .front_matter
        .as_ref()
        .is_some_and(|fm| !fm.budget.is_empty())
    {
        found.extend(crate::conversation::budget::problems(text(), chat));
    }
    found.extend(crate::conversation::routing::council::problems(
        chat, &roster,
    ));
    if super::message_problems::may_have_seen_changes(doc, &team, &roster) {
        found.extend(super::seen_kept::problems(doc, &roster));
    }
    let (logins, pull) = {
        let s = lock(state);
        let login = |m: &Member| s.told.member(&team.folder, &m.handle)?.login.clone();
        let logins: Vec<_> = team.members.iter().map(login).collect();
        (logins, s.client_flags.pull_diagnostics)
    };
    if logins.iter().any(Option::is_some) {
        let login = |m: &Member| {
            let i = team.members.iter().position(|t| t.handle == m.handle)?;
            logins[i].clone()
        };
        found.extend(super::login::problems(text(), chat, &roster, login));
    }
    // A client that pulls diagnostics gets the waits from there, not twice.
    if !pull {
        found.extend(super::waiting::open_problems(doc));
    }
    if let (Some(error), Some(fm)) = (team_error, doc.chat.front_matter.as_ref())
        && let Some(t) = &fm.team
    {
        found.push(Problem {
            range: t.range.clone(),
            severity: crate::team::Severity::Error,
            code: "team-folder",
            message: error,
            fixes: Vec::new(),
        });
    }
    let more = checked.more + found.len().saturating_sub(MAX_PROBLEMS);
    if more > 0 {
        found.truncate(MAX_PROBLEMS);
        let range = checked
            .first_more
            .unwrap_or_else(|| found.last().map_or(0..0, |p| p.range.clone()));
        found.push(Problem {
            range,
            severity: checked.worst_more.unwrap_or(crate::team::Severity::Warning),
            code: "too-many-problems",
            message: format!(
                "{more} more problems from here on are not shown: chatmd shows the first \
                 {MAX_PROBLEMS} of a document. Fix these, and the next ones appear."
            ),
            fixes: Vec::new(),
        });
    }
    (found, team)
}

/// The problems of the references in the chat's last message (when it is the
/// human's): what the next Send would attach. Read from that message alone.
fn last_message_references(
    doc: &Document,
    roster: &Roster,
    root: &std::path::Path,
) -> Vec<Problem> {
    let Some(last) = doc.chat.messages.len().checked_sub(1) else {
        return Vec::new();
    };
    // An agent's answer (which may be long) is not read past its heading.
    let handle = doc.text.slice(doc.chat.messages[last].handle_range());
    if !roster.is_human(&handle) {
        return Vec::new();
    }
    let tail = doc.chat.tail(last);
    let base = doc.chat.len - tail.len;
    let part = doc.text.slice(base..doc.chat.len);
    let mut found = super::references::problems(&part, &tail, roster, root);
    for p in &mut found {
        p.range = p.range.start + base..p.range.end + base;
    }
    found
}

pub fn to_diagnostic(text: &Text, p: &Problem, enc: PositionEncoding) -> Diagnostic {
    diagnostic(convert::range(text, &p.range, enc), p)
}

/// [`to_diagnostic`] through a table of line starts (the same positions).
pub fn to_diagnostic_at(starts: &LineStarts<'_>, p: &Problem, enc: PositionEncoding) -> Diagnostic {
    diagnostic(convert::range_at(starts, &p.range, enc), p)
}

fn diagnostic(range: Range, p: &Problem) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(convert::severity(p.severity)),
        code: Some(NumberOrString::String(p.code.to_string())),
        source: Some("chatmd".to_string()),
        message: p.message.clone(),
        ..Default::default()
    }
}

/// Computes and publishes the diagnostics of `uri` at `version`, unless the document
/// changed again meanwhile (a newer task publishes then).
pub async fn publish(
    client: Client,
    state: Arc<Mutex<State>>,
    uri: Uri,
    version: i32,
    debounce: bool,
) {
    if debounce {
        tokio::time::sleep(DEBOUNCE).await;
    }
    let current = |state: &Mutex<State>| {
        let s = lock(state);
        s.documents
            .get(&uri)
            .filter(|d| d.version == version)
            .cloned()
            .map(|d| (d, s.encoding))
    };
    let Some((doc, enc)) = current(&state) else {
        tracing::debug!(
            uri = uri.as_str(),
            version,
            "diagnostics: the document moved on"
        );
        return;
    };
    tracing::debug!(uri = uri.as_str(), version, "diagnostics: computing");
    let is_config = doc.path.as_deref().is_some_and(super::trust::is_config);
    let (published, edits) = (doc.published.clone(), doc.edits);
    let task_state = state.clone();
    let computed = tokio::task::spawn_blocking(move || {
        let (found, team) = problems_of(&task_state, &doc);
        let json = doc.published.json(doc.edits, &found, || {
            let diagnostics: Vec<Diagnostic> = found
                .iter()
                .map(|p| to_diagnostic(&doc.text, p, enc))
                .collect();
            serde_json::to_vec(&diagnostics).unwrap_or_else(|e| {
                tracing::error!("serializing diagnostics failed: {e}");
                b"[]".to_vec()
            })
        });
        (found, json, team)
    })
    .await;
    let Ok((found, json, team)) = computed else {
        tracing::error!(uri = uri.as_str(), "computing diagnostics failed");
        return;
    };
    if current(&state).is_none() {
        tracing::debug!(
            uri = uri.as_str(),
            version,
            "diagnostics: computed for an older version"
        );
        return;
    }
    tracing::debug!(uri = uri.as_str(), version, "diagnostics: publishing");
    published.keep(edits, found, json.clone());
    // An open `chatmd.toml` is not a chat: its problems are the team's, published on it
    // just below. Publishing its chat problems too (none, or a warning at its top) would
    // make the editor show one list, then replace it with the other.
    if !is_config {
        let raw = lock(&state).bypass.raw.clone();
        let params = publish_params(&uri, &json, version);
        raw.send(Arc::new(params), |token| {
            client.send_notification::<super::ext::RawPublishDiagnostics>(token)
        })
        .await;
    }
    publish_team_problems(&client, &state, &team, enc).await;
}

/// The JSON of `PublishDiagnosticsParams` with `diagnostics`, the JSON of their array.
fn publish_params(uri: &Uri, diagnostics: &[u8], version: i32) -> Vec<u8> {
    let mut out = Vec::with_capacity(diagnostics.len() + uri.as_str().len() + 64);
    out.extend_from_slice(b"{\"uri\":");
    if serde_json::to_writer(&mut out, uri).is_err() {
        out.extend_from_slice(b"\"\"");
    }
    out.extend_from_slice(b",\"diagnostics\":");
    out.extend_from_slice(diagnostics);
    out.extend_from_slice(b",\"version\":");
    out.extend_from_slice(itoa::Buffer::new().format(version).as_bytes());
    out.push(b'}');
    out
}

/// Publishes the team's problems on the files they name (`chatmd.toml`, role files),
/// and clears files that no longer have any.
async fn publish_team_problems(
    client: &Client,
    state: &Mutex<State>,
    team: &Team,
    enc: PositionEncoding,
) {
    let mut by_file: std::collections::BTreeMap<std::path::PathBuf, Vec<Diagnostic>> =
        Default::default();
    for p in &team.problems {
        if p.file.is_dir() {
            continue;
        }
        // Only what comes before the problem is read: the file may be huge (a role
        // file over the size limit is one of the problems).
        let range = p.range.clone().unwrap_or(0..0);
        let content = read_prefix(&p.file, range.end);
        let text = Text::new(&content);
        by_file.entry(p.file.clone()).or_default().push(Diagnostic {
            range: convert::range(&text, &range, enc),
            severity: Some(convert::severity(p.severity)),
            code: p.code.map(|c| NumberOrString::String(c.to_string())),
            source: Some("chatmd".to_string()),
            message: p.message.clone(),
            ..Default::default()
        });
    }
    let uris: Vec<(Uri, Vec<Diagnostic>)> = by_file
        .into_iter()
        .filter_map(|(path, d)| Uri::from_file_path(&path).map(|u| (u, d)))
        .collect();
    let stale: Vec<Uri> = {
        let mut s = lock(state);
        let now: Vec<Uri> = uris.iter().map(|(u, _)| u.clone()).collect();
        let folder_files: Vec<Uri> = s
            .team_problem_files
            .iter()
            .filter(|(folder, _)| **folder == team.folder)
            .flat_map(|(_, files)| files.clone())
            .filter(|u| !now.contains(u))
            .collect();
        s.team_problem_files.insert(team.folder.clone(), now);
        folder_files
    };
    for uri in stale {
        client.publish_diagnostics(uri, Vec::new(), None).await;
    }
    for (uri, diagnostics) in uris {
        client.publish_diagnostics(uri, diagnostics, None).await;
    }
}

/// The first `len` bytes of a file (fewer when it is shorter), as text; nothing when it
/// cannot be read or is not a regular file (a FIFO would block).
fn read_prefix(path: &std::path::Path, len: usize) -> String {
    use std::io::Read;
    if len == 0 || !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return String::new();
    }
    let mut bytes = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(len as u64).read_to_end(&mut bytes));
    if read.is_err() {
        return String::new();
    }
    String::from_utf8_lossy(&bytes).into_owned()
}
