//! An ACP member that needs a login, through `chatmd send`: the terminal says what to
//! run once (the agent's words, the login command), the status comment keeps it, and
//! nothing else prints it again.

use pretty_assertions::assert_eq;

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace, with an ACP writer (`gemini --acp`, the fake).
}

impl Setup {
    fn new() -> Setup {
        let s = Setup(send_support::Workspace::new());
        let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        s.write_trusted(
            "team/chatmd.toml",
            &format!(
                "[members.writer]\nagent = \"acp\"\npreset = \"gemini\"\n\n\
                 [members.writer.env]\nGEMINI_CLI_HOME = \"{}\"\n",
                s.path("state").display()
            ),
        );
        s
    }
}

const ADVICE: &str = "Gemini API key is missing or not configured. Run `gemini` once in a \
     terminal to log in (with GEMINI_CLI_HOME set to the member's `home` if it has one), or \
     export GEMINI_API_KEY before chatmd starts.";

#[test]
fn the_login_advice_is_printed_once() {
    let s = Setup::new();
    s.write("team/login.chat.md", "## @me\n@writer say hello\n");
    let out = s
        .command(&["team/login.chat.md"], &[("FAKE_ACP_NO_AUTH", "1")])
        .output()
        .expect("run chatmd send");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        format!("chatmd send: error: @writer: {ADVICE}\n@writer: error\n")
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(out.status.code(), Some(1));
    let text = s.read("team/login.chat.md");
    assert!(text.contains(&format!("error=\"{ADVICE}\"")), "{text}");
}
