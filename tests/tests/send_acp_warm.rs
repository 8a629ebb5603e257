//! Warm ACP members within one `chatmd send` run (the fakes of `claude-agent-acp` and
//! `codex-acp`): a council's three rounds start each member's agent once (its review
//! is a new session on the same connection), and the run leaves none running when it
//! ends, nor when SIGTERM or SIGINT stops it during a round. Each fake logs its start
//! (`{"started": pid}`) and what it received in its own `acp.jsonl`.

use std::process::Stdio;
use std::time::{Duration, Instant};

use chatmd_tests::fake_agent::acp::{methods_received, started_pids};
use pretty_assertions::assert_eq;

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace, with three ACP members logging what they receive.
}

const HEAD: &str =
    "---\nrouting: council\nchair: writer\n---\n## @me\n@reviewer @tester which cache?\n";

impl Setup {
    /// A council of ACP members: the reviewer and the chair as claude-agent-acp, the
    /// tester as codex-acp; `tester_says` is the tester's answer (every round).
    fn new(tester_says: &str) -> Setup {
        let s = Setup(send_support::Workspace::new());
        let fake = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fake-agent"));
        chatmd_tests::fake_agent::install_acp(&fake, &s.bin).expect("install the ACP fakes");
        s.write("team/writer/CLAUDE.md", "# Decides\n");
        let mut toml = String::new();
        for (member, preset, says) in [
            ("reviewer", "claude", "An LRU cache."),
            ("tester", "codex", tester_says),
            ("writer", "claude", "Decision: Answer A."),
        ] {
            toml.push_str(&format!(
                "[members.{member}]\nagent = \"acp\"\npreset = \"{preset}\"\n\
                 [members.{member}.env]\nFAKE_ACP_LOG = \"{log}\"\nFAKE_AGENT_TEXT = \"{says}\"\n\
                 FAKE_AGENT_PROMPT_KNOBS = \"1\"\nIS_SANDBOX = \"1\"\n\
                 CLAUDE_CONFIG_DIR = \"{state}\"\nCODEX_HOME = \"{state}\"\n",
                log = s.log(member).display(),
                state = s.path(&format!("state/{member}")).display(),
            ));
        }
        s.write_trusted("team/chatmd.toml", &toml);
        for member in ["reviewer", "tester", "writer"] {
            std::fs::create_dir_all(s.path(&format!("state/{member}"))).unwrap();
        }
        s.write("team/c.chat.md", HEAD);
        s
    }

    fn log(&self, member: &str) -> std::path::PathBuf {
        self.path(&format!("{member}.acp.jsonl"))
    }

    /// The process ids each member's agent started with, in order.
    fn pids(&self, member: &str) -> Vec<u32> {
        started_pids(&self.log(member))
    }

    fn methods(&self, member: &str) -> Vec<String> {
        methods_received(&self.log(member))
    }
}

/// Whether process `pid` still runs (a zombie not yet reaped counts as ended).
fn running(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    !stat.is_empty() && !stat.contains(") Z")
}

/// The status comments cut to id, status and the council's round.
fn rounds(text: &str) -> String {
    let comment =
        regex::Regex::new(r"<!-- chatmd id=(t\d+) [^>]*?status=(\w+)[^>]*? council=(\w+)[^>]*-->")
            .unwrap();
    comment.replace_all(text, "<!-- $1 $2 $3 -->").into_owned()
}

#[test]
fn a_council_starts_each_members_agent_once_and_leaves_none() {
    let s = Setup::new("A TTL cache.");
    let out = s
        .command(&["team/c.chat.md"], &[])
        .output()
        .expect("run chatmd send");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        (out.status.code(), stderr.as_ref()),
        (
            Some(0),
            "@reviewer: done\n@tester: done\n@reviewer: done\n@tester: done\n@writer: done\n"
        )
    );
    let text = s.read("team/c.chat.md");
    assert_eq!(
        rounds(&text)
            .split("<!-- ")
            .skip(1)
            .map(|c| c.split(" -->").next().unwrap())
            .collect::<Vec<_>>(),
        [
            "t1 done answer",
            "t2 done answer",
            "t3 done review",
            "t4 done review",
            "t5 done decision"
        ]
    );
    // The review is a new session on the connection of the answer: one start, one
    // `initialize`.
    for member in ["reviewer", "tester"] {
        assert_eq!(s.pids(member).len(), 1, "@{member} started once");
        assert_eq!(
            s.methods(member),
            [
                "initialize",
                "session/new",
                "session/prompt",
                "session/new",
                "session/prompt"
            ],
            "@{member}"
        );
    }
    assert_eq!(s.pids("writer").len(), 1);
    for member in ["reviewer", "tester", "writer"] {
        let pid = s.pids(member)[0];
        assert!(
            !running(pid),
            "@{member}'s agent {pid} still runs after the run"
        );
    }
}

/// `chatmd send` on the council, stopped by `signal` while the reviews run (each
/// member's agent kept from its answer): the exit status and whether any agent is left.
fn stopped_during_the_reviews(signal: nix::sys::signal::Signal) {
    // The tester's answer slows down every review that quotes it (the fake reads the
    // prompt's last `fake-agent:` line): 20 s between chunks.
    let s = Setup::new("A TTL cache. fake-agent: FAKE_AGENT_DELAY_MS=20000");
    let mut child = s
        .command(&["team/c.chat.md"], &[])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chatmd send");
    let deadline = Instant::now() + Duration::from_secs(60);
    let reviewing = |member: &str| {
        s.methods(member)
            .iter()
            .filter(|m| *m == "session/prompt")
            .count()
            == 2
    };
    while !(reviewing("reviewer") && reviewing("tester")) {
        assert!(Instant::now() < deadline, "the reviews never started");
        assert!(
            child.try_wait().unwrap().is_none(),
            "chatmd send ended early"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let pids: Vec<u32> = ["reviewer", "tester"]
        .iter()
        .flat_map(|m| s.pids(m))
        .collect();
    assert_eq!(pids.len(), 2, "each member's agent started once: {pids:?}");
    assert!(pids.iter().all(|&pid| running(pid)));
    let chatmd = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::kill(chatmd, signal).unwrap();
    let out = child.wait_with_output().expect("chatmd send ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128 + signal as i32), "{stderr}");
    assert!(
        stderr.ends_with(&format!(
            "chatmd send: {}: the turns were cancelled\n@reviewer: done\n@tester: done\n@reviewer: cancelled\n@tester: cancelled\n",
            signal.as_str()
        )),
        "{stderr}"
    );
    for pid in pids {
        assert!(!running(pid), "agent {pid} still runs after {signal}");
    }
    assert!(
        s.pids("writer").is_empty(),
        "no decision after a cancelled round"
    );
}

#[test]
fn sigterm_during_a_round_leaves_no_agent() {
    stopped_during_the_reviews(nix::sys::signal::Signal::SIGTERM);
}

#[test]
fn sigint_during_a_round_leaves_no_agent() {
    stopped_during_the_reviews(nix::sys::signal::Signal::SIGINT);
}
