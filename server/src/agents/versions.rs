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

/// From this Claude Code version on, `total_cost_usd` on `--resume` is the session's
/// running total (2.1.197 reported the run's own cost; the versions in between were
/// not observed and are taken as the older behaviour).
pub const CLAUDE_SESSION_COST_SINCE: Version = Version(2, 1, 332);

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
}
