//! The model behind the fake agent: it answers like the mock model server of the
//! recordings (`recorded/README.md`, "Reading the mock's answers"), a line that reports
//! what the request carried, streamed three words per chunk:
//!
//! `ANSWER-anthropic role_seen=no marker_count=0 roles=none team=0 turn=1 user_msgs=2 assistant_msgs=1 ask=ASK-X`
//!
//! `user_msgs` and `assistant_msgs` count the messages the agent sends its model, which
//! is how the recordings show what each agent keeps of earlier turns: gemini drops a
//! cancelled exchange, claude keeps it whole, codex keeps the prompt and an interruption
//! notice but not the partial answer, and codex adds one context message of its own.

use std::path::Path;

use regex::Regex;

use super::super::cli::Cli;
use super::flavor;
use super::store::Session;

/// The API name in the answer line.
fn api(flavor: Cli) -> &'static str {
    match flavor {
        Cli::Claude => "anthropic",
        Cli::Codex => "openai",
        Cli::Gemini => "gemini",
    }
}

/// The message being answered: what follows the prompt's last `[MESSAGE]` line (chatmd's
/// prompt format), else the whole prompt. Keywords are looked for only there, so a
/// keyword quoted from an earlier message does not fire again.
pub fn message_of(prompt: &str) -> &str {
    match prompt.rfind("[MESSAGE]") {
        Some(at) => &prompt[at..],
        None => prompt,
    }
}

/// The last `ASK-…` token of the message, or `-`.
pub fn ask_of(message: &str) -> String {
    let re = Regex::new(r"ASK-[A-Za-z0-9_-]+").expect("valid regex");
    re.find_iter(message)
        .last()
        .map_or("-".to_string(), |m| m.as_str().to_string())
}

/// The prompts (earlier ones and this one) the agent sends its model.
fn prompts_seen<'a>(flavor: Cli, session: &'a Session, prompt: &'a str) -> Vec<&'a str> {
    let mut seen: Vec<&str> = session
        .exchanges
        .iter()
        .filter(|e| !(e.cancelled && flavor == Cli::Gemini))
        .map(|e| e.prompt.as_str())
        .collect();
    seen.push(prompt);
    seen
}

/// Message counts as the mock would see them; `tool_calls` is how many tool calls of
/// this turn precede the answer.
fn counts(flavor: Cli, session: &Session, tool_calls: usize) -> (usize, usize) {
    let done = session.exchanges.iter().filter(|e| !e.cancelled).count();
    let cancelled = session.exchanges.len() - done;
    match flavor {
        Cli::Gemini => (1 + done, done + tool_calls),
        Cli::Claude => (1 + done + cancelled, done + cancelled + tool_calls),
        Cli::Codex => (2 + done + 2 * cancelled, done),
    }
}

/// `role_seen=… marker_count=… roles=… team=…` from the `ROLE-MARKER-<NAME>` and
/// `TEAM-MARKER` strings in the agent's context file (in `cwd`) and the prompts.
fn markers(flavor: Cli, cwd: &Path, prompts: &[&str]) -> String {
    let context =
        std::fs::read_to_string(cwd.join(flavor::context_file(flavor))).unwrap_or_default();
    let mut texts: Vec<&str> = prompts.to_vec();
    texts.push(&context);
    let re = Regex::new(r"ROLE-MARKER-([A-Za-z0-9_]+)").expect("valid regex");
    let mut roles: Vec<(String, usize)> = Vec::new();
    for text in &texts {
        for cap in re.captures_iter(text) {
            let name = cap[1].to_lowercase();
            match roles.iter_mut().find(|(n, _)| *n == name) {
                Some((_, count)) => *count += 1,
                None => roles.push((name, 1)),
            }
        }
    }
    let total: usize = roles.iter().map(|(_, c)| c).sum();
    let team: usize = texts.iter().map(|t| t.matches("TEAM-MARKER").count()).sum();
    let listed = if roles.is_empty() {
        "none".to_string()
    } else {
        roles
            .iter()
            .map(|(n, c)| format!("{n}:{c}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let seen = if total > 0 { "yes" } else { "no" };
    format!("role_seen={seen} marker_count={total} roles={listed} team={team}")
}

/// The mock's answer line for `prompt` in `session`.
pub fn line(flavor: Cli, session: &Session, prompt: &str, tool_calls: usize) -> String {
    let prompts = prompts_seen(flavor, session, prompt);
    let turn: usize = prompts.iter().map(|p| p.matches("[MESSAGE]").count()).sum();
    let (user, assistant) = counts(flavor, session, tool_calls);
    format!(
        "ANSWER-{} {} turn={turn} user_msgs={user} assistant_msgs={assistant} ask={}",
        api(flavor),
        markers(flavor, &session.cwd, &prompts),
        ask_of(message_of(prompt)),
    )
}

/// The tool result the mock quotes after a `touch`, as each agent reported it.
pub fn tool_result(flavor: Cli, allowed: bool) -> &'static str {
    match (flavor, allowed) {
        (Cli::Gemini, true) => {
            r"{'output': '<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 32302\n</untrusted_context>'}"
        }
        (Cli::Gemini, false) => {
            r"{'error': 'Tool \'run_shell_command\' was canceled by the user.'}"
        }
        (Cli::Claude, true) => "(Bash completed with no output)",
        (Cli::Claude, false) => "User refused permission to run tool [is_error]",
        (Cli::Codex, _) => {
            "Chunk ID: 96b1ff Wall time: 0.0000 seconds Process exited with code 0 Original token count: 0 Output:"
        }
    }
}

/// The mock's streaming: three words (each with the whitespace after it) per chunk.
pub fn chunks(text: &str) -> Vec<String> {
    let mut words: Vec<&str> = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            in_space = true;
        } else if in_space {
            words.push(&text[start..i]);
            start = i;
            in_space = false;
        }
    }
    if start < text.len() {
        words.push(&text[start..]);
    }
    words.chunks(3).map(|group| group.concat()).collect()
}

/// `text` in `n` chunks of about the same number of characters (`FAKE_AGENT_CHUNKS`).
pub fn chunks_of(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len().div_ceil(n.max(1)).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mock_streams_three_words_a_chunk() {
        assert_eq!(
            chunks(
                "ANSWER-gemini role_seen=no marker_count=0 roles=none team=0 turn=0 user_msgs=1 assistant_msgs=0 ask=ASK-SLOW\n"
            ),
            [
                "ANSWER-gemini role_seen=no marker_count=0 ",
                "roles=none team=0 turn=0 ",
                "user_msgs=1 assistant_msgs=0 ask=ASK-SLOW\n"
            ]
        );
        assert_eq!(chunks("I'll run a command."), ["I'll run a ", "command."]);
        assert_eq!(chunks_of("abcdefg", 3), ["abc", "def", "g"]);
    }

    #[test]
    fn keywords_come_from_the_last_message_only() {
        let prompt = "[CONTEXT]\nme: ASK-OLD\n[MESSAGE]\nme: @x go ASK-NEW now";
        assert_eq!(ask_of(message_of(prompt)), "ASK-NEW");
        assert_eq!(ask_of("say hello"), "-");
    }
}
