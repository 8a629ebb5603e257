//! Permission policy: the rules that answer a member's permission requests without
//! asking, from the chat's front matter (`permissions:`) and the team's `chatmd.toml`
//! (`[members.X.permissions]`). An allow rule applies only where the user trusts it:
//! in a trusted `chatmd.toml`, or trusted in this very chat (`team/trust/chat.rs`); a
//! reject rule applies wherever it is written. An "always" answer adds the exact rule
//! for that request to the chat's front matter, and to the round's rules at once, so
//! the next matching request of the same turn is answered too; an allow is recorded as
//! trusted in this chat, being the user's own answer.
//!
//! Which rule answers: among the matching rules of one place (the chat, the team), a
//! rule without `*` before any glob, then the glob with the most literal text, and
//! between two as specific, `reject`. Between the places, the team's reject wins over
//! the chat (a file cannot override what the user's config refuses), then the chat's
//! answer, then the team's allow.
//!
//! A rule answers by kind, never by position: allow → the agent's `allow_once` option,
//! else its `allow_always`; reject → `reject_once`, else `reject_always`. When the agent
//! offers no option of that decision, the user is asked.

use std::path::PathBuf;

use super::anchors::Anchors;
use super::asks::{Ask, record_answer};
use super::flush::{MAX_STALE, gave_up};
use super::live::Live;
use super::{Applied, Context, EditorPort, Level, PortError};
use crate::agents::SessionCommand;
use crate::agents::{PermissionKind, PermissionOption, PermissionOutcome, PermissionRequest};
use crate::document::front_matter::rules::{Decision, Pattern};
use crate::document::front_matter::{FrontMatter, RuleEdit, add_rule_edit};
use crate::team::{Team, UserConfig};

/// Where a rule was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    Chat,
    Team,
}

/// One rule of one member.
#[derive(Clone, Debug)]
struct Entry {
    member: String,
    pattern: Pattern,
    decision: Decision,
    source: Source,
}

/// The rules of a round.
#[derive(Clone, Debug, Default)]
pub(super) struct Policy {
    rules: Vec<Entry>,
    /// Where the user's "Always allow" answers are recorded as trusted: their config
    /// and the chat.
    record: Option<(UserConfig, PathBuf)>,
}

impl Policy {
    /// The rules of the chat's front matter (its allow rules only as far as the user
    /// trusts them in this chat) and of the team's members.
    pub(super) fn new(front_matter: Option<&FrontMatter>, team: &Team, ctx: &Context) -> Policy {
        let trust = front_matter
            .filter(|fm| !crate::team::trust::chat_allows(fm).is_empty())
            .map(|_| ctx.user_config.load_trust());
        let trusted = |member: &str, rule: &str| {
            trust
                .as_ref()
                .is_some_and(|t| t.trusts_chat_rule(&ctx.chat_path, member, rule))
        };
        let mut policy = Policy::with_trust(front_matter, team, trusted);
        policy.record = Some((ctx.user_config.clone(), ctx.chat_path.clone()));
        policy
    }

    /// The rules, the chat's allow rules kept where `trusted(member, rule)` says so.
    fn with_trust(
        front_matter: Option<&FrontMatter>,
        team: &Team,
        trusted: impl Fn(&str, &str) -> bool,
    ) -> Policy {
        let mut rules = Vec::new();
        for member in front_matter.map_or(&[][..], |fm| &fm.permissions) {
            for rule in &member.rules {
                let decision = rule.decision.value;
                if decision == Decision::Allow && !trusted(&member.member.value, &rule.text) {
                    continue;
                }
                rules.push(Entry {
                    member: member.member.value.clone(),
                    pattern: rule.pattern.value.clone(),
                    decision,
                    source: Source::Chat,
                });
            }
        }
        for member in &team.members {
            for rule in &member.permissions {
                rules.push(Entry {
                    member: member.handle.clone(),
                    pattern: rule.pattern.clone(),
                    decision: rule.decision,
                    source: Source::Team,
                });
            }
        }
        Policy {
            rules,
            record: None,
        }
    }

    /// What the rules say about `member`'s request of `kind` with `title`.
    pub(super) fn decide(
        &self,
        member: &str,
        kind: &str,
        title: &str,
    ) -> Option<(Decision, Source)> {
        let best = |source| {
            self.rules
                .iter()
                .filter(|r| r.source == source && r.member.eq_ignore_ascii_case(member))
                .filter(|r| r.pattern.matches(kind, title))
                .max_by_key(|r| {
                    (
                        r.pattern.is_exact(),
                        r.pattern.literal_len(),
                        r.decision == Decision::Reject,
                    )
                })
                .map(|r| r.decision)
        };
        match (best(Source::Chat), best(Source::Team)) {
            (_, Some(Decision::Reject)) => Some((Decision::Reject, Source::Team)),
            (Some(chat), _) => Some((chat, Source::Chat)),
            (None, team) => team.map(|d| (d, Source::Team)),
        }
    }

    /// An "always" answer: the rule `pattern` (exact) for `member`, in the chat. An
    /// allow is recorded as trusted in this chat: the user gave it here.
    pub(super) fn learn(&mut self, member: &str, pattern: &str, decision: Decision) {
        let Ok(parsed) = Pattern::parse(pattern) else {
            return;
        };
        if decision == Decision::Allow
            && let Some((user, chat)) = &self.record
            && let Err(error) = user.trust_chat_rule(chat, member, pattern)
        {
            // The rule still answers this round; the chat then shows it held back.
            tracing::warn!("@{member}: the rule `{pattern}` was not recorded as trusted: {error}");
        }
        self.rules.insert(
            0,
            Entry {
                member: member.to_string(),
                pattern: parsed,
                decision,
                source: Source::Chat,
            },
        );
    }
}

/// The agent's option that carries out `decision`, chosen by kind.
pub(super) fn option_for(
    request: &PermissionRequest,
    decision: Decision,
) -> Option<&PermissionOption> {
    let (once, always) = match decision {
        Decision::Allow => (PermissionKind::AllowOnce, PermissionKind::AllowAlways),
        Decision::Reject => (PermissionKind::RejectOnce, PermissionKind::RejectAlways),
    };
    let find = |kind| request.options.iter().find(|o| o.kind == kind);
    find(once).or_else(|| find(always))
}

impl Live {
    /// Answers the agent's request from the rules when one matches and the agent
    /// offers an option for it: the block is written with its record, and the command
    /// for the agent's session is returned. Otherwise the request is handed back.
    pub(super) fn ask_by_policy(
        &mut self,
        request: Box<PermissionRequest>,
        policy: &Policy,
    ) -> Result<SessionCommand, Box<PermissionRequest>> {
        let Some((decision, source)) = policy.decide(&self.member, &request.kind, &request.title)
        else {
            return Err(request);
        };
        let Some(chosen) = option_for(&request, decision).cloned() else {
            return Err(request);
        };
        let by = match source {
            Source::Chat => "policy",
            Source::Team => "policy (chatmd.toml)",
        };
        let id = request.id.clone();
        let block = self.ask(*request);
        let Some(ask) = self.asks.iter_mut().find(|a: &&mut Ask| a.block == block) else {
            unreachable!("the block was just asked");
        };
        record_answer(ask, &chosen, chosen.kind, Some(by));
        self.show_answer(&block);
        self.settle_status();
        Ok(SessionCommand::Answer {
            request: id,
            outcome: PermissionOutcome::Selected(chosen.id),
        })
    }
}

/// Writes `member`'s rule into the chat's front matter (the document as the port has
/// it now; computed again when it moved on first). A front matter that cannot take
/// it is left as it is, and the user is told.
pub(super) async fn write_rule<P: EditorPort>(
    port: &mut P,
    anchors: &mut Anchors,
    member: &str,
    rule: &str,
    decision: Decision,
) -> Result<(), PortError> {
    for _ in 0..MAX_STALE {
        for change in port.changes().await? {
            anchors.apply(&change);
        }
        let edit = match port.current_text() {
            Some(text) => add_rule_edit(text, member, rule, decision),
            None => RuleEdit::Unplaceable("this document cannot be edited here".into()),
        };
        match edit {
            RuleEdit::Present => return Ok(()),
            RuleEdit::Unplaceable(why) => {
                let message = format!(
                    "@{member}: the rule `{rule}: {}` was not written into the front matter \
                     ({why}); it holds until this round ends",
                    decision.as_str()
                );
                port.notify(Level::Warning, &message).await;
                return Ok(());
            }
            RuleEdit::Edit(range, text) => {
                if port.apply(vec![(range, text)]).await? == Applied::Done {
                    return Ok(());
                }
            }
        }
    }
    Err(gave_up())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::front_matter::{locate, parse};

    fn policy(yaml: &str) -> Policy {
        let text = format!("---\n{yaml}---\n");
        let fm = parse(&text, &locate(&text).unwrap());
        assert_eq!(fm.problems, []);
        Policy::with_trust(Some(&fm), &Team::empty(PathBuf::from("/t")), |_, _| true)
    }

    #[test]
    fn the_most_specific_rule_answers() {
        let p = policy(
            "permissions:\n  w:\n    \"execute: *\": reject\n    \"execute: cargo *\": allow\n    \"execute: cargo publish\": reject\n",
        );
        let d = |title| p.decide("W", "execute", title).map(|(d, _)| d);
        assert_eq!(d("cargo test"), Some(Decision::Allow));
        assert_eq!(d("cargo publish"), Some(Decision::Reject));
        assert_eq!(d("rm -rf x"), Some(Decision::Reject));
        assert_eq!(p.decide("w", "edit", "x"), None);
        assert_eq!(p.decide("other", "execute", "ls"), None);
    }

    #[test]
    fn a_chats_allow_rule_answers_only_when_trusted_and_its_rejects_always() {
        let text = "---\npermissions:\n  w:\n    \"execute: *\": allow\n    \"execute: rm *\": reject\n---\n";
        let fm = parse(text, &locate(text).unwrap());
        let team = Team::empty(PathBuf::from("/t"));
        let untrusted = Policy::with_trust(Some(&fm), &team, |_, _| false);
        assert_eq!(untrusted.decide("w", "execute", "ls"), None);
        assert_eq!(
            untrusted.decide("w", "execute", "rm -rf /"),
            Some((Decision::Reject, Source::Chat))
        );
        let trusted = Policy::with_trust(Some(&fm), &team, |m, r| m == "w" && r == "execute: *");
        assert_eq!(
            trusted.decide("w", "execute", "ls"),
            Some((Decision::Allow, Source::Chat))
        );
    }

    #[test]
    fn between_equal_globs_reject_wins_and_learned_rules_come_first() {
        let mut p = policy("permissions:\n  w:\n    \"*: a*\": allow\n    \"*: *a\": reject\n");
        assert_eq!(
            p.decide("w", "read", "aba").map(|d| d.0),
            Some(Decision::Reject)
        );
        p.learn("w", &Pattern::exact("read", "aba"), Decision::Allow);
        assert_eq!(
            p.decide("w", "read", "aba"),
            Some((Decision::Allow, Source::Chat))
        );
    }

    #[tokio::test]
    async fn a_rule_is_written_over_the_users_typing_and_the_turns_places_follow() {
        use crate::turns::anchors::Places;
        use crate::turns::testing::RecordingPort;
        let text = "---\ntitle: x # mine\n---\n## @me\nhi\n\n## @w\n<!-- s -->\nabc";
        let mut port = RecordingPort::new(text);
        let mut anchors = Anchors::default();
        let status = text.find("<!--").unwrap();
        anchors.add(Places {
            status: status..status + 10,
            body_start: status + 11,
            end: text.len(),
        });
        // The user types in the front matter just as the rule goes in.
        port.before_edit(
            |_| true,
            |t| {
                (
                    t.find(" # mine").unwrap()..t.find(" # mine").unwrap(),
                    "!".into(),
                )
            },
        );
        write_rule(&mut port, &mut anchors, "w", "execute: ls", Decision::Allow)
            .await
            .unwrap();
        assert_eq!(port.stale, 1);
        let written = "---\ntitle: x! # mine\npermissions:\n  w:\n    \"execute: ls\": allow\n---\n\
                       ## @me\nhi\n\n## @w\n<!-- s -->\nabc";
        assert_eq!(port.text(), written);
        // The round's next changes move the turn's places past the new lines.
        for change in port.changes().await.unwrap() {
            anchors.apply(&change);
        }
        assert_eq!(anchors.get(0).end, written.len());
        assert_eq!(&written[anchors.get(0).status.clone()], "<!-- s -->");
    }

    #[test]
    fn options_are_chosen_by_kind() {
        let mut request = crate::turns::asks_tests::request("0");
        let id = |d| option_for(&request, d).map(|o| o.id.clone());
        assert_eq!(id(Decision::Allow).as_deref(), Some("proceed_once"));
        assert_eq!(id(Decision::Reject).as_deref(), Some("cancel"));
        request
            .options
            .retain(|o| o.kind == PermissionKind::AllowAlways);
        assert_eq!(
            option_for(&request, Decision::Allow).map(|o| o.id.as_str()),
            Some("proceed_always")
        );
        assert_eq!(option_for(&request, Decision::Reject), None);
    }
}
