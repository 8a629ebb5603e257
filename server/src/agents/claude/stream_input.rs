//! Claude Code's long-lived headless mode, for a warm member (`turns/warm`): `claude -p
//! --input-format stream-json --output-format stream-json --verbose …` reads one user
//! message per stdin line and answers each as a turn, until stdin closes. Recorded with
//! the real 2.1.197 and 2.1.332 against the mock model (docs/real-cli-measurements.md,
//! `tests/fixtures/agents/claude/stream-input/`):
//!
//! - A message is `{"type":"user","message":{"role":"user","content":"<text>"}}`.
//! - Each turn prints what a run of its own prints, from a `system`/`init` line (the
//!   same session) to the `result` line that ends it; the process then waits for the
//!   next line.
//! - `usage` is the turn's own; `total_cost_usd` runs over the process's turns (on a
//!   2.1.332 `--resume`, over the whole session, as the parser already knows).
//! - Closed stdin: it exits 0 by itself.
//!
//! So the turn's session writes the prompt as such a line and leaves stdin open; its
//! next turn on the same process ([`Session::again`]) is one more line.

use super::ClaudeParser;
use crate::agents::session::{Outbox, Session, SessionCommand};
use crate::agents::{AgentEvent, ExitInfo, Invocation, OutputParser, RunningTotals, Stdin};

/// The arguments that switch the input to messages on stdin.
const INPUT_ARGS: [&str; 2] = ["--input-format", "stream-json"];

/// Whether `invocation` runs claude reading messages on stdin ([`reading_messages`]).
pub fn reads_messages(invocation: &Invocation) -> bool {
    invocation.args.windows(2).any(|pair| pair == INPUT_ARGS)
}

/// `invocation` (a claude turn as `claude::plan` made it) reading its prompt, and the
/// next turns' ones, as messages on stdin: the prompt argument after `-p` (when it was
/// one) goes to stdin, and the input format follows `-p`.
pub fn reading_messages(mut invocation: Invocation) -> Invocation {
    if reads_messages(&invocation) {
        return invocation;
    }
    let Some(at) = invocation.args.iter().position(|arg| arg == "-p") else {
        return invocation;
    };
    if invocation.stdin == Stdin::Null && at + 1 < invocation.args.len() {
        invocation.stdin = Stdin::Prompt(invocation.args.remove(at + 1));
    }
    invocation
        .args
        .splice(at + 1..at + 1, INPUT_ARGS.map(String::from));
    invocation
}

/// The arguments that started a process, as every turn it serves must have them: the
/// prompt and the session to resume left out (a warm process keeps the session).
pub fn steady_args(invocation: &Invocation) -> Vec<String> {
    let streaming = reading_messages(invocation.clone());
    streaming
        .args
        .into_iter()
        .filter(|arg| !arg.starts_with("--resume="))
        .collect()
}

/// One user message as claude reads it on stdin: a line of JSON, its keys in the
/// order of the recorded runs.
fn user_line(text: &str) -> Vec<u8> {
    let content = serde_json::Value::from(text);
    format!(r#"{{"type":"user","message":{{"role":"user","content":{content}}}}}"#)
        .into_bytes()
        .into_iter()
        .chain([b'\n'])
        .collect()
}

/// A claude process's turns, one message each.
pub struct ClaudeStream {
    agent: String,
    parser: ClaudeParser,
    /// The session the process holds, from its first `init` line.
    session: Option<String>,
    /// The turn's `result` came and was a success: the process may take another.
    answered: bool,
}

impl ClaudeStream {
    /// A session whose messages name the agent `agent` (the registry entry's name).
    pub fn new(agent: &str) -> ClaudeStream {
        ClaudeStream {
            agent: agent.to_owned(),
            parser: ClaudeParser::new(agent),
            session: None,
            answered: false,
        }
    }
}

impl Session for ClaudeStream {
    fn start(&mut self, prompt: Option<String>, out: &mut Outbox) {
        match prompt {
            Some(prompt) => out.write(user_line(&prompt)),
            // Nothing to ask: closed stdin ends the process at once.
            None => out.close_input = true,
        }
    }

    fn line(&mut self, line: &str, out: &mut Outbox) {
        let first = out.events.len();
        self.parser.line(line, &mut out.events);
        for event in &out.events[first..] {
            match event {
                AgentEvent::Started {
                    session: Some(session),
                    ..
                } => self.session = Some(session.clone()),
                AgentEvent::Done { .. } => self.answered = true,
                // A failed turn's process is not kept: closed stdin lets it exit.
                AgentEvent::Failed { .. } | AgentEvent::SessionNotFound { .. } => {
                    out.close_input = true;
                }
                _ => {}
            }
        }
    }

    fn command(&mut self, _command: SessionCommand, _out: &mut Outbox) -> bool {
        // No cancel message is sent: the runner stops the process, and the member's next
        // turn starts cold.
        false
    }

    fn finish(&mut self, exit: &ExitInfo, out: &mut Outbox) {
        self.answered = false;
        self.parser.finish(exit, &mut out.events);
    }

    fn live_session(&self) -> Option<&str> {
        self.session.as_deref().filter(|_| self.answered)
    }

    fn again(&mut self, invocation: &Invocation, out: &mut Outbox) -> bool {
        let Stdin::Prompt(prompt) = &invocation.stdin else {
            return false;
        };
        if !self.answered {
            return false;
        }
        self.answered = false;
        self.parser = ClaudeParser::new(&self.agent);
        // The process's `total_cost_usd` runs over its turns (2.1.197 and 2.1.332 alike):
        // this turn's share is the report less the last one.
        out.push(AgentEvent::RunningTotals(RunningTotals {
            tokens: false,
            cost: true,
        }));
        out.write(user_line(prompt));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn planned(args: &[&str], stdin: Stdin) -> Invocation {
        Invocation {
            program: "claude".into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: Vec::new(),
            create_dirs: Vec::new(),
            cwd: ".".into(),
            stdin,
            limits: crate::agents::Limits {
                idle: None,
                total: std::time::Duration::from_secs(60),
                has_completion_event: true,
            },
            install_hint: None,
            session: Default::default(),
        }
    }

    #[test]
    fn the_prompt_argument_moves_to_stdin_and_the_input_reads_messages() {
        let streaming = reading_messages(planned(
            &["-p", "hi", "--output-format", "stream-json", "--resume=s1"],
            Stdin::Null,
        ));
        assert_eq!(
            streaming.args,
            [
                "-p",
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
                "--resume=s1"
            ]
        );
        assert_eq!(streaming.stdin, Stdin::Prompt("hi".into()));
        assert!(reads_messages(&streaming));
        // A prompt already on stdin stays there.
        let large = reading_messages(planned(&["-p", "--verbose"], Stdin::Prompt("big".into())));
        assert_eq!(
            large.args,
            ["-p", "--input-format", "stream-json", "--verbose"]
        );
        assert_eq!(large.stdin, Stdin::Prompt("big".into()));
    }

    #[test]
    fn a_process_serves_turns_that_differ_only_in_prompt_and_resumed_session() {
        let first = planned(&["-p", "one", "--verbose"], Stdin::Null);
        let second = planned(&["-p", "two", "--verbose", "--resume=s1"], Stdin::Null);
        assert_eq!(steady_args(&first), steady_args(&second));
        let other = planned(&["-p", "two", "--verbose", "--model=x"], Stdin::Null);
        assert_ne!(steady_args(&first), steady_args(&other));
    }

    #[test]
    fn each_turn_is_one_message_line_and_stdin_stays_open_after_an_answer() {
        let mut session = ClaudeStream::new("claude");
        let mut out = Outbox::default();
        session.start(Some("say \"hi\"\nplease".into()), &mut out);
        assert_eq!(
            String::from_utf8(std::mem::take(&mut out.input)).unwrap(),
            "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"say \\\"hi\\\"\\nplease\"}}\n"
        );
        assert!(!out.close_input);
        session.line(r#"{"type":"system","subtype":"init","session_id":"s1","model":"m","claude_code_version":"2.1.197"}"#, &mut out);
        assert_eq!(session.live_session(), None, "not before the answer");
        session.line(r#"{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s1","total_cost_usd":0.01,"usage":{"input_tokens":3,"output_tokens":1}}"#, &mut out);
        assert!(!out.close_input);
        assert_eq!(session.live_session(), Some("s1"));

        let mut next = Outbox::default();
        let turn = planned(
            &["-p", "--input-format", "stream-json"],
            Stdin::Prompt("two".into()),
        );
        assert!(session.again(&turn, &mut next));
        assert_eq!(
            next.input,
            b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"two\"}}\n"
        );
        assert_eq!(
            next.events,
            [AgentEvent::RunningTotals(RunningTotals {
                tokens: false,
                cost: true
            })]
        );
        assert!(
            !session.again(&turn, &mut Outbox::default()),
            "one turn at a time"
        );
    }

    #[test]
    fn a_failed_turn_closes_stdin() {
        let mut session = ClaudeStream::new("claude");
        let mut out = Outbox::default();
        session.line(r#"{"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"s1"}"#, &mut out);
        assert!(out.close_input);
        assert_eq!(session.live_session(), None);
    }
}
