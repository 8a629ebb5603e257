//! Output hygiene: garbage between events, escapes inside JSON text, unknown events,
//! crashes before the completion event, and the `command` kind's two output modes.

use chatmd::agents::{
    AgentEntry, AgentEvent, CommandOutput, ExitInfo, JsonPointers, OutputParser, Registry,
    parser_for,
};
use pretty_assertions::assert_eq;

use super::{Outcome, fixtures, seen};

const GARBAGE: [&str; 4] = [
    "\u{1b}[31mwarning:\u{1b}[0m something odd",
    "not json \u{fffd}\u{fffd} (invalid UTF-8, already replaced by the runner)",
    "{\"type\": \"truncated",
    "[1, 2, 3]",
];

fn parser(kind: &str) -> Box<dyn OutputParser> {
    parser_for(Registry::builtin().entry(kind).expect("built-in"))
}

fn exit(code: Option<i32>, stderr: &str) -> ExitInfo {
    ExitInfo {
        code,
        stderr_tail: stderr.to_owned(),
    }
}

fn transcript(kind: &str, name: &str) -> Vec<String> {
    let path = fixtures().join(kind).join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(path).expect("transcript");
    text.lines().map(str::to_owned).collect()
}

fn run(mut parser: Box<dyn OutputParser>, lines: &[String], exit: &ExitInfo) -> Vec<AgentEvent> {
    let mut events = Vec::new();
    for line in lines {
        parser.line(line, &mut events);
    }
    parser.finish(exit, &mut events);
    events
}

#[test]
fn garbage_between_events_becomes_notices_and_changes_nothing_else() {
    for kind in ["claude", "codex", "gemini"] {
        let clean = transcript(kind, "tool-use");
        let mut dirty = Vec::new();
        for line in &clean {
            dirty.extend(GARBAGE.iter().map(|g| g.to_string()));
            dirty.push(line.clone());
        }
        let ok = exit(Some(0), "");
        let expected = seen(run(parser(kind), &clean, &ok));
        let mut got = seen(run(parser(kind), &dirty, &ok));
        assert_eq!(got.notices.len(), GARBAGE.len() * clean.len(), "{kind}");
        assert_eq!(
            got.notices[0],
            format!("{kind} printed a line that is not a JSON event: warning: something odd")
        );
        got.notices.clear();
        assert_eq!(got, expected, "{kind}");
    }
}

#[test]
fn escapes_in_json_text_are_removed_and_unknown_events_ignored() {
    let lines = [
        r#"{"type":"init","session_id":"s1","model":"auto"}"#,
        r#"{"type":"from_the_future","content":"ignored"}"#,
        r#"{"type":"message","role":"assistant","content":"\u001b[1mbold\u001b[0m\r\n","delta":true}"#,
        r#"{"type":"result","status":"success","stats":{}}"#,
        r#"{"type":"message","role":"assistant","content":"after the end","delta":true}"#,
    ]
    .map(String::from);
    let events = run(parser("gemini"), &lines, &exit(Some(0), ""));
    assert_eq!(seen(events).text, "bold\n");
}

#[test]
fn claude_without_deltas_uses_whole_blocks_once() {
    let lines = [
        r#"{"type":"system","subtype":"init","session_id":"s1","model":"m"}"#,
        r#"{"type":"assistant","message":{"id":"a","content":[{"type":"text","text":"One."}]},"parent_tool_use_id":null,"session_id":"s1"}"#,
        r#"{"type":"assistant","message":{"id":"b","content":[{"type":"text","text":"Two."}]},"parent_tool_use_id":null,"session_id":"s1"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"result":"Two.","session_id":"s1"}"#,
    ]
    .map(String::from);
    let seen = seen(run(parser("claude"), &lines, &exit(Some(0), "")));
    assert_eq!(seen.text, "One.\n\nTwo.");
    assert_eq!(seen.outcome, Outcome::Done(None, None));
}

#[test]
fn claude_answer_in_the_result_alone_is_used_once() {
    let only_result = r#"{"type":"result","subtype":"success","is_error":false,"result":"Just this.","session_id":"s"}"#;
    let seen = seen(run(
        parser("claude"),
        &[only_result.to_owned()],
        &exit(Some(0), ""),
    ));
    assert_eq!(seen.text, "Just this.");
    let streamed = transcript("claude", "streaming");
    let text = super::seen(run(parser("claude"), &streamed, &exit(Some(0), ""))).text;
    assert_eq!(
        text.matches("Here is the fix").count(),
        1,
        "not repeated from result"
    );
}

#[test]
fn claude_success_is_is_error_false_not_subtype() {
    let line =
        r#"{"type":"result","subtype":"success","is_error":true,"result":"","session_id":"s"}"#;
    let events = run(parser("claude"), &[line.to_owned()], &exit(Some(1), ""));
    assert_eq!(
        seen(events).outcome,
        Outcome::Failed("claude ended with an error (success)".into())
    );
}

#[test]
fn a_crash_before_completion_keeps_the_text_and_fails_clearly() {
    for (kind, cut, text) in [
        ("claude", 8, "I'll run a command."),
        ("codex", 5, "The command printed hello-from-tool."),
        ("gemini", 3, "I'll run a command."),
    ] {
        let lines = &transcript(kind, "tool-use")[..cut];
        let killed = seen(run(parser(kind), lines, &exit(None, "")));
        assert_eq!(killed.text, text, "{kind}");
        let message = format!("{kind} was killed by a signal");
        assert_eq!(killed.outcome, Outcome::Failed(message), "{kind}");
        let quiet = seen(run(parser(kind), lines, &exit(Some(0), "")));
        let message = format!("{kind} exited with code 0 but never reported the end of its turn");
        assert_eq!(quiet.outcome, Outcome::Failed(message), "{kind}");
    }
}

#[test]
fn argument_errors_on_stderr_become_the_message() {
    let cases = [
        ("claude", "error: unknown option '--x'\n"),
        (
            "codex",
            "Reading additional input from stdin...\nNot inside a trusted directory and \
             --skip-git-repo-check was not specified.\n",
        ),
        (
            "gemini",
            "YOLO mode is enabled. All tool calls will be automatically approved.\nboom\n",
        ),
    ];
    for (kind, stderr) in cases {
        let failed = seen(run(parser(kind), &[], &exit(Some(1), stderr)));
        let last = stderr.trim_end().lines().last().unwrap_or("");
        assert_eq!(failed.outcome, Outcome::Failed(last.to_owned()), "{kind}");
    }
}

fn command_entry(output: CommandOutput) -> AgentEntry {
    let text = format!(
        "[agents.tool]\ntype = \"command\"\ncommand = \"tool\"\n{}",
        match output {
            CommandOutput::Text => "",
            CommandOutput::Jsonl(_) => {
                "output = \"jsonl\"\ntext = \"/delta\"\nsession = \"/sid\"\ndone = \"/kind\"\n\
                 done_value = \"end\"\nerror = \"/error/message\"\n"
            }
        }
    );
    let (registry, problems) = Registry::parse("agents.toml".as_ref(), &text);
    assert_eq!(problems, vec![]);
    registry.entry("tool").expect("entry").clone()
}

#[test]
fn command_text_output_is_every_line_with_its_break() {
    let entry = command_entry(CommandOutput::Text);
    let lines = ["# Title", "", "\u{1b}[32mgreen\u{1b}[0m line"].map(String::from);
    let ok = seen(run(parser_for(&entry), &lines, &exit(Some(0), "")));
    assert_eq!(ok.text, "# Title\n\ngreen line\n");
    assert_eq!(ok.outcome, Outcome::Done(None, None));
    let failed = seen(run(
        parser_for(&entry),
        &lines,
        &exit(Some(2), "tool: bad flag\n"),
    ));
    assert_eq!(failed.outcome, Outcome::Failed("tool: bad flag".into()));
}

#[test]
fn command_jsonl_output_follows_the_pointers() {
    let entry = command_entry(CommandOutput::Jsonl(JsonPointers {
        text: String::new(),
        session: None,
        done: None,
        done_value: None,
        error: None,
    }));
    let lines = [
        r#"{"sid":"abc","delta":"Hel"}"#,
        "progress 50%",
        r#"{"sid":"abc","delta":"lo"}"#,
        r#"{"kind":"tick"}"#,
        r#"{"kind":"end"}"#,
        r#"{"delta":" ignored after the end"}"#,
    ]
    .map(String::from);
    let done = seen(run(parser_for(&entry), &lines, &exit(Some(0), "")));
    assert_eq!(done.session.as_deref(), Some("abc"));
    assert_eq!(done.text, "Hello");
    assert_eq!(
        done.notices,
        vec!["tool printed a line that is not a JSON event: progress 50%"]
    );
    assert_eq!(done.outcome, Outcome::Done(None, None));

    let error = [
        r#"{"delta":"partial"}"#,
        r#"{"error":{"message":"quota exceeded"}}"#,
    ]
    .map(String::from);
    let failed = seen(run(parser_for(&entry), &error, &exit(Some(0), "")));
    assert_eq!(failed.text, "partial");
    assert_eq!(failed.outcome, Outcome::Failed("quota exceeded".into()));

    let exited = seen(run(parser_for(&entry), &[], &exit(Some(0), "")));
    assert_eq!(
        exited.outcome,
        Outcome::Done(None, None),
        "exit 0 ends a command turn"
    );
    let crashed = seen(run(
        parser_for(&entry),
        &["oops".to_owned()],
        &exit(Some(3), ""),
    ));
    assert_eq!(crashed.outcome, Outcome::Failed("oops".into()));
}
