//! What must hold in a chat at the end of the soak: every piece the user typed is there
//! once, where it was typed; every turn's section ended with the status its fault calls
//! for; every answer is whole, once, in its own section.

use super::chat::{Chat, sections};
use super::plan::Fault;

/// The text without the user's markers.
fn without(text: &str, markers: &[&str]) -> String {
    let mut out = text.to_string();
    for marker in markers {
        out = out.replace(marker, "");
    }
    out
}

pub fn chat(chat: &Chat, text: &str) {
    let who = format!("chat {}", chat.index);
    assert!(
        !text.contains("status=streaming") && !text.contains("status=queued"),
        "{who}: a turn never ended:\n{text}"
    );
    let markers: Vec<&str> = chat
        .title_markers
        .iter()
        .map(String::as_str)
        .chain(chat.message_markers.iter().map(|(m, _)| m.as_str()))
        .chain(chat.body_markers.iter().map(|(m, _)| m.as_str()))
        .collect();
    for marker in &markers {
        assert_eq!(
            text.matches(marker).count(),
            1,
            "{who}: typed {marker} once:\n{text}"
        );
    }
    // Typed at the end of the title line, one after the other: there, in order.
    assert_eq!(
        text.lines().nth(3),
        Some(format!("{}{}", chat.title(), chat.title_markers.concat()).as_str()),
        "{who}: the title line"
    );
    let all = sections(text);
    assert_eq!(
        all.len(),
        chat.turns.len(),
        "{who}: one section per turn:\n{text}"
    );
    for (i, (turn, section)) in chat.turns.iter().zip(&all).enumerate() {
        assert_eq!(
            (section.agent.as_str(), section.status.as_str()),
            (turn.cli, turn.fault.status()),
            "{who}: turn {} ({:?}) ended {}:\n{text}",
            turn.tag,
            turn.fault,
            chat.ended[i]
        );
        assert_eq!(
            chat.ended[i], section.status,
            "{who}: {} changed status after its end",
            turn.tag
        );
        // Each failure in its own words.
        let error = section.error.as_deref().unwrap_or_default();
        let expected = match turn.fault {
            Fault::Crash => format!("{} was killed by a signal", turn.cli),
            Fault::Hang => "idle timeout".to_string(),
            Fault::ApiError => "mock upstream failure".to_string(),
            Fault::Answer | Fault::Garbage | Fault::Cancel => String::new(),
        };
        assert!(
            error.contains(&expected) && (expected.is_empty() == error.is_empty()),
            "{who}: {} ended with error {error:?}, not {expected:?}",
            turn.tag
        );
    }
    for (marker, turn) in &chat.body_markers {
        let at = text.find(marker.as_str()).expect("present");
        assert!(
            all[*turn].body.contains(&at) || all[*turn].body.end == at,
            "{who}: {marker} typed into {}'s answer is still there:\n{text}",
            chat.turns[*turn].tag
        );
    }
    for (marker, line) in &chat.message_markers {
        let others: Vec<&str> = markers.iter().copied().filter(|m| m != marker).collect();
        assert!(
            without(text, &others).contains(&format!("{line}{marker}\n")),
            "{who}: {marker} typed after `{line}` stays there:\n{text}"
        );
    }
    let clean = without(text, &markers);
    for message in &chat.messages {
        assert_eq!(
            clean.matches(message.as_str()).count(),
            1,
            "{who}: the typed message {message:?} once:\n{text}"
        );
    }
    // The answers, the user's markers taken out: whole (or a beginning, when the turn
    // failed) in their own section, and nowhere else but in the knobs that asked.
    let answers_only: String = clean
        .split_inclusive('\n')
        .filter(|line| !line.starts_with("fake-agent:"))
        .collect();
    for (turn, section) in chat.turns.iter().zip(sections(&clean)) {
        let body = clean[section.body].trim_end_matches('\n');
        match turn.fault {
            Fault::Answer | Fault::Garbage => {
                assert_eq!(body, turn.answer, "{who}: {}'s answer:\n{text}", turn.tag);
                assert_eq!(
                    answers_only.matches(turn.answer.as_str()).count(),
                    1,
                    "{who}: {}'s answer once:\n{text}",
                    turn.tag
                );
            }
            Fault::Crash | Fault::Hang | Fault::Cancel => assert!(
                turn.answer.starts_with(body),
                "{who}: {}'s partial answer {body:?}:\n{text}",
                turn.tag
            ),
            Fault::ApiError => {}
        }
    }
}
