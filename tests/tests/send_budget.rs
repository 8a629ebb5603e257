//! Budgets through `chatmd send`: each claude answer records its cost in the status
//! comment, and a member whose answers have cost its `budget:` is not started again:
//! the send fails saying so, and nothing is written.

use pretty_assertions::assert_eq;

mod send_support;

send_support::setup_around_workspace! {
    /// The shared workspace.
}

/// `text` with the status comments' times cut.
fn masked(text: &str) -> String {
    let times = regex::Regex::new(r" (started|took|session)=[^ ]+").unwrap();
    times.replace_all(text, "").into_owned()
}

#[test]
fn a_member_over_its_budget_is_not_started_and_says_so() {
    let s = Setup(send_support::Workspace::new());
    let knobs = [("FAKE_AGENT_TEXT", "done"), ("FAKE_AGENT_COST", "0.6")];
    let send = |chat: &str| {
        s.write("team/b.chat.md", chat);
        let out = s
            .command(&["team/b.chat.md"], &knobs)
            .output()
            .expect("run chatmd send");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            masked(&s.read("team/b.chat.md")),
        )
    };
    let head = "---\nbudget: { reviewer: 1.00 }\n---\n";
    let (code, err, first) = send(&format!("{head}## @me\n@reviewer one\n"));
    assert_eq!(code, Some(0), "{err}");
    let answer = "<!-- chatmd id=t1 agent=claude status=done seen=0:c15eeb model=claude-opus-4-8[1m] cost=\"0.6 USD\" \
                  stop=end_turn exit=0 tokens=10/1 -->\ndone\n";
    assert_eq!(
        first,
        format!("{head}## @me\n@reviewer one\n\n## @reviewer\n{answer}\n## @me\n")
    );
    // 0.6 of 1.00 spent: the second turn starts, and brings it to 1.2.
    let (code, err, second) = send(&format!("{}@reviewer two\n", s.read("team/b.chat.md")));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(second.matches("cost=\"0.6 USD\"").count(), 2, "{second}");
    // Over the budget: not started.
    let before = format!("{}@reviewer three\n", s.read("team/b.chat.md"));
    let (code, err, third) = send(&before);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(
            "@reviewer has spent 1.2 USD in this chat, its whole budget of 1 (front matter \
             `budget:`); it is not started until the budget is raised"
        ),
        "{err}"
    );
    assert_eq!(third, masked(&before));
}

#[test]
fn members_usage_prints_what_each_member_spent() {
    let s = Setup(send_support::Workspace::new());
    s.write(
        "team/u.chat.md",
        "---\nbudget: { reviewer: 0.5 }\n---\n## @me\ngo\n\n\
         ## @reviewer\n<!-- chatmd id=t1 agent=claude status=done cost=\"0.3 USD\" tokens=100/10 -->\na\n\n\
         ## @tester\n<!-- chatmd id=t2 agent=codex status=done tokens=7/3 -->\nb\n",
    );
    let out = s
        .chatmd(&["members", "--usage", "team/u.chat.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "MEMBER     ANSWERS  TOKENS IN/OUT  COST              BUDGET\n\
         @reviewer  1        100/10         0.3 USD           0.5\n\
         @tester    1        7/3            no cost reported  -\n\
         all        2        107/13         0.3 USD\n"
    );
    let json = s
        .chatmd(&["members", "--usage", "--json", "team/u.chat.md"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        report["members"][0],
        serde_json::json!({"member": "reviewer", "answers": 1, "inputTokens": 100,
            "outputTokens": 10, "cost": "0.3", "currency": "USD", "budget": "0.5"})
    );
    let folder = s.chatmd(&["members", "--usage", "team"]).output().unwrap();
    assert_eq!(folder.status.code(), Some(2));
}
