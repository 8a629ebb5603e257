//! What an ACP turn writes besides its words, against the recording port: thoughts
//! folded where they happen (filtered like the answer, or left out), the plan written
//! once and rewritten in place while the user types elsewhere, a plan the user edited
//! left alone with the new one at the end, and tool lines rewritten as calls go on.

use pretty_assertions::assert_eq;
use tokio::sync::mpsc;

use super::anchors::Anchors;
use super::flush::flush;
use super::live::Live;
use super::testing::{RecordingPort, masked, started_turn};
use crate::agents::{
    AgentEvent, CallStatus, CallView, ContextUsage, FileDiff, PlanEntry, StepStatus,
};
use crate::runner::{Ended, RunOutcome, Stats};
use crate::team::{Member, Thoughts};

const ASKED: &str = "## @me\n@writer fix notes.txt\n\n";

async fn turn(port: &mut RecordingPort, thoughts: Thoughts) -> (Live, Anchors) {
    let mut member = Member::new("writer", "acp", "/ws/writer".into());
    member.thoughts = thoughts;
    started_turn(port, &member, "acp").await
}

async fn written(port: &mut RecordingPort, live: &mut Live, anchors: &mut Anchors) -> String {
    flush(port, std::slice::from_mut(live), anchors)
        .await
        .unwrap();
    masked(port.text())
}

fn plan(statuses: [StepStatus; 3]) -> AgentEvent {
    let names = ["Read notes.txt", "Fix the typo", "Check it"];
    AgentEvent::Plan(
        names
            .iter()
            .zip(statuses)
            .map(|(name, status)| PlanEntry {
                content: (*name).into(),
                status,
            })
            .collect(),
    )
}

fn call(status: CallStatus) -> AgentEvent {
    AgentEvent::Call(Box::new(CallView {
        id: "toolu_1".into(),
        summary: "Edit: Edit notes.txt".into(),
        status,
        locations: vec!["notes.txt:1".into()],
        diffs: vec![FileDiff {
            path: "notes.txt".into(),
            old: Some("helo\n".into()),
            new: "hello\n".into(),
        }],
        detail: None,
        output: None,
    }))
}

const DIFF: &str = "\n<details><summary>Diff of `notes.txt`</summary>\n\n```diff\n\
                    --- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-helo\n+hello\n```\n\n</details>\n\n";

#[tokio::test]
async fn thoughts_plan_and_tool_lines_land_where_they_happen_and_change_in_place() {
    use StepStatus::{Completed, InProgress, Pending};
    let mut port = RecordingPort::new(ASKED);
    let (mut live, mut anchors) = turn(&mut port, Thoughts::Folded).await;
    let (answers, _unused) = mpsc::channel(4);
    let event = |live: &mut Live, port: &mut RecordingPort, e| live.on_event(port, e, &answers);
    event(
        &mut live,
        &mut port,
        AgentEvent::Thought("Look at it.\n## @me\n".into()),
    );
    event(
        &mut live,
        &mut port,
        AgentEvent::Thought("```sh\n@tester".into()),
    );
    event(
        &mut live,
        &mut port,
        AgentEvent::Text("I'll fix it.".into()),
    );
    event(&mut live, &mut port, plan([InProgress, Pending, Pending]));
    event(&mut live, &mut port, call(CallStatus::Pending));
    let usage = ContextUsage {
        used: 20040,
        size: 1_000_000,
        cost: Some("0.0998 USD".into()),
    };
    event(&mut live, &mut port, AgentEvent::Context(usage));
    let text = written(&mut port, &mut live, &mut anchors).await;
    let head = "## @writer\n<!-- chatmd id=t1 agent=acp status=streaming started=… \
                context=20040/1000000 cost=\"0.0998 USD\" -->\n\
                <details><summary>Thoughts</summary>\n\n\
                Look at it.\n## \\@me\n```sh\n@tester\n```\n\n</details>\n\n\
                I'll fix it.\n\n";
    let plan_v1 = "> **Plan**\n> - [ ] Read notes.txt (in progress)\n> - [ ] Fix the typo\n> - [ ] Check it\n";
    let line = |status| format!("> - Edit: Edit notes.txt — {status} · `notes.txt:1`\n");
    assert_eq!(
        text,
        format!("{ASKED}{head}{plan_v1}\n{}{DIFF}", line("pending"))
    );

    // The user types in the answer, above the plan, before the plan's rewrite lands.
    port.before_edit(
        |_| true,
        |text| {
            let at = text.find("I'll fix it.").unwrap();
            (at..at, "(my note) ".into())
        },
    );
    event(&mut live, &mut port, plan([Completed, InProgress, Pending]));
    event(&mut live, &mut port, call(CallStatus::Completed));
    let text = written(&mut port, &mut live, &mut anchors).await;
    let plan_v2 = "> **Plan**\n> - [x] Read notes.txt\n> - [ ] Fix the typo (in progress)\n> - [ ] Check it\n";
    let head = head.replace("I'll fix it.", "(my note) I'll fix it.");
    assert_eq!(
        text,
        format!("{ASKED}{head}{plan_v2}\n{}{DIFF}", line("completed"))
    );

    // The user edits the plan itself: theirs stays, the next plan goes at the end.
    port.before_edit(
        |_| true,
        |text| {
            let at = text.find("Fix the typo").unwrap();
            (at..at + 3, "Correct".into())
        },
    );
    event(&mut live, &mut port, AgentEvent::Text("Fixed.".into()));
    event(
        &mut live,
        &mut port,
        plan([Completed, Completed, Completed]),
    );
    live.on_end(&RunOutcome {
        ended: Ended::Completed,
        exit: Some(crate::agents::ExitInfo {
            code: Some(0),
            stderr_tail: String::new(),
        }),
        stats: Stats::default(),
    });
    let text = written(&mut port, &mut live, &mut anchors).await;
    let edited = plan_v2.replace("Fix the typo", "Correct the typo");
    let plan_v3 = "> **Plan**\n> - [x] Read notes.txt\n> - [x] Fix the typo\n> - [x] Check it\n";
    assert_eq!(
        text,
        format!(
            "{ASKED}{}{edited}\n{}{DIFF}Fixed.\n\n{plan_v3}",
            head.replace("status=streaming", "status=done")
                .replace("cost=\"0.0998 USD\"", "cost=\"0.0998 USD\" took=… exit=0"),
            line("completed")
        )
    );
}

#[tokio::test]
async fn hidden_thoughts_leave_nothing_and_unfinished_calls_say_so_at_the_end() {
    let mut port = RecordingPort::new(ASKED);
    let (mut live, mut anchors) = turn(&mut port, Thoughts::Hidden).await;
    let (answers, _unused) = mpsc::channel(4);
    live.on_event(&mut port, AgentEvent::Thought("secret".into()), &answers);
    live.on_event(&mut port, AgentEvent::Text("Working.".into()), &answers);
    for (id, status) in [("a", CallStatus::Pending), ("b", CallStatus::InProgress)] {
        let call = CallView {
            id: id.into(),
            summary: format!("Execute: step {id}"),
            status,
            locations: Vec::new(),
            diffs: Vec::new(),
            detail: None,
            output: None,
        };
        live.on_event(&mut port, AgentEvent::Call(Box::new(call)), &answers);
    }
    let text = written(&mut port, &mut live, &mut anchors).await;
    assert!(
        text.ends_with(
            "Working.\n\n> - Execute: step a — pending\n> - Execute: step b — in progress\n"
        ),
        "{text}"
    );
    live.on_end(&RunOutcome {
        ended: Ended::Cancelled,
        exit: None,
        stats: Stats::default(),
    });
    let text = written(&mut port, &mut live, &mut anchors).await;
    assert_eq!(
        text,
        format!(
            "{ASKED}## @writer\n<!-- chatmd id=t1 agent=acp status=cancelled started=… took=… -->\n\
             Working.\n\n> - Execute: step a — not run\n> - Execute: step b — did not finish\n"
        )
    );
}
