//! What an ACP session offers to be set: its `configOptions` (mode, model, thought
//! level, booleans), or where an agent has none (gemini) the legacy `modes` and
//! `models` objects of its `session/new` result. Read from that result, from a
//! `session/set_config_option` result, and kept current by `config_option_update` and
//! `current_mode_update`.

use serde_json::Value;

use crate::agents::{ConfigChoice, ConfigValue};

/// One setting of the session and whether it is a `boolean` (else a `select`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub choice: ConfigChoice,
    pub boolean: bool,
}

/// The session's settings as the agent last told them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Offered {
    /// `configOptions`, in the agent's order.
    pub config: Vec<Setting>,
    /// The legacy `modes` (set with `session/set_mode`), when the agent sent them.
    pub modes: Option<ConfigChoice>,
    /// The legacy `models`, when the agent sent them (only the removed
    /// `session/set_model` sets them; chatmd never sends it).
    pub models: Option<ConfigChoice>,
}

impl Offered {
    /// What a `session/new`, `session/resume` or `session/load` result offers.
    pub fn from_result(result: &Value) -> Offered {
        let mut offered = Offered::default();
        offered.read(result);
        offered
    }

    /// Takes in what `value` says: its `configOptions` (a whole new list), its `modes`
    /// and `models`.
    pub fn read(&mut self, value: &Value) {
        if let Some(options) = value.get("configOptions").and_then(Value::as_array) {
            self.config = options.iter().filter_map(setting).collect();
        }
        if let Some(modes) = value.get("modes").filter(|m| m.is_object()) {
            self.modes = Some(legacy(
                modes,
                "mode",
                "Mode",
                "currentModeId",
                "availableModes",
                "id",
            ));
        }
        if let Some(models) = value.get("models").filter(|m| m.is_object()) {
            self.models = Some(legacy(
                models,
                "model",
                "Model",
                "currentModelId",
                "availableModels",
                "modelId",
            ));
        }
    }

    /// A `current_mode_update`: the mode in force changed.
    pub fn mode_changed(&mut self, mode: &str) {
        if let Some(modes) = &mut self.modes {
            modes.current = Some(mode.to_owned());
        }
        if let Some(setting) = self.by_category_mut("mode") {
            setting.choice.current = Some(mode.to_owned());
        }
    }

    /// The settings to show the user: the config options, else the legacy modes and
    /// models.
    pub fn choices(&self) -> Vec<ConfigChoice> {
        if !self.config.is_empty() {
            return self.config.iter().map(|s| s.choice.clone()).collect();
        }
        self.modes.iter().chain(&self.models).cloned().collect()
    }

    /// The config option of this category (`mode`, `model`), else of this id.
    pub fn by_category(&self, category: &str) -> Option<&Setting> {
        let of = |s: &&Setting| s.choice.category.as_deref() == Some(category);
        let named = |s: &&Setting| s.choice.id == category;
        self.config
            .iter()
            .find(of)
            .or_else(|| self.config.iter().find(named))
    }

    fn by_category_mut(&mut self, category: &str) -> Option<&mut Setting> {
        let id = self.by_category(category)?.choice.id.clone();
        self.config.iter_mut().find(|s| s.choice.id == id)
    }

    /// The config option with this id.
    pub fn by_id(&self, id: &str) -> Option<&Setting> {
        self.config.iter().find(|s| s.choice.id == id)
    }

    /// The mode in force: the mode option's value, else the legacy mode.
    pub fn mode(&self) -> Option<&str> {
        self.by_category("mode")
            .and_then(|s| s.choice.current.as_deref())
            .or_else(|| self.modes.as_ref()?.current.as_deref())
    }

    /// The model in force: the model option's value, else the legacy model.
    pub fn model(&self) -> Option<&str> {
        self.by_category("model")
            .and_then(|s| s.choice.current.as_deref())
            .or_else(|| self.models.as_ref()?.current.as_deref())
    }
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// One entry of `configOptions`; `None` for one without an id.
fn setting(option: &Value) -> Option<Setting> {
    let boolean = option.get("type").and_then(Value::as_str) == Some("boolean");
    let current = match option.get("currentValue") {
        Some(Value::String(value)) => Some(value.clone()),
        Some(Value::Bool(value)) => Some(value.to_string()),
        _ => None,
    };
    let mut values = Vec::new();
    for entry in option
        .get("options")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        // A grouped select lists its values in groups (`{group, name, options}`).
        match entry.get("options").and_then(Value::as_array) {
            Some(group) => values.extend(group.iter().filter_map(|v| value(v, "value"))),
            None => values.extend(value(entry, "value")),
        }
    }
    Some(Setting {
        choice: ConfigChoice {
            id: text(option, "id")?,
            name: text(option, "name").unwrap_or_default(),
            category: text(option, "category"),
            current,
            values,
        },
        boolean,
    })
}

/// One value a select offers (its key is `value`, or `id`/`modelId` in the legacy
/// lists); `None` for one without it (the recordings' `"…[N more]"` marks).
fn value(entry: &Value, key: &str) -> Option<ConfigValue> {
    Some(ConfigValue {
        value: text(entry, key)?,
        name: text(entry, "name").unwrap_or_default(),
        description: text(entry, "description"),
    })
}

/// A legacy `modes` / `models` object as a choice.
fn legacy(
    object: &Value,
    id: &str,
    name: &str,
    current: &str,
    list: &str,
    key: &str,
) -> ConfigChoice {
    ConfigChoice {
        id: id.to_owned(),
        name: name.to_owned(),
        category: Some(id.to_owned()),
        current: text(object, current),
        values: object
            .get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|entry| value(entry, key))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn values(choice: &ConfigChoice) -> Vec<&str> {
        choice.values.iter().map(|v| v.value.as_str()).collect()
    }

    #[test]
    fn config_options_are_read_with_their_values_groups_and_booleans() {
        let result = json!({
            "sessionId": "s",
            "modes": {"currentModeId": "default", "availableModes": [{"id": "default", "name": "Default"}]},
            "configOptions": [
                {"id": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": "default",
                 "options": [{"value": "default", "name": "Default"}, {"value": "plan", "name": "Plan", "description": "No edits"}, "…[2 more]"]},
                {"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": "m1",
                 "options": [{"group": "g", "name": "G", "options": [{"value": "m1", "name": "M1"}, {"value": "m2", "name": "M2"}]}]},
                {"id": "fast", "name": "Fast", "type": "boolean", "currentValue": false},
            ]
        });
        let offered = Offered::from_result(&result);
        let choices = offered.choices();
        assert_eq!(
            choices.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
            ["mode", "model", "fast"]
        );
        assert_eq!(values(&choices[0]), ["default", "plan"]);
        assert_eq!(
            choices[0].values[1].description.as_deref(),
            Some("No edits")
        );
        assert_eq!(values(&choices[1]), ["m1", "m2"]);
        assert!(offered.by_id("fast").unwrap().boolean);
        assert_eq!(choices[2].current.as_deref(), Some("false"));
        assert_eq!(
            (offered.mode(), offered.model()),
            (Some("default"), Some("m1"))
        );
    }

    #[test]
    fn legacy_modes_and_models_stand_in_for_config_options() {
        let gemini = json!({
            "sessionId": "s",
            "modes": {"availableModes": [{"id": "default", "name": "Default"}, {"id": "yolo", "name": "YOLO"}], "currentModeId": "default"},
            "models": {"availableModels": [{"modelId": "auto", "name": "Auto"}, "…[4 more]"], "currentModelId": "auto"},
        });
        let mut offered = Offered::from_result(&gemini);
        let choices = offered.choices();
        assert_eq!(
            choices,
            vec![
                ConfigChoice {
                    id: "mode".into(),
                    name: "Mode".into(),
                    category: Some("mode".into()),
                    current: Some("default".into()),
                    values: vec![
                        ConfigValue {
                            value: "default".into(),
                            name: "Default".into(),
                            description: None
                        },
                        ConfigValue {
                            value: "yolo".into(),
                            name: "YOLO".into(),
                            description: None
                        },
                    ],
                },
                ConfigChoice {
                    id: "model".into(),
                    name: "Model".into(),
                    category: Some("model".into()),
                    current: Some("auto".into()),
                    values: vec![ConfigValue {
                        value: "auto".into(),
                        name: "Auto".into(),
                        description: None
                    }],
                },
            ]
        );
        offered.mode_changed("yolo");
        assert_eq!(offered.mode(), Some("yolo"));
    }
}
