//! Steering the chat's queued message into a member's running turn (ACP
//! `_session/steering`, where the member's agent advertises it). The editor asks (the
//! user queued a message for a member that is answering, `lsp::commands::queued`); the
//! round sends the message, as it reads at that moment, to the turn's session as
//! [`SessionCommand::Input`]. When the agent takes it (`injected`), the file is made to
//! read in the order things happened: the member's section ends (`status=steered`), the
//! message is no longer queued (it was delivered: it is never sent again), and what the
//! member says from then on streams into a new section of its own after the message.
//! Any other answer leaves the message queued, delivered when the round ends as ever.

use super::anchors::{Anchors, Places};
use super::flush::{MAX_STALE, flush};
use super::live::Live;
use super::owner::Owner;
use super::{Edited, EditorPort, PortError};
use crate::agents::SessionCommand;
use crate::conversation::prompt::cleaned_text;
use crate::conversation::queue;
use crate::conversation::roster::Roster;
use crate::conversation::section;
use crate::conversation::seen::{SEEN_KEY, SeenRecord, message_hash};
use crate::document::status::TurnStatus;

/// The status comment keys the new section keeps from the one it continues.
const KEPT: [&str; 5] = ["session", "model", "mode", "resume", "held"];

/// Takes in what changed in the document since the last look (a snapshot would drop it).
async fn take_changes<P: EditorPort>(port: &mut P, anchors: &mut Anchors) -> Result<(), PortError> {
    for change in port.changes().await? {
        anchors.apply(&change);
    }
    Ok(())
}

/// The user queued a message for `member`, whose turn runs: the message, as it reads
/// now, goes to the turn's session. Nothing happens when the turn cannot take it now
/// (it has ended, waits for a permission answer, or has one steered message pending):
/// the message stays queued.
pub(super) async fn request<P: EditorPort>(
    port: &mut P,
    live: &mut [Live],
    anchors: &mut Anchors,
    roster: &Roster<'_>,
    member: &str,
) -> Result<(), PortError> {
    let Some(t) = live.iter_mut().find(|t| t.member == member) else {
        return Ok(());
    };
    if t.done || t.steering || t.asks.iter().any(|a| a.record.is_none()) {
        return Ok(());
    }
    let Some(commands) = t.commands.clone() else {
        return Ok(());
    };
    take_changes(port, anchors).await?;
    let snapshot = port.snapshot().await?;
    let (text, chat) = (&*snapshot.text, &*snapshot.chat);
    let Some(index) = queue::queued(text, chat, roster) else {
        return Ok(());
    };
    let message = &chat.messages[index];
    let body = cleaned_text(text, message);
    if body.trim().is_empty() {
        return Ok(());
    }
    t.steering = true;
    let input = format!("{}: {body}", message.handle(text));
    if commands.send(SessionCommand::Input(input)).await.is_err() {
        t.steering = false;
    }
    Ok(())
}

/// The agent's answer to the steered message of turn `i`: when it took it, the turn
/// moves to a new section after the message; else the message stays queued.
pub(super) async fn answered<P: EditorPort>(
    port: &mut P,
    live: &mut [Live],
    anchors: &mut Anchors,
    roster: &Roster<'_>,
    (i, injected): (usize, bool),
) -> Result<(), PortError> {
    live[i].steering = false;
    if !injected || live[i].done {
        return Ok(());
    }
    take_changes(port, anchors).await?;
    let after = port
        .current_text()
        .and_then(|text| text.get(anchors.get(i).end..))
        .map_or(0, breaks_at_start);
    live[i].end_steered(after);
    flush(port, live, anchors).await?;
    take_changes(port, anchors).await?;
    let t = &live[i];
    let moved = port.edit_until_applied(MAX_STALE, |snapshot| {
        let (text, chat) = (&*snapshot.text, &*snapshot.chat);
        let queued = queue::queued(text, chat, roster);
        let mut status = section::queued(
            &format!("t{}", section::next_turn_number(text, chat)),
            &t.agent,
        );
        Owner::this().stamp(&mut status);
        for key in KEPT {
            if let Some(value) = t.status.get(key) {
                status.set(key, value.to_owned());
            }
        }
        if let Some(index) = queued {
            // The session goes on, and now holds the message too.
            let record = SeenRecord {
                resumed: true,
                first: index,
                hashes: vec![message_hash(text, &chat.messages[index])],
            };
            status.set(SEEN_KEY, record.render());
        }
        let eol = section::line_break(text);
        let (piece, status_range, body) = section::section_after(text, eol, &t.member, &status);
        let places = Places {
            status: status_range,
            body_start: body,
            end: body,
        };
        let mut edits = Vec::new();
        // The message was delivered: no longer queued (a message the user deleted
        // meanwhile was delivered all the same; the section still follows).
        if let Some(range) = queued.and_then(|index| queue::unmark(text, chat, index)) {
            edits.push((range, String::new()));
        }
        edits.push((text.len()..text.len(), piece));
        Ok::<_, PortError>(Some((edits, (status, places))))
    });
    let (status, places) = match moved.await? {
        Edited::Applied(moved) => moved,
        Edited::Unneeded | Edited::GaveUp => return Err(super::flush::gave_up()),
    };
    // The section landed where our last edit (listed first) came back; the changes
    // after it move it on, and every change moves the other turns' places.
    let changes = port.changes().await?;
    let new = Anchors::landed(&changes, &[places], |change| anchors.apply(change))
        .ok_or(PortError::NotReported)?;
    anchors.replace(i, new.get(0).clone());
    let t = &mut live[i];
    let who = (t.agent.clone(), t.args.clone(), t.thoughts);
    let mut next = Live::of(t.member.clone(), who, status, t.eol);
    next.commands = t.commands.take();
    next.start(None);
    *t = next;
    Ok(())
}

/// How many line breaks `text` starts with, up to two (`\r\n` is one).
fn breaks_at_start(text: &str) -> usize {
    let mut rest = text;
    let mut breaks = 0;
    while breaks < 2 {
        let Some(after) = ["\r\n", "\n", "\r"]
            .iter()
            .find_map(|eol| rest.strip_prefix(eol))
        else {
            break;
        };
        rest = after;
        breaks += 1;
    }
    breaks
}

impl Live {
    /// The turn's section ends here: its text so far, `status=steered`, and a line
    /// break unless the text after the section (`after` line breaks) already leaves
    /// a blank line before the next heading (an editor that keeps a final line break
    /// put one there).
    fn end_steered(&mut self, after: usize) {
        self.close_thoughts();
        if !self.text_ends() && after < 2 {
            self.pending.push('\n');
        }
        self.finish(TurnStatus::Steered);
    }
}
