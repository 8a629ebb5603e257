//! `MOCK-MODE=writefile`: an edit through the client, in the order claude-agent-acp
//! 0.101 makes one when the client offers `fs.readTextFile` and `fs.writeTextFile`:
//! the file's text is read with `fs/read_text_file`, then the whole new text goes in
//! `fs/write_text_file` (`{sessionId, path, content}`, answered `{}` or an error).

use regex::Regex;
use serde_json::Value;

use super::json::obj;
use super::turn::{Step, Turn};

/// Writes the file the message names and says how it went.
pub(super) fn write_file(t: &mut Turn<'_>) -> Step<String> {
    let path = match path_after(t.message_text(), "WRITE-ABS") {
        Some(absolute) => absolute,
        None => {
            let name = path_after(t.message_text(), "WRITE").unwrap_or_else(|| "notes.txt".into());
            t.cwd().join(name).display().to_string()
        }
    };
    if !(t.agent.client_reads_files && t.agent.client_writes_files) {
        eprintln!(
            "fake-agent: MOCK-MODE=writefile, but the client does not offer fs reads and writes"
        );
    }
    let read = t.ask(
        "fs/read_text_file",
        obj! { "sessionId": t.sid.clone(), "path": path.clone() },
    )?;
    let content = match read["result"]["content"].as_str() {
        Some(text) => upper_first_line(text),
        None => "created by the fake agent\n".to_owned(),
    };
    let params = obj! { "sessionId": t.sid.clone(), "path": path.clone(), "content": content };
    let wrote = t.ask("fs/write_text_file", params)?;
    Ok(match wrote.get("error") {
        Some(error) => error_words(error),
        None => format!("wrote {path}"),
    })
}

fn error_words(error: &Value) -> String {
    format!(
        "error {}: {}",
        error["code"],
        error["message"].as_str().unwrap_or_default()
    )
}

/// The path after `key=` in the message (`/` allowed, `..` not).
fn path_after(message: &str, key: &str) -> Option<String> {
    let re = Regex::new(&format!(r"(?:^|\s){key}=([A-Za-z0-9._/-]+)")).expect("valid regex");
    re.captures_iter(message)
        .map(|c| c[1].to_string())
        .find(|p| !p.split('/').any(|part| part == ".."))
}

fn upper_first_line(text: &str) -> String {
    let end = text.find('\n').unwrap_or(text.len());
    format!("{}{}", text[..end].to_uppercase(), &text[end..])
}
