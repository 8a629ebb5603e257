//! What the tool list, the retry lines and the "not allowed" block are made of: the
//! events of the recorded runs in full (ids, failure lines, retry counts, refusals,
//! the routed model), beyond what `Seen` sums up.

use chatmd::agents::{AgentEvent, Denial, Retry, ToolStatus};
use pretty_assertions::assert_eq;

use super::replay;

/// The events of one kind, in order.
fn tools(events: &[AgentEvent]) -> Vec<(Option<&str>, &str, ToolStatus, Option<&str>)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Tool {
                id,
                summary,
                status,
                detail,
            } => Some((id.as_deref(), summary.as_str(), *status, detail.as_deref())),
            _ => None,
        })
        .collect()
}

fn retries(events: &[AgentEvent]) -> Vec<&Retry> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Retry(retry) => Some(retry),
            _ => None,
        })
        .collect()
}

#[test]
fn claude_401_ends_at_the_first_retry_notice() {
    // headless-401-retries.jsonl: init, then ten api_retry lines and the give-up.
    let events = replay("claude", "auth-401");
    assert_eq!(events.len(), 2, "{events:#?}");
    assert!(
        matches!(&events[0], AgentEvent::Started { session: Some(s), .. } if s == "f43a1f36-1692-4528-8703-a0ccbacb9940")
    );
    let AgentEvent::Failed { message } = &events[1] else {
        panic!("{events:#?}");
    };
    assert!(
        message.starts_with("API error 401 authentication_failed. Log in with `claude /login`"),
        "{message}"
    );
}

#[test]
fn retries_carry_their_count_and_reason() {
    let claude = replay("claude", "retry");
    assert_eq!(
        retries(&claude),
        [
            &Retry {
                attempt: Some(1),
                max: Some(10),
                reason: "529 Overloaded".into()
            },
            &Retry {
                attempt: Some(2),
                max: Some(10),
                reason: "529 Overloaded".into()
            },
        ]
    );
    assert_eq!(
        retries(&claude)[0].to_string(),
        "retrying (1/10): 529 Overloaded"
    );
    let codex = replay("codex", "reconnect");
    assert_eq!(
        retries(&codex)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "retrying (1/5): stream disconnected before completion: error sending request",
            "retrying (2/5): stream disconnected before completion: error sending request",
        ]
    );
    // gemini's stream has no retry event (its retries go to stderr).
    for name in ["tool-use", "routed", "tool-not-found", "warning"] {
        assert!(retries(&replay("gemini", name)).is_empty(), "{name}");
    }
}

#[test]
fn a_refused_claude_call_is_one_call_that_failed_with_the_cli_words() {
    let events = replay("claude", "denied");
    assert_eq!(
        tools(&events),
        [
            (
                Some("toolu_mock_3e1175487c"),
                "Bash: touch tool-wrote.txt",
                ToolStatus::Started,
                None
            ),
            (
                Some("toolu_mock_3e1175487c"),
                "Bash: touch tool-wrote.txt",
                ToolStatus::Failed,
                // The recorded refusal, cut to the quote limit.
                Some(
                    "touch in '/home/dev/work/tool-wrote.txt' was blocked. For security, Claude Code may only create or modify files in the allowed working directories for this sess…"
                ),
            ),
            (
                Some("toolu_mock_5b2e8c41d0"),
                "Write: /home/dev/work/src/x.rs",
                ToolStatus::Started,
                None
            ),
            (
                Some("toolu_mock_5b2e8c41d0"),
                "Write: /home/dev/work/src/x.rs",
                ToolStatus::Failed,
                Some(
                    "Claude requested permissions to write to /home/dev/work/src/x.rs, but you haven't granted it yet."
                ),
            ),
        ]
    );
    let denied = events.iter().find_map(|e| match e {
        AgentEvent::Denied { denials, allow } => Some((denials.clone(), allow.clone())),
        _ => None,
    });
    assert_eq!(
        denied,
        Some((
            vec![
                Denial {
                    tool: "Bash".into(),
                    input: Some("touch tool-wrote.txt".into())
                },
                Denial {
                    tool: "Write".into(),
                    input: Some("/home/dev/work/src/x.rs".into())
                },
            ],
            ["--allowedTools", "Bash(touch:*)", "Write"]
                .map(String::from)
                .to_vec(),
        ))
    );
    // The other transcripts have `permission_denials: []`.
    for name in ["tool-use", "retry", "not-logged-in"] {
        let events = replay("claude", name);
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, AgentEvent::Denied { .. })),
            "{name}"
        );
    }
}

#[test]
fn failed_tools_of_gemini_and_codex_say_why() {
    let gemini = replay("gemini", "tool-not-found");
    let id = "run_shell_command__run_shell_command_1795499069582_0";
    assert_eq!(
        tools(&gemini),
        [
            (
                Some(id),
                "run_shell_command: echo hi",
                ToolStatus::Started,
                None
            ),
            (
                Some(id),
                "run_shell_command: echo hi",
                ToolStatus::Failed,
                Some(
                    "Tool \"run_shell_command\" not found. Did you mean one of: \"update_topic\", \"grep_search\", \"invoke_agent\"?"
                ),
            ),
        ]
    );
    let codex = replay("codex", "edit");
    assert_eq!(
        tools(&codex),
        [
            (
                Some("item_2"),
                "Edit: src/main.rs, README.md",
                ToolStatus::Completed,
                None
            ),
            (
                Some("item_3"),
                "Shell: cargo test",
                ToolStatus::Started,
                None
            ),
            (
                Some("item_3"),
                "Shell: cargo test",
                ToolStatus::Failed,
                Some("exit 101: error: 1 test failed")
            ),
        ]
    );
    // The read-only sandbox's refusal has no item: nothing to list.
    assert!(tools(&replay("codex", "sandbox-readonly")).is_empty());
}

#[test]
fn gemini_names_the_routed_model_at_the_end() {
    let events = replay("gemini", "routed");
    let models: Vec<&AgentEvent> = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Started { .. } | AgentEvent::Model(_)))
        .collect();
    assert_eq!(
        models,
        [
            &AgentEvent::Started {
                session: Some("c232f6af-2b82-4f83-8826-5d58515e53bd".into()),
                model: Some("auto".into())
            },
            &AgentEvent::Model("gemini-3.1-pro-preview".into()),
        ]
    );
    // An error with no model stats names none.
    let failed = replay("gemini", "api-error");
    assert!(!failed.iter().any(|e| matches!(e, AgentEvent::Model(_))));
}
