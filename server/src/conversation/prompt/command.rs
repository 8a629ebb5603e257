//! A human message that is a slash command for an ACP member: the command alone is the
//! prompt.

/// The slash command a human message gives its ACP member (`@reviewer /review src/pay.rs`
/// → `/review src/pay.rs`): the message, after the mentions that open it, when it starts
/// with `/` and a command name. An ACP agent runs a command only when the prompt starts
/// with it, and reads what follows as the command's input, so such a message is sent
/// as the command alone (the agent's session has the conversation when it resumes).
pub fn slash_command(message_text: &str) -> Option<String> {
    let mut rest = message_text.trim_start();
    while let Some(after) = rest.strip_prefix('@') {
        let end = after.find(char::is_whitespace).unwrap_or(after.len());
        rest = after[end..].trim_start();
    }
    let name = rest.strip_prefix('/')?;
    name.chars()
        .next()
        .filter(char::is_ascii_alphanumeric)
        .map(|_| rest.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_message_that_opens_with_a_command_is_that_command() {
        use super::slash_command;
        assert_eq!(
            slash_command("@reviewer /review src/pay.rs\n").as_deref(),
            Some("/review src/pay.rs")
        );
        assert_eq!(slash_command("/compact").as_deref(), Some("/compact"));
        assert_eq!(
            slash_command("@a @b\n/plan step one\nstep two\n").as_deref(),
            Some("/plan step one\nstep two")
        );
        assert_eq!(slash_command("@reviewer what does /review do?"), None);
        assert_eq!(slash_command("@reviewer / alone"), None);
        assert_eq!(slash_command("@reviewer //comment"), None);
    }
}
