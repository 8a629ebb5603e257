//! Front matter parsing and editing. Whatever the text, `front_matter::locate` and
//! `front_matter::parse` do not panic; the block lies inside the text and its YAML inside
//! the block; every range (values, entries, unknown keys, problems) lies inside the
//! block on character boundaries; problems come sorted; `members` and `human` are valid
//! handles. And `set_key_edit`, on a front matter without problems written as block
//! lines (not one flow mapping; keys at the start of their lines, without a tag or an
//! anchor: the edit's limits), or on a text without one, sets the key: the edited text parses without problems and reads
//! back exactly the value set (any text for `title`, `team` and `forked_from`).
//!
//! Input: the first byte picks the key to set (`% 6`: title, team, forked_from, status,
//! max_chain, an unknown key); the rest is cut at the first 0xFF into the text and the
//! value (invalid UTF-8 replaced). For `status` the value's length picks `open` or
//! `ended`; for `max_chain` it is read as a number.
#![no_main]

use chatmd::document::front_matter::{self, FrontMatter, set_key_edit};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (text, value) = match rest.iter().position(|&b| b == 0xFF) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let text = String::from_utf8_lossy(text);
    let value = String::from_utf8_lossy(value);

    let fm = front_matter::locate(&text).map(|block| {
        let fm = front_matter::parse(&text, &block);
        check(&fm, &text);
        fm
    });

    // The edit's limits: keys after a problem are not seen, and the new line goes at
    // column 0 of a block mapping.
    if let Some(fm) = &fm
        && (!fm.problems.is_empty()
            || text[fm.block.yaml.clone()]
                .trim_start()
                .starts_with(['{', '['])
            || fm
                .entries
                .iter()
                .any(|e| !plain_key_line(&text, &e.key.range)))
    {
        return;
    }
    let (key, value) = match pick % 6 {
        0 => ("title", value.into_owned()),
        1 => ("team", value.into_owned()),
        2 => ("forked_from", value.into_owned()),
        3 => ("status", ["open", "ended"][value.len() % 2].to_owned()),
        4 => ("max_chain", number(&value).to_string()),
        _ => ("x-fuzz", value.into_owned()),
    };
    let (range, new) = set_key_edit(&text, fm.as_ref(), key, &value);
    assert!(
        text.get(range.clone()).is_some(),
        "edit {range:?} off the text"
    );
    let edited = format!("{}{new}{}", &text[..range.start], &text[range.end..]);
    let block = front_matter::locate(&edited)
        .unwrap_or_else(|| panic!("no front matter after setting {key}: {edited:?}"));
    let after = front_matter::parse(&edited, &block);
    check(&after, &edited);
    assert_eq!(
        after.problems,
        [],
        "setting {key} = {value:?} gave {edited:?}"
    );
    let read = match key {
        "title" => after.title.map(|v| v.value),
        "team" => after.team.map(|v| v.value),
        "forked_from" => after.forked_from.map(|v| v.value),
        "status" => after.status.map(|v| v.value.as_str().to_owned()),
        "max_chain" => after.max_chain.map(|v| v.value.to_string()),
        _ => after.entry(key).map(|_| value.clone()),
    };
    assert_eq!(read.as_deref(), Some(value.as_str()), "{edited:?}");
});

/// What every parse must hold for `text`.
fn check(fm: &FrontMatter, text: &str) {
    let block = &fm.block;
    let inside = |r: &std::ops::Range<usize>, what: &str| {
        assert!(
            block.range.start <= r.start && r.start <= r.end && r.end <= block.range.end,
            "{what} {r:?} outside the block {:?} of {text:?}",
            block.range
        );
        assert!(
            text.get(r.clone()).is_some(),
            "{what} {r:?} off a char boundary"
        );
    };
    inside(&block.range, "block");
    assert!(block.range.end <= text.len());
    inside(&block.yaml, "YAML");
    assert!(text[block.range.clone()].starts_with("---"));
    for v in [&fm.title, &fm.team, &fm.forked_from, &fm.human]
        .into_iter()
        .flatten()
    {
        inside(&v.range, "value");
    }
    if let Some(members) = &fm.members {
        for m in members {
            inside(&m.range, "member");
            assert!(front_matter::is_valid_handle(&m.value), "{:?}", m.value);
        }
    }
    if let Some(human) = &fm.human {
        assert!(front_matter::is_valid_handle(&human.value));
    }
    for e in &fm.entries {
        inside(&e.key.range, "key");
        inside(&e.value, "entry value");
    }
    for k in &fm.unknown_keys {
        inside(&k.range, "unknown key");
    }
    for p in &fm.problems {
        inside(&p.range, "problem");
        assert!(!p.message.is_empty());
    }
    assert!(
        fm.problems
            .windows(2)
            .all(|w| (w[0].range.start, w[0].range.end) <= (w[1].range.start, w[1].range.end)),
        "problems sorted"
    );
}

/// A key written the usual way: at the start of its line, a name or a quoted one (no
/// tag, anchor or `?`, which can leave the mapping itself indented).
fn plain_key_line(text: &str, key: &std::ops::Range<usize>) -> bool {
    let at = key.start;
    (at == 0 || text[..at].ends_with(['\n', '\r']))
        && text[key.clone()].starts_with(|c: char| c.is_alphanumeric() || "_\"'".contains(c))
}

fn number(value: &str) -> u32 {
    value
        .bytes()
        .fold(0u32, |n, b| n.wrapping_mul(31).wrapping_add(b.into()))
}
