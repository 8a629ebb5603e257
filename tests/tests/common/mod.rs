//! Shared setup for the LSP tests: a team folder on disk, fake CLIs on a private
//! search path, and a started, initialized server.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use chatmd_tests::{TestClient, file_uri};
use serde_json::{Value, json};

pub struct Workspace {
    pub dir: tempfile::TempDir,
    /// Holds fake agent CLIs; outside the workspace, as a user's PATH would be.
    pub bin: tempfile::TempDir,
    /// The user's config home (`XDG_CONFIG_HOME`): what the user trusts.
    pub config: tempfile::TempDir,
}

impl Workspace {
    /// A workspace with `team/` holding a claude reviewer, a codex tester and a gemini
    /// writer; only `claude` is "installed".
    pub fn new() -> Workspace {
        let dir = tempfile::tempdir().expect("temp dir");
        let bin = tempfile::tempdir().expect("temp dir");
        let config = tempfile::tempdir().expect("temp dir");
        let ws = Workspace { dir, bin, config };
        ws.write(
            "team/reviewer/CLAUDE.md",
            "# Reviews Rust code for correctness\n\nBe precise and brief.\n",
        );
        ws.write("team/tester/AGENTS.md", "# Writes property tests\n");
        ws.write("team/writer/GEMINI.md", "# Writes the docs\n");
        ws.install("claude", "2.1.197 (Claude Code)");
        ws
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
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

    /// Puts a fake CLI on the server's agent search path that prints `version`.
    pub fn install(&self, name: &str, version: &str) {
        use std::os::unix::fs::PermissionsExt;
        let path = self.bin.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\necho '{version}'\n")).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    /// The user's own config folder the servers of this workspace read.
    pub fn user_config(&self) -> chatmd::team::UserConfig {
        chatmd::team::UserConfig::with_config_home(self.config.path())
    }

    /// A server reading this workspace's user config, not yet initialized.
    pub fn spawn(&self) -> TestClient {
        let user = self.user_config();
        TestClient::spawn(move |input, output| {
            chatmd::lsp::serve_with_user_config(input, output, user)
        })
    }

    /// Starts the server and initializes it on this workspace.
    pub async fn start(&self, capabilities: Value) -> TestClient {
        let mut client = self.spawn();
        let params = json!({
            "processId": null,
            "capabilities": capabilities,
            "rootUri": file_uri(self.root()),
            "workspaceFolders": [{"uri": file_uri(self.root()), "name": "ws"}],
            "initializationOptions": {"agentPath": self.bin.path()},
        });
        client
            .request("initialize", params)
            .await
            .expect("initialize");
        client.notify("initialized", json!({})).await;
        client
    }
}

/// Client capabilities like VS Code's: UTF-16 only, dynamic file watchers.
pub fn vscode_like() -> Value {
    json!({
        "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}},
        "textDocument": {"publishDiagnostics": {"relatedInformation": true}},
        "window": {"workDoneProgress": true}
    })
}

/// Client capabilities like Neovim's: UTF-8 offered first.
pub fn neovim_like() -> Value {
    json!({
        "general": {"positionEncodings": ["utf-8", "utf-16", "utf-32"]},
        "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}
    })
}

pub use chatmd_tests::views::summarize;
