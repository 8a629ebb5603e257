//! A CLI's stored session as a chatmd chat: the human's messages under the human's
//! handle, the agent's under the member that answers for it, each answer with a status
//! comment that carries the CLI's session id, so that the member's next turn (with
//! `resume`) continues that very session. Also who takes an imported chat's answers.
//! Pure: a transcript in, the chat's text out.

use crate::agents::AgentKind;
use crate::agents::transcripts::{Part, Speaker, Transcript};
use crate::conversation::prompt::{HELD_KEY, HELD_NOTHING};
use crate::conversation::running::SESSION_TOKENS_KEY;
use crate::document::foreign::ASSISTANT_HANDLE;
use crate::document::foreign::render::{Out, html_text, one_line, yaml_scalar};
use crate::document::lines::Lines;
use crate::document::status::{StatusComment, TurnStatus};
use crate::team::Team;

/// The handle for answers of `kind` (a CLI's session) or of a model a foreign chat
/// tool called (`None`): the team's first member (in member order) that runs that kind
/// of CLI, else the CLI's name (`claude`, `codex`, `gemini`), else `assistant`. A team
/// takes such a handle as a member with a folder of that name holding a role file.
pub fn answer_handle(team: &Team, kind: Option<AgentKind>) -> String {
    let Some(kind) = kind else {
        return ASSISTANT_HANDLE.to_owned();
    };
    team.members
        .iter()
        .find(|m| m.kind() == Some(kind))
        .map_or_else(|| kind.name().to_owned(), |m| m.handle.clone())
}

/// The chat for `transcript`: front matter with `imported_from: <cli>`, then its
/// messages; every answer's status comment says `agent=<cli> status=done
/// session=<id>`. Ends with an empty message of the human, ready for the next one,
/// when the last message is an answer. Text is kept as written, except that a line
/// that would start a chatmd message is escaped (`## \@x`) and a block left open is
/// closed at the end of its message; tools the agent ran are folded into
/// `<details>` blocks with their input and output.
pub fn render(transcript: &Transcript, human: &str, agent: &str) -> String {
    let mut out = Out::default();
    out.line("---");
    out.line(&format!(
        "imported_from: {}",
        yaml_scalar(transcript.kind.name())
    ));
    out.line("---");
    let mut turns = 0;
    let last_answer = transcript
        .messages
        .iter()
        .rposition(|m| m.speaker == Speaker::Agent);
    for (index, message) in transcript.messages.iter().enumerate() {
        out.blank();
        match message.speaker {
            Speaker::Human => out.line(&format!("## @{human}")),
            Speaker::Agent => {
                turns += 1;
                out.line(&format!("## @{agent}"));
                let mut status = StatusComment::new();
                status.set("id", format!("t{turns}"));
                status.set("agent", transcript.kind.name());
                status.set_status(match message.error {
                    Some(_) => TurnStatus::Error,
                    None => TurnStatus::Done,
                });
                status.set("session", transcript.session.as_str());
                // The session never got chatmd's instructions nor the roster line: the
                // member's next turn gives them (`prompt/held.rs`).
                status.set(HELD_KEY, HELD_NOTHING);
                if let Some(error) = &message.error {
                    status.set("error", error.as_str());
                }
                // What the session had used when it was imported: the next turn's
                // running total counts from there (`conversation/running.rs`).
                if let Some(used) = transcript
                    .session_tokens
                    .filter(|_| Some(index) == last_answer)
                {
                    status.set(
                        SESSION_TOKENS_KEY,
                        format!("{}/{}", used.input_tokens, used.output_tokens),
                    );
                }
                out.line(&status.render());
            }
        }
        for (i, part) in message.parts.iter().enumerate() {
            if i > 0 {
                out.blank();
            }
            match part {
                Part::Text(text) => out.body(&lines(text)),
                Part::Tool {
                    name,
                    input,
                    output,
                } => {
                    out.line(&format!(
                        "<details><summary>{}</summary>",
                        html_text(&one_line(name))
                    ));
                    out.blank();
                    let info = if serde_json::from_str::<serde_json::Value>(input).is_ok() {
                        "json"
                    } else {
                        "text"
                    };
                    out.fenced(info, &lines(input));
                    if let Some(output) = output {
                        out.blank();
                        out.fenced("text", &lines(output));
                    }
                    out.blank();
                    out.line("</details>");
                }
            }
        }
    }
    if transcript
        .messages
        .last()
        .is_some_and(|m| m.speaker == Speaker::Agent)
    {
        out.blank();
        out.line(&format!("## @{human}"));
    }
    out.buf
}

/// The lines of `text` as chatmd reads them (`\n`, `\r\n` or a lone `\r` ends one).
fn lines(text: &str) -> Vec<&str> {
    Lines::new(text).map(|l| &text[l.range()]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::transcripts::{Skipped, TranscriptMessage};
    use crate::team::Member;
    use pretty_assertions::assert_eq;
    use std::path::PathBuf;

    #[test]
    fn answers_go_to_the_member_of_that_kind_else_to_the_clis_name() {
        let mut team = Team::empty(PathBuf::from("/t"));
        assert_eq!(answer_handle(&team, Some(AgentKind::Codex)), "codex");
        assert_eq!(answer_handle(&team, None), "assistant");
        team.members = vec![
            Member::new("reviewer", "claude", PathBuf::from("/t/reviewer")),
            Member::new("tester", "codex", PathBuf::from("/t/tester")),
        ];
        assert_eq!(answer_handle(&team, Some(AgentKind::Codex)), "tester");
        assert_eq!(answer_handle(&team, Some(AgentKind::Gemini)), "gemini");
    }

    #[test]
    fn headings_in_text_are_escaped_and_tools_fold() {
        let transcript = Transcript {
            kind: AgentKind::Claude,
            session: "s-1".into(),
            cwd: None,
            project_hash: None,
            session_tokens: None,
            messages: vec![
                TranscriptMessage {
                    speaker: Speaker::Human,
                    parts: vec![Part::Text("## @x is a heading\r```".into())],
                    error: None,
                },
                TranscriptMessage {
                    speaker: Speaker::Agent,
                    parts: vec![
                        Part::Tool {
                            name: "Bash <x>".into(),
                            input: "{\"command\":\"ls\"}".into(),
                            output: Some("a\nb".into()),
                        },
                        Part::Text("Done.".into()),
                    ],
                    error: Some("authentication failed".into()),
                },
            ],
            skipped: Skipped::default(),
        };
        assert_eq!(
            render(&transcript, "me", "reviewer"),
            "---\nimported_from: claude\n---\n\n## @me\n## \\@x is a heading\n```\n```\n\n## @reviewer\n<!-- chatmd id=t1 agent=claude status=error session=s-1 held=none error=\"authentication failed\" -->\n<details><summary>Bash &lt;x&gt;</summary>\n\n```json\n{\"command\":\"ls\"}\n```\n\n```text\na\nb\n```\n\n</details>\n\nDone.\n\n## @me\n"
        );
    }
}
