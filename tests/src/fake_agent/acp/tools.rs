//! `MOCK-MODE=toolwrite` / `toolwrite2`: the model runs `touch <file>` (once or twice),
//! and each agent asks the client its own way (`recorded/acp/*-tool-*.jsonl`):
//!
//! - gemini sends no `tool_call` before `session/request_permission`; after an allow,
//!   one `tool_call_update` completed; after a reject, nothing; the answer follows.
//! - claude: `tool_call` (pending, "Terminal") → `tool_call_update` (the command) →
//!   request → `usage_update` → the tool's response and completion, or a failed update.
//! - codex asks only in modes `read-only`/`workspace-write`: thread status
//!   `waitingOnApproval` → `tool_call` in progress → request; a reject ends the turn
//!   `cancelled` with no answer.
//!
//! An allowed `touch` creates the file in the session's folder. "Always" answers are
//! remembered where the real agents keep them: gemini for the session only, claude in
//! `<cwd>/.claude/settings.local.json`, codex in `$CODEX_HOME/rules/default.rules`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::cli::Cli;
use super::answer;
use super::ids;
use super::json::{J, obj};
use super::permission::{Choice, choice, options, options_json, touch};
use super::store::state_dir;
use super::turn::{End, Step, Turn, names_after};

/// Runs the tool turn: the files are `WRITE=<name>` (default `tool-wrote.txt`, then
/// `tool-wrote-2.txt`).
pub fn run(t: &mut Turn, count: usize) -> Step<End> {
    let mut names = names_after(t.message_text(), "WRITE");
    for default in ["tool-wrote.txt", "tool-wrote-2.txt"] {
        if names.len() < count {
            names.push(default.to_string());
        }
    }
    names.truncate(count);
    if t.flavor() != Cli::Codex {
        let first = std::env::var("FAKE_ACP_SAY_FIRST").ok();
        let first = first.as_deref().filter(|words| !words.is_empty());
        t.say(first.unwrap_or("I'll run a command."))?;
    }
    let mut allowed = true;
    for name in &names {
        allowed = match t.flavor() {
            Cli::Gemini => gemini(t, name)?,
            Cli::Claude => claude(t, name)?,
            Cli::Codex => match codex(t, name)? {
                Some(allowed) => allowed,
                None => {
                    return Ok(End {
                        stop: "cancelled",
                        tool_calls: 0,
                    });
                }
            },
        };
    }
    let result = answer::tool_result(t.flavor(), allowed).to_string();
    t.answer(count, Some(result))?;
    Ok(End {
        stop: "end_turn",
        tool_calls: count,
    })
}

fn gemini(t: &mut Turn, name: &str) -> Step<bool> {
    let command = format!("touch {name}");
    let cwd = t.cwd();
    let tool_id = format!("run_shell_command__run_shell_command_{}_0", ids::now_ms());
    let note = format!("[current working directory {}] (Run it)", cwd.display());
    let content =
        vec![obj! { "type": "content", "content": obj! { "type": "text", "text": note } }];
    let remembered = t.agent.sessions[&t.sid].allowed.contains(&command);
    if remembered {
        t.emit(obj! {
            "sessionUpdate": "tool_call", "toolCallId": &tool_id, "status": "in_progress",
            "title": &command, "content": content, "locations": Vec::<J>::new(), "kind": "execute",
        })?;
    } else {
        let offered = options(Cli::Gemini, &command, &cwd);
        let params = obj! {
            "sessionId": t.sid.clone(),
            "options": options_json(Cli::Gemini, &offered),
            "toolCall": obj! {
                "toolCallId": &tool_id, "status": "pending", "title": &command,
                "content": content, "locations": Vec::<J>::new(), "kind": "execute",
            },
        };
        let response = t.ask("session/request_permission", params)?;
        match choice(&response, &offered)? {
            Choice::Reject => return Ok(false),
            Choice::Allow { always } => {
                if always && let Some(live) = t.agent.sessions.get_mut(&t.sid) {
                    live.allowed.push(command.clone());
                }
            }
        }
    }
    touch(&cwd.join(name));
    t.emit(obj! {
        "sessionUpdate": "tool_call_update", "toolCallId": &tool_id, "status": "completed",
        "title": &command, "content": Vec::<J>::new(), "locations": Vec::<J>::new(), "kind": "execute",
    })?;
    Ok(true)
}

fn claude_settings(cwd: &Path) -> PathBuf {
    cwd.join(".claude").join("settings.local.json")
}

/// The `permissions.allow` rules of the project's `settings.local.json`.
fn claude_rules(cwd: &Path) -> Value {
    std::fs::read_to_string(claude_settings(cwd))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| serde_json::json!({}))
}

fn claude(t: &mut Turn, name: &str) -> Step<bool> {
    let command = format!("touch {name}");
    let cwd = t.cwd();
    let tool_id = format!("toolu_mock_{}", ids::hex(10));
    let meta = || obj! { "claudeCode": obj! { "toolName": "Bash" } };
    let raw_input = obj! { "command": &command, "description": "Run it" };
    let content =
        || vec![obj! { "type": "content", "content": obj! { "type": "text", "text": "Run it" } }];
    t.emit(obj! {
        "_meta": meta(), "toolCallId": &tool_id, "sessionUpdate": "tool_call",
        "rawInput": J::Obj(Vec::new()), "status": "pending", "title": "Terminal",
        "kind": "execute", "content": Vec::<J>::new(),
    })?;
    t.emit(obj! {
        "_meta": meta(), "toolCallId": &tool_id, "sessionUpdate": "tool_call_update",
        "rawInput": &raw_input, "title": &command, "kind": "execute", "content": content(),
    })?;
    let rule = format!("Bash({command})");
    let mut settings = claude_rules(&cwd);
    let known = settings["permissions"]["allow"]
        .as_array()
        .is_some_and(|rules| rules.iter().any(|r| r == rule.as_str()));
    // In `auto` (0.101's first mode) and `bypassPermissions` the tool runs unasked.
    let mode = t.agent.sessions[&t.sid].mode.clone();
    let unasked = matches!(mode.as_str(), "auto" | "bypassPermissions");
    if !known && !unasked {
        let offered = options(Cli::Claude, &command, &cwd);
        let params = obj! {
            "options": options_json(Cli::Claude, &offered),
            "sessionId": t.sid.clone(),
            "toolCall": obj! {
                "toolCallId": &tool_id, "rawInput": &raw_input, "title": &command,
                "kind": "execute", "content": content(),
            },
        };
        let response = t.ask("session/request_permission", params)?;
        let picked = choice(&response, &offered)?;
        t.emit(super::usage::claude_update(t.used, None))?;
        match picked {
            Choice::Reject => {
                let refused = "User refused permission to run tool";
                t.emit(obj! {
                    "_meta": meta(), "toolCallId": &tool_id, "sessionUpdate": "tool_call_update",
                    "status": "failed", "rawOutput": refused,
                    "content": vec![obj! { "type": "content", "content": obj! { "type": "text", "text": format!("```\n{refused}\n```") } }],
                })?;
                return Ok(false);
            }
            Choice::Allow { always: true } => {
                // claude-agent-acp writes the rule into the member's working folder.
                let mut allow = settings["permissions"]["allow"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                allow.push(Value::from(rule));
                settings["permissions"]["allow"] = Value::from(allow);
                let path = claude_settings(&cwd);
                let written = std::fs::create_dir_all(cwd.join(".claude")).and_then(|()| {
                    std::fs::write(
                        &path,
                        serde_json::to_string_pretty(&settings).unwrap_or_default(),
                    )
                });
                if let Err(e) = written {
                    eprintln!("fake-agent: cannot write {}: {e}", path.display());
                }
            }
            Choice::Allow { always: false } => {}
        }
    }
    touch(&cwd.join(name));
    let response = obj! {
        "stdout": "", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": true,
    };
    t.emit(obj! {
        "_meta": obj! { "claudeCode": obj! { "toolResponse": response, "toolName": "Bash" } },
        "toolCallId": &tool_id, "sessionUpdate": "tool_call_update",
    })?;
    let output = "(Bash completed with no output)";
    t.emit(obj! {
        "_meta": meta(), "toolCallId": &tool_id, "sessionUpdate": "tool_call_update",
        "status": "completed", "rawOutput": output,
        "content": vec![obj! { "type": "content", "content": obj! { "type": "text", "text": format!("```console\n{output}\n```") } }],
    })?;
    Ok(true)
}

/// The rule codex-acp writes for "don't ask again for commands that start with …".
fn codex_rule(command: &str) -> String {
    let words: Vec<String> = command
        .split_whitespace()
        .map(|w| format!("{w:?}"))
        .collect();
    format!(
        "prefix_rule(pattern=[{}], decision=\"allow\")",
        words.join(", ")
    )
}

fn codex_rules_file() -> Option<PathBuf> {
    Some(state_dir(Cli::Codex)?.join("rules").join("default.rules"))
}

/// `Some(allowed)`, or `None` when the refusal aborted the turn.
fn codex(t: &mut Turn, name: &str) -> Step<Option<bool>> {
    let command = format!("touch {name}");
    let cwd = t.cwd();
    let cwd_text = cwd.display().to_string();
    let tool_id = format!("call_mock_{}", ids::hex(10));
    let rule = codex_rule(&command);
    let rules = codex_rules_file()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .unwrap_or_default();
    let mode = t.agent.sessions[&t.sid].mode.clone();
    // Every codex-acp mode decides in-workspace commands itself, except these two, where
    // the command's escalation request reaches the client.
    let asks = matches!(mode.as_str(), "read-only" | "workspace-write")
        && !rules.lines().any(|line| line.trim() == rule);
    let raw_input = obj! { "command": &command, "cwd": &cwd_text };
    let exit = |code: J| obj! { "terminal_exit": obj! { "exit_code": code, "signal": J::Null, "terminal_id": &tool_id } };
    if asks {
        t.emit(super::flavor::codex_status(Some(&["waitingOnApproval"])))?;
    }
    t.emit(obj! {
        "sessionUpdate": "tool_call", "toolCallId": &tool_id, "kind": "execute", "title": &command,
        "status": "in_progress",
        "content": vec![obj! { "type": "terminal", "terminalId": &tool_id }],
        "rawInput": &raw_input,
        "_meta": obj! { "terminal_info": obj! { "cwd": &cwd_text, "terminal_id": &tool_id } },
    })?;
    if asks {
        let offered = options(Cli::Codex, &command, &cwd);
        let params = obj! {
            "sessionId": t.sid.clone(),
            "toolCall": obj! {
                "toolCallId": &tool_id, "title": &command, "rawInput": &raw_input,
                "kind": "execute", "status": "pending",
            },
            "options": options_json(Cli::Codex, &offered),
        };
        let response = t.ask("session/request_permission", params)?;
        match choice(&response, &offered)? {
            Choice::Reject => {
                t.emit(obj! {
                    "sessionUpdate": "tool_call_update", "toolCallId": &tool_id, "status": "failed",
                    "_meta": exit(J::Null),
                })?;
                t.emit(super::flavor::codex_status(Some(&[])))?;
                return Ok(None);
            }
            Choice::Allow { always } => {
                t.emit(super::flavor::codex_status(Some(&[])))?;
                if always && let Some(path) = codex_rules_file() {
                    let line = format!("{rule}\n");
                    let written = path
                        .parent()
                        .map_or(Ok(()), std::fs::create_dir_all)
                        .and_then(|()| {
                            use std::io::Write;
                            std::fs::OpenOptions::new()
                                .create(true)
                                .append(true)
                                .open(&path)?
                                .write_all(line.as_bytes())
                        });
                    if let Err(e) = written {
                        eprintln!("fake-agent: cannot write {}: {e}", path.display());
                    }
                }
            }
        }
    }
    touch(&cwd.join(name));
    t.emit(obj! {
        "sessionUpdate": "tool_call_update", "toolCallId": &tool_id, "name": "exec_command",
        "status": "completed", "_meta": exit(J::from(0u64)),
    })?;
    t.emit(super::usage::codex_used(t.used))?;
    Ok(Some(true))
}
