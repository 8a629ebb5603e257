//! `$/progress` for every turn (title `@member`, elapsed time and size, the CLI's
//! retries as they happen, cancellable) and the `chatmd/turnsChanged` notification,
//! sent in order by one task per run.
//! When the run ends without ending a progress (an error, a panic), the task ends
//! it: the editor never keeps a spinner for a turn that is gone.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::notification::Progress;
use tower_lsp_server::ls_types::*;

use super::ext;
use super::state::{State, lock};
use crate::document::status::TurnStatus;
use crate::document::units;
use crate::turns::runs::Runs;

/// At most one progress report per turn this often.
const REPORT_EVERY: Duration = Duration::from_millis(500);
/// How long the editor may take to accept a progress token.
const CREATE_WAIT: Duration = Duration::from_secs(5);

/// The progress message while the agent waits for the user's answer to a permission request.
pub const WAITS: &str = "waits for your answer";

static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

pub enum ProgressEvent {
    Begin {
        document: String,
        member: String,
    },
    Streamed {
        member: String,
        bytes: usize,
        elapsed: Duration,
    },
    /// The member's CLI retries (`retrying (3/10): 529 Overloaded`): shown at once.
    Retry {
        member: String,
        message: String,
    },
    /// The agent waits for the user's answer to a permission request, or no longer does.
    Waiting {
        member: String,
        waits: bool,
    },
    End {
        member: String,
        status: TurnStatus,
        elapsed: Option<Duration>,
        error: Option<String>,
    },
}

/// Where a port sends its turns' progress.
#[derive(Clone)]
pub struct Outbox(mpsc::UnboundedSender<ProgressEvent>);

impl Outbox {
    pub fn send(&self, event: ProgressEvent) {
        let _ = self.0.send(event);
    }
}

struct Open {
    token: ProgressToken,
    last_report: Instant,
}

/// Starts the task that sends one run's progress; it ends when every sender is gone.
pub fn start(client: Client, state: Arc<Mutex<State>>) -> Outbox {
    let (tx, mut rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let (supported, running) = {
            let s = lock(&state);
            (s.client_flags.work_done_progress, s.running.clone())
        };
        let mut open: HashMap<String, Open> = HashMap::new();
        while let Some(event) = rx.recv().await {
            match event {
                ProgressEvent::Begin { document, member } => {
                    if supported && let Some(token) = begin(&client, &member).await {
                        if let ProgressToken::String(s) = &token {
                            running.set_progress(&document, &member, s);
                        }
                        open.insert(
                            member,
                            Open {
                                token,
                                last_report: Instant::now(),
                            },
                        );
                    }
                    changed(&client, &running).await;
                }
                ProgressEvent::Streamed {
                    member,
                    bytes,
                    elapsed,
                } => {
                    if let Some(o) = open.get_mut(&member)
                        && o.last_report.elapsed() >= REPORT_EVERY
                    {
                        o.last_report = Instant::now();
                        let message = format!("{} · {}", units::took(elapsed), units::size(bytes));
                        report_message(&client, &o.token, message).await;
                    }
                }
                ProgressEvent::Retry { member, message } => {
                    if let Some(o) = open.get_mut(&member) {
                        o.last_report = Instant::now();
                        report_message(&client, &o.token, message).await;
                    }
                }
                ProgressEvent::Waiting { member, waits } => {
                    if let Some(o) = open.get_mut(&member) {
                        o.last_report = Instant::now();
                        // Shown after the title `@member`: "@acpy waits for your answer".
                        let message = if waits { WAITS } else { "answered" };
                        report_message(&client, &o.token, message.to_string()).await;
                    }
                    changed(&client, &running).await;
                }
                ProgressEvent::End {
                    member,
                    status,
                    elapsed,
                    error,
                } => {
                    if let Some(o) = open.remove(&member) {
                        let took = elapsed.map(units::took).unwrap_or_default();
                        let message = match (status, error) {
                            (TurnStatus::Error, Some(error)) => format!("error: {error}"),
                            (status, _) => format!("{status} {took}").trim_end().to_string(),
                        };
                        end(&client, o.token, message).await;
                    }
                    changed(&client, &running).await;
                }
            }
        }
        for (_, o) in open {
            end(&client, o.token, "stopped".into()).await;
        }
    });
    Outbox(tx)
}

async fn begin(client: &Client, member: &str) -> Option<ProgressToken> {
    let n = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
    let token = ProgressToken::String(ext::progress_token(n, member));
    match tokio::time::timeout(CREATE_WAIT, client.create_work_done_progress(token.clone())).await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => {
            tracing::debug!(%error, "the editor refused a progress token");
            return None;
        }
        Err(_) => return None,
    }
    let begin = WorkDoneProgress::Begin(WorkDoneProgressBegin {
        title: format!("@{member}"),
        cancellable: Some(true),
        message: Some("starting".into()),
        percentage: None,
    });
    report(client, &token, begin).await;
    Some(token)
}

async fn report(client: &Client, token: &ProgressToken, value: WorkDoneProgress) {
    client
        .send_notification::<Progress>(ProgressParams {
            token: token.clone(),
            value: ProgressParamsValue::WorkDone(value),
        })
        .await;
}

/// A report of a running turn: a new message, and the turn still cancellable.
async fn report_message(client: &Client, token: &ProgressToken, message: String) {
    let value = WorkDoneProgress::Report(WorkDoneProgressReport {
        cancellable: Some(true),
        message: Some(message),
        percentage: None,
    });
    report(client, token, value).await;
}

async fn end(client: &Client, token: ProgressToken, message: String) {
    let value = WorkDoneProgress::End(WorkDoneProgressEnd {
        message: Some(message),
    });
    report(client, &token, value).await;
}

async fn changed(client: &Client, running: &Runs) {
    client
        .send_notification::<ext::TurnsChanged>(ext::RunningTurns::of(running))
        .await;
}
