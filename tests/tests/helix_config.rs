//! The Helix integration is configuration only, checked here statically on every machine
//! (real Helix runs in scripts/test-editors-helix where an `hx` is at hand: it has no
//! package on the test machines): `editors/helix/languages.toml` has the keys
//! Helix reads, with values that make `*.chat.md` files start `chatmd lsp`; the guide's
//! snippet agrees with the file; and every `chatmd.*` command the guide tells users to
//! run is one the server announces in `executeCommandProvider`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use toml::Table;

fn helix_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../editors/helix")
}

fn read(rel: &str) -> String {
    let path = helix_dir().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn languages_toml() -> Table {
    read("languages.toml")
        .parse::<Table>()
        .expect("editors/helix/languages.toml is valid TOML")
}

fn chatmd_language(config: &Table) -> &Table {
    let languages = config["language"]
        .as_array()
        .expect("[[language]] is an array of tables");
    let found: Vec<&Table> = languages
        .iter()
        .filter_map(|l| l.as_table())
        .filter(|l| l.get("name").and_then(|n| n.as_str()) == Some("chatmd"))
        .collect();
    assert_eq!(found.len(), 1, "exactly one [[language]] named chatmd");
    found[0]
}

/// The keys Helix's `LanguageConfiguration` accepts (it rejects unknown fields, and one
/// bad key makes Helix ignore the user's whole languages.toml).
const LANGUAGE_KEYS: &[&str] = &[
    "name",
    "language-id",
    "scope",
    "injection-regex",
    "file-types",
    "shebangs",
    "roots",
    "comment-token",
    "comment-tokens",
    "block-comment-tokens",
    "text-width",
    "soft-wrap",
    "auto-format",
    "formatter",
    "diagnostic-severity",
    "grammar",
    "language-servers",
    "indent",
    "debugger",
    "auto-pairs",
    "rulers",
    "workspace-lsp-roots",
    "persistent-diagnostic-sources",
    "path-completion",
    "word-completion",
];

/// The keys of a `[language-server.X]` table.
const SERVER_KEYS: &[&str] = &[
    "command",
    "args",
    "config",
    "timeout",
    "environment",
    "required-root-patterns",
];

#[test]
fn languages_toml_declares_the_chatmd_language_as_helix_expects() {
    let config = languages_toml();
    let lang = chatmd_language(&config);

    for key in lang.keys() {
        assert!(
            LANGUAGE_KEYS.contains(&key.as_str()),
            "[[language]] key `{key}` is not one Helix knows"
        );
    }
    let scope = lang["scope"].as_str().expect("scope is a string");
    assert!(
        scope.starts_with("source.") || scope.starts_with("text."),
        "scope {scope:?}"
    );
    assert_eq!(lang["grammar"].as_str(), Some("markdown"), "grammar");
    assert_eq!(
        lang["file-types"],
        toml::Value::Array(vec![toml::Value::Table(
            [("glob".to_string(), toml::Value::from("*.chat.md"))]
                .into_iter()
                .collect()
        )]),
        "file-types: one glob, *.chat.md (not the md extension, which is Markdown's)"
    );
    let servers: Vec<&str> = lang["language-servers"]
        .as_array()
        .expect("language-servers is an array")
        .iter()
        .map(|s| s.as_str().expect("language server names are strings"))
        .collect();
    // Only chatmd: a server listed and not installed shows as ✘ in `hx --health`.
    assert_eq!(servers, ["chatmd"], "language-servers");
    let roots: Vec<&str> = lang["roots"]
        .as_array()
        .expect("roots is an array")
        .iter()
        .map(|s| s.as_str().expect("roots are strings"))
        .collect();
    // The server's root rule: the repository first. `chatmd.toml` would make the team
    // folder the workspace, where the project's files are out of reach.
    assert_eq!(roots, [".git"], "roots");
    let comments = lang["block-comment-tokens"]
        .as_table()
        .expect("block-comment-tokens");
    assert_eq!(
        (comments["start"].as_str(), comments["end"].as_str()),
        (Some("<!--"), Some("-->"))
    );

    let servers_table = config["language-server"]
        .as_table()
        .expect("[language-server.*] tables");
    for name in &servers {
        let server = servers_table
            .get(*name)
            .and_then(|s| s.as_table())
            .unwrap_or_else(|| panic!("[language-server.{name}] is defined"));
        for key in server.keys() {
            assert!(
                SERVER_KEYS.contains(&key.as_str()),
                "[language-server.{name}] key `{key}` is not one Helix knows"
            );
        }
    }
    let chatmd = servers_table["chatmd"].as_table().expect("chatmd server");
    assert_eq!(chatmd["command"].as_str(), Some("chatmd"), "command");
    assert_eq!(
        chatmd["args"],
        toml::Value::Array(vec!["lsp".into()]),
        "args: the `lsp` subcommand"
    );
}

#[test]
fn the_query_files_inherit_markdown() {
    for file in ["highlights.scm", "injections.scm"] {
        let text = read(&format!("runtime/queries/chatmd/{file}"));
        assert!(
            text.lines().any(|l| l.trim() == "; inherits: markdown"),
            "runtime/queries/chatmd/{file} must say `; inherits: markdown`:\n{text}"
        );
    }
}

/// The ```toml block of the guide.
fn guide_snippet(guide: &str) -> Table {
    let start = guide
        .find("```toml")
        .expect("the guide has a ```toml block")
        + 7;
    let end = start + guide[start..].find("```").expect("the block is closed");
    let block: String = guide[start..end]
        .lines()
        .map(str::trim_start)
        .collect::<Vec<_>>()
        .join("\n");
    block.parse::<Table>().expect("the guide's snippet is TOML")
}

#[test]
fn the_guide_snippet_agrees_with_languages_toml() {
    let guide = read("README.md");
    let snippet = guide_snippet(&guide);
    let file = languages_toml();
    let (short, full) = (chatmd_language(&snippet), chatmd_language(&file));
    for (key, value) in short {
        assert_eq!(Some(value), full.get(key), "[[language]] {key}");
    }
    assert_eq!(
        snippet["language-server"]["chatmd"], file["language-server"]["chatmd"],
        "[language-server.chatmd]"
    );
}

/// Every `chatmd.xxx` command named in the guide, and the JSON argument of each
/// `:lsp-workspace-command chatmd.xxx {...}` example.
fn guide_commands(guide: &str) -> (BTreeSet<String>, Vec<(String, Value)>) {
    let mut names = BTreeSet::new();
    let bytes = guide.as_bytes();
    let mut from = 0;
    while let Some(at) = guide[from..].find("chatmd.") {
        let start = from + at;
        let mut end = start + "chatmd.".len();
        while end < bytes.len() && bytes[end].is_ascii_alphabetic() {
            end += 1;
        }
        let before_ok = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
        // `chatmd.toml` is the team's config file, not a command.
        let is_file = &guide[start..end] == "chatmd.toml";
        if before_ok && !is_file && end > start + "chatmd.".len() {
            names.insert(guide[start..end].to_string());
        }
        from = end;
    }
    let mut examples = Vec::new();
    for line in guide.lines() {
        if let Some(rest) = line.trim().strip_prefix(":lsp-workspace-command ") {
            let (command, json) = rest.split_once(' ').expect("a command and its argument");
            let arg: Value = serde_json::from_str(json)
                .unwrap_or_else(|e| panic!("the argument of `{line}` is not JSON: {e}"));
            examples.push((command.to_string(), arg));
        }
    }
    (names, examples)
}

#[test]
fn the_guide_examples_pass_one_json_object_as_the_contract_says() {
    let guide = read("README.md");
    let (_, examples) = guide_commands(&guide);
    assert!(examples.len() >= 4, "the guide shows the argument form");
    for (command, arg) in &examples {
        let object = arg
            .as_object()
            .unwrap_or_else(|| panic!("{command}: the argument is one JSON object"));
        let keys: BTreeSet<&str> = object.keys().map(String::as_str).collect();
        let allowed: &[&str] = match command.as_str() {
            "chatmd.send" | "chatmd.next" => &["uri"],
            "chatmd.ask" => &["uri", "member"],
            "chatmd.cancel" => &["uri", "member"],
            "chatmd.retry" | "chatmd.fork" => &["uri", "line"],
            "chatmd.answer" => &["uri", "request", "option"],
            "chatmd.newChat" => &["folder", "title"],
            "chatmd.askAbout" => &["uri", "range", "member", "chat", "newChat", "text"],
            other => panic!("the guide runs {other}, which the contract does not have"),
        };
        for key in &keys {
            assert!(allowed.contains(key), "{command}: unexpected key {key}");
        }
        if command != "chatmd.newChat" {
            let uri = object["uri"].as_str().expect("uri is a string");
            assert!(uri.starts_with("file:///"), "{command}: uri {uri}");
        }
    }
}

#[tokio::test]
async fn every_command_the_guide_names_is_announced_by_the_server() {
    let guide = read("README.md");
    let (named, _) = guide_commands(&guide);
    assert!(
        named.contains("chatmd.send"),
        "the guide names chatmd.send: {named:?}"
    );

    let mut client = chatmd_tests::TestClient::spawn(chatmd::lsp::serve);
    let init = client.initialize(json!({}), None).await;
    client.shutdown().await;
    let announced: BTreeSet<String> = init["capabilities"]["executeCommandProvider"]["commands"]
        .as_array()
        .map(|commands| {
            commands
                .iter()
                .filter_map(|c| c.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let missing: Vec<&String> = named.difference(&announced).collect();
    assert!(
        missing.is_empty(),
        "editors/helix/README.md names commands the server does not announce in \
         executeCommandProvider: {missing:?} (announced: {announced:?})"
    );
}

/// The initialization options the server reads, from `lsp/config.rs` (as the guides test
/// reads them).
fn initialization_options() -> BTreeSet<String> {
    let config = std::fs::read_to_string(helix_dir().join("../../server/src/lsp/config.rs"))
        .expect("server/src/lsp/config.rs");
    regex::Regex::new(r#"options\.get\("(\w+)"\)"#)
        .unwrap()
        .captures_iter(&config)
        .map(|c| c[1].to_owned())
        .collect()
}

/// The commented `# config = { … }` line of a file, uncommented and read as TOML.
fn commented_config(rel: &str) -> Table {
    let text = read(rel);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("# config = {"))
        .collect();
    assert_eq!(lines.len(), 1, "{rel}: one commented config line");
    let table = lines[0][2..]
        .parse::<Table>()
        .unwrap_or_else(|e| panic!("{rel}: the config line is not TOML once uncommented: {e}"));
    table["config"]
        .as_table()
        .expect("config is a table")
        .clone()
}

#[test]
fn the_commented_config_shows_every_initialization_option_helix_can_use() {
    let file = commented_config("languages.toml");
    assert_eq!(
        file,
        commented_config("README.md"),
        "the guide's config line"
    );
    assert_eq!(
        file,
        commented_config("../../docs/editors.md"),
        "docs/editors.md's config line"
    );
    // permissionDialog asks with window/showMessageRequest: Helix answers from the block.
    let mut expected = initialization_options();
    assert!(expected.remove("permissionDialog"), "{expected:?}");
    let shown: BTreeSet<String> = file.keys().cloned().collect();
    assert_eq!(shown, expected, "the keys of `config`");
    // Each of the type the server reads (anything else it leaves out, with a warning).
    for (key, value) in &file {
        let fits = match key.as_str() {
            "agentPath" => value.is_str(),
            "warmHeadless" => value.is_bool(),
            "warmMembers" => value.as_integer().is_some_and(|n| n >= 0),
            "outlineItems" => value.as_integer().is_some_and(|n| n > 0),
            _ => value
                .as_float()
                .or(value.as_integer().map(|n| n as f64))
                .is_some_and(|n| n >= 0.0),
        };
        assert!(fits, "{key} = {value} is not what the server reads");
    }
}
