//! What `chatmd members` shows, as plain data: the team, each member's CLI status and
//! auto-loaded files, and the problems with line and column. Serialized as the JSON.

use std::path::Path;

use serde::Serialize;

use super::members::Target;
use crate::agents::ask_mode::AskMode;
use crate::agents::probe::{
    NOT_PROBED_IN_WORKSPACE, inside_workspace, probe_version, version_unknown,
};
use crate::agents::versions::untested;
use crate::agents::{Registry, program, role_files_loaded};
use crate::team::{ConfigProblem, Location, Member, TEAM_INSTRUCTION_FILE, Team};

/// The JSON document of `chatmd members --json`; field names are a stable interface.
#[derive(Debug, Serialize)]
pub(super) struct Report {
    pub workspace_root: String,
    pub team_folder: String,
    pub chat: Option<String>,
    pub human: String,
    /// The path of `team_instruction.md` when it was read.
    pub team_instruction: Option<String>,
    pub members: Vec<MemberReport>,
    pub problems: Vec<ProblemReport>,
    #[serde(skip)]
    pub root: std::path::PathBuf,
}

#[derive(Debug, Serialize)]
pub(super) struct MemberReport {
    pub handle: String,
    pub agent: String,
    /// The ACP preset an `acp` member runs (`goose`), when it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    pub folder: String,
    pub role_file: Option<String>,
    pub role_summary: Option<String>,
    pub role_error: Option<String>,
    pub workdir: String,
    pub home: Option<String>,
    /// Variable names only: values may be secrets.
    pub env_keys: Vec<String>,
    pub args: Vec<String>,
    pub timeout_secs: Option<f64>,
    pub idle_timeout_secs: Option<f64>,
    /// Whether the member's turns continue its agent's session: on unless `resume =
    /// false`, and never for an agent without sessions (a plain command).
    pub resume: bool,
    pub cli: CliReport,
    /// Role files the member's CLI loads by itself (parent folders included).
    pub auto_loaded: Vec<String>,
    /// The permission mode its agent starts in, and who chose it.
    pub permission_mode: String,
    /// The MCP servers passed to its ACP sessions (from a trusted `chatmd.toml`).
    pub mcp_servers: Vec<McpServerReport>,
}

/// One MCP server of a member: variables and headers by name only.
#[derive(Debug, Serialize)]
pub(super) struct McpServerReport {
    pub name: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// The program and its arguments, or the URL.
    pub target: String,
}

#[derive(Debug, Serialize)]
pub(super) struct CliReport {
    /// The program the member runs (looked up by the rule turns use); `None` for
    /// agents that are not built in.
    pub binary: Option<String>,
    pub path: Option<String>,
    pub version: Option<String>,
    /// Why there is no version, when the program was found but has none.
    pub version_note: Option<String>,
    /// That the version is not one chatmd was tested with (`agents::versions`).
    pub version_warning: Option<String>,
    pub install_command: Option<String>,
}

#[derive(Debug, Serialize)]
pub(super) struct ProblemReport {
    pub severity: String,
    pub file: String,
    /// 1-based line and column (in characters) of the range start, when there is one.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub range: Option<ByteRange>,
    pub message: String,
}

#[derive(Debug, Serialize)]
pub(super) struct ByteRange {
    pub start: usize,
    pub end: usize,
}

fn text(path: &Path) -> String {
    path.display().to_string()
}

impl Report {
    pub fn new(target: &Target, team: &Team, agent_kinds: &Registry) -> Report {
        let root = &target.place.root;
        Report {
            workspace_root: text(root),
            team_folder: text(&team.folder),
            chat: target.chat.as_deref().map(text),
            human: team.human.clone(),
            team_instruction: team
                .instruction
                .as_ref()
                .map(|_| text(&team.folder.join(TEAM_INSTRUCTION_FILE))),
            members: team
                .members
                .iter()
                .map(|m| member(m, root, agent_kinds))
                .collect(),
            problems: team.problems.iter().map(problem).collect(),
            root: root.clone(),
        }
        .with_version_warnings()
    }

    /// A warning for each member whose CLI is a version chatmd was not tested with.
    fn with_version_warnings(mut self) -> Report {
        let warnings: Vec<ProblemReport> = self
            .members
            .iter()
            .filter_map(|m| {
                let warning = m.cli.version_warning.as_ref()?;
                Some(ProblemReport {
                    severity: "warning".to_owned(),
                    file: m.cli.path.clone()?,
                    line: None,
                    column: None,
                    range: None,
                    message: format!(
                        "@{}: {warning}: what chatmd reads from it may have changed",
                        m.handle
                    ),
                })
            })
            .collect();
        self.problems.extend(warnings);
        self
    }
}

/// The permission mode `m`'s agent starts in: the member's own `mode`, else the one
/// chatmd sets for its ACP preset (when the session offers it); a headless CLI's, the
/// one its user's `args` choose, else the one chatmd names on its command line.
fn permission_mode(m: &Member, agent_kinds: &Registry) -> String {
    if let Some(mode) = &m.session.mode {
        return format!("{mode} (its `mode`)");
    }
    let preset = m
        .preset
        .as_deref()
        .and_then(crate::agents::acp::preset_named);
    if let Some(mode) = preset.and_then(|p| p.asks_in) {
        return format!("{mode}, which asks (set by chatmd when the agent offers it)");
    }
    let entry = agent_kinds.entry(&m.agent);
    if let Some((entry, kind)) = entry.and_then(|e| Some((e, e.adapter.kind()?))) {
        let mode = AskMode::of(kind);
        if let Some(chosen) = mode.chosen_in(entry.args.iter().chain(&m.args)) {
            return format!("`{chosen}` (its `args`)");
        }
        return format!(
            "{}, which {} (set by chatmd: `{} {}`)",
            mode.value, mode.effect, mode.flag, mode.value
        );
    }
    match m.agent.as_str() {
        crate::agents::registry::COMMAND => "none (a program)".to_owned(),
        _ => "the agent's own default".to_owned(),
    }
}

fn member(m: &Member, root: &Path, agent_kinds: &Registry) -> MemberReport {
    MemberReport {
        handle: m.handle.clone(),
        agent: m.agent.clone(),
        preset: m.preset.clone(),
        folder: text(&m.folder),
        role_file: m.role_file.as_deref().map(text),
        role_summary: m.role_summary().map(str::to_owned),
        role_error: m.role_error.clone(),
        workdir: text(&m.workdir),
        home: m.home.as_deref().map(text),
        env_keys: m.env.keys().cloned().collect(),
        args: m.args.clone(),
        permission_mode: permission_mode(m, agent_kinds),
        mcp_servers: m
            .session
            .mcp_servers
            .iter()
            .map(|s| McpServerReport {
                name: s.name.clone(),
                transport: s.kind().to_owned(),
                target: s.target(),
            })
            .collect(),
        timeout_secs: m.timeout.map(|d| d.as_secs_f64()),
        idle_timeout_secs: m.idle_timeout.map(|d| d.as_secs_f64()),
        resume: m.resume
            && agent_kinds
                .entry(&m.agent)
                .is_some_and(|entry| entry.adapter.can_resume()),
        cli: cli(m, root, agent_kinds),
        auto_loaded: role_files_loaded(m, root).iter().map(|f| text(f)).collect(),
    }
}

fn cli(m: &Member, root: &Path, agent_kinds: &Registry) -> CliReport {
    // A built-in CLI, an ACP agent (a preset's program or the member's own), or a plain
    // program a trusted `chatmd.toml` names.
    let entry = agent_kinds.entry(&m.agent).filter(|entry| {
        m.kind().is_some()
            || entry.adapter.two_way()
            || (entry.adapter.needs_named_program() && m.command.is_some())
    });
    let Some(entry) = entry else {
        return CliReport {
            binary: None,
            path: None,
            version: None,
            version_note: None,
            version_warning: None,
            install_command: None,
        };
    };
    let path = program::find_member_program(entry, m, None).ok();
    // A plain program may not know `--version` (or may do something else with it).
    let probed = entry.adapter.probes_version();
    let version = path
        .as_deref()
        .filter(|_| probed)
        .and_then(|p| probe_version(p, Some(root)));
    let version_note = match path.as_deref() {
        Some(_) if !probed => Some("a program, not an agent CLI: no version".to_owned()),
        Some(p) if version.is_none() && inside_workspace(p, root) => {
            Some(NOT_PROBED_IN_WORKSPACE.to_owned())
        }
        Some(p) if version.is_none() => Some(version_unknown(&p.display().to_string())),
        _ => None,
    };
    // Named by the program's file name (`claude`, `codex-acp`): a preset's or the
    // member's own program is tested as what it is.
    let program_name = Path::new(program::member_program(entry, m))
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let version_warning = version.as_deref().and_then(|v| untested(&program_name, v));
    CliReport {
        binary: Some(program::member_program(entry, m).to_owned()),
        version_warning,
        version,
        version_note,
        path: path.as_deref().map(text),
        // A program of the member's own is not the kind's, whose install command is moot.
        install_command: program::member_install_hint(entry, m).map(str::to_owned),
    }
}

fn problem(p: &ConfigProblem) -> ProblemReport {
    // Problems found without the file's text at hand are placed now.
    let position = p.location.or_else(|| {
        let range = p.range.as_ref()?;
        let bytes = std::fs::read(&p.file).ok()?;
        let before = String::from_utf8_lossy(bytes.get(..range.start)?);
        Some(Location::of(&before, before.len()))
    });
    ProblemReport {
        severity: p.severity.name().to_owned(),
        file: text(&p.file),
        line: position.map(|at| at.line),
        column: position.map(|at| at.column),
        range: p.range.as_ref().map(|r| ByteRange {
            start: r.start,
            end: r.end,
        }),
        message: p.message.clone(),
    }
}
