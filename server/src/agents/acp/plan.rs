//! The command line of an ACP member's turn and the program it names: the member's own
//! `command`, else its `preset`'s (or the entry's), with the preset's arguments and
//! variables, the member's `home` as the state folder of the CLI behind a preset that
//! is one of the built-in kinds, and the whole prompt (role inline on top) for the
//! session to send in `session/prompt`, and the member's session settings (`mode`,
//! `model`, `options`) for the session to apply. The session a turn resumes is the
//! session's business (`turns/resume.rs`), so `resume` is not used here.

use crate::agent_config::{AcpPreset, preset_named};
use crate::agents::plan::{TurnSpec, inline};
use crate::agents::registry::{AcpSpec, AgentEntry};
use crate::agents::{Invocation, Stdin};
use crate::team::Member;

/// The preset a turn of `member` through an ACP `entry` uses: the member's own, else
/// the entry's.
pub fn member_preset(spec: &AcpSpec, member: &Member) -> Option<&'static AcpPreset> {
    member
        .preset
        .as_deref()
        .or(spec.preset.as_deref())
        .and_then(preset_named)
}

/// The program an ACP member runs: its own `command`, else its own preset's, else the
/// entry's (an `agents.toml` entry's command or preset).
pub fn program<'a>(entry: &'a AgentEntry, member: &'a Member) -> &'a str {
    if let Some(command) = &member.command {
        return command;
    }
    match member.preset.as_deref().and_then(preset_named) {
        Some(preset) => preset.program,
        None => &entry.program,
    }
}

/// How to install what [`program`] names: nothing for a program of the member's own.
pub fn install_hint<'a>(entry: &'a AgentEntry, member: &'a Member) -> Option<&'a str> {
    if member.command.is_some() {
        return None;
    }
    match member.preset.as_deref().and_then(preset_named) {
        Some(preset) => preset.install,
        None => entry.install_hint.as_deref(),
    }
}

/// The command line of one turn of an ACP member.
pub(crate) fn plan(turn: &TurnSpec<'_>, spec: &AcpSpec) -> Invocation {
    let (entry, member) = (turn.entry, turn.member);
    let preset = member_preset(spec, member);
    let mut invocation = turn.base(true);
    invocation.program = program(entry, member).to_owned();
    invocation.install_hint = install_hint(entry, member).map(str::to_owned);
    // Before the member's own variables (already in place), so that they win.
    let mut first = Vec::new();
    if let (Some(home), Some(kind)) = (&member.home, preset.and_then(|p| p.kind)) {
        first.push((
            crate::agents::kinds::spec_of(kind).state_env_var.to_owned(),
            home.display().to_string(),
        ));
        invocation.create_dirs.push(home.clone());
    }
    if let Some(preset) = preset {
        first.extend(
            preset
                .env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        invocation
            .args
            .extend(preset.args.iter().map(|a| (*a).to_owned()));
    }
    invocation.env.splice(0..0, first);
    turn.extra_args(&mut invocation);
    invocation.session.settings = member.session.clone();
    if member.session.mode.is_none() {
        invocation.session.settings.asking_mode = preset.and_then(|p| p.asks_in).map(str::to_owned);
    }
    // A resumed session holds the system text of its first turn (and gets it again in
    // the body when it does not: `conversation/prompt/held.rs`); the fallback, a new
    // session, is planned without `resume` and gets it inline.
    let prompt = match turn.resume {
        Some(_) => turn.body.to_owned(),
        None => inline(turn.system, turn.body),
    };
    invocation.stdin = Stdin::Prompt(prompt);
    invocation
}
