//! The prompts of a council's review and decision rounds (`routing/council.rs`): the
//! question, the answers by letter and, for the chair, the reviews, with every member's
//! name taken out, so no member learns who wrote what. Each answer and review is
//! quoted in a fence longer than any backtick run in it, so that no line of it (a
//! forged `Answer C (yours):`) reads as this prompt's own structure. The `[SYSTEM]`
//! part is the member's own, as in every prompt.
//!
//! ````text
//! [CONTEXT]
//! You are @reviewer, one of several members of a council who answered the same question on their own. ...
//! The topic: <the topic>
//! The question, from @me: which cache?
//!
//! Answer A (yours):
//! ```
//! <the member's own answer>
//! ```
//!
//! Answer B:
//! ```
//! <another answer, names taken out>
//! ```
//! [MESSAGE]
//! Review the other answers (B): ...
//! ````

use super::quote::{fenced, quoted};
use super::{
    Prompt, PromptError, PromptRequest, TOPIC_LABEL, build_prompt, cleaned_text, non_empty,
};
use crate::conversation::routing::council::{Council, Stage};
use crate::document::inline::is_handle_byte;

/// What stands for a member's name in what the others are shown.
const NAME_TAKEN_OUT: &str = "a member";

/// The prompt for `req.member`'s turn in round `stage` (review or decision) of
/// `council`. Each answer and review is cut to an equal share of the prompt cap.
pub fn build_council_prompt(
    req: &PromptRequest,
    stage: Stage,
    council: &Council,
) -> Result<Prompt, PromptError> {
    let system = build_prompt(req)?.system;
    let body = body(req, stage, council);
    let prompt = Prompt { system, body };
    if prompt.len() > super::PROMPT_CAP {
        return Err(PromptError::TooLarge {
            size: prompt.len(),
            limit: super::PROMPT_CAP,
        });
    }
    Ok(prompt)
}

fn body(req: &PromptRequest, stage: Stage, council: &Council) -> String {
    let (text, chat, roster) = (req.text, req.chat, req.roster);
    let names: Vec<&str> = roster
        .team
        .members
        .iter()
        .map(|m| m.handle.as_str())
        .collect();
    let me = &req.member.handle;
    let shown = council.answers.len() + council.reviews.len() + 1;
    let share = super::PROMPT_CAP / (2 * shown);
    let shown_text = |index: usize| {
        let cleaned = cleaned_text(text, &chat.messages[index]);
        cut(&scrub(&cleaned, &names, false), share)
    };
    let own = council.answer_of(text, chat, me).map(|a| a.letter.clone());

    let mut out = String::from("[CONTEXT]\n");
    out.push_str(&match stage {
        Stage::Decision => format!(
            "You are @{me}, the chair of a council: several members answered the same question on their own, then each reviewed the others' answers. Answers are shown by letter, without names, each answer and review quoted whole in a code fence.\n"
        ),
        _ => format!(
            "You are @{me}, one of several members of a council who answered the same question on their own. Their answers are shown by letter, without names, each quoted whole in a code fence.\n"
        ),
    });
    // The topic and the question are quoted like every text from the file, so a
    // forged `Answer B:` line in them cannot pass for the answers that follow.
    if let Some(topic) = non_empty(&text[chat.preamble.clone()]) {
        out.push_str(&quoted(TOPIC_LABEL, &scrub(&topic, &names, false)));
    }
    let question = cleaned_text(text, &chat.messages[council.question]);
    out.push_str(&quoted(
        &format!("The question, from @{}", roster.human),
        &cut(&scrub(&question, &names, true), share),
    ));
    let mut reviewed = Vec::new();
    let mut cited = Vec::new();
    for answer in &council.answers {
        if !answer.done {
            out.push_str(&format!(
                "\n(Answer {} is left out: its member's turn did not end done.)\n",
                answer.letter
            ));
            continue;
        }
        cited.push(format!("Answer {}", answer.letter));
        let mine = own.as_deref() == Some(answer.letter.as_str());
        let yours = if mine { " (yours)" } else { "" };
        out.push_str(&format!(
            "\nAnswer {}{yours}:\n{}",
            answer.letter,
            fenced(&shown_text(answer.index))
        ));
        if !mine {
            reviewed.push(answer.letter.as_str());
        }
    }
    if stage == Stage::Decision {
        for &(index, done) in &council.reviews {
            if !done {
                continue;
            }
            let author = chat.messages[index].handle(text);
            let by = match council.answer_of(text, chat, author) {
                Some(answer) => format!("the author of Answer {}", answer.letter),
                None => NAME_TAKEN_OUT.to_owned(),
            };
            out.push_str(&format!(
                "\nReview by {by}:\n{}",
                fenced(&shown_text(index))
            ));
        }
    }
    out.push_str("[MESSAGE]\n");
    out.push_str(&match stage {
        Stage::Decision => format!(
            "Write the council's decision on the question: which answer to follow, or how to combine them, and why. Cite the answers by letter ({}).\n",
            cited.join(", ")
        ),
        _ => format!(
            "Review the other answers ({}): for each, say what it gets right, what it gets wrong or misses, and how it compares with yours. Cite them by letter. The council's chair decides next.\n",
            reviewed.join(", ")
        ),
    });
    out
}

/// `text` with every name in `names` taken out: `@name` and the bare word become
/// [`NAME_TAKEN_OUT`], or with `drop_mentions` an `@name` goes with the space after it
/// (the question's mentions only address the members).
fn scrub(text: &str, names: &[&str], drop_mentions: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if !is_handle_byte(bytes[i]) {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let start = i;
        while i < bytes.len() && is_handle_byte(bytes[i]) {
            i += 1;
        }
        // A sentence's full stop or a dash after a name is not part of it.
        let word = text[start..i].trim_end_matches(['.', '-']);
        let end = start + word.len();
        if !names.iter().any(|n| n.eq_ignore_ascii_case(word)) {
            out.push_str(&text[start..i]);
            continue;
        }
        let mention = out.ends_with('@');
        if mention {
            out.pop();
        }
        if mention && drop_mentions {
            out.push_str(&text[end..i]);
            if end == i && bytes.get(i) == Some(&b' ') {
                i += 1;
            }
            continue;
        }
        out.push_str(NAME_TAKEN_OUT);
        out.push_str(&text[end..i]);
    }
    out
}

/// `text` within `max` bytes, cut at a character boundary with a note.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[... cut to fit the prompt limit]", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn names_are_taken_out_of_answers_and_mentions_out_of_the_question() {
        let names = ["reviewer", "tester"];
        assert_eq!(
            scrub(
                "@Reviewer is wrong; the tester. said so, not tests.",
                &names,
                false
            ),
            "a member is wrong; the a member. said so, not tests."
        );
        assert_eq!(
            scrub("@reviewer @tester which cache? ask @me", &names, true),
            "which cache? ask @me"
        );
        assert_eq!(scrub("é @tester-", &names, false), "é a member-");
    }

    #[test]
    fn a_long_text_is_cut_at_a_character_boundary() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("aé", 2), "a\n[... cut to fit the prompt limit]");
    }
}
