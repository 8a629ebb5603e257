use super::*;
use crate::team::Severity;
use crate::team::{Member, Team};
use pretty_assertions::assert_eq;
use std::path::PathBuf;

fn team() -> Team {
    let mut team = Team::empty(PathBuf::from("/t"));
    team.members = ["a", "b", "c"]
        .into_iter()
        .map(|h| Member::new(h, "claude", PathBuf::from("/t").join(h)))
        .collect();
    team
}

const HEAD: &str = "---\nrouting: council\nchair: c\n---\n## @me\n@a @b @c which?\n";

fn section(handle: &str, id: u32, status: &str, round: &str) -> String {
    format!(
        "\n## @{handle}\n<!-- chatmd id=t{id} agent=claude status={status} {round} -->\n{handle} says.\n"
    )
}

/// What follows the chat's last message, and the message each member answers.
fn after(text: &str) -> (Next, Vec<usize>) {
    let team = team();
    let chat = Chat::parse(text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    next_round(text, &chat, &roster, chat.messages.len() - 1)
}

fn run(handles: &[&str], asked: &[usize]) -> (Next, Vec<usize>) {
    (
        Next::Run(handles.iter().map(|h| h.to_string()).collect()),
        asked.to_vec(),
    )
}

#[test]
fn the_rounds_follow_in_order_and_end_with_the_decision() {
    let answers = format!(
        "{HEAD}{}{}{}",
        section("a", 1, "done", "council=answer letter=A"),
        section("b", 2, "error", "council=answer letter=B"),
        section("c", 3, "done", "council=answer letter=C"),
    );
    // The member that failed is left out of the review.
    assert_eq!(after(&answers), run(&["a", "c"], &[1, 3]));
    let reviews = format!(
        "{answers}{}{}",
        section("a", 4, "done", "council=review"),
        section("c", 5, "error", "council=review"),
    );
    assert_eq!(after(&reviews), run(&["c"], &[5]));
    let decided = format!("{reviews}{}", section("c", 6, "done", "council=decision"));
    assert!(matches!(after(&decided).0, Next::Nobody(_)));

    let team = team();
    let chat = Chat::parse(&reviews);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let council = read(&reviews, &chat, &roster, 5).expect("a council");
    assert_eq!(council.question, 0);
    let letters: Vec<(&str, bool)> = council
        .answers
        .iter()
        .map(|a| (a.letter.as_str(), a.done))
        .collect();
    assert_eq!(letters, [("A", true), ("B", false), ("C", true)]);
    assert_eq!(stage_of(&reviews, &chat, &roster, 0), Some(Stage::Answer));
    assert_eq!(stage_of(&reviews, &chat, &roster, 5), Some(Stage::Decision));
    assert_eq!(
        stage_of(&answers, &Chat::parse(&answers), &roster, 2),
        Some(Stage::Review)
    );
}

#[test]
fn fewer_than_two_answers_or_no_chair_stop_the_council() {
    let one = format!(
        "{HEAD}{}{}",
        section("a", 1, "done", "council=answer letter=A"),
        section("b", 2, "cancelled", "council=answer letter=B"),
    );
    assert!(matches!(after(&one).0, Next::Nobody(why) if why.contains("at least two answers")));
    let no_chair = HEAD.replace("chair: c\n", "");
    let team = team();
    let chat = Chat::parse(&no_chair);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    assert_eq!(
        super::super::next(&no_chair, &chat, &roster),
        Next::Nobody(chair(&chat, &roster).unwrap_err())
    );
    let unknown = HEAD.replace("chair: c", "chair: zed");
    let chat = Chat::parse(&unknown);
    assert_eq!(
        chair(&chat, &roster).unwrap_err(),
        "the council's chair @zed is not a member of the team: name one of its members in `chair:`"
    );
}

#[test]
fn letters_run_a_to_z_then_again_with_a_number() {
    assert_eq!(letter(0), "A");
    assert_eq!(letter(25), "Z");
    assert_eq!(letter(26), "A2");
    let mut status = StatusComment::new();
    let mut answers = 1;
    let answer = Mark {
        stage: Stage::Answer,
        legend: None,
    };
    mark(&mut status, &answer, &mut answers);
    assert_eq!(status.render(), "<!-- chatmd council=answer letter=B -->");
    assert_eq!(answers, 2);
}

#[test]
fn a_missing_or_unknown_chair_is_an_error_in_the_front_matter() {
    let team = team();
    let problems_of = |text: &str| -> Vec<(String, Severity, String)> {
        let chat = Chat::parse(text);
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        problems(&chat, &roster)
            .into_iter()
            .map(|p| (text[p.range].to_owned(), p.severity, p.message))
            .collect()
    };
    assert_eq!(problems_of(HEAD), []);
    let missing = problems_of("---\nrouting: council\n---\n");
    assert_eq!(missing[0].0, "council");
    assert_eq!(missing[0].1, Severity::Error);
    assert!(
        missing[0]
            .2
            .starts_with("`routing: council` needs a `chair:`")
    );
    let unknown = problems_of("---\nrouting: council\nchair: zed\n---\n");
    assert_eq!(
        (unknown[0].0.as_str(), unknown[0].1),
        ("zed", Severity::Error)
    );
    let unused = problems_of("---\nchair: a\n---\n");
    assert_eq!(
        unused,
        [(
            "a".to_owned(),
            Severity::Hint,
            "`chair:` is used only with `routing: council`".to_owned()
        )]
    );
}

#[test]
fn a_message_written_between_rounds_is_not_the_question() {
    // The human wrote a draft while round 1 ran; round 2 was appended after it.
    let text = format!(
        "{HEAD}{}{}\n## @me\na draft\n{}",
        section("a", 1, "done", "council=answer letter=A"),
        section("b", 2, "done", "council=answer letter=B"),
        section("a", 3, "done", "council=review"),
    );
    assert_eq!(after(&text), run(&["c"], &[4]));
    let team = team();
    let chat = Chat::parse(&text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let council = read(&text, &chat, &roster, 4).expect("a council");
    assert_eq!(council.question, 0);
    assert_eq!(legend(&text, &chat, &council), "A=a B=b");
    // Send on the draft itself starts a new council.
    assert_eq!(stage_of(&text, &chat, &roster, 3), Some(Stage::Answer));
}

#[test]
fn a_question_standing_before_an_earlier_councils_rounds_starts_its_own() {
    let first = format!(
        "{HEAD}{}{}",
        section("a", 1, "done", "council=answer letter=A"),
        section("b", 2, "done", "council=answer letter=B"),
    );
    // Written while round 1 ran; its answers came after the decision (Ask).
    let text = format!(
        "{first}\n## @me\nand for sessions?\n{}{}{}{}",
        section("a", 3, "done", "council=review"),
        section("c", 4, "done", "council=decision"),
        section("a", 5, "done", "council=answer letter=A"),
        section("b", 6, "done", "council=answer letter=B"),
    );
    let team = team();
    let chat = Chat::parse(&text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let council = read(&text, &chat, &roster, 7).expect("a council");
    assert_eq!(council.question, 3);
    assert_eq!((council.reviews.len(), council.decision), (0, None));
    assert_eq!(after(&text), run(&["a", "b"], &[6, 7]));
    // The first council, read from its review, still has its own question.
    assert_eq!(
        read(&text, &chat, &roster, 4).expect("a council").question,
        0
    );
}

#[test]
fn answer_letters_in_a_review_or_decision_name_their_answer() {
    let text = format!(
        "{HEAD}{}{}\n## @c\n<!-- chatmd id=t3 agent=claude status=done council=decision -->\nGo with Answer B, not Answer A.\n",
        section("a", 1, "done", "council=answer letter=A"),
        section("b", 2, "done", "council=answer letter=B"),
    );
    let team = team();
    let chat = Chat::parse(&text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let at = |needle: &str| text.find(needle).expect("in the text");
    let named = |offset: usize| {
        answer_named_at(&text, &chat, &roster, offset).map(|(range, a)| (&text[range], a.index))
    };
    assert_eq!(named(at("Answer B") + 8), Some(("Answer B", 2)));
    assert_eq!(named(at("Answer A")), Some(("Answer A", 1)));
    assert_eq!(named(at("Go with")), None);
    // Not in an answer of round 1.
    assert_eq!(named(at("a says.")), None);
}
