//! The roster of one chat: the team's members in the chat's order, filtered by the
//! front matter's `members:`, and the human's handle.

use std::sync::Arc;

use crate::document::front_matter::FrontMatter;
use crate::team::{Member, Team};

/// Who takes part in a chat.
pub struct Roster<'t> {
    pub team: &'t Team,
    /// The members taking part, in the chat's order.
    pub members: Vec<&'t Member>,
    /// The human's handle.
    pub human: String,
    /// Each team member's handle, in the team's order, shared by the checks that name
    /// it (a long chat names a member at every heading and mention).
    shared_handles: Vec<Arc<str>>,
}

impl<'t> Roster<'t> {
    pub fn new(team: &'t Team, front_matter: Option<&FrontMatter>) -> Roster<'t> {
        let human = front_matter
            .and_then(|fm| fm.human.as_ref().map(|h| h.value.clone()))
            .unwrap_or_else(|| team.human.clone());
        let members = match front_matter.and_then(|fm| fm.members.as_ref()) {
            Some(listed) => listed
                .iter()
                .filter_map(|h| team.member(&h.value))
                .collect(),
            None => team.members.iter().collect(),
        };
        Roster {
            team,
            members,
            human,
            shared_handles: team
                .members
                .iter()
                .map(|m| m.handle.as_str().into())
                .collect(),
        }
    }

    /// Whether `handle` is the human.
    pub fn is_human(&self, handle: &str) -> bool {
        handle.eq_ignore_ascii_case(&self.human)
    }

    /// The team member with this handle (taking part in the chat or not).
    pub fn member(&self, handle: &str) -> Option<&'t Member> {
        self.team.member(handle)
    }

    /// The handle of `member` (one of the team's), one allocation for all who ask.
    pub fn shared_handle(&self, member: &Member) -> Arc<str> {
        let at = self
            .team
            .members
            .iter()
            .position(|m| std::ptr::eq(m, member));
        match at {
            Some(at) => self.shared_handles[at].clone(),
            None => member.handle.as_str().into(),
        }
    }

    /// Whether `handle` names an AI member of the team.
    pub fn is_ai(&self, handle: &str) -> bool {
        !self.is_human(handle) && self.member(handle).is_some()
    }

    /// Whether the member takes part in this chat.
    pub fn takes_part(&self, handle: &str) -> bool {
        self.members
            .iter()
            .any(|m| m.handle.eq_ignore_ascii_case(handle))
    }
}
