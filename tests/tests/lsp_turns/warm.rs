//! Warm ACP members from the editor (the fake `claude-agent-acp`): the member's agent
//! stays running after an answered turn and its next turn is one `session/prompt` on
//! the live session; an edited message it saw, a changed role file, a crash while idle
//! and a cancel each make the next turn start cold (a new process, `initialize`,
//! `session/resume`); the idle timeout, the cap and the memory cap end kept processes;
//! shutdown and a SIGTERM of the server leave none. The fake logs each start (`{"started": pid}`) and
//! every message it received in `acp.jsonl`.

use std::time::{Duration, Instant};

use chatmd_tests::fake_agent::acp::{methods_received, started_pids};
use chatmd_tests::sim_editor::{At, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::setup::{Setup, finished, redact, send, turns_ended};

fn writer() -> Setup {
    Setup::acp_writer("", "")
}

fn methods(s: &Setup) -> Vec<String> {
    methods_received(&s.path("acp.jsonl"))
}

fn pids(s: &Setup) -> Vec<u32> {
    started_pids(&s.path("acp.jsonl"))
}

/// Whether process `pid` still runs (a zombie not yet reaped counts as ended).
pub(crate) fn running(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    !stat.is_empty() && !stat.contains(") Z")
}

/// Waits (bounded) until process `pid` has ended.
pub(crate) async fn ended(pid: u32, why: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while running(pid) {
        assert!(Instant::now() < deadline, "agent {pid} still runs: {why}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Sends the chat and waits until every turn is done.
pub(crate) async fn answered(editor: &mut SimEditor, uri: &str, answers: usize) {
    send(editor, uri).await;
    editor
        .run_until("the answers", |e| {
            finished(e.text(uri)) && e.text(uri).matches("status=done").count() == answers
        })
        .await;
    turns_ended(editor).await;
}

/// Opens `team/<name>.chat.md` for each of `names`, one after the other, each asking
/// the writer once and answered; returns their URIs.
async fn first_answers_in(s: &Setup, editor: &mut SimEditor, names: &[&str]) -> Vec<String> {
    let mut uris = Vec::new();
    for name in names {
        let chat = "## @me\n@writer first\n";
        let rel = format!("team/{name}.chat.md");
        s.write(&rel, chat);
        let uri = s.uri(&rel);
        editor.open(&uri, chat).await;
        answered(editor, &uri, 1).await;
        uris.push(uri);
    }
    uris
}

/// The text of each `session/prompt` the fake received.
fn prompts(s: &Setup) -> Vec<String> {
    s.acp_requests("session/prompt")
        .iter()
        .map(|p| {
            p["prompt"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

const COLD_SECOND: [&str; 6] = [
    "initialize",
    "session/new",
    "session/prompt",
    "initialize",
    "session/resume",
    "session/prompt",
];

#[tokio::test]
async fn the_second_turn_is_one_prompt_on_the_live_session() {
    let s = writer();
    let (mut editor, _) = s.warm_editor(json!({}), false).await;
    let chat = "## @me\n@writer first\n";
    let (mut editor, uri) = {
        s.write("team/w.chat.md", chat);
        let uri = s.uri("team/w.chat.md");
        editor.open(&uri, chat).await;
        (editor, uri)
    };
    answered(&mut editor, &uri, 1).await;
    editor.type_text(&uri, At::End, "@writer second\n").await;
    answered(&mut editor, &uri, 2).await;
    assert_eq!(
        methods(&s),
        [
            "initialize",
            "session/new",
            "session/prompt",
            "session/prompt"
        ]
    );
    let started = pids(&s);
    assert_eq!(started.len(), 1, "one process for both turns");
    assert!(running(started[0]), "the agent stays warm");
    let prompts = prompts(&s);
    assert_eq!(prompts.len(), 2);
    // What the resumed session would get in a new process: only the new message (the
    // session holds the role from its first prompt, `held=`).
    assert_eq!(prompts[1], "[CONTEXT]\n[MESSAGE]\nme: @writer second\n");
    let text = redact(editor.text(&uri));
    let session = text
        .split(' ')
        .find_map(|f| f.strip_prefix("session="))
        .expect("a session in the status")
        .to_owned();
    // The fake's session remembers the first turn (turn=2, two user messages): the
    // same session in the same process. No `exit=`: the process still runs. The cost
    // the process reports runs over both turns: the second keeps its share.
    assert_eq!(
        text.replace(&session, "{SESSION}"),
        "## @me\n@writer first\n\n\
         ## @writer\n<!-- chatmd id=t1 agent=acp status=done seen=0:c2f744 held=4473dc started=… \
         model=default session={SESSION} context=19954/1000000 cost=\"0.1 USD\" took=… \
         stop=end_turn tokens=19944/10 -->\n\
         ANSWER-anthropic role_seen=no marker_count=0 roles=none team=0 turn=1 user_msgs=1 \
         assistant_msgs=0 ask=-\n\n\
         ## @me\n@writer second\n\n\
         ## @writer\n<!-- chatmd id=t2 agent=acp status=done seen=+2:7b3b6d held=4473dc started=… \
         model=default session={SESSION} context=19994/1000000 cost=\"0.1001 USD\" \
         session-cost=\"0.2001 USD\" took=… \
         stop=end_turn tokens=19984/10 -->\n\
         ANSWER-anthropic role_seen=no marker_count=0 roles=none team=0 turn=2 user_msgs=2 \
         assistant_msgs=1 ask=-\n\n\
         ## @me\n"
    );
    editor.client.shutdown().await;
    ended(started[0], "after shutdown").await;
}

#[tokio::test]
async fn an_edited_message_it_saw_starts_the_next_turn_cold() {
    let s = writer();
    let (mut editor, _) = s.warm_editor(json!({}), false).await;
    let chat = "## @me\n@writer first\n";
    s.write("team/e.chat.md", chat);
    let uri = s.uri("team/e.chat.md");
    editor.open(&uri, chat).await;
    answered(&mut editor, &uri, 1).await;
    let first = pids(&s)[0];
    let at = editor.text(&uri).find("first").expect("the message");
    editor.replace(&uri, at..at + "first".len(), "FIRST").await;
    editor.type_text(&uri, At::End, "@writer second\n").await;
    answered(&mut editor, &uri, 2).await;
    assert_eq!(methods(&s), COLD_SECOND);
    assert_eq!(pids(&s).len(), 2);
    ended(first, "the warm one ends before the cold turn").await;
    editor.client.shutdown().await;
}

#[tokio::test]
async fn a_changed_role_file_starts_the_next_turn_cold() {
    let s = writer();
    let (mut editor, _) = s.warm_editor(json!({}), false).await;
    let chat = "## @me\n@writer first\n";
    s.write("team/r.chat.md", chat);
    let uri = s.uri("team/r.chat.md");
    editor.open(&uri, chat).await;
    answered(&mut editor, &uri, 1).await;
    let first = pids(&s)[0];
    s.write("team/writer/GEMINI.md", "# Writes release notes\n");
    editor.type_text(&uri, At::End, "@writer second\n").await;
    answered(&mut editor, &uri, 2).await;
    assert_eq!(methods(&s), COLD_SECOND);
    ended(first, "the warm one ends").await;
    let prompts = prompts(&s);
    assert!(
        prompts[1].contains("# Writes release notes"),
        "the new role goes to the resumed session: {}",
        prompts[1]
    );
    editor.client.shutdown().await;
}

#[tokio::test]
async fn an_agent_that_exits_while_idle_is_started_cold_next_time() {
    let s = writer();
    let (mut editor, _) = s.warm_editor(json!({}), false).await;
    let chat = "## @me\n@writer first\n";
    s.write("team/x.chat.md", chat);
    let uri = s.uri("team/x.chat.md");
    editor.open(&uri, chat).await;
    answered(&mut editor, &uri, 1).await;
    let first = pids(&s)[0];
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(first as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill the idle agent");
    // Reaped by the pool's watch: then it knows.
    ended(first, "killed").await;
    editor.type_text(&uri, At::End, "@writer second\n").await;
    answered(&mut editor, &uri, 2).await;
    assert_eq!(methods(&s), COLD_SECOND);
    editor.client.shutdown().await;
}

#[tokio::test]
async fn a_cancelled_turn_leaves_nothing_warm() {
    let s = Setup::acp_writer("", "FAKE_AGENT_DELAY_MS = \"100\"\n");
    let (mut editor, _) = s.warm_editor(json!({}), false).await;
    let chat = "## @me\n@writer first\n";
    s.write("team/k.chat.md", chat);
    let uri = s.uri("team/k.chat.md");
    editor.open(&uri, chat).await;
    answered(&mut editor, &uri, 1).await;
    editor
        .type_text(&uri, At::End, "@writer MOCK-MODE=slow go\n")
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the slow chunks", |e| {
            e.text(&uri).contains("SLOW-CHUNK-01")
        })
        .await;
    let cancelled = editor.command("chatmd.cancel", json!({"uri": uri})).await;
    assert!(cancelled.is_ok(), "{cancelled:?}");
    editor
        .run_until("the cancel", |e| {
            finished(e.text(&uri)) && e.text(&uri).contains("status=cancelled")
        })
        .await;
    turns_ended(&mut editor).await;
    let first = pids(&s)[0];
    ended(first, "a cancelled turn's process is not kept").await;
    editor.type_text(&uri, At::End, "@writer third\n").await;
    answered(&mut editor, &uri, 2).await;
    let methods = methods(&s);
    assert_eq!(
        &methods[methods.len() - 3..],
        ["initialize", "session/resume", "session/prompt"]
    );
    assert_eq!(pids(&s).len(), 2);
    editor.client.shutdown().await;
}

#[tokio::test]
async fn the_idle_timeout_ends_the_kept_agent() {
    let s = writer();
    let (mut editor, _) = s.warm_editor(json!({"warmIdleSeconds": 0.3}), false).await;
    let chat = "## @me\n@writer first\n";
    s.write("team/i.chat.md", chat);
    let uri = s.uri("team/i.chat.md");
    editor.open(&uri, chat).await;
    answered(&mut editor, &uri, 1).await;
    let first = pids(&s)[0];
    ended(first, "idle for longer than warmIdleSeconds").await;
    editor.type_text(&uri, At::End, "@writer second\n").await;
    answered(&mut editor, &uri, 2).await;
    assert_eq!(methods(&s), COLD_SECOND);
    editor.client.shutdown().await;
}

#[tokio::test]
async fn over_the_cap_the_least_recently_used_ends() {
    let s = writer();
    let (mut editor, _) = s.warm_editor(json!({"warmMembers": 2}), false).await;
    let uris = first_answers_in(&s, &mut editor, &["a", "b", "c"]).await;
    let started = pids(&s);
    assert_eq!(started.len(), 3);
    ended(
        started[0],
        "the least recently used of three, over a cap of two",
    )
    .await;
    assert!(running(started[1]) && running(started[2]), "{started:?}");
    // Chat a's member starts cold; chat c's is still warm.
    for (uri, cold) in [(&uris[0], true), (&uris[2], false)] {
        let before = pids(&s).len();
        editor.type_text(uri, At::End, "@writer second\n").await;
        answered(&mut editor, uri, 2).await;
        assert_eq!(pids(&s).len(), before + usize::from(cold), "{uri}");
    }
    editor.client.shutdown().await;
    for pid in pids(&s) {
        ended(pid, "after shutdown").await;
    }
}

#[tokio::test]
async fn over_the_memory_cap_the_least_recently_used_ends() {
    // Each agent holds 40 MiB: one kept agent fits a cap of 60 MB, two do not.
    let s = Setup::acp_writer("", "FAKE_AGENT_RESIDENT_MB = \"40\"\n");
    let (mut editor, _) = s.warm_editor(json!({"warmMemoryMB": 60}), false).await;
    let uris = first_answers_in(&s, &mut editor, &["a", "b"]).await;
    let started = pids(&s);
    assert_eq!(started.len(), 2);
    ended(started[0], "the least recently used, over the memory cap").await;
    assert!(running(started[1]), "{started:?}");
    // Chat a's member starts cold; kept, it is the newest, and chat b's ends.
    editor
        .type_text(&uris[0], At::End, "@writer second\n")
        .await;
    answered(&mut editor, &uris[0], 2).await;
    let started = pids(&s);
    assert_eq!(started.len(), 3, "chat a's second turn started its agent");
    ended(started[1], "now the least recently used").await;
    assert!(running(started[2]), "{started:?}");
    editor.client.shutdown().await;
    ended(started[2], "after shutdown").await;
}

#[tokio::test]
async fn sigterm_of_the_server_leaves_no_kept_agent() {
    server_killed_with(nix::sys::signal::Signal::SIGTERM).await;
}

#[tokio::test]
async fn sigkill_of_the_server_leaves_no_kept_agent() {
    // No clean end: the agent guard ends the kept agent's group when chatmd is gone.
    server_killed_with(nix::sys::signal::Signal::SIGKILL).await;
}

async fn server_killed_with(signal: nix::sys::signal::Signal) {
    let s = writer();
    let (mut editor, server) = s.warm_editor(json!({}), true).await;
    let chat = "## @me\n@writer first\n";
    s.write("team/t.chat.md", chat);
    let uri = s.uri("team/t.chat.md");
    editor.open(&uri, chat).await;
    answered(&mut editor, &uri, 1).await;
    let first = pids(&s)[0];
    assert!(running(first), "kept warm");
    let server = server.expect("a server process");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(server as i32), signal)
        .expect("signal the server");
    ended(first, &format!("after {signal} of the server")).await;
    ended(server, "the server exits").await;
}
