//! Permission requests under `chatmd send`: asked on the terminal when stdin is one
//! (one question at a time, whichever member asks), else rejected: nothing runs that
//! the user did not allow. (Requests that a rule of the chat or the team matches never
//! get here: the round answers them, `turns/policy.rs`.) An "always" answer on the
//! terminal writes its rule into the chat like any other. The block in the chat
//! records who answered.

use std::io::{BufRead, Write};

use crate::agents::{PermissionKind, PermissionRequest};
use crate::turns::{Answers, Asked, PermissionAnswer};

/// How `chatmd send` answers permission requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asking {
    /// Ask the user on the terminal (stdin and stderr).
    Terminal,
    /// No one to ask: answer by policy.
    Policy,
}

impl Asking {
    /// Asks on the terminal when stdin is one.
    pub fn for_stdin() -> Asking {
        if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            Asking::Terminal
        } else {
            Asking::Policy
        }
    }

    pub(super) fn ask(self, asked: Asked<'_>, answers: &Answers) {
        let block = asked.block.to_string();
        match self {
            Asking::Policy => {
                let answer = PermissionAnswer {
                    block,
                    option: policy_choice(asked.request).to_string(),
                    by: Some("policy: no terminal to ask".into()),
                    reply: None,
                };
                // The round reads its answers while its turns run; it has room.
                let _ = answers.try_send(answer);
            }
            Asking::Terminal => {
                let question = question(asked.member, asked.request);
                let options = answer_ids(asked.request);
                let answers = answers.clone();
                // The terminal is read off the runtime, on a thread of its own: a read
                // still blocked when the run ends (cancelled, a signal) must not keep
                // the process from exiting, as a blocking task of the runtime would.
                // stdin's lock takes the questions of several members one at a time.
                std::thread::spawn(move || {
                    let stdin = std::io::stdin();
                    let chosen = ask_on(
                        &mut stdin.lock(),
                        &mut std::io::stderr(),
                        &question,
                        &options,
                    );
                    let _ = answers.blocking_send(PermissionAnswer {
                        block,
                        option: chosen,
                        by: Some("the terminal".into()),
                        reply: None,
                    });
                });
            }
        }
    }
}

/// The option a policy without rules picks: a reject, never an allow.
fn policy_choice(request: &PermissionRequest) -> &str {
    request
        .options
        .iter()
        .find(|o| o.kind == PermissionKind::RejectOnce)
        .or_else(|| {
            request
                .options
                .iter()
                .find(|o| o.kind == PermissionKind::RejectAlways)
        })
        .map_or(PermissionKind::RejectOnce.as_str(), |o| o.id.as_str())
}

/// Whether the terminal offers "reject always" of its own: the agent has no option of
/// that kind (chatmd then remembers the rule, and the agent hears a reject once).
fn own_reject_always(request: &PermissionRequest) -> bool {
    let has = |kind| request.options.iter().any(|o| o.kind == kind);
    // A question is not a tool the chat could have a rule for.
    !request.is_question() && !has(PermissionKind::RejectAlways) && has(PermissionKind::RejectOnce)
}

/// What each numbered answer sends: the agent's option ids, then `reject_always`
/// when the terminal offers it.
fn answer_ids(request: &PermissionRequest) -> Vec<String> {
    let mut ids: Vec<String> = request.options.iter().map(|o| o.id.clone()).collect();
    if own_reject_always(request) {
        ids.push(PermissionKind::RejectAlways.as_str().to_string());
    }
    ids
}

/// The question as the terminal shows it: what is asked, and the options numbered.
fn question(member: &str, request: &PermissionRequest) -> String {
    let mut q = match request.is_question() {
        true => format!("\n@{member} {}\n", request.summary),
        false => format!("\n@{member} asks permission to {}\n", request.summary),
    };
    for (n, option) in request.options.iter().enumerate() {
        q.push_str(&format!("  {}) {}\n", n + 1, option.name));
    }
    if own_reject_always(request) {
        q.push_str(&format!(
            "  {}) Reject always (a rule in the chat)\n",
            request.options.len() + 1
        ));
    }
    q.push_str("answer with a number: ");
    q
}

/// Asks until the user gives an option's number; returns that option's id. An end of
/// input (Ctrl-D) rejects.
fn ask_on(
    input: &mut impl BufRead,
    out: &mut impl Write,
    question: &str,
    ids: &[String],
) -> String {
    loop {
        let _ = out.write_all(question.as_bytes());
        let _ = out.flush();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return PermissionKind::RejectOnce.as_str().to_string(),
            Ok(_) => {}
        }
        if let Some(id) = line
            .trim()
            .parse::<usize>()
            .ok()
            .and_then(|n| ids.get(n.checked_sub(1)?))
        {
            return id.clone();
        }
        let _ = writeln!(out, "not an option: {}", line.trim());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn request() -> PermissionRequest {
        crate::turns::asks_tests::request("0")
    }

    #[test]
    fn the_policy_rejects() {
        assert_eq!(policy_choice(&request()), "cancel");
    }

    #[test]
    fn the_terminal_asks_until_a_number_names_an_option() {
        let request = request();
        let ids = answer_ids(&request);
        let mut out = Vec::new();
        let chosen = ask_on(
            &mut &b"yes\n7\n2\n"[..],
            &mut out,
            &question("tester", &request),
            &ids,
        );
        assert_eq!(chosen, "proceed_once");
        let shown = String::from_utf8(out).unwrap();
        assert_eq!(
            shown
                .matches("@tester asks permission to run `touch tool-wrote.txt` (execute)")
                .count(),
            3
        );
        assert!(shown.contains(
            "  1) Allow for this session\n  2) Allow\n  3) Reject\n  4) Reject always (a rule in \
             the chat)\nanswer with a number: "
        ));
        assert_eq!(
            ask_on(&mut &b"4\n"[..], &mut Vec::new(), "?", &ids),
            "reject_always"
        );
        assert!(shown.contains("not an option: yes\n") && shown.contains("not an option: 7\n"));
        let mut out = Vec::new();
        assert_eq!(ask_on(&mut &b""[..], &mut out, "?", &ids), "reject_once");
    }
}
