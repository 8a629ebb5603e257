//! The prompt's `MOCK-MODE=` keyword, and the modes that are not tool calls nor the
//! render turn: `slow` (a long, slow answer to cancel), `crash` (the process dies
//! mid-answer) and `readfile` (an `fs/read_text_file` request the client must refuse).

use std::time::Duration;

use regex::Regex;

use super::answer;
use super::json::obj;
use super::turn::{Step, Turn, names_after};

/// What the message asks for (`MOCK-MODE=<mode>`, the mock's own keyword).
pub enum Mode {
    Plain,
    Slow,
    Crash,
    ReadFile,
    NoAuth,
    /// `toolwrite` (one file) or `toolwrite2` (two files, two permission requests).
    Tool(usize),
    /// Thoughts, a plan and its updates, an edit with its diff (`render.rs`).
    Render,
    /// `writefile`: an edit through the client's `fs/*` (`files.rs`).
    WriteFile,
    /// `exitplan`: a plan approval (claude's ExitPlanMode, `plan_approval.rs`).
    ExitPlan,
    /// `ask`: a question by `elicitation/create` (`question.rs`).
    Ask,
    /// `mcp`: the answer names the MCP servers the session was given (`mcp.rs`).
    Mcp,
    /// `terminal`: a command run through the client's terminal (`terminal.rs`).
    Terminal,
}

pub fn mode_of(message: &str) -> Mode {
    let re = Regex::new(r"MOCK-MODE=([A-Za-z0-9_-]+)").expect("valid regex");
    let Some(mode) = re.captures_iter(message).last().map(|c| c[1].to_string()) else {
        return Mode::Plain;
    };
    match mode.as_str() {
        "slow" => Mode::Slow,
        "crash" => Mode::Crash,
        "readfile" => Mode::ReadFile,
        "writefile" => Mode::WriteFile,
        "noauth" => Mode::NoAuth,
        "toolwrite" => Mode::Tool(1),
        "toolwrite2" => Mode::Tool(2),
        "render" => Mode::Render,
        "exitplan" => Mode::ExitPlan,
        "ask" => Mode::Ask,
        "mcp" => Mode::Mcp,
        "terminal" => Mode::Terminal,
        other => {
            eprintln!(
                "fake-agent: MOCK-MODE={other} is not a mode the fake knows; answering plainly"
            );
            Mode::Plain
        }
    }
}

impl Turn<'_> {
    /// `MOCK-MODE=slow`: the answer line, then 40 `SLOW-CHUNK-NN` chunks
    /// `FAKE_AGENT_DELAY_MS` apart (default 250 ms; the recordings' mock used 500).
    pub(super) fn slow(&mut self) -> Step {
        let line = answer::line(self.flavor(), &self.session, &self.prompt, 0);
        self.say(&format!("{line}\n"))?;
        let delay = self.knobs.delay.unwrap_or(Duration::from_millis(250));
        for n in 1..=40 {
            self.pause(delay)?;
            if self.is_steered() {
                // The steered message is what the rest of the turn answers.
                break;
            }
            let chunk = format!("SLOW-CHUNK-{n:02} ");
            // The pause above is the delay: no second one in `chunk`.
            let knobs_delay = self.knobs.delay.take();
            let sent = self.chunk(&chunk);
            self.knobs.delay = knobs_delay;
            sent?;
        }
        Ok(())
    }

    /// `MOCK-MODE=crash`: two chunks of the answer, then the process dies.
    pub(super) fn crash(&mut self) -> ! {
        let line = answer::line(self.flavor(), &self.session, &self.prompt, 0);
        if self.begin_message().is_ok() {
            for chunk in answer::chunks(&line).iter().take(2) {
                let _ = self.chunk(chunk);
            }
        }
        eprintln!("fake-agent: the agent crashed in the middle of the prompt (MOCK-MODE=crash)");
        std::process::exit(1);
    }

    /// `MOCK-MODE=readfile`: asks the client for `READ=<name>` (default `notes.txt`) in
    /// the session's folder with `fs/read_text_file`. No real agent does this when the
    /// client advertises no `fs`, as chatmd does: the client must answer an error.
    pub(super) fn read_file(&mut self) -> Step<String> {
        let names = names_after(self.message_text(), "READ");
        let name = names.first().map_or("notes.txt", String::as_str);
        let path = self.cwd().join(name).display().to_string();
        let params = obj! { "sessionId": self.sid.clone(), "path": path };
        let response = self.ask("fs/read_text_file", params)?;
        if let Some(error) = response.get("error") {
            return Ok(format!(
                "error {}: {}",
                error["code"],
                error["message"].as_str().unwrap_or_default()
            ));
        }
        if !self.agent.client_reads_files {
            eprintln!(
                "fake-agent: the client answered fs/read_text_file although it did not advertise fs.readTextFile: {response}"
            );
        }
        let content = response["result"]["content"].as_str().unwrap_or_default();
        Ok(content.lines().next().unwrap_or_default().to_string())
    }
}
