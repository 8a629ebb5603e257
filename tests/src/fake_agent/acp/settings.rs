//! `session/set_config_option` and `session/set_mode`, answered as each real agent
//! does (from their sources and `acp-real-runs.md`):
//!
//! - claude-agent-acp: `set_config_option` checks the option (`Unknown config option:
//!   <id>`) and the value (`Invalid value for config option <id>: <value>`), both as
//!   `-32603` with the words in `data.details`; a mode is followed by a
//!   `current_mode_update` before the result `{configOptions}`. `set_mode` refuses an
//!   unknown mode with `Invalid Mode` and sends a `config_option_update` before its `{}`.
//! - codex-acp: an unknown option or value is `-32602 "Invalid params"` with no details;
//!   both calls send a `config_option_update`, then answer (`{configOptions}`, `{}`).
//! - gemini --acp: no config options (`set_config_option` is "method not found");
//!   `set_mode` refuses with `Invalid or unavailable mode: <id>`, else answers `{}`.

use serde_json::Value;

use super::super::cli::Cli;
use super::flavor;
use super::json::{J, obj};
use super::server::Agent;
use super::wire::errors;

/// codex-acp's `RequestError.invalidParams()`: no details.
fn codex_invalid() -> J {
    obj! { "code": -32602i64, "message": "Invalid params" }
}

/// `session/set_config_option` (claude, codex).
pub fn set_config(agent: &mut Agent, id: &Value, params: &Value) {
    let sid = match agent.live(params) {
        Ok(sid) => sid,
        Err(error) => return agent.out.error(id, error),
    };
    let flavor = agent.flavor;
    let config = params["configId"].as_str().unwrap_or_default().to_string();
    let Some(value) = params["value"].as_str().map(str::to_string) else {
        let error = match flavor {
            Cli::Codex => codex_invalid(),
            _ => errors::internal(&format!(
                "Invalid value for config option {config}: {}",
                params["value"]
            )),
        };
        return agent.out.error(id, error);
    };
    let Some(values) = flavor::option_values(flavor, &config) else {
        let error = match flavor {
            Cli::Codex => codex_invalid(),
            _ => errors::internal(&format!("Unknown config option: {config}")),
        };
        return agent.out.error(id, error);
    };
    if !values.contains(&value) {
        eprintln!("fake-agent: {config} = {value:?} is not offered; offered: {values:?}");
        let error = match flavor {
            Cli::Codex => codex_invalid(),
            _ => errors::internal(&format!(
                "Invalid value for config option {config}: {value}"
            )),
        };
        return agent.out.error(id, error);
    }
    let Some(live) = agent.sessions.get_mut(&sid) else {
        return;
    };
    if config == "mode" {
        live.mode = value.clone();
    } else {
        live.values.retain(|(i, _)| *i != config);
        live.values.push((config.clone(), value.clone()));
    }
    let options = flavor::config_options(flavor, &live.mode, &live.values);
    if flavor == Cli::Claude && config == "mode" {
        let update = obj! { "sessionUpdate": "current_mode_update", "currentModeId": value };
        agent.out.update(&sid, update);
    }
    if flavor == Cli::Codex {
        codex_update(agent, &sid, options.clone());
    }
    agent.out.result(id, obj! { "configOptions": options });
}

/// `session/set_mode` (all three).
pub fn set_mode(agent: &mut Agent, id: &Value, params: &Value) {
    let sid = match agent.live(params) {
        Ok(sid) => sid,
        Err(error) => return agent.out.error(id, error),
    };
    let flavor = agent.flavor;
    let mode = params["modeId"].as_str().unwrap_or_default().to_string();
    if !flavor::mode_ids(flavor).contains(&mode) {
        let error = match flavor {
            Cli::Claude => errors::internal("Invalid Mode"),
            Cli::Codex => codex_invalid(),
            Cli::Gemini => errors::internal(&format!("Invalid or unavailable mode: {mode}")),
        };
        return agent.out.error(id, error);
    }
    let Some(live) = agent.sessions.get_mut(&sid) else {
        return;
    };
    live.mode = mode;
    if flavor == Cli::Gemini {
        return agent.out.result(id, J::Obj(Vec::new()));
    }
    let options = flavor::config_options(flavor, &live.mode, &live.values);
    let update = obj! { "sessionUpdate": "config_option_update", "configOptions": options };
    agent.out.update(&sid, update);
    agent.out.result(id, J::Obj(Vec::new()));
}

/// codex-acp's `config_option_update`, sent by either call before its answer (its
/// handler awaits the update, then returns).
fn codex_update(agent: &mut Agent, sid: &str, options: J) {
    let update = obj! { "sessionUpdate": "config_option_update", "configOptions": options };
    agent.out.update(sid, update);
}
