//! ACP sessions through `chatmd send`: a member's `mode`, `model` and `options` applied
//! before the prompt (`session/set_config_option`, or `session/set_mode` for gemini),
//! a value the agent does not offer failing the turn before anything is sent, the
//! workspace root as an `additionalDirectories` root where the agent takes them, a
//! crashed agent resumed on the next turn, cancel while the answer streams, and a fork's
//! first turn branching the original's session off (`session/fork`).

use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace, with an ACP writer logging what it receives.
}

impl Setup {
    /// An ACP writer with the `preset` and more lines for its `[members.writer]`, in a
    /// trusted `chatmd.toml`, the fake installed under every ACP adapter's name and
    /// recording its runs in `runs.jsonl`.
    fn with(preset: &str, more: &str) -> Setup {
        let s = Setup(send_support::Workspace::new());
        let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
        s.write("team/writer/GEMINI.md", "# Writes docs\n");
        s.write_trusted(
            "team/chatmd.toml",
            &format!(
                "[members.writer]\nagent = \"acp\"\npreset = \"{preset}\"\n{more}\n\
                 [members.writer.env]\nFAKE_ACP_LOG = \"{log}\"\nFAKE_AGENT_RECORD = \"{runs}\"\n\
                 IS_SANDBOX = \"1\"\nCLAUDE_CONFIG_DIR = \"{state}\"\nGEMINI_CLI_HOME = \"{state}\"\n\
                 FAKE_AGENT_DELAY_MS = \"50\"\n",
                log = s.path("acp.jsonl").display(),
                runs = s.path("runs.jsonl").display(),
                state = s.path("state").display()
            ),
        );
        s
    }

    /// `chatmd send` of `text` as `team/c.chat.md`: its output and the chat after it.
    fn send(&self, text: &str) -> (std::process::Output, String) {
        self.write("team/c.chat.md", text);
        let out = self
            .command(&["team/c.chat.md"], &[])
            .output()
            .expect("run chatmd send");
        (out, self.read("team/c.chat.md"))
    }

    fn methods(&self) -> Vec<String> {
        chatmd_tests::fake_agent::acp::methods_received(&self.path("acp.jsonl"))
    }

    /// The params of every request `method` the agent received, in order.
    fn params(&self, method: &str) -> Vec<Value> {
        chatmd_tests::fake_agent::acp::requests_received(&self.path("acp.jsonl"))
            .into_iter()
            .filter(|(m, _)| m == method)
            .map(|(_, params)| params)
            .collect()
    }

    /// The pids of the agent's runs.
    fn pids(&self) -> Vec<i32> {
        std::fs::read_to_string(self.path("runs.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok()?["pid"].as_i64())
            .map(|pid| pid as i32)
            .collect()
    }

    /// Every run of the agent has ended (a zombie not yet reaped counts as ended).
    fn no_agent_left(&self) {
        for pid in self.pids() {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            assert!(
                stat.is_empty() || stat.contains(") Z"),
                "agent {pid} is still running"
            );
        }
    }
}

/// The `configId = value` pairs of the `session/set_config_option`s received.
fn config_set(s: &Setup) -> Vec<(String, Value)> {
    s.params("session/set_config_option")
        .into_iter()
        .map(|p| {
            (
                p["configId"].as_str().unwrap_or_default().to_owned(),
                p["value"].clone(),
            )
        })
        .collect()
}

/// The values of `keys` in a status comment (`-` for one it lacks).
fn fields(status: &str, keys: &[&str]) -> Vec<String> {
    keys.iter()
        .map(|key| {
            status
                .split(' ')
                .find_map(|f| f.strip_prefix(&format!("{key}=")))
                .unwrap_or("-")
                .to_owned()
        })
        .collect()
}

/// The status comment of the writer's `n`th answer (from 1).
fn status(text: &str, n: usize) -> String {
    text.lines()
        .filter(|l| l.starts_with("<!-- chatmd id="))
        .nth(n - 1)
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_members_mode_and_model_are_set_before_the_prompt() {
    let s = Setup::with(
        "claude",
        "mode = \"plan\"\nmodel = \"sonnet\"\n[members.writer.options]\neffort = \"high\"",
    );
    let (out, text) = s.send("## @me\n@writer plan it\n");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        s.methods(),
        [
            "initialize",
            "session/new",
            "session/set_config_option",
            "session/set_config_option",
            "session/set_config_option",
            "session/prompt",
        ]
    );
    assert_eq!(
        config_set(&s),
        [
            ("mode".to_owned(), json!("plan")),
            ("model".to_owned(), json!("sonnet")),
            ("effort".to_owned(), json!("high")),
        ]
    );
    let session = &s.params("session/prompt")[0]["sessionId"];
    assert!(
        s.params("session/set_config_option")
            .iter()
            .all(|p| &p["sessionId"] == session),
        "set on the session prompted"
    );
    let status = status(&text, 1);
    assert_eq!(
        fields(&status, &["status", "model", "mode"]),
        ["done", "sonnet", "plan"],
        "{status}"
    );
}

#[test]
fn a_value_in_force_is_not_sent_and_a_members_mode_overrides_the_presets() {
    // codex-acp starts in the preset's `workspace-write`: nothing to send for it.
    let s = Setup::with("codex", "mode = \"workspace-write\"");
    let (out, text) = s.send("## @me\n@writer go\n");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(s.methods(), ["initialize", "session/new", "session/prompt"]);
    assert_eq!(
        fields(&status(&text, 1), &["mode"]),
        ["workspace-write"],
        "{text}"
    );

    let s = Setup::with(
        "codex",
        "mode = \"read-only\"\nmodel = \"gpt-6-sol\"\n[members.writer.options]\ncollaboration_mode = \"plan\"",
    );
    let (out, text) = s.send("## @me\n@writer go\n");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        config_set(&s),
        [
            ("mode".to_owned(), json!("read-only")),
            ("model".to_owned(), json!("gpt-6-sol")),
            ("collaboration_mode".to_owned(), json!("plan")),
        ]
    );
    assert_eq!(
        fields(&status(&text, 1), &["model", "mode"]),
        ["gpt-6-sol", "read-only"],
        "{text}"
    );
}

#[test]
fn gemini_without_config_options_gets_set_mode() {
    let s = Setup::with("gemini", "mode = \"autoEdit\"");
    let (out, text) = s.send("## @me\n@writer go\n");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        s.methods(),
        [
            "initialize",
            "session/new",
            "session/set_mode",
            "session/prompt"
        ]
    );
    assert_eq!(s.params("session/set_mode")[0]["modeId"], "autoEdit");
    assert_eq!(
        fields(&status(&text, 1), &["model", "mode"]),
        ["auto", "autoEdit"],
        "{text}"
    );
}

#[test]
fn a_value_the_agent_does_not_offer_fails_the_turn_before_anything_is_sent() {
    let s = Setup::with("claude", "mode = \"yolo\"");
    let (out, text) = s.send("## @me\n@writer go\n");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let why = "mode = \"yolo\" is not offered by claude-agent-acp; its modes: auto, default, \
               acceptEdits, plan, dontAsk, bypassPermissions";
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(why), "{stderr}");
    let status = status(&text, 1);
    assert!(status.contains(" status=error "), "{text}");
    let written = format!(" error=\"{}\" -->", why.replace('"', "\\\""));
    assert!(status.ends_with(&written), "{status}");
    assert_eq!(
        s.methods(),
        ["initialize", "session/new"],
        "no setting, no prompt"
    );
    s.no_agent_left();

    // gemini has no way to change its model over ACP but the removed `set_model`.
    let s = Setup::with("gemini", "model = \"gemini-3.1-pro-preview-customtools\"");
    let (out, text) = s.send("## @me\n@writer go\n");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        text.contains("gemini offers no way to change its model over ACP"),
        "{text}"
    );
    assert_eq!(s.methods(), ["initialize", "session/new"]);
}

#[test]
fn the_workspace_root_is_an_additional_directory_where_the_agent_takes_them() {
    // claude-agent-acp advertises additionalDirectories; the writer works in team/writer.
    let s = Setup::with("claude", "");
    let (out, _) = s.send("## @me\n@writer go\n");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let new = &s.params("session/new")[0];
    assert_eq!(new["additionalDirectories"], json!([s_root(&s)]), "{new}");

    // gemini does not advertise them.
    let s = Setup::with("gemini", "");
    let (out, _) = s.send("## @me\n@writer go\n");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        s.params("session/new")[0].get("additionalDirectories"),
        None
    );

    // A member working in the workspace root needs no more roots.
    let s = Setup::with("codex", "workdir = \"..\"");
    let (out, _) = s.send("## @me\n@writer go\n");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let new = &s.params("session/new")[0];
    assert_eq!(new["cwd"], json!(s_root(&s)));
    assert_eq!(new.get("additionalDirectories"), None, "{new}");
}

/// The workspace root as chatmd sends it.
fn s_root(s: &Setup) -> String {
    std::fs::canonicalize(s.dir.path())
        .unwrap()
        .display()
        .to_string()
}

#[test]
fn a_crashed_agent_is_started_again_on_the_next_turn_and_resumes_its_session() {
    let s = Setup::with("claude", "resume = true\nmode = \"acceptEdits\"");
    let (out, text) = s.send("## @me\n@writer MOCK-MODE=crash go\n");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let first = status(&text, 1);
    assert!(first.contains(" status=error "), "{text}");
    assert!(
        text.contains("the agent crashed in the middle of the prompt"),
        "the agent's own words: {text}"
    );
    let session = first
        .split(' ')
        .find_map(|f| f.strip_prefix("session="))
        .expect("the session is in the status")
        .to_owned();

    let (out, text) = s.send(&format!("{text}@writer and now?\n"));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        s.methods(),
        [
            "initialize",
            "session/new",
            "session/set_config_option",
            "session/prompt",
            "initialize",
            "session/resume",
            "session/set_config_option",
            "session/prompt",
        ]
    );
    assert_eq!(s.params("session/resume")[0]["sessionId"], json!(session));
    let second = status(&text, 2);
    assert!(second.contains(&format!(" session={session} ")), "{second}");
    assert!(second.contains(" status=done "), "{second}");
    assert!(second.contains(" mode=acceptEdits "), "{second}");
    assert_eq!(s.pids().len(), 2, "one process per turn");
    s.no_agent_left();
}

#[test]
fn ctrl_c_while_the_answer_streams_cancels_the_session_and_leaves_no_process() {
    let s = Setup::with("claude", "");
    s.write("team/c.chat.md", "## @me\n@writer MOCK-MODE=slow go\n");
    let child = s.command(&["team/c.chat.md"], &[]).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !s.read("team/c.chat.md").contains("SLOW-CHUNK-01") {
        assert!(Instant::now() < deadline, "the answer never streamed");
        std::thread::sleep(Duration::from_millis(5));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    assert_eq!(
        s.methods(),
        [
            "initialize",
            "session/new",
            "session/prompt",
            "session/cancel"
        ]
    );
    let text = s.read("team/c.chat.md");
    let status = status(&text, 1);
    assert!(status.contains(" status=cancelled "), "{text}");
    // The agent ended its turn its own way, within the grace: the stop reason is its.
    assert!(status.contains(" stop=cancelled "), "{status}");
    assert!(!text.contains("SLOW-CHUNK-40"), "{text}");
    s.no_agent_left();
}

#[test]
fn a_forks_first_turn_branches_the_original_session_off() {
    let s = Setup::with("claude", "resume = true");
    let (out, text) = s.send("## @me\n@writer first\n");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let session = fields(&status(&text, 1), &["session"]).remove(0);
    // The fork, as Fork from here writes it at the answer, with a new message.
    let answer_end = text.rfind("## @me\n").expect("the reply stub");
    let fork = format!(
        "---\nforked_from: c.chat.md\n---\n{}## @me\n@writer second\n",
        &text[..answer_end]
    );
    s.write("team/f.chat.md", &fork);
    let out = s
        .command(&["team/f.chat.md"], &[])
        .output()
        .expect("run chatmd send");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let forked = s.params("session/fork");
    assert_eq!(forked.len(), 1, "{:?}", s.methods());
    assert_eq!(forked[0]["sessionId"], json!(session));
    let text = s.read("team/f.chat.md");
    let second = status(&text, 2);
    assert!(second.contains(" status=done "), "{second}");
    assert!(
        !second.contains(&session),
        "a session of the fork's own: {second}"
    );
    s.no_agent_left();
}

/// The text blocks of the `n`th `session/prompt` the agent received, joined.
fn prompt_text(s: &Setup, n: usize) -> String {
    s.params("session/prompt")[n]["prompt"]
        .as_array()
        .expect("prompt blocks")
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

#[test]
fn a_resumed_session_gets_the_team_instruction_once_and_an_edited_one_once_more() {
    let s = Setup::with("claude", "resume = true");
    s.write("team/team_instruction.md", "RULE-ONE: cite files.\n");
    let (out, text) = s.send("## @me\n@writer first\n");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let (out, text) = s.send(&format!("{text}@writer second\n"));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    s.write("team/team_instruction.md", "RULE-TWO: cite lines.\n");
    let (out, text) = s.send(&format!("{text}@writer third\n"));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let (out, _) = s.send(&format!("{text}@writer fourth\n"));
    assert_eq!(out.status.code(), Some(0), "{out:?}");

    let count = |n: usize, needle: &str| prompt_text(&s, n).matches(needle).count();
    let roster = "You are @writer in a team chat";
    // A new session: the instruction and the roster line once.
    assert_eq!((count(0, "RULE-ONE"), count(0, roster)), (1, 1));
    // Resumed, holding them: neither again.
    assert_eq!((count(1, "RULE-ONE"), count(1, roster)), (0, 0));
    assert!(
        prompt_text(&s, 1).contains("second"),
        "{}",
        prompt_text(&s, 1)
    );
    // The edited instruction, once, with the roster line; then held.
    assert_eq!(
        (count(2, "RULE-TWO"), count(2, "RULE-ONE"), count(2, roster)),
        (1, 0, 1)
    );
    assert_eq!((count(3, "RULE-TWO"), count(3, roster)), (0, 0));
    assert_eq!(
        s.params("session/resume").len(),
        3,
        "every later turn resumed"
    );
}

/// Three resumed turns of a claude-agent-acp writer impersonating `version`: the chat
/// as it ends.
fn three_acp_turns(version: &str) -> (Setup, String) {
    three_acp_turns_with(&[("FAKE_AGENT_VERSION", version)])
}

fn three_acp_turns_with(env: &[(&str, &str)]) -> (Setup, String) {
    let version = env[0].1;
    let s = Setup::with("claude", "resume = true");
    let mut text = "## @me\n".to_owned();
    for turn in ["first", "second question", "third and last question"] {
        s.write("team/c.chat.md", &format!("{text}@writer {turn}\n"));
        let out = s
            .command(&["team/c.chat.md"], env)
            .output()
            .expect("run chatmd send");
        assert_eq!(out.status.code(), Some(0), "{version}: {out:?}");
        text = s.read("team/c.chat.md");
    }
    (s, text)
}

#[test]
fn a_claude_adapter_slow_to_exit_keeps_its_sessions_cost() {
    // claude-agent-acp 0.101 writes the session's cost record as it exits, after stdin
    // closes: over 2 s on a busy machine. Killed before, the next process restores the
    // older cost, and the turns' shares came out 0.0209, 0, 0.0001 USD in the matrix.
    let (s, text) = three_acp_turns_with(&[
        ("FAKE_AGENT_VERSION", "0.101.0"),
        ("FAKE_ACP_LINGER_MS", "2500"),
    ]);
    let (_, quick_text) = three_acp_turns("0.101.0");
    for (turn, (slow, quick)) in costs(&text).into_iter().zip(costs(&quick_text)).enumerate() {
        assert!(
            near(slow.0, quick.0, 1),
            "turn {turn}: {text}\n{quick_text}"
        );
        assert!(
            near(slow.1, quick.1, 1),
            "turn {turn}: {text}\n{quick_text}"
        );
    }
    drop(s);
}

#[test]
fn the_claude_code_under_the_adapter_writes_the_sessions_cost_after_the_adapter_exited() {
    // claude-agent-acp exits before the Claude Code it started has written the session's
    // cost record; the agent guard killed what was left of the group at once, and the
    // next turn restored the older cost.
    let (s, text) = three_acp_turns_with(&[
        ("FAKE_AGENT_VERSION", "0.101.0"),
        ("FAKE_ACP_SAVE_LATE_MS", "400"),
    ]);
    let (_, quick_text) = three_acp_turns("0.101.0");
    assert_eq!(costs(&text), costs(&quick_text), "{text}\n{quick_text}");
    s.no_agent_left();
}

/// Each answer's `cost=` and `session-cost=` (the same where it has none), in
/// millionths.
fn costs(text: &str) -> Vec<(u64, u64)> {
    let micros = |field: &str| -> u64 {
        let dollars: f64 = field
            .trim_matches('"')
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        (dollars * 1e6).round() as u64
    };
    (1..=3)
        .map(|n| {
            let status = status(text, n);
            let field = |key: &str| {
                let start = status.find(&format!(" {key}=\""))? + key.len() + 2;
                Some(micros(
                    &status[start..start + status[start..].find(" USD\"").unwrap() + 5],
                ))
            };
            let cost = field("cost").expect("cost=");
            // The first answer's share is the session's whole cost: no second field.
            (cost, field("session-cost").unwrap_or(cost))
        })
        .collect()
}

/// Amounts are written to 4 decimals: a share taken of a rounded total may differ
/// from the rounded share by one in the last place.
const LAST_PLACE: u64 = 100;

fn near(a: u64, b: u64, places: u64) -> bool {
    a.abs_diff(b) <= places * LAST_PLACE
}

#[test]
fn each_acp_turn_records_its_own_cost_whether_the_adapter_counts_per_process_or_per_session() {
    // 0.49 reports what its process spent (each turn's own, a process each); 0.101
    // what the session has cost over every process (agents/acp/costs.rs).
    let (old, old_text) = three_acp_turns("0.49.0");
    let (new, new_text) = three_acp_turns("0.101.0");
    for (s, text) in [(&old, &old_text), (&new, &new_text)] {
        let turns = costs(text);
        let mut so_far = 0;
        for (turn, ((cost, session), (old_cost, _))) in
            turns.iter().zip(costs(&old_text)).enumerate()
        {
            // About 20k tokens each: 0.1 USD at the fake's prices, not the session's.
            assert!(near(*cost, 100_000, 5), "turn {turn}: {text}");
            assert!(near(*cost, old_cost, 1), "turn {turn}: {text}\n{old_text}");
            so_far += cost;
            assert!(near(*session, so_far, 1), "turn {turn}: {text}");
        }
        let out = s
            .chatmd(&["members", "--usage", "team/c.chat.md"])
            .output()
            .unwrap();
        let table = String::from_utf8_lossy(&out.stdout).into_owned();
        let writer = table.lines().find(|l| l.starts_with("@writer ")).unwrap();
        let dollars: f64 = writer
            .split_whitespace()
            .find_map(|w| w.parse::<f64>().ok().filter(|d| d.fract() != 0.0))
            .unwrap_or_else(|| panic!("{table}"));
        assert!(near((dollars * 1e6).round() as u64, so_far, 3), "{table}");
    }
}
