//! How trust is said to the user: key lists and the command that trusts a file.

use std::path::Path;

use super::TrustKey;

/// `` `env` and `args` `` from keys.
pub fn key_list(keys: &[TrustKey]) -> String {
    let names: Vec<String> = keys.iter().map(|k| format!("`{}`", k.name())).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The shell command that trusts `file`.
pub fn trust_command(file: &Path) -> String {
    format!("chatmd trust {}", shell_word(&file.display().to_string()))
}

/// `text` as one shell word: quoted when it holds anything but plain path characters.
pub fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:@,%".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}
