//! Session settings against what agents offer.

use super::*;
use pretty_assertions::assert_eq;

fn claude() -> Offered {
    Offered::from_result(&json!({
        "sessionId": "s",
        "modes": {"currentModeId": "default", "availableModes": [{"id": "default", "name": "Default"}]},
        "configOptions": [
            {"id": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": "default",
             "options": [{"value": "default", "name": "Default"}, {"value": "plan", "name": "Plan"}]},
            {"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": "default",
             "options": [{"value": "default", "name": "Default"}, {"value": "sonnet", "name": "Sonnet"}]},
            {"id": "effort", "name": "Effort", "category": "thought_level", "type": "select", "currentValue": "default",
             "options": [{"value": "default", "name": "Default"}, {"value": "high", "name": "High"}]},
            {"id": "fast", "name": "Fast", "type": "boolean", "currentValue": false},
        ]
    }))
}

fn gemini() -> Offered {
    Offered::from_result(&json!({
        "sessionId": "s",
        "modes": {"availableModes": [{"id": "default", "name": "Default"}, {"id": "yolo", "name": "YOLO"}], "currentModeId": "default"},
        "models": {"availableModels": [{"modelId": "auto", "name": "Auto"}, {"modelId": "pro", "name": "Pro"}], "currentModelId": "auto"},
    }))
}

fn text(value: &str) -> SettingValue {
    SettingValue::Text(value.into())
}

#[test]
fn config_options_are_set_in_order_and_values_in_force_are_skipped() {
    let settings = SessionSettings {
        mode: Some("plan".into()),
        model: Some("default".into()),
        options: vec![
            ("effort".into(), text("high")),
            ("fast".into(), SettingValue::Flag(true)),
        ],
        asking_mode: None,
        mcp_servers: Vec::new(),
    };
    let changes = changes(&settings, &claude(), "claude-agent-acp").unwrap();
    let requests: Vec<_> = changes.iter().map(|c| c.request("s")).collect();
    assert_eq!(
        requests,
        [
            (
                "session/set_config_option",
                json!({"sessionId": "s", "configId": "mode", "value": "plan"})
            ),
            (
                "session/set_config_option",
                json!({"sessionId": "s", "configId": "effort", "value": "high"})
            ),
            (
                "session/set_config_option",
                json!({"sessionId": "s", "configId": "fast", "type": "boolean", "value": true})
            ),
        ]
    );
    assert_eq!(changes[1].written(), "options.effort = \"high\"");
}

#[test]
fn an_agent_with_only_legacy_modes_gets_set_mode_and_never_set_model() {
    let settings = SessionSettings {
        mode: Some("yolo".into()),
        model: Some("auto".into()),
        options: Vec::new(),
        asking_mode: None,
        mcp_servers: Vec::new(),
    };
    assert_eq!(
        changes(&settings, &gemini(), "gemini"),
        Ok(vec![Change::Mode("yolo".into())])
    );
    let other = SessionSettings {
        model: Some("pro".into()),
        ..SessionSettings::default()
    };
    assert_eq!(
        changes(&other, &gemini(), "gemini"),
        Err(
            "gemini offers no way to change its model over ACP (no `model` config option; \
             its model now: auto); remove `model`, or choose the model on its command line \
             (`args`)"
                .into()
        )
    );
}

#[test]
fn a_value_not_offered_names_those_that_are() {
    let mode = |m: &str| SessionSettings {
        mode: Some(m.into()),
        ..SessionSettings::default()
    };
    assert_eq!(
        changes(&mode("yolo"), &claude(), "claude-agent-acp"),
        Err("mode = \"yolo\" is not offered by claude-agent-acp; its modes: default, plan".into())
    );
    assert_eq!(
        changes(&mode("plan"), &gemini(), "gemini"),
        Err("mode = \"plan\" is not offered by gemini; its modes: default, yolo".into())
    );
    assert_eq!(
        changes(&mode("plan"), &Offered::default(), "goose"),
        Err("goose offers no modes; remove `mode`".into())
    );
    let options = |id: &str, value: SettingValue| SessionSettings {
        options: vec![(id.into(), value)],
        ..SessionSettings::default()
    };
    assert_eq!(
        changes(&options("effort", text("max")), &claude(), "claude-agent-acp"),
        Err("options.effort = \"max\" is not offered by claude-agent-acp; its values: default, high".into())
    );
    assert_eq!(
        changes(&options("speed", text("x")), &claude(), "claude-agent-acp"),
        Err("claude-agent-acp offers no config option `speed`; its options: mode, model, effort, fast".into())
    );
    assert_eq!(
        changes(&options("fast", text("yes")), &claude(), "claude-agent-acp"),
        Err("`options.fast` is a switch of claude-agent-acp: set it to true or false".into())
    );
    assert_eq!(
        changes(
            &options("effort", SettingValue::Flag(true)),
            &claude(),
            "claude-agent-acp"
        ),
        Err("`options.effort` of claude-agent-acp takes one of its values: default, high".into())
    );
    assert_eq!(
        changes(&options("effort", text("high")), &gemini(), "gemini"),
        Err("gemini offers no config options; remove `options.effort`".into())
    );
}

#[test]
fn the_asking_mode_is_set_only_where_offered_and_the_member_chose_none() {
    // claude-agent-acp 0.101: `auto` first, `default` ("Manual") offered.
    let auto = Offered::from_result(&json!({
        "sessionId": "s",
        "configOptions": [
            {"id": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": "auto",
             "options": [{"value": "default", "name": "Manual"}, {"value": "auto", "name": "Auto"}]},
        ]
    }));
    let preset = SessionSettings {
        asking_mode: Some("default".into()),
        ..SessionSettings::default()
    };
    let applied = preset.for_session(&auto);
    assert_eq!(
        changes(&applied, &auto, "claude-agent-acp").map(|c| c.len()),
        Ok(1)
    );
    assert_eq!(applied.mode.as_deref(), Some("default"));
    // The member's own mode wins; an agent without that mode is left as it is.
    let chosen = SessionSettings {
        mode: Some("auto".into()),
        ..preset.clone()
    };
    assert_eq!(chosen.for_session(&auto).mode.as_deref(), Some("auto"));
    assert_eq!(preset.for_session(&Offered::default()).mode, None);
    assert_eq!(
        preset.for_session(&gemini()).mode.as_deref(),
        Some("default")
    );
}
