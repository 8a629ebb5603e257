//! What the parsers of every CLI share about a turn: a stdout line that is not JSON
//! becomes a notice (and is kept: some CLIs print their errors that way), nothing is
//! read after the turn ended, and a process that exits without a completion event gets
//! the clearest failure message available.

use serde_json::Value;

use super::json::{ErrorBody, Events, Obj, parse_line};
use super::output::{json_line, readable_error, sanitize};
use super::{AgentEvent, ExitInfo};

/// A parser's view of how far its turn got. (`Default` is for a parser's own
/// `Default`, whose `new` then names the agent.)
#[derive(Debug, Default)]
pub struct Turn {
    /// The registry entry's name, which messages name the agent by.
    pub agent: String,
    /// A completion event (or the exit) ended the turn: later lines are not answer.
    pub finished: bool,
    /// The last stdout line that was not JSON, sanitized.
    pub stray: Option<String>,
    /// The last non-fatal error the CLI reported, readable: the words of a failure
    /// that has none of its own.
    pub last_error: Option<String>,
}

impl Turn {
    pub fn new(agent: &str) -> Turn {
        Turn {
            agent: agent.to_owned(),
            finished: false,
            stray: None,
            last_error: None,
        }
    }

    /// `line` read into its kind of event; `None` for a blank line, a line after the end
    /// of the turn, and a line that is not JSON (its notice goes to `out`).
    pub fn read<'l, E: Events<'l>>(
        &mut self,
        line: &'l str,
        out: &mut Vec<AgentEvent>,
    ) -> Option<E> {
        match parse_line::<E>(&self.agent, line) {
            Ok(event) => event.filter(|_| !self.finished),
            Err(notice) => {
                self.not_json(line, notice, out);
                None
            }
        }
    }

    /// [`Turn::read`] into an untyped value, for entries that name their fields by
    /// JSON pointers.
    pub fn read_value(&mut self, line: &str, out: &mut Vec<AgentEvent>) -> Option<Value> {
        match json_line(&self.agent, line) {
            Ok(value) => value.filter(|_| !self.finished),
            Err(notice) => {
                self.not_json(line, notice, out);
                None
            }
        }
    }

    #[cold]
    fn not_json(&mut self, line: &str, notice: AgentEvent, out: &mut Vec<AgentEvent>) {
        self.stray = Some(sanitize(line.trim()));
        out.push(notice);
    }

    /// The message of a failure the CLI reported: the words of its `error` body, else
    /// its last error, else "<agent> `otherwise`".
    pub fn reported(&self, error: &Obj<ErrorBody<'_>>, otherwise: &str) -> String {
        error
            .get()
            .and_then(|error| error.message.get())
            .map(readable_error)
            .filter(|m| !m.is_empty())
            .or_else(|| self.last_error.clone())
            .unwrap_or_else(|| format!("{} {otherwise}", self.agent))
    }

    /// Ends the turn when the process exited; true when the output had not already
    /// ended it, and the caller owes the final event.
    pub fn exited(&mut self) -> bool {
        !std::mem::replace(&mut self.finished, true)
    }

    /// The failure of a turn whose process exited without a completion event: the
    /// CLI's own error text (`own`) if any, else its stderr (without the `noise` lines
    /// it prints on every run), else the stray stdout line, else the exit code.
    pub fn failure(&self, own: Option<&str>, noise: &[&str], exit: &ExitInfo) -> AgentEvent {
        let nonempty = |text: Option<&str>| {
            text.map(|t| sanitize(t).trim().to_owned())
                .filter(|t| !t.is_empty())
        };
        let message = nonempty(own)
            .or_else(|| nonempty(Some(&stderr_message(exit, noise))))
            .or_else(|| nonempty(self.stray.as_deref()))
            .unwrap_or_else(|| exit_words(&self.agent, exit));
        AgentEvent::Failed { message }
    }
}

/// The stderr tail as a message: sanitized, without lines a CLI prints on every run
/// (`noise` prefixes), trimmed. Empty when nothing useful is left.
pub fn stderr_message(exit: &ExitInfo, noise: &[&str]) -> String {
    sanitize(&exit.stderr_tail)
        .lines()
        .map(str::trim_end)
        .filter(|line| {
            !noise
                .iter()
                .any(|prefix| line.trim_start().starts_with(prefix))
        })
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// How the process ended, in words, for when nothing better is known.
pub fn exit_words(agent: &str, exit: &ExitInfo) -> String {
    match exit.code {
        Some(0) => format!("{agent} exited with code 0 but never reported the end of its turn"),
        Some(code) => format!("{agent} exited with code {code}"),
        None => format!("{agent} was killed by a signal"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn failures_prefer_the_cli_words_then_stderr_then_the_exit_code() {
        let exit = |code, stderr: &str| ExitInfo {
            code,
            stderr_tail: stderr.into(),
        };
        let failed = |m: &str| AgentEvent::Failed { message: m.into() };
        let turn = |stray: Option<&str>| Turn {
            stray: stray.map(str::to_owned),
            ..Turn::new("x")
        };
        let noise = &["noise"][..];
        let stderr = "noise 1\n\u{1b}[31mreal\u{1b}[0m\n";
        assert_eq!(
            turn(Some("stray")).failure(Some(" own "), noise, &exit(Some(1), stderr)),
            failed("own")
        );
        assert_eq!(
            turn(Some("stray")).failure(Some(""), noise, &exit(Some(1), stderr)),
            failed("real")
        );
        assert_eq!(
            turn(Some("stray")).failure(None, noise, &exit(Some(1), "noise only")),
            failed("stray")
        );
        assert_eq!(
            turn(None).failure(None, noise, &exit(Some(3), " \n")),
            failed("x exited with code 3")
        );
        assert_eq!(
            turn(None).failure(None, noise, &exit(None, "")),
            failed("x was killed by a signal")
        );
        assert_eq!(
            turn(None).failure(None, noise, &exit(Some(0), "")),
            failed("x exited with code 0 but never reported the end of its turn")
        );
    }

    #[test]
    fn lines_after_the_end_and_other_text() {
        let mut turn = Turn::new("x");
        let mut out = Vec::new();
        assert!(turn.read_value("{}", &mut out).is_some());
        assert!(turn.read_value("  ", &mut out).is_none());
        assert!(turn.read_value("\u{1b}[1mboom", &mut out).is_none());
        assert_eq!(turn.stray.as_deref(), Some("boom"));
        assert!(turn.exited());
        assert!(turn.read_value("{}", &mut out).is_none());
        assert!(!turn.exited());
        assert_eq!(
            out,
            [AgentEvent::Notice(
                "x printed a line that is not a JSON event: boom".into()
            )]
        );
    }
}
