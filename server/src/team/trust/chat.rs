//! Trust for a chat's own permission rules. A chat's front matter comes with the
//! repository like `chatmd.toml` does, and an `allow` rule in it answers the agent's
//! requests without asking: so it applies only once the user trusted that very rule in
//! that very chat (`chatmd trust FILE.chat.md`, the editor's quick fix, or an "Always"
//! the user answered there, which chatmd records as it writes the rule).
//!
//! The store keeps the rules themselves, not a hash of the file or of all its rules: a
//! chat changes with every message, and a rule someone else adds (a `git pull`) is then
//! held back alone while the user's own rules go on applying.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{TrustError, UserConfig, UserTrust, file_identity};
use crate::document::front_matter::rules::Decision;
use crate::document::front_matter::{FrontMatter, Rule};

/// A chat whose allow rules the user trusts: the chat's path (its folder resolved) and
/// each rule as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustedChat {
    pub path: PathBuf,
    #[serde(default)]
    pub allow: Vec<TrustedRule>,
}

/// One trusted allow rule: the member (without `@`) and the rule's key as written
/// (`execute: cargo test`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustedRule {
    pub member: String,
    pub rule: String,
}

impl TrustedRule {
    fn is(&self, member: &str, rule: &str) -> bool {
        self.member.eq_ignore_ascii_case(member) && self.rule == rule
    }
}

/// An allow rule of a chat's front matter, with its member.
#[derive(Debug, Clone, Copy)]
pub struct ChatAllow<'a> {
    /// Without `@`, as written.
    pub member: &'a str,
    pub rule: &'a Rule,
}

impl ChatAllow<'_> {
    /// `@writer "execute: *"`, as shown to the user.
    pub fn shown(&self) -> String {
        format!("@{} \"{}\": allow", self.member, self.rule.text)
    }
}

/// Every allow rule of the front matter, in file order.
pub fn chat_allows(front_matter: &FrontMatter) -> Vec<ChatAllow<'_>> {
    front_matter
        .permissions
        .iter()
        .flat_map(|member| {
            member
                .rules
                .iter()
                .filter(|rule| rule.decision.value == Decision::Allow)
                .map(|rule| ChatAllow {
                    member: &member.member.value,
                    rule,
                })
        })
        .collect()
}

impl UserTrust {
    /// Whether the user trusts `member`'s allow rule `rule` (its key as written) in
    /// the chat at `chat`. A chat in the user's own config folder needs no trust.
    pub fn trusts_chat_rule(&self, chat: &Path, member: &str, rule: &str) -> bool {
        let identity = file_identity(chat);
        if self
            .own_dir
            .as_ref()
            .is_some_and(|own| identity.starts_with(own))
        {
            return true;
        }
        self.chats
            .iter()
            .filter(|c| c.path == identity)
            .flat_map(|c| &c.allow)
            .any(|r| r.is(member, rule))
    }

    /// The allow rules of `front_matter` that the user has not trusted in `chat`.
    pub fn held_back<'a>(&self, chat: &Path, front_matter: &'a FrontMatter) -> Vec<ChatAllow<'a>> {
        let mut held = chat_allows(front_matter);
        held.retain(|allow| !self.trusts_chat_rule(chat, allow.member, &allow.rule.text));
        held
    }
}

impl UserConfig {
    /// The chats whose rules are recorded, for `chatmd trust --list`.
    pub fn list_chats(&self) -> Result<Vec<TrustedChat>, TrustError> {
        Ok(super::store::read(&self.store_path()?)?.chats)
    }

    /// Records `allows` as the trusted rules of `chat`, in place of what was recorded
    /// for it (a rule gone from the chat is forgotten with it).
    pub fn trust_chat_rules(
        &self,
        chat: &Path,
        allows: &[ChatAllow],
    ) -> Result<TrustedChat, TrustError> {
        let entry = TrustedChat {
            path: file_identity(chat),
            allow: allows
                .iter()
                .map(|a| TrustedRule {
                    member: a.member.to_owned(),
                    rule: a.rule.text.clone(),
                })
                .collect(),
        };
        self.replace(entry, |store| &mut store.chats, |c| &c.path)
    }

    /// Adds one rule to what `chat`'s record trusts: the rule chatmd writes because
    /// the user answered "Always" there.
    pub fn trust_chat_rule(&self, chat: &Path, member: &str, rule: &str) -> Result<(), TrustError> {
        let path = self.store_path()?;
        let identity = file_identity(chat);
        super::store::update(&path, |store| {
            let index = match store.chats.iter().position(|c| c.path == identity) {
                Some(index) => index,
                None => {
                    store.chats.push(TrustedChat {
                        path: identity.clone(),
                        allow: Vec::new(),
                    });
                    store.chats.len() - 1
                }
            };
            let allow = &mut store.chats[index].allow;
            if !allow.iter().any(|r| r.is(member, rule)) {
                allow.push(TrustedRule {
                    member: member.to_owned(),
                    rule: rule.to_owned(),
                });
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::front_matter::{locate, parse};
    use pretty_assertions::assert_eq;

    fn front_matter(yaml: &str) -> FrontMatter {
        let text = format!("---\n{yaml}---\n");
        parse(&text, &locate(&text).expect("front matter"))
    }

    fn held(trust: &UserTrust, chat: &Path, fm: &FrontMatter) -> Vec<String> {
        trust
            .held_back(chat, fm)
            .iter()
            .map(|a| a.shown())
            .collect()
    }

    #[test]
    fn a_chats_allow_rules_are_held_back_until_trusted_rule_by_rule() -> Result<(), TrustError> {
        let f = crate::team::temp_tree::TempTree::new();
        let chat = f.write("ws/c.chat.md", "");
        let user = f.user();
        let fm = front_matter(
            "permissions:\n  writer:\n    \"*\": allow\n    \"edit: *\": reject\n  Rev:\n    \"execute: ls\": allow\n",
        );
        assert_eq!(
            held(&user.load_trust(), &chat, &fm),
            ["@writer \"*\": allow", "@Rev \"execute: ls\": allow"]
        );
        user.trust_chat_rules(&chat, &chat_allows(&fm))?;
        assert_eq!(held(&user.load_trust(), &chat, &fm), Vec::<String>::new());
        // A rule added later (a `git pull`) is held back alone; the handle's case does
        // not matter, the rule's text does.
        let more = front_matter(
            "permissions:\n  WRITER:\n    \"*\": allow\n  rev:\n    \"execute: ls\": allow\n    \"execute: rm *\": allow\n",
        );
        assert_eq!(
            held(&user.load_trust(), &chat, &more),
            ["@rev \"execute: rm *\": allow"]
        );
        // Another chat with the same rules is not trusted.
        let other = f.write("ws/d.chat.md", "");
        assert_eq!(held(&user.load_trust(), &other, &fm).len(), 2);
        // An "Always" adds its rule; revoking forgets the chat.
        user.trust_chat_rule(&chat, "rev", "execute: rm *")?;
        user.trust_chat_rule(&chat, "rev", "execute: rm *")?;
        assert_eq!(held(&user.load_trust(), &chat, &more), Vec::<String>::new());
        assert_eq!(user.list_chats()?[0].allow.len(), 3, "recorded once");
        assert!(user.revoke(&chat)?);
        assert_eq!(held(&user.load_trust(), &chat, &fm).len(), 2);
        Ok(())
    }
}
