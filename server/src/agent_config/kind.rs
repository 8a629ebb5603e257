//! The one list of built-in agent kinds, and each kind as `team/` needs to know it: its
//! name, the role file that makes a folder its member, and the role files its CLI
//! loads by itself. Everything else about a kind (its command line, output, install and
//! login hints, stored sessions, …) is its `KindSpec` in its own folder under
//! `agents/`; these facts sit here only because `team/`, below `agents/`, reads member
//! folders with them. A kind is its folder and one entry of [`built_in_kinds!`] below
//! (which also declares the folders in `agents/`), and no code outside `agents/` names
//! a particular kind.

use std::fmt;
use std::str::FromStr;

/// The facts about one CLI that reading a team needs.
#[derive(Debug)]
pub struct KindFacts {
    /// The lowercase name used in `chatmd.toml` (`agent = "codex"`), in status
    /// comments, and as the program looked up on `PATH`.
    pub name: &'static str,
    /// The role file that makes a folder a member of this kind.
    pub role_file: &'static str,
    /// The context files the CLI loads by itself from each folder it walks, in the
    /// order it concatenates them.
    pub loads: &'static [&'static str],
    /// A file that, present in a folder, is loaded there instead of [`Self::loads`]
    /// (codex's `AGENTS.override.md`).
    pub loads_instead: Option<&'static str>,
    /// Whether, run outside the workspace, the CLI walks up to `/` (claude) rather
    /// than to the nearest `.git` folder (else its workdir alone).
    pub walks_to_filesystem_root: bool,
}

/// Declares [`AgentKind`] with one variant per entry, [`AgentKind::ALL`] in the
/// entries' order (the role-file precedence: when a member folder holds several role
/// files, the first kind wins) and each variant's [`KindFacts`]; and
/// `declare_kind_folders!`, which `agents/` expands into a module per entry's folder
/// (`Claude in claude`: `agents/claude.rs`, which gives the kind's `SPEC`) and their
/// specs in the same order. An entry may carry attributes (`#[cfg(test)]` for a kind
/// compiled only in unit tests).
macro_rules! built_in_kinds {
    ($($(#[$attr:meta])* $variant:ident in $folder:ident => $facts:expr,)+) => {
        /// Declares each built-in kind's folder under `agents/` as a module (public: the
        /// fuzz targets drive each kind's parser; inside the crate tidy keeps code
        /// outside `agents/` from reaching into them), and
        /// `KIND_SPECS`: their specs, in [`AgentKind::ALL`]'s order.
        macro_rules! declare_kind_folders {
            () => {
                $($(#[$attr])* pub mod $folder;)+
                /// Every built-in kind's spec, in `AgentKind::ALL`'s order.
                const KIND_SPECS: &[&kinds::KindSpec] = &[$($(#[$attr])* &$folder::SPEC,)+];
            };
        }
        pub(crate) use declare_kind_folders;

        /// A coding-agent CLI that chatmd knows by name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum AgentKind {
            $($(#[$attr])* $variant,)+
        }

        impl AgentKind {
            /// Every kind, in role-file precedence order.
            pub const ALL: &'static [AgentKind] = &[$($(#[$attr])* AgentKind::$variant,)+];

            /// What reading a team needs to know about this kind.
            pub fn facts(self) -> &'static KindFacts {
                match self {
                    $($(#[$attr])* AgentKind::$variant => {
                        const FACTS: KindFacts = $facts;
                        &FACTS
                    })+
                }
            }
        }
    };
}

built_in_kinds! {
    Claude in claude => KindFacts {
        name: "claude",
        role_file: "CLAUDE.md",
        loads: &["CLAUDE.md", "CLAUDE.local.md"],
        loads_instead: None,
        walks_to_filesystem_root: true,
    },
    Codex in codex => KindFacts {
        name: "codex",
        role_file: "AGENTS.md",
        loads: &["AGENTS.md"],
        loads_instead: Some("AGENTS.override.md"),
        walks_to_filesystem_root: false,
    },
    Gemini in gemini => KindFacts {
        name: "gemini",
        role_file: "GEMINI.md",
        loads: &["GEMINI.md"],
        loads_instead: None,
        walks_to_filesystem_root: false,
    },
    // A kind that exists only in unit tests, to show that a new kind needs its folder
    // under `agents/` (`agents/fixture_kind.rs` and `agents/fixture_kind/`) and this
    // entry, and nothing else (`agents::kinds`'s tests run it).
    #[cfg(test)]
    Fixture in fixture_kind => KindFacts {
        name: "fixture",
        role_file: "FIXTURE.md",
        loads: &["FIXTURE.md"],
        loads_instead: None,
        walks_to_filesystem_root: false,
    },
}

/// A name that is not one of the built-in agent kinds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent kind `{0}`: expected {names}", names = AgentKind::names_in_words())]
pub struct UnknownAgentKind(pub String);

impl AgentKind {
    /// The lowercase name used in `chatmd.toml` (`agent = "codex"`) and in status comments.
    pub fn name(self) -> &'static str {
        self.facts().name
    }

    /// The role file that makes a folder a member of this kind.
    pub fn role_file_name(self) -> &'static str {
        self.facts().role_file
    }

    /// The program looked up on `PATH`.
    pub fn binary(self) -> &'static str {
        self.name()
    }

    /// The kind whose role file has this exact name (`AGENTS.md` → codex).
    pub fn from_role_file_name(file_name: &str) -> Option<AgentKind> {
        AgentKind::ALL
            .iter()
            .copied()
            .find(|kind| kind.role_file_name() == file_name)
    }

    /// Every kind's name, as a sentence lists them: "claude, codex or gemini".
    pub fn names_in_words() -> String {
        let names: Vec<&str> = AgentKind::ALL.iter().map(|kind| kind.name()).collect();
        in_words(&names)
    }
}

/// Names as a sentence lists them: "a, b or c".
pub fn in_words(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for AgentKind {
    type Err = UnknownAgentKind;

    /// Accepts the lowercase names only, as written in `chatmd.toml`.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        AgentKind::ALL
            .iter()
            .copied()
            .find(|kind| kind.name() == name)
            .ok_or_else(|| UnknownAgentKind(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn names_files_and_binaries() {
        let rows: Vec<_> = AgentKind::ALL
            .iter()
            .map(|k| (k.to_string(), k.role_file_name(), k.binary()))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("claude".to_owned(), "CLAUDE.md", "claude"),
                ("codex".to_owned(), "AGENTS.md", "codex"),
                ("gemini".to_owned(), "GEMINI.md", "gemini"),
                ("fixture".to_owned(), "FIXTURE.md", "fixture"),
            ]
        );
    }

    #[test]
    fn parses_its_own_names_only() {
        assert_eq!("codex".parse::<AgentKind>(), Ok(AgentKind::Codex));
        // The unit tests' fixture kind is listed too; a build has the three CLIs.
        assert_eq!(
            "Codex".parse::<AgentKind>().map_err(|e| e.to_string()),
            Err("unknown agent kind `Codex`: expected claude, codex, gemini or fixture".to_owned())
        );
        assert_eq!(
            AgentKind::from_role_file_name("GEMINI.md"),
            Some(AgentKind::Gemini)
        );
        assert_eq!(AgentKind::from_role_file_name("gemini.md"), None);
    }
}
