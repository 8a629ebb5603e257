//! A document opened with turns left `streaming` (or `queued`, `waiting`) and no
//! process behind them, after a crash or a killed editor: their status becomes
//! `interrupted`, so the file tells the truth. A turn that another process runs (a
//! `chatmd send` holding the chat's lock, a process on another host) is left alone.

use std::sync::{Arc, Mutex};

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::Uri;

use super::port::LspPort;
use super::state::{State, lock};
use crate::conversation::section::interrupted_edits;
use crate::document::status::{StatusComment, TurnStatus};
use crate::turns::owner::{Owner, runs_elsewhere};
use crate::turns::runs::Runs;
use crate::turns::{EditorPort, PortError};

/// Marks the document's dead turns, in a task of its own (the edit waits for the
/// editor).
///
/// Which turns are dead is decided as the editor opened the chat, while the turns that
/// run are still registered (one that ends a moment later has written its last words):
/// the text and who answers where are taken now, and read apart, off the path of the
/// open (reading every message of a chat of 500k held up its first outline by 4 ms).
pub fn mark_later(client: Client, state: Arc<Mutex<State>>, uri: Uri) {
    let path = uri.to_file_path().map(|p| p.into_owned());
    let opened = {
        let s = lock(&state);
        let Some(doc) = s.documents.get(&uri) else {
            return;
        };
        // A run of this process goes on in the chat (started on the file on disk, say,
        // before the editor opened it): its sections are its own to finish, and one
        // of its members may not be registered yet.
        if runs_here(&s, &uri) {
            return;
        }
        (
            doc.flat(),
            doc.chat.clone(),
            AsOpened(s.running.answering()),
        )
    };
    tokio::spawn(async move {
        let check = {
            let (key, path) = (uri.as_str().to_string(), path.clone());
            move || {
                let (text, chat, answering) = opened;
                !interrupted_edits(&text, &chat, |m, c| {
                    still_runs(&answering, &key, m, c, path.as_deref())
                })
                .is_empty()
                    && !finished_on_disk(path.as_deref(), &text)
            }
        };
        if !tokio::task::spawn_blocking(check).await.unwrap_or(false) {
            return;
        }
        let running = {
            let s = lock(&state);
            if runs_here(&s, &uri) {
                return;
            }
            s.running.clone()
        };
        let key = uri.as_str().to_string();
        let mut port = LspPort::new(client, state, uri, None, None);
        let marked = port.edit_until_applied(20, |snapshot| {
            let edits = interrupted_edits(&snapshot.text, &snapshot.chat, |m, c| {
                still_runs(&running, &key, m, c, path.as_deref())
            });
            Ok::<_, PortError>((!edits.is_empty()).then_some((edits, ())))
        });
        if let Err(error) = marked.await {
            tracing::warn!(%error, "could not mark interrupted turns");
        }
    });
}

/// Whether every turn left unfinished in the text the editor opened is finished in the
/// file on disk (the same turn id, another status): a turn that ran on the file ended
/// there after the editor read it (a fast turn ends before its `didOpen` is handled).
/// The editor's copy is older, not interrupted (`reopened.rs` brings a copy this
/// server wrote up to date; another process's is the editor's to read again), and
/// marking it would put `interrupted` over a finished answer. A turn the file does not have (a server killed while the editor
/// held the unsaved answer) is marked as before.
fn finished_on_disk(path: Option<&std::path::Path>, opened: &str) -> bool {
    let Some(disk) = path.and_then(|p| std::fs::read_to_string(p).ok()) else {
        return false;
    };
    if disk == opened {
        return false;
    }
    let unfinished = |text: &str| -> Vec<(String, bool)> {
        let chat = crate::document::chat::Chat::parse(text);
        chat.messages
            .iter()
            .filter_map(|m| m.status_comment(text))
            .filter_map(|c| {
                let open = matches!(
                    c.status(),
                    Some(TurnStatus::Queued | TurnStatus::Streaming | TurnStatus::Waiting)
                );
                Some((c.get("id")?.to_owned(), open))
            })
            .collect()
    };
    let on_disk = unfinished(&disk);
    let left: Vec<String> = unfinished(opened)
        .into_iter()
        .filter(|(_, open)| *open)
        .map(|(id, _)| id)
        .collect();
    !left.is_empty()
        && left
            .iter()
            .all(|id| on_disk.iter().any(|(d, open)| d == id && !open))
}

/// Whether a run of this process is counted in the chat `uri`.
fn runs_here(state: &State, uri: &Uri) -> bool {
    state.running.runs_in(uri.as_str())
}

/// Whether `member`'s unfinished turn with `comment`, in the document `uri` (the chat
/// at `chat`), still runs. A turn this process runs may be registered under another
/// name than `uri`: the chat was renamed or moved while it ran, and the turn follows it
/// once it sees the old document closed. So a turn stamped with this process counts as
/// running while the member answers in any document here.
fn still_runs(
    running: &impl WhoRuns,
    uri: &str,
    member: &str,
    comment: &StatusComment,
    chat: Option<&std::path::Path>,
) -> bool {
    running.is_running(uri, member)
        || (Owner::of(comment).is_some_and(|owner| owner.is_this_process())
            && running.runs_anywhere(member))
        || runs_elsewhere(comment, chat)
}

/// Who answers where: the registry itself, or what it held as a chat opened.
trait WhoRuns {
    fn is_running(&self, document: &str, member: &str) -> bool;
    fn runs_anywhere(&self, member: &str) -> bool;
}

impl WhoRuns for Runs {
    fn is_running(&self, document: &str, member: &str) -> bool {
        Runs::is_running(self, document, member)
    }

    fn runs_anywhere(&self, member: &str) -> bool {
        Runs::runs_anywhere(self, member)
    }
}

/// The turns that ran as a chat opened, as (document, member) ([`Runs::answering`]).
struct AsOpened(Vec<(String, String)>);

impl WhoRuns for AsOpened {
    fn is_running(&self, document: &str, member: &str) -> bool {
        self.0.iter().any(|(d, m)| d == document && m == member)
    }

    fn runs_anywhere(&self, member: &str) -> bool {
        self.0.iter().any(|(_, m)| m == member)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_util::sync::CancellationToken;

    fn streaming(owner: &Owner) -> StatusComment {
        let mut comment =
            StatusComment::parse("<!-- chatmd id=t1 agent=claude status=streaming -->").unwrap();
        owner.stamp(&mut comment);
        comment
    }

    /// The chat was renamed while @reviewer answers: its turn is still registered
    /// under the old name when the new document opens.
    #[test]
    fn a_turn_of_this_process_running_under_another_name_still_runs() {
        let running = Runs::default();
        let run = running.open_run("file:///ws/old.chat.md", None, crate::turns::lock::SERVER);
        running
            .claim(run, "reviewer", &CancellationToken::new())
            .unwrap();
        let ours = streaming(Owner::this());
        let new = "file:///ws/new.chat.md";
        assert!(still_runs(&running, new, "reviewer", &ours, None));
        assert!(!still_runs(&running, new, "tester", &ours, None));
        // Left by an earlier process of this host (its lock is free): dead.
        let gone = Owner {
            host: Owner::this().host.clone(),
            pid: u32::MAX,
        };
        assert!(!still_runs(
            &running,
            new,
            "reviewer",
            &streaming(&gone),
            None
        ));
        running.release(run, "reviewer");
        assert!(!still_runs(&running, new, "reviewer", &ours, None));
    }
}
