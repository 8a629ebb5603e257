//! A model-based check of the live document with everything a user does while answers
//! stream: one to three members answer at once while the user types (a marker at a
//! time, key by key, or pasted as several lines) at the end of the file, between
//! sections, on the last line of a streaming section and on a heading, deletes what
//! they typed, undoes it, and types and Sends a next message that waits in the queue.
//! Each seed picks the members and the steps; every step is due just before the
//! editor handles one of the server's edits.
//!
//! What must hold at the end, under every simulated editor and way of reporting:
//! every marker the user typed and kept is in the file exactly once (the ones typed at
//! the end in the order typed), the deleted ones are gone; each answer is its agent's
//! whole output right under its own status comment, which ends `done`; nothing is left
//! streaming or queued; and no prompt an agent was given carries answer text or a
//! status comment on a line of the human's words.
//! A failing seed is printed with the file; add it to the seeds when fixing it.

use chatmd_tests::sim_editor::{Behaviour, Reports, SimEditor};
use serde_json::json;

use crate::setup::Setup;

/// Each member's answer: words no human line holds, so a leak shows in any prompt.
const ANSWERS: [(&str, &str); 3] = [
    ("reviewer", "Rq1 Rq2 Rq3 Rq4 Rq5 Rq6 Rq7 Rq8"),
    ("tester", "Tz1 Tz2 Tz3 Tz4 Tz5 Tz6"),
    ("writer", "Wx1 Wx2 Wx3 Wx4 Wx5"),
];

/// A small xorshift generator: the seed alone decides the run.
struct Steps(u64);

impl Steps {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What the user does just before the editor handles an edit.
enum Step {
    /// Types `text` at a place named by `at` in one change (a paste when it holds
    /// several lines) or key by key.
    Type { at: Place, text: String, keys: bool },
    /// Deletes the n-th thing typed (by its text, wherever it is now).
    Delete(usize),
    /// Undoes the last typing not yet deleted or undone.
    Undo,
    /// Types a next message at the end and Sends it while members answer.
    Queue(String),
}

#[derive(Clone)]
enum Place {
    End,
    AfterTitle,
    OnFirstHeading,
    /// The last line of this member's section (just before the next heading).
    EndOf(&'static str),
}

struct Typed {
    text: String,
    marker: String,
    at_end: bool,
    gone: bool,
}

fn plan(seed: u64, members: &[&'static str]) -> Vec<(usize, Step)> {
    let mut r = Steps(seed.max(1));
    let mut steps = Vec::new();
    let mut typed = 0;
    for n in 0..12 {
        let edit = 1 + n + r.below(3) as usize;
        let step = match r.below(10) {
            0 if typed > 0 => Step::Delete(r.below(typed) as usize),
            1 if typed > 0 => Step::Undo,
            _ => {
                let marker = format!("«{seed}:{n}»");
                let at = match r.below(5) {
                    0 => Place::AfterTitle,
                    1 => Place::OnFirstHeading,
                    2 => Place::EndOf(members[r.below(members.len() as u64) as usize]),
                    _ => Place::End,
                };
                let (text, keys) = match r.below(4) {
                    0 => (format!("\n> pasted {marker}\n- and a list\n"), false),
                    1 => (format!("{marker} typed"), true),
                    2 => (format!("\n{marker}\n"), false),
                    _ => (marker.clone(), false),
                };
                typed += 1;
                Step::Type { at, text, keys }
            }
        };
        steps.push((edit, step));
    }
    if r.below(2) == 0 {
        let edit = 3 + r.below(6) as usize;
        let member = members[r.below(members.len() as u64) as usize];
        steps.push((edit, Step::Queue(format!("@{member} QUEUED-{seed} next"))));
    }
    steps.sort_by_key(|(edit, _)| *edit);
    steps
}

fn setup(members: &[&'static str]) -> Setup {
    let knobs: Vec<(&str, Vec<(&str, String)>)> = members
        .iter()
        .enumerate()
        .map(|(n, member)| {
            let answer = ANSWERS
                .iter()
                .find(|(m, _)| m == member)
                .expect("a member")
                .1;
            let knobs = vec![
                ("FAKE_AGENT_TEXT", answer.to_string()),
                ("FAKE_AGENT_CHUNKS", (5 + n).to_string()),
                ("FAKE_AGENT_DELAY_MS", (40 + 15 * n).to_string()),
                ("FAKE_AGENT_RECORD", format!("@RECORDS@/{member}.jsonl")),
            ];
            (*member, knobs)
        })
        .collect();
    let borrowed: Vec<Vec<(&str, &str)>> = knobs
        .iter()
        .map(|(_, k)| k.iter().map(|(a, b)| (*a, b.as_str())).collect())
        .collect();
    let table: Vec<(&str, &[(&str, &str)])> = knobs
        .iter()
        .zip(&borrowed)
        .map(|((m, _), k)| (*m, k.as_slice()))
        .collect();
    let s = Setup::new(&table);
    std::fs::create_dir_all(s.path("records")).expect("records folder");
    let records = s.path("records").display().to_string();
    let config = s.read("team/chatmd.toml");
    s.write("team/chatmd.toml", &config.replace("@RECORDS@", &records));
    s
}

/// Where `at` is in `text` now, or `None` while it is not there yet.
fn offset(text: &str, at: &Place) -> Option<usize> {
    match at {
        Place::End => Some(text.len()),
        Place::AfterTitle => text.find("# Notes").map(|i| i + "# Notes".len()),
        Place::OnFirstHeading => text.find("## @me").map(|i| i + "## @me".len()),
        Place::EndOf(member) => {
            let section = text.find(&format!("## @{member}\n"))?;
            let next = text[section + 4..].find("\n## @")? + section + 4;
            Some(next)
        }
    }
}

async fn perform(editor: &mut SimEditor, uri: &str, step: &Step, typed: &mut Vec<Typed>) -> bool {
    match step {
        Step::Type { at, text, keys } => {
            let Some(start) = offset(editor.text(uri), at) else {
                return false;
            };
            if *keys {
                for (i, c) in text.char_indices() {
                    let at = start + i;
                    editor.replace(uri, at..at, &c.to_string()).await;
                }
            } else {
                editor.replace(uri, start..start, text).await;
            }
            let marker = text[text.find('«').expect("a marker")..].to_string();
            let marker = marker[..marker.find('»').expect("a marker") + '»'.len_utf8()].to_string();
            typed.push(Typed {
                text: text.clone(),
                marker,
                at_end: matches!(at, Place::End),
                gone: false,
            });
        }
        Step::Delete(n) => delete(editor, uri, typed, Some(*n)).await,
        Step::Undo => delete(editor, uri, typed, None).await,
        Step::Queue(message) => {
            let message = format!("\n## @me\n{message}\n");
            let end = editor.text(uri).len();
            editor.replace(uri, end..end, &message).await;
            let answer = editor.command("chatmd.send", json!({"uri": uri})).await;
            assert!(answer.is_ok(), "Send of the next message: {answer:?}");
        }
    }
    true
}

/// Deletes the n-th typing (or the last one still there): its text must still be
/// there in one piece, as typed.
async fn delete(editor: &mut SimEditor, uri: &str, typed: &mut [Typed], n: Option<usize>) {
    let which = match n {
        Some(n) => Some(n).filter(|n| typed.get(*n).is_some_and(|t| !t.gone)),
        None => typed.iter().rposition(|t| !t.gone),
    };
    let Some(which) = which else { return };
    let t = &mut typed[which];
    let text = editor.text(uri);
    let start = text
        .find(&t.text)
        .unwrap_or_else(|| panic!("{:?} was split or moved: {text:?}", t.text));
    editor.delete(uri, start..start + t.text.len()).await;
    t.gone = true;
}

async fn run(behaviour: Behaviour, reports: Reports, split: bool, eglot: bool, seed: u64) {
    let members: &[&'static str] = match seed % 3 {
        0 => &["reviewer"],
        1 => &["reviewer", "tester"],
        _ => &["reviewer", "tester", "writer"],
    };
    let s = setup(members);
    let mentions: Vec<String> = members.iter().map(|m| format!("@{m}")).collect();
    let chat = format!("# Notes\n\n## @me\n{} please look.\n", mentions.join(" "));
    let (mut editor, uri) = s.open_chat(behaviour, "team/m.chat.md", &chat).await;
    editor.reports = reports;
    editor.split_echo = split;
    editor.stale_as_error = eglot;
    let mut steps = plan(seed, members);
    let mut typed = Vec::new();
    let mut runs = members.len();
    crate::setup::send(&mut editor, &uri).await;
    let mut edits = 0;
    loop {
        let text = editor.text(&uri);
        let round_over = text.matches("status=done").count() == runs
            && !text.contains("status=streaming")
            && !text.contains("status=queued");
        if round_over {
            // Steps still due when the answers ended are done now (a next message is
            // then Sent as a new round); one whose place never came is dropped.
            let queue = steps.iter().any(|(_, s)| matches!(s, Step::Queue(_)));
            for (_, step) in std::mem::take(&mut steps) {
                perform(&mut editor, &uri, &step, &mut typed).await;
            }
            if !queue {
                break;
            }
            runs += 1;
        }
        let next = tokio::time::timeout(
            std::time::Duration::from_secs(8),
            editor.client.expect_request("workspace/applyEdit"),
        )
        .await;
        let Ok((id, params)) = next else {
            panic!(
                "seed {seed}: no more edits, the file: {:?}",
                editor.text(&uri)
            );
        };
        edits += 1;
        let mut later = Vec::new();
        for (due, step) in std::mem::take(&mut steps) {
            // A step waits for its place (a section not there yet); Send is run
            // between edits, once the editor has answered the one it holds.
            let now = due <= edits && !matches!(step, Step::Queue(_));
            if !(now && perform(&mut editor, &uri, &step, &mut typed).await) {
                later.push((due, step));
            }
        }
        editor.handle_edit(id, params).await;
        for (due, step) in later {
            if due <= edits && matches!(step, Step::Queue(_)) {
                perform(&mut editor, &uri, &step, &mut typed).await;
                runs += 1;
            } else {
                steps.push((due, step));
            }
        }
        assert!(edits < 5000, "seed {seed}: no end: {}", editor.text(&uri));
    }
    // The reply stub and anything else the server still writes.
    while let Ok((id, params)) = tokio::time::timeout(
        std::time::Duration::from_secs(1),
        editor.client.expect_request("workspace/applyEdit"),
    )
    .await
    {
        editor.handle_edit(id, params).await;
    }
    let run = format!("{behaviour:?} {reports:?} split={split} eglot={eglot} seed {seed}");
    check(&s, editor.text(&uri), &typed, members, runs, &run);
}

fn check(s: &Setup, text: &str, typed: &[Typed], members: &[&str], runs: usize, run: &str) {
    let context = format!("{run}: {text:?}");
    let mut last_end = 0;
    for t in typed {
        let expected = usize::from(!t.gone);
        assert_eq!(
            text.matches(&t.marker).count(),
            expected,
            "{}: {context}",
            t.marker
        );
        if !t.gone && t.at_end {
            let at = text.find(&t.marker).expect("kept");
            assert!(
                at > last_end,
                "{} typed at the end in order: {context}",
                t.marker
            );
            last_end = at;
        }
    }
    for (member, answer) in ANSWERS.iter().filter(|(m, _)| members.contains(m)) {
        let heading = format!("## @{member}\n<!-- chatmd id=");
        let sections: Vec<&str> = text
            .match_indices(&heading)
            .map(|(at, _)| &text[at..])
            .collect();
        assert!(!sections.is_empty(), "@{member}'s section: {context}");
        for section in &sections {
            let status_end = section.find("-->\n").expect("status comment") + 4;
            assert!(
                section[..status_end].contains("status=done"),
                "@{member} done: {context}"
            );
            assert!(
                section[status_end..].starts_with(answer),
                "@{member}'s answer whole, right under its status: {context}"
            );
        }
        assert_eq!(text.matches(answer).count(), sections.len(), "{context}");
    }
    assert_eq!(text.matches("<!-- chatmd id=").count(), runs, "{context}");
    for member in members {
        let records =
            std::fs::read_to_string(s.path(&format!("records/{member}.jsonl"))).unwrap_or_default();
        for line in records.lines() {
            let record: serde_json::Value = serde_json::from_str(line).expect("a record");
            let prompt = record["prompt"].as_str().unwrap_or_default();
            assert!(
                !prompt.contains("<!-- chatmd"),
                "@{member}'s prompt {prompt:?}: {context}"
            );
            for human in prompt
                .lines()
                .filter(|l| l.contains('«') || l.contains("QUEUED-"))
            {
                assert!(
                    !["Rq", "Tz", "Wx"].iter().any(|a| human.contains(a)),
                    "answer text on a line of the human's words in @{member}'s prompt \
                     {prompt:?}: {context}"
                );
            }
        }
    }
}

async fn every_seed(behaviour: Behaviour, reports: Reports, split: bool) {
    for seed in [1, 2, 3, 5, 23, 101, 777, 4242] {
        run(behaviour, reports, split, false, seed).await;
    }
}

/// eglot (Emacs) refuses an edit for an older version of its buffer with an error
/// reply, not `applied: false`: the server computes it again all the same.
#[tokio::test]
async fn live_model_with_stale_edits_refused_by_an_error_eglot() {
    for seed in [1, 2, 3, 5, 23, 101, 777, 4242] {
        run(Behaviour::VsCode, Reports::Ranges, false, true, seed).await;
    }
}

#[tokio::test]
async fn live_model_with_ranges_vscode() {
    every_seed(Behaviour::VsCode, Reports::Ranges, false).await;
}

#[tokio::test]
async fn live_model_with_ranges_neovim() {
    every_seed(Behaviour::Neovim, Reports::Ranges, false).await;
}

#[tokio::test]
async fn live_model_with_a_split_echo_neovim() {
    every_seed(Behaviour::Neovim, Reports::Ranges, true).await;
}

#[tokio::test]
async fn live_model_with_whole_text_reports_vscode() {
    every_seed(Behaviour::VsCode, Reports::WholeText, false).await;
}

#[tokio::test]
async fn live_model_with_whole_text_reports_neovim() {
    every_seed(Behaviour::Neovim, Reports::WholeText, false).await;
}

#[tokio::test]
async fn live_model_with_many_small_reports_vscode() {
    every_seed(Behaviour::VsCode, Reports::ManySmall, false).await;
}
