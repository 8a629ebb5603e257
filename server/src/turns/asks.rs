//! Permission requests of running turns. When an agent asks before it acts, its turn
//! writes a permission block into the member's section (`status=waiting`), tells the
//! port (which may answer it itself: a terminal prompt, a policy; or let the user answer
//! from the document: `chatmd.answer`), and waits. An answer goes back to the agent's
//! session as [`SessionCommand::Answer`] and is recorded over the block. A turn that ends
//! with requests still open records them as not answered.
//!
//! A block's id is the turn's id and the request's number (`t3-p1`): unique in the
//! file, so the user's answer finds its turn without knowing the agent's own ids.

use tokio::sync::{mpsc, oneshot};

use super::flow::Kind;
use super::live::Live;
use super::placed::OnEdit;
use crate::agents::{
    AskedPlan, PermissionKind, PermissionOption, PermissionOutcome, PermissionRequest,
    SessionCommand,
};
use crate::document::front_matter::rules::{Decision, Pattern};
use crate::document::permission;
use crate::document::status::TurnStatus;

/// An answer to a permission block, from whoever gave it.
#[derive(Debug)]
pub struct PermissionAnswer {
    /// The block's id in the document (`t3-p1`).
    pub block: String,
    /// The option chosen: the agent's id of it, its kind (`allow_once`), or its name
    /// as the block shows it (any case).
    pub option: String,
    /// Who answered, when it was not the user in the document (`policy`, `terminal`).
    pub by: Option<String>,
    /// Told how it went: the record written over the block, or why it was not taken.
    pub reply: Option<oneshot::Sender<Result<String, AnswerError>>>,
}

/// Where the answers to a round's permission requests go.
pub type Answers = mpsc::Sender<PermissionAnswer>;

/// Why an answer was not taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error(
        "permission request `{block}` is not waiting for an answer: it was answered, \
         or the turn that asked has ended"
    )]
    NotWaiting { block: String },
    #[error(
        "`{option}` is not an option of permission request `{block}`; its options are {}",
        options.join(", ")
    )]
    NoSuchOption {
        block: String,
        option: String,
        options: Vec<String>,
    },
}

/// A request a turn asked, as the port hears of it.
#[derive(Clone, Copy, Debug)]
pub struct Asked<'a> {
    pub member: &'a str,
    /// The block's id in the document.
    pub block: &'a str,
    pub request: &'a PermissionRequest,
}

/// One permission request of a turn.
#[derive(Debug)]
pub(super) struct Ask {
    pub(super) block: String,
    pub(super) request: PermissionRequest,
    /// What is written over the block once it is answered (`allowed once ("Allow")`).
    pub(super) record: Option<String>,
}

impl Live {
    /// The agent asks permission: the block goes into the section after what the agent
    /// wrote so far (a code fence it left open is closed first), and the turn waits.
    /// Returns the block's id.
    pub(super) fn ask(&mut self, request: PermissionRequest) -> String {
        let t = self;
        let block = format!("{}-p{}", t.status.id().unwrap_or("t"), t.asks.len() + 1);
        // After the line that ends the words, and a blank line.
        t.open_block(Kind::Permission);
        let labels: Vec<String> = request.options.iter().map(|o| label(&o.name)).collect();
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        // A question's summary says what it asks (`asks (Color): Which color?`).
        let what = match request.is_question() {
            true => format!("{} {}", t.member, request.summary),
            false => format!("{} wants to {}", t.member, request.summary),
        };
        let text = permission::render_request(&block, &what, &labels, "\n");
        // A plan to approve goes in the block, under its question (and stays under
        // its record).
        let text = match &request.plan {
            Some(plan) => text + &plan_lines(plan),
            None => text,
        };
        t.add_block(&block, &text, OnEdit::Rewrite);
        // A blank line: the agent's next words are not a lazy part of the quote.
        t.pending.push_str("\n\n");
        t.tail_after = 2;
        t.asks.push(Ask {
            block: block.clone(),
            request,
            record: None,
        });
        t.status.set_status(TurnStatus::Waiting);
        t.status_dirty = true;
        block
    }

    /// Whether this turn asked `block` and waits for its answer.
    pub(super) fn waits_for(&self, block: &str) -> bool {
        self.asks
            .iter()
            .any(|a| a.block == block && a.record.is_none())
    }

    /// Takes an answer to one of this turn's open requests: the command for the
    /// agent's session, the record now due over the block, and the rule an "always"
    /// answer makes. `allow_always` or `reject_always` is taken even where the agent
    /// offers no option of that kind: chatmd remembers it, and the agent gets the
    /// same answer once.
    pub(super) fn answer(
        &mut self,
        block: &str,
        option: &str,
        by: Option<&str>,
    ) -> Result<Answered, AnswerError> {
        let not_waiting = || AnswerError::NotWaiting {
            block: block.to_string(),
        };
        let ask = self
            .asks
            .iter_mut()
            .find(|a| a.block == block)
            .filter(|a| a.record.is_none())
            .ok_or_else(not_waiting)?;
        let options = &ask.request.options;
        let (chosen, kind) = options
            .iter()
            .find(|o| o.id == option || o.name == option)
            .or_else(|| options.iter().find(|o| o.kind.as_str() == option))
            .or_else(|| {
                options
                    .iter()
                    .find(|o| label(&o.name).eq_ignore_ascii_case(option.trim()))
            })
            .map(|o| (o.clone(), o.kind))
            // A question makes no rule: "always" answers nothing there.
            .or_else(|| {
                (!ask.request.is_question())
                    .then(|| always_without_option(options, option))
                    .flatten()
            })
            .ok_or_else(|| AnswerError::NoSuchOption {
                block: block.to_string(),
                option: option.to_string(),
                options: options.iter().map(|o| label(&o.name)).collect(),
            })?;
        let decision = match kind {
            PermissionKind::AllowAlways => Some(Decision::Allow),
            PermissionKind::RejectAlways => Some(Decision::Reject),
            PermissionKind::AllowOnce | PermissionKind::RejectOnce | PermissionKind::Answer => None,
        };
        let rule = decision.map(|d| (Pattern::exact(&ask.request.kind, &ask.request.title), d));
        let record = record_answer(ask, &chosen, kind, by);
        let command = SessionCommand::Answer {
            request: ask.request.id.clone(),
            outcome: PermissionOutcome::Selected(chosen.id.clone()),
        };
        self.show_answer(block);
        self.settle_status();
        Ok(Answered {
            command,
            record,
            rule,
        })
    }

    /// The turn ended: the requests still open are recorded as never answered.
    pub(super) fn close_asks(&mut self) {
        let open: Vec<String> = self
            .asks
            .iter_mut()
            .filter(|a| a.record.is_none())
            .map(|ask| {
                ask.record = Some("not answered: the turn ended first".into());
                ask.block.clone()
            })
            .collect();
        for block in open {
            self.show_answer(&block);
        }
    }

    /// Rewrites `block` with its request's record (and the plan it approved, if any).
    pub(super) fn show_answer(&mut self, block: &str) {
        let Some(ask) = self.asks.iter().find(|a| a.block == block) else {
            return;
        };
        let mut text = permission::render_answer(block, ask.record.as_deref().unwrap_or(""));
        if let Some(plan) = &ask.request.plan {
            text.push_str(&plan_lines(plan));
        }
        self.blocks.update(block, text);
    }

    /// Back to `streaming` once no request waits (a turn that ended keeps its end).
    pub(super) fn settle_status(&mut self) {
        if !self.done
            && self.status.status() == Some(TurnStatus::Waiting)
            && self.asks.iter().all(|a| a.record.is_some())
        {
            self.status.set_status(TurnStatus::Streaming);
            self.status_dirty = true;
        }
    }
}

/// An answer taken: what goes to the agent, the record over the block, and the rule
/// (pattern, decision) an "always" answer makes.
#[derive(Debug)]
pub(super) struct Answered {
    pub(super) command: SessionCommand,
    pub(super) record: String,
    pub(super) rule: Option<(String, Decision)>,
}

/// `allow_always` / `reject_always` asked where the agent has no option of that kind:
/// its once option of the same decision, taken as the "always" answer.
fn always_without_option(
    options: &[PermissionOption],
    option: &str,
) -> Option<(PermissionOption, PermissionKind)> {
    let (kind, once) = match PermissionKind::parse(option.trim())? {
        PermissionKind::AllowAlways => (PermissionKind::AllowAlways, PermissionKind::AllowOnce),
        PermissionKind::RejectAlways => (PermissionKind::RejectAlways, PermissionKind::RejectOnce),
        _ => return None,
    };
    options
        .iter()
        .find(|o| o.kind == once)
        .map(|o| (o.clone(), kind))
}

/// Records `chosen` (answered as `kind`) on `ask`: `allowed once ("Allow"), by policy`.
pub(super) fn record_answer(
    ask: &mut Ask,
    chosen: &PermissionOption,
    kind: PermissionKind,
    by: Option<&str>,
) -> String {
    let mut record = format!("{} (\"{}\")", answered(kind), label(&chosen.name));
    if let Some(by) = by {
        record.push_str(", by ");
        record.push_str(by);
    }
    ask.record = Some(record.clone());
    record
}

/// The plan of a plan approval, as the lines after its block: quoted, a list as a
/// checklist. Control characters are left out (the text is the agent's).
fn plan_lines(plan: &AskedPlan) -> String {
    let clean = |line: &str| -> String {
        line.chars()
            .filter(|c| *c == '\t' || !c.is_control())
            .collect::<String>()
            .trim_end()
            .to_string()
    };
    let mut out = String::from("\n>\n> The plan:\n>");
    let lines: Vec<String> = match plan {
        AskedPlan::Steps(steps) => steps
            .iter()
            .map(|step| format!("- [ ] {}", clean(&step.replace(['\r', '\n'], " "))))
            .collect(),
        AskedPlan::Text(text) => text.lines().map(clean).collect(),
    };
    for line in lines {
        out.push('\n');
        if line.is_empty() {
            out.push('>');
        } else {
            // A plan's line is the agent's words: never the start of another block.
            out.push_str(&permission::escape_line(&format!("> {line}")));
        }
    }
    out
}

/// An option's name as one line of a block (`·` separates options there).
fn label(name: &str) -> String {
    let one_line: String = name
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    one_line.replace(" · ", " - ").trim().to_string()
}

/// `allowed once`, `rejected always`: what an answer of `kind` did.
fn answered(kind: PermissionKind) -> &'static str {
    match kind {
        PermissionKind::AllowOnce => "allowed once",
        PermissionKind::AllowAlways => "allowed always",
        PermissionKind::RejectOnce => "rejected",
        PermissionKind::RejectAlways => "rejected always",
        PermissionKind::Answer => "answered",
    }
}

/// Gives an answer to the turn that waits for it (its agent hears it at once) and
/// tells the answerer how it went. Returns the rule an "always" answer makes: the
/// member, the pattern and the decision.
pub(super) async fn take_answer(
    live: &mut [Live],
    answer: PermissionAnswer,
) -> Option<(String, String, Decision)> {
    let PermissionAnswer {
        block,
        option,
        by,
        reply,
    } = answer;
    let mut learned = None;
    let result = match live.iter_mut().find(|t| t.waits_for(&block)) {
        None => Err(super::AnswerError::NotWaiting { block }),
        Some(t) => match t.answer(&block, &option, by.as_deref()) {
            Ok(answered) => {
                if let Some(commands) = &t.commands {
                    // A session that ended meanwhile has no one to hear it; the turn's
                    // end then records how it went.
                    let _ = commands.send(answered.command).await;
                }
                learned = answered
                    .rule
                    .map(|(rule, decision)| (t.member.clone(), rule, decision));
                Ok(answered.record)
            }
            Err(error) => Err(error),
        },
    };
    if let Some(reply) = reply {
        let _ = reply.send(result);
    }
    learned
}
