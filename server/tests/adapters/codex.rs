//! What codex's transcripts must parse to.
//! Keyed by transcript name; a transcript without an entry fails the test.

use chatmd::agents::ToolStatus::{Completed, Failed, Started};

use super::{Outcome, Seen, failed_early, s, tool, usage};

const CODEX_THREAD: &str = "01a2007b-3fb0-7ff3-8fab-536458979726";

pub fn expected(name: &str) -> Seen {
    let shell = "Shell: echo hello-from-tool";
    let waiting = "Reconnecting... waiting for network (Connection failed: error sending request)";
    let no_rollout = "Error: thread/resume: thread/resume failed: no rollout found for thread id \
                      01a2007b-0000-7000-8000-000000000000 (code -32600)";
    match name {
        "tool-use" => Seen {
        session: s(CODEX_THREAD),
        model: None,
        text: "The command printed hello-from-tool.".into(),
        tools: vec![tool(shell, Started), tool(shell, Completed)],
        notices: vec![],
        outcome: Outcome::Done(None, usage(400, 40)),
    },
        // codex 0.171.0, three turns of one thread as recorded: `turn.completed.usage`
        // is the thread's running total (the mock billed 6726, 6757 and 6789 tokens in).
        "resume-total-usage-1" | "resume-total-usage-2" | "resume-total-usage-3" => {
            let turn: u64 = name[name.len() - 1..].parse().unwrap();
            let totals = [(6726, 10), (13483, 20), (20272, 30)];
            let (input, output) = totals[turn as usize - 1];
            Seen {
                session: s("01a24ac0-c3fd-76c2-8264-1ec756c1ba88"),
                model: None,
                text: format!(
                    "ANSWER-openai role_seen=no marker_count=0 roles=- team=0 turn=0 \
                     user_msgs={} assistant_msgs={} ask=ASK-R{turn} roster=0",
                    turn + 1,
                    turn - 1
                ),
                tools: vec![],
                notices: vec![],
                outcome: Outcome::Done(None, usage(input, output)),
            }
        }
        "resume" => Seen {
        session: s(CODEX_THREAD),
        model: None,
        text: "The command printed hello-from-tool.".into(),
        tools: vec![],
        notices: vec![],
        outcome: Outcome::Done(None, usage(600, 60)),
    },
        "api-error" => Seen {
        session: s("01a2007b-9250-7b32-a28f-eaa346ffc2d0"),
        model: None,
        text: String::new(),
        tools: vec![],
        notices: vec!["codex: invalid_request_error: mock upstream failure".into()],
        outcome: Outcome::Failed("invalid_request_error: mock upstream failure".into()),
    },
        "offline" => Seen {
        session: s("01a20076-c18d-7be3-b357-2bfafd752c01"),
        model: None,
        text: String::new(),
        tools: vec![],
        notices: vec![
            "retrying (2/5): stream disconnected before completion: failed to lookup address information: Name does not resolve".into(),
            "codex: Falling back from WebSockets to HTTPS transport. stream disconnected before completion: failed to lookup address information: Name does not resolve".into(),
            "retrying: waiting for network (Connection failed: error sending request)".into(),
        ],
        outcome: Outcome::Failed(waiting.into()),
    },
        "reconnect" => Seen {
        session: s("01a2007c-41d2-7a10-9c3e-5f0b1d2e3a4b"),
        model: None,
        text: "Back online: all tests pass.".into(),
        tools: vec![],
        notices: vec![
            "retrying (1/5): stream disconnected before completion: error sending request".into(),
            "retrying (2/5): stream disconnected before completion: error sending request".into(),
        ],
        outcome: Outcome::Done(None, usage(350, 25)),
    },
        "edit" => Seen {
        session: s("01a2007d-8e9f-7b60-a1c2-d3e4f5a6b7c8"),
        model: None,
        text: "I'll update the greeting.\n\nUpdated `src/main.rs`; one test still fails.".into(),
        tools: vec![
            tool("Edit: src/main.rs, README.md", Completed),
            tool("Shell: cargo test", Started),
            tool("Shell: cargo test", Failed),
        ],
        notices: vec![],
        outcome: Outcome::Done(None, usage(1200, 150)),
    },
        "resume-unknown" => Seen {
        notices: vec![format!("session not found: {no_rollout}")],
        ..failed_early(no_rollout)
    },
        // Recorded byte for byte: the read-only sandbox refused `touch`, and the stream
        // shows no item for it (nothing to report as a tool or a refusal).
        "sandbox-readonly" => Seen {
        session: s("01a20c1a-a88e-73a3-9cbe-97d7ceac6a18"),
        model: None,
        text: "ANSWER-openai role_seen=yes marker_count=1 roles=tester:1 team=1 turn=1 \
               user_msgs=2 assistant_msgs=0 ask=ASK-TOOLW3 tool_result=\"Chunk ID: ccdc63 Wall \
               time: 0.0000 seconds Process exited with code 1 Original token count: 15 Output: \
               touch: cannot touch 'tool-wrote.txt': Read-only file syst\""
            .into(),
        tools: vec![],
        notices: vec![],
        outcome: Outcome::Done(None, usage(19434, 76)),
    },
        other => panic!("no expectation for codex/{other}"),
    }
}
