//! Tidy: the rules of the house, checked on the source tree (as rust-analyzer's tidy
//! tests do), so they hold without a reviewer remembering them.
//!
//! For every `.rs` file under `server/src`:
//! - LSP types (`tower_lsp_server`, `ls_types`, `lsp_types`) only under `src/lsp/`.
//!   `main.rs` is no exception: it starts the CLI, and `chatmd lsp` goes through
//!   `lsp::run_stdio`, which hides the LSP crate.
//! - No `tokio` (nor `tokio_util`) in `document/`, `conversation/`, `agents/` or
//!   `team/`: those are pure (or, for `team/`, blocking) code that a runtime drives
//!   from outside.
//! - At most [`MAX_LINES`] lines: split a module before it gets there.
//! - One registry of what runs: in `turns/`, `lsp/` and `cli/`, only `turns/runs/`
//!   keeps a collection of runs, running turns or agent processes kept between turns
//!   (a map, set or list named `runs`, `*_runs`, `running`, `claimed`, `claims`,
//!   `active_*`, `kept*`, `warm*`, …, or holding the runner's `Kept`): the language
//!   server and `chatmd send` ask it rather than keep their own (issue 29 found four,
//!   and a pool of warm processes beside them).
//! - The file opens with a `//!` doc comment that says the module's job. Test modules
//!   (`tests.rs`, `*_tests.rs`, files under a `tests/` folder) are exempt: their
//!   parent's `mod tests;` and their name say what they are.
//!
//! - No import runs back up the layers: a file in one top folder of `src/` uses
//!   (`crate::<folder>`) only its own folder and the folders below it, in the order
//!   of the table "The folders" in docs/architecture.md (lowest first). Top-level
//!   modules outside that table (`malloc.rs`) are free to use.
//!
//! - No code outside `agents/` names a particular agent kind (`AgentKind::Codex`):
//!   every decision per kind is a field of the kind's `KindSpec` in its own folder
//!   under `agents/`, reached through `kinds::spec_of`, so a new kind touches its
//!   folder and the one list. `agent_config/` holds each kind's entry (what `team/`
//!   reads) and the ACP presets that say which kind they run; test modules may name
//!   kinds freely. Nor does code outside `agents/` reach into a kind's folder
//!   (`agents::claude::…`, the folders read from the one list of kinds in
//!   agent_config/kind.rs).
//!
//! Comments are not code: a doc that says "no tokio here" breaks no rule.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The most lines a source file may have.
const MAX_LINES: usize = 400;

/// Files allowed past [`MAX_LINES`] for now, relative to `server/src`. To split in
/// issue 12 (runner/turn.rs, turns/round.rs): remove an entry when its file is split
/// (the test fails while an entry is no longer needed).
const TOO_LONG_FOR_NOW: &[&str] = &[];

/// Folders (relative to `server/src`) whose code must not use tokio.
const NO_TOKIO: &[&str] = &["document/", "conversation/", "agents/", "team/"];

/// Where turns are run, and so where a second registry of them would grow.
const RUNS_ONLY_IN_REGISTRY: &[&str] = &["turns/", "lsp/", "cli/"];
/// The one registry of what runs.
const REGISTRY: &str = "turns/runs/";
/// Collections, as a field's or binding's type.
const COLLECTIONS: &[&str] = &[
    "HashMap", "BTreeMap", "HashSet", "BTreeSet", "Vec", "VecDeque", "IndexMap",
];

/// Where a particular agent kind may be named: its folder and the one list, and the
/// kinds' entries (and the presets naming theirs) below `team/`.
const KINDS_NAMED_IN: &[&str] = &["agents/", "agent_config/"];

/// The names that mean LSP types.
const LSP_CRATES: &[&str] = &["tower_lsp_server", "ls_types", "lsp_types"];

#[test]
fn the_source_tree_keeps_the_rules_of_the_house() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let layers = layers_of(&architecture_doc());
    let mut problems = String::new();
    let mut files = source_files(&src);
    files.sort();
    assert!(
        files.len() > 50,
        "found only {} files under {}",
        files.len(),
        src.display()
    );
    let kind_folders = kind_folders(&src);
    assert!(
        kind_folders.iter().any(|f| f == "claude"),
        "the list of kinds in agent_config/kind.rs has {kind_folders:?}"
    );
    for path in &files {
        let name = relative(&src, path);
        let text = std::fs::read_to_string(path).expect("source files are UTF-8");
        for problem in check(&name, &text) {
            writeln!(problems, "server/src/{name}: {problem}").unwrap();
        }
        if !name.starts_with("agents/") {
            for (n, line) in text.lines().enumerate() {
                if let Some(folder) = reached_kind_folder(code_part(line), &kind_folders) {
                    writeln!(
                        problems,
                        "server/src/{name}: line {} reaches into agents/{folder}/: ask the kind's `KindSpec` (agents/kinds.rs) or the entry's adapter instead",
                        n + 1
                    )
                    .unwrap();
                }
            }
        }
        for problem in upward_imports(&layers, &name, &text) {
            writeln!(problems, "server/src/{name}: {problem}").unwrap();
        }
    }
    for allowed in TOO_LONG_FOR_NOW {
        let Some(path) = files.iter().find(|p| relative(&src, p) == *allowed) else {
            writeln!(
                problems,
                "server/src/{allowed}: listed in TOO_LONG_FOR_NOW but gone; remove the entry"
            )
            .unwrap();
            continue;
        };
        let lines = std::fs::read_to_string(path).unwrap().lines().count();
        if lines <= MAX_LINES {
            writeln!(
                problems,
                "server/src/{allowed}: {lines} lines now, no longer over {MAX_LINES}; remove it from TOO_LONG_FOR_NOW"
            )
            .unwrap();
        }
    }
    assert!(
        problems.is_empty(),
        "the rules of the house are broken:\n{problems}"
    );
}

/// What is wrong with the file `name` (relative to `server/src`, with `/`) holding `text`.
fn check(name: &str, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let code: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, code_part(line)))
        .collect();
    if !name.starts_with("lsp/") {
        for &(n, line) in &code {
            if let Some(word) = LSP_CRATES.iter().find(|w| has_word(line, w)) {
                problems.push(format!(
                    "line {n} uses `{word}`: LSP types belong in src/lsp/ only (convert at the lsp/ boundary)"
                ));
            }
        }
    }
    if NO_TOKIO.iter().any(|dir| name.starts_with(dir)) {
        for &(n, line) in &code {
            if has_word(line, "tokio") || has_word(line, "tokio_util") {
                problems.push(format!(
                    "line {n} uses tokio: document/, conversation/, agents/ and team/ stay free of the async runtime"
                ));
            }
        }
    }
    if RUNS_ONLY_IN_REGISTRY
        .iter()
        .any(|dir| name.starts_with(dir))
        && !name.starts_with(REGISTRY)
    {
        for &(n, line) in &code {
            if let Some(held) = registry_of_runs(line).or_else(|| collection_of_kept(line)) {
                problems.push(format!(
                    "line {n} keeps `{held}`, a collection of what runs: runs and their turns are kept in turns/runs/ only (ask it)"
                ));
            }
        }
    }
    if !KINDS_NAMED_IN.iter().any(|dir| name.starts_with(dir)) && !is_test_module(name) {
        for &(n, line) in code
            .iter()
            .take_while(|(_, line)| !is_test_module_start(line))
        {
            if let Some(kind) = named_kind(line) {
                problems.push(format!(
                    "line {n} names `AgentKind::{kind}`: what differs per agent kind is a field of its `KindSpec` (agents/kinds.rs, asked through `spec_of(kind)`), or of its entry in agent_config/kind.rs for what team/ reads"
                ));
            }
        }
    }
    let lines = text.lines().count();
    if lines > MAX_LINES && !TOO_LONG_FOR_NOW.contains(&name) {
        problems.push(format!(
            "{lines} lines, over the {MAX_LINES}-line limit: split the module"
        ));
    }
    if !is_test_module(name) && !text.starts_with("//!") {
        problems.push("does not open with a `//!` doc comment saying the module's job".into());
    }
    problems
}

/// docs/architecture.md, whose table of folders is the layer order tidy checks.
fn architecture_doc() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/architecture.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The folders of the table under "## The folders" (rows that open with
/// `` | `name/` | ``), lowest layer first.
fn layers_of(doc: &str) -> Vec<String> {
    let section = doc
        .split("\n## ")
        .find(|part| part.starts_with("The folders"))
        .expect("docs/architecture.md has a section \"## The folders\"");
    let layers: Vec<String> = section
        .lines()
        .filter_map(|line| line.strip_prefix("| `")?.split_once("/` |"))
        .map(|(folder, _)| folder.to_owned())
        .collect();
    assert!(
        layers.len() >= 5,
        "docs/architecture.md lists only {layers:?} as folders"
    );
    layers
}

/// The imports in `name` (relative to `server/src`) of a folder above its own in
/// `layers` (lowest first): `crate::<folder>`, alone or in a `crate::{...}` group.
fn upward_imports(layers: &[String], name: &str, text: &str) -> Vec<String> {
    let own = name.split('/').next().unwrap_or(name);
    let Some(level) = layers.iter().position(|layer| layer == own) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for used in used_folders(code_part(line)) {
            let Some(used_level) = layers.iter().position(|layer| *layer == used) else {
                continue;
            };
            if used_level > level {
                problems.push(format!(
                    "line {} uses `crate::{used}`, a layer above `{own}/` (the order in docs/architecture.md, lowest first: {}): move what both need down, or the code up",
                    i + 1,
                    layers.join(" < ")
                ));
            }
        }
    }
    problems
}

/// The top folders `line` names after `crate::`, including each first name of a
/// `crate::{a::x, b}` group on the same line.
fn used_folders(line: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (i, _) in line.match_indices("crate::") {
        let before = line[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &line[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if c.is_whitespace() => {}
                    _ if start => {
                        out.push(ident(&group[j..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out
}

/// The name of the field or binding on `line` that is a collection of runs or running
/// turns, if one is: `name: Collection<…>` or `let [mut] name = Collection::…`, its name
/// saying what it holds.
fn registry_of_runs(line: &str) -> Option<String> {
    let says_runs = |name: &str| {
        let name = name.to_ascii_lowercase();
        name == "runs"
            || name.ends_with("_runs")
            || name.starts_with("runs_")
            || name.contains("running")
            || name.starts_with("claim")
            || name.starts_with("active_")
            || name == "answering"
            || name.starts_with("kept")
            || name.ends_with("_kept")
            || name.starts_with("warm")
            || name.ends_with("_warm")
    };
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let line = line.trim_start();
    let line = line.strip_prefix("pub ").unwrap_or(line);
    let line = line
        .strip_prefix("pub(crate) ")
        .or_else(|| line.strip_prefix("pub(super) "))
        .unwrap_or(line);
    let (name, rest) = match line.strip_prefix("let ") {
        Some(binding) => {
            let binding = binding.strip_prefix("mut ").unwrap_or(binding);
            let end = binding.find(|c| !is_ident(c))?;
            (&binding[..end], binding[end..].trim_start())
        }
        None => {
            let end = line.find(|c| !is_ident(c))?;
            (&line[..end], line[end..].trim_start())
        }
    };
    if name.is_empty() || !says_runs(name) {
        return None;
    }
    let typed = rest
        .strip_prefix(':')
        .or_else(|| rest.strip_prefix('='))?
        .trim_start();
    let typed = typed.strip_prefix("std::collections::").unwrap_or(typed);
    COLLECTIONS
        .iter()
        .any(|c| typed.starts_with(c) && typed[c.len()..].starts_with(['<', ':']))
        .then(|| name.to_owned())
}

/// The variant of `AgentKind` that `line` names, if any (`AgentKind::ALL`, a
/// constant, names none).
fn named_kind(line: &str) -> Option<&str> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices("AgentKind::").find_map(|(i, found)| {
        let before = line[..i].chars().next_back();
        let rest = &line[i + found.len()..];
        let end = rest.find(|c| !is_ident(c)).unwrap_or(rest.len());
        let variant = &rest[..end];
        let camel_case = variant.starts_with(|c: char| c.is_ascii_uppercase())
            && variant.contains(|c: char| c.is_ascii_lowercase());
        (!before.is_some_and(is_ident) && camel_case).then_some(variant)
    })
}

/// The folders under `agents/` of the built-in kinds: the `<Variant> in <folder> =>`
/// entries of the one list of kinds in agent_config/kind.rs.
fn kind_folders(src: &Path) -> Vec<String> {
    let kinds =
        std::fs::read_to_string(src.join("agent_config/kind.rs")).expect("agent_config/kind.rs");
    kinds
        .lines()
        .filter_map(|line| {
            let (_, folder) = line.trim().split_once(" in ")?;
            let folder = folder.strip_suffix(" => KindFacts {")?;
            folder
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_')
                .then(|| folder.to_owned())
        })
        .collect()
}

/// The kind folder that `line` reaches into (`agents::codex::toml_string`), if any.
fn reached_kind_folder<'a>(line: &str, folders: &'a [String]) -> Option<&'a str> {
    folders
        .iter()
        .find(|folder| {
            let path = format!("agents::{folder}");
            line.match_indices(&path).any(|(i, _)| {
                let after = &line[i + path.len()..];
                after.starts_with("::") || after.starts_with(';') || after.starts_with(" as ")
            })
        })
        .map(String::as_str)
}

/// Whether `line` opens a file's inline test module (`mod tests {`): tidy reads no
/// further for the kind rule, as test modules close the files here.
fn is_test_module_start(line: &str) -> bool {
    line.trim() == "mod tests {"
}

/// The collection of the runner's kept processes (`Kept`) on `line`, if one is: a
/// second pool of warm agents, whatever its name.
fn collection_of_kept(line: &str) -> Option<String> {
    COLLECTIONS.iter().find_map(|c| {
        line.match_indices(&format!("{c}<"))
            .any(|(at, _)| has_word(&line[at..], "Kept"))
            .then(|| format!("{c}<…Kept…>"))
    })
}

fn is_test_module(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name);
    file == "tests.rs" || file.ends_with("_tests.rs") || name.contains("tests/")
}

/// The line without its `//` comment (a `//` inside a string literal cuts the line
/// short too, which can only hide a match, never make one).
fn code_part(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i])
}

/// Whether `word` stands in `line` as a whole identifier.
fn has_word(line: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(word).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

fn source_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("readable entry").path();
        if path.is_dir() {
            out.extend(source_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

fn relative(src: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(src).expect("under src");
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The checks themselves, on made-up files: each rule fires, names its rule, and
/// stays quiet where it should.
#[test]
fn each_rule_fires_and_says_which() {
    let doc = "//! A module.\n";
    assert_eq!(check("document/x.rs", doc), Vec::<String>::new());

    let lsp = format!("{doc}use tower_lsp_server::ls_types::Position;\n");
    assert_eq!(check("lsp/x.rs", &lsp), Vec::<String>::new());
    let found = check("turns/x.rs", &lsp);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("line 2 uses `tower_lsp_server`: LSP types belong in src/lsp/"));
    // In a comment, or as part of a longer name, it is no use of the crate.
    let quiet = format!("{doc}// ls_types stay in lsp/\nlet my_ls_types = 1;\n");
    assert_eq!(check("turns/x.rs", &quiet), Vec::<String>::new());

    let tokio = format!("{doc}#[tokio::test]\n");
    assert_eq!(check("runner/x.rs", &tokio), Vec::<String>::new());
    for dir in NO_TOKIO {
        let found = check(&format!("{dir}x.rs"), &tokio);
        assert_eq!(found.len(), 1, "{dir}: {found:?}");
        assert!(found[0].starts_with("line 2 uses tokio: document/, conversation/"));
    }
    let said = format!("{doc}//! No tokio here.\nlet x = 1; // not tokio either\n");
    assert_eq!(check("agents/x.rs", &said), Vec::<String>::new());

    let long = format!("{doc}{}", "x\n".repeat(MAX_LINES - 1));
    assert_eq!(check("team/x.rs", &long), Vec::<String>::new());
    let too_long = format!("{long}x\n");
    assert_eq!(
        check("team/x.rs", &too_long),
        ["401 lines, over the 400-line limit: split the module"]
    );
    // (An exemption, while one is listed, lets a long file be.)
    if let Some(allowed) = TOO_LONG_FOR_NOW.first() {
        assert_eq!(check(allowed, &too_long), Vec::<String>::new());
    }

    // A registry of what runs outside turns/runs/, as the four of issue 29 were.
    for (file, line) in [
        ("lsp/state.rs", "    pub active_runs: HashMap<Uri, usize>,"),
        ("lsp/port.rs", "    claimed: Vec<String>,"),
        (
            "turns/running.rs",
            "    turns: Arc<Mutex<Turns>>,\n    running: BTreeMap<String, Claim>,",
        ),
        (
            "cli/send.rs",
            "    let mut running = std::collections::HashSet::new();",
        ),
        // The warm pool beside the registry, as it was before it moved into it.
        (
            "turns/warm/mod.rs",
            "    entries: Vec<Entry>,\n    kept: Vec<Entry>,",
        ),
        ("lsp/state.rs", "    pub warm: HashMap<PathBuf, Arc<Pool>>,"),
        (
            "cli/send.rs",
            "    let pool: BTreeMap<String, Kept> = BTreeMap::new();",
        ),
    ] {
        let found = check(file, &format!("{doc}{line}\n"));
        assert_eq!(found.len(), 1, "{file}: {found:?}");
        assert!(found[0].contains("a collection of what runs"), "{found:?}");
    }
    let kept = format!("{doc}    claimed: Vec<String>,\n");
    assert_eq!(check("turns/runs/mod.rs", &kept), Vec::<String>::new());
    assert_eq!(check("agents/acp/terminal.rs", &kept), Vec::<String>::new());
    let quiet = format!(
        "{doc}    running: Runs,\n    let runs = lock(state).running.clone();\n    \
         let kept = runs.take_kept(&wanted).await;\n    fn keep(&self, kept: Kept) {{}}\n"
    );
    assert_eq!(check("lsp/port.rs", &quiet), Vec::<String>::new());

    // A decision per kind outside agents/, as cli/init, cli/report and cli/import made
    // before each kind's spec held them.
    for (file, line) in [
        ("cli/report.rs", "    if kind == AgentKind::Codex {"),
        (
            "cli/init/files.rs",
            "        Runs::Cli(AgentKind::Claude) => \"Claude Code\",",
        ),
        (
            "team/autoload.rs",
            "        AgentKind::Gemini => &[\"GEMINI.md\"],",
        ),
        (
            "turns/plan.rs",
            "    matches!(kind, crate::agents::AgentKind::Claude)",
        ),
    ] {
        let found = check(file, &format!("{doc}{line}\n"));
        assert_eq!(found.len(), 1, "{file}: {found:?}");
        assert!(
            found[0].starts_with("line 2 names `AgentKind::"),
            "{found:?}"
        );
        assert!(found[0].contains("a field of its `KindSpec`"), "{found:?}");
    }
    let per_kind = format!("{doc}    if kind == AgentKind::Codex {{\n");
    assert_eq!(check("agents/auth.rs", &per_kind), Vec::<String>::new());
    assert_eq!(
        check("agent_config/presets.rs", &per_kind),
        Vec::<String>::new()
    );
    assert_eq!(check("cli/init/tests.rs", &per_kind), Vec::<String>::new());
    let in_tests = format!(
        "{doc}fn f() {{}}\n\n#[cfg(test)]\nmod tests {{\n    if kind == AgentKind::Codex {{\n"
    );
    assert_eq!(check("cli/report.rs", &in_tests), Vec::<String>::new());
    let generic = format!(
        "{doc}    for &kind in AgentKind::ALL {{ // AgentKind::Codex\n    let k: MyAgentKind::Codex;\n"
    );
    assert_eq!(check("cli/import/list.rs", &generic), Vec::<String>::new());

    let undocumented = "/// An item doc is not a module doc.\nfn f() {}\n";
    assert_eq!(
        check("team/x.rs", undocumented),
        ["does not open with a `//!` doc comment saying the module's job"]
    );
    assert_eq!(check("team/x/tests.rs", undocumented), Vec::<String>::new());
    assert_eq!(
        check("lsp/framing/reader_tests.rs", undocumented),
        Vec::<String>::new()
    );
}

/// The layer check on made-up files: an import from above fails with the order, one
/// from below or its own folder (or outside the table) passes.
#[test]
fn an_import_from_a_higher_layer_fails() {
    let doc = "# x\n\n## The folders\n\n| folder | job |\n| --- | --- |\n| `document/` | a |\n| `team/` | b |\n| `agents/` | c |\n| `turns/` | d |\n| `lsp/` | e |\n\n## Other\n\n| `cli/` | not a layer |\n";
    let layers = layers_of(doc);
    assert_eq!(layers, ["document", "team", "agents", "turns", "lsp"]);
    let down = "//! A module.\nuse crate::document::Chat;\nuse crate::team::Member;\npub(in crate::agents) fn f() {}\nuse crate::malloc;\n";
    assert_eq!(
        upward_imports(&layers, "agents/x.rs", down),
        Vec::<String>::new()
    );
    let up = "//! A module.\nuse crate::turns::Context; // uses crate::lsp in a comment\nuse crate::{document::Chat, lsp::{State, x}};\n";
    assert_eq!(
        upward_imports(&layers, "team/config/x.rs", up),
        [
            "line 2 uses `crate::turns`, a layer above `team/` (the order in docs/architecture.md, lowest first: document < team < agents < turns < lsp): move what both need down, or the code up",
            "line 3 uses `crate::lsp`, a layer above `team/` (the order in docs/architecture.md, lowest first: document < team < agents < turns < lsp): move what both need down, or the code up",
        ]
    );
    assert_eq!(upward_imports(&layers, "main.rs", up), Vec::<String>::new());
}

/// Reaching into a kind's folder from outside `agents/` is found; the kinds' list and
/// other paths of `agents` are not.
#[test]
fn reaching_into_a_kinds_folder_is_found() {
    let folders = vec!["claude".to_owned(), "codex".to_owned()];
    let found = |line: &str| reached_kind_folder(line, &folders);
    assert_eq!(
        found("use crate::agents::claude::stream_input;"),
        Some("claude")
    );
    assert_eq!(
        found("    crate::agents::codex::toml_string(&mode)"),
        Some("codex")
    );
    assert_eq!(found("use crate::agents::codex;"), Some("codex"));
    assert_eq!(found("use crate::agents::kinds::FurtherPrompts;"), None);
    assert_eq!(found("use crate::agents::codexish::thing;"), None);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let listed = kind_folders(&src);
    for folder in ["claude", "codex", "gemini", "fixture_kind"] {
        assert!(listed.iter().any(|f| f == folder), "{listed:?}");
    }
}
