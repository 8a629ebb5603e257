//! What claude's transcripts must parse to.
//! Keyed by transcript name; a transcript without an entry fails the test.

use chatmd::agents::ToolStatus::{Completed, Failed, Started};

use super::{Outcome, Seen, failed_early, s, tool, usage};

const CLAUDE_SESSION: &str = "ba6318a6-8ff6-4537-9fb3-78cdd30bb441";
const CLAUDE_MODEL: &str = "claude-opus-4-8";
const CLAUDE_LOGIN: &str = "Log in with `claude /login` in a terminal (with CLAUDE_CONFIG_DIR \
    set to the member's `home` if it has one), or export ANTHROPIC_API_KEY before chatmd starts.";

pub fn expected(name: &str) -> Seen {
    let bash = "Bash: echo hello-from-tool";
    let task = "Task: Find the answer in the repo";
    let unknown = "No conversation found with session ID: 0f1e2d3c-4b5a-4697-8877-665544332211";
    match name {
        "tool-use" => Seen {
            session: s(CLAUDE_SESSION),
            model: s(CLAUDE_MODEL),
            text: "I'll run a command.\n\nThe command printed `hello-from-tool`.".into(),
            tools: vec![tool(bash, Started), tool(bash, Completed)],
            notices: vec![],
            outcome: Outcome::Done(s("end_turn"), usage(240, 42)),
        },
        "streaming" => Seen {
            session: s("fe97cd3b-2d4e-4f6a-8b1c-9e0d1f2a3b4c"),
            model: s(CLAUDE_MODEL),
            text: "Here is the fix:\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n\
               Run `cargo run` to see it — done ✓"
                .into(),
            tools: vec![],
            notices: vec![],
            outcome: Outcome::Done(s("end_turn"), usage(150, 48)),
        },
        "not-logged-in" => Seen {
            session: s("4ccb42ca-5f1e-4d2b-a0c3-6e7f8a9b0c1d"),
            model: s(CLAUDE_MODEL),
            text: String::new(),
            tools: vec![],
            notices: vec![],
            outcome: Outcome::Failed(format!("Not logged in · Please run /login. {CLAUDE_LOGIN}")),
        },
        "api-error" => Seen {
            session: s("e7676508-1a2b-4c3d-8e4f-5a6b7c8d9e0f"),
            model: s(CLAUDE_MODEL),
            text: String::new(),
            tools: vec![],
            notices: vec![],
            outcome: Outcome::Failed("API Error: 400 mock upstream failure".into()),
        },
        "retry" => Seen {
            session: s("3b9d2f60-7a1e-4c8b-b5d4-2e6f0a9c8d17"),
            model: s(CLAUDE_MODEL),
            text: "Third time lucky.".into(),
            tools: vec![],
            notices: vec![
                "retrying (1/10): 529 Overloaded".into(),
                "retrying (2/10): 529 Overloaded".into(),
            ],
            outcome: Outcome::Done(s("end_turn"), usage(90, 6)),
        },
        // Claude Code 2.1.332, three turns of one session as recorded: `usage` is the
        // turn's own (what the mock billed), `total_cost_usd` the session's so far.
        "resume-total-cost-1" | "resume-total-cost-2" | "resume-total-cost-3" => {
            let turn: u64 = name[name.len() - 1..].parse().unwrap();
            Seen {
                session: s("1fcd9203-506a-40be-82fd-952069bba97c"),
                model: s("claude-opus-5-5"),
                text: format!(
                    "ANSWER-anthropic role_seen=no marker_count=0 roles=- team=0 turn=0 \
                     user_msgs={turn} assistant_msgs={} ask=ASK-R{turn} roster=0",
                    turn - 1
                ),
                tools: vec![],
                notices: vec![],
                outcome: Outcome::Done(
                    s("end_turn"),
                    usage([4252, 4284, 4316][turn as usize - 1], 10),
                ),
            }
        }
        "resume" => Seen {
            session: s(CLAUDE_SESSION),
            model: s(CLAUDE_MODEL),
            text: "You asked me to run `echo hello-from-tool`; it printed hello-from-tool.".into(),
            tools: vec![],
            notices: vec![],
            outcome: Outcome::Done(s("end_turn"), usage(360, 20)),
        },
        "resume-unknown" => Seen {
            notices: vec![
                format!("session not found: {unknown}"),
                format!("claude printed a line that is not a JSON event: {unknown}"),
            ],
            ..failed_early(unknown)
        },
        "max-turns" => Seen {
            session: s("8e4f0b52-1c3d-4e6f-9a7b-2c3d4e5f6a71"),
            model: s(CLAUDE_MODEL),
            text: "Starting on it.".into(),
            tools: vec![tool("Bash: ls", Started), tool("Bash: ls", Completed)],
            notices: vec![],
            outcome: Outcome::Failed("claude reached its turn limit (--max-turns)".into()),
        },
        "subagent" => Seen {
            session: s("7d3e9a41-0b2c-4d5e-8f6a-1b2c3d4e5f60"),
            model: s(CLAUDE_MODEL),
            text: "Let me delegate that.\n\nThe sub-agent found 42.".into(),
            tools: vec![tool(task, Started), tool(task, Completed)],
            notices: vec![],
            outcome: Outcome::Done(s("end_turn"), usage(800, 90)),
        },
        // The real 401 run: the first retry notice ends the turn, with how to log in.
        "auth-401" => Seen {
            session: s("f43a1f36-1692-4528-8703-a0ccbacb9940"),
            model: s(CLAUDE_MODEL),
            text: String::new(),
            tools: vec![],
            notices: vec![],
            outcome: Outcome::Failed(format!(
                "API error 401 authentication_failed. {CLAUDE_LOGIN}"
            )),
        },
        "denied" => Seen {
            session: s("f818ee01-f9be-41cb-9c88-10e8bd42db65"),
            model: s(CLAUDE_MODEL),
            text: "I'll run a command.\n\nI could not create the files: both the `touch` and the \
               write need approval."
                .into(),
            tools: vec![
                tool("Bash: touch tool-wrote.txt", Started),
                tool("Bash: touch tool-wrote.txt", Failed),
                tool("Write: /home/dev/work/src/x.rs", Started),
                tool("Write: /home/dev/work/src/x.rs", Failed),
            ],
            notices: vec![
                "not allowed: Bash: touch tool-wrote.txt".into(),
                "not allowed: Write: /home/dev/work/src/x.rs".into(),
                "allow with: --allowedTools Bash(touch:*) Write".into(),
            ],
            outcome: Outcome::Done(s("end_turn"), usage(57599, 48)),
        },
        other => panic!("no expectation for claude/{other}"),
    }
}
