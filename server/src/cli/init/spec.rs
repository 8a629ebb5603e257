//! The members `chatmd init` makes, as given on the command line (`--member
//! reviewer=claude`, `--member john=acp:gemini`) or typed at its prompt.

use crate::agents::AgentKind;
use crate::agents::acp::{AcpPreset, preset_named, preset_names};
use crate::agents::kinds::spec_of;
use crate::team::{DEFAULT_HUMAN, is_valid_handle};

/// The team `chatmd init` makes when it is not told or asked otherwise.
pub(super) const DEFAULT_TEAM: &str = "reviewer=claude tester=codex writer=gemini";

/// What runs a new member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Runs {
    /// A built-in CLI, run headless.
    Cli(AgentKind),
    /// An ACP agent by preset name.
    Acp(&'static AcpPreset),
}

impl Runs {
    /// The built-in CLI this is, when it is one (an ACP preset may be one).
    pub(super) fn kind(self) -> Option<AgentKind> {
        match self {
            Runs::Cli(kind) => Some(kind),
            Runs::Acp(preset) => preset.kind,
        }
    }

    /// The program on `PATH`.
    pub(super) fn program(self) -> &'static str {
        match self {
            Runs::Cli(kind) => kind.binary(),
            Runs::Acp(preset) => preset.program,
        }
    }

    /// How to install it, when known.
    pub(super) fn install(self) -> Option<&'static str> {
        match self {
            Runs::Cli(kind) => Some(spec_of(kind).install_command),
            Runs::Acp(preset) => preset.install,
        }
    }

    /// As the user writes it: `claude`, `acp:gemini`.
    #[cfg(test)]
    pub(super) fn spelled(self) -> String {
        match self {
            Runs::Cli(kind) => kind.name().to_owned(),
            Runs::Acp(preset) => format!("acp:{}", preset.name),
        }
    }
}

/// One member to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MemberSpec {
    pub handle: String,
    pub runs: Runs,
}

/// A `--member` value that cannot be used, said so the user can fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum SpecError {
    #[error("`{0}` is not HANDLE=AGENT (for example `reviewer=claude`)")]
    NoEquals(String),
    #[error(
        "`{0}` is not a handle: a handle starts with a letter or digit and holds only letters, \
         digits, `_`, `.` and `-`"
    )]
    BadHandle(String),
    #[error("`@{0}` is the human's handle in a chat; pick another name for the member")]
    Human(String),
    #[error("@{0} is named twice (handles ignore case)")]
    Twice(String),
    #[error("`{agent}` (for @{handle}) is not an agent: use claude, codex, gemini or acp:<preset>")]
    UnknownAgent { handle: String, agent: String },
    #[error(
        "`{preset}` (for @{handle}) is not an ACP preset; presets: {}",
        preset_names()
    )]
    UnknownPreset { handle: String, preset: String },
}

/// The members of `values` (each `HANDLE=AGENT`), in order.
pub(super) fn parse_members<'a>(
    values: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<MemberSpec>, SpecError> {
    let mut members: Vec<MemberSpec> = Vec::new();
    for value in values {
        let member = parse_member(value)?;
        if members
            .iter()
            .any(|m| m.handle.eq_ignore_ascii_case(&member.handle))
        {
            return Err(SpecError::Twice(member.handle));
        }
        members.push(member);
    }
    Ok(members)
}

fn parse_member(value: &str) -> Result<MemberSpec, SpecError> {
    let (handle, agent) = value
        .split_once('=')
        .ok_or_else(|| SpecError::NoEquals(value.to_owned()))?;
    let (handle, agent) = (handle.trim().trim_start_matches('@'), agent.trim());
    if !is_valid_handle(handle) {
        return Err(SpecError::BadHandle(handle.to_owned()));
    }
    if handle.eq_ignore_ascii_case(DEFAULT_HUMAN) {
        return Err(SpecError::Human(handle.to_owned()));
    }
    let runs = match agent.strip_prefix("acp:") {
        Some(preset) => {
            Runs::Acp(
                preset_named(preset).ok_or_else(|| SpecError::UnknownPreset {
                    handle: handle.to_owned(),
                    preset: preset.to_owned(),
                })?,
            )
        }
        None => Runs::Cli(agent.parse().map_err(|_| SpecError::UnknownAgent {
            handle: handle.to_owned(),
            agent: agent.to_owned(),
        })?),
    };
    Ok(MemberSpec {
        handle: handle.to_owned(),
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn spelled(values: &[&str]) -> Result<Vec<String>, String> {
        parse_members(values.iter().copied())
            .map(|members| {
                members
                    .iter()
                    .map(|m| format!("{}={}", m.handle, m.runs.spelled()))
                    .collect()
            })
            .map_err(|e| e.to_string())
    }

    #[test]
    fn reads_cli_and_acp_members_in_order() {
        assert_eq!(
            spelled(&["reviewer=claude", "@john = acp:gemini", "t.2=codex"]),
            Ok(vec![
                "reviewer=claude".to_owned(),
                "john=acp:gemini".to_owned(),
                "t.2=codex".to_owned()
            ])
        );
    }

    #[test]
    fn says_what_is_wrong_with_a_bad_value() {
        assert_eq!(
            spelled(&["reviewer"]),
            Err("`reviewer` is not HANDLE=AGENT (for example `reviewer=claude`)".to_owned())
        );
        assert_eq!(
            spelled(&["tester=cdex"]),
            Err(
                "`cdex` (for @tester) is not an agent: use claude, codex, gemini or acp:<preset>"
                    .to_owned()
            )
        );
        assert!(
            spelled(&["x=acp:nope"])
                .unwrap_err()
                .starts_with("`nope` (for @x) is not an ACP preset; presets: gemini, ")
        );
        assert!(
            spelled(&["-x=claude"])
                .unwrap_err()
                .contains("is not a handle")
        );
        assert!(
            spelled(&["me=claude"])
                .unwrap_err()
                .contains("human's handle")
        );
        assert_eq!(
            spelled(&["a=claude", "A=codex"]),
            Err("@A is named twice (handles ignore case)".to_owned())
        );
    }
}
