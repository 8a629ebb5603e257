//! The editor guides checked against the product: every command, setting, protocol
//! method, code action title and permission request id a guide shows must be one the
//! product has, and the lists the guides give must be complete. A guide that drifts
//! (a renamed action, a new setting, a command the server dropped) fails here rather
//! than in a newcomer's editor. The product's own lists are read from where they are
//! defined: the server's `initialize` answer and code actions, `server/src/lsp/ext.rs`
//! and `config.rs`, the VS Code extension's `package.json`, the Neovim plugin's
//! commands.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use chatmd_tests::{TestClient, file_uri};
use regex::Regex;
use serde_json::{Value, json};

/// The guides a user reads to set up and use an editor.
const GUIDES: [&str; 5] = [
    "docs/editors.md",
    "docs/editor-features.md",
    "editors/helix/README.md",
    "editors/neovim/doc/chatmd.txt",
    "editors/vscode/README.md",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is inside the workspace")
        .to_path_buf()
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

fn package_json() -> Value {
    serde_json::from_str(&read("editors/vscode/package.json")).expect("package.json is JSON")
}

/// The VS Code extension's commands: `(command, title)`.
fn vscode_commands() -> Vec<(String, String)> {
    package_json()["contributes"]["commands"]
        .as_array()
        .expect("contributes.commands")
        .iter()
        .map(|c| {
            (
                c["command"].as_str().expect("command").to_owned(),
                c["title"].as_str().expect("title").to_owned(),
            )
        })
        .collect()
}

/// The VS Code extension's settings.
fn vscode_settings() -> Vec<String> {
    package_json()["contributes"]["configuration"]["properties"]
        .as_object()
        .expect("contributes.configuration.properties")
        .keys()
        .cloned()
        .collect()
}

/// The Neovim plugin's user commands, as `plugin/chatmd.lua` creates them.
fn neovim_commands() -> BTreeSet<String> {
    let plugin = read("editors/neovim/plugin/chatmd.lua");
    let commands: BTreeSet<String> = Regex::new(r"(?m)^command\('(\w+)'")
        .unwrap()
        .captures_iter(&plugin)
        .map(|c| c[1].to_owned())
        .collect();
    assert!(commands.contains("ChatSend"), "{commands:?}");
    commands
}

/// The Neovim plugin's Lua API (`require('chatmd').statusline()`: `chatmd.statusline`).
fn neovim_lua_api() -> BTreeSet<String> {
    let module = read("editors/neovim/lua/chatmd/init.lua");
    Regex::new(r"(?m)^function M\.(\w+)\(")
        .unwrap()
        .captures_iter(&module)
        .map(|c| format!("chatmd.{}", &c[1]))
        .collect()
}

/// The protocol extensions' method names (`chatmd/turns`, …), from `lsp/ext.rs`.
fn ext_methods() -> BTreeSet<String> {
    let ext = read("server/src/lsp/ext.rs");
    Regex::new(r#"const METHOD: &'static str = "(chatmd/\w+)""#)
        .unwrap()
        .captures_iter(&ext)
        .map(|c| c[1].to_owned())
        .collect()
}

/// The initialization options the server reads, from `lsp/config.rs`.
fn initialization_options() -> BTreeSet<String> {
    let config = read("server/src/lsp/config.rs");
    let options: BTreeSet<String> = Regex::new(r#"options\.get\("(\w+)"\)"#)
        .unwrap()
        .captures_iter(&config)
        .map(|c| c[1].to_owned())
        .collect();
    assert!(options.contains("agentPath"), "{options:?}");
    options
}

/// What the server answers `initialize` with.
async fn announced_commands() -> BTreeSet<String> {
    let mut client = TestClient::spawn(chatmd::lsp::serve);
    let init = client.initialize(json!({}), None).await;
    client.shutdown().await;
    init["capabilities"]["executeCommandProvider"]["commands"]
        .as_array()
        .expect("executeCommandProvider.commands")
        .iter()
        .map(|c| c.as_str().expect("a command name").to_owned())
        .collect()
}

/// The permission block an ACP member's request leaves in its answer, as the fake
/// `gemini --acp` asks it (tests/tests/lsp_turns/permissions.rs sees the same).
const ASKED: &str = "## @me\n@writer please create the file.\n\n## @writer\n\
    <!-- chatmd id=t1 agent=acp status=waiting -->\nI'll run a command.\n\n\
    > **Permission** `t1-p1` — writer wants to run `touch notes.txt` (execute)\n\
    > - [ ] Allow for this session · - [ ] Allow · - [ ] Reject\n";

/// The code actions the server offers on that block: `(title, arguments)`.
async fn permission_actions() -> Vec<(String, Value)> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ask.chat.md"), ASKED).unwrap();
    let uri = file_uri(&dir.path().join("ask.chat.md"));
    let mut client = TestClient::spawn(chatmd::lsp::serve);
    client.initialize(json!({}), Some(dir.path())).await;
    client.open(&uri, ASKED).await;
    let line = ASKED
        .lines()
        .position(|l| l.starts_with("> **Permission**"))
        .unwrap();
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}, "context": {"diagnostics": []}}),
        )
        .await
        .expect("code actions");
    client.shutdown().await;
    actions
        .as_array()
        .expect("a list")
        .iter()
        .filter(|a| a["command"]["command"] == "chatmd.answer")
        .map(|a| {
            (
                a["title"].as_str().unwrap().to_owned(),
                a["command"]["arguments"][0].clone(),
            )
        })
        .collect()
}

/// Every `chatmd.name` and `chatmd/name` a guide mentions, file names left out.
fn named_identifiers(guide: &str) -> BTreeSet<String> {
    Regex::new(r"(?:^|[^\w/.-])(chatmd[./][A-Za-z][\w.]*[A-Za-z])")
        .unwrap()
        .captures_iter(guide)
        .map(|c| c[1].to_owned())
        .filter(|name| {
            let file = [
                ".toml", ".json", ".md", ".txt", ".lua", ".rs", ".vsix", ".el",
            ];
            !file.iter().any(|ext| name.ends_with(ext)) && !name.starts_with("chatmd.tmLanguage")
        })
        .collect()
}

#[tokio::test]
async fn the_guides_name_only_commands_settings_and_methods_the_product_has() {
    let announced = announced_commands().await;
    let known: BTreeSet<String> = announced
        .iter()
        .cloned()
        .chain(vscode_commands().into_iter().map(|(command, _)| command))
        .chain(vscode_settings())
        .chain(ext_methods())
        .chain(neovim_lua_api())
        .collect();
    let mut unknown = Vec::new();
    for guide in GUIDES {
        for name in named_identifiers(&read(guide)) {
            if !known.contains(&name) {
                unknown.push(format!("{guide}: {name}"));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "the guides name what the product does not have: {unknown:#?}\nknown: {known:#?}"
    );
}

/// The code action titles a guide shows: in quotes or bold, starting the way the
/// server's titles do.
fn shown_action_titles(guide: &str) -> BTreeSet<String> {
    const STARTS: [&str; 10] = [
        "Send to ",
        "Ask @",
        "Continue (",
        "Cancel @",
        "Retry @",
        "Fork ",
        "Allow",
        "Reject",
        "Change to ",
        "Trust ",
    ];
    Regex::new(r#"\*\*([^*\n]+)\*\*|"([^"\n]+)""#)
        .unwrap()
        .captures_iter(guide)
        // Not a value in a JSON example (`"option": "Allow"`), nor the option a record
        // quotes (`allowed once ("Allow")`).
        .filter(|c| {
            let before = &guide[..c.get(0).unwrap().start()];
            !before.ends_with(": ") && !before.ends_with('(')
        })
        .filter_map(|c| c.get(1).or(c.get(2)).map(|m| m.as_str().to_owned()))
        .filter(|t| STARTS.iter().any(|s| t.starts_with(s)))
        .collect()
}

/// The titles the server builds, as patterns: its `format!` strings and constants in
/// the modules that make code actions (`{…}` stands for any text).
fn action_title_patterns() -> Vec<Regex> {
    let sources = [
        "server/src/lsp/turn_actions.rs",
        "server/src/lsp/trust.rs",
        "server/src/conversation/problems.rs",
    ];
    let literal = Regex::new(r#"(?:format!\(|: &str = )"([^"]+)""#).unwrap();
    let placeholder = Regex::new(r"\\\{[^}]*\\\}").unwrap();
    sources
        .iter()
        .flat_map(|file| {
            literal
                .captures_iter(&read(file))
                .map(|c| c[1].to_owned())
                .collect::<Vec<_>>()
        })
        .map(|text| {
            let escaped = regex::escape(&text);
            let pattern = placeholder.replace_all(&escaped, ".+");
            Regex::new(&format!("^{pattern}$")).unwrap()
        })
        .collect()
}

#[tokio::test]
async fn every_action_title_the_guides_show_is_one_the_server_offers() {
    let permission: BTreeSet<String> = permission_actions()
        .await
        .into_iter()
        .map(|(title, _)| title)
        .collect();
    assert!(permission.contains("Allow (t1-p1)"), "{permission:?}");
    let patterns = action_title_patterns();
    let mut wrong = Vec::new();
    for guide in GUIDES {
        for title in shown_action_titles(&read(guide)) {
            let is_permission = title.starts_with("Allow") || title.starts_with("Reject");
            let offered = if is_permission {
                permission.contains(&title)
            } else {
                patterns.iter().any(|p| p.is_match(&title))
            };
            if !offered {
                wrong.push(format!("{guide}: \"{title}\""));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the guides show code actions the server does not offer: {wrong:#?}\n\
         the permission block's actions: {permission:?}"
    );
}

#[tokio::test]
async fn the_guides_answer_permission_requests_as_the_server_names_them() {
    let actions = permission_actions().await;
    let ids: BTreeSet<String> = actions
        .iter()
        .map(|(_, args)| args["request"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, BTreeSet::from(["t1-p1".to_owned()]));
    let options: BTreeSet<String> = actions
        .iter()
        .map(|(_, args)| args["option"].as_str().unwrap().to_owned())
        .collect();
    // `"request": "p1"` (JSON) and `request = 'p1'` (Lua); the block's `` `t1-p1` ``.
    let request = Regex::new(r#"request["']?\s*[:=]\s*["']([^"']+)["']"#).unwrap();
    let option = Regex::new(r#"option["']?\s*[:=]\s*["']([^"'…]+)["']"#).unwrap();
    let block = Regex::new(r"\*\*Permission\*\* `?([\w-]+)`?").unwrap();
    let mut wrong = Vec::new();
    for guide in GUIDES {
        let text = read(guide);
        for id in request
            .captures_iter(&text)
            .chain(block.captures_iter(&text))
        {
            if !ids.contains(&id[1]) {
                wrong.push(format!("{guide}: request `{}`", &id[1]));
            }
        }
        for chosen in option.captures_iter(&text) {
            if !options.contains(&chosen[1]) {
                wrong.push(format!("{guide}: option `{}`", &chosen[1]));
            }
        }
        for stale in ["no agent asks yet", "Allow once ("] {
            if text.contains(stale) {
                wrong.push(format!("{guide}: says \"{stale}\""));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the guides' permission requests are not the server's (ids {ids:?}, options {options:?}): {wrong:#?}"
    );
}

#[test]
fn the_vs_code_guides_list_every_command_and_setting_of_the_extension() {
    let readme = read("editors/vscode/README.md");
    let editors = read("docs/editors.md");
    let mut missing = Vec::new();
    for (command, title) in vscode_commands() {
        let shown = format!("**chatmd: {title}**");
        for (guide, text) in [
            ("editors/vscode/README.md", &readme),
            ("docs/editors.md", &editors),
        ] {
            if !text.contains(&shown) {
                missing.push(format!("{guide}: {shown} ({command})"));
            }
        }
    }
    for setting in vscode_settings() {
        let shown = format!("| `{setting}` |");
        for (guide, text) in [
            ("editors/vscode/README.md", &readme),
            ("docs/editors.md", &editors),
        ] {
            if !text.contains(&shown) {
                missing.push(format!("{guide}: the settings table lacks {setting}"));
            }
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn the_settings_table_lists_every_initialization_option() {
    let features = read("docs/editor-features.md");
    let start = features
        .find("\n## Settings\n")
        .expect("a Settings section");
    let section = &features[start..];
    let section = &section[..section[1..].find("\n## ").map_or(section.len(), |e| e + 1)];
    let missing: Vec<String> = initialization_options()
        .into_iter()
        .filter(|option| !section.contains(&format!("| `{option}` |")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/editor-features.md's settings table lacks {missing:?}"
    );
}

#[test]
fn the_neovim_guides_name_every_command_of_the_plugin_and_no_other() {
    let commands = neovim_commands();
    let editors = read("docs/editors.md");
    let neovim_section = {
        let start = editors.find("\n## Neovim\n").expect("a Neovim section");
        let rest = &editors[start + 1..];
        rest[..rest.find("\n## Helix\n").expect("a Helix section after it")].to_owned()
    };
    let named = Regex::new(r":(?:'<,'>|\[range\])?(Chat[A-Z]\w*)").unwrap();
    let mut wrong = Vec::new();
    for (guide, text) in [
        ("docs/editors.md (Neovim)", neovim_section),
        (
            "editors/neovim/doc/chatmd.txt",
            read("editors/neovim/doc/chatmd.txt"),
        ),
    ] {
        let shown: BTreeSet<String> = named
            .captures_iter(&text)
            .map(|c| c[1].to_owned())
            .collect();
        for unknown in shown.difference(&commands) {
            wrong.push(format!(
                "{guide} names :{unknown}, which the plugin does not define"
            ));
        }
        for missing in commands.difference(&shown) {
            wrong.push(format!("{guide} does not name :{missing}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn the_editor_tests_cover_every_command_and_menu_item_the_guides_name() {
    // VS Code: every command title of the extension, in the end-to-end test's steps.
    let e2e: String = ["e2e.mjs", "e2e-drafts.mjs", "e2e-streaming.mjs"]
        .iter()
        .map(|f| read(&format!("editors/vscode/test/{f}")))
        .collect();
    let mut untested = Vec::new();
    for (command, title) in vscode_commands() {
        if !e2e.contains(&format!("'chatmd: {title}'")) && !e2e.contains(&format!("'{title}'")) {
            untested.push(format!("VS Code: {command} (\"chatmd: {title}\")"));
        }
    }
    // Neovim: every command of the plugin, run by a test of the suite.
    let dir = root().join("editors/neovim/tests");
    let suite: String = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("test_"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    for command in neovim_commands() {
        let run = Regex::new(&format!(r"vim\.cmd\(?['\[]?[\d,]*{command}\b")).unwrap();
        if !run.is_match(&suite) {
            untested.push(format!("Neovim: :{command}"));
        }
    }
    // VS Code menus: each item of the editor's context menu and title bar, clicked in
    // that menu (a menu passes the file's Uri, the palette nothing: issue 28's item 1
    // broke only from the menu).
    let menus = &package_json()["contributes"]["menus"];
    let titles: std::collections::BTreeMap<String, String> =
        vscode_commands().into_iter().collect();
    for (menu, item) in menus
        .as_object()
        .expect("contributes.menus")
        .iter()
        .filter(|(menu, _)| *menu != "commandPalette")
        .flat_map(|(menu, items)| items.as_array().unwrap().iter().map(move |i| (menu, i)))
    {
        let command = item["command"].as_str().expect("command");
        let title = &titles[command];
        let clicked = match menu.as_str() {
            "editor/context" => format!("runEditorContextMenuItem('{title}')"),
            "editor/title" => format!(".editor-actions .action-label[aria-label^=\"{title}\"]"),
            other => format!("(no driver for the {other} menu)"),
        };
        if !e2e.contains(&clicked) {
            untested.push(format!("VS Code: {command} from the {menu} menu"));
        }
    }
    // Emacs: every command of chatmd.el the guides name, run by the batch tests through
    // its key or `M-x`, as a user runs it.
    let emacs_tests = read("editors/emacs/tests/chatmd-test.el");
    let typed: Vec<&str> = Regex::new(r#"chatmd-test--keys "([^"]*)""#)
        .unwrap()
        .captures_iter(&emacs_tests)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    let keys = emacs_keys();
    for command in emacs_commands_named_in_the_guides() {
        let by_name = format!("M-x {command} RET");
        let by_key = keys.iter().filter(|(_, c)| *c == command).any(|(key, _)| {
            typed
                .iter()
                .any(|t| t.starts_with(key.as_str()) || t.contains(&format!(" {key}")))
        });
        if !by_key && !typed.iter().any(|t| t.contains(&by_name)) {
            untested.push(format!("Emacs: {command}"));
        }
    }
    assert!(
        untested.is_empty(),
        "named in the guides, run by no editor test: {untested:#?}"
    );
}

/// The interactive commands of editors/emacs/chatmd.el: each `defun` whose body says
/// `(interactive`.
fn emacs_commands() -> BTreeSet<String> {
    let source = read("editors/emacs/chatmd.el");
    source
        .split("\n(defun ")
        .skip(1)
        .filter(|definition| definition.contains("\n  (interactive"))
        .filter_map(|definition| definition.split_whitespace().next())
        .filter(|name| name.starts_with("chatmd-") && !name.starts_with("chatmd--"))
        .map(str::to_owned)
        .collect()
}

/// The interactive commands of chatmd.el that the Emacs guides name.
fn emacs_commands_named_in_the_guides() -> BTreeSet<String> {
    let guides = read("editors/emacs/README.md") + &read("docs/editors.md");
    emacs_commands()
        .into_iter()
        .filter(|c| guides.contains(&format!("`{c}`")) || guides.contains(&format!(". {c})")))
        .collect()
}

/// The keys chatmd-mode binds: `(key, command)` from chatmd.el's keymap.
fn emacs_keys() -> Vec<(String, String)> {
    let source = read("editors/emacs/chatmd.el");
    Regex::new(r#"\(define-key map \(kbd "([^"]+)"\) #'(chatmd-[a-z-]+)\)"#)
        .unwrap()
        .captures_iter(&source)
        .map(|c| (c[1].to_owned(), c[2].to_owned()))
        .collect()
}

#[test]
fn the_emacs_commands_and_keys_are_read_from_chatmd_el() {
    // The coverage check above reads these; an empty list would make it pass vacuously.
    let named = emacs_commands_named_in_the_guides();
    for command in [
        "chatmd-send",
        "chatmd-ask",
        "chatmd-cancel",
        "chatmd-answer",
        "chatmd-ask-about",
    ] {
        assert!(named.contains(command), "{command} not in {named:?}");
    }
    let keys: Vec<String> = emacs_keys().into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["C-c C-c", "C-c C-a", "C-c C-k", "C-c C-r"]);
}

#[test]
fn the_helix_guide_says_what_fetching_and_building_grammars_take() {
    let guide = read("editors/helix/README.md");
    for needed in [
        "hx --grammar fetch",
        "needs git and the network",
        "about 250",
        r#"use-grammars = { only = ["markdown", "markdown_inline"] }"#,
        "~/.config/helix/runtime/grammars",
        "$HELIX_RUNTIME",
    ] {
        assert!(
            guide.contains(needed),
            "editors/helix/README.md lacks `{needed}`"
        );
    }
}
