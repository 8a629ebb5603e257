//! `MOCK-MODE=terminal`: the agent runs a command through the client's terminal, the
//! way the ACP schema's `terminal/*` methods go: `terminal/create` (`sh -c <script>`
//! in the session's folder, `outputByteLimit` 4096), a tool call embedding it
//! (`content: [{type: "terminal", terminalId}]`), `terminal/wait_for_exit`,
//! `terminal/output`, `terminal/release`, the call completed, and an answer quoting
//! what it got (`tool_result="exit=3 signal=null truncated=false output=line 1|line
//! 2|line 3"`). `RUN=sleep` runs `echo $$ > terminal.pid; echo waiting; exec sleep 60`
//! instead, for a cancel to stop. A client that did not offer `terminal` is not asked.

use serde_json::Value;

use super::json::{J, obj};
use super::turn::{End, Step, Turn, names_after};

const COUNT: &str = "printf 'line 1\\nline 2\\nline 3\\n'; exit 3";
const SLEEP: &str = "echo $$ > terminal.pid; echo waiting; exec sleep 60";

pub fn run(t: &mut Turn) -> Step<End> {
    if !t.agent.client_terminal {
        t.answer(0, Some("the client offers no terminal".into()))?;
        return Ok(End {
            stop: "end_turn",
            tool_calls: 0,
        });
    }
    let script = match names_after(t.message_text(), "RUN")
        .first()
        .map(String::as_str)
    {
        Some("sleep") => SLEEP,
        _ => COUNT,
    };
    let sid = t.sid.clone();
    let cwd = t.cwd().display().to_string();
    let created = t.ask(
        "terminal/create",
        obj! {
            "sessionId": sid.clone(), "command": "sh",
            "args": J::Arr(vec![J::from("-c"), J::from(script)]),
            "cwd": cwd, "outputByteLimit": 4096u64,
        },
    )?;
    let Some(terminal) = created["result"]["terminalId"].as_str().map(str::to_owned) else {
        eprintln!("fake-agent: terminal/create was not answered with a terminalId: {created}");
        t.answer(0, Some(format!("error {}", created["error"])))?;
        return Ok(End {
            stop: "end_turn",
            tool_calls: 0,
        });
    };
    let call = "call_terminal_1";
    let embedded = || {
        J::Arr(vec![
            obj! { "type": "terminal", "terminalId": terminal.clone() },
        ])
    };
    t.emit(obj! {
        "sessionUpdate": "tool_call", "toolCallId": call, "title": format!("sh -c {script}"),
        "kind": "execute", "status": "in_progress", "content": embedded(),
    })?;
    let of_terminal = || obj! { "sessionId": sid.clone(), "terminalId": terminal.clone() };
    let exit = t.ask("terminal/wait_for_exit", of_terminal())?;
    let output = t.ask("terminal/output", of_terminal())?;
    t.ask("terminal/release", of_terminal())?;
    t.emit(obj! {
        "sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed",
        "content": embedded(),
    })?;
    t.answer(1, Some(got(&exit["result"], &output["result"])))?;
    Ok(End {
        stop: "end_turn",
        tool_calls: 1,
    })
}

/// What the agent received, on one line.
fn got(exit: &Value, output: &Value) -> String {
    let text = output["output"].as_str().unwrap_or_default();
    format!(
        "exit={} signal={} truncated={} output={}",
        exit["exitCode"],
        exit["signal"],
        output["truncated"],
        text.trim_end().replace('\n', "|")
    )
}
