//! Collects a transcript's parts in order: parts of one side join one message, and a
//! tool's result finds its call by id.

use std::collections::HashMap;

use super::{AgentKind, Part, Skipped, Speaker, Transcript, TranscriptError, TranscriptMessage};

#[derive(Default)]
pub(in crate::agents) struct Builder {
    messages: Vec<TranscriptMessage>,
    /// Tool call id → (message, part) of the call.
    calls: HashMap<String, (usize, usize)>,
}

impl Builder {
    pub(in crate::agents) fn text(&mut self, speaker: Speaker, text: &str) {
        let text = text.trim_matches('\n');
        if !text.trim().is_empty() {
            self.push(speaker, Part::Text(text.to_owned()));
        }
    }

    pub(in crate::agents) fn call(&mut self, id: Option<&str>, name: &str, input: String) {
        let at = self.push(
            Speaker::Agent,
            Part::Tool {
                name: name.to_owned(),
                input,
                output: None,
            },
        );
        if let Some(id) = id {
            self.calls.insert(id.to_owned(), at);
        }
    }

    /// The result of the call `id`; `false` when no call of that id is known.
    pub(in crate::agents) fn result(&mut self, id: &str, text: String) -> bool {
        let Some(&(m, p)) = self.calls.get(id) else {
            return false;
        };
        if let Some(Part::Tool { output, .. }) = self.messages[m].parts.get_mut(p) {
            *output = Some(text);
        }
        true
    }

    /// Marks the last answer as an API error the CLI stored in its place.
    pub(in crate::agents) fn fail(&mut self, error: &str) {
        if let Some(last) = self.messages.last_mut()
            && last.speaker == Speaker::Agent
        {
            last.error = Some(error.to_owned());
        }
    }

    /// The transcript of a `kind` session; an error without its id.
    pub(in crate::agents) fn finish(
        self,
        kind: AgentKind,
        session: Option<String>,
        cwd: Option<String>,
        skipped: Skipped,
    ) -> Result<Transcript, TranscriptError> {
        Ok(Transcript {
            kind,
            session: session.ok_or(TranscriptError::NoSessionId(kind.name()))?,
            cwd,
            project_hash: None,
            session_tokens: None,
            messages: self.messages,
            skipped,
        })
    }

    fn push(&mut self, speaker: Speaker, part: Part) -> (usize, usize) {
        match self.messages.last_mut() {
            Some(last) if last.speaker == speaker => last.parts.push(part),
            _ => self.messages.push(TranscriptMessage {
                speaker,
                parts: vec![part],
                error: None,
            }),
        }
        let m = self.messages.len() - 1;
        (m, self.messages[m].parts.len() - 1)
    }
}
