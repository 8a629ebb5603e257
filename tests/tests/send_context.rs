//! Context references through `chatmd send`: `#file:` (whole and a range) and `#diff`
//! land in a headless CLI's prompt as attachments at the end of `[CONTEXT]`, and in an
//! ACP agent's `session/prompt` as `resource` blocks; a missing file, a range past the
//! end and a path outside the workspace refuse the message before any agent runs, and
//! what lies outside is never read.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace (a real git repository here, for `#diff`), with `src/pay.rs`.
}

const PAY: &str = "fn pay() {}\nfn refund() {}\nfn fee() -> u32 { 2 }\n";

impl Setup {
    fn new() -> Setup {
        let s = Setup(send_support::Workspace::new());
        s.write("src/pay.rs", PAY);
        s
    }

    /// Makes the workspace a git repository with one commit of everything in it.
    fn commit_all(&self) {
        std::fs::remove_dir_all(self.path(".git")).unwrap();
        for args in [
            &["init", "-q"][..],
            &["add", "."],
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-q",
                "-m",
                "start",
            ],
        ] {
            let status = std::process::Command::new("git")
                .args(args)
                .current_dir(self.dir.path())
                .status()
                .unwrap();
            assert!(status.success(), "git {args:?}");
        }
    }

    /// `chatmd send CHAT`, recording what the fake received.
    fn send(&self, chat: &str) -> std::process::Output {
        self.command(
            &[chat],
            &[(
                "FAKE_AGENT_RECORD",
                self.path("runs.jsonl").to_str().unwrap(),
            )],
        )
        .output()
        .expect("run chatmd send")
    }

    /// Every run of the fake so far.
    fn runs(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path("runs.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn files_ranges_and_the_diff_end_a_headless_prompts_context() {
    let s = Setup::new();
    s.commit_all();
    // A change in the working tree since the commit, for #diff.
    s.write("src/pay.rs", &PAY.replace("2 }", "3 }"));
    s.write(
        "team/c.chat.md",
        "## @me\nearlier words\n\n## @me\n@reviewer why is #file:src/pay.rs:3 what #diff says? \
         Not `#file:src/nope.rs`.\n",
    );
    let out = s.send("team/c.chat.md");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let runs = s.runs();
    assert_eq!(runs.len(), 1);
    let prompt = runs[0]["prompt"].as_str().unwrap();
    let diff = "diff --git a/src/pay.rs b/src/pay.rs\n";
    let context = prompt.split("[CONTEXT]\n").nth(1).unwrap();
    let (context, message) = context.split_once("[MESSAGE]\n").unwrap();
    assert_eq!(
        message,
        "me: @reviewer why is #file:src/pay.rs:3 what #diff says? Not `#file:src/nope.rs`.\n"
    );
    let attached = context.split_once("me: earlier words\n").unwrap().1;
    assert!(
        attached.starts_with(
            "attached #file:src/pay.rs:3 (src/pay.rs, lines 3-3 of 3):\n```\nfn fee() -> u32 { 3 }\n```\n\
             attached #diff (the working tree's changes against HEAD, `git diff HEAD`):\n```\n"
        ),
        "{attached}"
    );
    assert!(attached.contains(diff), "{attached}");
    assert!(
        attached.contains("\n-fn fee() -> u32 { 2 }\n+fn fee() -> u32 { 3 }\n```\n"),
        "{attached}"
    );
}

#[test]
fn missing_files_ranges_past_the_end_and_paths_outside_refuse_the_message() {
    let s = Setup::new();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("secret.txt"), "TOP-SECRET\n").unwrap();
    let name = elsewhere.path().file_name().unwrap().to_str().unwrap();
    let up = format!("#file:../{name}/secret.txt");
    let absolute = format!("#file:{}", elsewhere.path().join("secret.txt").display());
    let outside = |r: &str| format!("`{}` is outside the workspace", &r[6..]);
    let cases = [
        (
            "#file:src/nope.rs".to_owned(),
            "`src/nope.rs` does not exist in the workspace".to_owned(),
        ),
        (
            "#file:src/pay.rs:2-9".to_owned(),
            "`src/pay.rs` has 3 lines; the range 2-9 goes past its end".to_owned(),
        ),
        (up.clone(), outside(&up)),
        (absolute.clone(), outside(&absolute)),
    ];
    for (reference, says) in cases {
        let chat = format!("## @me\n@reviewer read {reference}\n");
        s.write("team/bad.chat.md", &chat);
        let out = s.send("team/bad.chat.md");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!("chatmd send: error: @reviewer: {says}")),
            "{err}"
        );
        assert!(!err.contains("TOP-SECRET"), "{err}");
        // Nothing ran and nothing was written.
        assert_eq!(s.runs().len(), 0, "{reference}");
        assert_eq!(s.read("team/bad.chat.md"), chat);
    }
}

/// The ACP writer of `send_acp.rs`: the fake `gemini --acp`, logging what it receives.
fn acp_writer(s: &Setup) {
    let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
    chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
    s.write("team/writer/GEMINI.md", "# Writes docs\n");
    s.write_trusted(
        "team/chatmd.toml",
        &format!(
            "[members.writer]\nagent = \"acp\"\npreset = \"gemini\"\n\
             [members.writer.env]\nFAKE_ACP_LOG = \"{}\"\nGEMINI_CLI_HOME = \"{}\"\n",
            s.path("acp.jsonl").display(),
            s.path("state").display()
        ),
    );
}

#[test]
fn an_acp_agent_gets_resource_blocks_with_the_content() {
    let s = Setup::new();
    acp_writer(&s);
    s.write(
        "team/a.chat.md",
        "## @me\n@writer document #file:src/pay.rs:1-2 and #file:src/pay.rs\n",
    );
    let out = s.send("team/a.chat.md");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = chatmd_tests::fake_agent::acp::requests_received(&s.path("acp.jsonl"));
    let prompt = &requests
        .iter()
        .find(|(method, _)| method == "session/prompt")
        .expect("a prompt")
        .1["prompt"];
    let file = s.path("src/pay.rs").canonicalize().unwrap();
    let uri = format!("file://{}", file.display());
    assert_eq!(prompt.as_array().unwrap().len(), 3, "{prompt}");
    assert_eq!(
        prompt[1],
        json!({"type": "resource", "resource": {"uri": format!("{uri}#L1-2"),
            "text": "fn pay() {}\nfn refund() {}\n", "mimeType": "text/plain"}})
    );
    assert_eq!(
        prompt[2],
        json!({"type": "resource", "resource": {"uri": uri, "text": PAY, "mimeType": "text/plain"}})
    );
    // The text block is the prompt without the content: it is in the resources.
    let text = prompt[0]["text"].as_str().unwrap();
    assert!(!text.contains("fn refund"), "{text}");
    assert!(
        text.ends_with(
            "[MESSAGE]\nme: @writer document #file:src/pay.rs:1-2 and #file:src/pay.rs\n"
        ),
        "{text}"
    );
}

#[test]
fn the_diff_runs_no_program_the_repositorys_configuration_names() {
    let s = Setup::new();
    s.commit_all();
    s.write("src/pay.rs", &PAY.replace("2 }", "3 }"));
    // What an archive's `.git/config` can carry: an fsmonitor hook (git runs it to learn
    // what changed) and a clean filter that `.gitattributes` gives every `.rs` file.
    let marker = |name: &str| s.path(name).display().to_string();
    for (script, ran) in [
        ("fsmonitor.sh", "fsmonitor-ran"),
        ("filter.sh", "filter-ran"),
    ] {
        s.write(
            script,
            &format!("#!/bin/sh\ntouch '{}'\ncat\n", marker(ran)),
        );
        let path = s.path(script);
        let mut mode = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
        std::fs::set_permissions(&path, mode).unwrap();
    }
    let mut config = s.read(".git/config");
    config.push_str(&format!(
        "[core]\n\tfsmonitor = {}\n[filter \"evil\"]\n\tclean = {}\n\trequired = true\n",
        marker("fsmonitor.sh"),
        marker("filter.sh")
    ));
    s.write(".git/config", &config);
    s.write(".gitattributes", "*.rs filter=evil\n");
    s.write(
        "team/c.chat.md",
        "## @me\n@reviewer what does #diff change?\n",
    );
    let out = s.send("team/c.chat.md");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!s.path("fsmonitor-ran").exists(), "the fsmonitor hook ran");
    assert!(!s.path("filter-ran").exists(), "the clean filter ran");
    // The diff is still there, as the file reads.
    let prompt = s.runs()[0]["prompt"].as_str().unwrap().to_owned();
    assert!(
        prompt.contains("\n-fn fee() -> u32 { 2 }\n+fn fee() -> u32 { 3 }\n```\n"),
        "{prompt}"
    );
}
