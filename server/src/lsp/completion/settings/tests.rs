use super::*;
use crate::agents::ConfigValue;
use pretty_assertions::assert_eq;

/// `text` with the cursor at its `|`.
fn at(text: &str) -> Option<Spot> {
    let offset = text.find('|').expect("a cursor");
    spot(&text.replace('|', ""), offset)
}

fn value(member: &str, key: &str, start: usize, quoted: bool) -> Option<Spot> {
    Some(Spot::Value {
        member: member.into(),
        key: key.into(),
        start,
        quoted,
        options: false,
    })
}

fn option(member: &str, key: &str, start: usize, quoted: bool) -> Option<Spot> {
    Some(Spot::Value {
        member: member.into(),
        key: key.into(),
        start,
        quoted,
        options: true,
    })
}

#[test]
fn mode_and_model_values_in_a_members_table() {
    assert_eq!(
        at("[members.coder]\nagent = \"acp\"\nmode = \"|"),
        value("coder", "mode", 38, true)
    );
    assert_eq!(
        at("[members.coder]\n  model=\"son|"),
        value("coder", "model", 25, true)
    );
    assert_eq!(
        at("[members.\"coder\"]\nmode = |"),
        value("coder", "mode", 25, false)
    );
    // After a comment line and a blank line the table is still the member's.
    assert_eq!(
        at("[members.coder]\n# the mode\n\nmode = \"|"),
        value("coder", "mode", 36, true)
    );
}

#[test]
fn nothing_elsewhere() {
    assert_eq!(at("mode = \"|"), None, "no table");
    assert_eq!(at("[members.coder.env]\nmode = \"|"), None);
    assert_eq!(at("[other]\nmode = \"|"), None);
    assert_eq!(at("[members.coder]\nagent = \"|"), None, "not a setting");
    assert_eq!(
        at("[members.coder]\nmode = \"plan\" |"),
        None,
        "after the value"
    );
    assert_eq!(at("[members.coder]\nmo|"), None, "a member key");
    assert_eq!(at("[[members.coder]]\nmode = \"|"), None);
}

#[test]
fn option_keys_and_values_in_an_options_table() {
    assert_eq!(
        at("[members.coder.options]\neff|"),
        Some(Spot::OptionKey {
            member: "coder".into(),
            start: 24
        })
    );
    assert_eq!(
        at("[members.coder.options]\neffort = \"h|"),
        option("coder", "effort", 34, true)
    );
}

fn options() -> Vec<ConfigChoice> {
    let v = |value: &str, name: &str, description: Option<&str>| ConfigValue {
        value: value.into(),
        name: name.into(),
        description: description.map(Into::into),
    };
    vec![
        ConfigChoice {
            id: "mode".into(),
            name: "Mode".into(),
            category: Some("mode".into()),
            current: Some("default".into()),
            values: vec![
                v(
                    "default",
                    "Default",
                    Some("Prompts for dangerous operations"),
                ),
                v("plan", "Plan Mode", None),
            ],
        },
        ConfigChoice {
            id: "llm".into(),
            name: "Model".into(),
            category: Some("model".into()),
            current: None,
            values: vec![v("opus[1m]", "Opus", None)],
        },
    ]
}

fn range(start: usize) -> Range {
    Range::new(Position::new(0, start as u32), Position::new(0, 99))
}

#[test]
fn values_come_with_their_names_and_descriptions() {
    let spot = value("coder", "mode", 7, true).unwrap();
    let items = items(&spot, &options(), range);
    let shown: Vec<(&str, Option<&str>)> = items
        .iter()
        .map(|i| (i.label.as_str(), i.detail.as_deref()))
        .collect();
    assert_eq!(
        shown,
        [
            ("default", Some("Default (in force in its last session)")),
            ("plan", Some("Plan Mode"))
        ]
    );
    assert_eq!(
        items[0].documentation,
        Some(Documentation::String(
            "Prompts for dangerous operations".into()
        ))
    );
    assert_eq!(
        items[1].text_edit,
        Some(CompletionTextEdit::Edit(TextEdit::new(
            range(7),
            "plan".into()
        )))
    );
    // `model` finds the setting of that category; without a quote typed, one is added.
    let spot = value("coder", "model", 8, false).unwrap();
    let items = super::items(&spot, &options(), range);
    assert_eq!(
        items[0].text_edit,
        Some(CompletionTextEdit::Edit(TextEdit::new(
            range(8),
            "\"opus[1m]\"".into()
        )))
    );
    let unknown = option("coder", "effort", 8, true).unwrap();
    assert_eq!(super::items(&unknown, &options(), range), []);
    // In the options table a key is the setting's id: `llm`, not its category.
    let by_id = option("coder", "model", 8, true).unwrap();
    assert_eq!(super::items(&by_id, &options(), range), []);
    let by_id = option("coder", "llm", 8, true).unwrap();
    assert_eq!(super::items(&by_id, &options(), range).len(), 1);
}

#[test]
fn a_boolean_setting_offers_true_and_false_unquoted() {
    let mut options = options();
    options.push(ConfigChoice {
        id: "fast".into(),
        name: "Fast".into(),
        category: None,
        current: Some("false".into()),
        values: Vec::new(),
    });
    let spot = option("coder", "fast", 5, false).unwrap();
    let shown: Vec<Option<CompletionTextEdit>> = items(&spot, &options, range)
        .into_iter()
        .map(|i| i.text_edit)
        .collect();
    let edit = |text: &str| {
        Some(CompletionTextEdit::Edit(TextEdit::new(
            range(5),
            text.into(),
        )))
    };
    assert_eq!(shown, [edit("true"), edit("false")]);
    let quoted = option("coder", "fast", 5, true).unwrap();
    assert_eq!(items(&quoted, &options, range), []);
}

#[test]
fn option_keys_are_the_settings_ids() {
    let spot = Spot::OptionKey {
        member: "coder".into(),
        start: 0,
    };
    let labels: Vec<String> = items(&spot, &options(), range)
        .into_iter()
        .map(|i| i.label)
        .collect();
    assert_eq!(labels, ["mode", "llm"]);
    // A value with a quote or a backslash is escaped.
    assert_eq!(escaped("a\"b\\c"), "a\\\"b\\\\c");
}
