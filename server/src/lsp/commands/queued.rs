//! Queued messages in the editor: Send while the chat's members still answer marks the
//! message queued (`conversation::queue`) instead of starting turns beside them; when
//! the chat's last run ends, the queued message is delivered as the file has it then.
//! "Send now" delivers it at once, "Cancel" takes the mark out (the text stays).

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::{BeforeRun, failed, start};
use crate::conversation::queue;
use crate::conversation::roster::Roster;
use crate::conversation::routing::{self, Next};
use crate::lsp::port::LspPort;
use crate::lsp::state::{State, lock};
use crate::turns::runs::{Delivery, Runs};
use crate::turns::{Edited, EditorPort, TurnError};

/// The registry of what runs (`turns/runs`), which decides how a message is delivered.
fn runs(state: &Mutex<State>) -> Runs {
    lock(state).running.clone()
}

/// `chatmd.send`: starts the turns, or, while members answer in this chat, queues the
/// new message (`now`: sends it at once, beside them). Without a new message to queue
/// (Send again on the message being answered), it is Send as ever, refusals included.
pub(super) async fn send(
    client: &Client,
    state: &Arc<Mutex<State>>,
    uri: Uri,
    now: bool,
) -> Result<Value> {
    match runs(state).delivery(uri.as_str(), now) {
        Delivery::Start if now => {
            let before = Some(BeforeRun::Unqueue { required: false });
            return start(client, state, uri, None, before).await;
        }
        Delivery::Start => return start(client, state, uri, None, None).await,
        Delivery::Queue => {}
    }
    let mut port = LspPort::new(client.clone(), state.clone(), uri.clone(), None, None);
    let marked = mark_last(&mut port).await;
    drop(port);
    match marked {
        Ok(newly) => Ok(queued_now(state, uri, newly)),
        Err(TurnError::Queue(_)) => start(client, state, uri, None, None).await,
        Err(why) => Err(failed(why)),
    }
}

/// `chatmd.askAbout` while members answer in the chat: the message is appended and
/// queued like one the user wrote and sent then.
pub(super) async fn append_queued(
    client: &Client,
    state: &Arc<Mutex<State>>,
    uri: Uri,
    body: &str,
) -> Result<Value> {
    let mut port = LspPort::new(client.clone(), state.clone(), uri.clone(), None, None);
    let queued = match super::append(&mut port, body).await {
        Ok(()) => mark_last(&mut port).await,
        Err(why) => Err(why),
    };
    drop(port);
    let newly = queued.map_err(failed)?;
    Ok(queued_now(state, uri, newly))
}

/// Marks the chat's last message of the human queued (when it is not yet); true when
/// it marked it now.
async fn mark_last(port: &mut LspPort) -> std::result::Result<bool, TurnError> {
    let chat = port.snapshot().await?.chat;
    let team = port.team(&chat);
    let marked = port.edit_until_applied(20, |snapshot| {
        let (text, chat) = (&*snapshot.text, &*snapshot.chat);
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        let Some(index) = queue::to_queue(text, chat, &roster)? else {
            return Ok(None);
        };
        let (range, new) = queue::mark(text, chat, index);
        Ok::<_, TurnError>(Some((vec![(range, new)], ())))
    });
    match marked.await? {
        Edited::Applied(()) => Ok(true),
        Edited::Unneeded => Ok(false),
        Edited::GaveUp => Err(TurnError::KeptChanging { again: "send" }),
    }
}

/// The answer to a message just queued (`newly`: marked now, not before). The run it
/// waits for may have ended while it was being marked, after that run looked for a
/// queued message: asking for a delivery now sends it in that case (and does nothing
/// while a run still goes on).
fn queued_now(state: &Mutex<State>, uri: Uri, newly: bool) -> Value {
    if newly {
        steer(state, &uri);
    }
    after_last_run(state, uri);
    json!({ "members": [], "queued": true })
}

/// The queued message is offered to the running turns of the members it goes to:
/// whether one takes it now is the registry's to decide (`turns/runs/delivery.rs`).
fn steer(state: &Mutex<State>, uri: &Uri) {
    let Ok((snapshot, path)) = super::read(state, uri) else {
        return;
    };
    let (text, chat) = (&*snapshot.text, &*snapshot.chat);
    let team = crate::lsp::state::team_of(state, Some(&path), chat).team;
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let Some(index) = queue::queued(text, chat, &roster) else {
        return;
    };
    let Next::Run(members) = routing::after_human(text, chat, &roster, index) else {
        return;
    };
    runs(state).steer_queued(uri.as_str(), &members);
}

/// `chatmd.cancel {uri, queued: true}`: the queued message stays, as a draft.
pub(super) async fn cancel(client: &Client, state: &Arc<Mutex<State>>, uri: Uri) -> Result<Value> {
    let mut port = LspPort::new(client.clone(), state.clone(), uri, None, None);
    match unmark(&mut port).await {
        Ok(taken) => Ok(json!({ "unqueued": taken })),
        Err(why) => Err(failed(why)),
    }
}

/// Takes the queued mark out; false when no message is queued.
pub(super) async fn unmark(port: &mut LspPort) -> std::result::Result<bool, TurnError> {
    let chat = port.snapshot().await?.chat;
    let team = port.team(&chat);
    let taken = port.edit_until_applied(20, |snapshot| {
        let (text, chat) = (&*snapshot.text, &*snapshot.chat);
        let roster = Roster::new(&team, chat.front_matter.as_ref());
        let range = queue::queued(text, chat, &roster).and_then(|i| queue::unmark(text, chat, i));
        Ok::<_, TurnError>(range.map(|r| (vec![(r, String::new())], ())))
    });
    match taken.await? {
        Edited::Applied(()) => Ok(true),
        Edited::Unneeded => Ok(false),
        Edited::GaveUp => Err(TurnError::KeptChanging { again: "send" }),
    }
}

/// The chat's last run ended: its queued message, if any, is delivered (by the task of
/// [`serve_deliveries`]: a run cannot start the next run itself, as its task would then
/// contain itself).
pub(super) fn after_last_run(state: &Mutex<State>, uri: Uri) {
    if let Some(deliveries) = &lock(state).deliveries {
        let _ = deliveries.send(uri);
    }
}

/// Delivers the queued messages of the chats whose runs ended, for as long as the
/// server runs.
pub(crate) fn serve_deliveries(client: Client, state: Arc<Mutex<State>>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    lock(&state).deliveries = Some(tx);
    tokio::spawn(async move {
        while let Some(uri) = rx.recv().await {
            tokio::spawn(deliver(client.clone(), state.clone(), uri));
        }
    });
}

/// When no run goes on in the chat and a message is queued, delivers it.
async fn deliver(client: Client, state: Arc<Mutex<State>>, uri: Uri) {
    if !runs(&state).delivers_queued(uri.as_str()) {
        return;
    }
    match queued_at(&state, &uri) {
        None => {}
        Some(Queued { followed_by: None }) => {
            let before = Some(BeforeRun::Unqueue { required: true });
            if let Err(error) = start(&client, &state, uri, None, before).await {
                tracing::warn!("delivering a queued message failed: {}", error.message);
            }
        }
        // Answers were written after it (a run of Ask beside the round, say): sending it
        // now would answer them, not it. The user decides; the mark goes, the text stays.
        Some(Queued {
            followed_by: Some(member),
        }) => {
            let mut port = LspPort::new(client.clone(), state.clone(), uri, None, None);
            if unmark(&mut port).await.unwrap_or(false) {
                let why = format!(
                    "your queued message was not sent: @{member} answered after it. Move it to \
                     the end of the chat and Send it, or ask a member directly."
                );
                client.show_message(MessageType::WARNING, why).await;
            }
        }
    }
}

/// The chat's queued message, and the first agent whose section follows it.
struct Queued {
    followed_by: Option<String>,
}

fn queued_at(state: &Mutex<State>, uri: &Uri) -> Option<Queued> {
    let (snapshot, path) = super::read(state, uri).ok()?;
    let (text, chat) = (&*snapshot.text, &*snapshot.chat);
    let team = crate::lsp::state::team_of(state, Some(&path), chat).team;
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    let index = queue::queued(text, chat, &roster)?;
    let followed_by = chat.messages[index + 1..]
        .iter()
        .map(|m| m.handle(text))
        .find(|h| roster.is_ai(h))
        .map(str::to_owned);
    Some(Queued { followed_by })
}
