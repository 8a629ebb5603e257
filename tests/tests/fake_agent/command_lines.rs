//! Command lines: refused like the real CLIs, accepted where they accept, and the
//! prompt read where each CLI reads it.

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::fake_support::{Sandbox, is_root, run};
use super::good_args;

/// One command line the real CLI refuses: nothing on stdout, this stderr and code.
struct Refused<'a> {
    cli: &'a str,
    args: &'a [&'a str],
    env: &'a [(&'a str, &'a str)],
    stderr: String,
    code: i32,
}

/// Each refused like the real CLI, with nothing on stdout.
#[test]
fn wrong_command_lines_are_refused_like_the_real_cli() {
    let sandbox = Sandbox::new();
    let missing_home = sandbox.path("no-such-codex-home");
    let missing = missing_home.to_str().expect("UTF-8");
    let codex_home = [("CODEX_HOME", missing)];
    let refused = |cli, args, env, stderr: &str, code| Refused {
        cli,
        args,
        env,
        stderr: stderr.to_owned(),
        code,
    };
    let cases = [
        refused(
            "claude",
            &["-p", "hi", "--output-format", "stream-json"],
            &[],
            "Error: When using --print, --output-format=stream-json requires --verbose\n",
            1,
        ),
        refused(
            "claude",
            &["-p", "hi", "--x"],
            &[],
            "error: unknown option '--x'\n",
            1,
        ),
        refused(
            "claude",
            &["-p", "--bogus=1"],
            &[],
            "error: unknown option '--bogus'\n",
            1,
        ),
        refused(
            "codex",
            &["exec", "--json", "hi"],
            &[],
            "Not inside a trusted directory and --skip-git-repo-check was not specified.\n",
            1,
        ),
        refused(
            "codex",
            &["exec", "--json", "--skip-git-repo-check", "hi"],
            &codex_home,
            &format!(
                "Error finding codex home: CODEX_HOME points to \"{missing}\", but that path does \
                 not exist\n"
            ),
            1,
        ),
        refused(
            "codex",
            &["exec", "--json", "--skip-git-repo-check", "--x", "hi"],
            &[],
            "error: unexpected argument '--x' found\n\n  tip: to pass '--x' as a value, use '-- \
             --x'\n\nUsage: codex exec [OPTIONS] [PROMPT]\n       codex exec [OPTIONS] <COMMAND> \
             [ARGS]\n\nFor more information, try '--help'.\n",
            2,
        ),
        refused(
            "codex",
            &[
                "exec",
                "resume",
                "id",
                "--json",
                "--sandbox",
                "read-only",
                "hi",
            ],
            &[],
            "error: unexpected argument '--sandbox' found\n\n  tip: to pass '--sandbox' as a \
             value, use '-- --sandbox'\n\nUsage: codex exec resume [OPTIONS] [SESSION_ID] \
             [PROMPT]\n\nFor more information, try '--help'.\n",
            2,
        ),
        // A mode the CLI does not know (cli-help: each one's choices).
        refused(
            "claude",
            &["-p", "hi", "--permission-mode", "ask"],
            &[],
            "error: option '--permission-mode <mode>' argument 'ask' is invalid. Allowed \
             choices are acceptEdits, auto, bypassPermissions, default, dontAsk, plan.\n",
            1,
        ),
        refused(
            "codex",
            &[
                "exec",
                "--json",
                "--skip-git-repo-check",
                "--sandbox",
                "none",
                "hi",
            ],
            &[],
            "error: invalid value 'none' for '--sandbox <SANDBOX_MODE>'\n  [possible values: \
             read-only, workspace-write, danger-full-access]\n\nFor more information, try \
             '--help'.\n",
            2,
        ),
        refused(
            "gemini",
            &["-p", "hi", "--skip-trust", "--approval-mode", "ask"],
            &[],
            "Invalid values:\n  Argument: approval-mode, Given: \"ask\", Choices: \"default\", \
             \"auto_edit\", \"yolo\", \"plan\"\n",
            1,
        ),
        refused(
            "gemini",
            &["-p", "hi", "--output-format", "stream-json"],
            &[],
            "Gemini CLI is not running in a trusted directory. To proceed, either use \
             --skip-trust, set the GEMINI_CLI_TRUST_WORKSPACE=true environment variable, or \
             trust this directory…\n",
            55,
        ),
    ];
    for case in cases {
        let mut command = sandbox.command(case.cli, case.args);
        command.envs(case.env.iter().copied());
        let output = run(command, None);
        let shown = format!("{} {:?}", case.cli, case.args);
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            case.stderr,
            "{shown}"
        );
        assert_eq!(output.status.code(), Some(case.code), "{shown}");
        assert_eq!(output.stdout, b"", "{shown}");
    }
}

#[test]
fn what_the_real_cli_accepts_runs() {
    let sandbox = Sandbox::new();
    // codex inside a git repository needs no --skip-git-repo-check.
    std::fs::create_dir(sandbox.work.join(".git")).expect(".git");
    let codex = run(sandbox.command("codex", &["exec", "--json", "hi"]), None);
    assert_eq!(codex.status.code(), Some(0));
    // gemini trusts the folder through the environment as well as --skip-trust.
    let mut gemini = sandbox.command("gemini", &["-p", "hi", "--output-format", "stream-json"]);
    gemini.env("GEMINI_CLI_TRUST_WORKSPACE", "true");
    assert_eq!(run(gemini, None).status.code(), Some(0));
    // The modes chatmd names on every command line.
    for (cli, mode) in [
        ("claude", ["--permission-mode", "default"]),
        ("codex", ["--sandbox", "read-only"]),
        ("gemini", ["--approval-mode", "default"]),
    ] {
        let mut args = good_args(cli).to_vec();
        args.extend(mode);
        let out = run(sandbox.command(cli, &args), None);
        assert_eq!(out.status.code(), Some(0), "{cli}: {out:?}");
    }
    // claude refuses to skip permissions as root, unless IS_SANDBOX=1.
    let mut args = good_args("claude").to_vec();
    args.push("--dangerously-skip-permissions");
    let refused = run(sandbox.command("claude", &args), None);
    if is_root() {
        assert_eq!(
            String::from_utf8_lossy(&refused.stderr),
            "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n"
        );
        assert_eq!(refused.status.code(), Some(1));
    }
    let mut sandboxed = sandbox.command("claude", &args);
    sandboxed.env("IS_SANDBOX", "1");
    assert_eq!(run(sandboxed, None).status.code(), Some(0));
    for (cli, version) in [
        ("claude", "2.1.197 (Claude Code)\n"),
        ("codex", "codex-cli 0.169.0\n"),
        ("gemini", "0.61.0\n"),
    ] {
        let output = run(sandbox.command(cli, &["--version"]), None);
        assert_eq!(String::from_utf8_lossy(&output.stdout), version);
    }
}

fn recorded(
    sandbox: &Sandbox,
    cli: &str,
    args: &[&str],
    env: &[(&str, &str)],
    stdin: Option<&str>,
) -> Value {
    let record = sandbox.path(&format!("{cli}-record.json"));
    let mut command = sandbox.command(cli, args);
    command
        .env("FAKE_AGENT_RECORD", &record)
        .envs(env.iter().copied());
    let output = run(command, stdin.map(str::as_bytes));
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(record).expect("record")).expect("record JSON")
}

#[test]
fn the_prompt_is_read_where_each_cli_reads_it_and_recorded() {
    let sandbox = Sandbox::new();
    let state = sandbox.path("state");
    std::fs::create_dir(&state).expect("state dir");
    let state = state.to_str().expect("UTF-8");

    let codex = recorded(
        &sandbox,
        "codex",
        &["exec", "--json", "--skip-git-repo-check", "-"],
        &[("CODEX_HOME", state)],
        Some("big prompt\n"),
    );
    assert_eq!(codex["prompt"], "big prompt\n");
    assert_eq!(codex["stdin"], "big prompt\n");
    assert_eq!(codex["env"]["CODEX_HOME"], state);
    assert_eq!(codex["cwd"], sandbox.work.to_str().expect("UTF-8"));
    assert_eq!(
        codex["argv"].as_array().map(|argv| argv[1..].to_vec()),
        Some(vec![
            Value::from("exec"),
            "--json".into(),
            "--skip-git-repo-check".into(),
            "-".into()
        ])
    );

    let appended = recorded(
        &sandbox,
        "codex",
        &["exec", "--json", "--skip-git-repo-check", "task"],
        &[],
        Some("extra"),
    );
    assert_eq!(appended["prompt"], "task\n\n<stdin>\nextra\n</stdin>");

    let gemini = recorded(
        &sandbox,
        "gemini",
        &["-p", "", "--output-format", "stream-json", "--skip-trust"],
        &[("GEMINI_CLI_HOME", state)],
        Some("from stdin"),
    );
    assert_eq!(gemini["prompt"], "from stdin");
    assert_eq!(gemini["env"]["GEMINI_CLI_HOME"], state);

    let claude = recorded(
        &sandbox,
        "claude",
        &["-p", "--output-format", "stream-json", "--verbose"],
        &[("CLAUDE_CONFIG_DIR", state)],
        Some("piped"),
    );
    assert_eq!(claude["prompt"], "piped");
    assert_eq!(claude["env"]["CLAUDE_CONFIG_DIR"], state);
    let argument = recorded(&sandbox, "claude", good_args("claude"), &[], None);
    assert_eq!(
        (argument["prompt"].clone(), argument["stdin"].clone()),
        (Value::from("hi"), Value::from(""))
    );
}
