//! The agent registry: built-in entries, `agents.toml` overrides and new kinds, and
//! problems that name the file, line, column and key.

use std::path::{Path, PathBuf};

use chatmd::agents::AgentKind;
use chatmd::agents::registry::default_path_from;
use chatmd::agents::{
    AcpSpec, Adapter, AgentEntry, CommandOutput, CommandSpec, JsonPointers, PromptDelivery,
    Registry,
};
use chatmd::team::{ConfigProblem, Location, Severity};
use pretty_assertions::assert_eq;

const FILE: &str = "/home/dev/.config/chatmd/agents.toml";

fn parse(text: &str) -> (Registry, Vec<ConfigProblem>) {
    Registry::parse(Path::new(FILE), text)
}

/// The problems as `line:column key: message` lines, which is what a user reads.
fn problems(text: &str) -> Vec<String> {
    parse(text)
        .1
        .iter()
        .map(|p| {
            assert_eq!(p.file, Path::new(FILE));
            let at = p
                .location
                .map_or("-".into(), |l| format!("{}:{}", l.line, l.column));
            format!("{at} {} {}", p.key.as_deref().unwrap_or("-"), p.message)
        })
        .collect()
}

#[test]
fn builtins_are_claude_codex_gemini_acp_and_command() {
    let registry = Registry::builtin();
    let names: Vec<_> = registry.entries().iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["claude", "codex", "gemini", "acp", "command"]);
    // Any program, named by the member's own (trusted) `command`: the prompt on stdin,
    // every line it prints is the answer.
    assert_eq!(
        registry.entry("command"),
        Some(&AgentEntry {
            name: "command".into(),
            adapter: Adapter::Command(CommandSpec {
                prompt: PromptDelivery::Stdin,
                output: CommandOutput::Text,
            }),
            program: String::new(),
            args: vec![],
            install_hint: None,
            source: None,
        })
    );
    assert_eq!(
        registry.entry("codex"),
        Some(&AgentEntry {
            name: "codex".into(),
            adapter: Adapter::Cli(AgentKind::Codex),
            program: "codex".into(),
            args: vec![],
            install_hint: Some("npm install -g @openai/codex".into()),
            source: None,
        })
    );
    // Members name the ACP agent (`preset` or `command`); the entry has no program.
    assert_eq!(
        registry.entry("acp"),
        Some(&AgentEntry {
            name: "acp".into(),
            adapter: Adapter::Acp(AcpSpec { preset: None }),
            program: String::new(),
            args: vec![],
            install_hint: None,
            source: None,
        })
    );
    assert_eq!(registry.entry("Claude"), None, "names are exact");
    assert_eq!(Registry::default(), registry);
}

#[test]
fn a_builtin_can_change_its_program_and_extra_args_only() {
    let (registry, problems) = parse(
        "[agents.claude]\ncommand = \"/opt/claude/bin/claude\"\nargs = [\"--model\", \"opus\"]\n",
    );
    assert_eq!(problems, vec![]);
    let claude = registry.entry("claude").expect("claude");
    assert_eq!(claude.adapter, Adapter::Cli(AgentKind::Claude));
    assert_eq!(claude.program, "/opt/claude/bin/claude");
    assert_eq!(claude.args, ["--model", "opus"]);
    assert_eq!(
        claude.install_hint.as_deref(),
        Some("npm install -g @anthropic-ai/claude-code")
    );
    assert_eq!(claude.source.as_deref(), Some(Path::new(FILE)));
    assert_eq!(
        registry.entry("codex"),
        Some(&AgentEntry::builtin(AgentKind::Codex))
    );
}

#[test]
fn new_kinds_run_any_program_or_another_setup_of_a_builtin() {
    let text = r#"
[agents.llm]
type = "command"
command = "~/bin/llm"
args = ["-m", "gpt-4o"]
prompt = "argument"
install = "pipx install llm"

[agents.stream]
type = "command"
command = "streamer"
output = "jsonl"
text = "/delta/text"
session = "/session_id"
done = "/type"
done_value = "done"
error = "/error/message"

[agents.claude-fast]
type = "claude"
args = ["--model", "haiku"]
"#;
    let (registry, problems) = parse(text);
    assert_eq!(problems, vec![]);
    let home = std::env::var("HOME").expect("HOME");
    let llm = registry.entry("llm").expect("llm");
    assert_eq!(llm.program, format!("{home}/bin/llm"));
    assert_eq!(llm.args, ["-m", "gpt-4o"]);
    assert_eq!(llm.install_hint.as_deref(), Some("pipx install llm"));
    assert_eq!(
        llm.adapter,
        Adapter::Command(CommandSpec {
            prompt: PromptDelivery::Argument,
            output: CommandOutput::Text,
        })
    );
    assert_eq!(
        registry.entry("stream").map(|e| &e.adapter),
        Some(&Adapter::Command(CommandSpec {
            prompt: PromptDelivery::Stdin,
            output: CommandOutput::Jsonl(JsonPointers {
                text: "/delta/text".into(),
                session: Some("/session_id".into()),
                done: Some("/type".into()),
                done_value: Some("done".into()),
                error: Some("/error/message".into()),
            }),
        }))
    );
    let fast = registry.entry("claude-fast").expect("claude-fast");
    assert_eq!(
        (fast.adapter.clone(), fast.program.as_str()),
        (Adapter::Cli(AgentKind::Claude), "claude")
    );
    assert_eq!(
        fast.install_hint,
        AgentEntry::builtin(AgentKind::Claude).install_hint
    );
    let names: Vec<_> = registry.entries().iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "claude",
            "codex",
            "gemini",
            "acp",
            "command",
            "claude-fast",
            "llm",
            "stream"
        ]
    );
}

#[test]
fn a_file_that_does_not_parse_is_reported_at_its_key_and_ignored() {
    let unknown = "[agents.claude]\nargs = []\n\n[agents.llm]\ntype = \"command\"\ncommand = \"llm\"\npromt = \"stdin\"\n";
    assert_eq!(
        problems(unknown),
        [
            "7:1 agents.llm.promt unknown field `promt`, expected one of `type`, `command`, \
          `args`, `prompt`, `output`, `text`, `session`, `done`, `done_value`, `error`, \
          `install`, `preset`; remove it or fix its spelling. chatmd uses the built-in agents until this \
          file is fixed"
        ]
    );
    assert_eq!(parse(unknown).0, Registry::builtin());
    assert_eq!(
        problems("[agents.claude]\nargs = \"--model opus\"\n"),
        [
            "2:8 agents.claude.args invalid type: string \"--model opus\", expected a sequence. \
          chatmd uses the built-in agents until this file is fixed"
        ]
    );
    assert_eq!(
        problems("[agents.x]\ntype = \"command\"\ncommand = \"x\"\nprompt = \"stdn\"\n"),
        [
            "4:10 agents.x.prompt unknown variant `stdn`, expected `stdin` or `argument`. chatmd \
          uses the built-in agents until this file is fixed"
        ]
    );
    // The types an entry can have come from the one list of kinds, then `command`, `acp`.
    assert_eq!(
        problems("[agents.x]\ntype = \"clause\"\ncommand = \"x\"\n"),
        [
            "2:8 agents.x.type unknown variant `clause`, expected one of `claude`, `codex`, \
          `gemini`, `command`, `acp`. chatmd uses the built-in agents until this file is fixed"
        ]
    );
    assert_eq!(
        problems("[agents.x]\ntype = 3\ncommand = \"x\"\n"),
        [
            "2:8 agents.x.type wanted string or table. chatmd uses the built-in agents until \
          this file is fixed"
        ]
    );
    assert_eq!(
        problems("[agents]\nclaude = { command = \"c\" }\n[agents.claude\n"),
        [
            "3:15 - unclosed table, expected `]`. chatmd uses the built-in agents until this file \
          is fixed"
        ]
    );
    assert_eq!(
        problems("[agent.claude]\n"),
        [
            "1:2 agent unknown field `agent`, expected `agents`; remove it or fix its spelling. \
          chatmd uses the built-in agents until this file is fixed"
        ]
    );
}

#[test]
fn invalid_entries_are_dropped_with_a_problem_each_and_the_rest_applies() {
    let text = r#"[agents.claude]
type = "codex"

[agents.codex]
prompt = "stdin"
args = ["--model", "o3"]

[agents.mystery]
command = "m"

[agents.nocmd]
type = "command"

[agents.json]
type = "command"
command = "j"
output = "jsonl"
session = "session_id"

[agents.plain]
type = "command"
command = "p"
text = "/t"
done_value = "x"

[agents."bad name"]
type = "command"
command = "b"

[agents.ok]
type = "command"
command = "ok"
"#;
    let (registry, _) = parse(text);
    assert_eq!(
        problems(text),
        [
            "2:8 agents.claude.type `claude` is a built-in agent; its `type` cannot change. Give \
             your entry another name to define a new kind",
            "5:10 agents.codex.prompt `prompt` is only for `type = \"command\"` entries; codex \
             has its own protocol",
            "8:9 agents.mystery a new agent needs `type = \"command\"` or `type = \"acp\"` (or \"claude\", \"codex\", \
             \"gemini\" for another setup of a built-in CLI)",
            "11:9 agents.nocmd.command a `command` agent needs `command = \"<program>\"`",
            "17:10 agents.json.text `output = \"jsonl\"` needs `text`, the JSON pointer to the \
             answer text",
            "18:11 agents.json.session `session_id` is not a JSON pointer; write it like \
             \"/delta/text\" (a `/` before each key)",
            "23:8 agents.plain.text `text` is a JSON pointer, used only with `output = \"jsonl\"`",
            "24:14 agents.plain.done_value `done_value` needs `done`, the pointer it is compared \
             with",
            "26:9 agents.\"bad name\" `bad name` is not a valid agent name; use letters, \
             digits, `_`, `.` or `-`, starting with a letter or digit",
        ]
    );
    assert_eq!(
        registry.entry("claude"),
        Some(&AgentEntry::builtin(AgentKind::Claude))
    );
    assert_eq!(
        registry.entry("codex"),
        Some(&AgentEntry::builtin(AgentKind::Codex))
    );
    for dropped in ["mystery", "nocmd", "json", "plain", "bad name"] {
        assert_eq!(registry.entry(dropped), None, "{dropped}");
    }
    assert_eq!(registry.entry("ok").map(|e| e.program.as_str()), Some("ok"));
}

#[test]
fn problems_print_as_file_line_column_key_message() {
    let problem = ConfigProblem {
        location: Some(Location { line: 7, column: 1 }),
        key: Some("agents.llm.promt".into()),
        ..ConfigProblem::new(FILE, None, Severity::Error, "unknown field `promt`")
    };
    assert_eq!(
        problem.to_string(),
        format!("{FILE}:7:1: `agents.llm.promt`: unknown field `promt`")
    );
}

#[test]
fn load_reads_a_file_and_reports_a_missing_explicit_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("agents.toml");
    std::fs::write(
        &path,
        "[agents.gemini]\ncommand = \"/usr/local/bin/gemini\"\n",
    )
    .expect("write");
    let (registry, problems) = Registry::load(Some(&path));
    assert_eq!(problems, vec![]);
    assert_eq!(
        registry.entry("gemini").map(|e| e.program.as_str()),
        Some("/usr/local/bin/gemini")
    );

    let missing = dir.path().join("nope.toml");
    let (registry, problems) = Registry::load(Some(&missing));
    assert_eq!(registry, Registry::builtin());
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].file, missing);
    assert!(
        problems[0]
            .message
            .starts_with("cannot read the agent registry (No such file"),
        "{}",
        problems[0].message
    );
}

#[test]
fn the_default_file_follows_xdg_config_home() {
    let path = |xdg: Option<&str>, home: Option<&str>| {
        default_path_from(xdg.map(AsRef::as_ref), home.map(AsRef::as_ref))
    };
    assert_eq!(
        path(Some("/xdg"), Some("/home/a")),
        Some(PathBuf::from("/xdg/chatmd/agents.toml"))
    );
    assert_eq!(
        path(Some("relative"), Some("/home/a")),
        Some(PathBuf::from("/home/a/.config/chatmd/agents.toml"))
    );
    assert_eq!(
        path(None, Some("/home/a")),
        Some(PathBuf::from("/home/a/.config/chatmd/agents.toml"))
    );
    assert_eq!(path(None, None), None);
    assert_eq!(path(Some(""), Some("")), None);
}

/// ACP kinds: a preset by name (its program and install command), or any program; the
/// generic `acp` entry takes only `args`, since members name their agent.
#[test]
fn acp_kinds_run_a_preset_or_any_program() {
    let text = include_str!("fixtures/agents/acp_kinds.toml");
    let (registry, problems) = parse(text);
    assert_eq!(problems, vec![]);
    let goose = registry.entry("goose").expect("goose");
    assert_eq!(
        goose,
        &AgentEntry {
            name: "goose".into(),
            adapter: Adapter::Acp(AcpSpec {
                preset: Some("goose".into())
            }),
            program: "goose".into(),
            args: vec!["--with-builtin".into(), "developer".into()],
            install_hint: Some(
                "curl -fsSL https://github.com/block/goose/releases/download/stable/download_cli.sh | bash"
                    .into()
            ),
            source: Some(PathBuf::from(FILE)),
        }
    );
    let mine = registry.entry("mine").expect("mine");
    assert_eq!(
        (
            &mine.adapter,
            mine.program.as_str(),
            mine.install_hint.as_deref()
        ),
        (
            &Adapter::Acp(AcpSpec { preset: None }),
            "/opt/mine/bin/mine-acp",
            Some("make install")
        )
    );
    let work = registry.entry("gemini-work").expect("gemini-work");
    assert_eq!(
        (&work.adapter, work.program.as_str()),
        (
            &Adapter::Acp(AcpSpec {
                preset: Some("gemini".into())
            }),
            "/opt/gemini/bin/gemini"
        )
    );
    assert_eq!(
        registry.entry("acp").map(|e| e.args.clone()),
        Some(vec!["--verbose".to_owned()])
    );
}

#[test]
fn acp_mistakes_name_the_presets() {
    let text = include_str!("fixtures/agents/acp_mistakes.toml");
    let presets = chatmd::agents::acp::preset_names();
    assert_eq!(
        problems(text),
        [
            format!(
                "4:10 agents.typo.preset `gooose` is not an ACP preset; presets: {presets}. For \
                 another ACP agent, set `command` (and `args`) instead"
            ),
            format!(
                "6:9 agents.nothing.preset an `acp` agent needs `preset = \"<name>\"` (one of \
                 {presets}) or `command = \"<program>\"`"
            ),
            "11:10 agents.headless.preset `preset` is only for `type = \"acp\"` entries".to_owned(),
            "13:9 agents.acp the generic `acp` entry runs the agent each member names (`preset` \
             or `command` in `[members.NAME]`); give your own ACP agent a name of its own, like \
             `[agents.my-agent]` with `type = \"acp\"`"
                .to_owned(),
        ]
    );
    let (registry, _) = parse(text);
    assert_eq!(registry.entry("acp"), Some(&AgentEntry::acp()));
    assert_eq!(registry.entry("typo"), None);
}
