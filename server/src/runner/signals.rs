//! The signals that end `chatmd send` and `chatmd lsp` cleanly: SIGINT (Ctrl-C),
//! SIGTERM (`timeout`, `kill`, a CI cancel, an editor stopping its server) and SIGHUP
//! (a closed terminal). Each cancels the running turns, lets them write `cancelled`
//! into the chat, and ends the process with the shell's code for the signal: 128 + its
//! number (130, 143, 129).

use std::process::ExitCode;

use nix::sys::signal::Signal;
use tokio::signal::unix::{SignalKind, signal};

/// The three signals, listened to from [`Signals::listen`] on: from then on they no
/// longer end the process by themselves.
pub(crate) struct Signals {
    listeners: Vec<(Signal, tokio::signal::unix::Signal)>,
}

impl Signals {
    /// Starts listening. Must run inside a tokio runtime.
    pub(crate) fn listen() -> std::io::Result<Signals> {
        let mut listeners = Vec::new();
        for (name, kind) in [
            (Signal::SIGINT, SignalKind::interrupt()),
            (Signal::SIGTERM, SignalKind::terminate()),
            (Signal::SIGHUP, SignalKind::hangup()),
        ] {
            listeners.push((name, signal(kind)?));
        }
        Ok(Signals { listeners })
    }

    /// The next of the three signals to arrive.
    pub(crate) async fn recv(&mut self) -> Signal {
        std::future::poll_fn(|cx| {
            for (name, listener) in &mut self.listeners {
                if listener.poll_recv(cx).is_ready() {
                    return std::task::Poll::Ready(*name);
                }
            }
            std::task::Poll::Pending
        })
        .await
    }
}

/// The exit code after `signal`: 128 + its number, as a shell reports a process the
/// signal ended.
pub(crate) fn exit_code(signal: Signal) -> ExitCode {
    ExitCode::from(code(signal))
}

fn code(signal: Signal) -> u8 {
    u8::try_from(128 + signal as i32).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_shell() {
        assert_eq!(code(Signal::SIGINT), 130);
        assert_eq!(code(Signal::SIGTERM), 143);
        assert_eq!(code(Signal::SIGHUP), 129);
    }
}
