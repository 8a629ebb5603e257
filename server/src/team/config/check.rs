//! Validating one parsed `chatmd.toml`: each raw value checked against the workspace
//! and reported at its byte range, and the settings that need trust noted.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::Spanned;

use super::MemberSettings;
use super::raw::{RawMember, Seconds};
use crate::agent_config::AgentKind;
use crate::agent_config::{preset_named, preset_names};
use crate::team::error::TeamError;
use crate::team::model::is_valid_handle;
use crate::team::paths::{contain, normalize};
use crate::team::problem::{ConfigProblem, Severity};
use crate::team::trust::{TrustItem, TrustKey, UserTrust, link_out, trust_command};

/// The longest `timeout` or `idle_timeout`: 30 days. A turn runs for minutes; a larger
/// number is a mistake, and `9223372036854775807` used to overflow the clock.
const MAX_SECONDS: f64 = 30.0 * 24.0 * 3600.0;

/// Validates raw values against one file, reporting problems at their ranges.
pub(super) struct Checker<'a> {
    pub(super) root: &'a Path,
    pub(super) file: &'a Path,
    pub(super) base: &'a Path,
    pub(super) text: &'a str,
    pub(super) trust: &'a UserTrust,
    /// The settings found that need trust.
    pub(super) items: Vec<TrustItem>,
    pub(super) problems: &'a mut Vec<ConfigProblem>,
}

impl Checker<'_> {
    pub(super) fn report(&mut self, range: Range<usize>, severity: Severity, message: String) {
        self.problems.push(ConfigProblem::new(
            self.file,
            Some(range),
            severity,
            message,
        ));
    }

    pub(super) fn error(&mut self, range: Range<usize>, message: String) {
        self.report(range, Severity::Error, message);
    }

    /// Notes a setting that needs trust, at its `key = value`.
    pub(super) fn needs_trust(
        &mut self,
        member: &str,
        key: TrustKey,
        value: Range<usize>,
        shown: Vec<String>,
    ) {
        self.items.push(TrustItem {
            member: member.to_owned(),
            key,
            range: header_range(self.text, &value)
                .unwrap_or_else(|| assignment_range(self.text, value, key.name())),
            shown,
        });
    }

    /// A member's `command`: one program, a bare name looked up on `PATH` or a path
    /// (relative to this file's folder).
    fn command(&mut self, member: &str, value: Spanned<toml::Value>) -> Option<String> {
        let span = value.span();
        let program = match value.into_inner() {
            toml::Value::String(program) if !program.trim().is_empty() => program,
            _ => {
                self.error(
                    span,
                    "`command` must be one program: a name looked up on PATH or a path, like \
                     \"./bin/agent\"; put its arguments in `args`"
                        .to_owned(),
                );
                return None;
            }
        };
        let program = if program.contains('/') {
            normalize(&self.base.join(&program)).display().to_string()
        } else {
            program
        };
        self.needs_trust(
            member,
            TrustKey::Command,
            span,
            vec![format!("command = {}", quoted(&program))],
        );
        Some(program)
    }

    pub(super) fn member(
        &mut self,
        name: Spanned<String>,
        raw: RawMember,
    ) -> Option<MemberSettings> {
        let name_range = name.span();
        let name = name.into_inner();
        if !is_valid_handle(&name) {
            self.error(
                name_range,
                format!(
                    "`[members.{name}]`: `{name}` is not a valid handle; use letters, digits, \
                     `_`, `.` or `-`, starting with a letter or digit"
                ),
            );
            return None;
        }
        let command = raw.command.and_then(|c| self.command(&name, c));
        let agent = raw.agent.and_then(|agent| {
            let span = agent.span();
            let agent = agent.into_inner().trim().to_owned();
            if agent.is_empty() {
                self.error(
                    span,
                    "`agent` is empty; name an agent such as claude, codex or gemini".to_owned(),
                );
                return None;
            }
            Some(agent)
        });
        let preset = raw.preset.and_then(|p| self.preset(agent.as_deref(), p));
        let mut blocked = false;
        let workdir = raw
            .workdir
            .and_then(|p| self.path(&name, "workdir", p, &mut blocked));
        let home = raw.home.and_then(|p| {
            let span = p.span();
            let home = self.path(&name, "home", p, &mut blocked)?;
            let shown = vec![format!("home = {}", quoted(&home.display().to_string()))];
            self.needs_trust(&name, TrustKey::Home, span, shown);
            Some(home)
        });
        let env = raw.env.map(|env| self.env(&name, env)).unwrap_or_default();
        let args = raw.args.and_then(|args| self.args(&name, args));
        let session = self.session(&name, agent.as_deref(), raw.mode, raw.model, raw.options);
        let permissions = raw
            .permissions
            .map(|table| self.permissions(&name, table))
            .unwrap_or_default();
        let mcp_servers = raw
            .mcp_servers
            .map(|table| self.mcp_servers(&name, table))
            .unwrap_or_default();
        Some(MemberSettings {
            declared_at: Some((self.file.to_path_buf(), name_range)),
            agent,
            preset,
            instructions: raw.instructions,
            workdir,
            home,
            env,
            args,
            command,
            permissions,
            blocked,
            timeout: raw.timeout.and_then(|t| self.seconds("timeout", t)),
            idle_timeout: raw
                .idle_timeout
                .and_then(|t| self.seconds("idle_timeout", t)),
            resume: raw.resume,
            thoughts: raw.thoughts.and_then(|t| self.thoughts(t)),
            mode: session.mode,
            model: session.model,
            options: session.options.into_iter().collect(),
            mcp_servers,
            name,
        })
    }

    /// An ACP member's `preset`: a name from the list, for an agent that can be ACP
    /// (`agent` here, when this table sets it).
    fn preset(&mut self, agent: Option<&str>, value: Spanned<String>) -> Option<String> {
        let span = value.span();
        let name = value.into_inner();
        if let Some(kind) = agent.and_then(|a| a.parse::<AgentKind>().ok()) {
            self.error(
                span,
                format!(
                    "`preset` is for ACP members; `agent = \"{kind}\"` runs {kind} headless. Set \
                     `agent = \"acp\"` to run `preset = \"{name}\"` over ACP, or remove `preset`"
                ),
            );
            return None;
        }
        if preset_named(&name).is_none() {
            self.error(
                span,
                format!(
                    "`{name}` is not an ACP preset; presets: {}. For another ACP agent, set \
                     `command` (and `args`) instead",
                    preset_names()
                ),
            );
            return None;
        }
        Some(name)
    }

    /// A folder setting: inside the workspace, or through a link out of it that the
    /// user accepted. A link the user did not accept blocks the member.
    fn path(
        &mut self,
        member: &str,
        key: &str,
        value: Spanned<String>,
        blocked: &mut bool,
    ) -> Option<PathBuf> {
        let span = value.span();
        let path = match contain(self.root, self.base, Path::new(value.get_ref())) {
            Ok(path) => path,
            Err(TeamError::SymlinkOutside { path, target }) => {
                let (link, target) = link_out(self.root, &path).unwrap_or((path.clone(), target));
                if !self.trust.allows_link(&link, &target) {
                    *blocked = true;
                    self.error(
                        span,
                        format!(
                            "`{key}` goes through {}, a link to {} outside the workspace, so \
                             @{member} is left out: a repository could ship such a link. If you \
                             made it, accept it with `{}`",
                            link.display(),
                            target.display(),
                            trust_command(&link)
                        ),
                    );
                    return None;
                }
                path
            }
            Err(error) => {
                self.error(span, format!("`{key}`: {error}"));
                return None;
            }
        };
        // A member's `home` is created at its first turn; only something else in its
        // place is a problem.
        let missing_is_fine = key == "home" && !path.exists();
        if !path.is_dir() && !missing_is_fine {
            self.report(
                span,
                Severity::Warning,
                format!(
                    "`{key}` {} does not exist (or is not a folder); create it or fix the path",
                    path.display()
                ),
            );
        }
        Some(path)
    }

    /// `thoughts`: `folded` or `hidden`.
    fn thoughts(&mut self, value: Spanned<String>) -> Option<crate::team::Thoughts> {
        match value.get_ref().as_str() {
            "folded" => Some(crate::team::Thoughts::Folded),
            "hidden" => Some(crate::team::Thoughts::Hidden),
            other => {
                self.error(
                    value.span(),
                    format!(
                        "`thoughts = \"{other}\"` is not a choice: use \"folded\" (the agent's \
                         thoughts in a folded block, the default) or \"hidden\""
                    ),
                );
                None
            }
        }
    }

    fn seconds(&mut self, key: &str, value: Spanned<Seconds>) -> Option<Duration> {
        let seconds = value.get_ref().0;
        if seconds > MAX_SECONDS {
            self.error(
                value.span(),
                format!("`{key}` is too large: at most {MAX_SECONDS} seconds (30 days)"),
            );
            return None;
        }
        let duration = (seconds > 0.0)
            .then(|| Duration::try_from_secs_f64(seconds).ok())
            .flatten();
        if duration.is_none() {
            self.error(
                value.span(),
                format!(
                    "`{key}` must be a number of seconds greater than 0 (fractions allowed), \
                     like 600 or 2.5"
                ),
            );
        }
        duration
    }

    fn env(
        &mut self,
        member: &str,
        env: Spanned<BTreeMap<String, String>>,
    ) -> BTreeMap<String, String> {
        let span = env.span();
        let env = env.into_inner();
        let bad_name = env.keys().find(|k| k.is_empty() || k.contains(['=', '\0']));
        let bad_value = env.iter().find(|(_, v)| v.contains('\0'));
        let message = match (bad_name, bad_value) {
            (Some(name), _) => format!(
                "`env`: `{name}` is not a valid variable name; names may not be empty or \
                 contain `=`"
            ),
            (None, Some((name, _))) => {
                format!("`env`: the value of `{name}` contains a NUL character; remove it")
            }
            (None, None) => {
                if !env.is_empty() {
                    let shown = env
                        .iter()
                        .map(|(name, value)| format!("env {name} = {}", quoted(value)))
                        .collect();
                    self.needs_trust(member, TrustKey::Env, span, shown);
                }
                return env;
            }
        };
        self.error(span, message);
        BTreeMap::new()
    }

    fn args(&mut self, member: &str, args: Spanned<Vec<String>>) -> Option<Vec<String>> {
        if args.get_ref().iter().any(|a| a.contains('\0')) {
            self.error(
                args.span(),
                "`args`: an argument contains a NUL character; remove it".to_owned(),
            );
            return None;
        }
        let span = args.span();
        let args = args.into_inner();
        if !args.is_empty() {
            let list: Vec<String> = args.iter().map(|a| quoted(a)).collect();
            let shown = vec![format!("args = [{}]", list.join(", "))];
            self.needs_trust(member, TrustKey::Args, span, shown);
        }
        Some(args)
    }
}

/// The header line `[members.bob.env]` when `value` is a table written that way (toml
/// gives such a table's span inside its header).
fn header_range(text: &str, value: &Range<usize>) -> Option<Range<usize>> {
    let start = text.get(..value.start)?.rfind('\n').map_or(0, |i| i + 1);
    let end = text
        .get(start..)?
        .find('\n')
        .map_or(text.len(), |i| start + i);
    let line = text.get(start..end)?;
    let trimmed = line.trim();
    if !trimmed.starts_with('[') || trimmed.starts_with("[[") || value.end > end + 1 {
        return None;
    }
    let lead = line.len() - line.trim_start().len();
    Some(start + lead..start + lead + trimmed.len())
}

/// `text` as a TOML string, as the user would write it.
pub(super) fn quoted(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

/// The range of `key = value` given the value's range: the key is the last thing before
/// the `=` (bare or quoted). Falls back to the value's range.
pub(super) fn assignment_range(text: &str, value: Range<usize>, key: &str) -> Range<usize> {
    let before = text.get(..value.start).unwrap_or("").trim_end();
    let Some(before) = before.strip_suffix('=') else {
        return value;
    };
    let before = before.trim_end();
    for written in [key.to_owned(), format!("\"{key}\""), format!("'{key}'")] {
        if let Some(start) = before.strip_suffix(written.as_str()).map(str::len) {
            return start..value.end;
        }
    }
    value
}
