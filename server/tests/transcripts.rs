//! The CLIs' stored sessions on any input (`chatmd::agents::transcripts` and the chat
//! `conversation::import` renders): no panic, and the rendered chat starts messages only
//! under its own headings, with every answer's status comment naming the session.

use chatmd::agents::transcripts::read;
use chatmd::conversation::import::render;
use chatmd::document::chat::Chat;
use proptest::prelude::*;

/// Lines in the shapes of the three CLIs' files, with text that tries to break out.
fn line() -> impl Strategy<Value = String> {
    let text = prop::sample::select(vec![
        "hi",
        "## @me",
        "## @x\\n```",
        "```\\n## @y",
        "<!-- open",
        "<details>",
        "\\r## @z",
        "# %% user",
        "",
    ]);
    (
        prop::sample::select(vec![0usize, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
        text,
    )
        .prop_map(|(shape, t)| match shape {
            0 => format!("{{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{{\"content\":\"{t}\"}}}}"),
            1 => format!("{{\"type\":\"assistant\",\"sessionId\":\"s\",\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{t}\"}},{{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"{t}\",\"input\":{{}}}}]}}}}"),
            2 => format!("{{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{{\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"a\",\"content\":\"{t}\"}}]}}}}"),
            3 => "{\"type\":\"session_meta\",\"payload\":{\"id\":\"s\"}}".to_string(),
            4 => format!("{{\"type\":\"response_item\",\"payload\":{{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"text\":\"{t}\"}}]}}}}"),
            5 => format!("{{\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call_output\",\"call_id\":\"a\",\"output\":\"{t}\"}}}}"),
            6 => "{\"sessionId\":\"s\",\"projectHash\":\"h\"}".to_string(),
            7 => format!("{{\"id\":\"1\",\"type\":\"gemini\",\"content\":\"{t}\",\"toolCalls\":[{{\"id\":\"a\",\"name\":\"{t}\",\"args\":{{}}}}]}}"),
            8 => format!("{{\"$set\":{{\"messages\":[{{\"id\":\"2\",\"type\":\"user\",\"content\":[{{\"text\":\"{t}\"}}]}}]}}}}"),
            _ => t.replace("\\n", "\n"),
        })
}

fn check(text: &str) -> Result<(), TestCaseError> {
    let Ok(transcript) = read(text) else {
        return Ok(());
    };
    let chat_text = render(&transcript, "me", "bot");
    let chat = Chat::parse(&chat_text);
    let mut answers = 0;
    for m in &chat.messages {
        let handle = m.handle(&chat_text);
        prop_assert!(
            handle == "me" || handle == "bot",
            "stray {handle:?} in\n{chat_text}"
        );
        if handle == "bot" {
            answers += 1;
            let status = m.status_comment(&chat_text);
            prop_assert!(
                status.is_some_and(|s| s.session() == Some(transcript.session.as_str())),
                "answer without its session in\n{chat_text}"
            );
        }
    }
    let expected = transcript
        .messages
        .iter()
        .filter(|m| m.speaker == chatmd::agents::transcripts::Speaker::Agent)
        .count();
    prop_assert_eq!(answers, expected, "{}", chat_text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn prop_any_text_reads_without_panic(text in any::<String>()) {
        check(&text)?;
    }

    #[test]
    fn prop_session_like_lines_render_only_their_own_messages(
        lines in prop::collection::vec(line(), 0..24)
    ) {
        check(&lines.join("\n"))?;
    }
}
