//! The pieces of one prompt, gathered from the request, and fitting them within the
//! cap (see the parent module for the shape and the cutting rules).

use super::roster_line::roster_line;
use super::{
    NEW_MESSAGES, Prompt, PromptError, PromptRequest, ROLE_SHORTENED_NOTE, TOPIC_LABEL,
    asked_entry, entry, given_messages, non_empty, quote,
};
use crate::conversation::routing::compare::answers_apart;

/// The pieces of a prompt before the cap is applied.
pub(super) struct Parts {
    instruction: Option<String>,
    role: Option<String>,
    instructions: Option<String>,
    /// `None` on resume: the session has it.
    roster_line: Option<String>,
    topic: Option<String>,
    /// The correction of edited messages ([`PromptRequest::correction`]).
    correction: Option<String>,
    /// `handle: text` entries, oldest first.
    context: Vec<String>,
    /// The rendered attachments (empty for none), after the context.
    attached: String,
    message: String,
}

impl Parts {
    pub(super) fn gather(req: &PromptRequest) -> Result<Parts, PromptError> {
        let (text, chat) = (req.text, req.chat);
        debug_assert_eq!(chat.len, text.len(), "the chat was parsed from this text");
        if req.message >= chat.messages.len() {
            return Err(PromptError::NoSuchMessage {
                index: req.message,
                count: chat.messages.len(),
            });
        }
        let given = given_messages(req);
        let answered = &chat.messages[given.asked];
        let context: Vec<String> = given
            .context
            .iter()
            .filter_map(|&i| entry(text, &chat.messages[i]))
            .collect();
        // The topic is file text like any message: quoted, so that a line of it
        // cannot read as a member speaking.
        let topic = match req.since {
            Some(_) => None,
            None => non_empty(&text[chat.preamble.clone()]).map(|topic| {
                let mut quoted = quote::quoted(TOPIC_LABEL, &topic);
                quoted.pop();
                quoted
            }),
        };
        let role = if req.role_loaded_by_cli {
            None
        } else {
            req.member.role_text.as_deref().and_then(non_empty)
        };
        Ok(Parts {
            instruction: req.roster.team.instruction.as_deref().and_then(non_empty),
            role,
            instructions: req.member.instructions.as_deref().and_then(non_empty),
            roster_line: (req.since.is_none() || req.instructions_again)
                .then(|| roster_line(req.roster, req.member, answers_apart(chat))),
            topic,
            correction: (!req.correction.is_empty()).then(|| req.correction.to_owned()),
            context,
            attached: req.attached.to_owned(),
            message: asked_entry(text, answered, req.roster)
                .unwrap_or_else(|| format!("{}:", answered.handle(text))),
        })
    }

    /// The prompt with `role` as the role part and the context from `skip` on.
    fn assemble(&self, role: Option<&str>, skip: usize) -> Prompt {
        let system: Vec<&str> = [
            self.instruction.as_deref(),
            role,
            self.instructions.as_deref(),
        ]
        .into_iter()
        .flatten()
        .collect();
        let mut body = String::from("[CONTEXT]\n");
        let new_messages = (self.correction.is_some() && skip < self.context.len())
            .then(|| NEW_MESSAGES.to_owned());
        for line in [
            self.roster_line.as_ref(),
            self.topic.as_ref(),
            self.correction.as_ref(),
            new_messages.as_ref(),
        ]
        .into_iter()
        .flatten()
        .chain(&self.context[skip..])
        {
            body.push_str(line);
            body.push('\n');
        }
        body.push_str(&self.attached);
        body.push_str("[MESSAGE]\n");
        body.push_str(&self.message);
        body.push('\n');
        Prompt {
            system: system.join("\n\n"),
            body,
        }
    }

    /// The fullest prompt within `cap`. For each number of dropped context messages
    /// (none first), the role is tried whole, cut, as the note alone, then left out.
    /// Sizes are worked out from frames without context, so a long chat is not
    /// assembled once per dropped message.
    pub(super) fn fit(&self, cap: usize) -> Result<Prompt, PromptError> {
        let frame = |role: Option<&str>| self.assemble(role, self.context.len()).len();
        let without_role = frame(None);
        // Each context entry adds itself and its line break.
        let mut context_len: usize = self.context.iter().map(|e| e.len() + 1).sum();
        let role = self.role.as_deref();
        let (with_role, with_cut) = match role {
            Some(role) => (
                frame(Some(role)),
                frame(Some(&format!("\n{ROLE_SHORTENED_NOTE}"))),
            ),
            None => (without_role, without_role),
        };
        for skip in 0..=self.context.len() {
            if skip > 0 {
                context_len -= self.context[skip - 1].len() + 1;
            }
            // The heading of the messages after a correction comes with them.
            let heading = match &self.correction {
                Some(_) if skip < self.context.len() => NEW_MESSAGES.len() + 1,
                _ => 0,
            };
            // Every frame is at least a few bytes, so no room means nothing fits.
            let room = cap.saturating_sub(context_len + heading);
            if with_role <= room {
                return Ok(self.assemble(role, skip));
            }
            if let Some(role) = role {
                if with_cut <= room {
                    let cut = shorten(role, room - with_cut);
                    return Ok(self.assemble(Some(&cut), skip));
                }
                // The note alone is one byte shorter than the frame's "\n" + note.
                if with_cut - 1 <= room {
                    return Ok(self.assemble(Some(ROLE_SHORTENED_NOTE), skip));
                }
                if without_role <= room {
                    return Ok(self.assemble(None, skip));
                }
            }
        }
        Err(PromptError::TooLarge {
            size: without_role,
            limit: cap,
        })
    }
}

/// The first `budget` bytes of `role` (never splitting a character, trailing white
/// space dropped), then the note on its own line.
fn shorten(role: &str, budget: usize) -> String {
    let mut end = budget.min(role.len());
    while !role.is_char_boundary(end) {
        end -= 1;
    }
    let kept = role[..end].trim_end();
    if kept.is_empty() {
        ROLE_SHORTENED_NOTE.to_owned()
    } else {
        format!("{kept}\n{ROLE_SHORTENED_NOTE}")
    }
}
