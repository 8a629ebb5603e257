//! What every adapter's command line shares: cwd, environment and state isolation,
//! limits, and the rule that decides whether the prompt is an argument or goes on stdin.

use std::time::Duration;

use super::ask_mode::AskMode;
use super::registry::AgentEntry;
use super::{Invocation, Limits, Stdin};
use crate::agent_config::AgentKind;
use crate::team::Member;

/// Idle limit of kinds with a completion event: long, because codex prints nothing
/// while it works and every CLI retries network errors for minutes.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(10 * 60);

/// Total limit of every turn unless the member sets `timeout`.
pub const DEFAULT_TOTAL: Duration = Duration::from_secs(60 * 60);

/// The largest text passed as one argument. Linux refuses a single argument over
/// 128 KiB (`MAX_ARG_STRLEN`); anything larger goes on stdin.
pub const ARGUMENT_LIMIT: usize = 100 * 1024;

/// Whether `text` may be passed as one argument: small enough, and not starting with
/// `-`, which every CLI's option parser would take for an option.
pub fn fits_argument(text: &str) -> bool {
    text.len() <= ARGUMENT_LIMIT && !text.starts_with('-')
}

/// The prompt with the system text inline on top, for CLIs without a system flag; the
/// same layout as the prompt builder's (`[SYSTEM]\n<system>\n<body>`).
pub fn inline(system: &str, body: &str) -> String {
    if system.is_empty() {
        return body.to_owned();
    }
    format!("[SYSTEM]\n{system}\n{body}")
}

/// The session to resume: only when the member asks for it and one is known.
pub fn resume_session<'a>(member: &Member, session: Option<&'a str>) -> Option<&'a str> {
    session.filter(|id| member.resume && !id.is_empty())
}

/// One turn to plan: the member answering through `entry`, its role (`system`, empty
/// for none), the prompt and the session it continues (already `None` unless the
/// member resumes).
pub struct TurnSpec<'a> {
    pub entry: &'a AgentEntry,
    pub member: &'a Member,
    pub system: &'a str,
    pub body: &'a str,
    pub resume: Option<&'a str>,
}

impl TurnSpec<'_> {
    /// An invocation of the entry's program in the member's workdir, with the member's
    /// environment and, when the member has a `home`, the kind's state variable pointing
    /// there (the folder is created first: codex refuses a `CODEX_HOME` that does not
    /// exist). Arguments and stdin are the adapter's to fill in.
    pub fn base(&self, has_completion_event: bool) -> Invocation {
        let (entry, member) = (self.entry, self.member);
        let mut env = Vec::new();
        let mut create_dirs = Vec::new();
        if let (Some(home), Some(kind)) = (&member.home, entry.adapter.kind()) {
            env.push((
                super::kinds::spec_of(kind).state_env_var.to_owned(),
                home.display().to_string(),
            ));
            create_dirs.push(home.clone());
        }
        // After the isolation variable, so a member's explicit setting wins.
        env.extend(member.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        Invocation {
            program: entry.program.clone(),
            args: Vec::new(),
            env,
            create_dirs,
            cwd: member.workdir.clone(),
            stdin: Stdin::Null,
            limits: limits(member, has_completion_event),
            install_hint: entry.install_hint.clone(),
            session: Default::default(),
        }
    }

    /// The entry's extra arguments, then the member's: after the adapter's own flags,
    /// before the prompt.
    pub fn extra_args(&self, invocation: &mut Invocation) {
        invocation.args.extend(self.entry.args.iter().cloned());
        invocation.args.extend(self.member.args.iter().cloned());
    }

    /// The mode that asks (`ask_mode.rs`) for `kind`'s CLI, unless the user's own
    /// arguments (the entry's, the member's) choose one.
    pub fn ask_mode(&self, invocation: &mut Invocation, kind: AgentKind) {
        let mode = AskMode::of(kind);
        let users = self.entry.args.iter().chain(&self.member.args);
        if mode.chosen_in(users).is_none() {
            invocation.args.extend(mode.args());
        }
    }
}

/// Kinds with a completion event get the long defaults; a plain command ends at exit,
/// so it has no idle limit unless the member sets one.
pub fn limits(member: &Member, has_completion_event: bool) -> Limits {
    let default_idle = has_completion_event.then_some(DEFAULT_IDLE);
    Limits {
        idle: member.idle_timeout.or(default_idle),
        total: member.timeout.unwrap_or(DEFAULT_TOTAL),
        has_completion_event,
    }
}

/// Puts the prompt where the CLI reads it: as the next argument when it fits in one,
/// else on stdin, with `placeholder` (if any) as the argument that tells the CLI so.
pub fn prompt(invocation: &mut Invocation, prompt: String, placeholder: Option<&str>) {
    if fits_argument(&prompt) {
        invocation.args.push(prompt);
    } else {
        invocation.args.extend(placeholder.map(str::to_owned));
        invocation.stdin = Stdin::Prompt(prompt);
    }
}

/// `flag value`, when there is a value (`--resume <session>`).
pub fn flag(invocation: &mut Invocation, flag: &str, value: Option<&str>) {
    if let Some(value) = value {
        invocation.args.extend([flag.to_owned(), value.to_owned()]);
    }
}

/// Adds `flag=value` as one argument, when there is a value: a value that starts with
/// `-` stays the flag's value instead of being read as an option of its own (both
/// commander, claude's parser, and yargs, gemini's, take this form).
pub fn attached_flag(invocation: &mut Invocation, flag: &str, value: Option<&str>) {
    if let Some(value) = value {
        invocation.args.push(format!("{flag}={value}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn arguments_must_be_small_and_not_look_like_options() {
        assert!(fits_argument("[CONTEXT]\nhi"));
        assert!(fits_argument(&"x".repeat(ARGUMENT_LIMIT)));
        assert!(!fits_argument(&"x".repeat(ARGUMENT_LIMIT + 1)));
        assert!(!fits_argument("--help"));
    }

    #[test]
    fn inline_matches_the_prompt_builder_layout() {
        assert_eq!(inline("", "[CONTEXT]\n"), "[CONTEXT]\n");
        assert_eq!(
            inline("Be brief.", "[CONTEXT]\n"),
            "[SYSTEM]\nBe brief.\n[CONTEXT]\n"
        );
    }
}
