//! A workspace with a team, the fake agent installed on the server's agent path, and a
//! started server with an editor around it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use chatmd_tests::{TestClient, file_uri};
use serde_json::{Value, json};

pub use chatmd_tests::sim_editor::{At, redact};

pub struct Setup {
    pub dir: tempfile::TempDir,
    /// The fake agent as `claude`, `codex` and `gemini`.
    pub bin: PathBuf,
    /// The user's config home (`XDG_CONFIG_HOME`): what the user trusts.
    pub config: tempfile::TempDir,
}

/// Knobs for one member's fake agent.
pub type Knobs<'a> = &'a [(&'a str, &'a str)];

impl Setup {
    /// A workspace (a git repository) whose `team/` has a claude reviewer, a codex tester
    /// and a gemini writer, each with the fake knobs given for it in `chatmd.toml` (which
    /// the user trusts: see [`Setup::write`]).
    pub fn new(members: &[(&str, Knobs)]) -> Setup {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join(".git")).expect("git dir");
        let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        let bin = chatmd_tests::fake_agent::install(&fake, &dir.path().join(".bin"))
            .expect("install the fake");
        let config = tempfile::tempdir().expect("temp dir");
        let s = Setup { dir, bin, config };
        s.write("team/reviewer/CLAUDE.md", "# Reviews Rust code\n");
        s.write("team/tester/AGENTS.md", "# Writes tests\n");
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        let mut toml = String::new();
        for (member, knobs) in members {
            toml.push_str(&format!("[members.{member}.env]\nIS_SANDBOX = \"\"\n"));
            for (k, v) in *knobs {
                toml.push_str(&format!("{k} = {}\n", toml_string(v)));
            }
        }
        s.write("team/chatmd.toml", &toml);
        s
    }

    /// A workspace whose writer is the fake `claude-agent-acp` (`more` lines in its
    /// table), logging what it receives to `acp.jsonl`, its sessions kept in `state/`,
    /// with `env` lines (`KEY = "value"`) added to its environment.
    pub fn acp_writer(more: &str, env: &str) -> Setup {
        let s = Setup::new(&[]);
        let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
        s.write(
            "team/chatmd.toml",
            &format!(
                "[members.writer]\nagent = \"acp\"\npreset = \"claude\"\n{more}\n\
                 [members.writer.env]\nFAKE_ACP_LOG = \"{}\"\nIS_SANDBOX = \"1\"\n\
                 CLAUDE_CONFIG_DIR = \"{}\"\n{env}",
                s.path("acp.jsonl").display(),
                s.path("state").display()
            ),
        );
        s
    }

    /// The params of the requests of `method` the fake ACP agent of
    /// [`Setup::acp_writer`] received, in order.
    pub fn acp_requests(&self, method: &str) -> Vec<Value> {
        chatmd_tests::fake_agent::acp::requests_received(&self.path("acp.jsonl"))
            .into_iter()
            .filter(|(m, _)| m == method)
            .map(|(_, params)| params)
            .collect()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn uri(&self, rel: &str) -> String {
        file_uri(&self.path(rel))
    }

    /// Writes a file of the workspace. A `chatmd.toml` is trusted as written (the
    /// user wrote it): the fake's knobs are in its `env`. [`Setup::write_untrusted`]
    /// writes one as a cloned repository would bring it.
    pub fn write(&self, rel: &str, text: &str) {
        self.write_untrusted(rel, text);
        if rel.ends_with("chatmd.toml") {
            self.user_config()
                .trust_file(&self.path(rel), text.as_bytes())
                .expect("trust chatmd.toml");
        }
    }

    /// Writes a file of the workspace, trusting nothing.
    pub fn write_untrusted(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    /// The user's own config folder the servers of this setup read.
    pub fn user_config(&self) -> chatmd::team::UserConfig {
        chatmd::team::UserConfig::with_config_home(self.config.path())
    }

    /// The server of this setup, over the test client's pipes.
    fn client(&self) -> TestClient {
        let user = self.user_config();
        TestClient::spawn(move |input, output| {
            chatmd::lsp::serve_with_user_config(input, output, user)
        })
    }

    /// The built `chatmd lsp` as a process of its own (what a real editor starts), over
    /// the test client's pipes, and its pid: for what only a real process shows (being
    /// killed, its children).
    fn process_client(&self) -> (TestClient, u32) {
        let mut command = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
        command
            .arg("lsp")
            .env("XDG_CONFIG_HOME", self.config.path())
            .stderr(std::process::Stdio::null());
        TestClient::spawn_process(command).expect("start chatmd lsp")
    }

    /// [`Setup::editor`] around the built server running as its own process; also
    /// returns the server's pid.
    pub async fn process_editor(&self, behaviour: Behaviour) -> (SimEditor, u32) {
        let (mut client, pid) = self.process_client();
        initialize(&mut client, self.dir.path(), &self.bin, true, behaviour).await;
        (SimEditor::new(client, behaviour, true), pid)
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).expect("read")
    }

    /// A started server (UTF-8 positions, progress and showDocument supported) and an
    /// editor behaving like `behaviour`.
    pub async fn editor(&self, behaviour: Behaviour) -> SimEditor {
        let mut client = self.client();
        initialize(&mut client, self.dir.path(), &self.bin, true, behaviour).await;
        SimEditor::new(client, behaviour, true)
    }

    /// [`Setup::editor`] whose workspace folder is `rel` rather than the repository (as
    /// Neovim's root markers once picked the team folder for a chat).
    pub async fn editor_rooted_at(&self, rel: &str, behaviour: Behaviour) -> SimEditor {
        let mut client = self.client();
        initialize(&mut client, &self.path(rel), &self.bin, true, behaviour).await;
        SimEditor::new(client, behaviour, true)
    }

    /// Writes a chat at `rel`, starts a server and an editor, and opens the chat in it.
    pub async fn open_chat(
        &self,
        behaviour: Behaviour,
        rel: &str,
        text: &str,
    ) -> (SimEditor, String) {
        let editor = self.editor(behaviour).await;
        self.open_in(editor, rel, text).await
    }

    /// The same with UTF-16 positions.
    pub async fn open_chat_utf16(
        &self,
        behaviour: Behaviour,
        rel: &str,
        text: &str,
    ) -> (SimEditor, String) {
        let editor = self.editor_utf16(behaviour).await;
        self.open_in(editor, rel, text).await
    }

    pub async fn open_in(
        &self,
        mut editor: SimEditor,
        rel: &str,
        text: &str,
    ) -> (SimEditor, String) {
        self.write(rel, text);
        let uri = self.uri(rel);
        editor.open(&uri, text).await;
        (editor, uri)
    }

    /// [`Setup::editor`] for a plugin that asks permission requests in the editor's
    /// dialog too (`permissionDialog`).
    pub async fn dialog_editor(&self, behaviour: Behaviour) -> SimEditor {
        let mut client = self.client();
        let options = json!({"agentPath": self.bin, "permissionDialog": true});
        chatmd_tests::sim_editor::initialize_with(
            &mut client,
            behaviour,
            self.dir.path(),
            true,
            options,
        )
        .await;
        SimEditor::new(client, behaviour, true)
    }

    /// [`Setup::editor`] with these warm-session settings (`warmIdleSeconds`,
    /// `warmMembers`) beside `agentPath`; with `process`, around the built server
    /// running as its own process (its pid returned).
    pub async fn warm_editor(&self, warm: Value, process: bool) -> (SimEditor, Option<u32>) {
        let (mut client, pid) = match process {
            true => {
                let (client, pid) = self.process_client();
                (client, Some(pid))
            }
            false => (self.client(), None),
        };
        let mut options = json!({"agentPath": self.bin});
        for (key, value) in warm.as_object().into_iter().flatten() {
            options[key] = value.clone();
        }
        chatmd_tests::sim_editor::initialize_with(
            &mut client,
            Behaviour::VsCode,
            self.dir.path(),
            true,
            options,
        )
        .await;
        (SimEditor::new(client, Behaviour::VsCode, true), pid)
    }

    /// The same with UTF-16 positions (VS Code's).
    pub async fn editor_utf16(&self, behaviour: Behaviour) -> SimEditor {
        let mut client = self.client();
        initialize(&mut client, self.dir.path(), &self.bin, false, behaviour).await;
        SimEditor::new(client, behaviour, false)
    }
}

async fn initialize(
    client: &mut TestClient,
    root: &Path,
    bin: &Path,
    utf8: bool,
    behaviour: Behaviour,
) {
    chatmd_tests::sim_editor::initialize(client, behaviour, root, bin, utf8).await;
}

fn toml_string(s: &str) -> String {
    let mut quoted = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => quoted.push_str("\\\\"),
            '"' => quoted.push_str("\\\""),
            '\n' => quoted.push_str("\\n"),
            // TOML allows no other control character in a basic string.
            c if c.is_control() => quoted.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// Whether the document has every turn finished and the reply stub written.
pub fn finished(text: &str) -> bool {
    !text.contains("status=queued")
        && !text.contains("status=streaming")
        && text.ends_with("\n## @me\n")
}

/// The `$/progress` values sent for `token`, in order.
pub fn progress_of(notes: &[Value], token: &Value) -> Vec<Value> {
    notes
        .iter()
        .filter(|n| n["token"] == *token)
        .map(|n| n["value"].clone())
        .collect()
}

/// Types `next` at the end of the chat and Sends it while members still answer: the
/// server answers that it is queued.
pub async fn send_queued(editor: &mut SimEditor, uri: &str, next: &str) {
    editor.type_text(uri, At::End, next).await;
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": [], "queued": true})));
}

/// Runs Send on the chat; the turns start.
pub async fn send(editor: &mut SimEditor, uri: &str) {
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert!(
        answer
            .as_ref()
            .is_ok_and(|a| a["members"].as_array().is_some_and(|m| !m.is_empty())),
        "Send started nobody: {answer:?}"
    );
}

/// Waits until the running-turns list is empty again (the turns ended).
pub async fn turns_ended(editor: &mut SimEditor) {
    loop {
        let changed = editor
            .client
            .expect_notification("chatmd/turnsChanged")
            .await;
        if changed == json!({"turns": []}) {
            return;
        }
    }
}

/// Waits (bounded) until the file at `path` satisfies `done`; returns its text.
pub async fn file_until(path: &std::path::Path, what: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if done(&text) {
            return text;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still waiting for {what}: {text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// The text with each status comment cut to `<!-- id agent status -->` (times
/// redacted): for tests about who answered and how their turns ended.
pub fn plain(text: &str) -> String {
    let status = regex::Regex::new(r"<!-- chatmd id=(t\d+) agent=(\w+) status=(\w+)[^>]*-->")
        .expect("regex");
    status
        .replace_all(&redact(text), "<!-- $1 $2 $3 -->")
        .into_owned()
}

/// No more edits come from the server (no turn starts) within a second.
pub async fn nothing_more(editor: &mut SimEditor) {
    let more = tokio::time::timeout(
        std::time::Duration::from_secs(1),
        editor.client.expect_request("workspace/applyEdit"),
    )
    .await;
    if let Ok((_, params)) = more {
        panic!("the server went on editing: {params}");
    }
}

/// The code lenses of the chat as `(line, title, argument)`.
pub async fn lenses(
    editor: &mut chatmd_tests::sim_editor::SimEditor,
    uri: &str,
) -> Vec<(u64, String, Value)> {
    let lenses = editor
        .client
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await
        .expect("code lenses");
    lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["range"]["start"]["line"].as_u64().unwrap(),
                l["command"]["title"].as_str().unwrap().to_string(),
                l["command"]["arguments"][0].clone(),
            )
        })
        .collect()
}

/// The code actions the server offers at the start of `line`.
pub async fn code_actions_at(editor: &mut SimEditor, uri: &str, line: usize) -> Vec<Value> {
    let actions = editor
        .client
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
                "context": {"diagnostics": []},
            }),
        )
        .await
        .expect("code actions");
    actions.as_array().expect("a list").clone()
}

/// Sends and waits until the chat shows `answers` answers done and the turns ended.
pub async fn send_until_done(editor: &mut SimEditor, uri: &str, answers: usize) {
    send(editor, uri).await;
    editor
        .run_until("the answers", |e| {
            let text = e.text(uri);
            finished(text) && text.matches("status=done").count() == answers
        })
        .await;
    turns_ended(editor).await;
}

/// A reviewer answering as `reviewer` says and a tester (answering "tests written") that
/// records each run on a line of `records/tester.jsonl` (read by [`tester_prompts`]).
pub fn reviewer_and_recorded_tester(reviewer: Knobs) -> Setup {
    let s = Setup::new(&[
        ("reviewer", reviewer),
        (
            "tester",
            &[
                ("FAKE_AGENT_TEXT", "tests written"),
                ("FAKE_AGENT_RECORD", "@RECORDS@/tester.jsonl"),
            ],
        ),
    ]);
    std::fs::create_dir_all(s.path("records")).expect("records folder");
    let records = s.path("records").display().to_string();
    let config = s.read("team/chatmd.toml");
    s.write("team/chatmd.toml", &config.replace("@RECORDS@", &records));
    s
}

/// The prompts the tester of [`reviewer_and_recorded_tester`] was given, one per run.
pub fn tester_prompts(s: &Setup) -> Vec<String> {
    let records = std::fs::read_to_string(s.path("records/tester.jsonl")).unwrap_or_default();
    records
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).expect("a record");
            record["prompt"].as_str().unwrap_or_default().to_owned()
        })
        .collect()
}
