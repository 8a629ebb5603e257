//! The engine, its rounds and live turns against the recording port (`testing.rs`),
//! with agents that are shell scripts (a `command` agent kind): where answers land
//! while someone else edits, edits that find the document moved on, coalescing, and
//! the draft rule.

use std::sync::Arc;

use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::engine::{self, Report};
use super::testing::{RecordingPort, masked};
use super::{Context, Edited, EditorPort, PortError};
use crate::agents::Registry;
use crate::document::status::TurnStatus;

/// A workspace whose members each run a shell script as their agent.
struct Workspace {
    dir: tempfile::TempDir,
    config: tempfile::TempDir,
    registry: Arc<Registry>,
}

impl Workspace {
    /// `members`: each member's handle and the script it runs (the prompt is on its
    /// stdin; what it prints is the answer).
    fn new(members: &[(&str, &str)]) -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let config = tempfile::tempdir().unwrap();
        let (mut agents, mut team) = (String::new(), String::new());
        for (handle, script) in members {
            agents.push_str(&format!(
                "[agents.say-{handle}]\ntype = \"command\"\ncommand = \"/bin/sh\"\n\
                 args = [\"-c\", {script:?}]\nprompt = \"stdin\"\noutput = \"text\"\n\n"
            ));
            team.push_str(&format!("[members.{handle}]\nagent = \"say-{handle}\"\n\n"));
        }
        let agents_toml = config.path().join("agents.toml");
        std::fs::write(&agents_toml, agents).unwrap();
        std::fs::write(dir.path().join("chatmd.toml"), team).unwrap();
        let (registry, problems) = Registry::load(Some(&agents_toml));
        assert!(problems.is_empty(), "{problems:?}");
        Workspace {
            dir,
            config,
            registry: Arc::new(registry),
        }
    }

    fn context(&self) -> Context {
        Context {
            workspace_root: self.dir.path().to_path_buf(),
            chat_path: self.dir.path().join("c.chat.md"),
            registry: self.registry.clone(),
            cancel: CancellationToken::new(),
            targets: None,
            agent_path: None,
            user_config: crate::team::UserConfig::with_config_home(self.config.path()),
            runs: None,
        }
    }

    async fn run(&self, port: &mut RecordingPort) -> Report {
        engine::run(port, &self.context()).await.unwrap()
    }
}

fn statuses(report: &Report) -> Vec<(String, TurnStatus)> {
    report
        .turns
        .iter()
        .map(|t| (t.member.clone(), t.status))
        .collect()
}

/// Whether an edit writes `text`.
fn writes(text: &'static str) -> impl Fn(&super::Edits) -> bool + Send {
    move |edits| edits.iter().any(|(_, new)| new.contains(text))
}

#[tokio::test]
async fn an_answer_lands_in_its_section_while_the_user_types_before_it() {
    let ws = Workspace::new(&[("a", "cat >/dev/null; printf 'Looks good.\\n'")]);
    let mut port = RecordingPort::new("## @me\n@a hi\n");
    // Just as the answer is written, the user adds a line at the top: the answer
    // was computed for the text before, is refused, and lands in its section anyway.
    port.before_edit(writes("Looks good."), |_| (0..0, "> pinned\n".into()));
    // The first edit (the new section) is refused once without a change.
    port.refuse(1);
    let report = ws.run(&mut port).await;
    assert_eq!(statuses(&report), [("a".to_string(), TurnStatus::Done)]);
    assert_eq!(
        masked(port.text()),
        "> pinned\n## @me\n@a hi\n\n## @a\n\
         <!-- chatmd id=t1 agent=say-a status=done started=… took=… exit=0 -->\n\
         Looks good.\n\n## @me\n"
    );
    assert_eq!(port.stale, 2, "the refused section and the moved answer");
    assert_eq!(port.turns, ["begin a", "round a", "end a done"]);
    assert!(port.notes.is_empty(), "{:?}", port.notes);
}

#[tokio::test]
async fn a_draft_typed_during_a_turn_is_never_sent_only_answers_chain() {
    let ws = Workspace::new(&[
        ("a", "cat >/dev/null; printf 'Over to @b.\\n'"),
        ("b", "cat >/dev/null; printf 'Done.\\n'"),
    ]);
    let mut port = RecordingPort::new("## @me\n@a start\n");
    // While @a answers, the user starts a message asking @a again: a draft.
    port.before_edit(writes("Over to @b."), |text| {
        (text.len()..text.len(), "\n## @me\n@a draft\n".into())
    });
    let report = ws.run(&mut port).await;
    assert_eq!(
        statuses(&report),
        [
            ("a".to_string(), TurnStatus::Done),
            ("b".to_string(), TurnStatus::Done)
        ],
        "@b follows from @a's answer; the draft asks nobody"
    );
    assert_eq!(
        port.turns,
        [
            "begin a",
            "round a",
            "end a done",
            "begin b",
            "round b",
            "end b done"
        ]
    );
    assert_eq!(
        masked(port.text()),
        "## @me\n@a start\n\n## @a\n\
         <!-- chatmd id=t1 agent=say-a status=done started=… took=… exit=0 -->\n\
         Over to @b.\n\n## @me\n@a draft\n\n## @b\n\
         <!-- chatmd id=t2 agent=say-b status=done started=… took=… exit=0 -->\n\
         Done.\n\n## @me\n"
    );
}

#[tokio::test]
async fn streamed_lines_are_coalesced_into_few_edits() {
    let ws = Workspace::new(&[("a", "cat >/dev/null; seq 1 300")]);
    let mut port = RecordingPort::new("## @me\n@a count\n");
    let report = ws.run(&mut port).await;
    assert_eq!(statuses(&report), [("a".to_string(), TurnStatus::Done)]);
    let lines: String = (1..=300).map(|n| format!("{n}\n")).collect();
    assert!(port.text().contains(&format!("-->\n{lines}\n## @me\n")));
    // 300 lines arrive at once: they go in at most every 50 ms, not one edit each.
    let with_text = port
        .edits
        .iter()
        .filter(|edits| edits.iter().any(|(_, t)| t.contains("150\n")))
        .count();
    assert_eq!(with_text, 1);
    assert!(port.edits.len() <= 10, "{} edits", port.edits.len());
}

#[tokio::test]
async fn a_member_that_is_not_installed_writes_nothing_and_says_why() {
    let ws = Workspace::new(&[("a", "exit 0")]);
    std::fs::write(
        ws.dir.path().join("chatmd.toml"),
        "[members.a]\nagent = \"say-a\"\n[members.c]\nagent = \"nobody-knows\"\n",
    )
    .unwrap();
    let mut port = RecordingPort::new("## @me\n@c hi\n");
    let report = ws.run(&mut port).await;
    assert_eq!(statuses(&report), [("c".to_string(), TurnStatus::Error)]);
    let why = "no agent kind `nobody-knows` (claude, codex, gemini, acp, command, or one from \
               ~/.config/chatmd/agents.toml)";
    assert_eq!(
        report.turns[0].error.as_ref().map(ToString::to_string),
        Some(why.to_string())
    );
    assert_eq!(port.text(), "## @me\n@c hi\n", "no section, no stub");
    assert_eq!(
        port.notes,
        [(super::Level::Error, format!("@c: {why}"))],
        "told once"
    );
    assert_eq!(
        port.turns,
        ["begin c", format!("end c error: {why}").as_str()]
    );
}

#[tokio::test]
async fn an_edit_is_computed_again_until_it_lands_or_the_tries_run_out() {
    let mut port = RecordingPort::new("abc");
    port.before_edit(|_| true, |_| (0..0, "x".into()));
    let mut seen = Vec::new();
    let edited = port
        .edit_until_applied(3, |snapshot| {
            seen.push(snapshot.text.to_string());
            let end = snapshot.text.len();
            Ok::<_, PortError>(Some((vec![(end..end, "!".into())], end)))
        })
        .await;
    assert_eq!(edited.unwrap(), Edited::Applied(4));
    assert_eq!(seen, ["abc", "xabc"]);
    assert_eq!(port.text(), "xabc!");
    port.refuse(5);
    let edited = port
        .edit_until_applied(3, |_| {
            Ok::<_, PortError>(Some((vec![(0..0, "?".into())], ())))
        })
        .await;
    assert_eq!(edited.unwrap(), Edited::GaveUp);
    let edited = port
        .edit_until_applied(3, |_| Ok::<_, PortError>(None::<(super::Edits, ())>))
        .await;
    assert_eq!(edited.unwrap(), Edited::Unneeded);
    assert_eq!(port.text(), "xabc!");
}

/// The edits of a run, each as the statuses it writes (`queued`, `streaming`, `done`) or
/// `other` (the reply stub).
fn written_states(port: &RecordingPort) -> Vec<&'static str> {
    port.edits
        .iter()
        .map(|edits| {
            let text: String = edits.iter().map(|(_, new)| new.as_str()).collect();
            ["queued", "streaming", "done"]
                .into_iter()
                .find(|state| text.contains(&format!("status={state}")))
                .unwrap_or("other")
        })
        .collect()
}

#[tokio::test]
async fn a_file_gets_a_quick_turn_in_one_write_and_an_editor_sees_it_start() {
    // An agent that thinks a moment and ends with nothing to say: nothing but its
    // states to write. (The editor is shown the start before the end: 0.3 s apart.)
    let ws = Workspace::new(&[("a", "cat >/dev/null; sleep 0.3")]);
    let mut editor = RecordingPort::new("## @me\n@a hi\n");
    ws.run(&mut editor).await;
    assert_eq!(
        written_states(&editor),
        ["queued", "streaming", "done", "other"]
    );

    // A file pays for each write (the whole file, synced): the turn's start goes with
    // its end when that comes within the first second (FIRST_STATE_WAIT).
    let mut file = RecordingPort::new("## @me\n@a hi\n");
    file.costly_writes = true;
    ws.run(&mut file).await;
    assert_eq!(written_states(&file), ["queued", "done", "other"]);
    assert_eq!(
        masked(file.text()),
        masked(editor.text()),
        "the same chat in the end"
    );
}
