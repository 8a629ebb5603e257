//! Permission requests as each agent words them: its options (ids, names, kinds, in
//! its order) and how it reads the client's answer.

use std::path::Path;

use serde_json::Value;

use super::super::cli::Cli;
use super::json::{J, obj};
use super::turn::{Step, Stop};

/// How the client answered a permission request.
pub enum Choice {
    Allow { always: bool },
    Reject,
}

/// The agent's options, in its order: (optionId, name, kind).
pub fn options(flavor: Cli, command: &str, cwd: &Path) -> Vec<(String, String, &'static str)> {
    let o = |id: &str, name: String, kind| (id.to_string(), name, kind);
    match flavor {
        Cli::Gemini => vec![
            o(
                "proceed_always",
                "Allow for this session".into(),
                "allow_always",
            ),
            o("proceed_once", "Allow".into(), "allow_once"),
            o("cancel", "Reject".into(), "reject_once"),
        ],
        Cli::Claude => vec![
            o(
                "allow_always",
                format!(
                    "Always Allow Bash({command}) and access to {}",
                    cwd.display()
                ),
                "allow_always",
            ),
            o("allow", "Allow".into(), "allow_once"),
            o("reject", "Reject".into(), "reject_once"),
        ],
        Cli::Codex => vec![
            o("allow_once", "Yes, proceed".into(), "allow_once"),
            o(
                "accept_execpolicy_amendment",
                format!("Yes, and don't ask again for commands that start with `{command}`"),
                "allow_always",
            ),
            o(
                "cancel",
                "No, and tell Codex what to do differently".into(),
                "reject_once",
            ),
        ],
    }
}

pub fn options_json(flavor: Cli, options: &[(String, String, &'static str)]) -> J {
    let items = options.iter().map(|(id, name, kind)| match flavor {
        Cli::Claude => obj! { "kind": *kind, "name": name, "optionId": id },
        _ => obj! { "optionId": id, "name": name, "kind": *kind },
    });
    J::Arr(items.collect())
}

/// Reads the client's answer; `cancelled` ends the turn, anything unexpected is reported
/// on stderr and taken as a refusal.
pub fn choice(response: &Value, options: &[(String, String, &'static str)]) -> Step<Choice> {
    if response.get("error").is_some() {
        eprintln!(
            "fake-agent: the client answered session/request_permission with an error: {response}"
        );
        return Ok(Choice::Reject);
    }
    let outcome = &response["result"]["outcome"];
    match outcome["outcome"].as_str() {
        Some("cancelled") => Err(Stop::Cancelled),
        Some("selected") => {
            let id = outcome["optionId"].as_str().unwrap_or_default();
            match options
                .iter()
                .find(|(o, _, _)| o == id)
                .map(|(_, _, kind)| *kind)
            {
                Some("allow_once") => Ok(Choice::Allow { always: false }),
                Some("allow_always") => Ok(Choice::Allow { always: true }),
                Some(_) => Ok(Choice::Reject),
                None => {
                    eprintln!(
                        "fake-agent: the client chose optionId {id:?}, which was not offered: {response}"
                    );
                    Ok(Choice::Reject)
                }
            }
        }
        _ => {
            eprintln!("fake-agent: not a permission outcome: {response}");
            Ok(Choice::Reject)
        }
    }
}

/// `touch`: creates the file if missing, keeps it otherwise.
pub fn touch(path: &Path) {
    let made = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    if let Err(e) = made {
        eprintln!("fake-agent: cannot touch {}: {e}", path.display());
    }
}
