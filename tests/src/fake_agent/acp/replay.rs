//! `session/resume` and `session/load` of a stored session, message for message as each
//! agent answers them (`recorded/acp/*-resume.jsonl`, `*-load.jsonl`): what comes before
//! and after the result, and how the history is replayed on a load.

use serde_json::Value;

use super::super::cli::Cli;
use super::flavor;
use super::json::{J, obj};
use super::server::Agent;
use super::store::{Exchange, Session};
use super::usage;
use super::wire::errors;

/// Answers a resume of `session` (claude, codex; gemini has no resume).
pub fn resume(agent: &mut Agent, id: &Value, session: Session) {
    let flavor = agent.flavor;
    let sid = session.id.clone();
    let mode = flavor::start_mode(flavor);
    match flavor {
        Cli::Codex => {
            agent.out.update(&sid, flavor::codex_status(None));
            agent
                .out
                .result(id, flavor::session_result(flavor, None, &mode));
            agent.out.update(&sid, usage::codex_update(&session));
        }
        _ => agent
            .out
            .result(id, flavor::session_result(flavor, Some(&sid), &mode)),
    }
    agent.open(session, mode);
    agent.out.update(&sid, flavor::commands_update(flavor));
}

/// Answers a load of `session`: the history as `user_message_chunk`s and
/// `agent_message_chunk`s, in each agent's order around the result.
pub fn load(agent: &mut Agent, id: &Value, session: Session) {
    let flavor = agent.flavor;
    let sid = session.id.clone();
    let mode = flavor::start_mode(flavor);
    match flavor {
        Cli::Claude => {
            history(agent, &session);
            let result = flavor::session_result(flavor, Some(&sid), &mode);
            agent.out.result(id, result);
            agent.out.update(&sid, flavor::commands_update(flavor));
        }
        Cli::Codex => {
            agent.out.update(&sid, flavor::commands_update(flavor));
            if let Some(title) = &session.title {
                let update = obj! { "sessionUpdate": "session_info_update", "title": title };
                agent.out.update(&sid, update);
            }
            history(agent, &session);
            agent
                .out
                .result(id, flavor::session_result(flavor, None, &mode));
            agent.out.update(&sid, flavor::codex_status(None));
            agent.out.update(&sid, usage::codex_update(&session));
        }
        Cli::Gemini => {
            if std::env::var("FAKE_ACP_GEMINI_LOAD_FAILS").is_ok_and(|v| !v.is_empty() && v != "0")
            {
                // gemini-cli #28693: a load in the minute the session was created finds
                // nothing, and the session is gone for good.
                agent.store.delete(&sid);
                agent.sessions.remove(&sid);
                let details = "No previous sessions found for this project.";
                return agent.out.error(id, errors::internal(details));
            }
            // gemini streams the history without waiting, so its result lands after the
            // first replayed chunk (its own context preamble).
            let preamble = chunk(
                "user_message_chunk",
                &gemini_preamble(&session),
                None,
                flavor,
            );
            agent.out.update(&sid, preamble);
            agent
                .out
                .result(id, flavor::session_result(flavor, None, &mode));
            history(agent, &session);
            agent.out.update(&sid, flavor::commands_update(flavor));
        }
    }
    agent.open(session, mode);
}

/// A replayed chunk in the flavor's key order (`messageId` last for claude, first for
/// codex, absent for gemini).
fn chunk(kind: &str, text: &str, message_id: Option<&str>, flavor: Cli) -> J {
    let content = obj! { "type": "text", "text": text };
    match (flavor, message_id) {
        (Cli::Codex, Some(mid)) => {
            obj! { "sessionUpdate": kind, "messageId": mid, "content": content }
        }
        (Cli::Claude, Some(mid)) => {
            obj! { "sessionUpdate": kind, "content": content, "messageId": mid }
        }
        _ => obj! { "sessionUpdate": kind, "content": content },
    }
}

/// What each agent kept of an exchange: gemini drops a cancelled one, codex keeps its
/// prompt but not the partial answer, claude keeps both.
fn kept(flavor: Cli, exchange: &Exchange) -> (bool, bool) {
    let answered = !exchange.answer.is_empty();
    match (flavor, exchange.cancelled) {
        (_, false) => (true, answered),
        (Cli::Gemini, true) => (false, false),
        (Cli::Codex, true) => (true, false),
        (Cli::Claude, true) => (true, answered),
    }
}

fn history(agent: &mut Agent, session: &Session) {
    let flavor = agent.flavor;
    for exchange in &session.exchanges {
        let (prompt, answer) = kept(flavor, exchange);
        if prompt {
            let mid = Some(exchange.user_id.as_str()).filter(|m| !m.is_empty());
            let update = chunk("user_message_chunk", &exchange.prompt, mid, flavor);
            agent.out.update(&session.id, update);
        }
        if answer {
            let mid = Some(exchange.agent_id.as_str()).filter(|m| !m.is_empty());
            let update = chunk("agent_message_chunk", &exchange.answer, mid, flavor);
            agent.out.update(&session.id, update);
        }
    }
}

/// The context gemini puts first in every chat (and so replays first). The recording
/// cut it short; the fake completes it in the same words.
fn gemini_preamble(session: &Session) -> String {
    let home = super::store::state_dir(Cli::Gemini).unwrap_or_default();
    let project = session
        .cwd
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(
        "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n\
         Today's date is {} (formatted according to the user's locale).\n\
         My operating system is: linux\n\
         The project's temporary directory is: {}\n\
         - **Workspace Directories:**\n  - {}\n</session_context>",
        usage::date_words(session.created),
        home.join("tmp").join(project).display(),
        session.cwd.display()
    )
}
