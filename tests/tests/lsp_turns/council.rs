//! `routing: council` from the editor: the members asked answer apart (round 1), each
//! reviews the others' answers shown by letter without names (round 2), and the chair
//! writes the decision (round 3); each round is a section with its status, marked in
//! the file so a reopened file or `chatmd send` knows where the council stands.

use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::compare::compare_team;
use crate::resume::runs;
use crate::setup::{finished, redact, turns_ended};

const HEAD: &str =
    "---\nrouting: council\nchair: writer\n---\n## @me\n@reviewer @tester which cache?\n";

/// The status comments cut to what the rounds show: id, agent, status, round, letter
/// (the decision: the legend of the letters).
pub(crate) fn rounds(text: &str) -> String {
    let status = regex::Regex::new(
        r#"<!-- chatmd id=(t\d+) agent=(\w+) status=(\w+)[^>]*? council=(\w+)(?: letters?=("[^"]*"|\w+))?[^>]*-->"#,
    )
    .expect("regex");
    status
        .replace_all(&redact(text), "<!-- $1 $2 $3 $4 $5 -->")
        .into_owned()
}

/// Waits until the chair's decision is written and the turns ended.
async fn until_decided(editor: &mut chatmd_tests::sim_editor::SimEditor, uri: &str) {
    editor
        .run_until("the decision", |e| {
            let text = e.text(uri);
            finished(text) && text.contains("council=decision")
        })
        .await;
    turns_ended(editor).await;
}

fn prompt(run: &Value) -> &str {
    run["prompt"].as_str().expect("a prompt")
}

/// Whether `run` shows any of `names`, in its prompt or its command line.
fn shows_any(run: &Value, names: &[&str]) -> bool {
    let seen = format!("{} {}", run["prompt"], run["argv"]).to_lowercase();
    names.iter().any(|n| seen.contains(n))
}

#[tokio::test]
async fn council_answers_then_reviews_by_letter_then_the_chair_decides() {
    let s = compare_team(&[
        ("reviewer", "An LRU cache; @tester is wrong.", ""),
        ("tester", "A TTL cache, says the tester.", ""),
        (
            "writer",
            "Decision: Answer A, with the TTL of Answer B.",
            "",
        ),
    ]);
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/c.chat.md", HEAD).await;
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": ["reviewer", "tester"]})));
    editor
        .run_until("the decision", |e| {
            let text = e.text(&uri);
            finished(text)
                && text.contains("council=decision")
                && text.matches("status=done").count() == 5
        })
        .await;
    turns_ended(&mut editor).await;
    assert_eq!(
        rounds(editor.text(&uri)),
        format!(
            "{HEAD}\
             \n## @reviewer\n<!-- t1 claude done answer A -->\nAn LRU cache; @tester is wrong.\n\
             \n## @tester\n<!-- t2 codex done answer B -->\nA TTL cache, says the tester.\n\
             \n## @reviewer\n<!-- t3 claude done review  -->\nAn LRU cache; @tester is wrong.\n\
             \n## @tester\n<!-- t4 codex done review  -->\nA TTL cache, says the tester.\n\
             \n## @writer\n<!-- t5 gemini done decision \"A=reviewer B=tester\" -->\nDecision: Answer A, with the TTL of Answer B.\n\
             \n## @me\n"
        )
    );
    // The human hovers a letter in the decision: whose answer it is.
    let text = editor.text(&uri).to_owned();
    let line = text
        .lines()
        .position(|l| l.starts_with("Decision: "))
        .expect("the decision");
    let hover = editor
        .client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 40}}),
        )
        .await
        .expect("hover");
    assert_eq!(
        hover["contents"]["value"],
        "**Answer B** — @tester's answer in round 1 of this council (t2, done). The members were shown it by letter only."
    );
    let runs = runs(&s);
    assert_eq!(runs.len(), 5);
    // Round 2: each member sees its own answer as its own and the other by letter, and
    // no other member's name anywhere.
    let reviews: Vec<&Value> = runs[2..4].iter().collect();
    let by = |cli: &str| *reviews.iter().find(|r| r["as"] == cli).expect("a review");
    assert!(!shows_any(by("claude"), &["tester", "writer"]));
    assert!(!shows_any(by("codex"), &["reviewer", "writer"]));
    assert_eq!(
        prompt(by("codex")),
        "[CONTEXT]\n\
         You are @tester, one of several members of a council who answered the same question on their own. Their answers are shown by letter, without names, each quoted whole in a code fence.\n\
         The question, from @me: which cache?\n\
         \nAnswer A:\n```\nAn LRU cache; a member is wrong.\n```\n\
         \nAnswer B (yours):\n```\nA TTL cache, says the a member.\n```\n\
         [MESSAGE]\n\
         Review the other answers (A): for each, say what it gets right, what it gets wrong or misses, and how it compares with yours. Cite them by letter. The council's chair decides next.\n"
    );
    // Round 3: the chair, last, gets the answers and the reviews by letter.
    assert_eq!(runs[4]["as"], "gemini");
    assert!(!shows_any(&runs[4], &["reviewer", "tester"]));
    assert!(prompt(&runs[4]).ends_with(
        "The question, from @me: which cache?\n\
         \nAnswer A:\n```\nAn LRU cache; a member is wrong.\n```\n\
         \nAnswer B:\n```\nA TTL cache, says the a member.\n```\n\
         \nReview by the author of Answer A:\n```\nAn LRU cache; a member is wrong.\n```\n\
         \nReview by the author of Answer B:\n```\nA TTL cache, says the a member.\n```\n\
         [MESSAGE]\n\
         Write the council's decision on the question: which answer to follow, or how to combine them, and why. Cite the answers by letter (Answer A, Answer B).\n"
    ));
}

#[tokio::test]
async fn routing_and_chair_are_completed_explained_and_checked() {
    let s = compare_team(&[("reviewer", "A.", ""), ("writer", "C.", "")]);
    let chat = "---\nrouting: co\nchair: zed\n---\n## @me\nwhich cache?\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/h.chat.md", chat).await;
    // An unknown mode is an error; a chair outside a council is only a hint.
    let shown = |diagnostics: &[Value]| -> Vec<(u64, u64, u64, String)> {
        diagnostics
            .iter()
            .map(|d| {
                let start = &d["range"]["start"];
                (
                    start["line"].as_u64().unwrap(),
                    start["character"].as_u64().unwrap(),
                    d["severity"].as_u64().unwrap(),
                    d["code"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let diagnostics = editor.client.expect_diagnostics(&uri).await;
    assert_eq!(
        shown(&diagnostics),
        [
            (1, 9, 1, "front-matter".to_owned()),
            (2, 7, 4, "council-chair".to_owned())
        ]
    );
    let request = |line: u32, character: u32| json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
    let labels = |items: &Value| -> Vec<String> {
        let items = items.as_array().expect("items").iter();
        items
            .map(|i| i["label"].as_str().unwrap().to_owned())
            .collect()
    };
    let items = editor
        .client
        .request("textDocument/completion", request(1, 11))
        .await
        .expect("completion");
    assert_eq!(
        labels(&items),
        ["mentions", "round-robin", "all", "compare", "council"]
    );
    assert_eq!(
        items[4]["textEdit"]["range"],
        json!({"start": {"line": 1, "character": 9}, "end": {"line": 1, "character": 11}})
    );
    editor.replace(&uri, 4..15, "routing: council").await;
    // In a council, the unknown chair is an error on its value.
    loop {
        let diagnostics = editor.client.expect_diagnostics(&uri).await;
        if !diagnostics.is_empty() {
            assert_eq!(shown(&diagnostics), [(2, 7, 1, "council-chair".to_owned())]);
            let message = diagnostics[0]["message"].as_str().unwrap();
            assert_eq!(
                message,
                "the council's chair @zed is not a member of the team: name one of its members in `chair:`"
            );
            break;
        }
    }
    let items = editor
        .client
        .request("textDocument/completion", request(2, 10))
        .await
        .expect("completion");
    assert_eq!(labels(&items), ["reviewer", "writer", "tester"]);
    for (line, character, shown) in [
        (1, 12, "**routing: council**\n\nThree rounds"),
        (2, 8, "**chair: @zed — not a member of this team**"),
    ] {
        let hover = editor
            .client
            .request("textDocument/hover", request(line, character))
            .await
            .expect("hover");
        let value = hover["contents"]["value"].as_str().unwrap_or_default();
        assert!(value.starts_with(shown), "{hover}");
    }
    // Send runs nothing and says why.
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(
        answer,
        Ok(
            json!({"members": [], "reason": "the council's chair @zed is not a member of the team: name one of its members in `chair:`"})
        )
    );
    assert_eq!(
        editor.text(&uri),
        chat.replace("routing: co", "routing: council")
    );
}

const COUNCIL_OF_THREE: &str = "---\nrouting: council\nchair: writer\n---\n## @me\nwhich cache?\n";

/// A council of the reviewer, the tester (with `knob`) and the writer as chair, sent.
async fn council_of_three(
    knob: (&str, &str),
) -> (
    crate::setup::Setup,
    chatmd_tests::sim_editor::SimEditor,
    String,
) {
    let s = crate::setup::Setup::new(&[
        ("reviewer", &[("FAKE_AGENT_TEXT", "An LRU cache.")]),
        ("tester", &[knob]),
        ("writer", &[("FAKE_AGENT_TEXT", "A TTL cache.")]),
    ]);
    let (mut editor, uri) = s
        .open_chat(Behaviour::VsCode, "team/x.chat.md", COUNCIL_OF_THREE)
        .await;
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(
        answer,
        Ok(json!({"members": ["reviewer", "tester", "writer"]}))
    );
    (s, editor, uri)
}

#[tokio::test]
async fn a_cancel_stops_the_council_and_send_goes_on_with_the_next_round() {
    let (_s, mut editor, uri) = council_of_three(("FAKE_AGENT_HANG", "1")).await;
    let head = COUNCIL_OF_THREE;
    editor
        .run_until("two answers", |e| {
            e.text(&uri).matches("status=done").count() == 2
        })
        .await;
    let answer = editor
        .command("chatmd.cancel", json!({"uri": uri, "member": "tester"}))
        .await;
    assert_eq!(answer, Ok(json!({"cancelled": ["tester"]})));
    editor
        .run_until("the cancelled turn", |e| finished(e.text(&uri)))
        .await;
    turns_ended(&mut editor).await;
    let round1 = "\n## @reviewer\n<!-- t1 claude done answer A -->\nAn LRU cache.\n\
                  \n## @tester\n<!-- t2 codex cancelled answer B -->\n\
                  \n## @writer\n<!-- t3 gemini done answer C -->\nA TTL cache.\n";
    // The council stopped after the round: no review ran.
    assert_eq!(
        rounds(editor.text(&uri)),
        format!("{head}{round1}\n## @me\n")
    );
    // Send goes on from the file: the reviews of the two answers done, then the chair.
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": ["reviewer", "writer"]})));
    until_decided(&mut editor, &uri).await;
    assert_eq!(
        rounds(editor.text(&uri)),
        format!(
            "{head}{round1}\n## @me\n\
             \n## @reviewer\n<!-- t4 claude done review  -->\nAn LRU cache.\n\
             \n## @writer\n<!-- t5 gemini done review  -->\nA TTL cache.\n\
             \n## @writer\n<!-- t6 gemini done decision \"A=reviewer B=tester C=writer\" -->\nA TTL cache.\n\
             \n## @me\n"
        )
    );
}

#[tokio::test]
async fn a_message_queued_during_a_council_stops_it_and_starts_the_next() {
    let s = crate::setup::Setup::new(&[
        (
            "reviewer",
            &[
                ("FAKE_AGENT_TEXT", "one two three four"),
                ("FAKE_AGENT_CHUNKS", "4"),
                ("FAKE_AGENT_DELAY_MS", "150"),
            ],
        ),
        ("tester", &[("FAKE_AGENT_TEXT", "A TTL cache.")]),
        ("writer", &[("FAKE_AGENT_TEXT", "Decision: A.")]),
    ]);
    let head =
        "---\nrouting: council\nchair: writer\n---\n## @me\n@reviewer @tester which cache?\n";
    let (mut editor, uri) = s.open_chat(Behaviour::VsCode, "team/q.chat.md", head).await;
    let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
    assert_eq!(answer, Ok(json!({"members": ["reviewer", "tester"]})));
    editor
        .run_until("the reviewer's section", |e| {
            e.text(&uri).contains("## @reviewer\n")
        })
        .await;
    let next = "\n## @me\n@tester and for sessions?\n";
    crate::setup::send_queued(&mut editor, &uri, next).await;
    editor
        .run_until("the queued message's answer", |e| {
            let text = e.text(&uri);
            finished(text) && text.matches("status=done").count() == 3
        })
        .await;
    turns_ended(&mut editor).await;
    // One answer is not a council to review: the new council ends with it.
    assert_eq!(
        rounds(editor.text(&uri)),
        format!(
            "{head}\
             \n## @reviewer\n<!-- t1 claude done answer A -->\none two three four\n\
             \n## @tester\n<!-- t2 codex done answer B -->\nA TTL cache.\n\
             {next}\
             \n## @tester\n<!-- t3 codex done answer A -->\nA TTL cache.\n\
             \n## @me\n"
        )
    );
}

#[tokio::test]
async fn a_member_that_fails_is_left_out_of_the_later_rounds_with_a_note() {
    let (_s, mut editor, uri) = council_of_three(("FAKE_AGENT_TRANSCRIPT", "api-error")).await;
    until_decided(&mut editor, &uri).await;
    let text = rounds(editor.text(&uri));
    assert!(
        text.contains("\n## @tester\n<!-- t2 codex error answer B -->\n"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "\n## @writer\n<!-- t3 gemini done answer C -->\nA TTL cache.\n\
             \n## @reviewer\n<!-- t4 claude done review  -->\nAn LRU cache.\n\
             \n## @writer\n<!-- t5 gemini done review  -->\nA TTL cache.\n\
             \n## @writer\n<!-- t6 gemini done decision \"A=reviewer B=tester C=writer\" -->\nA TTL cache.\n\
             \n## @me\n"
        ),
        "{text}"
    );
    let shown = editor
        .client
        .drain_notifications("window/showMessage")
        .await;
    let note = json!({"type": 3, "message": "council: @tester's answer B ended error; it is left out of the review and the decision"});
    assert_eq!(shown.iter().filter(|m| **m == note).count(), 1, "{shown:?}");
}
