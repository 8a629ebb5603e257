//! What a headless CLI refused to do for want of an approval, and the member
//! arguments that would allow it.
//!
//! Only claude reports refusals: `-p` cannot ask anyone, so a tool call that needs
//! approval is denied and listed in `result.permission_denials`. No recorded run shows
//! a non-empty list; its entries are read in the shape of the Agent SDK's
//! `SDKPermissionDenial` (`{tool_name, tool_use_id, tool_input}`), every member
//! optional. codex's `--json` shows no refusal at all (a command refused by the
//! read-only sandbox has no item), and gemini headless never offers a tool that
//! would need approval.

use serde::Deserialize;

use super::Denial;
use super::json::{Obj, Str, ToolInput};
use super::output::{quote, sanitized};
use super::tools::ToolArguments;

/// One entry of claude's `permission_denials`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct DenialEntry<'a> {
    #[serde(borrow)]
    pub tool_name: Str<'a>,
    #[serde(borrow)]
    pub tool_use_id: Str<'a>,
    #[serde(borrow)]
    pub tool_input: Obj<ToolInput<'a>>,
}

/// A refusal as the user sees it, and the `--allowedTools` rules that allow it.
fn claude_denial(entry: &DenialEntry<'_>) -> (Denial, Vec<String>) {
    let tool = sanitized(entry.tool_name.get().unwrap_or("tool")).into_owned();
    let argument = entry
        .tool_input
        .get()
        .and_then(ToolArguments::argument)
        .map(str::trim)
        .filter(|argument| !argument.is_empty());
    let rules = match argument {
        Some(command) if tool == "Bash" => bash_rules(command),
        _ => vec![tool.clone()],
    };
    let input = argument.map(|argument| quote(&sanitized(argument.lines().next().unwrap_or(""))));
    (Denial { tool, input }, rules)
}

/// The denials and the arguments that allow them all: `--allowedTools` and one rule
/// per distinct refusal, in the order they came.
pub fn claude_denials<'a>(
    entries: impl Iterator<Item = &'a DenialEntry<'a>>,
) -> (Vec<Denial>, Vec<String>) {
    let mut denials = Vec::new();
    let mut rules: Vec<String> = Vec::new();
    for entry in entries {
        let (denial, wanted) = claude_denial(entry);
        for rule in wanted {
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
        denials.push(denial);
    }
    let allow = if rules.is_empty() {
        Vec::new()
    } else {
        std::iter::once("--allowedTools".to_owned())
            .chain(rules)
            .collect()
    };
    (denials, allow)
}

/// `Bash(<program>:*)` for each program the command runs (a compound command needs
/// each of its parts allowed; claude checks them one by one).
fn bash_rules(command: &str) -> Vec<String> {
    let mut rules = Vec::new();
    for part in shell_parts(command) {
        let program = part
            .split_whitespace()
            // `FOO=1 cargo test` runs cargo.
            .find(|word| !word.contains('='))
            .filter(|word| !word.is_empty());
        if let Some(program) = program {
            let rule = format!("Bash({program}:*)");
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
    }
    if rules.is_empty() {
        rules.push("Bash".to_owned());
    }
    rules
}

/// The simple commands of a command line: split at `;`, `|`, `&` and line breaks
/// outside quotes (`2>&1` and `&>` are redirections, not separators).
fn shell_parts(command: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut quote: Option<char> = None;
    let mut start = 0;
    let bytes = command.as_bytes();
    for (i, c) in command.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '&') if i > 0 && matches!(bytes[i - 1], b'>' | b'<') => {}
            (None, '&') if bytes.get(i + 1) == Some(&b'>') => {}
            (None, ';' | '|' | '&' | '\n') => {
                parts.push(&command[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&command[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn entries(json: &str) -> (Vec<Denial>, Vec<String>) {
        #[derive(Deserialize)]
        struct Wrap<'a> {
            #[serde(borrow)]
            d: super::super::json::List<Obj<DenialEntry<'a>>>,
        }
        let wrap: Wrap = serde_json::from_str(json).expect("JSON");
        claude_denials(wrap.d.0.iter().filter_map(Obj::get))
    }

    #[test]
    fn denials_name_the_tool_and_what_it_acts_on() {
        let (denials, allow) = entries(
            r#"{"d":[
            {"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"touch tool-wrote.txt","description":"Run it"}},
            {"tool_name":"Write","tool_use_id":"t2","tool_input":{"file_path":"src/x.rs","content":"fn x() {}"}},
            {"tool_name":"Bash","tool_use_id":"t3","tool_input":{"command":"touch other.txt"}}
            ]}"#,
        );
        assert_eq!(
            denials,
            [
                Denial {
                    tool: "Bash".into(),
                    input: Some("touch tool-wrote.txt".into())
                },
                Denial {
                    tool: "Write".into(),
                    input: Some("src/x.rs".into())
                },
                Denial {
                    tool: "Bash".into(),
                    input: Some("touch other.txt".into())
                },
            ]
        );
        assert_eq!(allow, ["--allowedTools", "Bash(touch:*)", "Write"]);
    }

    #[test]
    fn compound_commands_need_each_program() {
        assert_eq!(
            bash_rules("cd src && RUST_LOG=1 cargo test | tee log; cd src"),
            ["Bash(cd:*)", "Bash(cargo:*)", "Bash(tee:*)"]
        );
        assert_eq!(
            bash_rules("cargo test 2>&1 &> out; echo \"a;b\" | 'x|y'"),
            ["Bash(cargo:*)", "Bash(echo:*)", "Bash('x|y':*)"]
        );
        assert_eq!(bash_rules("  "), ["Bash"]);
        let (denials, allow) = entries(r#"{"d":[{"tool_name":"WebFetch"},{"x":1}]}"#);
        assert_eq!(denials[0].input, None);
        assert_eq!(allow, ["--allowedTools", "WebFetch", "tool"]);
        assert_eq!(entries(r#"{"d":[]}"#), (vec![], vec![]));
    }
}
