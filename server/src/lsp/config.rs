//! The client's settings for the server, as one typed struct: where they come from
//! (`initializationOptions` today; the editors' plugins fill it from their own
//! settings, see docs/editors.md) and how each is read.

use std::ffi::OsString;

use serde_json::Value;

/// What the client set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// `agentPath`: folders searched first for agent CLIs, as a `PATH`-style list.
    /// Editors started from a desktop often lack the shell's `PATH`.
    pub agent_path: Option<OsString>,
    /// `permissionDialog`: also ask an agent's permission requests in the editor's
    /// dialog (`window/showMessageRequest`), beside the block in the file. Off unless
    /// the plugin asks: some editors answer that request with a prompt that blocks.
    pub permission_dialog: bool,
    /// `warmIdleSeconds` (how long an ACP member's agent waits for its next turn; 0
    /// keeps none), `warmMembers` (how many are kept per workspace), `warmMemoryMB`
    /// (how much memory they may use) and `warmHeadless` (headless claude members kept
    /// too): `turns/runs/kept`.
    pub warm: crate::turns::runs::kept::WarmSettings,
    /// `outlineItems`: at most how many entries list a chat's messages in its outline
    /// and folds (see `outline_window`); VS Code's own limit when unset.
    pub outline_items: Option<usize>,
}

impl Settings {
    /// The settings in `initializationOptions`. Keys it does not know are ignored, and
    /// a setting of the wrong type is left out with a warning in the log: a plugin's
    /// mistake must not keep the server from starting.
    pub fn from_initialization_options(options: Option<&Value>) -> Settings {
        let mut settings = Settings::default();
        let Some(options) = options.and_then(Value::as_object) else {
            return settings;
        };
        if let Some(value) = options.get("agentPath") {
            match value.as_str() {
                Some(path) => settings.agent_path = Some(OsString::from(path)),
                None => tracing::warn!(%value, "agentPath is not a string; ignored"),
            }
        }
        if let Some(value) = options.get("permissionDialog") {
            match value.as_bool() {
                Some(on) => settings.permission_dialog = on,
                None => tracing::warn!(%value, "permissionDialog is not true or false; ignored"),
            }
        }
        if let Some(value) = options.get("warmIdleSeconds") {
            match value.as_f64().filter(|s| s.is_finite() && *s >= 0.0) {
                Some(seconds) => {
                    let idle = std::time::Duration::try_from_secs_f64(seconds);
                    settings.warm.idle = idle.unwrap_or(std::time::Duration::MAX);
                }
                None => {
                    tracing::warn!(%value, "warmIdleSeconds is not a number of seconds; ignored")
                }
            }
        }
        if let Some(value) = options.get("warmHeadless") {
            match value.as_bool() {
                Some(on) => settings.warm.headless = on,
                None => tracing::warn!(%value, "warmHeadless is not true or false; ignored"),
            }
        }
        if let Some(value) = options.get("warmMemoryMB") {
            match value.as_f64().filter(|mb| mb.is_finite() && *mb >= 0.0) {
                // Whole bytes; past u64, no cap.
                Some(mb) => settings.warm.memory = (mb * 1024.0 * 1024.0) as u64,
                None => tracing::warn!(%value, "warmMemoryMB is not a number of MB; ignored"),
            }
        }
        if let Some(value) = options.get("warmMembers") {
            match value.as_u64().and_then(|n| usize::try_from(n).ok()) {
                Some(cap) => settings.warm.cap = cap,
                None => tracing::warn!(%value, "warmMembers is not a whole number; ignored"),
            }
        }
        if let Some(value) = options.get("outlineItems") {
            match value
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n > 0)
            {
                Some(items) => settings.outline_items = Some(items),
                None => {
                    tracing::warn!(%value, "outlineItems is not a whole number over 0; ignored")
                }
            }
        }
        settings
    }

    /// Puts the settings in force in the server's `state`, for a client with
    /// `capabilities`.
    pub fn apply(
        self,
        state: &mut super::state::State,
        capabilities: &tower_lsp_server::ls_types::ClientCapabilities,
    ) {
        state.agent_path = self.agent_path;
        state.permission_dialog = self.permission_dialog;
        state.running.configure_warm(self.warm);
        (state.outline, state.folds) =
            super::outline_window::Shown::for_client(self.outline_items, capabilities);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn agent_path(options: Option<Value>) -> Option<OsString> {
        Settings::from_initialization_options(options.as_ref()).agent_path
    }

    #[test]
    fn warm_sessions_have_an_idle_time_and_a_cap() {
        use std::time::Duration;
        let warm = |o: Value| Settings::from_initialization_options(Some(&o)).warm;
        let default = crate::turns::runs::kept::WarmSettings::default();
        assert_eq!(warm(json!({})), default);
        assert_eq!(default.idle, Duration::from_secs(300));
        assert_eq!(default.cap, 8);
        let set = warm(json!({"warmIdleSeconds": 0.25, "warmMembers": 2}));
        assert_eq!((set.idle, set.cap), (Duration::from_millis(250), 2));
        assert_eq!(warm(json!({"warmIdleSeconds": 0})).idle, Duration::ZERO);
        // A wrong type or a negative time is left out.
        let wrong = warm(json!({"warmIdleSeconds": "5", "warmMembers": -1}));
        assert_eq!(wrong, default);
        assert_eq!(warm(json!({"warmIdleSeconds": -3})), default);
        assert!(!default.headless, "headless claude is kept only when asked");
        assert!(warm(json!({"warmHeadless": true})).headless);
        assert_eq!(warm(json!({"warmHeadless": "yes"})), default);
        assert_eq!(default.memory, 4096 << 20);
        assert_eq!(warm(json!({"warmMemoryMB": 1.5})).memory, 3 << 19);
        assert_eq!(warm(json!({"warmMemoryMB": -1})), default);
        assert_eq!(warm(json!({"warmMemoryMB": "a lot"})), default);
    }

    #[test]
    fn the_outline_lists_a_number_of_items_the_user_may_set() {
        let items = |o: Value| Settings::from_initialization_options(Some(&o)).outline_items;
        assert_eq!(items(json!({})), None);
        assert_eq!(items(json!({"outlineItems": 20000})), Some(20000));
        // None at all, a negative or fractional number, or text: left out.
        for wrong in [json!(0), json!(-5), json!(2.5), json!("many")] {
            assert_eq!(items(json!({ "outlineItems": wrong })), None);
        }
    }

    #[test]
    fn agent_path_is_a_path_list() {
        let set = json!({"agentPath": "/opt/agents/bin:/usr/local/bin", "other": 1});
        assert_eq!(
            agent_path(Some(set)),
            Some(OsString::from("/opt/agents/bin:/usr/local/bin"))
        );
    }

    #[test]
    fn the_permission_dialog_is_off_unless_asked() {
        let dialog = |o: Value| Settings::from_initialization_options(Some(&o)).permission_dialog;
        assert!(dialog(json!({"permissionDialog": true})));
        assert!(!dialog(json!({})));
        assert!(!dialog(json!({"permissionDialog": "yes"})));
    }

    #[test]
    fn missing_or_wrong_settings_are_left_out() {
        let unset = [None, Some(json!(null)), Some(json!({})), Some(json!("x"))];
        assert!(unset.into_iter().all(|o| agent_path(o).is_none()));
        let wrong = [json!({"agentPath": 3}), json!({"agentPath": ["/a", "/b"]})];
        assert!(wrong.into_iter().all(|o| agent_path(Some(o)).is_none()));
    }
}
