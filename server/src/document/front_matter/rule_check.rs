//! The check every rule edit passes before it is offered: the front matter, read as
//! YAML before and after, says exactly the same, plus the one rule under the member
//! it is for. An edit that would break the YAML, drop or change another key's value or
//! file the rule under another member is never written (the fuzzer found layouts, valid
//! YAML all, where the text-level edit did: indented keys, an empty key, a trailing
//! comma in a `{…}` table).

use yaml_rust2::YamlLoader;
use yaml_rust2::yaml::{Hash, Yaml};

use super::locate;
use super::rules::Decision;

/// `Ok` when `after` is `before` with `member`'s rule `rule` set to `decision` and
/// nothing else changed; else what went wrong, in words.
pub(super) fn check_rule_edit(
    before: &str,
    after: &str,
    member: &str,
    rule: &str,
    decision: Decision,
) -> Result<(), String> {
    let before = front_matter_yaml(before).map_err(|e| format!("it does not read as YAML: {e}"))?;
    let after =
        front_matter_yaml(after).map_err(|e| format!("the edit would break its YAML: {e}"))?;
    let mut expected = before;
    with_rule(&mut expected, member, rule, decision)?;
    if after == expected {
        Ok(())
    } else {
        Err("the edit would change what other keys say".into())
    }
}

/// The front matter of `text` as one YAML value (`Null` for none or an empty one).
fn front_matter_yaml(text: &str) -> Result<Yaml, String> {
    let Some(block) = locate(text) else {
        return Ok(Yaml::Null);
    };
    let docs = YamlLoader::load_from_str(&text[block.yaml]).map_err(|e| e.to_string())?;
    match docs.len() {
        0 => Ok(Yaml::Null),
        1 => Ok(docs.into_iter().next().unwrap_or(Yaml::Null)),
        _ => Err("more than one YAML document".into()),
    }
}

/// Sets `permissions.<member>.<rule>` in `root` the way the edit does: the member's
/// existing table (`@name`, any case) if it has one, else a new one at the end.
fn with_rule(root: &mut Yaml, member: &str, rule: &str, decision: Decision) -> Result<(), String> {
    let root = as_table(root).ok_or("the front matter is not a table")?;
    let permissions = entry(root, |k| k == "permissions", "permissions");
    let members = as_table(permissions).ok_or("`permissions` is not a table")?;
    let own = |k: &str| {
        k.strip_prefix('@')
            .unwrap_or(k)
            .eq_ignore_ascii_case(member)
    };
    let rules = entry(members, own, member);
    let rules = as_table(rules).ok_or("the member's permissions are not a table")?;
    *entry(rules, |k| k == rule, rule) = Yaml::String(decision.as_str().to_owned());
    Ok(())
}

/// `yaml` as a table, a `Null` (an omitted value) made an empty one.
fn as_table(yaml: &mut Yaml) -> Option<&mut Hash> {
    if matches!(yaml, Yaml::Null) {
        *yaml = Yaml::Hash(Hash::new());
    }
    match yaml {
        Yaml::Hash(hash) => Some(hash),
        _ => None,
    }
}

/// The value of the first string key of `hash` that `matches`, kept in its place, or a
/// new `Null` entry `key` at the end.
fn entry<'h>(hash: &'h mut Hash, matches: impl Fn(&str) -> bool, key: &str) -> &'h mut Yaml {
    let found = hash
        .keys()
        .find(|k| k.as_str().is_some_and(&matches))
        .cloned();
    let key = found.unwrap_or_else(|| Yaml::String(key.to_owned()));
    // Not `entry()`: on a key that is there, it moves the key to the end.
    if !hash.contains_key(&key) {
        hash.insert(key.clone(), Yaml::Null);
    }
    hash.get_mut(&key)
        .expect("the key is there: found or just inserted")
}
