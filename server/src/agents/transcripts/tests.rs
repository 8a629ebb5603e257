//! Each CLI's stored shapes, cut down to the lines that matter (the whole recorded files
//! are imported end to end by `tests/tests/import_cli.rs`).

use super::*;
use pretty_assertions::assert_eq;

fn texts(t: &Transcript) -> Vec<(Speaker, String)> {
    t.messages
        .iter()
        .flat_map(|m| {
            m.parts.iter().map(move |p| match p {
                Part::Text(s) => (m.speaker, s.clone()),
                Part::Tool { name, output, .. } => (
                    m.speaker,
                    format!("{name} -> {}", output.as_deref().unwrap_or("?")),
                ),
            })
        })
        .collect()
}

#[test]
fn claude_skips_sub_agents_meta_and_bookkeeping() {
    let text = r#"{"type":"queue-operation","operation":"enqueue","sessionId":"0c000000-0000-4000-8000-000000000001","content":"hi"}
{"type":"user","isSidechain":false,"message":{"role":"user","content":"hi"},"cwd":"/w","sessionId":"0c000000-0000-4000-8000-000000000001"}
{"type":"user","isMeta":true,"message":{"role":"user","content":"<command-name>/init</command-name>"},"sessionId":"0c000000-0000-4000-8000-000000000001"}
{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"text","text":"inner"}]},"sessionId":"0c000000-0000-4000-8000-000000000001"}
{"type":"assistant","isSidechain":false,"message":{"content":[{"type":"thinking","thinking":"hmm"}]},"sessionId":"0c000000-0000-4000-8000-000000000001"}
{"type":"assistant","isSidechain":false,"message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},"sessionId":"0c000000-0000-4000-8000-000000000001"}
{"type":"user","isSidechain":false,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a.rs"}]}]},"sessionId":"0c000000-0000-4000-8000-000000000001"}
{"type":"assistant","isSidechain":false,"message":{"content":[{"type":"text","text":"One file."}]},"sessionId":"0c000000-0000-4000-8000-000000000001"}
not json
"#;
    let t = read(text).unwrap();
    assert_eq!(t.kind, AgentKind::Claude);
    assert_eq!(
        (t.session.as_str(), t.cwd.as_deref()),
        ("0c000000-0000-4000-8000-000000000001", Some("/w"))
    );
    assert_eq!(
        texts(&t),
        [
            (Speaker::Human, "hi".to_string()),
            (Speaker::Agent, "Bash -> a.rs".to_string()),
            (Speaker::Agent, "One file.".to_string()),
        ]
    );
    assert_eq!(
        t.skipped,
        Skipped {
            bookkeeping: 1,
            context: 1,
            inner: 2,
            unreadable: 1
        }
    );
}

#[test]
fn codex_keeps_the_conversation_items_only() {
    let text = r##"{"type":"session_meta","payload":{"id":"01a20c15-0000-7000-8000-000000000001","cwd":"/w"}}
{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]}}
{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>x</INSTRUCTIONS>"},{"type":"input_text","text":"<environment_context>\n</environment_context>"}]}}
{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run it"}]}}
{"type":"event_msg","payload":{"type":"item_completed"}}
{"type":"response_item","payload":{"type":"reasoning","summary":[]}}
{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"echo hi\"}","call_id":"c1"}}
{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"hi\n"}}
{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Printed hi."}]}}
"##;
    let t = read(text).unwrap();
    assert_eq!(t.kind, AgentKind::Codex);
    assert_eq!(
        (t.session.as_str(), t.cwd.as_deref()),
        ("01a20c15-0000-7000-8000-000000000001", Some("/w"))
    );
    assert_eq!(
        texts(&t),
        [
            (Speaker::Human, "run it".to_string()),
            (Speaker::Agent, "exec_command -> hi\n".to_string()),
            (Speaker::Agent, "Printed hi.".to_string()),
        ]
    );
    assert_eq!(
        t.skipped,
        Skipped {
            bookkeeping: 2,
            context: 3,
            inner: 1,
            unreadable: 0
        }
    );
}

/// On resume gemini writes the header again and replaces the whole list with `$set`;
/// a message written again with the same id (its tool result added) replaces the first.
#[test]
fn gemini_follows_set_and_rewrites_by_id() {
    let text = r#"{"sessionId":"06000000-0000-4000-8000-000000000001","projectHash":"ab","kind":"main"}
{"$set":{"messages":[{"id":"0","type":"user","content":[{"text":"<session_context>\nlinux"}]}]}}
{"id":"1","type":"user","content":[{"text":"first"}]}
{"id":"2","type":"gemini","content":"Running.","thoughts":[]}
{"$set":{"lastUpdated":"now"}}
{"id":"2","type":"gemini","content":"Running.","toolCalls":[{"id":"k","name":"run_shell_command","args":{"command":"ls"},"result":[{"functionResponse":{"id":"k","response":{"output":"a.txt"}}}]}]}
{"sessionId":"06000000-0000-4000-8000-000000000001","projectHash":"ab","kind":"main"}
{"$set":{"messages":[{"id":"0","type":"user","content":[{"text":"<session_context>\nlinux"}]},{"id":"1","type":"user","content":[{"text":"first"}]},{"id":"2","type":"gemini","content":"Running."}]}}
{"id":"3","type":"user","content":[{"text":"second"}]}
{"id":"4","type":"info","content":"Resumed."}
{"id":"5","type":"gemini","content":"Done."}
"#;
    let t = read(text).unwrap();
    assert_eq!(t.kind, AgentKind::Gemini);
    assert_eq!(t.session, "06000000-0000-4000-8000-000000000001");
    // The list as the last `$set` left it: the tool call was not in it any more.
    assert_eq!(
        texts(&t),
        [
            (Speaker::Human, "first".to_string()),
            (Speaker::Agent, "Running.".to_string()),
            (Speaker::Human, "second".to_string()),
            (Speaker::Agent, "Done.".to_string()),
        ]
    );
    assert_eq!(t.skipped.context, 1);
    assert_eq!(t.skipped.bookkeeping, 2);
}

#[test]
fn other_files_are_no_session() {
    assert_eq!(kind_of("# %% user\nhi\n"), None);
    assert_eq!(read("{\"hello\":1}\n"), Err(TranscriptError::UnknownShape));
    assert_eq!(
        read("{\"type\":\"session_meta\",\"payload\":{}}\n"),
        Err(TranscriptError::NoSessionId("codex"))
    );
}

/// claude stores an API error in place of the answer (`isApiErrorMessage`): the answer
/// is kept, marked as an error.
#[test]
fn claude_api_errors_mark_the_answer() {
    let text = r#"{"type":"user","message":{"role":"user","content":"hi"},"sessionId":"0c000000-0000-4000-8000-000000000002"}
{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"API Error: 401"}]},"error":"authentication_failed","isApiErrorMessage":true,"sessionId":"0c000000-0000-4000-8000-000000000002"}
"#;
    let t = read(text).unwrap();
    assert_eq!(
        t.messages[1].error.as_deref(),
        Some("authentication_failed")
    );
    assert_eq!(t.messages[0].error, None);
}

#[test]
fn a_session_id_its_cli_never_issues_is_not_imported() {
    // Imported, it would become `session=` and the member's next turn would pass it on.
    let text = r#"{"type":"user","message":{"role":"user","content":"hi"},"sessionId":"--permission-mode=bypassPermissions"}
{"type":"assistant","message":{"content":[{"type":"text","text":"Hello."}]},"sessionId":"--permission-mode=bypassPermissions"}
"#;
    assert_eq!(
        read(text),
        Err(TranscriptError::ForeignSessionId {
            kind: "claude",
            id: "--permission-mode=bypassPermissions".into()
        })
    );
}
