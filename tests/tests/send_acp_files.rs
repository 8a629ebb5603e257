//! An ACP agent's reads and writes through `chatmd send` (issue 31): with no editor a
//! read sees the disk and a write lands on the disk atomically; the member's section
//! lists the file it changed with the diff folded under it; a write outside the
//! workspace is refused with an error the agent receives.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace, with an ACP writer (the fake claude-agent-acp) logging what
    /// it receives.
}

impl Setup {
    fn new() -> Setup {
        let s = Setup(send_support::Workspace::new());
        let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
        s.write("team/writer/CLAUDE.md", "# Writes code\n");
        let log = s.path("acp.jsonl");
        s.write_trusted(
            "team/chatmd.toml",
            &format!(
                "[members.writer]\nagent = \"acp\"\npreset = \"claude\"\n\
                 [members.writer.env]\nFAKE_ACP_LOG = \"{}\"\nIS_SANDBOX = \"1\"\n\
                 CLAUDE_CONFIG_DIR = \"{}\"\nFAKE_ACP_CLAUDE_START_MODE = \"bypassPermissions\"\n",
                log.display(),
                s.path("state").display()
            ),
        );
        s
    }

    /// Runs `chatmd send` on the chat `text` and returns the chat afterwards, its
    /// status comments' times and session ids cut.
    fn send(&self, text: &str) -> String {
        self.write("team/files.chat.md", text);
        let out = self
            .command(&["team/files.chat.md"], &[])
            .output()
            .expect("run chatmd send");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let comments = regex::Regex::new(r"<!-- chatmd id=t1 [^\n]*-->").unwrap();
        comments
            .replace_all(&self.read("team/files.chat.md"), "<!-- t1 -->")
            .into_owned()
    }

    fn answers(&self) -> Vec<Value> {
        chatmd_tests::fake_agent::acp::other_answers_received(&self.path("acp.jsonl"))
    }
}

#[test]
fn a_write_lands_on_disk_and_the_section_lists_the_file_with_its_diff() {
    let s = Setup::new();
    s.write("team/writer/pay.rs", "fn pay() {}\n// total\n");
    let text = s.send("## @me\n@writer MOCK-MODE=writefile WRITE=pay.rs fix it\n");
    assert_eq!(s.read("team/writer/pay.rs"), "FN PAY() {}\n// total\n");
    let path = s.path("team/writer/pay.rs");
    assert_eq!(
        s.answers(),
        [json!({"content": "fn pay() {}\n// total\n"}), json!({})],
        "the read saw the disk, the write was answered"
    );
    let answer = format!("tool_result=\"wrote {}\"", path.display());
    let expected_line = "> - changed `team/writer/pay.rs` (+1 \u{2212}1)\n\n\
        <details><summary>Diff of `team/writer/pay.rs`</summary>\n\n\
        ```diff\n--- a/team/writer/pay.rs\n+++ b/team/writer/pay.rs\n\
        @@ -1,2 +1,2 @@\n-fn pay() {}\n+FN PAY() {}\n // total\n```\n\n</details>\n\n";
    assert_eq!(
        text,
        format!(
            "## @me\n@writer MOCK-MODE=writefile WRITE=pay.rs fix it\n\n## @writer\n<!-- t1 -->\n\
             {expected_line}ANSWER-anthropic role_seen=no marker_count=0 roles=none team=0 turn=1 \
             user_msgs=1 assistant_msgs=0 ask=- {answer}\n\n## @me\n"
        )
    );
    assert!(!s.path("team/writer/.pay.rs.chatmd").exists());
}

#[test]
fn a_read_sees_the_disk_and_a_missing_file_is_created() {
    let s = Setup::new();
    let text = s.send("## @me\n@writer MOCK-MODE=writefile WRITE=src/new.txt make it\n");
    assert_eq!(
        s.read("team/writer/src/new.txt"),
        "created by the fake agent\n"
    );
    let missing = s.answers();
    assert_eq!(missing[0]["error"]["code"], json!(-32002), "{missing:?}");
    assert_eq!(missing[1], json!({}));
    assert!(
        text.contains("> - created `team/writer/src/new.txt` (+1 \u{2212}0)\n\n"),
        "{text}"
    );
}

#[test]
fn a_write_outside_the_workspace_is_refused_and_the_agent_hears_why() {
    let s = Setup::new();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("evil.txt");
    std::fs::write(&target, "keep\n").unwrap();
    let text = s.send(&format!(
        "## @me\n@writer MOCK-MODE=writefile WRITE-ABS={} go\n",
        target.display()
    ));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep\n");
    let answers = s.answers();
    let message = format!(
        "chatmd refused to write {}: it is outside the workspace ({}); only files in the \
         workspace or the member's own folder are written",
        target.display(),
        s.dir.path().display()
    );
    assert_eq!(
        answers[1],
        json!({"error": {"code": -32603, "message": message}})
    );
    assert!(
        text.contains(&format!("tool_result=\"error -32603: {message}\"")),
        "{text}"
    );
    assert!(!text.contains("> - changed"), "{text}");
}
