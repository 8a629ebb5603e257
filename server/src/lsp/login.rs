//! The diagnostic on a member whose agent said it needs a login (an ACP agent's
//! "Authentication required"): the advice with the exact login command, and the login
//! methods the agent offers. It sits on the member's last heading (the turn that
//! failed) and on every mention of the member in the human's messages after it, and
//! goes once the member answers again.

use std::fmt::Write;

use super::told::LoginProblem;
use crate::conversation::problems::Problem;
use crate::conversation::roster::Roster;
use crate::document::ByteRange;
use crate::document::chat::Chat;
use crate::team::{Member, Severity};

/// The diagnostic's code.
pub const CODE: &str = "login-needed";

/// The login problems of a chat: for each member of `roster`'s team that `login` says
/// needs one, a problem at each place the member is named (see the module doc).
pub fn problems(
    text: &str,
    chat: &Chat,
    roster: &Roster,
    login: impl Fn(&Member) -> Option<LoginProblem>,
) -> Vec<Problem> {
    let mut out = Vec::new();
    for member in &roster.team.members {
        let Some(problem) = login(member) else {
            continue;
        };
        let message = message(&member.handle, &problem);
        for range in places(text, chat, roster, member) {
            out.push(Problem {
                range,
                severity: Severity::Warning,
                code: CODE,
                message: message.clone(),
                fixes: Vec::new(),
            });
        }
    }
    out
}

/// Where `member` is named: its last heading, and its mentions in the human's messages
/// after it (all of them when it has no heading).
fn places(text: &str, chat: &Chat, roster: &Roster, member: &Member) -> Vec<ByteRange> {
    let is_member = |handle: &str| {
        !roster.is_human(handle)
            && roster
                .member(handle)
                .is_some_and(|m| m.handle == member.handle)
    };
    let last = chat
        .messages
        .iter()
        .rposition(|m| is_member(m.handle(text)));
    let mut out = Vec::new();
    let from = match last {
        Some(i) => {
            out.push(chat.messages[i].handle_range());
            i + 1
        }
        None => 0,
    };
    for message in &chat.messages[from..] {
        // In an agent's answer a `@word` is ordinary text.
        if roster.is_ai(message.handle(text)) {
            continue;
        }
        out.extend(
            message
                .mentions()
                .filter(|m| is_member(&text[m.handle.clone()]))
                .map(|m| m.handle),
        );
    }
    out
}

/// What the diagnostic says.
pub fn message(handle: &str, problem: &LoginProblem) -> String {
    let mut message = format!(
        "@{handle} needs a login before it can answer. {}",
        problem.advice
    );
    if !problem.methods.is_empty() {
        message.push_str("\nLogin methods it offers:");
        for method in &problem.methods {
            let _ = write!(message, "\n- {} (`{}`)", method.name, method.id);
            if let Some(description) = &method.description {
                let _ = write!(message, ": {description}");
            }
        }
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::AuthMethod;
    use crate::team::Team;
    use pretty_assertions::assert_eq;
    use std::path::PathBuf;

    fn team() -> Team {
        let mut team = Team::empty(PathBuf::from("/w/team"));
        for handle in ["writer", "reviewer"] {
            team.members
                .push(Member::new(handle, "acp", PathBuf::from("/w/team")));
        }
        team
    }

    fn problem() -> LoginProblem {
        LoginProblem {
            advice: "Authentication required. Run `gemini` once.".into(),
            methods: vec![
                AuthMethod {
                    id: "oauth-personal".into(),
                    name: "Log in with Google".into(),
                    description: Some("Log in with your Google account".into()),
                },
                AuthMethod {
                    id: "gateway".into(),
                    name: "AI API Gateway".into(),
                    description: None,
                },
            ],
        }
    }

    #[test]
    fn the_message_has_the_advice_and_the_methods() {
        assert_eq!(
            message("writer", &problem()),
            "@writer needs a login before it can answer. Authentication required. Run `gemini` once.\n\
             Login methods it offers:\n\
             - Log in with Google (`oauth-personal`): Log in with your Google account\n\
             - AI API Gateway (`gateway`)"
        );
        let none = LoginProblem {
            advice: "Log in.".into(),
            methods: Vec::new(),
        };
        assert_eq!(
            message("writer", &none),
            "@writer needs a login before it can answer. Log in."
        );
    }

    #[test]
    fn it_sits_on_the_last_heading_and_the_mentions_after_it() {
        let text = "## @me\n@writer one\n\n## @writer\nfailed\n\n## @me\n@writer @reviewer two, @Writer\n\n\
                    ## @reviewer\n@writer in an answer\n";
        let chat = Chat::parse(text);
        let team = team();
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        let found = problems(text, &chat, &roster, |m| {
            (m.handle == "writer").then(problem)
        });
        let named: Vec<&str> = found.iter().map(|p| &text[p.range.clone()]).collect();
        assert_eq!(named, ["writer", "writer", "Writer"]);
        let heading = text.find("## @writer").unwrap() + 4;
        assert_eq!(found[0].range, heading..heading + 6);
        assert!(found.iter().all(|p| p.code == CODE));
        // No heading yet: every mention in the human's messages.
        let text = "## @me\n@writer one\n\n## @me\n@writer two\n";
        let chat = Chat::parse(text);
        let found = problems(text, &chat, &roster, |m| {
            (m.handle == "writer").then(problem)
        });
        assert_eq!(found.len(), 2);
    }
}
