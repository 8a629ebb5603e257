//! The `seen=` records the server writes on a resuming member's answers
//! (`chatmd::conversation::seen`), spelled out for expected texts.

use chatmd::conversation::seen::message_hash;
use chatmd::document::chat::Chat;

/// `seen=[+]FIRST:H.H…` for messages `first..=last` of `text` (the chat as the turn
/// was given it).
pub fn seen(text: &str, resumed: bool, first: usize, last: usize) -> String {
    let chat = Chat::parse(text);
    let hashes: Vec<String> = (first..=last)
        .map(|i| message_hash(text, &chat.messages[i]))
        .collect();
    let plus = if resumed { "+" } else { "" };
    format!("seen={plus}{first}:{}", hashes.join("."))
}

/// `held=H`: what a session given the `[SYSTEM]` text `system` and the roster line of
/// `first_prompt` (the prompt that started it) holds
/// (`chatmd::conversation::prompt::instructions_hash`).
pub fn held(system: &str, first_prompt: &str) -> String {
    let roster = first_prompt
        .lines()
        .find(|l| l.starts_with("You are @"))
        .expect("the first prompt has the roster line");
    format!(
        "held={}",
        chatmd::conversation::seen::short_hash(&[system, roster])
    )
}
