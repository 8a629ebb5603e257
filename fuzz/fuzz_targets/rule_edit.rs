//! Writing an "Always" rule into any front matter. Whatever the text, `add_rule_edit`
//! does not panic and its edit lies in the text on character boundaries; when it gives
//! an edit, the edited front matter parses (as YAML, and through chatmd's parser with
//! no problem it did not have before), reads back the rule under that member with that
//! decision, and every other key keeps its value: read as YAML, the front matter after
//! is the one before with the one rule set. Otherwise it left the text alone with a
//! reason.
//!
//! Input: the first byte picks the decision (odd: reject) and the member (`/ 2 % 4`:
//! writer, @Writer, tester, a new member); the rest is cut at the first 0xFF into the
//! text and the rule (invalid UTF-8 replaced; a rule that is no `kind: title` pattern
//! is skipped: chatmd writes only rules it reads).
#![no_main]

use chatmd::document::front_matter::rules::{Decision, Pattern};
use chatmd::document::front_matter::{self, RuleEdit, add_rule_edit};
use libfuzzer_sys::fuzz_target;
use yaml_rust2::YamlLoader;
use yaml_rust2::yaml::{Hash, Yaml};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (text, rule) = match rest.iter().position(|&b| b == 0xFF) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &b"execute: cargo test"[..]),
    };
    let text = String::from_utf8_lossy(text);
    let rule = String::from_utf8_lossy(rule);
    // chatmd writes only rules it can read (`Pattern::exact` of a tool call); another
    // text would be a problem of its own, not of the edit.
    if Pattern::parse(&rule).is_err() {
        return;
    }
    let decision = if pick % 2 == 1 { Decision::Reject } else { Decision::Allow };
    let member = ["writer", "@Writer", "tester", "newcomer"][usize::from(pick / 2 % 4)];
    let member = member.trim_start_matches('@');

    let RuleEdit::Edit(range, new) = add_rule_edit(&text, member, &rule, decision) else {
        return;
    };
    let edited = match (text.get(..range.start), text.get(range.end..)) {
        (Some(before), Some(after)) if range.start <= range.end => format!("{before}{new}{after}"),
        _ => panic!("the edit {range:?} is not on character boundaries of {text:?}"),
    };
    let block = front_matter::locate(&edited).expect("the edited text has front matter");
    let fm = front_matter::parse(&edited, &block);
    let problems_before = front_matter::locate(&text)
        .map_or(0, |b| front_matter::parse(&text, &b).problems.len());
    assert!(fm.problems.len() <= problems_before, "{edited:?}: {:?}", fm.problems);
    let found = fm
        .permissions
        .iter()
        .filter(|m| m.member.value.eq_ignore_ascii_case(member))
        .flat_map(|m| &m.rules)
        .any(|r| r.text == rule.as_ref() && r.decision.value == decision);
    assert!(found, "the rule does not read back from {edited:?}");

    let before = yaml_of(&text).expect("the front matter before reads as YAML");
    let after = yaml_of(&edited).unwrap_or_else(|| panic!("{edited:?} does not read as YAML"));
    let mut expected = before;
    set_rule(&mut expected, member, &rule, decision.as_str());
    assert_eq!(after, expected, "{text:?} -> {edited:?}");
});

/// The front matter's YAML as one value (`Null` for none); `None` when it is no YAML.
fn yaml_of(text: &str) -> Option<Yaml> {
    let Some(block) = front_matter::locate(text) else {
        return Some(Yaml::Null);
    };
    let mut docs = YamlLoader::load_from_str(&text[block.yaml]).ok()?;
    match docs.len() {
        0 => Some(Yaml::Null),
        1 => docs.pop(),
        _ => None,
    }
}

/// `permissions.<member>.<rule> = decision`, an existing member table found as chatmd
/// finds it (`@` dropped, any case), a null value made a table; keys stay in place.
fn set_rule(root: &mut Yaml, member: &str, rule: &str, decision: &str) {
    let root = table(root);
    let permissions = slot(root, |k| k == "permissions", "permissions");
    let members = table(permissions);
    let own = |k: &str| k.strip_prefix('@').unwrap_or(k).eq_ignore_ascii_case(member);
    let rules = table(slot(members, own, member));
    *slot(rules, |k| k == rule, rule) = Yaml::String(decision.to_owned());
}

fn table(yaml: &mut Yaml) -> &mut Hash {
    if matches!(yaml, Yaml::Null) {
        *yaml = Yaml::Hash(Hash::new());
    }
    match yaml {
        Yaml::Hash(hash) => hash,
        other => panic!("an edit was made where a table is {other:?}"),
    }
}

fn slot<'h>(hash: &'h mut Hash, matches: impl Fn(&str) -> bool, key: &str) -> &'h mut Yaml {
    let key = hash
        .keys()
        .find(|k| k.as_str().is_some_and(&matches))
        .cloned()
        .unwrap_or_else(|| Yaml::String(key.to_owned()));
    if !hash.contains_key(&key) {
        hash.insert(key.clone(), Yaml::Null);
    }
    hash.get_mut(&key).expect("just found or inserted")
}
