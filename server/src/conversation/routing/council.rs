//! `routing: council`: three rounds after a human message, each read back from the file
//! alone (the status comments' `council=` and `letter=`), so the editor, `chatmd send`
//! and a reopened file agree on where a council stands.
//!
//! 1. **answer**: as in compare, every member asked answers on its own; each section
//!    gets `council=answer letter=A` (B, C, ... in the order the sections start).
//! 2. **review**: every member whose answer is done reviews the others' answers, shown
//!    by letter without names (`prompt/council.rs`); `council=review`.
//! 3. **decision**: the front matter's `chair:` writes the decision, citing letters;
//!    `council=decision`. Then the human speaks.
//!
//! A round is reached once any section of it is in the file, whatever its status, so a
//! council always moves on and never runs more than three rounds; a member that failed
//! in a round is left out of the later ones.

use super::Next;
use crate::conversation::problems::Problem;
use crate::conversation::roster::Roster;
use crate::document::ByteRange;
use crate::document::chat::Chat;
use crate::document::front_matter::Routing;
use crate::document::status::{StatusComment, TurnStatus};
use crate::team::Severity;

/// The status comment key naming a section's round.
pub const COUNCIL_KEY: &str = "council";
/// The status comment key of an answer's letter.
pub const LETTER_KEY: &str = "letter";

/// A round of a council.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Answer,
    Review,
    Decision,
}

impl Stage {
    /// The spelling in status comments.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Answer => "answer",
            Stage::Review => "review",
            Stage::Decision => "decision",
        }
    }

    pub fn parse(text: &str) -> Option<Stage> {
        [Stage::Answer, Stage::Review, Stage::Decision]
            .into_iter()
            .find(|s| s.as_str() == text)
    }

    /// The round of the section `status` belongs to, if any.
    pub fn of(status: &StatusComment) -> Option<Stage> {
        status.get(COUNCIL_KEY).and_then(Stage::parse)
    }
}

/// The letter of the `n`th answer (0-based): `A` to `Z`, then `A2`, `B2`, ...
pub fn letter(n: usize) -> String {
    let c = char::from(b'A' + (n % 26) as u8);
    match n / 26 {
        0 => c.to_string(),
        round => format!("{c}{}", round + 1),
    }
}

/// The status comment key of the decision's legend: whose answer each letter is, for
/// the human (status comments never reach the agents).
pub const LETTERS_KEY: &str = "letters";

/// What a new section of a council is marked with: its round, and on the decision
/// the legend of the letters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub stage: Stage,
    pub legend: Option<String>,
}

/// Marks a new section's status comment with its round; `answers` counts the answer
/// sections marked so far in this round, for their letters.
pub fn mark(status: &mut StatusComment, mark: &Mark, answers: &mut usize) {
    status.set(COUNCIL_KEY, mark.stage.as_str());
    if mark.stage == Stage::Answer {
        status.set(LETTER_KEY, letter(*answers));
        *answers += 1;
    }
    if let Some(legend) = &mark.legend {
        status.set(LETTERS_KEY, legend.as_str());
    }
}

/// `A=reviewer B=tester`: whose answer each letter is.
pub fn legend(text: &str, chat: &Chat, council: &Council) -> String {
    let pairs: Vec<String> = council
        .answers
        .iter()
        .map(|a| format!("{}={}", a.letter, chat.messages[a.index].handle(text)))
        .collect();
    pairs.join(" ")
}

/// One answer of round 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Its index in `chat.messages`.
    pub index: usize,
    pub letter: String,
    /// Whether it ended `done`: only those are reviewed.
    pub done: bool,
}

/// A council as the file shows it: the human message that started it and the sections
/// of each round (indices in `chat.messages`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Council {
    pub question: usize,
    pub answers: Vec<Answer>,
    /// Every review section (any status) and whether it is done.
    pub reviews: Vec<(usize, bool)>,
    pub decision: Option<usize>,
}

impl Council {
    /// The answer written by `handle`, if any.
    pub fn answer_of(&self, text: &str, chat: &Chat, handle: &str) -> Option<&Answer> {
        self.answers.iter().find(|a| {
            chat.messages[a.index]
                .handle(text)
                .eq_ignore_ascii_case(handle)
        })
    }
}

/// Whether the chat's routing is `council`.
pub fn is_council(chat: &Chat) -> bool {
    super::compare::routing_of(chat) == Routing::Council
}

/// The council that message `at` belongs to; `None` outside a council chat. Its
/// question is the last human message with text before its answers (the sections of
/// round 1 are appended together, so they stand one after the other), or at or before
/// `at` when no answer is there yet. A message written between rounds (a draft, a
/// queued message) is not the question.
pub fn read(text: &str, chat: &Chat, roster: &Roster, at: usize) -> Option<Council> {
    if !is_council(chat) {
        return None;
    }
    let messages = &chat.messages[..=at.min(chat.messages.len().checked_sub(1)?)];
    let is_answer = |m: &crate::document::chat::Message| {
        m.status_comment(text).and_then(Stage::of) == Some(Stage::Answer)
    };
    let mut before = messages.len();
    if let Some(last_answer) = messages.iter().rposition(is_answer) {
        before = last_answer;
        while before > 0 && is_answer(&messages[before - 1]) {
            before -= 1;
        }
    }
    let question = messages[..before]
        .iter()
        .rposition(|m| roster.is_human(m.handle(text)) && !m.is_empty(text))?;
    // The rounds start at the answers: a question queued during an earlier council
    // stands before that council's reviews and decision.
    let first = before.min(chat.messages.len()).max(question + 1);
    let mut council = Council {
        question,
        ..Council::default()
    };
    for (index, message) in chat.messages.iter().enumerate().skip(first) {
        let Some(status) = message.status_comment(text) else {
            continue;
        };
        let done = status.status() == Some(TurnStatus::Done);
        match Stage::of(status) {
            // An answer after later rounds belongs to the next council.
            Some(Stage::Answer) if !council.reviews.is_empty() || council.decision.is_some() => {
                break;
            }
            Some(Stage::Answer) => {
                let letter = status
                    .get(LETTER_KEY)
                    .map_or_else(|| letter(council.answers.len()), str::to_owned);
                council.answers.push(Answer {
                    index,
                    letter,
                    done,
                });
            }
            Some(Stage::Review) => council.reviews.push((index, done)),
            Some(Stage::Decision) => council.decision = Some(index),
            None => {}
        }
    }
    Some(council)
}

/// The round a member answering message `asked` is in: a human message starts a
/// council (answer); any later message of the council asks for the round after the
/// last one in the file (a review after the answers, the decision after the reviews).
/// `None` outside a council chat, and once the decision is written.
pub fn stage_of(text: &str, chat: &Chat, roster: &Roster, asked: usize) -> Option<Stage> {
    let message = chat.messages.get(asked)?;
    if !is_council(chat) {
        return None;
    }
    if roster.is_human(message.handle(text)) {
        return Some(Stage::Answer);
    }
    let council = read(text, chat, roster, asked)?;
    if council.decision.is_some() {
        None
    } else if !council.reviews.is_empty() {
        Some(Stage::Decision)
    } else if !council.answers.is_empty() {
        Some(Stage::Review)
    } else {
        None
    }
}

/// The chair: the front matter's `chair:`, a member of the team; else why not, with
/// what to do.
pub fn chair<'t>(chat: &Chat, roster: &Roster<'t>) -> Result<&'t crate::team::Member, String> {
    let named = chat.front_matter.as_ref().and_then(|fm| fm.chair.as_ref());
    let Some(named) = named else {
        return Err(
            "`routing: council` needs a `chair:` in the front matter: the member who writes the decision (such as `chair: reviewer`)"
                .to_owned(),
        );
    };
    roster
        .member(&named.value)
        .filter(|_| roster.is_ai(&named.value))
        .ok_or_else(|| {
            format!(
                "the council's chair @{} is not a member of the team: name one of its members in `chair:`",
                named.value
            )
        })
}

/// What follows the council that message `at` belongs to: the next round's members,
/// each with the message it answers (its own answer for a review, the last review for
/// the decision); nobody once the decision is written.
pub fn next_round(text: &str, chat: &Chat, roster: &Roster, at: usize) -> (Next, Vec<usize>) {
    let nobody = |why: &str| (Next::Nobody(why.to_owned()), Vec::new());
    let Some(council) = read(text, chat, roster, at) else {
        return nobody("this message belongs to no council");
    };
    if council.decision.is_some() {
        return nobody("the chair has written the council's decision: your turn");
    }
    if let Some(&(last, _)) = council.reviews.last() {
        return match chair(chat, roster) {
            Ok(chair) => (Next::Run(vec![chair.handle.clone()]), vec![last]),
            Err(why) => nobody(&why),
        };
    }
    let done: Vec<(String, usize)> = council
        .answers
        .iter()
        .filter(|a| a.done)
        .filter_map(|a| {
            let handle = chat.messages[a.index].handle(text);
            let member = roster.member(handle).filter(|_| roster.is_ai(handle))?;
            Some((member.handle.clone(), a.index))
        })
        .collect();
    if council.answers.is_empty() {
        return nobody("the council has no answer yet");
    }
    if done.len() < 2 {
        return nobody(
            "a council needs at least two answers to review, and fewer ended done: ask the members again, or write your next message",
        );
    }
    let (members, asked) = done.into_iter().unzip();
    (Next::Run(members), asked)
}

/// `Answer A` (or `Answer A2`) at `offset` in a council's review or decision: its
/// range and the answer it names (for hover: whose it is).
pub fn answer_named_at(
    text: &str,
    chat: &Chat,
    roster: &Roster,
    offset: usize,
) -> Option<(ByteRange, Answer)> {
    let index = chat.message_at(offset)?;
    let stage = Stage::of(chat.messages[index].status_comment(text)?)?;
    if stage == Stage::Answer {
        return None;
    }
    let body = chat.messages[index].body_range();
    let line_start = text[body.start..offset]
        .rfind('\n')
        .map_or(body.start, |i| body.start + i + 1);
    let line_end = text[offset..body.end]
        .find('\n')
        .map_or(body.end, |i| offset + i);
    let line = &text[line_start..line_end];
    let council = read(text, chat, roster, index)?;
    council.answers.into_iter().find_map(|answer| {
        let name = format!("Answer {}", answer.letter);
        line.match_indices(&name).find_map(|(at, _)| {
            let range = line_start + at..line_start + at + name.len();
            let whole = !line[at + name.len()..].starts_with(|c: char| c.is_ascii_alphanumeric());
            (whole && range.start <= offset && offset <= range.end).then(|| (range, answer.clone()))
        })
    })
}

/// For the human, when the council that message `at` belongs to is about to be
/// reviewed: a note on each answer of round 1 that did not end done, left out.
pub fn left_out(text: &str, chat: &Chat, roster: &Roster, at: usize) -> Vec<String> {
    let Some(council) = read(text, chat, roster, at) else {
        return Vec::new();
    };
    if !council.reviews.is_empty() || council.decision.is_some() {
        return Vec::new();
    }
    council
        .answers
        .iter()
        .filter(|a| !a.done)
        .map(|a| {
            let message = &chat.messages[a.index];
            let status = message
                .status_comment(text)
                .and_then(|s| s.status())
                .map_or("no status", |s| s.as_str());
            format!(
                "council: @{}'s answer {} ended {status}; it is left out of the review and the decision",
                message.handle(text),
                a.letter
            )
        })
        .collect()
}

/// The front matter's council mistakes, before anything runs: `routing: council`
/// without a `chair:` or with one that is not a member (errors: Send refuses), and a
/// `chair:` in a chat that is not a council (a hint: it is not used).
pub fn problems(chat: &Chat, roster: &Roster) -> Vec<Problem> {
    let Some(fm) = &chat.front_matter else {
        return Vec::new();
    };
    let problem = |range: ByteRange, severity, message: String| Problem {
        range,
        severity,
        code: "council-chair",
        message,
        fixes: Vec::new(),
    };
    match (&fm.routing, &fm.chair) {
        (Some(routing), named) if routing.value == Routing::Council => match chair(chat, roster) {
            Ok(_) => Vec::new(),
            Err(why) => {
                let range = named
                    .as_ref()
                    .map_or(routing.range.clone(), |c| c.range.clone());
                vec![problem(range, Severity::Error, why)]
            }
        },
        (_, Some(named)) => vec![problem(
            named.range.clone(),
            Severity::Hint,
            "`chair:` is used only with `routing: council`".to_owned(),
        )],
        _ => Vec::new(),
    }
}

pub(super) mod mode;

#[cfg(test)]
mod tests;
