//! A member's MCP servers (`[members.X.mcp_servers]` in `chatmd.toml`) under `chatmd
//! send`, with the fake `gemini --acp` (`MOCK-MODE=mcp`: its answer names the servers
//! its session request carried): none reach the agent while the file is not trusted,
//! and `chatmd members` says so; once the user trusts it, stdio and http servers reach
//! `session/new` in the schema's shape, and `chatmd members` lists them.

use pretty_assertions::assert_eq;

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace, with an ACP writer whose MCP servers are configured.
}

const TEAM: &str = "[members.writer]\nagent = \"acp\"\npreset = \"gemini\"\n\n\
                    [members.writer.mcp_servers.files]\ncommand = \"./bin/mcp-files\"\n\
                    args = [\"--root\", \".\"]\nenv = { TOKEN = \"s3cret\" }\n\n\
                    [members.writer.mcp_servers.docs]\nurl = \"https://example.com/mcp\"\n\
                    headers = { Authorization = \"Bearer x\" }\n";

const ASK: &str = "## @me\n@writer MOCK-MODE=mcp which servers?\n";

impl Setup {
    fn new() -> Setup {
        let s = Setup(send_support::Workspace::new());
        let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        s
    }

    /// `chatmd send` on the chat (asked afresh); returns the writer's answer line.
    fn servers_received(&self) -> String {
        self.write("team/a.chat.md", ASK);
        let out = self
            .command(&["team/a.chat.md"], &[])
            .output()
            .expect("run chatmd send");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let text = self.read("team/a.chat.md");
        let line = text
            .lines()
            .find(|l| l.starts_with("ANSWER-gemini"))
            .unwrap_or_else(|| panic!("no answer: {text}"));
        line.split_once(" tool_result=")
            .map(|(_, result)| result.to_owned())
            .unwrap_or_default()
    }

    fn members(&self) -> String {
        let out = self
            .chatmd(&["members", "team"])
            .output()
            .expect("run chatmd members");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        String::from_utf8(out.stdout).expect("utf-8")
    }
}

#[test]
fn mcp_servers_reach_the_session_only_once_the_file_is_trusted() {
    let s = Setup::new();
    s.write("team/chatmd.toml", TEAM);
    assert_eq!(s.servers_received(), "\"mcp=\"");
    let members = s.members();
    assert!(
        members.contains(&format!(
            "`mcp_servers` are not passed to @writer's agent until you trust this file: \
             @writer's agent would run these programs and send its tools' calls to these \
             servers. @writer runs without them until then; review the file, then run \
             `chatmd trust {}` or use the quick fix \"Trust this chatmd.toml…\"",
            s.path("team/chatmd.toml").display()
        )),
        "{members}"
    );
    assert!(!members.contains("MCP servers:"), "{members}");

    s.write_trusted("team/chatmd.toml", TEAM);
    assert_eq!(
        s.servers_received(),
        format!(
            "\"mcp=docs http https://example.com/mcp headers Authorization=Bearer x; files \
             stdio {} --root . env TOKEN=s3cret\"",
            s.path("team/bin/mcp-files").display()
        )
    );
    let members = s.members();
    assert!(
        members.contains(&format!(
            "MCP servers:\n  writer    docs (http): https://example.com/mcp (headers \
             Authorization)\n  writer    files (stdio): {} --root . (env TOKEN)\n",
            s.path("team/bin/mcp-files").display()
        )),
        "{members}"
    );
    assert!(
        !members.contains("s3cret"),
        "values may be secrets: {members}"
    );
}
