//! How a new message reaches a chat where turns may be running: its run starts at
//! once, or it is queued until the chat's last run ends (then delivered as the file has
//! it), and a message queued for one running member is steered into that member's
//! turn. Decided here only; the front ends edit the text (the queued mark) as told.

use super::Runs;

/// What a Send does in a chat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// Its turns start now (beside any that run: Send now).
    Start,
    /// Members answer there: the message is marked queued and waits for their run.
    Queue,
}

impl Runs {
    /// How a Send in `document` goes: at once when asked to (`now`) or when nobody
    /// answers there, else queued.
    pub fn delivery(&self, document: &str, now: bool) -> Delivery {
        if now || !self.answering_in(document) {
            Delivery::Start
        } else {
            Delivery::Queue
        }
    }

    /// The message just queued in `document` goes to `members`: when that is one
    /// member whose turn runs there, the turn is asked to take it now (`turns::steer`:
    /// where the member's ACP agent advertises steering). A message for several
    /// members waits for the round's end as ever: steered to one, it would skip the
    /// others. Whether a turn was asked.
    pub fn steer_queued(&self, document: &str, members: &[String]) -> bool {
        match members {
            [member] => self.steer(document, member),
            _ => false,
        }
    }

    /// Whether the queued message of `document` is delivered now: no run goes on
    /// there (the last one to end delivers it).
    pub fn delivers_queued(&self, document: &str) -> bool {
        !self.runs_in(document)
    }
}
