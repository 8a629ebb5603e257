//! `chatmd import`: one minimal chat file per foreign format and one recorded session of
//! each CLI (claude, codex, gemini) become the expected chats, byte for byte (snapshots
//! in `snapshots/`); the member's next turn resumes the imported session with the CLI's
//! own id (the fake agent records its argv); nothing is written over a file; bad input
//! exits 2 with a line that says why.

use std::path::PathBuf;
use std::process::Output;

use pretty_assertions::assert_eq;
use serde_json::Value;

mod send_support;

send_support::setup_around_workspace! {
    /// A workspace whose `team/` has a claude reviewer, a codex tester and a gemini
    /// writer, each resuming (the default: no `resume` key).
}

/// (member, CLI, recorded session file, its session id, the name of the imported chat).
const SESSIONS: [(&str, &str, &str, &str, &str); 3] = [
    (
        "reviewer",
        "claude",
        "claude-session-with-tool.jsonl",
        "3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3f",
        "claude-3f7eefe2.chat.md",
    ),
    (
        "tester",
        "codex",
        "codex-session-with-tool.jsonl",
        "01a20c15-7d83-75c0-8b47-478d1d919b73",
        "codex-01a20c15.chat.md",
    ),
    (
        "writer",
        "gemini",
        "gemini-session-with-tool-yolo.jsonl",
        "3e77c063-ea84-4f20-84a1-81bd98a086ec",
        "gemini-3e77c063.chat.md",
    ),
];

impl Setup {
    fn new() -> Setup {
        let s = Setup(send_support::Workspace::new());
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        s.write(
            "team/chatmd.toml",
            "[members.reviewer]\n[members.tester]\n[members.writer]\n",
        );
        s
    }

    fn import(&self, args: &[&str]) -> Output {
        let mut all = vec!["import"];
        all.extend_from_slice(args);
        let mut c = self.chatmd(&all);
        // The CLIs' state folders are the defaults under the workspace's HOME.
        for var in ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"] {
            c.env_remove(var);
        }
        c.output().expect("run chatmd import")
    }
}

fn session_fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/sessions")
        .join(name)
        .display()
        .to_string()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The four foreign formats, minimal: (file, text).
const FOREIGN: [(&str, &str); 4] = [
    (
        "old.chat.md",
        "maxTokens=4000\n\n# %% system\nBe brief.\n\n# %% user\nWhy?\n\n# %% assistant\nBecause.\n\n# %% tool_execute\nok\n\n# %% user\nThanks\n\n# %% assistant\n",
    ),
    (
        "gp.md",
        "# topic: Loops\n- file: gp.md\n---\n\n💬: How do I loop?\n\n🤖:[ChatGPT] Use `for`.\n\n💬: thanks\n",
    ),
    (
        "talk.aichat",
        "[chat]\noptions.model=gpt-4o\n\n>>> user\n\nHi\n\n<<< thinking\n\nhmm\n\n<<< assistant\n\nHello!\n",
    ),
    (
        "lsp.md",
        "Explain this.\n<|assistant|>\nIt adds.\n<|user|>\nThanks\n",
    ),
];

#[test]
fn one_file_of_each_foreign_format_imports_byte_for_byte() {
    let s = Setup::new();
    for (name, text) in FOREIGN {
        s.write(&format!("team/{name}"), text);
    }
    let files: Vec<String> = FOREIGN.iter().map(|(n, _)| format!("team/{n}")).collect();
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let out = s.import(&args);
    assert_eq!(stderr(&out), "");
    assert!(out.status.success());
    let team = s.path("team").canonicalize().unwrap();
    let t = team.display();
    let note = format!(
        "; answers are under @assistant, no member of the team in {t}: add a folder assistant/ with a role file there to continue with it"
    );
    assert_eq!(
        stdout(&out),
        format!(
            // old.chat.md exists (it is the source): the import goes next to it.
            "team/old.chat.md -> {t}/old.imported.chat.md: chat.md (`# %% user`) chat, kept 5 messages, skipped 0{note}\n\
             team/gp.md -> {t}/gp.chat.md: gp.nvim chat, kept 3 messages, skipped 0{note}\n\
             team/talk.aichat -> {t}/talk.chat.md: vim-ai chat, kept 3 messages, skipped 0{note}\n\
             team/lsp.md -> {t}/lsp.chat.md: lsp-ai chat, kept 3 messages, skipped 0{note}\n"
        )
    );
    for (source, imported) in [
        ("old.chat.md", "old.imported.chat.md"),
        ("gp.md", "gp.chat.md"),
        ("talk.aichat", "talk.chat.md"),
        ("lsp.md", "lsp.chat.md"),
    ] {
        insta::assert_snapshot!(
            format!("import_{source}"),
            s.read(&format!("team/{imported}"))
        );
        // The source is untouched.
        let original = FOREIGN.iter().find(|(n, _)| *n == source).unwrap().1;
        assert_eq!(s.read(&format!("team/{source}")), original);
    }
}

#[test]
fn a_recorded_session_of_each_cli_imports_byte_for_byte_under_its_member() {
    let s = Setup::new();
    let team = s.path("team").canonicalize().unwrap();
    for (member, cli, file, id, name) in SESSIONS {
        let out = s.import(&[&session_fixture(file), "--to", "team"]);
        assert_eq!(stderr(&out), "", "{cli}");
        assert!(out.status.success(), "{cli}");
        let skipped = match cli {
            // claude keeps sessions per folder: the recorded one ran elsewhere.
            "claude" => format!(
                "skipped 5 (2 instructions and context the CLI added, 3 CLI bookkeeping); the session ran in /home/dev/work but @reviewer works in {}/reviewer: claude finds a session only from the folder it ran in",
                team.display()
            ),
            "codex" => "skipped 16 (3 instructions and context the CLI added, 13 CLI bookkeeping)"
                .to_string(),
            // gemini's projectHash is that of the recording's folder, not the writer's.
            _ => format!(
                "skipped 5 (1 instructions and context the CLI added, 4 CLI bookkeeping); the session ran in another folder but @writer works in {}/writer: gemini finds a session only from the folder it ran in",
                team.display()
            ),
        };
        assert_eq!(
            stdout(&out),
            format!(
                "{} -> {}/{name}: {cli} session {id}, kept 2 messages (1 of the human, 1 answer), {skipped}\n",
                session_fixture(file),
                team.display()
            )
        );
        let chat = s.read(&format!("team/{name}"));
        // codex's next turn reports the thread's total, counted from the rollout's.
        let total = if cli == "codex" {
            " session-tokens=19234/61"
        } else {
            ""
        };
        assert!(
            chat.contains(&format!(
                "\n## @{member}\n<!-- chatmd id=t1 agent={cli} status=done session={id} held=none{total} -->\n"
            )),
            "{chat}"
        );
        insta::assert_snapshot!(format!("import_{cli}_session"), chat);
    }
}

#[test]
fn the_next_turn_resumes_the_imported_session_with_the_clis_own_id() {
    for (member, cli, file, id, name) in SESSIONS {
        let s = Setup::new();
        let out = s.import(&[&session_fixture(file), "--to", "team"]);
        assert!(out.status.success(), "{cli}: {}", stderr(&out));
        // The user writes under the empty `## @me` the import ends with, and sends.
        let mut chat = s.read(&format!("team/{name}"));
        assert!(chat.ends_with("\n## @me\n"), "{chat}");
        chat.push_str(&format!("@{member} and now?\n"));
        s.write(&format!("team/{name}"), &chat);
        let out = s
            .command(
                &[&format!("team/{name}")],
                &[("FAKE_AGENT_TEXT", "Resumed.")],
            )
            .env("FAKE_AGENT_RECORD", s.path("runs.jsonl"))
            .output()
            .unwrap();
        assert_eq!(stderr(&out), format!("@{member}: done\n"), "{cli}");
        let runs: Vec<Value> = s
            .read("runs.jsonl")
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(runs.len(), 1, "{cli}");
        assert_eq!(runs[0]["resume"], id, "{cli}");
        // Only what is new to the session is sent, and the roster line, which the
        // imported session never got.
        let new_only = format!(
            "[CONTEXT]\n{}\n[MESSAGE]\nme: @{member} and now?\n",
            roster_line(member)
        );
        assert_eq!(runs[0]["prompt"], new_only.as_str(), "{cli}");
        let argv: Vec<&str> = runs[0]["argv"].as_array().unwrap()[1..]
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let attached = format!("--resume={id}");
        let resume: Vec<&str> = match cli {
            "codex" => vec!["exec", "resume", id],
            _ => vec![&attached],
        };
        assert!(
            argv.windows(resume.len()).any(|w| w == resume.as_slice()),
            "{cli}: {argv:?}"
        );
        if cli == "codex" {
            assert_eq!(&argv[..3], resume.as_slice());
        }
    }
}

/// The roster line of `member` in [`Setup::new`]'s team.
fn roster_line(member: &str) -> String {
    let others: Vec<String> = SESSIONS
        .iter()
        .filter(|s| s.0 != member)
        .map(|s| format!("@{} ({})", s.0, s.1))
        .collect();
    let next = SESSIONS.iter().find(|s| s.0 != member).unwrap().0;
    format!(
        "You are @{member} in a team chat with @me (human), {}. Mention a member (@{next}) or end with [NEXT: {next}] to hand over.",
        others.join(", ")
    )
}

#[test]
fn an_imported_session_gets_the_team_instruction_and_roster_exactly_once() {
    const RULE: &str = "TEAM-RULE: cite files.";
    for (member, cli, file, _, name) in SESSIONS {
        let s = Setup::new();
        s.write("team/team_instruction.md", &format!("{RULE}\n"));
        let out = s.import(&[&session_fixture(file), "--to", "team"]);
        assert!(out.status.success(), "{cli}: {}", stderr(&out));
        for question in ["and now?", "and then?"] {
            let mut chat = s.read(&format!("team/{name}"));
            assert!(chat.ends_with("\n## @me\n"), "{chat}");
            chat.push_str(&format!("@{member} {question}\n"));
            s.write(&format!("team/{name}"), &chat);
            let out = s
                .command(
                    &[&format!("team/{name}")],
                    &[("FAKE_AGENT_TEXT", "Resumed.")],
                )
                .env("FAKE_AGENT_RECORD", s.path("runs.jsonl"))
                .output()
                .unwrap();
            assert_eq!(stderr(&out), format!("@{member}: done\n"), "{cli}");
        }
        let runs = s.json_lines("runs.jsonl");
        assert_eq!(runs.len(), 2, "{cli}");
        // The first follow-up: the team instruction at the top, the roster line, in
        // the prompt only (no claude flag besides).
        assert_eq!(
            runs[0]["prompt"],
            format!(
                "[SYSTEM]\n{RULE}\n[CONTEXT]\n{}\n[MESSAGE]\nme: @{member} and now?\n",
                roster_line(member)
            ),
            "{cli}"
        );
        let argv = |run: &Value| run["argv"].to_string();
        assert!(!argv(&runs[0]).contains("--append-system-prompt"), "{cli}");
        // The second: the session holds them; only the new message (claude gets its
        // flag, as on every resumed run of 2.1.197).
        assert_eq!(
            runs[1]["prompt"],
            format!("[CONTEXT]\n[MESSAGE]\nme: @{member} and then?\n"),
            "{cli}"
        );
        assert_eq!(argv(&runs[1]).contains(RULE), cli == "claude", "{cli}");
    }
}

#[test]
fn nothing_is_written_over_a_file_and_bad_input_exits_2() {
    let s = Setup::new();
    let (_, cli, file, _, name) = SESSIONS[0];
    assert!(
        s.import(&[&session_fixture(file), "--to", "team"])
            .status
            .success()
    );
    let first = s.read(&format!("team/{name}"));
    let again = s.import(&[&session_fixture(file), "--to", "team"]);
    assert_eq!(again.status.code(), Some(2), "{cli}");
    let team = s.path("team").canonicalize().unwrap();
    assert_eq!(
        stderr(&again),
        format!(
            "chatmd import: {}: {}/{name} already exist(s); nothing was written (chatmd import never writes over a file): choose another folder with --to\n",
            session_fixture(file),
            team.display()
        )
    );
    assert_eq!(s.read(&format!("team/{name}")), first);

    s.write("notes.md", "# Notes\n\nNothing to import.\n");
    s.write("bad.jsonl", "{\"hello\": 1}\n");
    let out = s.import(&["notes.md", "bad.jsonl", "missing.md"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(err.starts_with("chatmd import: notes.md: not a chat file chatmd can import: no `# %% user`, `💬:`, `>>> user` or `<|user|>` line, and not a session stored by claude, codex or gemini\n\
         chatmd import: bad.jsonl: not a chat file chatmd can import"), "{err}");
    assert!(
        err.contains("chatmd import: missing.md: cannot read it: "),
        "{err}"
    );
    let out = s.import(&["notes.md", "--to", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "chatmd import: --to nowhere: no such folder; create it first\n"
    );
}

#[test]
fn list_shows_the_sessions_stored_for_a_folder_and_its_members() {
    let s = Setup::new();
    let ws = s.dir.path().canonicalize().unwrap();
    let team = ws.join("team");
    let at = |rel: &str| ws.join(rel).display().to_string();
    // claude: in the default config folder (HOME is the workspace), run in the reviewer's
    // workdir; another one ran elsewhere.
    s.write(
        ".claude/projects/-team-reviewer/aaaa.jsonl",
        &format!(
            "{{\"type\":\"queue-operation\",\"sessionId\":\"aaaa\"}}\n{{\"type\":\"user\",\"sessionId\":\"aaaa\",\"cwd\":\"{}\",\"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}\n",
            team.join("reviewer").display()
        ),
    );
    s.write(
        ".claude/projects/-elsewhere/dddd.jsonl",
        "{\"type\":\"user\",\"sessionId\":\"dddd\",\"cwd\":\"/elsewhere\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
    );
    // codex: run in the team folder itself.
    s.write(
        ".codex/sessions/2026/11/24/rollout-2026-11-24T05-44-00-bbbb.jsonl",
        &format!(
            "{{\"type\":\"session_meta\",\"payload\":{{\"id\":\"bbbb\",\"cwd\":\"{}\"}}}}\n",
            team.display()
        ),
    );
    // gemini: its project hash is the SHA-256 of the writer's workdir.
    let hash =
        chatmd::team::trust::content_hash(team.join("writer").as_os_str().as_encoded_bytes());
    s.write(
        ".gemini/tmp/writer/chats/session-2026-11-24T05-57-cccc.jsonl",
        &format!("{{\"sessionId\":\"cccc\",\"projectHash\":\"{hash}\",\"kind\":\"main\"}}\n"),
    );
    let out = s.import(&["--list", "team"]);
    assert_eq!(stderr(&out), "");
    assert!(out.status.success());
    let mut lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            format!(
                "claude\taaaa\t{}",
                at(".claude/projects/-team-reviewer/aaaa.jsonl")
            ),
            format!(
                "codex\tbbbb\t{}",
                at(".codex/sessions/2026/11/24/rollout-2026-11-24T05-44-00-bbbb.jsonl")
            ),
            format!(
                "gemini\tcccc\t{}",
                at(".gemini/tmp/writer/chats/session-2026-11-24T05-57-cccc.jsonl")
            ),
        ]
    );
    // A folder where nothing ran.
    s.write("empty/.keep", "");
    let out = s.import(&["--list", "empty"]);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        format!(
            "no sessions of claude, codex or gemini ran in {} (looked in {}, {}, {})\n",
            at("empty"),
            at(".claude"),
            at(".codex"),
            ws.display()
        )
    );
}

#[test]
fn a_member_with_its_own_home_is_told_where_its_cli_looks() {
    let s = Setup::new();
    std::fs::create_dir_all(s.path("team/state/reviewer")).unwrap();
    s.write_trusted(
        "team/chatmd.toml",
        "[members.reviewer]\nhome = \"state/reviewer\"\n",
    );
    let (_, _, file, _, name) = SESSIONS[0];
    let out = s.import(&[&session_fixture(file), "--to", "team"]);
    assert_eq!(stderr(&out), "");
    let team = s.path("team").canonicalize().unwrap();
    let line = stdout(&out);
    assert!(
        line.ends_with(&format!(
            "{name}: claude session 3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3f, kept 2 messages (1 of the human, 1 answer), skipped 5 (2 instructions and context the CLI added, 3 CLI bookkeeping); the session ran in /home/dev/work but @reviewer works in {t}/reviewer: claude finds a session only from the folder it ran in; @reviewer keeps its claude state in its home {t}/state/reviewer, where this session file is not: copy the session there for its CLI to find it\n",
            t = team.display()
        )),
        "{line}"
    );
}

#[test]
fn a_member_with_resume_off_is_told_it_does_not_continue_the_session() {
    let s = Setup::new();
    s.write("team/chatmd.toml", "[members.tester]\nresume = false\n");
    let (_, _, file, id, name) = SESSIONS[1];
    let out = s.import(&[&session_fixture(file), "--to", "team"]);
    assert_eq!(stderr(&out), "");
    assert!(out.status.success());
    let team = s.path("team").canonicalize().unwrap();
    assert_eq!(
        stdout(&out),
        format!(
            "{} -> {}/{name}: codex session {id}, kept 2 messages (1 of the human, 1 answer), skipped 16 (3 instructions and context the CLI added, 13 CLI bookkeeping); @tester does not continue this session: [members.tester] of chatmd.toml has `resume = false`\n",
            session_fixture(file),
            team.display()
        )
    );
}

/// codex's `exec resume` reports the thread's running total, the imported turns
/// included (the rollout's last `token_count` says 19234/61): the first turn after
/// the import records only its own share.
#[test]
fn the_first_turn_after_importing_a_codex_session_counts_only_its_own_tokens() {
    let (member, _, file, id, name) = SESSIONS
        .into_iter()
        .find(|(_, cli, ..)| *cli == "codex")
        .unwrap();
    let s = Setup::new();
    let out = s.import(&[&session_fixture(file), "--to", "team"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut chat = s.read(&format!("team/{name}"));
    assert!(
        chat.contains(&format!(
            " session={id} held=none session-tokens=19234/61 -->"
        )),
        "the import keeps the session's total: {chat}"
    );
    // The fake's store holds what the real codex keeps in its rollout.
    s.write(&format!("sessions/codex/{id}"), "19234 61 0");
    chat.push_str(&format!("@{member} and now?\n"));
    s.write(&format!("team/{name}"), &chat);
    let out = s
        .command(
            &[&format!("team/{name}")],
            &[("FAKE_AGENT_TEXT", "Resumed.")],
        )
        .env("FAKE_AGENT_SESSIONS", s.path("sessions"))
        .env("FAKE_AGENT_TOKENS", "9800/30")
        .output()
        .unwrap();
    assert_eq!(stderr(&out), format!("@{member}: done\n"));
    let chat = s.read(&format!("team/{name}"));
    let status = chat
        .lines()
        .rfind(|l| l.starts_with("<!-- chatmd "))
        .unwrap();
    assert!(
        status.contains(" tokens=9800/30 session-tokens=29034/91 "),
        "{status}"
    );
}
