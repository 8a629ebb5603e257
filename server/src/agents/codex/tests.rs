//! Tests of the codex adapter's text helpers: TOML strings, reconnect notices, shell
//! wrappers.

use super::items::shell_command;
use super::parser::reconnect;
use crate::agents::Retry;
use crate::document::quoted::toml_string;
use pretty_assertions::assert_eq;

#[test]
fn toml_strings_read_back_as_the_same_text() {
    let texts = [
        "plain",
        "two\nlines\r\n\ttabbed",
        "quotes \" and \\ backslashes \\\" and ''' triple",
        "controls \u{0}\u{1b}[0m\u{7f}\u{85} and unicode é 世界 🦀",
        "",
    ];
    for text in texts {
        let document = format!("developer_instructions = {}", toml_string(text));
        let table: toml::Table = toml::from_str(&document).expect(&document);
        assert_eq!(table["developer_instructions"].as_str(), Some(text));
    }
}

#[test]
fn reconnect_notices_are_retries() {
    // agent-clis.md §2.3 and the reconnect transcript, verbatim.
    assert_eq!(
        reconnect("Reconnecting... 2/5 (stream disconnected before completion: failed to lookup address information: Name does not resolve)"),
        Some(Retry {
            attempt: Some(2),
            max: Some(5),
            reason: "stream disconnected before completion: failed to lookup address information: Name does not resolve".into(),
        })
    );
    assert_eq!(
        reconnect("Reconnecting... waiting for network (Connection failed: error sending request)"),
        Some(Retry {
            attempt: None,
            max: None,
            reason: "waiting for network (Connection failed: error sending request)".into(),
        })
    );
    assert_eq!(
        reconnect("Falling back from WebSockets to HTTPS transport."),
        None
    );
}

#[test]
fn shell_wrappers_are_unwrapped() {
    assert_eq!(
        shell_command("/bin/bash -lc 'echo hello-from-tool'"),
        "echo hello-from-tool"
    );
    assert_eq!(shell_command("bash -lc \"a 'b'\""), "\"a 'b'\"");
    assert_eq!(shell_command("/bin/bash -lc 'it'\\''s'"), "'it'\\''s'");
    assert_eq!(shell_command("ls -la"), "ls -la");
}
