//! `session/fork` where the flavor advertises it (`sessionCapabilities.fork`: claude and
//! codex in their recordings), as claude-agent-acp's `unstable_forkSession` does it: a
//! new session made from the stored one (`resume` + `forkSession: true`), so it holds
//! the same history under a new id; the answer is that of `session/new`, the slash
//! commands follow. The params are those of a load (`sessionId`, `cwd`, `mcpServers`).

use serde_json::Value;

use super::super::cli::Cli;
use super::flavor;
use super::ids;
use super::json::J;
use super::server::Agent;
use super::store::Session;

/// Whether `flavor`'s `initialize` advertises `session/fork`.
pub fn advertised(flavor: Cli) -> bool {
    flavor::initialize(flavor)
        .get("agentCapabilities")
        .and_then(|c| c.get("sessionCapabilities"))
        .and_then(|c| c.get("fork"))
        .is_some_and(|f| !matches!(f, J::Null))
}

/// Answers `session/fork` of the session `original`, stored in the same folder.
pub fn fork(agent: &mut Agent, id: &Value, original: Session) {
    let sid = match agent.flavor {
        Cli::Codex => ids::uuid_v7(),
        _ => ids::uuid_v4(),
    };
    let session = Session {
        id: sid.clone(),
        created: ids::now_ms() / 1000,
        ..original
    };
    agent.store.save(&session);
    let mode = flavor::start_mode(agent.flavor);
    agent
        .out
        .result(id, flavor::session_result(agent.flavor, Some(&sid), &mode));
    agent.open(session, mode);
    agent
        .out
        .update(&sid, flavor::commands_update(agent.flavor));
}
