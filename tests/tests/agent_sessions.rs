//! The built-in adapters' sessions against the fake CLIs: each is headless, so the
//! prompt it writes on stdin is followed by the end of file (the real CLIs read to it
//! before they start), even while the caller holds a command channel open.

mod fake_support;

use std::time::Duration;

use chatmd::agents::{AgentEntry, AgentEvent, AgentKind, Stdin, plan_turn, session_for};
use chatmd::runner::{self, Caller, Ended, Settings};
use chatmd::team::Member;
use fake_support::{DEADLINE, Sandbox};
use pretty_assertions::assert_eq;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn a_headless_session_writes_the_prompt_then_closes_stdin() {
    let body = format!("[MESSAGE]\nme: {}", "review this line\n".repeat(9000));
    assert!(body.len() > 128 * 1024, "too large for an argument");
    for &kind in AgentKind::ALL {
        let sandbox = Sandbox::new();
        let entry = AgentEntry::builtin(kind);
        let member = Member::new("alice", kind.name(), sandbox.work.clone());
        let mut invocation = plan_turn(&entry, &member, "You review code.", &body, None);
        let Stdin::Prompt(prompt) = invocation.stdin.clone() else {
            panic!("{kind}: a large prompt goes on stdin");
        };
        let record = sandbox.path("record.json");
        invocation.env.extend([
            ("PATH".to_owned(), sandbox.bin.display().to_string()),
            ("IS_SANDBOX".to_owned(), String::new()),
            ("FAKE_AGENT_TEXT".to_owned(), "Looks fine.".to_owned()),
            ("FAKE_AGENT_RECORD".to_owned(), record.display().to_string()),
        ]);
        // The fake, like the real CLI, waits for the end of its stdin: a session that
        // kept it open would run into the idle limit instead.
        invocation.limits.idle = Some(Duration::from_secs(20));

        let (events, mut received) = mpsc::channel(64);
        let (commands, mut orders) = mpsc::channel(1);
        let caller = Caller {
            events,
            commands: &mut orders,
            cancel: CancellationToken::new(),
        };
        let session = session_for(&entry, &invocation);
        let turn = runner::run_session(invocation, session, caller, Settings::default());
        let outcome = tokio::time::timeout(DEADLINE, turn).await.expect("no hang");
        assert!(
            matches!(outcome.ended, Ended::Completed),
            "{kind}: {:?}",
            outcome.ended
        );
        let mut text = String::new();
        while let Some(event) = received.recv().await {
            if let AgentEvent::Text(piece) = event {
                text.push_str(&piece);
            }
        }
        assert_eq!(text, "Looks fine.", "{kind}");
        let record: Value =
            serde_json::from_str(&std::fs::read_to_string(&record).expect("record")).unwrap();
        assert_eq!(record["stdin"].as_str(), Some(prompt.as_str()), "{kind}");
        drop(commands);
    }
}
