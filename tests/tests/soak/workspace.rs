//! The soak's workspace (a git repository whose team has one member per CLI, the fake
//! agent installed, a trusted `chatmd.toml` with a short idle timeout) and its server:
//! the built `chatmd lsp` as a process of its own, with an editor around it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chatmd_tests::sim_editor::{Behaviour, SimEditor};
use chatmd_tests::{TestClient, file_uri};

use super::plan::MEMBERS;

/// How long the fake may stay silent before a turn ends with an error: well above
/// the longest planned delay between lines (0.2 s) and the start of a process on a
/// loaded machine, so only a planned hang reaches it.
pub const IDLE_TIMEOUT_SECS: u64 = 5;

pub struct Workspace {
    pub dir: tempfile::TempDir,
    /// The user's config home (`XDG_CONFIG_HOME`): the trust of `chatmd.toml`.
    config: tempfile::TempDir,
    /// The fake agent as `claude`, `codex` and `gemini`.
    bin: PathBuf,
    /// Where each turn's fake records its run and its child's pid.
    pub records: PathBuf,
}

impl Workspace {
    pub fn new() -> Workspace {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join(".git")).expect("git dir");
        let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        let bin = chatmd_tests::fake_agent::install(&fake, &dir.path().join(".bin"))
            .expect("install the fake");
        let records = dir.path().join("records");
        std::fs::create_dir_all(&records).expect("records folder");
        let config = tempfile::tempdir().expect("temp dir");
        let ws = Workspace {
            dir,
            config,
            bin,
            records,
        };
        ws.write("team/reviewer/CLAUDE.md", "# Reviews Rust code\n");
        ws.write("team/tester/AGENTS.md", "# Writes tests\n");
        ws.write("team/writer/GEMINI.md", "# Writes docs\n");
        let mut toml = String::new();
        for (member, _) in MEMBERS {
            toml.push_str(&format!(
                "[members.{member}]\nidle_timeout = {IDLE_TIMEOUT_SECS}\n\
                 [members.{member}.env]\nIS_SANDBOX = \"\"\nFAKE_AGENT_PROMPT_KNOBS = \"1\"\n"
            ));
        }
        ws.write("team/chatmd.toml", &toml);
        chatmd::team::UserConfig::with_config_home(ws.config.path())
            .trust_file(&ws.path("team/chatmd.toml"), toml.as_bytes())
            .expect("trust chatmd.toml");
        ws
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn uri(&self, rel: &str) -> String {
        file_uri(&self.path(rel))
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    /// Where the server's stderr goes.
    pub fn server_log(&self) -> PathBuf {
        self.path("server.log")
    }

    /// Starts `chatmd lsp` and initializes it like `behaviour`'s editor (VS Code with
    /// UTF-16 positions, Neovim with UTF-8); returns the editor and the server's pid.
    pub async fn server(&self, behaviour: Behaviour, timeout: Duration) -> (SimEditor, u32) {
        let log = std::fs::File::create(self.server_log()).expect("server log");
        let mut command = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("chatmd"));
        command
            .arg("lsp")
            .current_dir(self.dir.path())
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.config.path())
            .stderr(log);
        if let Ok(filter) = std::env::var("SOAK_RUST_LOG") {
            command.env("CHATMD_LOG", filter);
        }
        let (mut client, pid) = TestClient::spawn_process(command).expect("start chatmd lsp");
        client.set_timeout(timeout);
        let utf8 = behaviour == Behaviour::Neovim;
        initialize(&mut client, self.dir.path(), &self.bin, behaviour).await;
        (SimEditor::new(client, behaviour, utf8), pid)
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // Keep what a failure needs: the chats, the fakes' records, the server's log.
            self.dir.disable_cleanup(true);
            eprintln!(
                "the soak's workspace is kept in {}",
                self.dir.path().display()
            );
        }
    }
}

async fn initialize(client: &mut TestClient, root: &Path, bin: &Path, behaviour: Behaviour) {
    // VS Code offers UTF-16 positions only, Neovim UTF-8 too.
    let utf8 = behaviour == Behaviour::Neovim;
    chatmd_tests::sim_editor::initialize(client, behaviour, root, bin, utf8).await;
}
