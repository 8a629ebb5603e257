use super::*;
use crate::team::{Member, Team};
use pretty_assertions::assert_eq;
use std::path::PathBuf;

fn member(handle: &str, agent: &str) -> Member {
    Member::new(handle, agent, PathBuf::from("/team").join(handle))
}

fn team() -> Team {
    let mut t = Team::empty(PathBuf::from("/team"));
    t.members = vec![
        member("reviewer", "claude"),
        member("tester", "codex"),
        member("bot", "my-script"),
    ];
    t
}

struct Installed(&'static [&'static str]);

impl CliLookup for Installed {
    fn missing(&self, member: &Member) -> Option<(ProgramError, Option<String>)> {
        let program = member
            .kind()
            .map_or(member.agent.as_str(), |kind| kind.binary());
        (!self.0.contains(&program)).then(|| {
            let error = ProgramError::NotInstalled {
                program: program.to_string(),
            };
            (
                error,
                Some(format!("pip install {program}")).filter(|_| member.kind().is_none()),
            )
        })
    }
}

fn problems(text: &str, installed: &'static [&'static str]) -> Vec<String> {
    let team = team();
    let chat = Chat::parse(text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    check(text, &chat, &roster, &Installed(installed))
        .into_iter()
        .map(|p| {
            let fixes: Vec<String> = p.fixes.iter().map(|f| f.title.clone()).collect();
            format!(
                "{} {:?} {:?} {}{}",
                p.code,
                &text[p.range.clone()],
                p.severity,
                p.message,
                if fixes.is_empty() {
                    String::new()
                } else {
                    format!(" | fixes: {}", fixes.join(", "))
                }
            )
        })
        .collect()
}

#[test]
fn a_clean_chat_has_no_problems() {
    assert_eq!(
        problems(
            "## @me\n@reviewer hi\n\n## @reviewer\nok [NEXT: tester]\n",
            &["claude", "codex"]
        ),
        Vec::<String>::new()
    );
}

#[test]
fn unknown_members_get_the_nearest_names() {
    assert_eq!(
        problems(
            "## @me\n@reviwer and @zzz hi\n\n## @testr\nhello\n",
            &["claude", "codex"]
        ),
        [
            "unknown-mention \"reviwer\" Warning @reviwer is not a member of this team; nobody will answer this mention. Did you mean @reviewer? | fixes: Change to @reviewer",
            "unknown-mention \"zzz\" Warning @zzz is not a member of this team; nobody will answer this mention.",
            "unknown-member \"testr\" Warning @testr is not a member of this team, so this message counts as the human's (@me). Did you mean @tester? | fixes: Change to @tester",
        ]
    );
}

#[test]
fn unknown_mentions_in_agent_answers_are_plain_text() {
    assert_eq!(
        problems(
            "## @reviewer\nUse @Override and @types/node.\n",
            &["claude"]
        ),
        Vec::<String>::new()
    );
}

#[test]
fn a_missing_cli_is_reported_once_per_member() {
    assert_eq!(
        problems(
            "## @me\n@tester one\n\n## @me\n@tester two, @bot three\n",
            &["claude", "my-script"]
        ),
        [
            "cli-missing \"tester\" Warning @tester runs codex, whose CLI `codex` is not installed (not found on PATH). Install it with `npm install -g @openai/codex`, then log in once in a terminal."
        ]
    );
}

#[test]
fn a_missing_program_of_any_agent_kind_is_reported() {
    assert_eq!(
        problems("## @me\n@bot go\n", &["claude", "codex"]),
        [
            "cli-missing \"bot\" Warning @bot runs my-script, but `my-script` is not installed (not found on PATH). Install it with `pip install my-script`."
        ]
    );
}

#[test]
fn members_outside_the_members_list_can_be_added() {
    let text = "---\nmembers: [reviewer]\n---\n## @tester\nhi\n";
    let team = team();
    let chat = Chat::parse(text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let found = check(text, &chat, &roster, &Installed(&["claude", "codex"]));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].code, "not-in-members");
    let (range, new) = &found[0].fixes[0].edits[0];
    let mut fixed = text.to_string();
    fixed.replace_range(range.clone(), new);
    assert_eq!(
        fixed,
        "---\nmembers: [reviewer, tester]\n---\n## @tester\nhi\n"
    );

    let text = "---\nmembers:\n  - reviewer\n---\n## @tester\nhi\n";
    let chat = Chat::parse(text);
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let found = check(text, &chat, &roster, &Installed(&["claude", "codex"]));
    let (range, new) = &found[0].fixes[0].edits[0];
    let mut fixed = text.to_string();
    fixed.replace_range(range.clone(), new);
    assert_eq!(
        fixed,
        "---\nmembers:\n  - reviewer\n  - tester\n---\n## @tester\nhi\n"
    );
}

#[test]
fn front_matter_and_status_problems_have_exact_ranges() {
    assert_eq!(
        problems(
            "---\nmax_chain: lots\nflavour: x\nmembers: [reviewer, ghost]\n---\n## @reviewer\n<!-- chatmd id=t1 status=\"open -->\nhi\n",
            &["claude"]
        ),
        [
            "front-matter \"lots\" Error `max_chain` must be a whole number (default 3)",
            "unknown-front-matter-key \"flavour\" Hint `flavour` is not a chatmd key; it is kept as it is.",
            "unknown-member \"ghost\" Warning `ghost` in `members:` is not a member of this team.",
            "bad-status-comment \"\\\"open -->\" Warning Malformed status comment: unterminated quoted value: add a closing `\"`. Or delete the line: the message then counts as done.",
        ]
    );
}

#[test]
fn unclosed_fences_and_foreign_formats() {
    assert_eq!(
        problems("## @me\n~~~~ text\n## @x\n", &[]),
        [
            "unclosed-fence \"~~~~ text\" Warning This code fence is never closed, so everything after it is code, later messages included. Close it with a line holding only ~~~~"
        ]
    );
    assert_eq!(
        problems(">>> user\nhello\n<<< assistant\nhi\n", &[]),
        [
            "foreign-format \">>> user\" Info This file is a vim-ai chat, not a chatmd chat. Use the code action \"Convert to chatmd format\" (or `chatmd import FILE`) to convert it; every message is kept."
        ]
    );
    let fix = convert_fix(">>> user\nhello\n", "me").expect("a conversion");
    assert!(
        fix.edits[0].1.contains("## @me\nhello"),
        "{}",
        fix.edits[0].1
    );
}

/// Issue 15: an unclosed `<!--` in a foreign file halved the converted messages and said
/// nothing. The comment now ends at the next marker, and the editor says so.
#[test]
fn an_unclosed_comment_in_a_foreign_file_is_a_warning() {
    assert_eq!(
        problems(
            ">>> user\nq\n<<< assistant\n<!-- note\n>>> user\nsecond\n<<< assistant\nend -->\n",
            &[]
        ),
        [
            "foreign-format \">>> user\" Info This file is a vim-ai chat, not a chatmd chat. Use the code action \"Convert to chatmd format\" (or `chatmd import FILE`) to convert it; every message is kept.",
            "foreign-unclosed-block \"<!-- note\" Warning This block is never closed before the next message: the conversion closes it at the end of its message. Close it yourself (`-->` for a comment, the same fence for code) if it should end earlier."
        ]
    );
}

/// Issue 15: a converted chat's answers (`## @assistant`, no member) gave one warning per
/// answer (48 on one file). An imported chat says it once, with how to take the handle in.
#[test]
fn an_imported_chats_answer_handle_is_reported_once() {
    let text = "---\nimported_from: gp.nvim\n---\n\n## @me\nq\n\n## @assistant\na\n\n## @me\nq2\n\n## @assistant\na2\n";
    assert_eq!(
        problems(text, &[]),
        [
            "imported-handle \"assistant\" Warning @assistant wrote this chat's imported answers but is not a member of this team, so its messages count as the human's (@me). To continue with it, add a member folder `assistant/` with a role file (CLAUDE.md, AGENTS.md or GEMINI.md) next to the chat."
        ]
    );
    // Without `imported_from`, each such message is flagged, as before.
    let plain = text.replace("imported_from: gp.nvim\n", "title: t\n");
    assert_eq!(problems(&plain, &[]).len(), 2);
}

/// Issue 15: `imported_from:` is a chatmd key (it was flagged as unknown).
#[test]
fn imported_from_is_a_known_key() {
    let chat = Chat::parse("---\nimported_from: claude\n---\n## @me\nhi\n");
    let fm = chat.front_matter.as_ref().unwrap();
    assert_eq!(
        fm.imported_from.as_ref().map(|s| s.value.as_str()),
        Some("claude")
    );
    assert!(fm.unknown_keys.is_empty());
}

#[test]
fn a_session_id_its_agent_never_issues_is_flagged_on_the_status_comment() {
    let text = "## @me\n@tester hi\n\n## @tester\n\
                <!-- chatmd id=t1 agent=codex status=done session=--last took=1s -->\nA.\n\n\
                ## @tester\n<!-- chatmd id=t2 agent=codex status=done session=01a20c15-7d83-75c0-8b47-478d1d919b73 -->\nB.\n\n\
                ## @tester\n<!-- chatmd id=t3 agent=acp status=done session=sess_01J9 -->\nC.\n";
    assert_eq!(
        problems(text, &["claude", "codex"]),
        [
            "bad-session-id \"session=--last\" Warning `session=--last` is not a session id codex issues (a UUID such as 3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3f), so it is never passed to codex: the member's next turn starts a new session."
        ]
    );
}
