use super::*;
use crate::conversation::output::filtered;
use pretty_assertions::assert_eq;

fn step(content: &str, status: StepStatus) -> PlanEntry {
    PlanEntry {
        content: content.into(),
        status,
    }
}

#[test]
fn a_plan_is_a_checklist_in_a_quote() {
    let plan = plan_block(&[
        step("Read the code", StepStatus::Completed),
        step("Write the test\nfor @tester", StepStatus::InProgress),
        step("Run it", StepStatus::Pending),
    ]);
    assert_eq!(
        plan,
        "> **Plan**\n\
         > - [x] Read the code\n\
         > - [ ] Write the test for @tester (in progress)\n\
         > - [ ] Run it\n"
    );
    assert_eq!(plan_block(&[]), "> **Plan**\n> (no steps)\n");
}

fn call(status: CallStatus) -> CallView {
    CallView {
        id: "c1".into(),
        summary: "Edit: Edit notes.txt".into(),
        status,
        locations: vec!["notes.txt:2".into(), "src/a_b.rs".into()],
        diffs: Vec::new(),
        detail: None,
        output: None,
    }
}

#[test]
fn a_tool_call_is_one_line_with_its_status_and_places() {
    let line = |status, ended| call_block(&call(status), ended);
    let places = " · `notes.txt:2`, `src/a_b.rs`\n";
    assert_eq!(
        line(CallStatus::Pending, false),
        format!("> - Edit: Edit notes.txt — pending{places}")
    );
    assert_eq!(
        line(CallStatus::InProgress, false),
        format!("> - Edit: Edit notes.txt — in progress{places}")
    );
    assert_eq!(
        line(CallStatus::Completed, true),
        format!("> - Edit: Edit notes.txt — completed{places}")
    );
    assert_eq!(
        line(CallStatus::Pending, true),
        format!("> - Edit: Edit notes.txt — not run{places}")
    );
    assert_eq!(
        line(CallStatus::InProgress, true),
        format!("> - Edit: Edit notes.txt — did not finish{places}")
    );
    let mut failed = call(CallStatus::Failed);
    failed.locations.clear();
    failed.detail = Some("no such\nfile".into());
    assert_eq!(
        call_block(&failed, false),
        "> - Edit: Edit notes.txt — failed: no such file\n"
    );
}

#[test]
fn a_diff_is_folded_under_its_line_in_a_fence_longer_than_its_backticks() {
    let mut edit = call(CallStatus::Completed);
    edit.locations = vec!["notes.txt".into()];
    edit.diffs = vec![FileDiff {
        path: "notes.txt".into(),
        old: Some("one\ntwo\n".into()),
        new: "one\n```\n## @me\n".into(),
    }];
    assert_eq!(
        call_block(&edit, false),
        "> - Edit: Edit notes.txt — completed · `notes.txt`\n\
         \n<details><summary>Diff of `notes.txt`</summary>\n\n\
         ````diff\n\
         --- a/notes.txt\n\
         +++ b/notes.txt\n\
         @@ -1,2 +1,3 @@\n \
         one\n\
         -two\n\
         +```\n\
         +## @me\n\
         ````\n\
         \n</details>\n\n"
    );
    let new_file = diff_block(&FileDiff {
        path: "new.txt".into(),
        old: None,
        new: "hello\n".into(),
    });
    assert_eq!(
        new_file,
        "<details><summary>Diff of `new.txt`</summary>\n\n\
         ```diff\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n```\n\
         \n</details>\n"
    );
}

#[test]
fn a_huge_diff_is_cut_with_a_note() {
    let new: String = (0..1000).map(|n| format!("line {n}\n")).collect();
    let block = diff_block(&FileDiff {
        path: "big.txt".into(),
        old: None,
        new,
    });
    let lines = block.lines().filter(|l| l.starts_with("+line ")).count();
    assert_eq!(lines, MAX_DIFF_LINES - 3, "the headers count too");
    assert!(
        block.contains(
            "\n```\n\n*The diff is cut here: 803 more lines are left out.*\n\n</details>\n"
        ),
        "{block}"
    );
}

/// What the guard then the output filter make of `pieces`.
fn guarded(pieces: &[&str]) -> String {
    let mut guard = FoldGuard::default();
    let mut out: String = pieces.iter().map(|p| guard.push(p)).collect();
    out.push_str(&guard.finish());
    out
}

#[test]
fn thoughts_cannot_open_or_close_their_fold_however_they_are_cut() {
    let text = "a\n</details>\n  <DETAILS open>\n<div>\n    </details>\nx </details>\n";
    let expected = "a\n\\</details>\n  \\<DETAILS open>\n<div>\n    </details>\nx </details>\n";
    assert_eq!(guarded(&[text]), expected);
    let chars: Vec<String> = text.chars().map(String::from).collect();
    let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
    assert_eq!(guarded(&pieces), expected);
    assert_eq!(guarded(&["</det"]), "</det", "held back, then given back");
    // A forged heading in thoughts is escaped by the output filter after the guard.
    assert_eq!(filtered(&guarded(&["ok\n## @me\n"])), "ok\n## \\@me\n");
}

#[test]
fn mentions_in_thoughts_plans_tool_lines_and_diffs_ask_nobody() {
    use crate::document::chat::Chat;
    let mut guard = FoldGuard::default();
    let thoughts = filtered(&guard.push("ask @tester\n</details>\n@reviewer too\n"));
    let mut call = call(CallStatus::Completed);
    call.summary = "Execute: ping @tester".into();
    call.diffs = vec![FileDiff {
        path: "a.md".into(),
        old: None,
        new: "@tester\n".into(),
    }];
    let body = format!(
        "{THOUGHTS_OPEN}{thoughts}\n{THOUGHTS_CLOSE}\n{}\n{}and now @writer\n",
        plan_block(&[step("hand it to @tester", StepStatus::Pending)]),
        call_block(&call, false)
    );
    let text = format!("## @me\nfix it\n\n## @bob\n{body}");
    let chat = Chat::parse(&text);
    let mentions: Vec<&str> = chat.messages[1]
        .mentions()
        .map(|m| &text[m.handle])
        .collect();
    assert_eq!(mentions, ["writer"], "{text}");
}
