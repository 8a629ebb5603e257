//! The user keeps typing while answers stream (the plain case is a row of the
//! reliability matrix, `reliability.rs`): multi-byte text with UTF-16 positions, and
//! typing at random moments and places. Nothing typed is lost or moved, nothing the
//! agent wrote is duplicated.

use chatmd_tests::sim_editor::Behaviour;
use pretty_assertions::assert_eq;

use crate::setup::{At, Setup, finished, redact, send};

#[tokio::test]
async fn utf16_positions_and_multibyte_text_land_exactly() {
    let s = Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", "Grüße 😀 — fine"),
            ("FAKE_AGENT_CHUNKS", "3"),
        ],
    )]);
    let chat = "## @me\n😀 @reviewer ça va?\n";
    let (mut editor, uri) = s
        .open_chat_utf16(Behaviour::VsCode, "team/u.chat.md", chat)
        .await;
    editor.type_before_edit(2, &uri, At::After("ça va?".into()), " 👍");
    send(&mut editor, &uri).await;
    editor
        .run_until("the answer", |e| finished(e.text(&uri)))
        .await;
    let text = redact(editor.text(&uri));
    assert!(
        text.starts_with("## @me\n😀 @reviewer ça va? 👍\n\n## @reviewer\n<!-- chatmd id=t1"),
        "{text}"
    );
    assert!(text.ends_with("-->\nGrüße 😀 — fine\n\n## @me\n"), "{text}");
}

/// Markers typed at pseudo-random moments before, inside and after the answer: each
/// is in the final text exactly once, and without them the answer is whole and in
/// its place.
async fn random_typing(behaviour: Behaviour, seed: u64) {
    let words: Vec<String> = (0..24).map(|i| format!("w{i}")).collect();
    let answer = words.join(" ");
    let s = Setup::new(&[(
        "reviewer",
        &[
            ("FAKE_AGENT_TEXT", &answer),
            ("FAKE_AGENT_CHUNKS", "12"),
            ("FAKE_AGENT_DELAY_MS", "15"),
        ],
    )]);
    let chat = "# Notes\n\n## @me\n@reviewer count\n";
    let (mut editor, uri) = s.open_chat(behaviour, "team/r.chat.md", chat).await;
    let mut state = seed;
    let mut next = || {
        // xorshift: deterministic per seed, no dependency.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut markers = Vec::new();
    for n in 0..8 {
        let marker = format!("«{n}»");
        let at = match next() % 3 {
            0 => At::After("# Notes".into()),
            1 => At::Before(format!("w{} ", next() % 12)),
            _ => At::End,
        };
        editor.type_before_edit(2 + (next() % 5) as usize, &uri, at, &marker);
        markers.push(marker);
    }
    send(&mut editor, &uri).await;
    editor
        .run_until("the whole answer", |e| {
            let t = e.text(&uri);
            !t.contains("status=streaming") && t.contains("status=done")
        })
        .await;
    let text = editor.text(&uri).to_string();
    let mut without = text.clone();
    assert!(
        !editor.typed.is_empty(),
        "seed {seed}: some typing happened"
    );
    for marker in &markers {
        let expected = usize::from(editor.typed.contains(marker));
        assert_eq!(
            text.matches(marker.as_str()).count(),
            expected,
            "seed {seed}: {marker} typed {expected} times: {text:?}"
        );
        without = without.replace(marker.as_str(), "");
    }
    let body = &without[without.find("-->\n").expect("status") + 4..];
    assert!(
        body.starts_with(&format!("{answer}\n")),
        "seed {seed}: the answer is whole at its place: {text:?}"
    );
    assert!(
        without.starts_with("# Notes\n\n## @me\n@reviewer count\n\n## @reviewer\n<!--"),
        "seed {seed}: {text:?}"
    );
}

#[tokio::test]
async fn random_typing_never_loses_or_duplicates_text_vscode() {
    for seed in [1, 7, 42, 1234] {
        random_typing(Behaviour::VsCode, seed).await;
    }
}

#[tokio::test]
async fn random_typing_never_loses_or_duplicates_text_neovim() {
    for seed in [3, 11, 99, 4321] {
        random_typing(Behaviour::Neovim, seed).await;
    }
}
