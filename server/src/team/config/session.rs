//! An ACP member's session settings in `chatmd.toml`: `mode`, `model` and the
//! `[members.X.options]` table. Which values exist is the agent's to say (it offers
//! them when a session starts, and the turn checks them then); here each is checked
//! for its shape. `mode` and `options` need trust, like `args`: some modes let the
//! agent act without asking.

use std::collections::BTreeMap;

use toml::Spanned;

use super::check::{Checker, quoted};
use crate::agent_config::AgentKind;
use crate::agent_config::SettingValue;
use crate::team::problem::Severity;
use crate::team::trust::TrustKey;

/// The session settings of one member table, as far as they are valid.
#[derive(Default)]
pub(super) struct Session {
    pub(super) mode: Option<String>,
    pub(super) model: Option<String>,
    pub(super) options: Vec<(String, SettingValue)>,
}

impl Checker<'_> {
    /// `mode`, `model` and `options` of member `name`, whose table sets `agent`.
    pub(super) fn session(
        &mut self,
        name: &str,
        agent: Option<&str>,
        mode: Option<Spanned<String>>,
        model: Option<Spanned<String>>,
        options: Option<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
    ) -> Session {
        let headless = agent.and_then(|a| a.parse::<AgentKind>().ok());
        let mut session = Session::default();
        if let Some(mode) = mode {
            let span = mode.span();
            session.mode = self.word("mode", mode, headless);
            if let Some(value) = &session.mode {
                let shown = vec![format!("mode = {}", quoted(value))];
                self.needs_trust(name, TrustKey::Mode, span, shown);
            }
        }
        if let Some(model) = model {
            session.model = self.word("model", model, headless);
        }
        if let Some(options) = options {
            let span = options.span();
            if let Some(kind) = headless {
                self.not_acp(span.clone(), "options", kind);
            }
            for (id, value) in options.into_inner() {
                if let Some(value) = self.option(&id, value) {
                    session.options.push((id, value));
                }
            }
            if !session.options.is_empty() {
                let shown = session
                    .options
                    .iter()
                    .map(|(id, value)| format!("options {id} = {value}"))
                    .collect();
                self.needs_trust(name, TrustKey::Options, span, shown);
            }
        }
        session
    }

    /// A `mode` or `model`: a value id, not empty.
    fn word(
        &mut self,
        key: &str,
        value: Spanned<String>,
        headless: Option<AgentKind>,
    ) -> Option<String> {
        let span = value.span();
        let value = value.into_inner().trim().to_owned();
        if value.is_empty() {
            self.error(
                span,
                format!("`{key}` is empty; name one the agent offers, or remove `{key}`"),
            );
            return None;
        }
        if let Some(kind) = headless {
            self.not_acp(span, key, kind);
        }
        Some(value)
    }

    /// A warning: `key` is for ACP members, and this one runs `kind` headless.
    fn not_acp(&mut self, span: std::ops::Range<usize>, key: &str, kind: AgentKind) {
        self.report(
            span,
            Severity::Warning,
            format!(
                "`{key}` is for ACP members; `agent = \"{kind}\"` runs {kind} headless and \
                 ignores it. Set `agent = \"acp\"` with `preset = \"{kind}\"`, or pass the \
                 CLI's own flag in `args`"
            ),
        );
    }

    /// One `options` entry: a value id (a string) or a switch (true or false).
    fn option(&mut self, id: &str, value: Spanned<toml::Value>) -> Option<SettingValue> {
        let span = value.span();
        match value.into_inner() {
            toml::Value::String(text) if !text.trim().is_empty() => {
                Some(SettingValue::Text(text.trim().to_owned()))
            }
            toml::Value::Boolean(flag) => Some(SettingValue::Flag(flag)),
            _ => {
                self.error(
                    span,
                    format!(
                        "`options.{id}` must be one of the values the agent offers (a string) \
                         or, for a switch, true or false"
                    ),
                );
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;

    use super::super::{FileConfig, parse_config};
    use crate::agent_config::SettingValue;
    use crate::team::problem::{ConfigProblem, Severity};
    use crate::team::trust::{TrustKey, UserTrust};

    fn parse(text: &str) -> (FileConfig, Vec<ConfigProblem>) {
        let mut problems = Vec::new();
        let root = Path::new("/ws");
        let config = parse_config(
            root,
            &root.join("team/chatmd.toml"),
            text,
            &UserTrust::default(),
            &mut problems,
        );
        (config, problems)
    }

    #[test]
    fn mode_model_and_options_are_read_and_mode_and_options_need_trust() {
        let text = "[members.w]\nagent = \"acp\"\npreset = \"claude\"\nmode = \"plan\"\n\
                    model = \" sonnet \"\n[members.w.options]\neffort = \"high\"\nfast = true\n";
        let (config, problems) = parse(text);
        assert_eq!(problems, vec![]);
        let w = &config.members[0];
        assert_eq!(
            (w.mode.as_deref(), w.model.as_deref()),
            (Some("plan"), Some("sonnet"))
        );
        assert_eq!(
            w.options.iter().collect::<Vec<_>>(),
            [
                (&"effort".to_owned(), &SettingValue::Text("high".into())),
                (&"fast".to_owned(), &SettingValue::Flag(true)),
            ]
        );
        let trust: Vec<_> = config
            .trust
            .iter()
            .map(|item| (item.key, &text[item.range.clone()], item.shown.clone()))
            .collect();
        assert_eq!(
            trust,
            [
                (
                    TrustKey::Mode,
                    "mode = \"plan\"",
                    vec!["mode = \"plan\"".to_owned()]
                ),
                (
                    TrustKey::Options,
                    "[members.w.options]",
                    vec![
                        "options effort = \"high\"".to_owned(),
                        "options fast = true".to_owned()
                    ]
                ),
            ]
        );
        let mut untrusted = config.clone();
        untrusted.drop_trusted_keys();
        let w = &untrusted.members[0];
        assert_eq!(
            (w.mode.as_deref(), w.model.as_deref()),
            (None, Some("sonnet"))
        );
        assert!(w.options.is_empty());
    }

    #[test]
    fn bad_values_are_reported_where_they_are_and_headless_members_are_warned() {
        let text = "[members.w]\nagent = \"claude\"\nmode = \"\"\nmodel = \"opus\"\n\
                    [members.w.options]\neffort = 3\n";
        let (config, problems) = parse(text);
        let shown: Vec<_> = problems
            .iter()
            .map(|p| {
                (
                    &text[p.range.clone().unwrap_or(0..0)],
                    p.severity,
                    p.message.as_str(),
                )
            })
            .collect();
        let headless = |key: &str| {
            format!(
                "`{key}` is for ACP members; `agent = \"claude\"` runs claude headless and \
                 ignores it. Set `agent = \"acp\"` with `preset = \"claude\"`, or pass the \
                 CLI's own flag in `args`"
            )
        };
        assert_eq!(
            shown,
            [
                (
                    "\"\"",
                    Severity::Error,
                    "`mode` is empty; name one the agent offers, or remove `mode`"
                ),
                ("\"opus\"", Severity::Warning, headless("model").as_str()),
                (
                    "[members.w.options]",
                    Severity::Warning,
                    headless("options").as_str()
                ),
                (
                    "3",
                    Severity::Error,
                    "`options.effort` must be one of the values the agent offers (a string) \
                     or, for a switch, true or false"
                ),
            ]
        );
        let w = &config.members[0];
        assert_eq!(
            (w.mode.as_deref(), w.model.as_deref()),
            (None, Some("opus"))
        );
        assert!(w.options.is_empty());
    }
}
