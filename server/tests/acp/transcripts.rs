//! Each recorded session of the three real agents, replayed: a plain answer, a tool
//! call allowed once, one rejected once, and a cancel during a slow answer.

use pretty_assertions::assert_eq;

use crate::{replay, shown};

/// Replays `name` and checks that chatmd wrote exactly what the recorded client wrote,
/// closed stdin at the end, and produced `events`.
fn check(name: &str, events: &[&str]) {
    let (_, trace, expected) = replay(name);
    assert_eq!(trace.sent, expected, "{name}: messages to the agent");
    assert!(
        trace.closed,
        "{name}: stdin closed once the prompt is answered"
    );
    assert_eq!(shown(&trace.events), events, "{name}: events");
}

#[test]
fn gemini_says_hello() {
    check(
        "gemini-hello",
        &[
            "started ef168092-7ca8-4fec-98a0-fcca31c937e9 model=auto",
            "text \"ANSWER-gemini role_seen=no marker_count=0 \"",
            "text \"roles=none team=0 turn=0 \"",
            "text \"user_msgs=1 assistant_msgs=0 ask=-\"",
            "done end_turn tokens=11865/25",
        ],
    );
}

/// The permission line of the three recordings' one tool call, `touch tool-wrote.txt`.
fn permission(tool: &str, options: &str) -> String {
    format!("permission #0 \"run `touch tool-wrote.txt` (execute)\" tool={tool} [{options}]")
}

const GEMINI_OPTIONS: &str = "proceed_always=allow_always \"Allow for this session\", \
    proceed_once=allow_once \"Allow\", cancel=reject_once \"Reject\"";
const CLAUDE_OPTIONS: &str = "allow_always=allow_always \"Always Allow Bash(touch \
    tool-wrote.txt) and access to /home/dev/proj\", allow=allow_once \"Allow\", \
    reject=reject_once \"Reject\"";
const CODEX_OPTIONS: &str = "allow_once=allow_once \"Yes, proceed\", \
    accept_execpolicy_amendment=allow_always \"Yes, and don't ask again for commands that \
    start with `touch tool-wrote.txt`\", cancel=reject_once \"No, and tell Codex what to do \
    differently\"";

#[test]
fn claude_says_hello() {
    check(
        "claude-hello",
        &[
            "started ddf91037-7606-4421-b736-7d30a60dddf4 model=default",
            "context 19945/1000000 cost=-",
            "text \"ANSWER-anthropic role_seen=no marker_count=0 \"",
            "text \"roles=none team=0 turn=0 \"",
            "text \"user_msgs=1 assistant_msgs=0 ask=-\"",
            "context 19970/1000000 cost=-",
            "context 19970/1000000 cost=0.1004 USD",
            "done end_turn tokens=19944/26",
        ],
    );
}

#[test]
fn codex_says_hello() {
    check(
        "codex-hello",
        &[
            "started 01a20c72-b3ff-7e71-afc3-4de15827117c model=gpt-5.5[medium]",
            "text \"ANSWER-openai role_seen=no marker_count=0 \"",
            "text \"roles=none team=0 turn=0 \"",
            "text \"user_msgs=2 assistant_msgs=0 ask=-\"",
            "context 10614/258400 cost=-",
            "done end_turn tokens=10589/25",
        ],
    );
}

/// gemini's request is the first the client hears of the call: no `tool_call` before
/// it, one `tool_call_update` after the allow, named from the request's title.
#[test]
fn gemini_runs_a_tool_allowed_once() {
    let tool = "run_shell_command__run_shell_command_1795505107336_0";
    check(
        "gemini-tool-allow_once",
        &[
            "started f50b7ab2-722c-4e2d-85ec-cc2d834ed452 model=auto",
            "text \"I'll run a \"",
            "text \"command.\"",
            &format!("call pending {tool} \"Execute: touch tool-wrote.txt\" -"),
            &permission(tool, GEMINI_OPTIONS),
            &format!("call completed {tool} \"Execute: touch tool-wrote.txt\" -"),
            "text \"\\n\\nANSWER-gemini role_seen=no marker_count=0 \"",
            "text \"roles=none team=0 turn=0 \"",
            "text \"user_msgs=1 assistant_msgs=1 ask=ASK-TOOL \"",
            "text \"tool_result=\\\"{'output': '<untrusted_context>\\\\nOutput: (empty)\\\\nProcess \"",
            "text \"Group PGID: 32302\\\\n</untrusted_context>'}\\\"\"",
            "done end_turn tokens=23874/59",
        ],
    );
}

#[test]
fn gemini_is_told_a_tool_was_rejected_once() {
    let tool = "run_shell_command__run_shell_command_1795505109785_0";
    check(
        "gemini-tool-reject_once",
        &[
            "started febfd498-abd8-48bb-80ee-bf06924795f0 model=auto",
            "text \"I'll run a \"",
            "text \"command.\"",
            &format!("call pending {tool} \"Execute: touch tool-wrote.txt\" -"),
            &permission(tool, GEMINI_OPTIONS),
            "text \"\\n\\nANSWER-gemini role_seen=no marker_count=0 \"",
            "text \"roles=none team=0 turn=0 \"",
            "text \"user_msgs=1 assistant_msgs=1 ask=ASK-TOOL \"",
            "text \"tool_result=\\\"{'error': 'Tool \\\\'run_shell_command\\\\' \"",
            "text \"was canceled by \"",
            "text \"the user.'}\\\"\"",
            "done end_turn tokens=23866/51",
        ],
    );
}

/// claude announces the call as "Terminal", names the command once its input has
/// streamed in (the same line, updated), then asks.
#[test]
fn claude_runs_a_tool_allowed_once() {
    let tool = "toolu_mock_8262da2372";
    check(
        "claude-tool-allow_once",
        &[
            "started 0c31665a-149e-4dd9-a093-447a9b33e88f model=default",
            "context 19956/1000000 cost=-",
            "text \"I'll run a \"",
            "text \"command.\"",
            &format!("call pending {tool} \"Execute: Terminal\" -"),
            &format!("call pending {tool} \"Execute: touch tool-wrote.txt\" -"),
            &permission(tool, CLAUDE_OPTIONS),
            "context 19959/1000000 cost=-",
            &format!("call completed {tool} \"Execute: touch tool-wrote.txt\" -"),
            "context 20045/1000000 cost=-",
            "text \"\\n\\nANSWER-anthropic role_seen=no marker_count=0 \"",
            "text \"roles=none team=0 turn=0 \"",
            "text \"user_msgs=1 assistant_msgs=1 ask=ASK-TOOL \"",
            "text \"tool_result=\\\"(Bash completed with \"",
            "text \"no output)\\\"\"",
            "context 20083/1000000 cost=-",
            "context 20083/1000000 cost=0.2011 USD",
            "done end_turn tokens=39999/43",
        ],
    );
}

#[test]
fn claude_fails_a_tool_rejected_once_and_says_why() {
    let tool = "toolu_mock_1a96398144";
    check(
        "claude-tool-reject_once",
        &[
            "started d3f4712d-94f7-4b8b-86b1-8535e988883a model=default",
            "context 19956/1000000 cost=-",
            "text \"I'll run a \"",
            "text \"command.\"",
            &format!("call pending {tool} \"Execute: Terminal\" -"),
            &format!("call pending {tool} \"Execute: touch tool-wrote.txt\" -"),
            &permission(tool, CLAUDE_OPTIONS),
            "context 19959/1000000 cost=-",
            &format!(
                "call failed {tool} \"Execute: touch tool-wrote.txt\" User refused permission to run tool"
            ),
            "context 20046/1000000 cost=-",
            "text \"\\n\\nANSWER-anthropic role_seen=no marker_count=0 \"",
            "text \"roles=none team=0 turn=0 \"",
            "text \"user_msgs=1 assistant_msgs=1 ask=ASK-TOOL \"",
            "text \"tool_result=\\\"User refused permission \"",
            "text \"to run tool \"",
            "text \"[is_error]\\\"\"",
            "context 20088/1000000 cost=-",
            "context 20088/1000000 cost=0.2012 USD",
            "done end_turn tokens=40000/47",
        ],
    );
}

#[test]
fn codex_runs_a_tool_allowed_once() {
    let tool = "call_mock_a17291b70d";
    check(
        "codex-tool-allow_once",
        &[
            "started 01a20c72-bdb4-7062-988c-d56fe426389b model=gpt-5.5[medium]",
            &format!("call in_progress {tool} \"Execute: touch tool-wrote.txt\" -"),
            &permission(tool, CODEX_OPTIONS),
            &format!("call completed {tool} \"Execute: touch tool-wrote.txt\" -"),
            "context 10603/258400 cost=-",
            "text \"ANSWER-openai role_seen=no marker_count=0 \"",
            "text \"roles=none team=0 turn=0 \"",
            "text \"user_msgs=2 assistant_msgs=0 ask=ASK-TOOL \"",
            "text \"tool_result=\\\"Chunk ID: 96b1ff \"",
            "text \"Wall time: 0.0000 \"",
            "text \"seconds Process exited \"",
            "text \"with code 0 \"",
            "text \"Original token count: \"",
            "text \"0 Output:\\\"\"",
            "context 10781/258400 cost=-",
            "done end_turn tokens=21324/60",
        ],
    );
}

/// codex ends the whole turn when a command is rejected: `stopReason: cancelled`.
#[test]
fn codex_ends_the_turn_when_a_tool_is_rejected_once() {
    let tool = "call_mock_1621d642fa";
    check(
        "codex-tool-reject_once",
        &[
            "started 01a20c72-c7cc-7a90-a9b5-77a1c1e48eef model=gpt-5.5[medium]",
            &format!("call in_progress {tool} \"Execute: touch tool-wrote.txt\" -"),
            &permission(tool, CODEX_OPTIONS),
            &format!("call failed {tool} \"Execute: touch tool-wrote.txt\" -"),
            "context 10603/258400 cost=-",
            "done cancelled tokens=10599/4",
        ],
    );
}

/// A cancel during a slow answer: `session/cancel` goes out, the partial text stays,
/// and the turn ends with the agent's `cancelled`.
#[test]
fn each_agent_ends_a_cancelled_turn_its_own_way() {
    for (agent, session, model, msgs) in [
        ("gemini", "73d3b754-8aa0-4d03-8403-8f79d25b980c", "auto", 1),
        (
            "claude",
            "67571f73-4126-424b-926d-90497ec85a12",
            "default",
            1,
        ),
        (
            "codex",
            "01a20c72-d19e-75a0-8228-c256e54c3f7e",
            "gpt-5.5[medium]",
            2,
        ),
    ] {
        let answer = match agent {
            "gemini" => "gemini",
            "claude" => "anthropic",
            _ => "openai",
        };
        // claude reports its context window before it answers.
        let context = (agent == "claude").then(|| "context 19952/1000000 cost=-".to_owned());
        let expected: Vec<String> = [format!("started {session} model={model}")]
            .into_iter()
            .chain(context)
            .chain([
                format!("text \"ANSWER-{answer} role_seen=no marker_count=0 \""),
                "text \"roles=none team=0 turn=0 \"".to_owned(),
                format!("text \"user_msgs={msgs} assistant_msgs=0 ask=ASK-SLOW\\n\""),
                "text \"SLOW-CHUNK-01 \"".to_owned(),
                "text \"SLOW-CHUNK-02 \"".to_owned(),
                "text \"SLOW-CHUNK-03 \"".to_owned(),
                "done cancelled tokens=-".to_owned(),
            ])
            .collect();
        let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
        check(&format!("{agent}-cancel"), &expected);
    }
}
