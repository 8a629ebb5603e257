//! Which session ids chatmd takes from a file. A `session=` of a status comment, or the
//! id of a session `chatmd import` reads, is data a repository (or an agent's answer)
//! can forge: it must never reach a command line as an option (`--last`, `--yolo`,
//! `--permission-mode=bypassPermissions`). Each CLI issues UUIDs (claude and gemini
//! random ones, codex time-ordered ones: `01a20c15-7d83-75c0-8b47-478d1d919b73`), so only
//! that shape is passed to them; an ACP agent's id goes only into its JSON requests,
//! where any text is safe, and is held only to be one printable token.

use super::AgentKind;

/// Whether `id` is shaped like a session id of `kind`'s CLI: a UUID in its 8-4-4-4-12
/// hexadecimal form (either case), nothing before or after. Such a text cannot start
/// with `-` or hold a space, so no CLI can read it as an option.
pub fn is_cli_session_id(_kind: AgentKind, id: &str) -> bool {
    let groups: Vec<&str> = id.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(group, len)| group.len() == len && group.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The longest ACP session id taken from a file; real agents issue UUIDs (36 bytes).
const ACP_ID_LIMIT: usize = 200;

/// Whether `id` can be an ACP agent's session id: one token of printable text (no
/// spaces, no control characters) of at most 200 bytes. The protocol lets the agent
/// choose any string; this only keeps a forged one from turning into something else
/// on the way (a status comment value, a log line).
pub fn is_acp_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= ACP_ID_LIMIT
        && !id.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Whether `id` may be resumed by a turn of the agent named `agent` in a status comment
/// (`agent=codex`): a built-in CLI's name asks for its CLI's shape, any other name (an
/// ACP member's `acp`) for an ACP id. A plain command never resumes.
pub fn is_session_id_of(agent: &str, id: &str) -> bool {
    match agent.parse::<AgentKind>() {
        Ok(kind) => is_cli_session_id(kind, id),
        Err(_) => is_acp_session_id(id),
    }
}

/// What is wrong with `id`, in words for a diagnostic or a notice, as the session of
/// `agent` (see [`is_session_id_of`]); `None` when it is fine.
pub fn session_id_problem(agent: &str, id: &str) -> Option<String> {
    if is_session_id_of(agent, id) {
        return None;
    }
    let shown: String = id.chars().take(60).collect();
    Some(match agent.parse::<AgentKind>() {
        Ok(kind) => format!(
            "`session={shown}` is not a session id {kind} issues (a UUID such as 3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3f), so it is never passed to {kind}: the member's next turn starts a new session"
        ),
        Err(_) => format!(
            "`session={shown}` is not a session id an agent issues (one word of printable text), so it is never sent: the member's next turn starts a new session"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values an attacker would write into `session=`.
    const HOSTILE: [&str; 9] = [
        "--last",
        "--dangerously-skip-permissions",
        "--permission-mode=bypassPermissions",
        "--yolo",
        "--approval-mode=yolo",
        "-p",
        "--resume",
        "3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3f --yolo",
        " ",
    ];

    #[test]
    fn the_recorded_ids_of_each_cli_are_taken() {
        for (kind, id) in [
            (AgentKind::Claude, "ba6318a6-8ff6-4537-9fb3-78cdd30bb441"),
            (AgentKind::Codex, "01a20c15-7d83-75c0-8b47-478d1d919b73"),
            (AgentKind::Gemini, "3F7EEFE2-57EE-4A6C-9CD8-00CBB786EE3F"),
        ] {
            assert!(is_cli_session_id(kind, id), "{id}");
            assert!(is_session_id_of(kind.name(), id), "{id}");
        }
        assert!(is_session_id_of("acp", "sess_01J9xyz"));
    }

    #[test]
    fn hostile_and_malformed_ids_are_refused_for_every_agent() {
        let malformed = [
            "",
            "aaa",
            "3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3",
            "3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3ff",
            "3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3g",
            "3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3f-",
            "-3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3f",
            "3f7eefe2_57ee-4a6c-9cd8-00cbb786ee3f",
            "3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3f\n",
        ];
        for id in HOSTILE.iter().chain(&malformed) {
            for &kind in AgentKind::ALL {
                assert!(!is_cli_session_id(kind, id), "{kind} {id:?}");
                assert!(session_id_problem(kind.name(), id).is_some(), "{id:?}");
            }
        }
        for id in [
            "",
            " ",
            "a b",
            "x\u{7}",
            "3f7eefe2 --yolo",
            &"x".repeat(201),
        ] {
            assert!(!is_acp_session_id(id), "{id:?}");
        }
    }
}
