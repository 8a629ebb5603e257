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
    let answer = "<!-- chatmd id=t1 agent=claude status=done seen=0:c15eeb model=claude-opus-4-8 cost=\"0.6 USD\" \
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

/// The chat with the values that differ every run (`seen=`, `started=`, `took=`) cut.
fn steady(text: &str) -> String {
    let varying = regex::Regex::new(r"(seen|started|took)=[^ ]+").unwrap();
    varying.replace_all(text, "$1=…").into_owned()
}

/// What the mock model billed three turns of one session (`agents-2026-12.md`:
/// codex's `exec resume` reported 29502/84 after requests billed 9677, 9825 and
/// 10000 input tokens; claude 2.1.332 0.0496, then 0.0994 for about the same tokens).
const BILLED: [(&str, &str); 3] = [
    ("9677/28", "0.0496"),
    ("9825/28", "0.0498"),
    ("10000/28", "0.05"),
];

/// Three turns of `member` in one resumed session, each billed as [`BILLED`] says,
/// by the fake as `version` of its CLI; returns the chat as it ends.
fn three_resumed_turns(s: &Setup, member: &str, version: &str, head: &str) -> String {
    std::fs::create_dir_all(s.path("sessions")).unwrap();
    let mut chat = head.to_owned();
    for (turn, (tokens, cost)) in BILLED.iter().enumerate() {
        chat.push_str(&format!(
            "@{member} turn {turn}\nfake-agent: FAKE_AGENT_TOKENS={tokens}, FAKE_AGENT_COST={cost}\n"
        ));
        s.write("team/r.chat.md", &chat);
        let out = s
            .command(
                &["team/r.chat.md"],
                &[
                    ("FAKE_AGENT_TEXT", "ok"),
                    ("FAKE_AGENT_PROMPT_KNOBS", "1"),
                    ("FAKE_AGENT_VERSION", version),
                ],
            )
            .env("FAKE_AGENT_SESSIONS", s.path("sessions"))
            .output()
            .expect("run chatmd send");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("@{member}: done\n"),
            "turn {turn}"
        );
        chat = s.read("team/r.chat.md");
    }
    chat
}

/// `chatmd members --usage` of the chat `r.chat.md`.
fn usage_table(s: &Setup) -> String {
    let out = s
        .chatmd(&["members", "--usage", "team/r.chat.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn resumed_codex_turns_record_the_tokens_each_turn_billed() {
    let s = Setup(send_support::Workspace::new());
    let chat = three_resumed_turns(&s, "tester", "0.171.0", "## @me\n");
    // codex reported the thread's running totals (9677/28, 19502/56, 29502/84): each
    // turn keeps its share, and the total it was counted from.
    let session = "01a2007b-3fb0-7ff3-8fab-536458979726";
    let answer = |id: &str, tail: &str| {
        format!(
            "## @tester\n<!-- chatmd id={id} agent=codex status=done seen=… started=… \
             session={session} took=… exit=0 {tail} -->\nok\n\n## @me\n"
        )
    };
    assert_eq!(
        steady(&chat),
        format!(
            "## @me\n@tester turn 0\nfake-agent: FAKE_AGENT_TOKENS=9677/28, FAKE_AGENT_COST=0.0496\n\n{}\
             @tester turn 1\nfake-agent: FAKE_AGENT_TOKENS=9825/28, FAKE_AGENT_COST=0.0498\n\n{}\
             @tester turn 2\nfake-agent: FAKE_AGENT_TOKENS=10000/28, FAKE_AGENT_COST=0.05\n\n{}",
            answer("t1", "tokens=9677/28"),
            answer("t2", "tokens=9825/28 session-tokens=19502/56"),
            answer("t3", "tokens=10000/28 session-tokens=29502/84"),
        )
    );
    assert_eq!(
        usage_table(&s),
        "MEMBER   ANSWERS  TOKENS IN/OUT  COST              BUDGET\n\
         @tester  3        29502/84       no cost reported  -\n\
         all      3        29502/84       no cost reported\n"
    );
}

#[test]
fn resumed_claude_2_1_332_turns_record_what_each_turn_cost_and_the_budget_adds_that() {
    let s = Setup(send_support::Workspace::new());
    // 0.1494 USD billed in all; the running totals added up would be 0.2984.
    let head = "---\nbudget: { reviewer: 0.15 }\n---\n## @me\n";
    let chat = three_resumed_turns(&s, "reviewer", "2.1.332", head);
    let session = "ba6318a6-8ff6-4537-9fb3-78cdd30bb441";
    let answer = |id: &str, cost: &str, tokens: &str| {
        format!(
            "## @reviewer\n<!-- chatmd id={id} agent=claude status=done seen=… started=… \
             model=claude-opus-4-8 session={session} {cost} took=… stop=end_turn exit=0 \
             tokens={tokens} -->\nok\n\n## @me\n"
        )
    };
    assert_eq!(
        steady(&chat),
        format!(
            "{head}@reviewer turn 0\nfake-agent: FAKE_AGENT_TOKENS=9677/28, FAKE_AGENT_COST=0.0496\n\n{}\
             @reviewer turn 1\nfake-agent: FAKE_AGENT_TOKENS=9825/28, FAKE_AGENT_COST=0.0498\n\n{}\
             @reviewer turn 2\nfake-agent: FAKE_AGENT_TOKENS=10000/28, FAKE_AGENT_COST=0.05\n\n{}",
            answer("t1", "cost=\"0.0496 USD\"", "9677/28"),
            answer(
                "t2",
                "cost=\"0.0498 USD\" session-cost=\"0.0994 USD\"",
                "9825/28"
            ),
            answer(
                "t3",
                "cost=\"0.05 USD\" session-cost=\"0.1494 USD\"",
                "10000/28"
            ),
        )
    );
    assert_eq!(
        usage_table(&s),
        "MEMBER     ANSWERS  TOKENS IN/OUT  COST        BUDGET\n\
         @reviewer  3        29502/84       0.1494 USD  0.15\n\
         all        3        29502/84       0.1494 USD\n"
    );
    // Under its budget by what the model billed: a fourth turn starts.
    s.write(
        "team/r.chat.md",
        &format!("{}@reviewer turn 3\n", s.read("team/r.chat.md")),
    );
    let out = s
        .command(
            &["team/r.chat.md"],
            &[("FAKE_AGENT_TEXT", "ok"), ("FAKE_AGENT_VERSION", "2.1.332")],
        )
        .env("FAKE_AGENT_SESSIONS", s.path("sessions"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "@reviewer: done\n");
}

#[test]
fn claude_2_1_197_still_records_the_cost_of_each_run_as_reported() {
    let s = Setup(send_support::Workspace::new());
    let chat = three_resumed_turns(&s, "reviewer", "2.1.197", "## @me\n");
    for (tokens, cost) in BILLED {
        assert_eq!(
            chat.matches(&format!("cost=\"{cost} USD\" took=")).count(),
            1,
            "{chat}"
        );
        assert!(chat.contains(&format!("tokens={tokens} -->")), "{chat}");
    }
    assert!(!chat.contains("session-cost"), "{chat}");
    assert!(usage_table(&s).contains("@reviewer  3        29502/84       0.1494 USD"));
}

/// Three resumed turns replayed from the real CLI's own output, recorded 2026-12-06
/// against tests/mock_model (tests/fixtures/agents: `claude/resume-total-cost-<n>` from
/// Claude Code 2.1.332, `codex/resume-total-usage-<n>` from codex 0.171.0); returns
/// each answer's usage fields as its status comment has them.
fn recorded_turns(s: &Setup, member: &str, recording: &str) -> Vec<String> {
    let mut chat = "## @me\n".to_owned();
    for turn in 1..=3 {
        chat.push_str(&format!("@{member} turn {turn}\n"));
        s.write("team/r.chat.md", &chat);
        let out = s
            .command(
                &["team/r.chat.md"],
                &[("FAKE_AGENT_TRANSCRIPT", &format!("{recording}-{turn}"))],
            )
            .output()
            .expect("run chatmd send");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("@{member}: done\n")
        );
        chat = s.read("team/r.chat.md");
    }
    let usage =
        regex::Regex::new(r#"(tokens|cost|session-tokens|session-cost)=("[^"]*"|[^ ]+)"#).unwrap();
    chat.lines()
        .filter(|l| l.starts_with("<!-- chatmd id="))
        .map(|l| {
            let fields: Vec<&str> = usage.find_iter(l).map(|m| m.as_str()).collect();
            fields.join(" ")
        })
        .collect()
}

#[test]
fn recorded_codex_0_171_turns_record_what_the_model_billed_each() {
    // The mock billed 6726/10, 6757/10 and 6789/10; codex reported 6726/10, 13483/20
    // and 20272/30 (its thread's running total).
    let s = Setup(send_support::Workspace::new());
    assert_eq!(
        recorded_turns(&s, "tester", "resume-total-usage"),
        [
            "tokens=6726/10",
            "tokens=6757/10 session-tokens=13483/20",
            "tokens=6789/10 session-tokens=20272/30",
        ]
    );
    assert_eq!(
        usage_table(&s),
        "MEMBER   ANSWERS  TOKENS IN/OUT  COST              BUDGET\n\
         @tester  3        20272/30       no cost reported  -\n\
         all      3        20272/30       no cost reported\n"
    );
}

#[test]
fn recorded_claude_2_1_332_turns_record_what_each_turn_cost() {
    // The mock billed 4252/10, 4284/10 and 4316/10; claude reported those tokens per
    // turn and `total_cost_usd` 0.017208, 0.034544 and 0.052008 (the session's so far).
    let s = Setup(send_support::Workspace::new());
    assert_eq!(
        recorded_turns(&s, "reviewer", "resume-total-cost"),
        [
            "cost=\"0.0172 USD\" tokens=4252/10",
            "cost=\"0.0173 USD\" session-cost=\"0.0345 USD\" tokens=4284/10",
            "cost=\"0.0175 USD\" session-cost=\"0.052 USD\" tokens=4316/10",
        ]
    );
    assert_eq!(
        usage_table(&s),
        "MEMBER     ANSWERS  TOKENS IN/OUT  COST       BUDGET\n\
         @reviewer  3        12852/30       0.052 USD  -\n\
         all        3        12852/30       0.052 USD\n"
    );
}
