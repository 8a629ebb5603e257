//! One `session/prompt` turn: what the prompt asks for (its `MOCK-MODE=` keyword), the
//! updates streamed in each agent's order, `session/cancel` honoured between any two
//! messages, and the result. Tool calls are in `tools.rs`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use regex::Regex;
use serde_json::Value;

use super::super::Knobs;
use super::super::cli::Cli;
use super::answer::{self, message_of};
use super::ids;
use super::json::{J, obj};
use super::modes::{Mode, mode_of};
use super::server::Agent;
use super::store::{Exchange, Session};
use super::tools;
use super::usage;
use super::wire::{Event, errors, report_malformed};

/// Why a turn stopped early.
#[derive(Debug)]
pub enum Stop {
    /// `session/cancel` (or a permission answered `cancelled`).
    Cancelled,
    /// stdin closed.
    Eof,
}

pub type Step<T = ()> = Result<T, Stop>;

/// How a turn that ran to its end ends.
pub struct End {
    pub stop: &'static str,
    /// Tool calls made before the answer.
    pub tool_calls: usize,
}

/// The values of `KEY=<name>` in the message (plain file names only).
pub fn names_after(message: &str, key: &str) -> Vec<String> {
    let re = Regex::new(&format!(r"{key}=([A-Za-z0-9._-]+)")).expect("valid regex");
    re.captures_iter(message)
        .map(|c| c[1].to_string())
        .filter(|n| n != "." && n != "..")
        .collect()
}

/// Handles `session/prompt`.
pub fn prompt(agent: &mut Agent, id: &Value, params: &Value) {
    let sid = match agent.live(params) {
        Ok(sid) => sid,
        Err(error) => return agent.out.error(id, error),
    };
    let Some(blocks) = params["prompt"].as_array() else {
        return agent
            .out
            .error(id, errors::invalid_params("prompt: Required"));
    };
    let text: Vec<&str> = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
    let text = text.join("\n");
    let knobs = if agent.knobs.prompt_knobs {
        match Knobs::with_prompt(&text, |name| std::env::var(name).ok()) {
            Ok(knobs) => knobs,
            Err(message) => {
                eprintln!("fake-agent: {message}");
                return agent.out.error(id, errors::internal(&message));
            }
        }
    } else {
        agent.knobs.clone()
    };
    let mode = mode_of(message_of(&text));
    if agent.flavor == Cli::Claude && (agent.no_auth || matches!(mode, Mode::NoAuth)) {
        // claude-agent-acp learns it has no key only when the turn reaches the model.
        return agent.out.error(id, errors::auth("Authentication required"));
    }
    let session = agent.sessions[&sid].session.clone();
    let input = usage::input_tokens(agent.flavor, &session);
    let mut turn = Turn {
        agent,
        sid,
        session,
        prompt: text,
        knobs,
        message: String::new(),
        message_id: String::new(),
        used: input + 1,
        input,
        steered: Vec::new(),
    };
    let ending = turn.script(mode);
    turn.finish(id, ending);
}

/// A running turn.
pub struct Turn<'a> {
    pub agent: &'a mut Agent,
    pub sid: String,
    /// The session as it was when the prompt came.
    pub session: Session,
    pub prompt: String,
    pub knobs: Knobs,
    /// The agent message being streamed (the answer the history keeps).
    pub message: String,
    pub message_id: String,
    /// Tokens in the context so far (claude's and codex's `usage_update.used`).
    pub used: u64,
    pub input: u64,
    /// Messages steered into the turn (`steering.rs`) not answered yet.
    pub steered: Vec<String>,
}

impl Turn<'_> {
    pub fn flavor(&self) -> Cli {
        self.agent.flavor
    }

    pub fn cwd(&self) -> PathBuf {
        self.session.cwd.clone()
    }

    pub fn message_text(&self) -> &str {
        message_of(&self.prompt)
    }

    fn script(&mut self, mode: Mode) -> Step<End> {
        if self.flavor() == Cli::Codex {
            self.emit(super::flavor::codex_status(Some(&[])))?;
        }
        match mode {
            Mode::Plain | Mode::NoAuth => self.answer(0, None)?,
            Mode::Slow => self.slow()?,
            Mode::Crash => self.crash(),
            Mode::ReadFile => {
                let read = self.read_file()?;
                self.answer(0, Some(read))?;
            }
            Mode::WriteFile => {
                let wrote = super::files::write_file(self)?;
                self.answer(0, Some(wrote))?;
            }
            Mode::Tool(count) => return tools::run(self, count),
            Mode::Render => return super::render::run(self),
            Mode::ExitPlan => return super::plan_approval::run(self),
            Mode::Ask => return super::question::run(self),
            Mode::Terminal => return super::terminal::run(self),
            Mode::Mcp => {
                let servers = self.agent.mcp_servers.join("; ");
                self.answer(0, Some(format!("mcp={servers}")))?;
            }
        }
        self.answer_steered()?;
        Ok(End {
            stop: "end_turn",
            tool_calls: 0,
        })
    }

    /// Handles what arrived while the turn runs: a cancel of this session stops it, the
    /// awaited response is returned, other responses are checked, requests wait.
    fn take(&mut self, event: Event, awaited: Option<u64>) -> Step<Option<Value>> {
        let msg = match event {
            Event::Eof => return Err(Stop::Eof),
            Event::Malformed(line) => {
                report_malformed(&line);
                return Ok(None);
            }
            Event::Msg(msg) => msg,
        };
        match msg.get("method").and_then(Value::as_str) {
            Some("session/cancel") if msg["params"]["sessionId"] == self.sid.as_str() => {
                Err(Stop::Cancelled)
            }
            Some("session/cancel") => Ok(None),
            Some(super::steering::METHOD) if msg.get("id").is_some() => {
                self.steer(&msg["id"], &msg["params"]);
                Ok(None)
            }
            Some(_) => {
                self.agent.inbox.defer(msg);
                Ok(None)
            }
            None => {
                let id = msg.get("id").and_then(Value::as_u64);
                if id.is_some() && id == awaited {
                    return Ok(Some(msg));
                }
                let id = msg.get("id").cloned().unwrap_or(Value::Null);
                self.agent.response(&id, &msg);
                Ok(None)
            }
        }
    }

    /// Takes whatever has arrived, without waiting.
    fn poll(&mut self) -> Step {
        while let Some(event) = self.agent.inbox.recv(Some(Duration::ZERO)) {
            self.take(event, None)?;
        }
        Ok(())
    }

    /// Waits `wait`, staying responsive to a cancel.
    pub fn pause(&mut self, wait: Duration) -> Step {
        let deadline = Instant::now() + wait;
        while let Some(event) = self.agent.inbox.recv_until(deadline) {
            self.take(event, None)?;
        }
        Ok(())
    }

    /// Sends a `session/update`, unless a cancel came first.
    pub fn emit(&mut self, update: J) -> Step {
        self.poll()?;
        self.agent.out.update(&self.sid, update);
        Ok(())
    }

    /// Sends a request to the client and waits for its answer.
    pub fn ask(&mut self, method: &str, params: J) -> Step<Value> {
        let id = self.agent.request_id(method);
        self.agent.out.request(id, method, params);
        loop {
            let event = self.agent.inbox.recv(None).unwrap_or(Event::Eof);
            match self.take(event, Some(id)) {
                Ok(Some(response)) => {
                    self.agent.pending.remove(&id);
                    return Ok(response);
                }
                Ok(None) => {}
                Err(stop) => {
                    if let (Stop::Cancelled, Some(pending)) =
                        (&stop, self.agent.pending.get_mut(&id))
                    {
                        pending.must_cancel = true;
                    }
                    return Err(stop);
                }
            }
        }
    }

    /// Starts a new agent message (claude reports its usage before each one).
    pub fn begin_message(&mut self) -> Step {
        self.message.clear();
        self.message_id = format!("msg_mock_{}", ids::hex(12));
        if self.flavor() == Cli::Claude {
            self.emit(usage::claude_update(self.used, None))?;
            self.chunk("")?;
        }
        Ok(())
    }

    /// One `agent_message_chunk` of the current message.
    pub fn chunk(&mut self, text: &str) -> Step {
        if let Some(delay) = self.knobs.delay.filter(|_| !text.is_empty()) {
            self.pause(delay)?;
        }
        let content = obj! { "type": "text", "text": text };
        let mid = self.message_id.clone();
        let update = match self.flavor() {
            Cli::Claude => {
                obj! { "sessionUpdate": "agent_message_chunk", "content": content, "messageId": mid }
            }
            Cli::Codex => {
                obj! { "sessionUpdate": "agent_message_chunk", "messageId": mid, "content": content }
            }
            Cli::Gemini => obj! { "sessionUpdate": "agent_message_chunk", "content": content },
        };
        self.emit(update)?;
        self.message.push_str(text);
        self.used += usage::output_tokens(text).saturating_sub(1);
        Ok(())
    }

    /// Streams `text` as one message, in the mock's chunks.
    pub fn say(&mut self, text: &str) -> Step {
        self.begin_message()?;
        for chunk in answer::chunks(text) {
            self.chunk(&chunk)?;
        }
        Ok(())
    }

    /// The answer: `FAKE_AGENT_TEXT` if set, else the mock's line (with the tool result
    /// it quotes, after a tool call).
    pub fn answer(&mut self, tool_calls: usize, tool_result: Option<String>) -> Step {
        let Some(text) = self.knobs.text.clone() else {
            let mut line = answer::line(self.flavor(), &self.session, &self.prompt, tool_calls);
            if let Some(result) = tool_result {
                line.push_str(&format!(" tool_result=\"{result}\""));
            }
            return self.say(&line);
        };
        let chunks = match self.knobs.chunks {
            Some(n) => answer::chunks_of(&text, n),
            None => answer::chunks(&text),
        };
        self.begin_message()?;
        let (start, count) = (Instant::now(), chunks.len().max(1));
        for (i, chunk) in chunks.iter().enumerate() {
            if let Some((spread, _)) = self.knobs.spread {
                // Chunk i goes out no sooner than i/count of the spread after the first,
                // as the headless fake spreads its lines (`FAKE_AGENT_SPREAD_MS`).
                let due = start + spread.mul_f64(i as f64 / count as f64);
                self.pause(due.saturating_duration_since(Instant::now()))?;
            }
            self.chunk(chunk)?;
        }
        Ok(())
    }

    /// Sends the result (or the cancelled one) and keeps the exchange in the history.
    fn finish(mut self, id: &Value, ending: Step<End>) {
        let flavor = self.flavor();
        let cancelled = match ending {
            Err(Stop::Eof) => return,
            Err(Stop::Cancelled) => {
                if flavor == Cli::Codex {
                    self.agent
                        .out
                        .update(&self.sid, super::flavor::codex_status(None));
                }
                self.agent.out.result(id, usage::cancelled(flavor));
                if flavor == Cli::Claude {
                    let update = usage::claude_update(self.input + 1, Some(J::from(0u64)));
                    self.agent.out.update(&self.sid, update);
                }
                true
            }
            Ok(end) => {
                self.close(id, &end);
                end.stop == "cancelled"
            }
        };
        let exchange = Exchange {
            prompt: self.prompt.clone(),
            answer: std::mem::take(&mut self.message),
            user_id: match flavor {
                Cli::Claude => ids::uuid_v4(),
                Cli::Codex => ids::uuid_v7(),
                Cli::Gemini => String::new(),
            },
            agent_id: std::mem::take(&mut self.message_id),
            cancelled,
        };
        let cost_on_exit = self.agent.saves_cost_on_exit();
        if let Some(live) = self.agent.sessions.get_mut(&self.sid) {
            live.session.exchanges.push(exchange);
            if !cancelled && live.session.title.is_none() && flavor == Cli::Codex {
                live.session.title = Some(self.prompt.clone());
            }
            self.agent.store.save(&live.stored(cost_on_exit));
        }
    }

    /// The updates after the answer, then the result.
    fn close(&mut self, id: &Value, end: &End) {
        let flavor = self.flavor();
        let output = usage::output_tokens(&self.message);
        let turn_cost = usage::claude_cost(self.input, output);
        let cost = match self.agent.sessions.get_mut(&self.sid) {
            Some(live) if flavor == Cli::Claude => {
                usage::claude_reported_cost(live, turn_cost, &self.knobs)
            }
            _ => turn_cost,
        };
        let out = &mut self.agent.out;
        match flavor {
            Cli::Claude => {
                out.update(&self.sid, usage::claude_update(self.used, None));
                out.update(
                    &self.sid,
                    usage::claude_update(self.used, Some(J::from(cost))),
                );
            }
            Cli::Codex => {
                out.update(&self.sid, usage::codex_used(self.used));
                out.update(&self.sid, super::flavor::codex_status(None));
                if end.stop == "end_turn" && self.session.title.is_none() {
                    let title = obj! { "sessionUpdate": "session_info_update", "title": self.prompt.clone() };
                    out.update(&self.sid, title);
                }
            }
            Cli::Gemini => {}
        }
        let result = usage::result(flavor, end.stop, self.input, output, end.tool_calls > 0);
        out.result(id, result);
    }
}
