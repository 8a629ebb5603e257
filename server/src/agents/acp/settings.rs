//! A member's session settings (`mode`, `model` and `[members.X.options]` in
//! `chatmd.toml`) checked against what the session offers ([`Offered`]), as the
//! requests that apply them: `session/set_config_option` for a config option,
//! `session/set_mode` for an agent with only the legacy `modes`. A value already in
//! force is not sent again; a value the agent does not offer is an error naming those
//! it does, before any prompt is sent.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::offered::{Offered, Setting};
pub use crate::agent_config::{SessionSettings, SettingValue};
use crate::agents::ConfigChoice;

impl SessionSettings {
    pub fn is_empty(&self) -> bool {
        self.mode.is_none() && self.model.is_none() && self.options.is_empty()
    }

    /// The settings to apply to a session that offers `offered`: the member's, with the
    /// asking mode where the member chose none and the session offers that mode (what
    /// the agent offers decides, not a list kept here).
    pub fn for_session(&self, offered: &Offered) -> SessionSettings {
        let mut settings = self.clone();
        let asking = self.asking_mode.as_deref().filter(|mode| {
            let in_choice = |choice: &ConfigChoice| choice.values.iter().any(|v| v.value == *mode);
            offered
                .by_category("mode")
                .map(|setting| &setting.choice)
                .or(offered.modes.as_ref())
                .is_some_and(in_choice)
        });
        if settings.mode.is_none() {
            settings.mode = asking.map(str::to_owned);
        }
        settings
    }
}

/// What an ACP turn needs besides its command line and prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionSetup {
    pub settings: SessionSettings,
    /// The workspace root, offered as an `additionalDirectories` root when the agent
    /// takes them and the member works in another folder.
    pub workspace: Option<PathBuf>,
    /// What the message's references attach: resource blocks after the prompt's text.
    pub attachments: Vec<super::PromptAttachment>,
    /// The member keeps its sessions between turns: the session says so
    /// ([`crate::agents::AgentEvent::SessionNotResumable`]) when the agent cannot.
    pub keeps_sessions: bool,
}

/// One request that applies a setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// `session/set_config_option`; `key` is the member's key, for messages.
    Config {
        key: String,
        id: String,
        value: SettingValue,
    },
    /// `session/set_mode`, for an agent without config options.
    Mode(String),
}

impl Change {
    /// The request's method and params for `session`.
    pub fn request(&self, session: &str) -> (&'static str, Value) {
        match self {
            Change::Config { id, value, .. } => {
                let params = match value {
                    SettingValue::Text(text) => {
                        json!({"sessionId": session, "configId": id, "value": text})
                    }
                    SettingValue::Flag(flag) => {
                        json!({"sessionId": session, "configId": id, "type": "boolean", "value": flag})
                    }
                };
                ("session/set_config_option", params)
            }
            Change::Mode(mode) => (
                "session/set_mode",
                json!({"sessionId": session, "modeId": mode}),
            ),
        }
    }

    /// How the member wrote it: `mode = "plan"`.
    pub fn written(&self) -> String {
        match self {
            Change::Config { key, value, .. } => format!("{key} = {value}"),
            Change::Mode(mode) => format!("mode = {mode:?}"),
        }
    }
}

/// The requests that bring the session `offered` by `agent` to `settings`, in order
/// (mode, model, then the options), leaving out what is already in force; or why it
/// cannot be done, in words for the user.
pub fn changes(
    settings: &SessionSettings,
    offered: &Offered,
    agent: &str,
) -> Result<Vec<Change>, String> {
    let mut changes = Vec::new();
    if let Some(mode) = &settings.mode {
        match (offered.by_category("mode"), &offered.modes) {
            (Some(setting), _) => {
                let value = SettingValue::Text(mode.clone());
                changes.extend(select(setting, "mode", "modes", value, agent)?);
            }
            (None, Some(modes)) => {
                check(modes, "mode", "modes", mode, agent)?;
                if modes.current.as_deref() != Some(mode) {
                    changes.push(Change::Mode(mode.clone()));
                }
            }
            (None, None) => return Err(format!("{agent} offers no modes; remove `mode`")),
        }
    }
    if let Some(model) = &settings.model {
        match (offered.by_category("model"), &offered.models) {
            (Some(setting), _) => {
                let value = SettingValue::Text(model.clone());
                changes.extend(select(setting, "model", "models", value, agent)?);
            }
            (None, Some(models)) if models.current.as_deref() == Some(model) => {}
            (None, Some(models)) => {
                check(models, "model", "models", model, agent)?;
                return Err(format!(
                    "{agent} offers no way to change its model over ACP (no `model` config \
                     option; its model now: {}); remove `model`, or choose the model on its \
                     command line (`args`)",
                    models.current.as_deref().unwrap_or("not said")
                ));
            }
            (None, None) => return Err(format!("{agent} offers no models; remove `model`")),
        }
    }
    for (id, value) in &settings.options {
        let key = format!("options.{id}");
        let Some(setting) = offered.by_id(id) else {
            let ids: Vec<&str> = offered
                .config
                .iter()
                .map(|s| s.choice.id.as_str())
                .collect();
            return Err(if ids.is_empty() {
                format!("{agent} offers no config options; remove `{key}`")
            } else {
                format!(
                    "{agent} offers no config option `{id}`; its options: {}",
                    ids.join(", ")
                )
            });
        };
        changes.extend(select(setting, &key, "values", value.clone(), agent)?);
    }
    Ok(changes)
}

/// The change that sets `setting` to `value`, `None` when it is in force already.
fn select(
    setting: &Setting,
    key: &str,
    plural: &str,
    value: SettingValue,
    agent: &str,
) -> Result<Option<Change>, String> {
    let current = setting.choice.current.as_deref();
    match (&value, setting.boolean) {
        (SettingValue::Flag(flag), true) => {
            if current == Some(flag.to_string().as_str()) {
                return Ok(None);
            }
        }
        (SettingValue::Text(text), false) => {
            check(&setting.choice, key, plural, text, agent)?;
            if current == Some(text.as_str()) {
                return Ok(None);
            }
        }
        (SettingValue::Text(_), true) => {
            return Err(format!(
                "`{key}` is a switch of {agent}: set it to true or false"
            ));
        }
        (SettingValue::Flag(_), false) => {
            return Err(format!(
                "`{key}` of {agent} takes one of its {plural}: {}",
                listed(&setting.choice)
            ));
        }
    }
    Ok(Some(Change::Config {
        key: key.to_owned(),
        id: setting.choice.id.clone(),
        value,
    }))
}

/// `Ok` when `choice` offers `value`, else the error that names what it offers.
fn check(
    choice: &ConfigChoice,
    key: &str,
    plural: &str,
    value: &str,
    agent: &str,
) -> Result<(), String> {
    if choice.values.iter().any(|v| v.value == value) {
        return Ok(());
    }
    Err(format!(
        "{key} = {value:?} is not offered by {agent}; its {plural}: {}",
        listed(choice)
    ))
}

fn listed(choice: &ConfigChoice) -> String {
    let values: Vec<&str> = choice.values.iter().map(|v| v.value.as_str()).collect();
    if values.is_empty() {
        "none".to_owned()
    } else {
        values.join(", ")
    }
}

#[cfg(test)]
mod tests;
