//! The reliability matrix of `quality.md`, one test per row, each named after its row
//! and checking the row's required behaviour the way the user meets it: in the editor's
//! text, the messages shown, the file on disk and the processes left.

use std::time::{Duration, Instant};

use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::setup::{At, Setup, file_until, finished, redact, send, turns_ended};
use chatmd_tests::views::summarize;

/// Every `window/showMessage` that has arrived.
async fn shown(editor: &mut SimEditor) -> Vec<Value> {
    editor
        .client
        .drain_notifications("window/showMessage")
        .await
}

/// The processes below `pid` (children, theirs, …, zombies included), each with its
/// command name; the server's agent guard is not listed (it runs as long as the
/// server does), the agents it started are.
fn descendants(pid: u32) -> Vec<(u32, String)> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(child) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: the name may hold spaces and parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close].to_string();
        let mut rest = stat[close + 1..].split_whitespace();
        // A zombie counts: it is a child nobody reaped.
        let _state = rest.next();
        let ppid: u32 = rest.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        parents.push((child, ppid, name));
    }
    let mut found = Vec::new();
    let mut frontier = vec![pid];
    while let Some(parent) = frontier.pop() {
        for (child, ppid, name) in &parents {
            if *ppid == parent {
                if !chatmd_tests::is_agent_guard(*child) {
                    found.push((*child, name.clone()));
                }
                frontier.push(*child);
            }
        }
    }
    found
}

/// Waits (bounded) until `pid` has no process below it; fails naming what is left.
async fn no_process_left_below(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = descendants(pid);
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "processes left: {left:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|r| !r.trim_start().starts_with('Z'))
    })
}

/// Runs Send on `chat` (at `rel`) with a VS Code-like editor to the end of every turn;
/// returns the final text (times redacted) and the messages shown.
async fn turn_to_the_end(s: &Setup, rel: &str, chat: &str) -> (String, Vec<Value>) {
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, rel, chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the turns' end", |e| finished(e.text(&uri)))
        .await;
    turns_ended(&mut editor).await;
    let shown = shown(&mut editor).await;
    (redact(editor.text(&uri)), shown)
}

#[tokio::test]
async fn agent_cli_not_installed() {
    let s = Setup::new(&[]);
    std::fs::remove_file(s.bin.join("codex")).unwrap();
    let chat = "## @me\n@tester write tests\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/m.chat.md", chat).await;
    let answer = editor
        .command("chatmd.send", json!({"uri": uri}))
        .await
        .unwrap();
    let message = "@tester: `codex` is not installed (not found on PATH). Install it with `npm install -g @openai/codex`, then log in: `codex login`.";
    assert_eq!(answer, json!({"members": [], "reason": message}));
    assert_eq!(
        shown(&mut editor).await,
        vec![json!({"type": 1, "message": message})]
    );
    // No section, not even a heading.
    assert_eq!(editor.text(&uri), chat);
}

#[tokio::test]
async fn agent_exits_non_zero_prints_an_error_event_or_fails_auth() {
    let s = Setup::new(&[
        // An error event (claude's `result` with `is_error`).
        ("reviewer", &[("FAKE_AGENT_TRANSCRIPT", "api-error")]),
        // A whole answer, then exit 3 with a word on stderr.
        (
            "tester",
            &[
                ("FAKE_AGENT_TEXT", "half of the tests"),
                ("FAKE_AGENT_EXIT", "3"),
                ("FAKE_AGENT_STDERR", "quota exhausted for today"),
            ],
        ),
        // Not logged in (gemini's exit 41).
        ("writer", &[("FAKE_AGENT_TRANSCRIPT", "no-auth")]),
    ]);
    let (text, mut shown) = turn_to_the_end(
        &s,
        "team/e.chat.md",
        "## @me\n@reviewer @tester @writer go\n",
    )
    .await;
    let auth = "gemini cannot log in (exit 41): Please set an Auth method in your \
                /home/dev/.gemini/settings.json or specify one of the following environment \
                variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE";
    assert_eq!(
        text,
        format!(
            "## @me\n@reviewer @tester @writer go\n\n\
             ## @reviewer\n<!-- chatmd id=t1 agent=claude status=error seen=0:53a899 started=… \
             model=claude-opus-4-8 session=e7676508-1a2b-4c3d-8e4f-5a6b7c8d9e0f took=… \
             exit=1 error=\"API Error: 400 mock upstream failure\" -->\n\n\
             ## @tester\n<!-- chatmd id=t2 agent=codex status=error seen=0:53a899 started=… \
             session=01a2007b-3fb0-7ff3-8fab-536458979726 took=… exit=3 tokens=10/4 \
             error=\"`codex` exited with code 3: quota exhausted for today\" -->\n\
             half of the tests\n\n\
             ## @writer\n<!-- chatmd id=t3 agent=gemini status=error seen=0:53a899 started=… took=… exit=41 \
             error=\"{auth}…\" -->\n\n## @me\n"
        )
    );
    // Each told once, in the agent's own words (the status comment keeps them short).
    shown.sort_by_key(|m| m["message"].as_str().unwrap_or("").to_string());
    assert_eq!(
        shown,
        [
            json!({"type": 1, "message": "@reviewer: API Error: 400 mock upstream failure"}),
            json!({"type": 1, "message": "@tester: `codex` exited with code 3: quota exhausted for today"}),
            json!({"type": 1, "message": format!(
                "@writer: {auth}_VERTEXAI, GOOGLE_GENAI_USE_GCA. Run `gemini` once in a terminal \
                 to log in (with GEMINI_CLI_HOME set to the member's `home` if it has one), or \
                 export GEMINI_API_KEY before chatmd starts."
            )}),
        ]
    );
}

#[tokio::test]
async fn agent_crashes_mid_stream_or_is_killed() {
    let pids = tempfile::tempdir().unwrap();
    let grandchild = pids.path().join("grandchild");
    let s = Setup::new(&[
        // Aborts after its first words, leaving a child of its own behind.
        (
            "reviewer",
            &[
                ("FAKE_AGENT_TEXT", "I was saying something"),
                ("FAKE_AGENT_CRASH_AT", "4"),
                ("FAKE_AGENT_GRANDCHILD", "1"),
                ("FAKE_AGENT_GRANDCHILD_PID", grandchild.to_str().unwrap()),
            ],
        ),
        // Killed from outside (SIGKILL) while it streams.
        (
            "tester",
            &[
                ("FAKE_AGENT_TEXT", "first second third fourth fifth sixth"),
                ("FAKE_AGENT_DELAY_MS", "200"),
            ],
        ),
    ]);
    let (mut editor, server) = s.process_editor(Behaviour::VsCode).await;
    let chat = "## @me\n@reviewer @tester go\n";
    s.write("team/k.chat.md", chat);
    let uri = s.uri("team/k.chat.md");
    editor.open(&uri, chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the tester's first words", |e| {
            e.text(&uri).contains("first")
        })
        .await;
    let codex = descendants(server)
        .into_iter()
        .find(|(_, name)| name == "codex")
        .expect("the tester's agent runs");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(codex.0 as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    editor
        .run_until("the turns' end", |e| finished(e.text(&uri)))
        .await;
    turns_ended(&mut editor).await;
    assert_eq!(
        redact(editor.text(&uri)),
        "## @me\n@reviewer @tester go\n\n\
         ## @reviewer\n<!-- chatmd id=t1 agent=claude status=error seen=0:d3fa6d started=… \
         model=claude-opus-4-8 session=ba6318a6-8ff6-4537-9fb3-78cdd30bb441 took=… \
         error=\"claude was killed by a signal\" -->\nI \n\n\
         ## @tester\n<!-- chatmd id=t2 agent=codex status=error seen=0:d3fa6d started=… \
         session=01a2007b-3fb0-7ff3-8fab-536458979726 took=… \
         error=\"codex was killed by a signal\" -->\nfirst second third fourth fifth sixth\n\n\
         ## @me\n"
    );
    let mut shown = shown(&mut editor).await;
    shown.sort_by_key(|m| m["message"].as_str().unwrap_or("").to_string());
    assert_eq!(
        shown,
        [
            json!({"type": 1, "message": "@reviewer: claude was killed by a signal"}),
            json!({"type": 1, "message": "@tester: codex was killed by a signal"}),
        ]
    );
    // Nothing of either agent is left, the crashed one's own child included.
    no_process_left_below(server).await;
    let grandchild: u32 = std::fs::read_to_string(&grandchild)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!alive(grandchild), "the crashed agent's child was ended");
}

#[tokio::test]
async fn agent_hangs_silent() {
    let s = Setup::new(&[
        // Never silent for a second, never done: the total timeout (2 s) ends it.
        (
            "reviewer",
            &[
                ("FAKE_AGENT_TEXT", &"word ".repeat(100)),
                ("FAKE_AGENT_CHUNKS", "100"),
                ("FAKE_AGENT_DELAY_MS", "100"),
            ],
        ),
        // Silent after its first line: the idle timeout (1 s) ends it, long before the
        // total one (30 s).
        ("writer", &[("FAKE_AGENT_HANG_AFTER", "1")]),
    ]);
    let toml = s.read("team/chatmd.toml");
    s.write(
        "team/chatmd.toml",
        &format!(
            "{toml}[members.reviewer]\nidle_timeout = 1\ntimeout = 2\n\
             [members.writer]\nidle_timeout = 1\ntimeout = 30\n"
        ),
    );
    let (text, mut shown) =
        turn_to_the_end(&s, "team/h.chat.md", "## @me\n@reviewer @writer go\n").await;
    let total = "the turn took longer than 2 s (total timeout); the agent was stopped";
    let idle = "the agent printed nothing for 1 s (idle timeout); it was stopped";
    let (head, rest) = text
        .split_once(" -->\n")
        .expect("the reviewer's status comment");
    assert_eq!(
        head,
        format!(
            "## @me\n@reviewer @writer go\n\n## @reviewer\n<!-- chatmd id=t1 agent=claude \
             status=error seen=0:9065aa started=… model=claude-opus-4-8 \
             session=ba6318a6-8ff6-4537-9fb3-78cdd30bb441 took=… error=\"{total}\""
        )
    );
    // What came in 2 s (about 20 words) stays; the rest never came.
    let (answered, rest) = rest
        .split_once("\n\n## @writer\n")
        .expect("the writer's section");
    let words = answered.split_whitespace().count();
    assert!(
        answered == "word ".repeat(words) && (5..95).contains(&words),
        "{answered:?}"
    );
    assert_eq!(
        rest,
        format!(
            "<!-- chatmd id=t2 agent=gemini status=error seen=0:9065aa started=… model=auto \
             session=9cb17075-5b94-485f-8363-bc25f5176e5c took=… error=\"{idle}\" -->\n\n## @me\n"
        )
    );
    shown.sort_by_key(|m| m["message"].as_str().unwrap_or("").to_string());
    assert_eq!(
        shown,
        [
            json!({"type": 1, "message": format!("@reviewer: {total}")}),
            json!({"type": 1, "message": format!("@writer: {idle}")}),
        ]
    );
}

#[tokio::test]
async fn agent_prints_invalid_utf8_ansi_escapes_non_json_lines_or_100_mb() {
    let s = Setup::new(&[
        // ANSI colours in its answer, then a coloured line, invalid UTF-8 and lines
        // that are not JSON.
        (
            "reviewer",
            &[
                ("FAKE_AGENT_TEXT", "clean \u{1b}[31mred\u{1b}[0m words"),
                ("FAKE_AGENT_GARBAGE", "1"),
            ],
        ),
        // 100 MiB of answer.
        ("tester", &[("FAKE_AGENT_FLOOD_MB", "100")]),
    ]);
    let (text, shown) =
        turn_to_the_end(&s, "team/g.chat.md", "## @me\n@reviewer @tester go\n").await;
    assert_eq!(shown, Vec::<Value>::new(), "both answers are done");
    let (head, flood) = text
        .split_once("exit=0 tokens=400/40 -->\n")
        .expect("the tester's status comment");
    assert_eq!(
        head,
        "## @me\n@reviewer @tester go\n\n\
         ## @reviewer\n<!-- chatmd id=t1 agent=claude status=done seen=0:d3fa6d started=… \
         model=claude-opus-4-8 session=ba6318a6-8ff6-4537-9fb3-78cdd30bb441 took=… \
         stop=end_turn exit=0 tokens=10/3 -->\nclean red words\n\n\
         ## @tester\n<!-- chatmd id=t2 agent=codex status=done seen=0:d3fa6d started=… \
         session=01a2007b-3fb0-7ff3-8fab-536458979726 took=… "
    );
    // 1 MiB of the answer, the note, then what follows the text (its tool summary).
    let (kept, note) = flood.split_once("\n\n> **Cut** — ").expect("the note");
    assert_eq!(kept.len(), 1 << 20);
    assert!(kept.starts_with("flood flood "), "{}", &kept[..100]);
    let note = note
        .strip_prefix("the answer passed 1 MiB, the most chatmd writes into a chat; its last ")
        .expect("the note says why");
    let (cut, tail) = note.split_once(' ').unwrap();
    assert!(cut.parse::<usize>().unwrap() > 90 << 20, "{cut} bytes cut");
    assert_eq!(
        tail,
        "bytes are left out.\n\n<details><summary>Tools (1)</summary>\n\n\
         - Shell: echo hello-from-tool\n\n</details>\n\n## @me\n"
    );
}

/// Types before, inside and after the streaming section at edits 2, 3 and 4 (each of
/// which the editor then refuses or skips as stale).
async fn typing_while_streaming(behaviour: Behaviour) {
    let answer = "one two three four five six seven eight";
    let s = Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", answer),
            ("FAKE_AGENT_CHUNKS", "8"),
            ("FAKE_AGENT_DELAY_MS", "60"),
        ],
    )]);
    let chat = "# Notes\n\n## @me\n@reviewer count\n";
    let (mut editor, uri) = s.open_chat(behaviour, "team/t.chat.md", chat).await;
    editor.type_before_edit(2, &uri, At::After("# Notes".into()), " (draft)");
    editor.type_before_edit(3, &uri, At::Before("one".into()), "> ");
    editor.type_before_edit(4, &uri, At::End, "\n## @me\nAnd then?\n");
    send(&mut editor, &uri).await;
    editor
        .run_until("the whole answer", |e| {
            let t = e.text(&uri);
            !t.contains("status=streaming") && t.contains("eight")
        })
        .await;
    assert!(editor.stale >= 2, "edits went stale: {}", editor.stale);
    let text = redact(editor.text(&uri));
    let status_end = text.find("-->\n").expect("status comment") + 4;
    assert_eq!(
        &text[..text.find("<!--").unwrap()],
        "# Notes (draft)\n\n## @me\n@reviewer count\n\n## @reviewer\n"
    );
    assert_eq!(
        &text[status_end..],
        format!("> {answer}\n\n## @me\nAnd then?\n"),
        "the user's new message stays after the complete answer"
    );
    assert!(text.contains("status=done"), "{text}");
}

#[tokio::test]
async fn user_edits_the_document_while_a_turn_streams() {
    typing_while_streaming(Behaviour::VsCode).await;
    typing_while_streaming(Behaviour::Neovim).await;
}

/// The reviewer answers slowly enough for a document to be closed, moved or deleted
/// while it writes.
fn slow_reviewer() -> Setup {
    Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", "first second third fourth"),
            ("FAKE_AGENT_DELAY_MS", "150"),
        ],
    )])
}

#[tokio::test]
async fn document_closed_renamed_or_deleted_mid_turn() {
    let done_section = "## @me\n@reviewer go\n\n## @reviewer\n<!-- chatmd id=t1 agent=claude \
                        status=done seen=0:35df51 started=… model=claude-opus-4-8 \
                        session=ba6318a6-8ff6-4537-9fb3-78cdd30bb441 took=… stop=end_turn \
                        exit=0 tokens=10/4 -->\nfirst second third fourth\n\n## @me\n";
    let chat = "## @me\n@reviewer go\n";

    // Closed (saved first): the turn finishes in the file.
    let s = slow_reviewer();
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/c.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the first words", |e| e.text(&uri).contains("first"))
        .await;
    s.write("team/c.chat.md", editor.text(&uri));
    editor.close(&uri).await;
    turns_ended(&mut editor).await;
    let text = file_until(&s.path("team/c.chat.md"), "the reply stub", |t| {
        t.ends_with("\n## @me\n")
    })
    .await;
    assert_eq!(redact(&text), done_section);

    // Renamed (VS Code: the file moves, the old document closes, the new one opens
    // with the same text): the turn goes on in the renamed document.
    let s = slow_reviewer();
    let (mut editor, old) = s.open_chat(Behaviour::VsCode, "team/r.chat.md", chat).await;
    send(&mut editor, &old).await;
    editor
        .run_until("the first words", |e| e.text(&old).contains("first"))
        .await;
    let buffer = editor.text(&old).to_string();
    std::fs::rename(s.path("team/r.chat.md"), s.path("team/renamed.chat.md")).unwrap();
    editor.close(&old).await;
    let new = s.uri("team/renamed.chat.md");
    editor.open(&new, &buffer).await;
    editor
        .run_until("the answer in the renamed chat", |e| finished(e.text(&new)))
        .await;
    turns_ended(&mut editor).await;
    assert_eq!(redact(editor.text(&new)), done_section);
    assert!(
        !s.path("team/r.chat.md").exists(),
        "the old file is not written again"
    );

    // Deleted while open: the answer goes on in the editor, which still has the text.
    let s = slow_reviewer();
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/d.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the first words", |e| e.text(&uri).contains("first"))
        .await;
    std::fs::remove_file(s.path("team/d.chat.md")).unwrap();
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    turns_ended(&mut editor).await;
    assert_eq!(redact(editor.text(&uri)), done_section);
    assert!(
        !s.path("team/d.chat.md").exists(),
        "the editor decides about saving"
    );

    // Deleted and closed: nothing to write into; the turn is cancelled and nothing is
    // made up at the old place.
    let s = slow_reviewer();
    let (server_editor, server) = s.process_editor(Behaviour::VsCode).await;
    let (mut editor, uri) = s.open_in(server_editor, "team/x.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the first words", |e| e.text(&uri).contains("first"))
        .await;
    std::fs::remove_file(s.path("team/x.chat.md")).unwrap();
    editor.close(&uri).await;
    turns_ended(&mut editor).await;
    no_process_left_below(server).await;
    assert!(!s.path("team/x.chat.md").exists(), "no file made up");
    assert_eq!(
        shown(&mut editor).await,
        [json!({"type": 1, "message": format!(
            "chatmd: {} was closed and its file is gone (deleted or moved), so the answer has \
             nowhere to go; the turn was stopped",
            s.path("team/x.chat.md").display()
        )})]
    );
}

#[tokio::test]
async fn editor_rejects_an_edit() {
    let words = "alpha beta gamma delta epsilon zeta eta theta";
    let s = Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", words),
            ("FAKE_AGENT_CHUNKS", "8"),
            ("FAKE_AGENT_DELAY_MS", "40"),
        ],
    )]);
    let chat = "# Notes\n\n## @me\n@reviewer count\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/v.chat.md", chat).await;
    // A keystroke just before each of the edits 2 to 6 (each right after the title,
    // so the last comes first): each of those edits is then for an older version, and
    // VS Code refuses it.
    for n in 2..=6 {
        editor.type_before_edit(n, &uri, At::After("# Notes".into()), &n.to_string());
    }
    send(&mut editor, &uri).await;
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    assert_eq!(editor.stale, 5, "each keystroke made one edit stale");
    assert_eq!(
        redact(editor.text(&uri)),
        format!(
            "# Notes65432\n\n## @me\n@reviewer count\n\n## @reviewer\n<!-- chatmd id=t1 \
             agent=claude status=done seen=0:0f13c3 started=… model=claude-opus-4-8 \
             session=ba6318a6-8ff6-4537-9fb3-78cdd30bb441 took=… stop=end_turn exit=0 \
             tokens=10/8 -->\n{words}\n\n## @me\n"
        )
    );
}

#[tokio::test]
async fn server_killed_mid_turn() {
    let s = slow_reviewer();
    let (editor, server) = s.process_editor(Behaviour::VsCode).await;
    let chat = "## @me\n@reviewer go\n";
    let (mut editor, uri) = s.open_in(editor, "team/s.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the first words", |e| e.text(&uri).contains("second"))
        .await;
    let agent = descendants(server)
        .into_iter()
        .find(|(_, name)| name == "claude")
        .expect("the agent runs");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(server as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    // The agent does not outlive the server.
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(agent.0) {
        assert!(Instant::now() < deadline, "the agent outlived the server");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The editor starts the server again; the chat is still open in it.
    let before = editor.text(&uri).to_string();
    assert!(before.contains("status=streaming"), "{before}");
    let (restarted, _) = s.process_editor(Behaviour::VsCode).await;
    let mut editor = restarted;
    editor.open(&uri, &before).await;
    editor
        .run_until("the turn marked", |e| {
            e.text(&uri).contains("status=interrupted")
        })
        .await;
    // The status says so (and no longer names the dead server); every byte stays.
    let owner = regex::Regex::new(r"status=streaming host=\S+ pid=\d+ ").unwrap();
    assert!(owner.is_match(&before), "{before}");
    assert_eq!(
        editor.text(&uri),
        owner.replace(&before, "status=interrupted "),
    );
}

#[tokio::test]
async fn malformed_chat_front_matter_or_chatmd_toml() {
    let s = Setup::new(&[]);
    let toml = s.read("team/chatmd.toml");
    s.write(
        "team/chatmd.toml",
        &format!("{toml}[members.reviewer\nidle_timeout = 5\n"),
    );
    let chat =
        "---\nmembers: [reviewer, tester\n---\n## @me\n@reviewer look\n```rust\nfn main() {}\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/m.chat.md", chat).await;
    let diagnostics = editor.client.expect_diagnostics(&uri).await;
    let config = editor
        .client
        .expect_diagnostics(&s.uri("team/chatmd.toml"))
        .await;
    assert_eq!(
        summarize(&diagnostics),
        [
            // Where the YAML parser stopped: the closing `---` came before the `]`.
            "2:0-2:0 1 front-matter YAML syntax error: while parsing a flow sequence, expected ',' or ']'",
            "5:0-5:7 2 unclosed-fence This code fence is never closed, so everything after it is code, later messages included. Close it with a line holding only ```",
        ]
    );
    assert_eq!(
        summarize(&config),
        [
            "0:17-0:17 1 - unclosed table, expected `]`. chatmd ignores this chatmd.toml until it is fixed"
        ]
    );
    // Still serving: the outline answers.
    let symbols = editor
        .client
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        )
        .await
        .expect("the outline");
    assert_eq!(symbols[0]["name"], "@me: @reviewer look", "{symbols}");
    assert_eq!(symbols.as_array().map(Vec::len), Some(1), "{symbols}");
}

#[tokio::test]
async fn malformed_or_hostile_json_rpc() {
    let s = Setup::new(&[("reviewer", &[("FAKE_AGENT_TEXT", "still here")])]);
    let (mut editor, _server) = s.process_editor(Behaviour::VsCode).await;
    let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
    let error = |answer: Value| (answer["id"].clone(), answer["error"]["code"].clone());
    // Not JSON; JSON but not JSON-RPC; an id JSON-RPC does not allow.
    for (body, code) in [
        ("not json", -32700),
        ("[1, 2]", -32600),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":{},"method":"shutdown"}"#, -32600),
    ] {
        editor.client.send_raw(frame(body).as_bytes()).await;
        let answer = editor.client.expect_response_null_id().await;
        assert_eq!(error(answer), (Value::Null, json!(code)), "{body}");
    }
    // A header that is not a length: skipped with its body, then reading goes on.
    editor
        .client
        .send_raw(
            b"Content-Length: abc\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":80,\"method\":\"shutdown\"}",
        )
        .await;
    let answer = editor.client.expect_response_null_id().await;
    assert_eq!(error(answer), (Value::Null, json!(-32700)));
    // Wrong parameters, an unknown method: errors for their ids.
    let wrong = editor
        .client
        .request("textDocument/hover", json!({"bogus": 1}))
        .await
        .unwrap_err();
    assert_eq!(wrong["code"], -32602, "{wrong}");
    let unknown = editor
        .client
        .request("chatmd/frobnicate", json!({}))
        .await
        .unwrap_err();
    assert_eq!(unknown["code"], -32601, "{unknown}");
    // And the server still runs a turn.
    let chat = "## @me\n@reviewer are you there?\n";
    let (mut editor, uri) = s.open_in(editor, "team/j.chat.md", chat).await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    assert!(
        editor.text(&uri).ends_with("-->\nstill here\n\n## @me\n"),
        "{}",
        editor.text(&uri)
    );
}

#[tokio::test]
async fn two_turns_for_the_same_member_at_once() {
    let s = Setup::new(&[(
        "reviewer",
        &[("FAKE_AGENT_TEXT", "slow"), ("FAKE_AGENT_HANG_AFTER", "2")],
    )]);
    let chat = "## @me\n@reviewer go\n";
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/twice.chat.md", chat)
        .await;
    send(&mut editor, &uri).await;
    editor
        .run_until("the section", |e| e.text(&uri).contains("status=streaming"))
        .await;
    for (command, argument) in [
        ("chatmd.ask", json!({"uri": uri, "member": "reviewer"})),
        ("chatmd.send", json!({"uri": uri})),
    ] {
        let again = editor.command(command, argument).await.unwrap();
        assert_eq!(again["members"], json!([]), "{command}: {again}");
        let warning = "@reviewer is already answering in this chat; wait for it or cancel it first";
        let shown = editor
            .client
            .expect_notification("window/showMessage")
            .await;
        assert_eq!(shown, json!({"type": 2, "message": warning}), "{command}");
    }
    editor
        .command("chatmd.cancel", json!({"uri": uri}))
        .await
        .unwrap();
    editor
        .run_until("the cancel", |e| finished(e.text(&uri)))
        .await;
    let text = redact(editor.text(&uri));
    assert_eq!(
        text.matches("## @reviewer").count(),
        1,
        "one section: {text}"
    );
    assert!(text.contains("status=cancelled"), "{text}");
}
