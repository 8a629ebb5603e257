//! The line that opens a prompt's `[CONTEXT]`: who the member is, who else takes part
//! and how to hand over.

use crate::conversation::roster::Roster;
use crate::team::Member;

/// One line telling the member who it is, who else takes part and how to hand over;
/// where members answer `apart` (compare, council), only that others answer the same
/// message on their own: their names are not given, nor a way to hand over.
pub(super) fn roster_line(roster: &Roster, member: &Member, apart: bool) -> String {
    if apart {
        return format!(
            "You are @{} in a team chat with @{} (human). Other members answer the same message on their own; you do not see their answers.",
            member.handle, roster.human
        );
    }
    let others: Vec<&Member> = roster
        .members
        .iter()
        .copied()
        .filter(|m| !m.handle.eq_ignore_ascii_case(&member.handle))
        .collect();
    let mut names = vec![format!("@{} (human)", roster.human)];
    names.extend(
        others
            .iter()
            .map(|m| format!("@{} ({})", m.handle, m.agent)),
    );
    let mut line = format!(
        "You are @{} in a team chat with {}.",
        member.handle,
        names.join(", ")
    );
    if let Some(next) = others.first() {
        let h = &next.handle;
        line.push_str(&format!(
            " Mention a member (@{h}) or end with [NEXT: {h}] to hand over."
        ));
    }
    line
}
