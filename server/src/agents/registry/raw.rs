//! The serde shape of `agents.toml` (strict: `deny_unknown_fields`, so a typo is a
//! problem at its place) and its validation into [`AgentEntry`]s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::{
    AcpSpec, Adapter, AgentEntry, CommandOutput, CommandSpec, JsonPointers, PromptDelivery,
};
use crate::agents::AgentKind;
use crate::agents::acp::{preset_named, preset_names};
use crate::team::toml_check::{dotted, parse_strict};
use crate::team::{ConfigProblem, Severity, is_valid_handle};

mod agent_type;
use agent_type::RawType;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    agents: BTreeMap<Spanned<String>, RawEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    #[serde(rename = "type")]
    adapter: Option<Spanned<RawType>>,
    command: Option<Spanned<String>>,
    args: Option<Vec<String>>,
    prompt: Option<Spanned<RawPrompt>>,
    output: Option<Spanned<RawOutput>>,
    text: Option<Spanned<String>>,
    session: Option<Spanned<String>>,
    done: Option<Spanned<String>>,
    done_value: Option<Spanned<String>>,
    error: Option<Spanned<String>>,
    install: Option<String>,
    /// An ACP preset by name (`type = "acp"` only).
    preset: Option<Spanned<String>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum RawPrompt {
    Stdin,
    Argument,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum RawOutput {
    Text,
    Jsonl,
}

/// The entries an `agents.toml` defines or overrides, and its problems in file order.
/// `home` expands a leading `~/` in `command`.
pub(super) fn parse(
    file: &Path,
    text: &str,
    home: Option<&Path>,
) -> (Vec<AgentEntry>, Vec<ConfigProblem>) {
    let mut check = Checker {
        file,
        text,
        home,
        problems: Vec::new(),
    };
    let until_fixed = "chatmd uses the built-in agents until this file is fixed";
    let raw: RawFile = match parse_strict(file, text, until_fixed) {
        Ok(raw) => raw,
        Err(problem) => return (Vec::new(), vec![*problem]),
    };
    let entries = raw
        .agents
        .into_iter()
        .filter_map(|(name, entry)| check.entry(name, entry))
        .collect();
    let mut problems = check.problems;
    problems.sort_by_key(|p| p.location.map(|at| (at.line, at.column)));
    (entries, problems)
}

struct Checker<'a> {
    file: &'a Path,
    text: &'a str,
    home: Option<&'a Path>,
    problems: Vec<ConfigProblem>,
}

impl Checker<'_> {
    fn at<T>(&mut self, value: &Spanned<T>, key: String, message: String) {
        let problem = ConfigProblem::new(self.file, Some(value.span()), Severity::Error, message);
        self.problems.push(ConfigProblem {
            key: Some(key),
            ..problem.located(self.text)
        });
    }

    /// One `[agents.NAME]` table as an entry, or `None` (with problems) when invalid.
    fn entry(&mut self, name: Spanned<String>, raw: RawEntry) -> Option<AgentEntry> {
        let before = self.problems.len();
        let key = |field: &str| dotted(&["agents", name.get_ref(), field]);
        let entry_key = dotted(&["agents", name.get_ref()]);
        if !is_valid_handle(name.get_ref()) {
            let message = format!(
                "`{}` is not a valid agent name; use letters, digits, `_`, `.` or `-`, \
                 starting with a letter or digit",
                name.get_ref()
            );
            self.at(&name, entry_key.clone(), message);
        }
        let builtin = RawType::builtin(name.get_ref());
        let kind = match (builtin, &raw.adapter) {
            (Some(kind), Some(given)) if *given.get_ref() != kind => {
                let message = format!(
                    "`{}` is a built-in agent; its `type` cannot change. Give your entry \
                     another name to define a new kind",
                    kind.name()
                );
                self.at(given, key("type"), message);
                None
            }
            (Some(kind), _) => Some(kind),
            (None, Some(given)) => Some(*given.get_ref()),
            (None, None) => {
                let kinds: Vec<String> = AgentKind::ALL
                    .iter()
                    .map(|kind| format!("\"{kind}\""))
                    .collect();
                let message = format!(
                    "a new agent needs `type = \"command\"` or `type = \"acp\"` (or {} for \
                     another setup of a built-in CLI)",
                    kinds.join(", ")
                );
                self.at(&name, entry_key.clone(), message);
                None
            }
        };
        let program = match &raw.command {
            Some(command) if command.get_ref().trim().is_empty() => {
                self.at(
                    command,
                    key("command"),
                    "`command` is empty; name a program".into(),
                );
                None
            }
            Some(command) => Some(self.expand_home(command.get_ref())),
            None => None,
        };
        let adapter = match kind {
            Some(RawType::Command) => {
                if raw.command.is_none() {
                    let message = "a `command` agent needs `command = \"<program>\"`".to_owned();
                    self.at(&name, key("command"), message);
                }
                self.preset_unused(&raw, &key);
                self.command_spec(&raw, &key)
            }
            Some(RawType::Acp) => {
                self.command_keys_unused(&raw, &key, RawType::Acp);
                let spec = self.acp_spec(&raw, &key);
                let named = raw.command.is_some() || raw.preset.is_some();
                if builtin.is_some() && named {
                    // Members name their agent; `chatmd.toml` relies on it.
                    let message = "the generic `acp` entry runs the agent each member names \
                                   (`preset` or `command` in `[members.NAME]`); give your own \
                                   ACP agent a name of its own, like `[agents.my-agent]` with \
                                   `type = \"acp\"`"
                        .to_owned();
                    self.at(&name, entry_key.clone(), message);
                } else if builtin.is_none() && !named {
                    let message = format!(
                        "an `acp` agent needs `preset = \"<name>\"` (one of {}) or \
                         `command = \"<program>\"`",
                        preset_names()
                    );
                    self.at(&name, key("preset"), message);
                }
                spec
            }
            Some(other) => {
                self.command_keys_unused(&raw, &key, other);
                self.preset_unused(&raw, &key);
                other.kind().map(Adapter::of_kind)
            }
            None => None,
        };
        if self.problems.len() > before {
            return None;
        }
        let adapter = adapter?;
        let defaults = match &adapter {
            Adapter::Acp(spec) => {
                spec.preset
                    .as_deref()
                    .and_then(preset_named)
                    .map(|p| AgentEntry {
                        program: p.program.to_owned(),
                        install_hint: p.install.map(str::to_owned),
                        ..AgentEntry::acp()
                    })
            }
            other => other.kind().map(AgentEntry::builtin),
        };
        Some(AgentEntry {
            name: name.into_inner(),
            program: program
                .or_else(|| defaults.as_ref().map(|d| d.program.clone()))
                .unwrap_or_default(),
            args: raw.args.unwrap_or_default(),
            install_hint: raw
                .install
                .or_else(|| defaults.and_then(|d| d.install_hint)),
            source: Some(self.file.to_path_buf()),
            adapter,
        })
    }

    /// An `acp` entry's preset, checked against the list.
    fn acp_spec(&mut self, raw: &RawEntry, key: &dyn Fn(&str) -> String) -> Option<Adapter> {
        let Some(preset) = &raw.preset else {
            return Some(Adapter::Acp(AcpSpec::default()));
        };
        if preset_named(preset.get_ref()).is_none() {
            let message = format!(
                "`{}` is not an ACP preset; presets: {}. For another ACP agent, set \
                 `command` (and `args`) instead",
                preset.get_ref(),
                preset_names()
            );
            self.at(preset, key("preset"), message);
            return None;
        }
        Some(Adapter::Acp(AcpSpec {
            preset: Some(preset.get_ref().clone()),
        }))
    }

    /// Reports a `preset` on an entry that is not `type = "acp"`.
    fn preset_unused(&mut self, raw: &RawEntry, key: &dyn Fn(&str) -> String) {
        if let Some(preset) = &raw.preset {
            let message = "`preset` is only for `type = \"acp\"` entries".to_owned();
            self.at(preset, key("preset"), message);
        }
    }

    fn command_spec(&mut self, raw: &RawEntry, key: &dyn Fn(&str) -> String) -> Option<Adapter> {
        let prompt = match raw.prompt.as_ref().map(|p| *p.get_ref()) {
            Some(RawPrompt::Argument) => PromptDelivery::Argument,
            Some(RawPrompt::Stdin) | None => PromptDelivery::Stdin,
        };
        let jsonl = raw
            .output
            .as_ref()
            .is_some_and(|o| *o.get_ref() == RawOutput::Jsonl);
        let pointers = [
            ("text", &raw.text),
            ("session", &raw.session),
            ("done", &raw.done),
            ("error", &raw.error),
        ];
        for (field, pointer) in pointers {
            let Some(pointer) = pointer else { continue };
            if !jsonl {
                let message =
                    format!("`{field}` is a JSON pointer, used only with `output = \"jsonl\"`");
                self.at(pointer, key(field), message);
            } else if !pointer.get_ref().is_empty() && !pointer.get_ref().starts_with('/') {
                let message = format!(
                    "`{}` is not a JSON pointer; write it like \"/delta/text\" (a `/` before each key)",
                    pointer.get_ref()
                );
                self.at(pointer, key(field), message);
            }
        }
        if let Some(value) = &raw.done_value
            && raw.done.is_none()
        {
            let message = "`done_value` needs `done`, the pointer it is compared with".to_owned();
            self.at(value, key("done_value"), message);
        }
        let output = if jsonl {
            let Some(text) = &raw.text else {
                let output = raw.output.as_ref()?;
                let message =
                    "`output = \"jsonl\"` needs `text`, the JSON pointer to the answer text"
                        .to_owned();
                self.at(output, key("text"), message);
                return None;
            };
            let get = |p: &Option<Spanned<String>>| p.as_ref().map(|p| p.get_ref().clone());
            CommandOutput::Jsonl(JsonPointers {
                text: text.get_ref().clone(),
                session: get(&raw.session),
                done: get(&raw.done),
                done_value: get(&raw.done_value),
                error: get(&raw.error),
            })
        } else {
            CommandOutput::Text
        };
        Some(Adapter::Command(CommandSpec { prompt, output }))
    }

    /// Reports the keys that only a `command` entry reads.
    fn command_keys_unused(&mut self, raw: &RawEntry, key: &dyn Fn(&str) -> String, kind: RawType) {
        let name = kind.name();
        let message = |field: &str| {
            format!(
                "`{field}` is only for `type = \"command\"` entries; {name} has its own protocol"
            )
        };
        if let Some(prompt) = &raw.prompt {
            self.at(prompt, key("prompt"), message("prompt"));
        }
        if let Some(output) = &raw.output {
            self.at(output, key("output"), message("output"));
        }
        for (field, value) in [
            ("text", &raw.text),
            ("session", &raw.session),
            ("done", &raw.done),
            ("done_value", &raw.done_value),
            ("error", &raw.error),
        ] {
            if let Some(value) = value {
                self.at(value, key(field), message(field));
            }
        }
    }

    fn expand_home(&self, command: &str) -> String {
        match (command.strip_prefix("~/"), self.home) {
            (Some(rest), Some(home)) => PathBuf::from(home).join(rest).display().to_string(),
            _ => command.to_owned(),
        }
    }
}
