//! What an ACP agent's `usage_update.cost` totals. The schema calls it the session's
//! cumulative cost, and so it is within one process; across the processes that resume
//! a session it depends on the agent. claude-agent-acp passes on its SDK's
//! `total_cost_usd`: up to 0.49 (Claude Code 2.1.185 inside) that is what the process
//! has spent, so a resumed session starts from nothing again; 0.101 (Claude Code
//! 2.1.318) reports what the session has cost over every process (both measured
//! against the mock model: `scripts/agent-matrix`, usage). The turn records its
//! share either way (`turns/live/usage.rs`).
//!
//! What a resumed 0.101 session restores is the `cost-state` Claude Code appends to
//! the session's file as it exits after its stdin closes: 0.04–0.23 s after, measured
//! on a quiet machine, more under load. A SIGTERM before that (chatmd's 300 ms
//! linger) lost it, and the next process counted from an older total (0.0209, 0.0418,
//! then 0.0419 USD for three equal turns). So a claude adapter is left the runner's
//! whole grace to exit by itself ([`saves_on_exit`]).

use serde_json::Value;

use crate::agents::versions::{ACP_SESSION_COSTS_FROM, Version};

/// The claude-agent-acp packages, by the `agentInfo.name` they answer `initialize` with.
const CLAUDE_ADAPTERS: [&str; 2] = [
    "@agentclientprotocol/claude-agent-acp",
    "@zed-industries/claude-code-acp",
];

/// Whether the agent of this `initialize` result saves its session as it exits after
/// its stdin closes, so that it must not be asked to stop early.
pub(super) fn saves_on_exit(initialize: &Value) -> bool {
    CLAUDE_ADAPTERS.contains(&initialize["agentInfo"]["name"].as_str().unwrap_or_default())
}

/// Whether the cost the agent of this `initialize` result reports runs over the whole
/// session, resumed processes included (`false`: over this process only).
pub(super) fn costs_span_processes(initialize: &Value) -> bool {
    let info = &initialize["agentInfo"];
    let name = info["name"].as_str().unwrap_or_default();
    if !CLAUDE_ADAPTERS.contains(&name) {
        return true;
    }
    info["version"]
        .as_str()
        .and_then(Version::find)
        .is_some_and(|version| version >= ACP_SESSION_COSTS_FROM)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn info(name: &str, version: &str) -> Value {
        json!({"agentInfo": {"name": name, "version": version}})
    }

    #[test]
    fn claude_agent_acp_totals_the_session_from_0_101() {
        let acp = "@agentclientprotocol/claude-agent-acp";
        assert!(!costs_span_processes(&info(acp, "0.49.0")));
        assert!(!costs_span_processes(&info(acp, "0.100.9")));
        assert!(costs_span_processes(&info(acp, "0.101.0")));
        assert!(costs_span_processes(&info(acp, "1.0.0-beta.1")));
        assert!(!costs_span_processes(&info(
            "@zed-industries/claude-code-acp",
            "0.16.2"
        )));
        // Any other agent goes by the schema: the session's cumulative cost.
        assert!(costs_span_processes(&info("codex-acp", "2.6.0")));
        assert!(costs_span_processes(&json!({})));
    }
}
