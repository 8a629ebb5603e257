//! The versions of each agent CLI and ACP adapter chatmd was tested with, and the
//! versions at which their behaviour changed in ways chatmd must follow. The agents
//! change every month: a version outside the tested set is worth a warning, because
//! what chatmd reads from it may mean something else now.

use std::fmt;

/// A `major.minor.patch` version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u64, pub u64, pub u64);

impl Version {
    /// The first `N.N.N` in `text` (`2.1.332 (Claude Code)`, `codex-cli 0.171.0`,
    /// `0.61.0`); a pre-release or build suffix is left out.
    pub fn find(text: &str) -> Option<Version> {
        text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .find_map(|word| {
                let mut parts = word.split('.').map(|p| p.parse::<u64>().ok());
                match (parts.next(), parts.next(), parts.next()) {
                    (Some(Some(major)), Some(Some(minor)), Some(Some(patch))) => {
                        Some(Version(major, minor, patch))
                    }
                    _ => None,
                }
            })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// The versions chatmd is tested with, by program name, oldest first. docs/agents.md
/// lists the same set under "Tested with".
pub const TESTED: [(&str, &[Version]); 5] = [
    ("claude", &[Version(2, 1, 197), Version(2, 1, 332)]),
    ("codex", &[Version(0, 169, 0), Version(0, 171, 0)]),
    ("gemini", &[Version(0, 61, 0)]),
    ("claude-agent-acp", &[Version(0, 49, 0), Version(0, 101, 0)]),
    ("codex-acp", &[Version(2, 6, 0)]),
];

/// From this claude-agent-acp version on, the cost of its `usage_update` runs over the
/// whole session, the processes that resumed it included (0.49 counted one process):
/// `agents/acp/costs.rs`.
pub const ACP_SESSION_COSTS_FROM: Version = Version(0, 101, 0);

/// From this Claude Code version on, `total_cost_usd` on `--resume` is the session's
/// running total (2.1.197 reported the run's own cost; the versions in between were
/// not observed and are taken as the older behaviour).
pub const CLAUDE_SESSION_COST_SINCE: Version = Version(2, 1, 332);

/// The warning for `program` (its file name: `claude`, `codex-acp`) at the version its
/// `--version` printed, when that version is not one chatmd was tested with: `tested
/// with 2.1.197 and 2.1.332; this is 2.1.400, newer`. `None` for a tested version, an
/// unknown program or an unreadable version.
pub fn untested(program: &str, printed: &str) -> Option<String> {
    let (_, tested) = TESTED.iter().find(|(name, _)| *name == program)?;
    let version = Version::find(printed)?;
    if tested.contains(&version) {
        return None;
    }
    let (oldest, newest) = (tested.first()?, tested.last()?);
    let how = if version < *oldest {
        "older"
    } else if version > *newest {
        "newer"
    } else {
        "between them"
    };
    let list: Vec<String> = tested.iter().map(Version::to_string).collect();
    Some(format!(
        "tested with {program} {}; this is {version}, {how}",
        list.join(" and ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn versions_are_read_from_what_the_clis_print() {
        assert_eq!(
            Version::find("2.1.332 (Claude Code)"),
            Some(Version(2, 1, 332))
        );
        assert_eq!(Version::find("codex-cli 0.171.0"), Some(Version(0, 171, 0)));
        assert_eq!(Version::find("0.61.0-nightly.3"), Some(Version(0, 61, 0)));
        assert_eq!(Version::find("v1.2"), None);
        assert!(Version(2, 1, 332) > Version(2, 1, 197));
    }

    #[test]
    fn only_versions_outside_the_tested_set_warn() {
        assert_eq!(untested("claude", "2.1.332 (Claude Code)"), None);
        assert_eq!(untested("codex", "codex-cli 0.169.0"), None);
        assert_eq!(
            untested("claude", "2.1.400 (Claude Code)").as_deref(),
            Some("tested with claude 2.1.197 and 2.1.332; this is 2.1.400, newer")
        );
        assert_eq!(
            untested("gemini", "0.50.1").as_deref(),
            Some("tested with gemini 0.61.0; this is 0.50.1, older")
        );
        assert_eq!(
            untested("claude-agent-acp", "0.70.0").as_deref(),
            Some("tested with claude-agent-acp 0.49.0 and 0.101.0; this is 0.70.0, between them")
        );
        assert_eq!(untested("goose", "1.0.0"), None);
        assert_eq!(untested("claude", "unknown"), None);
    }
}
