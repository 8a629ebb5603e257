//! What gemini's transcripts must parse to, early exits included.
//! Keyed by transcript name; a transcript without an entry fails the test.

use chatmd::agents::ToolStatus::{Completed, Failed, Started};

use super::{Outcome, Seen, failed_early, s, tool, usage};

const GEMINI_SESSION: &str = "9cb17075-5b94-485f-8363-bc25f5176e5c";

pub fn expected(name: &str) -> Seen {
    let shell = "run_shell_command: echo hello-from-tool";
    match name {
        "tool-use" => Seen {
            session: s(GEMINI_SESSION),
            // stats.models: the router (flash-lite) and the model that answered.
            model: s("gemini-3.1-pro-preview"),
            text: "I'll run a command.\n\nThe command printed hello-from-tool.".into(),
            tools: vec![tool(shell, Started), tool(shell, Completed)],
            notices: vec![],
            outcome: Outcome::Done(None, usage(300, 30)),
        },
        "streaming" => Seen {
            session: s("5a1c7e02-9d3b-4f6e-a8c1-0b2d4f6a8c0e"),
            model: s("gemini-3.1-pro-preview"),
            text: "Here is the fix:\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n\
               Run `cargo run` to see it — done ✓"
                .into(),
            tools: vec![],
            notices: vec![],
            outcome: Outcome::Done(None, usage(140, 40)),
        },
        "api-error" => Seen {
            session: s("cabdc174-cc03-442c-b570-04489c5ac0bb"),
            model: s("auto"),
            text: String::new(),
            tools: vec![],
            notices: vec![],
            outcome: Outcome::Failed(
                "[API Error: 400 INVALID_ARGUMENT: mock upstream failure]".into(),
            ),
        },
        "resume" => Seen {
            session: s(GEMINI_SESSION),
            model: s("gemini-3.1-pro-preview"),
            text: "I ran `echo hello-from-tool`; it printed hello-from-tool.".into(),
            tools: vec![],
            notices: vec![],
            outcome: Outcome::Done(None, usage(480, 40)),
        },
        "warning" => Seen {
            session: s("6b2d8f13-ae4c-4071-b9d2-1c3e5f7a9b0d"),
            model: s("gemini-3.1-pro-preview"),
            text: "Trying again.".into(),
            tools: vec![],
            notices: vec!["gemini: Loop detected, stopping execution".into()],
            outcome: Outcome::Done(None, usage(60, 15)),
        },
        // Recorded runs (shared/reference/recorded/gemini), byte for byte.
        "routed" => Seen {
            session: s("c232f6af-2b82-4f83-8826-5d58515e53bd"),
            model: s("gemini-3.1-pro-preview"),
            text: "ANSWER-gemini role_seen=yes marker_count=1 roles=writer:1 team=0 turn=1 \
                   user_msgs=1 assistant_msgs=0 ask=ASK-THREE"
                .into(),
            tools: vec![],
            notices: vec![],
            outcome: Outcome::Done(None, usage(10958, 33)),
        },
        "tool-not-found" => Seen {
            session: s("b9058b61-8f4a-48bd-8516-c1c93919a210"),
            model: s("gemini-3.8-flash"),
            text: "I'll run a command.\n\nANSWER-gemini role_seen=yes marker_count=1 \
                   roles=writer:1 team=0 turn=1 user_msgs=1 assistant_msgs=1 ask=ASK-T3 \
                   tool_result=\"{'error': 'Tool \\'run_shell_command\\' not found. Did you mean \
                   one of: \\'update_topic\\', \\'grep_search\\', \\'invoke_agent\\'?'}\""
                .into(),
            tools: vec![
                tool("run_shell_command: echo hi", Started),
                tool("run_shell_command: echo hi", Failed),
            ],
            notices: vec![],
            outcome: Outcome::Done(None, usage(21138, 71)),
        },
        // The early exits print no JSON: the message names the problem and what to do.
        "no-auth" => failed_early(
            "gemini cannot log in (exit 41): Please set an Auth method in your \
             /home/dev/.gemini/settings.json or specify one of the following environment \
             variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, \
             GOOGLE_GENAI_USE_GCA. Run `gemini` once in a terminal to log in (with GEMINI_CLI_HOME set to the member's `home` if it has one), or export GEMINI_API_KEY before chatmd starts.",
        ),
        "session-clash" => failed_early(
            "gemini rejected its input (exit 42): Error starting session: Session ID \
             \"9cb17075-5b94-485f-8363-bc25f5176e5c\" already exists. Use --resume to resume it, \
             or provide a different ID. If it is about the session to resume, that session is \
             gone and the next turn must start a new one; otherwise check the member's `args`.",
        ),
        // A session to resume that gemini cannot find: reported as such, so the turn
        // runs again as a new session (the failure below is then not shown).
        "resume-unknown" => Seen {
            notices: vec![
                "session not found: Error resuming session: Invalid session identifier \
                 \"5f0c7a2e-1b3d-4e5f-8a9b-0c1d2e3f4a5b\"."
                    .into(),
            ],
            ..failed_early(
                "gemini rejected its input (exit 42): Error resuming session: Invalid session \
                 identifier \"5f0c7a2e-1b3d-4e5f-8a9b-0c1d2e3f4a5b\".\n  Searched for sessions \
                 in /home/dev/.gemini/tmp/work/chats.\n  Use --list-sessions to see available \
                 sessions, then use --resume {number}, --resume {uuid}, or --resume latest. If \
                 it is about the session to resume, that session is gone and the next turn must \
                 start a new one; otherwise check the member's `args`.",
            )
        },
        "bad-config" => failed_early(
            "gemini found an error in its configuration (exit 52): Error in \
             /home/dev/.gemini/settings.json: Unexpected token '}' in JSON at position 42. Fix \
             the settings file it names (in the member's `home`, or ~/.gemini).",
        ),
        "untrusted" => failed_early(
            "gemini does not trust the working folder (exit 55): Gemini CLI is not running in a \
             trusted directory. To proceed, either use --skip-trust, set the \
             GEMINI_CLI_TRUST_WORKSPACE=true environment variable, or trust this directory… \
             chatmd passes --skip-trust; if a wrapper program drops it, set \
             GEMINI_CLI_TRUST_WORKSPACE=true in the member's `env`.",
        ),
        other => panic!("no expectation for gemini/{other}"),
    }
}
