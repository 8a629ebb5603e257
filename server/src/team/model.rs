//! The team as the server sees it: members, the human's handle, and the problems found
//! while reading folders and config (each one tied to a file and, when known, a range).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::problem::ConfigProblem;
use super::trust::{TrustKey, UntrustedConfig, key_list, trust_command};
use crate::agent_config::AgentKind;
use crate::agent_config::SessionSettings;

/// One member of a team: who the agent is (role, folder) and how it runs (config).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The name used in `## @handle`: the member folder's name or the `[members.NAME]` key.
    pub handle: String,
    /// The agent registry entry that runs this member: `claude`, `codex`, `gemini`,
    /// `acp`, or any other name the user's agent registry defines.
    pub agent: String,
    /// The ACP agent an `acp` member runs, by preset name (`gemini`, `goose`, …; checked
    /// against the list when the config is read).
    pub preset: Option<String>,
    /// The member folder, or the team folder for a member defined only in `chatmd.toml`.
    pub folder: PathBuf,
    /// The role file that made the folder a member (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`).
    pub role_file: Option<PathBuf>,
    /// The role file's text, when it could be read.
    pub role_text: Option<String>,
    /// Why the role file could not be read (with the OS error), when it could not.
    pub role_error: Option<String>,
    /// Extra instructions from `chatmd.toml`.
    pub instructions: Option<String>,
    /// The agent's working directory: `workdir` from config, else `work/`, else `folder`.
    pub workdir: PathBuf,
    /// A state folder of the member's own (`CODEX_HOME` and friends), when configured.
    pub home: Option<PathBuf>,
    pub env: BTreeMap<String, String>,
    /// Extra command-line arguments for the agent's CLI.
    pub args: Vec<String>,
    /// The program to run instead of the agent kind's (`command` in a trusted
    /// `chatmd.toml`).
    pub command: Option<String>,
    /// Total time a turn may take; `None` means the agent's default.
    pub timeout: Option<Duration>,
    /// How long the agent may stay silent; `None` means the agent's default.
    pub idle_timeout: Option<Duration>,
    /// Keep the CLI's own session between turns: `resume` in `chatmd.toml`, on unless
    /// set to `false`. Only agents that have sessions act on it
    /// (the agent adapter's `can_resume`); a plain command never resumes.
    pub resume: bool,
    /// How an ACP agent's thoughts show in its answer (`thoughts` in `chatmd.toml`).
    pub thoughts: Thoughts,
    /// An ACP member's session mode, model and config options (`mode`, `model`,
    /// `[members.X.options]`), applied to each session it starts or resumes.
    pub session: SessionSettings,
    /// The team's permission rules for this member (`[members.X.permissions]`; allow
    /// rules only from a trusted file).
    pub permissions: Vec<super::TeamRule>,
}

/// How an ACP member's thoughts (`agent_thought_chunk`) show in its answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Thoughts {
    /// In a folded `<details>` block where they happen (`thoughts = "folded"`).
    #[default]
    Folded,
    /// Left out (`thoughts = "hidden"`).
    Hidden,
}

impl Member {
    /// A member working in its own `folder`, with no role file and the default settings
    /// (it resumes its sessions).
    pub fn new(handle: &str, agent: &str, folder: PathBuf) -> Member {
        Member {
            handle: handle.to_owned(),
            agent: agent.to_owned(),
            preset: None,
            workdir: folder.clone(),
            folder,
            role_file: None,
            role_text: None,
            role_error: None,
            instructions: None,
            home: None,
            env: BTreeMap::new(),
            args: Vec::new(),
            command: None,
            timeout: None,
            idle_timeout: None,
            resume: true,
            thoughts: Thoughts::Folded,
            session: SessionSettings::default(),
            permissions: Vec::new(),
        }
    }

    /// The built-in kind this member runs on, if `agent` names one.
    pub fn kind(&self) -> Option<AgentKind> {
        self.agent.parse().ok()
    }

    /// A one-line description: the role text's first non-empty line, without leading `#`s.
    pub fn role_summary(&self) -> Option<&str> {
        self.role_text.as_deref()?.lines().find_map(|line| {
            let line = line.trim().trim_start_matches('#').trim();
            (!line.is_empty()).then_some(line)
        })
    }

    /// The role's first paragraph of text after its title (a heading): what hover shows
    /// besides the summary. A paragraph that ends with `:` brings the block after it
    /// (the list it announces). At most [`PARAGRAPH_LIMIT`] bytes, cut at a word.
    pub fn role_paragraph(&self) -> Option<String> {
        let text = self.role_text.as_deref()?;
        let summary = self.role_summary()?;
        let mut blocks = text
            .split("\n\n")
            .map(|block| {
                let lines: Vec<&str> = block
                    .lines()
                    .map(str::trim_end)
                    .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
                    .collect();
                lines.join("\n")
            })
            .filter(|block| !block.is_empty() && block.trim() != summary);
        let mut paragraph = blocks.next()?;
        if paragraph.ends_with(':')
            && let Some(next) = blocks.next()
        {
            paragraph.push_str("\n\n");
            paragraph.push_str(&next);
        }
        if paragraph.len() > PARAGRAPH_LIMIT {
            let mut cut = PARAGRAPH_LIMIT;
            while !paragraph.is_char_boundary(cut) {
                cut -= 1;
            }
            let cut = paragraph[..cut].rfind(char::is_whitespace).unwrap_or(cut);
            paragraph.truncate(cut);
            paragraph.push_str(" …");
        }
        Some(paragraph)
    }
}

/// The most of a role's first paragraph that hover shows.
pub const PARAGRAPH_LIMIT: usize = 800;

/// A team folder with its members, in team order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    pub folder: PathBuf,
    /// The human's handle (`human` in `chatmd.toml`), `me` by default.
    pub human: String,
    /// The text of `team_instruction.md`, shared by every member.
    pub instruction: Option<String>,
    pub members: Vec<Member>,
    pub problems: Vec<ConfigProblem>,
    /// `chatmd.toml` files whose trust-needing settings were left out: the members they
    /// set something for are not run until the user trusts them.
    pub untrusted: Vec<UntrustedConfig>,
}

impl Team {
    /// A team with no members, for chats that have no folder (unsaved buffers).
    pub fn empty(folder: PathBuf) -> Team {
        Team {
            folder,
            human: super::DEFAULT_HUMAN.to_string(),
            instruction: None,
            members: Vec::new(),
            problems: Vec::new(),
            untrusted: Vec::new(),
        }
    }

    /// Why `handle` may not run yet: settings of its own in `chatmd.toml` files the user
    /// has not trusted. `None` when nothing stands in the way.
    pub fn trust_refusal(&self, handle: &str) -> Option<String> {
        let blocking: Vec<(&UntrustedConfig, Vec<TrustKey>)> = self
            .untrusted
            .iter()
            .map(|config| (config, config.blocking_keys_of(handle)))
            .filter(|(_, keys)| !keys.is_empty())
            .collect();
        if blocking.is_empty() {
            return None;
        }
        let settings: Vec<String> = blocking
            .iter()
            .map(|(config, keys)| format!("{} in {}", key_list(keys), config.file.display()))
            .collect();
        let commands: Vec<String> = blocking
            .iter()
            .map(|(config, _)| format!("`{}`", trust_command(&config.file)))
            .collect();
        let (it, them) = if blocking.len() == 1 {
            ("it", "the file")
        } else {
            ("them", "the files")
        };
        Some(format!(
            "not run: {} can run programs on your machine, and a workspace file applies \
             such settings only once you trust {it}. Review {them}, then run {}",
            settings.join(" and "),
            commands.join(" and ")
        ))
    }

    /// The member with this handle; handles compare case-insensitively.
    pub fn member(&self, handle: &str) -> Option<&Member> {
        self.members
            .iter()
            .find(|m| m.handle.eq_ignore_ascii_case(handle))
    }

    /// Up to `max` known handles (members, then the human) closest to `unknown` by edit
    /// distance, closest first. Kept: handles within a typo's reach (a third of the
    /// length, at least 1 edit) and handles that start with `unknown`.
    pub fn nearest_handles(&self, unknown: &str, max: usize) -> Vec<&str> {
        let unknown = unknown.to_lowercase();
        let limit = (unknown.chars().count() / 3).max(1);
        let candidates = self
            .members
            .iter()
            .map(|m| m.handle.as_str())
            .chain(std::iter::once(self.human.as_str()));
        let mut scored: Vec<(usize, usize, &str)> = candidates
            .enumerate()
            .filter_map(|(order, handle)| {
                let lower = handle.to_lowercase();
                let distance = edit_distance(&unknown, &lower);
                let near =
                    distance <= limit || (!unknown.is_empty() && lower.starts_with(&unknown));
                near.then_some((distance, order, handle))
            })
            .collect();
        scored.sort();
        scored.dedup_by(|a, b| a.2.eq_ignore_ascii_case(b.2));
        scored.into_iter().take(max).map(|(_, _, h)| h).collect()
    }
}

/// Whether `text` is a valid handle: `[A-Za-z0-9][A-Za-z0-9_.-]*`.
pub fn is_valid_handle(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(b.len() + 1);
        current.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn member(handle: &str, agent: &str, role: Option<&str>) -> Member {
        Member {
            role_text: role.map(str::to_owned),
            ..Member::new(handle, agent, PathBuf::from(handle))
        }
    }

    fn team(handles: &[&str]) -> Team {
        Team {
            folder: PathBuf::from("team"),
            human: "me".to_owned(),
            instruction: None,
            members: handles.iter().map(|h| member(h, "claude", None)).collect(),
            problems: Vec::new(),
            untrusted: Vec::new(),
        }
    }

    #[test]
    fn role_summary_is_the_first_non_empty_line_without_hashes() {
        let m = member(
            "bob",
            "codex",
            Some("\n  \n## Reviewer: strict about tests\nmore"),
        );
        assert_eq!(m.role_summary(), Some("Reviewer: strict about tests"));
        assert_eq!(member("bob", "codex", Some("#\n\n")).role_summary(), None);
        assert_eq!(member("bob", "codex", None).role_summary(), None);
    }

    #[test]
    fn role_paragraph_is_the_text_after_the_title_with_the_list_it_announces() {
        let role = "# Reviewer: strict\n\nYou review code:\n\n- read it\n- quote it\n\nMore.\n";
        assert_eq!(
            member("bob", "codex", Some(role))
                .role_paragraph()
                .as_deref(),
            Some("You review code:\n\n- read it\n- quote it")
        );
        let plain = "# Tester\nWrites tests\nthat fail first.\n\n## Rules\n\nBe brief.\n";
        assert_eq!(
            member("t", "codex", Some(plain))
                .role_paragraph()
                .as_deref(),
            Some("Writes tests\nthat fail first.")
        );
        // A role whose only text is its title has no paragraph besides it.
        assert_eq!(
            member("t", "codex", Some("Tester\n")).role_paragraph(),
            None
        );
        let long = format!("# T\n\n{}", "word ".repeat(400));
        let cut = member("t", "codex", Some(&long)).role_paragraph().unwrap();
        assert!(
            cut.len() <= PARAGRAPH_LIMIT + " …".len() && cut.ends_with("word …"),
            "{cut}"
        );
    }

    #[test]
    fn kind_comes_from_the_agent_name() {
        assert_eq!(member("a", "gemini", None).kind(), Some(AgentKind::Gemini));
        assert_eq!(member("a", "acp", None).kind(), None);
    }

    #[test]
    fn member_lookup_ignores_case() {
        let t = team(&["Alice", "bob"]);
        assert_eq!(t.member("alice").map(|m| m.handle.as_str()), Some("Alice"));
        assert_eq!(t.member("BOB").map(|m| m.handle.as_str()), Some("bob"));
        assert_eq!(t.member("carol"), None);
    }

    #[test]
    fn nearest_handles_rank_by_distance_and_drop_unrelated_names() {
        let t = team(&["reviewer", "tester", "writer", "bob"]);
        assert_eq!(t.nearest_handles("reviewr", 3), vec!["reviewer"]);
        assert_eq!(t.nearest_handles("Tester", 3), vec!["tester"]);
        assert_eq!(t.nearest_handles("bo", 3), vec!["bob"]);
        assert_eq!(t.nearest_handles("rev", 3), vec!["reviewer"]);
        assert_eq!(t.nearest_handles("ester", 3), vec!["tester"]);
        assert_eq!(t.nearest_handles("mee", 1), vec!["me"]);
        assert_eq!(t.nearest_handles("zzzzzzzz", 3), Vec::<&str>::new());
    }

    #[test]
    fn handles_follow_the_chat_format_rule() {
        for ok in ["a", "bob", "B0b_2.x-y", "9lives"] {
            assert!(is_valid_handle(ok), "{ok}");
        }
        for bad in ["", "_bob", "-x", ".hidden", "my folder", "bób", "a/b"] {
            assert!(!is_valid_handle(bad), "{bad}");
        }
    }

    #[test]
    fn edit_distance_counts_single_char_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
