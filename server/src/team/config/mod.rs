//! `chatmd.toml`: one file parsed into validated member settings, every mistake a
//! `TeamProblem` with its byte range; invalid values are dropped, valid ones kept.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::Spanned;

use raw::{RawFile, RawMember, Seconds};

use super::model::{Severity, TeamProblem, is_valid_handle};
use super::paths::contain;

mod layers;
mod raw;

pub(crate) use layers::load_layers;

/// The file name looked up from the team folder up to the workspace root.
pub const CONFIG_FILE_NAME: &str = "chatmd.toml";

/// The longest `timeout` or `idle_timeout`: 30 days. A turn runs for minutes; a larger
/// number is a mistake, and `9223372036854775807` used to overflow the clock.
const MAX_SECONDS: f64 = 30.0 * 24.0 * 3600.0;

/// What one `chatmd.toml` says, after validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct FileConfig {
    /// `human`, with the byte range of its value.
    pub human: Option<(String, Range<usize>)>,
    /// `[members.NAME]` tables in file order.
    pub members: Vec<MemberSettings>,
}

/// One `[members.NAME]` table; `None` means "not set here".
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct MemberSettings {
    pub name: String,
    /// The file and byte range of the table's name, for problems about the whole table.
    pub declared_at: Option<(PathBuf, Range<usize>)>,
    pub agent: Option<String>,
    pub instructions: Option<String>,
    pub workdir: Option<PathBuf>,
    pub home: Option<PathBuf>,
    pub env: BTreeMap<String, String>,
    pub args: Option<Vec<String>>,
    pub timeout: Option<Duration>,
    pub idle_timeout: Option<Duration>,
    pub resume: Option<bool>,
}

impl MemberSettings {
    /// Applies a nearer file's settings over these, key by key (and `env` variable by
    /// variable).
    pub fn overlay(&mut self, nearer: MemberSettings) {
        fn take<T>(mine: &mut Option<T>, theirs: Option<T>) {
            if theirs.is_some() {
                *mine = theirs;
            }
        }
        take(&mut self.declared_at, nearer.declared_at);
        take(&mut self.agent, nearer.agent);
        take(&mut self.instructions, nearer.instructions);
        take(&mut self.workdir, nearer.workdir);
        take(&mut self.home, nearer.home);
        take(&mut self.args, nearer.args);
        take(&mut self.timeout, nearer.timeout);
        take(&mut self.idle_timeout, nearer.idle_timeout);
        take(&mut self.resume, nearer.resume);
        self.env.extend(nearer.env);
    }
}

/// Parses and validates one `chatmd.toml`. A file that does not parse yields one
/// problem and no settings; a bad value yields a problem and is left out.
pub(crate) fn parse_config(
    workspace_root: &Path,
    file: &Path,
    text: &str,
    problems: &mut Vec<TeamProblem>,
) -> FileConfig {
    let raw: RawFile = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(error) => {
            problems.push(TeamProblem::new(
                file,
                error.span(),
                Severity::Error,
                parse_error_message(error.message()),
            ));
            return FileConfig::default();
        }
    };
    let first_new = problems.len();
    let mut check = Checker {
        root: workspace_root,
        file,
        base: file.parent().unwrap_or(Path::new("")),
        text,
        problems,
    };
    if let Some(command) = &raw.command {
        check.command(command);
    }
    let human = raw.human.and_then(|human| {
        if is_valid_handle(human.get_ref()) {
            let span = human.span();
            Some((human.into_inner(), span))
        } else {
            check.error(
                human.span(),
                format!(
                    "`human = \"{}\"` is not a valid handle; use letters, digits, `_`, `.` \
                     or `-`, starting with a letter or digit",
                    human.get_ref()
                ),
            );
            None
        }
    });
    let members = raw
        .members
        .0
        .into_iter()
        .filter_map(|(name, member)| check.member(name, member))
        .collect();
    // Report in file order, as a reader meets them.
    problems[first_new..].sort_by_key(|p| p.range.as_ref().map(|r| r.start));
    FileConfig { human, members }
}

fn parse_error_message(message: &str) -> String {
    let message = message.trim_end();
    let hint = if message.starts_with("unknown field `agents`") {
        " (agent kinds belong in ~/.config/chatmd/agents.toml, not in the workspace)"
    } else if message.starts_with("unknown field") {
        "; remove it or fix its spelling"
    } else {
        ""
    };
    format!("{message}{hint}. chatmd ignores this chatmd.toml until it is fixed")
}

/// Validates raw values against one file, reporting problems at their ranges.
struct Checker<'a> {
    root: &'a Path,
    file: &'a Path,
    base: &'a Path,
    text: &'a str,
    problems: &'a mut Vec<TeamProblem>,
}

impl Checker<'_> {
    fn report(&mut self, range: Range<usize>, severity: Severity, message: String) {
        self.problems
            .push(TeamProblem::new(self.file, Some(range), severity, message));
    }

    fn error(&mut self, range: Range<usize>, message: String) {
        self.report(range, Severity::Error, message);
    }

    fn command(&mut self, value: &Spanned<toml::Value>) {
        let range = assignment_range(self.text, value.span(), "command");
        self.error(
            range,
            "`command` is not allowed here: a workspace file may not choose which program \
             runs. Define an agent kind in ~/.config/chatmd/agents.toml and name it with \
             `agent = \"...\"` instead"
                .to_owned(),
        );
    }

    fn member(&mut self, name: Spanned<String>, raw: RawMember) -> Option<MemberSettings> {
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
        if let Some(command) = &raw.command {
            self.command(command);
        }
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
        Some(MemberSettings {
            declared_at: Some((self.file.to_path_buf(), name_range)),
            agent,
            instructions: raw.instructions,
            workdir: raw.workdir.and_then(|p| self.path("workdir", p)),
            home: raw.home.and_then(|p| self.path("home", p)),
            env: raw.env.map(|env| self.env(env)).unwrap_or_default(),
            args: raw.args.and_then(|args| self.args(args)),
            timeout: raw.timeout.and_then(|t| self.seconds("timeout", t)),
            idle_timeout: raw
                .idle_timeout
                .and_then(|t| self.seconds("idle_timeout", t)),
            resume: raw.resume,
            name,
        })
    }

    fn path(&mut self, key: &str, value: Spanned<String>) -> Option<PathBuf> {
        let span = value.span();
        match contain(self.root, self.base, Path::new(value.get_ref())) {
            Ok(path) => {
                // A member's `home` is created at its first turn; only something else
                // in its place is a problem.
                let missing_is_fine = key == "home" && !path.exists();
                if !path.is_dir() && !missing_is_fine {
                    self.report(
                        span,
                        Severity::Warning,
                        format!(
                            "`{key}` {} does not exist (or is not a folder); create it or fix \
                             the path",
                            path.display()
                        ),
                    );
                }
                Some(path)
            }
            Err(error) => {
                self.error(span, format!("`{key}`: {error}"));
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

    fn env(&mut self, env: Spanned<BTreeMap<String, String>>) -> BTreeMap<String, String> {
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
            (None, None) => return env,
        };
        self.error(span, message);
        BTreeMap::new()
    }

    fn args(&mut self, args: Spanned<Vec<String>>) -> Option<Vec<String>> {
        if args.get_ref().iter().any(|a| a.contains('\0')) {
            self.error(
                args.span(),
                "`args`: an argument contains a NUL character; remove it".to_owned(),
            );
            return None;
        }
        Some(args.into_inner())
    }
}

/// The range of `key = value` given the value's range: the key is the last thing before
/// the `=` (bare or quoted). Falls back to the value's range.
fn assignment_range(text: &str, value: Range<usize>, key: &str) -> Range<usize> {
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

#[cfg(test)]
mod tests;
