//! What `chatmd init` writes: each member's folder with a short starting role, the
//! team instruction, `chatmd.toml`, a first chat and the git ignore rules. Pure: the
//! files as text, for `init` to write where none exists yet.

use super::spec::{MemberSpec, Runs};
use crate::agents::AgentKind;
use crate::agents::kinds::spec_of;
use crate::agents::registry::ACP;
use crate::team::{CONFIG_FILE_NAME, TEAM_INSTRUCTION_FILE};

/// The first chat's file name.
pub(super) const FIRST_CHAT: &str = "first.chat.md";

/// The git ignore file, which `init` creates or adds its missing rules to.
pub(super) const GITIGNORE: &str = ".gitignore";

/// Where member homes go (`home = ".state/<handle>"`): ignored by the rules below.
pub(super) const HOMES: &str = ".state";

/// The lines `init` wants in `.gitignore`: member homes hold a CLI's login tokens and
/// every session's transcript, and the CLIs write local state into the folder they
/// work in (`claude-agent-acp` its allow rules, claude a personal role file).
pub(super) const IGNORE_RULES: [&str; 3] =
    ["/.state/", ".claude/settings.local.json", "CLAUDE.local.md"];

/// One file `init` makes, relative to the team folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NewFile {
    pub path: String,
    pub text: String,
    /// What it is, for the summary.
    pub what: String,
}

/// Every file of a new team of `members` (at least one), in the order they are shown;
/// with `homes`, each member of a built-in CLI gets a home of its own.
pub(super) fn team_files(members: &[MemberSpec], homes: bool) -> Vec<NewFile> {
    let mut files: Vec<NewFile> = members
        .iter()
        .map(|m| NewFile {
            path: format!("{}/{}", m.handle, role_file_name(m.runs)),
            text: role(&m.handle),
            what: format!(
                "@{}'s role; @{} runs {}",
                m.handle,
                m.handle,
                cli_name(m.runs)
            ),
        })
        .collect();
    files.push(NewFile {
        path: TEAM_INSTRUCTION_FILE.to_owned(),
        text: team_instruction(members),
        what: "what every member is told".to_owned(),
    });
    files.push(NewFile {
        path: CONFIG_FILE_NAME.to_owned(),
        text: config(members, homes),
        what: if homes {
            "every member works in this folder, with a home of its own".to_owned()
        } else {
            "every member works in this folder".to_owned()
        },
    });
    files.push(NewFile {
        path: FIRST_CHAT.to_owned(),
        text: first_chat(members),
        what: "your first chat".to_owned(),
    });
    files
}

/// The role file that makes the member's folder a member: its CLI's own, so the CLI
/// would also load it by itself; an ACP agent that is no built-in CLI gets `AGENTS.md`,
/// the file most agents read (its `agent = "acp"` in `chatmd.toml` decides what runs).
fn role_file_name(runs: Runs) -> &'static str {
    runs.kind()
        .map_or(SHARED_ROLE_FILE, AgentKind::role_file_name)
}

/// The role file most agents read.
const SHARED_ROLE_FILE: &str = "AGENTS.md";

fn cli_name(runs: Runs) -> String {
    match runs {
        Runs::Cli(kind) => format!("{} (`{}`)", spec_of(kind).title, kind.binary()),
        Runs::Acp(preset) => format!("`{}` over ACP", preset.program),
    }
}

/// A short starting role: a known job's, else one that says what to write.
fn role(handle: &str) -> String {
    let known = match handle.to_ascii_lowercase().as_str() {
        "reviewer" => Some(
            "# Reviewer: reviews changes for correctness and safety\n\n\
             You review code the way a careful senior engineer does: you read it before\n\
             you comment, you report real problems before style, and you propose the fix.\n\n\
             - Report wrong results, crashes, data loss and security holes first, then\n  \
             risks, then style, and say which is which.\n\
             - Quote the lines you mean and show the change you propose.\n\
             - Do not edit files unless you are asked to.\n",
        ),
        "tester" => Some(
            "# Tester: writes and runs tests that pin down behaviour\n\n\
             You make sure the code does what it claims: you write the test that fails\n\
             on the bug before it passes on the fix, and you run the project's tests.\n\n\
             - Report the exact output of a failure and the command that shows it.\n\
             - Keep tests next to the code they test, in the project's own style.\n",
        ),
        "writer" => Some(
            "# Writer: turns the team's findings into clear docs and release notes\n\n\
             You write for the people who use the project, not for its developers: what\n\
             changed for them, and what they must do about it.\n\n\
             - Short sentences; one change per bullet.\n\
             - Link to the files and functions you describe.\n",
        ),
        _ => None,
    };
    match known {
        Some(text) => text.to_owned(),
        None => format!(
            "# {}: a member of this team\n\n\
             You are @{handle}. Replace this paragraph with what @{handle} is for: its\n\
             job, what good work looks like, and what it must not do. @{handle}'s agent\n\
             reads this file with every message; hover on @{handle} in a chat shows this\n\
             paragraph.\n",
            title_case(handle)
        ),
    }
}

fn title_case(handle: &str) -> String {
    let mut chars = handle.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn team_instruction(members: &[MemberSpec]) -> String {
    let example = members
        .get(1)
        .or(members.first())
        .map_or("tester", |m| m.handle.as_str());
    format!(
        "You are one member of a small team working with a human lead, in a chat file\n\
         everyone reads. Answer in Markdown. Be concrete: name files, functions and\n\
         commands. When another member should continue, mention them (`@{example}`) or\n\
         end with `[NEXT: {example}]`.\n"
    )
}

/// Every member works in the team folder (the project `init` ran in) rather than in its
/// own folder, where it would not see the project's files; an ACP member also needs
/// its agent named here. A `home` (commented unless `homes`) gives a member of a built-in
/// CLI a login and settings of its own.
fn config(members: &[MemberSpec], homes: bool) -> String {
    let mut text = String::from(
        "# chatmd settings for this team (see docs/teams.md in chatmd). Every member works in\n\
         # this folder, the project, rather than in its own folder. A member's `home` (a\n\
         # folder of its own for its CLI's login, sessions and settings) is ignored by git\n\
         # under .state/; it applies once you trust this file (`chatmd trust`). Each member\n\
         # continues its CLI's own session from turn to turn; `resume = false` in its table\n\
         # makes every turn a new session given the whole chat.\n",
    );
    for member in members {
        text.push_str(&format!("\n[members.{}]\n", member.handle));
        if let Runs::Acp(preset) = member.runs {
            text.push_str(&format!(
                "agent = \"{ACP}\"\npreset = \"{}\"\n",
                preset.name
            ));
        }
        text.push_str("workdir = \".\"\n");
        // Only a built-in CLI has a known state variable for chatmd to point at a home.
        if member.runs.kind().is_some() {
            let comment = if homes { "" } else { "# " };
            text.push_str(&format!("{comment}home = \"{HOMES}/{}\"\n", member.handle));
        }
    }
    text
}

fn first_chat(members: &[MemberSpec]) -> String {
    let handles: Vec<&str> = members.iter().map(|m| m.handle.as_str()).collect();
    let first = handles.first().copied().unwrap_or("reviewer");
    format!(
        "---\ntitle: First chat\nmembers: [{}]\n---\n\n## @me\n@{first} what does this \
         project do, and what would you look at first?\n",
        handles.join(", ")
    )
}

/// The rules of [`IGNORE_RULES`] that `existing` (a `.gitignore`'s text) lacks.
pub(super) fn missing_rules(existing: &str) -> Vec<&'static str> {
    IGNORE_RULES
        .into_iter()
        .filter(|rule| !existing.lines().any(|line| line.trim() == *rule))
        .collect()
}

/// The text `init` adds to a `.gitignore` that holds `existing`, for `rules`.
pub(super) fn ignore_addition(existing: &str, rules: &[&str]) -> String {
    let mut text = String::new();
    if !existing.is_empty() && !existing.ends_with('\n') {
        text.push('\n');
    }
    if !existing.is_empty() {
        text.push('\n');
    }
    text.push_str("# chatmd: member homes (a CLI's login and sessions) and CLI state\n");
    for rule in rules {
        text.push_str(rule);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn ignore_rules_are_added_once_after_what_is_there() {
        assert_eq!(
            ignore_addition("", &IGNORE_RULES),
            "# chatmd: member homes (a CLI's login and sessions) and CLI state\n/.state/\n\
             .claude/settings.local.json\nCLAUDE.local.md\n"
        );
        let existing = "/target\n/.state/";
        let missing = missing_rules(existing);
        assert_eq!(missing, [".claude/settings.local.json", "CLAUDE.local.md"]);
        assert_eq!(
            ignore_addition(existing, &missing),
            "\n\n# chatmd: member homes (a CLI's login and sessions) and CLI state\n\
             .claude/settings.local.json\nCLAUDE.local.md\n"
        );
        assert!(missing_rules(&format!("{existing}\n{}", missing.join("\n"))).is_empty());
    }

    #[test]
    fn an_unknown_job_gets_a_role_that_says_what_to_write() {
        assert_eq!(
            role("ops"),
            "# Ops: a member of this team\n\nYou are @ops. Replace this paragraph with what \
             @ops is for: its\njob, what good work looks like, and what it must not do. \
             @ops's agent\nreads this file with every message; hover on @ops in a chat shows \
             this\nparagraph.\n"
        );
    }
}
