//! The agent side of the connection: the state of one agent process and its answers to
//! every request except `session/prompt` (in `turn.rs`), each in the real agent's shape.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::Knobs;
use super::super::cli::Cli;
use super::flavor;
use super::ids;
use super::json::J;
use super::replay;
use super::store::{Session, Store};
use super::wire::{Inbox, Out, errors};

/// A session open in this process.
pub struct Live {
    pub session: Session,
    /// The current mode (codex asks the client only in "read-only" and "workspace-write").
    pub mode: String,
    /// The other config options set in this session (config id, value).
    pub values: Vec<(String, String)>,
    /// gemini: the commands allowed "for this session" (never written down).
    pub allowed: Vec<String>,
    /// claude: what the session has cost in this process, in dollars.
    pub process_cost: f64,
    /// claude as 0.101: the session's cost as this process restored it, which stays
    /// the stored one until the process writes its cost record as it exits.
    pub cost_restored: f64,
}

impl Live {
    /// The session as the process stores it after a turn: claude from 0.101 writes its
    /// cost only as it exits (`Agent::save_costs`).
    pub fn stored(&self, cost_on_exit: bool) -> Session {
        let mut session = self.session.clone();
        if cost_on_exit {
            session.cost = self.cost_restored;
        }
        session
    }
}

/// A request the agent sent and the client has not answered yet.
pub struct Pending {
    pub method: String,
    /// The prompt was cancelled while it waited: only `cancelled` is a valid answer.
    pub must_cancel: bool,
}

/// One agent process.
pub struct Agent {
    pub flavor: Cli,
    pub out: Out,
    pub inbox: Inbox,
    pub knobs: Knobs,
    pub store: Store,
    pub sessions: HashMap<String, Live>,
    pub pending: BTreeMap<u64, Pending>,
    /// The client advertised `fs.readTextFile`.
    pub client_reads_files: bool,
    /// The client advertised `fs.writeTextFile`.
    pub client_writes_files: bool,
    /// The client declared `elicitation.form` (`MOCK-MODE=ask` asks it).
    pub client_elicits: bool,
    /// The client offered `terminal` (`MOCK-MODE=terminal` uses it).
    pub client_terminal: bool,
    /// The client declared `plan` (plan operations: `plan_approval.rs`).
    pub client_plans: bool,
    /// The MCP servers of the last session request, described (`mcp.rs`).
    pub mcp_servers: Vec<String>,
    /// `FAKE_ACP_NO_AUTH`: no credentials.
    pub no_auth: bool,
    initialized: bool,
    next_request: u64,
}

impl Agent {
    pub fn new(flavor: Cli, knobs: Knobs, inbox: Inbox) -> Agent {
        Agent {
            flavor,
            out: Out::default(),
            inbox,
            knobs,
            store: Store::new(flavor),
            sessions: HashMap::new(),
            pending: BTreeMap::new(),
            client_reads_files: false,
            client_writes_files: false,
            client_elicits: false,
            client_terminal: false,
            client_plans: false,
            mcp_servers: Vec::new(),
            no_auth: std::env::var("FAKE_ACP_NO_AUTH").is_ok_and(|v| !v.is_empty() && v != "0"),
            initialized: false,
            next_request: 0,
        }
    }

    /// The id of the agent's next request: all three real agents count from 0.
    pub fn request_id(&mut self, method: &str) -> u64 {
        let id = self.next_request;
        self.next_request += 1;
        self.pending.insert(
            id,
            Pending {
                method: method.to_string(),
                must_cancel: false,
            },
        );
        id
    }

    /// Handles one message from the client (between turns).
    pub fn dispatch(&mut self, msg: Value) {
        let method = msg
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        let id = msg.get("id").cloned();
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        if !self.initialized && method.as_deref() != Some("initialize") {
            // No real agent checks this; the fake does, so a client bug shows.
            let what = method.as_deref().unwrap_or("a response");
            eprintln!("fake-agent: the first message must be `initialize`, got {what}");
            if let (Some(id), Some(_)) = (&id, &method) {
                let details = "fake-agent: the first message must be initialize";
                self.out.error(id, errors::invalid_request(details));
            }
            return;
        }
        match (method, id) {
            (Some(method), Some(id)) => self.request(&method, &id, &params),
            (Some(method), None) => self.notification(&method, &params),
            (None, Some(id)) => self.response(&id, &msg),
            (None, None) => eprintln!("fake-agent: not a JSON-RPC message: {msg}"),
        }
    }

    fn request(&mut self, method: &str, id: &Value, params: &Value) {
        let answer = match method {
            "initialize" => Ok(self.initialize(params)),
            "authenticate" => Ok(J::Obj(Vec::new())),
            "session/new" => return self.new_session(id, params),
            "session/load" => return self.load(id, params),
            "session/resume" if self.flavor != Cli::Gemini => return self.resume(id, params),
            "session/fork" if super::fork::advertised(self.flavor) => {
                return match self.reopen(params) {
                    Ok(session) => super::fork::fork(self, id, session),
                    Err(error) => self.out.error(id, error),
                };
            }
            "session/prompt" => return super::turn::prompt(self, id, params),
            super::steering::METHOD => return super::steering::idle(self, id, params),
            "session/set_mode" => return super::settings::set_mode(self, id, params),
            "session/set_config_option" if self.flavor != Cli::Gemini => {
                return super::settings::set_config(self, id, params);
            }
            "session/close" if self.flavor != Cli::Gemini => self.live(params).map(|sid| {
                self.sessions.remove(&sid);
                J::Obj(Vec::new())
            }),
            _ => Err(errors::method_not_found(method)),
        };
        match answer {
            Ok(result) => self.out.result(id, result),
            Err(error) => self.out.error(id, error),
        }
    }

    /// `session/cancel` with no prompt running, or another notification: nothing to do.
    fn notification(&mut self, method: &str, _params: &Value) {
        if !matches!(method, "session/cancel") && !method.starts_with('_') {
            eprintln!("fake-agent: ignoring the notification {method}");
        }
    }

    /// The client's answer to one of the agent's requests, after its turn ended.
    pub fn response(&mut self, id: &Value, msg: &Value) {
        let Some(pending) = id.as_u64().and_then(|n| self.pending.remove(&n)) else {
            eprintln!(
                "fake-agent: a response to id {id}, which the agent never asked or which was answered already: {msg}"
            );
            return;
        };
        let outcome = &msg["result"]["outcome"]["outcome"];
        if pending.must_cancel && outcome != "cancelled" {
            eprintln!(
                "fake-agent: the prompt was cancelled while {} {id} waited, so the client must answer it {{\"outcome\":\"cancelled\"}}; it answered {msg}",
                pending.method
            );
        }
    }

    /// Complains about requests nobody answered (stdin closed).
    /// Whether this agent writes its sessions' cost record only as it exits, as the
    /// Claude Code of claude-agent-acp 0.101 does after stdin closes (a process killed
    /// before then loses it, and the next one restores the older cost).
    pub fn saves_cost_on_exit(&self) -> bool {
        self.flavor == Cli::Claude && self.knobs.is_at_least(super::usage::SESSION_COSTS_FROM)
    }

    /// Writes the cost record of every session open in this process (at its exit).
    /// With `FAKE_ACP_SAVE_LATE_MS`, a process left behind writes them that long after
    /// this one exited.
    pub fn save_costs(&self) {
        if !self.saves_cost_on_exit() {
            return;
        }
        let late = std::env::var("FAKE_ACP_SAVE_LATE_MS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok());
        for live in self.sessions.values() {
            match late {
                Some(ms) => self.store.save_later(&live.session, ms),
                None => self.store.save(&live.session),
            }
        }
    }

    pub fn finish(&mut self) {
        for (id, pending) in std::mem::take(&mut self.pending) {
            let must = if pending.must_cancel {
                " (the prompt was cancelled, so the client had to answer it `cancelled`)"
            } else {
                ""
            };
            eprintln!(
                "fake-agent: {} {id} was never answered{must}",
                pending.method
            );
        }
    }

    fn initialize(&mut self, params: &Value) -> J {
        self.initialized = true;
        if params["protocolVersion"] != 1 {
            // The real agents answer 1 whatever was asked; the fake also complains.
            eprintln!(
                "fake-agent: initialize asked protocolVersion {}, expected 1",
                params["protocolVersion"]
            );
        }
        self.client_reads_files = params["clientCapabilities"]["fs"]["readTextFile"] == true;
        self.client_writes_files = params["clientCapabilities"]["fs"]["writeTextFile"] == true;
        self.client_elicits = params["clientCapabilities"]["elicitation"]["form"].is_object();
        self.client_terminal = params["clientCapabilities"]["terminal"] == true;
        // claude-agent-acp 0.101 tests `clientCapabilities?.plan != null`.
        self.client_plans = !params["clientCapabilities"]["plan"].is_null();
        let mut result = flavor::initialize(self.flavor);
        if let (Cli::Claude, Some(version)) = (self.flavor, &self.knobs.version) {
            let mut info = result.at("agentInfo");
            info.set("version", version.as_str());
            result.set("agentInfo", info);
        }
        if super::steering::advertised() {
            result.set("_meta", super::steering::meta());
        }
        result
    }

    /// The absolute `cwd` and the `mcpServers` list every session request must carry,
    /// and absolute `additionalDirectories` if any (gemini does not advertise them).
    fn check_setup(&self, params: &Value) -> Result<PathBuf, J> {
        let cwd = params["cwd"].as_str().map(PathBuf::from);
        let Some(cwd) = cwd.filter(|c| c.is_absolute()) else {
            return Err(errors::invalid_params("cwd: an absolute path is required"));
        };
        super::mcp::described(&params["mcpServers"])?;
        if let Some(roots) = params.get("additionalDirectories") {
            let absolute = |r: &Value| r.as_str().is_some_and(|r| Path::new(r).is_absolute());
            if !roots
                .as_array()
                .is_some_and(|roots| roots.iter().all(absolute))
            {
                return Err(errors::invalid_params(
                    "additionalDirectories: an array of absolute paths is required",
                ));
            }
            if self.flavor == Cli::Gemini {
                eprintln!(
                    "fake-agent: gemini does not advertise sessionCapabilities.additionalDirectories, yet the client sent {roots}"
                );
            }
        }
        Ok(cwd)
    }

    /// The auth error of this flavor at session set-up, when credentials are missing.
    fn setup_auth(&self) -> Result<(), J> {
        match (self.no_auth, self.flavor) {
            (true, Cli::Gemini) => {
                Err(errors::auth("Gemini API key is missing or not configured."))
            }
            (true, Cli::Codex) => Err(errors::auth("Authentication required")),
            _ => Ok(()),
        }
    }

    /// `session/new`: a fresh session, then its slash commands (each agent sends them
    /// right after the result).
    fn new_session(&mut self, id: &Value, params: &Value) {
        let cwd = match self.check_setup(params) {
            Ok(cwd) => cwd,
            Err(error) => return self.out.error(id, error),
        };
        self.mcp_servers = super::mcp::described(&params["mcpServers"]).unwrap_or_default();
        if let Err(error) = self.setup_auth() {
            return self.out.error(id, error);
        }
        // With its custom provider codex-acp reports the gateway before the result.
        if self.flavor == Cli::Codex {
            self.out
                .notify("_auth/status_update", flavor::codex_auth_status());
        }
        let sid = match self.flavor {
            Cli::Codex => ids::uuid_v7(),
            _ => ids::uuid_v4(),
        };
        let session = Session {
            id: sid.clone(),
            cwd,
            created: ids::now_ms() / 1000,
            ..Session::default()
        };
        self.store.save(&session);
        let mode = flavor::start_mode(self.flavor);
        self.out
            .result(id, flavor::session_result(self.flavor, Some(&sid), &mode));
        self.open(session, mode);
        self.out.update(&sid, flavor::commands_update(self.flavor));
    }

    /// Makes `session` open in this process.
    pub fn open(&mut self, session: Session, mode: String) {
        let session_cost = session.cost;
        let live = Live {
            session,
            mode,
            values: Vec::new(),
            allowed: Vec::new(),
            process_cost: 0.0,
            cost_restored: session_cost,
        };
        self.sessions.insert(live.session.id.clone(), live);
    }

    /// The open session named by `params.sessionId`, or the agent's "not found".
    pub fn live(&self, params: &Value) -> Result<String, J> {
        let sid = params["sessionId"].as_str().unwrap_or_default();
        if self.sessions.contains_key(sid) {
            return Ok(sid.to_string());
        }
        Err(errors::internal(&match self.flavor {
            Cli::Claude => "Session not found".to_string(),
            Cli::Codex => format!("Session {sid} not found"),
            Cli::Gemini => format!("Session not found: {sid}"),
        }))
    }

    /// `session/resume` (claude, codex): the session again, no history replayed.
    fn resume(&mut self, id: &Value, params: &Value) {
        match self.reopen(params) {
            Ok(session) => replay::resume(self, id, session),
            Err(error) => self.out.error(id, error),
        }
    }

    /// `session/load`: the session again, its history replayed as updates.
    fn load(&mut self, id: &Value, params: &Value) {
        match self.reopen(params) {
            Ok(session) => replay::load(self, id, session),
            Err(error) => self.out.error(id, error),
        }
    }

    /// The stored session a load or resume names, or the agent's error for it.
    fn reopen(&mut self, params: &Value) -> Result<Session, J> {
        let cwd = self.check_setup(params)?;
        self.mcp_servers = super::mcp::described(&params["mcpServers"]).unwrap_or_default();
        self.setup_auth()?;
        if self.flavor == Cli::Codex {
            self.out
                .notify("_auth/status_update", flavor::codex_auth_status());
        }
        let sid = params["sessionId"].as_str().unwrap_or_default();
        let open = self.sessions.get(sid).map(|l| l.session.clone());
        match open
            .filter(|s| s.cwd == cwd)
            .or_else(|| self.store.load(sid, &cwd))
        {
            Some(session) => Ok(session),
            None => Err(self.unknown_session(sid, &cwd)),
        }
    }

    /// What each agent answers for a session it cannot find.
    fn unknown_session(&self, sid: &str, cwd: &Path) -> J {
        match self.flavor {
            Cli::Claude => errors::not_found(sid),
            Cli::Codex => errors::internal(&format!(
                "thread/resume failed: no rollout found for thread id {sid}"
            )),
            Cli::Gemini if !self.store.any_for(cwd) => {
                errors::internal("No previous sessions found for this project.")
            }
            Cli::Gemini => errors::internal(&format!("Invalid session identifier \"{sid}\".")),
        }
    }
}
